#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# FTP end to end (docs/applayer.md): Debian's pyftpdlib (python3-pyftpdlib)
# serves a directory made here in the testbench's namespace pair
# (test/testbench/lib.sh) on port 2121; python's ftplib logs in
# anonymously, lists the directory and downloads a file in passive mode
# (PASV), downloads it again over EPSV and in active mode (PORT), uploads
# a file in active mode, and sends a PORT naming a foreign address (an FTP
# bounce, refused by the server). Captured on the client's veth, then
# `meerkat -r` with rules on the traffic: check_ftp_e2e.py compares every
# `ftp` event (command, argument, completion codes) with tshark's view of
# the capture, checks that each data connection is `ftp-data` and the
# control session `ftp`, and the alerts (alert ftp with content, ftpbounce,
# alert ftp-data on the file's bytes; an smtp rule never) and counters;
# then the capture replayed into the live sensor gives the same ftp events
# (not ftp_data: with two workers a data connection may go to another
# worker than its control session, docs/applayer.md).
# Cleanup (server, capture, namespaces) runs pass or fail.
#
# usage: ftp_e2e.sh MEERKAT CHECK_PY
set -euo pipefail
MEERKAT="$(readlink -f "$1")"
CHECK="$(readlink -f "$2")"
TB_WANT_QUEUES=1
# shellcheck source=test/testbench/lib.sh
. "$(dirname "$(readlink -f "$0")")/../testbench/lib.sh"

tb_require_root
for c in dumpcap tshark tcpreplay; do
	command -v "$c" >/dev/null || tb_skip "$c is not installed"
done
PY=/usr/bin/python3
"$PY" -c "import pyftpdlib" 2>/dev/null || tb_skip "pyftpdlib is not installed (python3-pyftpdlib)"
SRV_PID=""
CAP_PID=""
ftp_stop() {
	[ -n "$CAP_PID" ] && kill -INT "$CAP_PID" 2>/dev/null && wait "$CAP_PID" 2>/dev/null
	{ [ -n "$SRV_PID" ] && kill -TERM "$SRV_PID" 2>/dev/null && wait "$SRV_PID" 2>/dev/null; } || true
	CAP_PID=""
	SRV_PID=""
	return 0
}
ftp_exit() {
	local rc=$?
	set +e
	ftp_stop
	(exit "$rc")
	tb_cleanup
}
tb_setup
trap ftp_exit EXIT
tb_wire_frames

W="$TB_TMP/ftp"
mkdir -p "$W/root"
printf 'meerkat ftp file\n%.0s' $(seq 1 200) >"$W/root/hello.txt"
ip netns exec "$TB_NS_SENSOR" "$PY" -m pyftpdlib -i "$TB_SENSOR_IP" -p 2121 -w -d "$W/root" \
	2>"$W/server.err" &
SRV_PID=$!
up() { tb_peer "$PY" -c "import ftplib; f = ftplib.FTP(); f.connect('$TB_SENSOR_IP', 2121, timeout=2); f.quit()"; }
tb_wait 10 up || tb_fail "pyftpdlib did not start: $(tail -3 "$W/server.err")"

PCAP="$TB_TMP/ftp.pcap"
ip netns exec "$TB_NS_PEER" dumpcap -q -P -i "$TB_PEER_IF" -w "$PCAP" 2>"$TB_TMP/dumpcap.err" &
CAP_PID=$!
capturing() { kill -0 "$CAP_PID" && [ -s "$PCAP" ]; }
tb_wait 10 capturing || tb_fail "the capture did not start: $(cat "$TB_TMP/dumpcap.err")"
sleep 1
tb_peer "$PY" - "$TB_SENSOR_IP" <<'PY' || tb_fail "the ftplib client failed"
import ftplib
import io
import socket
import sys

f = ftplib.FTP()
f.connect(sys.argv[1], 2121, timeout=5)
f.login()
got = []
f.retrlines("LIST", got.append)
assert any("hello.txt" in l for l in got), got
for how in ("pasv", "epsv", "port"):
    buf = io.BytesIO()
    f.af = socket.AF_INET6 if how == "epsv" else socket.AF_INET  # ftplib asks EPSV for IPv6
    f.set_pasv(how != "port")
    f.retrbinary("RETR hello.txt", buf.write)
    assert buf.getvalue().startswith(b"meerkat ftp file"), how
f.af = socket.AF_INET
f.storbinary("STOR up.bin", io.BytesIO(b"uploaded by the test\n" * 100))
f.set_pasv(True)
try:
    f.sendcmd("PORT 10,9,9,9,4,1")  # another host than the client: a bounce
except ftplib.error_perm:
    pass
f.quit()
PY
sleep 1
ftp_stop
[ -s "$PCAP" ] || tb_fail "nothing captured: $(cat "$TB_TMP/dumpcap.err")"
[ -z "${KEEP_PCAP:-}" ] || cp "$PCAP" "$KEEP_PCAP"

OUT="$TB_TMP/out"
mkdir -p "$OUT"
cat >"$TB_TMP/meerkat.yaml" <<CONF
outputs:
  - eve-log:
      enabled: yes
      filename: eve.json
      types: [flow, alert, ftp]
CONF
cat >"$TB_TMP/ftp.rules" <<'RULES'
alert ftp any any -> any any (msg:"retr hello"; flow:established,to_server; content:"RETR hello.txt"; sid:1; rev:1;)
alert ftp any any -> any any (msg:"ftp bounce"; flow:established,to_server; content:"PORT "; ftpbounce; sid:2; rev:1;)
alert ftp-data any any -> any any (msg:"the file on a data connection"; content:"meerkat ftp file"; sid:3; rev:1;)
alert smtp any any -> any any (msg:"not smtp"; content:"USER"; sid:4; rev:1;)
alert ftp-data any any -> any any (msg:"the upload"; content:"uploaded by the test"; sid:5; rev:1;)
alert ftp any any -> any any (msg:"ftp.command RETR"; ftp.command; content:"RETR"; bsize:4; ftp.command_data; content:"hello.txt"; sid:6; rev:1;)
alert ftp any any -> any any (msg:"ftp.command STOR"; ftp.command; content:"STOR"; sid:7; rev:1;)
alert ftp any any -> any any (msg:"ftp bounce, transaction"; ftpbounce; sid:8; rev:1;)
RULES
"$MEERKAT" -c "$TB_TMP/meerkat.yaml" -S "$TB_TMP/ftp.rules" -r "$PCAP" -l "$OUT" \
	--stats-json "$OUT/stats.json" >"$TB_TMP/mk.out" 2>&1 ||
	tb_fail "meerkat -r failed: $(tail -5 "$TB_TMP/mk.out")"
[ -z "${KEEP_EVE:-}" ] || cp "$OUT/eve.json" "$KEEP_EVE"
python3 "$CHECK" "$PCAP" "$OUT/eve.json" "$OUT/stats.json" || tb_fail "see above"
tb_ok "ftp events agree with the dissector; data connections are ftp-data; the rules fired"

tb_live_agrees "$MEERKAT" "$OUT/eve.json" "$PCAP" "ftp" -c "$TB_TMP/meerkat.yaml"
