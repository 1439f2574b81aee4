#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Inline (IPS) throughput benchmark (docs/performance.md, "Inline (IPS)").
# Sets up the inline testbench (test/testbench/lib.sh tb_setup_ips: client,
# sensor with two veths, server; everything is removed at exit, pass or fail)
# and, in one run, times a bulk TCP upload of MB megabytes
# (test/testbench/ips_peer.py blast, into a sink that checks the length)
# through the sensor in three settings, ROUNDS times each, in turn:
#
#   forwarder   meerkat's fail-open forwarder (xdp/forward.bpf.c: one
#               bpf_redirect_map into a DEVMAP, nothing parsed), left attached
#               by a meerkat stopped with ips.failure: open: the ceiling;
#   ips-bypass  meerkat --ips -i IN:OUT, defaults (stream.bypass: the flow is
#               forwarded in the driver once past the 1 MiB reassembly depth);
#   ips         the same with stream.bypass: no: every frame goes through a
#               worker, is copied to the peer's UMEM and sent on its AF_XDP
#               TX ring (copy mode on veth).
#
# It prints each round's Mbit/s and the median per setting, and the ratio of
# ips-bypass to the forwarder (the target is >= 0.80).
#
#   sudo test/bench/bench_ips.sh [--build DIR] [--rounds N] [--mb N]
set -euo pipefail
HERE="$(dirname "$(readlink -f "$0")")"
# shellcheck source=test/testbench/lib.sh
. "$HERE/../testbench/lib.sh"

BUILD="$HERE/../../build" ROUNDS=3 MB=400
while [ $# -gt 0 ]; do
	case "$1" in
	--build) BUILD="$2" && shift 2 ;;
	--rounds) ROUNDS="$2" && shift 2 ;;
	--mb) MB="$2" && shift 2 ;;
	*) echo "usage: $0 [--build DIR] [--rounds N] [--mb N]" >&2 && exit 2 ;;
	esac
done
TB_MEERKAT="$BUILD/userspace/meerkat"
TB_CTL="$BUILD/userspace/meerkatctl"
PEER="$HERE/../testbench/ips_peer.py"
PORT=5001

tb_require_root
tb_require_cmd bpftool ip ethtool
for f in "$TB_MEERKAT" "$TB_CTL" "$PEER"; do tb_require_file "$f"; done
tb_setup_ips
# the server is stopped with the daemons by tb_cleanup, pass or fail
ip netns exec "$TB_NS_SERVER" /usr/bin/python3 "$PEER" serve "$PORT" "$TB_TMP" </dev/null \
	>"$TB_TMP/server.log" 2>&1 {TB_STDOUT_FD}>&- {TB_STDERR_FD}>&- &
TB_MK_PIDS+=" $!"
printf 'ips:\n  failure: open\n' >"$TB_TMP/bypass.yaml"
printf 'stream:\n  bypass: no\nips:\n  failure: open\n' >"$TB_TMP/nobypass.yaml"

start() {
	tb_meerkat_start "$1" --ips -i "$TB_SENSOR_IF:$TB_SENSOR_IF2" --workers 1 -c "$TB_TMP/$2" || {
		cat "$TB_MK_DIR/err" >&2
		tb_fail "meerkat --ips did not start"
	}
	local id
	for id in $(tb_ips_prog_ids); do TB_PROG_IDS+=" $id"; done
}
blast() {
	ip netns exec "$TB_NS_PEER" /usr/bin/python3 "$PEER" blast "$TB_SERVER_IP" "$PORT" "$MB" |
		sed -n 's/^MBIT \([0-9]*\) .*/\1/p'
}
ready() { ip netns exec "$TB_NS_PEER" /usr/bin/python3 "$PEER" blast "$TB_SERVER_IP" "$PORT" 1 >/dev/null; }

declare -A res
for r in $(seq 1 "$ROUNDS"); do
	# the forwarder: what a meerkat stopped in fail-open leaves attached
	start "fwd$r" bypass.yaml
	tb_meerkat_stop TERM
	for id in $(tb_ips_prog_ids); do TB_PROG_IDS+=" $id"; done
	tb_wait 10 ready || tb_fail "no traffic through the forwarder"
	res[forwarder]+=" $(blast)"
	start "byp$r" bypass.yaml
	tb_wait 10 ready || tb_fail "no traffic through meerkat"
	res[bypass]+=" $(blast)"
	tb_meerkat_stop TERM
	start "nob$r" nobypass.yaml
	tb_wait 10 ready || tb_fail "no traffic through meerkat"
	res[inline]+=" $(blast)"
	tb_meerkat_stop TERM
	tb_log "round $r: forwarder ${res[forwarder]##* }, ips-bypass ${res[bypass]##* }, ips ${res[inline]##* } Mbit/s"
done
median() { tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
fw="$(median <<<"${res[forwarder]}")"
by="$(median <<<"${res[bypass]}")"
ip="$(median <<<"${res[inline]}")"
printf 'bench_ips: %s MB upload, %s rounds, median Mbit/s: forwarder %s, ips-bypass %s (%s), ips %s (%s)\n' \
	"$MB" "$ROUNDS" "$fw" "$by" "$(awk -v a="$by" -v b="$fw" 'BEGIN {printf "%.2f", a / b}')" \
	"$ip" "$(awk -v a="$ip" -v b="$fw" 'BEGIN {printf "%.2f", a / b}')"
printf 'bench_ips: rounds: forwarder%s; ips-bypass%s; ips%s\n' "${res[forwarder]}" "${res[bypass]}" "${res[inline]}"
