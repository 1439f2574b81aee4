#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Bad input to the live sensor: each case is ONE error line on stderr
# ("meerkat: error: ..." naming what is wrong), a non-zero exit within
# seconds, and nothing left attached to the sensor veth or to lo:
#   - configuration files (YAML, docs/configuration.md): an unknown key, an
#     out-of-range value, a wrong enum value, a document that is not a
#     mapping, a missing file (the line names file:line:column);
#   - a missing interface;
#   - an interface without the requested XDP support: native mode forced
#     (capture.attach-mode: native) on lo, whose driver has no native XDP;
#   - a bad option value (--workers).
# Usage: test_live_badinput.sh BUILD_DIR
set -euo pipefail
# shellcheck source=test/testbench/lib.sh
. "$(dirname "$0")/lib.sh"

BUILD="${1:?usage: $0 BUILD_DIR}"
TB_MEERKAT="$BUILD/userspace/meerkat"
TB_CTL="$BUILD/userspace/meerkatctl"

tb_require_root
tb_require_cmd bpftool ip
for f in "$TB_MEERKAT" "$TB_CTL"; do tb_require_file "$f"; done

tb_setup

# bad NAME WANT ARGS...: meerkat ARGS must fail with one error line containing WANT.
bad() {
	local name="$1" want="$2" lines
	shift 2
	if tb_meerkat_start "$name" "$@"; then
		tb_fail "$name: meerkat started with: $*"
	fi
	[ "$TB_MK_RC" -ne 0 ] || tb_fail "$name: exit status 0"
	mapfile -t lines <"$TB_MK_DIR/err"
	[ "${#lines[@]}" -eq 1 ] || tb_fail "$name: want one error line, got ${#lines[@]}: $(cat "$TB_MK_DIR/err")"
	case "${lines[0]}" in
	"meerkat: error: "*"$want"*) ;;
	*) tb_fail "$name: the error does not mention '$want': ${lines[0]}" ;;
	esac
	[ -z "$(tb_sensor_prog_id)" ] || tb_fail "$name: a program was left on $TB_SENSOR_IF"
	ip -n "$TB_NS_SENSOR" -d link show dev lo | grep -q "prog/xdp" && tb_fail "$name: a program was left on lo"
	[ ! -e "$TB_MK_DIR/ctl.sock" ] || tb_fail "$name: the control socket was left behind"
	tb_ok "$name: exit $TB_MK_RC, one line: ${lines[0]}"
}

conf="$TB_TMP/bad.yaml"
printf 'bogus-key: 1\n' >"$conf"
bad config-unknown-key "bad.yaml:1:1: bogus-key" -c "$conf" -i "$TB_SENSOR_IF"
printf '# a comment\nflow:\n  prealloc: 0\n' >"$conf"
bad config-out-of-range "bad.yaml:3:13: flow.prealloc" -c "$conf" -i "$TB_SENSOR_IF"
printf 'capture:\n  attach-mode: fast\n' >"$conf"
bad config-bad-enum "bad.yaml:2:16: capture.attach-mode" -c "$conf" -i "$TB_SENSOR_IF"
printf 'this is not a setting\n' >"$conf"
bad config-not-a-mapping "bad.yaml:1:1" -c "$conf" -i "$TB_SENSOR_IF"
bad config-missing "no-such.yaml" -c "$TB_TMP/no-such.yaml" -i "$TB_SENSOR_IF"
bad missing-interface "nosuch0" -i nosuch0
printf 'capture:\n  attach-mode: native\n' >"$conf"
bad native-on-lo "lo: cannot attach the XDP program in native mode" -c "$conf" -i lo
bad workers-value "--workers" -i "$TB_SENSOR_IF" --workers 1000
