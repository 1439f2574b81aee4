#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""meerkat's `ftp` events, flows and alerts against tshark's view of the capture.

Usage: check_ftp_e2e.py PCAP EVE_JSON STATS_JSON

The control session's commands (tshark's ftp.request.command and
ftp.request.arg) must be meerkat's ftp events' command and command_data in
order, after the greeting's event (no command); the reply codes
(ftp.response.code) the events' completion codes in the same order. PASV,
EPSV and PORT events carry the data port and mode. Every other TCP flow is
a data connection: `ftp-data`, five of them, each with an `ftp_data`
event naming its command and file (LIST, RETR three times, STOR); the
control flow is `ftp`.
Alerts: sid 1 on the three RETR, sid 2 (ftpbounce) once, on the foreign
PORT, sid 3 on the three downloads' flows, sid 5 on the upload's, sid 4
(smtp) never; the ftp.command and ftp.command_data buffers: sid 6 on the
three RETR transactions, sid 7 on the STOR; ftpbounce alone (sid 8, a
transaction rule) on the bounce's command only. Counters agree.
"""
import json
import subprocess
import sys

PCAP, EVE, STATS = sys.argv[1:4]
failures = 0


def check(ok, what):
    global failures
    if not ok:
        print("FAIL: %s" % what)
        failures += 1
    return ok


def tshark():
    cmd = ["tshark", "-r", PCAP, "-d", "tcp.port==2121,ftp", "-Y", "ftp", "-T", "fields",
           "-E", "separator=\t", "-E", "occurrence=a", "-E", "aggregator=\x1f",
           "-e", "ftp.request.command", "-e", "ftp.request.arg", "-e", "ftp.response.code"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    cmds, codes = [], []
    for line in out.splitlines():
        c, a, r = (line.split("\t") + ["", "", ""])[:3]
        if c:
            cmds.append((c.upper(), a or None))
        if r:
            codes.extend(r.split("\x1f"))
    return cmds, codes


events = [json.loads(l) for l in open(EVE)]
ftp = [e for e in events if e["event_type"] == "ftp"]
ftp.sort(key=lambda e: e["tx_id"])
cmds, codes = tshark()
check(ftp and "command" not in ftp[0]["ftp"], "the first event is the greeting's: %s" % ftp[:1])
got = [(e["ftp"]["command"], e["ftp"].get("command_data")) for e in ftp if "command" in e["ftp"]]
check(got == cmds, "commands: meerkat %s, tshark %s" % (got, cmds))
got_codes = [c for e in ftp for c in e["ftp"].get("completion_code", [])]
check(got_codes == codes, "codes: meerkat %s, tshark %s" % (got_codes, codes))
check([e["tx_id"] for e in ftp] == list(range(len(ftp))), "tx_id 0.. in order")
modes = {}
for e in ftp:
    x = e["ftp"]
    check(x["reply_received"] == "yes", "no reply: %s" % x)
    if x.get("command") in ("PASV", "EPSV", "PORT"):
        modes.setdefault(x["command"], []).append((x.get("mode"), x.get("dynamic_port", 0) > 0))
check(modes.get("PASV", [])[:1] == [("passive", True)] and modes.get("EPSV") == [("passive", True)] and
      modes.get("PORT", [])[:1] == [("active", True)], "data ports and modes: %s" % modes)
print("%d ftp events: %s" % (len(ftp), " ".join(c for c, _ in got)))

flows = [e for e in events if e["event_type"] == "flow" and e.get("proto") == "TCP"]
protos = sorted(f.get("app_proto", "-") for f in flows)
check(protos == ["ftp"] + ["ftp-data"] * 5, "flows: %s" % protos)
fd = sorted((e["ftp_data"].get("command", ""), e["ftp_data"].get("filename", ""))
            for e in events if e["event_type"] == "ftp_data")
check(fd == [("LIST", ""), ("RETR", "hello.txt"), ("RETR", "hello.txt"), ("RETR", "hello.txt"),
             ("STOR", "up.bin")], "ftp_data events: %s" % fd)
fd_flows = {e["flow_id"] for e in events if e["event_type"] == "ftp_data"}
check(fd_flows == {f["flow_id"] for f in flows if f.get("app_proto") == "ftp-data"},
      "ftp_data events are the ftp-data flows'")
alerts = {}
for e in events:
    if e["event_type"] == "alert":
        alerts.setdefault(e["alert"]["signature_id"], []).append(e)
for sid, n in ((1, 3), (2, 1), (4, 0), (6, 3), (7, 1), (8, 1)):
    check(len(alerts.get(sid, [])) == n, "sid %d fired %d times, expected %d" % (sid, len(alerts.get(sid, [])), n))
# stream rules on the data connections: a match per chunk that has the bytes; count flows
for sid, n in ((3, 3), (5, 1)):
    fl = {a["flow_id"] for a in alerts.get(sid, [])}
    check(len(fl) == n and all(a.get("app_proto") == "ftp-data" for a in alerts.get(sid, [])),
          "sid %d fired on %d ftp-data flows, expected %d" % (sid, len(fl), n))
print("alerts: %s" % {k: len(v) for k, v in sorted(alerts.items())})

st = json.load(open(STATS))["app_layer"]
check(st["ftp_flows"] == 1 and st["ftp_data_flows"] == 5 and st["ftp_gap"] == 0 and
      st["ftp_data_logged"] == 5 and
      st["ftp_data_expected"] >= 5 and st["ftp_logged"] == len(ftp),
      "counters: %s" % {k: v for k, v in st.items() if k.startswith("ftp")})
print("%d failures" % failures)
sys.exit(1 if failures else 0)
