#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Live detection on the veth testbench (needs root):
#   1. meerkat -i on the sensor veth with the sample rules, the sample traffic
#      replayed from the peer: the alerts (sid, addresses, ports, protocol,
#      as a multiset) are exactly those meerkat -r raises on the same pcap;
#   2. meerkatctl reload and SIGUSR2 swap in a changed rule set while capture
#      goes on (generation 2, then 3); a DNS query sent afterwards raises the
#      new rule's alert;
#   3. a reload that cannot read its rule file keeps the old rules, says why,
#      and the rules keep firing.
# Everything it creates (namespaces, veths, the XDP program, bpffs, the log
# directory) is removed when it ends, pass or fail.
#
# usage: test_live_alerts.sh BUILD_DIR PCAP RULES
#        test_live_alerts.sh --skip WHY
set -euo pipefail
# shellcheck source=test/testbench/lib.sh
. "$(dirname "$0")/lib.sh"

if [ "${1:-}" = "--skip" ]; then
	tb_skip "${2:-skipped}"
fi
BUILD="$1"
PCAP="$2"
RULES="$3"
MEERKAT="$BUILD/userspace/meerkat"
CTL="$BUILD/userspace/meerkatctl"

tb_require_root
tb_require_cmd tcpreplay
tb_require_file "$MEERKAT"
tb_require_file "$PCAP"

LOG="$(mktemp -d /tmp/meerkat-live-alerts.XXXXXX)"
PID=""
# the daemon and the log directory go first, then the testbench's own cleanup
finish() {
	if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
		kill -TERM "$PID" 2>/dev/null || true
		tb_wait 10 sh -c "! kill -0 $PID" || kill -KILL "$PID" 2>/dev/null || true
	fi
	rm -rf "$LOG"
	tb_cleanup
}

tb_setup
trap finish EXIT
cp "$RULES" "$LOG/live.rules"

ctl() { tb_sensor "$CTL" -s "$LOG/ctl.sock" "$@"; }
json_get() { /usr/bin/python3 -c 'import json,sys; v=json.load(sys.stdin)
for k in sys.argv[1].split("."): v=v[k]
print(v)' "$1"; }
generation() { ctl rules --json | json_get generation; }
replay() {
	local out
	out="$(tb_peer tcpreplay -i "$TB_PEER_IF" --pps=2000 "$PCAP" 2>&1)" ||
		tb_fail "tcpreplay: $out"
}

# the daemon runs in the sensor namespace; its pid comes from its status
tb_sensor "$MEERKAT" -i "$TB_SENSOR_IF" -l "$LOG" -S "$LOG/live.rules" --unix-socket "$LOG/ctl.sock" \
	--workers 1 --seed 1 -v >"$LOG/meerkat.log" 2>&1 &
if ! tb_wait 20 ctl ping; then
	cat "$LOG/meerkat.log" >&2
	tb_fail "meerkat -i did not answer on its control socket"
fi
PID="$(ctl status --json | json_get pid)"
[ "$(generation)" = 1 ] || tb_fail "generation $(generation) at start, want 1"
tb_ok "meerkat -i $TB_SENSOR_IF running (pid $PID) with $(ctl rules --json | json_get rules_loaded) rules"

replay
sleep 1

# 2. reload by command: a new rule appears, generation 2
NEW_RULE='alert udp any any -> any 53 (msg:"LIVE reloaded rule"; content:"example"; sid:9100001; rev:1;)'
echo "$NEW_RULE" >>"$LOG/live.rules"
out="$(ctl reload --json)" || tb_fail "meerkatctl reload failed: $out"
[ "$(generation)" = 2 ] || tb_fail "generation $(generation) after meerkatctl reload, want 2"
tb_ok "meerkatctl reload: generation 2, $(json_get rules_loaded <<<"$out") rules"
# and by SIGUSR2: generation 3
kill -USR2 "$PID"
for _ in $(seq 100); do
	[ "$(generation)" = 3 ] && break
	sleep 0.1
done
[ "$(generation)" = 3 ] || tb_fail "generation $(generation) after SIGUSR2, want 3"
tb_ok "SIGUSR2: generation 3"
# one DNS query on a new flow: the reloaded rule and the sample DNS rule fire
/usr/bin/python3 - "$LOG/dns.pcap" <<'PY'
import struct, sys
def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
q = b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x04live\x07example\x03com\x00\x00\x01\x00\x01"
udp = struct.pack("!HHHH", 5555, 53, 8 + len(q), 0) + q
ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0, 64, 17, 0, bytes([198, 18, 99, 1]),
                 bytes([198, 18, 99, 2]))
ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
frame = bytes.fromhex("020000000002020000000001") + b"\x08\x00" + ip + udp
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    f.write(struct.pack("<IIII", 1796270000, 0, len(frame), len(frame)) + frame)
PY
out="$(tb_peer tcpreplay -i "$TB_PEER_IF" "$LOG/dns.pcap" 2>&1)" || tb_fail "tcpreplay: $out"
sleep 1

# 3. a reload that fails keeps the old rules
mv "$LOG/live.rules" "$LOG/moved.rules"
if ctl reload >/dev/null 2>&1; then
	tb_fail "a reload without its rule file succeeded"
fi
msg="$(ctl rules --json | json_get last_message)"
[ "$(generation)" = 3 ] || tb_fail "a failed reload changed the generation to $(generation)"
grep -q "old rules kept" <<<"$msg" || tb_fail "no reason given: $msg"
tb_ok "failed reload: generation 3 kept ($msg)"

kill -TERM "$PID"
tb_wait 20 sh -c "! kill -0 $PID" || tb_fail "meerkat did not stop on SIGTERM"
PID=""

# 1. live alerts == offline alerts: the sample traffic with the original
# rules, the DNS query with the reloaded ones
"$MEERKAT" -r "$PCAP" -l "$LOG/off1" -S "$RULES" --seed 1 >/dev/null 2>&1 ||
	tb_fail "meerkat -r failed"
cp "$RULES" "$LOG/off.rules"
echo "$NEW_RULE" >>"$LOG/off.rules"
"$MEERKAT" -r "$LOG/dns.pcap" -l "$LOG/off2" -S "$LOG/off.rules" --seed 1 >/dev/null 2>&1 ||
	tb_fail "meerkat -r failed"
verdict="$(/usr/bin/python3 - "$LOG/eve.json" "$LOG/off1/eve.json" "$LOG/off2/eve.json" <<'PY'
import collections, json, sys

def alerts(path):
    out = collections.Counter()
    for line in open(path):
        e = json.loads(line)
        if e.get("event_type") == "alert":
            out[(e["alert"]["signature_id"], e["src_ip"], e.get("src_port"), e["dest_ip"],
                 e.get("dest_port"), e["proto"])] += 1
    return out

live, off1, off2 = alerts(sys.argv[1]), alerts(sys.argv[2]), alerts(sys.argv[3])
want = off1 + off2
if not any(k[0] == 9100001 for k in off2):
    print("the reloaded rule does not fire on the DNS query offline")
elif live == want:
    print("ok %d" % sum(live.values()))
else:
    print("missing %s extra %s" % (dict(want - live), dict(live - want)))
PY
)"
case "$verdict" in
ok*) tb_ok "live alerts equal the offline alerts (${verdict#ok }), the reloaded rule's included" ;;
*) tb_fail "live and offline alerts differ: $verdict" ;;
esac
