#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# meerkat and another XDP program on one interface (docs/operations.md,
# "Coexistence with xdp-loader"). A foreign program (build/xdp/bench_drop.bpf.o,
# program bench_drop) is attached first with xdp-loader, then meerkat starts:
#   - where libxdp's dispatcher is available, both run: xdp-loader status lists
#     both under the dispatcher, and after meerkat's SIGTERM bench_drop is
#     still there and meerkat_xdp is not;
#   - where it is not (the kernel refuses freplace: single-program mode),
#     meerkat must refuse with ONE error line naming the program in the way,
#     exit non-zero, and leave that program attached, same id. The test then
#     reports "skipped" for the coexistence itself, with the reason.
# Usage: test_live_coexist.sh BUILD_DIR
set -euo pipefail
# shellcheck source=test/testbench/lib.sh
. "$(dirname "$0")/lib.sh"

BUILD="${1:?usage: $0 BUILD_DIR}"
TB_MEERKAT="$BUILD/userspace/meerkat"
TB_CTL="$BUILD/userspace/meerkatctl"
FOREIGN="$BUILD/xdp/bench_drop.bpf.o"

tb_require_root
tb_require_cmd bpftool ip xdp-loader
for f in "$TB_MEERKAT" "$TB_CTL" "$FOREIGN"; do tb_require_file "$f"; done

tb_setup
tb_attach "$FOREIGN"
foreign="$(tb_sensor_prog_id)"
status="$(tb_sensor xdp-loader status "$TB_SENSOR_IF")"
if grep -q "xdp_dispatcher" <<<"$status"; then
	grep -q "bench_drop" <<<"$status" || tb_fail "bench_drop not under the dispatcher: $status"
	tb_ok "bench_drop attached behind libxdp's dispatcher"
	tb_meerkat_start beside -i "$TB_SENSOR_IF" --workers 2 ||
		tb_fail "meerkat did not start beside bench_drop ($TB_MK_RC): $(cat "$TB_MK_DIR/err")"
	status="$(tb_sensor xdp-loader status "$TB_SENSOR_IF")"
	{ grep -q "meerkat_xdp" <<<"$status" && grep -q "bench_drop" <<<"$status"; } ||
		tb_fail "xdp-loader status does not list both programs: $status"
	tb_ok "meerkat_xdp and bench_drop both run under the dispatcher"
	tb_meerkat_stop TERM
	[ "$TB_MK_RC" -eq 0 ] || tb_fail "meerkat exited $TB_MK_RC after SIGTERM"
	status="$(tb_sensor xdp-loader status "$TB_SENSOR_IF")"
	printf '%s\n' "$status"
	grep -q "bench_drop" <<<"$status" || tb_fail "bench_drop did not survive meerkat's exit"
	! grep -q "meerkat_xdp" <<<"$status" || tb_fail "meerkat_xdp still listed after SIGTERM"
	tb_ok "after meerkat's SIGTERM bench_drop still runs and meerkat_xdp is gone"
	exit 0
fi

# single-program mode: meerkat must refuse, once and clearly, and touch nothing
why="$(grep -o "Falling back to loading single prog.*\|Compatibility check for dispatcher program failed" <<<"$TB_LOAD_LOG" | head -n 1 || true)"
tb_log "libxdp attached bench_drop (id $foreign) as a single program: no dispatcher here${why:+ ($why)}"
if tb_meerkat_start refused -i "$TB_SENSOR_IF" --workers 2; then
	tb_fail "meerkat started although bench_drop holds $TB_SENSOR_IF in single-program mode"
fi
[ "$TB_MK_RC" -ne 0 ] || tb_fail "meerkat exited 0 without attaching"
mapfile -t lines <"$TB_MK_DIR/err"
[ "${#lines[@]}" -eq 1 ] || tb_fail "want one error line, got ${#lines[@]}: $(cat "$TB_MK_DIR/err")"
case "${lines[0]}" in
"meerkat: error: "*"'bench_drop' (id $foreign)"*) ;;
*) tb_fail "the error does not name bench_drop (id $foreign): ${lines[0]}" ;;
esac
tb_log "meerkat says: ${lines[0]}"
[ "$(tb_sensor_prog_id)" = "$foreign" ] || tb_fail "bench_drop ($foreign) was replaced by '$(tb_sensor_prog_id)'"
tb_ok "meerkat refused with one error line (exit $TB_MK_RC) and left bench_drop ($foreign) attached"
tb_skip "coexistence of two programs: libxdp's dispatcher is unavailable (the kernel refuses freplace); the refusal above was checked instead"
