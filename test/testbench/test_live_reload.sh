#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Configuration reload under traffic (docs/operations.md, Reload), on the
# veth testbench (needs root). A generator in the peer namespace sends UDP
# without pause (about 400 frames/s) to ports 7001 and 7002 from
# 198.18.255.2, and to port 7003 from a second address, 198.18.77.2. Each
# frame carries the test's phase in its source port (phase * 10000 + n), so
# every alert says when its frame was sent.
#   phase 1  rules A: sid 1 (port 7001) and sid 2 (port 7002);
#   phase 2  after `meerkatctl reload` to configuration B: rules B (sid 1
#            kept, sid 2 removed, sid 3 new on port 7002), a UDP timeout
#            changed (reported as applied) and bypass.cidr 198.18.77.0/24
#            added: that host's frames are dropped in the driver
#            (drop_cidr_bypass grows, the workers no longer see them);
#   phase 3  after SIGUSR2 to configuration C: rules C (sid 1 removed, sid 4
#            new on port 7001), the CIDR list empty again (a prefix added
#            by `meerkatctl bypass cidr add` meanwhile goes too);
#   phase 4  after a configuration with a YAML syntax error was refused
#            (the reply names config.yaml:LINE:COLUMN) and
#   phase 5  after one with an unknown key and one naming a missing rule file
#            (the CIDR list it changed is put back) were refused: rules C
#            still fire;
#            then a changed capture.workers is reported as restart_needed.
# Every frame sent in phase p to a port raises exactly the alert of the
# rule set of phase p for that port (counts equal, no other sid), frames
# sent while a reload ran (phase 6) raise the old or the new one; at the
# end the accounting line is exact (nothing lost, no socket drop) and the
# stats count 3 reloads applied, 3 refused, generation 4.
# Everything it creates is removed when it ends, pass or fail.
#
# usage: test_live_reload.sh BUILD_DIR
#        test_live_reload.sh --skip WHY
set -euo pipefail
# shellcheck source=test/testbench/lib.sh
. "$(dirname "$0")/lib.sh"

[ "${1:-}" != "--skip" ] || tb_skip "${2:-no reason given}"
BUILD="${1:?usage: $0 BUILD_DIR}"
TB_MEERKAT="$BUILD/userspace/meerkat"
TB_CTL="$BUILD/userspace/meerkatctl"

tb_require_root
tb_require_cmd bpftool ip
[ -x /usr/bin/python3 ] || tb_skip "/usr/bin/python3 not installed"
for f in "$TB_MEERKAT" "$TB_CTL"; do tb_require_file "$f"; done

tb_setup
BYPASS_HOST=198.18.77.2
ip -n "$TB_NS_PEER" addr add "$BYPASS_HOST/32" dev "$TB_PEER_IF"

rule() { printf 'alert udp any any -> any %s (msg:"reload test %s"; content:"RELOADTEST"; sid:%s; rev:1;)\n' "$2" "$1" "$1"; }
{ rule 1 7001; rule 2 7002; } >"$TB_TMP/a.rules"
{ rule 1 7001; rule 3 7002; } >"$TB_TMP/b.rules"
{ rule 4 7001; rule 3 7002; } >"$TB_TMP/c.rules"
CONF="$TB_TMP/config.yaml"
# config RULES UDP_NEW CIDR [EXTRA]: the configuration file of one phase
config() {
	cat >"$CONF" <<EOF
default-rule-path: $TB_TMP
rule-files:
  - $1
capture:
  workers: 1
flow-timeouts:
  udp:
    new: $2
bypass:
  cidr: [$3]
${4:-}
EOF
}
config a.rules 30 ""

# the generator: until the stop file appears; counts per (phase, port) at the end
cat >"$TB_TMP/gen.py" <<'PY'
import json, os, socket, sys, time
tmp, dst, src, other = sys.argv[1:5]
socks = []
counts = {}
n = 0
while not os.path.exists(tmp + "/stop"):
    phase = int(open(tmp + "/phase").read())
    for sip, dport in ((src, 7001), (src, 7002), (other, 7003)):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((sip, phase * 10000 + n % 5000))
        s.sendto(b"RELOADTEST %d" % n, (dst, dport))
        s.close()
        key = "%d/%d" % (phase, dport)
        counts[key] = counts.get(key, 0) + 1
    n += 1
    time.sleep(0.007)
json.dump(counts, open(tmp + "/counts.json", "w"))
PY
echo 1 >"$TB_TMP/phase"

json_get() { /usr/bin/python3 -c 'import json,sys; v=json.load(sys.stdin)
for k in sys.argv[1].split("."): v=v[k]
print(v)' "$1"; }
stat_of() { tb_ctl stats --json | json_get "$1"; }
# atomically: the generator must never read a file half written
phase() {
	echo "$1" >"$TB_TMP/phase.new"
	mv "$TB_TMP/phase.new" "$TB_TMP/phase"
	kill -0 "$GEN" 2>/dev/null || tb_fail "the generator died: $(cat "$TB_TMP/gen.out")"
}

rx0="$(tb_link_rx)"
tb_meerkat_start live -i "$TB_SENSOR_IF" -c "$CONF" -v ||
	tb_fail "meerkat exited ($TB_MK_RC) before answering: $(cat "$TB_MK_DIR/err")"
[ "$(stat_of reload.generation)" = 1 ] || tb_fail "reload generation at start is not 1"
tb_peer /usr/bin/python3 "$TB_TMP/gen.py" "$TB_TMP" "$TB_SENSOR_IP" "$TB_PEER_IP" "$BYPASS_HOST" \
	>"$TB_TMP/gen.out" 2>&1 &
GEN=$!
stop_gen() {
	touch "$TB_TMP/stop"
	wait "$GEN" || tb_fail "the generator failed: $(cat "$TB_TMP/gen.out")"
}
sleep 2
kill -0 "$GEN" 2>/dev/null || tb_fail "the generator died: $(cat "$TB_TMP/gen.out")"
[ "$(stat_of xdp.drop_cidr_bypass)" = 0 ] || tb_fail "frames dropped by a CIDR before any was listed"
tb_ok "rules A, traffic running ($(stat_of capture.sock_rx) frames taken)"

# --- phase 2: meerkatctl reload to B ------------------------------------------
config b.rules 20 "$BYPASS_HOST/24"
phase 6
out="$(tb_ctl reload --json)" || tb_fail "meerkatctl reload to B failed: $out"
phase 2

REPLY="$out" /usr/bin/python3 - <<'PY' || tb_fail "reply to the reload to B: $out"
import json, os
r = json.loads(os.environ["REPLY"])
assert r["generation"] == 2, r
assert r["rules_loaded"] == 2 and r["rules_failed"] == 0, r
assert "flow-timeouts.udp.new: 30 -> 20" in r["applied"], r["applied"]
assert any(a.startswith("rule-files: ") for a in r["applied"]), r["applied"]
assert r["restart_needed"] == [], r["restart_needed"]
assert r["bypass_cidr"] == {"added": ["198.18.77.0/24"], "removed": []}, r["bypass_cidr"]
PY
tb_ok "meerkatctl reload: generation 2 in $(json_get duration_ms <<<"$out") ms, rules B, timeout and CIDR list applied"
sleep 2
drops="$(stat_of xdp.drop_cidr_bypass)"
[ "$drops" -gt 20 ] || tb_fail "drop_cidr_bypass $drops after the CIDR list named $BYPASS_HOST"
tb_ok "$BYPASS_HOST dropped in the driver after the reload: drop_cidr_bypass $drops"

# --- phase 3: SIGUSR2 to C ----------------------------------------------------
# a prefix added at run time: the reload makes the list the file's again
tb_ctl bypass cidr add 198.18.78.0/24 >/dev/null || tb_fail "bypass cidr add"
config c.rules 20 ""
phase 6
kill -USR2 "$TB_MK_PID"
tb_wait 30 test "$(stat_of reload.generation)" = 3 || tb_fail "SIGUSR2: no generation 3: $(stat_of reload.last_message)"
phase 3
grep -q "reload: .*bypass.cidr: \[198.18.77.0/24\] -> \[\]" "$TB_MK_DIR/err" ||
	tb_fail "the log does not show the CIDR change of SIGUSR2"
[ -z "$(tb_ctl bypass cidr list)" ] || tb_fail "CIDR list after SIGUSR2: $(tb_ctl bypass cidr list)"
d0="$(stat_of xdp.drop_cidr_bypass)"
sleep 1.5
d1="$(stat_of xdp.drop_cidr_bypass)"
[ "$d1" = "$d0" ] || tb_fail "CIDR list emptied by SIGUSR2 but drop_cidr_bypass grows: $d0 -> $d1"
tb_ok "SIGUSR2: generation 3, rules C, $BYPASS_HOST no longer dropped"

# --- phase 4, 5: refused configurations; the rules in force keep firing ------
cp "$CONF" "$TB_TMP/good.yaml"
printf 'capture:\n  workers: [1\n' >>"$CONF"
if out="$(tb_ctl reload 2>&1)"; then tb_fail "a YAML syntax error was accepted: $out"; fi
grep -Eq "$CONF:[0-9]+:[0-9]+: .*running configuration stays" <<<"$out" ||
	tb_fail "no file:line in the refusal: $out"
grep -q "reload refused: $CONF:" "$TB_MK_DIR/err" || tb_fail "the refusal is not in the log"
tb_ok "YAML syntax error refused: ${out#*reload: }"
phase 4
sleep 1.5
config c.rules 20 "" $'flow:\n  no-such-key: 1'
if out="$(tb_ctl reload 2>&1)"; then tb_fail "an unknown key was accepted: $out"; fi
grep -Eq "$CONF:[0-9]+:[0-9]+: flow.no-such-key: unknown key" <<<"$out" ||
	tb_fail "no file:line:key in the refusal: $out"
tb_ok "unknown key refused: ${out#*reload: }"
# rules that cannot be built refuse the reload after the CIDR list changed: it is put back
config missing.rules 20 "$BYPASS_HOST/24"
if out="$(tb_ctl reload 2>&1)"; then tb_fail "a missing rule file was accepted: $out"; fi
grep -q "rules: .*missing.rules.*running configuration stays" <<<"$out" ||
	tb_fail "the refusal does not name the rule file: $out"
[ -z "$(tb_ctl bypass cidr list)" ] || tb_fail "the CIDR list was not put back: $(tb_ctl bypass cidr list)"
tb_ok "missing rule file refused, CIDR list put back: ${out#*reload: }"
phase 5
sleep 1.5
[ "$(stat_of reload.generation)" = 3 ] || tb_fail "a refused reload changed the generation"
sed 's/workers: 1/workers: 2/' "$TB_TMP/good.yaml" >"$CONF"
out="$(tb_ctl reload --json)" || tb_fail "reload with a restart-only change failed: $out"
REPLY="$out" /usr/bin/python3 - <<'PY' || tb_fail "restart-only change: $out"
import json, os
r = json.loads(os.environ["REPLY"])
assert r["generation"] == 4, r
assert r["restart_needed"] == ["capture.workers: 1 -> 2"], r["restart_needed"]
assert r["applied"] == [], r["applied"]
PY
grep -q "capture.workers: 1 -> 2 needs a restart" "$TB_MK_DIR/err" || tb_fail "restart_needed not logged"
[ "$(tb_ctl status --json | json_get workers)" = 1 ] || tb_fail "the worker count changed without a restart"
tb_ok "capture.workers 1 -> 2 reported as restart_needed (reply and log), 1 worker still running"
sleep 1

# --- the end: counts, alerts by phase, accounting -----------------------------
stop_gen
sleep 0.5
tb_meerkat_stop TERM
[ "$TB_MK_RC" -eq 0 ] || tb_fail "meerkat exited $TB_MK_RC after SIGTERM"
line="$(grep '^meerkat: accounting' "$TB_MK_DIR/err" || true)"
case "$line" in "meerkat: accounting ok:"*) ;; *) tb_fail "accounting: ${line:-no line}" ;; esac
read -r saw red took drops <<<"$(sed -n 's/.*program saw \([0-9]*\), redirected \([0-9]*\) = workers took \([0-9]*\) + socket drops \([0-9]*\);.*/\1 \2 \3 \4/p' <<<"$line")"
link="$(($(tb_link_rx) - rx0))"
[ "$drops" -eq 0 ] || tb_fail "$drops socket drops"
[ "$saw" -eq "$link" ] || tb_fail "program saw $saw frames, the veth received $link"
tb_ok "accounting exact: $saw frames seen = veth rx, $red redirected = $took taken + 0 drops"

verdict="$(/usr/bin/python3 - "$TB_MK_DIR/eve.json" "$TB_TMP/counts.json" <<'PY'
import collections, json, sys
sent = json.load(open(sys.argv[2]))
rules = {1: {7001: 1, 7002: 2}, 2: {7001: 1, 7002: 3}}
for p in (3, 4, 5):
    rules[p] = {7001: 4, 7002: 3}
got = collections.Counter()
stats = None
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["event_type"] == "alert":
        got[(e["src_port"] // 10000, e["dest_port"], e["alert"]["signature_id"])] += 1
    elif e["event_type"] == "stats":
        stats = e["stats"]
bad = []
total = sum(got.values())
for p, ports in rules.items():
    for port, sid in ports.items():
        n = sent.get("%d/%d" % (p, port), 0)
        if not n:
            bad.append("phase %d sent nothing to %d" % (p, port))
        if got.pop((p, port, sid), 0) != n:
            bad.append("phase %d port %d: sid %d alerts differ from %d frames" % (p, port, sid, n))
old_or_new = {(6, 7001, 1), (6, 7001, 4), (6, 7002, 2), (6, 7002, 3)}
extra = {k: v for k, v in got.items() if k not in old_or_new}
if extra:
    bad.append("alerts of the wrong rule set: %s" % extra)
r = stats["reload"]
if (r["generation"], r["reloads_ok"], r["reloads_failed"]) != (4, 3, 3):
    bad.append("final stats reload %s" % r)
if bad:
    print("; ".join(bad))
else:
    print("ok %d alerts of %d frames; swap stall max %d us" %
          (total, sum(sent.values()), r["swap_stall_max_us"]))
PY
)"
case "$verdict" in
ok*) tb_ok "every frame raised its phase's alert and no other (${verdict#ok }); stats: 3 reloads, 3 refused" ;;
*) tb_fail "$verdict" ;;
esac
