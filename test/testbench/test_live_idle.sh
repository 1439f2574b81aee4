#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A live sensor without traffic sleeps: meerkat -i with two workers on the
# testbench veth, nothing sent, uses under 1 % of one core (user + system
# time of the whole process over IDLE_SECONDS, read from /proc/PID/stat), and
# its threads are asleep, not spinning.
# Usage: test_live_idle.sh BUILD_DIR
set -euo pipefail
# shellcheck source=test/testbench/lib.sh
. "$(dirname "$0")/lib.sh"

[ "${1:-}" != "--skip" ] || tb_skip "${2:-no reason given}"
BUILD="${1:?usage: $0 BUILD_DIR}"
TB_MEERKAT="$BUILD/userspace/meerkat"
TB_CTL="$BUILD/userspace/meerkatctl"
IDLE_SECONDS=5
LIMIT_PCT=1

tb_require_root
tb_require_cmd bpftool ip
for f in "$TB_MEERKAT" "$TB_CTL"; do tb_require_file "$f"; done

# cpu_ticks PID: user + system clock ticks of every thread of PID so far
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

tb_setup
tb_meerkat_start idle -i "$TB_SENSOR_IF" --workers 2 ||
	tb_fail "meerkat exited ($TB_MK_RC) before answering: $(cat "$TB_MK_DIR/err")"
sleep 1 # start-up work (attach, sockets, first stats) is not idling
t0="$(cpu_ticks "$TB_MK_PID")"
sleep "$IDLE_SECONDS"
t1="$(cpu_ticks "$TB_MK_PID")"
hz="$(getconf CLK_TCK)"
pct="$(awk -v d="$((t1 - t0))" -v hz="$hz" -v s="$IDLE_SECONDS" 'BEGIN { printf "%.2f", 100 * d / hz / s }')"
tb_log "idle for ${IDLE_SECONDS} s: $((t1 - t0)) ticks of CPU ($pct % of one core)"
awk -v p="$pct" -v l="$LIMIT_PCT" 'BEGIN { exit !(p < l) }' ||
	tb_fail "idle sensor used $pct % of a core (limit $LIMIT_PCT %)"
# every thread sleeps (S), none runs (R), at this instant
running="$(cat /proc/"$TB_MK_PID"/task/*/stat | awk '$3 == "R"' | wc -l)"
[ "$running" -eq 0 ] || tb_log "note: $running thread(s) running at the sample instant"
tb_ok "idle sensor uses $pct % of a core (limit $LIMIT_PCT %)"
tb_meerkat_stop TERM
[ "$TB_MK_RC" -eq 0 ] || tb_fail "meerkat exited $TB_MK_RC on SIGTERM"
tb_ok "stopped cleanly"
