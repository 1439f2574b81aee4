#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Traffic whose alerts depend on arrival order, for test_live_order.sh.

Writes into --out-dir:

  order.pcap    every frame in the order it is sent (the offline reference),
                each flow's frames --gap-min..--gap-max microseconds apart,
                a new flow every --spacing microseconds, flows interleaved;
  order.plan    one line per frame of order.pcap: "SIDE DEP", SIDE the CPU
                that sends it (0 or 1), DEP the index of the frame of the same
                flow that must have left before it (-1: none);
  order.json    flows and the alerts offline mode must raise.

Flows, from 198.18.0.0/15 (clients) to 198.19.0.0/16 (servers):
  UDP request/response pairs (port 7777): the request sets a flowbit, the
  response's rule needs it and flow:to_client (order.rules);
  TCP sessions (port 8088): handshake, a request and a response with
  flow:established,to_server / to_client content rules, FIN both ways.
The two directions of a flow are sent from different CPUs, so through
different veth queues: even flows send their requests from CPU 1 and their
responses from CPU 0, odd flows the other way round; a worker that drains its
queue-0 socket before its queue-1 socket without regard to arrival sees the
responses of even flows first. Deterministic (--seed).
"""
import argparse
import json
import os
import random
import struct

CLIENT_MAC = bytes.fromhex("020000000001")
SERVER_MAC = bytes.fromhex("020000000002")


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def ipv4(src, dst, proto, l4, ident):
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4), ident, 0x4000, 64, proto, 0,
                      bytes(src), bytes(dst))
    hdr = hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:]
    return hdr + l4


def l4_csum(src, dst, proto, l4):
    return csum(bytes(src) + bytes(dst) + struct.pack("!BBH", 0, proto, len(l4)) + l4)


def udp(src, dst, sport, dport, payload, ident):
    l4 = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
    l4 = l4[:6] + struct.pack("!H", l4_csum(src, dst, 17, l4) or 0xffff) + l4[8:]
    return ipv4(src, dst, 17, l4, ident)


def tcp(src, dst, sport, dport, seq, ack, flags, payload, ident):
    l4 = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4, flags, 65535, 0, 0) + payload
    l4 = l4[:16] + struct.pack("!H", l4_csum(src, dst, 6, l4)) + l4[18:]
    return ipv4(src, dst, 6, l4, ident)


def eth(to_server, ip):
    dst, src = (SERVER_MAC, CLIENT_MAC) if to_server else (CLIENT_MAC, SERVER_MAC)
    return dst + src + b"\x08\x00" + ip


FIN, SYN, PSH, ACK = 0x01, 0x02, 0x08, 0x10


def udp_flow(i, c, s):
    sport = 20000 + i % 40000
    return [(True, udp(c, s, sport, 7777, b"ORDER-REQ %05d login" % i, 1)),
            (False, udp(s, c, 7777, sport, b"ORDER-RSP %05d token" % i, 1))]


def tcp_flow(i, c, s):
    sport = 30000 + i % 30000
    req = b"ORDER-GET /item/%05d\r\n\r\n" % i
    rsp = b"ORDER-200 item %05d\r\n\r\n" % i
    ci, si = 1000 * (i + 1), 5000 * (i + 1)
    return [
        (True, tcp(c, s, sport, 8088, ci, 0, SYN, b"", 1)),
        (False, tcp(s, c, 8088, sport, si, ci + 1, SYN | ACK, b"", 1)),
        (True, tcp(c, s, sport, 8088, ci + 1, si + 1, ACK, b"", 2)),
        (True, tcp(c, s, sport, 8088, ci + 1, si + 1, PSH | ACK, req, 3)),
        (False, tcp(s, c, 8088, sport, si + 1, ci + 1 + len(req), PSH | ACK, rsp, 2)),
        (True, tcp(c, s, sport, 8088, ci + 1 + len(req), si + 1 + len(rsp), FIN | ACK, b"", 4)),
        (False, tcp(s, c, 8088, sport, si + 1 + len(rsp), ci + 2 + len(req), FIN | ACK, b"", 3)),
        (True, tcp(c, s, sport, 8088, ci + 2 + len(req), si + 2 + len(rsp), ACK, b"", 5)),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--udp", type=int, default=1000, help="UDP request/response flows")
    ap.add_argument("--tcp", type=int, default=200, help="TCP sessions")
    ap.add_argument("--spacing", type=int, default=120, help="us between flow starts")
    ap.add_argument("--gap-min", type=int, default=100, help="us between a flow's frames, least")
    ap.add_argument("--gap-max", type=int, default=500, help="us between a flow's frames, most")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rnd = random.Random(a.seed)

    events = []  # (time us, flow, frame index in flow, side, bytes)
    kinds = ["udp"] * a.udp + ["tcp"] * a.tcp
    rnd.shuffle(kinds)
    for i, kind in enumerate(kinds):
        c = [198, 18, (i >> 8) & 0xff, i & 0xff]
        s = [198, 19, (i >> 8) & 0xff, i & 0xff]
        frames = udp_flow(i, c, s) if kind == "udp" else tcp_flow(i, c, s)
        # even flows: requests from CPU 1, responses from CPU 0; odd flows the other way
        client_cpu = 1 if i % 2 == 0 else 0
        t = i * a.spacing
        for k, (to_server, ip) in enumerate(frames):
            if k:
                t += rnd.randint(a.gap_min, a.gap_max)
            side = client_cpu if to_server else 1 - client_cpu
            events.append((t, i, k, side, eth(to_server, ip)))
    events.sort(key=lambda e: (e[0], e[1], e[2]))

    last = {}
    os.makedirs(a.out_dir, exist_ok=True)
    base = 1_800_000_000
    with open(os.path.join(a.out_dir, "order.pcap"), "wb") as pcap, \
            open(os.path.join(a.out_dir, "order.plan"), "w") as plan:
        pcap.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for n, (t, flow, _, side, frame) in enumerate(events):
            pcap.write(struct.pack("<IIII", base + t // 1_000_000, t % 1_000_000, len(frame),
                                   len(frame)) + frame)
            plan.write("%d %d\n" % (side, last.get(flow, -1)))
            last[flow] = n
    with open(os.path.join(a.out_dir, "order.json"), "w") as f:
        json.dump({"frames": len(events), "udp_flows": a.udp, "tcp_flows": a.tcp,
                   "alerts": 2 * a.udp + 2 * a.tcp,
                   "duration_us": events[-1][0]}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
