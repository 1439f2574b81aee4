#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Configuration reload benchmark (docs/performance.md, "Reload"): meerkat -i
# on the testbench (test/testbench/lib.sh, everything removed at exit) with
# the ET Open sample's rule files named by a configuration file, UDP and TCP
# frames sent without pause from the peer namespace, then N reloads by
# `meerkatctl reload`. Prints the rules loaded, the start's load time, each
# reload's duration (the reply's duration_ms: file, comparison, engine
# build, swap), the longest a worker held one packet to adopt a new engine
# (swap_stall_max_us), and the accounting line: reloads under traffic lose
# nothing.
#
#   sudo test/bench/bench_reload.sh [BUILD_DIR] [RULES_DIR] [RELOADS]
set -euo pipefail
HERE="$(dirname "$(readlink -f "$0")")"
# shellcheck source=test/testbench/lib.sh
. "$HERE/../testbench/lib.sh"

BUILD="$(readlink -f "${1:-$HERE/../../build}")"
RULES="$(readlink -f "${2:-$HERE/../../../shared/rules/et-open-sample}")"
N="${3:-5}"
TB_MEERKAT="$BUILD/userspace/meerkat"
TB_CTL="$BUILD/userspace/meerkatctl"

tb_require_root
tb_require_cmd ip
[ -x /usr/bin/python3 ] || tb_skip "/usr/bin/python3 not installed"
[ -d "$RULES" ] || tb_skip "no rule set at $RULES"
for f in "$TB_MEERKAT" "$TB_CTL"; do tb_require_file "$f"; done

tb_setup
{
	echo "default-rule-path: $RULES"
	[ ! -f "$RULES/classification.config" ] || echo "classification-file: $RULES/classification.config"
	echo "rule-files:"
	for f in "$RULES"/*.rules; do echo "  - $(basename "$f")"; done
} >"$TB_TMP/bench.yaml"

cat >"$TB_TMP/gen.py" <<'PY'
import os, socket, sys, time
tmp, dst = sys.argv[1:3]
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
n = 0
while not os.path.exists(tmp + "/stop"):
    u.sendto(b"GET / HTTP/1.1\r\nHost: example.com\r\n\r\n %d" % n, (dst, 53 + n % 4))
    n += 1
    if n % 20 == 0:
        time.sleep(0.001)
PY

tb_meerkat_start bench -i "$TB_SENSOR_IF" -c "$TB_TMP/bench.yaml" --workers 2 ||
	tb_fail "meerkat exited ($TB_MK_RC): $(tail -n 5 "$TB_MK_DIR/err")"
rules="$(tb_ctl rules --json)"
tb_peer /usr/bin/python3 "$TB_TMP/gen.py" "$TB_TMP" "$TB_SENSOR_IP" >"$TB_TMP/gen.out" 2>&1 &
GEN=$!
sleep 2
times=()
for ((i = 0; i < N; i++)); do
	out="$(tb_ctl reload --json)" || tb_fail "reload $i: $out"
	times+=("$(/usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["duration_ms"])' <<<"$out")")
	sleep 1
done
touch "$TB_TMP/stop"
wait "$GEN" || tb_fail "generator: $(cat "$TB_TMP/gen.out")"
stats="$(tb_ctl stats --json)"
tb_meerkat_stop TERM
RULES_JSON="$rules" STATS="$stats" /usr/bin/python3 - "${times[@]}" <<'PY'
import json, os, statistics, sys
r = json.loads(os.environ["RULES_JSON"])
s = json.loads(os.environ["STATS"])
t = [int(x) for x in sys.argv[1:]]
print("rules loaded %d (failed %d), load at start %d ms" %
      (r["rules_loaded"], r["rules_failed"], r["load_time_ms"]))
print("reload (%d times, 2 workers, under traffic): median %d ms, max %d ms; "
      "longest packet hold for the engine swap %d us; frames taken %d" %
      (len(t), statistics.median(t), max(t), s["reload"]["swap_stall_max_us"],
       s["capture"]["sock_rx"]))
PY
grep '^meerkat: accounting' "$TB_MK_DIR/err" || tb_fail "no accounting line"
