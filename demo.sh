#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# meerkat in two minutes, on a fresh Debian 12, as root:
#   1. installs what is missing (deps.sh) and builds (build/),
#   2. creates two network namespaces joined by a veth pair,
#   3. attaches the XDP program natively to the sensor end with xdp-loader,
#   4. replays the sample traffic (TCP/HTTP, DNS, ICMP, VLAN, GTP-U, L2TP,
#      fragments, ARP, malformed frames) from the other end with tcpreplay,
#   5. prints the program's counters (meerkatctl stats), then puts a server
#      into the CIDR bypass list and shows its flows dropped in the driver,
#   6. runs offline mode (meerkat -r) on the same pcap with the sample rules
#      (configs/rules/meerkat-demo.rules) and shows the alerts and flows it logs,
#   7. removes everything it created, even on error or Ctrl-C.
# Touches nothing outside the two namespaces it creates and a bpffs mount
# under /run; sends no traffic anywhere else.
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")"

if [ "$(id -u)" -ne 0 ]; then
	echo "demo.sh: run as root (network namespaces, XDP): sudo ./demo.sh" >&2
	exit 1
fi

if [ -t 1 ]; then
	say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
else
	say() { printf '\n== %s\n' "$*"; }
fi

say "1/6 dependencies and build"
./deps.sh
if [ -f build/build.ninja ]; then
	meson setup --reconfigure build >/dev/null
else
	meson setup build >/dev/null
fi
ninja -C build
ninja -C build test/testbench/sample.pcap >/dev/null

BUILD="$PWD/build"
PCAP="$BUILD/test/testbench/sample.pcap"
EXPECT="$BUILD/test/testbench/sample.json"
CTL="$BUILD/userspace/meerkatctl"

# The testbench library: namespaces, veth pair, cleanup trap on EXIT/INT/TERM.
# shellcheck source=test/testbench/lib.sh
. test/testbench/lib.sh
TB_NAME="demo"

say "2/6 testbench: two namespaces joined by a veth pair"
tb_setup

say "3/6 attach meerkat_xdp (native XDP) with xdp-loader"
tb_attach "$BUILD/xdp/meerkat.bpf.o"
tb_sensor xdp-loader status "$TB_SENSOR_IF"

frames="$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["frames"])' "$EXPECT")"
say "4/6 replay $frames frames from $TB_NS_PEER/$TB_PEER_IF"
tb_peer tcpreplay -i "$TB_PEER_IF" --pps=2000 "$PCAP" 2>&1 |
	grep -E 'Actual:|Successful packets|Failed packets' || true
sleep 1

say "5/6 what the XDP program counted (meerkatctl stats -i $TB_SENSOR_IF)"
tb_sensor "$CTL" stats -i "$TB_SENSOR_IF" || true
printf '\nnon-zero counters against what the traffic generator built (%s):\n' \
	"${EXPECT#"$PWD"/}"
STATS_JSON="$(tb_sensor "$CTL" stats -i "$TB_SENSOR_IF" --json)" /usr/bin/python3 -c '
import json, os, sys
exp = json.load(open(sys.argv[1]))["counters"]
got = json.loads(os.environ["STATS_JSON"])["counters"]
print("  %-22s %8s %8s" % ("counter", "expected", "counted"))
for k, v in got.items():
    e = exp.get(k, 0)
    if e or v:
        print("  %-22s %8d %8d%s" % (k, e, v, "" if e == v else "   <-- differs"))' "$EXPECT" || true

prefix="$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cidr_bypass"]["prefix"])' "$EXPECT")"
say "6/6 bypass in the driver: $prefix (the web server) into the CIDR bypass list, replay again"
tb_cidr_v4_add "$prefix"
tb_peer tcpreplay -i "$TB_PEER_IF" --pps=2000 "$PCAP" >/dev/null 2>&1 || true
sleep 1
tb_sensor "$CTL" stats -i "$TB_SENSOR_IF" --json | /usr/bin/python3 -c '
import json, sys
s = json.load(sys.stdin)
c = s["counters"]
print("after two replays: rx %d, drop_cidr_bypass %d (expected %d: its plain, GTP-U and L2TP"
      " sessions, matched on the inner address), pass_no_socket %d; invariant %s"
      % (c["rx"], c["drop_cidr_bypass"], int(sys.argv[1]), c["pass_no_socket"],
         "holds" if s["invariant"]["holds"] else "VIOLATED"))' \
	"$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cidr_bypass"]["counters"]["drop_cidr_bypass"])' "$EXPECT")" || true

MEERKAT="$BUILD/userspace/meerkat"
say "offline: meerkat -r on the same pcap with the sample rules (same parser, decapsulation and hash as the driver)"
logdir="$(mktemp -d /tmp/meerkat-demo.XXXXXX)"
"$MEERKAT" -r "$PCAP" -l "$logdir" --workers 2 -c configs/meerkat.yaml -S configs/rules/meerkat-demo.rules 2>&1 |
	grep -E '^meerkat:|^  (read|non_ip|parse_error|dispatched|flow_created|dgram_reassembled|stream.sessions|stream.released_bytes) '
/usr/bin/python3 - "$logdir/eve.json" <<'PY'
import collections, json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print("EVE events by type:", dict(collections.Counter(e.get("event_type") for e in ev)))
alerts = [e for e in ev if e.get("event_type") == "alert"]
for (sid, msg), n in sorted(collections.Counter((a["alert"]["signature_id"], a["alert"]["signature"])
                                              for a in alerts).items()):
    print("  %3d x sid %d  %s" % (n, sid, msg))
for a in [a for a in alerts if "tunnel" in a][:2] + [a for a in alerts if "tunnel" not in a][:3]:
    t = a.get("tunnel")
    print("  alert %-4s %s:%s -> %s:%s sid %d%s%s" % (
          a["proto"], a["src_ip"], a.get("src_port", ""), a["dest_ip"], a.get("dest_port", ""),
          a["alert"]["signature_id"], " stream" if a.get("stream") else "",
          "  [%s %s -> %s]" % (t["type"], t["src_ip"], t["dest_ip"]) if t else ""))
ev = [e for e in ev if e.get("event_type") == "flow"]
for e in [e for e in ev if "tunnel" in e][:4] + [e for e in ev if "tunnel" not in e][:6]:
    f = e.get("flow", {})
    t = e.get("tunnel")
    print("  flow %-4s %s:%s -> %s:%s pkts %s/%s bytes %s/%s %s%s" % (
          e.get("proto"), e.get("src_ip"), e.get("src_port", ""), e.get("dest_ip"),
          e.get("dest_port", ""), f.get("pkts_toserver"), f.get("pkts_toclient"),
          f.get("bytes_toserver"), f.get("bytes_toclient"), f.get("state"),
          "  [%s %s -> %s]" % (t.get("type"), t.get("src_ip"), t.get("dest_ip")) if t else ""))
PY
echo "(full output: $logdir/eve.json)"

say "cleanup"
# tb_cleanup runs from the EXIT trap: detaches XDP, deletes namespaces and veths
