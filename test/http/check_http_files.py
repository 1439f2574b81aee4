#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks meerkat's fileinfo events on the capture http_e2e.sh made.

Every response body the dissector reassembles (dechunked, decompressed:
http.file_data) is one fileinfo event told from the server (src_port
8080), state CLOSED, no gaps, with the body's size and sha256; and every
file the web server served from its site directory has the sha256 that
sha256sum gives for it.

usage: check_http_files.py PCAP EVE_JSON SITE_DIR
"""
import collections
import hashlib
import json
import os
import subprocess
import sys

pcap, eve, site = sys.argv[1:4]
bad = []

# the dissector's bodies (a string field: text bodies compare byte for byte, binary ones
# are counted and checked against sha256sum below)
out = subprocess.run(["tshark", "-2", "-r", pcap, "-o", "tcp.desegment_tcp_streams:TRUE",
                      "-Y", "http.response && http.file_data", "-T", "json",
                      "-e", "http.file_data", "-e", "http.content_length"],
                     capture_output=True, text=True, check=True).stdout
want = collections.Counter()
nbodies = 0
for pkt in json.loads(out or "[]"):
    layers = pkt["_source"]["layers"]
    # the string field ends at the body's first NUL byte: a body is compared only when it
    # is all text and, where the response gave its length, all of it is there (a random
    # blob starting with NUL would otherwise read as an empty body, one run in 256)
    texts = layers.get("http.file_data", [])
    lengths = layers.get("http.content_length", [])
    if len(lengths) != len(texts):
        lengths = [None] * len(texts)
    for text, length in zip(texts, lengths):
        nbodies += 1
        whole = length is None or int(length) == len(text.encode())
        if whole and all(c.isprintable() or c in "\r\n\t" for c in text) and text.isascii():
            body = text.encode()
            want[(len(body), hashlib.sha256(body).hexdigest())] += 1

got = collections.Counter()
by_name = {}
for line in open(eve):
    e = json.loads(line)
    if e.get("event_type") != "fileinfo":
        continue
    fi = e["fileinfo"]
    if e.get("src_port") != 8080 or e.get("app_proto") != "http" or "http" not in e:
        bad.append("fileinfo %s: not told from the server, or no http object" % fi)
    if fi.get("state") != "CLOSED" or fi.get("gaps") or fi.get("stored"):
        bad.append("fileinfo %s: expected CLOSED, no gaps, not stored" % fi)
    if e["http"].get("url", "").split("?")[0] != fi.get("filename"):
        bad.append("fileinfo %s: filename is not the url's path %s" % (fi, e["http"].get("url")))
    got[(fi.get("size"), fi.get("sha256"))] += 1
    by_name[fi.get("filename")] = fi.get("sha256")

if not want:
    bad.append("the dissector saw no response body")
if nbodies != sum(got.values()):
    bad.append("the dissector saw %d response bodies, meerkat %d files" % (nbodies, sum(got.values())))
for k in sorted(want, key=str):
    if want[k] != got[k]:
        bad.append("body (size, sha256) %r: dissector %d, meerkat %d" % (k, want[k], got[k]))
served = 0
for name in sorted(os.listdir(site)):
    digest = hashlib.sha256(open(os.path.join(site, name), "rb").read()).hexdigest()
    if "/" + name in by_name:
        served += 1
        if by_name["/" + name] != digest:
            bad.append("/%s: meerkat sha256 %s, the file's %s" % (name, by_name["/" + name], digest))
if served < 2:
    bad.append("only %d of the site's files seen as fileinfo" % served)
print("%d response bodies (%d text ones compared), %d fileinfo events, "
      "%d site files checked against sha256sum" % (nbodies, sum(want.values()), sum(got.values()),
                                                   served))
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
