#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Traffic for the bypass tests (offline and testbench), and their rules.

Writes an Ethernet pcap and a JSON sidecar with each flow's packets:

  rule    TCP 198.18.11.1:40001 -> .2:8080: "BYPASS-ME" (a rule with `bypass`),
          then "AFTER-BYPASS", which a rule would alert on if inspected
  pass    TCP 198.18.13.1:40003 -> .2:8080: "LETGO-ME" (a pass rule), "AFTER-LETGO"
  udp     UDP 198.18.12.1:5000 -> .2:6000: "UDP-BYPASS" (a rule with `bypass`),
          then datagrams in two IP fragments each, one carrying "UDP-AFTER"
  bulk    TCP 198.18.10.1:40000 -> .2:80: "GET /big", then MB megabytes from
          the server in 1448-byte segments, the client acknowledging every
          second one, FINs both ways
  alert   TCP 198.18.14.1:40004 -> .2:8080 after the bulk: "ALERT-ME"

Frames are PACE_US apart (pcap time). Raw struct, no scapy: a 50 MB
transfer is written in a second. Deterministic.

usage: gen_bypass.py OUT.pcap [--mb N] [--rules FILE]
"""
import argparse
import json
import struct

PACE_US = 20
MSS = 1448
RULES = """\
alert tcp any any -> any any (msg:"bulk request"; content:"GET /big"; sid:9200001;)
alert tcp any any -> any any (msg:"rule bypass"; content:"BYPASS-ME"; bypass; sid:9200002;)
alert tcp any any -> any any (msg:"after bypass"; content:"AFTER-BYPASS"; sid:9200003;)
pass tcp any any -> any any (msg:"pass"; content:"LETGO-ME"; sid:9200004;)
alert tcp any any -> any any (msg:"after pass"; content:"AFTER-LETGO"; sid:9200005;)
alert tcp any any -> any any (msg:"control"; content:"ALERT-ME"; sid:9200006;)
alert udp any any -> any any (msg:"udp bypass"; content:"UDP-BYPASS"; bypass; sid:9200007;)
alert udp any any -> any any (msg:"udp after"; content:"UDP-AFTER"; sid:9200008;)
"""


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def ip4(s):
    return bytes(int(x) for x in s.split("."))


class Pcap:
    def __init__(self, path):
        self.f = open(path, "wb")
        self.f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        self.t = 1796270000 * 1000000
        self.ipid = 1

    def frame(self, src, dst, proto, l4, frag=0, ipid=None):
        ipid = self.ipid if ipid is None else ipid
        self.ipid = (self.ipid + 1) & 0xffff
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4), ipid, frag, 64, proto, 0,
                         ip4(src), ip4(dst))
        ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
        f = bytes.fromhex("020000000002020000000001") + b"\x08\x00" + ip + l4
        self.f.write(struct.pack("<IIII", self.t // 1000000, self.t % 1000000, len(f), len(f)) + f)
        self.t += PACE_US

    def tcp(self, src, sport, dst, dport, seq, ack, flags, data=b""):
        hdr = struct.pack("!HHIIBBHHH", sport, dport, seq & 0xffffffff, ack & 0xffffffff, 5 << 4,
                          flags, 65535, 0, 0)
        ph = ip4(src) + ip4(dst) + struct.pack("!BBH", 0, 6, len(hdr) + len(data))
        c = csum(ph + hdr + data)
        self.frame(src, dst, 6, hdr[:16] + struct.pack("!H", c) + hdr[18:] + data)

    def udp(self, src, sport, dst, dport, data):
        return struct.pack("!HHHH", sport, dport, 8 + len(data), 0) + data


class Session:
    """A TCP session; counts its packets per direction."""

    def __init__(self, pc, cli, sport, srv, dport):
        self.pc, self.c, self.sp, self.s, self.dp = pc, cli, sport, srv, dport
        self.cseq, self.sseq = 1000, 5000000
        self.pkts = [0, 0]

    def to_srv(self, flags, data=b""):
        self.pc.tcp(self.c, self.sp, self.s, self.dp, self.cseq, self.sseq, flags, data)
        self.cseq += len(data) + (1 if flags & 0x03 else 0)
        self.pkts[0] += 1

    def to_cli(self, flags, data=b""):
        self.pc.tcp(self.s, self.dp, self.c, self.sp, self.sseq, self.cseq, flags, data)
        self.sseq += len(data) + (1 if flags & 0x03 else 0)
        self.pkts[1] += 1

    def open(self):
        self.to_srv(0x02)
        self.cseq -= 1
        self.pc.tcp(self.s, self.dp, self.c, self.sp, self.sseq, self.cseq + 1, 0x12)
        self.sseq += 1
        self.cseq += 1
        self.pkts[1] += 1
        self.to_srv(0x10)

    def close(self):
        self.to_srv(0x11)
        self.to_cli(0x11)
        self.to_srv(0x10)

    def info(self):
        return {"src": self.c, "sport": self.sp, "dst": self.s, "dport": self.dp,
                "pkts_toserver": self.pkts[0], "pkts_toclient": self.pkts[1]}


def small(pc, cli, sport, srv, first, then):
    s = Session(pc, cli, sport, srv, 8080)
    s.open()
    s.to_srv(0x18, first)
    s.to_cli(0x18, b"HTTP/1.0 200 OK\r\n\r\nok")
    s.to_srv(0x10)
    s.to_srv(0x18, then)
    s.to_cli(0x10)
    s.close()
    return s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--mb", type=float, default=4)
    ap.add_argument("--rules")
    a = ap.parse_args()
    if a.rules:
        with open(a.rules, "w") as f:
            f.write(RULES)
    pc = Pcap(a.out)
    flows = {}
    flows["rule"] = small(pc, "198.18.11.1", 40001, "198.18.11.2", b"BYPASS-ME please",
                          b"AFTER-BYPASS data").info()
    flows["pass"] = small(pc, "198.18.13.1", 40003, "198.18.13.2", b"LETGO-ME please",
                          b"AFTER-LETGO data").info()
    # UDP: the bypass rule, then fragmented datagrams of the same 5-tuple
    u = [0, 0]
    pc.frame("198.18.12.1", "198.18.12.2", 17,
             pc.udp("198.18.12.1", 5000, "198.18.12.2", 6000, b"UDP-BYPASS hello"))
    u[0] += 1
    pc.frame("198.18.12.2", "198.18.12.1", 17,
             pc.udp("198.18.12.2", 6000, "198.18.12.1", 5000, b"reply"))
    u[1] += 1
    for i in range(3):
        d = pc.udp("198.18.12.1", 5000, "198.18.12.2", 6000,
                   (b"UDP-AFTER " if i == 1 else b"fragmented ") + bytes(40 + i) * 20)
        ident = 0x4000 + i
        pc.frame("198.18.12.1", "198.18.12.2", 17, d[:400], frag=0x2000, ipid=ident)
        pc.frame("198.18.12.1", "198.18.12.2", 17, d[400:], frag=400 // 8, ipid=ident)
        u[0] += 2
    flows["udp"] = {"src": "198.18.12.1", "sport": 5000, "dst": "198.18.12.2", "dport": 6000,
                    "pkts_toserver": u[0], "pkts_toclient": u[1], "fragments": 6}
    # the bulk download
    b = Session(pc, "198.18.10.1", 40000, "198.18.10.2", 80)
    b.open()
    b.to_srv(0x18, b"GET /big HTTP/1.1\r\nHost: bulk\r\n\r\n")
    total = int(a.mb * 1000000)
    chunk = bytes(range(256)) * (MSS // 256 + 1)
    sent, n = 0, 0
    while sent < total:
        ln = min(MSS, total - sent)
        b.to_cli(0x10, chunk[:ln])
        sent += ln
        n += 1
        if n % 2 == 0:
            b.to_srv(0x10)
    b.to_srv(0x10)
    b.close()
    flows["bulk"] = b.info()
    flows["bulk"]["bytes_payload"] = total
    flows["alert"] = small(pc, "198.18.14.1", 40004, "198.18.14.2", b"ALERT-ME now",
                           b"more").info()
    pc.f.close()
    flows["frames"] = sum(f["pkts_toserver"] + f["pkts_toclient"] for k, f in flows.items()
                          if isinstance(f, dict))
    with open(a.out + ".json", "w") as f:
        json.dump(flows, f, indent=1)


if __name__ == "__main__":
    main()
