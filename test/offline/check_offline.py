#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Offline-mode end-to-end checks (meson suite 'offline').

usage: check_offline.py MEERKAT GEN_PCAPS WORKDIR EXAMPLE_CONFIG [BENCH_OFFLINE]

Generates the captures, runs `meerkat -r` on every link-type variant with 1
and 2 workers, and checks: flow records equal what the generator put in
(packets and bytes per direction, tunnel object, reason, TCP flags), every
variant and worker count gives byte-identical eve.json, EVE conventions
(51-bit flow_id, timestamp = when logged, community_id against an
independent implementation, no invented fields), ICMP errors accounted to
the flow they quote, decoder errors counted and untracked, -k none, CIDR
bypass, BPF filters, -r DIR, the accounting equation, the command line
(options twice or out of range, --version, message prefixes), eve.json
appended or truncated, a full disk, nested -l directories, --stats-json.
"""
import base64
import hashlib
import json
import os
import shutil
import socket
import struct
import subprocess
import sys

MEERKAT, GEN, WORK, EXAMPLE_CONF = sys.argv[1:5]
BENCH = sys.argv[5] if len(sys.argv) > 5 else None
MEERKATCTL = os.path.join(os.path.dirname(MEERKAT), "meerkatctl")
failures = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def flatten(js):
    """Counters by name: reader, parse errors, worker and flow groups bare, others group.name."""
    out = {}
    for group, vals in js.items():
        if not isinstance(vals, dict) or group == "input_damaged":
            continue
        for k, v in vals.items():
            out[k if group in ("reader", "parse_errors", "worker", "flow") else group + "." + k] = v
    if not js["balanced"]:
        out["mismatch"] = 1
    return out


def meerkat(*args):
    return subprocess.run([MEERKAT, *args], capture_output=True, text=True)


def run(pcap, logdir, *extra, rc=0):
    if os.path.isdir(logdir):
        shutil.rmtree(logdir)
    stats = logdir + ".stats.json"
    p = meerkat("-r", pcap, "-l", logdir, "--stats-json", stats, *extra)
    if p.returncode != rc:
        print(p.stderr)
        raise SystemExit("meerkat exited %d on %s %s" % (p.returncode, pcap, extra))
    with open(os.path.join(logdir, "eve.json"), "rb") as f:
        eve = f.read()
    with open(stats) as f:
        return eve, flatten(json.load(f)), p.stderr


def records(eve):
    return [json.loads(line) for line in eve.decode().splitlines()]


def community_id(proto, src, dst, sport, dport, seed=0):
    """Community ID v1, written from the specification (not from meerkat's code)."""
    fam = socket.AF_INET6 if ":" in src else socket.AF_INET
    sa, da = socket.inet_pton(fam, src), socket.inet_pton(fam, dst)
    one_way = False
    if proto in (1, 58):
        pairs = {1: {8: 0, 0: 8, 13: 14, 14: 13, 15: 16, 16: 15, 10: 9, 17: 18, 18: 17},
                 58: {128: 129, 129: 128, 133: 134, 134: 133, 135: 136, 136: 135, 130: 131, 131: 130,
                      139: 140, 140: 139, 144: 145, 145: 144}}[proto]
        if sport in pairs:
            dport = pairs[sport]
        else:
            one_way = True
    if not one_way and not (sa < da or (sa == da and sport < dport)):
        sa, da, sport, dport = da, sa, dport, sport
    h = hashlib.sha1(struct.pack("!H", seed) + sa + da + struct.pack("BB", proto, 0))
    if proto in (1, 6, 17, 58, 132):
        h.update(struct.pack("!HH", sport, dport))
    return "1:" + base64.b64encode(h.digest()).decode()


PROTO_NUM = {"TCP": 6, "UDP": 17, "ICMP": 1, "IPv6-ICMP": 58, "SCTP": 132}


def record_cid(r, seed=0):
    p = PROTO_NUM[r["proto"]]
    if p in (1, 58):
        return community_id(p, r["src_ip"], r["dest_ip"], r["icmp_type"], r["icmp_code"], seed)
    return community_id(p, r["src_ip"], r["dest_ip"], r.get("src_port", 0), r.get("dest_port", 0), seed)


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
    eve, _, _ = run(pcap, os.path.join(WORK, "out-streams"), "--dump-streams", dump)
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
            # the same ports reused: tshark numbers each session, compare the one that starts alike
            ts, tc = (d0, d1) if cli == node0 else (d1, d0)
            for d, want in (("toserver", ts), ("toclient", tc)):
                path = os.path.join(dump, "%d.%s" % (r["flow_id"], d))
                got = open(path, "rb").read() if os.path.exists(path) else b""
                if got != want and any(x["flow_id"] != r["flow_id"] and
                                       (x["src_ip"], x["src_port"]) == cli for x in recs):
                    continue
                check(got == want, "stream %d %s: %d bytes, tshark %d" % (n, d, len(got), len(want)))
        n += 1
    check(n > 0, "tshark found TCP streams")


def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    hdr, off, recs = data[:24], 24, []
    while off < len(data):
        cap = struct.unpack("<I", data[off + 8:off + 12])[0]
        recs.append(data[off:off + 16 + cap])
        off += 16 + cap
    return hdr, recs


def check_flows(got, exp_flows, what):
    by_tuple = {}
    for r in got:
        by_tuple.setdefault((r["proto"], r["src_ip"], r.get("src_port"), r["dest_ip"], r.get("dest_port")),
                            []).append(r)
    for e in exp_flows:
        t = (e["proto"], e["src_ip"], e["src_port"], e["dest_ip"], e["dest_port"])
        lst = by_tuple.get(t)
        check(bool(lst), "%s: flow %s missing" % (what, t))
        if not lst:
            continue
        r = lst.pop(0)
        for k in ("pkts_toserver", "pkts_toclient", "bytes_toserver", "bytes_toclient"):
            check(r["flow"][k] == e[k], "%s: flow %s %s: got %s want %s" % (what, t, k, r["flow"][k], e[k]))
        if "tunnel" in e:
            check(r.get("tunnel") == e["tunnel"], "%s: flow %s tunnel %s want %s" % (what, t, r.get("tunnel"), e["tunnel"]))
        if "reason" in e:
            check(r["flow"]["reason"] == e["reason"], "%s: flow %s reason %s" % (what, t, r["flow"]["reason"]))
        if "tcp_flags" in e:
            check(r["tcp"]["tcp_flags"] == e["tcp_flags"], "%s: flow %s tcp_flags %s" % (what, t, r["tcp"]["tcp_flags"]))
        if "state" in e:
            check(r["flow"]["state"] == e["state"] and r["tcp"]["state"] == e["state"],
                  "%s: flow %s state %s, tcp.state %s" % (what, t, r["flow"]["state"], r["tcp"]["state"]))
        if "icmp_type" in e:
            check(r["icmp_type"] == e["icmp_type"], "%s: flow %s icmp_type %s" % (what, t, r["icmp_type"]))
    check(len(got) == len(exp_flows), "%s: %d records, %d expected" % (what, len(got), len(exp_flows)))


def main():
    gen_dir = os.path.join(WORK, "pcaps")
    subprocess.run(["/usr/bin/python3", GEN, gen_dir], check=True)
    with open(os.path.join(gen_dir, "expected.json")) as f:
        exp = json.load(f)

    # every link type gives the same records as Ethernet, whatever the worker count
    variants = ["eth.pcap", "eth.pcapng", "raw.pcap", "sll.pcap", "sll2.pcap"] + sorted(exp["link_variants"])
    outputs = {}
    for v in variants:
        # the worker count is a property of the pipeline, not of the link type: 2 once per format
        for w in ((1, 2) if v in ("eth.pcap", "eth.pcapng", "raw.pcap", "sll.pcap", "sll2.pcap", "null.pcap",
                                  "ppp.pcap") else (1,)):
            eve, cnt, _ = run(os.path.join(gen_dir, v), os.path.join(WORK, "out-%s-%d" % (v, w)),
                              "--workers", str(w))
            outputs[(v, w)] = eve
            check("mismatch" not in cnt, "%s w%d: accounting equation" % (v, w))
            check(cnt.get("read") == exp["packets"], "%s w%d: read %s != %d" % (v, w, cnt.get("read"), exp["packets"]))
            check(cnt.get("non_ip") == 0 and cnt.get("link_error") == 0, "%s w%d: every frame is IP" % (v, w))
            check(cnt.get("csum_bad_udp") == exp["bad_udp_csum"], "%s w%d: csum_bad_udp %s" % (v, w, cnt.get("csum_bad_udp")))
            check(cnt.get("csum_bad_tcp") == 0 and cnt.get("csum_bad_ipv4") == 0, "%s w%d: no bad TCP/IPv4 checksums" % (v, w))
            check(cnt.get("frag_held") == exp["fragments"], "%s w%d: frag_held %s != %d" % (v, w, cnt.get("frag_held"), exp["fragments"]))
            for k, n in exp["decode_errors"].items():
                check(cnt.get(k) == n, "%s w%d: %s %s != %d" % (v, w, k, cnt.get(k), n))
            check(cnt.get("decode_error") == sum(exp["decode_errors"].values()), "%s w%d: decode_error" % (v, w))
            for k in ("icmp_error_quoted", "icmp_error_own_flow"):
                check(cnt.get(k) == exp[k], "%s w%d: %s %s != %d" % (v, w, k, cnt.get(k), exp[k]))
    base = outputs[("eth.pcap", 1)]
    for k, eve in outputs.items():
        check(eve == base, "%s with %d worker(s): eve.json differs from eth.pcap/1 worker" % k)

    # expected flows, matched on the 5-tuple in time order
    got = records(base)
    check_flows(got, exp["flows"], "eth.pcap")
    last_ts = max(r["flow"]["end"] for r in got)
    for r in got:
        check(r["event_type"] == "flow" and r["flow"]["reason"] in ("timeout", "shutdown", "tcp_reuse"),
              "record shape %s" % r)
        check(0 < r["flow_id"] < 2 ** 51, "flow_id %d fits in 51 bits" % r["flow_id"])
        check(r["timestamp"] >= r["flow"]["end"], "timestamp %s before flow.end %s" % (r["timestamp"], r["flow"]["end"]))
        if r["flow"]["reason"] == "shutdown":
            check(r["timestamp"] == last_ts, "shutdown logged at the input's last packet: %s" % r["timestamp"])
        check("in_iface" not in r, "no field meerkat cannot know: %s" % r)
        # TCP flows with data: recognised (HTTP, DNS, SMTP), or not (docs/applayer.md)
        check(r.get("app_proto") in (None, "http", "dns", "smtp", "failed") and
              (r["proto"] in ("TCP", "UDP") or "app_proto" not in r), "app_proto: %s" % r)
        check(r.get("community_id") == record_cid(r), "community_id %s" % r)
    reuse = [r for r in got if r.get("src_port") == 42000]
    check(len(reuse) == 2 and reuse[0]["timestamp"] == reuse[1]["flow"]["start"],
          "the reused flow is logged when the new SYN came")

    # raw IPv4-only and IPv6-only link types carry their family's flows
    for v, version in exp["family_variants"].items():
        eve, cnt, _ = run(os.path.join(gen_dir, v), os.path.join(WORK, "out-" + v))
        check("mismatch" not in cnt, "%s: accounting" % v)
        want = [e for e in exp["flows"] if (":" in e["src_ip"]) == (version == 6)]
        check_flows(records(eve), want, v)

    # each link type's non-IP frames and frames shorter than their link header
    for v in ("null_nonip.pcap", "loop_nonip.pcap", "ppp_nonip.pcap", "chdlc_nonip.pcap"):
        eve, cnt, _ = run(os.path.join(gen_dir, v), os.path.join(WORK, "out-" + v))
        check(cnt.get("non_ip") == 1 and cnt.get("link_error") == 1 and "mismatch" not in cnt,
              "%s: non_ip %s link_error %s" % (v, cnt.get("non_ip"), cnt.get("link_error")))

    # the reference configuration holds the defaults: same records
    eve, cnt, _ = run(os.path.join(gen_dir, "eth.pcap"), os.path.join(WORK, "out-example"), "-c", EXAMPLE_CONF)
    check(eve == base, "configs/meerkat.yaml changes flow records")

    # 802.1Q: the vlan array; bytes exclude the tag (docs/flow.md)
    for w in (1, 2):
        eve, cnt, _ = run(os.path.join(gen_dir, "vlan.pcap"), os.path.join(WORK, "out-vlan%d" % w), "--workers", str(w))
        recs = records(eve)
        e = exp["vlan_flow"]
        check(len(recs) == 1, "vlan: %d records" % len(recs))
        if recs:
            r = recs[0]
            check(r.get("vlan") == e["vlan"], "vlan array %s" % r.get("vlan"))
            for k in ("pkts_toserver", "pkts_toclient", "bytes_toserver", "bytes_toclient"):
                check(r["flow"][k] == e[k], "vlan flow %s: got %s want %s" % (k, r["flow"][k], e[k]))

    # -k none: no checksum counting, same flows
    eve, cnt, _ = run(os.path.join(gen_dir, "eth.pcap"), os.path.join(WORK, "out-knone"), "-k", "none")
    check(cnt.get("csum_bad_udp") == 0, "-k none still counts checksums")
    check(eve == base, "-k none changes flow records")

    # CIDR bypass: the resolver's address removes the DNS flow (2 frames)
    conf = os.path.join(WORK, "bypass.yaml")
    with open(conf, "w") as f:
        f.write("# test\nbypass:\n  cidr:\n    - 8.8.8.0/24\n    - 2001:db8:ffff::/48\n")
    for w in (1, 2):
        eve, cnt, _ = run(os.path.join(gen_dir, "sll2.pcap"), os.path.join(WORK, "out-bypass%d" % w), "-c", conf,
                          "--workers", str(w))
        check(cnt.get("cidr_bypass") == 2, "cidr_bypass %s" % cnt.get("cidr_bypass"))
        check(not any(r["dest_ip"] == "8.8.8.8" for r in records(eve)), "bypassed flow logged")
        check(len(records(eve)) == len(exp["flows"]) - 1, "bypass removed more than one flow")

    # a BPF filter as the trailing arguments, on Ethernet and on a loopback capture
    for v in ("eth.pcap", "null.pcap"):
        eve, cnt, _ = run(os.path.join(gen_dir, v), os.path.join(WORK, "out-bpf-" + v), "host", "10.0.0.3")
        recs = records(eve)
        check(cnt.get("filtered") == exp["packets"] - 2 and cnt.get("dispatched") == 2 and "mismatch" not in cnt,
              "%s: filter 'host 10.0.0.3': filtered %s dispatched %s" % (v, cnt.get("filtered"), cnt.get("dispatched")))
        check(len(recs) == 1 and recs[0]["dest_ip"] == "8.8.8.8", "%s: filter keeps the DNS flow only" % v)
    p = meerkat("-r", os.path.join(gen_dir, "eth.pcap"), "-l", os.path.join(WORK, "x"), "tcp", "port")
    check(p.returncode == 1 and "filter 'tcp port'" in p.stderr, "a filter that does not compile: %r" % p.stderr)

    # a bad configuration names file, line, column and key, in one line, and nothing runs
    bad = os.path.join(WORK, "bad.yaml")
    with open(bad, "w") as f:
        f.write("flow:\n  prealloc: 100\nflow-timeouts:\n  tcp:\n    new: lots\n")
    shutil.rmtree(os.path.join(WORK, "x-badconf"), ignore_errors=True)
    p = meerkat("-r", os.path.join(gen_dir, "eth.pcap"), "-l", os.path.join(WORK, "x-badconf"), "-c", bad)
    want = "meerkat: error: %s:5:10: flow-timeouts.tcp.new: 'lots' is not a number in [0, 86400]\n" % bad
    check(p.returncode == 1 and p.stderr == want, "config error message: %r" % p.stderr)
    check(not os.path.exists(os.path.join(WORK, "x-badconf", "eve.json")), "a bad configuration wrote eve.json")

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

    # an unsupported link type is one error naming the file and the type
    user0 = os.path.join(gen_dir, "user0.pcap")
    p = meerkat("-r", user0, "-l", os.path.join(WORK, "x"))
    check(p.returncode == 1 and p.stderr.count("not supported") == 1 and user0 in p.stderr and "link type 147" in p.stderr,
          "link type refused: %r" % p.stderr)

    # -r DIR: every file in name order as one stream; hidden files skipped, unreadable ones named
    hdr, recs = read_pcap(os.path.join(gen_dir, "eth.pcap"))
    d = os.path.join(WORK, "dir")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    half = len(recs) // 2
    with open(os.path.join(d, "b.pcap"), "wb") as f:
        f.write(hdr + b"".join(recs[half:]))
    with open(os.path.join(d, "a.pcap"), "wb") as f:
        f.write(hdr + b"".join(recs[:half]))
    with open(os.path.join(d, ".hidden"), "wb") as f:
        f.write(b"not a capture")
    eve, cnt, _ = run(d, os.path.join(WORK, "out-dir"))
    check(eve == base and cnt.get("files") == 2, "-r DIR: one stream in name order (files %s)" % cnt.get("files"))
    shutil.copy(user0, os.path.join(d, "c.pcap"))
    eve, cnt, err = run(d, os.path.join(WORK, "out-dir2"), rc=1)
    check(eve == base and cnt.get("files_failed") == 1 and "c.pcap" in err,
          "-r DIR: an unreadable file is named, the others still run")

    # the command line: given twice, out of range, versions, message prefixes
    eth = os.path.join(gen_dir, "eth.pcap")
    for args, want in ((["-r", eth, "-r", eth], "--read given twice"),
                       (["--workers", "1", "--workers", "2"], "--workers given twice"),
                       (["--seed", "-1"], "--seed: '-1' is not a number in [0, 4294967295]"),
                       (["--seed", "99999999999"], "--seed: '99999999999' is not a number"),
                       (["--community-id-seed", "65536"], "--community-id-seed: '65536'"),
                       (["--bogus"], "--bogus: unknown option")):
        p = meerkat("-l", os.path.join(WORK, "x"), *args)
        check(p.returncode == 2 and ("meerkat: error: " + want) in p.stderr, "%s: %r" % (args, p.stderr[:200]))
    # --workers is checked by the configuration, after the file: a configuration error (1)
    for args, want in ((["--workers", "0"], "--workers: '0' is not a number in [1, 64]"),
                       (["--workers", "65"], "--workers: '65'")):
        p = meerkat("-r", eth, "-l", os.path.join(WORK, "x"), *args)
        check(p.returncode == 1 and ("meerkat: error: " + want) in p.stderr, "%s: %r" % (args, p.stderr[:200]))
    p = meerkat("--version")
    check(p.returncode == 0 and p.stdout.startswith("meerkat "), "meerkat --version")
    p = subprocess.run([MEERKATCTL, "--version"], capture_output=True, text=True)
    check(p.returncode == 0 and p.stdout.startswith("meerkatctl "), "meerkatctl --version: %r" % p.stdout)
    p = subprocess.run([MEERKATCTL, "nosuch"], capture_output=True, text=True)
    check(p.returncode == 2 and "meerkatctl: error: unknown command 'nosuch'" in p.stderr, "meerkatctl prefix: %r" % p.stderr)
    p = subprocess.run([MEERKATCTL, "-v", "-v", "stats", "--help"], capture_output=True, text=True)
    check(p.returncode == 0, "meerkatctl passes the command's own options on: %r" % p.stderr)

    # the summary is short by default, every counter with -v
    _, _, err = run(eth, os.path.join(WORK, "out-short"))
    check("accounting: ok" in err and "outcomes:" in err and "\n  flow_pkt" not in err, "short summary: %r" % err)
    _, _, err = run(eth, os.path.join(WORK, "out-long"), "-v")
    check("\n  flow_pkt " in err and "\n  stream.sessions" in err, "-v dumps every counter")

    # Community ID: seed and switch
    eve, _, _ = run(eth, os.path.join(WORK, "out-cid1"), "--community-id-seed", "1")
    check(all(r["community_id"] == record_cid(r, 1) for r in records(eve)), "--community-id-seed 1")
    eve, _, _ = run(eth, os.path.join(WORK, "out-cid0"), "--no-community-id")
    check(all("community_id" not in r for r in records(eve)), "--no-community-id")

    # eve.json is appended to unless --eve-truncate
    out = os.path.join(WORK, "out-append")
    shutil.rmtree(out, ignore_errors=True)
    for extra in ((), ()):
        meerkat("-r", eth, "-l", out, *extra)
    with open(os.path.join(out, "eve.json"), "rb") as f:
        check(f.read() == base + base, "a second run appends")
    meerkat("-r", eth, "-l", out, "--eve-truncate")
    with open(os.path.join(out, "eve.json"), "rb") as f:
        check(f.read() == base, "--eve-truncate starts over")

    # a full disk: the real errno naming the file, records counted as lost, exit 1
    if os.access("/dev/full", os.W_OK):
        full = os.path.join(WORK, "out-full")
        shutil.rmtree(full, ignore_errors=True)
        os.makedirs(full)
        os.symlink("/dev/full", os.path.join(full, "eve.json"))
        stats = os.path.join(WORK, "full.json")
        p = meerkat("-r", eth, "-l", full, "--stats-json", stats)
        cnt = flatten(json.load(open(stats)))
        check(p.returncode == 1 and "eve.json: No space left on device" in p.stderr and
              cnt.get("eve.lost") == len(exp["flows"]) and cnt.get("eve.written") == 0,
              "full disk: %r %s" % (p.stderr, cnt.get("eve.lost")))
    else:
        print("SKIP: full disk (no /dev/full)")

    # -l creates missing parents, or says which one it cannot create
    nested = os.path.join(WORK, "n1", "n2", "n3")
    shutil.rmtree(os.path.join(WORK, "n1"), ignore_errors=True)
    p = meerkat("-r", eth, "-l", nested)
    check(p.returncode == 0 and os.path.exists(os.path.join(nested, "eve.json")), "-l a/b/c creates all")
    blocker = os.path.join(WORK, "blocker")
    open(blocker, "w").close()
    p = meerkat("-r", eth, "-l", os.path.join(blocker, "sub", "dir"))
    check(p.returncode == 1 and ("%s: exists and is not a directory" % blocker) in p.stderr,
          "-l under a file names the component: %r" % p.stderr)

    # a BPF filter is for -r (refused before any interface is touched)
    p = meerkat("-i", "mk-none0", "-l", WORK, "tcp")
    check(p.returncode == 2 and "unexpected argument 'tcp'" in p.stderr, "-i with a filter: %r" % p.stderr)

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
            eve, cnt, _ = run(mixed, os.path.join(WORK, "out-mixed%d" % w), "--workers", str(w))
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
