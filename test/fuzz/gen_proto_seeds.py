#!/usr/bin/python3
"""Seeds for fuzz_ssh, fuzz_smtp and fuzz_ftp: dialogues as [direction+flags][length][bytes]
records (fuzz_app.h): an SSH session with KEXINITs and NEWKEYS, one with a
line before the server's banner and a gap; SMTP with two mails, DATA with a
dot-stuffed line, BDAT, RSET and STARTTLS, a MIME mail by DATA and by BDAT;
FTP with a multi-line greeting, PASV, EPSV, PORT, EPRT, a bounce, a
pipelined command and AUTH TLS.

usage: gen_proto_seeds.py OUTDIR STAMP
"""
import os
import struct
import sys


def rec(d, b):
    out = b""
    for i in range(0, len(b), 255):
        part = b[i:i + 255]
        out += bytes([d, len(part)]) + part
    return out


def name_list(s):
    return struct.pack(">I", len(s)) + s


def kexinit(server):
    lists = [b"curve25519-sha256,ecdh-sha2-nistp256", b"ssh-ed25519",
             b"aes128-ctr", b"aes256-gcm@openssh.com", b"hmac-sha2-256", b"hmac-sha1",
             b"none", b"none,zlib@openssh.com", b"", b""]
    return b"\x14" + bytes(16) + b"".join(name_list(x) for x in lists) + b"\x00" + bytes(4)


def packet(payload):
    pad = 8 - (len(payload) + 5) % 8
    if pad < 4:
        pad += 8
    return struct.pack(">IB", len(payload) + pad + 1, pad) + payload + bytes(pad)


MIME = (b"Content-Type: multipart/mixed; boundary=\"o\"\r\n\r\npre\r\n--o\r\n"
        b"Content-Type: multipart/alternative;\r\n boundary=i\r\n\r\n--i\r\n"
        b"Content-Transfer-Encoding: quoted-printable\r\n\r\ncaf=C3=A9 so=\r\nft\r\n--i--\r\n"
        b"--o\r\nContent-Disposition: attachment; filename=\"a.bin\"\r\n"
        b"Content-Transfer-Encoding: base64\r\n\r\nc2VjcmV0IG\r\nF0dGFjaG1lbnQK\r\n"
        b"--o\r\nContent-Type: text/plain; name=n.txt\r\n"
        b"Content-Transfer-Encoding: quoted-printable\r\n\r\n..x=3D=\r\ny\r\n--o--\r\n")

seeds = {
    "fuzz_ssh": {
        "session": rec(0, b"SSH-2.0-OpenSSH_9.2p1 Debian\r\n") +
        rec(1, b"SSH-2.0-srv\r\n") + rec(0, packet(kexinit(0))) + rec(1, packet(kexinit(1))) +
        rec(0, packet(b"\x15")) + rec(1, packet(b"\x15")) + rec(0, b"\x01\x02encrypted"),
        "prebanner_gap": rec(1, b"hello there\r\nSSH-1.99-x\r\n") + rec(0, b"SSH-2.0-c\r\n") +
        rec(0xc0, packet(kexinit(0))[:40]),
        "kexinit": kexinit(0),
        # a KEXINIT of one byte (its type) used to leak its buffer
        "short_kexinit": rec(0, b"SSH-2.0-x\r\n" + struct.pack(">IB", 12, 10) + b"\x14" +
                             bytes(10) + packet(kexinit(0))),
    },
    "fuzz_smtp": {
        "mails": rec(1, b"220 mx ESMTP\r\n") + rec(0, b"EHLO c.example\r\n") +
        rec(1, b"250-mx\r\n250 PIPELINING\r\n") +
        rec(0, b"MAIL FROM:<a@x>\r\nRCPT TO:<b@x>\r\nRCPT TO:<c@x>\r\nDATA\r\n") +
        rec(1, b"250 ok\r\n250 ok\r\n250 ok\r\n354 go\r\n") +
        rec(0, b"Subject: s\r\n\r\n..dot\r\nline\r\n.\r\n") +
        rec(0, b"MAIL FROM:<d@x>\r\nRCPT TO:<e@x>\r\nBDAT 5 LAST\r\nabcde") +
        rec(0, b"RSET\r\nQUIT\r\n"),
        # nested multiparts, a base64 and a quoted-printable attachment; by DATA and by BDAT
        "mime": rec(1, b"220 mx\r\n") +
        rec(0, b"EHLO c\r\nMAIL FROM:<a@x>\r\nRCPT TO:<b@x>\r\nDATA\r\n") +
        rec(1, b"250 ok\r\n250 ok\r\n250 ok\r\n354 go\r\n") + rec(0, MIME + b".\r\n") +
        rec(0, b"MAIL FROM:<d@x>\r\nRCPT TO:<e@x>\r\nBDAT %d LAST\r\n" % len(MIME) + MIME),
        "starttls": rec(1, b"220 mx\r\n") + rec(0, b"EHLO a\r\nSTARTTLS\r\n") +
        rec(1, b"220 go\r\n") + rec(0, b"\x16\x03\x01\x00\x05hello"),
    },
    "fuzz_ftp": {
        "session": rec(1, b"220-welcome\r\n more\r\n220 ready\r\n") +
        rec(0, b"USER anonymous\r\nPASS x\r\n") + rec(1, b"331 pass\r\n230 ok\r\n") +
        rec(0, b"PASV\r\n") + rec(1, b"227 Entering Passive Mode (10,0,0,2,195,80).\r\n") +
        rec(0, b"RETR a.txt\r\n") + rec(1, b"150 open\r\n226 done\r\n") +
        rec(0, b"EPSV\r\n") + rec(1, b"229 Extended (|||50001|)\r\n") +
        rec(0, b"PORT 10,0,0,1,200,10\r\nEPRT |1|10.0.0.1|6275|\r\nEPRT |2|::1|6276|\r\n") +
        rec(1, b"200 ok\r\n200 ok\r\n522 no\r\n") +
        rec(0, b"PORT 10,9,9,9,0,21\r\n") + rec(1, b"500 no\r\n") +
        rec(0, b"AUTH TLS\r\n") + rec(1, b"234 go\r\n") + rec(0, b"\x16\x03\x01"),
        "hostport": b"227 Entering Passive Mode (192,168,1,2,4,1)",
    },
}
for target, files in seeds.items():
    out = os.path.join(sys.argv[1], target + "_corpus")
    os.makedirs(out, exist_ok=True)
    for name, data in files.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
open(sys.argv[2], "w").close()
