#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The live sensor accounts for every frame (docs/architecture.md, the
# accounting invariant). meerkat runs with 2 workers on a 2-queue veth:
#   1. the sample traffic (every kind of frame, malformed ones included) is
#      replayed: frames sent = the veth's rx = the program's rx; every
#      program counter moved exactly as the traffic generator predicts, with
#      redirect_xsk where the no-socket test expects pass_no_socket (the
#      sockets are there now); rx = the sum of the outcome counters;
#   2. 2,675 more frames at 10,000 frames/s, with `meerkatctl stats` read
#      while they arrive: in_flight never exceeds what was sent (a torn
#      snapshot would show a wrapped, huge number);
#   3. SIGTERM: exit 0, the accounting line says "ok" and its numbers agree:
#      program saw = frames sent, redirected = workers took + socket drops,
#      socket drops = 0 at this rate; the final EVE stats event has nothing in
#      flight, every frame refilled, the workers' packets summing to sock_rx,
#      and the pipeline received every frame taken;
#   4. no program is left on the interface.
# Usage: test_live_accounting.sh BUILD_DIR SAMPLE_PCAP SAMPLE_JSON MORE_PCAP
set -euo pipefail
# shellcheck source=test/testbench/lib.sh
. "$(dirname "$0")/lib.sh"

[ "${1:-}" != "--skip" ] || tb_skip "${2:-no reason given}"
BUILD="${1:?usage: $0 BUILD_DIR SAMPLE_PCAP SAMPLE_JSON MORE_PCAP}"
PCAP="${2:?}"
EXPECT="${3:?}"
MORE="${4:?}"
TB_MEERKAT="$BUILD/userspace/meerkat"
TB_CTL="$BUILD/userspace/meerkatctl"

tb_require_root
tb_require_cmd tcpreplay bpftool ip
[ -x /usr/bin/python3 ] || tb_skip "/usr/bin/python3 not installed"
for f in "$TB_MEERKAT" "$TB_CTL" "$PCAP" "$EXPECT" "$MORE"; do tb_require_file "$f"; done

tb_setup
tb_meerkat_start acct -i "$TB_SENSOR_IF" --workers 2 ||
	tb_fail "meerkat exited ($TB_MK_RC) before answering: $(cat "$TB_MK_DIR/err")"
status="$(tb_ctl status --json)"
STATUS="$status" QUEUES="$TB_QUEUES" /usr/bin/python3 - <<'PY' || tb_fail "status: $status"
import json, os
s = json.loads(os.environ["STATUS"])
i = s["interfaces"][0]
assert s["workers"] == 2, s
assert i["xdp_mode"] == "native" and i["prog_id"] > 0, i
assert i["queues"] == int(os.environ["QUEUES"]), i
PY
tb_ok "meerkat runs: native XDP, $TB_QUEUES queue(s) x 2 workers"

# --- 1. the sample traffic: every counter as predicted --------------------
frames="$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["frames"])' "$EXPECT")"
rx0="$(tb_link_rx)"
sent="$(tb_replay "$PCAP" 5000)"
[ "$sent" -eq "$frames" ] || tb_fail "tcpreplay sent $sent frames, the pcap holds $frames"
redirected="$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["counters"]["pass_no_socket"])' "$EXPECT")"
tb_live_wait_taken "$redirected" || tb_fail "workers did not take $redirected frames within 15 s"
sleep 0.3 # anything late shows up as too many frames
link="$(($(tb_link_rx) - rx0))"
[ "$link" -eq "$sent" ] || tb_fail "$TB_SENSOR_IF received $link frames, $sent were sent"
stats="$(tb_ctl stats --json)"
STATS="$stats" /usr/bin/python3 - "$EXPECT" <<'PY' || tb_fail "program counters differ from the prediction"
import json, os, sys
exp = dict(json.load(open(sys.argv[1]))["counters"])
# sockets are attached: what had no socket is redirected now
exp["redirect_xsk"] = exp.pop("pass_no_socket", 0)
s = json.loads(os.environ["STATS"])
got = s["xdp"]
bad = [(k, exp.get(k, 0), v) for k, v in got.items() if exp.get(k, 0) != v]
for k, e, v in bad:
    print("  %-24s expected %6d counted %6d" % (k, e, v))
inv = s["invariant"]
if not inv["holds"] or inv["rx"] != inv["outcome_sum"]:
    print("  invariant: %s" % inv)
    bad.append("invariant")
sys.exit(1 if bad else 0)
PY
tb_ok "sample: $sent frames sent = veth rx = program rx; every counter as predicted, rx = sum of outcomes"

# --- 2. more frames, stats read while they arrive -------------------------
tb_peer tcpreplay -i "$TB_PEER_IF" --pps=10000 "$MORE" >"$TB_TMP/replay2.out" 2>&1 &
replay=$!
max_in_flight=0
while kill -0 "$replay" 2>/dev/null; do
	f="$(tb_ctl stats --json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["capture"]["in_flight"])')"
	[ "$f" -le "$max_in_flight" ] || max_in_flight="$f"
	sleep 0.05
done
wait "$replay" || tb_fail "tcpreplay of $MORE failed: $(cat "$TB_TMP/replay2.out")"
sent2="$(sed -n 's/.*Successful packets:[[:space:]]*\([0-9]*\).*/\1/p' "$TB_TMP/replay2.out")"
total=$((sent + sent2))
[ "$max_in_flight" -le "$total" ] ||
	tb_fail "meerkatctl stats showed $max_in_flight frames in flight, only $total were ever sent"
tb_ok "$sent2 more frames at 10,000/s; in_flight read during the replay stayed <= $max_in_flight"
tb_live_wait_taken "$((redirected + sent2))" || tb_fail "workers did not take every frame"

# --- 3. SIGTERM: the accounting line and the final stats event ------------
tb_meerkat_stop TERM
[ "$TB_MK_RC" -eq 0 ] || tb_fail "meerkat exited $TB_MK_RC after SIGTERM"
line="$(grep '^meerkat: accounting' "$TB_MK_DIR/err" || true)"
[ -n "$line" ] || tb_fail "no accounting line on stderr"
tb_log "$line"
read -r saw red took drops <<<"$(sed -n 's/.*program saw \([0-9]*\), redirected \([0-9]*\) = workers took \([0-9]*\) + socket drops \([0-9]*\);.*/\1 \2 \3 \4/p' <<<"$line")"
case "$line" in "meerkat: accounting ok:"*) ;; *) tb_fail "accounting line does not say ok" ;; esac
[ "$saw" -eq "$total" ] || tb_fail "program saw $saw frames, $total were sent"
[ "$red" -eq $((took + drops)) ] || tb_fail "redirected $red != took $took + drops $drops"
[ "$drops" -eq 0 ] || tb_fail "$drops socket drops at a modest rate"
[ "$red" -eq $((redirected + sent2)) ] || tb_fail "redirected $red, expected $((redirected + sent2))"
tb_last_stats | /usr/bin/python3 -c '
import json, sys
s = json.load(sys.stdin)["stats"]
c = s["capture"]
bad = []
if c["in_flight"] or c["kernel_drops"]:
    bad.append("in_flight %d, kernel_drops %d" % (c["in_flight"], c["kernel_drops"]))
if c["frames_refilled"] != c["sock_rx"]:
    bad.append("refilled %d != sock_rx %d" % (c["frames_refilled"], c["sock_rx"]))
if sum(w["pkts"] for w in s["workers"]) != c["sock_rx"]:
    bad.append("workers pkts %s != sock_rx %d" % ([w["pkts"] for w in s["workers"]], c["sock_rx"]))
if s["worker"]["worker_rx"] + c["user_parse_fail"] != c["sock_rx"]:
    bad.append("pipeline received %d of %d" % (s["worker"]["worker_rx"], c["sock_rx"]))
for sk in s["sockets"]:
    if sk["rx_dropped"] or sk["rx_ring_full"] or sk["rx_invalid_descs"]:
        bad.append("socket %s" % sk)
if not s["invariant"]["holds"]:
    bad.append("invariant %s" % s["invariant"])
if c["meta_missing"] or c["meta_bad"]:
    bad.append("frames without good metadata: %d missing, %d bad" % (c["meta_missing"], c["meta_bad"]))
print("final stats: sock_rx %d, per worker %s, kernel_packets %d" %
      (c["sock_rx"], [w["pkts"] for w in s["workers"]], c["kernel_packets"]))
sys.exit("; ".join(bad) if bad else 0)' || tb_fail "final EVE stats event does not balance"
tb_ok "SIGTERM: exit 0, $saw seen = $took taken + $((saw - red)) not redirected, 0 drops, all refilled"

[ -z "$(tb_sensor_prog_id)" ] || tb_fail "a program is still attached to $TB_SENSOR_IF after SIGTERM"
tb_ok "no XDP program left on $TB_SENSOR_IF"
