#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Live and offline give the same HTTP results on the same capture.

Usage: check_http_live.py LIVE_EVE_JSON OFFLINE_EVE_JSON

Every `http` and `fileinfo` event (per flow tuple and tx_id) and every alert (per flow
tuple, tx_id and sid) of the live run equals the offline run's, field by
field, but for what a live record cannot share with an offline one:
timestamp, flow_id (mixes in the flow's start time), in_iface (live only)
and flow.start/end in an alert's flow object.
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


def load(path):
    http, alerts, files = collections.Counter(), collections.Counter(), collections.Counter()
    for line in open(path):
        e = json.loads(line)
        if e.get("event_type") == "http":
            http[norm(e)] += 1
        elif e.get("event_type") == "alert":
            alerts[norm(e)] += 1
        elif e.get("event_type") == "fileinfo":
            files[norm(e)] += 1
    return http, alerts, files


def main():
    live, offline = load(sys.argv[1]), load(sys.argv[2])
    bad = 0
    for what, lv, of in (("http", live[0], offline[0]), ("alert", live[1], offline[1]),
                         ("fileinfo", live[2], offline[2])):
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
