#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Live capture benchmark (docs/performance.md, "Live capture"): sets up the
# testbench's namespaces and a single-queue veth pair (test/testbench/lib.sh,
# everything removed at exit, pass or fail), then runs bench_live.py, which
# measures meerkat -i against a bare AF_XDP receiver and an AF_PACKET reader
# and prints the comparison table. Options are bench_live.py's.
#
#   sudo test/bench/bench_live.sh [--build DIR] [--rounds N] [--quick] ...
set -euo pipefail
HERE="$(dirname "$(readlink -f "$0")")"
# shellcheck source=test/testbench/lib.sh
. "$HERE/../testbench/lib.sh"

BUILD="$HERE/../../build"
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
	[ "${args[$i]}" != "--build" ] || BUILD="${args[$((i + 1))]}"
done
BUILD="$(readlink -f "$BUILD")"

tb_require_root
tb_require_cmd taskset ip
[ -x /usr/bin/python3 ] || tb_skip "/usr/bin/python3 not installed"
for f in "$BUILD/userspace/meerkat" "$BUILD/userspace/meerkatctl" \
	"$BUILD/test/bench/bench_rx" "$BUILD/test/bench/bench_gen" "$BUILD/test/bench/bench_offline"; do
	tb_require_file "$f"
done
[ "$(nproc)" -ge 2 ] || tb_skip "needs 2 CPUs: the generator on CPU 0, the receiver on CPU 1"

TB_WANT_QUEUES=1
tb_setup
# the orchestrator stays off CPU 1, where the receivers run
TB_NS_SENSOR="$TB_NS_SENSOR" TB_NS_PEER="$TB_NS_PEER" TB_SENSOR_IF="$TB_SENSOR_IF" \
	TB_PEER_IF="$TB_PEER_IF" TB_BPFFS="$TB_BPFFS" TB_TMP="$TB_TMP" \
	taskset -c 0 /usr/bin/python3 "$HERE/bench_live.py" --build "$BUILD" "$@"
