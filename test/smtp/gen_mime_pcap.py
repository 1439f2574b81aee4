#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""A capture of one SMTP session sending MAILS mails, each with a base64
attachment of SIZE random bytes (email.message, as smtplib sends it), in
1448-byte segments each acknowledged: the input of the MIME decoding
figure in docs/applayer.md.

usage: gen_mime_pcap.py OUT.pcap [MAILS [SIZE]]
"""
import os
import sys
from email.message import EmailMessage
import email.policy
from scapy.all import IP, TCP, Ether, wrpcap

out = sys.argv[1]
mails = int(sys.argv[2]) if len(sys.argv) > 2 else 10
size = int(sys.argv[3]) if len(sys.argv) > 3 else 2 << 20
cli, srv = ("10.0.0.1", 40000), ("10.0.0.2", 25)
seq = {0: 1000, 1: 5000}
pkts = []


def send(from_client, data=b"", flags="PA"):
    src, dst = (cli, srv) if from_client else (srv, cli)
    for i in range(0, max(len(data), 1), 1448):
        part = data[i:i + 1448]
        pkts.append(Ether() / IP(src=src[0], dst=dst[0]) /
                    TCP(sport=src[1], dport=dst[1], flags=flags, seq=seq[from_client],
                        ack=seq[1 - from_client]) / part)
        seq[from_client] += len(part)
        pkts.append(Ether() / IP(src=dst[0], dst=src[0]) /
                    TCP(sport=dst[1], dport=src[1], flags="A", seq=seq[1 - from_client],
                        ack=seq[from_client]))


pkts.append(Ether() / IP(src=cli[0], dst=srv[0]) / TCP(sport=cli[1], dport=srv[1], flags="S", seq=999))
pkts.append(Ether() / IP(src=srv[0], dst=cli[0]) / TCP(sport=srv[1], dport=cli[1], flags="SA", seq=4999, ack=1000))
pkts.append(Ether() / IP(src=cli[0], dst=srv[0]) / TCP(sport=cli[1], dport=srv[1], flags="A", seq=1000, ack=5000))
send(0, b"220 mx ESMTP\r\n")
send(1, b"EHLO client.example\r\n")
send(0, b"250 mx\r\n")
for n in range(mails):
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = "a@example.org", "b@example.org", "mail %d" % n
    m.set_content("see the attachment\n")
    m.add_attachment(os.urandom(size), maintype="application", subtype="octet-stream",
                     filename="a%d.bin" % n)
    body = m.as_bytes(policy=email.policy.SMTP).replace(b"\r\n.", b"\r\n..")
    send(1, b"MAIL FROM:<a@example.org>\r\n")
    send(0, b"250 ok\r\n")
    send(1, b"RCPT TO:<b@example.org>\r\n")
    send(0, b"250 ok\r\n")
    send(1, b"DATA\r\n")
    send(0, b"354 go\r\n")
    send(1, body + b".\r\n")
    send(0, b"250 queued\r\n")
send(1, b"QUIT\r\n")
send(0, b"221 bye\r\n")
wrpcap(out, pkts)
