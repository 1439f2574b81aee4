#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Live and offline write the same events of the given types on the same capture.

Usage: check_live_events.py LIVE_EVE_JSON OFFLINE_EVE_JSON TYPE...

Every event of each TYPE (http, dns, alert, ...) of the live run equals
one of the offline run's, field by field, as many times, but for what a
live record cannot share with an offline one: timestamp, flow_id (mixes in
the flow's start time), in_iface (live only) and flow.start/end/age in an
alert's flow object. The offline run must have at least one of each type.
"""
import collections
import json
import sys

LIVE_ONLY = ("timestamp", "flow_id", "in_iface")


def norm(e):
    e = {k: v for k, v in e.items() if k not in LIVE_ONLY}
    if "flow" in e:
        e["flow"] = {k: v for k, v in e["flow"].items() if k not in ("start", "end", "age")}
    return json.dumps(e, sort_keys=True)


def load(path, types):
    events = {t: collections.Counter() for t in types}
    for line in open(path):
        e = json.loads(line)
        if e.get("event_type") in events:
            events[e["event_type"]][norm(e)] += 1
    return events


def main():
    types = sys.argv[3:]
    live, offline = load(sys.argv[1], types), load(sys.argv[2], types)
    bad = 0
    for what in types:
        lv, of = live[what], offline[what]
        if not of:
            print("FAIL: the offline run has no %s events" % what)
            bad += 1
        for rec in sorted((lv - of).keys()):
            print("FAIL: live only %s: %s" % (what, rec))
            bad += 1
        for rec in sorted((of - lv).keys()):
            print("FAIL: offline only %s: %s" % (what, rec))
            bad += 1
        if not bad:
            print("ok: %d %s events, identical live and offline" % (sum(lv.values()), what))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
