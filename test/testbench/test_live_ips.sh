#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Inline (IPS) mode on a three-namespace testbench (needs root),
# docs/bypass.md "Inline (IPS) mode": client -- [IN sensor OUT] -- server,
# meerkat --ips -i IN:OUT in between, real TCP sessions (tests/ips_peer.py):
#   1. a download and an upload of tens of MB cross the sensor byte-exact
#      (sha256 at both ends); past the reassembly depth the flow is bypassed
#      and forwarded in the driver (fwd_flow_bypass), the worker's frames
#      stop growing; CIDR-bypassed traffic never reaches the worker;
#   2. a drop rule stops a session carrying a marked payload before the
#      marked bytes reach the server (alert "blocked", EVE drop record, the
#      flow then dropped in the driver), while another session goes on;
#   3. a reject rule resets the client (ECONNRESET);
#   4. ips.failure: open: after SIGTERM the forwarder carries traffic, a
#      restart replaces it, after SIGKILL meerkat's program forwards;
#      ips.failure: closed: after SIGTERM and after SIGKILL nothing passes.
# Everything it creates (namespaces, veths, programs, forwarders) is
# removed when it ends, pass or fail.
#
# usage: test_live_ips.sh BUILD_DIR PEER_PY [MB]
set -euo pipefail
# shellcheck source=test/testbench/lib.sh
. "$(dirname "$0")/lib.sh"

[ "${1:-}" != "--skip" ] || tb_skip "${2:-no reason given}"
BUILD="${1:?usage: $0 BUILD_DIR PEER_PY [MB]}"
PEER="${2:?}"
MB="${3:-30}"
TB_MEERKAT="$BUILD/userspace/meerkat"
TB_CTL="$BUILD/userspace/meerkatctl"
PORT=8080

tb_require_root
tb_require_cmd bpftool ip ethtool
[ -x /usr/bin/python3 ] || tb_skip "/usr/bin/python3 not installed"
for f in "$TB_MEERKAT" "$TB_CTL" "$PEER"; do tb_require_file "$f"; done

tb_setup_ips
SRV_DIR="$TB_TMP/server"
mkdir -p "$SRV_DIR"
# the server is stopped with the daemons by tb_cleanup, pass or fail
ip netns exec "$TB_NS_SERVER" /usr/bin/python3 "$PEER" serve "$PORT" "$SRV_DIR" </dev/null \
	>"$TB_TMP/server.log" 2>&1 {TB_STDOUT_FD}>&- {TB_STDERR_FD}>&- &
TB_MK_PIDS+=" $!"

RULES="$TB_TMP/ips.rules"
cat >"$RULES" <<'EOF2'
drop tcp any any -> any 8080 (msg:"ips drop marker"; content:"MEERKAT-DROP-MARK"; sid:9300001;)
reject tcp any any -> any 8080 (msg:"ips reject marker"; content:"MEERKAT-REJECT-MARK"; sid:9300002;)
rejectdst tcp any any -> any 8080 (msg:"ips rejectdst marker"; content:"MEERKAT-REJDST-MARK"; sid:9300004;)
alert tcp any any -> any 8080 (msg:"ips plain alert"; content:"GET "; depth:4; sid:9300003;)
EOF2
conf() {
	cat >"$TB_TMP/ips-$1.yaml" <<EOF2
stream:
  reassembly:
    depth: 256kb
flow-timeouts:
  tcp:
    established: 4
    bypassed: 5
ips:
  failure: $1
EOF2
}
conf open
conf closed

# get N TIMEOUT, put NAME FILE TIMEOUT: ips_peer.py in the client namespace
get() { ip netns exec "$TB_NS_PEER" /usr/bin/python3 "$PEER" get "$TB_SERVER_IP" "$PORT" "$@"; }
put() { ip netns exec "$TB_NS_PEER" /usr/bin/python3 "$PEER" put "$TB_SERVER_IP" "$PORT" "$@"; }

start() {
	local id
	tb_meerkat_start "$1" --ips -i "$TB_SENSOR_IF:$TB_SENSOR_IF2" --workers 1 -v -S "$RULES" \
		-c "$TB_TMP/ips-$2.yaml" || {
		cat "$TB_MK_DIR/err" >&2
		tb_fail "meerkat --ips did not start (status $TB_MK_RC)"
	}
	for id in $(tb_ips_prog_ids); do TB_PROG_IDS+=" $id"; done
}
stats() { tb_ctl stats --json; }
# jstat JSON GROUP KEY
jstat() { /usr/bin/python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]][sys.argv[3]])' "$@"; }
prog_names() {
	local id
	for id in $(tb_ips_prog_ids); do
		bpftool prog show id "$id" 2>/dev/null | sed -n 's/^[0-9]*: xdp *name \([^ ]*\).*/\1/p'
	done
}
server_ready() { get 16 2 >/dev/null; }

# ---- 1. byte-exact transfers, bypass in the driver -----------------------------
start open open
tb_wait 10 server_ready || tb_fail "the server is not reachable through the sensor"
/usr/bin/python3 "$PEER" pattern $((MB << 20)) "$TB_TMP/pattern.bin"
want="$(sha256sum "$TB_TMP/pattern.bin" | cut -d' ' -f1)"
s0="$(stats)"
out="$(get $((MB << 20)) 60)" || tb_fail "download: $out"
[ "$out" = "$want $((MB << 20))" ] || tb_fail "download of $MB MB: got '$out', want '$want $((MB << 20))'"
tb_ok "$MB MB download through the sensor, sha256 equal"
sleep 1.2 # the workers publish their counters once a second
s1="$(stats)"
fwd=$(($(jstat "$s1" xdp fwd_flow_bypass) - $(jstat "$s0" xdp fwd_flow_bypass)))
took=$(($(jstat "$s1" capture sock_rx) - $(jstat "$s0" capture sock_rx)))
frames=$(((MB << 20) / 1448))
[ "$fwd" -ge $((frames / 2)) ] || tb_fail "bypass: the driver forwarded $fwd frames of a ~$frames-frame download"
[ "$took" -lt $((frames / 10)) ] || tb_fail "bypass: the worker took $took frames of a ~$frames-frame download"
tb_ok "bypassed download forwarded in the driver: $fwd frames, worker took $took"

head -c $((MB << 19)) /dev/urandom >"$TB_TMP/up.bin"
want="$(sha256sum "$TB_TMP/up.bin" | cut -d' ' -f1)"
out="$(put up.bin "$TB_TMP/up.bin" 60)" || tb_fail "upload: $out"
[ "$out" = "OK $want" ] || tb_fail "upload: server answered '$out', want 'OK $want'"
cmp -s "$TB_TMP/up.bin" "$SRV_DIR/up.bin" || tb_fail "upload: the server's copy differs"
tb_ok "$((MB / 2)) MB upload through the sensor, byte-exact"

# CIDR bypass: the server's address forwarded in the driver, the worker sees none of it
out="$(tb_ctl bypass cidr add "$TB_SERVER_IP/32")" || tb_fail "bypass cidr add: $out"
sleep 1.2
s0="$(stats)"
out="$(get 4000000 30)" || tb_fail "download under CIDR bypass: $out"
sleep 1.2
s1="$(stats)"
fwd=$(($(jstat "$s1" xdp fwd_cidr_bypass) - $(jstat "$s0" xdp fwd_cidr_bypass)))
took=$(($(jstat "$s1" capture sock_rx) - $(jstat "$s0" capture sock_rx)))
# 4 MB are at least 2,763 full-sized data frames
if [ "$fwd" -lt 2763 ] || [ "$took" -ne 0 ]; then
	tb_fail "CIDR bypass: the driver forwarded $fwd frames, the worker took $took (want >= 2763, 0)"
fi
out="$(tb_ctl bypass cidr del "$TB_SERVER_IP/32")" || tb_fail "bypass cidr del: $out"
tb_ok "CIDR-bypassed traffic forwarded in the driver: $fwd frames, none to the worker"

# ---- 2. drop ---------------------------------------------------------------------
# the marker three times, 700 bytes apart: whatever the segmentation, one is whole in a segment
marked() {
	head -c 65536 /dev/urandom
	local _
	for _ in 1 2 3; do
		printf '%s' "$1"
		head -c 683 /dev/zero | tr '\0' 'x'
	done
	head -c 65536 /dev/urandom
}
marked MEERKAT-DROP-MARK >"$TB_TMP/drop.bin"
head -c 2000000 /dev/urandom >"$TB_TMP/other.bin"
other_want="$(sha256sum "$TB_TMP/other.bin" | cut -d' ' -f1)"
rc=0
out="$(put drop.bin "$TB_TMP/drop.bin" 5)" || rc=$?
if [ "$rc" -ne 4 ] || [ "$out" != "TIMEOUT" ]; then
	tb_fail "drop: the client got '$out' (status $rc), want a timeout"
fi
if grep -q MEERKAT-DROP-MARK "$SRV_DIR/drop.bin" 2>/dev/null; then
	tb_fail "drop: the marked bytes reached the server"
fi
out="$(put other.bin "$TB_TMP/other.bin" 30)" || tb_fail "drop: the other session failed: $out"
[ "$out" = "OK $other_want" ] || tb_fail "drop: the other session got '$out'"
tb_ok "drop: the marked session stopped before its marker reached the server ($(stat -c %s "$SRV_DIR/drop.bin" 2>/dev/null || echo 0) bytes arrived), another went on"

# ---- 3. reject ------------------------------------------------------------------
marked MEERKAT-REJECT-MARK >"$TB_TMP/reject.bin"
rc=0
out="$(put reject.bin "$TB_TMP/reject.bin" 10)" || rc=$?
if [ "$rc" -ne 3 ] || [ "$out" != "ECONNRESET" ]; then
	tb_fail "reject: the client got '$out' (status $rc), want ECONNRESET"
fi
if grep -q MEERKAT-REJECT-MARK "$SRV_DIR/reject.bin" 2>/dev/null; then
	tb_fail "reject: the marked bytes reached the server"
fi
tb_ok "reject: the client saw ECONNRESET"
sleep 1.2
s2="$(stats)"
[ "$(jstat "$s2" capture ips_reject_sent)" -eq 2 ] ||
	tb_fail "reject: $(jstat "$s2" capture ips_reject_sent) RSTs sent, want 2 (one each way)"
# rejectdst: only the server is reset; the client's session just stops
marked MEERKAT-REJDST-MARK >"$TB_TMP/rejdst.bin"
out="$(put rejdst.bin "$TB_TMP/rejdst.bin" 5)" || true
[ "$out" = "TIMEOUT" ] || tb_fail "rejectdst: the client got '$out', want a timeout (no RST toward it)"
sleep 1.2
s3="$(stats)"
[ $(($(jstat "$s3" capture ips_reject_sent) - $(jstat "$s2" capture ips_reject_sent))) -eq 1 ] ||
	tb_fail "rejectdst: $(($(jstat "$s3" capture ips_reject_sent) - $(jstat "$s2" capture ips_reject_sent))) RSTs sent, want 1"
[ "$(jstat "$s3" bypass drops)" -ge 3 ] || tb_fail "drop/reject: the flows were not put in the driver's drop map"
tb_ok "rejectdst: one RST, toward the server only"
# the blocked flows end at their idle timeout, and leave the driver's drop map with it
drops_ended() { [ "$(jstat "$(stats)" bypass drop_ended)" -ge "$1" ]; }
tb_wait 20 drops_ended 3 || tb_fail "blocked flows: $(jstat "$(stats)" bypass drop_ended) of 3 left the drop map at their end"
tb_ok "blocked flows leave the driver's drop map when they end in the worker"

# a session that lives across the stop (about 3 s long): fail-open keeps it going
head -c 3000000 /dev/urandom >"$TB_TMP/long.bin"
long_want="$(sha256sum "$TB_TMP/long.bin" | cut -d' ' -f1)"
put long.bin "$TB_TMP/long.bin" 30 60 >"$TB_TMP/long.out" 2>&1 &
long_pid=$!
sleep 1
tb_meerkat_stop TERM
[ "$TB_MK_RC" -eq 0 ] || tb_fail "meerkat exited with $TB_MK_RC"
wait "$long_pid" || tb_fail "fail-open: the session across SIGTERM failed: $(cat "$TB_TMP/long.out")"
[ "$(cat "$TB_TMP/long.out")" = "OK $long_want" ] ||
	tb_fail "fail-open: the session across SIGTERM got '$(cat "$TB_TMP/long.out")'"
/usr/bin/python3 - "$TB_MK_DIR/eve.json" <<'PY' || tb_fail "EVE: blocked alerts or drop records missing"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
alerts = {e["alert"]["signature_id"]: e["alert"]["action"] for e in ev if e["event_type"] == "alert"}
drops = [e for e in ev if e["event_type"] == "drop"]
assert alerts.get(9300001) == "blocked", alerts
assert alerts.get(9300002) == "blocked", alerts
assert alerts.get(9300003) == "allowed", alerts
assert len(drops) >= 2 and all(d["drop"]["reason"] == "rules" and "tcpseq" in d["drop"] for d in drops), drops
PY
tb_ok "EVE: drop and reject alerts say blocked, a plain alert allowed, drop records written"

# ---- 4. fail-open / fail-closed -------------------------------------------------
[ "$(prog_names | sort -u)" = "meerkat_fwd" ] || tb_fail "fail-open: after SIGTERM the interfaces run '$(prog_names | tr '\n' ' ')', want the forwarder"
for id in $(tb_ips_prog_ids); do TB_PROG_IDS+=" $id"; done
out="$(get 1000000 10)" || tb_fail "fail-open: no traffic after SIGTERM: $out"
tb_ok "fail-open: after SIGTERM the forwarder carries traffic, a session across the stop completed byte-exact"
start open2 open
[ "$(prog_names | grep -c meerkat_fwd)" -eq 0 ] || tb_fail "fail-open: the restart left the forwarder attached"
# both ends of the forwarder's life are one atomic replace: never an interface without a program
[ "$(grep -c "a previous run left attached (in one step)" "$TB_MK_DIR/err")" -eq 2 ] ||
	tb_fail "fail-open: the restart did not replace the forwarder in one step"
get 100000 10 >/dev/null || tb_fail "fail-open: no traffic after the restart"
put long2.bin "$TB_TMP/long.bin" 30 60 >"$TB_TMP/long.out" 2>&1 &
long_pid=$!
sleep 1
tb_meerkat_stop KILL
wait "$long_pid" || tb_fail "fail-open: the session across SIGKILL failed: $(cat "$TB_TMP/long.out")"
[ "$(cat "$TB_TMP/long.out")" = "OK $long_want" ] ||
	tb_fail "fail-open: the session across SIGKILL got '$(cat "$TB_TMP/long.out")'"
out="$(get 1000000 10)" || tb_fail "fail-open: no traffic after SIGKILL: $out"
tb_ok "fail-open: a restart replaces the forwarder; after SIGKILL meerkat's program forwards"

start closed closed
[ "$(grep -c "a previous run left attached (in one step)" "$TB_MK_DIR/err")" -eq 2 ] ||
	tb_fail "after SIGKILL the restart did not replace the killed program in one step"
get 100000 10 >/dev/null || tb_fail "fail-closed: no traffic while meerkat runs"
tb_meerkat_stop TERM
[ -z "$(prog_names)" ] || tb_fail "fail-closed: after SIGTERM the interfaces still run $(prog_names | tr '\n' ' ')"
out="$(get 100000 3)" || true
[ "$out" = "TIMEOUT" ] || tb_fail "fail-closed: traffic passed after SIGTERM: '$out'"
start closed2 closed
tb_meerkat_stop KILL
out="$(get 100000 3)" || true
[ "$out" = "TIMEOUT" ] || tb_fail "fail-closed: traffic passed after SIGKILL: '$out'"
tb_ok "fail-closed: nothing passes after SIGTERM or SIGKILL"
