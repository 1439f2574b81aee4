#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Capture bypass on the veth testbench (needs root), docs/bypass.md:
#   1. a replayed download of MB megabytes past the reassembly depth (64 KiB
#      here) is bypassed in the driver: drop_flow_bypass counts most of its
#      frames, the worker's packets of that flow stop, a `bypass` rule and a
#      `pass` rule (detect.pass-bypass) bypass their flows, the fragments of
#      a bypassed UDP flow are dropped after reassembly, the alerts of the
#      other flows fire; once idle past flow-timeouts.*.bypassed the entries
#      are gone and each flow's EVE record carries the driver's counts, with
#      worker packets + driver packets = packets sent, per direction;
#   2. meerkatctl bypass cidr add/del take effect within a second; bypass
#      add/del of one flow by 5-tuple, with its driver counters; malformed
#      input is refused naming the field, and nothing changes;
#   3. with bypass.max-flows: 1 the other flows fall back to local bypass,
#      counted, and their records say "local";
#   4. with capture.pin-dir a restart adopts the entries the previous run
#      left in the maps, the driver goes on dropping, and they expire.
# Everything it creates is removed when it ends, pass or fail.
#
# usage: test_live_bypass.sh BUILD_DIR GEN_BYPASS [MB]
set -euo pipefail
# shellcheck source=test/testbench/lib.sh
. "$(dirname "$0")/lib.sh"

[ "${1:-}" != "--skip" ] || tb_skip "${2:-no reason given}"
BUILD="${1:?usage: $0 BUILD_DIR GEN_BYPASS [MB]}"
GEN="${2:?}"
MB="${3:-30}"
PPS="${MB_PPS:-20000}"
TB_MEERKAT="$BUILD/userspace/meerkat"
TB_CTL="$BUILD/userspace/meerkatctl"

tb_require_root
tb_require_cmd tcpreplay bpftool ip
[ -x /usr/bin/python3 ] || tb_skip "/usr/bin/python3 not installed"
for f in "$TB_MEERKAT" "$TB_CTL" "$GEN"; do tb_require_file "$f"; done

tb_setup
PCAP="$TB_TMP/bypass.pcap"
RULES="$TB_TMP/bypass.rules"
/usr/bin/python3 "$GEN" "$PCAP" --mb "$MB" --rules "$RULES"
cat >"$TB_TMP/bypass.yaml" <<'EOF'
stream:
  reassembly:
    depth: 64kb
detect:
  pass-bypass: yes
flow-timeouts:
  tcp:
    bypassed: 3
  udp:
    bypassed: 3
bypass:
  expiry-interval: 1
EOF

# py STATS EVE EXPR [ARG]: a python expression over s (the stats), side (the sidecar),
# e (EVE events) and sys.argv[5] (ARG)
stats() { tb_ctl stats --json; }
py() {
	/usr/bin/python3 -c '
import json, sys
s = json.loads(sys.argv[1]) if sys.argv[1] else {}
side = json.load(open(sys.argv[2]))
e = [json.loads(l) for l in open(sys.argv[3])] if sys.argv[3] else []
def flow(name):
    f = side[name]
    r = [x for x in e if x["event_type"] == "flow" and x["src_ip"] == f["src"] and x["src_port"] == f["sport"]]
    return r[0] if r else None
print(eval(sys.argv[4]))' "$1" "$PCAP.json" "$2" "$3" "${4:-}"
}
eve() { echo "$TB_MK_DIR/eve.json"; }
entries_zero() { [ "$(py "$(stats)" "" 's["bypass"]["entries"]')" = 0 ]; }

# ---- 1. the download and the rule flows -----------------------------------
tb_meerkat_start live -i "$TB_SENSOR_IF" -c "$TB_TMP/bypass.yaml" -S "$RULES" --workers 2 ||
	tb_fail "meerkat exited ($TB_MK_RC) before answering: $(cat "$TB_MK_DIR/err")"
sent="$(tb_replay "$PCAP" "$PPS")"
frames="$(py "" "" 'side["frames"]')"
[ "$sent" -eq "$frames" ] || tb_fail "replayed $sent frames, the pcap has $frames"
tb_ok "replayed $sent frames ($MB MB download) at $PPS pps"
sleep 1
st="$(stats)"
drops="$(py "$st" "" 's["xdp"]["drop_flow_bypass"]')"
bulk_tc="$(py "$st" "" 'side["bulk"]["pkts_toclient"]')"
[ "$drops" -ge $((bulk_tc * 9 / 10)) ] ||
	tb_fail "drop_flow_bypass $drops: under 90 % of the download's $bulk_tc frames"
tb_ok "the program dropped $drops frames of bypassed flows (download: $bulk_tc frames to the client)"
tb_log "bypass manager: $(py "$st" "" 'json.dumps({k: s["bypass"][k] for k in ("requests", "inserted", "entries", "table_used", "map_used", "insert_latency")})')"
py "$st" "" 's["worker"]["bypass_capture"] >= 4 and s["worker"]["bypass_depth"] == 1 and s["worker"]["bypass_rule"] == 2 and s["worker"]["bypass_pass"] == 1' |
	grep -qx True || tb_fail "triggers: $(py "$st" "" '{k: v for k, v in s["worker"].items() if k.startswith("bypass")}')"
tb_ok "depth, bypass rule (TCP and UDP) and pass rule each bypassed their flow in the driver"
[ "$(py "$st" "" 's["worker"]["bypass_dgram"]')" = 3 ] ||
	tb_fail "the bypassed UDP flow's fragmented datagrams: bypass_dgram $(py "$st" "" 's["worker"]["bypass_dgram"]'), want 3"
tb_ok "its fragments reached the worker and were dropped after reassembly (bypass_dgram 3)"
lat="$(py "$st" "" 's["bypass"]["insert_latency"]["max_us"]')"
tb_ok "request-to-insert latency: max $lat us, histogram $(py "$st" "" 's["bypass"]["insert_latency"]["histogram"]')"

# the entries expire once idle past flow-timeouts.*.bypassed (3 s), walks every second
tb_wait 20 entries_zero || tb_fail "bypass entries still there: $(tb_ctl bypass list)"
out="$(tb_ctl bypass list)"
grep -q '^0 flow(s)' <<<"$out" || tb_fail "bypass list after expiry: $out"
st="$(stats)"
tb_ok "every entry expired and deleted ($(py "$st" "" 's["bypass"]["expired"]') expired, $(py "$st" "" 's["bypass"]["evicted"]') evicted)"
have_record() { [ "$(py "" "$(eve)" 'flow(sys.argv[5]) is not None' "$1")" = True ]; }
tb_wait 10 have_record bulk || tb_fail "no flow record for the download after its entry expired"
for name in bulk rule pass udp; do
	tb_wait 10 have_record "$name" || tb_fail "$name: no flow record after expiry"
	r="$(py "" "$(eve)" 'json.dumps(flow(sys.argv[5])["flow"])' "$name")"
	tb_log "$name: $r"
	py "" "$(eve)" 'flow(sys.argv[5])["flow"].get("bypass") == "capture"' "$name" | grep -qx True ||
		tb_fail "$name: record does not say bypass capture: $r"
	# worker + driver = sent, per direction (a UDP datagram sent in two fragments is one packet)
	py "" "$(eve)" '(lambda f, w: f["pkts_toserver"] + f["bypassed"]["pkts_toserver"] == w["pkts_toserver"] - w.get("fragments", 0) // 2 and f["pkts_toclient"] + f["bypassed"]["pkts_toclient"] == w["pkts_toclient"])(flow(sys.argv[5])["flow"], side[sys.argv[5]])' "$name" |
		grep -qx True || tb_fail "$name: worker + driver packets != packets sent ($(py "" "" 'side[sys.argv[5]]' "$name")): $r"
done
tb_ok "download: worker $(py "" "$(eve)" 'flow("bulk")["flow"]["pkts_toclient"]') + driver $(py "" "$(eve)" 'flow("bulk")["flow"]["bypassed"]["pkts_toclient"]') = $bulk_tc packets to the client"
tb_ok "each bypassed flow's record: bypass capture, worker + driver packets = packets sent, both directions"
alerts="$(py "" "$(eve)" 'sorted(x["alert"]["signature_id"] for x in e if x["event_type"] == "alert")')"
[ "$alerts" = "[9200001, 9200002, 9200006, 9200007]" ] ||
	tb_fail "alerts $alerts, want [9200001, 9200002, 9200006, 9200007] (none after a bypass)"
tb_ok "alerts of the other flows fired, nothing after a bypass was inspected: $alerts"

# ---- 2. control: CIDR at run time, one flow by 5-tuple, malformed input ---
/usr/bin/python3 - "$TB_TMP/udp.pcap" <<'PY'
import struct, sys
def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i in range(10):
        udp = struct.pack("!HHHH", 7000, 7001, 12, 0) + b"ping"
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), i, 0, 64, 17, 0,
                         bytes([198, 18, 20, 1]), bytes([198, 18, 20, 5]))
        ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
        fr = bytes.fromhex("020000000002020000000001") + b"\x08\x00" + ip + udp
        f.write(struct.pack("<IIII", 1796270000, i, len(fr), len(fr)) + fr)
PY
cnt() { py "$(stats)" "" "$1"; }
out="$(tb_ctl bypass cidr add 198.18.20.0/24)" || tb_fail "bypass cidr add: $out"
c0="$(cnt 's["xdp"]["drop_cidr_bypass"]')"
tb_replay "$TB_TMP/udp.pcap" 1000 >/dev/null
c1="$(cnt 's["xdp"]["drop_cidr_bypass"]')"
[ $((c1 - c0)) -eq 10 ] || tb_fail "after cidr add: drop_cidr_bypass +$((c1 - c0)), want +10"
list="$(tb_ctl bypass cidr list)"
grep -qx '198.18.20.0/24' <<<"$list" || tb_fail "cidr list: $list"
tb_ok "bypass cidr add: the next frames dropped in the driver (+10 drop_cidr_bypass), listed"
tb_ctl bypass cidr del 198.18.20.0/24 >/dev/null || tb_fail "bypass cidr del"
r0="$(cnt 's["capture"]["sock_rx"]')"
tb_replay "$TB_TMP/udp.pcap" 1000 >/dev/null
tb_wait 3 tb_live_taken_ge $((r0 + 10)) || tb_fail "after cidr del the frames do not reach the workers"
[ "$(cnt 's["xdp"]["drop_cidr_bypass"]')" = "$c1" ] || tb_fail "cidr del: still dropped"
tb_ok "bypass cidr del: the same frames reach the workers again"
# one flow by 5-tuple, given in the other direction: the same canonical key
out="$(tb_ctl bypass add udp 198.18.20.5 7001 198.18.20.1 7000)" || tb_fail "bypass add: $out"
d0="$(cnt 's["xdp"]["drop_flow_bypass"]')"
tb_replay "$TB_TMP/udp.pcap" 1000 >/dev/null
[ $(($(cnt 's["xdp"]["drop_flow_bypass"]') - d0)) -eq 10 ] || tb_fail "bypass add: the flow's frames not dropped"
out="$(tb_ctl bypass list)"
grep -q 'pkts 10/0' <<<"$out" || grep -q 'pkts 0/10' <<<"$out" || tb_fail "bypass list: $out"
tb_ok "bypass add by 5-tuple: its frames dropped in the driver, listed with its counters"
out="$(tb_ctl bypass del udp 198.18.20.1 7000 198.18.20.5 7001)" || tb_fail "bypass del: $out"
grep -q 'pkts' <<<"$out" || tb_fail "bypass del: no counters: $out"
before="$(tb_ctl bypass list --json)"
for bad in "add tcp 198.18.20.1 70000 198.18.20.5 80:sport" "add tcp 198.18.20.x 1 198.18.20.5 80:src" \
	"add tcpx 198.18.20.1 1 198.18.20.5 80:proto" "del udp 198.18.20.1 1 2001:db8::1 80:dst" \
	"cidr add 198.18.0.0/33:prefix" "cidr del 10.9.9.9/32:prefix"; do
	args="${bad%:*}" field="${bad##*:}"
	# shellcheck disable=SC2086 # the words are the command's arguments
	if out="$(tb_ctl bypass $args 2>&1)"; then
		tb_fail "bypass $args accepted: $out"
	fi
	grep -q "$field: " <<<"$out" || tb_fail "bypass $args: the answer does not name $field: $out"
done
[ "$(tb_ctl bypass list --json)" = "$before" ] || tb_fail "a refused command changed the maps"
[ "$(tb_ctl bypass cidr list)" = "" ] || tb_fail "a refused command changed the CIDR list"
tb_ok "malformed tuples and prefixes refused, naming the field; nothing changed"
tb_meerkat_stop TERM
[ "$TB_MK_RC" -eq 0 ] || tb_fail "meerkat exited $TB_MK_RC"
grep -q "accounting ok" "$TB_MK_DIR/err" || tb_fail "accounting: $(grep accounting "$TB_MK_DIR/err")"
tb_ok "stopped cleanly, accounting ok"

# ---- 3. a full map: local bypass, counted ----------------------------------
cat >"$TB_TMP/full.yaml" <<'EOF'
stream:
  reassembly:
    depth: 64kb
detect:
  pass-bypass: yes
bypass:
  max-flows: 1
EOF
tb_meerkat_start full -i "$TB_SENSOR_IF" -c "$TB_TMP/full.yaml" -S "$RULES" --workers 2 ||
	tb_fail "meerkat exited ($TB_MK_RC) before answering: $(cat "$TB_MK_DIR/err")"
tb_replay "$PCAP" "$PPS" >/dev/null
sleep 1
st="$(stats)"
py "$st" "" 's["bypass"]["inserted"] == 1 and s["bypass"]["fail_full"] >= 3 and s["worker"]["bypass_fallback"] == s["bypass"]["fail_full"]' |
	grep -qx True || tb_fail "max-flows 1: $(py "$st" "" 's["bypass"]') $(py "$st" "" 's["worker"]["bypass_fallback"]')"
tb_ok "bypass.max-flows 1: one flow in the driver, $(py "$st" "" 's["bypass"]["fail_full"]') refused (fail_full) and bypassed locally (bypass_fallback)"
tb_meerkat_stop TERM
locals="$(py "" "$(eve)" 'sum(1 for x in e if x["event_type"] == "flow" and x["flow"].get("bypass") == "local")')"
[ "$locals" -ge 3 ] || tb_fail "only $locals flow records say bypass local"
tb_ok "their records say bypass local ($locals)"

# ---- 4. pinned maps: a restart adopts the entries and expires them ---------
printf 'capture:\n  pin-dir: %s/pins\nflow-timeouts:\n  udp:\n    bypassed: 3\nbypass:\n  expiry-interval: 1\n' \
	"$TB_BPFFS" >"$TB_TMP/pin.yaml"
tb_meerkat_start pin1 -i "$TB_SENSOR_IF" -c "$TB_TMP/pin.yaml" --workers 2 ||
	tb_fail "meerkat exited ($TB_MK_RC) before answering: $(cat "$TB_MK_DIR/err")"
tb_ctl bypass add udp 198.18.20.1 7000 198.18.20.5 7001 >/dev/null || tb_fail "bypass add (pinned)"
tb_replay "$TB_TMP/udp.pcap" 1000 >/dev/null
tb_meerkat_stop TERM
tb_meerkat_start pin2 -i "$TB_SENSOR_IF" -c "$TB_TMP/pin.yaml" --workers 2 ||
	tb_fail "meerkat exited ($TB_MK_RC) before answering: $(cat "$TB_MK_DIR/err")"
[ "$(cnt 's["bypass"]["adopted"]')" = 1 ] || tb_fail "restart: adopted $(cnt 's["bypass"]["adopted"]'), want 1"
out="$(tb_ctl bypass list)"
grep -q 'pkts 10/0\|pkts 0/10' <<<"$out" || tb_fail "restart: the pinned entry and its counters: $out"
d0="$(cnt 's["xdp"]["drop_flow_bypass"]')"
tb_replay "$TB_TMP/udp.pcap" 1000 >/dev/null
[ $(($(cnt 's["xdp"]["drop_flow_bypass"]') - d0)) -eq 10 ] || tb_fail "restart: the adopted flow is not dropped"
tb_ok "restart with capture.pin-dir: the entry adopted with its counters, its frames still dropped"
tb_wait 20 entries_zero || tb_fail "the adopted entry did not expire: $(tb_ctl bypass list)"
tb_ok "the adopted entry expired ($(cnt 's["bypass"]["expired"]') expired)"
tb_meerkat_stop TERM
[ "$TB_MK_RC" -eq 0 ] || tb_fail "meerkat exited $TB_MK_RC"
