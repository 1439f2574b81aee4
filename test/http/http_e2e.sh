#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# HTTP end to end (docs/applayer.md): real traffic made at test time inside
# the testbench's namespace pair (test/testbench/lib.sh) by the web server
# and client Debian ships: static, gzip+chunked, redirects, POST with
# cookies and many headers, two pipelined requests. Captured on the client's
# veth, then `meerkat -r` on it; check_http_e2e.py compares every `http`
# event with the dissector's view of the same capture and checks which
# rules of http_e2e.rules fired. Cleanup (server, capture, namespaces,
# veths) runs pass or fail.
#
# Then the same capture replayed into the live sensor: the same http events
# and alerts (test/lib/check_live_events.py).
#
# usage: http_e2e.sh MEERKAT CHECK_PY RULES
set -euo pipefail
MEERKAT="$(readlink -f "$1")"
CHECK="$(readlink -f "$2")"
RULES="$(readlink -f "$3")"
FILES_CHECK="$(dirname "$CHECK")/check_http_files.py"
# shellcheck source=test/testbench/lib.sh
. "$(dirname "$(readlink -f "$0")")/../testbench/lib.sh"
TB_WANT_QUEUES=1

tb_require_root
for c in nginx curl dumpcap tshark; do
	command -v "$c" >/dev/null || tb_skip "$c is not installed"
done
# shellcheck source=test/http/http_lib.sh
. "$(dirname "$(readlink -f "$0")")/http_lib.sh"
tb_setup
trap 'rc=$?; set +e; http_stop; (exit $rc); tb_cleanup' EXIT
tb_wire_frames

W="$TB_TMP/www"
mkdir -p "$W/site"
printf '<html><body>hello meerkat</body></html>\n' >"$W/site/index.html"
python3 -c 'import sys; sys.stdout.write("".join("line %d of the big text: zebra\n" % i for i in range(4000)))' >"$W/site/big.txt"
# a binary file larger than the inspect windows: fileinfo hashes all of it, a rule on a
# marker at 50 kB fires while it downloads (progressive inspection)
{ head -c 50000 /dev/urandom; printf 'MEERKAT-MARK-50K'; head -c 250000 /dev/urandom; } >"$W/site/blob.bin"
http_nginx_start "$W"
PCAP="$TB_TMP/http.pcap"
http_capture_start "$PCAP"
U="http://$TB_SENSOR_IP:8080"
tb_peer curl -s -m 10 -o /dev/null -A "meerkat-test/1.0" -b "session=abc123" -e "http://ref.example/start" \
	-H "X-Custom-One: alpha" -H "X-Custom-Two: beta" -H "Accept: text/html" "$U/index.html?q=one%20two"
tb_peer curl -s -m 10 -o /dev/null --compressed -A "meerkat-gzip" "$U/big.txt"
tb_peer curl -s -m 10 -o /dev/null -L -A "meerkat-redirect" "$U/old"
tb_peer curl -s -m 10 -o /dev/null -A "meerkat-post" -b "token=s3cret" -d "user=admin&pass=hunter2" "$U/post"
tb_peer curl -s -m 10 -o /dev/null -A "meerkat-404" -H "Accept-Language: de-CH" "$U/missing.php"
tb_peer curl -s -m 10 -o /dev/null -A "meerkat-blob" "$U/blob.bin"
# two requests in one segment: pipelining
tb_peer python3 - "$TB_SENSOR_IP" <<'PY'
import socket, sys, time
s = socket.create_connection((sys.argv[1], 8080))
s.sendall(b"GET /index.html HTTP/1.1\r\nHost: pipe.example\r\nUser-Agent: meerkat-pipe-1\r\n\r\n"
          b"GET /missing-pipe HTTP/1.1\r\nHost: pipe.example\r\nUser-Agent: meerkat-pipe-2\r\n"
          b"Connection: close\r\n\r\n")
data = b""
while True:
    d = s.recv(65536)
    if not d:
        break
    data += d
s.close()
PY
sleep 1
http_stop
[ -s "$PCAP" ] || tb_fail "nothing captured: $(cat "$TB_TMP/dumpcap.err")"
OUT="$TB_TMP/out"
mkdir -p "$OUT"
cat >"$TB_TMP/meerkat.yaml" <<CONF
outputs:
  - eve-log:
      enabled: yes
      filename: eve.json
      types: [alert, flow, http, files]
app-layer:
  protocols:
    http:
      libhtp:
        default-config:
          response-body-limit: 1mb
CONF
"$MEERKAT" -c "$TB_TMP/meerkat.yaml" -r "$PCAP" -S "$RULES" -l "$OUT" >"$TB_TMP/mk.out" 2>&1 ||
	tb_fail "meerkat -r failed: $(tail -5 "$TB_TMP/mk.out")"
[ -z "${KEEP_PCAP:-}" ] || cp "$PCAP" "$KEEP_PCAP"
python3 "$CHECK" "$PCAP" "$OUT/eve.json" "$RULES" || tb_fail "see above"
tb_ok "http events agree with the dissector; rules fired where expected"
python3 "$FILES_CHECK" "$PCAP" "$OUT/eve.json" "$W/site" || tb_fail "see above"
tb_ok "fileinfo events agree with the dissector's bodies and sha256sum"

# The same capture replayed into the live sensor (the server is gone: the
# program hands every frame to the workers), with the same rules: the same
# http events and alerts as offline (check_live_events.py says what may differ).
tb_live_agrees "$MEERKAT" "$OUT/eve.json" "$PCAP" "http alert fileinfo" -c "$TB_TMP/meerkat.yaml" -S "$RULES"
