#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Offline reader threads: wall and CPU seconds of `meerkat -r` per setting.

usage: bench_reader.py [--meerkat BIN] [--base BIN] [--runs N] [--workers 1,2]
                       [--threads 1,2,3] INPUT...

For each INPUT (a capture or a directory), worker count and reader-thread
count, runs `BIN -r INPUT -l DIR --eve-truncate --workers W
--reader-threads T --stats-json FILE` --runs times, the settings
interleaved so that other load spreads over all of them, and prints the
median [lowest-highest] wall seconds, the median CPU seconds of the process
(user + system), its peak resident memory, and from --stats-json the CPU
seconds of the dispatcher (`reader`), of the read threads together (`read`)
and of the workers together. --base BIN adds the same runs of another build
(one made from main, say) without --reader-threads. Every run of an input
must give the same eve.json (stats events aside): the script says so, or
fails. docs/performance.md, section 5, has the figures of record.
"""
import argparse
import hashlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def run_once(binary, inp, workers, threads, work):
    out = os.path.join(work, "out")
    stats = os.path.join(work, "stats.json")
    shutil.rmtree(out, ignore_errors=True)
    cmd = [binary, "-r", inp, "-l", out, "--eve-truncate", "--workers", str(workers), "--stats-json", stats]
    if threads:
        cmd += ["--reader-threads", str(threads)]
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    err = p.stderr.read().decode()
    p.stderr.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode:
        raise SystemExit("%s exited %d:\n%s" % (" ".join(cmd), p.returncode, err))
    with open(stats) as f:
        st = json.load(f)
    h = hashlib.sha256()
    with open(os.path.join(out, "eve.json"), "rb") as f:
        for line in f:
            if b'"event_type":"stats"' not in line:
                h.update(line)
    cpu = st["cpu"]
    return {"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "rss_mb": ru.ru_maxrss / 1024,
            "reader": cpu["reader_s"], "read": cpu.get("read_threads_s", 0.0), "workers": cpu["workers_s"],
            "eve": h.hexdigest()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--meerkat", default="./build/userspace/meerkat")
    ap.add_argument("--base")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--threads", default="1,2,3")
    ap.add_argument("inputs", nargs="+")
    a = ap.parse_args()
    workers = [int(x) for x in a.workers.split(",")]
    threads = [int(x) for x in a.threads.split(",")]
    settings = [(inp, w, "base", 0) for inp in a.inputs for w in workers] if a.base else []
    for inp in a.inputs:
        for w in workers:
            for t in threads:
                # more threads than one per file and the dispatcher do nothing more
                if os.path.isdir(inp) or t <= 2:
                    settings.append((inp, w, "new", t))
    settings.sort(key=lambda s: (a.inputs.index(s[0]), s[1], s[2] != "base", s[3]))
    res = {s: [] for s in settings}
    work = tempfile.mkdtemp(prefix="bench_reader.")
    try:
        for _ in range(a.runs):
            for s in settings:
                binary = a.base if s[2] == "base" else a.meerkat
                res[s].append(run_once(binary, s[0], s[1], s[3], work))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%-14s %2s %-7s %-20s %5s %6s | %7s %7s %7s" % ("input", "w", "build", "wall s, median [range]",
                                                         "cpu s", "rss MB", "reader", "read", "workers"))
    same = True
    for s in settings:
        v = res[s]

        def med(k):
            return statistics.median(x[k] for x in v)
        walls = [x["wall"] for x in v]
        name = "main" if s[2] == "base" else "t%d" % s[3]
        print("%-14s %2d %-7s %5.2f [%4.2f-%4.2f]     %5.2f %6d | %7.3f %7.3f %7.3f"
              % (os.path.basename(s[0].rstrip("/")), s[1], name, med("wall"), min(walls), max(walls), med("cpu"),
                 med("rss_mb"), med("reader"), med("read"), med("workers")))
    for inp in a.inputs:
        digests = {x["eve"] for s in settings if s[0] == inp for x in res[s]}
        if len(digests) != 1:
            same = False
        print("%s: eve.json identical in every run: %s" % (inp, "yes" if len(digests) == 1 else "NO"))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
