#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Both directions of every flow reach one worker, whatever queue they arrive
# on (docs/architecture.md, "Q x W"). 1,000 two-direction flows (plain IPv4
# and IPv6 TCP/UDP, 802.1Q, GTP-U with per-direction TEIDs and swapped outer
# addresses, L2TPv2 with per-direction tunnel and session ids) are replayed
# into a 2-queue veth with meerkat running 2 workers:
#   - every client-to-server frame is sent from CPU 0 and every
#     server-to-client frame from CPU 1, with XPS on the peer mapping CPU 0
#     to TX queue 0 and CPU 1 to TX queue 1: the veth's per-queue counters
#     must show each direction on its own queue, so the two halves of every
#     flow really come through different sockets;
#   - after SIGTERM, check_flows.py: each flow is in exactly one EVE flow
#     record, client as src, both directions' packets and bytes in it; the
#     workers' flows_created add up to 1,000, each worker with >= 30%.
# Usage: test_live_symmetry.sh BUILD_DIR C2S_PCAP S2C_PCAP SYM_JSON
set -euo pipefail
# shellcheck source=test/testbench/lib.sh
. "$(dirname "$0")/lib.sh"

[ "${1:-}" != "--skip" ] || tb_skip "${2:-no reason given}"
BUILD="${1:?usage: $0 BUILD_DIR C2S_PCAP S2C_PCAP SYM_JSON}"
C2S="${2:?}"
S2C="${3:?}"
SYM="${4:?}"
TB_MEERKAT="$BUILD/userspace/meerkat"
TB_CTL="$BUILD/userspace/meerkatctl"
PPS=10000

tb_require_root
tb_require_cmd tcpreplay bpftool ip ethtool taskset
[ -x /usr/bin/python3 ] || tb_skip "/usr/bin/python3 not installed"
for f in "$TB_MEERKAT" "$TB_CTL" "$C2S" "$S2C" "$SYM"; do tb_require_file "$f"; done
[ "$(nproc)" -ge 2 ] || tb_skip "needs 2 CPUs to send the two directions through two queues"

tb_setup
[ "$TB_QUEUES" -eq 2 ] || tb_skip "this kernel cannot create a 2-queue veth pair"
xps="/sys/class/net/$TB_PEER_IF/queues"
ip netns exec "$TB_NS_PEER" sh -c "echo 1 >$xps/tx-0/xps_cpus && echo 2 >$xps/tx-1/xps_cpus" \
	2>/dev/null || tb_skip "cannot set XPS on the peer veth (kernel without CONFIG_XPS?)"

tb_meerkat_start sym -i "$TB_SENSOR_IF" --workers 2 ||
	tb_fail "meerkat exited ($TB_MK_RC) before answering: $(cat "$TB_MK_DIR/err")"

queue_rx() {
	tb_sensor ethtool -S "$TB_SENSOR_IF" | sed -n "s/^ *rx_queue_$1_xdp_packets: *//p"
}
q0="$(queue_rx 0)"
q1="$(queue_rx 1)"
c2s="$(tb_replay --cpu 0 "$C2S" "$PPS")"
s2c="$(tb_replay --cpu 1 "$S2C" "$PPS")"
read -r want_c2s want_s2c <<<"$(/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["frames_c2s"], d["frames_s2c"])' "$SYM")"
{ [ "$c2s" = "$want_c2s" ] && [ "$s2c" = "$want_s2c" ]; } ||
	tb_fail "tcpreplay sent $c2s + $s2c frames, the captures hold $want_c2s + $want_s2c"
tb_live_wait_taken "$((c2s + s2c))" || tb_fail "workers did not take $((c2s + s2c)) frames"
q0=$(($(queue_rx 0) - q0))
q1=$(($(queue_rx 1) - q1))
{ [ "$q0" -eq "$c2s" ] && [ "$q1" -eq "$s2c" ]; } ||
	tb_fail "veth queues received $q0 / $q1 frames: the directions did not take separate queues"
tb_ok "client->server: $c2s frames through queue 0 (CPU 0), server->client: $s2c through queue 1 (CPU 1)"

tb_meerkat_stop TERM
[ "$TB_MK_RC" -eq 0 ] || tb_fail "meerkat exited $TB_MK_RC after SIGTERM"
grep -q '^meerkat: accounting ok' "$TB_MK_DIR/err" || tb_fail "accounting: $(grep accounting "$TB_MK_DIR/err")"
/usr/bin/python3 "$(dirname "$0")/check_flows.py" "$TB_MK_DIR/eve.json" "$SYM" ||
	tb_fail "flows were split between workers or miscounted"
tb_ok "every one of the flows was seen whole by exactly one worker"
