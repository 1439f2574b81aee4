#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""
Seed corpora for the user-space fuzz targets, one OUTDIR/fuzz_<name>_corpus
directory per target (where run-tests.sh looks): defrag and stream hold
records in the formats their targets document, config the reference
configuration (configs/meerkat.yaml), its sections and YAML variants, pcap
small handmade captures plus every input pcap and truncated copies of it.
Plain struct, no scapy.

The offline tests' generator (test/offline/gen_pcaps.py: TCP, fragments,
tunnels as pcap, pcapng, raw IP, SLL and SLL2) adds its captures when scapy
is installed.

usage: gen_seeds.py CONFIG GEN_PCAPS PCAP... OUTDIR STAMP
"""
import glob
import os
import struct
import subprocess
import sys
import tempfile


def write(d, name, data):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)


def frag_rec(ctl, dt, payload, ident, off8):
    return bytes([ctl, dt, len(payload), ident]) + struct.pack('!H', off8) + payload


def defrag_seeds(d):
    data = bytes(range(48))
    for pol in range(4):
        # IPv4 UDP in two fragments, in order then reversed, then overlapping
        for fam in (1, 2):
            a = frag_rec(fam | 4, 0, data[:24], 1, 0)
            b = frag_rec(fam, 1, data[24:], 1, 3)
            c = frag_rec(fam | 4, 0, b'X' * 16, 1, 1)
            write(d, 'v%d_inorder_%d' % (fam, pol), bytes([pol, 0xff]) + a + b)
            write(d, 'v%d_reverse_%d' % (fam, pol), bytes([pol, 0xff]) + b + a)
            write(d, 'v%d_overlap_%d' % (fam, pol), bytes([pol, 0xff]) + a + c + b)
    write(d, 'expire', bytes([0, 0xff]) + frag_rec(5, 0, data, 2, 0) + bytes([3, 250, 0]) +
          frag_rec(1, 0, data, 2, 6))
    write(d, 'tiny_limits', bytes([3, 0]) + b''.join(frag_rec(5 | (i << 6 & 0x40), 0, data, i & 3, i)
                                                   for i in range(12)))


def seg(ctl, flags, sd, ad, payload=b'', win=0x20):
    return bytes([ctl, flags]) + struct.pack('!hh', sd, ad) + bytes([win, len(payload)]) + payload


SYN, FIN, RST, PSH, ACK = 0x02, 0x01, 0x04, 0x08, 0x10


def stream_seeds(d):
    isn = struct.pack('!II', 1000, 0xfffffff0)  # the server side wraps
    hs = seg(2, SYN, 0, 0) + seg(3, SYN | ACK, 0, 0) + seg(0, ACK, 0, 0)
    req = seg(0, PSH | ACK, 0, 0, b'GET / HTTP/1.1\r\nHost: x\r\n\r\n')
    rsp = seg(1, ACK, 0, 0) + seg(1, PSH | ACK, 0, 0, b'HTTP/1.1 200 OK\r\n\r\n' + b'A' * 100)
    end = seg(0, ACK, 0, 0) + seg(0, FIN | ACK, 0, 0) + seg(1, FIN | ACK, 0, 0) + seg(0, ACK, 0, 0)
    for b0 in (0x00, 0x01, 0x20, 0x48, 0x80):
        write(d, 'session_%02x' % b0, bytes([b0]) + isn + hs + req + rsp + end)
    ooo = seg(0, PSH | ACK, 10, 0, b'B' * 10) + seg(0, PSH | ACK, -20, 0, b'A' * 10) + \
        seg(0, PSH | ACK, -10, 0, b'C' * 10) + seg(1, ACK, 0, 0)
    write(d, 'ooo_overlap', bytes([0x20]) + isn + hs + ooo + end)
    write(d, 'midstream', bytes([0x80]) + isn + req + rsp + seg(1, RST | ACK, 0, 0))
    write(d, 'reuse', bytes([0]) + isn + hs + req + end + seg(0, SYN, 100, 0) + seg(1, SYN | ACK, 0, 0))
    raw = bytes([4, 0, 0, 0, 0, 0, 0]) + bytes(20 - 13) + bytes([0xf0, SYN]) + bytes(4) + \
        bytes([3, 3, 14, 1, 2, 4, 5, 0xb4]) + bytes(32)
    write(d, 'raw_options', bytes([0]) + isn + raw)


def config_seeds(d, conf):
    """configs/meerkat.yaml, each of its top-level sections alone, and variants
    that reach the other paths: flow style, anchors, lists of mappings, errors."""
    with open(conf, 'rb') as f:
        text = f.read()
    write(d, 'meerkat.yaml', text)
    body = text.split(b'---\n', 1)[-1]
    sections, cur = [], b''
    for line in body.splitlines(keepends=True):
        if line[:1].isalpha() and cur.strip():
            sections.append(cur)
            cur = b''
        cur += line
    sections.append(cur)
    for i, sec in enumerate(sections):
        write(d, 'section%02d' % i, sec)
    write(d, 'flow_style', b'flow: {memcap: 64mb, prealloc: 0x100}\nflow-timeouts: {tcp: {new: 1, closed: 2}}\n'
          b'stream: {midstream: off, reassembly: {memcap: 3 MiB, overlap-policy: last}}\n')
    write(d, 'anchors', b'flow-timeouts:\n  tcp: &t\n    new: 5\n    established: 9\n  udp: *t\n'
          b'defrag: &d {memcap: 1gb}\n')
    write(d, 'lists', b'capture:\n  interfaces:\n    - interface: eth0\n      queues: 2\n    - eth1\n'
          b'  cpu-affinity: [0, 2-3, "5"]\n  zero-copy: on\n  attach-mode: skb\n'
          b'bypass:\n  cidr: [10.0.0.0/8, "2001:db8::/32", 192.0.2.1]\n'
          b'rule-files: [a.rules, /b.rules]\n'
          b'vars:\n  address-groups: {HOME_NET: "[10.0.0.0/8]", X: y}\n  port-groups:\n    P: 80\n')
    write(d, 'outputs', b'%YAML 1.1\n---\ndefault-log-dir: /tmp\nstats: {enabled: no, interval: 3}\n'
          b'outputs:\n  - eve-log:\n      enabled: yes\n      append: no\n      types:\n'
          b'        - alert:\n        - flow\n        - stats: {}\n')
    write(d, 'errors_tab', b'flow:\n\tprealloc: 1\n')
    write(d, 'errors_unknown', b'flow:\n  prealloc: 1\n  max-flows: 2\n')
    write(d, 'errors_second_doc', b'flow: {}\n---\nstream: {}\n...\n')
    write(d, 'errors_range', b'defrag:\n  trackers: 1048576\n  max-frags: 65534\n')
    write(d, 'long', b'flow:\n  memcap: ' + b'9' * 600 + b'\n')
    write(d, 'tunnels', b'decoder:\n  tunnel-depth: 3\n  vxlan: {enabled: no, port: 8472}\n'
          b'  geneve:\n    port: 6082\n  gre: {enabled: yes}\n  erspan: {enabled: false}\n'
          b'  ipip:\n    enabled: no\n')


def pcap(linktype, frames):
    out = struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, linktype)
    for i, fr in enumerate(frames):
        out += struct.pack('<IIII', 1 + i // 2, (i * 1000) % 1000000, len(fr), len(fr)) + fr
    return out


def csum(b):
    if len(b) & 1:
        b += b'\0'
    s = sum(struct.unpack('!%dH' % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def ipv4(proto, payload, ident=1, frag=0, src=b'\x0a\0\0\x01', dst=b'\x0a\0\0\x02'):
    h = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(payload), ident, frag, 64, proto, 0, src, dst)
    h = h[:10] + struct.pack('!H', csum(h)) + h[12:]
    return h + payload


def eth(ip):
    return b'\x02\0\0\0\0\x02' + b'\x02\0\0\0\0\x01' + b'\x08\x00' + ip


def ng_block(btype, body):
    body += b'\0' * ((-len(body)) % 4)
    return struct.pack('<II', btype, 12 + len(body)) + body + struct.pack('<I', 12 + len(body))


def pcap_seeds(d, pcaps):
    udp = struct.pack('!HHHH', 5353, 53, 8 + 40, 0) + bytes(range(40))
    frags = [eth(ipv4(17, udp[:24], 7, 0x2000)), eth(ipv4(17, udp[24:], 7, 3))]
    write(d, 'frag_udp.pcap', pcap(1, frags))
    write(d, 'frag_udp_raw.pcap', pcap(101, [f[14:] for f in frags]))
    tcp = []
    for i, (sport, dport, seq, ack, flags, data) in enumerate([
            (40000, 80, 100, 0, SYN, b''), (80, 40000, 500, 101, SYN | ACK, b''),
            (40000, 80, 101, 501, ACK, b''), (40000, 80, 101, 501, PSH | ACK, b'GET / HTTP/1.0\r\n\r\n'),
            (80, 40000, 501, 119, PSH | ACK, b'HTTP/1.0 200 OK\r\n\r\n'),
            (40000, 80, 119, 521, FIN | ACK, b''), (80, 40000, 521, 120, FIN | ACK, b''),
            (40000, 80, 120, 522, ACK, b'')]):
        src, dst = (b'\x0a\0\0\x01', b'\x0a\0\0\x02') if sport == 40000 else (b'\x0a\0\0\x02', b'\x0a\0\0\x01')
        t = struct.pack('!HHIIBBHHH', sport, dport, seq, ack, 0x50, flags, 65535, 0, 0) + data
        ph = src + dst + struct.pack('!BBH', 0, 6, len(t))
        t = t[:16] + struct.pack('!H', csum(ph + t)) + t[18:]
        tcp.append(eth(ipv4(6, t, 10 + i, 0, src, dst)))
    write(d, 'tcp_session.pcap', pcap(1, tcp))
    # damage the reader must stop at with its offset: a stray byte, a length
    # libpcap refuses, records longer than the snap length, a pcapng block it skips
    whole = pcap(1, tcp)
    write(d, 'stray_byte.pcap', whole + b'\0')
    write(d, 'huge_caplen.pcap', whole + struct.pack('<IIII', 9, 0, 300000, 300000) + bytes(32))
    write(d, 'snaplen64.pcap', whole[:16] + struct.pack('<I', 64) + whole[20:])
    ng = ng_block(0x0A0D0D0A, struct.pack('<IHHq', 0x1A2B3C4D, 1, 0, -1)) + \
        ng_block(1, struct.pack('<HHI', 1, 0, 65535))
    for i, fr in enumerate(tcp):
        ng += ng_block(6, struct.pack('<IIIII', 0, 0, i, len(fr), len(fr)) + fr)
        if i == 3:
            ng += ng_block(0xBAD, b'')
    write(d, 'tcp_session.pcapng', ng)
    write(d, 'tcp_session.pcapng.cut', ng[:-20])
    # each link type's header around the same IPv4 TCP packet
    ip = tcp[0][14:]
    for name, lt, hdr in (('null', 0, struct.pack('<I', 2)), ('loop', 108, struct.pack('>I', 2)),
                          ('loop12', 12, struct.pack('>I', 24)), ('ppp', 9, b'\xff\x03\x00\x21'),
                          ('ppp_pfc', 9, b'\x21'), ('ppp_serial', 50, b'\x0f\x00\x08\x00'),
                          ('chdlc', 104, b'\x8f\x00\x08\x00'), ('raw14', 14, b''), ('ipv4', 228, b'')):
        write(d, 'link_%s.pcap' % name, pcap(lt, [hdr + ip, hdr[:1], hdr + ip[:10]]))
    for p in pcaps:
        with open(p, 'rb') as f:
            data = f.read()
        name = os.path.basename(p)
        write(d, name, data)
        for n in (24, 40, len(data) // 3, len(data) // 2, len(data) - 1):
            if 0 < n < len(data):
                write(d, '%s.trunc%d' % (name, n), data[:n])


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    conf, gen, pcaps, out, stamp = sys.argv[1], sys.argv[2], sys.argv[3:-2], sys.argv[-2], sys.argv[-1]
    defrag_seeds(os.path.join(out, 'fuzz_defrag_corpus'))
    stream_seeds(os.path.join(out, 'fuzz_stream_corpus'))
    config_seeds(os.path.join(out, 'fuzz_config_corpus'), conf)
    with tempfile.TemporaryDirectory() as tmp:
        if subprocess.run([sys.executable, gen, tmp], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0:
            pcaps = pcaps + sorted(glob.glob(os.path.join(tmp, '*.pcap*')))
        pcap_seeds(os.path.join(out, 'fuzz_pcap_corpus'), pcaps)
    with open(stamp, 'w') as f:
        f.write('ok\n')


if __name__ == '__main__':
    main()
