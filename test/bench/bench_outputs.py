#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The EVE outputs' benchmark (docs/outputs.md, docs/performance.md).

usage: bench_outputs.py [BUILD_DIR] [--flows N] [--records N] [--rounds R]

1. Records per second through one writer thread, per sink (bench_outputs):
   a regular file, unix_stream, unix_dgram and syslog (their readers are
   socat processes writing to /dev/null), Redis (a redis-server on a unix
   socket, list mode, pipelined) and Kafka (librdkafka's mock cluster,
   build/test/outputs/mock_kafka), N records of a real eve.json.
2. The offline run's cost with each sink (the packet path: the workers
   render, the outputs take): meerkat -r on a pcap of --flows one-packet UDP
   flows (one flow record each), with a file, a unix_stream socket, both,
   Redis and Kafka, R rounds interleaved; the median wall time and CPU time
   (user + sys of meerkat) and their ratios to the file's, measured in the
   same run. Redis and Kafka are left out when redis-server or mock_kafka
   is missing (said in the output).

More sinks are rows of SINKS below: a name, the eve-log settings (YAML,
indented 6) with {dir} for the scratch directory and {boot} for the Kafka
cluster's servers, and the reader or service to start first (a command
whose socket argument it waits for, or None).
"""
import json
import os
import resource
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

args = sys.argv[1:]
build = args.pop(0) if args and not args[0].startswith("--") else "build"
opts = dict(zip(args[::2], args[1::2]))
FLOWS = int(opts.get("--flows", 200000))
RECORDS = int(opts.get("--records", 500000))
ROUNDS = int(opts.get("--rounds", 3))
MEERKAT = os.path.join(build, "userspace", "meerkat")
BENCH = os.path.join(build, "test", "bench", "bench_outputs")
MOCK_KAFKA = os.path.join(build, "test", "outputs", "mock_kafka")

# name, eve-log settings, reader command (None: none)
SINKS = [
    ("file", "filetype: regular\n      filename: {dir}/bench.json", None),
    ("unix_stream", "filetype: unix_stream\n      filename: {dir}/s.sock",
     ["socat", "-u", "UNIX-LISTEN:{dir}/s.sock", "OPEN:/dev/null"]),
    ("unix_dgram", "filetype: unix_dgram\n      filename: {dir}/d.sock",
     ["socat", "-u", "UNIX-RECV:{dir}/d.sock", "OPEN:/dev/null"]),
    ("syslog", "filetype: syslog\n      syslog-socket: {dir}/l.sock",
     ["socat", "-u", "UNIX-RECV:{dir}/l.sock", "OPEN:/dev/null"]),
    ("redis", "filetype: redis\n      redis:\n        socket: {dir}/r.sock\n"
     "        mode: list\n        key: bench",
     ["redis-server", "--port", "0", "--unixsocket", "UNIX-{dir}/r.sock", "--save", "",
      "--appendonly", "no"]),
    ("kafka", "filetype: kafka\n      kafka:\n        brokers: {boot}\n        topic: eve\n"
     "        partition-by: community_id", None),
]


def write_pcap(path, n):
    """n one-packet UDP flows, 10.x -> 10.y, distinct ports (no scapy: fast)."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i in range(n):
            payload = b"x" * 18
            udp = struct.pack("!HHHH", 1024 + i % 60000, 53, 8 + len(payload), 0) + payload
            src = bytes([10, 1, (i >> 16) & 255, (i >> 8) & 255])
            ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), i & 0xFFFF, 0, 64, 17, 0,
                             src, bytes([10, 2, 0, i & 255])) + udp
            frame = b"\x02" * 6 + b"\x04" * 6 + b"\x08\x00" + ip
            ts = 1700000000 + i // 100000
            f.write(struct.pack("<IIII", ts, (i % 100000) * 10, len(frame), len(frame)) + frame)


def start(cmd, d):
    if not cmd:
        return None
    sockarg = [c for c in cmd if c.startswith("UNIX-")][0]
    # socat takes UNIX-LISTEN:PATH; redis-server the bare path (UNIX- marks it here)
    sock = (sockarg.split(":", 1)[1] if ":" in sockarg else sockarg[5:]).format(dir=d)
    argv = [c.format(dir=d) for c in cmd]
    if ":" not in sockarg:
        argv[cmd.index(sockarg)] = sock
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
    for _ in range(100):
        if os.path.exists(sock):
            break
        time.sleep(0.02)
    return p


def stop(p):
    if p:
        p.terminate()
        p.wait()


BOOT = ""  # the mock Kafka cluster's bootstrap servers, once started


def config(d, rows, logdir):
    text = "default-log-dir: %s\nstats:\n  enabled: no\noutputs:\n" % logdir
    for _, yaml, _ in rows:
        text += "  - eve-log:\n      " + yaml.format(dir=d, boot=BOOT) + "\n"
    path = os.path.join(d, "c%d.yaml" % abs(hash(text)))
    with open(path, "w") as f:
        f.write(text)
    return path


def main():
    global BOOT
    for p in (MEERKAT, BENCH):
        if not os.access(p, os.X_OK):
            sys.exit("%s: not built" % p)
    if not shutil.which("socat"):
        sys.exit("skipped: socat not installed")
    sinks = [r for r in SINKS if r[0] != "redis" or shutil.which("redis-server")]
    kafka = None
    if os.access(MOCK_KAFKA, os.X_OK):
        kafka = subprocess.Popen([MOCK_KAFKA, "3", "eve", "6"], stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, text=True)
        BOOT = kafka.stdout.readline().strip()
    if not BOOT:
        sinks = [r for r in sinks if r[0] != "kafka"]
    if len(sinks) < len(SINKS):
        print("# left out (not installed or not built): %s"
              % ", ".join(r[0] for r in SINKS if r not in sinks))
    d = tempfile.mkdtemp(prefix="bench-outputs.")
    try:
        pcap = os.path.join(d, "flows.pcap")
        write_pcap(pcap, FLOWS)
        ref = os.path.join(d, "ref")
        subprocess.run([MEERKAT, "-r", pcap, "-l", ref], check=True, capture_output=True)
        eve = os.path.join(ref, "eve.json")
        size = os.path.getsize(eve) / max(1, sum(1 for _ in open(eve)))
        print("# load average %s, %d CPUs" % (" ".join(open("/proc/loadavg").read().split()[:3]),
                                              os.cpu_count()))
        print("# 1. records/s through one writer thread (%d records of %.0f bytes), median of %d"
              % (RECORDS, size, ROUNDS))
        print("%-12s %12s %9s %8s %8s" % ("sink", "records/s", "MB/s", "dropped", "lost"))
        for row in sinks:
            runs = []
            for _ in range(ROUNDS):
                reader = start(row[2], d)
                try:
                    out = subprocess.run([BENCH, config(d, [row], d), eve, str(RECORDS)],
                                         check=True, capture_output=True, text=True).stdout
                finally:
                    stop(reader)
                runs.append(json.loads(out.splitlines()[0]))
            r = sorted(runs, key=lambda x: x["records_per_s"])[len(runs) // 2]
            print("%-12s %12.0f %9.1f %8d %8d" % (row[0], r["records_per_s"], r["mb_per_s"],
                                                  sum(x["dropped"] for x in runs),
                                                  sum(x["lost"] for x in runs)))
        print("# 2. meerkat -r (%d flows, one record each): median of %d rounds" % (FLOWS, ROUNDS))
        setups = [("file", [SINKS[0]]), ("unix_stream", [SINKS[1]]),
                  ("file+unix_stream", [SINKS[0], SINKS[1]])]
        setups += [(r[0], [r]) for r in sinks if r[0] in ("redis", "kafka")]
        res = {name: [] for name, _ in setups}
        for _ in range(ROUNDS):
            for name, rows in setups:
                readers = [start(r[2], d) for r in rows]
                cfg = config(d, rows, os.path.join(d, "log"))
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                t0 = time.monotonic()
                subprocess.run([MEERKAT, "-r", pcap, "-c", cfg, "--eve-truncate"], check=True,
                               capture_output=True)
                wall = time.monotonic() - t0
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                for r in readers:
                    stop(r)
                cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
                res[name].append((wall, cpu))
        base = [statistics.median(x[i] for x in res["file"]) for i in (0, 1)]
        print("%-18s %8s %8s %8s %8s" % ("sink", "wall s", "ratio", "cpu s", "ratio"))
        for name, _ in setups:
            wall = statistics.median(x[0] for x in res[name])
            cpu = statistics.median(x[1] for x in res[name])
            print("%-18s %8.3f %8.2f %8.3f %8.2f" % (name, wall, wall / base[0], cpu,
                                                      cpu / base[1]))
    finally:
        shutil.rmtree(d, ignore_errors=True)
        if kafka:
            kafka.terminate()
            kafka.wait()


main()
