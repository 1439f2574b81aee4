#!/usr/bin/python3
"""Offline mode over the testbench's sample traffic (malformed frames included).

Regression for a crash on IP packets without an L4 header, and a live/offline
agreement check: the frames the XDP program is expected to pass as non-IP or
as errors (sample.json, computed by the traffic generator) are exactly the
ones `meerkat -r` counts as non_ip and parse_error, reason by reason.

usage: check_sample.py MEERKAT SAMPLE.PCAP SAMPLE.JSON WORKDIR
"""
import json
import os
import subprocess
import sys

meerkat, pcap, expect_path, workdir = sys.argv[1:5]
expect = json.load(open(expect_path))["counters"]
failed = 0


def check(ok, what):
    global failed
    print(("ok   " if ok else "FAIL ") + what)
    failed += not ok


for workers in (1, 2):
    logdir = os.path.join(workdir, "sample-w%d" % workers)
    os.makedirs(logdir, exist_ok=True)
    stats = os.path.join(logdir, "stats.json")
    run = subprocess.run([meerkat, "-r", pcap, "-l", logdir, "--workers", str(workers), "--eve-truncate",
                          "--stats-json", stats], capture_output=True, text=True, timeout=60)
    check(run.returncode == 0, "%d worker(s): meerkat -r exits 0 (got %d)" % (workers, run.returncode))
    js = json.load(open(stats))
    got = dict(js["reader"])
    got.update(js["parse_errors"])
    check(js["balanced"], "accounting balanced")
    check(got.get("read") == sum(1 for _ in open(pcap.replace(".pcap", ".txt"))),
          "every frame read (%s)" % got.get("read"))
    check(got.get("non_ip") == expect.get("pass_non_ip", 0),
          "non_ip %s == live pass_non_ip %s" % (got.get("non_ip"), expect.get("pass_non_ip", 0)))
    check(got.get("parse_error") == expect.get("pass_error", 0),
          "parse_error %s == live pass_error %s" % (got.get("parse_error"), expect.get("pass_error", 0)))
    for name, want in sorted(expect.items()):
        if name.startswith("err_"):
            check(got.get(name, 0) == want, "%s: offline %s == live %s" % (name, got.get(name, 0), want))
    flows = [json.loads(line) for line in open(os.path.join(logdir, "eve.json"))]
    check(len(flows) > 0 and all(f["event_type"] == "flow" for f in flows),
          "%d flow records written" % len(flows))

print("%d failed" % failed)
sys.exit(1 if failed else 0)
