#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""meerkat's `dns` events against tshark's view of the same capture.

Usage: check_dns_e2e.py PCAP EVE_JSON

Every DNS message tshark finds (UDP and TCP, several per segment included)
is matched to meerkat's events by the client's port, the message id and
whether it is a response; a query gives one event per question, a
response one. Compared: rrname and rrtype (the first question's for an
answer), id, opcode, rcode, the header flags, and every answer and
authority record in order: name, type, TTL and data (addresses, names,
text, the MX exchange, SRV and SOA fields). Also: every event is one
tshark saw, and the capture has queries and answers over UDP and TCP,
NXDOMAIN and REFUSED, several messages in one TCP segment and a truncated
response.
"""
import json
import subprocess
import sys

PCAP, EVE = sys.argv[1:3]
failures = 0

TYPES = {1: "A", 2: "NS", 5: "CNAME", 6: "SOA", 12: "PTR", 15: "MX", 16: "TXT", 28: "AAAA",
         33: "SRV", 41: "OPT"}
RCODES = ["NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP", "REFUSED"]


def check(ok, what):
    global failures
    if not ok:
        print("FAIL: %s" % what)
        failures += 1
    return ok


def as_list(v):
    return v if isinstance(v, list) else [v]


def records(section):
    """tshark's records of a section ({"label": {fields}}) in order."""
    return list(section.values()) if isinstance(section, dict) else []


def tshark_messages():
    out = subprocess.run(["tshark", "-r", PCAP, "-T", "json", "-Y", "dns"], check=True,
                         capture_output=True, text=True).stdout
    msgs = []
    for pkt in json.loads(out):
        lay = pkt["_source"]["layers"]
        l4 = "udp" if "udp" in lay else "tcp"
        sport, dport = int(lay[l4][l4 + ".srcport"]), int(lay[l4][l4 + ".dstport"])
        frame_msgs = as_list(lay["dns"])
        for d in frame_msgs:
            flags = d["dns.flags_tree"]
            resp = flags["dns.flags.response"] == "1"
            msgs.append({
                "l4": l4, "client_port": dport if resp else sport, "id": int(d["dns.id"], 16),
                "response": resp, "flags": int(d["dns.flags"], 16),
                "rcode": int(flags.get("dns.flags.rcode", "0")),
                "opcode": int(flags["dns.flags.opcode"]),
                "queries": records(d.get("Queries")), "answers": records(d.get("Answers")),
                "authorities": records(d.get("Authoritative nameservers")),
                "in_segment": len(frame_msgs),
            })
    return msgs


def rdata(r):
    """What meerkat's answer record should say of tshark's record @r."""
    t = int(r["dns.resp.type"])
    if t == 1:
        return {"rdata": r["dns.a"]}
    if t == 28:
        return {"rdata": r["dns.aaaa"]}
    if t == 5:
        return {"rdata": r["dns.cname"]}
    if t == 15:
        return {"rdata": r["dns.mx.mail_exchange"]}
    if t == 16:
        return {"rdata": "".join(as_list(r["dns.txt"]))}
    if t == 33:
        return {"srv": {"priority": int(r["dns.srv.priority"]), "weight": int(r["dns.srv.weight"]),
                        "port": int(r["dns.srv.port"]), "name": r["dns.srv.target"]}}
    if t == 6:
        return {"soa": {"mname": r["dns.soa.mname"], "rname": r["dns.soa.rname"],
                        "serial": int(r["dns.soa.serial_number"]),
                        "refresh": int(r["dns.soa.refresh_interval"]),
                        "retry": int(r["dns.soa.retry_interval"]),
                        "expire": int(r["dns.soa.expire_limit"]),
                        "minimum": int(r["dns.soa.minimum_ttl"])}}
    return {}


def want_rr(r):
    name = r.get("dns.resp.name")
    if name is None:  # tshark splits an SRV owner name in its parts
        name = "%s.%s.%s" % (r["dns.srv.service"], r["dns.srv.proto"], r["dns.srv.name"])
    w = {"rrname": name, "rrtype": TYPES.get(int(r["dns.resp.type"]),
                                                           r["dns.resp.type"]),
         "ttl": int(r["dns.resp.ttl"])}
    w.update(rdata(r))
    return w


def main():
    msgs = tshark_messages()
    events = [json.loads(l) for l in open(EVE)]
    dns = [e for e in events if e["event_type"] == "dns"]
    used = set()
    for m in msgs:
        mine = [i for i, e in enumerate(dns) if i not in used and e["dns"]["id"] == m["id"] and
                (e["dns"]["type"] == "answer") == m["response"] and
                (e["src_port"] if e["src_port"] != 53 else e["dest_port"]) == m["client_port"]]
        what = "%s %s id %d port %d" % (m["l4"], "answer" if m["response"] else "query", m["id"],
                                        m["client_port"])
        nq = len(m["queries"])
        want_n = 1 if m["response"] else max(nq, 1)
        if not check(len(mine) >= want_n, "%s: %d events, want %d" % (what, len(mine), want_n)):
            continue
        mine = mine[:want_n]
        used.update(mine)
        for k, i in enumerate(mine):
            d = dns[i]["dns"]
            q = m["queries"][0 if m["response"] else k]
            check(d["rrname"] == q["dns.qry.name"], "%s: rrname %s, tshark %s"
                  % (what, d["rrname"], q["dns.qry.name"]))
            check(d["rrtype"] == TYPES.get(int(q["dns.qry.type"]), q["dns.qry.type"]),
                  "%s: rrtype %s, tshark %s" % (what, d["rrtype"], q["dns.qry.type"]))
            check(d["opcode"] == m["opcode"], "%s: opcode" % what)
            check(dns[i]["proto"] == m["l4"].upper(), "%s: proto %s" % (what, dns[i]["proto"]))
            if not m["response"]:
                continue
            check(d["flags"] == "%04x" % m["flags"], "%s: flags %s, tshark %04x"
                  % (what, d["flags"], m["flags"]))
            for bit, name in ((0x8000, "qr"), (0x0400, "aa"), (0x0200, "tc"), (0x0100, "rd"),
                              (0x0080, "ra")):
                check(d.get(name, False) == bool(m["flags"] & bit), "%s: %s" % (what, name))
            check(d["rcode"] == RCODES[m["rcode"]], "%s: rcode %s, tshark %s"
                  % (what, d["rcode"], RCODES[m["rcode"]]))
            for sec in ("answers", "authorities"):
                want = [want_rr(r) for r in m[sec]]
                check(d.get(sec, []) == want, "%s: %s\n  meerkat %s\n  tshark  %s"
                      % (what, sec, d.get(sec), want))
            grouped = {}
            for r in d.get("answers", []):
                if "rdata" in r:
                    grouped.setdefault(r["rrtype"], []).append(r["rdata"])
            check(d.get("grouped", {}) == grouped, "%s: grouped %s" % (what, d.get("grouped")))
    check(len(used) == len(dns), "%d dns events tshark has no message for" % (len(dns) - len(used)))
    seen = lambda f: any(f(m) for m in msgs)
    check(seen(lambda m: m["l4"] == "udp" and m["response"]), "the capture has UDP answers")
    check(seen(lambda m: m["l4"] == "tcp" and m["response"]), "the capture has TCP answers")
    check(seen(lambda m: m["response"] and m["rcode"] == 3 and m["authorities"]),
          "the capture has NXDOMAIN with an SOA")
    check(seen(lambda m: m["response"] and m["rcode"] == 5), "the capture has REFUSED")
    check(seen(lambda m: m["response"] and m["flags"] & 0x0200), "the capture has a truncated answer")
    check(seen(lambda m: m["response"] and len(m["answers"]) == 60), "the capture has 60 answers")
    print("%d tshark messages, %d dns events: %s" % (len(msgs), len(dns),
                                                    "%d check(s) failed" % failures if failures
                                                    else "all match"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
