#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""
Writes every frame of a classic pcap (fixtures.pcap) as one file of a
libFuzzer corpus directory, and the same frame without its Ethernet header
for the raw-IP start. Plain struct, no scapy: it must read broken frames.

usage: pcap_to_corpus.py FIXTURES.pcap CORPUS_DIR [STAMP]
"""
import os
import struct
import sys


def frames(path):
    with open(path, 'rb') as f:
        hdr = f.read(24)
        magic = struct.unpack('<I', hdr[:4])[0]
        endian = '<' if magic in (0xa1b2c3d4, 0xa1b23c4d) else '>'
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                return
            _, _, incl, _ = struct.unpack(endian + 'IIII', rec)
            yield f.read(incl)


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    os.makedirs(sys.argv[2], exist_ok=True)
    n = 0
    for i, fr in enumerate(frames(sys.argv[1])):
        with open(os.path.join(sys.argv[2], 'fixture-%03d' % i), 'wb') as f:
            f.write(fr)
        n += 1
        if len(fr) > 14:
            with open(os.path.join(sys.argv[2], 'fixture-%03d-ip' % i), 'wb') as f:
                f.write(fr[14:])
            n += 1
    if len(sys.argv) == 4:
        with open(sys.argv[3], 'w') as f:
            f.write('%d\n' % n)


if __name__ == '__main__':
    main()
