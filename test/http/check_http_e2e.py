#!/usr/bin/python3
"""Checks meerkat's http events and alerts on the capture http_e2e.sh made.

Every request the dissector sees (method, uri, host without port, user
agent) with its response (code, content type without parameters) is one
http event, and the other way round; every rule of the rules file raised
exactly the alerts its "# expect SID N" line says.

usage: check_http_e2e.py PCAP EVE_JSON RULES
"""
import collections
import json
import subprocess
import sys

pcap, eve, rules = sys.argv[1:4]
bad = []


def fields(filt, names):
    out = subprocess.run(["tshark", "-2", "-r", pcap, "-o", "tcp.desegment_tcp_streams:TRUE",
                          "-Y", filt, "-T", "fields", "-E", "separator=\t"] +
                         sum([["-e", n] for n in names], []),
                         capture_output=True, text=True, check=True).stdout
    return [dict(zip(names, line.split("\t"))) for line in out.splitlines()]


# HTTP/1.1 answers in order: the n-th response of a connection answers its
# n-th request (pipelined ones included; a frame may carry several, its
# fields then hold comma-separated values)
reqs = collections.defaultdict(list)
for f in fields("http.request", ["tcp.stream", "http.request.method", "http.request.uri",
                                 "http.host", "http.user_agent"]):
    cols = [f[n].split(",") for n in ("http.request.method", "http.request.uri", "http.host",
                                      "http.user_agent")]
    reqs[f["tcp.stream"]] += list(zip(*cols))
resps = collections.defaultdict(list)
for f in fields("http.response", ["tcp.stream", "http.response.code", "http.content_type"]):
    codes = f["http.response.code"].split(",")
    ctypes = f["http.content_type"].split(",")
    ctypes += [""] * (len(codes) - len(ctypes))
    resps[f["tcp.stream"]] += list(zip(codes, ctypes))
want = collections.Counter()
for stream, rq in reqs.items():
    rs = resps[stream]
    for n, (method, uri, host, ua) in enumerate(rq):
        code, ctype = rs[n] if n < len(rs) else ("", "")
        want[(method, uri, host.rsplit(":", 1)[0], ua, code, ctype.split(";")[0])] += 1

got = collections.Counter()
alerts = collections.Counter()
alert_at = {}  # sid -> (flow_id, tx_id, timestamp) of its first alert
http_at = {}   # (flow_id, tx_id) -> timestamp of the http event (the transaction's last packet)
for line in open(eve):
    ev = json.loads(line)
    if ev["event_type"] == "alert":
        alerts[ev["alert"]["signature_id"]] += 1
        alert_at.setdefault(ev["alert"]["signature_id"],
                            (ev["flow_id"], ev.get("tx_id"), ev["timestamp"]))
        if "tx_id" in ev and ev.get("app_proto") != "http":
            bad.append("alert %d with tx_id has no app_proto http" % ev["alert"]["signature_id"])
        if "tx_id" in ev and "http" not in ev:
            bad.append("alert %d on a transaction has no http object" % ev["alert"]["signature_id"])
    elif ev["event_type"] == "http":
        http_at[(ev["flow_id"], ev["tx_id"])] = ev["timestamp"]
        h = ev["http"]
        got[(h.get("http_method", ""), h.get("url", ""), h.get("hostname", ""),
             h.get("http_user_agent", ""), str(h.get("status", "")),
             h.get("http_content_type", ""))] += 1
    elif ev["event_type"] == "flow" and ev["proto"] == "TCP":
        if ev.get("app_proto") != "http":
            bad.append("TCP flow %s without app_proto http" % ev["flow_id"])

if not want:
    bad.append("the dissector saw no HTTP request")
for k in sorted(set(want) | set(got)):
    if want[k] != got[k]:
        bad.append("transaction %r: dissector %d, meerkat %d" % (k, want[k], got[k]))
print("%d transactions, %d http events" % (sum(want.values()), sum(got.values())))

for line in open(rules):
    if line.startswith("# early "):
        # the alert came from a packet before the one that completed its transaction
        sid = int(line.split()[2])
        flow, tx, ts = alert_at.get(sid, (None, None, None))
        end = http_at.get((flow, tx))
        if ts is None or end is None or not ts < end:
            bad.append("sid %d: alert at %s, its transaction ended at %s: not earlier" % (sid, ts, end))
        else:
            print("sid %d: alert at %s, before its transaction ended at %s" % (sid, ts, end))
    if line.startswith("# expect "):
        sid, n = map(int, line.split()[2:4])
        if alerts[sid] != n:
            bad.append("sid %d: %d alerts, expected %d" % (sid, alerts[sid], n))
        else:
            print("sid %d: %d alerts, as expected" % (sid, n))
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
