#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Reader threads (meson suite 'offline'): the output does not depend on them.

usage: check_reader.py MEERKAT BENCH_OFFLINE WORKDIR

Writes bench_offline's mixed capture (tunnels, fragments, many flows over
many seconds), then runs `meerkat -r` with 1, 2, 3 and 5 reader threads
and 1, 2 and 3 workers on: the capture; a directory of it cut into uneven
files; and the same directory with a file that is no capture, an empty
one and one damaged in its middle between the good ones. Within each
input every run must give the same eve.json (stats events aside), the same
reader, parse-error and eve counters, a balanced account, the same messages
on stderr in the same order (the run's timing line aside) and the same exit
status; the stats must say how many reader threads ran (one per file at
most, plus the dispatcher). Also: a BPF filter (and one that does not
compile), rules with threshold filters, --reader-threads out of range, and
capture.reader-threads from the file.
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys

MEERKAT, BENCH, WORK = sys.argv[1:4]
THREADS = (1, 2, 3, 5)
WORKERS = (1, 2, 3)
failures = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def pcap_records(path):
    """(file header, [records as bytes]) of a little-endian microsecond pcap."""
    with open(path, "rb") as f:
        data = f.read()
    hdr, off, recs = data[:24], 24, []
    while off + 16 <= len(data):
        caplen = struct.unpack_from("<I", data, off + 8)[0]
        recs.append(data[off:off + 16 + caplen])
        off += 16 + caplen
    return hdr, recs


def write_dir(path, hdr, recs, cuts, extra=()):
    """RECS cut at CUTS into files 00.pcap, 01.pcap, ...; EXTRA: (name, bytes) added."""
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    bounds = [0] + list(cuts) + [len(recs)]
    for i in range(len(bounds) - 1):
        with open(os.path.join(path, "%02d.pcap" % i), "wb") as f:
            f.write(hdr + b"".join(recs[bounds[i]:bounds[i + 1]]))
    for name, data in extra:
        with open(os.path.join(path, name), "wb") as f:
            f.write(data)
    return len(bounds) - 1 + len(extra)


def run(inp, threads, workers):
    out = os.path.join(WORK, "out-t%d-w%d" % (threads, workers))
    shutil.rmtree(out, ignore_errors=True)
    stats = out + ".json"
    p = subprocess.run([MEERKAT, "-r", inp, "-l", out, "--stats-json", stats, "--workers", str(workers),
                        "--reader-threads", str(threads), "-v"], capture_output=True, text=True, timeout=120)
    with open(os.path.join(out, "eve.json"), "rb") as f:
        eve = b"".join(line for line in f if b'"event_type":"stats"' not in line)
    with open(stats) as f:
        st = json.load(f)
    # the timing line, the per-run thread counts and the counters that measure waits
    err = [line for line in p.stderr.splitlines()
           if not re.search(r" in [0-9.]+ s \(| reader thread\(s\)|^  (queue_full_waits|worker_rx) ", line)]
    return p.returncode, eve, st, err


def check_input(name, inp, nfiles, rc_want):
    base = None
    for t in THREADS:
        for w in WORKERS:
            rc, eve, st, err = run(inp, t, w)
            what = "%s, %d reader thread(s), %d worker(s)" % (name, t, w)
            check(rc == rc_want, "%s: exit %d, want %d" % (what, rc, rc_want))
            check(st["balanced"], "%s: accounting" % what)
            check(st["reader_threads"] == min(t, nfiles + 1),
                  "%s: reader_threads %s, want %d" % (what, st["reader_threads"], min(t, nfiles + 1)))
            check((st["cpu"]["read_threads_s"] > 0) == (t > 1), "%s: read threads' CPU time %s"
                  % (what, st["cpu"]["read_threads_s"]))
            got = (eve, st["reader"], st["parse_errors"], st["eve"], st["worker"]["flows_logged"], st["bytes_read"])
            if base is None:
                base = got
                base_err = {w: err}
                check(len(eve.splitlines()) > 1000, "%s: %d records" % (what, len(eve.splitlines())))
                continue
            check(got[0] == base[0], "%s: eve.json differs from 1 thread, 1 worker" % what)
            check(got[1:] == base[1:], "%s: counters differ: %s" % (what, [a for a, b in zip(got[1:], base[1:]) if a != b]))
            # the summary's worker counters depend on the worker count, the messages' order must not
            if w in base_err:
                check(err == base_err[w], "%s: stderr differs:\n%s\n--- vs ---\n%s"
                      % (what, "\n".join(err), "\n".join(base_err[w])))
            else:
                base_err[w] = err
    return base


def main():
    os.makedirs(WORK, exist_ok=True)
    mixed = os.path.join(WORK, "mixed.pcap")
    subprocess.run([BENCH, "--packets", "60000", "--runs", "1", "--keep", mixed], check=True,
                   capture_output=True)
    hdr, recs = pcap_records(mixed)
    check(len(recs) == 60000 and struct.unpack_from("<I", hdr)[0] == 0xa1b2c3d4, "mixed.pcap: %d records" % len(recs))

    single = check_input("file", mixed, 1, 0)
    # uneven files: one of 7 records, one of 1, larger ones
    cuts = (7, 8, 9000, 21000, 22000, 40000)
    d = os.path.join(WORK, "dir")
    n = write_dir(d, hdr, recs, cuts)
    split = check_input("directory", d, n, 0)
    check(split[0] == single[0] and split[2:] == single[2:], "a directory of the capture cut into files differs from the capture")

    # between good files: no capture at all, an empty file, one damaged in a record
    bad = os.path.join(WORK, "dir-bad")
    damaged = hdr + b"".join(recs[:50]) + recs[50][:30]
    n = write_dir(bad, hdr, recs[:30000], (5000, 12000, 20000),
                  (("01a-not-a-capture", b"not a capture at all"), ("01b-empty", b""),
                   ("02a-damaged.pcap", damaged)))
    check_input("directory with bad files", bad, n, 1)

    # a BPF filter; one that does not compile stops the run at the first file, read ahead or not
    outs = []
    for t in (1, 4):
        out = os.path.join(WORK, "out-filter-t%d" % t)
        shutil.rmtree(out, ignore_errors=True)
        p = subprocess.run([MEERKAT, "-r", d, "-l", out, "--reader-threads", str(t), "--workers", "2",
                            "--stats-json", out + ".json", "udp"], capture_output=True, text=True)
        with open(out + ".json") as f:
            st = json.load(f)
        with open(os.path.join(out, "eve.json"), "rb") as f:
            outs.append((p.returncode, f.read(), st["reader"]))
        check(st["balanced"] and st["reader"]["filtered"] > 0, "filter udp, %d thread(s): %s" % (t, st["reader"]))
        p = subprocess.run([MEERKAT, "-r", d, "-l", out, "--reader-threads", str(t), "tcp", "port"],
                           capture_output=True, text=True)
        check(p.returncode == 1 and p.stderr.count("filter 'tcp port'") == 1 and "packets" not in p.stderr,
              "a filter that does not compile, %d thread(s): %r" % (t, p.stderr))
    check(outs[0] == outs[1], "filter udp: 1 and 4 reader threads differ")

    # with rules: alerts and the writer's threshold filters do not depend on the threads either
    rules = os.path.join(WORK, "reader.rules")
    with open(rules, "w") as f:
        f.write('alert tcp any any -> any any (msg:"tcp"; flow:established; '
                'threshold: type limit, track by_src, count 1, seconds 60; sid:1;)\n'
                'alert udp any any -> any any (msg:"udp"; '
                'threshold: type limit, track by_dst, count 2, seconds 1; sid:2;)\n')
    outs = set()
    for t in (1, 3):
        for w in (1, 3):
            out = os.path.join(WORK, "out-rules-t%d-w%d" % (t, w))
            shutil.rmtree(out, ignore_errors=True)
            p = subprocess.run([MEERKAT, "-r", d, "-l", out, "-S", rules, "--reader-threads", str(t),
                                "--workers", str(w)], capture_output=True, text=True)
            with open(os.path.join(out, "eve.json"), "rb") as f:
                eve = f.read()
            check(p.returncode == 0 and eve.count(b'"event_type":"alert"') > 10,
                  "rules, %d thread(s), %d worker(s): exit %d, %d alerts"
                  % (t, w, p.returncode, eve.count(b'"event_type":"alert"')))
            outs.add(eve)
    check(len(outs) == 1, "rules: eve.json differs between reader threads and workers")

    # the option's range, and the key from the file
    p = subprocess.run([MEERKAT, "-r", mixed, "--reader-threads", "17"], capture_output=True, text=True)
    check(p.returncode == 2 and "--reader-threads" in p.stderr, "--reader-threads 17: %r" % p.stderr)
    conf = os.path.join(WORK, "threads.yaml")
    with open(conf, "w") as f:
        f.write("capture:\n  reader-threads: 3\n")
    p = subprocess.run([MEERKAT, "-c", conf, "--dump-config"], capture_output=True, text=True)
    check("capture.reader-threads = 3" in p.stdout, "capture.reader-threads from the file: %r" % p.stdout[-300:])
    p = subprocess.run([MEERKAT, "-c", conf, "--reader-threads", "2", "--dump-config"], capture_output=True, text=True)
    check("capture.reader-threads = 2" in p.stdout, "--reader-threads overrides the file")
    out = os.path.join(WORK, "out-conf")
    shutil.rmtree(out, ignore_errors=True)
    p = subprocess.run([MEERKAT, "-c", conf, "-r", d, "-l", out, "--stats-json", out + ".json"],
                       capture_output=True, text=True)
    with open(out + ".json") as f:
        check(json.load(f)["reader_threads"] == 3, "capture.reader-threads: 3 is used")

    print("%d checks, %d failed" % (checks, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
