#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The full-size floods of docs/security.md: a documented command, not CI.

Writes each flood with gen_attack (a million half-open flows, a quarter
million fragment-flood items, 200 000 segments over 64 sessions, crafted
hash collisions), runs `meerkat -r` on it with the default configuration
(and the SYN flood once per `unreplied` setting), best of --runs, and prints
one table row per run: frames, packets/s, CPU per frame and per flow (the
workers' threads plus the EVE write; the reader thread, which plays the
XDP program's part, apart), peak RSS, EVE bytes, and what each table
refused or evicted, by reason. With --baseline OTHER_MEERKAT every run is
repeated with that binary, interleaved, so that figures compare within one
run on a loaded machine.

usage: run_floods.py --meerkat PATH --gen PATH [--baseline PATH] [--work DIR]
                     [--runs N] [--workers N] [--only syn,frag,seg,hash]
"""
import argparse
import json
import os
import shutil
import subprocess

ap = argparse.ArgumentParser()
ap.add_argument("--meerkat", required=True)
ap.add_argument("--gen", required=True)
ap.add_argument("--baseline")
ap.add_argument("--work", default="/tmp/meerkat-floods")
ap.add_argument("--runs", type=int, default=3)
ap.add_argument("--workers", type=int, default=1)
ap.add_argument("--only", default="syn,frag,seg,hash")
ap.add_argument("--scale", type=float, default=1.0, help="multiply every flood's size (a quick try)")
a = ap.parse_args()
os.makedirs(a.work, exist_ok=True)
SEED = 0x6D65726B


def n(count):
    return str(max(1, int(count * a.scale)))


def gen(mode, *args):
    pcap = os.path.join(a.work, mode + ".pcap")
    subprocess.run([a.gen, mode, "-o", pcap, *args], check=True)
    return pcap


def run(binary, pcap, cfg_text, *args):
    d = os.path.join(a.work, "run")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    cfg = os.path.join(d, "m.yaml")
    with open(cfg, "w") as f:
        f.write(cfg_text)
    st_path = os.path.join(d, "st.json")
    with open(os.path.join(d, "stderr"), "w") as err:
        p = subprocess.Popen([binary, "-r", pcap, "-c", cfg, "-l", d, "--eve-truncate",
                              "--workers", str(a.workers), "--stats-json", st_path, *args],
                             stderr=err)
        # CPU time of this process, every thread (the baseline has no per-thread figures)
        _, status, ru = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status):
        with open(os.path.join(d, "stderr")) as f:
            print(f.read())
    with open(st_path) as f:
        st = json.load(f)
    st["process_cpu_s"] = ru.ru_utime + ru.ru_stime
    st["eve_bytes"] = os.path.getsize(os.path.join(d, "eve.json"))
    return st


def best(binary, pcap, cfg, *args):
    """Least CPU of --runs runs (the other load on the machine only adds)."""
    runs = [run(binary, pcap, cfg, *args) for _ in range(a.runs)]
    return min(runs, key=lambda s: s["process_cpu_s"])


def drops(st):
    out = []
    for group, keys in (("flow", ("flow_end_forced", "flow_chain_evict", "flow_alloc_fail")),
                        ("worker", ("no_flow", "frag_dropped", "flow_unreplied_unlogged")),
                        ("defrag", ("dg_evicted", "dg_memcap", "dg_timeout", "dg_invalid", "dg_oversize",
                                    "dg_too_many_frags", "dg_overlap")),
                        ("stream", ("memcap", "ooo_limit", "out_of_window", "reclaim_ooo_segs",
                                    "reclaim_early_release"))):
        for k in keys:
            v = st.get(group, {}).get(k, 0)
            if v:
                out.append("%s %d" % (k, v))
    return ", ".join(out) or "none"


def row(label, binary, st):
    frames = st["reader"]["read"]
    flows = st["flow"]["flow_created"]
    cpu = st.get("cpu")
    if cpu:
        work = cpu["workers_s"] + cpu["eve_write_s"]
        c = "%.3f / %.3f" % (work / frames * 1e6, work / max(flows, 1) * 1e6)
        r = "%.3f" % cpu["reader_s"]
    else:
        c = r = "n/a"
    peak = st.get("peak_rss_kb")
    print("| %s | %s | %d | %d | %.0f | %.3f / %.3f | %s | %s | %s | %.1f | %s |" % (
        label, binary, frames, flows, frames / st["elapsed_s"],
        st["process_cpu_s"] / frames * 1e6, st["process_cpu_s"] / max(flows, 1) * 1e6, c, r,
        "%d" % (peak // 1024) if peak else "n/a", st["eve_bytes"] / 1e6, drops(st)))


print("| flood | build | frames | flows | packets/s | process CPU us per frame / per flow "
      "| workers + EVE write CPU us per frame / per flow | reader CPU s | peak RSS MB | EVE MB "
      "| refused or evicted, by reason |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
bins = [("branch", a.meerkat)] + ([("baseline", a.baseline)] if a.baseline else [])
only = a.only.split(",")
if "syn" in only:
    pcap = gen("syn", "--count", n(1000000))
    for mode in ("full", "compact", "none"):
        cfg = ("outputs:\n  - eve-log:\n      types:\n        - alert\n        - flow:\n"
               "            unreplied: %s\n" % mode)
        for name, b in bins:
            if name == "baseline":
                if mode != "full":
                    continue
                cfg = ""  # the baseline has no such key: its full records
            row("SYN 1M, unreplied %s" % mode, name, best(b, pcap, cfg))
if "frag" in only:
    pcap = gen("frag", "--count", n(250000))
    for name, b in bins:
        row("fragments 250k items", name, best(b, pcap, ""))
if "seg" in only:
    pcap = gen("seg", "--count", n(200000), "--sessions", "64")
    for name, b in bins:
        row("segments 200k / 64 sessions", name, best(b, pcap, ""))
if "hash" in only:
    pcap = gen("hash", "--count", n(10000), "--seed", str(SEED), "--workers", str(a.workers))
    rnd = gen("syn", "--count", n(10000))
    for name, b in bins:
        st = best(b, pcap, "", "--seed", str(SEED))
        row("hash collisions 10k, seed known", name, st)
        if "workers" in st:
            print("| | | worst chain %s, worst worker share %.3f |" % (
                st["flow"].get("flow_chain_max"), max(w["flows"] for w in st["workers"]) /
                float(st["flow"]["flow_created"])))
        row("10k random flows (same count)", name, best(b, rnd, "", "--seed", str(SEED)))
        st = best(b, pcap, "", "--seed", "random")
        row("hash collisions 10k, random seed", name, st)
        if "workers" in st:
            print("| | | worst chain %s, worst worker share %.3f |" % (
                st["flow"].get("flow_chain_max"), max(w["flows"] for w in st["workers"]) /
                float(st["flow"]["flow_created"])))
