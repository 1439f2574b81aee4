#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The raw-socket HTTP client of http_raw.sh: one connection per case, the
bytes exactly as written (pipelining, one request in many segments, odd
line endings, HTTP/0.9, 100-continue, CONNECT and Upgrade, request
smuggling variants). Each case's requests carry User-Agent raw-<case>.

usage: raw_client.py SERVER_IP   (nginx on 8080, the tunnel server on 8081)
"""
import socket
import sys
import time

ip = sys.argv[1]


def conn(port=8080):
    s = socket.create_connection((ip, port), timeout=5)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def drain(s, wait=1.0):
    """Reads until the server closes or is quiet for @wait seconds."""
    s.settimeout(wait)
    data = b""
    try:
        while True:
            d = s.recv(65536)
            if not d:
                break
            data += d
    except socket.timeout:
        pass
    return data


def req(path, ua, extra=b"", method=b"GET", eol=b"\r\n", host=b"raw.example"):
    return (method + b" " + path + b" HTTP/1.1" + eol + b"Host: " + host + eol +
            b"User-Agent: " + ua + eol + extra + eol)


def one(data, port=8080, close=True):
    s = conn(port)
    s.sendall(data)
    out = drain(s)
    if close:
        s.close()
    return out


# pipelining: three requests in one segment
one(req(b"/index.html?pipe=1", b"raw-pipe") + req(b"/missing-pipe", b"raw-pipe") +
    req(b"/index.html?pipe=3", b"raw-pipe", b"Connection: close\r\n"))

# one request in many segments (a few bytes each, Nagle off, paced)
s = conn()
r = req(b"/index.html?segments", b"raw-segments", b"Connection: close\r\n")
for i in range(0, len(r), 3):
    s.send(r[i:i + 3])
    time.sleep(0.002)
drain(s)
s.close()

# bare LF, and CRLF and LF mixed
one(req(b"/index.html?lf", b"raw-lf", b"Connection: close\n", eol=b"\n"))
one(b"GET /index.html?mixed HTTP/1.1\r\nHost: raw.example\nUser-Agent: raw-mixed\r\n"
    b"Connection: close\n\r\n")

# HTTP/0.9: a request line alone, the body alone back
one(b"GET /index.html?v09\r\n")

# 100-continue: headers, the interim answer, then the body
s = conn()
s.sendall(b"POST /post HTTP/1.1\r\nHost: raw.example\r\nUser-Agent: raw-continue\r\n"
          b"Expect: 100-continue\r\nContent-Length: 9\r\nConnection: close\r\n\r\n")
s.settimeout(2)
try:
    s.recv(4096)
except socket.timeout:
    pass
s.sendall(b"user=meow")
drain(s)
s.close()

# CONNECT and Upgrade to the tunnel server, as a client of a proxy or a websocket does:
# the answer (200, 101), then the tunnel's bytes: a TLS record after CONNECT, HTTP-looking
# bytes after the upgrade; neither is parsed. HTTP after CONNECT is (a plain proxy: libhtp
# probes the first bytes, as in Suricata).
INSIDE = b"GET /inside HTTP/1.1\r\nHost: x\r\nUser-Agent: raw-inside\r\n\r\n"
for head, inside in ((b"CONNECT tunnel.example:443 HTTP/1.1\r\nHost: tunnel.example:443\r\n"
                      b"User-Agent: raw-connect\r\n\r\n",
                      b"\x16\x03\x01\x00\x31\x01\x00\x00\x2d\x03\x03" + b"\x00" * 40 + INSIDE),
                     (b"GET /ws HTTP/1.1\r\nHost: raw.example\r\nUser-Agent: raw-upgrade\r\n"
                      b"Connection: Upgrade\r\nUpgrade: websocket\r\n\r\n", INSIDE),
                     (b"CONNECT proxied.example:80 HTTP/1.1\r\nHost: proxied.example:80\r\n"
                      b"User-Agent: raw-connect-http\r\n\r\n",
                      b"GET /via-proxy HTTP/1.1\r\nHost: proxied.example\r\n"
                      b"User-Agent: raw-proxied\r\n\r\n")):
    s = conn(8081)
    s.sendall(head)
    s.settimeout(2)
    s.recv(4096)
    s.sendall(inside)
    drain(s, 0.5)
    s.close()

# not HTTP at all: a VNC (RFB) banner each way, a protocol meerkat does not recognise, then more bytes (app-layer-protocol: unknown
# before the server's banner, failed after it)
s = conn(8081)
s.sendall(b"RFB 003.008-raw_client\r\n")
s.settimeout(2)
s.recv(4096)
s.sendall(b"KEXINIT-raw-after\r\n")
drain(s, 0.5)
s.close()

# request smuggling variants
one(b"POST /post HTTP/1.1\r\nHost: raw.example\r\nUser-Agent: raw-clte\r\n"
    b"Content-Length: 4\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n")
one(b"POST /post HTTP/1.1\r\nHost: raw.example\r\nUser-Agent: raw-dupcl\r\n"
    b"Content-Length: 5\r\nContent-Length: 7\r\nConnection: close\r\n\r\n12345")
one(b"POST /post HTTP/1.1\r\nHost: raw.example\r\nUser-Agent: raw-tejunk\r\n"
    b"Transfer-Encoding: xchunked\r\nConnection: close\r\n\r\n")
one(b"GET /index.html?fold HTTP/1.1\r\nHost: raw.example\r\nUser-Agent: raw-fold\r\n"
    b"X-Folded: first\r\n second\r\nConnection: close\r\n\r\n")
