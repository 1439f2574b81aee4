#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# TLS end to end (docs/applayer.md): real sessions made at test time inside
# the testbench's namespace pair (test/testbench/lib.sh), with certificates
# made here: a root CA, an intermediate, an RSA server certificate (served
# with its chain) and an ECDSA one. `openssl s_server` serves both; the
# clients are `openssl s_client` (TLS 1.2 and 1.3, SNI, ALPN, a resumed
# session, no SNI) and curl (TLS 1.3 with the CA). Captured on the client's
# veth, then `meerkat -r`: check_tls_e2e.py compares every `tls` event with
# tshark's view of the same capture (SNI, version, JA3 and JA3S strings and
# hashes) and the certificate fields with `openssl x509` on the DER tshark
# extracts; then the capture replayed into the live sensor gives the same
# tls events. Cleanup (servers, capture, sensor, namespaces) pass or fail.
#
# Then a rule per TLS buffer and keyword (check_tls_rules.py writes them,
# with values only this capture has), each expected to fire exactly on the
# sessions tshark's view says (or never); every alert carries the tls object;
# live, the same alerts.
#
# usage: tls_e2e.sh MEERKAT CHECK_PY RULES_PY
set -euo pipefail
MEERKAT="$(readlink -f "$1")"
CHECK="$(readlink -f "$2")"
RULES_PY="$(readlink -f "$3")"
TB_WANT_QUEUES=1
# shellcheck source=test/testbench/lib.sh
. "$(dirname "$(readlink -f "$0")")/../testbench/lib.sh"

tb_require_root
for c in openssl curl dumpcap tshark tcpreplay; do
	command -v "$c" >/dev/null || tb_skip "$c is not installed"
done
PIDS=()
CAP_PID=""
tls_stop() {
	local p
	[ -n "$CAP_PID" ] && kill -INT "$CAP_PID" 2>/dev/null && wait "$CAP_PID" 2>/dev/null
	for p in "${PIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	CAP_PID=""
	PIDS=()
	return 0
}
tls_exit() {
	local rc=$?
	set +e
	tls_stop
	(exit "$rc")
	tb_cleanup
}
tb_setup
trap tls_exit EXIT
tb_wire_frames

# --- certificates: root -> intermediate -> RSA server; root -> ECDSA server ---
C="$TB_TMP/certs"
mkdir -p "$C"
(
	cd "$C"
	openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 3650 \
		-subj "/C=US/O=Meerkat Test/CN=Meerkat Test Root" 2>/dev/null
	printf 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n' >ca.ext
	openssl req -newkey rsa:2048 -nodes -keyout int.key -out int.csr \
		-subj "/C=US/O=Meerkat Test/CN=Meerkat Test Intermediate" 2>/dev/null
	openssl x509 -req -in int.csr -CA ca.pem -CAkey ca.key -set_serial 0x1001 -days 3000 \
		-extfile ca.ext -out int.pem 2>/dev/null
	printf 'subjectAltName=DNS:www.meerkat.test\n' >rsa.ext
	openssl req -newkey rsa:2048 -nodes -keyout rsa.key -out rsa.csr \
		-subj "/C=DE/ST=Berlin/L=Berlin/O=Meerkat, Inc./OU=Sensors/CN=www.meerkat.test" 2>/dev/null
	openssl x509 -req -in rsa.csr -CA int.pem -CAkey int.key -set_serial 0x00c0ffee1234 \
		-days 825 -extfile rsa.ext -out rsa.pem 2>/dev/null
	printf 'subjectAltName=DNS:ec.meerkat.test\n' >ec.ext
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ec.key -out ec.csr \
		-subj "/CN=ec.meerkat.test" 2>/dev/null
	openssl x509 -req -in ec.csr -CA ca.pem -CAkey ca.key -set_serial 0x7f -days 90 \
		-extfile ec.ext -out ec.pem 2>/dev/null
	cat rsa.pem int.pem >rsa-chain.pem
) || tb_fail "cannot make the certificates"

serve() {
	ip netns exec "$TB_NS_SENSOR" openssl s_server -quiet -www -accept "$TB_SENSOR_IP:$1" \
		-cert "$2" -key "$3" "${@:4}" </dev/null >/dev/null 2>"$TB_TMP/s_server.$1.err" &
	PIDS+=($!)
}
serve 4433 "$C/rsa-chain.pem" "$C/rsa.key" -alpn h2,http/1.1
serve 8443 "$C/ec.pem" "$C/ec.key"
up() { tb_peer openssl s_client -connect "$TB_SENSOR_IP:$1" </dev/null >/dev/null 2>&1; }
tb_wait 10 up 4433 || tb_fail "s_server on 4433 did not start: $(cat "$TB_TMP/s_server.4433.err")"
tb_wait 10 up 8443 || tb_fail "s_server on 8443 did not start: $(cat "$TB_TMP/s_server.8443.err")"

PCAP="$TB_TMP/tls.pcap"
ip netns exec "$TB_NS_PEER" dumpcap -q -P -i "$TB_PEER_IF" -w "$PCAP" 2>"$TB_TMP/dumpcap.err" &
CAP_PID=$!
capturing() { kill -0 "$CAP_PID" && [ -s "$PCAP" ]; }
tb_wait 10 capturing || tb_fail "the capture did not start: $(cat "$TB_TMP/dumpcap.err")"
sleep 1
client() {
	printf 'GET / HTTP/1.0\r\n\r\n' | tb_peer timeout 10 openssl s_client -quiet -ign_eof \
		-connect "$TB_SENSOR_IP:$1" "${@:2}" >/dev/null 2>&1 || true
}
client 4433 -servername www.meerkat.test -tls1_2 -alpn http/1.1
client 4433 -servername www.meerkat.test -tls1_3 -alpn h2
client 4433 -tls1_2 -cipher ECDHE-RSA-AES128-GCM-SHA256
client 4433 -servername www.meerkat.test -tls1_2 -sess_out "$TB_TMP/sess"
client 4433 -servername www.meerkat.test -tls1_2 -sess_in "$TB_TMP/sess"
client 8443 -servername ec.meerkat.test -tls1_2
tb_peer curl -s -m 10 -o /dev/null --cacert "$C/ca.pem" \
	--resolve "www.meerkat.test:4433:$TB_SENSOR_IP" https://www.meerkat.test:4433/ || true
sleep 1
tls_stop
[ -s "$PCAP" ] || tb_fail "nothing captured: $(cat "$TB_TMP/dumpcap.err")"
[ -z "${KEEP_PCAP:-}" ] || cp "$PCAP" "$KEEP_PCAP"

OUT="$TB_TMP/out"
mkdir -p "$OUT"
cat >"$TB_TMP/meerkat.yaml" <<CONF
outputs:
  - eve-log:
      enabled: yes
      filename: eve.json
      types: [flow, tls]
CONF
"$MEERKAT" -c "$TB_TMP/meerkat.yaml" -r "$PCAP" -l "$OUT" >"$TB_TMP/mk.out" 2>&1 ||
	tb_fail "meerkat -r failed: $(tail -5 "$TB_TMP/mk.out")"
[ -z "${KEEP_EVE:-}" ] || cp "$OUT/eve.json" "$KEEP_EVE"
python3 "$CHECK" "$PCAP" "$OUT/eve.json" 7 || tb_fail "see above"
tb_ok "tls events agree with the dissector and openssl"

python3 "$RULES_PY" rules "$PCAP" "$TB_TMP/tls.rules" || tb_fail "cannot write the rules"
mkdir -p "$TB_TMP/rules"
printf 'outputs:\n  - eve-log:\n      enabled: yes\n      filename: eve.json\n      types: [alert]\n' \
	>"$TB_TMP/alerts.yaml"
"$MEERKAT" -c "$TB_TMP/alerts.yaml" -r "$PCAP" -S "$TB_TMP/tls.rules" -l "$TB_TMP/rules" \
	>"$TB_TMP/mk.out" 2>&1 || tb_fail "meerkat -r -S failed: $(tail -5 "$TB_TMP/mk.out")"
# every rule loads (a rule that must not fire proves nothing otherwise)
"$MEERKAT" -T -S "$TB_TMP/tls.rules" 2>&1 | grep -q "32 rules loaded from 1 file(s), 0 failed" ||
	tb_fail "the rules did not all load: $("$MEERKAT" -T -S "$TB_TMP/tls.rules" 2>&1 | tail -3)"
python3 "$RULES_PY" check "$PCAP" "$TB_TMP/rules/eve.json" || tb_fail "see above"
tb_ok "every TLS buffer and keyword fires where tshark says"

# encryption-handling: bypass: every session that went encrypted is bypassed
# (locally, offline), and still logged
mkdir -p "$TB_TMP/bypass"
printf 'app-layer:\n  protocols:\n    tls:\n      encryption-handling: bypass\n' >>"$TB_TMP/meerkat.yaml"
"$MEERKAT" -c "$TB_TMP/meerkat.yaml" -r "$PCAP" -l "$TB_TMP/bypass" --stats-json "$TB_TMP/bypass/stats.json" \
	>"$TB_TMP/mk.out" 2>&1 || tb_fail "meerkat -r failed: $(tail -5 "$TB_TMP/mk.out")"
python3 - "$TB_TMP/bypass/stats.json" "$TB_TMP/bypass/eve.json" <<'PY' || tb_fail "encryption-handling: bypass"
import json, sys
s = json.load(open(sys.argv[1]))
enc, byp = s["app_layer"]["tls_encrypted"], s["worker"]["bypass_encrypted"]
tls = sum(1 for l in open(sys.argv[2]) if '"event_type":"tls"' in l)
print("tls_encrypted %d, bypass_encrypted %d, bypass_skipped %d, tls events %d"
      % (enc, byp, s["worker"]["bypass_skipped"], tls))
sys.exit(0 if enc == byp == tls == 7 and s["worker"]["bypass_skipped"] > 0 else 1)
PY
tb_ok "encryption-handling: bypass: the 7 encrypted sessions bypassed, still logged"

tb_live_agrees "$MEERKAT" "$OUT/eve.json" "$PCAP" "tls" -c "$TB_TMP/meerkat.yaml"
# the alerts too, with their tls objects
tb_live_agrees "$MEERKAT" "$TB_TMP/rules/eve.json" "$PCAP" "alert" -c "$TB_TMP/alerts.yaml" \
	-S "$TB_TMP/tls.rules"
