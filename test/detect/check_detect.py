#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Detection end to end (meson suite 'offline'): meerkat -r with rules.

usage: check_detect.py MEERKAT GEN RULES WORKDIR [MK_DETECT_PCAP]

Generates the captures (gen_detect_pcaps.py) and checks, for the plain, the
GTP-U, the L2TPv2 and the VXLAN capture, with 1 and 2 workers:
  - the alerts, as (sid, src, sport, dst, dport, proto), are exactly those the
    generator built the traffic for: no more, no fewer;
  - eve.json is byte-identical for 1 and 2 workers;
  - every line is JSON; tunnelled alerts carry the tunnel object, the VLAN
    alert its tag, stream matches "stream": 1;
  - a flow record says alerted: true exactly when its flow has an alert;
that rules come from the YAML configuration as from -S (rule-files under
default-rule-path, address and port groups, threshold-file, an unreadable
classification-file, alert payload options, community_id, an alert-less
types list), that the test driver (MK_DETECT_PCAP, one worker on one
thread) agrees on the plain capture with and without the prefilter, that -T and --strict-rules fail on a bad rule file and name file,
line, sid and keyword, and that -T passes on the shipped rules.
"""
import collections
import json
import os
import shutil
import subprocess
import sys

MEERKAT, GEN, RULES, WORK = sys.argv[1:5]
DRIVER = sys.argv[5] if len(sys.argv) > 5 else None
SHIPPED = sys.argv[6] if len(sys.argv) > 6 else None
failures = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(args, expect_ok=True):
    p = subprocess.run(args, capture_output=True, text=True)
    if expect_ok and p.returncode != 0:
        print(p.stderr)
        raise SystemExit("failed: %s" % " ".join(args))
    return p


def meerkat(pcap, out, workers):
    if os.path.isdir(out):
        shutil.rmtree(out)
    run([MEERKAT, "-r", pcap, "-l", out, "-S", RULES, "--workers", str(workers)])
    with open(os.path.join(out, "eve.json"), "rb") as f:
        return f.read()


def key(a):
    return (a["alert"]["signature_id"], a["src_ip"], a.get("src_port"), a["dest_ip"],
            a.get("dest_port"), a["proto"])


def check_capture(name, gen_dir, exp):
    pcap = os.path.join(gen_dir, name)
    outs = [meerkat(pcap, os.path.join(WORK, "out-%s-%d" % (name, w)), w) for w in (1, 2)]
    check(outs[0] == outs[1], "%s: eve.json differs between 1 and 2 workers" % name)
    recs = []
    for line in outs[0].decode().splitlines():
        try:
            recs.append(json.loads(line))
        except ValueError:
            check(False, "%s: not JSON: %s" % (name, line[:200]))
    alerts = [r for r in recs if r["event_type"] == "alert"]
    want = collections.Counter((a["sid"], a["src_ip"], a["src_port"], a["dest_ip"], a["dest_port"],
                                a["proto"]) for a in exp[name])
    got = collections.Counter(key(a) for a in alerts)
    for k in want - got:
        check(False, "%s: missing alert %s" % (name, k))
    for k in got - want:
        check(False, "%s: unexpected alert %s" % (name, k))
    check(got == want, "%s: %d alerts, %d expected" % (name, len(alerts), sum(want.values())))
    tunnel = exp["tunnel"].get(name)
    for a in alerts:
        check(a.get("tunnel", {}).get("type") == tunnel, "%s: sid %d tunnel %s, want %s" %
              (name, a["alert"]["signature_id"], a.get("tunnel"), tunnel))
        if tunnel == "vxlan":
            check(a["tunnel"].get("vni") == 0x4242, "%s: vni %s" % (name, a["tunnel"]))
        sid = str(a["alert"]["signature_id"])
        if sid in exp["vlan"]:
            check(a.get("vlan") == exp["vlan"][sid], "%s: sid %s vlan %s" % (name, sid, a.get("vlan")))
        if sid in ("1001", "1002", "1010", "1018"):
            check(a["stream"] == 1, "%s: sid %s matched the stream" % (name, sid))
        if sid in ("1017", "1013", "1021"):
            check(a["stream"] == 0, "%s: sid %s matched a packet" % (name, sid))
        check(a["alert"]["action"] == "allowed" and a["alert"]["gid"] == 1 and
              a["alert"]["signature"].startswith("E2E"), "%s: alert object %s" % (name, a["alert"]))
        check("flow" in a and a["flow"]["pkts_toserver"] + a["flow"]["pkts_toclient"] >= 1,
              "%s: alert flow object" % name)
    alerted = {a["flow_id"] for a in alerts}
    # community_id is the flow's (on by default), the ICMP error's alert included
    flow_cid = {r["flow_id"]: r.get("community_id") for r in recs if r["event_type"] == "flow"}
    for a in alerts:
        check(a.get("community_id") and a["community_id"] == flow_cid.get(a["flow_id"]),
              "%s: sid %d community_id %s, its flow's %s" % (name, a["alert"]["signature_id"],
              a.get("community_id"), flow_cid.get(a["flow_id"])))
    # the ICMP error's alert belongs to the UDP flow it quotes
    udp = {r["flow_id"] for r in recs if r["event_type"] == "flow" and r["proto"] == "UDP"}
    for a in alerts:
        if a["alert"]["signature_id"] == 1023:
            check(a["flow_id"] in udp, "%s: the ICMP error's alert has the quoted flow's id" % name)
    # a threshold applied where records are merged cannot unmark the flow (docs/rules.md)
    thresholded = {tuple(t) for t in exp["thresholded"]}
    for r in recs:
        if r["event_type"] == "flow":
            t = (r["src_ip"], r.get("src_port"), r["dest_ip"], r.get("dest_port"))
            check(r["flow"]["alerted"] == (r["flow_id"] in alerted or t in thresholded),
                  "%s: flow %s alerted=%s" % (name, r["flow_id"], r["flow"]["alerted"]))
    check(any(a["alert"]["category"] == "A Network Trojan was detected" for a in alerts),
          "%s: classtype's category" % name)
    return alerts


def check_config(gen_dir, exp):
    """The rules section of the configuration, on the plain capture."""
    import base64
    pcap = os.path.join(gen_dir, "plain.pcap")
    rdir = os.path.join(WORK, "cfgrules")
    os.makedirs(rdir, exist_ok=True)
    evil = [a for a in exp["plain.pcap"] if a["sid"] == 1001]
    widget = [a for a in exp["plain.pcap"] if a["sid"] == 1003]
    check(evil and widget, "the capture has sid 1001 and 1003 traffic")
    servers = sorted({a["dest_ip"] for a in evil})
    with open(os.path.join(rdir, "cfg.rules"), "w") as f:
        f.write('alert tcp any any -> $TEST_SERVERS any (msg:"E2E cfg group"; content:"EVIL-PAYLOAD-42"; sid:2001;)\n'
                'alert tcp any any -> !$TEST_SERVERS any (msg:"E2E cfg group decoy"; content:"EVIL-PAYLOAD-42"; sid:2002;)\n'
                'alert tcp any any -> any $TEST_PORTS (msg:"E2E cfg ports"; content:"widget"; nocase; sid:2003;)\n'
                'alert tcp any any -> any 80 (msg:"E2E widget, suppressed"; content:"widget"; nocase; sid:1003;)\n'
                'alert tcp any any -> any any (msg:"E2E evil"; content:"EVIL-PAYLOAD-42"; classtype:trojan-activity; sid:1001;)\n')
    thr = os.path.join(rdir, "threshold.config")
    with open(thr, "w") as f:
        f.write("# the widget rule is suppressed everywhere\nsuppress gen_id 1, sig_id 1003\n")

    def conf(types):
        path = os.path.join(WORK, "cfg-%s.yaml" % "-".join(types))
        with open(path, "w") as f:
            f.write("vars:\n  address-groups:\n    TEST_SERVERS: \"[%s]\"\n"
                    "  port-groups:\n    TEST_PORTS: 80\n"
                    "default-rule-path: %s\nrule-files:\n  - cfg.rules\n"
                    "classification-file: %s\nthreshold-file: %s\n"
                    "outputs:\n  - eve-log:\n      community-id: yes\n      types:\n"
                    % (",".join(servers), rdir, os.path.join(WORK, "no-such.config"), thr))
            for t in types:
                f.write("        - alert:\n            payload: yes\n            payload-printable: yes\n"
                        if t == "alert" else "        - %s\n" % t)
        return path

    out = os.path.join(WORK, "out-cfg")
    # without a configuration the default side files are missing here: a quiet run
    shutil.rmtree(out, ignore_errors=True)
    p = run([MEERKAT, "-r", pcap, "-l", out, "-S", RULES])
    check("classification-file" not in p.stderr and "reference-config-file" not in p.stderr,
          "default side files missing: no warning: %r" % p.stderr)
    shutil.rmtree(out, ignore_errors=True)
    p = run([MEERKAT, "-r", pcap, "-l", out, "-c", conf(["alert", "flow"])])
    check("classification-file %s: No such file or directory; using the built-in classes"
          % os.path.join(WORK, "no-such.config") in p.stderr, "unreadable classification: %r" % p.stderr)
    with open(os.path.join(out, "eve.json")) as f:
        recs = [json.loads(line) for line in f]
    alerts = [r for r in recs if r["event_type"] == "alert"]
    by_sid = collections.defaultdict(collections.Counter)
    for a in alerts:
        by_sid[a["alert"]["signature_id"]][key(a)[1:]] += 1
    want = lambda exp_alerts: collections.Counter(
        (a["src_ip"], a["src_port"], a["dest_ip"], a["dest_port"], a["proto"]) for a in exp_alerts)
    check(by_sid[2001] == want(evil), "config address group: %s" % dict(by_sid[2001]))
    check(not by_sid[2002], "config address group, negated: %s" % dict(by_sid[2002]))
    check(by_sid[2003] == want(widget), "config port group: %s" % dict(by_sid[2003]))
    check(not by_sid[1003], "threshold-file suppress: %s" % dict(by_sid[1003]))
    check(by_sid[1001] == want(evil), "rule-files under default-rule-path: %s" % dict(by_sid[1001]))
    flow_cid = {r["flow_id"]: r.get("community_id") for r in recs if r["event_type"] == "flow"}
    for a in alerts:
        sid = a["alert"]["signature_id"]
        if sid == 1001:
            check(a["alert"]["category"] == "A Network Trojan was detected",
                  "built-in classes stand in: %s" % a["alert"])
        if sid in (1001, 2001):
            check(b"EVIL-PAYLOAD-42" in base64.b64decode(a.get("payload", "")),
                  "payload: %r" % a.get("payload"))
            check("EVIL-PAYLOAD-42" in a.get("payload_printable", ""),
                  "payload_printable: %r" % a.get("payload_printable"))
        check(a.get("community_id") and a["community_id"] == flow_cid.get(a["flow_id"]),
              "alert community_id %s, flow's %s" % (a.get("community_id"), flow_cid.get(a["flow_id"])))
    alerted = sorted(r["flow_id"] for r in recs if r["event_type"] == "flow" and r["flow"]["alerted"])

    shutil.rmtree(out, ignore_errors=True)
    run([MEERKAT, "-r", pcap, "-l", out, "-c", conf(["flow"])])
    with open(os.path.join(out, "eve.json")) as f:
        recs = [json.loads(line) for line in f]
    check(not [r for r in recs if r["event_type"] == "alert"], "types without alert: no alert record")
    check(sorted(r["flow_id"] for r in recs if r["event_type"] == "flow" and r["flow"]["alerted"]) == alerted
          and alerted, "types without alert: the same flows marked alerted")

    p = run([MEERKAT, "-T", "-c", conf(["alert", "flow"])], expect_ok=False)
    check(p.returncode == 0 and "rules: 5 rules loaded from 1 file(s), 0 failed" in p.stdout,
          "-T -c with rule-files: %d %r" % (p.returncode, p.stdout))


def main():
    gen_dir = os.path.join(WORK, "pcaps")
    run(["/usr/bin/python3", GEN, gen_dir])
    with open(os.path.join(gen_dir, "expected.json")) as f:
        exp = json.load(f)
    plain = None
    for name in ("plain.pcap", "gtpu.pcap", "l2tp.pcap", "vxlan.pcap"):
        alerts = check_capture(name, gen_dir, exp)
        if name == "plain.pcap":
            plain = alerts

    check_config(gen_dir, exp)

    # one worker on one thread (the test driver) agrees with meerkat -r, and
    # so does every rule verified on every packet: the prefilter drops no alert
    if DRIVER:
        want = collections.Counter(key(a) for a in plain)
        for extra in ([], ["--no-prefilter"]):
            out = os.path.join(WORK, "driver.json")
            run([DRIVER, "-r", os.path.join(gen_dir, "plain.pcap"), "-S", RULES, "-o", out] + extra)
            with open(out) as f:
                drv = [json.loads(line) for line in f if '"event_type":"alert"' in line]
            check(collections.Counter(key(a) for a in drv) == want,
                  "the test driver %s and meerkat -r disagree" % " ".join(extra))

    # rule errors: one line naming file, line, sid and keyword; -T and --strict-rules fail
    bad = os.path.join(WORK, "bad.rules")
    with open(bad, "w") as f:
        f.write("alert tcp any any -> any any (msg:\"ok\"; content:\"x\"; sid:1;)\n"
                "# a comment\n"
                "alert tcp any any -> any 80 (msg:\"app\"; http.request_header; content:\"/x\"; sid:2;)\n")
    p = run([MEERKAT, "-T", "-S", bad], expect_ok=False)
    check(p.returncode != 0, "-T with a bad rule exits non-zero")
    check("bad.rules:3: sid 2: keyword 'http.request_header': not supported" in p.stderr,
          "-T names file, line, sid and keyword: %r" % p.stderr)
    check("1 rules loaded from 1 file(s), 1 failed (unsupported_keyword 1)" in p.stdout,
          "-T prints the totals: %r" % p.stdout)
    p = run([MEERKAT, "-r", os.path.join(gen_dir, "plain.pcap"), "-l", os.path.join(WORK, "x"), "-S", bad],
            expect_ok=False)
    check(p.returncode == 0, "without --strict-rules the good rules load and run")
    p = run([MEERKAT, "-r", os.path.join(gen_dir, "plain.pcap"), "-l", os.path.join(WORK, "x"), "-S", bad,
             "--strict-rules"], expect_ok=False)
    check(p.returncode != 0, "--strict-rules: a rule that fails is fatal")
    p = run([MEERKAT, "-T", "-S", RULES], expect_ok=False)
    check(p.returncode == 0, "-T on the test rules: %s" % p.stdout + p.stderr)
    p = run([MEERKAT, "-T", "-S", os.path.join(WORK, "no-such.rules")], expect_ok=False)
    check(p.returncode != 0 and "no-such.rules" in p.stderr, "a missing rule file is an error")
    if SHIPPED:
        for f in sorted(os.listdir(SHIPPED)):
            if f.endswith(".rules"):
                p = run([MEERKAT, "-T", "-S", os.path.join(SHIPPED, f)], expect_ok=False)
                check(p.returncode == 0, "configs/rules/%s loads: %s" % (f, p.stderr))

    print("%d checks, %d failed" % (checks, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
