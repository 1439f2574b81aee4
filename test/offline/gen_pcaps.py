#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Writes the offline-mode test captures and what they contain.

One list of packets (TCP with out-of-order segments and a retransmission,
IPv6 TCP, UDP, ICMP echo, a GTP-U tunnelled TCP session, IPv4 fragments, a
UDP flow split by its timeout, a bad UDP checksum, ICMP errors quoting a
flow or none, frames the decoder must reject, a frame cut by the snap
length, ECN flags, TCP port reuse) is written under every link type
offline mode reads: Ethernet pcap and pcapng, raw IP (DLT 12, 14, 101, and
IPv4-only / IPv6-only under 228 / 229), Linux SLL and SLL2, BSD loopback
(NULL and LOOP, family in either byte order, AF_INET6 as 24, 28 and 30, and
OpenBSD's LOOP as DLT 12), PPP (with and without address/control, with
protocol field compression), PPP_SERIAL (PPP and Cisco framing) and C_HDLC;
plus expected.json: per flow, packets and bytes per direction, computed here
from how the packets were built, never from meerkat's output.

Bytes follow docs/flow.md: 14 (an Ethernet header) + the captured bytes from
the inner IP header on, i.e. the frame the XDP program would deliver.

usage: gen_pcaps.py OUTDIR
"""
import json
import os
import struct
import sys

from scapy.all import (ICMP, IP, TCP, UDP, Dot1Q, Ether, ICMPv6DestUnreach, IPv6, IPv6ExtHdrFragment, Raw,
                       fragment, fragment6)
from scapy.contrib.gtp import GTP_U_Header

T0 = 1796269500  # 2026-12-03T03:45:00Z

MAC_C = "02:00:00:00:00:01"
MAC_S = "02:00:00:00:00:02"

packets = []  # (ts_us, ether frame)
flows = {}    # name -> expected record


def flow(name, proto, src, sport, dst, dport, tunnel=None):
    flows[name] = {"proto": proto, "src_ip": src, "src_port": sport, "dest_ip": dst,
                   "dest_port": dport, "pkts_toserver": 0, "pkts_toclient": 0,
                   "bytes_toserver": 0, "bytes_toclient": 0}
    if tunnel:
        flows[name]["tunnel"] = tunnel


def add(ts, name, toserver, frame, inner_ip_len=None, snap=None):
    """frame: full Ether packet; inner_ip_len: bytes from the inner IP header on;
    snap: bytes captured of the frame (the rest was on the wire only)."""
    raw = bytes(frame)
    packets.append((ts, raw[:snap] if snap else raw, len(raw)))
    if name is None:
        return
    n = inner_ip_len if inner_ip_len is not None else (snap or len(raw)) - 14
    d = "toserver" if toserver else "toclient"
    flows[name]["pkts_" + d] += 1
    flows[name]["bytes_" + d] += 14 + n


def eth(mac_src=MAC_C, mac_dst=MAC_S):
    return Ether(src=mac_src, dst=mac_dst)


def tcp_session(name, ipc, ips, sport, dport, t, segs_c, segs_s, ooo=False, retrans=False,
                close="fin", wrap=None, v6=False, isn=(1000, 5000)):
    """A TCP session; wrap(pkt, toserver) -> (frame, inner_len) for tunnels."""
    L3 = IPv6 if v6 else IP
    cseq, sseq = isn

    def send(toserver, flags, seq, ack, data=b"", dt=0.001):
        nonlocal t
        t += dt
        if toserver:
            ip = L3(src=ipc, dst=ips) / TCP(sport=sport, dport=dport, flags=flags, seq=seq, ack=ack, window=65535)
        else:
            ip = L3(src=ips, dst=ipc) / TCP(sport=dport, dport=sport, flags=flags, seq=seq, ack=ack, window=65535)
        if data:
            ip = ip / Raw(data)
        ip = L3(bytes(ip))  # fix checksums and lengths
        if wrap:
            frame, inner = wrap(ip, toserver)
            add(int(t * 1e6), name, toserver, frame, inner)
        else:
            add(int(t * 1e6), name, toserver, (eth() if toserver else eth(MAC_S, MAC_C)) / ip)
        return ip

    send(True, "S", cseq, 0)
    send(False, "SA", sseq, cseq + 1)
    send(True, "A", cseq + 1, sseq + 1)
    cseq += 1
    sseq += 1
    # client data; with ooo the 2nd and 3rd segments are swapped on the wire
    cl = []
    for d in segs_c:
        cl.append((cseq, d))
        cseq += len(d)
    if ooo and len(cl) >= 3:
        cl[1], cl[2] = cl[2], cl[1]
    for seq, d in cl:
        send(True, "PA", seq, sseq, d)
    send(False, "A", sseq, cseq)
    for i, d in enumerate(segs_s):
        send(False, "PA", sseq, cseq, d)
        if retrans and i == 0:
            send(False, "PA", sseq, cseq, d, dt=0.2)  # retransmission
        sseq += len(d)
    send(True, "A", cseq, sseq)
    if close == "fin":
        send(True, "FA", cseq, sseq)
        send(False, "FA", sseq, cseq + 1)
        send(True, "A", cseq + 1, sseq + 1)
    elif close == "rst":
        send(True, "RA", cseq, sseq)
    elif close == "spoofed-rst":
        # a RST "from the server" at a sequence number it never reached: the session goes on
        send(False, "RA", sseq + 1000, cseq)
        send(True, "PA", cseq, sseq, b"after the spoofed RST")
        send(False, "A", sseq, cseq + 21)
    return t


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)

    # 1. IPv4 TCP with out-of-order client segments and a server retransmission
    flow("tcp4", "TCP", "10.0.0.1", 40000, "10.0.0.2", 80)
    tcp_session("tcp4", "10.0.0.1", "10.0.0.2", 40000, 80, T0 + 0.0,
                [b"GET / HTTP/1.1\r\n", b"Host: example.org\r\n", b"Accept: */*\r\n\r\n"],
                [b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", b"hello"],
                ooo=True, retrans=True)

    # 2. IPv6 TCP ended by a reset
    flow("tcp6", "TCP", "2001:db8::1", 50000, "2001:db8::2", 443)
    tcp_session("tcp6", "2001:db8::1", "2001:db8::2", 50000, 443, T0 + 0.5,
                [b"\x16\x03\x01" + b"A" * 200], [b"\x16\x03\x03" + b"B" * 700], close="rst", v6=True)

    # 3. UDP query/response
    flow("dns", "UDP", "10.0.0.3", 5353, "8.8.8.8", 53)
    add(int((T0 + 1.0) * 1e6), "dns", True, eth() / IP(src="10.0.0.3", dst="8.8.8.8") /
        UDP(sport=5353, dport=53) / Raw(b"\x12\x34" + b"q" * 30))
    add(int((T0 + 1.02) * 1e6), "dns", False, eth(MAC_S, MAC_C) / IP(src="8.8.8.8", dst="10.0.0.3") /
        UDP(sport=53, dport=5353) / Raw(b"\x12\x34" + b"r" * 80))

    # 4. one-way UDP, the last datagram with a wrong checksum (still a flow packet)
    flow("udp1way", "UDP", "10.0.0.4", 1234, "10.0.0.5", 9999)
    for i in range(3):
        add(int((T0 + 1.1 + i * 0.01) * 1e6), "udp1way", True, eth() / IP(src="10.0.0.4", dst="10.0.0.5") /
            UDP(sport=1234, dport=9999, chksum=0xdead if i == 2 else None) / Raw(b"x" * (10 + i)))

    # 5. ICMP echo, identifier 77
    flow("icmp", "ICMP", "10.0.0.1", None, "10.0.0.9", None)
    for i in range(2):
        add(int((T0 + 1.2 + i * 0.1) * 1e6), "icmp", True, eth() / IP(src="10.0.0.1", dst="10.0.0.9") /
            ICMP(type=8, id=77, seq=i) / Raw(b"p" * 32))
        add(int((T0 + 1.21 + i * 0.1) * 1e6), "icmp", False, eth(MAC_S, MAC_C) / IP(src="10.0.0.9", dst="10.0.0.1") /
            ICMP(type=0, id=77, seq=i) / Raw(b"p" * 32))

    # 6. TCP inside GTP-U (TEID 0x100 uplink, 0x200 downlink)
    def gtp(ip, toserver):
        if toserver:
            o = IP(src="192.168.1.1", dst="192.168.1.2") / UDP(sport=2152, dport=2152) / GTP_U_Header(teid=0x100)
        else:
            o = IP(src="192.168.1.2", dst="192.168.1.1") / UDP(sport=2152, dport=2152) / GTP_U_Header(teid=0x200)
        return (eth() if toserver else eth(MAC_S, MAC_C)) / o / ip, len(bytes(ip))
    flow("gtp", "TCP", "10.10.0.1", 33000, "10.10.0.2", 80,
         tunnel={"type": "gtpu", "src_ip": "192.168.1.1", "dest_ip": "192.168.1.2", "teid": 0x100, "depth": 1})
    tcp_session("gtp", "10.10.0.1", "10.10.0.2", 33000, 80, T0 + 2.0,
                [b"GET /tunnel HTTP/1.1\r\n\r\n"], [b"HTTP/1.1 204 No Content\r\n\r\n"], wrap=gtp)

    # 7. a UDP datagram in three IPv4 fragments: one flow packet once reassembled
    flow("frag", "UDP", "10.0.0.7", 7000, "10.0.0.8", 7001)
    dgram = IP(src="10.0.0.7", dst="10.0.0.8", id=4242) / UDP(sport=7000, dport=7001) / Raw(bytes(range(256)) * 11)
    dgram = IP(bytes(dgram))
    frags = fragment(dgram, fragsize=1200)
    for i, fr in enumerate(frags):
        add(int((T0 + 3.0 + i * 0.001) * 1e6), None, True, eth() / fr)
    flows["frag"]["pkts_toserver"] = 1
    flows["frag"]["bytes_toserver"] = 14 + len(bytes(dgram))
    flows["frag"]["fragments"] = len(frags)

    # 8. the same UDP 4-tuple twice, 100 s apart: the 30 s timeout splits it
    for k, dt in (("split_a", 4.0), ("split_b", 104.0)):
        flow(k, "UDP", "10.0.0.20", 1111, "10.0.0.21", 2222)
        add(int((T0 + dt) * 1e6), k, True, eth() / IP(src="10.0.0.20", dst="10.0.0.21") /
            UDP(sport=1111, dport=2222) / Raw(b"s" * 20))

    # 9. a midstream TCP flow whose first packet is the SYN-ACK: client is its receiver
    flow("synack", "TCP", "10.0.0.30", 45000, "10.0.0.31", 22)
    add(int((T0 + 5.0) * 1e6), "synack", False, eth(MAC_S, MAC_C) / IP(src="10.0.0.31", dst="10.0.0.30") /
        TCP(sport=22, dport=45000, flags="SA", seq=1, ack=2))
    add(int((T0 + 5.001) * 1e6), "synack", True, eth() / IP(src="10.0.0.30", dst="10.0.0.31") /
        TCP(sport=45000, dport=22, flags="A", seq=2, ack=2))

    # 10. UDP inside L2TPv2 (PPP); tunnel and session ids differ per direction
    def l2tp(ip, toserver):
        ids = (10, 20) if toserver else (11, 21)
        hdr = struct.pack("!HHH", 0x0002, ids[0], ids[1]) + b"\xff\x03\x00\x21"
        o = IP(src="172.16.0.1", dst="172.16.0.2") if toserver else IP(src="172.16.0.2", dst="172.16.0.1")
        return (eth() if toserver else eth(MAC_S, MAC_C)) / o / UDP(sport=1701, dport=1701) / Raw(hdr + bytes(ip)), len(bytes(ip))
    flow("l2tp", "UDP", "10.20.0.1", 5000, "10.20.0.2", 6000,
         tunnel={"type": "l2tpv2", "src_ip": "172.16.0.1", "dest_ip": "172.16.0.2", "tunnel_id": 10,
                 "session_id": 20, "depth": 1})
    for i, up in enumerate((True, False, True)):
        ip = IP(src="10.20.0.1", dst="10.20.0.2") / UDP(sport=5000, dport=6000) if up else \
            IP(src="10.20.0.2", dst="10.20.0.1") / UDP(sport=6000, dport=5000)
        ip = IP(bytes(ip / Raw(b"l" * (30 + 10 * i))))
        frame, inner = l2tp(ip, up)
        add(int((T0 + 6.0 + i * 0.01) * 1e6), "l2tp", up, frame, inner)

    # 11. a UDP datagram in IPv6 fragments
    flow("frag6", "UDP", "2001:db8::7", 7100, "2001:db8::8", 7101)
    d6 = IPv6(src="2001:db8::7", dst="2001:db8::8") / IPv6ExtHdrFragment(id=77) / \
        UDP(sport=7100, dport=7101) / Raw(bytes(range(200)) * 12)
    d6 = IPv6(bytes(d6))
    f6 = fragment6(d6, 1000)
    for i, fr in enumerate(f6):
        add(int((T0 + 7.0 + i * 0.001) * 1e6), None, True, eth() / fr)
    # the reassembled datagram has no fragment header: 8 bytes less than d6
    whole = IPv6(src="2001:db8::7", dst="2001:db8::8") / UDP(sport=7100, dport=7101) / Raw(bytes(range(200)) * 12)
    flows["frag6"]["pkts_toserver"] = 1
    flows["frag6"]["bytes_toserver"] = 14 + len(bytes(whole))
    flows["frag"]["fragments"] += len(f6)

    # 12. ICMP errors are accounted to the flow they quote, back towards its client
    flow("unreach", "UDP", "10.0.0.40", 3333, "10.0.0.41", 4444)
    q = IP(src="10.0.0.40", dst="10.0.0.41") / UDP(sport=3333, dport=4444) / Raw(b"u" * 24)
    add(int((T0 + 8.0) * 1e6), "unreach", True, eth() / q)
    add(int((T0 + 8.01) * 1e6), "unreach", False, eth(MAC_S, MAC_C) / IP(src="10.0.0.41", dst="10.0.0.40") /
        ICMP(type=3, code=3) / Raw(bytes(q)[:28]))
    # a router's time exceeded about the same flow (RFC 1812: more than 8 bytes quoted)
    add(int((T0 + 8.02) * 1e6), "unreach", False, eth(MAC_S, MAC_C) / IP(src="10.0.0.254", dst="10.0.0.40") /
        ICMP(type=11, code=0) / Raw(bytes(q)))
    flow("unreach6", "UDP", "2001:db8::40", 3333, "2001:db8::41", 4444)
    q6 = IPv6(src="2001:db8::40", dst="2001:db8::41") / UDP(sport=3333, dport=4444) / Raw(b"u" * 24)
    add(int((T0 + 8.1) * 1e6), "unreach6", True, eth() / q6)
    add(int((T0 + 8.11) * 1e6), "unreach6", False, eth(MAC_S, MAC_C) / IPv6(src="2001:db8::41", dst="2001:db8::40") /
        ICMPv6DestUnreach(code=4) / Raw(bytes(q6)))
    # 13. errors quoting a flow never seen: an ICMP flow of their own, one per quoted flow
    flow("orphan_a", "ICMP", "10.0.0.51", None, "10.0.0.50", None)
    flow("orphan_b", "ICMP", "10.0.0.51", None, "10.0.0.50", None)
    for i, (name, dport) in enumerate((("orphan_a", 2), ("orphan_b", 3), ("orphan_a", 2))):
        lost = IP(src="10.0.0.50", dst="10.0.0.51") / UDP(sport=1, dport=dport) / Raw(b"o" * 8)
        add(int((T0 + 8.2 + i * 0.01) * 1e6), name, True, eth(MAC_S, MAC_C) / IP(src="10.0.0.51", dst="10.0.0.50") /
            ICMP(type=3, code=3) / Raw(bytes(lost)[:28]))
    for k in ("orphan_a", "orphan_b"):
        flows[k]["icmp_type"] = 3

    # 14. frames the decoder rejects (no flow), and one cut by the snap length (a flow)
    bad_ip = bytearray(bytes(IP(src="10.0.0.60", dst="10.0.0.61") / UDP(sport=1, dport=2) / Raw(b"b" * 20)))
    bad_ip[2:4] = struct.pack("!H", 400)  # IP total length beyond the frame
    bad_udp = IP(src="10.0.0.62", dst="10.0.0.63") / UDP(sport=1, dport=2, len=200) / Raw(b"b" * 20)
    bad_tcp = IP(src="10.0.0.64", dst="10.0.0.65") / TCP(sport=1, dport=2, dataofs=15, flags="S")
    for i, ip in enumerate((bytes(bad_ip), bytes(bad_udp), bytes(bad_tcp))):
        add(int((T0 + 9.0 + i * 0.01) * 1e6), None, True, Ether(src=MAC_C, dst=MAC_S, type=0x0800) / Raw(ip))
    flow("snap", "UDP", "10.0.0.66", 5555, "10.0.0.67", 6666)
    add(int((T0 + 9.1) * 1e6), "snap", True, eth() / IP(src="10.0.0.66", dst="10.0.0.67") /
        UDP(sport=5555, dport=6666) / Raw(b"s" * 400), snap=96)

    # 15. ECN negotiated: ECE and CWR belong in the flow's TCP flags
    flow("ecn", "TCP", "10.0.0.70", 41000, "10.0.0.71", 8080)
    for i, (up, fl, sq, ak) in enumerate(((True, "SEC", 100, 0), (False, "SAE", 900, 101), (True, "A", 101, 901),
                                          (True, "RA", 101, 901))):
        ip = IP(src="10.0.0.70", dst="10.0.0.71") / TCP(sport=41000, dport=8080, flags=fl, seq=sq, ack=ak) if up else \
            IP(src="10.0.0.71", dst="10.0.0.70") / TCP(sport=8080, dport=41000, flags=fl, seq=sq, ack=ak)
        add(int((T0 + 10.0 + i * 0.001) * 1e6), "ecn", up, (eth() if up else eth(MAC_S, MAC_C)) / ip)
    flows["ecn"]["tcp_flags"] = "d6"

    # 16. the same TCP ports reused by a new SYN after a FIN close: reason tcp_reuse
    flow("reuse_a", "TCP", "10.0.0.80", 42000, "10.0.0.81", 25)
    tcp_session("reuse_a", "10.0.0.80", "10.0.0.81", 42000, 25, T0 + 11.0, [b"EHLO a\r\n"], [b"250 ok\r\n"])
    flows["reuse_a"]["reason"] = "tcp_reuse"
    flow("reuse_b", "TCP", "10.0.0.80", 42000, "10.0.0.81", 25)
    tcp_session("reuse_b", "10.0.0.80", "10.0.0.81", 42000, 25, T0 + 12.0, [b"EHLO b\r\n"], [b"250 ok\r\n"],
                isn=(90000, 70000))

    # 17. evasion: a spoofed RST mid-session neither closes the flow nor stops reassembly
    flow("evasion", "TCP", "10.0.0.90", 43000, "10.0.0.91", 80)
    tcp_session("evasion", "10.0.0.90", "10.0.0.91", 43000, 80, T0 + 13.0, [b"GET /x HTTP/1.1\r\n\r\n"],
                [b"HTTP/1.1 200 OK\r\n\r\n"], close="spoofed-rst")
    flows["evasion"]["state"] = "established"

    packets.sort(key=lambda p: p[0])
    write_all(out)
    # a link type offline mode does not read (DLT_USER0)
    write_pcap(os.path.join(out, "user0.pcap"), 147, [(T0 * 1000000, packets[0][1][14:], None)])

    # Ethernet only: an 802.1Q-tagged UDP flow (cooked and raw captures lose tags)
    tagged = []
    for i, up in enumerate((True, False, True)):
        ip = IP(src="10.1.0.1", dst="10.1.0.2") / UDP(sport=6000, dport=7000) if up else \
            IP(src="10.1.0.2", dst="10.1.0.1") / UDP(sport=7000, dport=6000)
        fr = (eth() if up else eth(MAC_S, MAC_C)) / Dot1Q(vlan=100) / ip / Raw(b"v" * (20 + i))
        tagged.append((int((T0 + 0.1 * i) * 1e6), bytes(fr), None))
    write_pcap(os.path.join(out, "vlan.pcap"), 1, tagged)
    vlan_flow = {"proto": "UDP", "src_ip": "10.1.0.1", "src_port": 6000, "dest_ip": "10.1.0.2",
                 "dest_port": 7000, "vlan": [100], "pkts_toserver": 2, "pkts_toclient": 1,
                 "bytes_toserver": sum(len(f) - 4 for f in (tagged[0][1], tagged[2][1])),
                 "bytes_toclient": len(tagged[1][1]) - 4}
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump({"flows": list(flows.values()), "packets": len(packets),
                   "bad_udp_csum": 1, "fragments": flows["frag"]["fragments"],
                   "decode_errors": {"decode_ip_len": 1, "decode_udp_len": 1, "decode_tcp_hlen": 1},
                   "icmp_error_quoted": 3, "icmp_error_own_flow": 3,
                   "link_variants": LINK_VARIANTS, "family_variants": FAMILY_VARIANTS,
                   "vlan_flow": vlan_flow}, f, indent=1, sort_keys=True)


def inner_ip(frame):
    """Offset of the L3 header after Ethernet (the captures carry no VLAN tags)."""
    return frame[14:], struct.unpack("!H", frame[12:14])[0]


def write_pcap(path, linktype, recs, snaplen=65535):
    """recs: (ts_us, captured bytes, bytes on the wire or None)."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, snaplen, linktype))
        for ts, data, wire in recs:
            f.write(struct.pack("<IIII", ts // 1000000, ts % 1000000, len(data), wire or len(data)))
            f.write(data)


def write_pcapng(path, linktype, recs):
    def block(btype, body):
        pad = (-len(body)) % 4
        n = 12 + len(body) + pad
        return struct.pack("<II", btype, n) + body + b"\0" * pad + struct.pack("<I", n)
    with open(path, "wb") as f:
        f.write(block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)))
        f.write(block(1, struct.pack("<HHI", linktype, 0, 65535)))  # default tsresol: us
        for ts, data, wire in recs:
            f.write(block(6, struct.pack("<IIIII", 0, ts >> 32, ts & 0xffffffff, len(data), wire or len(data)) + data))


# BSD address families: AF_INET is 2 everywhere, AF_INET6 depends on the OS
AF_INET6 = {"bsd": 24, "freebsd": 28, "darwin": 30}

# file -> (DLT, how each frame's link header is written); all give eth.pcap's flows
LINK_VARIANTS = {
    "null.pcap": 0, "null_be.pcap": 0, "null_darwin.pcap": 0, "loop.pcap": 108, "loop_le.pcap": 108,
    "loop_dlt12.pcap": 12, "raw12.pcap": 12, "raw14.pcap": 14, "ppp.pcap": 9, "ppp_serial.pcap": 50,
    "chdlc.pcap": 104,
}
# file -> IP version: raw IPv4-only / IPv6-only link types carry their family's flows
FAMILY_VARIANTS = {"ipv4.pcap": 4, "ipv6.pcap": 6}


def loop_hdr(v6, order, af6):
    return struct.pack(order + "I", af6 if v6 else 2)


def ppp_hdr(i, v6, serial):
    """PPP: address/control or not, 2-byte protocol or compressed to 1 (RFC 1661 PFC);
    PPP_SERIAL: every third frame in Cisco HDLC framing instead."""
    proto = 0x57 if v6 else 0x21
    if serial:
        if i % 3 == 2:
            return struct.pack("!BBH", 0x0f, 0, 0x86dd if v6 else 0x0800)
        return b"\xff\x03" + struct.pack("!H", proto)
    return (b"\xff\x03" + struct.pack("!H", proto), struct.pack("!H", proto), bytes([proto]))[i % 3]


def chdlc_hdr(i, v6):
    return struct.pack("!BBH", 0x8f if i % 2 else 0x0f, 0, 0x86dd if v6 else 0x0800)


def write_all(out):
    eth_recs = packets
    raw_recs, sll_recs, sll2_recs = [], [], []
    link = {name: [] for name in LINK_VARIANTS}
    fam = {name: [] for name in FAMILY_VARIANTS}
    for i, (ts, frame, wire) in enumerate(packets):
        l3, etype = inner_ip(frame)
        v6 = etype == 0x86dd
        w = wire - 14 if wire else None
        raw_recs.append((ts, l3, w))
        mac = bytes.fromhex(frame[6:12].hex())
        # SLL: packet type 4 (outgoing), ARPHRD_ETHER, address length 6, address, protocol
        sll_recs.append((ts, struct.pack("!HHH8sH", 4, 1, 6, mac + b"\0\0", etype) + l3, w and w + 16))
        # SLL2: protocol, reserved, ifindex, ARPHRD_ETHER, packet type, address length, address
        sll2_recs.append((ts, struct.pack("!HHIHBB8s", etype, 0, 2, 1, 4, 6, mac + b"\0\0") + l3, w and w + 20))
        hdrs = {
            "null.pcap": loop_hdr(v6, "<", AF_INET6["bsd"]),
            "null_be.pcap": loop_hdr(v6, ">", AF_INET6["freebsd"]),
            "null_darwin.pcap": loop_hdr(v6, "<", AF_INET6["darwin"]),
            "loop.pcap": loop_hdr(v6, ">", AF_INET6["bsd"]),
            "loop_le.pcap": loop_hdr(v6, "<", AF_INET6["freebsd"]),
            "loop_dlt12.pcap": loop_hdr(v6, ">", AF_INET6["darwin"]),
            "raw12.pcap": b"", "raw14.pcap": b"",
            "ppp.pcap": ppp_hdr(i, v6, False),
            "ppp_serial.pcap": ppp_hdr(i, v6, True),
            "chdlc.pcap": chdlc_hdr(i, v6),
        }
        for name, h in hdrs.items():
            link[name].append((ts, h + l3, w and w + len(h)))
        for name, version in FAMILY_VARIANTS.items():
            if (6 if v6 else 4) == version:
                fam[name].append((ts, l3, w))
    write_pcap(os.path.join(out, "eth.pcap"), 1, eth_recs)
    write_pcapng(os.path.join(out, "eth.pcapng"), 1, eth_recs)
    write_pcap(os.path.join(out, "raw.pcap"), 101, raw_recs)
    write_pcap(os.path.join(out, "sll.pcap"), 113, sll_recs)
    write_pcap(os.path.join(out, "sll2.pcap"), 276, sll2_recs)
    for name, dlt in LINK_VARIANTS.items():
        write_pcap(os.path.join(out, name), dlt, link[name])
    write_pcap(os.path.join(out, "ipv4.pcap"), 228, fam["ipv4.pcap"])
    write_pcap(os.path.join(out, "ipv6.pcap"), 229, fam["ipv6.pcap"])
    # what each link type's own non-IP frames look like, and one shorter than its header
    t = packets[0][0] - 1000
    extra = [
        ("null_nonip.pcap", 0, [(t, struct.pack("<I", 7) + b"\0" * 20, None), (t, b"\x02\0", None)]),
        ("loop_nonip.pcap", 108, [(t, struct.pack(">I", 7) + b"\0" * 20, None), (t, b"\0\0", None)]),
        ("ppp_nonip.pcap", 9, [(t, b"\xff\x03\xc0\x21" + b"\x01" * 10, None), (t, b"\xff\x03", None)]),
        ("chdlc_nonip.pcap", 104, [(t, b"\x8f\x00\x80\x35" + b"\0" * 20, None), (t, b"\x0f\x00", None)]),
    ]
    for name, dlt, recs in extra:
        write_pcap(os.path.join(out, name), dlt, recs)


if __name__ == "__main__":
    main()
