#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""State exhaustion and hash flooding, scaled down to seconds (docs/security.md).

Each flood comes from gen_attack with three real HTTP sessions mixed in at
the start, the middle and the end, and runs through `meerkat -r` with tables
small enough that the flood overflows them. Checked for every flood:

- the accounting holds (every frame read ends in exactly one outcome);
- the table under attack stays within its configured size and counts what
  it refused or evicted, by reason, exactly as the flood predicts;
- the real sessions keep their flow records (one each, every packet, state
  closed, alerted), their requests and responses are reassembled
  (--dump-streams holds each trigger) and raise their alerts: one rule
  matches each request, one each response.

SYN flood also: `outputs.eve-log.types.flow.unreplied` full, compact and none
are counted and shaped as documented, and with `none` memory stays flat.
Hash flooding: with the hash seed known, flows crafted into one bucket and
one worker are cut at flow.max-chain; with a random seed they spread.

usage: check_floods.py MEERKAT GEN_ATTACK WORKDIR
"""
import glob
import json
import os
import shutil
import subprocess
import sys

MEERKAT, GEN, WORK = sys.argv[1:4]
failures = 0
SEED = 0x6D65726B  # meerkat's offline default seed: the attacker knows it


def check(ok, what):
    global failures
    print("%s: %s" % ("ok" if ok else "FAIL", what))
    if not ok:
        failures += 1
    return ok


def gen(mode, name, *args):
    pcap = os.path.join(WORK, name + ".pcap")
    exp = os.path.join(WORK, name + ".json")
    subprocess.run([GEN, mode, "-o", pcap, "-e", exp, *args], check=True)
    with open(exp) as f:
        return pcap, json.load(f)


def run(pcap, name, config, *args, flood_check=None):
    """meerkat -r; returns (stats, eve records, reassembled bytes, max RSS in KB)."""
    d = os.path.join(WORK, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "streams"))
    cfg = os.path.join(d, "meerkat.yaml")
    with open(cfg, "w") as f:
        f.write(config)
    p = subprocess.run([MEERKAT, "-r", pcap, "-c", cfg, "-l", d, "--eve-truncate", "-S", RULES,
                        "--dump-streams", os.path.join(d, "streams"),
                        "--stats-json", os.path.join(d, "stats.json"), *args],
                       capture_output=True, text=True)
    if p.returncode:
        print(p.stderr)
    check(p.returncode == 0, "%s: meerkat -r exits 0" % name)
    with open(os.path.join(d, "stats.json")) as f:
        st = json.load(f)
    rss = st["peak_rss_kb"]
    # the real sessions' records, every alert, and every flood record checked by @flood_check
    recs, nrecs, bad = [], 0, 0
    with open(os.path.join(d, "eve.json")) as f:
        for line in f:
            r = json.loads(line)
            nrecs += 1
            if r.get("src_ip", "").startswith("198.51.100.") or \
               r.get("dest_ip", "").startswith("198.51.100.") or r["event_type"] != "flow":
                recs.append(r)
            elif flood_check and not flood_check(r):
                bad += 1
    st["eve_records"], st["eve_flood_bad"] = nrecs, bad
    data = b""
    for fn in glob.glob(os.path.join(d, "streams", "*")):
        with open(fn, "rb") as f:
            data += f.read()
    cpu = st["cpu"]
    flows = st["flow"]["flow_created"]
    frames = st["reader"]["read"]
    work = cpu["workers_s"] + cpu["eve_write_s"]
    print("  %s: %d frames, %d flows in %.3f s; CPU s: workers %.3f, EVE write %.3f, reader %.3f; "
          "workers + write: %.2f us per frame, %.2f us per flow; peak RSS %d MB"
          % (name, frames, flows, st["elapsed_s"], cpu["workers_s"], cpu["eve_write_s"],
             cpu["reader_s"], work / max(frames, 1) * 1e6, work / max(flows, 1) * 1e6, rss // 1024))
    return st, recs, data, rss


def real_sessions(name, exp, st, recs, data, closed=True):
    check(st["balanced"], "%s: accounting balanced" % name)
    alerts = [r for r in recs if r["event_type"] == "alert"]
    check(len(alerts) == 2 * len(exp["sessions"]), "%s: %d alerts, want one per request and "
          "one per response (%d)" % (name, len(alerts), 2 * len(exp["sessions"])))
    for s in exp["sessions"]:
        sids = sorted(a["alert"]["signature_id"] for a in alerts
                      if a["src_ip"] == s["src_ip"] and a["src_port"] == s["src_port"] or
                      a["dest_ip"] == s["src_ip"] and a["dest_port"] == s["src_port"])
        check(sids == [9000001, 9000002], "%s: session %s raised its two alerts (%s)"
              % (name, s["name"], sids))
        mine = [r for r in recs if r["event_type"] == "flow" and
                (r.get("src_ip") == s["src_ip"] or r.get("dest_ip") == s["src_ip"])]
        if not check(len(mine) == 1, "%s: session %s has one flow record (has %d)"
                     % (name, s["name"], len(mine))):
            continue
        r = mine[0]
        fl = r["flow"]
        check(r["src_ip"] == s["src_ip"] and r["src_port"] == s["src_port"] and
              r["dest_port"] == 80, "%s: session %s: the client is the client" % (name, s["name"]))
        check(fl["pkts_toserver"] == s["pkts_toserver"] and fl["pkts_toclient"] == s["pkts_toclient"],
              "%s: session %s: %d/%d packets, want %d/%d" % (name, s["name"], fl["pkts_toserver"],
                                                             fl["pkts_toclient"], s["pkts_toserver"],
                                                             s["pkts_toclient"]))
        check(fl["reason"] != "forced", "%s: session %s was not evicted (%s)"
              % (name, s["name"], fl["reason"]))
        if closed:
            check(fl["state"] == "closed", "%s: session %s closed (%s)" % (name, s["name"], fl["state"]))
        check(fl["alerted"], "%s: session %s: flow record says alerted" % (name, s["name"]))
        check(s["trigger"].encode() in data and s["response"].encode() in data,
              "%s: session %s: request and response reassembled" % (name, s["name"]))


os.makedirs(WORK, exist_ok=True)
# what detection must still see through every flood: each request and each response
RULES = os.path.join(WORK, "attack.rules")
with open(RULES, "w") as f:
    f.write('alert tcp any any -> any 80 (msg:"attack test: request"; flow:to_server; '
            'content:"meerkat-attack-trigger-"; sid:9000001; rev:1;)\n'
            'alert tcp any 80 -> any any (msg:"attack test: response"; flow:to_client; '
            'content:"meerkat-attack-response-"; sid:9000002; rev:1;)\n')

# ---- SYN flood: half-open flows from spoofed sources, no reply ----------------
N = 100000
TABLE = "flow:\n  prealloc: 4096\n  hash-size: 4096\n"
pcap, exp = gen("syn", "syn", "--count", str(N))
for mode in ("full", "compact", "none"):
    cfg = TABLE + ("outputs:\n  - eve-log:\n      types:\n        - alert\n        - flow:\n"
                   "            unreplied: %s\n" % mode)
    name = "syn-" + mode
    if mode == "full":
        shape = lambda r: "community_id" in r and "pkts_toclient" in r["flow"] and \
            r["flow"]["pkts_toserver"] == 1 and r["flow"]["state"] == "new"
    else:
        shape = lambda r: "community_id" not in r and "pkts_toclient" not in r["flow"] and \
            r["tcp"] == {"tcp_flags": "02"} and r["flow"]["pkts_toserver"] == 1 and \
            r["event_type"] == "flow" and r["flow"]["state"] == "new"
    st, recs, data, rss = run(pcap, name, cfg, flood_check=shape)
    f, w = st["flow"], st["worker"]
    real_sessions(name, exp, st, recs, data)
    check(f["flow_created"] == N + 3, "%s: %d flows created, want %d" % (name, f["flow_created"], N + 3))
    check(f["flow_emergency"] >= 1 and f["flow_end_forced"] >= N + 3 - 4096,
          "%s: emergency mode, %d flows evicted" % (name, f["flow_end_forced"]))
    check(f["flow_end_forced"] + f["flow_end_timeout"] + f["flow_end_shutdown"] == N + 3,
          "%s: every flow ended once, by a counted reason" % name)
    check(f["flow_alloc_fail"] == 0 and w["no_flow"] == 0, "%s: no packet went without a flow" % name)
    check(w["flow_unreplied"] == N, "%s: %d unreplied flows counted, want %d" % (name, w["flow_unreplied"], N))
    if mode == "full":
        check(st["eve_records"] == N + 3 + 6 and w["flows_logged"] == N + 3 and not st["eve_flood_bad"],
              "full: every flow logged, flood records full ones")
    elif mode == "compact":
        check(w["flow_unreplied_compact"] == N and st["eve_records"] == N + 3 + 6,
              "compact: counted, all logged")
        check(not st["eve_flood_bad"], "compact: every flood record has the documented shape")
    else:
        check(w["flow_unreplied_unlogged"] == N and st["eve_records"] == 3 + 6 and w["flows_logged"] == 3,
              "none: %d not logged, counted; the 3 sessions and their alerts logged"
              % w["flow_unreplied_unlogged"])
        # nothing grows with the flood: tables are preallocated, no records are held
        check(0 < rss < 64 * 1024, "none: peak RSS %d MB < 64 MB" % (rss // 1024))

# ---- fragment flood and evasion: trackers and memory capped, every refusal counted
N = 20000
pcap, exp = gen("frag", "frag", "--count", str(N))
# once with few trackers (they run out first), once with little memory (it does)
for name, trackers, memcap in (("frag-trackers", 64, 16 << 20), ("frag-memcap", 4096, 256 << 10)):
    cfg = "defrag:\n  memcap: %d\n  trackers: %d\n" % (memcap, trackers)
    st, recs, data, _ = run(pcap, name, cfg)
    d, w = st["defrag"], st["worker"]
    real_sessions(name, exp, st, recs, data)
    check(d["frags_in"] == w["frag_held"] + w["frag_dropped"],
          "%s: every fragment held or dropped, counted" % name)
    check(d["dg_invalid"] == N // 5, "%s: %d teardrop datagrams invalid, want %d"
          % (name, d["dg_invalid"], N // 5))
    check(d["dg_oversize"] == N // 5, "%s: %d ping-of-death datagrams oversize, want %d"
          % (name, d["dg_oversize"], N // 5))
    check(d["dg_reassembled"] == N // 5 + 3, "%s: %d datagrams reassembled (the overlapping ones "
          "and the three requests), want %d" % (name, d["dg_reassembled"], N // 5 + 3))
    check(d["dg_overlap_mismatch"] > 0 and d["frags_overlap"] >= N // 5, "%s: overlaps counted" % name)
    check(d["dg_evicted" if trackers == 64 else "dg_memcap"] > 0,
          "%s: %d evicted for a tracker, %d abandoned for memory" % (name, d["dg_evicted"], d["dg_memcap"]))
    check(d["dg_evicted"] + d["dg_memcap"] + d["dg_timeout"] + d["trackers_used"] == 2 * N // 5,
          "%s: every incomplete datagram abandoned by a counted reason or still pending" % name)
    check(d["mem_peak"] <= memcap and d["trackers_used"] <= trackers,
          "%s: peak %d bytes <= memcap %d, %d trackers in use <= %d"
          % (name, d["mem_peak"], memcap, d["trackers_used"], trackers))

# ---- segment flood: out-of-order data never deliverable fills the stream memcap
pcap, exp = gen("seg", "seg", "--count", "20000", "--sessions", "16")
cfg = "stream:\n  reassembly:\n    memcap: 4mb\n"
st, recs, data, _ = run(pcap, "seg", cfg)
s = st["stream"]
real_sessions("seg", exp, st, recs, data)
check(s["memcap"] > 0, "seg: the flood reached the memcap (%d segments refused)" % s["memcap"])
check(s["mem_peak"] <= 4 << 20, "seg: peak %d bytes <= memcap 4 MiB" % s["mem_peak"])
check(s["reclaim_ooo_segs"] > 0, "seg: the real sessions' data took memory from the flood "
      "(%d segments reclaimed)" % s["reclaim_ooo_segs"])

# ---- hash flooding: crafted collisions, known and random seed ------------------
N = 3000
pcap, exp = gen("hash", "hash", "--count", str(N), "--seed", str(SEED), "--workers", "2",
                "--hash-size", "4096")
cfg = "flow:\n  prealloc: 8192\n  hash-size: 4096\n"
for seed in (str(SEED), "random"):
    name = "hash-seed-" + ("known" if seed != "random" else "random")
    st, recs, data, _ = run(pcap, name, cfg, "--workers", "2", "--seed", seed)
    f = st["flow"]
    real_sessions(name, exp, st, recs, data)
    share = max(x["flows"] for x in st["workers"]) / float(f["flow_created"])
    print("  %s: worst bucket chain %d, worst worker share %.3f, %d evicted by the chain cap"
          % (name, f["flow_chain_max"], share, f["flow_chain_evict"]))
    if seed != "random":
        check(share > 0.99, "%s: every crafted flow on one worker (share %.3f)" % (name, share))
        check(f["flow_chain_max"] == 32 and f["flow_chain_evict"] >= N - 32,
              "%s: the chain stopped at max-chain 32 (%d flows evicted by it)"
              % (name, f["flow_chain_evict"]))
    else:
        check(share < 0.6, "%s: spread over the workers (share %.3f)" % (name, share))
        check(f["flow_chain_max"] < 16 and f["flow_chain_evict"] == 0,
              "%s: chains short (%d), none cut" % (name, f["flow_chain_max"]))

# ---- HTTP: pipelined requests the server never answers, headers without end ----
# 20,000 segments carry 313,724 requests on one connection and a header
# section of 10 MB on the other; app-layer limits stop both parsers, counted,
# and memory stays flat while the real sessions are parsed and alerted on.
pcap, exp = gen("http", "http", "--count", "20000")
cfg = "outputs:\n  - eve-log:\n      types: [alert, flow, http]\n"
st, recs, data, rss = run(pcap, "http", cfg)
a = st["app_layer"]
real_sessions("http", exp, st, recs, data)
check(a["http_flows"] == 5, "http: 5 HTTP flows (the 2 floods, the 3 sessions): %d" % a["http_flows"])
check(a["app_tx_limit"] == 1, "http: the pipelining connection stopped at max-tx, counted once (%d)"
      % a["app_tx_limit"])
check(a["http_parse_error"] + a["app_flow_memcap"] == 1,
      "http: the endless header section stopped the parser, counted once (parse_error %d, "
      "flow_memcap %d)" % (a["http_parse_error"], a["app_flow_memcap"]))
check(a["http_tx"] < 1000, "http: %d transactions of %d requests sent: open transactions are capped"
      % (a["http_tx"], exp["pipelined_requests"]))
urls = sorted(r["http"]["url"] for r in recs if r["event_type"] == "http" and
              r["src_ip"].startswith("198.51.100."))
check(urls == sorted("/meerkat-attack-trigger-" + s["name"] for s in exp["sessions"]),
      "http: each real session logged its transaction (%s)" % urls)
check(0 < rss < 64 * 1024, "http: peak RSS %d MB < 64 MB" % (rss // 1024))

print("%d check(s) failed" % failures if failures else "all checks passed")
sys.exit(1 if failures else 0)
