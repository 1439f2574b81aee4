#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The Prometheus endpoint's cost (docs/metrics.md, docs/performance.md): the
# live sensor (2 workers, the sample rules, stats.prometheus on the sensor
# namespace's loopback) under the sample traffic replayed at a fixed rate,
# in alternating phases of the same run: no scrape, then a scrape every
# second. Prints the scrape time (curl's total, and the endpoint's own
# snapshot + render time from meerkat_prometheus_render_seconds_total), the
# sensor's CPU seconds per phase (every thread) and the endpoint thread's CPU
# per scrape. Everything it creates is removed at exit (test/testbench/lib.sh).
#
#   sudo test/bench/bench_metrics.sh [BUILD_DIR] [ROUNDS] [SECONDS_PER_PHASE] [PPS]
set -euo pipefail
HERE="$(dirname "$(readlink -f "$0")")"
# shellcheck source=test/testbench/lib.sh
. "$HERE/../testbench/lib.sh"

BUILD="$(readlink -f "${1:-$HERE/../../build}")"
ROUNDS="${2:-2}"
PHASE_S="${3:-10}"
PPS="${4:-5000}"
TB_MEERKAT="$BUILD/userspace/meerkat"
TB_CTL="$BUILD/userspace/meerkatctl"
PCAP="$BUILD/test/testbench/sample.pcap"
RULES="$HERE/../../configs/rules/meerkat-demo.rules"

tb_require_root
tb_require_cmd tcpreplay ip curl
[ -x /usr/bin/python3 ] || tb_skip "/usr/bin/python3 not installed"
for f in "$TB_MEERKAT" "$TB_CTL" "$PCAP" "$RULES"; do tb_require_file "$f"; done

tb_setup
ip -n "$TB_NS_SENSOR" link set lo up
ADDR="127.0.0.1:$((20000 + RANDOM % 20000))"
cat >"$TB_TMP/bench.yaml" <<EOF
stats:
  enabled: no
  prometheus:
    enabled: yes
    listen: "$ADDR"
EOF
tb_meerkat_start bench -i "$TB_SENSOR_IF" -c "$TB_TMP/bench.yaml" -S "$RULES" --workers 2 ||
	tb_fail "meerkat exited ($TB_MK_RC): $(cat "$TB_MK_DIR/err")"

# CPU seconds (schedstat: nanoseconds on a CPU) of every thread of the
# sensor, and of its endpoint thread (libmicrohttpd names it MHD-single)
cpu_all() { cat /proc/"$TB_MK_PID"/task/*/schedstat | awk '{ s += $1 } END { printf "%.4f\n", s / 1e9 }'; }
cpu_mhd() {
	local t
	for t in /proc/"$TB_MK_PID"/task/*; do
		case "$(cat "$t/comm")" in MHD*) awk '{ printf "%.4f\n", $1 / 1e9 }' "$t/schedstat" && return ;; esac
	done
	echo 0
}
scrape_metric() {
	tb_sensor curl -sf --max-time 5 "http://$ADDR/metrics" |
		/usr/bin/python3 -c 'import sys
v = {l.split()[0]: float(l.split()[1]) for l in sys.stdin if l.startswith("meerkat_prometheus_")}
print(v["meerkat_prometheus_render_seconds_total"], int(v["meerkat_prometheus_scrapes_total"]))'
}

frames="$(/usr/bin/python3 -c 'import struct, sys
f = open(sys.argv[1], "rb"); f.read(24); n = 0
while len(h := f.read(16)) == 16:
    f.seek(struct.unpack("<IIII", h)[2], 1); n += 1
print(n)' "$PCAP")"
loops=$(((PHASE_S * PPS + frames - 1) / frames))
printf 'phase        seconds  frames/s  sensor CPU s  endpoint CPU s  scrapes  curl ms (median)\n'
for ((r = 1; r <= ROUNDS; r++)); do
	for phase in none every-1s; do
		c0="$(cpu_all)"
		m0="$(cpu_mhd)"
		tb_replay "$PCAP" "$PPS" --loop="$loops" >/dev/null &
		replay=$!
		: >"$TB_TMP/curl.ms"
		n=0
		while kill -0 "$replay" 2>/dev/null; do
			sleep 1
			[ "$phase" = every-1s ] || continue
			tb_sensor curl -sf --max-time 5 -o /dev/null -w '%{time_total}\n' \
				"http://$ADDR/metrics" >>"$TB_TMP/curl.ms"
			n=$((n + 1))
		done
		wait "$replay"
		c1="$(cpu_all)"
		m1="$(cpu_mhd)"
		med="$(sort -n "$TB_TMP/curl.ms" | awk '{ a[NR] = $1 * 1000 } END { if (NR) printf "%.2f", a[int((NR + 1) / 2)]; else print "-" }')"
		printf '%-12s %7d  %8d  %12.3f  %14.4f  %7d  %s\n' "$phase" "$PHASE_S" "$PPS" \
			"$(awk "BEGIN { print $c1 - $c0 }")" "$(awk "BEGIN { print $m1 - $m0 }")" "$n" "$med"
	done
done
read -r render scrapes <<<"$(scrape_metric)"
printf 'endpoint: %d scrapes, snapshot + render %.3f ms each (meerkat_prometheus_render_seconds_total)\n' \
	"$scrapes" "$(awk "BEGIN { print $render * 1000 / $scrapes }")"
tb_meerkat_stop TERM
