#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Many-flow traffic for the live testbench (test_symmetry.sh, test_spread.sh).

Writes into --out-dir:

  sym_c2s.pcap, sym_s2c.pcap  1,000 two-direction flows, split by direction:
                              every client-to-server frame in the first file,
                              every server-to-client frame in the second, so
                              the test can send each direction from its own CPU
                              and therefore through its own veth queue.
                              Plain IPv4 TCP (some 802.1Q-tagged) and UDP,
                              IPv6 TCP and UDP, GTP-U (outer addresses swapped
                              and TEIDs different per direction) and L2TPv2
                              (tunnel and session ids different per direction).
  sym.json                    every flow as meerkat's EVE flow record must
                              show it: addresses, ports, protocol, VLAN,
                              tunnel type, packets and bytes per direction.
  spread_plain.pcap           1,000 UDP flows, one frame each way, no tunnel;
  spread_gtpu.pcap            the same inner flows inside ONE GTP-U tunnel
                              (one outer address pair, one TEID per direction);
  spread_l2tp.pcap            the same inside ONE L2TPv2 session.
  spread.json                 frames and flows of each spread capture.
  icmp_errors.pcap            200 UDP flows (150 IPv4, 50 IPv6), each a
                              datagram answered by an ICMP / ICMPv6 port
                              unreachable quoting it: with several workers,
                              half the errors hash to a worker that does not
                              own the flow they quote.

Bytes are counted as meerkat counts them (docs/flow.md, "What a flow's bytes
are"): 14 + the inner IP packet, whatever VLAN tags or tunnels surround it.
Addresses come from 198.18.0.0/15 and 2001:db8::/32. Deterministic.
"""
import argparse
import json
import os
import struct

from scapy.all import ICMP, IP, TCP, UDP, ICMPv6DestUnreach, IPv6, Raw
from scapy.utils import RawPcapWriter

CLIENT_MAC = "02:00:5e:00:00:01"
SERVER_MAC = "02:00:5e:00:00:02"
ENB, SGW = "198.19.0.1", "198.19.0.2"   # GTP-U outer pair
LAC, LNS = "198.19.1.1", "198.19.1.2"   # L2TPv2 outer pair


def gtpu(teid, inner):
    inner = bytes(inner)
    return struct.pack("!BBHI", 0x30, 0xff, len(inner), teid) + inner


def l2tpv2(tunnel, session, inner, ppp_proto=0x0021):
    return struct.pack("!HHHBBH", 0x0002, tunnel, session, 0xff, 0x03, ppp_proto) + bytes(inner)


def outer_udp(src, dst, port, payload):
    return IP(src=src, dst=dst) / UDP(sport=port, dport=port) / Raw(payload)


class Flow:
    """One flow: its frames per direction and the EVE record it must give."""

    def __init__(self, proto, cli, srv, sport, dport, vlan=None, tunnel=None):
        self.proto, self.cli, self.srv, self.sport, self.dport = proto, cli, srv, sport, dport
        self.vlan, self.tunnel = vlan, tunnel
        self.frames = ([], [])  # to server, to client
        self.bytes = [0, 0]

    def ip(self, to_server, payload=b"", flags=None):
        v6 = ":" in self.cli
        src, dst = (self.cli, self.srv) if to_server else (self.srv, self.cli)
        sp, dp = (self.sport, self.dport) if to_server else (self.dport, self.sport)
        l3 = IPv6(src=src, dst=dst) if v6 else IP(src=src, dst=dst)
        l4 = TCP(sport=sp, dport=dp, flags=flags, seq=1000 if to_server else 5000, window=64240) \
            if self.proto == "TCP" else UDP(sport=sp, dport=dp)
        return l3 / l4 / Raw(payload) if payload else l3 / l4

    def add(self, to_server, payload=b"", flags=None):
        inner = self.ip(to_server, payload, flags)
        ib = bytes(inner)
        d = 0 if to_server else 1
        if self.tunnel is None:
            l3 = ib
        elif self.tunnel[0] == "gtpu":
            _, a, b, up, down = self.tunnel
            l3 = outer_udp(a, b, 2152, gtpu(up, ib)) if to_server else \
                outer_udp(b, a, 2152, gtpu(down, ib))
        else:  # l2tpv2
            _, a, b, (t_up, s_up), (t_down, s_down) = self.tunnel
            ppp = 0x0057 if ":" in self.cli else 0x0021
            l3 = outer_udp(a, b, 1701, l2tpv2(t_up, s_up, ib, ppp)) if to_server else \
                outer_udp(b, a, 1701, l2tpv2(t_down, s_down, ib, ppp))
        l3 = bytes(l3)
        # the Ethernet header by hand: scapy's layering is the slow part of this script
        eth = (SERVER_MAC + CLIENT_MAC) if to_server else (CLIENT_MAC + SERVER_MAC)
        eth = bytes.fromhex(eth.replace(":", ""))
        if self.vlan:
            eth += struct.pack("!HH", 0x8100, self.vlan)
        eth += struct.pack("!H", 0x86dd if l3[0] >> 4 == 6 else 0x0800)
        self.frames[d].append(eth + l3)
        self.bytes[d] += 14 + len(ib)

    def record(self):
        r = {"src_ip": self.cli, "src_port": self.sport, "dest_ip": self.srv,
             "dest_port": self.dport, "proto": self.proto,
             "pkts_toserver": len(self.frames[0]), "pkts_toclient": len(self.frames[1]),
             "bytes_toserver": self.bytes[0], "bytes_toclient": self.bytes[1]}
        if self.vlan:
            r["vlan"] = [self.vlan]
        if self.tunnel:
            r["tunnel"] = self.tunnel[0]
        return r


def tcp_flow(f, i):
    """Handshake and one request/response: 3 frames to the server, 2 back."""
    f.add(True, flags="S")
    f.add(False, flags="SA")
    f.add(True, flags="A")
    f.add(True, b"GET /%d HTTP/1.1\r\nHost: flows.example\r\n\r\n" % i, flags="PA")
    f.add(False, b"HTTP/1.1 204 No Content\r\n\r\n", flags="PA")


def udp_flow(f, i, up=2, down=1):
    for k in range(up):
        f.add(True, b"q%05d-%d" % (i, k))
    for k in range(down):
        f.add(False, b"r%05d-%d-answer" % (i, k))


def sym_flows():
    flows = []
    for i in range(400):  # IPv4 TCP, one in eight 802.1Q-tagged
        f = Flow("TCP", "198.18.%d.%d" % (20 + i // 200, 1 + i % 200), "198.18.30.80",
                 20000 + i, 80, vlan=100 if i % 8 == 0 else None)
        tcp_flow(f, i)
        flows.append(f)
    for i in range(200):  # IPv4 UDP
        f = Flow("UDP", "198.18.31.%d" % (1 + i % 100), "198.18.32.53", 30000 + i, 53)
        udp_flow(f, i)
        flows.append(f)
    for i in range(150):  # IPv6: 100 TCP, 50 UDP
        cli = "2001:db8:20::%x" % (1 + i)
        if i < 100:
            f = Flow("TCP", cli, "2001:db8:30::80", 21000 + i, 443)
            tcp_flow(f, i)
        else:
            f = Flow("UDP", cli, "2001:db8:30::53", 31000 + i, 53)
            udp_flow(f, i)
        flows.append(f)
    for i in range(150):  # GTP-U: 10 base stations, TEIDs per UE and direction
        enb = "198.19.0.%d" % (10 + i % 10)
        f = Flow("TCP" if i % 2 else "UDP", "198.18.40.%d" % (1 + i), "198.18.30.80",
                 22000 + i, 80, tunnel=("gtpu", enb, SGW, 0x1000 + i, 0x2000 + i))
        (tcp_flow if i % 2 else udp_flow)(f, i)
        flows.append(f)
    for i in range(100):  # L2TPv2: 4 LACs, one session per subscriber
        lac = "198.19.1.%d" % (10 + i % 4)
        f = Flow("TCP", "198.18.41.%d" % (1 + i), "198.18.30.80", 23000 + i, 80,
                 tunnel=("l2tpv2", lac, LNS, (7, 100 + i), (8, 200 + i)))
        tcp_flow(f, i)
        flows.append(f)
    return flows


def spread_flows(kind):
    flows = []
    for i in range(1000):
        cli = "198.18.%d.%d" % (50 + i // 250, 1 + i % 250)
        srv = "198.18.60.%d" % (1 + i % 7)
        tunnel = {"plain": None,
                  "gtpu": ("gtpu", ENB, SGW, 0x100, 0x200),
                  "l2tp": ("l2tpv2", LAC, LNS, (7, 9), (8, 10))}[kind]
        f = Flow("UDP", cli, srv, 10000 + i, 5000 + i % 11, tunnel=tunnel)
        udp_flow(f, i, up=1, down=1)
        flows.append(f)
    return flows


def icmp_error_frames():
    frames = []
    for i in range(200):
        v6 = i >= 150
        cli = "2001:db8:50::%x" % (1 + i) if v6 else "198.18.70.%d" % (1 + i)
        srv = "2001:db8:60::53" if v6 else "198.18.80.53"
        l3 = IPv6 if v6 else IP
        q = l3(src=cli, dst=srv) / UDP(sport=40000 + i, dport=5353) / Raw(b"probe %03d" % i)
        err = (IPv6(src=srv, dst=cli) / ICMPv6DestUnreach(code=4) / Raw(bytes(q))) if v6 else \
            (IP(src=srv, dst=cli) / ICMP(type=3, code=3) / Raw(bytes(q)[:28]))
        for to_server, pkt in ((True, q), (False, err)):
            eth = (SERVER_MAC + CLIENT_MAC) if to_server else (CLIENT_MAC + SERVER_MAC)
            eth = bytes.fromhex(eth.replace(":", "")) + struct.pack("!H", 0x86dd if v6 else 0x0800)
            frames.append(eth + bytes(pkt))
    return frames


def write_pcap(path, frames):
    w = RawPcapWriter(path, linktype=1, sync=False)
    w.write_header(None)
    for i, data in enumerate(frames):
        w.write_packet(data, sec=1700000000 + i // 1000, usec=(i % 1000) * 1000)
    w.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out-dir", required=True)
    args = ap.parse_args()
    out = args.out_dir

    flows = sym_flows()
    write_pcap(os.path.join(out, "sym_c2s.pcap"), [x for f in flows for x in f.frames[0]])
    write_pcap(os.path.join(out, "sym_s2c.pcap"), [x for f in flows for x in f.frames[1]])
    with open(os.path.join(out, "sym.json"), "w") as fp:
        json.dump({"flows": [f.record() for f in flows],
                   "frames_c2s": sum(len(f.frames[0]) for f in flows),
                   "frames_s2c": sum(len(f.frames[1]) for f in flows)}, fp, indent=1)
        fp.write("\n")

    spread = {}
    for kind in ("plain", "gtpu", "l2tp"):
        fl = spread_flows(kind)
        frames = []
        for f in fl:
            frames += f.frames[0] + f.frames[1]
        write_pcap(os.path.join(out, "spread_%s.pcap" % kind), frames)
        spread[kind] = {"frames": len(frames), "flows": len(fl)}
    with open(os.path.join(out, "spread.json"), "w") as fp:
        json.dump(spread, fp, indent=1)
        fp.write("\n")
    write_pcap(os.path.join(out, "icmp_errors.pcap"), icmp_error_frames())


if __name__ == "__main__":
    main()
