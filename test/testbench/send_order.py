#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Sends a gen_order.py capture from two CPUs, each direction from its own.

  send_order.py IFACE PCAP PLAN

Two processes, pinned to CPU 0 and CPU 1, each with a raw AF_PACKET socket
on IFACE, send the frames PLAN gives them at the capture's times (relative to
a common start). A frame waits until the frame it depends on (the previous
one of its flow, sent by either process) has left, so each flow leaves in the
capture's order whatever the scheduler does; frames of different flows may
cross. With XPS mapping CPU n to TX queue n on a veth, the two directions of
every flow reach the other end through different RX queues. Prints
"sent N late_max_us L" and exits 0 when every frame was sent.
"""
import mmap
import os
import socket
import struct
import sys
import time


def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    if struct.unpack("<I", data[:4])[0] != 0xa1b2c3d4:
        sys.exit("send_order: %s: not a little-endian microsecond pcap" % path)
    off, out = 24, []
    while off < len(data):
        sec, usec, caplen, _ = struct.unpack("<IIII", data[off:off + 16])
        out.append((sec * 1_000_000 + usec, data[off + 16:off + 16 + caplen]))
        off += 16 + caplen
    return out


def sender(cpu, iface, frames, plan, sent, t0):
    os.sched_setaffinity(0, {cpu})
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    first = frames[0][0]
    late_max = 0.0
    n = 0
    for i, ((ts, frame), (side, dep)) in enumerate(zip(frames, plan)):
        if side != cpu:
            continue
        target = t0 + (ts - first) / 1e6
        while True:
            left = target - time.perf_counter()
            if left > 0.0003:
                time.sleep(left - 0.00025)
            elif left > 0 or (dep >= 0 and not sent[dep]):
                os.sched_yield()
            else:
                break
        late_max = max(late_max, -left)
        s.send(frame)
        sent[i] = 1
        n += 1
    return n, late_max


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    iface, pcap, plan_path = sys.argv[1:]
    frames = read_pcap(pcap)
    with open(plan_path) as f:
        plan = [tuple(int(x) for x in line.split()) for line in f]
    if len(plan) != len(frames):
        sys.exit("send_order: %d frames, %d plan lines" % (len(frames), len(plan)))
    if not {0, 1} <= os.sched_getaffinity(0):
        sys.exit("send_order: needs CPUs 0 and 1")
    sent = mmap.mmap(-1, len(frames))  # shared with the child
    t0 = time.perf_counter() + 0.05
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        n, late = sender(1, iface, frames, plan, sent, t0)
        os.write(w, b"%d %f" % (n, late))
        os._exit(0)
    os.close(w)
    n0, late0 = sender(0, iface, frames, plan, sent, t0)
    child = os.read(r, 64).split()
    _, status = os.waitpid(pid, 0)
    if status or len(child) != 2:
        sys.exit("send_order: the CPU 1 sender failed")
    n = n0 + int(child[0])
    print("sent %d late_max_us %.0f" % (n, max(late0, float(child[1])) * 1e6))
    sys.exit(0 if n == len(frames) else 1)


if __name__ == "__main__":
    main()
