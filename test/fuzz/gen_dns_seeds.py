#!/usr/bin/python3
"""Seeds for fuzz_dns: a mode byte (bit 0 TCP, bit 1 port 53), then
[direction+flags][length][bytes] records.

usage: gen_dns_seeds.py OUTDIR STAMP
"""
import os
import struct
import sys

out = os.path.join(sys.argv[1], "fuzz_dns_corpus")
os.makedirs(out, exist_ok=True)


def name(n):
    return b"".join(bytes([len(x)]) + x.encode() for x in n.split(".") if x) + b"\0"


def msg(mid, flags, qs, ans=(), auth=()):
    b = struct.pack(">HHHHHH", mid, flags, len(qs), len(ans), len(auth), 0)
    for q, t in qs:
        b += name(q) + struct.pack(">HH", t, 1)
    for rrname, t, rdata in list(ans) + list(auth):
        b += rrname + struct.pack(">HHIH", t, 1, 60, len(rdata)) + rdata
    return b


def rec(d, b):
    recs = b""
    for i in range(0, len(b), 255):
        part = b[i:i + 255]
        recs += bytes([d, len(part)]) + part
    return recs


def tcp(b):
    return struct.pack(">H", len(b)) + b


q = msg(0x1234, 0x0100, [("www.example.com", 1)])
ptr = b"\xc0\x0c"
a = msg(0x1234, 0x8180, [("www.example.com", 1)],
        [(ptr, 5, b"\x03web" + b"\xc0\x10"), (b"\xc0\x10", 1, b"\xc0\x00\x02\x01"),
         (b"\xc0\x10", 28, b"\x20\x01\x0d\xb8" + b"\0" * 11 + b"\x01"),
         (b"\xc0\x10", 15, b"\x00\x0a\x04mail\xc0\x10"), (b"\xc0\x10", 16, b"\x05hello"),
         (b"\xc0\x10", 33, b"\x00\x0a\x00\x05\x13\xc4\x03sip\xc0\x10")],
        [(b"\xc0\x10", 6, b"\x02ns\xc0\x10\xc0\x10" + struct.pack(">IIIII", 7, 3600, 600, 86400, 300))])
nx = msg(0x4321, 0x8183, [("nope.example.com", 1)])
loop = struct.pack(">HHHHHH", 1, 0, 1, 0, 0, 0) + b"\x01a\xc0\x0c"
seeds = {
    "udp53": bytes([2]) + rec(0, q) + rec(1, a),
    "udp_other_port": bytes([0]) + rec(0, q) + rec(1, nx),
    "tcp53": bytes([3]) + rec(0, tcp(q) + tcp(q)) + rec(1, tcp(a)),
    "tcp_split": bytes([1]) + rec(0, tcp(q)[:5]) + rec(0, tcp(q)[5:]) + rec(1, tcp(nx)),
    "tcp_gap": bytes([3]) + rec(0, tcp(q)[:9]) + rec(0xc0, tcp(q)[12:]),
    "loop": bytes([2]) + rec(0, loop),
}
for k, v in seeds.items():
    with open(os.path.join(out, k), "wb") as f:
        f.write(v)
open(sys.argv[2], "w").close()
