#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The live sensor with two eve-log outputs, a regular file and Redis
# (docs/outputs.md), on the veth testbench (needs root):
#   1. redis-server in the sensor's namespace (127.0.0.1 there), meerkat -i
#      with the sample rules, the sample traffic replayed: after a clean
#      stop, the Redis list (LPUSH, read with LRANGE and reversed) equals
#      the file's lines, byte for byte and in order;
#   2. redis-server killed (SIGKILL) while traffic runs and restarted: the
#      list holds the file's records in order, none twice and none
#      invented; what is missing is what the output's drop counter says
#      was dropped or lost (the output's counters; see DROPPED below).
# Everything it creates (namespaces, veths, the XDP program, bpffs, the
# daemon, redis-server, the scratch directory) is removed when it ends.
#
# usage: test_live_redis_kafka.sh BUILD_DIR PCAP RULES
#        test_live_redis_kafka.sh --skip WHY
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
tb_require_cmd tcpreplay bpftool ip redis-server redis-cli
[ -x /usr/bin/python3 ] || tb_skip "/usr/bin/python3 not installed"
for f in "$TB_MEERKAT" "$TB_CTL" "$PCAP" "$RULES"; do tb_require_file "$f"; done

REDIS_PID=""
REDIS_PORT=""
redis_stop() {
	[ -n "$REDIS_PID" ] || return 0
	kill -KILL "$REDIS_PID" 2>/dev/null || true
	wait "$REDIS_PID" 2>/dev/null || true
	REDIS_PID=""
}
tb_setup
# redis-server first, then the testbench's own cleanup with the test's status
trap 'rc=$?; set +e; redis_stop; (exit "$rc"); tb_cleanup' EXIT
tb_sensor ip link set lo up

redis_ping() { tb_sensor redis-cli -p "$REDIS_PORT" ping; }
# redis_start: (re)starts redis-server in the sensor namespace, its data in
# $TB_TMP/redis; an append-only file synced before each reply, so what it
# confirmed survives the kill
redis_start() {
	mkdir -p "$TB_TMP/redis"
	ip netns exec "$TB_NS_SENSOR" redis-server --port "$REDIS_PORT" --bind 127.0.0.1 \
		--dir "$TB_TMP/redis" --save "" --appendonly yes --appendfsync always \
		--daemonize no --logfile "$TB_TMP/redis/log" </dev/null >/dev/null 2>&1 &
	REDIS_PID=$!
	tb_wait 10 redis_ping || tb_fail "redis-server does not start: $(tail -n 5 "$TB_TMP/redis/log")"
}
REDIS_PORT=$((20000 + RANDOM % 20000))
redis_start
KEY="meerkat-$TB_ID"

cat >"$TB_TMP/meerkat.yaml" <<EOF
outputs:
  - eve-log:
      enabled: yes
      filetype: regular
      filename: eve.json
      types: [alert, flow, stats]
  - eve-log:
      enabled: yes
      filetype: redis
      redis:
        server: 127.0.0.1
        port: $REDIS_PORT
        mode: list
        key: $KEY
      types: [alert, flow]
EOF

# compare FILE: the Redis list against FILE's lines but stats; "exact" or "subsequence"
compare() {
	tb_sensor redis-cli -p "$REDIS_PORT" --raw LRANGE "$KEY" 0 -1 >"$TB_TMP/lrange.txt"
	/usr/bin/python3 - "$1" "$TB_TMP/lrange.txt" "$2" <<'PY'
import sys
# the file's own stats events aside: the Redis output does not take them
want = [l for l in open(sys.argv[1], "rb").read().splitlines() if b'"event_type":"stats"' not in l]
got = open(sys.argv[2], "rb").read().splitlines()[::-1]  # LPUSH: newest first
if sys.argv[3] == "exact":
    if got == want:
        print("ok %d" % len(got))
    else:
        i = next((i for i, (a, b) in enumerate(zip(want, got)) if a != b), min(len(want), len(got)))
        print("differ: file %d lines, redis %d; first difference at %d" % (len(want), len(got), i))
    sys.exit(0)
# in order, each once, nothing that is not in the file
if len(set(got)) != len(got):
    print("duplicates in redis")
    sys.exit(0)
j = 0
for r in got:
    while j < len(want) and want[j] != r:
        j += 1
    if j == len(want):
        print("redis holds a record the file does not have, or out of order: %r" % r[:120])
        sys.exit(0)
    j += 1
print("ok %d %d" % (len(got), len(want) - len(got)))
PY
}

# 1. both outputs, redis healthy
tb_meerkat_start live -i "$TB_SENSOR_IF" -c "$TB_TMP/meerkat.yaml" -S "$RULES" --workers 1 ||
	tb_fail "meerkat exited ($TB_MK_RC) before answering: $(cat "$TB_MK_DIR/err")"
sent="$(tb_replay "$PCAP" 2000)"
sleep 1
tb_meerkat_stop TERM
[ "$TB_MK_RC" -eq 0 ] || tb_fail "meerkat exited $TB_MK_RC after SIGTERM"
lines="$(wc -l <"$TB_MK_DIR/eve.json")"
[ "$lines" -gt 0 ] || tb_fail "no EVE record in the file"
verdict="$(compare "$TB_MK_DIR/eve.json" exact)"
case "$verdict" in
ok*) tb_ok "$sent frames: the Redis list equals eve.json (${verdict#ok } records, byte for byte, in order)" ;;
*) tb_fail "redis and the file differ: $verdict" ;;
esac

# 2. redis-server killed under traffic and restarted
tb_sensor redis-cli -p "$REDIS_PORT" DEL "$KEY" >/dev/null
tb_meerkat_start live2 -i "$TB_SENSOR_IF" -c "$TB_TMP/meerkat.yaml" -S "$RULES" --workers 1 ||
	tb_fail "meerkat exited ($TB_MK_RC) before answering: $(cat "$TB_MK_DIR/err")"
tb_replay "$PCAP" 2000 >/dev/null
redis_stop
tb_replay "$PCAP" 2000 >/dev/null
sleep 2 # the writer backs off and buffers
redis_start
tb_replay "$PCAP" 2000 >/dev/null
sleep 2 # the writer reconnects and sends what it kept
tb_meerkat_stop TERM
[ "$TB_MK_RC" -eq 0 ] || tb_fail "meerkat exited $TB_MK_RC after SIGTERM"
verdict="$(compare "$TB_MK_DIR/eve.json" subsequence)"
case "$verdict" in
ok*) ;;
*) tb_fail "after the kill and restart: $verdict" ;;
esac
read -r stored missing <<<"${verdict#ok }"
# DROPPED: what the redis output counted as not delivered in the final
# stats event (eve.outputs[], docs/outputs.md): dropped with its buffer
# full, or lost (the sink failed to take them, or still down at the end).
dropped="$(tb_last_stats | /usr/bin/python3 -c '
import json, sys
e = json.load(sys.stdin)
outs = e.get("stats", {}).get("eve", {}).get("outputs")
if outs is None:
    print("unknown")
else:
    print(sum(o.get("dropped", 0) + o.get("lost", 0) for o in outs if o.get("filetype") == "redis"))
')"
if [ "$dropped" = "unknown" ]; then
	tb_log "redis killed and restarted: $stored records in order, $missing missing (no drop counter found to compare)"
	tb_fail "no per-output drop counter in the stats event: set DROPPED's path"
fi
[ "$missing" -eq "$dropped" ] ||
	tb_fail "redis killed and restarted: $missing records missing, the output counted $dropped dropped"
tb_ok "redis killed and restarted: $stored records in order, none twice; $missing missing = $dropped counted dropped"
