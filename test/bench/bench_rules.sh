#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Detection at the scale of real rulesets (docs/performance.md): offline
# meerkat on the application-mix workload (gen_appmix: interleaved HTTP, TLS
# and DNS sessions) with no rules, with the ET Open sample without its IP
# reputation lists, with the whole sample, and with the IP lists alone; one
# and two workers. Prints wall and CPU seconds, peak RSS and alerts for each,
# and each figure's ratio to the no-rules run of the same worker count, all
# measured in this run (best of --runs, default 3).
#
# With --prefilter-cache, every run loads its compiled prefilter databases
# from a cache directory made in this run (warmed by one load first): the
# load time of a sensor that restarts or reloads the same rules.
#
# usage: test/bench/bench_rules.sh [--build DIR] [--mbytes N] [--runs N] [--rules DIR]
#                                  [--prefilter-cache]
set -euo pipefail
top="$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)"
build="$top/build"
mbytes=500
runs=3
rules="$top/../shared/rules/et-open-sample"
cache=0
while [ $# -gt 0 ]; do
	case "$1" in
	--prefilter-cache) cache=1; shift ;;
	--build) build="$2"; shift 2 ;;
	--mbytes) mbytes="$2"; shift 2 ;;
	--runs) runs="$2"; shift 2 ;;
	--rules) rules="$2"; shift 2 ;;
	*) echo "usage: $0 [--build DIR] [--mbytes N] [--runs N] [--rules DIR] [--prefilter-cache]" >&2; exit 2 ;;
	esac
done
meerkat="$build/userspace/meerkat"
[ -x "$meerkat" ] || { echo "bench_rules: build first: $meerkat" >&2; exit 1; }
[ -d "$rules" ] || { echo "bench_rules: no rule directory $rules" >&2; exit 1; }

work="$(mktemp -d /tmp/bench_rules.XXXXXX)"
trap 'rm -rf "$work"' EXIT
pcap="$work/appmix.pcap"
"$build/test/bench/gen_appmix" --mbytes "$mbytes" "$pcap"

conf=()
if [ "$cache" = 1 ]; then
	printf 'detect:\n  prefilter-cache: %s\n' "$work/pfcache" >"$work/cache.yaml"
	conf=(-c "$work/cache.yaml")
fi

iplists=(botcc ciarmy compromised drop dshield tor)
no_ip=() ip_only=() all=()
for f in "$rules"/*.rules; do
	all+=(-S "$f")
	name="$(basename "$f" .rules)"
	if printf '%s\n' "${iplists[@]}" | grep -qx "$name"; then
		ip_only+=(-S "$f")
	else
		no_ip+=(-S "$f")
	fi
done

# run LABEL WORKERS ARGS...: best wall time of $runs, with its CPU and RSS
declare -A base_wall base_cpu
run() {
	local label="$1" w="$2" best="" line
	shift 2
	for _ in $(seq "$runs"); do
		rm -rf "$work/out"
		mkdir "$work/out"
		/usr/bin/time -o "$work/time" -f '%e %U %S %M' \
			"$meerkat" -r "$pcap" -l "$work/out" --workers "$w" "${conf[@]}" "$@" >/dev/null 2>"$work/err" ||
			{ cat "$work/err" >&2; exit 1; }
		read -r wall usr sys rss <"$work/time"
		alerts="$(grep -c '"event_type":"alert"' "$work/out/eve.json" || true)"
		line="$(awk -v e="$wall" -v u="$usr" -v s="$sys" -v r="$rss" -v a="$alerts" \
			'BEGIN { printf "%.2f %.2f %d %d", e, u + s, r / 1024, a }')"
		if [ -z "$best" ] || awk -v a="${line%% *}" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
			best="$line"
		fi
	done
	read -r wall cpu rss alerts <<<"$best"
	if [ "$label" = "no rules" ]; then
		base_wall[$w]="$wall"
		base_cpu[$w]="$cpu"
	fi
	awk -v l="$label" -v w="$w" -v e="$wall" -v c="$cpu" -v r="$rss" -v a="$alerts" \
		-v be="${base_wall[$w]}" -v bc="${base_cpu[$w]}" -v c1="${base_cpu[1]:-0}" \
		'BEGIN { printf "%-22s %2d %8.2f %8.2f %7d %8d %7.2fx %7.2fx\n", l, w, e, c, r, a, e / be, c / bc }'
}

# warm the cache: one load of everything
[ "$cache" = 0 ] || "$meerkat" -T "${conf[@]}" "${all[@]}" >/dev/null 2>&1 || true

echo
echo "workload: $(stat -c %s "$pcap") bytes, gen_appmix --mbytes $mbytes; best of $runs runs each; prefilter cache: $([ "$cache" = 1 ] && echo warm || echo none)"
printf '%-22s %2s %8s %8s %7s %8s %8s %8s\n' ruleset w wall_s cpu_s rss_MB alerts wall/0 cpu/0
for w in 1 2; do
	run "no rules" "$w"
	run "IP lists only" "$w" "${ip_only[@]}"
	run "sample without IP" "$w" "${no_ip[@]}"
	run "whole sample" "$w" "${all[@]}"
done
echo
echo "cpu_s of 2 workers / 1 worker, no rules: $(awk -v a="${base_cpu[2]}" -v b="${base_cpu[1]}" 'BEGIN { printf "%.2fx", a / b }')"
