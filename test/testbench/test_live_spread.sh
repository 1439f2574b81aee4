#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# One queue, two workers: the program spreads flows over the workers by the
# inner flow's hash, not by the queue (docs/architecture.md, "Q x W"), so no
# worker gets more than 65% of the flows even when
#   1. 1,000 plain UDP flows arrive on the single queue;
#   2. the same 1,000 flows are inside ONE GTP-U tunnel (one outer address
#      pair, one TEID per direction: what a NIC's RSS puts on one queue);
#   3. the same 1,000 flows are inside ONE L2TPv2 session.
# Each capture is replayed into a single-queue veth; the workers'
# flows_created (meerkatctl stats) must grow by exactly 1,000 (the tunnel
# context keeps the three sets apart) and the larger share must be <= 65%.
# Usage: test_live_spread.sh BUILD_DIR SPREAD_JSON PLAIN_PCAP GTPU_PCAP L2TP_PCAP
set -euo pipefail
# shellcheck source=test/testbench/lib.sh
. "$(dirname "$0")/lib.sh"

[ "${1:-}" != "--skip" ] || tb_skip "${2:-no reason given}"
BUILD="${1:?usage: $0 BUILD_DIR SPREAD_JSON PLAIN_PCAP GTPU_PCAP L2TP_PCAP}"
SPREAD="${2:?}"
TB_MEERKAT="$BUILD/userspace/meerkat"
TB_CTL="$BUILD/userspace/meerkatctl"
PPS=10000
MAX_SHARE=65

tb_require_root
tb_require_cmd tcpreplay bpftool ip
[ -x /usr/bin/python3 ] || tb_skip "/usr/bin/python3 not installed"
for f in "$TB_MEERKAT" "$TB_CTL" "$SPREAD" "$3" "$4" "$5"; do tb_require_file "$f"; done

TB_WANT_QUEUES=1
tb_setup
[ "$TB_QUEUES" -eq 1 ] || tb_fail "asked for a single-queue veth, got $TB_QUEUES queues"
tb_meerkat_start spread -i "$TB_SENSOR_IF" --workers 2 ||
	tb_fail "meerkat exited ($TB_MK_RC) before answering: $(cat "$TB_MK_DIR/err")"
q="$(tb_ctl status --json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["interfaces"][0]["queues"])')"
[ "$q" -eq 1 ] || tb_fail "meerkat serves $q queues, the veth has 1"

# Prints each worker's flows_created, space-separated.
created() {
	tb_ctl stats --json | /usr/bin/python3 -c '
import json, sys
print(" ".join(str(w["flows_created"]) for w in json.load(sys.stdin)["workers"]))'
}
created_sum_is() {
	local s=0 n
	for n in $(created); do s=$((s + n)); done
	[ "$s" -eq "$1" ]
}

total_frames=0
total_flows=0
for kind in plain gtpu l2tp; do
	case "$kind" in
	plain) pcap="$3" what="plain UDP" ;;
	gtpu) pcap="$4" what="inside one GTP-U tunnel" ;;
	l2tp) pcap="$5" what="inside one L2TPv2 session" ;;
	esac
	read -r frames flows <<<"$(/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))[sys.argv[2]]
print(d["frames"], d["flows"])' "$SPREAD" "$kind")"
	read -r -a before <<<"$(created)"
	sent="$(tb_replay "$pcap" "$PPS")"
	[ "$sent" -eq "$frames" ] || tb_fail "$kind: tcpreplay sent $sent frames of $frames"
	total_frames=$((total_frames + frames))
	total_flows=$((total_flows + flows))
	tb_live_wait_taken "$total_frames" || tb_fail "$kind: workers did not take every frame"
	tb_wait 5 created_sum_is "$total_flows" ||
		tb_fail "$kind: workers created $(created) flows in all, expected $total_flows"
	read -r -a after <<<"$(created)"
	w0=$((after[0] - before[0]))
	w1=$((after[1] - before[1]))
	big=$((w0 > w1 ? w0 : w1))
	share=$((100 * big / flows))
	[ "$share" -le "$MAX_SHARE" ] ||
		tb_fail "$kind: $flows flows $what split $w0 / $w1: one worker has $share% (> $MAX_SHARE%)"
	tb_ok "$flows flows $what on one queue: worker 0 $w0, worker 1 $w1 (largest $share% <= $MAX_SHARE%)"
done

tb_meerkat_stop TERM
[ "$TB_MK_RC" -eq 0 ] || tb_fail "meerkat exited $TB_MK_RC after SIGTERM"
grep -q '^meerkat: accounting ok' "$TB_MK_DIR/err" || tb_fail "accounting: $(grep accounting "$TB_MK_DIR/err")"
tb_ok "accounting ok after $total_frames frames"
