#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The Prometheus endpoint of the live sensor (stats.prometheus), on the veth
# testbench (needs root):
#   1. meerkat -i with the endpoint on the sensor namespace's loopback, the
#      sample rules, 2 workers; /metrics answers, other paths 404, POST 405;
#      garbage, cut requests and a 100 kB header do not stop it;
#   2. the sample traffic replayed (looped, a few seconds) while /metrics is
#      scraped: each scrape passes `promtool check metrics` with nothing to
#      say (no error, no lint warning), and the scrape counter moves;
#   3. traffic stopped, a scrape and `meerkatctl stats` right after agree on
#      the program's rx, the frames each worker took, the alerts and the EVE
#      records written;
#   4. every numeric leaf of the real `meerkatctl stats` is exported
#      (prom_render names any that is not);
#   5. every metric configs/grafana-meerkat.json queries is in the scrape;
#   6. a port already taken: meerkat refuses to start, naming the key and
#      the address, and leaves nothing attached;
#   7. the other forms of the address: ":PORT" answers on 127.0.0.1 and
#      [::1], "[::1]:PORT" on [::1] (IPv6 on the sensor's loopback only).
# Everything it creates is removed when it ends, pass or fail.
#
# usage: test_live_metrics.sh BUILD_DIR PCAP RULES DASHBOARD
#        test_live_metrics.sh --skip WHY
set -euo pipefail
# shellcheck source=test/testbench/lib.sh
. "$(dirname "$0")/lib.sh"

[ "${1:-}" != "--skip" ] || tb_skip "${2:-no reason given}"
BUILD="${1:?usage: $0 BUILD_DIR PCAP RULES DASHBOARD}"
PCAP="${2:?}"
RULES="${3:?}"
DASHBOARD="${4:?}"
TB_MEERKAT="$BUILD/userspace/meerkat"
TB_CTL="$BUILD/userspace/meerkatctl"
PROM_RENDER="$BUILD/test/unit/prom_render"

tb_require_root
tb_require_cmd tcpreplay bpftool ip curl promtool
[ -x /usr/bin/python3 ] || tb_skip "/usr/bin/python3 not installed"
for f in "$TB_MEERKAT" "$TB_CTL" "$PROM_RENDER" "$PCAP" "$RULES" "$DASHBOARD"; do
	tb_require_file "$f"
done

tb_setup
ip -n "$TB_NS_SENSOR" link set lo up
PORT=$((20000 + RANDOM % 20000))
ADDR="127.0.0.1:$PORT"
# no periodic stats events: eve.written moves only with the traffic
cat >"$TB_TMP/metrics.yaml" <<EOF
stats:
  enabled: no
  prometheus:
    enabled: yes
    listen: "$ADDR"
EOF

# scrape FILE: GET /metrics in the sensor namespace into FILE
scrape() { tb_sensor curl -sf --max-time 5 -o "$1" "http://$ADDR/metrics"; }
status_of() { tb_sensor curl -s --max-time 5 -o /dev/null -w '%{http_code}' "$@"; }
# promtool_clean FILE: `promtool check metrics` passes and has nothing to say
promtool_clean() {
	local out rc=0
	out="$(promtool check metrics <"$1" 2>&1)" || rc=$?
	if [ "$rc" -ne 0 ] || [ -n "$out" ]; then
		tb_fail "promtool check metrics on $1 (exit $rc): $out"
	fi
}
# sample FILE NAME[{LABELS}]: the value of one sample of a scrape
sample() {
	/usr/bin/python3 - "$1" "$2" <<'PY'
import sys
for line in open(sys.argv[1]):
    name, _, value = line.rstrip("\n").rpartition(" ")
    if name == sys.argv[2]:
        print(value)
        sys.exit(0)
sys.exit("no sample %s" % sys.argv[2])
PY
}

tb_meerkat_start live -i "$TB_SENSOR_IF" -c "$TB_TMP/metrics.yaml" -S "$RULES" --workers 2 ||
	tb_fail "meerkat exited ($TB_MK_RC) before answering: $(cat "$TB_MK_DIR/err")"
scrape "$TB_TMP/first.prom" || tb_fail "no answer on http://$ADDR/metrics"
grep -q "^meerkat_uptime_seconds " "$TB_TMP/first.prom" || tb_fail "no meerkat_uptime_seconds"
code="$(status_of "http://$ADDR/")"
[ "$code" = 404 ] || tb_fail "GET / answered $code, want 404"
code="$(status_of -X POST "http://$ADDR/metrics")"
[ "$code" = 405 ] || tb_fail "POST /metrics answered $code, want 405"
tb_ok "meerkat -i $TB_SENSOR_IF (pid $TB_MK_PID): /metrics on $ADDR; / is 404, POST 405"
# what a scanner or a broken client sends: each on its own connection
tb_sensor /usr/bin/python3 - "$PORT" <<'PY' || tb_fail "hostile requests: the endpoint went away"
import socket, sys
port = int(sys.argv[1])
for req in [b"\x00\xff garbage\r\n\r\n", b"GET /metr", b"GET /metrics HTTP/1.1\r\nHost: x\r\n",
            b"GET /metrics HTTP/1.1\r\nX: " + b"a" * 100000 + b"\r\n\r\n",
            b"GET /" + b"%" * 5000 + b" HTTP/1.1\r\n\r\n", b"POST /metrics HTTP/1.1\r\n"
            b"Content-Length: 1000000\r\n\r\n" + b"x" * 1000]:
    s = socket.create_connection(("127.0.0.1", port), 2)
    try:
        s.sendall(req)
        s.shutdown(socket.SHUT_WR)
        s.settimeout(2)
        s.recv(65536)
    except OSError:
        pass
    s.close()
PY
kill -0 "$TB_MK_PID" || tb_fail "meerkat died of hostile requests: $(cat "$TB_MK_DIR/err")"
scrape "$TB_TMP/first.prom" || tb_fail "no answer after the hostile requests"
tb_ok "garbage, cut requests, a 100 kB header and an oversized body: still serving"

# 2. scrapes while the traffic runs
LOOPS=8
tb_replay "$PCAP" 1000 --loop="$LOOPS" >"$TB_TMP/sent" &
replay=$!
n=0
for _ in 1 2 3 4 5 6; do
	sleep 0.5
	kill -0 "$replay" 2>/dev/null || break
	n=$((n + 1))
	scrape "$TB_TMP/during$n.prom" || tb_fail "scrape $n during the traffic failed"
	promtool_clean "$TB_TMP/during$n.prom"
done
wait "$replay" || tb_fail "tcpreplay failed"
sent="$(cat "$TB_TMP/sent")"
[ "$n" -ge 2 ] || tb_fail "only $n scrape(s) while the traffic ran"
taken1="$(sample "$TB_TMP/during1.prom" 'meerkat_xdp_rx_total')"
taken2="$(sample "$TB_TMP/during$n.prom" 'meerkat_xdp_rx_total')"
[ "$taken2" -gt "$taken1" ] || tb_fail "meerkat_xdp_rx_total did not move during the traffic ($taken1, $taken2)"
tb_ok "$n scrapes during $sent frames of traffic: promtool check metrics clean, xdp rx $taken1 -> $taken2"

# 3. traffic stopped: the workers publish once a second; then scrape, then stats
sleep 2.5
scrape "$TB_TMP/after.prom" || tb_fail "scrape after the traffic failed"
tb_ctl stats --json >"$TB_TMP/stats.json" || tb_fail "meerkatctl stats failed"
promtool_clean "$TB_TMP/after.prom"
verdict="$(/usr/bin/python3 - "$TB_TMP/after.prom" "$TB_TMP/stats.json" "$sent" <<'PY'
import json, re, sys

samples = {}
for line in open(sys.argv[1]):
    if line.startswith("#"):
        continue
    m = re.match(r"^([a-z_0-9]+)(\{.*\})? (\S+)$", line.rstrip("\n"))
    if not m:
        sys.exit("bad line: " + line)
    labels = dict(re.findall(r'([a-z_]+)="((?:[^"\\]|\\.)*)"', m.group(2) or ""))
    samples.setdefault(m.group(1), []).append((labels, float(m.group(3))))
st = json.load(open(sys.argv[2]))
sent = int(sys.argv[3])

def one(name, **want):
    got = [v for l, v in samples.get(name, []) if all(l.get(k) == str(x) for k, x in want.items())]
    if len(got) != 1:
        sys.exit("%s%s: %d samples" % (name, want, len(got)))
    return got[0]

def total(name):
    return sum(v for _, v in samples.get(name, []))

checks = [
    ("xdp rx", one("meerkat_xdp_rx_total"), st["xdp"]["rx"]),
    ("frames taken", total("meerkat_capture_sock_rx_total"), st["capture"]["sock_rx"]),
    ("alerts", total("meerkat_detect_alerts_total"), st["detect"]["alerts"]),
    ("eve written", one("meerkat_eve_written_total", output="file"), st["eve"]["written"]),
    ("flows created", total("meerkat_flow_created_total"), st["flow"]["flow_created"]),
]
for w in st["workers"]:
    checks.append(("worker %d packets" % w["id"],
                   one("meerkat_capture_sock_rx_total", worker=w["id"]), w["pkts"]))
bad = ["%s: metrics %s, stats %s" % (n, a, b) for n, a, b in checks if a != b]
if bad:
    sys.exit("; ".join(bad))
if st["xdp"]["rx"] < sent or not st["detect"]["alerts"] or not st["eve"]["written"]:
    sys.exit("implausible stats: rx %d of %d sent, %d alerts, %d records" % (
        st["xdp"]["rx"], sent, st["detect"]["alerts"], st["eve"]["written"]))
print("rx %d, per worker %s, alerts %d, eve written %d" % (
    st["xdp"]["rx"], "/".join(str(w["pkts"]) for w in st["workers"]), st["detect"]["alerts"],
    st["eve"]["written"]))
PY
)" || tb_fail "the scrape and meerkatctl stats differ: $verdict"
tb_ok "the scrape equals meerkatctl stats taken right after: $verdict"
s1="$(sample "$TB_TMP/first.prom" meerkat_prometheus_scrapes_total)"
s2="$(sample "$TB_TMP/after.prom" meerkat_prometheus_scrapes_total)"
[ "$s2" -eq $((s1 + n + 1)) ] || tb_fail "meerkat_prometheus_scrapes_total $s1 -> $s2 over $((n + 1)) scrapes"
tb_ok "meerkat_prometheus_scrapes_total counted every scrape ($s1 -> $s2)"

# 4. every numeric leaf of the real stats is exported
"$PROM_RENDER" "$TB_TMP/stats.json" >/dev/null 2>"$TB_TMP/unexported" ||
	tb_fail "counters of meerkatctl stats not exported: $(cat "$TB_TMP/unexported")"
leaves="$(/usr/bin/python3 -c '
import json, sys
def n(v):
    if isinstance(v, dict): return sum(n(x) for x in v.values())
    if isinstance(v, list): return sum(n(x) for x in v)
    return 1 if isinstance(v, (int, float)) else 0
print(n(json.load(open(sys.argv[1]))))' "$TB_TMP/stats.json")"
families="$(grep -c '^# TYPE ' "$TB_TMP/after.prom")"
tb_ok "all $leaves numeric leaves of meerkatctl stats are exported ($families metric families)"

# 5. the dashboard queries only what the scrape has
verdict="$(/usr/bin/python3 - "$DASHBOARD" "$TB_TMP/after.prom" <<'PY'
import json, re, sys

dash = json.load(open(sys.argv[1]))
have = set()
for line in open(sys.argv[2]):
    m = re.match(r"^# TYPE (\S+) (\S+)", line)
    if m:
        have.add(m.group(1))
        if m.group(2) == "histogram":
            have.update(m.group(1) + s for s in ("_bucket", "_sum", "_count"))
exprs = []
def walk(v):
    if isinstance(v, dict):
        for k, x in v.items():
            if k in ("expr", "query") and isinstance(x, str):
                exprs.append(x)
            else:
                walk(x)
    elif isinstance(v, list):
        for x in v:
            walk(x)
walk(dash)
used = set()
for e in exprs:
    used.update(re.findall(r"\bmeerkat_[a-z0-9_]+", e))
missing = sorted(used - have)
if not exprs or missing:
    sys.exit("%d queries; not in the scrape: %s" % (len(exprs), ", ".join(missing)))
print("%d queries, %d metrics" % (len(exprs), len(used)))
PY
)" || tb_fail "configs/grafana-meerkat.json: $verdict"
tb_ok "grafana dashboard: $verdict, all in the scrape"

tb_meerkat_stop TERM
[ "$TB_MK_RC" -eq 0 ] || tb_fail "meerkat exited $TB_MK_RC after SIGTERM"

# 6. the port taken: refused at start, naming the key and the address; not
# through tb_sensor: $! must be the listener itself (ip netns exec execs)
ip netns exec "$TB_NS_SENSOR" /usr/bin/python3 -c '
import socket, sys, time
s = socket.socket()
# the scrapes left connections in TIME_WAIT on this port
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(1)
time.sleep(60)' "$PORT" &
holder=$!
TB_MK_PIDS+=" $holder"
tb_wait 5 tb_sensor /usr/bin/python3 -c '
import socket, sys
socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1).close()' "$PORT" ||
	tb_fail "could not occupy $ADDR"
if tb_meerkat_start busy -i "$TB_SENSOR_IF" -c "$TB_TMP/metrics.yaml" --workers 1; then
	tb_fail "meerkat started with $ADDR taken"
fi
kill "$holder" 2>/dev/null || true
wait "$holder" 2>/dev/null || true
err="$(cat "$TB_MK_DIR/err")"
grep -q "stats.prometheus.listen: cannot listen on $ADDR: Address already in use" <<<"$err" ||
	tb_fail "no clear error for the taken port: $err"
[ -z "$(tb_sensor_prog_id)" ] || tb_fail "a program stayed attached after the refused start"
tb_ok "port taken: exit $TB_MK_RC, '$(grep -m1 'stats.prometheus' <<<"$err")', nothing attached"

# 7. ":PORT" (every address, both families) and "[::1]:PORT"
forms=(":$((PORT + 1))" "[::1]:$((PORT + 2))")
tb_sensor sysctl -qw net.ipv6.conf.lo.disable_ipv6=0 || true
if ! tb_wait 5 tb_sensor /usr/bin/python3 -c '
import socket
s = socket.socket(socket.AF_INET6)
s.bind(("::1", 0))'; then
	tb_log "no IPv6 on the sensor namespace's loopback: [::1] not tried"
	forms=(":$((PORT + 1))")
fi
for listen in "${forms[@]}"; do
	sed "s|listen: .*|listen: \"$listen\"|" "$TB_TMP/metrics.yaml" >"$TB_TMP/forms.yaml"
	tb_meerkat_start "form${listen%%:*}" -i "$TB_SENSOR_IF" -c "$TB_TMP/forms.yaml" --workers 1 ||
		tb_fail "meerkat with listen '$listen' exited ($TB_MK_RC): $(cat "$TB_MK_DIR/err")"
	urls=()
	[ "${#forms[@]}" -eq 1 ] || urls+=("http://[::1]:${listen##*:}/metrics")
	[ "${listen:0:1}" != ":" ] || urls+=("http://127.0.0.1:${listen##*:}/metrics")
	for url in "${urls[@]}"; do
		tb_sensor curl -sf --max-time 5 -o "$TB_TMP/form.prom" "$url" ||
			tb_fail "listen '$listen': no answer on $url"
		promtool_clean "$TB_TMP/form.prom"
	done
	tb_meerkat_stop TERM
	[ "$TB_MK_RC" -eq 0 ] || tb_fail "meerkat (listen '$listen') exited $TB_MK_RC after SIGTERM"
	tb_ok "listen '$listen': ${urls[*]} answer"
done
