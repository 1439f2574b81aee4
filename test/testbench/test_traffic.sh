#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Sample traffic replayed across the veth pair moves the program's counters
# exactly as the traffic generator predicts (gen_traffic.py, which computes
# the expectation from how it built each frame):
#   1. before any replay every counter is 0;
#   2. pass 1, no bypass: tcpreplay from the peer namespace sends every frame
#      (none failed); rx grows by exactly the number of frames (the namespaces
#      run with IPv6 off and static neighbours, so no stray frame reaches the
#      sensor) and the sensor veth's own rx counter agrees; every counter
#      moves by the generator's expectation (no AF_XDP socket is attached, so
#      IP frames end in pass_no_socket, non-IP in pass_non_ip, malformed
#      frames in pass_error with their err_ reason; tunnel_* and fragment
#      count what the frames carry) and every other counter stays put;
#   3. pass 2, CIDR bypass: with the web server's address in mk_cidr_v4 the
#      same frames move the counters by the generator's second expectation:
#      every frame whose innermost address is the server's (plain, GTP-U and
#      L2TPv2 sessions) ends in drop_cidr_bypass, in the driver;
#   4. after each pass the accounting invariant holds: meerkatctl stats
#      --check exits 0.
# Usage: test_traffic.sh BUILD_DIR PCAP EXPECT_JSON
set -euo pipefail
# shellcheck source=test/testbench/lib.sh
. "$(dirname "$0")/lib.sh"

[ "${1:-}" != "--skip" ] || tb_skip "${2:-no reason given}"
BUILD="${1:?usage: $0 BUILD_DIR PCAP EXPECT_JSON}"
PCAP="${2:?usage: $0 BUILD_DIR PCAP EXPECT_JSON}"
EXPECT="${3:?usage: $0 BUILD_DIR PCAP EXPECT_JSON}"
OBJ="$BUILD/xdp/meerkat.bpf.o"
CTL="$BUILD/userspace/meerkatctl"
# veth queues at most 256 frames per ring under XDP: pace the replay so none is dropped
PPS=2000

tb_require_root
tb_require_cmd xdp-loader tcpreplay bpftool ip
[ -x /usr/bin/python3 ] || tb_skip "/usr/bin/python3 not installed"
tb_require_file "$OBJ"
tb_require_file "$CTL"
tb_require_file "$PCAP"
tb_require_file "$EXPECT"

expect_get() {
	/usr/bin/python3 -c '
import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2:]:
    v = v[k]
print(json.dumps(v) if isinstance(v, dict) else v)' "$EXPECT" "$@"
}
stats_json() { tb_sensor "$CTL" stats -i "$TB_SENSOR_IF" --json; }
ctl_rx() { stats_json | tb_json_counter rx; }
link_rx() {
	ip -n "$TB_NS_SENSOR" -s -j link show dev "$TB_SENSOR_IF" |
		/usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["stats64"]["rx"]["packets"])'
}

# replay_and_check LABEL EXPECTED_COUNTERS_JSON: one pass of the pcap; asserts
# that every counter moved by exactly the expected amount.
replay_and_check() {
	local label="$1" expected="$2" before after out sent failed rx0 rx1 target
	before="$(stats_json)" || tb_fail "meerkatctl stats failed before $label"
	rx0="$(link_rx)"

	out="$(tb_peer tcpreplay -i "$TB_PEER_IF" --pps="$PPS" "$PCAP" 2>&1)" || {
		printf '%s\n' "$out" >&2
		tb_fail "$label: tcpreplay failed"
	}
	sent="$(sed -n 's/.*Successful packets:[[:space:]]*\([0-9]*\).*/\1/p' <<<"$out")"
	failed="$(sed -n 's/.*Failed packets:[[:space:]]*\([0-9]*\).*/\1/p' <<<"$out")"
	if [ "$sent" != "$FRAMES" ] || [ "$failed" != "0" ]; then
		printf '%s\n' "$out" >&2
		tb_fail "$label: tcpreplay sent $sent frames ($failed failed), the pcap holds $FRAMES"
	fi
	tb_ok "$label: tcpreplay sent $sent frames from $TB_NS_PEER/$TB_PEER_IF, 0 failed"

	target=$(($(tb_json_counter rx <<<"$before") + FRAMES))
	rx_reached() { [ "$(ctl_rx)" -ge "$target" ]; }
	tb_wait 10 rx_reached || true
	sleep 0.5 # anything arriving late shows up as too many frames
	after="$(stats_json)" || tb_fail "meerkatctl stats failed after $label"
	rx1="$(link_rx)"

	BEFORE="$before" AFTER="$after" EXPECTED="$expected" /usr/bin/python3 - <<'PY' ||
import json, os, sys
exp = json.loads(os.environ["EXPECTED"])
b = json.loads(os.environ["BEFORE"])["counters"]
a = json.loads(os.environ["AFTER"])["counters"]
bad = 0
unknown = sorted(set(exp) - set(a))
if unknown:
    print("expected counters unknown to the program: %s" % unknown)
    bad = 1
print("  %-24s %8s %8s" % ("counter", "expected", "moved by"))
for name in a:
    e, d = exp.get(name, 0), a[name] - b[name]
    if e or d:
        print("  %-24s %8d %8d%s" % (name, e, d, "" if e == d else "   <-- MISMATCH"))
    bad |= e != d
sys.exit(bad)
PY
		check_fail "$label: counters moved differently from the traffic's expectation" &&
		tb_ok "$label: every counter moved exactly as expected (rx +$FRAMES)"

	{ [ "$((rx1 - rx0))" -eq "$FRAMES" ] ||
		check_fail "$label: $TB_SENSOR_IF received $((rx1 - rx0)) frames, $FRAMES were sent"; } &&
		tb_ok "$label: $TB_SENSOR_IF link counter agrees: $((rx1 - rx0)) frames received"

	{ tb_sensor "$CTL" stats -i "$TB_SENSOR_IF" --check >/dev/null ||
		check_fail "$label: meerkatctl stats --check: accounting invariant violated"; } &&
		tb_ok "$label: accounting invariant holds (meerkatctl stats --check)"
}

# A wrong count is reported and the test goes on, so one run shows every
# mismatch; the test fails at the end. Returns 1 so "|| check_fail && ok" works.
CHECKS_FAILED=0
check_fail() {
	printf '%s: FAIL: %s\n' "$TB_NAME" "$*" >&2
	CHECKS_FAILED=$((CHECKS_FAILED + 1))
	return 1
}

FRAMES="$(expect_get frames)"
tb_setup
tb_attach "$OBJ"
tb_ok "meerkat_xdp attached (native) to $TB_SENSOR_IF"

stats_json | /usr/bin/python3 -c '
import json, sys
nz = {k: v for k, v in json.load(sys.stdin)["counters"].items() if v}
sys.exit("counters not zero before the replay: %s" % nz if nz else 0)' ||
	tb_fail "fresh program has non-zero counters"
tb_ok "all counters 0 before the replay"

replay_and_check "pass 1 (no bypass)" "$(expect_get counters)"

prefix="$(expect_get cidr_bypass prefix)"
tb_cidr_v4_add "$prefix" || tb_fail "cannot add $prefix to mk_cidr_v4"
tb_ok "$prefix added to the CIDR bypass list (mk_cidr_v4, mk_cidr_v4_entries = 1)"
replay_and_check "pass 2 (CIDR bypass $prefix)" "$(expect_get cidr_bypass counters)"

tb_sensor "$CTL" stats -i "$TB_SENSOR_IF"
[ "$CHECKS_FAILED" -eq 0 ] || tb_fail "$CHECKS_FAILED check(s) failed, see above"
