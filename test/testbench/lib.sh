# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# The veth testbench (DESIGN 4, level 3): two network namespaces joined by a
# veth pair. The "sensor" end gets the XDP program; traffic is replayed from
# the "peer" end. Source this file, call tb_setup, run your assertions.
#
# Everything this file creates has a per-run unique name and is removed by
# tb_cleanup, which runs from a trap on EXIT, INT and TERM, pass or fail:
# both namespaces (which takes the veths and their XDP programs with them,
# after an explicit detach), and a private bpffs mount used by libxdp
# (LIBXDP_BPFFS) for any pins. Nothing is created in the root namespace
# except that bpffs mount under /run, and nothing under /sys/fs/bpf.
#
# "producer | grep -q" is avoided on purpose: with pipefail, grep exiting
# early can fail the pipeline through SIGPIPE; output is captured first.
#
# Exit codes follow meson: 0 pass, 1 fail, 77 skipped (with "skipped: why").

set -euo pipefail

TB_ID="$(head -c 6 /proc/sys/kernel/random/uuid)"
TB_NS_SENSOR="mktb-${TB_ID}-s"
TB_NS_PEER="mktb-${TB_ID}-p"
TB_SENSOR_IF="mks-${TB_ID}"
TB_PEER_IF="mkp-${TB_ID}"
# RFC 2544 benchmarking range, used only inside the two namespaces
TB_SENSOR_IP="198.18.255.1"
TB_PEER_IP="198.18.255.2"
TB_PREFIX=30
TB_BPFFS="/run/meerkat-testbench-${TB_ID}"
TB_QUEUES=1
TB_NAME="$(basename "${0%.sh}")"
TB_CLEANED=0
# the original stdout/stderr, so cleanup messages survive a signal that lands
# while a command's output is redirected (e.g. inside tb_wait)
exec {TB_STDOUT_FD}>&1 {TB_STDERR_FD}>&2
TB_LOAD_LOG="" # xdp-loader's verbose output of the last tb_attach
TB_PROG_IDS="" # ids of the programs tb_attach attached, checked gone at cleanup
TB_SETUP_STARTED=0
TB_WANT_QUEUES="${TB_WANT_QUEUES:-2}" # 1: a single-queue veth pair
TB_MEERKAT="" # the meerkat binary tb_meerkat_start runs (set by the test)
TB_CTL=""     # the meerkatctl binary
TB_TMP=""     # scratch directory of this run (logs, eve.json, sockets), removed at cleanup
TB_MK_PIDS="" # meerkat daemons started by tb_meerkat_start, stopped at cleanup
TB_MK_PID=""  # the last one
TB_MK_DIR=""  # its directory: out, err, eve.json, ctl.sock
TB_MK_RC=""   # exit status of the last daemon once it stopped
# inline (IPS) testbench (tb_setup_ips): a third namespace, the server, behind
# a second sensor interface; the peer namespace is the client
TB_NS_SERVER=""
TB_SENSOR_IF2=""
TB_SERVER_IF=""
TB_CLIENT_IP="198.18.254.1"
TB_SERVER_IP="198.18.254.2"

tb_log() { printf '%s: %s\n' "$TB_NAME" "$*"; }
tb_ok() { printf '%s: ok: %s\n' "$TB_NAME" "$*"; }
tb_fail() {
	printf '%s: FAIL: %s\n' "$TB_NAME" "$*" >&2
	exit 1
}
tb_skip() {
	printf '%s: skipped: %s\n' "$TB_NAME" "$*"
	exit 77
}

tb_require_root() {
	[ "$(id -u)" -eq 0 ] || tb_skip "needs root (network namespaces, XDP)"
}

tb_require_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || tb_skip "'$c' not installed (run deps.sh)"
	done
}

tb_require_file() {
	[ -f "$1" ] || tb_fail "missing $1 (build first: ninja -C build)"
}

# Runs a command in the sensor / peer namespace, with libxdp pointed at our bpffs.
tb_sensor() { ip netns exec "$TB_NS_SENSOR" env LIBXDP_BPFFS="$TB_BPFFS" "$@"; }
tb_peer() { ip netns exec "$TB_NS_PEER" env LIBXDP_BPFFS="$TB_BPFFS" "$@"; }

# tb_wait SECONDS CMD...: retries CMD every 0.1 s until it succeeds or time runs out.
tb_wait() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		[ "$SECONDS" -lt "$deadline" ] || return 1
		sleep 0.1
	done
}

tb_cleanup() {
	local rc=$? left=""
	[ "$TB_CLEANED" -eq 0 ] || return 0
	TB_CLEANED=1
	trap - EXIT INT TERM
	exec 1>&"$TB_STDOUT_FD" 2>&"$TB_STDERR_FD"
	set +e
	if [ "$TB_SETUP_STARTED" -eq 1 ]; then
		# a daemon still running holds the namespace and its program: stop it first
		local pid
		for pid in $TB_MK_PIDS; do
			kill -0 "$pid" 2>/dev/null || continue
			kill -TERM "$pid" 2>/dev/null
			tb_wait 10 tb_pid_gone "$pid" || kill -KILL "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
		done
		if [ -n "$TB_TMP" ] && [ -d "$TB_TMP" ]; then
			# on failure the daemons' last words explain more than the assertion
			if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; then
				local f
				for f in "$TB_TMP"/*/err; do
					[ -s "$f" ] || continue
					printf '%s: --- last lines of %s\n' "$TB_NAME" "${f#"$TB_TMP"/}" >&2
					tail -n 15 "$f" >&2
				done
			fi
			rm -rf "$TB_TMP"
		fi
		# detach first so a program never outlives the test even if a netns is held open
		if grep -qw "$TB_NS_SENSOR" <<<"$(ip netns list)"; then
			local dev
			# the second interface of an inline pair, and what fail-open left on both
			for dev in "$TB_SENSOR_IF" $TB_SENSOR_IF2; do
				tb_sensor xdp-loader unload "$dev" --all >/dev/null 2>&1
				ip -n "$TB_NS_SENSOR" link set dev "$dev" xdp off >/dev/null 2>&1
				ip -n "$TB_NS_SENSOR" link set dev "$dev" xdpgeneric off >/dev/null 2>&1
			done
		fi
		ip netns del "$TB_NS_SENSOR" >/dev/null 2>&1
		ip netns del "$TB_NS_PEER" >/dev/null 2>&1
		[ -z "$TB_NS_SERVER" ] || ip netns del "$TB_NS_SERVER" >/dev/null 2>&1
		if mountpoint -q "$TB_BPFFS"; then
			umount "$TB_BPFFS" >/dev/null 2>&1
		fi
		rmdir "$TB_BPFFS" >/dev/null 2>&1
		# verify: nothing of this run may be left behind
		local id
		for id in $TB_PROG_IDS; do
			tb_wait 5 tb_prog_gone "$id" || left+=" xdp-prog($id)"
		done
		grep -q "mktb-${TB_ID}-" <<<"$(ip netns list)" && left+=" netns"
		grep -q -- "-${TB_ID}" <<<"$(ip -br link)" && left+=" veth"
		[ -e "$TB_BPFFS" ] && left+=" bpffs($TB_BPFFS)"
		[ -n "$TB_TMP" ] && [ -e "$TB_TMP" ] && left+=" scratch($TB_TMP)"
		for pid in $TB_MK_PIDS; do
			kill -0 "$pid" 2>/dev/null && left+=" meerkat(pid $pid)"
		done
		if [ -n "$left" ]; then
			printf '%s: FAIL: cleanup left:%s\n' "$TB_NAME" "$left" >&2
			[ "$rc" -eq 0 ] && rc=1
		else
			tb_log "cleanup: namespaces, veths, XDP program and bpffs of run $TB_ID removed"
		fi
	fi
	exit "$rc"
}

tb_prog_gone() { ! bpftool prog show id "$1" >/dev/null 2>&1; }
tb_pid_gone() { ! kill -0 "$1" 2>/dev/null; }

tb_on_signal() {
	exec 1>&"$TB_STDOUT_FD" 2>&"$TB_STDERR_FD"
	printf '%s: interrupted by %s\n' "$TB_NAME" "$1" >&2
	exit 130
}

tb_link_up() {
	[ "$(ip -n "$1" -br link show dev "$2" | awk '{print $2}')" = "UP" ]
}

# Creates the namespaces, the veth pair (2 queues when the kernel allows),
# addresses and static neighbours, IPv6 off so the stack sends nothing.
tb_setup() {
	trap tb_cleanup EXIT
	trap 'tb_on_signal INT' INT
	trap 'tb_on_signal TERM' TERM
	TB_SETUP_STARTED=1

	ip netns add "$TB_NS_SENSOR" || tb_fail "cannot create netns $TB_NS_SENSOR"
	ip netns add "$TB_NS_PEER" || tb_fail "cannot create netns $TB_NS_PEER"
	local ns
	# no IPv6 on the veths: no router solicitations or ND frames reach the sensor
	if [ -d /proc/sys/net/ipv6 ]; then
		for ns in "$TB_NS_SENSOR" "$TB_NS_PEER"; do
			ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
				net.ipv6.conf.default.disable_ipv6=1 >/dev/null ||
				tb_fail "cannot disable IPv6 in $ns"
		done
	fi
	# created directly inside the namespaces: the root namespace never sees them
	if [ "$TB_WANT_QUEUES" -ge 2 ] &&
		ip link add "$TB_SENSOR_IF" netns "$TB_NS_SENSOR" numtxqueues 2 numrxqueues 2 \
		type veth peer name "$TB_PEER_IF" netns "$TB_NS_PEER" numtxqueues 2 numrxqueues 2 \
		2>/dev/null; then
		TB_QUEUES=2
	else
		ip link add "$TB_SENSOR_IF" netns "$TB_NS_SENSOR" type veth \
			peer name "$TB_PEER_IF" netns "$TB_NS_PEER" ||
			tb_fail "cannot create veth pair $TB_SENSOR_IF/$TB_PEER_IF"
		TB_QUEUES=1
	fi
	local sensor_mac peer_mac
	sensor_mac="$(ip -n "$TB_NS_SENSOR" -br link show "$TB_SENSOR_IF" | awk '{print $3}')"
	peer_mac="$(ip -n "$TB_NS_PEER" -br link show "$TB_PEER_IF" | awk '{print $3}')"
	ip -n "$TB_NS_SENSOR" addr add "$TB_SENSOR_IP/$TB_PREFIX" dev "$TB_SENSOR_IF"
	ip -n "$TB_NS_PEER" addr add "$TB_PEER_IP/$TB_PREFIX" dev "$TB_PEER_IF"
	ip -n "$TB_NS_SENSOR" neigh add "$TB_PEER_IP" lladdr "$peer_mac" dev "$TB_SENSOR_IF" nud permanent
	ip -n "$TB_NS_PEER" neigh add "$TB_SENSOR_IP" lladdr "$sensor_mac" dev "$TB_PEER_IF" nud permanent
	ip -n "$TB_NS_SENSOR" link set "$TB_SENSOR_IF" up
	ip -n "$TB_NS_PEER" link set "$TB_PEER_IF" up

	# a private bpffs for libxdp's pins (dispatcher mode); /sys is remounted by ip netns exec
	mkdir -p "$TB_BPFFS"
	mount -t bpf bpf "$TB_BPFFS" || tb_fail "cannot mount bpffs on $TB_BPFFS"
	TB_TMP="$(mktemp -d "/tmp/meerkat-tb-${TB_ID}.XXXXXX")" || tb_fail "cannot create a scratch directory"

	tb_wait 5 tb_link_up "$TB_NS_SENSOR" "$TB_SENSOR_IF" ||
		tb_fail "$TB_SENSOR_IF has no carrier"
	tb_wait 5 tb_link_up "$TB_NS_PEER" "$TB_PEER_IF" || tb_fail "$TB_PEER_IF has no carrier"
	tb_log "testbench $TB_ID: $TB_NS_PEER/$TB_PEER_IF -> $TB_NS_SENSOR/$TB_SENSOR_IF," \
		"$TB_QUEUES queue(s), IPv6 off, static neighbours"
}

# tb_setup_ips: the inline testbench. Three namespaces: the client (the peer
# namespace, $TB_PEER_IF, $TB_CLIENT_IP), the sensor with two interfaces
# ($TB_SENSOR_IF toward the client, $TB_SENSOR_IF2 toward the server) and the
# server ($TB_NS_SERVER, $TB_SERVER_IF, $TB_SERVER_IP). Client and server
# share a subnet and know each other's MAC: only a sensor that forwards
# frames between its interfaces connects them (its own stack forwards
# nothing). No offloads on the ends (MTU-sized frames, real checksums); GRO
# on the client and server veths, which receive frames the sensor redirects
# in the driver (veth takes XDP_REDIRECT frames only with its NAPI on).
tb_setup_ips() {
	trap tb_cleanup EXIT
	trap 'tb_on_signal INT' INT
	trap 'tb_on_signal TERM' TERM
	TB_SETUP_STARTED=1
	TB_NS_SERVER="mktb-${TB_ID}-v"
	TB_SENSOR_IF2="mko-${TB_ID}"
	TB_SERVER_IF="mkv-${TB_ID}"
	local ns
	for ns in "$TB_NS_SENSOR" "$TB_NS_PEER" "$TB_NS_SERVER"; do
		ip netns add "$ns" || tb_fail "cannot create netns $ns"
		if [ -d /proc/sys/net/ipv6 ]; then
			ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
				net.ipv6.conf.default.disable_ipv6=1 >/dev/null ||
				tb_fail "cannot disable IPv6 in $ns"
		fi
	done
	ip link add "$TB_SENSOR_IF" netns "$TB_NS_SENSOR" type veth \
		peer name "$TB_PEER_IF" netns "$TB_NS_PEER" ||
		tb_fail "cannot create veth pair $TB_SENSOR_IF/$TB_PEER_IF"
	ip link add "$TB_SENSOR_IF2" netns "$TB_NS_SENSOR" type veth \
		peer name "$TB_SERVER_IF" netns "$TB_NS_SERVER" ||
		tb_fail "cannot create veth pair $TB_SENSOR_IF2/$TB_SERVER_IF"
	TB_QUEUES=1
	local client_mac server_mac
	client_mac="$(ip -n "$TB_NS_PEER" -br link show "$TB_PEER_IF" | awk '{print $3}')"
	server_mac="$(ip -n "$TB_NS_SERVER" -br link show "$TB_SERVER_IF" | awk '{print $3}')"
	ip -n "$TB_NS_PEER" addr add "$TB_CLIENT_IP/24" dev "$TB_PEER_IF"
	ip -n "$TB_NS_SERVER" addr add "$TB_SERVER_IP/24" dev "$TB_SERVER_IF"
	ip -n "$TB_NS_PEER" neigh add "$TB_SERVER_IP" lladdr "$server_mac" dev "$TB_PEER_IF" nud permanent
	ip -n "$TB_NS_SERVER" neigh add "$TB_CLIENT_IP" lladdr "$client_mac" dev "$TB_SERVER_IF" nud permanent
	ip netns exec "$TB_NS_PEER" ethtool -K "$TB_PEER_IF" tx off tso off gso off gro on >/dev/null ||
		tb_fail "ethtool -K $TB_PEER_IF failed"
	ip netns exec "$TB_NS_SERVER" ethtool -K "$TB_SERVER_IF" tx off tso off gso off gro on >/dev/null ||
		tb_fail "ethtool -K $TB_SERVER_IF failed"
	ip netns exec "$TB_NS_SENSOR" ethtool -K "$TB_SENSOR_IF" tx off tso off gso off >/dev/null
	ip netns exec "$TB_NS_SENSOR" ethtool -K "$TB_SENSOR_IF2" tx off tso off gso off >/dev/null
	ip -n "$TB_NS_SENSOR" link set "$TB_SENSOR_IF" up
	ip -n "$TB_NS_SENSOR" link set "$TB_SENSOR_IF2" up
	ip -n "$TB_NS_PEER" link set "$TB_PEER_IF" up
	ip -n "$TB_NS_SERVER" link set "$TB_SERVER_IF" up
	ip -n "$TB_NS_PEER" link set lo up
	ip -n "$TB_NS_SERVER" link set lo up

	mkdir -p "$TB_BPFFS"
	mount -t bpf bpf "$TB_BPFFS" || tb_fail "cannot mount bpffs on $TB_BPFFS"
	TB_TMP="$(mktemp -d "/tmp/meerkat-tb-${TB_ID}.XXXXXX")" || tb_fail "cannot create a scratch directory"
	tb_wait 5 tb_link_up "$TB_NS_SENSOR" "$TB_SENSOR_IF" || tb_fail "$TB_SENSOR_IF has no carrier"
	tb_wait 5 tb_link_up "$TB_NS_SENSOR" "$TB_SENSOR_IF2" || tb_fail "$TB_SENSOR_IF2 has no carrier"
	tb_wait 5 tb_link_up "$TB_NS_PEER" "$TB_PEER_IF" || tb_fail "$TB_PEER_IF has no carrier"
	tb_wait 5 tb_link_up "$TB_NS_SERVER" "$TB_SERVER_IF" || tb_fail "$TB_SERVER_IF has no carrier"
	tb_log "inline testbench $TB_ID: $TB_NS_PEER ($TB_CLIENT_IP) -- $TB_SENSOR_IF [sensor]" \
		"$TB_SENSOR_IF2 -- $TB_NS_SERVER ($TB_SERVER_IP)"
}

# Runs a command in the server namespace.
tb_server() { ip netns exec "$TB_NS_SERVER" "$@"; }

# Prints the ids of the XDP programs attached to the inline pair (none: empty).
tb_ips_prog_ids() {
	local dev out
	for dev in "$TB_SENSOR_IF" "$TB_SENSOR_IF2"; do
		out="$(ip -n "$TB_NS_SENSOR" -d link show dev "$dev")"
		sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p' <<<"$out" | sed -n 1p
	done
}

# Prints the id of the XDP program attached to the sensor veth (empty when none).
tb_sensor_prog_id() {
	local out
	out="$(ip -n "$TB_NS_SENSOR" -d link show dev "$TB_SENSOR_IF")"
	sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p' <<<"$out" | sed -n 1p
}

# shellcheck disable=SC2034 # TB_LOAD_LOG is read by the tests
# Attaches build/xdp/meerkat.bpf.o to the sensor veth in native mode with xdp-loader.
tb_attach() {
	local obj="$1" out
	if ! out="$(tb_sensor xdp-loader load -v -m native "$TB_SENSOR_IF" "$obj" 2>&1)"; then
		printf '%s\n' "$out" >&2
		tb_fail "xdp-loader load -m native $obj on $TB_SENSOR_IF failed"
	fi
	TB_LOAD_LOG="$out"
	TB_PROG_IDS+=" $(tb_sensor_prog_id)"
}

# Reads one counter from `meerkatctl stats --json` output on stdin.
tb_json_counter() {
	/usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["counters"][sys.argv[1]])' "$1"
}

# tb_cidr_v4_add A.B.C.D/LEN: puts a prefix into the attached program's CIDR
# bypass list (mk_cidr_v4) and counts it in mk_cidr_v4_entries (.bss), as
# meerkat's control plane does; found by walking the program's maps.
tb_cidr_v4_add() {
	/usr/bin/python3 - "$(tb_sensor_prog_id)" "${1%/*}" "${1#*/}" <<'PY'
import json, re, subprocess, sys

def bpftool(*args):
    return subprocess.run(["bpftool", *args], check=True, capture_output=True, text=True).stdout

prog_id, addr, plen = sys.argv[1], sys.argv[2], int(sys.argv[3])
maps = {}
for mid in json.loads(bpftool("prog", "show", "id", prog_id, "-j"))["map_ids"]:
    m = json.loads(bpftool("map", "show", "id", str(mid), "-j"))
    maps[m["name"]] = m
cidr = maps.get("mk_cidr_v4")
bss = next((m for n, m in maps.items() if n.endswith(".bss")), None)
if not cidr or not bss:
    sys.exit("program %s has no mk_cidr_v4 or .bss map: %s" % (prog_id, sorted(maps)))
btf = bpftool("btf", "dump", "id", str(bss["btf_id"]))
off = re.search(r"offset=(\d+) size=4 \(VAR 'mk_cidr_v4_entries'\)", btf)
if not off:
    sys.exit("mk_cidr_v4_entries not found in the BTF of %s" % bss["name"])
off = int(off.group(1))
key = list(plen.to_bytes(4, "little")) + [int(x) for x in addr.split(".")]
bpftool("map", "update", "id", str(cidr["id"]), "key", *map(str, key), "value", "1", "0", "0", "0")
cur = json.loads(bpftool("map", "lookup", "id", str(bss["id"]), "key", "0", "0", "0", "0", "-j"))
val = bytearray(int(b, 16) for b in cur["value"])
n = int.from_bytes(val[off:off + 4], "little") + 1
val[off:off + 4] = n.to_bytes(4, "little")
bpftool("map", "update", "id", str(bss["id"]), "key", "0", "0", "0", "0", "value",
        *map(str, val))
PY
}

# tb_wire_frames: no checksum offload, TSO, GSO or GRO on either end of the
# veth pair, so that real software's TCP traffic is made and captured as a
# NIC puts it on the wire: MTU-sized frames with valid checksums (not 64 KB
# super-frames with partial checksums, which tcpreplay cannot send back and
# the live sensor counts as bad).
tb_wire_frames() {
	ip netns exec "$TB_NS_SENSOR" ethtool -K "$TB_SENSOR_IF" tx off tso off gso off gro off >/dev/null ||
		tb_fail "ethtool -K $TB_SENSOR_IF failed"
	ip netns exec "$TB_NS_PEER" ethtool -K "$TB_PEER_IF" tx off tso off gso off gro off >/dev/null ||
		tb_fail "ethtool -K $TB_PEER_IF failed"
}

# tb_live_agrees MEERKAT OFFLINE_EVE PCAP "TYPE..." [MEERKAT ARGS...]: PCAP
# replayed into a live sensor (MEERKAT -i on the sensor end, 2 workers, the
# ARGS: -c, -S) writes the same events of each TYPE as the offline run that
# wrote OFFLINE_EVE (test/lib/check_live_events.py says what may differ).
tb_live_agrees() {
	local meerkat="$1" offline="$2" pcap="$3" types="$4" lib
	shift 4
	lib="$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../lib"
	TB_MEERKAT="$meerkat"
	TB_CTL="$(dirname "$meerkat")/meerkatctl"
	tb_meerkat_start live -i "$TB_SENSOR_IF" --workers 2 "$@" ||
		tb_fail "the live sensor did not start: $(tail -3 "$TB_MK_DIR/err")"
	tb_replay "$pcap" 2000 >/dev/null
	sleep 1
	tb_meerkat_stop TERM
	[ "$TB_MK_RC" = 0 ] || tb_fail "the live sensor exited with $TB_MK_RC"
	[ -z "${KEEP_LIVE:-}" ] || cp "$TB_MK_DIR/eve.json" "$KEEP_LIVE"
	# shellcheck disable=SC2086 # one word per type
	python3 "$lib/check_live_events.py" "$TB_MK_DIR/eve.json" "$offline" $types ||
		tb_fail "live and offline differ (see above)"
	tb_ok "live and offline: the same $types events"
}

# tb_meerkat_start NAME ARGS...: runs "$TB_MEERKAT ARGS" in the sensor
# namespace in the background, with -l and --unix-socket in $TB_TMP/NAME
# (stdout in out, stderr in err, eve.json, ctl.sock). Sets TB_MK_PID and
# TB_MK_DIR. Returns once the daemon answers ping, 1 if it exited first (its
# status in TB_MK_RC). The test's saved stdout/stderr are closed in the
# daemon: a pipeline reading the test's output must not wait for it.
tb_meerkat_start() {
	local name="$1" id
	shift
	TB_MK_DIR="$TB_TMP/$name"
	mkdir -p "$TB_MK_DIR"
	# not through tb_sensor: a backgrounded function would make $! a subshell;
	# ip netns exec and env exec, so $! is meerkat itself
	ip netns exec "$TB_NS_SENSOR" env LIBXDP_BPFFS="$TB_BPFFS" \
		"$TB_MEERKAT" "$@" -l "$TB_MK_DIR" --unix-socket "$TB_MK_DIR/ctl.sock" </dev/null >"$TB_MK_DIR/out" 2>"$TB_MK_DIR/err" {TB_STDOUT_FD}>&- {TB_STDERR_FD}>&- &
	TB_MK_PID=$!
	TB_MK_PIDS+=" $TB_MK_PID"
	TB_MK_RC=""
	tb_wait 30 tb_meerkat_up "$TB_MK_PID" "$TB_MK_DIR/ctl.sock" || true
	if tb_pid_gone "$TB_MK_PID"; then
		TB_MK_RC=0
		wait "$TB_MK_PID" || TB_MK_RC=$?
		return 1
	fi
	tb_ctl ping >/dev/null || tb_fail "meerkat (pid $TB_MK_PID) does not answer on its control socket"
	id="$(tb_sensor_prog_id)"
	[ -z "$id" ] || TB_PROG_IDS+=" $id"
}

tb_meerkat_up() { tb_pid_gone "$1" || tb_sensor "$TB_CTL" -s "$2" ping; }

# tb_ctl ARGS...: meerkatctl against the last daemon's control socket.
tb_ctl() { tb_sensor "$TB_CTL" -s "$TB_MK_DIR/ctl.sock" "$@"; }

# tb_meerkat_stop [SIGNAL]: stops the last daemon (default SIGTERM) and waits
# for it; its exit status in TB_MK_RC. Fails the test if it does not exit in 20 s.
# shellcheck disable=SC2034 # TB_MK_RC is read by the tests
tb_meerkat_stop() {
	local sig="${1:-TERM}"
	kill -"$sig" "$TB_MK_PID" 2>/dev/null || true
	tb_wait 20 tb_pid_gone "$TB_MK_PID" || tb_fail "meerkat (pid $TB_MK_PID) did not exit 20 s after SIG$sig"
	TB_MK_RC=0
	wait "$TB_MK_PID" || TB_MK_RC=$?
}

# tb_replay [--cpu N] PCAP PPS [tcpreplay options]: replays PCAP from the
# peer end at PPS frames a second (from CPU N); fails unless every frame was
# sent. Prints the count.
tb_replay() {
	local pin=() out sent failed
	if [ "$1" = "--cpu" ]; then
		pin=(taskset -c "$2")
		shift 2
	fi
	local pcap="$1" pps="$2"
	shift 2
	out="$(tb_peer "${pin[@]}" tcpreplay -i "$TB_PEER_IF" --pps="$pps" "$@" "$pcap" 2>&1)" || {
		printf '%s\n' "$out" >&2
		tb_fail "tcpreplay of $pcap failed"
	}
	sent="$(sed -n 's/.*Successful packets:[[:space:]]*\([0-9]*\).*/\1/p' <<<"$out")"
	failed="$(sed -n 's/.*Failed packets:[[:space:]]*\([0-9]*\).*/\1/p' <<<"$out")"
	if [ -z "$sent" ] || [ "$failed" != "0" ]; then
		printf '%s\n' "$out" >&2
		tb_fail "tcpreplay of $pcap: ${failed:-?} frame(s) failed"
	fi
	printf '%s\n' "$sent"
}

# Frames the sensor veth received (its link counter).
tb_link_rx() {
	ip -n "$TB_NS_SENSOR" -s -j link show dev "$TB_SENSOR_IF" |
		/usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["stats64"]["rx"]["packets"])'
}

# tb_live_wait_taken N: waits until the daemon's workers have taken N frames
# in total since it started (capture.sock_rx, published once a second).
tb_live_wait_taken() {
	tb_wait 15 tb_live_taken_ge "$1"
}
tb_live_taken_ge() {
	local n
	n="$(tb_ctl stats --json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["capture"]["sock_rx"])')"
	[ "$n" -ge "$1" ]
}

# The last EVE stats event of $TB_MK_DIR/eve.json (the final one after a clean stop).
tb_last_stats() {
	/usr/bin/python3 -c '
import json, sys
last = None
for line in open(sys.argv[1]):
    if "\"event_type\":\"stats\"" in line:
        last = line
sys.exit("no stats event in %s" % sys.argv[1]) if last is None else print(last, end="")' \
		"$TB_MK_DIR/eve.json"
}
