#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Offline bypass (docs/bypass.md): with no driver every bypass is local.

Over test/testbench/gen_bypass.py's traffic (a download past the reassembly
depth, flows bypassed by a `bypass` rule and a `pass` rule, a UDP flow whose
later datagrams come in fragments, an alert after the download):
  - each trigger bypasses its flow and counts it (bypass_depth, _rule, _pass,
    _size), the flow's EVE record says "bypass": "local", state "bypassed",
    and still counts every packet (the sidecar's numbers);
  - the bypassed flows' later packets are skipped before stream and detect:
    a rule on their later content stays silent, the stream engine releases
    a fraction of the download, detect sees a fraction of the packets, and
    both grow back with stream.bypass off;
  - the fragments of a bypassed flow are reassembled and dropped (bypass_dgram);
  - the alert on a flow after the download still fires.

usage: check_bypass.py MEERKAT GEN_BYPASS WORKDIR
"""
import json
import os
import shutil
import subprocess
import sys

MEERKAT, GEN, WORK = sys.argv[1:4]
failed = 0


def check(ok, what):
    global failed
    print(("ok: " if ok else "FAIL: ") + what)
    failed += not ok


def run(name, cfg):
    d = os.path.join(WORK, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    conf = os.path.join(d, "meerkat.yaml")
    with open(conf, "w") as f:
        f.write(cfg)
    st = os.path.join(d, "stats.json")
    p = subprocess.run([MEERKAT, "-r", PCAP, "-S", RULES, "-c", conf, "-l", d, "--stats-json", st],
                       capture_output=True, text=True)
    if p.returncode:
        sys.exit("meerkat failed (%d): %s" % (p.returncode, p.stderr))
    flows, alerts = {}, []
    for line in open(os.path.join(d, "eve.json")):
        e = json.loads(line)
        if e["event_type"] == "flow":
            flows[(e["src_ip"], e["src_port"])] = e
        elif e["event_type"] == "alert":
            alerts.append(e["alert"]["signature_id"])
    return json.load(open(st)), flows, sorted(alerts)


os.makedirs(WORK, exist_ok=True)
PCAP = os.path.join(WORK, "bypass.pcap")
RULES = os.path.join(WORK, "bypass.rules")
subprocess.run(["/usr/bin/python3", GEN, PCAP, "--mb", "2", "--rules", RULES], check=True)
side = json.load(open(PCAP + ".json"))
BASE = "stream:\n  reassembly:\n    depth: 64kb\n"

st, flows, alerts = run("on", BASE + "detect:\n  pass-bypass: yes\n")
w = st["worker"]
check(w["bypass_depth"] == 1, "the download past the depth bypassed (bypass_depth %d)" % w["bypass_depth"])
check(w["bypass_rule"] == 2, "the two `bypass` rule flows bypassed (bypass_rule %d)" % w["bypass_rule"])
check(w["bypass_pass"] == 1, "the pass rule's flow bypassed (bypass_pass %d)" % w["bypass_pass"])
check(w["bypass_local"] == 4 and w["bypass_capture"] == 0,
      "offline: every bypass local (local %d, capture %d)" % (w["bypass_local"], w["bypass_capture"]))
check(w["bypass_dgram"] == 3, "the bypassed UDP flow's 3 fragmented datagrams dropped after "
      "reassembly (bypass_dgram %d, frag_held %d)" % (w["bypass_dgram"], w["frag_held"]))
check(w["bypass_skipped"] > side["bulk"]["pkts_toclient"] * 9 // 10,
      "the download's later packets skipped (bypass_skipped %d)" % w["bypass_skipped"])
check(9200003 not in alerts and 9200008 not in alerts,
      "nothing after a bypass is inspected (alerts %s)" % alerts)
for sid in (9200001, 9200002, 9200006, 9200007):
    check(sid in alerts, "sid %d fires (alerts %s)" % (sid, alerts))
for name in ("bulk", "rule", "pass", "udp"):
    f = side[name]
    e = flows.get((f["src"], f["sport"]))
    check(e is not None, "%s: a flow record" % name)
    if not e:
        continue
    fl = e["flow"]
    check(fl.get("bypass") == "local" and fl["state"] == "bypassed" and "bypassed" not in fl,
          "%s: record says bypass local, state bypassed, no driver counters (%s, %s)"
          % (name, fl.get("bypass"), fl["state"]))
    want = (f["pkts_toserver"] - f.get("fragments", 0) + f.get("fragments", 0) // 2,
            f["pkts_toclient"])
    check((fl["pkts_toserver"], fl["pkts_toclient"]) == want,
          "%s: every packet still counted in the flow (%d/%d, want %d/%d)"
          % (name, fl["pkts_toserver"], fl["pkts_toclient"], *want))
a = flows.get((side["alert"]["src"], side["alert"]["sport"]))
check(a is not None and "bypass" not in a["flow"], "the flow after the download is not bypassed")
released_on = st["stream"]["released_bytes"]
detect_on = st["detect"]["packets"]

st, flows, alerts = run("off", "stream:\n  bypass: no\n  reassembly:\n    depth: 64kb\n")
w = st["worker"]
check(w["bypass_depth"] == 0, "stream.bypass: no: the download is not bypassed")
check(st["detect"]["packets"] > detect_on + side["bulk"]["pkts_toclient"] * 9 // 10,
      "detect saw the download's packets without bypass (%d against %d)"
      % (st["detect"]["packets"], detect_on))
check(released_on <= 2 * 65536 + 4096,
      "with bypass the stream engine released little of the download (%d bytes)" % released_on)

st, flows, alerts = run("size", "stream:\n  bypass: no\nflow:\n  bypass-packets: 100\n")
w = st["worker"]
check(w["bypass_size"] == 1, "flow.bypass-packets: 100 bypasses the download (bypass_size %d)"
      % w["bypass_size"])
e = flows.get((side["bulk"]["src"], side["bulk"]["sport"]))
check(e is not None and e["flow"].get("bypass") == "local", "its record says bypass local")

print("%d check(s) failed" % failed if failed else "all checks passed")
sys.exit(1 if failed else 0)
