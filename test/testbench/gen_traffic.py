#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Sample traffic for the veth testbench and the demo.

Writes a small Ethernet pcap (plain TCP sessions with an HTTP exchange, DNS,
ICMP, VLAN/QinQ, GTP-U, L2TPv2, L2TPv3 over IP and UDP, nested tunnels, IP
fragments, ARP/LLDP and malformed frames) and a JSON sidecar with the counters
the XDP program must show after seeing every frame once with no AF_XDP socket
attached.

The expected counts come from how each frame was built (its label below),
never from running meerkat's parser: every IP frame ends in pass_no_socket,
every non-IP frame in pass_non_ip, every malformed frame in pass_error plus
the err_ counter of the defect we built into it. Info counters: tunnel_* count
frames with at least one tunnel of that type stripped (the program's default
depth is 2), tunnel_depth_exceeded frames with a further tunnel left in place,
fragment every IP fragment (first or later) of the innermost packet.

Addresses come from the benchmarking range 198.18.0.0/15 and 2001:db8::/32.
Deterministic: the same bytes on every run.
"""
import argparse
import json
import struct
import sys

from scapy.all import (ARP, DNS, DNSQR, DNSRR, ICMP, IP, TCP, UDP, Dot1AD, Dot1Q, Ether,
                       ICMPv6EchoReply, ICMPv6EchoRequest, IPv6, IPv6ExtHdrFragment, Raw,
                       fragment, fragment6)
from scapy.utils import RawPcapWriter

TUNNEL_DEPTH = 2  # MK_TUNNEL_DEPTH_DEFAULT in common/map_types.h

# The web server of the plain, GTP-U and L2TPv2 HTTP sessions: its flows are
# bypassed by address in the second scenario, tunnelled or not.
CIDR_BYPASS = "198.18.2.80"

CLIENT_MAC = "02:00:5e:00:00:01"
SERVER_MAC = "02:00:5e:00:00:02"


class Traffic:
    """Frames plus the label that says where each must end."""

    def __init__(self):
        self.frames = []  # (bytes, label dict)

    def add(self, frame, outcome="pass_no_socket", err=None, tunnels=(), depth_exceeded=False,
            fragment_=False, what="", inner=None):
        """@inner: the innermost IP packet the parser ends on, when tunnels are stripped."""
        data = bytes(frame)
        if len(data) < 14:
            raise ValueError("frames shorter than Ethernet cannot be sent by tcpreplay")
        if len(data) > 1514:
            raise ValueError(f"{what}: {len(data)} bytes exceeds the veth MTU")
        addrs = ()
        if outcome == "pass_no_socket":
            ip = inner if inner is not None else Ether(data)
            ip = ip if isinstance(ip, (IP, IPv6)) else (ip[IP] if IP in ip else ip[IPv6])
            addrs = (ip.src, ip.dst)
        self.frames.append((data, dict(outcome=outcome, err=err, tunnels=tuple(tunnels),
                                       depth_exceeded=depth_exceeded, fragment=fragment_,
                                       what=what, addrs=addrs)))

    def expected(self, cidr_bypass=()):
        """Counters after one pass; frames whose innermost IP address is in
        @cidr_bypass (exact addresses) end in drop_cidr_bypass (IDS mode)."""
        c = {"rx": len(self.frames)}

        def inc(name):
            c[name] = c.get(name, 0) + 1

        for _, lab in self.frames:
            if lab["outcome"] == "pass_no_socket" and set(lab["addrs"]) & set(cidr_bypass):
                inc("drop_cidr_bypass")
            else:
                inc(lab["outcome"])
            if lab["outcome"] == "pass_error":
                inc(lab["err"])
                continue
            for t in sorted(set(lab["tunnels"])):
                inc("tunnel_" + t)
            if lab["depth_exceeded"]:
                inc("tunnel_depth_exceeded")
            if lab["fragment"]:
                inc("fragment")
        return c


def eth(src=CLIENT_MAC, dst=SERVER_MAC):
    return Ether(src=src, dst=dst)


def tcp_session(cli, srv, sport, dport, request, response, l3=IP):
    """A whole TCP conversation: handshake, request, response, teardown (11 packets)."""
    c, s = 1000, 5000
    pkts = []

    def p(src, dst, sp, dp, flags, seq, ack, data=b""):
        pkt = l3(src=src, dst=dst) / TCP(sport=sp, dport=dp, flags=flags, seq=seq, ack=ack,
                                         window=64240)
        if data:
            pkt = pkt / Raw(data)
        pkts.append((pkt, src == cli))

    p(cli, srv, sport, dport, "S", c, 0)
    p(srv, cli, dport, sport, "SA", s, c + 1)
    p(cli, srv, sport, dport, "A", c + 1, s + 1)
    p(cli, srv, sport, dport, "PA", c + 1, s + 1, request)
    p(srv, cli, dport, sport, "A", s + 1, c + 1 + len(request))
    p(srv, cli, dport, sport, "PA", s + 1, c + 1 + len(request), response)
    p(cli, srv, sport, dport, "A", c + 1 + len(request), s + 1 + len(response))
    p(cli, srv, sport, dport, "FA", c + 1 + len(request), s + 1 + len(response))
    p(srv, cli, dport, sport, "A", s + 1 + len(response), c + 2 + len(request))
    p(srv, cli, dport, sport, "FA", s + 1 + len(response), c + 2 + len(request))
    p(cli, srv, sport, dport, "A", c + 2 + len(request), s + 2 + len(response))
    return pkts


def http(i):
    req = (f"GET /index{i}.html HTTP/1.1\r\nHost: www.example.com\r\n"
           f"User-Agent: meerkat-testbench\r\nAccept: */*\r\n\r\n").encode()
    body = b"<html><body>hello from the testbench</body></html>\n"
    resp = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: "
            + str(len(body)).encode() + b"\r\n\r\n" + body)
    return req, resp


def with_eth(pkt, to_server, tags=()):
    """Ethernet (and VLAN tags, outermost first) in front of an IP packet."""
    e = eth() if to_server else eth(SERVER_MAC, CLIENT_MAC)
    for kind, vid in tags:
        e = e / (Dot1AD(vlan=vid) if kind == "ad" else Dot1Q(vlan=vid))
    return e / pkt


def gtpu(teid, inner, ext=False):
    """GTP-U v1 G-PDU header (TS 29.281) in front of @inner (bytes)."""
    inner = bytes(inner)
    if ext:
        # S bit set, next extension 0x85 (PDU session container), one 4-byte extension
        opt = struct.pack("!HBB", 0, 0, 0x85) + bytes([1, 0x00, 0x09, 0x00])
        return struct.pack("!BBHI", 0x34, 0xff, len(opt) + len(inner), teid) + opt + inner
    return struct.pack("!BBHI", 0x30, 0xff, len(inner), teid) + inner


def l2tpv2(tunnel, session, ppp_payload, ppp_proto=0x0021):
    """L2TPv2 data message (RFC 2661) carrying PPP (address/control + protocol)."""
    return struct.pack("!HHH", 0x0002, tunnel, session) + struct.pack("!BBH", 0xff, 0x03,
                                                                      ppp_proto) + bytes(ppp_payload)


def l2tpv3_ip(session, inner_eth):
    """L2TPv3 data over IP (protocol 115): session id, no cookie, no L2-specific sublayer."""
    return struct.pack("!I", session) + bytes(inner_eth)


def l2tpv3_udp(session, inner_eth):
    """L2TPv3 data over UDP: flags/version 0x0003, reserved, session id."""
    return struct.pack("!HHI", 0x0003, 0, session) + bytes(inner_eth)


def outer4(src, dst, sport, dport, payload):
    return IP(src=src, dst=dst) / UDP(sport=sport, dport=dport) / Raw(bytes(payload))


def build():
    t = Traffic()

    # 1. plain IPv4 TCP sessions with an HTTP request and response
    for i in range(12):
        req, resp = http(i)
        for pkt, to_srv in tcp_session(f"198.18.1.{10 + i}", "198.18.2.80", 40000 + i, 80, req,
                                       resp):
            t.add(with_eth(pkt, to_srv), what="tcp4 http")
    # IPv6 TCP sessions
    for i in range(3):
        req, resp = http(100 + i)
        for pkt, to_srv in tcp_session(f"2001:db8:1::{10 + i:x}", "2001:db8:2::80", 41000 + i,
                                       80, req, resp, l3=IPv6):
            t.add(with_eth(pkt, to_srv), what="tcp6 http")

    # 2. DNS over UDP
    for i in range(20):
        name = f"host{i}.example.com"
        q = IP(src=f"198.18.1.{50 + i}", dst="198.18.3.53") / UDP(sport=33000 + i, dport=53) / \
            DNS(id=i, rd=1, qd=DNSQR(qname=name))
        r = IP(src="198.18.3.53", dst=f"198.18.1.{50 + i}") / UDP(sport=53, dport=33000 + i) / \
            DNS(id=i, qr=1, aa=1, rd=1, ra=1, qd=DNSQR(qname=name),
                an=DNSRR(rrname=name, ttl=60, rdata=f"198.18.4.{i}"))
        t.add(with_eth(q, True), what="dns4")
        t.add(with_eth(r, False), what="dns4")
    for i in range(4):
        name = f"v6host{i}.example.com"
        q = IPv6(src=f"2001:db8:1::{0x50 + i:x}", dst="2001:db8:3::53") / \
            UDP(sport=34000 + i, dport=53) / DNS(id=100 + i, rd=1, qd=DNSQR(qname=name, qtype="AAAA"))
        r = IPv6(src="2001:db8:3::53", dst=f"2001:db8:1::{0x50 + i:x}") / \
            UDP(sport=53, dport=34000 + i) / DNS(id=100 + i, qr=1, qd=DNSQR(qname=name, qtype="AAAA"))
        t.add(with_eth(q, True), what="dns6")
        t.add(with_eth(r, False), what="dns6")

    # 3. ICMP echo
    for i in range(5):
        t.add(with_eth(IP(src="198.18.1.5", dst="198.18.2.1") / ICMP(type=8, id=0x100 + i, seq=i)
                       / Raw(b"ping" * 8), True), what="icmp4")
        t.add(with_eth(IP(src="198.18.2.1", dst="198.18.1.5") / ICMP(type=0, id=0x100 + i, seq=i)
                       / Raw(b"ping" * 8), False), what="icmp4")
    for i in range(3):
        t.add(with_eth(IPv6(src="2001:db8:1::5", dst="2001:db8:2::1") /
                       ICMPv6EchoRequest(id=0x200 + i, seq=i), True), what="icmp6")
        t.add(with_eth(IPv6(src="2001:db8:2::1", dst="2001:db8:1::5") /
                       ICMPv6EchoReply(id=0x200 + i, seq=i), False), what="icmp6")

    # 4. VLAN: an 802.1Q-tagged HTTP session, a QinQ DNS exchange
    req, resp = http(200)
    for pkt, to_srv in tcp_session("198.18.5.10", "198.18.5.80", 42000, 80, req, resp):
        t.add(with_eth(pkt, to_srv, tags=[("q", 100)]), what="vlan tcp")
    q = IP(src="198.18.6.10", dst="198.18.6.53") / UDP(sport=35000, dport=53) / \
        DNS(id=7, rd=1, qd=DNSQR(qname="qinq.example.com"))
    t.add(with_eth(q, True, tags=[("ad", 200), ("q", 300)]), what="qinq dns")
    t.add(with_eth(IP(src="198.18.6.53", dst="198.18.6.10") / UDP(sport=53, dport=35000) /
                   DNS(id=7, qr=1, qd=DNSQR(qname="qinq.example.com")), False,
                   tags=[("ad", 200), ("q", 300)]), what="qinq dns")

    # 5. GTP-U (S1-U/N3): HTTP sessions of four UEs; TEIDs differ per direction
    enb, sgw = "198.19.0.1", "198.19.0.2"
    for ue in range(4):
        req, resp = http(300 + ue)
        for pkt, to_srv in tcp_session(f"198.18.10.{ue + 1}", "198.18.2.80", 43000 + ue, 80,
                                       req, resp):
            teid = 0x1000 + ue if to_srv else 0x2000 + ue
            o = outer4(enb, sgw, 2152, 2152, gtpu(teid, pkt)) if to_srv else \
                outer4(sgw, enb, 2152, 2152, gtpu(teid, pkt))
            t.add(with_eth(o, to_srv), tunnels=["gtpu"], what="gtpu tcp", inner=pkt)
    # IPv6 transport, IPv4 UE: one echo exchange
    for to_srv in (True, False):
        inner = IP(src="198.18.10.9", dst="198.18.2.1") / ICMP(type=8, id=77) if to_srv else \
            IP(src="198.18.2.1", dst="198.18.10.9") / ICMP(type=0, id=77)
        o = IPv6(src="2001:db8:f::1" if to_srv else "2001:db8:f::2",
                 dst="2001:db8:f::2" if to_srv else "2001:db8:f::1") / \
            UDP(sport=2152, dport=2152) / Raw(gtpu(0x3000 + to_srv, inner))
        t.add(with_eth(o, to_srv), tunnels=["gtpu"], what="gtpu over ipv6", inner=inner)
    # with a PDU session container extension header (5G N3)
    for i in range(2):
        inner = IP(src="198.18.10.20", dst="198.18.3.53") / UDP(sport=36000 + i, dport=53) / \
            DNS(id=300 + i, rd=1, qd=DNSQR(qname="n3.example.com"))
        t.add(with_eth(outer4(enb, sgw, 2152, 2152, gtpu(0x4000, inner, ext=True)), True),
              tunnels=["gtpu"], what="gtpu ext hdr", inner=inner)

    # 6. L2TPv2 (PPP): an HTTP session and a DNS exchange; LCP and a control message stay UDP
    lac, lns = "198.19.1.1", "198.19.1.2"
    req, resp = http(400)
    for pkt, to_srv in tcp_session("198.18.11.1", "198.18.2.80", 44000, 80, req, resp):
        o = outer4(lac, lns, 1701, 1701, l2tpv2(7, 9 if to_srv else 10, pkt)) if to_srv else \
            outer4(lns, lac, 1701, 1701, l2tpv2(8, 10, pkt))
        t.add(with_eth(o, to_srv), tunnels=["l2tpv2"], what="l2tpv2 tcp", inner=pkt)
    dns_q = IP(src="198.18.11.1", dst="198.18.3.53") / UDP(sport=37000, dport=53) / \
        DNS(id=400, rd=1, qd=DNSQR(qname="isp.example.com"))
    t.add(with_eth(outer4(lac, lns, 1701, 1701, l2tpv2(7, 9, dns_q)), True), tunnels=["l2tpv2"],
          what="l2tpv2 dns", inner=dns_q)
    dns6 = IPv6(src="2001:db8:11::1", dst="2001:db8:3::53") / UDP(sport=37001, dport=53) / \
        DNS(id=401, rd=1, qd=DNSQR(qname="isp6.example.com"))
    t.add(with_eth(outer4(lac, lns, 1701, 1701, l2tpv2(7, 9, dns6, ppp_proto=0x0057)), True),
          tunnels=["l2tpv2"], what="l2tpv2 ipv6 dns", inner=dns6)
    lcp = bytes.fromhex("0101000a0506deadbeef")  # LCP Configure-Request, magic number
    t.add(with_eth(outer4(lac, lns, 1701, 1701, l2tpv2(7, 9, lcp, ppp_proto=0xc021)), True),
          what="l2tpv2 lcp (not stripped)")
    hello = struct.pack("!HHHHHHH", 0xc802, 14, 7, 0, 1, 1, 0)[:12]
    t.add(with_eth(outer4(lac, lns, 1701, 1701, hello), True), what="l2tp control (not stripped)")

    # 7. L2TPv3 Ethernet pseudowires: over IP (protocol 115) and over UDP
    pe1, pe2 = "198.19.2.1", "198.19.2.2"
    pw_c, pw_s = "02:00:5e:10:00:01", "02:00:5e:10:00:02"
    for i in range(2):
        inner = Ether(src=pw_c, dst=pw_s) / IP(src="198.18.12.1", dst="198.18.12.2") / \
            ICMP(type=8, id=500 + i)
        t.add(with_eth(IP(src=pe1, dst=pe2, proto=115) / Raw(l2tpv3_ip(0x10001, inner)), True),
              tunnels=["l2tpv3"], what="l2tpv3/ip icmp", inner=inner)
        inner = Ether(src=pw_s, dst=pw_c) / IP(src="198.18.12.2", dst="198.18.12.1") / \
            ICMP(type=0, id=500 + i)
        t.add(with_eth(IP(src=pe2, dst=pe1, proto=115) / Raw(l2tpv3_ip(0x10002, inner)), False),
              tunnels=["l2tpv3"], what="l2tpv3/ip icmp", inner=inner)
    for to_srv in (True, False):
        inner = Ether(src=pw_c, dst=pw_s) / IP(src="198.18.12.1", dst="198.18.12.2") / \
            TCP(sport=45000, dport=443, flags="S") if to_srv else \
            Ether(src=pw_s, dst=pw_c) / IP(src="198.18.12.2", dst="198.18.12.1") / \
            TCP(sport=443, dport=45000, flags="SA")
        o = outer4(pe1 if to_srv else pe2, pe2 if to_srv else pe1, 1701, 1701,
                   l2tpv3_udp(0x20001 if to_srv else 0x20002, inner))
        t.add(with_eth(o, to_srv), tunnels=["l2tpv3"], what="l2tpv3/udp tcp", inner=inner)
    arp_pw = Ether(src=pw_c, dst="ff:ff:ff:ff:ff:ff") / ARP(psrc="198.18.12.1", pdst="198.18.12.2")
    t.add(with_eth(IP(src=pe1, dst=pe2, proto=115) / Raw(l2tpv3_ip(0x10001, arp_pw)), True),
          what="l2tpv3 carrying ARP (not stripped)")

    # 8. nested GTP-U: two levels are stripped, a third is left in place
    ue_pkt = IP(src="198.18.13.1", dst="198.18.2.80") / TCP(sport=46000, dport=80, flags="S")
    two = outer4(enb, sgw, 2152, 2152, gtpu(0x5001, outer4("198.19.3.1", "198.19.3.2", 2152,
                                                              2152, gtpu(0x5002, ue_pkt))))
    t.add(with_eth(two, True), tunnels=["gtpu"], what="gtpu in gtpu", inner=ue_pkt)
    three = outer4(enb, sgw, 2152, 2152, gtpu(0x6001, bytes(two)))
    # the parser stops on the IP header of the third tunnel, which it leaves in place
    t.add(with_eth(three, True), tunnels=["gtpu"], depth_exceeded=True,
          what="gtpu x3 (depth exceeded)", inner=IP(src="198.19.3.1", dst="198.19.3.2"))

    # 9. IP fragments: every fragment counts, first or later
    big = IP(src="198.18.14.1", dst="198.18.14.2", id=0x4242) / UDP(sport=47000, dport=5000) / \
        Raw(bytes(range(256)) * 10)
    for f in fragment(big, fragsize=1200):
        t.add(with_eth(f, True), fragment_=True, what="ipv4 fragment")
    big2 = IP(src="198.18.14.2", dst="198.18.14.1", id=0x4343) / ICMP(type=0, id=9) / \
        Raw(b"x" * 2000)
    for f in fragment(big2, fragsize=1000):
        t.add(with_eth(f, False), fragment_=True, what="ipv4 fragment")
    big6 = IPv6(src="2001:db8:14::1", dst="2001:db8:14::2") / IPv6ExtHdrFragment(id=0x99) / \
        UDP(sport=47001, dport=5000) / Raw(b"y" * 1800)
    for f in fragment6(big6, 1280):
        t.add(with_eth(f, True), fragment_=True, what="ipv6 fragment")
    gfrag = IP(src="198.18.10.30", dst="198.18.14.2", id=0x4444) / UDP(sport=47002, dport=5000) / \
        Raw(b"z" * 1600)
    for f in fragment(gfrag, fragsize=800):
        t.add(with_eth(outer4(enb, sgw, 2152, 2152, gtpu(0x7000, f)), True), tunnels=["gtpu"],
              fragment_=True, what="fragment inside gtpu", inner=f)

    # 10. non-IP: ARP, LLDP
    for i in range(3):
        t.add(eth(CLIENT_MAC, "ff:ff:ff:ff:ff:ff") /
              ARP(op=1, hwsrc=CLIENT_MAC, psrc=f"198.18.1.{10 + i}", pdst="198.18.2.80"),
              outcome="pass_non_ip", what="arp request")
        t.add(eth(SERVER_MAC, CLIENT_MAC) /
              ARP(op=2, hwsrc=SERVER_MAC, psrc="198.18.2.80", hwdst=CLIENT_MAC,
                  pdst=f"198.18.1.{10 + i}"),
              outcome="pass_non_ip", what="arp reply")
    lldp = Ether(src=CLIENT_MAC, dst="01:80:c2:00:00:0e", type=0x88cc) / \
        Raw(bytes.fromhex("020704020000000001040403696631060200780000"))
    t.add(lldp, outcome="pass_non_ip", what="lldp")

    # 11. malformed frames, each with the one defect its err_ counter names
    def bad(data, err, what):
        t.add(data, outcome="pass_error", err=err, what=what)

    e4 = bytes(eth(CLIENT_MAC, SERVER_MAC) / Raw(b""))[:12]
    good4 = bytes(IP(src="198.18.15.1", dst="198.18.15.2") / TCP(sport=1, dport=2) / Raw(b"a" * 20))
    bad(e4 + b"\x08\x00" + good4[:10], "err_trunc_ipv4", "ipv4 header cut at 10 bytes")
    bad(e4 + b"\x08\x00" + bytes([0x44]) + good4[1:], "err_bad_ipv4", "ipv4 ihl 4")
    bad(e4 + b"\x08\x00" + bytes([0x65]) + good4[1:], "err_bad_ipv4", "ipv4 version 6")
    bad(e4 + b"\x08\x00" + good4[:2] + b"\x00\x10" + good4[4:], "err_bad_ipv4",
        "ipv4 total length below ihl")
    six = bytes(IPv6(src="2001:db8:15::1", dst="2001:db8:15::2") / UDP(sport=1, dport=2))
    bad(e4 + b"\x86\xdd" + six[:30], "err_trunc_ipv6", "ipv6 header cut at 30 bytes")
    bad(e4 + b"\x86\xdd" + bytes([0x45]) + six[1:], "err_bad_ipv6", "ipv6 version 4")
    tcp_bad = bytearray(good4)
    tcp_bad[20 + 12] = 0x30  # data offset 3
    bad(e4 + b"\x08\x00" + bytes(tcp_bad), "err_bad_l4", "tcp data offset 3")
    udp4 = bytes(IP(src="198.18.15.1", dst="198.18.15.2") / UDP(sport=1, dport=2) / Raw(b"b" * 8))
    bad(e4 + b"\x08\x00" + udp4[:24], "err_trunc_l4", "udp header cut at 4 bytes")
    bad(e4 + b"\x81\x00\x00\x01\x81\x00\x00\x02\x81\x00\x00\x03\x08\x00" + good4, "err_vlan_depth",
        "three vlan tags")
    bad(e4 + b"\x81\x00\x00\x01", "err_trunc_vlan", "vlan tag cut at 2 bytes")
    gtp_short = bytes(outer4(enb, sgw, 2152, 2152, b""))
    bad(e4 + b"\x08\x00" + gtp_short + b"\x30\xff\x00\x00", "err_trunc_tunnel", "gtp-u header cut at 4 bytes")
    gtp_ext0 = struct.pack("!BBHI", 0x34, 0xff, 12, 0x8000) + struct.pack("!HBB", 0, 0, 0x85) + \
        bytes([0, 0, 0, 0])
    bad(eth() / outer4(enb, sgw, 2152, 2152, gtp_ext0), "err_bad_tunnel",
        "gtp-u extension header of length 0")
    return t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pcap", required=True, help="pcap to write")
    ap.add_argument("--expect", required=True, help="JSON sidecar of expected counters")
    ap.add_argument("--list", help="optional text listing: index, length, label")
    args = ap.parse_args()

    t = build()
    w = RawPcapWriter(args.pcap, linktype=1, sync=False)
    w.write_header(None)
    for i, (data, _) in enumerate(t.frames):
        w.write_packet(data, sec=1700000000 + i // 1000, usec=(i % 1000) * 1000)
    w.close()

    exp = {
        "frames": len(t.frames),
        "tunnel_depth": TUNNEL_DEPTH,
        "note": "counters not listed are expected to stay 0",
        "counters": dict(sorted(t.expected().items())),
        # second scenario: the same pcap again with CIDR_BYPASS in mk_cidr_v4 (IDS mode)
        "cidr_bypass": {
            "prefix": CIDR_BYPASS + "/32",
            "counters": dict(sorted(t.expected(cidr_bypass=[CIDR_BYPASS]).items())),
        },
    }
    with open(args.expect, "w") as f:
        json.dump(exp, f, indent=2)
        f.write("\n")
    if args.list:
        with open(args.list, "w") as f:
            for i, (data, lab) in enumerate(t.frames):
                tail = lab["err"] or ",".join(lab["tunnels"])
                f.write(f"{i + 1:4d} {len(data):5d} {lab['outcome']:15s} {tail:18s} {lab['what']}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
