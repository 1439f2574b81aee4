#!/usr/bin/python3
"""Seeds for fuzz_http: HTTP dialogues as [direction+flags][length][bytes] records.

usage: gen_http_seeds.py OUTDIR STAMP
"""
import os
import sys
import zlib

out = os.path.join(sys.argv[1], "fuzz_http_corpus")
os.makedirs(out, exist_ok=True)


def rec(d, b, flags=2):
    recs = b""
    for i in range(0, len(b), 255):
        part = b[i:i + 255]
        recs += bytes([d | flags, len(part)]) + part
    return recs


gz = zlib.compressobj(9, zlib.DEFLATED, 31)
body = gz.compress(b"hello fuzz " * 20) + gz.flush()
chunked = b"%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n"
seeds = {
    "get": rec(0, b"GET /a?b=c HTTP/1.1\r\nHost: h\r\nUser-Agent: u\r\nCookie: c=1\r\n\r\n") +
    rec(1, b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nServer: s\r\n\r\nok"),
    "pipelined": rec(0, b"GET /1 HTTP/1.1\r\nHost: h\r\n\r\nGET /2 HTTP/1.1\r\nHost: h\r\n\r\n") +
    rec(1, b"HTTP/1.1 404 NF\r\nContent-Length: 0\r\n\r\nHTTP/1.1 301 M\r\nLocation: /x\r\n"
        b"Content-Length: 0\r\n\r\n"),
    "gzip_chunked": rec(0, b"GET / HTTP/1.1\r\nHost: h\r\n\r\n") +
    rec(1, b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n" +
        chunked),
    "post_continue": rec(0, b"POST /p HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\n"
                         b"Content-Length: 5\r\n\r\n") +
    rec(1, b"HTTP/1.1 100 Continue\r\n\r\n") + rec(0, b"a=b&c") +
    rec(1, b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"),
    "connect": rec(0, b"CONNECT h:443 HTTP/1.1\r\n\r\n") +
    rec(1, b"HTTP/1.1 200 Established\r\n\r\n\x16\x03\x01"),
    "gap": rec(0, b"GET / HTTP/1.1\r\n") + rec(0, b"Host: h\r\n\r\n", 0xc2),
    # gaps the parser goes past: inside a body of known length (4 bytes), then between
    # messages (resynchronised on the next request line)
    "gap_body": rec(0, b"PUT /f HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n012") +
    rec(0, b"789GET /n HTTP/1.1\r\nHost: h\r\n\r\n", 0xce) +
    rec(1, b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nab") + rec(1, b"f", 0xcf) +
    rec(1, b"junk\r\nHTTP/1.1 404 NF\r\nContent-Length: 0\r\n\r\n", 0xcf),
    "file_disposition": rec(0, b"GET /d HTTP/1.1\r\nHost: h\r\n\r\n") +
    rec(1, b"HTTP/1.1 200 OK\r\nContent-Disposition: attachment; filename=\"x.exe\"\r\n"
        b"Content-Length: 3\r\n\r\nMZ\x90"),
}
for name, b in seeds.items():
    open(os.path.join(out, name), "wb").write(b)
open(sys.argv[2], "w").write("ok\n")
