#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The workload of bench_bypass.sh (docs/performance.md, "Capture bypass"),
and its rules. Raw struct, no scapy (test/testbench/gen_bypass.py's writer);
deterministic.

Two pcaps, replayed one after the other:

  PREFIX-1.pcap  the head: each of ELEPHANTS downloads (TCP 198.18.10.N:4000N
                 -> 198.18.10.100:80) opens with a request carrying
                 "MK-BENCH-BULK" and sends its first HEAD_MB megabytes (past
                 the default 1 MiB reassembly depth), interleaved with SMALL
                 short sessions (198.18.20.0/22 -> 198.18.30.1:8080), each a
                 handshake, a request carrying "MK-BENCH-ATTACK-<n>", a reply
                 and the FINs;
  PREFIX-2.pcap  the rest of the downloads (MB megabytes each in all), their
                 segments interleaved round robin, the client acknowledging
                 every second one, then the FINs.

The sidecar PREFIX.json holds the frame counts of each pcap, the bytes of
the downloads' remainders and the alerts expected (one per session).

usage: gen_bypassbench.py PREFIX [--elephants N] [--mb N] [--head-mb N]
                          [--small N] [--rules FILE]
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testbench"))
from gen_bypass import MSS, Pcap  # noqa: E402

RULES = """\
alert tcp any any -> any any (msg:"bench bulk request"; content:"MK-BENCH-BULK"; sid:9300001;)
alert tcp any any -> any any (msg:"bench attack"; content:"MK-BENCH-ATTACK-"; sid:9300002;)
"""
SYN, FIN, PSH, ACK = 0x02, 0x01, 0x08, 0x10
SRV = "198.18.10.100"


class Counting(Pcap):
    def __init__(self, path):
        super().__init__(path)
        self.n = 0

    def frame(self, *a, **k):
        self.n += 1
        super().frame(*a, **k)


def small_session(p, i):
    cli = "198.18.%d.%d" % (20 + i // 250, 1 + i % 250)
    srv, sport, dport = "198.18.30.1", 20000 + i % 40000, 8080
    cs, ss = 1000 + i * 7, 5000000 + i * 11
    req = b"GET /item?id=%d HTTP/1.1\r\nHost: bench\r\nX-Q: MK-BENCH-ATTACK-%d\r\n\r\n" % (i, i)
    resp = b"HTTP/1.1 200 OK\r\nContent-Length: 400\r\n\r\n" + bytes(400)
    p.tcp(cli, sport, srv, dport, cs, 0, SYN)
    p.tcp(srv, dport, cli, sport, ss, cs + 1, SYN | ACK)
    p.tcp(cli, sport, srv, dport, cs + 1, ss + 1, ACK)
    p.tcp(cli, sport, srv, dport, cs + 1, ss + 1, PSH | ACK, req)
    p.tcp(srv, dport, cli, sport, ss + 1, cs + 1 + len(req), PSH | ACK, resp)
    p.tcp(cli, sport, srv, dport, cs + 1 + len(req), ss + 1 + len(resp), FIN | ACK)
    p.tcp(srv, dport, cli, sport, ss + 1 + len(resp), cs + 2 + len(req), FIN | ACK)
    p.tcp(cli, sport, srv, dport, cs + 2 + len(req), ss + 2 + len(resp), ACK)


class Elephant:
    def __init__(self, n, size):
        self.cli, self.sport = "198.18.10.%d" % (n + 1), 40000 + n
        self.cs, self.ss = 100 + n, 9000000 + n * 1000
        self.left, self.sent = size, 0
        self.req = b"GET /big/%d HTTP/1.1\r\nHost: bench\r\nX-Q: MK-BENCH-BULK\r\n\r\n" % n

    def open(self, p):
        c, s = self.cs, self.ss
        p.tcp(self.cli, self.sport, SRV, 80, c, 0, SYN)
        p.tcp(SRV, 80, self.cli, self.sport, s, c + 1, SYN | ACK)
        p.tcp(self.cli, self.sport, SRV, 80, c + 1, s + 1, ACK)
        p.tcp(self.cli, self.sport, SRV, 80, c + 1, s + 1, PSH | ACK, self.req)

    def segment(self, p):
        """One server segment (and the client's ACK of every second one); False when done."""
        if not self.left:
            return False
        n = min(MSS, self.left)
        cack = self.cs + 1 + len(self.req)
        p.tcp(SRV, 80, self.cli, self.sport, self.ss + 1 + self.sent, cack, ACK, bytes(n))
        self.sent += n
        self.left -= n
        self.segs = getattr(self, "segs", 0) + 1
        if self.segs % 2 == 0 or not self.left:
            p.tcp(self.cli, self.sport, SRV, 80, cack, self.ss + 1 + self.sent, ACK)
        return True

    def close(self, p):
        c, s = self.cs + 1 + len(self.req), self.ss + 1 + self.sent
        p.tcp(SRV, 80, self.cli, self.sport, s, c, FIN | ACK)
        p.tcp(self.cli, self.sport, SRV, 80, c, s + 1, FIN | ACK)
        p.tcp(SRV, 80, self.cli, self.sport, s + 1, c + 1, ACK)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("prefix")
    ap.add_argument("--elephants", type=int, default=4)
    ap.add_argument("--mb", type=int, default=30, help="megabytes each download carries")
    ap.add_argument("--head-mb", type=int, default=2, help="of which in the first pcap")
    ap.add_argument("--small", type=int, default=2000)
    ap.add_argument("--rules")
    a = ap.parse_args()
    if a.head_mb >= a.mb:
        sys.exit("--head-mb must be below --mb")

    els = [Elephant(n, a.mb << 20) for n in range(a.elephants)]
    p1 = Counting(a.prefix + "-1.pcap")
    for e in els:
        e.open(p1)
    head = a.head_mb << 20
    # the heads of the downloads, the short sessions spread among their segments
    per_small = max(1, (a.elephants * head // MSS) // max(1, a.small))
    i = 0
    while any(e.sent < head for e in els) or i < a.small:
        for e in els:
            if e.sent < head:
                e.segment(p1)
        if i < a.small:
            small_session(p1, i)
            i += 1
            for _ in range(per_small - 1):
                for e in els:
                    if e.sent < head:
                        e.segment(p1)
    p1.f.close()
    p2 = Counting(a.prefix + "-2.pcap")
    rest = sum(e.left for e in els)
    while any(e.left for e in els):
        for e in els:
            e.segment(p2)
    for e in els:
        e.close(p2)
    p2.f.close()
    side = {"frames1": p1.n, "frames2": p2.n, "elephants": a.elephants, "mb": a.mb,
            "head_mb": a.head_mb, "small": a.small, "rest_bytes": rest,
            "alerts": a.small + a.elephants}
    with open(a.prefix + ".json", "w") as fp:
        json.dump(side, fp)
    if a.rules:
        with open(a.rules, "w") as fp:
            fp.write(RULES)
    print(json.dumps(side))


if __name__ == "__main__":
    main()
