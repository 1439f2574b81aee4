#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# DNS end to end (docs/applayer.md): real traffic made at test time inside
# the testbench's namespace pair (test/testbench/lib.sh): unbound serves a
# local zone (A, AAAA, CNAME, MX, TXT, SRV, SOA, a name with 60 addresses
# that does not fit 512 bytes, NXDOMAIN, REFUSED for every other name, so
# nothing is ever asked of the outside world) and dig asks over UDP, over
# TCP, several questions on one TCP connection, and with the 512-byte limit
# (truncated over UDP, then again over TCP). Captured on the client's veth,
# then `meerkat -r`: check_dns_e2e.py compares every `dns` event with
# tshark's view of the same capture; then the capture replayed into the
# live sensor gives the same dns events and alerts (test/lib/check_live_events.py). Cleanup
# (server, capture, sensor, namespaces, veths) runs pass or fail.
#
# Then a rule per DNS buffer and keyword (check_dns_rules.py), each expected
# to fire exactly on the messages tshark's view says (or never); every
# alert carries the dns object; live, the same alerts.
#
# usage: dns_e2e.sh MEERKAT CHECK_PY RULES_PY
set -euo pipefail
MEERKAT="$(readlink -f "$1")"
CHECK="$(readlink -f "$2")"
RULES_PY="$(readlink -f "$3")"
TB_WANT_QUEUES=1
# shellcheck source=test/testbench/lib.sh
. "$(dirname "$(readlink -f "$0")")/../testbench/lib.sh"

tb_require_root
for c in unbound dig dumpcap tshark tcpreplay; do
	command -v "$c" >/dev/null || tb_skip "$c is not installed"
done
SRV_PID=""
CAP_PID=""
dns_stop() {
	[ -n "$CAP_PID" ] && kill -INT "$CAP_PID" 2>/dev/null && wait "$CAP_PID" 2>/dev/null
	[ -n "$SRV_PID" ] && kill -TERM "$SRV_PID" 2>/dev/null && wait "$SRV_PID" 2>/dev/null
	CAP_PID=""
	SRV_PID=""
	return 0
}
dns_exit() {
	local rc=$?
	set +e
	dns_stop
	(exit "$rc")
	tb_cleanup
}
tb_setup
trap dns_exit EXIT
tb_wire_frames

W="$TB_TMP/dns"
mkdir -p "$W"
{
	cat <<CONF
server:
	interface: $TB_SENSOR_IP
	port: 53
	do-daemonize: no
	username: ""
	chroot: ""
	directory: "$W"
	pidfile: "$W/unbound.pid"
	use-syslog: no
	logfile: "$W/unbound.log"
	do-ip6: no
	access-control: 0.0.0.0/0 allow
	local-zone: "." refuse
	local-zone: "meerkat.test." static
	local-data: "meerkat.test. 3600 IN SOA ns.meerkat.test. admin.meerkat.test. 7 3600 600 86400 300"
	local-data: "www.meerkat.test. 300 IN A 192.0.2.10"
	local-data: "www.meerkat.test. 300 IN A 192.0.2.11"
	local-data: "www.meerkat.test. 300 IN AAAA 2001:db8::10"
	local-data: "alias.meerkat.test. 300 IN CNAME www.meerkat.test."
	local-data: "meerkat.test. 300 IN MX 10 mail.meerkat.test."
	local-data: 'meerkat.test. 300 IN TXT "v=spf1 -all"'
	local-data: "_sip._tcp.meerkat.test. 300 IN SRV 10 5 5060 sip.meerkat.test."
CONF
	for i in $(seq 1 60); do
		printf '\tlocal-data: "big.meerkat.test. 300 IN A 198.51.100.%d"\n' "$i"
	done
} >"$W/unbound.conf"
unbound-checkconf "$W/unbound.conf" >/dev/null || tb_fail "unbound-checkconf: $(unbound-checkconf "$W/unbound.conf" 2>&1)"
ip netns exec "$TB_NS_SENSOR" unbound -d -c "$W/unbound.conf" &
SRV_PID=$!
ask() { tb_peer dig +time=2 +tries=1 "@$TB_SENSOR_IP" "$@"; }
ready() { ask +short www.meerkat.test A >/dev/null; }
tb_wait 10 ready || tb_fail "unbound did not answer: $(cat "$W/unbound.log" 2>/dev/null)"

PCAP="$TB_TMP/dns.pcap"
ip netns exec "$TB_NS_PEER" dumpcap -q -P -i "$TB_PEER_IF" -w "$PCAP" 2>"$TB_TMP/dumpcap.err" &
CAP_PID=$!
capturing() { kill -0 "$CAP_PID" && [ -s "$PCAP" ]; }
tb_wait 10 capturing || tb_fail "the capture did not start: $(cat "$TB_TMP/dumpcap.err")"
sleep 1
ask www.meerkat.test A >/dev/null
ask www.meerkat.test AAAA >/dev/null
ask alias.meerkat.test A >/dev/null
ask meerkat.test MX >/dev/null
ask meerkat.test TXT >/dev/null
ask _sip._tcp.meerkat.test SRV >/dev/null
ask nope.meerkat.test A >/dev/null
ask example.org A >/dev/null || true
ask +tcp www.meerkat.test A >/dev/null
# several questions on one TCP connection
ask +tcp +keepopen www.meerkat.test A alias.meerkat.test A meerkat.test MX >/dev/null
# 60 addresses do not fit 512 bytes: truncated over UDP, asked again over TCP
ask +noedns +ignore big.meerkat.test A >/dev/null
ask +noedns big.meerkat.test A >/dev/null
sleep 1
dns_stop
[ -s "$PCAP" ] || tb_fail "nothing captured: $(cat "$TB_TMP/dumpcap.err")"
[ -z "${KEEP_PCAP:-}" ] || cp "$PCAP" "$KEEP_PCAP"

OUT="$TB_TMP/out"
mkdir -p "$OUT"
cat >"$TB_TMP/meerkat.yaml" <<CONF
outputs:
  - eve-log:
      enabled: yes
      filename: eve.json
      types: [flow, dns]
CONF
"$MEERKAT" -c "$TB_TMP/meerkat.yaml" -r "$PCAP" -l "$OUT" >"$TB_TMP/mk.out" 2>&1 ||
	tb_fail "meerkat -r failed: $(tail -5 "$TB_TMP/mk.out")"
python3 "$CHECK" "$PCAP" "$OUT/eve.json" || tb_fail "see above"
tb_ok "dns events agree with the dissector"

python3 "$RULES_PY" rules "$TB_TMP/dns.rules"
# every rule loads (a rule that must not fire proves nothing otherwise)
"$MEERKAT" -T -S "$TB_TMP/dns.rules" 2>&1 | grep -q "22 rules loaded from 1 file(s), 0 failed" ||
	tb_fail "the rules did not all load: $("$MEERKAT" -T -S "$TB_TMP/dns.rules" 2>&1 | tail -3)"
mkdir -p "$TB_TMP/rules"
printf 'outputs:\n  - eve-log:\n      enabled: yes\n      filename: eve.json\n      types: [alert]\n' \
	>"$TB_TMP/alerts.yaml"
"$MEERKAT" -c "$TB_TMP/alerts.yaml" -r "$PCAP" -S "$TB_TMP/dns.rules" -l "$TB_TMP/rules" \
	>"$TB_TMP/mk.out" 2>&1 || tb_fail "meerkat -r -S failed: $(tail -5 "$TB_TMP/mk.out")"
python3 "$RULES_PY" check "$PCAP" "$TB_TMP/rules/eve.json" || tb_fail "see above"
tb_ok "every DNS buffer and keyword fires where tshark says"

tb_live_agrees "$MEERKAT" "$OUT/eve.json" "$PCAP" "dns" -c "$TB_TMP/meerkat.yaml"
# the alerts too, with their dns objects
tb_live_agrees "$MEERKAT" "$TB_TMP/rules/eve.json" "$PCAP" "alert" -c "$TB_TMP/alerts.yaml" \
	-S "$TB_TMP/dns.rules"
