#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""A reader of meerkat's EVE socket outputs, for the testbench (docs/outputs.md).

usage: eve_reader.py stream|dgram|syslog SOCKET OUT [--stall-until FILE]
                     [--stop-file FILE] [--pri N]

Binds SOCKET (removed first) and writes every record it receives to OUT,
one per line, as meerkat's file output holds them:
  stream  accepts one connection and copies it until meerkat closes it;
          with --stall-until, it accepts and reads nothing until FILE exists
          (a stalled reader);
  dgram   one record per datagram, until --stop-file exists and nothing came
          for half a second;
  syslog  the same, each datagram an RFC 5424 message whose header is
          checked (priority --pri N, version 1, UTC time, APP-NAME meerkat)
          and cut off.
OUT.ready appears once SOCKET listens. Exits 1 on a malformed message or
after 300 s.
"""
import os
import re
import socket
import sys
import time

mode, path, out = sys.argv[1:4]
opts = dict(zip(sys.argv[4::2], sys.argv[5::2]))
stall = opts.get("--stall-until")
stop = opts.get("--stop-file")
pri = opts.get("--pri")
deadline = time.time() + 300
HDR = re.compile(rb"^<(\d+)>1 \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z \S+ (\S+) (\d+) - - ")

try:
    os.unlink(path)
except FileNotFoundError:
    pass
kind = socket.SOCK_STREAM if mode == "stream" else socket.SOCK_DGRAM
s = socket.socket(socket.AF_UNIX, kind)
s.bind(path)
with open(out, "wb") as f:
    if mode == "stream":
        s.listen(1)
        open(out + ".ready", "w").close()
        s.settimeout(300)
        c, _ = s.accept()
        while stall and not os.path.exists(stall):
            if time.time() > deadline:
                sys.exit("stalled past the deadline")
            time.sleep(0.05)
        while True:
            b = c.recv(1 << 16)
            if not b:
                break
            f.write(b)
        sys.exit(0)
    open(out + ".ready", "w").close()
    s.settimeout(0.5)
    while time.time() < deadline:
        try:
            d = s.recv(1 << 20)
        except socket.timeout:
            if stop and os.path.exists(stop):
                sys.exit(0)
            continue
        if mode == "syslog":
            m = HDR.match(d)
            if not m or (pri and m.group(1) != pri.encode()) or m.group(2) != b"meerkat":
                sys.exit("not an RFC 5424 message from meerkat: %r" % d[:120])
            d = d[m.end():]
        if b"\n" in d:
            sys.exit("a newline inside a datagram: %r" % d[:120])
        f.write(d + b"\n")
        f.flush()
sys.exit("no stop file within 300 s")
