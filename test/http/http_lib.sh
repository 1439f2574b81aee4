#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What the HTTP tests share (sourced after test/testbench/lib.sh and
# tb_setup): the web server Debian ships on the sensor side of the
# namespace pair, serving a directory on $TB_SENSOR_IP:8080, and a capture
# on the peer's veth. http_stop ends both (call it from the EXIT trap).
#
#   http_nginx_start DIR   nginx serving DIR/site (DIR/tmp, logs in DIR);
#                          /old redirects, /post answers "posted"
#   http_capture_start PCAP
#   http_stop

SRV_PID=""
CAP_PID=""
http_stop() {
	[ -n "$CAP_PID" ] && kill -INT "$CAP_PID" 2>/dev/null && wait "$CAP_PID" 2>/dev/null
	[ -n "$SRV_PID" ] && kill -TERM "$SRV_PID" 2>/dev/null && wait "$SRV_PID" 2>/dev/null
	CAP_PID=""
	SRV_PID=""
	return 0
}

# polled by tb_wait
http_ready() { tb_peer curl -s -m 2 -o /dev/null "http://$TB_SENSOR_IP:8080/ready"; }
http_capturing() { kill -0 "$CAP_PID" && [ -s "$HTTP_PCAP" ]; }

http_nginx_start() {
	local w="$1"
	mkdir -p "$w/site" "$w/tmp"
	cat >"$w/nginx.conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
pid $w/nginx.pid;
error_log $w/error.log;
events { worker_connections 64; }
http {
	access_log off;
	client_body_temp_path $w/tmp;
	proxy_temp_path $w/tmp;
	fastcgi_temp_path $w/tmp;
	uwsgi_temp_path $w/tmp;
	scgi_temp_path $w/tmp;
	types { text/html html; text/plain txt; }
	gzip on;
	gzip_types text/plain;
	gzip_min_length 100;
	server {
		listen $TB_SENSOR_IP:8080;
		root $w/site;
		location = /old { return 301 /index.html; }
		location = /post { return 200 "posted\n"; }
	}
}
CONF
	# directly in the background (not through a wrapper), so $! is the server
	ip netns exec "$TB_NS_SENSOR" nginx -c "$w/nginx.conf" -e "$w/error.log" &
	SRV_PID=$!
	tb_wait 10 http_ready || tb_fail "the web server did not answer"
}

http_capture_start() {
	HTTP_PCAP="$1"
	ip netns exec "$TB_NS_PEER" dumpcap -q -P -i "$TB_PEER_IF" -w "$HTTP_PCAP" 2>"$TB_TMP/dumpcap.err" &
	CAP_PID=$!
	tb_wait 10 http_capturing || tb_fail "the capture did not start: $(cat "$TB_TMP/dumpcap.err")"
	sleep 1
}
