#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The live sensor under faults (docs/security.md), on the veth testbench,
# with traffic replayed from the peer namespace the whole time:
#   1. privileges: after setup the daemon and every thread of it keep only
#      CAP_NET_ADMIN and CAP_SYS_ADMIN, with an empty bounding set and
#      no_new_privs;
#   2. the interface goes down and up (ours, then the peer's carrier):
#      capture resumes, each gap is counted (capture.link_down, _ms) and
#      logged, nothing crashes;
#   3. the log disk fills (LOGDIR on a small tmpfs, filled up): the write
#      error is logged with the real errno, lost records are counted
#      (eve.lost), capture goes on, output resumes once space returns, and
#      eve.json holds whole JSON lines only;
#   4. rules invalid (SIGUSR2) or unreadable (meerkatctl reload) at reload:
#      the reload fails, is counted and reported naming the file, the old
#      rules stay in force (same generation, alerts still raised), and the
#      next good reload succeeds;
#   5. kill -9 under traffic, then a restart: it starts cleanly, replaces
#      the program the dead one left attached, and reuses the pinned bypass
#      map (capture.pin-dir) with its entries;
#   6. SIGTERM under heavy traffic: the program is detached, the workers
#      drain, the final stats and the accounting line are written, exit 0
#      within 5 s;
#   7. with an ASan build (run-tests.sh's build-asan/), LeakSanitizer runs at
#      the SIGTERM exit (the kill -9 one has none) and must report nothing.
# Usage: test_faults.sh BUILD_DIR
set -euo pipefail
# shellcheck source=test/testbench/lib.sh
. "$(dirname "$0")/lib.sh"

[ "${1:-}" != "--skip" ] || tb_skip "${2:-no reason given}"
BUILD="${1:?usage: $0 BUILD_DIR}"
MEERKAT="$BUILD/userspace/meerkat"
CTL="$BUILD/userspace/meerkatctl"
GEN="$BUILD/test/attack/gen_attack"

tb_require_root
tb_require_cmd tcpreplay bpftool ip mount
[ -x /usr/bin/python3 ] || tb_skip "/usr/bin/python3 not installed"
tb_require_file "$MEERKAT"
tb_require_file "$CTL"
tb_require_file "$GEN"

CHECKS_FAILED=0
check_fail() {
	printf '%s: FAIL: %s\n' "$TB_NAME" "$*" >&2
	CHECKS_FAILED=$((CHECKS_FAILED + 1))
	return 1
}
# check DESCRIPTION CMD...: ok or a counted failure; the test goes on either way
check() {
	local what="$1"
	shift
	if "$@"; then
		tb_ok "$what"
	else
		check_fail "$what" || true
	fi
}

W="$(mktemp -d /tmp/meerkat-faults.XXXXXX)"
LOGDIR="$W/log"
DPID=""
TRAFFIC=""
HEAVY=""
ASAN=0
grep -q __asan_init "$MEERKAT" && ASAN=1

faults_cleanup() {
	local rc=$? p
	for p in $HEAVY $TRAFFIC $DPID; do
		kill -KILL "$p" 2>/dev/null || true
	done
	wait 2>/dev/null || true
	if mountpoint -q "$LOGDIR"; then
		umount "$LOGDIR" || true
	fi
	rm -rf "$W"
	# tb_cleanup reads the status from $?; with set -e a failing (exit)
	# would end the script here and leave the testbench behind
	set +e
	(exit "$rc")
	tb_cleanup
}

tb_setup
trap faults_cleanup EXIT

mkdir -p "$LOGDIR"
# a small disk for the logs: 4 MiB, filled up in step 3
mount -t tmpfs -o size=4m meerkat-faults "$LOGDIR" || tb_skip "cannot mount a tmpfs"
cat >"$W/meerkat.yaml" <<EOF
capture:
  workers: 2
  control-socket: $W/ctl.sock
  pin-dir: $TB_BPFFS/pins
stats:
  interval: 1
# the flood's one-way flows unlogged (counted): the disk fills with the filler
# of step 3, not with them
outputs:
  - eve-log:
      types:
        - alert
        - flow:
            unreplied: none
        - stats
# flows end within seconds, so records keep coming while traffic does
flow-timeouts:
  tcp:
    new: 1
    established: 1
    closed: 1
rule-files:
  - $W/local.rules
EOF
echo 'alert tcp any any -> any 80 (msg:"meerkat faults test"; content:"meerkat-attack-trigger"; sid:1;)' \
	>"$W/local.rules"
# traffic: SYNs from 20000 sources and three HTTP sessions, replayed in a loop
"$GEN" syn -o "$W/syn.pcap" --count 20000 >/dev/null

ctl() { tb_sensor "$CTL" -s "$W/ctl.sock" "$@"; }
# stat PATH...: one value of `meerkatctl stats --json`, e.g. stat capture sock_rx
stat() {
	local js
	js="$(ctl stats --json)" || return 1
	/usr/bin/python3 -c '
import json, sys
v = json.loads(sys.argv[1])
for k in sys.argv[2:]:
    v = v[k]
print(v)' "$js" "$@"
}
log_has() { grep -q -- "$2" "$W/$1.log"; }
alive() { kill -0 "$DPID" 2>/dev/null; }

# start_daemon NAME: meerkat in the sensor namespace, its stderr in $W/NAME.log
start_daemon() {
	# no function in between: $! must be meerkat itself, for signals and wait
	ip netns exec "$TB_NS_SENSOR" env LIBXDP_BPFFS="$TB_BPFFS" \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}" "$MEERKAT" -i "$TB_SENSOR_IF" -c "$W/meerkat.yaml" \
		-l "$LOGDIR" -v >"$W/$1.log" 2>&1 &
	DPID=$!
	if ! tb_wait 20 ctl ping; then
		cat "$W/$1.log" >&2
		tb_fail "$1: meerkat did not answer on its control socket"
	fi
	TB_PROG_IDS+=" $(tb_sensor_prog_id)"
}

# replay PPS: the capture in a loop from the peer, in the background
replay() {
	ip netns exec "$TB_NS_PEER" tcpreplay -q -i "$TB_PEER_IF" --pps="$1" --loop=0 \
		"$W/syn.pcap" >/dev/null 2>&1 &
}

# grows PATH...: waits (10 s) until the counter exceeds its value now
GROWS_FROM=0
grows_past() { [ "$(stat "$@")" -gt "$GROWS_FROM" ]; }
grows() {
	GROWS_FROM="$(stat "$@")" || return 1
	tb_wait 10 grows_past "$@"
}

# sanitizer_clean NAME: the daemon's log has no ASan/LSan/UBSan report
sanitizer_clean() {
	! grep -Eq 'LeakSanitizer|AddressSanitizer|runtime error:' "$W/$1.log"
}

# ---- start ------------------------------------------------------------------
start_daemon first
replay 4000
TRAFFIC=$!
check "capture runs: workers take frames" grows capture sock_rx

# ---- 1. privileges ----------------------------------------------------------
# CAP_NET_ADMIN (bit 12) and CAP_SYS_ADMIN (bit 21) only
WANT_CAPS=0000000000201000
caps_of() { sed -n "s/^$1:[[:space:]]*//p" "$2"; }
caps_ok() {
	local t
	for t in /proc/"$DPID"/task/*; do
		[ "$(caps_of CapEff "$t/status")" = "$WANT_CAPS" ] || return 1
		[ "$(caps_of CapPrm "$t/status")" = "$WANT_CAPS" ] || return 1
		[ "$(caps_of CapBnd "$t/status")" = 0000000000000000 ] || return 1
		[ "$(caps_of CapInh "$t/status")" = 0000000000000000 ] || return 1
		[ "$(caps_of NoNewPrivs "$t/status")" = 1 ] || return 1
	done
}
caps_ok || grep -E '^(Cap|NoNewPrivs)' /proc/"$DPID"/status >&2
check "privileges: every thread keeps CAP_NET_ADMIN and CAP_SYS_ADMIN only, no bounding set, no_new_privs" caps_ok

# ---- 2. interface down and up -------------------------------------------------
ip -n "$TB_NS_SENSOR" link set dev "$TB_SENSOR_IF" down
sleep 1
ip -n "$TB_NS_SENSOR" link set dev "$TB_SENSOR_IF" up
tb_wait 5 tb_link_up "$TB_NS_SENSOR" "$TB_SENSOR_IF" || tb_fail "$TB_SENSOR_IF did not come back"
check "link down/up: capture resumes" grows capture sock_rx
check "link down/up: the gap is counted (link_down 1)" [ "$(stat capture link_down)" = 1 ]
down_ms="$(stat capture link_down_ms)"
check "link down/up: its length is counted (${down_ms} ms >= 900)" [ "$down_ms" -ge 900 ]
both_edges() { log_has first "link down" && log_has first "link up again"; }
check "link down/up: both edges logged" both_edges
# the peer's side: carrier loss, not an administrative down. The kernel
# reports carrier changes through linkwatch, at most about once a second, so
# a shorter blip right after another link event may never be seen.
ip -n "$TB_NS_PEER" link set dev "$TB_PEER_IF" down
sleep 2
ip -n "$TB_NS_PEER" link set dev "$TB_PEER_IF" up
tb_wait 5 tb_link_up "$TB_NS_SENSOR" "$TB_SENSOR_IF" || tb_fail "$TB_SENSOR_IF has no carrier"
check "carrier lost and back: capture resumes" grows capture sock_rx
downs_are() { [ "$(stat capture link_down)" = "$1" ]; }
check "carrier lost and back: counted (link_down 2)" tb_wait 5 downs_are 2
check "link faults: the daemon is alive" alive

# ---- 3. the log disk fills ----------------------------------------------------
dd if=/dev/zero of="$LOGDIR/filler" bs=64k >/dev/null 2>&1 || true
check "disk full: lost records counted (eve.lost)" grows eve lost
check "disk full: the real errno is logged" log_has first "eve.json: No space left on device"
check "disk full: capture goes on" grows capture sock_rx
lost="$(stat eve lost)"
rm -f "$LOGDIR/filler"
check "disk back: output resumes (eve.written grows)" grows eve written
check "disk back: logged" log_has first "writes succeed again"
tb_log "disk full: $lost records lost while it was"
whole_lines() {
	/usr/bin/python3 -c '
import json, sys
n = 0
for line in open(sys.argv[1]):
    json.loads(line)
    n += 1
print("  eve.json: %d records, every line whole JSON" % n)' "$LOGDIR/eve.json"
}
check "disk full and back: eve.json holds whole JSON lines only" whole_lines
# room for the rest of the test
mount -o remount,size=256m "$LOGDIR"

# ---- 4. rules unreadable or invalid at reload ----------------------------------
# rules NAME: one value of `meerkatctl rules --json`
rules() {
	local js
	js="$(ctl rules --json)" || return 1
	/usr/bin/python3 -c 'import json, sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$js" "$1"
}
alerts() { grep -c '"event_type":"alert"' "$LOGDIR/eve.json" || true; }
alerts_grow() { [ "$(alerts)" -gt "$ALERTS0" ]; }
reload_done() { [ "$(rules reloading)" = False ] && [ "$(rules reloads_failed)" = "$1" ]; }
gen0="$(rules generation)"
ALERTS0="$(alerts)"
check "rules in force: the real sessions raise alerts" tb_wait 10 alerts_grow
# invalid rules, reloaded by SIGUSR2
echo 'this is not a rule' >"$W/local.rules"
kill -USR2 "$DPID"
check "invalid rules at reload: the reload fails (reloads_failed 1)" tb_wait 10 reload_done 1
old_rules_stay() { [ "$(rules generation)" = "$gen0" ] && [ "$(rules rules_loaded)" = 1 ]; }
check "invalid rules at reload: the old rules stay (generation $gen0, 1 rule)" old_rules_stay
check "invalid rules at reload: the error is logged, naming the file" \
	log_has first "local.rules:1: rule header is incomplete"
check "invalid rules at reload: reported (reload failed, old rules kept)" \
	log_has first "reload failed, old rules kept"
ALERTS0="$(alerts)"
check "invalid rules at reload: the old rules still raise alerts" tb_wait 10 alerts_grow
# unreadable rules, reloaded by meerkatctl
rm -f "$W/local.rules"
if ctl reload >"$W/reload.out" 2>&1; then
	check_fail "unreadable rules at reload: meerkatctl reload reported success" || true
else
	tb_ok "unreadable rules at reload: meerkatctl reload fails: $(tr '\n' ' ' <"$W/reload.out" | head -c 160)"
fi
reload_failed_twice() { reload_done 2 && old_rules_stay; }
check "unreadable rules at reload: counted (reloads_failed 2), the old rules stay" \
	reload_failed_twice
check "unreadable rules at reload: the daemon runs on" alive
# good rules again: the next reload takes them
echo 'alert tcp any any -> any 80 (msg:"meerkat faults test 2"; content:"meerkat-attack-trigger"; sid:2;)' \
	>"$W/local.rules"
check "valid rules again: meerkatctl reload succeeds" ctl reload
check "valid rules again: a new generation" [ "$(rules generation)" = "$((gen0 + 1))" ]
tb_log "a reload re-reads the rule files (and classification, reference, threshold files)," \
	"the configuration file too (docs/operations.md, Reload); a bad one is refused with its file and line"

# ---- 5. kill -9 under traffic, then restart -------------------------------------
PIN="$TB_BPFFS/pins/$TB_SENSOR_IF/mk_flow_bypass"
check "pinned bypass map at capture.pin-dir" [ -e "$PIN" ]
map_id_of() { bpftool map show pinned "$1" | sed -n 's/^\([0-9]*\):.*/\1/p' | head -n 1; }
map_id="$(map_id_of "$PIN")"
# a bypass entry: an arbitrary flow key, as the bypass module writes them; a zero value
vbytes="$(bpftool map show pinned "$PIN" -j |
	/usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["bytes_value"])')"
key="$(seq -s ' ' 1 48)"
value="$(printf '0 %.0s' $(seq 1 "$vbytes"))"
# shellcheck disable=SC2086 # one word per byte
if bpftool map update pinned "$PIN" key $key value $value 2>"$W/bpftool.err"; then
	tb_ok "bypass entry added to $PIN (map id $map_id)"
else
	check_fail "cannot add a bypass entry: $(cat "$W/bpftool.err")"
fi
stale="$(tb_sensor_prog_id)"
kill -KILL "$DPID"
wait "$DPID" 2>/dev/null || true
DPID=""
check "kill -9: the dead daemon's program stays attached (id $stale)" [ "$(tb_sensor_prog_id)" = "$stale" ]
start_daemon second
fresh="$(tb_sensor_prog_id)"
replaced() { [ -n "$fresh" ] && [ "$fresh" != "$stale" ]; }
check "restart: the stale program was replaced (id $stale -> $fresh)" replaced
check "restart: says so" log_has second "replaced the meerkat program a previous run left attached"
check "restart: one program on the interface" [ "$(ip -n "$TB_NS_SENSOR" -d link show dev "$TB_SENSOR_IF" | grep -c 'prog/xdp id')" = 1 ]
prog_maps() { bpftool prog show id "$1" -j | /usr/bin/python3 -c 'import json,sys; print(" ".join(map(str, json.load(sys.stdin)["map_ids"])))'; }
check "restart: the new program uses the pinned bypass map (id $map_id)" grep -qw "$map_id" <<<"$(prog_maps "$fresh")"
# shellcheck disable=SC2086
check "restart: the bypass entry survived" bpftool map lookup pinned "$PIN" key $key >/dev/null 2>&1
check "restart: capture runs" grows capture sock_rx

# ---- 6. SIGTERM under heavy traffic ----------------------------------------------
ip netns exec "$TB_NS_PEER" tcpreplay -q -i "$TB_PEER_IF" --topspeed --loop=0 "$W/syn.pcap" \
	>/dev/null 2>&1 &
HEAVY=$!
check "heavy traffic: capture busy" grows capture sock_rx
sleep 1
t0="$(date +%s%N)"
kill -TERM "$DPID"
rc=0
wait "$DPID" || rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
DPID=""
check "SIGTERM under traffic: exit status 0" [ "$rc" = 0 ]
check "SIGTERM under traffic: exited in ${ms} ms (<= 5000)" [ "$ms" -le 5000 ]
check "SIGTERM under traffic: the program is detached" [ -z "$(tb_sensor_prog_id)" ]
check "SIGTERM under traffic: final accounting holds" log_has second "accounting ok"
last_type() { tail -n 1 "$LOGDIR/eve.json" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["event_type"])'; }
check "SIGTERM under traffic: the final stats are the last EVE record" [ "$(last_type)" = stats ]
grep 'accounting' "$W/second.log" | tail -n 1

# ---- 7. leaks ------------------------------------------------------------------------
if [ "$ASAN" = 1 ]; then
	check "ASan build: no sanitizer report at exit (LeakSanitizer included)" sanitizer_clean second
else
	tb_log "not an ASan build: the leak check runs in run-tests.sh's build-asan/ stage"
fi

kill -TERM "$HEAVY" "$TRAFFIC" 2>/dev/null || true
wait "$HEAVY" "$TRAFFIC" 2>/dev/null || true
HEAVY=""
TRAFFIC=""
[ "$CHECKS_FAILED" -eq 0 ] || tb_fail "$CHECKS_FAILED check(s) failed, see above"
tb_ok "every fault handled"
