#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The worked example of docs/outputs.md, run: three sensors feed
# one Kafka topic keyed by community_id, a consumer stores the alerts.
#   1. a Kafka cluster: mock_kafka (librdkafka's mock cluster, 3 brokers,
#      topic `eve` of 6 partitions);
#   2. sensors a and b see the same traffic at two taps (sample.pcap),
#      sensor c other traffic (spread_plain.pcap): `meerkat -r` each, with
#      two outputs, eve.json and `filetype: kafka` to the cluster;
#   3. kcat -C reads the topic: every record of the three sensors once, byte
#      for byte; each community_id on one partition, its records in the
#      order each sensor wrote them;
#   4. kcat -> jq -> sqlite3: the alerts in a table; the flows both taps saw
#      are found by their community_id.
# Needs no root. Skips (77) without kcat, jq or sqlite3.
#
# usage: kafka_pipeline.sh BUILD_DIR RULES SAMPLE_PCAP OTHER_PCAP
set -euo pipefail

BUILD="${1:?usage: $0 BUILD_DIR RULES SAMPLE_PCAP OTHER_PCAP}"
RULES="${2:?}"
PCAP_AB="${3:?}"
PCAP_C="${4:?}"
NAME=kafka_pipeline
skip() {
	echo "$NAME: skipped: $*"
	exit 77
}
fail() {
	echo "$NAME: FAIL: $*" >&2
	exit 1
}
for c in kcat jq sqlite3 python3; do
	command -v "$c" >/dev/null 2>&1 || skip "'$c' not installed (run deps.sh)"
done
for f in "$BUILD/userspace/meerkat" "$BUILD/test/outputs/mock_kafka" \
	"$RULES" "$PCAP_AB" "$PCAP_C"; do
	[ -e "$f" ] || fail "missing $f (build first: ninja -C build)"
done

TMP="$(mktemp -d /tmp/meerkat-kafka-pipeline.XXXXXX)"
MOCK_PID=""
cleanup() {
	local rc=$?
	if [ -n "$MOCK_PID" ]; then
		kill "$MOCK_PID" 2>/dev/null || true
		wait "$MOCK_PID" 2>/dev/null || true
	fi
	rm -rf "$TMP"
	exit "$rc"
}
trap cleanup EXIT INT TERM

# 1. the cluster; its bootstrap servers on its first line
mkfifo "$TMP/boot"
"$BUILD/test/outputs/mock_kafka" 3 eve 6 >"$TMP/boot" </dev/null 2>"$TMP/mock.err" &
MOCK_PID=$!
read -r BOOT <"$TMP/boot" || fail "mock_kafka printed no bootstrap servers: $(cat "$TMP/mock.err")"
echo "$NAME: mock cluster at $BOOT"

# 2. three sensors, one topic
for s in a b c; do
	pcap="$PCAP_AB"
	[ "$s" != c ] || pcap="$PCAP_C"
	mkdir -p "$TMP/$s"
	cat >"$TMP/$s/meerkat.yaml" <<CONF
outputs:
  - eve-log:
      filename: eve.json
  - eve-log:
      filetype: kafka
      kafka:
        brokers: $BOOT
        topic: eve
        partition-by: community_id
        compression: lz4
CONF
	"$BUILD/userspace/meerkat" -r "$pcap" -S "$RULES" -c "$TMP/$s/meerkat.yaml" -l "$TMP/$s" -v \
		>/dev/null 2>"$TMP/$s/err" || fail "sensor $s: meerkat -r failed: $(cat "$TMP/$s/err")"
	# each output's counters: "meerkat: info: EVE output {...}" (-v)
	out="$(python3 -c '
import json, sys
outs = [json.loads(l.split("EVE output ", 1)[1]) for l in open(sys.argv[1]) if "EVE output " in l]
o = [x for x in outs if x["filetype"] == "kafka"][0]
k = o["kafka"]
n = sum(1 for _ in open(sys.argv[2]))
print("kafka output: written %d, dropped %d, lost %d (produced %d)"
      % (o["written"], o["dropped"], o["lost"], k["produced"]))
# taken by librdkafka; that the brokers have them all is what kcat reads below
sys.exit(0 if o["written"] == k["produced"] == n and not (o["dropped"] or o["lost"]) else 1)
' "$TMP/$s/err" "$TMP/$s/eve.json")" || fail "sensor $s: not every record taken: $out"
	echo "$NAME: sensor $s: $(wc -l <"$TMP/$s/eve.json") records in eve.json, $out"
done

# 3. the topic read back
timeout 60 kcat -C -q -e -b "$BOOT" -t eve -o beginning -f '%p\t%k\t%s\n' >"$TMP/topic.tsv" ||
	fail "kcat -C failed"
verdict="$(python3 - "$TMP/topic.tsv" "$TMP/a/eve.json" "$TMP/b/eve.json" "$TMP/c/eve.json" <<'PY'
import collections, json, sys
topic = [l.rstrip("\n").split("\t", 2) for l in open(sys.argv[1])]
sent = [l.rstrip("\n") for p in sys.argv[2:] for l in open(p)]
if collections.Counter(r for _, _, r in topic) != collections.Counter(sent):
    sys.exit(print("the topic's records differ from the sensors': %d read, %d written" % (len(topic), len(sent))))
part, got, want = {}, collections.defaultdict(list), collections.defaultdict(list)
for p, k, r in topic:
    if part.setdefault(k, p) != p:
        sys.exit(print("key %s on partitions %s and %s" % (k, part[k], p)))
    got[k].append(r)
for r in sent:
    e = json.loads(r)
    want[e.get("community_id") or str(e.get("flow_id", ""))].append(r)
bad = [k for k in want if want[k] != got.get(k)]
if bad:
    sys.exit(print("%d keys out of order, e.g. %s" % (len(bad), bad[0])))
print("ok %d records, %d keys on %d partitions" % (len(topic), len(part), len(set(part.values()))))
PY
)" || true
case "$verdict" in
ok*) echo "$NAME: ok: kcat read ${verdict#ok }: every record once, each key on one partition, in the order written" ;;
*) fail "$verdict" ;;
esac

# 4. the consumer side of the worked example: kcat -> jq -> sqlite3
kcat -C -q -e -b "$BOOT" -t eve -o beginning -f '%s\n' |
	jq -r 'select(.event_type == "alert")
	       | [.community_id, .timestamp, .alert.signature_id, .src_ip, .dest_ip] | @csv' |
	sqlite3 "$TMP/store.db" \
		'CREATE TABLE alerts(community_id TEXT, ts TEXT, sid INTEGER, src TEXT, dst TEXT);' \
		'.import --csv /dev/stdin alerts'
stored="$(sqlite3 "$TMP/store.db" 'SELECT count(*) FROM alerts;')"
written="$(cat "$TMP"/[abc]/eve.json | jq -c 'select(.event_type == "alert")' | wc -l)"
[ "$stored" -eq "$written" ] || fail "$stored alerts stored, the sensors wrote $written"
both="$(sqlite3 "$TMP/store.db" \
	'SELECT count(*) FROM (SELECT community_id FROM alerts GROUP BY community_id, sid, ts HAVING count(*) = 2);')"
ab="$(jq -c 'select(.event_type == "alert")' "$TMP/a/eve.json" | wc -l)"
[ "$both" -eq "$ab" ] || fail "$both alerts seen by both taps, want $ab (sensor a's)"
echo "$NAME: ok: $stored alerts stored in sqlite; $both seen by both taps (joined on community_id)"
