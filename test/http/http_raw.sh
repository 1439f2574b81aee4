#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# HTTP as a raw-socket client writes it (docs/applayer.md): pipelining, one
# request in many segments, bare LF and mixed line endings, HTTP/0.9,
# 100-continue, CONNECT and Upgrade (to tunnel_server.py: parsing stops),
# request smuggling variants (CL+TE, two Content-Lengths, a junk
# Transfer-Encoding, obs-fold) and a VNC exchange (no protocol recognised),
# sent by raw_client.py to the web server of
# http_lib.sh in the testbench's namespace pair and captured; then
# `meerkat -r` with http_raw.rules: check_http_raw.py asserts the http
# events, the app-layer events (as alerts), the counters, and compares with
# the dissector where it parses the same. Cleanup runs pass or fail.
#
# usage: http_raw.sh MEERKAT CHECK_PY RULES
set -euo pipefail
MEERKAT="$(readlink -f "$1")"
CHECK="$(readlink -f "$2")"
RULES="$(readlink -f "$3")"
HERE="$(dirname "$(readlink -f "$0")")"
# shellcheck source=test/testbench/lib.sh
. "$HERE/../testbench/lib.sh"
TB_WANT_QUEUES=1

tb_require_root
for c in nginx dumpcap tshark curl; do
	command -v "$c" >/dev/null || tb_skip "$c is not installed"
done
# shellcheck source=test/http/http_lib.sh
. "$HERE/http_lib.sh"
TUN_PID=""
raw_stop() {
	[ -n "$TUN_PID" ] && kill -TERM "$TUN_PID" 2>/dev/null && { wait "$TUN_PID" 2>/dev/null || true; }
	TUN_PID=""
	http_stop
}
tb_setup
trap 'rc=$?; set +e; raw_stop; (exit $rc); tb_cleanup' EXIT
tb_wire_frames

W="$TB_TMP/www"
mkdir -p "$W/site"
printf '<html><body>hello raw client</body></html>\n' >"$W/site/index.html"
http_nginx_start "$W"
ip netns exec "$TB_NS_SENSOR" python3 "$HERE/tunnel_server.py" "$TB_SENSOR_IP" 8081 &
TUN_PID=$!
PCAP="$TB_TMP/raw.pcap"
http_capture_start "$PCAP"
tb_peer python3 "$HERE/raw_client.py" "$TB_SENSOR_IP" || tb_fail "the raw client failed"
sleep 1
raw_stop
[ -s "$PCAP" ] || tb_fail "nothing captured: $(cat "$TB_TMP/dumpcap.err")"
[ -z "${KEEP_PCAP:-}" ] || cp "$PCAP" "$KEEP_PCAP"
OUT="$TB_TMP/out"
mkdir -p "$OUT"
cat >"$TB_TMP/meerkat.yaml" <<CONF
outputs:
  - eve-log:
      enabled: yes
      filename: eve.json
      types: [alert, http]
CONF
"$MEERKAT" -c "$TB_TMP/meerkat.yaml" -r "$PCAP" -S "$RULES" -l "$OUT" --stats-json "$OUT/stats.json" \
	>"$TB_TMP/mk.out" 2>&1 || tb_fail "meerkat -r failed: $(tail -5 "$TB_TMP/mk.out")"
python3 "$CHECK" "$PCAP" "$OUT/eve.json" "$OUT/stats.json" "$RULES" || tb_fail "see above"
tb_ok "raw-socket cases: http events, app-layer events and counters as expected"
