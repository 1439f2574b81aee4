#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The live sensor's lifecycle on the testbench veth:
#   1. start: meerkatctl status, the link and xdp-loader status all name the
#      same meerkat_xdp program, attached natively; SIGTERM: exit 0, the
#      accounting line, no program on the interface, the program freed;
#   2. kill -9 leaves the program attached (nothing can detach it); the next
#      start says it replaced it, attaches a new one, the stale one is freed,
#      and capture works (sample traffic, accounting ok); SIGHUP after moving
#      eve.json away opens a new one (logrotate); SIGINT stops it as SIGTERM
#      does and leaves nothing attached.
# (A foreign program on the interface: test_live_coexist.sh.)
# Usage: test_live_lifecycle.sh BUILD_DIR PCAP
set -euo pipefail
# shellcheck source=test/testbench/lib.sh
. "$(dirname "$0")/lib.sh"

[ "${1:-}" != "--skip" ] || tb_skip "${2:-no reason given}"
BUILD="${1:?usage: $0 BUILD_DIR PCAP}"
PCAP="${2:?}"
TB_MEERKAT="$BUILD/userspace/meerkat"
TB_CTL="$BUILD/userspace/meerkatctl"

tb_require_root
tb_require_cmd tcpreplay bpftool ip xdp-loader
[ -x /usr/bin/python3 ] || tb_skip "/usr/bin/python3 not installed"
for f in "$TB_MEERKAT" "$TB_CTL" "$PCAP"; do tb_require_file "$f"; done

status_prog_id() {
	tb_ctl status --json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["interfaces"][0]["prog_id"])'
}
loader_row() { awk -v ifc="$TB_SENSOR_IF" '$1 == ifc' <<<"$(tb_sensor xdp-loader status "$TB_SENSOR_IF")"; }

tb_setup

# --- 1. start and SIGTERM --------------------------------------------------
tb_meerkat_start run1 -i "$TB_SENSOR_IF" --workers 2 ||
	tb_fail "meerkat exited ($TB_MK_RC) before answering: $(cat "$TB_MK_DIR/err")"
id1="$(tb_sensor_prog_id)"
[ -n "$id1" ] || tb_fail "no XDP program on $TB_SENSOR_IF while meerkat runs"
[ "$(status_prog_id)" = "$id1" ] || tb_fail "meerkatctl status names program $(status_prog_id), the link runs $id1"
row="$(loader_row)"
grep -q "meerkat_xdp.*native.*$id1\|xdp_dispatcher.*native" <<<"$row" ||
	tb_fail "xdp-loader status does not show meerkat_xdp ($id1) in native mode: $row"
tb_ok "running: program $id1 on $TB_SENSOR_IF, the same in meerkatctl status and xdp-loader status"
tb_meerkat_stop TERM
[ "$TB_MK_RC" -eq 0 ] || tb_fail "meerkat exited $TB_MK_RC after SIGTERM"
grep -q '^meerkat: accounting ok' "$TB_MK_DIR/err" || tb_fail "no accounting line after SIGTERM"
[ -z "$(tb_sensor_prog_id)" ] || tb_fail "SIGTERM left program $(tb_sensor_prog_id) on $TB_SENSOR_IF"
tb_wait 5 tb_prog_gone "$id1" || tb_fail "program $id1 still loaded after meerkat exited"
tb_ok "SIGTERM: exit 0, accounting line, no program on $TB_SENSOR_IF, program $id1 freed"

# --- 2. kill -9, then restart -----------------------------------------------
tb_meerkat_start run2 -i "$TB_SENSOR_IF" --workers 2 ||
	tb_fail "meerkat exited ($TB_MK_RC) before answering: $(cat "$TB_MK_DIR/err")"
stale="$(tb_sensor_prog_id)"
tb_meerkat_stop KILL
[ "$(tb_sensor_prog_id)" = "$stale" ] || tb_fail "after kill -9 the link runs '$(tb_sensor_prog_id)', expected the stale $stale"
tb_ok "kill -9: program $stale stays attached"
tb_meerkat_start run3 -i "$TB_SENSOR_IF" --workers 2 ||
	tb_fail "restart after kill -9 failed ($TB_MK_RC): $(cat "$TB_MK_DIR/err")"
grep -q "replaced the meerkat program a previous run left attached" "$TB_MK_DIR/err" ||
	tb_fail "restart did not say it replaced the stale program: $(cat "$TB_MK_DIR/err")"
id3="$(tb_sensor_prog_id)"
{ [ -n "$id3" ] && [ "$id3" != "$stale" ]; } || tb_fail "after restart the link runs '$id3' (stale was $stale)"
tb_wait 5 tb_prog_gone "$stale" || tb_fail "stale program $stale still loaded after the restart"
tb_ok "restart: stale program $stale replaced by $id3 and freed"
sent="$(tb_replay "$PCAP" 2000)"
# logrotate: move eve.json away, SIGHUP; what is written next lands in a new eve.json
mv "$TB_MK_DIR/eve.json" "$TB_MK_DIR/eve.json.1"
kill -HUP "$TB_MK_PID"
tb_wait 5 test -e "$TB_MK_DIR/eve.json" || tb_fail "SIGHUP did not reopen eve.json"
tb_meerkat_stop INT
{ grep -q '"event_type":"flow"' "$TB_MK_DIR/eve.json" && grep -q '"event_type":"stats"' "$TB_MK_DIR/eve.json"; } ||
	tb_fail "the reopened eve.json lacks the flows and the final stats written after SIGHUP"
tb_ok "SIGHUP reopened eve.json: flow records and final stats went to the new file"
[ "$TB_MK_RC" -eq 0 ] || tb_fail "meerkat exited $TB_MK_RC after SIGINT"
line="$(grep '^meerkat: accounting' "$TB_MK_DIR/err" || true)"
case "$line" in "meerkat: accounting ok: program saw $sent,"*) ;;
*) tb_fail "after $sent frames: '$line'" ;; esac
[ -z "$(tb_sensor_prog_id)" ] || tb_fail "SIGINT left program $(tb_sensor_prog_id) on $TB_SENSOR_IF"
tb_wait 5 tb_prog_gone "$id3" || tb_fail "program $id3 still loaded after meerkat exited"
tb_ok "capture after the restart: $sent frames, accounting ok; SIGINT: exit 0, nothing attached"
