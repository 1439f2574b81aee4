#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Writes the offline-mode test captures and what they contain.

One list of packets (TCP with out-of-order segments and a retransmission,
IPv6 TCP, UDP, ICMP echo, a GTP-U tunnelled TCP session, IPv4 fragments, a
UDP flow split by its timeout, a bad UDP checksum) is written as
Ethernet pcap, pcapng, raw IP, Linux SLL and SLL2 captures, plus
expected.json: per flow, packets and bytes per direction, computed here from
how the packets were built, never from meerkat's output.

Bytes follow docs/flow.md: 14 (an Ethernet header) + the captured bytes from
the inner IP header on, i.e. the frame the XDP program would deliver.

usage: gen_pcaps.py OUTDIR
"""
import json
import os
import struct
import sys

from scapy.all import (ICMP, IP, TCP, UDP, Dot1Q, Ether, IPv6, IPv6ExtHdrFragment, Raw, fragment, fragment6)
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


def add(ts, name, toserver, frame, inner_ip_len=None):
    """frame: full Ether packet; inner_ip_len: bytes from the inner IP header on."""
    raw = bytes(frame)
    packets.append((ts, raw))
    if name is None:
        return
    n = inner_ip_len if inner_ip_len is not None else len(raw) - 14
    d = "toserver" if toserver else "toclient"
    flows[name]["pkts_" + d] += 1
    flows[name]["bytes_" + d] += 14 + n


def eth(mac_src=MAC_C, mac_dst=MAC_S):
    return Ether(src=mac_src, dst=mac_dst)


def tcp_session(name, ipc, ips, sport, dport, t, segs_c, segs_s, ooo=False, retrans=False,
                close="fin", wrap=None, v6=False):
    """A TCP session; wrap(pkt, toserver) -> (frame, inner_len) for tunnels."""
    L3 = IPv6 if v6 else IP
    cseq, sseq = 1000, 5000

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
    else:
        send(True, "RA", cseq, sseq)
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

    packets.sort(key=lambda p: p[0])
    write_all(out)
    # a link type offline mode does not read (DLT_NULL)
    write_pcap(os.path.join(out, "null.pcap"), 0, [(T0 * 1000000, b"\x02\0\0\0" + packets[0][1][14:])])

    # Ethernet only: an 802.1Q-tagged UDP flow (cooked and raw captures lose tags)
    tagged = []
    for i, up in enumerate((True, False, True)):
        ip = IP(src="10.1.0.1", dst="10.1.0.2") / UDP(sport=6000, dport=7000) if up else \
            IP(src="10.1.0.2", dst="10.1.0.1") / UDP(sport=7000, dport=6000)
        fr = (eth() if up else eth(MAC_S, MAC_C)) / Dot1Q(vlan=100) / ip / Raw(b"v" * (20 + i))
        tagged.append((int((T0 + 0.1 * i) * 1e6), bytes(fr)))
    write_pcap(os.path.join(out, "vlan.pcap"), 1, tagged)
    vlan_flow = {"proto": "UDP", "src_ip": "10.1.0.1", "src_port": 6000, "dest_ip": "10.1.0.2",
                 "dest_port": 7000, "vlan": [100], "pkts_toserver": 2, "pkts_toclient": 1,
                 "bytes_toserver": sum(len(f) - 4 for f in (tagged[0][1], tagged[2][1])),
                 "bytes_toclient": len(tagged[1][1]) - 4}
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump({"flows": list(flows.values()), "packets": len(packets),
                   "bad_udp_csum": 1, "fragments": flows["frag"]["fragments"],
                   "vlan_flow": vlan_flow}, f, indent=1, sort_keys=True)


def inner_ip(frame):
    """Offset of the L3 header after Ethernet (the captures carry no VLAN tags)."""
    return frame[14:], struct.unpack("!H", frame[12:14])[0]


def write_pcap(path, linktype, recs):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, linktype))
        for ts, data in recs:
            f.write(struct.pack("<IIII", ts // 1000000, ts % 1000000, len(data), len(data)))
            f.write(data)


def write_pcapng(path, linktype, recs):
    def block(btype, body):
        pad = (-len(body)) % 4
        n = 12 + len(body) + pad
        return struct.pack("<II", btype, n) + body + b"\0" * pad + struct.pack("<I", n)
    with open(path, "wb") as f:
        f.write(block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)))
        f.write(block(1, struct.pack("<HHI", linktype, 0, 65535)))  # default tsresol: us
        for ts, data in recs:
            f.write(block(6, struct.pack("<IIIII", 0, ts >> 32, ts & 0xffffffff, len(data), len(data)) + data))


def write_all(out):
    eth_recs = packets
    raw_recs, sll_recs, sll2_recs = [], [], []
    for ts, frame in packets:
        l3, etype = inner_ip(frame)
        raw_recs.append((ts, l3))
        mac = bytes.fromhex(frame[6:12].hex())
        # SLL: packet type 4 (outgoing), ARPHRD_ETHER, address length 6, address, protocol
        sll_recs.append((ts, struct.pack("!HHH8sH", 4, 1, 6, mac + b"\0\0", etype) + l3))
        # SLL2: protocol, reserved, ifindex, ARPHRD_ETHER, packet type, address length, address
        sll2_recs.append((ts, struct.pack("!HHIHBB8s", etype, 0, 2, 1, 4, 6, mac + b"\0\0") + l3))
    write_pcap(os.path.join(out, "eth.pcap"), 1, eth_recs)
    write_pcapng(os.path.join(out, "eth.pcapng"), 1, eth_recs)
    write_pcap(os.path.join(out, "raw.pcap"), 101, raw_recs)
    write_pcap(os.path.join(out, "sll.pcap"), 113, sll_recs)
    write_pcap(os.path.join(out, "sll2.pcap"), 276, sll2_recs)


if __name__ == "__main__":
    main()
