#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""meerkat's `smtp` events and alerts against tshark's view of the same capture.

Usage: check_smtp_e2e.py PCAP EVE_JSON STATS_JSON

tshark's SMTP commands of each session (by the client's port) give the
mails (HELO/EHLO, MAIL FROM, the RCPT TOs, up to DATA's end or RSET) up to
STARTTLS; each must be one `smtp` event with the same helo, mail_from and
rcpt_to, and sessions without a mail one event with their helo. Alerts:
sid 1 and 2 once (the first mail), sid 5 (a tcp rule) on each session's greeting
(an smtp rule would not see it: the flow is not SMTP yet), sid 3 (an ftp rule) and 4 (bytes
sent inside TLS) never; the smtp.rcpt_to, smtp.helo and smtp.mail_from
buffers once per transaction that has them (sid 6 to 9); file.data on the
attachment's decoded bytes, whole (sid 10, 13), never on its base64 text
(11) nor on the body text (12); one fileinfo record, the attachment's
name, size and sha256 as smtplib sent it. Counters: 3 SMTP flows, 1 STARTTLS, 1
MIME file, none cut.
"""
import hashlib
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


def tshark_sessions():
    cmd = ["tshark", "-r", PCAP, "-d", "tcp.port==2525,smtp", "-Y", "smtp.req.command",
           "-T", "fields", "-E", "separator=\t", "-E", "occurrence=a", "-E", "aggregator=\x1f",
           "-e", "tcp.srcport", "-e", "smtp.req.command", "-e", "smtp.req.parameter"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    sessions = {}
    for line in out.splitlines():
        port, cmds, params = (line.split("\t") + ["", ""])[:3]
        cmds, params = cmds.split("\x1f"), params.split("\x1f")
        params += [""] * (len(cmds) - len(params))
        sessions.setdefault(int(port), []).extend(zip(cmds, params))
    return sessions


def expected(cmds):
    """The transactions of one session: (helo, mail_from, rcpt_to)."""
    txs, helo, cur = [], None, None
    for c, p in cmds:
        c = c.upper()
        if c in ("HELO", "EHLO"):
            helo = p
            if cur is not None and cur[1] is None:
                cur[0] = helo
        elif c == "MAIL":
            if cur is not None and cur[1] is not None:
                txs.append(tuple(cur))
                cur = None
            cur = cur or [helo, None, []]
            cur[1] = p.split(":", 1)[1].strip()
        elif c == "RCPT":
            cur = cur or [helo, None, []]
            cur[2].append(p.split(":", 1)[1].strip())
        elif c in ("RSET",) or c == "DATA":
            if c == "RSET" and cur is not None:
                txs.append(tuple(cur))
                cur = None
        elif c == "STARTTLS":
            break
        if cur is None and c not in ("MAIL", "RCPT", "RSET", "DATA"):
            cur = [helo, None, []]
        if c == "DATA":
            txs.append(tuple(cur))
            cur = None
    if cur is not None:
        txs.append(tuple(cur))
    return [(h, m, tuple(r)) for h, m, r in txs]


events = [json.loads(l) for l in open(EVE)]
smtp = {}
for e in events:
    if e["event_type"] == "smtp":
        s = e["smtp"]
        smtp.setdefault(e["src_port"], []).append(
            (s.get("helo"), s.get("mail_from"), tuple(s.get("rcpt_to", []))))
sessions = tshark_sessions()
check(len(sessions) == 3, "tshark sees %d SMTP sessions, expected 3" % len(sessions))
for port, cmds in sorted(sessions.items()):
    want = expected(cmds)
    got = smtp.get(port, [])
    check(got == want, "port %d: meerkat %s, tshark %s" % (port, got, want))
    print("port %d: %d transactions: %s" % (port, len(got), got))
check(set(smtp) == set(sessions), "events for sessions tshark does not see: %s" % (set(smtp) - set(sessions)))
mails = sum(1 for v in smtp.values() for t in v if t[1])
check(mails == 3, "%d mails logged, expected 3 (two on one session, one abandoned)" % mails)

flows = [e for e in events if e["event_type"] == "flow" and e.get("proto") == "TCP"]
check(flows and all(f.get("app_proto") == "smtp" for f in flows),
      "every TCP flow is smtp: %s" % [f.get("app_proto") for f in flows])
alerts = {}
for e in events:
    if e["event_type"] == "alert":
        alerts.setdefault(e["alert"]["signature_id"], []).append(e)
for sid, n in ((1, 1), (2, 1), (3, 0), (4, 0), (6, 1), (7, 1), (8, 1), (9, 3), (10, 1), (11, 0),
               (12, 0), (13, 1)):
    check(len(alerts.get(sid, [])) == n, "sid %d fired %d times, expected %d" % (sid, len(alerts.get(sid, [])), n))
greet = {a["dest_port"] for a in alerts.get(5, [])}
check(greet == set(sessions), "sid 5 on the greetings of %s, sessions %s" % (greet, set(sessions)))

files = [e for e in events if e["event_type"] == "fileinfo"]
body = b"\x00\x01binary attachment" * 50
want = {"filename": "report.bin", "size": len(body), "state": "CLOSED",
        "sha256": hashlib.sha256(body).hexdigest()}
check(len(files) == 1 and files[0].get("app_proto") == "smtp" and
      {k: files[0]["fileinfo"].get(k) for k in want} == want,
      "fileinfo records %s, expected one smtp %s" % (files, want))

st = json.load(open(STATS))["app_layer"]
check(st["smtp_flows"] == 3 and st["smtp_starttls"] == 1 and st["smtp_gap"] == 0 and
      st["smtp_mime_files"] == 1 and st["smtp_mime_limit"] == 0 and
      st["smtp_logged"] == sum(len(v) for v in smtp.values()),
      "counters: %s" % {k: v for k, v in st.items() if k.startswith("smtp")})
print("%d smtp events, %d alerts, %d failures" % (sum(len(v) for v in smtp.values()),
                                                sum(len(v) for v in alerts.values()), failures))
sys.exit(1 if failures else 0)
