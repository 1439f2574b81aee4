#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Capture bypass benchmark, IDS (docs/performance.md, "Capture bypass").
# Sets up the testbench (test/testbench/lib.sh: two namespaces, a
# single-queue veth pair; every namespace, veth, XDP program, pin and file is
# removed at exit, pass or fail), writes a workload (gen_bypassbench.py: a
# few downloads of MB megabytes and many short sessions, each with an attack
# in its first packets, and the rules that match them) and, in one run,
# replays it at a fixed rate (tcpreplay on CPU 0, meerkat's worker pinned to
# CPU 1) against meerkat -i --workers 1 in three settings:
#
#   off      stream.bypass: no (and no other trigger): every frame reaches the worker;
#   local    the defaults, but the driver's maps are full (bypass.max-flows: 1,
#            taken by a flow added with meerkatctl bypass add before the
#            replay): every bypass falls back to local (bypass_fallback);
#            no key turns capture bypass off on its own;
#   capture  the defaults: the downloads are bypassed in the driver once past
#            stream.reassembly.depth (1 MiB).
#
# The workload is two pcaps: the head (the short sessions and each download's
# first HEAD_MB megabytes, past the depth) and the remainder of the downloads.
# Per setting it reports the worker thread's CPU seconds (the threads pinned
# to CPU 1, /proc/PID/task/*/schedstat) for the remainder and for the whole
# run, and its idle floor (2 s without traffic), meerkat's CPU (all threads),
# frames lost (sent - program saw + socket drops, from the accounting line;
# the socket drops are XDP_STATISTICS'), alerts (each session's attack: the
# same count in every setting), the program's drop_flow_bypass and the
# worker's bypass counters, with ratios against "off" of the same round; it
# checks that each setting bypassed as it should.
#
#   sudo test/bench/bench_bypass.sh [--build DIR] [--rounds N] [--pps N]
#                                   [--elephants N] [--mb N] [--head-mb N] [--small N]
set -euo pipefail
HERE="$(dirname "$(readlink -f "$0")")"
# shellcheck source=test/testbench/lib.sh
. "$HERE/../testbench/lib.sh"

BUILD="$HERE/../../build" ROUNDS=1 PPS=20000 ELEPHANTS=4 MB=30 HEAD_MB=2 SMALL=2000
while [ $# -gt 0 ]; do
	case "$1" in
	--build) BUILD="$2" ;;
	--rounds) ROUNDS="$2" ;;
	--pps) PPS="$2" ;;
	--elephants) ELEPHANTS="$2" ;;
	--mb) MB="$2" ;;
	--head-mb) HEAD_MB="$2" ;;
	--small) SMALL="$2" ;;
	*) tb_fail "unknown option $1 (see the header of $0)" ;;
	esac
	shift 2
done
BUILD="$(readlink -f "$BUILD")"
TB_MEERKAT="$BUILD/userspace/meerkat"
TB_CTL="$BUILD/userspace/meerkatctl"

tb_require_root
tb_require_cmd taskset ip tcpreplay
[ -x /usr/bin/python3 ] || tb_skip "/usr/bin/python3 not installed"
for f in "$TB_MEERKAT" "$TB_CTL"; do tb_require_file "$f"; done
[ "$(nproc)" -ge 2 ] || tb_skip "needs 2 CPUs: the replay on CPU 0, the worker on CPU 1"

TB_WANT_QUEUES=1
tb_setup
W="$TB_TMP/work"
RULES="$TB_TMP/bench.rules"
/usr/bin/python3 "$HERE/gen_bypassbench.py" "$W" --elephants "$ELEPHANTS" --mb "$MB" \
	--head-mb "$HEAD_MB" --small "$SMALL" --rules "$RULES" >/dev/null
side() { /usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$W.json" "$1"; }
F1="$(side frames1)" F2="$(side frames2)" WANT_ALERTS="$(side alerts)" REST="$(side rest_bytes)"
tb_log "workload: $ELEPHANTS downloads of $MB MB ($HEAD_MB MB of each in the head), $SMALL short" \
	"sessions; head $F1 frames, remainder $F2 frames ($REST bytes); $WANT_ALERTS attacks; $PPS frames/s"

# the rings of bench_live.py: 64 MB absorb the worker's stalls on a shared machine
base_conf() {
	cat <<'EOF'
capture:
  frame-size: 2048
  frame-count: 32768
  rx-ring-size: 16384
  fill-ring-size: 32768
  cpu-affinity: [1]
EOF
}
base_conf >"$TB_TMP/capture.yaml"
{
	base_conf
	printf 'stream:\n  bypass: no\n'
} >"$TB_TMP/off.yaml"
{
	base_conf
	printf 'bypass:\n  max-flows: 1\nflow-timeouts:\n  udp:\n    bypassed: 3600\n'
} >"$TB_TMP/local.yaml"

# CPU ns of meerkat's threads: "worker all" (worker: the threads pinned to CPU 1)
cpu_ns() {
	local t n w=0 a=0 aff
	for t in /proc/"$TB_MK_PID"/task/*; do
		n="$(awk '{print $1}' "$t/schedstat" 2>/dev/null)" || continue
		[ -n "$n" ] || continue
		aff="$(awk '/^Cpus_allowed_list/ {print $2}' "$t/status" 2>/dev/null)" || aff=""
		a=$((a + n))
		[ "$aff" != 1 ] || w=$((w + n))
	done
	echo "$w $a"
}
# waits until the worker is idle: under 1 % of a CPU over 0.3 s (at most 60 s)
worker_idle() {
	local last cur i
	read -r last _ <<<"$(cpu_ns)"
	for ((i = 0; i < 200; i++)); do
		sleep 0.3
		read -r cur _ <<<"$(cpu_ns)"
		[ $((cur - last)) -ge 3000000 ] || return 0
		last="$cur"
	done
	tb_fail "meerkat's worker still busy a minute after the replay"
}
seen_ge() {
	local n
	n="$(tb_ctl stats --json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["xdp"]["rx"])')"
	[ "$n" -ge "$1" ]
}

RESULTS="$TB_TMP/results.jsonl"
: >"$RESULTS"
# run ROUND SETTING: one measurement, a JSON line appended to $RESULTS
run() {
	local rnd="$1" mode="$2" i0 c0 c1 c2 a0 a2 st sent1 sent2 out t1 t2
	tb_meerkat_start "r$rnd-$mode" -i "$TB_SENSOR_IF" -c "$TB_TMP/$mode.yaml" -S "$RULES" --workers 1 ||
		tb_fail "meerkat exited ($TB_MK_RC) before answering: $(cat "$TB_MK_DIR/err")"
	if [ "$mode" = local ]; then
		# the one entry bypass.max-flows allows, taken before any flow asks
		out="$(tb_ctl bypass add udp 198.18.99.1 9 198.18.99.2 9)" || tb_fail "bypass add: $out"
	fi
	worker_idle
	# the worker's idle floor (its wakeups with no traffic), for scale
	read -r i0 _ <<<"$(cpu_ns)"
	sleep 2
	read -r c0 a0 <<<"$(cpu_ns)"
	sent1="$(tb_replay --cpu 0 "$W-1.pcap" "$PPS")"
	tb_wait 30 seen_ge "$sent1" || tb_fail "$mode: the program saw fewer than the $sent1 frames sent"
	worker_idle
	read -r c1 _ <<<"$(cpu_ns)"
	t1="$(date +%s%N)"
	sent2="$(tb_replay --cpu 0 "$W-2.pcap" "$PPS")"
	t2="$(date +%s%N)"
	tb_wait 30 seen_ge $((sent1 + sent2)) || tb_fail "$mode: the program saw fewer than the frames sent"
	worker_idle
	read -r c2 a2 <<<"$(cpu_ns)"
	st="$(tb_ctl stats --json)"
	tb_meerkat_stop TERM
	[ "$TB_MK_RC" -eq 0 ] || tb_fail "$mode: meerkat exited $TB_MK_RC: $(tail -5 "$TB_MK_DIR/err")"
	[ "$c2" -gt "$c0" ] || tb_fail "$mode: no CPU time on a thread pinned to CPU 1: is capture.cpu-affinity honoured?"
	/usr/bin/python3 - "$rnd" "$mode" "$st" "$TB_MK_DIR/err" "$TB_MK_DIR/eve.json" \
		$((sent1 + sent2)) "$c0" "$c1" "$c2" "$a0" "$a2" "$i0" $(((t2 - t1) / 1000000)) >>"$RESULTS" <<'PY'
import json, re, sys
rnd, name, st, err, eve, sent, c0, c1, c2, a0, a2, i0, rest_ms = sys.argv[1:]
s = json.loads(st)
acc = re.search(r"accounting (\w+): program saw (\d+), redirected (\d+) = workers took (\d+) "
                r"\+ socket drops (\d+)", open(err).read())
if not acc:
    sys.exit("no accounting line in %s" % err)
alerts = sum(1 for l in open(eve) if '"event_type":"alert"' in l)
w = s["worker"]
print(json.dumps({
    "round": int(rnd), "set": name, "sent": int(sent),
    "cpu_rest": (int(c2) - int(c1)) / 1e9, "cpu_all": (int(c2) - int(c0)) / 1e9,
    "cpu_proc": (int(a2) - int(a0)) / 1e9, "idle_per_s": (int(c0) - int(i0)) / 2e9,
    "rest_s": int(rest_ms) / 1e3,
    "lost": int(sent) - int(acc.group(2)) + int(acc.group(5)), "accounting": acc.group(1),
    "alerts": alerts, "drop_flow_bypass": s["xdp"]["drop_flow_bypass"],
    "bypass": {k: w[k] for k in ("bypass_depth", "bypass_capture", "bypass_local",
                                 "bypass_fallback", "bypass_skipped")}}))
PY
	tb_log "round $rnd $mode: $(tail -n 1 "$RESULTS")"
}

LOAD0="$(cut -d' ' -f1-3 /proc/loadavg)"
START="$(date -u +%H:%M)"
for ((r = 1; r <= ROUNDS; r++)); do
	for mode in off local capture; do
		run "$r" "$mode"
	done
done
LOAD1="$(cut -d' ' -f1-3 /proc/loadavg)"

/usr/bin/python3 - "$RESULTS" "$WANT_ALERTS" "$REST" <<PY
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
want, rest = int(sys.argv[2]), int(sys.argv[3])
print()
print("Capture bypass, IDS: $ELEPHANTS downloads of $MB MB + $SMALL short sessions, $PPS frames/s, "
      "%d round(s), $START UTC; load average $LOAD0 before, $LOAD1 after" % $ROUNDS)
print("worker CPU s: the thread pinned to CPU 1 (rest: the downloads' remainder, "
      "$(( (REST + 524288) / 1048576 )) MB; all: the whole run); meerkat: all its threads, whole run")
hdr = "%-5s %-8s %12s %7s %12s %7s %9s %6s %7s %16s %s" % (
    "round", "setting", "worker rest", "ratio", "worker all", "ratio", "meerkat", "lost",
    "alerts", "drop_flow_bypass", "bypass depth/capture/local/fallback")
print(hdr)
print("-" * len(hdr))
ratios_rest, ratios_all, ok = [], [], True
for r in sorted({x["round"] for x in rows}):
    by = {x["set"]: x for x in rows if x["round"] == r}
    off = by["off"]
    for name in ("off", "local", "capture"):
        x = by[name]
        b = x["bypass"]
        print("%-5d %-8s %12.3f %6.1fx %12.3f %6.1fx %9.3f %6d %7d %16d %d/%d/%d/%d" % (
            r, name, x["cpu_rest"], off["cpu_rest"] / max(x["cpu_rest"], 1e-6), x["cpu_all"],
            off["cpu_all"] / max(x["cpu_all"], 1e-6), x["cpu_proc"], x["lost"], x["alerts"],
            x["drop_flow_bypass"], b["bypass_depth"], b["bypass_capture"], b["bypass_local"],
            b["bypass_fallback"]))
        ok &= x["alerts"] == want and x["accounting"] == "ok"
    # each setting is what it claims: no bypass; every bypass local; every one in the driver
    ok_set = (off["bypass"]["bypass_depth"] == 0 and off["drop_flow_bypass"] == 0 and
              by["local"]["bypass"]["bypass_fallback"] == by["local"]["bypass"]["bypass_depth"] > 0 and
              by["local"]["drop_flow_bypass"] == 0 and by["capture"]["bypass"]["bypass_fallback"] == 0
              and by["capture"]["bypass"]["bypass_depth"] > 0)
    if not ok_set:
        print("      round %d: a setting did not bypass as intended (see the counters)" % r)
    ok &= ok_set
    ratios_rest.append(off["cpu_rest"] / max(by["capture"]["cpu_rest"], 1e-6))
    ratios_all.append(off["cpu_all"] / max(by["capture"]["cpu_all"], 1e-6))
    print("      worker ns per remainder byte: off %.2f, local %.2f, capture %.3f" % tuple(
        1e9 * by[n]["cpu_rest"] / rest for n in ("off", "local", "capture")))
    c = by["capture"]
    print("      capture: the remainder took %.1f s to send; the worker's idle floor %.2f ms/s "
          "(2 s before the replay) would be %.4f s of it" % (
              c["rest_s"], 1e3 * c["idle_per_s"], c["idle_per_s"] * c["rest_s"]))
print()
rr, ra = statistics.median(ratios_rest), statistics.median(ratios_all)
print("target capture bypass cuts the worker's CPU for the bypassed remainder >= 10x: %s "
      "(%.1fx, median of %d; whole run %.1fx)" % ("MET" if rr >= 10 else "MISS", rr,
                                                   len(ratios_rest), ra))
print("target every attack found in every setting (%d alerts), accounting ok: %s" % (
    want, "MET" if ok else "MISS"))
PY
