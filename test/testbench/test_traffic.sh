#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Sample traffic replayed across the veth pair moves the program's counters
# exactly as the traffic generator predicts (gen_traffic.py):
#   - before the replay every counter is 0;
#   - tcpreplay from the peer namespace sends every frame (none failed);
#   - rx equals the number of frames sent: the namespaces run with IPv6 off
#     and static neighbours, so no stray frame (router solicitation, ND, ARP)
#     reaches the sensor; the sensor veth's own rx counter must agree;
#   - every counter equals the generator's expectation (no AF_XDP socket is
#     attached, so IP frames end in pass_no_socket, non-IP in pass_non_ip,
#     malformed frames in pass_error with their err_ reason; tunnel_* and
#     fragment count what the frames carry) and every other counter is 0;
#   - the accounting invariant holds: meerkatctl stats --check exits 0.
# Usage: test_traffic.sh BUILD_DIR PCAP EXPECT_JSON
set -euo pipefail
# shellcheck source=test/testbench/lib.sh
. "$(dirname "$0")/lib.sh"

[ "${1:-}" != "--skip" ] || tb_skip "${2:-no reason given}"
BUILD="${1:?usage: $0 BUILD_DIR PCAP EXPECT_JSON}"
PCAP="${2:?usage: $0 BUILD_DIR PCAP EXPECT_JSON}"
EXPECT="${3:?usage: $0 BUILD_DIR PCAP EXPECT_JSON}"
OBJ="$BUILD/xdp/meerkat.bpf.o"
CTL="$BUILD/userspace/meerkatctl"
# veth queues at most 256 frames per ring under XDP: pace the replay so none is dropped
PPS=2000

tb_require_root
tb_require_cmd xdp-loader tcpreplay ip
[ -x /usr/bin/python3 ] || tb_skip "/usr/bin/python3 not installed"
tb_require_file "$OBJ"
tb_require_file "$CTL"
tb_require_file "$PCAP"
tb_require_file "$EXPECT"
tb_setup

frames="$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["frames"])' "$EXPECT")"

tb_attach "$OBJ"
tb_ok "meerkat_xdp attached (native) to $TB_SENSOR_IF"

before="$(tb_sensor "$CTL" stats -i "$TB_SENSOR_IF" --json)" ||
	tb_fail "meerkatctl stats failed before the replay"
/usr/bin/python3 -c '
import json, sys
c = json.load(sys.stdin)["counters"]
nz = {k: v for k, v in c.items() if v}
sys.exit("counters not zero before the replay: %s" % nz if nz else 0)' <<<"$before" ||
	tb_fail "fresh program has non-zero counters"
tb_ok "all counters 0 before the replay"

link_rx() {
	ip -n "$TB_NS_SENSOR" -s -j link show dev "$TB_SENSOR_IF" |
		/usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["stats64"]["rx"]["packets"])'
}
rx0="$(link_rx)"

out="$(tb_peer tcpreplay -i "$TB_PEER_IF" --pps="$PPS" "$PCAP" 2>&1)" || {
	printf '%s\n' "$out" >&2
	tb_fail "tcpreplay failed"
}
sent="$(sed -n 's/.*Successful packets:[[:space:]]*\([0-9]*\).*/\1/p' <<<"$out")"
failed="$(sed -n 's/.*Failed packets:[[:space:]]*\([0-9]*\).*/\1/p' <<<"$out")"
if [ "$sent" != "$frames" ] || [ "$failed" != "0" ]; then
	printf '%s\n' "$out" >&2
	tb_fail "tcpreplay sent $sent frames ($failed failed), the pcap holds $frames"
fi
tb_ok "tcpreplay sent $sent frames from $TB_NS_PEER/$TB_PEER_IF, 0 failed"

ctl_rx() { tb_sensor "$CTL" stats -i "$TB_SENSOR_IF" --json | tb_json_counter rx; }
rx_reached() { [ "$(ctl_rx)" -ge "$frames" ]; }
tb_wait 10 rx_reached || true
# anything arriving late would show up here as rx > frames
sleep 0.5

after="$(tb_sensor "$CTL" stats -i "$TB_SENSOR_IF" --json)" || tb_fail "meerkatctl stats failed"
tb_sensor "$CTL" stats -i "$TB_SENSOR_IF"
rx1="$(link_rx)"

STATS_JSON="$after" /usr/bin/python3 - "$EXPECT" <<'PY' || tb_fail "counters differ from the traffic's expectation"
import json, os, sys
exp = json.load(open(sys.argv[1]))["counters"]
got = json.loads(os.environ["STATS_JSON"])["counters"]
bad = 0
unknown = sorted(set(exp) - set(got))
if unknown:
    print("expected counters unknown to the program: %s" % unknown)
    bad = 1
print("%-24s %8s %8s" % ("counter", "expected", "actual"))
for name in got:
    e, g = exp.get(name, 0), got[name]
    if e or g:
        print("%-24s %8d %8d%s" % (name, e, g, "" if e == g else "   <-- MISMATCH"))
    bad |= e != g
sys.exit(bad)
PY
tb_ok "every counter matches the generator's expectation (rx $frames)"

[ "$((rx1 - rx0))" -eq "$frames" ] ||
	tb_fail "$TB_SENSOR_IF counted $((rx1 - rx0)) received frames, $frames were sent"
tb_ok "$TB_SENSOR_IF link counter agrees: $((rx1 - rx0)) frames received"

tb_sensor "$CTL" stats -i "$TB_SENSOR_IF" --check >/dev/null ||
	tb_fail "meerkatctl stats --check: accounting invariant violated"
tb_ok "accounting invariant holds (meerkatctl stats --check)"
