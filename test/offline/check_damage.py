#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Damaged captures (meson suite 'offline'): nothing read before the damage is lost.

usage: check_damage.py MEERKAT GEN_PCAPS WORKDIR

For a short capture (8 records spread over the generator's traffic) of
every link type, and of the pcapng format: the capture cut at every record
boundary is a valid shorter capture (exit 0, no warning, k frames read and
processed: every frame a flow packet or a held fragment, the flow records
carrying them); cut inside every record (in its header for even k, in its
data for odd k) it warns once naming the file, the record number and the
byte offset, prints the "input damaged" line, exits 0 (1 with
--strict-input), and its eve.json is byte for byte the one of the capture
cut at the boundary before the damaged record. Also: a stray trailing byte,
a record whose length libpcap refuses, a record longer than the snap length
that libpcap cuts (read on), and a pcapng file with a block meerkat does not
know before the damaged one (the offset is the damaged block's).
"""
import concurrent.futures
import json
import os
import shutil
import struct
import subprocess
import sys

MEERKAT, GEN, WORK = sys.argv[1:4]
KEEP = 8
POOL = concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2)
failures = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(path, tag, *extra):
    out = os.path.join(WORK, "dmg-" + tag)
    shutil.rmtree(out, ignore_errors=True)
    stats = out + ".json"
    p = subprocess.run([MEERKAT, "-r", path, "-l", out, "--stats-json", stats, *extra],
                       capture_output=True, text=True)
    js = json.load(open(stats)) if os.path.exists(stats) else None
    eve = open(os.path.join(out, "eve.json"), "rb").read() if os.path.exists(os.path.join(out, "eve.json")) else b""
    return p, js, eve


def pcap_records(data):
    """(file header, [records]) of a little-endian microsecond pcap."""
    off, recs = 24, []
    while off < len(data):
        cap = struct.unpack("<I", data[off + 8:off + 12])[0]
        recs.append(data[off:off + 16 + cap])
        off += 16 + cap
    return data[:24], recs


def pcapng_blocks(data):
    off, blocks = 0, []
    while off < len(data):
        n = struct.unpack("<I", data[off + 4:off + 8])[0]
        blocks.append(data[off:off + n])
        off += n
    return blocks


def frames_ok(js, k, what):
    r, w = js["reader"], js["worker"]
    check(r["read"] == k, "%s: read %d, want %d" % (what, r["read"], k))
    check(js["balanced"], "%s: accounting" % what)
    # every frame of these captures is IP and a flow packet or a held fragment
    check(w["flow_pkt"] + w["frag_held"] + w["decode_error"] == k and r["dispatched"] == k,
          "%s: processed %d + %d of %d" % (what, w["flow_pkt"], w["frag_held"], k))


def flows_ok(js, eve, what):
    recs = [json.loads(line) for line in eve.decode().splitlines()]
    pkts = sum(x["flow"]["pkts_toserver"] + x["flow"]["pkts_toclient"] for x in recs)
    w = js["worker"]
    check(len(recs) == w["flows_logged"] and pkts == w["flow_pkt"] + w["dgram_flow"],
          "%s: %d records with %d packets, %d flow packets" % (what, len(recs), pkts, w["flow_pkt"] + w["dgram_flow"]))


def damage_ok(p, js, path, record, offset, what):
    warn = "%s: damaged at record %d, byte offset %d: " % (path, record, offset)
    check(p.returncode == 0, "%s: exit %d" % (what, p.returncode))
    check(p.stderr.count("damaged at record") == 1 and warn in p.stderr, "%s: warning %r" % (what, p.stderr))
    check("input damaged: %s: record %d at byte offset %d" % (path, record, offset) in p.stderr,
          "%s: summary line" % what)
    d = js.get("input_damaged", {})
    check(js["reader"]["files_damaged"] == 1 and d.get("record") == record and d.get("offset") == offset,
          "%s: stats %s" % (what, d))


def cuts(name, header, units, tag_fmt):
    """units: the capture's records (or blocks); header: bytes before them.
    Writes every cut, runs them all (in parallel), then checks them in order."""
    jobs, offs, off = {}, [], len(header)
    for k in range(len(units) + 1):
        offs.append(off)
        path = os.path.join(WORK, "%s.cut%d" % (name, k))
        with open(path, "wb") as f:
            f.write(header + b"".join(units[:k]))
        jobs[("b", k)] = POOL.submit(run, path, tag_fmt % ("b", k))
        if k < len(units):
            rec = units[k]
            part = 7 if k % 2 == 0 else 16 + (len(rec) - 16) // 2
            path = os.path.join(WORK, "%s.mid%d" % (name, k))
            with open(path, "wb") as f:
                f.write(header + b"".join(units[:k]) + rec[:part])
            jobs[("m", k)] = POOL.submit(run, path, tag_fmt % ("m", k))
            if k == len(units) // 2:
                jobs[("s", k)] = POOL.submit(run, path, tag_fmt % ("s", k), "--strict-input")
            off += len(rec)
    for k in range(len(units) + 1):
        p, js, eve = jobs[("b", k)].result()
        what = "%s cut after record %d" % (name, k)
        check(p.returncode == 0 and "damaged" not in p.stderr and js["reader"]["files_damaged"] == 0,
              "%s: clean end (%d, %r)" % (what, p.returncode, p.stderr[-300:]))
        frames_ok(js, k, what)
        flows_ok(js, eve, what)
        if k == len(units):
            return eve
        boundary = eve
        p, js, eve = jobs[("m", k)].result()
        path = os.path.join(WORK, "%s.mid%d" % (name, k))
        what = "%s cut inside record %d" % (name, k + 1)
        frames_ok(js, k, what)
        damage_ok(p, js, path, k + 1, offs[k], what)
        check(eve == boundary, "%s: same flows as the capture of its %d complete records" % (what, k))
        if ("s", k) in jobs:
            p, _, _ = jobs[("s", k)].result()
            check(p.returncode == 1, "%s: --strict-input exits 1 (got %d)" % (what, p.returncode))


def spread(units):
    """KEEP units spread over the capture, so that every kind of traffic is in them."""
    return units[::max(1, len(units) // KEEP)][:KEEP]


def main():
    gen_dir = os.path.join(WORK, "dmg-pcaps")
    subprocess.run(["/usr/bin/python3", GEN, gen_dir], check=True)
    exp = json.load(open(os.path.join(gen_dir, "expected.json")))
    # one capture per link type (the byte-order variants of NULL and LOOP take the same path)
    names = ["eth.pcap", "raw.pcap", "sll.pcap", "sll2.pcap"] + \
        sorted(set(exp["link_variants"]) - {"null_be.pcap", "null_darwin.pcap", "loop_le.pcap"}) + \
        sorted(exp["family_variants"])
    for name in names:
        header, recs = pcap_records(open(os.path.join(gen_dir, name), "rb").read())
        cuts(name, header, spread(recs), name + ".%s%d")

    # the short Ethernet capture, damaged in other ways
    header, recs = pcap_records(open(os.path.join(gen_dir, "eth.pcap"), "rb").read())
    short = spread(recs)
    body = header + b"".join(short)
    path = os.path.join(WORK, "stray.pcap")
    with open(path, "wb") as f:
        f.write(body + b"\0")
    p, js, eve = run(path, "stray")
    frames_ok(js, KEEP, "stray byte")
    damage_ok(p, js, path, KEEP + 1, len(body), "stray byte")
    _, _, clean = run(os.path.join(WORK, "eth.pcap.cut%d" % KEEP), "clean")

    path = os.path.join(WORK, "huge.pcap")
    ts = short[0][:8]
    with open(path, "wb") as f:
        f.write(body + ts + struct.pack("<II", 300000, 300000) + b"\0" * 64)
    p, js, eve = run(path, "huge")
    frames_ok(js, KEEP, "record libpcap refuses")
    damage_ok(p, js, path, KEEP + 1, len(body), "record libpcap refuses")
    check("300000" in p.stderr, "libpcap's reason is in the warning: %r" % p.stderr)

    # a snap length of 64 with longer records inside: libpcap reads 64 bytes of each, and on
    small = header[:16] + struct.pack("<I", 64) + header[20:]
    longest = max(range(KEEP), key=lambda i: len(short[i]))
    check(len(short[longest]) - 16 > 64, "a record longer than 64 bytes to cut")
    path = os.path.join(WORK, "oversized.pcap")
    with open(path, "wb") as f:
        f.write(small + b"".join(short))
    p, js, eve = run(path, "oversized")
    check(p.returncode == 0 and js["reader"]["read"] == KEEP and js["reader"]["files_damaged"] == 0 and
          js["reader"]["oversized_records"] == sum(1 for r in short if len(r) - 16 > 64),
          "oversized records: read on (%r, %s)" % (p.stderr, js["reader"]))

    # pcapng: cut at every block after the interface description, and inside each
    blocks = pcapng_blocks(open(os.path.join(gen_dir, "eth.pcapng"), "rb").read())
    head, epbs = b"".join(blocks[:2]), spread(blocks[2:])
    ng = cuts("eth.pcapng", head, epbs, "ng.%s%d")
    check(ng == clean, "pcapng and pcap of the same records give the same eve.json")
    # a block libpcap skips before the damaged one: the offset names the damaged block
    skip = struct.pack("<II", 0x00000BAD, 16) + b"\0" * 4 + struct.pack("<I", 16)
    body = head + b"".join(epbs[:5]) + skip
    path = os.path.join(WORK, "skip.pcapng")
    with open(path, "wb") as f:
        f.write(body + epbs[5][:20])
    p, js, eve = run(path, "skip")
    frames_ok(js, 5, "pcapng, unknown block then a cut one")
    damage_ok(p, js, path, 6, len(body), "pcapng, unknown block then a cut one")

    print("%d checks, %d failed" % (checks, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
