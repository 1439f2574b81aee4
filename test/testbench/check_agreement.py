#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Compares the EVE flow records of a live run with those of `meerkat -r`
on the same capture.

Usage: check_agreement.py LIVE_EVE_JSON OFFLINE_EVE_JSON

Same flows (by addresses, ports, protocol, VLANs, tunnel type and id), each
with the same per-direction packets and bytes, TCP flags and states, flow
state and end reason. What may differ, and why (docs/operations.md,
"Live and offline agree"):
  - timestamp, flow_id, flow.start/end/age: a live flow is timed by the
    capture clock, an offline one by the pcap; flow_id mixes in the start;
  - in_iface: a live record names the capture interface, as Suricata's do;
    an offline record has none;
  - tunnel.depth: the program's 32-byte metadata has no room for it, so a
    live record says 1 whenever a tunnel was stripped (offline: how many);
  - tunnel.src_ip/dest_ip of a tunnel over IPv6: the metadata carries only a
    32-bit fold of an outer IPv6 pair, so a live record has no addresses
    there (an IPv4 outer pair must be equal).
Nothing else is normalised.
"""
import json
import sys


def load(path):
    recs = {}
    for line in open(path):
        e = json.loads(line)
        if e.get("event_type") != "flow":
            continue
        t = e.get("tunnel", {})
        k = (e["proto"], e["src_ip"], e.get("src_port"), e["dest_ip"], e.get("dest_port"),
             tuple(e.get("vlan", ())), t.get("type"), t.get("teid"), t.get("session_id"))
        recs.setdefault(k, []).append(e)
    return recs


def strip_time(e):
    e = json.loads(json.dumps(e))
    for k in ("timestamp", "flow_id"):
        e.pop(k, None)
    for k in ("start", "end", "age"):
        e["flow"].pop(k, None)
    return e


def normalise(live, off):
    """Returns (live, off) with the documented differences folded, or a reason."""
    live, off = strip_time(live), strip_time(off)
    if "in_iface" not in live or "in_iface" in off:
        return "in_iface live %r, offline %r" % (live.get("in_iface"), off.get("in_iface"))
    live.pop("in_iface")
    lt, ot = live.get("tunnel"), off.get("tunnel")
    if lt and ot:
        if lt.get("depth") != 1 or ot.get("depth", 0) < 1:
            return "tunnel depth live %s, offline %s" % (lt.get("depth"), ot.get("depth"))
        lt.pop("depth")
        ot.pop("depth")
        if ":" in ot.get("src_ip", ""):
            if "src_ip" in lt or "dest_ip" in lt:
                return "IPv6 outer pair shown live as %s -> %s" % (lt.get("src_ip"),
                                                                    lt.get("dest_ip"))
            ot.pop("src_ip")
            ot.pop("dest_ip")
    return live, off


def main():
    live, off = load(sys.argv[1]), load(sys.argv[2])
    errors = []
    nl = sum(len(v) for v in live.values())
    no = sum(len(v) for v in off.values())
    for k in sorted(set(live) | set(off), key=str):
        a, b = live.get(k, []), off.get(k, [])
        if len(a) != len(b):
            errors.append("%s: %d live record(s), %d offline" % (k, len(a), len(b)))
            continue
        for x, y in zip(sorted(a, key=lambda e: json.dumps(strip_time(e), sort_keys=True)),
                        sorted(b, key=lambda e: json.dumps(strip_time(e), sort_keys=True))):
            r = normalise(x, y)
            if isinstance(r, str):
                errors.append("%s: %s" % (k, r))
            elif r[0] != r[1]:
                errors.append("%s:\n    live    %s\n    offline %s" % (
                    k, json.dumps(r[0], sort_keys=True), json.dumps(r[1], sort_keys=True)))
    for e in errors[:20]:
        print("  " + e)
    if errors or not no:
        print("%d difference(s); %d live records, %d offline" % (len(errors), nl, no))
        return 1
    print("%d flow records agree (timestamps, flow_id, in_iface, tunnel depth and IPv6 outer "
          "pairs aside)" % no)
    return 0


if __name__ == "__main__":
    sys.exit(main())
