#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The live sensor and offline mode are one pipeline (docs/architecture.md):
# the sample traffic (TCP/HTTP, DNS, ICMP, VLAN/QinQ, GTP-U over IPv4 and
# IPv6, nested GTP-U, L2TPv2, L2TPv3, IPv4/IPv6 fragments, malformed
# frames) replayed through meerkat -i (2 queues, 2 workers) gives the same
# EVE flow records as meerkat -r on the same pcap: same flows, same packets
# and bytes per direction, same TCP flags and states, same end reason.
# check_agreement.py lists the only differences it forgives and why
# (timestamps, flow_id, in_iface, tunnel depth, IPv6 outer addresses).
# With --expect-icmp-steering (a capture of ICMP errors quoting UDP flows),
# the run must also have steered errors to the worker owning their flow and
# no error may form a flow of its own.
# Usage: test_live_agreement.sh BUILD_DIR PCAP [--expect-icmp-steering]
set -euo pipefail
# shellcheck source=test/testbench/lib.sh
. "$(dirname "$0")/lib.sh"

[ "${1:-}" != "--skip" ] || tb_skip "${2:-no reason given}"
BUILD="${1:?usage: $0 BUILD_DIR PCAP}"
PCAP="${2:?}"
STEERING="${3:-}"
TB_MEERKAT="$BUILD/userspace/meerkat"
TB_CTL="$BUILD/userspace/meerkatctl"

tb_require_root
tb_require_cmd tcpreplay bpftool ip
[ -x /usr/bin/python3 ] || tb_skip "/usr/bin/python3 not installed"
for f in "$TB_MEERKAT" "$TB_CTL" "$PCAP"; do tb_require_file "$f"; done

# ICMP errors: one queue, so the datagram and its error reach the sensor in
# order; two queues may reorder the directions of a flow before any software
# sees them (as NIC RSS queues do), and an error that overtakes its datagram
# forms a flow of its own, live as in any IDS
[ "$STEERING" != "--expect-icmp-steering" ] || TB_WANT_QUEUES=1
tb_setup
tb_meerkat_start live -i "$TB_SENSOR_IF" --workers 2 ||
	tb_fail "meerkat exited ($TB_MK_RC) before answering: $(cat "$TB_MK_DIR/err")"
# the replay keeps the pcap's order: 2,000 frames/s leaves every frame time
# to reach its worker before the next, as in the pcap
sent="$(tb_replay "$PCAP" 2000)"
taken_stable() {
	local a b
	a="$(tb_ctl stats --json | /usr/bin/python3 -c 'import json,sys; c=json.load(sys.stdin)["capture"]; print(c["sock_rx"], c["kernel_packets"])')"
	read -r a b <<<"$a"
	[ "$a" -eq "$b" ]
}
tb_wait 15 taken_stable || tb_fail "workers did not take every redirected frame"
tb_meerkat_stop TERM
[ "$TB_MK_RC" -eq 0 ] || tb_fail "meerkat exited $TB_MK_RC after SIGTERM"
grep -q '^meerkat: accounting ok' "$TB_MK_DIR/err" || tb_fail "accounting: $(grep accounting "$TB_MK_DIR/err")"
tb_ok "live: $sent frames replayed, accounting ok"

mkdir -p "$TB_TMP/offline"
"$TB_MEERKAT" -r "$PCAP" -l "$TB_TMP/offline" --workers 2 >/dev/null 2>"$TB_TMP/offline/err" ||
	tb_fail "meerkat -r failed: $(cat "$TB_TMP/offline/err")"
/usr/bin/python3 "$(dirname "$0")/check_agreement.py" "$TB_MK_DIR/eve.json" \
	"$TB_TMP/offline/eve.json" || tb_fail "live and offline flow records differ"
tb_ok "meerkat -i and meerkat -r agree on every flow record"

if [ "$STEERING" = "--expect-icmp-steering" ]; then
	/usr/bin/python3 - "$TB_MK_DIR/eve.json" <<'PY' || tb_fail "ICMP errors were not steered to their flows"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
flows = [r for r in recs if r.get("event_type") == "flow"]
stats = [r for r in recs if r.get("event_type") == "stats"][-1]["stats"]
steered = stats["capture"]["icmp_error_steered"]
icmp = [f for f in flows if f["proto"] in ("ICMP", "IPv6-ICMP")]
answered = [f for f in flows if f["proto"] == "UDP" and f["flow"]["pkts_toclient"] == 1]
print("%d UDP flows with their error, %d ICMP flows, %d errors steered" % (len(answered), len(icmp), steered))
sys.exit(0 if steered > 0 and not icmp and len(answered) == len(flows) == 200 else 1)
PY
	tb_ok "every ICMP error counted on the flow it quotes, some steered across workers"
fi
