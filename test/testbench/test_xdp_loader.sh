#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# xdp-loader manages meerkat's program like any other XDP program (DESIGN 3):
#   load -m native of meerkat.bpf.o on the sensor veth succeeds;
#   status lists meerkat_xdp on that interface, in native mode, with the id
#     the kernel reports, and with priority 10 from XDP_RUN_CONFIG: in
#     dispatcher mode status shows it in the Prio column under xdp_dispatcher;
#     in single-program mode (kernel without freplace) the Prio column stays
#     empty and the priority is checked in xdp-loader's verbose load output;
#   unload removes it: status shows no program, the link has no XDP program,
#     and the kernel frees the program.
# Usage: test_xdp_loader.sh BUILD_DIR
set -euo pipefail
# shellcheck source=test/testbench/lib.sh
. "$(dirname "$0")/lib.sh"

BUILD="${1:?usage: $0 BUILD_DIR}"
OBJ="$BUILD/xdp/meerkat.bpf.o"

tb_require_root
tb_require_cmd xdp-loader bpftool ip
tb_require_file "$OBJ"
tb_setup

tb_attach "$OBJ"
tb_ok "xdp-loader load -m native $TB_SENSOR_IF meerkat.bpf.o"
grep -q "Run prio: 10" <<<"$TB_LOAD_LOG" ||
	tb_fail "xdp-loader did not read priority 10 from XDP_RUN_CONFIG: $TB_LOAD_LOG"

id="$(tb_sensor_prog_id)"
[ -n "$id" ] || tb_fail "no XDP program on $TB_SENSOR_IF after load"
status="$(tb_sensor xdp-loader status "$TB_SENSOR_IF")"
printf '%s\n' "$status"
row="$(awk -v ifc="$TB_SENSOR_IF" '$1 == ifc' <<<"$status")"
[ -n "$row" ] || tb_fail "xdp-loader status has no row for $TB_SENSOR_IF"
read -r -a f <<<"$row"

if [ "${f[1]}" = "xdp_dispatcher" ]; then
	mode="dispatcher"
	# Interface Prio(empty) Program Mode ID Tag, then "=> PRIO NAME ID TAG ACTIONS"
	[ "${f[2]}" = "native" ] || tb_fail "dispatcher attached in mode '${f[2]}', want native"
	sub="$(awk '$1 == "=>" && $3 == "meerkat_xdp"' <<<"$status")"
	[ -n "$sub" ] || tb_fail "meerkat_xdp not listed under the dispatcher"
	read -r -a s <<<"$sub"
	[ "${s[1]}" = "10" ] || tb_fail "meerkat_xdp priority ${s[1]}, want 10"
	grep -q "XDP_PASS" <<<"$sub" || tb_fail "chain action XDP_PASS not shown: $sub"
	tb_ok "dispatcher mode: meerkat_xdp listed under xdp_dispatcher with Prio 10, chain XDP_PASS"
else
	mode="single-program"
	# Interface Program Mode ID Tag: no Prio, no chain actions
	[ "${f[1]}" = "meerkat_xdp" ] || tb_fail "status shows program '${f[1]}', want meerkat_xdp"
	[ "${f[2]}" = "native" ] || tb_fail "status shows mode '${f[2]}', want native"
	[ "${f[3]}" = "$id" ] || tb_fail "status shows id '${f[3]}', kernel says $id"
	[ "${#f[@]}" -eq 5 ] ||
		tb_fail "single-program row should have no Prio/chain columns: '$row'"
	grep -q "Falling back to loading single prog" <<<"$TB_LOAD_LOG" ||
		tb_log "note: loader did not say why it used single-program mode"
	tb_ok "single-program mode (no dispatcher: kernel refuses freplace):" \
		"status lists meerkat_xdp, native, id $id, Prio column empty;" \
		"priority 10 confirmed from the load log"
fi
grep -q "$TB_SENSOR_IF.*driver id $id" <<<"$(tb_sensor bpftool net show dev "$TB_SENSOR_IF")" ||
	tb_fail "bpftool net does not show program $id on $TB_SENSOR_IF in driver (native) mode"
grep -q "name meerkat_xdp\|name xdp_dispatcher" <<<"$(bpftool prog show id "$id")" ||
	tb_fail "bpftool does not know program id $id"

tb_sensor xdp-loader unload "$TB_SENSOR_IF" --all ||
	tb_fail "xdp-loader unload $TB_SENSOR_IF --all failed"
status="$(tb_sensor xdp-loader status "$TB_SENSOR_IF")"
printf '%s\n' "$status"
awk -v ifc="$TB_SENSOR_IF" '$1 == ifc' <<<"$status" | grep -q "<No XDP program loaded!>" ||
	tb_fail "status still shows a program after unload"
[ -z "$(tb_sensor_prog_id)" ] || tb_fail "link $TB_SENSOR_IF still has an XDP program"
! grep -q "driver id" <<<"$(tb_sensor bpftool net show dev "$TB_SENSOR_IF")" ||
	tb_fail "bpftool net still shows an XDP program on $TB_SENSOR_IF"
tb_wait 5 sh -c "! bpftool prog show id $id" ||
	tb_fail "program id $id still loaded in the kernel after unload"
tb_ok "xdp-loader unload: no program on $TB_SENSOR_IF, program $id freed ($mode mode)"
