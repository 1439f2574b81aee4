#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Several EVE outputs at once (docs/outputs.md), live, with real readers:
#   1. one run writes eve.json, a unix_stream reader, a unix_dgram reader and
#      a syslog listener (a datagram socket bound where syslog-socket points):
#      each receives exactly the file's records, byte for byte (syslog less
#      its RFC 5424 header, which is checked);
#   2. a stalled reader (accepts, reads nothing) behind a 64 KB buffer: the
#      run loses no frame (the accounting line is exact, no socket drops),
#      records beyond the buffer are dropped and counted, and once it reads
#      again it holds the file's records less exactly `dropped` of them, in
#      the file's order;
#   3. a reader killed and started again: the output connects again
#      (`reconnects`) and the new reader receives records;
#   4. the final stats event, eve.json's last record, counts in eve.written
#      every record before it.
# Usage: test_live_outputs.sh BUILD_DIR SAMPLE_PCAP PCAP...
set -euo pipefail
# shellcheck source=test/testbench/lib.sh
. "$(dirname "$0")/lib.sh"

[ "${1:-}" != "--skip" ] || tb_skip "${2:-no reason given}"
BUILD="${1:?usage: $0 BUILD_DIR SAMPLE_PCAP PCAP...}"
SAMPLE="${2:?}"
shift 2
MORE=("$@")
TB_MEERKAT="$BUILD/userspace/meerkat"
TB_CTL="$BUILD/userspace/meerkatctl"
READER="$(dirname "$0")/eve_reader.py"

tb_require_root
tb_require_cmd tcpreplay ip
[ -x /usr/bin/python3 ] || tb_skip "/usr/bin/python3 not installed"
for f in "$TB_MEERKAT" "$TB_CTL" "$SAMPLE" "${MORE[@]}" "$READER"; do tb_require_file "$f"; done

READERS=""
declare -A PIDS
stop_readers() {
	local p
	for p in $READERS; do kill "$p" 2>/dev/null || true; done
	tb_cleanup
}
tb_setup
trap stop_readers EXIT INT TERM
W="$TB_TMP/sockets"
mkdir -p "$W"

# reader NAME MODE [OPTIONS]: a reader on $W/NAME.sock writing $W/NAME.out
reader() {
	local name="$1" mode="$2"
	shift 2
	/usr/bin/python3 "$READER" "$mode" "$W/$name.sock" "$W/$name.out" "$@" &
	READERS+=" $!"
	PIDS[$name]=$!
	tb_wait 10 test -e "$W/$name.out.ready" || tb_fail "reader $name did not start"
}
reader stream stream
reader dgram dgram --stop-file "$W/stop"
# local3.notice: 19 * 8 + 5
reader syslog syslog --stop-file "$W/stop" --pri 157
reader stall stream --stall-until "$W/go"
reader restart stream

CONF="$TB_TMP/outputs.yaml"
cat >"$CONF" <<YAML
stats:
  interval: 1
flow-timeouts:
  default: {new: 1, established: 1}
  udp: {new: 1, established: 1}
  tcp: {new: 1, established: 1, closed: 1}
outputs:
  - eve-log:
      filename: eve.json
  - eve-log:
      filetype: unix_stream
      filename: $W/stream.sock
  - eve-log:
      filetype: unix_dgram
      filename: $W/dgram.sock
  - eve-log:
      filetype: syslog
      syslog-socket: $W/syslog.sock
      facility: local3
      level: notice
  - eve-log:
      filetype: unix_stream
      filename: $W/stall.sock
      buffer-size: 64kb
  - eve-log:
      filetype: unix_stream
      filename: $W/restart.sock
YAML

tb_meerkat_start outputs -i "$TB_SENSOR_IF" --workers 2 -c "$CONF" ||
	tb_fail "meerkat exited ($TB_MK_RC) before answering: $(cat "$TB_MK_DIR/err")"

# out N FIELD: a counter of output N in the live stats
out() {
	tb_ctl stats --json | /usr/bin/python3 -c \
		'import json,sys; print(json.load(sys.stdin)["eve"]["outputs"][int(sys.argv[1])][sys.argv[2]])' "$1" "$2"
}
out_ge() { [ "$(out "$1" "$2")" -ge "$3" ]; }

# --- traffic: every flow ends within seconds (1 s timeouts) -----------------
total=0
for p in "$SAMPLE" "${MORE[@]}"; do
	total=$((total + $(tb_replay "$p" 5000)))
done
tb_log "$total frames sent"
tb_wait 30 out_ge 4 dropped 1 || tb_fail "the stalled reader's output dropped nothing (buffered $(out 4 buffered))"
tb_ok "stalled reader: its 64 KB buffer filled, $(out 4 dropped) records dropped so far; high water $(out 4 high_water)"

# --- 3. the reader killed and started again ---------------------------------
kill "${PIDS[restart]}"
wait "${PIDS[restart]}" 2>/dev/null || true
mv "$W/restart.out" "$W/restart.first"
rm -f "$W/restart.out.ready"
reader restart stream
total=$((total + $(tb_replay "$SAMPLE" 5000)))
restart_seen() { out_ge 5 reconnects 1 && [ -s "$W/restart.out" ]; }
tb_wait 30 restart_seen || tb_fail "no reconnect after the reader came back (reconnects $(out 5 reconnects))"
tb_ok "reader killed and started again: reconnects $(out 5 reconnects), the new reader receives records"

# --- 2. the stalled reader reads again; SIGTERM: the accounting stays exact --
touch "$W/go"
tb_meerkat_stop TERM
[ "$TB_MK_RC" -eq 0 ] || tb_fail "meerkat exited $TB_MK_RC after SIGTERM"
touch "$W/stop"
for p in $READERS; do
	wait "$p" 2>/dev/null || true
done
READERS=""
line="$(grep '^meerkat: accounting' "$TB_MK_DIR/err" || true)"
[ -n "$line" ] || tb_fail "no accounting line on stderr"
tb_log "$line"
read -r saw red took drops <<<"$(sed -n 's/.*program saw \([0-9]*\), redirected \([0-9]*\) = workers took \([0-9]*\) + socket drops \([0-9]*\);.*/\1 \2 \3 \4/p' <<<"$line")"
case "$line" in "meerkat: accounting ok:"*) ;; *) tb_fail "accounting line does not say ok" ;; esac
[ "$saw" -eq "$total" ] || tb_fail "program saw $saw frames, $total were sent"
[ "$red" -eq $((took + drops)) ] || tb_fail "redirected $red != took $took + drops $drops"
[ "$drops" -eq 0 ] || tb_fail "$drops socket drops with a stalled output"
tb_ok "no frame lost with a stalled sink: $saw seen, $took taken, 0 socket drops"
grep '^meerkat: output ' "$TB_MK_DIR/err" || tb_fail "no per-output line on stderr"

# --- 1 and 2: what each reader holds against eve.json ------------------------
/usr/bin/python3 - "$TB_MK_DIR/eve.json" "$W" "$TB_MK_DIR/err" <<'PY' || tb_fail "a reader's records differ from eve.json"
import json, re, sys
eve, w, err = sys.argv[1:4]
ref = open(eve, "rb").read()
lines = ref.splitlines(keepends=True)
for rec in lines:
    json.loads(rec)
final = {}
for m in re.finditer(r"^meerkat: output outputs\[(\d)\] \S+ \S+: written (\d+), dropped (\d+), lost (\d+), "
                     r"reconnects (\d+)", open(err).read(), re.M):
    final[int(m.group(1))] = dict(written=int(m.group(2)), dropped=int(m.group(3)),
                                  lost=int(m.group(4)), reconnects=int(m.group(5)))
bad = []
last = json.loads(lines[-1])
if last.get("event_type") != "stats" or last["stats"]["eve"]["written"] != len(lines) - 1:
    bad.append("the final stats event's eve.written is not the %d records before it: %s" %
               (len(lines) - 1, last.get("stats", {}).get("eve")))
if final[0]["written"] != len(lines) or final[0]["dropped"] or final[0]["lost"]:
    bad.append("eve.json: %d lines, counters %s" % (len(lines), final[0]))
for i, name in ((1, "stream"), (2, "dgram"), (3, "syslog")):
    got = open("%s/%s.out" % (w, name), "rb").read()
    if got != ref:
        bad.append("%s: %d bytes, %d records; eve.json %d bytes, %d records" %
                   (name, len(got), got.count(b"\n"), len(ref), len(lines)))
    elif final[i]["written"] != len(lines) or final[i]["dropped"] or final[i]["lost"]:
        bad.append("%s: counters %s" % (name, final[i]))
    else:
        print("  %s: %d records, byte for byte as eve.json" % (name, len(lines)))
# the stalled reader: eve.json less exactly the dropped records, in order
stall = open(w + "/stall.out", "rb").read().splitlines(keepends=True)
it = iter(lines)
ordered = all(any(rec == r for r in it) for rec in stall)
st = final[4]
if not ordered or len(lines) != len(stall) + st["dropped"] + st["lost"] or st["lost"] or not st["dropped"]:
    bad.append("stalled: %d records, in order %s; eve.json %d; counters %s" %
               (len(stall), ordered, len(lines), st))
else:
    print("  stalled reader: %d records = eve.json's %d - %d dropped, in order" %
          (len(stall), len(lines), st["dropped"]))
if final[5]["reconnects"] < 1:
    bad.append("restart: counters %s" % final[5])
for b in bad:
    print("  " + b)
sys.exit(1 if bad else 0)
PY
tb_ok "every reader holds eve.json's records; the stalled one less exactly its dropped ones"
