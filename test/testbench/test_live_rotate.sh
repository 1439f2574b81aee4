#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# EVE files that move under a running sensor (docs/outputs.md), every
# record kept; all.json, never touched, is the reference:
#   1. logrotate's create: eve.json moved away, SIGHUP, a new eve.json;
#   2. logrotate's copytruncate: eve.json copied, then truncated in place;
#      eve.json.1 + eve.json.2 + eve.json = all.json, byte for byte;
#   3. rotate-interval: 1s with a strftime name (rot-%Y%m%d-%H%M%S.json) and
#      with a plain name (plain.json, finished files renamed with the time):
#      several files, which joined in name order are all.json.
# Usage: test_live_rotate.sh BUILD_DIR PCAP1 PCAP2 PCAP3
set -euo pipefail
# shellcheck source=test/testbench/lib.sh
. "$(dirname "$0")/lib.sh"

[ "${1:-}" != "--skip" ] || tb_skip "${2:-no reason given}"
BUILD="${1:?usage: $0 BUILD_DIR PCAP1 PCAP2 PCAP3}"
P1="${2:?}"
P2="${3:?}"
P3="${4:?}"
TB_MEERKAT="$BUILD/userspace/meerkat"
TB_CTL="$BUILD/userspace/meerkatctl"

tb_require_root
tb_require_cmd tcpreplay ip
[ -x /usr/bin/python3 ] || tb_skip "/usr/bin/python3 not installed"
for f in "$TB_MEERKAT" "$TB_CTL" "$P1" "$P2" "$P3"; do tb_require_file "$f"; done

tb_setup
CONF="$TB_TMP/rotate.yaml"
cat >"$CONF" <<'YAML'
stats:
  enabled: no
flow-timeouts:
  default: {new: 1, established: 1}
  udp: {new: 1, established: 1}
  tcp: {new: 1, established: 1, closed: 1}
outputs:
  - eve-log:
      filename: all.json
  - eve-log:
      filename: eve.json
  - eve-log:
      filename: rot-%Y%m%d-%H%M%S.json
      rotate-interval: 1s
  - eve-log:
      filename: plain.json
      rotate-interval: 1s
YAML
tb_meerkat_start rotate -i "$TB_SENSOR_IF" --workers 2 -c "$CONF" ||
	tb_fail "meerkat exited ($TB_MK_RC) before answering: $(cat "$TB_MK_DIR/err")"
D="$TB_MK_DIR"

# quiet: all.json did not grow for 2.5 s (every flow ended and was written)
quiet() {
	local a b
	a="$(stat -c %s "$D/all.json")"
	sleep 2.5
	b="$(stat -c %s "$D/all.json")"
	[ "$a" = "$b" ] && [ "$b" -gt 0 ]
}
lines() { wc -l <"$1"; }

tb_replay "$P1" 2000 >/dev/null
tb_wait 30 quiet || tb_fail "all.json never stopped growing"
n1="$(lines "$D/all.json")"
# --- 1. create: move, SIGHUP, a new file -------------------------------------
mv "$D/eve.json" "$D/eve.json.1"
kill -HUP "$TB_MK_PID"
tb_wait 10 test -e "$D/eve.json" || tb_fail "SIGHUP did not make a new eve.json"
tb_ok "create: eve.json moved ($n1 records), SIGHUP, a new eve.json"

tb_replay "$P2" 2000 >/dev/null
tb_wait 30 quiet || tb_fail "all.json never stopped growing"
# --- 2. copytruncate ---------------------------------------------------------
cp "$D/eve.json" "$D/eve.json.2"
truncate -s 0 "$D/eve.json"
tb_ok "copytruncate: eve.json copied ($(lines "$D/eve.json.2") records) and truncated"

tb_replay "$P3" 2000 >/dev/null
tb_wait 30 quiet || tb_fail "all.json never stopped growing"
tb_meerkat_stop TERM
[ "$TB_MK_RC" -eq 0 ] || tb_fail "meerkat exited $TB_MK_RC after SIGTERM"

/usr/bin/python3 - "$D" <<'PY' || tb_fail "the moved, truncated or rotated files do not add up to all.json"
import glob, os, sys
d = sys.argv[1]
def read(p):
    return open(p, "rb").read()
ref = read(d + "/all.json")
n = ref.count(b"\n")
bad = []
got = read(d + "/eve.json.1") + read(d + "/eve.json.2") + read(d + "/eve.json")
if got != ref:
    bad.append("eve.json.1 + .2 + eve.json: %d records, all.json %d" % (got.count(b"\n"), n))
else:
    print("  eve.json.1 + eve.json.2 + eve.json = all.json (%d records)" % n)
for name, files in (("rot-*.json", sorted(glob.glob(d + "/rot-*.json"))),
                    ("plain.json.*", sorted(glob.glob(d + "/plain.json.*")) + [d + "/plain.json"])):
    full = [f for f in files if os.path.getsize(f)]
    got = b"".join(read(f) for f in files)
    if got != ref or len(full) < 2:
        bad.append("%s: %d files (%d with records), %d records; all.json %d" %
                   (name, len(files), len(full), got.count(b"\n"), n))
    else:
        print("  %s: %d files, %d with records, joined = all.json" % (name, len(files), len(full)))
for b in bad:
    print("  " + b)
sys.exit(1 if bad else 0)
PY
tb_ok "every record kept across create + SIGHUP, copytruncate and rotate-interval"
