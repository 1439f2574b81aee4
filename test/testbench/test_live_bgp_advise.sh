#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Advising the router, for real (needs root): the live sensor on the veth
# testbench with advise-router on, ExaBGP (in the sensor's namespace) running
# meerkat-exabgp-pipe as its process, peered over a second veth with gobgpd
# in a third namespace, the router. UDP frames that match a rule marked
# `metadata: block yes` are replayed from the peer end:
#   1. the router holds 198.18.99.1/32 with next hop 192.0.2.1 and community
#      65535:666 within a few seconds of the alert (the time is printed);
#   2. an allow-listed source is never announced and its EVE record says
#      refused/allowlist;
#   3. max-active 2: a third source is refused (limit) and not announced;
#   4. a second alert extends a route's time to live: the other route goes
#      after the TTL, the extended one stays, then goes too;
#   5. an IPv6 source: 2001:db8:99::1/128 with next hop 100::1 and the
#      community; at shutdown the sensor withdraws what is active; the router
#      loses it;
#   6. the EVE bgp_advise records and the advise counters of the final stats
#      say the same;
#   7. mode flowspec: the alert's 5-tuple as a discard rule at the router
#      (IPv4 and IPv6); meerkat killed (SIGKILL, no withdrawal of its own):
#      the pipe withdraws what it announced, the router holds nothing.
# Everything it creates (three namespaces, two veth pairs, the XDP program,
# bpffs, meerkat, exabgp and its pipe, gobgpd, the socket, the scratch
# directory) is removed when it ends, pass or fail.
#
# usage: test_live_bgp_advise.sh BUILD_DIR
#        test_live_bgp_advise.sh --skip WHY
set -euo pipefail
# shellcheck source=test/testbench/lib.sh
. "$(dirname "$0")/lib.sh"

[ "${1:-}" != "--skip" ] || tb_skip "${2:-no reason given}"
BUILD="${1:?usage: $0 BUILD_DIR}"
TB_MEERKAT="$BUILD/userspace/meerkat"
TB_CTL="$BUILD/userspace/meerkatctl"
PIPE="$BUILD/userspace/meerkat-exabgp-pipe"

tb_require_root
tb_require_cmd tcpreplay bpftool ip exabgp gobgpd gobgp
[ -x /usr/bin/python3 ] || tb_skip "/usr/bin/python3 not installed"
for f in "$TB_MEERKAT" "$TB_CTL" "$PIPE"; do tb_require_file "$f"; done

NS_RTR="mktb-${TB_ID}-r" # the router: gobgpd
BGP_SENSOR_IF="mkbs-${TB_ID}"
BGP_RTR_IF="mkbr-${TB_ID}"
BGP_SENSOR_IP="10.255.0.1" # inside the namespaces only
BGP_RTR_IP="10.255.0.2"
EXA_PID=""
PIPE_PID=""
GOBGP_PID=""
TTL=8

# ExaBGP, its pipe and gobgpd go first, then the router's namespace, then the testbench's cleanup.
bgp_cleanup() {
	local rc=$? pid left=""
	set +e
	exec 1>&"$TB_STDOUT_FD" 2>&"$TB_STDERR_FD"
	for pid in $EXA_PID $GOBGP_PID; do
		kill -TERM "$pid" 2>/dev/null
		tb_wait 10 tb_pid_gone "$pid" || kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	# ExaBGP ends its process; should it not have, the pipe goes by its own pid
	if [ -n "$PIPE_PID" ] && ! tb_wait 5 tb_pid_gone "$PIPE_PID"; then
		kill -KILL "$PIPE_PID" 2>/dev/null
		left+=" meerkat-exabgp-pipe(pid $PIPE_PID, outlived exabgp)"
	fi
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ] && [ -n "$TB_TMP" ]; then
		for f in "$TB_TMP/exabgp.log" "$TB_TMP/gobgpd.log"; do
			[ -s "$f" ] || continue
			printf '%s: --- last lines of %s\n' "$TB_NAME" "${f##*/}" >&2
			tail -n 12 "$f" >&2
		done
	fi
	ip netns del "$NS_RTR" >/dev/null 2>&1
	for pid in $EXA_PID $GOBGP_PID; do
		kill -0 "$pid" 2>/dev/null && left+=" pid $pid"
	done
	if [ -n "$left" ]; then
		printf '%s: FAIL: cleanup left:%s\n' "$TB_NAME" "$left" >&2
		[ "$rc" -eq 0 ] && rc=1
	fi
	(exit "$rc")
	tb_cleanup
}

tb_setup
trap bgp_cleanup EXIT

# ---- the router's namespace and the BGP link (the capture veth carries no BGP: XDP takes it) ----
ip netns add "$NS_RTR" || tb_fail "cannot create netns $NS_RTR"
ip link add "$BGP_SENSOR_IF" netns "$TB_NS_SENSOR" type veth peer name "$BGP_RTR_IF" netns "$NS_RTR" ||
	tb_fail "cannot create veth pair $BGP_SENSOR_IF/$BGP_RTR_IF"
ip -n "$TB_NS_SENSOR" addr add "$BGP_SENSOR_IP/30" dev "$BGP_SENSOR_IF"
ip -n "$NS_RTR" addr add "$BGP_RTR_IP/30" dev "$BGP_RTR_IF"
ip -n "$TB_NS_SENSOR" link set "$BGP_SENSOR_IF" up
ip -n "$NS_RTR" link set "$BGP_RTR_IF" up
ip -n "$NS_RTR" link set lo up

cat >"$TB_TMP/gobgpd.toml" <<EOF
[global.config]
  as = 65002
  router-id = "$BGP_RTR_IP"
  local-address-list = ["$BGP_RTR_IP"]
[[neighbors]]
  [neighbors.config]
    neighbor-address = "$BGP_SENSOR_IP"
    peer-as = 65001
  [[neighbors.afi-safis]]
    [neighbors.afi-safis.config]
      afi-safi-name = "ipv4-unicast"
  [[neighbors.afi-safis]]
    [neighbors.afi-safis.config]
      afi-safi-name = "ipv6-unicast"
  [[neighbors.afi-safis]]
    [neighbors.afi-safis.config]
      afi-safi-name = "ipv4-flowspec"
  [[neighbors.afi-safis]]
    [neighbors.afi-safis.config]
      afi-safi-name = "ipv6-flowspec"
EOF
ip netns exec "$NS_RTR" gobgpd -f "$TB_TMP/gobgpd.toml" --api-hosts 127.0.0.1:50051 \
	</dev/null >"$TB_TMP/gobgpd.log" 2>&1 {TB_STDOUT_FD}>&- {TB_STDERR_FD}>&- &
GOBGP_PID=$!
rtr() { ip netns exec "$NS_RTR" gobgp -u 127.0.0.1 -p 50051 "$@"; }

# ---- the sensor: a rule marked for blocking, advise-router on ----
SOCK="$TB_TMP/exabgp.sock"
cat >"$TB_TMP/advise.rules" <<'EOF'
alert udp any any -> any 9999 (msg:"BLOCK test attack"; content:"attack"; metadata:block yes; sid:9300001; rev:1;)
alert udp any any -> any 9998 (msg:"not for blocking"; content:"attack"; sid:9300002; rev:1;)
EOF
cat >"$TB_TMP/advise.yaml" <<EOF
advise-router:
  enabled: yes
  socket: $SOCK
  socket-mode: "0600"
  ttl: $TTL
  max-active: 2
  allow: [198.18.77.0/24]
EOF
tb_meerkat_start live -i "$TB_SENSOR_IF" -c "$TB_TMP/advise.yaml" -S "$TB_TMP/advise.rules" --workers 1 ||
	tb_fail "meerkat exited ($TB_MK_RC) before answering: $(cat "$TB_MK_DIR/err")"
[ -S "$SOCK" ] || tb_fail "meerkat did not create $SOCK"
tb_ok "meerkat -i $TB_SENSOR_IF running (pid $TB_MK_PID), advise-router socket $SOCK"

# ---- ExaBGP in the sensor's namespace; its process is the pipe to meerkat's socket ----
cat >"$TB_TMP/exabgp.conf" <<EOF
process meerkat {
    run $PIPE $SOCK;
    encoder text;
}
neighbor $BGP_RTR_IP {
    router-id $BGP_SENSOR_IP;
    local-address $BGP_SENSOR_IP;
    local-as 65001;
    peer-as 65002;
    family { ipv4 unicast; ipv6 unicast; ipv4 flow; ipv6 flow; }
    api { processes [ meerkat ]; }
}
EOF
ip netns exec "$TB_NS_SENSOR" env exabgp.daemon.user=root exabgp.daemon.daemonize=false \
	exabgp.daemon.drop=false exabgp.log.destination=stdout exabgp.api.cli=false \
	exabgp "$TB_TMP/exabgp.conf" </dev/null >"$TB_TMP/exabgp.log" 2>&1 {TB_STDOUT_FD}>&- {TB_STDERR_FD}>&- &
EXA_PID=$!

established() {
	local out
	out="$(rtr neighbor -j 2>/dev/null)" || return 1
	/usr/bin/python3 -c '
import json, sys
n = json.loads(sys.argv[1])
sys.exit(0 if n and n[0]["state"]["session_state"] == 6 else 1)' "$out"
}
tb_wait 30 established || tb_fail "no BGP session between exabgp ($BGP_SENSOR_IP) and gobgpd ($BGP_RTR_IP) after 30 s"
PIPE_PID="$(pgrep -P "$EXA_PID" | head -n 1 || true)"
[ -n "$PIPE_PID" ] || tb_fail "exabgp runs no process (meerkat-exabgp-pipe)"
piped() { [ "$(tb_ctl stats --json | json_get advise.pipes)" -ge 1 ]; }
json_get() { /usr/bin/python3 -c 'import json,sys; v=json.load(sys.stdin)
for k in sys.argv[1].split("."): v=v[k]
print(v)' "$1"; }
tb_wait 10 piped || tb_fail "meerkat-exabgp-pipe (pid $PIPE_PID) did not connect to $SOCK"
tb_ok "BGP established: exabgp $BGP_SENSOR_IP (AS 65001) -> gobgpd $BGP_RTR_IP (AS 65002); pipe pid $PIPE_PID connected"

# ---- traffic: one UDP frame per source towards the sensor ----
# frames.pcap SRC:DPORT ...: one frame each, payload "attack"
frames() {
	/usr/bin/python3 - "$@" <<'PY'
import socket, struct, sys
def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
out = sys.argv[1]
with open(out, "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i, spec in enumerate(sys.argv[2:]):
        src, dport = spec.rsplit(":", 1)
        q = b"attack"
        udp = struct.pack("!HHHH", 40000 + i, int(dport), 8 + len(q), 0) + q
        if ":" in src:  # IPv6 (UDP checksum required)
            s6, d6 = socket.inet_pton(socket.AF_INET6, src), socket.inet_pton(socket.AF_INET6, "2001:db8:255::1")
            pseudo = s6 + d6 + struct.pack("!IxxxB", len(udp), 17)
            udp = udp[:6] + struct.pack("!H", csum(pseudo + udp + b"\0" * (len(udp) % 2)) or 0xffff) + udp[8:]
            ip = struct.pack("!IHBB", 6 << 28, len(udp), 17, 64) + s6 + d6
            frame = bytes.fromhex("020000000002020000000001") + b"\x86\xdd" + ip + udp
        else:
            ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0, 64, 17, 0,
                             bytes(int(x) for x in src.split(".")), bytes([198, 18, 255, 1]))
            ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
            frame = bytes.fromhex("020000000002020000000001") + b"\x08\x00" + ip + udp
        f.write(struct.pack("<IIII", 1796270000, i, len(frame), len(frame)) + frame)
PY
}

# rib_has PREFIX [FAMILY NEXTHOP]: the router holds PREFIX with the next hop
# (192.0.2.1) and community 65535:666
rib_has() {
	local out
	out="$(rtr global rib -a "${2:-ipv4}" -j 2>/dev/null)" || return 1
	/usr/bin/python3 -c '
import json, sys
rib = json.loads(sys.argv[1] or "{}")
for p in rib.get(sys.argv[2], []):
    attrs = {a["type"]: a for a in p["attrs"]}
    comms = attrs.get(8, {}).get("communities", [])
    nh = attrs.get(3, {}).get("nexthop") or attrs.get(14, {}).get("nexthop")
    if nh == sys.argv[3] and (65535 << 16 | 666) in comms:
        sys.exit(0)
sys.exit(1)' "$out" "$1" "${3:-192.0.2.1}"
}
rib_lacks() { ! rib_has "$@"; }
rib_count() {
	rtr global rib -a ipv4 -j 2>/dev/null | /usr/bin/python3 -c 'import json,sys; t=sys.stdin.read().strip(); print(len(json.loads(t)) if t else 0)'
}
now_ms() { date +%s%3N; }

# 1. a marked alert: the route within a few seconds
frames "$TB_TMP/first.pcap" 198.18.99.1:9999 198.18.77.5:9999 198.18.99.9:9998
t0="$(now_ms)"
tb_replay "$TB_TMP/first.pcap" 100 >/dev/null
tb_wait 5 rib_has 198.18.99.1/32 || tb_fail "the router has no 198.18.99.1/32 with next hop 192.0.2.1 and community 65535:666 5 s after the alert"
t1="$(now_ms)"
tb_ok "alert -> route at the router in $((t1 - t0)) ms: 198.18.99.1/32 next-hop 192.0.2.1 community 65535:666"

# 2. the allow-listed source and the unmarked rule's source are never announced
sleep 1
rib_lacks 198.18.77.5/32 || tb_fail "the allow-listed 198.18.77.5 was announced"
rib_lacks 198.18.99.9/32 || tb_fail "198.18.99.9 was announced though its rule is not chosen"
[ "$(rib_count)" -eq 1 ] || tb_fail "the router holds $(rib_count) routes, want 1"
tb_ok "allow-listed 198.18.77.5 and unmarked 198.18.99.9 not announced"

# 3. max-active 2: one more is announced, the next refused
frames "$TB_TMP/limit.pcap" 198.18.99.2:9999 198.18.99.3:9999
tb_replay "$TB_TMP/limit.pcap" 100 >/dev/null
tb_wait 5 rib_has 198.18.99.2/32 || tb_fail "198.18.99.2/32 not announced (one below max-active)"
t2="$(now_ms)"
sleep 1
rib_lacks 198.18.99.3/32 || tb_fail "198.18.99.3 was announced beyond max-active 2"
tb_ok "max-active 2: 198.18.99.2 announced, 198.18.99.3 refused"

# 4. 198.18.99.1 alerts again, 3 s after .2 was announced: extended past .2's end;
# 198.18.99.2 goes after its TTL, .1 stays
sleep 2
frames "$TB_TMP/again.pcap" 198.18.99.1:9999
tb_replay "$TB_TMP/again.pcap" 100 >/dev/null
t3="$(now_ms)"
tb_wait $((TTL + 5)) rib_lacks 198.18.99.2/32 || tb_fail "198.18.99.2/32 still held $((TTL + 5)) s after its alert (ttl $TTL)"
t4="$(now_ms)"
[ $((t4 - t2)) -ge $(((TTL - 1) * 1000)) ] || tb_fail "198.18.99.2/32 withdrawn after $((t4 - t2)) ms, before its TTL of $TTL s"
rib_has 198.18.99.1/32 || tb_fail "198.18.99.1/32 withdrawn though its second alert extended it"
tb_ok "TTL: 198.18.99.2/32 withdrawn $((t4 - t2)) ms after its announcement (ttl $TTL s); the extended 198.18.99.1/32 stays"
tb_wait $((TTL + 5)) rib_lacks 198.18.99.1/32 || tb_fail "198.18.99.1/32 still held $((TTL + 5)) s after its last alert"
t5="$(now_ms)"
tb_ok "TTL: 198.18.99.1/32 withdrawn $((t5 - t3)) ms after its last alert"

# 5. IPv6: a /128 with the IPv6 next hop; then shutdown withdraws what is active
frames "$TB_TMP/last.pcap" 198.18.99.4:9999 2001:db8:99::1:9999
tb_replay "$TB_TMP/last.pcap" 100 >/dev/null
tb_wait 5 rib_has 198.18.99.4/32 || tb_fail "198.18.99.4/32 not announced"
tb_wait 5 rib_has 2001:db8:99::1/128 ipv6 100::1 ||
	tb_fail "the router has no 2001:db8:99::1/128 with next hop 100::1 and community 65535:666: $(rtr global rib -a ipv6 2>&1)"
tb_ok "IPv6: 2001:db8:99::1/128 next-hop 100::1 community 65535:666 at the router"
stats="$(tb_ctl stats --json)"
[ "$(json_get advise.active <<<"$stats")" -eq 2 ] || tb_fail "live stats: advise.active $(json_get advise.active <<<"$stats"), want 2"
tb_meerkat_stop TERM
[ "$TB_MK_RC" -eq 0 ] || tb_fail "meerkat exited $TB_MK_RC after SIGTERM"
tb_wait 5 rib_lacks 198.18.99.4/32 || tb_fail "198.18.99.4/32 still held 5 s after meerkat stopped"
tb_wait 5 rib_lacks 2001:db8:99::1/128 ipv6 100::1 || tb_fail "2001:db8:99::1/128 still held 5 s after meerkat stopped"
[ "$(rib_count)" -eq 0 ] || tb_fail "the router holds $(rib_count) routes after the sensor stopped"
tb_ok "shutdown: the active 198.18.99.4/32 and 2001:db8:99::1/128 withdrawn, the router holds nothing"
kill -0 "$PIPE_PID" 2>/dev/null || tb_fail "meerkat-exabgp-pipe exited when meerkat stopped (it must wait for the next one)"

# 6. the EVE records and the final counters
verdict="$(/usr/bin/python3 - "$TB_MK_DIR/eve.json" <<'PY'
import collections, json, sys
recs, stats = [], None
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["event_type"] == "bgp_advise":
        b = e["bgp_advise"]
        recs.append((b["action"], b["reason"], b["address"]))
    elif e["event_type"] == "stats":
        stats = e["stats"].get("advise")
want = collections.Counter([
    ("announce", "alert", "198.18.99.1"), ("refused", "allowlist", "198.18.77.5"),
    ("announce", "alert", "198.18.99.2"), ("refused", "limit", "198.18.99.3"),
    ("withdraw", "expired", "198.18.99.2"), ("withdraw", "expired", "198.18.99.1"),
    ("announce", "alert", "198.18.99.4"), ("withdraw", "shutdown", "198.18.99.4"),
    ("announce", "alert", "2001:db8:99::1"), ("withdraw", "shutdown", "2001:db8:99::1")])
got = collections.Counter(recs)
if got != want:
    print("records differ: missing %s extra %s" % (dict(want - got), dict(got - want)))
    sys.exit()
c = {k: stats[k] for k in ("selected", "announced", "extended", "withdrawn", "active",
                           "refused_allowlist", "refused_limit", "queue_dropped", "write_errors")}
exp = {"selected": 7, "announced": 4, "extended": 1, "withdrawn": 4, "active": 0,
       "refused_allowlist": 1, "refused_limit": 1, "queue_dropped": 0, "write_errors": 0}
print("ok %s" % c if c == exp else "counters %s, want %s" % (c, exp))
PY
)"
case "$verdict" in
ok*) tb_ok "EVE: 10 bgp_advise records as expected; final stats ${verdict#ok }" ;;
*) tb_fail "$verdict" ;;
esac

# 7. flowspec, and a sensor that dies without withdrawing
sed 's/^  enabled: yes$/  enabled: yes\n  mode: flowspec/' "$TB_TMP/advise.yaml" >"$TB_TMP/flow.yaml"
tb_meerkat_start flow -i "$TB_SENSOR_IF" -c "$TB_TMP/flow.yaml" -S "$TB_TMP/advise.rules" --workers 1 ||
	tb_fail "meerkat (flowspec) exited ($TB_MK_RC) before answering: $(cat "$TB_MK_DIR/err")"
tb_wait 10 piped || tb_fail "meerkat-exabgp-pipe did not connect to the second meerkat"
FLOW_RULE="[destination: 198.18.255.1/32][source: 198.18.99.5/32][protocol: ==udp][destination-port: ==9999][source-port: ==40000]"
flow_has() {
	local out
	out="$(rtr global rib -a ipv4-flowspec 2>/dev/null)" || return 1
	grep -F "$FLOW_RULE" <<<"$out" | grep -q "discard"
}
flow_lacks() {
	local out
	out="$(rtr global rib -a ipv4-flowspec 2>/dev/null)" || return 1
	! grep -qF "source: 198.18.99.5/32" <<<"$out"
}
FLOW6_RULE="[destination: 2001:db8:255::1/128/0][source: 2001:db8:99::5/128/0][protocol: ==udp][destination-port: ==9999][source-port: ==40001]"
flow6_has() {
	local out
	out="$(rtr global rib -a ipv6-flowspec 2>/dev/null)" || return 1
	grep -F "$FLOW6_RULE" <<<"$out" | grep -q "discard"
}
flow6_lacks() {
	local out
	out="$(rtr global rib -a ipv6-flowspec 2>/dev/null)" || return 1
	! grep -qF "source: 2001:db8:99::5/128" <<<"$out"
}
frames "$TB_TMP/flow.pcap" 198.18.99.5:9999 2001:db8:99::5:9999
t0="$(now_ms)"
tb_replay "$TB_TMP/flow.pcap" 100 >/dev/null
tb_wait 5 flow_has || tb_fail "no flowspec rule $FLOW_RULE with discard at the router: $(rtr global rib -a ipv4-flowspec 2>&1)"
t1="$(now_ms)"
tb_ok "flowspec: alert -> $FLOW_RULE discard at the router in $((t1 - t0)) ms"
tb_wait 5 flow6_has || tb_fail "no IPv6 flowspec rule from 2001:db8:99::5/128 with discard at the router: $(rtr global rib -a ipv6-flowspec 2>&1)"
tb_ok "flowspec IPv6: $FLOW6_RULE discard at the router"
tb_meerkat_stop KILL
tb_wait 5 flow_lacks || tb_fail "the flowspec rule outlived the killed sensor by 5 s"
tb_wait 5 flow6_lacks || tb_fail "the IPv6 flowspec rule outlived the killed sensor by 5 s"
tb_ok "meerkat killed: the pipe withdrew its flowspec rules, the router holds nothing"
