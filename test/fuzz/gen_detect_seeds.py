#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""
Seed corpora for the detection fuzz targets (OUTDIR/fuzz_<name>_corpus, where
run-tests.sh looks): fuzz_rules gets every rule of the given rule files, one
file each and each file whole, plus rules that stress the parser's corners;
fuzz_eve_alert gets alerts with hostile strings in the layout its target
documents; fuzz_xform gets transform chains over HTTP-like bytes. Plain Python, no scapy.

usage: gen_detect_seeds.py OUTDIR STAMP RULEFILE...
"""
import os
import struct
import sys

CORNERS = [
    'alert tcp any any -> any any (msg:"a\\;b \\"q\\" \\\\"; content:"|00 ff|x\\:y"; nocase; sid:1;)',
    'alert tcp $HOME_NET any -> $EXTERNAL_NET $HTTP_PORTS (content:"GET"; depth:3; content:"/x"; '
    'distance:1; within:20; pcre:"/^\\/x\\d+/R"; sid:2;)',
    'alert udp [10.0.0.0/8,!10.1.0.0/16,2001:db8::/32] [1:1024,!53] <> $SELF $ALL (sid:3;)',
    'alert udp any any -> any any (byte_extract:2,0,len,little; byte_test:2,>,len,2,relative; '
    'byte_jump:1,len,relative,align,post_offset -7,multiplier 3; isdataat:!len,relative; sid:4;)',
    'alert tcp any any -> any any (flow:established,to_server; flowbits:set,a&b; flowbits:isset,c|d; '
    'flowint:n,+,1; flowint:n,>,n; threshold:type both,track by_both,count 3,seconds 9; sid:5;)',
    'alert icmp any any -> any any (itype:3<>9; icode:!0; icmp_id:1; icmp_seq:2; ttl:<=64; '
    'ip_proto:!tcp; sameip; sid:6;)',
    'alert tcp any any -> any any (flags:+S,CE; stream_size:either,>=,100; dsize:!0; '
    'detection_filter:track by_src,count 2,seconds 1; sid:7;)',
    'alert tcp any any -> any any (content:"abc"; startswith; endswith; fast_pattern:1,1; sid:8;)',
    'alert tcp any any -> any any (content:"a"; depth:0; sid:9;)',
    'alert http any any -> any any (http.uri; content:"x"; sid:10;)',
    'alert tcp any any -> any any (msg:"unterminated; sid:11;)',
    'alert tcp any any -> any any (pcre:"/(a+)+$/"; content:"aaaa"; sid:12;)',
    # bsize, transforms, pcre buffer flags, the newer HTTP buffers, stream payload in HTTP rules
    'alert http any any -> any any (http.uri; to_lowercase; url_decode; content:"/a b"; bsize:<100; '
    'http.host; dotprefix; content:".x.example"; endswith; sid:13;)',
    'alert http any any -> any any (http.request_body; strip_whitespace; compress_whitespace; '
    'to_uppercase; content:"AB"; http.header; header_lowercase; strip_pseudo_headers; '
    'content:"host: "; sid:14;)',
    'alert http any any -> any any (http.uri.raw; to_md5; to_sha1; to_sha256; bsize:32; '
    'http.method; xor:"0d0ac8ff"; content:"|4a 4f|"; sid:15;)',
    'alert http any any -> any any (content:"|0d 0a 0d 0a|"; pcre:"/a/UI"; pcre:"/b/PQHDMCSYVWZ"; '
    'http.start; bsize:1<>9; http.accept_enc; bsize:!3; http.accept_lang; bsize:>=2; '
    'http.connection; bsize:0; sid:16;)',
    'alert http any any -> any any (http.uri; bsize:15; bsize:27; xor:"0"; dotprefix; '
    'to_lowercase; content:"A"; http.uri; dotprefix; sid:17;)',
    'alert http any any -> any any (http.user_agent; dotprefix; dotprefix; dotprefix; dotprefix; '
    'dotprefix; dotprefix; dotprefix; dotprefix; content:"........x"; bsize:>1; sid:18;)',
    'alert http any any -> any any (http.uri; content:"/x"; pkt_data; content:"GET"; depth:3; '
    'pcre:"/a/V"; pkt_data; to_lowercase; sid:19;)',
    # base64_decode/base64_data, asn1, flowint forms
    'alert tcp any any -> any any (content:"auth="; base64_decode:bytes 64, offset 1, relative; '
    'base64_data; content:"root"; nocase; pcre:"/^:/R"; byte_test:1,=,0x70,0,relative; sid:20;)',
    'alert http any any -> any any (http.uri; content:"q="; base64_decode:relative; base64_data; '
    'content:"admin"; http.user_agent; content:"curl"; sid:21;)',
    'alert udp any any -> any 161 (content:"|30|"; asn1:bitstring_overflow, double_overflow '
    'oversize_length 100 relative_offset -1; sid:22;)',
    'alert udp any any -> any any (asn1:oversize_length 0 absolute_offset 65535; '
    'flowint:a.b,+1; flowint:n,isnotset; flowint:n,>=,a.b; sid:23;)',
]


def write(d, name, data):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)


def rule_seeds(d, files):
    for i, c in enumerate(CORNERS):
        write(d, 'corner_%02d' % i, c.encode() + b'\n')
    write(d, 'all_corners', '\n'.join(CORNERS).encode())
    for path in files:
        text = open(path, 'rb').read()
        base = os.path.basename(path)
        write(d, base, text)
        for i, rule in enumerate(text.replace(b'\\\n', b'').splitlines()):
            if rule.strip() and not rule.startswith(b'#'):
                write(d, '%s_%03d' % (base, i), rule + b'\n')


def alert_seed(msg, cat, key, val, iface, fields, payload):
    return b'\0'.join([msg, cat, key, val, iface]) + b'\0' + fields + payload


def eve_seeds(d):
    fields = struct.pack('!IIBBIIIHHBBBBBHHBBIBIIB', 1796269500, 77, 0, 6, 0x0a000001, 0, 0x0a000002,
                         40000, 80, 1, 1, 0, 0, 0, 100, 0, 1, 1, 0x1234, 0, 10, 2000, 1)
    write(d, 'plain', alert_seed(b'ET TROJAN something', b'A Network Trojan was detected', b'created_at',
                                 b'2024_01_01', b'eth0', fields, b'GET / HTTP/1.1\r\n\r\n'))
    write(d, 'quotes', alert_seed(b'q"\\"\\\\', b'tab\there', b'k"', b'v\\', b'if"0', fields,
                                  b'"\\\x00\x01\xff'))
    write(d, 'utf8', alert_seed('caf\u00e9 \u20ac \U0001f431'.encode(), b'\xc3\xa9', b'\xe2\x82\xac', b'x',
                                b'', fields, bytes(range(256))))
    write(d, 'bad_utf8', alert_seed(b'\xc3 \xe2\x82 \xff\xfe \xed\xa0\x80 \xc0\xaf', b'\x80',
                                    b'\xf4\x90\x80\x80', b'\x01\x1f\x7f', b'e\xff', fields, b''))
    v6 = fields[:4 + 4] + b'\x01' + fields[9:]
    write(d, 'ipv6', alert_seed(b'v6', b'c', b'k', b'v', b'', v6, b'x' * 3000))


def xform_seeds(d):
    # chain length, ops (1 dotprefix .. 12 xor; xor: key length - 1, key), then the buffer
    # (op numbers: enum mk_xform_op in userspace/detect/detect_int.h)
    http = b'GET /a%20b+c%ZZ%4 HTTP/1.1\r\nHost: A.Example\r\n:path: /x\r\nX:  y\t\tz\r\n\r\n'
    for op in range(1, 12):
        write(d, 'op_%02d' % op, bytes([1, op - 1]) + http)
    write(d, 'xor', bytes([1, 11, 3, 1, 2, 3, 4]) + http)
    write(d, 'chain', bytes([4, 5, 1, 0, 10]) + http)
    write(d, 'empty', bytes([3, 0, 5, 8]))
    write(d, 'long', bytes([8, 0, 0, 0, 0, 0, 0, 0, 0]) + b'x' * 3000)


def base64_seeds(d):
    # two bytes of output room, then the text (fuzz_base64.c)
    write(d, 'hello', b'\x01\x00' + b'aaaa=SGVsbG8gV29ybGQ=')
    write(d, 'rule', b'\x10\x00' + b'x=YWJjZGVm' + b'Zm9vYmFy' * 20)
    write(d, 'stop', b'\x00\x40' + b'Zm9v YmFy\r\nZm9v')
    write(d, 'partial', b'\x00\x05' + b'Zm9vY')
    write(d, 'pad', b'\xff\xff' + b'Zg==Zm8=Zm9v====')
    write(d, 'small', b'\x00\x02' + b'Zm9vYmFy')


def asn1_seeds(d):
    # a byte of checks (bits 0-2) and start (bits 5-7), four bytes of oversize_length,
    # then the buffer (fuzz_asn1.c); X.690 A.3 is Suricata's test object
    a3 = (b'\x60\x81\x85\x61\x10\x1a\x04John\x1a\x01P\x1a\x05Smith\xa0\x0a\x1a\x08Director'
          b'\x42\x01\x33\xa1\x0a\x43\x0819710917\xa2\x12\x61\x10\x1a\x04Mary\x1a\x01T'
          b'\x1a\x05Smith\xa3\x42\x31\x1f\x61\x11\x1a\x05Ralph\x1a\x01T\x1a\x05Smith\xa0'
          b'\x0a\x43\x0819571111\x31\x1f\x61\x11\x1a\x05Susan\x1a\x01B\x1a\x05Jones'
          b'\xa0\x0a\x43\x0819590717')
    write(d, 'a3', b'\x07\x00\x00\x00\x84' + a3)
    write(d, 'bitstring', b'\x01\x00\x00\x00\x00' + b'\x03\x01\xff')
    real = b'\x09\x82\x01\x01' + b'\x05' * 257
    write(d, 'real', b'\x02\x00\x00\x00\x00' + real)
    write(d, 'indefinite', b'\x07\x00\x00\x00\x01' + b'\x30\x80\x03\x01\xff\x04\x02ab\x00\x00')
    nested = b'\x03\x01\xff'
    for _ in range(31):
        nested = bytes([0x30, len(nested)]) + nested if len(nested) < 128 else nested
    write(d, 'nested', b'\x01\x00\x00\x00\x00' + nested)
    write(d, 'frames', b'\x05\x00\x00\x00\x00' + b'\x05\x00' * 31 + b'\x03\x01\xff')
    write(d, 'hightag', b'\x24\x00\x00\x00\x00' + b'XX\x1f\x81\x01\x01\x00\x84\x7f\xff\xff\xff')


def main():
    out, stamp, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    rule_seeds(os.path.join(out, 'fuzz_rules_corpus'), files)
    eve_seeds(os.path.join(out, 'fuzz_eve_alert_corpus'))
    xform_seeds(os.path.join(out, 'fuzz_xform_corpus'))
    base64_seeds(os.path.join(out, 'fuzz_base64_corpus'))
    asn1_seeds(os.path.join(out, 'fuzz_asn1_corpus'))
    with open(stamp, 'w') as f:
        f.write('ok\n')


if __name__ == '__main__':
    main()
