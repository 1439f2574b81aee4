#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Writes the detection end-to-end captures and the alerts they must raise.

Sessions built with scapy, each with the rule it targets (test/detect/e2e.rules)
and its decoys: a pattern split across TCP segments, segments out of order, a
retransmitted segment, server-to-client data, depth and nocase and direction
and port and flow-state decoys, an anchored pcre on a stream, IPv6, a VLAN
tag, a fragmented UDP datagram, ICMP and ICMPv6 echo, flowbits, dsize
boundaries, byte_test/byte_jump, an address-only rule, a threshold, SYNs.

plain.pcap holds them as they are; gtpu.pcap and l2tp.pcap hold the same IP
packets inside GTP-U and L2TPv2 (every session but the VLAN one), so they must
raise exactly the same alerts on the inner addresses, with a tunnel object.
expected.json lists, per capture, the alerts as (sid, src, sport, dst, dport,
proto), computed here from how the packets were built, never from meerkat.

usage: gen_detect_pcaps.py OUTDIR
"""
import json
import os
import struct
import sys

from scapy.all import (ICMP, IP, TCP, UDP, Dot1Q, Ether, ICMPv6EchoRequest, ICMPv6EchoReply, IPv6,
                       Raw, fragment)

T0 = 1796270000.0
MAC_C, MAC_S = "02:00:00:00:01:01", "02:00:00:00:01:02"

packets = []  # (ts, ip packet bytes, to_server, vlan or None, tunnel copy allowed)
alerts = []   # expected in every capture the session is in
plain_only_alerts = []
thresholded = []  # flows whose matches a threshold removed: still marked alerted
clock = [T0]


def tick(dt=0.001):
    clock[0] += dt
    return clock[0]


def add(ip, to_server, vlan=None, tunnel=True, dt=0.001):
    packets.append((tick(dt), bytes(ip), to_server, vlan, tunnel))


def expect(sid, src, sport, dst, dport, proto, tunnel=True):
    (alerts if tunnel else plain_only_alerts).append(
        {"sid": sid, "src_ip": src, "src_port": sport, "dest_ip": dst, "dest_port": dport,
         "proto": proto})


class Tcp:
    """A TCP session; data is acknowledged by the peer unless told not to."""

    def __init__(self, cli, cport, srv, sport, v6=False):
        self.cli, self.cport, self.srv, self.sport = cli, cport, srv, sport
        self.L3 = IPv6 if v6 else IP
        self.cseq, self.sseq = 1000, 7000

    def pkt(self, from_client, flags, seq, ack, data=b""):
        if from_client:
            p = self.L3(src=self.cli, dst=self.srv) / TCP(sport=self.cport, dport=self.sport, flags=flags,
                                                         seq=seq, ack=ack, window=65535)
        else:
            p = self.L3(src=self.srv, dst=self.cli) / TCP(sport=self.sport, dport=self.cport, flags=flags,
                                                         seq=seq, ack=ack, window=65535)
        if data:
            p = p / Raw(data)
        add(self.L3(bytes(p)), from_client)

    def open(self):
        self.pkt(True, "S", self.cseq, 0)
        self.pkt(False, "SA", self.sseq, self.cseq + 1)
        self.cseq += 1
        self.sseq += 1
        self.pkt(True, "A", self.cseq, self.sseq)
        return self

    def send(self, from_client, segments, order=None, retransmit=None, ack=True):
        """segments: list of bytes sent back to back; order: permutation;
        retransmit: index of a segment sent twice."""
        base = self.cseq if from_client else self.sseq
        offs, o = [], base
        for s in segments:
            offs.append(o)
            o += len(s)
        for i in (order or range(len(segments))):
            peer = self.sseq if from_client else self.cseq
            self.pkt(from_client, "PA", offs[i], peer, segments[i])
            if retransmit == i:
                self.pkt(from_client, "PA", offs[i], peer, segments[i])
        if from_client:
            self.cseq = o
        else:
            self.sseq = o
        if ack:
            if from_client:
                self.pkt(False, "A", self.sseq, self.cseq)
            else:
                self.pkt(True, "A", self.cseq, self.sseq)

    def close(self):
        self.pkt(True, "FA", self.cseq, self.sseq)
        self.pkt(False, "FA", self.sseq, self.cseq + 1)
        self.pkt(True, "A", self.cseq + 1, self.sseq + 1)


def udp(src, sport, dst, dport, data, to_server=True, vlan=None, tunnel=True, v6=False):
    L3 = IPv6 if v6 else IP
    add(L3(bytes(L3(src=src, dst=dst) / UDP(sport=sport, dport=dport) / Raw(data))), to_server, vlan,
        tunnel)


def build():
    # 1. a pattern straddling two segments, the 2nd and 3rd segments swapped
    s = Tcp("10.1.0.1", 40001, "10.2.0.80", 80).open()
    s.send(True, [b"POST /upload HTTP/1.1\r\nX: EVIL-PAY", b"LOAD-42 and more\r\n", b"tail\r\n\r\n"],
           order=[0, 2, 1])
    # 2. the server's answer: a token split across segments, one segment retransmitted
    s.send(False, [b"HTTP/1.1 200 OK\r\nSet: SECRET-", b"TOKEN=abc\r\n\r\n"], retransmit=0)
    s.close()
    expect(1001, "10.1.0.1", 40001, "10.2.0.80", 80, "TCP")
    expect(1002, "10.2.0.80", 80, "10.1.0.1", 40001, "TCP")

    # 3. decoys: wrong case (a nocase rule still fires), outside depth, wrong
    # direction, wrong port; and the depth rule's good case
    s = Tcp("10.1.0.2", 40002, "10.2.0.80", 80).open()
    s.send(True, [b"evil-payload-42 in lower case, a WiDgEt\r\n"])
    s.send(True, [b"xxADMIN is outside depth 5\r\n"])
    s.send(False, [b"HELLO-SERVER from the server side\r\n"])
    s.close()
    expect(1003, "10.1.0.2", 40002, "10.2.0.80", 80, "TCP")
    s = Tcp("10.1.0.3", 40003, "10.2.0.80", 80).open()
    s.send(True, [b"ADMIN login\r\n"])
    s.send(True, [b"HELLO-SERVER from the client\r\n"])
    s.close()
    expect(1004, "10.1.0.3", 40003, "10.2.0.80", 80, "TCP")
    expect(1005, "10.1.0.3", 40003, "10.2.0.80", 80, "TCP")
    s = Tcp("10.1.0.4", 40004, "10.2.0.81", 8081).open()
    s.send(True, [b"EVIL-PAYLOAD-42 to another port\r\n"])
    s.close()
    expect(1001, "10.1.0.4", 40004, "10.2.0.81", 8081, "TCP")  # 1001 is any port; 1006 is 8080 only

    # 4. flow state: the first datagram is not established, the reply is
    udp("10.1.0.5", 5000, "10.2.0.53", 9999, b"PING-UDP one")
    udp("10.1.0.5", 5000, "10.2.0.53", 9999, b"PING-UDP two")
    udp("10.2.0.53", 9999, "10.1.0.5", 5000, b"PING-UDP reply", to_server=False)
    expect(1007, "10.2.0.53", 9999, "10.1.0.5", 5000, "UDP")

    # 5. IPv6 TCP
    s = Tcp("2001:db8:1::10", 41000, "2001:db8:2::80", 80, v6=True).open()
    s.send(True, [b"GET /v6 HTTP/1.1\r\nX-IPV6", b"-MARKER: yes\r\n\r\n"])
    s.close()
    expect(1010, "2001:db8:1::10", 41000, "2001:db8:2::80", 80, "TCP")

    # 6. VLAN (plain capture only: the tag belongs to the outer frame)
    udp("10.1.0.6", 6000, "10.2.0.60", 7000, b"VLAN-PAYLOAD here", vlan=100, tunnel=False)
    expect(1011, "10.1.0.6", 6000, "10.2.0.60", 7000, "UDP", tunnel=False)

    # 7. a UDP datagram in three fragments, the marker across a fragment boundary
    data = b"A" * 1185 + b"FRAG-MARKER" + b"B" * 1500  # the marker crosses byte 1200
    dg = IP(bytes(IP(src="10.1.0.7", dst="10.2.0.70", id=777) / UDP(sport=7100, dport=7200) / Raw(data)))
    for fr in fragment(dg, fragsize=1200):
        add(fr, True)
    expect(1012, "10.1.0.7", 7100, "10.2.0.70", 7200, "UDP")

    # 8. ICMP and ICMPv6 echo
    for i in range(2):
        add(IP(bytes(IP(src="10.1.0.8", dst="10.2.0.8") / ICMP(type=8, id=42, seq=i) / Raw(b"PINGDATA" * 4))),
            True)
        add(IP(bytes(IP(src="10.2.0.8", dst="10.1.0.8") / ICMP(type=0, id=42, seq=i) / Raw(b"PINGDATA" * 4))),
            False)
        expect(1013, "10.1.0.8", None, "10.2.0.8", None, "ICMP")
    add(IPv6(bytes(IPv6(src="2001:db8:1::8", dst="2001:db8:2::8") / ICMPv6EchoRequest(id=7, seq=1,
                                                                                     data=b"v6ping"))), True)
    add(IPv6(bytes(IPv6(src="2001:db8:2::8", dst="2001:db8:1::8") / ICMPv6EchoReply(id=7, seq=1,
                                                                                   data=b"v6ping"))), False)
    expect(1014, "2001:db8:1::8", None, "2001:db8:2::8", None, "IPv6-ICMP")

    # 9. flowbits: a command after a login alerts; without a login it does not
    udp("10.1.0.9", 2300, "10.2.0.23", 2323, b"LOGIN alice")
    udp("10.1.0.9", 2300, "10.2.0.23", 2323, b"CMD rm -rf")
    udp("10.1.0.10", 2300, "10.2.0.23", 2323, b"CMD rm -rf")
    expect(1016, "10.1.0.9", 2300, "10.2.0.23", 2323, "UDP")

    # 10. dsize: 1000 bytes do not match >1000, 1001 do
    udp("10.1.0.11", 3000, "10.2.0.30", 3001, b"D" * 1000)
    udp("10.1.0.11", 3000, "10.2.0.30", 3001, b"D" * 1001)
    expect(1017, "10.1.0.11", 3000, "10.2.0.30", 3001, "UDP")

    # 11. an anchored pcre on the stream start, across two segments; a decoy not at the start
    s = Tcp("10.1.0.12", 40012, "10.2.0.80", 80).open()
    s.send(True, [b"GE", b"T /admin/panel HTTP/1.1\r\n\r\n"])
    s.close()
    expect(1018, "10.1.0.12", 40012, "10.2.0.80", 80, "TCP")
    s = Tcp("10.1.0.13", 40013, "10.2.0.80", 80).open()
    s.send(True, [b"xGET /admin/panel HTTP/1.1\r\n\r\n"])
    s.send(True, [b"GET /admin/panel HTTP/1.1\r\n\r\n"])
    s.close()

    # 12. an address-only rule with <>: the first packet of each direction
    udp("10.9.9.9", 1111, "10.2.0.99", 2222, b"x")
    udp("10.9.9.9", 1111, "10.2.0.99", 2222, b"y")
    udp("10.2.0.99", 2222, "10.9.9.9", 1111, b"z", to_server=False)
    udp("10.2.0.99", 2222, "10.9.9.9", 1111, b"w", to_server=False)
    expect(1019, "10.9.9.9", 1111, "10.2.0.99", 2222, "UDP")
    expect(1019, "10.2.0.99", 2222, "10.9.9.9", 1111, "UDP")

    # 13. threshold limit 2 per source: five matches, two alerts
    for i in range(5):
        udp("10.1.0.14", 4000 + i, "10.2.0.40", 4444, b"SPAM offer %d" % i)
    for i in range(2):
        expect(1020, "10.1.0.14", 4000 + i, "10.2.0.40", 4444, "UDP")
    for i in range(2, 5):
        thresholded.append(["10.1.0.14", 4000 + i, "10.2.0.40", 4444])

    # 14. byte_test and byte_jump: a length field, then a record type after the jump
    good = b"\xca\xfe" + struct.pack("!H", 5) + b"hello" + b"\x07BAD"
    bad = b"\xca\xfe" + struct.pack("!H", 4) + b"hell" + b"\x01BAD"
    udp("10.1.0.15", 5500, "10.2.0.55", 5555, good)
    udp("10.1.0.15", 5501, "10.2.0.55", 5555, bad)
    expect(1021, "10.1.0.15", 5500, "10.2.0.55", 5555, "UDP")

    # 15. unanswered SYNs (flow:stateless; flags:S), one SYN/ACK that must not match
    for p in (22, 23, 25):
        add(IP(bytes(IP(src="10.1.0.16", dst="10.2.0.16") / TCP(sport=50000, dport=p, flags="S", seq=1))), True)
        expect(1022, "10.1.0.16", 50000, "10.2.0.16", p, "TCP")
    add(IP(bytes(IP(src="10.2.0.17", dst="10.1.0.17") / TCP(sport=443, dport=50001, flags="SA", seq=1,
                                                             ack=1))), False)

    # 16. an ICMP port unreachable quoting a UDP datagram: inspected as a packet of the
    # UDP flow (its alert carries that flow's id, the flow is marked alerted)
    udp("10.1.0.18", 1800, "10.2.0.18", 1818, b"knock")
    quoted = bytes(IP(src="10.1.0.18", dst="10.2.0.18") / UDP(sport=1800, dport=1818) / Raw(b"knock"))
    add(IP(bytes(IP(src="10.2.0.18", dst="10.1.0.18") / ICMP(type=3, code=3) / Raw(quoted))), False)
    expect(1023, "10.2.0.18", None, "10.1.0.18", None, "ICMP")


def eth(ip, to_server, vlan):
    e = Ether(src=MAC_C, dst=MAC_S) if to_server else Ether(src=MAC_S, dst=MAC_C)
    if vlan:
        e = e / Dot1Q(vlan=vlan, type=0x86dd if ip[0] >> 4 == 6 else 0x0800)
    return bytes(e / Raw(ip))


def ethertype_ip(ip):
    return b"\x86\xdd" if ip[0] >> 4 == 6 else b"\x08\x00"


def frame_plain(ip, to_server, vlan):
    if vlan:
        return eth(ip, to_server, vlan)
    mac = (bytes.fromhex("020000000102020000000101") if to_server else
           bytes.fromhex("020000000101020000000102"))
    return mac + ethertype_ip(ip) + ip


def frame_gtpu(ip, to_server):
    teid = 0x1111 if to_server else 0x2222
    gtp = struct.pack("!BBHI", 0x30, 0xff, len(ip), teid) + ip
    o = IP(src="192.0.2.1", dst="192.0.2.2") if to_server else IP(src="192.0.2.2", dst="192.0.2.1")
    return frame_plain(bytes(o / UDP(sport=2152, dport=2152) / Raw(gtp)), to_server, None)


def frame_l2tp(ip, to_server):
    proto = 0x0057 if ip[0] >> 4 == 6 else 0x0021
    l2 = struct.pack("!HHH", 0x0002, 7 if to_server else 8, 9 if to_server else 10) + \
        struct.pack("!BBH", 0xff, 0x03, proto) + ip
    o = IP(src="198.51.100.1", dst="198.51.100.2") if to_server else IP(src="198.51.100.2", dst="198.51.100.1")
    return frame_plain(bytes(o / UDP(sport=1701, dport=1701) / Raw(l2)), to_server, None)


def frame_vxlan(ip, to_server):
    inner = frame_plain(ip, to_server, None)  # an Ethernet frame, as VXLAN carries
    vx = struct.pack("!B3xI", 0x08, 0x4242 << 8) + inner
    o = IP(src="203.0.113.1", dst="203.0.113.2") if to_server else IP(src="203.0.113.2", dst="203.0.113.1")
    return frame_plain(bytes(o / UDP(sport=49152, dport=4789) / Raw(vx)), to_server, None)


def write_pcap(path, recs):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for ts, data in recs:
            us = int(round(ts * 1e6))
            f.write(struct.pack("<IIII", us // 1000000, us % 1000000, len(data), len(data)))
            f.write(data)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    build()
    write_pcap(os.path.join(out, "plain.pcap"),
               [(ts, frame_plain(ip, up, vlan)) for ts, ip, up, vlan, _ in packets])
    write_pcap(os.path.join(out, "gtpu.pcap"),
               [(ts, frame_gtpu(ip, up)) for ts, ip, up, vlan, tun in packets if tun])
    write_pcap(os.path.join(out, "l2tp.pcap"),
               [(ts, frame_l2tp(ip, up)) for ts, ip, up, vlan, tun in packets if tun])
    write_pcap(os.path.join(out, "vxlan.pcap"),
               [(ts, frame_vxlan(ip, up)) for ts, ip, up, vlan, tun in packets if tun])
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump({"plain.pcap": alerts + plain_only_alerts, "gtpu.pcap": alerts, "l2tp.pcap": alerts,
                   "vxlan.pcap": alerts,
                   "tunnel": {"gtpu.pcap": "gtpu", "l2tp.pcap": "l2tpv2", "vxlan.pcap": "vxlan"},
                   "vlan": {"1011": [100]}, "thresholded": thresholded}, f, indent=1)


if __name__ == "__main__":
    main()
