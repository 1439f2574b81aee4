#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Offline-mode end-to-end checks (meson suite 'offline').

usage: check_offline.py MEERKAT GEN_PCAPS WORKDIR EXAMPLE_CONFIG [BENCH_OFFLINE]

Generates the captures, runs `meerkat -r` on every variant with 1 and 2
workers, and checks: flow records equal what the generator put in (packets
and bytes per direction, tunnel object), every variant and worker count
gives byte-identical eve.json, -k none stops checksum counting, CIDR bypass
removes the flow and counts it, and the accounting equation holds. Checks
that need an engine not compiled in (defrag, stream) are reported as skipped.
"""
import json
import os
import shutil
import subprocess
import sys

MEERKAT, GEN, WORK, EXAMPLE_CONF = sys.argv[1:5]
BENCH = sys.argv[5] if len(sys.argv) > 5 else None
failures = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(pcap, logdir, *extra):
    if os.path.isdir(logdir):
        shutil.rmtree(logdir)
    p = subprocess.run([MEERKAT, "-r", pcap, "-l", logdir, *extra], capture_output=True, text=True)
    if p.returncode != 0:
        print(p.stderr)
        raise SystemExit("meerkat failed on %s %s" % (pcap, extra))
    counters = {}
    for line in p.stderr.splitlines():
        parts = line.split()
        if len(parts) == 2 and line.startswith("  ") and parts[1].isdigit():
            counters[parts[0]] = int(parts[1])
        if "ACCOUNTING MISMATCH" in line:
            counters["mismatch"] = 1
    with open(os.path.join(logdir, "eve.json"), "rb") as f:
        eve = f.read()
    return eve, counters


def records(eve):
    return [json.loads(line) for line in eve.decode().splitlines()]


def tshark_follow(pcap, n):
    """(node0, node1, bytes from node 0, bytes from node 1) of TCP stream n, or None."""
    p = subprocess.run(["tshark", "-r", pcap, "-q", "-z", "follow,tcp,raw,%d" % n],
                       capture_output=True, text=True)
    nodes, data = [], [bytearray(), bytearray()]
    for line in p.stdout.splitlines():
        if line.startswith("Node "):
            host, port = line.split(": ", 1)[1].rsplit(":", 1)
            nodes.append((host.strip("[]"), int(port)))
        elif line and not line.startswith(("=", "Follow", "Filter")) and all(
                c in "0123456789abcdef" for c in line.strip()):
            data[1 if line.startswith("\t") else 0] += bytes.fromhex(line.strip())
    if len(nodes) != 2 or nodes[0][1] == 0:
        return None
    return nodes[0], nodes[1], bytes(data[0]), bytes(data[1])


def check_streams(gen_dir):
    """Reassembled streams from --dump-streams equal tshark's, byte for byte."""
    pcap = os.path.join(gen_dir, "eth.pcap")
    dump = os.path.join(WORK, "streams")
    shutil.rmtree(dump, ignore_errors=True)
    eve, _ = run(pcap, os.path.join(WORK, "out-streams"), "--dump-streams", dump)
    recs = [r for r in records(eve) if r["proto"] == "TCP"]
    n = 0
    while True:
        st = tshark_follow(pcap, n)
        if st is None:
            break
        node0, node1, d0, d1 = st
        for r in recs:
            cli, srv = (r["src_ip"], r["src_port"]), (r["dest_ip"], r["dest_port"])
            if {cli, srv} != {node0, node1}:
                continue
            ts, tc = (d0, d1) if cli == node0 else (d1, d0)
            for d, want in (("toserver", ts), ("toclient", tc)):
                path = os.path.join(dump, "%d.%s" % (r["flow_id"], d))
                got = open(path, "rb").read() if os.path.exists(path) else b""
                check(got == want, "stream %d %s: %d bytes, tshark %d" % (n, d, len(got), len(want)))
        n += 1
    check(n > 0, "tshark found TCP streams")


def main():
    gen_dir = os.path.join(WORK, "pcaps")
    subprocess.run(["/usr/bin/python3", GEN, gen_dir], check=True)
    with open(os.path.join(gen_dir, "expected.json")) as f:
        exp = json.load(f)

    variants = ["eth.pcap", "eth.pcapng", "raw.pcap", "sll.pcap", "sll2.pcap"]
    outputs = {}
    for v in variants:
        for w in (1, 2):
            eve, cnt = run(os.path.join(gen_dir, v), os.path.join(WORK, "out-%s-%d" % (v, w)),
                           "--workers", str(w))
            outputs[(v, w)] = eve
            check("mismatch" not in cnt, "%s w%d: accounting equation" % (v, w))
            check(cnt.get("read") == exp["packets"], "%s w%d: read %s != %d" % (v, w, cnt.get("read"), exp["packets"]))
            check(cnt.get("csum_bad_udp") == exp["bad_udp_csum"], "%s w%d: csum_bad_udp %s" % (v, w, cnt.get("csum_bad_udp")))
            check(cnt.get("csum_bad_tcp") == 0 and cnt.get("csum_bad_ipv4") == 0, "%s w%d: no bad TCP/IPv4 checksums" % (v, w))
            check(cnt.get("frag_held") == exp["fragments"], "%s w%d: frag_held %s != %d" % (v, w, cnt.get("frag_held"), exp["fragments"]))

    base = outputs[("eth.pcap", 1)]
    for k, eve in outputs.items():
        check(eve == base, "%s with %d worker(s): eve.json differs from eth.pcap/1 worker" % k)

    # expected flows, matched on the 5-tuple in time order
    got = records(base)
    for r in got:
        check(r["event_type"] == "flow" and r["flow"]["reason"] in ("timeout", "shutdown"), "record shape %s" % r)
    by_tuple = {}
    for r in got:
        by_tuple.setdefault((r["proto"], r["src_ip"], r.get("src_port"), r["dest_ip"], r.get("dest_port")), []).append(r)
    nexpected = 0
    for e in exp["flows"]:
        t = (e["proto"], e["src_ip"], e["src_port"], e["dest_ip"], e["dest_port"])
        nexpected += 1
        lst = by_tuple.get(t)
        check(bool(lst), "flow %s missing" % (t,))
        if not lst:
            continue
        r = lst.pop(0)
        for k in ("pkts_toserver", "pkts_toclient", "bytes_toserver", "bytes_toclient"):
            check(r["flow"][k] == e[k], "flow %s %s: got %s want %s" % (t, k, r["flow"][k], e[k]))
        if "tunnel" in e:
            check(r.get("tunnel") == e["tunnel"], "flow %s tunnel %s want %s" % (t, r.get("tunnel"), e["tunnel"]))
    check(len(got) == nexpected, "%d records, %d expected" % (len(got), nexpected))

    # the reference configuration holds the defaults: same records
    eve, cnt = run(os.path.join(gen_dir, "eth.pcap"), os.path.join(WORK, "out-example"), "-c", EXAMPLE_CONF)
    check(eve == base, "configs/meerkat.yaml changes flow records")

    # 802.1Q: the vlan array; bytes exclude the tag (docs/flow.md)
    for w in (1, 2):
        eve, cnt = run(os.path.join(gen_dir, "vlan.pcap"), os.path.join(WORK, "out-vlan%d" % w), "--workers", str(w))
        recs = records(eve)
        e = exp["vlan_flow"]
        check(len(recs) == 1, "vlan: %d records" % len(recs))
        if recs:
            r = recs[0]
            check(r.get("vlan") == e["vlan"], "vlan array %s" % r.get("vlan"))
            for k in ("pkts_toserver", "pkts_toclient", "bytes_toserver", "bytes_toclient"):
                check(r["flow"][k] == e[k], "vlan flow %s: got %s want %s" % (k, r["flow"][k], e[k]))

    # -k none: no checksum counting, same flows
    eve, cnt = run(os.path.join(gen_dir, "eth.pcap"), os.path.join(WORK, "out-knone"), "-k", "none")
    check(cnt.get("csum_bad_udp") == 0, "-k none still counts checksums")
    check(eve == base, "-k none changes flow records")

    # CIDR bypass: the resolver's address removes the DNS flow (2 frames)
    conf = os.path.join(WORK, "bypass.yaml")
    with open(conf, "w") as f:
        f.write("# test\nbypass:\n  cidr:\n    - 8.8.8.0/24\n    - 2001:db8:ffff::/48\n")
    for w in (1, 2):
        eve, cnt = run(os.path.join(gen_dir, "sll2.pcap"), os.path.join(WORK, "out-bypass%d" % w), "-c", conf,
                       "--workers", str(w))
        check(cnt.get("cidr_bypass") == 2, "cidr_bypass %s" % cnt.get("cidr_bypass"))
        check(not any(r["dest_ip"] == "8.8.8.8" for r in records(eve)), "bypassed flow logged")
        check(len(records(eve)) == nexpected - 1, "bypass removed more than one flow")

    # a bad configuration names file, line, column and key, in one line, and nothing runs
    bad = os.path.join(WORK, "bad.yaml")
    with open(bad, "w") as f:
        f.write("flow:\n  prealloc: 100\nflow-timeouts:\n  tcp:\n    new: lots\n")
    p = subprocess.run([MEERKAT, "-r", os.path.join(gen_dir, "eth.pcap"), "-l", os.path.join(WORK, "x"), "-c", bad],
                       capture_output=True, text=True)
    want = "meerkat: error: %s:5:10: flow-timeouts.tcp.new: 'lots' is not a number in [0, 86400]\n" % bad
    check(p.returncode == 1 and p.stderr == want, "config error message: %r" % p.stderr)
    check(not os.path.exists(os.path.join(WORK, "x", "eve.json")), "a bad configuration wrote eve.json")

    # outputs.eve-log: another file name, appended to unless append: no
    conf = os.path.join(WORK, "eve.yaml")
    logdir = os.path.join(WORK, "out-append")
    with open(conf, "w") as f:
        f.write("outputs:\n  - eve-log:\n      filename: flows.json\n      types: [flow]\n")
    if os.path.isdir(logdir):
        shutil.rmtree(logdir)
    for _ in range(2):
        subprocess.run([MEERKAT, "-r", os.path.join(gen_dir, "eth.pcap"), "-l", logdir, "-c", conf],
                       capture_output=True, check=True)
    with open(os.path.join(logdir, "flows.json"), "rb") as f:
        check(f.read() == base + base, "eve-log append: yes keeps the first run's records")
    with open(conf, "a") as f:
        f.write("      append: no\n")
    subprocess.run([MEERKAT, "-r", os.path.join(gen_dir, "eth.pcap"), "-l", logdir, "-c", conf],
                   capture_output=True, check=True)
    with open(os.path.join(logdir, "flows.json"), "rb") as f:
        check(f.read() == base, "eve-log append: no truncates")
    check(not os.path.exists(os.path.join(logdir, "eve.json")), "eve.json written besides filename")

    # an unsupported link type is refused with its name
    p = subprocess.run([MEERKAT, "-r", os.path.join(gen_dir, "null.pcap"), "-l", os.path.join(WORK, "x")],
                       capture_output=True, text=True)
    check(p.returncode != 0 and "not supported" in p.stderr and "NULL" in p.stderr, "link type refused: %r" % p.stderr)

    # live mode on an interface that does not exist: one clear error, nothing attached
    # (a name no host has, so that this test never touches a real interface)
    p = subprocess.run([MEERKAT, "-i", "mk-none0", "-l", WORK, "--unix-socket", ""],
                       capture_output=True, text=True, timeout=30)
    check(p.returncode == 1 and p.stderr == "meerkat: error: mk-none0: no such interface\n",
          "-i on a missing interface: %r" % p.stderr)
    # -r and -i together, or nothing to capture: usage errors
    p = subprocess.run([MEERKAT, "-r", os.path.join(gen_dir, "eth.pcap"), "-i", "mk-none0"],
                       capture_output=True, text=True)
    check(p.returncode == 2 and "-r and -i exclude each other" in p.stderr, "-r with -i: %r" % p.stderr)
    p = subprocess.run([MEERKAT, "-l", WORK], capture_output=True, text=True)
    check(p.returncode == 2 and "nothing to capture" in p.stderr, "no -r, no interface: %r" % p.stderr)

    # many interleaved flows over many seconds: 1, 2 and 3 workers agree
    if BENCH:
        mixed = os.path.join(WORK, "mixed.pcap")
        subprocess.run([BENCH, "--packets", "60000", "--runs", "1", "--keep", mixed], check=True,
                       capture_output=True)
        outs = []
        for w in (1, 2, 3):
            eve, cnt = run(mixed, os.path.join(WORK, "out-mixed%d" % w), "--workers", str(w))
            outs.append(eve)
            check("mismatch" not in cnt and cnt.get("flow_emergency") == 0, "mixed w%d counters" % w)
        check(len(records(outs[0])) > 1000, "mixed: %d flows" % len(records(outs[0])))
        check(outs[0] == outs[1] == outs[2], "mixed capture: 1, 2 and 3 workers differ")

    if shutil.which("tshark") is None:
        print("SKIP: reassembled streams vs tshark (tshark missing)")
    else:
        check_streams(gen_dir)

    print("%d checks, %d failed" % (checks, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
