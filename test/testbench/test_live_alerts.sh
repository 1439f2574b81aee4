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
# Everything it creates (namespaces, veths, the XDP program, bpffs, the
# daemon, the scratch directory) is removed when it ends, pass or fail.
#
# usage: test_live_alerts.sh BUILD_DIR PCAP RULES
#        test_live_alerts.sh --skip WHY
set -euo pipefail
# shellcheck source=test/testbench/lib.sh
. "$(dirname "$0")/lib.sh"

[ "${1:-}" != "--skip" ] || tb_skip "${2:-no reason given}"
BUILD="${1:?usage: $0 BUILD_DIR PCAP RULES}"
PCAP="${2:?}"
RULES="${3:?}"
TB_MEERKAT="$BUILD/userspace/meerkat"
TB_CTL="$BUILD/userspace/meerkatctl"

tb_require_root
tb_require_cmd tcpreplay bpftool ip
[ -x /usr/bin/python3 ] || tb_skip "/usr/bin/python3 not installed"
for f in "$TB_MEERKAT" "$TB_CTL" "$PCAP" "$RULES"; do tb_require_file "$f"; done

tb_setup
cp "$RULES" "$TB_TMP/live.rules"

json_get() { /usr/bin/python3 -c 'import json,sys; v=json.load(sys.stdin)
for k in sys.argv[1].split("."): v=v[k]
print(v)' "$1"; }
generation() { tb_ctl rules --json | json_get generation; }
generation_is() { [ "$(generation)" = "$1" ]; }

tb_meerkat_start live -i "$TB_SENSOR_IF" -S "$TB_TMP/live.rules" --workers 1 ||
	tb_fail "meerkat exited ($TB_MK_RC) before answering: $(cat "$TB_MK_DIR/err")"
generation_is 1 || tb_fail "generation $(generation) at start, want 1"
tb_ok "meerkat -i $TB_SENSOR_IF running (pid $TB_MK_PID) with $(tb_ctl rules --json | json_get rules_loaded) rules"

sent="$(tb_replay "$PCAP" 2000)"
sleep 1

# 2. reload by command: a new rule appears, generation 2
NEW_RULE='alert udp any any -> any 53 (msg:"LIVE reloaded rule"; content:"example"; sid:9100001; rev:1;)'
echo "$NEW_RULE" >>"$TB_TMP/live.rules"
out="$(tb_ctl reload --json)" || tb_fail "meerkatctl reload failed: $out"
generation_is 2 || tb_fail "generation $(generation) after meerkatctl reload, want 2"
tb_ok "meerkatctl reload: generation 2, $(json_get rules_loaded <<<"$out") rules"
# and by SIGUSR2: generation 3
kill -USR2 "$TB_MK_PID"
tb_wait 10 generation_is 3 || tb_fail "generation $(generation) after SIGUSR2, want 3"
tb_ok "SIGUSR2: generation 3"
# one DNS query on a new flow: the reloaded rule and the sample DNS rule fire
/usr/bin/python3 - "$TB_TMP/dns.pcap" <<'PY'
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
tb_replay "$TB_TMP/dns.pcap" 100 >/dev/null
sleep 1

# 3. a reload that fails keeps the old rules
mv "$TB_TMP/live.rules" "$TB_TMP/moved.rules"
if tb_ctl reload >/dev/null 2>&1; then
	tb_fail "a reload without its rule file succeeded"
fi
msg="$(tb_ctl rules --json | json_get last_message)"
generation_is 3 || tb_fail "a failed reload changed the generation to $(generation)"
grep -q "old rules kept" <<<"$msg" || tb_fail "no reason given: $msg"
tb_ok "failed reload: generation 3 kept ($msg)"

tb_meerkat_stop TERM
[ "$TB_MK_RC" -eq 0 ] || tb_fail "meerkat exited $TB_MK_RC after SIGTERM"

# 1. live alerts == offline alerts: the sample traffic with the original
# rules, the DNS query with the reloaded ones
mkdir -p "$TB_TMP/off1" "$TB_TMP/off2"
"$TB_MEERKAT" -r "$PCAP" -l "$TB_TMP/off1" -S "$RULES" >/dev/null 2>"$TB_TMP/off1/err" ||
	tb_fail "meerkat -r failed: $(cat "$TB_TMP/off1/err")"
cp "$RULES" "$TB_TMP/off.rules"
echo "$NEW_RULE" >>"$TB_TMP/off.rules"
"$TB_MEERKAT" -r "$TB_TMP/dns.pcap" -l "$TB_TMP/off2" -S "$TB_TMP/off.rules" >/dev/null 2>"$TB_TMP/off2/err" ||
	tb_fail "meerkat -r failed: $(cat "$TB_TMP/off2/err")"
verdict="$(/usr/bin/python3 - "$TB_MK_DIR/eve.json" "$TB_TMP/off1/eve.json" "$TB_TMP/off2/eve.json" <<'PY'
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
ok*) tb_ok "$sent frames: live alerts equal the offline alerts (${verdict#ok }), the reloaded rule's included" ;;
*) tb_fail "live and offline alerts differ: $verdict" ;;
esac
