#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks meerkat's results on the raw client's capture (http_raw.sh).

For each case (its User-Agent raw-<case>): the http events (method, url,
status) meerkat wrote; the alerts of http_raw.rules ("# expect SID UA N");
the app_layer counters (two tunnels, a parse error); and, for every case
the dissector also parses as HTTP, the same method, uri and status code as
the dissector's.

usage: check_http_raw.py PCAP EVE_JSON STATS_JSON RULES
"""
import collections
import json
import subprocess
import sys

pcap, eve, stats, rules = sys.argv[1:5]
bad = []

# case -> [(method, url, status)] in order; None: any status
WANT = {
    "raw-pipe": [("GET", "/index.html?pipe=1", 200), ("GET", "/missing-pipe", 404),
                 ("GET", "/index.html?pipe=3", 200)],
    "raw-segments": [("GET", "/index.html?segments", 200)],
    "raw-lf": [("GET", "/index.html?lf", 200)],
    "raw-mixed": [("GET", "/index.html?mixed", 200)],
    "": [("GET", "/index.html?v09", None)],  # HTTP/0.9: no headers, no User-Agent
    "raw-continue": [("POST", "/post", 200)],
    "raw-connect": [("CONNECT", "tunnel.example:443", 200)],
    "raw-upgrade": [("GET", "/ws", 101)],
    "raw-clte": [("POST", "/post", None)],
    "raw-dupcl": [("POST", "/post", None)],
    "raw-tejunk": [("POST", "/post", None)],
    "raw-fold": [("GET", "/index.html?fold", None)],
    "raw-inside": [],  # inside the tunnels: never parsed
    "raw-connect-http": [("CONNECT", "proxied.example:80", 200)],
    "raw-proxied": [("GET", "/via-proxy", None)],  # HTTP through the proxy: parsed
}

got = collections.defaultdict(list)
alerts = collections.Counter()
for line in open(eve):
    e = json.loads(line)
    h = e.get("http", {})
    ua = h.get("http_user_agent", "")
    if e["event_type"] == "http":
        got[ua].append((h.get("http_method"), h.get("url"), h.get("status")))
    elif e["event_type"] == "alert":
        alerts[(e["alert"]["signature_id"], ua if "tx_id" in e else "-")] += 1

for case, want in WANT.items():
    have = got.get(case, [])
    ok = len(have) == len(want) and all(
        w[0] == g[0] and w[1] == g[1] and (w[2] is None or w[2] == g[2]) for w, g in zip(want, have))
    if ok:
        print("%-13s %d http events as expected: %s" % (case or "(HTTP/0.9)", len(have), have))
    else:
        bad.append("%s: http events %r, expected %r" % (case or "(HTTP/0.9)", have, want))
for case in sorted(set(got) - set(WANT)):
    bad.append("unexpected http events %r: %r" % (case, got[case]))

expect = collections.defaultdict(dict)  # sid -> {ua: n}
for line in open(rules):
    if line.startswith("# expect "):
        _, _, sid, ua, n = line.split()
        expect[int(sid)][ua] = int(n)
for sid, per_ua in sorted(expect.items()):
    have = {ua: n for (s, ua), n in alerts.items() if s == sid}
    if any(have.get(ua, 0) != n for ua, n in per_ua.items()) or set(have) - set(per_ua):
        bad.append("sid %d: alerts %r, expected %r" % (sid, have, per_ua))
    else:
        print("sid %d: alerts as expected %r" % (sid, per_ua))

app = json.load(open(stats))["app_layer"]
for name, cond, what in (("http_tunnel", lambda v: v == 2, "2 (CONNECT, Upgrade)"),
                         ("http_parse_error", lambda v: v >= 1, "at least 1 (the junk Transfer-Encoding)"),
                         ("http_events", lambda v: v >= 1, "at least 1 (from libhtp's messages)")):
    if not cond(app.get(name, -1)):
        bad.append("counter %s = %s, expected %s" % (name, app.get(name), what))
    else:
        print("counter %s = %d" % (name, app[name]))


def fields(filt, names):
    out = subprocess.run(["tshark", "-2", "-r", pcap, "-o", "tcp.desegment_tcp_streams:TRUE",
                          "-Y", filt, "-T", "fields", "-E", "separator=\t", "-E", "occurrence=f"] +
                         sum([["-e", n] for n in names], []),
                         capture_output=True, text=True, check=True).stdout
    return [dict(zip(names, line.split("\t"))) for line in out.splitlines()]


# the dissector's view, case by case: its requests (in stream order) with their responses
treq = collections.defaultdict(list)
for f in fields("http.request", ["tcp.stream", "http.request.method", "http.request.uri",
                                 "http.user_agent"]):
    treq[f["tcp.stream"]].append((f["http.request.method"], f["http.request.uri"],
                                  f["http.user_agent"]))
tresp = collections.defaultdict(list)
for f in fields("http.response", ["tcp.stream", "http.response.code"]):
    # an interim answer (100 Continue) is part of its transaction, not one of its own
    if f["http.response.code"].startswith("1") and f["http.response.code"] != "101":
        continue
    tresp[f["tcp.stream"]].append(f["http.response.code"])
seen = collections.defaultdict(list)
for stream, rq in treq.items():
    for n, (method, uri, ua) in enumerate(rq):
        code = tresp[stream][n] if n < len(tresp[stream]) else ""
        seen[ua].append((method, uri, int(code) if code else None))
compared = 0
for case, have in got.items():
    t = seen.get(case)
    if not t:
        print("%-13s not parsed as HTTP by the dissector: not compared" % (case or "(HTTP/0.9)"))
        continue
    # the dissector reads one request per segment: compare those it has, in order
    for w in t:
        if w not in have and (w[0], w[1], None) not in [(g[0], g[1], None) for g in have]:
            bad.append("%s: the dissector has %r, meerkat %r" % (case, w, have))
        elif w[2] is not None and (w[0], w[1], None) in have:
            print("%-13s the response was not parsed (parsing stopped); the dissector has %r" %
                  (case, w))
            compared += 1
        elif w[2] is not None and (w[0], w[1], w[2]) not in have:
            bad.append("%s: status differs: dissector %r, meerkat %r" % (case, w, have))
        else:
            compared += 1
print("%d transactions compared with the dissector" % compared)
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
