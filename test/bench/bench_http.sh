#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# HTTP at the scale of real traffic (docs/performance.md, docs/applayer.md):
# nginx in one namespace of the testbench serves pages, scripts, images,
# downloads and gzip text; several curl clients in the other fetch them over
# keep-alive connections with varied URIs and User-Agents until the capture
# (dumpcap on the client's veth) holds --mbytes. Then offline meerkat, one
# worker, on that capture: no rules, the sample's HTTP rules (every enabled
# rule of the ET Open sample that names an http buffer, modifier or the
# http protocol), and the whole sample. Prints packets/s, Gbit/s, wall and
# CPU seconds, peak RSS, alerts and HTTP transactions for each, and the
# ratio of each throughput to the no-rules run measured here (best of
# --runs).
#
# usage: test/bench/bench_http.sh [--build DIR] [--mbytes N] [--runs N] [--rules DIR]
set -euo pipefail
top="$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)"
build="$top/build"
mbytes=1200
runs=2
rules="$top/../shared/rules/et-open-sample"
while [ $# -gt 0 ]; do
	case "$1" in
	--build) build="$2"; shift 2 ;;
	--mbytes) mbytes="$2"; shift 2 ;;
	--runs) runs="$2"; shift 2 ;;
	--rules) rules="$2"; shift 2 ;;
	*) echo "usage: $0 [--build DIR] [--mbytes N] [--runs N] [--rules DIR]" >&2; exit 2 ;;
	esac
done
meerkat="$build/userspace/meerkat"
[ -x "$meerkat" ] || { echo "bench_http: build first: $meerkat" >&2; exit 1; }
[ -d "$rules" ] || { echo "bench_http: no rule directory $rules" >&2; exit 1; }
for c in nginx curl dumpcap; do
	command -v "$c" >/dev/null || { echo "bench_http: $c is not installed (deps.sh)" >&2; exit 1; }
done

TB_WANT_QUEUES=1
# shellcheck source=test/testbench/lib.sh
. "$top/test/testbench/lib.sh"
tb_require_root
SRV_PID=""
CAP_PID=""
CLIENTS=()
bench_stop() {
	local p
	for p in "${CLIENTS[@]}"; do
		kill -TERM "$p" 2>/dev/null || true
	done
	for p in "${CLIENTS[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	CLIENTS=()
	[ -n "$CAP_PID" ] && kill -INT "$CAP_PID" 2>/dev/null && wait "$CAP_PID" 2>/dev/null
	[ -n "$SRV_PID" ] && kill -TERM "$SRV_PID" 2>/dev/null && wait "$SRV_PID" 2>/dev/null
	CAP_PID=""
	SRV_PID=""
	return 0
}
tb_setup
bench_exit() {
	local rc=$?
	set +e
	bench_stop
	(exit "$rc")
	tb_cleanup
}
trap bench_exit EXIT
tb_wire_frames

# --- the site: sizes of a web page's parts ---
W="$TB_TMP/www"
mkdir -p "$W/site/img" "$W/site/js" "$W/site/dl" "$W/tmp"
python3 - "$W/site" <<'PY'
import os, random, sys
root = sys.argv[1]
rnd = random.Random(7)
for i in range(50):
    with open(os.path.join(root, "page%d.html" % i), "w") as f:
        f.write("<html><head><title>page %d</title></head><body>\n" % i)
        f.write("".join("<p>paragraph %d of page %d: lorem ipsum</p>\n" % (j, i)
                        for j in range(rnd.randint(20, 200))))
        f.write("</body></html>\n")
for i in range(20):
    with open(os.path.join(root, "js", "app%d.js" % i), "w") as f:
        f.write("".join("function f%d_%d(a) { return a + %d; }\n" % (i, j, j)
                        for j in range(rnd.randint(300, 1500))))
for i in range(20):
    with open(os.path.join(root, "img", "pic%d.jpg" % i), "wb") as f:
        f.write(os.urandom(rnd.randint(5000, 120000)))
for i in range(4):
    with open(os.path.join(root, "dl", "file%d.bin" % i), "wb") as f:
        f.write(os.urandom(1 << 20))
PY
cat >"$W/nginx.conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
pid $W/nginx.pid;
error_log $W/error.log;
events { worker_connections 256; }
http {
	access_log off;
	client_body_temp_path $W/tmp;
	proxy_temp_path $W/tmp;
	fastcgi_temp_path $W/tmp;
	uwsgi_temp_path $W/tmp;
	scgi_temp_path $W/tmp;
	types { text/html html; application/javascript js; image/jpeg jpg; application/octet-stream bin; }
	keepalive_requests 1000;
	gzip on;
	gzip_types application/javascript;
	gzip_min_length 1000;
	server {
		listen $TB_SENSOR_IP:8080;
		root $W/site;
		location = /login { return 200 "welcome\n"; }
	}
}
CONF
ip netns exec "$TB_NS_SENSOR" nginx -c "$W/nginx.conf" -e "$W/error.log" &
SRV_PID=$!
ready() { tb_peer curl -s -m 2 -o /dev/null "http://$TB_SENSOR_IP:8080/page0.html"; }
tb_wait 10 ready || tb_fail "the web server did not answer"

# --- the clients: 4 of them, each a loop over 50 sessions of 8 requests (a page
# and its parts, one keep-alive connection per session, as a browser's) ---
U="http://$TB_SENSOR_IP:8080"
python3 - "$U" "$W" <<'PY'
import random, sys
u, w = sys.argv[1], sys.argv[2]
agents = ["Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0",
          "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/119.0",
          "curl/7.88.1", "python-requests/2.28.1"]
for c in range(4):
    rnd = random.Random(c)
    for k in range(50):
        with open("%s/client%d.%d.curl" % (w, c, k), "w") as f:
            f.write('user-agent = "%s"\n' % agents[c])
            f.write('header = "Accept-Language: en-US,en;q=0.5"\n')
            f.write('cookie = "session=%08x"\n' % rnd.getrandbits(32))
            f.write('url = "%s/page%d.html?id=%d&ref=home"\noutput = "/dev/null"\n'
                    % (u, rnd.randrange(50), rnd.randrange(10**6)))
            for i in range(7):
                r = rnd.random()
                if r < 0.45:
                    path = "/js/app%d.js" % rnd.randrange(20)
                elif r < 0.98:
                    path = "/img/pic%d.jpg" % rnd.randrange(20)
                else:
                    path = "/dl/file%d.bin" % rnd.randrange(4)
                f.write('url = "%s%s"\noutput = "/dev/null"\n' % (u, path))
PY
PCAP="$TB_TMP/http.pcap"
kb=$((mbytes * 1024))
ip netns exec "$TB_NS_PEER" dumpcap -q -P -s 0 -B 64 -i "$TB_PEER_IF" -a "filesize:$kb" -w "$PCAP" \
	2>"$TB_TMP/dumpcap.err" &
CAP_PID=$!
capturing() { kill -0 "$CAP_PID" && [ -s "$PCAP" ]; }
tb_wait 10 capturing || tb_fail "the capture did not start: $(cat "$TB_TMP/dumpcap.err")"
for c in 0 1 2 3; do
	# shellcheck disable=SC2016 # $1 is the inner shell's
	ip netns exec "$TB_NS_PEER" bash -c \
		'while :; do for f in "$1".*.curl; do curl -s --compressed -K "$f" || exit 0; done; done' \
		_ "$W/client$c" &
	CLIENTS+=($!)
done
t0=$(date +%s)
while kill -0 "$CAP_PID" 2>/dev/null && [ $(($(date +%s) - t0)) -lt 300 ]; do
	sleep 0.5
done
bench_stop
[ -s "$PCAP" ] || tb_fail "nothing captured: $(cat "$TB_TMP/dumpcap.err")"
[ -z "${KEEP_PCAP:-}" ] || cp "$PCAP" "$KEEP_PCAP"

# --- the rule sets ---
http_rules="$TB_TMP/http.rules"
cat "$rules"/*.rules | grep -E '^alert ' | grep -E '(^alert http )|http[._]|uricontent|file[._]data' \
	>"$http_rules" || true
all=()
for f in "$rules"/*.rules; do
	all+=(-S "$f")
done
cat >"$TB_TMP/bench.yaml" <<CONF
outputs:
  - eve-log:
      enabled: yes
      filename: eve.json
      types: [alert, flow, http]
CONF

declare -A base
run() {
	local label="$1" best="" line
	shift
	for _ in $(seq "$runs"); do
		rm -rf "$TB_TMP/out"
		mkdir "$TB_TMP/out"
		/usr/bin/time -o "$TB_TMP/time" -f '%e %U %S %M' \
			"$meerkat" -c "$TB_TMP/bench.yaml" -r "$PCAP" -l "$TB_TMP/out" --workers 1 "$@" \
			>/dev/null 2>"$TB_TMP/err" || { cat "$TB_TMP/err" >&2; exit 1; }
		read -r wall usr sys rss <"$TB_TMP/time"
		# meerkat: N packets, B bytes, F flows logged in S s (...): S counts from the
		# first packet, after the rules are loaded
		read -r pkts bytes secs < <(sed -n \
			's/^meerkat: \([0-9]*\) packets, \([0-9]*\) bytes, .* in \([0-9.]*\) s .*/\1 \2 \3/p' "$TB_TMP/err")
		alerts="$(grep -c '"event_type":"alert"' "$TB_TMP/out/eve.json" || true)"
		txs="$(grep -c '"event_type":"http"' "$TB_TMP/out/eve.json" || true)"
		line="$(awk -v e="$wall" -v u="$usr" -v s="$sys" -v r="$rss" -v a="$alerts" -v p="$pkts" \
			-v b="$bytes" -v t="$txs" -v x="$secs" \
			'BEGIN { printf "%.2f %.2f %d %d %d %.0f %.3f", e, u + s, r / 1024, a, t, p / x, b * 8 / x / 1e9 }')"
		# the best run: the highest packet rate
		if [ -z "$best" ] || awk -v a="$(cut -d' ' -f6 <<<"$line")" -v b="$(cut -d' ' -f6 <<<"$best")" \
			'BEGIN { exit !(a > b) }'; then
			best="$line"
		fi
	done
	read -r wall cpu rss alerts txs pps gbps <<<"$best"
	if [ "$label" = "no rules" ]; then
		base[pps]="$pps"
		echo "  ($pkts frames, $((bytes / pkts)) bytes each on average)" >&2
	fi
	awk -v l="$label" -v e="$wall" -v c="$cpu" -v r="$rss" -v a="$alerts" -v t="$txs" -v p="$pps" \
		-v g="$gbps" -v bp="${base[pps]}" \
		'BEGIN { printf "%-18s %8.2f %8.2f %7d %8d %8d %10.0f %7.3f %7.2fx\n", l, e, c, r, a, t, p, g, p / bp }'
}

echo
echo "throughput from the first packet (rule loading excluded), wall_s and cpu_s of the whole run"
echo "workload: $(stat -c %s "$PCAP") bytes of nginx/curl HTTP, $(grep -c . "$http_rules") HTTP rule lines" \
	"of the sample; one worker, best of $runs runs each"
printf '%-18s %8s %8s %7s %8s %8s %10s %7s %8s\n' ruleset wall_s cpu_s rss_MB alerts http_tx pkt/s Gbit/s "pkt/s /0"
run "no rules"
run "sample HTTP rules" -S "$http_rules"
run "whole sample" "${all[@]}"
