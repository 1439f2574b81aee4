#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Cuts a pcap file into files of N records each, for `meerkat -r DIR`.

usage: split_pcap.py FILE N DIR

DIR/00000.pcap, DIR/00001.pcap, ... each start with FILE's header, so the
directory read in name order is FILE again (docs/performance.md, section 5).
Classic pcap only, either byte order.
"""
import os
import struct
import sys


def main():
    path, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    os.makedirs(out, exist_ok=True)
    with open(path, "rb") as f:
        hdr = f.read(24)
        magic = struct.unpack("<I", hdr[:4])[0]
        if magic in (0xa1b2c3d4, 0xa1b23c4d):
            order = "<"
        elif magic in (0xd4c3b2a1, 0x4d3cb2a1):
            order = ">"
        else:
            raise SystemExit("%s: not a pcap file" % path)
        files = recs = 0
        dst = None
        while True:
            rh = f.read(16)
            if len(rh) < 16:
                break
            caplen = struct.unpack(order + "I", rh[8:12])[0]
            if recs % n == 0:
                if dst:
                    dst.close()
                dst = open(os.path.join(out, "%05d.pcap" % files), "wb")
                dst.write(hdr)
                files += 1
            dst.write(rh + f.read(caplen))
            recs += 1
        if dst:
            dst.close()
    print("%s: %d records into %d files in %s" % (path, recs, files, out))


if __name__ == "__main__":
    main()
