#!/usr/bin/python3
"""Seeds for fuzz_tls: TLS dialogues as [direction+flags][length][bytes] records:
a TLS 1.2 session (hellos with GREASE, a certificate OpenSSL refuses, CCS,
data), the same split inside records, a TLS 1.3 ServerHello, SSLv2, a gap,
and a bare ClientHello body for the hello decoders.

usage: gen_tls_seeds.py OUTDIR STAMP
"""
import os
import struct
import sys

out = os.path.join(sys.argv[1], "fuzz_tls_corpus")
os.makedirs(out, exist_ok=True)


def rec(d, b):
    recs = b""
    for i in range(0, len(b), 255):
        part = b[i:i + 255]
        recs += bytes([d, len(part)]) + part
    return recs


def record(t, body):
    return struct.pack(">BHH", t, 0x0303, len(body)) + body


def hs(t, body):
    return struct.pack(">B", t) + len(body).to_bytes(3, "big") + body


def ext(t, body):
    return struct.pack(">HH", t, len(body)) + body


sni = ext(0, struct.pack(">HBH", 14, 0, 11) + b"example.com")
alpn = ext(16, struct.pack(">HB", 3, 2) + b"h2")
groups = ext(10, struct.pack(">HHH", 4, 0x1d, 0x17))
sv = ext(43, struct.pack(">BHH", 4, 0x0304, 0x0303))
sig = ext(13, struct.pack(">HHH", 4, 0x0403, 0x0804))
exts = sni + alpn + groups + sv + sig + ext(0x1a1a, b"")
ch = struct.pack(">H", 0x0303) + bytes(32) + b"\0" + struct.pack(">HHHH", 6, 0x0a0a, 0x1301, 0xc02f) + \
    b"\x01\x00" + struct.pack(">H", len(exts)) + exts
sh = struct.pack(">H", 0x0303) + bytes(32) + b"\0" + struct.pack(">HB", 0xc02f, 0) + \
    struct.pack(">H", 5) + ext(0xff01, b"\0")
cert = b"\x30\x03\x02\x01\x00"  # not a certificate: OpenSSL refuses it
certs = (len(cert) + 3).to_bytes(3, "big") + len(cert).to_bytes(3, "big") + cert
client = record(22, hs(1, ch))
server = record(22, hs(2, sh) + hs(11, certs)) + record(20, b"\1") + record(23, bytes(20))
seeds = {
    "session": rec(0, client) + rec(1, server),
    "split": rec(0, client[:7]) + rec(0, client[7:]) + rec(1, server[:3]) + rec(1, server[3:]),
    "tls13": rec(0, client) + rec(1, record(22, hs(2, sh[:-9] + struct.pack(">H", 6) +
                                                     ext(43, b"\x03\x04")))) + rec(1, record(23, bytes(30))),
    "sslv2": rec(0, b"\x80\x2e\x01\x00\x02\x00\x15\x00\x00\x00\x10" + bytes(37)),
    "gap": rec(0, client[:20]) + bytes([0xc0, 10]) + client[30:40],
    "hello_only": ch,
}
for k, v in seeds.items():
    with open(os.path.join(out, k), "wb") as f:
        f.write(v)
open(sys.argv[2], "w").close()
