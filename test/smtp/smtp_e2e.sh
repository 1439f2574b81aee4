#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# SMTP end to end (docs/applayer.md): Debian's aiosmtpd (python3-aiosmtpd,
# with STARTTLS on a certificate made here) in the testbench's namespace
# pair (test/testbench/lib.sh) on port 25 and 2525; python's smtplib sends
# two mails on one session (several recipients, a multipart message), a
# mail abandoned with RSET after HELO, and a session that turns to TLS with
# STARTTLS before its mail. Captured on the client's veth, then
# `meerkat -r` with rules on the traffic: check_smtp_e2e.py compares every
# `smtp` event with the mails tshark sees in the capture and checks the
# alerts (`alert smtp` with content on the stream fires on the plain
# sessions, never on the encrypted one; an ftp rule never; file.data on the
# attachment's decoded bytes, not its base64 text nor the body; its
# fileinfo record with its sha256) and counters;
# then the capture replayed into the live sensor gives the same smtp events.
# Cleanup (server, capture, namespaces) runs pass or fail.
#
# usage: smtp_e2e.sh MEERKAT CHECK_PY
set -euo pipefail
MEERKAT="$(readlink -f "$1")"
CHECK="$(readlink -f "$2")"
TB_WANT_QUEUES=1
# shellcheck source=test/testbench/lib.sh
. "$(dirname "$(readlink -f "$0")")/../testbench/lib.sh"

tb_require_root
for c in openssl dumpcap tshark tcpreplay; do
	command -v "$c" >/dev/null || tb_skip "$c is not installed"
done
PY=/usr/bin/python3
"$PY" -c "import aiosmtpd" 2>/dev/null || tb_skip "aiosmtpd is not installed (python3-aiosmtpd)"
SRV_PIDS=()
CAP_PID=""
smtp_stop() {
	local p
	[ -n "$CAP_PID" ] && kill -INT "$CAP_PID" 2>/dev/null && wait "$CAP_PID" 2>/dev/null
	for p in "${SRV_PIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	CAP_PID=""
	SRV_PIDS=()
	return 0
}
smtp_exit() {
	local rc=$?
	set +e
	smtp_stop
	(exit "$rc")
	tb_cleanup
}
tb_setup
trap smtp_exit EXIT
tb_wire_frames

W="$TB_TMP/smtp"
mkdir -p "$W"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$W/key.pem" -out "$W/cert.pem" -days 2 \
	-subj "/CN=mail.meerkat.test" 2>/dev/null || tb_fail "cannot make the certificate"
for port in 25 2525; do
	ip netns exec "$TB_NS_SENSOR" "$PY" -m aiosmtpd -n -c aiosmtpd.handlers.Sink \
		-l "$TB_SENSOR_IP:$port" --tlscert "$W/cert.pem" --tlskey "$W/key.pem" \
		--no-requiretls 2>"$W/server.$port.err" &
	SRV_PIDS+=($!)
done
up() { tb_peer "$PY" -c "import smtplib; smtplib.SMTP('$TB_SENSOR_IP', $1, timeout=2).quit()"; }
tb_wait 10 up 25 || tb_fail "aiosmtpd on 25 did not start: $(cat "$W/server.25.err")"
tb_wait 10 up 2525 || tb_fail "aiosmtpd on 2525 did not start: $(cat "$W/server.2525.err")"

PCAP="$TB_TMP/smtp.pcap"
ip netns exec "$TB_NS_PEER" dumpcap -q -P -i "$TB_PEER_IF" -w "$PCAP" 2>"$TB_TMP/dumpcap.err" &
CAP_PID=$!
capturing() { kill -0 "$CAP_PID" && [ -s "$PCAP" ]; }
tb_wait 10 capturing || tb_fail "the capture did not start: $(cat "$TB_TMP/dumpcap.err")"
sleep 1
tb_peer "$PY" - "$TB_SENSOR_IP" <<'PY' || tb_fail "the smtplib client failed"
import email.policy
import smtplib
import ssl
import sys
from email.message import EmailMessage

ip = sys.argv[1]
m = EmailMessage()
m["From"], m["To"], m["Subject"] = "alice@meerkat.test", "bob@meerkat.test", "report"
m["X-Meerkat-Marker"] = "first-mail"
m.set_content("the report is attached\n.\na line with a lone dot above\n")
m.add_attachment(b"\x00\x01binary attachment" * 50, maintype="application",
                 subtype="octet-stream", filename="report.bin")
with smtplib.SMTP(ip, 25, local_hostname="client.meerkat.test", timeout=5) as s:
    s.sendmail("alice@meerkat.test", ["bob@meerkat.test", "carol@meerkat.test"],
               m.as_bytes(policy=email.policy.SMTP))
    s.sendmail("dave@meerkat.test", ["erin@meerkat.test"], b"Subject: second\r\n\r\nshort\r\n")
with smtplib.SMTP(ip, 2525, timeout=5) as s:
    s.helo("old.meerkat.test")
    s.mail("<frank@meerkat.test>")
    s.rcpt("<grace@meerkat.test>")
    s.rset()
ctx = ssl.create_default_context()
ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
with smtplib.SMTP(ip, 25, local_hostname="tls.meerkat.test", timeout=5) as s:
    s.starttls(context=ctx)
    s.sendmail("secret@meerkat.test", ["hidden@meerkat.test"], b"Subject: hidden\r\n\r\nx\r\n")
PY
sleep 1
smtp_stop
[ -s "$PCAP" ] || tb_fail "nothing captured: $(cat "$TB_TMP/dumpcap.err")"
[ -z "${KEEP_PCAP:-}" ] || cp "$PCAP" "$KEEP_PCAP"

OUT="$TB_TMP/out"
mkdir -p "$OUT"
cat >"$TB_TMP/meerkat.yaml" <<CONF
outputs:
  - eve-log:
      enabled: yes
      filename: eve.json
      types: [flow, alert, smtp, fileinfo]
CONF
cat >"$TB_TMP/smtp.rules" <<'RULES'
alert smtp any any -> any any (msg:"mail from alice"; flow:established,to_server; content:"MAIL FROM:<alice@meerkat.test>"; nocase; sid:1; rev:1;)
alert smtp any any -> any any (msg:"marker in the message"; flow:established,to_server; content:"X-Meerkat-Marker|3a 20|first-mail"; sid:2; rev:1;)
alert ftp any any -> any any (msg:"not ftp"; content:"EHLO"; sid:3; rev:1;)
alert smtp any any -> any any (msg:"inside TLS"; content:"secret@meerkat.test"; sid:4; rev:1;)
alert tcp any any -> any any (msg:"server greeting"; flow:established,to_client; content:"220 "; depth:4; sid:5; rev:1;)
alert smtp any any -> any any (msg:"rcpt carol"; smtp.rcpt_to; content:"<carol@meerkat.test>"; bsize:20; sid:6; rev:1;)
alert smtp any any -> any any (msg:"abandoned mail"; smtp.helo; content:"old.meerkat.test"; smtp.mail_from; content:"frank"; sid:7; rev:1;)
alert smtp any any -> any any (msg:"helo before starttls"; smtp.helo; content:"tls.meerkat.test"; sid:8; rev:1;)
alert smtp any any -> any any (msg:"helo of the first session"; smtp.helo; content:"client.meerkat.test"; sid:9; rev:1;)
alert smtp any any -> any any (msg:"attachment decoded"; file.data; content:"|00 01|binary attachment|00 01|binary attachment"; sid:10; rev:1;)
alert smtp any any -> any any (msg:"attachment's base64 text"; file.data; content:"AAFiaW5hcnkgYXR0YWNobWVudA"; sid:11; rev:1;)
alert smtp any any -> any any (msg:"body text is no attachment"; file.data; content:"a line with a lone dot above"; sid:12; rev:1;)
alert smtp any any -> any any (msg:"attachment whole"; file.data; content:"|00 01|binary"; startswith; bsize:950; sid:13; rev:1;)
RULES
"$MEERKAT" -c "$TB_TMP/meerkat.yaml" -S "$TB_TMP/smtp.rules" -r "$PCAP" -l "$OUT" \
	--stats-json "$OUT/stats.json" >"$TB_TMP/mk.out" 2>&1 ||
	tb_fail "meerkat -r failed: $(tail -5 "$TB_TMP/mk.out")"
[ -z "${KEEP_EVE:-}" ] || cp "$OUT/eve.json" "$KEEP_EVE"
python3 "$CHECK" "$PCAP" "$OUT/eve.json" "$OUT/stats.json" || tb_fail "see above"
tb_ok "smtp events agree with the dissector; the smtp rules fired where expected"

tb_live_agrees "$MEERKAT" "$OUT/eve.json" "$PCAP" "smtp" -c "$TB_TMP/meerkat.yaml"
