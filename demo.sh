#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# meerkat in two minutes, on a fresh Debian 12, as root:
#   1. installs what is missing (deps.sh) and builds (build/),
#   2. creates two network namespaces joined by a 2-queue veth pair,
#   3. starts the live sensor, meerkat -i, on the sensor end: the XDP program
#      attached natively, one AF_XDP socket per (queue, worker), 2 workers,
#      the sample rules (configs/rules/meerkat-demo.rules), and shows it with
#      meerkatctl status,
#   4. replays the sample traffic (TCP/HTTP, DNS, ICMP, VLAN, GTP-U, L2TP,
#      fragments, ARP, malformed frames) from the other end with tcpreplay,
#      printing the daemon's counters as they move (meerkatctl stats),
#   5. compares what the XDP program counted with what the traffic generator
#      built,
#   6. stops the sensor (SIGTERM): the accounting line, the EVE alert and flow
#      records it wrote; then offline mode (meerkat -r) on the same pcap with
#      the same rules,
#   7. starts the sensor again with a server in the CIDR bypass list
#      (bypass.cidr) and replays: that server's flows, plain or tunnelled, are
#      dropped in the driver,
#   8. replays a 10 MB download: past the reassembly depth its worker hands it
#      to the bypass manager, the driver drops the rest, and once idle the
#      flow's EVE record carries what the driver counted (flow.bypassed),
#   9. removes everything it created, even on error or Ctrl-C.
# Touches nothing outside the two namespaces it creates, a bpffs mount under
# /run and a scratch directory under /tmp; sends no traffic anywhere else.
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

say "1/8 dependencies and build"
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

# The testbench library: namespaces, veth pair, the daemon's start and stop,
# and the cleanup trap on EXIT/INT/TERM that checks nothing is left.
# shellcheck source=test/testbench/lib.sh
. test/testbench/lib.sh
TB_NAME="demo"
TB_MEERKAT="$BUILD/userspace/meerkat"
TB_CTL="$BUILD/userspace/meerkatctl"

say "2/8 testbench: two namespaces joined by a veth pair"
tb_setup

RULES="$PWD/configs/rules/meerkat-demo.rules"
# the reference configuration with the application layer's events on (http, dns, tls)
CONF="$TB_TMP/demo.yaml"
sed -e 's/^        # - http /        - http   /' -e 's/^        # - dns /        - dns   /' \
	-e 's/^        # - tls /        - tls   /' configs/meerkat.yaml >"$CONF"
say "3/8 the live sensor: meerkat -c configs/meerkat.yaml (+ types http, dns, tls) -i $TB_SENSOR_IF --workers 2 -S ${RULES#"$PWD"/} (in $TB_NS_SENSOR)"
tb_meerkat_start demo -c "$CONF" -i "$TB_SENSOR_IF" --workers 2 -S "$RULES" -v || {
	cat "$TB_MK_DIR/err" >&2
	tb_fail "meerkat did not start"
}
sed -n 's/^meerkat: info: //p' "$TB_MK_DIR/err"
echo "\$ meerkatctl status"
tb_ctl status

# One line of the daemon's counters, from meerkatctl stats --json.
stats_line() {
	tb_ctl stats --json | /usr/bin/python3 -c '
import json, sys
s = json.load(sys.stdin)
x, c = s["xdp"], s["capture"]
print("  xdp rx %5d  redirected %5d  passed %3d | workers took %s  flows active %4d  ended %4d | eve %4d"
      % (x["rx"], x["redirect_xsk"], x["pass_non_ip"] + x["pass_error"],
         "+".join(str(w["pkts"]) for w in s["workers"]).ljust(9),
         sum(w["flows_active"] for w in s["workers"]), s["worker"]["flows_logged"],
         s["eve"].get("written", 0)))'
}

frames="$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["frames"])' "$EXPECT")"
say "4/8 replay $frames frames from $TB_NS_PEER/$TB_PEER_IF at 200 frames/s; the counters move"
tb_peer tcpreplay -i "$TB_PEER_IF" --pps=200 "$PCAP" >"$TB_TMP/replay.out" 2>&1 &
replay=$!
while kill -0 "$replay" 2>/dev/null; do
	stats_line
	sleep 0.4
done
wait "$replay" || true
grep -E 'Successful packets|Failed packets' "$TB_TMP/replay.out" || true
sleep 1.2 # the workers publish their counters once a second
stats_line

say "5/8 what the XDP program counted, against what the traffic generator built"
STATS_JSON="$(tb_ctl stats --json)" /usr/bin/python3 -c '
import json, os, sys
exp = dict(json.load(open(sys.argv[1]))["counters"])
exp["redirect_xsk"] = exp.pop("pass_no_socket", 0)  # the sockets are there
s = json.loads(os.environ["STATS_JSON"])
print("  %-22s %8s %8s" % ("counter", "expected", "counted"))
for k, v in s["xdp"].items():
    e = exp.get(k, 0)
    if e or v:
        print("  %-22s %8d %8d%s" % (k, e, v, "" if e == v else "   <-- differs"))
i = s["invariant"]
print("  invariant: rx %d = sum of outcomes %d: %s" % (i["rx"], i["outcome_sum"],
      "holds" if i["holds"] else "VIOLATED"))' "$EXPECT" || true

say "6/8 SIGTERM: the sensor drains, detaches and accounts for every frame"
tb_meerkat_stop TERM
grep -E '^meerkat: (accounting|warning|error)' "$TB_MK_DIR/err" || true
[ -z "$(tb_sensor_prog_id)" ] && echo "  no XDP program left on $TB_SENSOR_IF (exit status $TB_MK_RC)"
summarise() {
	/usr/bin/python3 - "$1" <<'PY'
import collections, json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print("  EVE events by type:", dict(collections.Counter(e.get("event_type") for e in ev)))
alerts = [e for e in ev if e.get("event_type") == "alert"]
for (sid, msg), n in sorted(collections.Counter((a["alert"]["signature_id"], a["alert"]["signature"])
                                              for a in alerts).items()):
    print("  %3d x alert sid %d  %s" % (n, sid, msg))
for a in [a for a in alerts if "tunnel" in a][:2] + [a for a in alerts if "tunnel" not in a][:2]:
    t = a.get("tunnel")
    print("  alert %-4s %s:%s -> %s:%s sid %d%s%s" % (
          a["proto"], a["src_ip"], a.get("src_port", ""), a["dest_ip"], a.get("dest_port", ""),
          a["alert"]["signature_id"], " (stream)" if a.get("stream") else "",
          "  [%s]" % t["type"] if t else ""))
http_alert = [a for a in alerts if "http" in a]
if http_alert:
    a = http_alert[0]
    print("  an HTTP alert (sid %d) carries its transaction: %s" % (a["alert"]["signature_id"],
                                                              json.dumps(a["http"])))
for t in ("http", "dns", "tls"):
    e = [e for e in ev if e.get("event_type") == t]
    if e:
        print("  %s event: %s" % (t, json.dumps(e[0][t])))
flows = [e for e in ev if e.get("event_type") == "flow"]
for e in [e for e in flows if "tunnel" in e][:3] + [e for e in flows if "tunnel" not in e][:5]:
    f, t = e["flow"], e.get("tunnel")
    print("  flow %-4s %s:%s -> %s:%s pkts %s/%s bytes %s/%s %s%s" % (
          e.get("proto"), e.get("src_ip"), e.get("src_port", ""), e.get("dest_ip"),
          e.get("dest_port", ""), f["pkts_toserver"], f["pkts_toclient"], f["bytes_toserver"],
          f["bytes_toclient"], f["state"], "  [%s %s]" % (t["type"], t.get("teid", t.get(
              "session_id", ""))) if t else ""))
PY
}
echo "live eve.json:"
summarise "$TB_MK_DIR/eve.json"

echo
echo "offline: meerkat -r on the same pcap with the same rules (same parser, decapsulation, hash and pipeline)"
mkdir -p "$TB_TMP/offline"
"$TB_MEERKAT" -r "$PCAP" -c "$CONF" -S "$RULES" -l "$TB_TMP/offline" --workers 2 2>&1 |
	grep -E '^meerkat:|^  (read|non_ip|parse_error|dispatched|flow_created|dgram_reassembled) ' || true
summarise "$TB_TMP/offline/eve.json"
echo "(test/testbench/test_live_agreement.sh and test_live_alerts.sh check that live and offline write the same flow records and alerts)"

prefix="$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cidr_bypass"]["prefix"])' "$EXPECT")"
say "7/8 bypass in the driver: the sensor again, with bypass.cidr: [$prefix] (the web server)"
printf 'bypass:\n  cidr: ["%s"]\n' "$prefix" >"$TB_TMP/bypass.yaml"
cat "$TB_TMP/bypass.yaml"
tb_meerkat_start bypass -c "$TB_TMP/bypass.yaml" -i "$TB_SENSOR_IF" --workers 2 || {
	cat "$TB_MK_DIR/err" >&2
	tb_fail "meerkat did not start"
}
tb_peer tcpreplay -i "$TB_PEER_IF" --pps=2000 "$PCAP" >/dev/null 2>&1 || true
sleep 1.2
tb_ctl stats --json | /usr/bin/python3 -c '
import json, sys
x = json.load(sys.stdin)["xdp"]
print("  rx %d, drop_cidr_bypass %d (expected %s: its plain, GTP-U and L2TP sessions, matched on"
      " the inner address), redirect_xsk %d" % (x["rx"], x["drop_cidr_bypass"], sys.argv[1],
                                               x["redirect_xsk"]))' \
	"$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cidr_bypass"]["counters"]["drop_cidr_bypass"])' "$EXPECT")" || true
tb_meerkat_stop TERM
grep -E '^meerkat: (accounting|warning|error)' "$TB_MK_DIR/err" || true

say "8/8 a download bypassed in the driver: 10 MB past a 64 KiB reassembly depth (docs/bypass.md)"
/usr/bin/python3 test/testbench/gen_bypass.py "$TB_TMP/download.pcap" --mb 10 --rules "$TB_TMP/download.rules"
printf 'stream:\n  reassembly:\n    depth: 64kb\nflow-timeouts:\n  tcp:\n    bypassed: 2\n  udp:\n    bypassed: 2\nbypass:\n  expiry-interval: 1\n' >"$TB_TMP/download.yaml"
sed 's/^/  /' "$TB_TMP/download.yaml"
tb_meerkat_start download -c "$TB_TMP/download.yaml" -i "$TB_SENSOR_IF" --workers 2 -S "$TB_TMP/download.rules" || {
	cat "$TB_MK_DIR/err" >&2
	tb_fail "meerkat did not start"
}
tb_peer tcpreplay -i "$TB_PEER_IF" --pps=20000 "$TB_TMP/download.pcap" >/dev/null 2>&1 || true
sleep 1
echo "\$ meerkatctl bypass list"
tb_ctl bypass list || true
tb_ctl stats --json | /usr/bin/python3 -c '
import json, sys
s = json.load(sys.stdin)
b = s["bypass"]
print("  drop_flow_bypass %d; bypass manager: %d inserted, request-to-insert latency max %d us"
      % (s["xdp"]["drop_flow_bypass"], b["inserted"], b["insert_latency"]["max_us"]))' || true
echo "  (waiting for the entries to expire: flow-timeouts.tcp.bypassed 2 s)"
sleep 5
tb_meerkat_stop TERM
/usr/bin/python3 -c '
import json, sys
side = json.load(open(sys.argv[2]))["bulk"]
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["event_type"] == "flow" and e["src_port"] == side["sport"]:
        f = e["flow"]
        print("  the download flow record:", json.dumps(f))
        print("  worker %d + driver %d = %d packets to the client (sent: %d)"
              % (f["pkts_toclient"], f["bypassed"]["pkts_toclient"],
                 f["pkts_toclient"] + f["bypassed"]["pkts_toclient"], side["pkts_toclient"]))' \
	"$TB_MK_DIR/eve.json" "$TB_TMP/download.pcap.json" || true
grep -E '^meerkat: (accounting|warning|error)' "$TB_MK_DIR/err" || true

say "cleanup"
# tb_cleanup runs from the EXIT trap: stops the daemon if needed, deletes the
# namespaces, veths and bpffs mount, removes the scratch directory
