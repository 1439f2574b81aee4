#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""
meerkatctl xdp-test -w writes every frame as the program left it: each
frame of IN.pcap (the fixtures of the default configuration, every tunnel
type among them) must come out byte for byte as the fixture table says
(OUT.pcap: tunnels stripped, the rest untouched), and the accounting
invariant must hold (exit status 0).

usage: check_xdp_test.py MEERKATCTL IN.pcap EXPECTED.pcap
"""
import os
import struct
import subprocess
import sys
import tempfile


def frames(path):
    with open(path, 'rb') as f:
        data = f.read()
    magic = struct.unpack('<I', data[:4])[0]
    end = '<' if magic in (0xa1b2c3d4, 0xa1b23c4d) else '>'
    off, out = 24, []
    while off < len(data):
        _, _, incl, _ = struct.unpack(end + 'IIII', data[off:off + 16])
        out.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return out


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    ctl, pin, pexp = sys.argv[1:]
    if os.geteuid() != 0:
        print('skipped: BPF_PROG_RUN and AF_XDP sockets need root')
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        pout = os.path.join(tmp, 'out.pcap')
        r = subprocess.run([ctl, 'xdp-test', '-q', '-r', pin, '-w', pout], capture_output=True,
                           text=True)
        print(r.stdout[-2000:])
        if r.returncode != 0:
            print(r.stderr)
            print('FAIL: meerkatctl xdp-test exited %d' % r.returncode)
            return 1
        got, want = frames(pout), frames(pexp)
    bad = 0
    if len(got) != len(want):
        print('FAIL: %d frames written, %d expected' % (len(got), len(want)))
        return 1
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            bad += 1
            print('FAIL: frame %d: %d bytes written, %d expected; first difference at %d' %
                  (i + 1, len(g), len(w), next((k for k in range(min(len(g), len(w)))
                                                if g[k] != w[k]), min(len(g), len(w)))))
    stripped = sum(1 for g, f in zip(got, frames(pin)) if g != f)
    print('%d frames, %d stripped by the program, %d differ from the fixture table' %
          (len(got), stripped, bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
