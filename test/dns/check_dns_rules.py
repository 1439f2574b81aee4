#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""DNS rules on real traffic, against tshark's view of it.

Usage: check_dns_rules.py rules RULES_OUT        (writes the rules)
       check_dns_rules.py check PCAP EVE_JSON    (checks the alerts)

One rule per DNS buffer and keyword (docs/rules.md "DNS and TLS"), some
that must not fire. Each rule's expected alerts are the DNS messages of
tshark's view it holds for: a rule read on the query fires once per query
(its response is the same transaction), a to_client rule once per
response. Every alert must be of such a message (matched by the message
id, the client's port and whether it is a response), carry `app_proto`
dns and the dns object: `query` records whose rrname and rrtype are the
message's questions, and for a response `answer` with its rcode.
"""
import hashlib
import json
import subprocess
import sys

TYPES = {1: "A", 2: "NS", 5: "CNAME", 6: "SOA", 12: "PTR", 15: "MX", 16: "TXT", 28: "AAAA",
         33: "SRV"}
RCODES = ["NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP", "REFUSED"]
WWW_SHA256 = hashlib.sha256(b"www.meerkat.test").hexdigest()
failures = 0


def check(ok, what):
    global failures
    if not ok:
        print("FAIL: %s" % what)
        failures += 1
    return ok


def as_list(v):
    return v if isinstance(v, list) else [v]


def messages(pcap):
    out = subprocess.run(["tshark", "-r", pcap, "-T", "json", "-Y", "dns"], check=True,
                         capture_output=True, text=True).stdout
    msgs = []
    for pkt in json.loads(out):
        lay = pkt["_source"]["layers"]
        l4 = "udp" if "udp" in lay else "tcp"
        sport, dport = int(lay[l4][l4 + ".srcport"]), int(lay[l4][l4 + ".dstport"])
        for d in as_list(lay["dns"]):
            flags = d["dns.flags_tree"]
            resp = flags["dns.flags.response"] == "1"
            qs = list(d.get("Queries", {}).values()) if isinstance(d.get("Queries"), dict) else []
            ans = list(d.get("Answers", {}).values()) if isinstance(d.get("Answers"), dict) else []
            msgs.append({
                "l4": l4, "client_port": dport if resp else sport, "id": int(d["dns.id"], 16),
                "response": resp, "flags": int(d["dns.flags"], 16),
                "rcode": int(flags.get("dns.flags.rcode", "0")),
                "opcode": int(flags["dns.flags.opcode"]),
                "names": [q["dns.qry.name"] for q in qs],
                "types": [int(q["dns.qry.type"]) for q in qs],
                "answer_names": [a.get("dns.resp.name", "") for a in ans],
            })
    return msgs


Q = lambda m: not m["response"]
R = lambda m: m["response"]


def name(m):
    return m["names"][0] if m["names"] else ""


# (sid, rule text, the messages it fires on)
RULES = [
    (1, 'dns.query; content:"www.meerkat.test"; bsize:16;',
     lambda m: Q(m) and name(m) == "www.meerkat.test"),
    (2, 'dns_query; content:"MEERKAT"; nocase;', lambda m: Q(m) and "meerkat" in name(m)),
    (3, 'flow:to_client; dns.queries.rrname; content:"big."; startswith;',
     lambda m: R(m) and name(m).startswith("big.")),
    (4, 'dns.answer.name; content:"www.meerkat.test"; bsize:16;',
     lambda m: R(m) and "www.meerkat.test" in m["answer_names"]),
    (5, "dns.opcode:0;", Q),
    (6, "dns.opcode:!0;", lambda m: Q(m) and m["opcode"] != 0),
    (7, "dns.rcode:NXDOMAIN;", lambda m: R(m) and m["rcode"] == 3),
    (8, "dns.rcode:5;", lambda m: R(m) and m["rcode"] == 5),
    (9, "dns.rcode:!0;", lambda m: R(m) and m["rcode"] != 0),
    (10, "dns.rrtype:MX;", lambda m: Q(m) and 15 in m["types"]),
    (11, "flow:to_client; dns.rrtype:TXT;", lambda m: R(m) and 16 in m["types"]),
    (12, 'dns.rrtype:33; dns.query; content:"_sip._tcp";', lambda m: Q(m) and 33 in m["types"]),
    (13, "dns.rrtype:!A;", lambda m: Q(m) and any(t != 1 for t in m["types"])),
    (14, 'dns.query; dotprefix; content:".meerkat.test"; endswith;',
     lambda m: Q(m) and ("." + name(m)).endswith(".meerkat.test")),
    (15, 'dns.query; to_sha256; content:"|%s|";' % WWW_SHA256,
     lambda m: Q(m) and name(m) == "www.meerkat.test"),
    (16, 'dns.answer.name; content:"nope";',
     lambda m: R(m) and any("nope" in n for n in m["answer_names"])),
    (17, "app-layer-event:dns.malformed_data;", lambda m: False),
    (18, "app-layer-event:dns.z_flag_set;", lambda m: Q(m) and m["flags"] & 0x0040),
    (19, 'dns.query; content:"alias"; dns.rrtype:A;',
     lambda m: Q(m) and "alias" in name(m) and 1 in m["types"]),
    (20, 'flow:to_client; dns.rcode:NOERROR; dns.answer.name; content:"big.meerkat.test";',
     lambda m: R(m) and m["rcode"] == 0 and "big.meerkat.test" in m["answer_names"]),
]
# the header's protocol narrows it: DNS over UDP only, over TCP only
PROTO_RULES = [
    (21, "udp", 'dns.query; content:"www";', lambda m: Q(m) and m["l4"] == "udp" and
     "www" in name(m)),
    (22, "tcp", 'dns.query; content:"www";', lambda m: Q(m) and m["l4"] == "tcp" and
     "www" in name(m)),
]


def main():
    if sys.argv[1] == "rules":
        with open(sys.argv[2], "w") as f:
            for sid, text, _ in RULES:
                f.write('alert dns any any -> any any (msg:"dns rule %d"; %s sid:%d;)\n'
                        % (sid, text, sid))
            for sid, proto, text, _ in PROTO_RULES:
                f.write('alert %s any any -> any any (msg:"dns rule %d"; %s sid:%d;)\n'
                        % (proto, sid, text, sid))
        return 0
    pcap, eve = sys.argv[2:4]
    msgs = messages(pcap)
    alerts = [e for e in map(json.loads, open(eve)) if e["event_type"] == "alert"]
    table = RULES + [(sid, text, want) for sid, _, text, want in PROTO_RULES]
    fired = 0
    for sid, text, want in table:
        mine = [a for a in alerts if a["alert"]["signature_id"] == sid]
        fired += len(mine)
        wanted = [m for m in msgs if want(m)]
        got = []
        for a in mine:
            d = a.get("dns")
            if not check(d is not None and a.get("app_proto") == "dns" and d.get("query"),
                         "sid %d: alert without the dns object or app_proto" % sid):
                continue
            resp = "answer" in d
            port = a["src_port"] if a["dest_port"] == 53 else a["dest_port"]
            got.append((d["query"][0]["id"], port, resp))
            m = next((m for m in wanted if (m["id"], m["client_port"], m["response"]) ==
                      (d["query"][0]["id"], port, resp)), None)
            if not check(m is not None, "sid %d: an alert on a message tshark's view says it "
                         "does not hold for: %s" % (sid, d)):
                continue
            check([q["rrname"] for q in d["query"]] == m["names"] and
                  [q["rrtype"] for q in d["query"]] == [TYPES.get(t, str(t)) for t in m["types"]],
                  "sid %d: query records %s, tshark %s %s" % (sid, d["query"], m["names"],
                                                              m["types"]))
            if resp:
                check(d["answer"]["rcode"] == RCODES[m["rcode"]],
                      "sid %d: rcode %s, tshark %d" % (sid, d["answer"]["rcode"], m["rcode"]))
        check(sorted(got) == sorted((m["id"], m["client_port"], m["response"]) for m in wanted),
              "sid %d (%s): %d alerts, want %d" % (sid, text, len(got), len(wanted)))
    print("%d dns rules, %d messages, %d alerts: %s"
          % (len(table), len(msgs), fired, "%d check(s) failed" % failures if failures
             else "each rule fired exactly where tshark says"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
