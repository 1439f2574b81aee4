#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks the EVE flow records of a live run against what gen_flows.py built.

Usage: check_flows.py EVE_JSON SYM_JSON

Every generated flow must appear in exactly ONE flow record, with the client
as src, and both directions' packets and bytes counted in it. That is the
proof that one worker saw the whole flow: each worker keeps its own flow
table and writes its own record, so a flow whose directions reached two
workers shows up as two records (one per half, each with one direction
empty). The final stats event's per-worker flows_created must add up to the
number of flows for the same reason, and each worker must have had a real
share of them (>= 30%), or the check would prove nothing.
"""
import json
import sys


def key(proto, a, ap, b, bp, vlan, tunnel):
    ends = sorted([(a, ap), (b, bp)])
    return (proto, ends[0], ends[1], tuple(vlan or ()), tunnel or "")


def main():
    eve, sym = sys.argv[1], sys.argv[2]
    want = json.load(open(sym))["flows"]
    records, stats = [], None
    for line in open(eve):
        e = json.loads(line)
        if e.get("event_type") == "flow":
            records.append(e)
        elif e.get("event_type") == "stats":
            stats = e["stats"]
    got = {}
    for r in records:
        k = key(r["proto"], r["src_ip"], r.get("src_port"), r["dest_ip"], r.get("dest_port"),
                r.get("vlan"), r.get("tunnel", {}).get("type"))
        got.setdefault(k, []).append(r)
    errors = []
    for w in want:
        k = key(w["proto"], w["src_ip"], w["src_port"], w["dest_ip"], w["dest_port"],
                w.get("vlan"), w.get("tunnel"))
        rs = got.pop(k, [])
        if len(rs) != 1:
            errors.append("%s: %d records %s" % (k, len(rs), [r["flow"] for r in rs]))
            continue
        r, f = rs[0], rs[0]["flow"]
        seen = {"src_ip": r["src_ip"], "src_port": r.get("src_port"),
                "pkts_toserver": f["pkts_toserver"], "pkts_toclient": f["pkts_toclient"],
                "bytes_toserver": f["bytes_toserver"], "bytes_toclient": f["bytes_toclient"]}
        diff = {n: (v, w[n]) for n, v in seen.items() if v != w[n]}
        if diff:
            errors.append("%s: (got, want) %s" % (k, diff))
    for k, rs in got.items():
        errors.append("%s: %d unexpected record(s)" % (k, len(rs)))
    if stats is None:
        errors.append("no stats event in %s" % eve)
    else:
        created = [w["flows_created"] for w in stats["workers"]]
        if sum(created) != len(want):
            errors.append("workers created %s flows, %d were sent" % (created, len(want)))
        if min(created) < 0.3 * len(want):
            errors.append("one worker had fewer than 30%% of the flows: %s" % created)
        print("flows per worker: %s" % created)
    for e in errors[:20]:
        print("  " + e)
    if errors:
        print("%d problem(s) among %d flows, %d records" % (len(errors), len(want), len(records)))
        return 1
    print("%d flows, %d records: each flow in exactly one record with both directions"
          % (len(want), len(records)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
