#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Several EVE outputs offline (docs/outputs.md).

usage: check_outputs.py MEERKAT PCAP RULES WORKDIR

1. One capture through a single eve.json (offline mode's own file path) and
   through six outputs at once, with 1 and 3 workers: eve.json, a file of
   flows, a file of alerts, a unix_stream and a unix_dgram reader (threads
   of this script) and a syslog listener. eve.json is byte for byte the
   single output's whatever the worker count; the flow and alert files are
   exactly its records of their type, in its order; each socket reader
   holds exactly eve.json's records (syslog less its header).
2. meerkat -T lists every output; two outputs on one file, a transport this
   build lacks and rendering options that differ are refused naming the
   output and the key.
"""
import os
import re
import shutil
import socket
import subprocess
import sys
import threading

MEERKAT, PCAP, RULES, WORK = sys.argv[1:5]
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
failures = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def run(*args, **kw):
    return subprocess.run([MEERKAT] + list(args), capture_output=True, text=True, timeout=120, **kw)


def serve(kind, path, out, ready):
    s = socket.socket(socket.AF_UNIX, kind)
    s.bind(path)
    data = []
    if kind == socket.SOCK_STREAM:
        s.listen(1)
        ready.set()
        c, _ = s.accept()
        while True:
            b = c.recv(1 << 16)
            if not b:
                break
            data.append(b)
    else:
        ready.set()
        s.settimeout(2)
        try:
            while True:
                data.append(s.recv(1 << 20) + b"\n")
        except socket.timeout:
            pass
    out.append(b"".join(data))


def readers(d):
    got = {}
    threads = []
    for name, kind in (("stream", socket.SOCK_STREAM), ("dgram", socket.SOCK_DGRAM),
                       ("syslog", socket.SOCK_DGRAM)):
        got[name] = []
        ready = threading.Event()
        t = threading.Thread(target=serve, args=(kind, "%s/%s.sock" % (d, name), got[name], ready))
        t.start()
        ready.wait(5)
        threads.append(t)
    return got, threads


single = os.path.join(WORK, "single")
p = run("-r", PCAP, "-S", RULES, "-l", single, "--eve-truncate")
check(p.returncode == 0, "one output: exit 0 (%s)" % p.stderr.strip()[-200:])
ref = open(os.path.join(single, "eve.json"), "rb").read()
lines = ref.splitlines(keepends=True)
flows = b"".join(x for x in lines if b'"event_type":"flow"' in x)
alerts = b"".join(x for x in lines if b'"event_type":"alert"' in x)
check(flows and alerts, "the capture gives flow and alert records (%d records)" % len(lines))

for workers in (1, 3):
    d = os.path.join(WORK, "w%d" % workers)
    os.makedirs(d)
    conf = os.path.join(d, "c.yaml")
    with open(conf, "w") as f:
        f.write("""outputs:
  - eve-log: {filename: eve.json}
  - eve-log: {filename: flows.json, types: [flow]}
  - eve-log: {filename: alerts.json, types: [alert]}
  - eve-log: {filetype: unix_stream, filename: %(d)s/stream.sock}
  - eve-log: {filetype: unix_dgram, filename: %(d)s/dgram.sock}
  - eve-log: {filetype: syslog, syslog-socket: %(d)s/syslog.sock}
""" % {"d": d})
    got, threads = readers(d)
    p = run("-r", PCAP, "-S", RULES, "-l", d, "-c", conf, "--workers", str(workers), "-v")
    for t in threads:
        t.join(30)
    check(p.returncode == 0, "%d worker(s), six outputs: exit 0" % workers)
    read = lambda n: open(os.path.join(d, n), "rb").read()
    check(read("eve.json") == ref, "%d worker(s): eve.json is the single output's, byte for byte"
          % workers)
    check(read("flows.json") == flows, "%d worker(s): flows.json holds its flow records, in order"
          % workers)
    check(read("alerts.json") == alerts, "%d worker(s): alerts.json holds its alerts, in order"
          % workers)
    check(got["stream"] == [ref], "%d worker(s): the unix_stream reader got eve.json" % workers)
    check(got["dgram"] == [ref], "%d worker(s): the unix_dgram reader got eve.json" % workers)
    sl = got["syslog"][0].splitlines(keepends=True)
    hdr = re.compile(rb"^<174>1 \S+Z \S+ meerkat \d+ - - ")
    check(len(sl) == len(lines) and all(hdr.match(x) for x in sl) and
          b"".join(hdr.sub(b"", x) for x in sl) == ref,
          "%d worker(s): syslog got eve.json's records as local5.info RFC 5424 messages" % workers)
    counts = re.findall(r'EVE output \{"name":"outputs\[(\d)\]".*?"written":(\d+),"dropped":(\d+),'
                        r'"lost":(\d+)', p.stderr)
    check(len(counts) == 6 and all(int(c[2]) == 0 and int(c[3]) == 0 for c in counts) and
          int(counts[0][1]) == len(lines),
          "%d worker(s): every output's counters (-v): %s" % (workers, counts))

# --- 2. meerkat -T -------------------------------------------------------------------------
conf = os.path.join(WORK, "t.yaml")


def t(text):
    with open(conf, "w") as f:
        f.write(text)
    return run("-T", "-c", conf)


p = t("outputs:\n  - eve-log: {filename: a.json}\n"
      "  - eve-log: {filetype: unix_dgram, filename: /run/x.sock, types: [alert]}\n")
check(p.returncode == 0 and "outputs[0]: regular" in p.stdout and
      "outputs[1]: unix_dgram /run/x.sock, types [alert]" in p.stdout,
      "-T lists every output: %r" % p.stdout)
for text, want in (
        ("outputs:\n  - eve-log: {filename: a.json}\n  - eve-log: {filename: a.json}\n",
         ":3:5: outputs[1].eve-log.filename: 'a.json' is already outputs[0]'s"),
        ("outputs:\n  - eve-log: {filetype: kafka}\n",
         ":2:25: outputs[0].eve-log.filetype: 'kafka' is not built into this meerkat"),
        ("outputs:\n  - eve-log: {}\n  - eve-log: {filename: b, community-id-seed: 3}\n",
         ":3:5: outputs[1].eve-log.community-id-seed: differs from outputs[0]'s")):
    p = t(text)
    if "kafka" in want and "not built" not in p.stderr:
        print("kafka is built in: its refusal is not checked here")
        continue
    check(p.returncode == 1 and p.stderr.startswith("meerkat: error: " + conf + want),
          "-T refuses: %s (%r)" % (want, p.stderr))

print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
