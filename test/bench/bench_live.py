#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Live capture benchmark: meerkat -i against two baselines, one run, one table.

Run through bench_live.sh, which creates the namespaces and a single-queue
veth pair and removes them afterwards. The generator (bench_gen: sendmmsg on
an AF_PACKET socket, pinned to CPU 0) sends from the peer end; the receiver
runs on the sensor end, pinned to CPU 1:

  (a) meerkat -i IFACE --workers 1: the full XDP program, one AF_XDP socket,
      the whole pipeline (flows, TCP reassembly, EVE; no rules), default
      configuration but for the rings;
  (b) bench_rx xsk: libxdp's default redirect-by-queue program and a bare
      AF_XDP socket, no pipeline;
  (c) bench_rx afpacket: a TPACKET_V3 reader, no XDP program;
  (d) for the top rate only: xdp/bench_drop.bpf.o (return XDP_DROP) and no
      receiver, the floor of veth's XDP path (see docs/performance.md).

On a veth pair the kernel's receive work (the XDP program and the copy into
the UMEM, or AF_PACKET's copy into its ring) runs in softirq on the SENDING
CPU, so what the generator reaches with a receiver attached is the receive
path's kernel cost, and the receiver's own CPU time is its user-space cost.
For each traffic (64-byte UDP over 1,024 flows; the offline benchmark's mix
of TCP sessions, GTP-U, UDP and fragments) and each receiver, per round:

  top     the generator as fast as it can for --frames frames: its rate,
          and the sending CPU's time per frame (the generator's own, with
          the softirq work done in its context, plus that CPU's ksoftirqd:
          veth runs the receive path there), whose
          inverse is the rate that CPU reaches when nothing else runs on it:
          on a shared machine the wall-clock rate swings with the other
          load, this figure much less; the frames lost (sent - received,
          <= 0.01% is "zero loss"); how long the receiver kept working after
          the generator stopped (its backlog, in ms);
  cpu     the generator at --rate frames/s: the receiver's CPU seconds per
          million frames (all its threads, from /proc/PID/task/*/schedstat);
  burst   --bursts times: SIGSTOP the receiver, send --burst frames into its
          ring, SIGCONT, wait until it is idle again: frames per CPU-second
          of the drain, the receiver's own capacity.

Every receiver gets 64 MB of ring memory: meerkat and the bare AF_XDP
receiver 32768 UMEM frames of 2 KB with a 16384-entry RX ring, the AF_PACKET
reader 64 blocks of 1 MB. The rings absorb the receiver's scheduling
stalls, which on a shared 2-CPU VM reach several ms (meerkat's default
2048-entry ring holds 7 ms at 0.3 Mpps). Receivers are interleaved within
each round so that drift of the shared machine hits all three; the table
shows the median and the spread over rounds. Every receiver is started
afresh for every measurement.
"""
import argparse
import glob
import json
import os
import re
import signal
import statistics
import struct
import subprocess
import sys
import time

ENV = os.environ
# set by bench_live.sh (the testbench it created)
NS_S, NS_P = ENV.get("TB_NS_SENSOR"), ENV.get("TB_NS_PEER")
IF_S, IF_P = ENV.get("TB_SENSOR_IF"), ENV.get("TB_PEER_IF")
TMP = ENV.get("TB_TMP")
GEN_CPU, RX_CPU = "0", "1"
NICE = ["nice", "-n", "-10"]  # --nice: generator and receivers alike
MEERKAT_ARGS = []  # --meerkat-arg

# the rings of bench_rx xsk, in meerkat's configuration (docs/configuration.md)
MEERKAT_RINGS = """capture:
  frame-size: 2048
  frame-count: 32768
  rx-ring-size: 16384
  fill-ring-size: 32768
"""

RECEIVERS = [("a", "meerkat (program + pipeline)"), ("b", "bare AF_XDP"),
             ("c", "AF_PACKET TPACKET_V3")]


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def cpu_ns(pid):
    """CPU time of every thread of @pid, in ns (scheduler accounting)."""
    total = 0
    for f in glob.glob("/proc/%d/task/*/schedstat" % pid):
        try:
            with open(f) as fp:
                total += int(fp.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass  # a thread that just ended
    return total


def wait_idle(pid, quiet_s=0.03, limit_s=30.0):
    """Waits until @pid uses no CPU for @quiet_s; returns when it last worked."""
    t0 = time.monotonic()
    last, last_change = cpu_ns(pid), time.monotonic()
    while time.monotonic() - t0 < limit_s:
        time.sleep(0.002)
        c = cpu_ns(pid)
        if c != last:
            last, last_change = c, time.monotonic()
        elif time.monotonic() - last_change >= quiet_s:
            return last_change
    return last_change


class Receiver:
    def __init__(self, kind, build):
        self.kind, self.build = kind, build
        self.proc = None
        self.dir = os.path.join(TMP, "rx-%s-%d" % (kind, time.monotonic_ns()))
        os.makedirs(self.dir)

    def start(self):
        pre = ["ip", "netns", "exec", NS_S, "env", "LIBXDP_BPFFS=" + ENV["TB_BPFFS"]] + NICE + [
               "taskset", "-c", RX_CPU]
        if self.kind == "a":
            self.sock = os.path.join(self.dir, "ctl.sock")
            conf = os.path.join(self.dir, "bench.yaml")
            with open(conf, "w") as fp:
                fp.write(MEERKAT_RINGS)
            cmd = pre + [os.path.join(self.build, "userspace/meerkat"), "-c", conf, "-i", IF_S,
                         "--workers", "1", "-l", self.dir, "--unix-socket", self.sock] + MEERKAT_ARGS
        else:
            cmd = pre + [os.path.join(self.build, "test/bench/bench_rx"),
                         "xsk" if self.kind == "b" else "afpacket", IF_S]
        self.out = open(os.path.join(self.dir, "out"), "w+")
        self.err = open(os.path.join(self.dir, "err"), "w+")
        self.proc = subprocess.Popen(cmd, stdout=self.out, stderr=self.err)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("receiver %s exited: %s" % (self.kind, self.tail()))
            if self.ready():
                time.sleep(0.3)  # let the first wakeups settle
                return
            time.sleep(0.05)
        raise RuntimeError("receiver %s not ready in 30 s: %s" % (self.kind, self.tail()))

    def ready(self):
        if self.kind == "a":
            return os.path.exists(self.sock) and subprocess.run(
                ["ip", "netns", "exec", NS_S, os.path.join(self.build, "userspace/meerkatctl"),
                 "-s", self.sock, "ping"], capture_output=True).returncode == 0
        self.out.seek(0)
        return "ready" in self.out.read()

    def tail(self):
        self.err.seek(0)
        return self.err.read()[-2000:]

    def signal(self, sig):
        os.kill(self.proc.pid, sig)

    def stop(self):
        """SIGTERM; returns (frames received, frames dropped in the socket)."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise RuntimeError("receiver %s did not stop" % self.kind)
        if self.kind == "a":
            self.err.seek(0)
            m = re.search(r"accounting (\w+): program saw (\d+), redirected (\d+) = workers took "
                          r"(\d+) \+ socket drops (\d+)", self.err.read())
            if not m:
                raise RuntimeError("no accounting line from meerkat: %s" % self.tail())
            if m.group(1) != "ok":
                log("  meerkat accounting %s" % m.group(0))
            return int(m.group(4)), int(m.group(5))
        self.out.seek(0)
        m = re.search(r"received (\d+) dropped (\d+)", self.out.read())
        if not m:
            raise RuntimeError("no counts from bench_rx: %s" % self.tail())
        return int(m.group(1)), int(m.group(2))

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def generate(build, pcap, frames, rate=None):
    """bench_gen from the peer end on GEN_CPU; returns its figures: sent,
    seconds, and sender_ns, the sending CPU's time per frame (the
    generator's own, softirq in its context included, plus that CPU's
    ksoftirqd: where veth runs the receive path)."""
    cmd = ["ip", "netns", "exec", NS_P] + NICE + ["taskset", "-c", GEN_CPU,
                                                   os.path.join(build, "test/bench/bench_gen"),
                                                   IF_P, pcap, str(frames)]
    if rate:
        cmd.append(str(rate))
    r = subprocess.run(cmd, capture_output=True, text=True)
    m = re.search(r"sent (\d+) seconds ([\d.]+) cpu_ns (\d+) softirq_ns (\d+)", r.stdout)
    if r.returncode or not m:
        raise RuntimeError("bench_gen failed: %s %s" % (r.stdout, r.stderr))
    sent = int(m.group(1))
    return {"sent": sent, "seconds": float(m.group(2)),
            "sender_ns": (int(m.group(3)) + int(m.group(4))) / sent}


_pcap_frames = {}


def pcap_frames(path):
    if path not in _pcap_frames:
        n = 0
        with open(path, "rb") as fp:
            fp.read(24)
            while True:
                h = fp.read(16)
                if len(h) < 16:
                    break
                incl = struct.unpack("<IIII", h)[2]
                fp.seek(incl, 1)
                n += 1
        _pcap_frames[path] = n
    return _pcap_frames[path]


def write_udp64(path, flows=1024):
    """64-byte UDP frames on the wire (60 without the FCS), one per flow."""
    def csum(b):
        s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
        while s >> 16:
            s = (s & 0xffff) + (s >> 16)
        return ~s & 0xffff

    with open(path, "wb") as fp:
        fp.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i in range(flows):
            src, dst = 0xc6120000 | (i & 0xff) << 8 | 1 + (i >> 8), 0xc6130101
            sport, dport = 10000 + i, 5001
            payload = bytes(18)
            udp = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
            ph = struct.pack("!IIBBH", src, dst, 0, 17, len(udp))
            udp = udp[:6] + struct.pack("!H", csum(ph + udp) or 0xffff) + udp[8:]
            ip = struct.pack("!BBHHHBBHII", 0x45, 0, 20 + len(udp), i, 0, 64, 17, 0, src, dst)
            ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
            frame = bytes.fromhex("020000000002020000000001") + b"\x08\x00" + ip + udp
            assert len(frame) == 60
            fp.write(struct.pack("<IIII", 1700000000, i, len(frame), len(frame)) + frame)


def measure_top(kind, build, pcap, frames):
    rx = Receiver(kind, build)
    try:
        rx.start()
        g = generate(build, pcap, frames)
        t_stop = time.monotonic()
        backlog_ms = max(0.0, (wait_idle(rx.proc.pid) - t_stop) * 1000)
        got, dropped = rx.stop()
    finally:
        rx.kill()
    sent = g["sent"]
    return {"pps": sent / g["seconds"], "sender_ns": g["sender_ns"], "sent": sent, "got": got,
            "dropped": dropped, "loss": (sent - got) / sent, "backlog_ms": backlog_ms}


def measure_drop_floor(build, pcap, frames):
    """Top rate with only an XDP_DROP program on the sensor veth."""
    obj = os.path.join(build, "xdp/bench_drop.bpf.o")
    subprocess.run(["ip", "-n", NS_S, "link", "set", "dev", IF_S, "xdpdrv", "obj", obj,
                    "sec", "xdp"], check=True)
    try:
        g = generate(build, pcap, frames)
    finally:
        subprocess.run(["ip", "-n", NS_S, "link", "set", "dev", IF_S, "xdpdrv", "off"],
                       check=True)
    return {"pps": g["sent"] / g["seconds"], "sender_ns": g["sender_ns"]}


def measure_cpu(kind, build, pcap, frames, rate):
    rx = Receiver(kind, build)
    try:
        rx.start()
        wait_idle(rx.proc.pid)
        c0 = cpu_ns(rx.proc.pid)
        g = generate(build, pcap, frames, rate=rate)
        wait_idle(rx.proc.pid)
        c1 = cpu_ns(rx.proc.pid)
        got, dropped = rx.stop()
    finally:
        rx.kill()
    return {"cpu_s_per_m": (c1 - c0) / 1e9 / (got / 1e6) if got else float("inf"),
            "pps": g["sent"] / g["seconds"], "sent": g["sent"], "got": got}


def measure_burst(kind, build, burst_pcap, bursts, burst):
    rx = Receiver(kind, build)
    total = 0
    try:
        rx.start()
        wait_idle(rx.proc.pid)
        for _ in range(bursts):
            rx.signal(signal.SIGSTOP)
            generate(build, burst_pcap, burst)
            time.sleep(0.02)  # AF_PACKET retires a partly filled block after 10 ms
            c0 = cpu_ns(rx.proc.pid)
            rx.signal(signal.SIGCONT)
            wait_idle(rx.proc.pid)
            total += cpu_ns(rx.proc.pid) - c0
        got, dropped = rx.stop()
    finally:
        rx.kill()
    frames = bursts * burst
    if got != frames:
        log("  burst %s: received %d of %d (ring too small?)" % (kind, got, frames))
    return {"fps_per_cpu": got / (total / 1e9) if total else 0.0, "got": got, "frames": frames}


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def spread(xs, fmt):
    return ("[" + fmt % min(xs) + "-" + fmt % max(xs) + "]") if len(xs) > 1 else ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--frames", type=int, default=600000, help="frames per top-rate run")
    ap.add_argument("--rate", type=int, default=100000, help="frames/s of the CPU measurement")
    ap.add_argument("--cpu-frames", type=int, default=300000)
    ap.add_argument("--bursts", type=int, default=10)
    ap.add_argument("--burst", type=int, default=10000, help="frames per burst (<= 16384: the RX rings)")
    ap.add_argument("--mix-frames", type=int, default=100000, help="frames of the mixed capture")
    ap.add_argument("--traffic", default="udp64,mix")
    ap.add_argument("--quick", action="store_true", help="1 round, fewer frames (a smoke run)")
    ap.add_argument("--nice", type=int, default=-10,
                    help="niceness of generator and receivers (default -10: the machine is shared)")
    ap.add_argument("--meerkat-arg", action="append", default=[],
                    help="one more argument for meerkat (repeatable), e.g. --meerkat-arg=-knone")
    ap.add_argument("--json", help="also write every measurement here")
    a = ap.parse_args()
    if not (NS_S and NS_P and IF_S and IF_P and TMP):
        sys.exit("run bench_live.sh, which sets up the testbench this needs")
    NICE[2] = str(a.nice)
    MEERKAT_ARGS.extend(a.meerkat_arg)
    if a.quick:
        a.rounds, a.frames, a.cpu_frames, a.bursts = 1, 200000, 100000, 4

    pcaps = {}
    for t in a.traffic.split(","):
        p = os.path.join(TMP, t + ".pcap")
        if t == "udp64":
            write_udp64(p)
        elif t == "mix":
            r = subprocess.run([os.path.join(a.build, "test/bench/bench_offline"), "--packets",
                                str(a.mix_frames), "--runs", "1", "--keep", p],
                               capture_output=True, text=True)
            if r.returncode:
                sys.exit("bench_offline could not write the mix: %s" % r.stderr)
        else:
            sys.exit("unknown traffic %s" % t)
        pcaps[t] = p
        size = os.path.getsize(p) - 24 - 16 * pcap_frames(p)
        log("traffic %s: %d frames, mean %.0f B" % (t, pcap_frames(p), size / pcap_frames(p)))

    load = open("/proc/loadavg").read().split()[:3]
    log("load average before: %s" % " ".join(load))
    res = {t: {k: {"top": [], "cpu": [], "burst": []} for k, _ in RECEIVERS} for t in pcaps}
    floor = {t: [] for t in pcaps}
    for rnd in range(a.rounds):
        for t, p in pcaps.items():
            floor[t].append(measure_drop_floor(a.build, p, a.frames))
            log("round %d/%d %s XDP_DROP only: top %.3f Mpps, %.0f ns/frame on the sending CPU" % (
                rnd + 1, a.rounds, t, floor[t][-1]["pps"] / 1e6, floor[t][-1]["sender_ns"]))
            for k, name in RECEIVERS:
                log("round %d/%d %s %s" % (rnd + 1, a.rounds, t, name))
                r = res[t][k]
                r["top"].append(measure_top(k, a.build, p, a.frames))
                r["cpu"].append(measure_cpu(k, a.build, p, a.cpu_frames, a.rate))
                r["burst"].append(measure_burst(k, a.build, p, a.bursts, a.burst))
                log("  top %.3f Mpps, %.0f ns/frame on the sending CPU, loss %.4f%% (socket "
                    "drops %d) backlog %.0f ms | %.3f CPU s/Mframe | %.2f Mframes/CPU-s" % (
                        r["top"][-1]["pps"] / 1e6, r["top"][-1]["sender_ns"],
                        100 * r["top"][-1]["loss"],
                        r["top"][-1]["dropped"],
                        r["top"][-1]["backlog_ms"], r["cpu"][-1]["cpu_s_per_m"],
                        r["burst"][-1]["fps_per_cpu"] / 1e6))
    load_after = open("/proc/loadavg").read().split()[:3]

    print()
    print("Live capture, %d round(s); generator bench_gen on CPU %s, receiver on CPU %s, both "
          "at nice %d; load average %s before, %s after" % (
              a.rounds, GEN_CPU, RX_CPU, a.nice, " ".join(load), " ".join(load_after)))
    print("top: generator as fast as it can, %d frames: wall-clock Mpps, and the sending CPU's "
          "ns per frame (generator + its softirqs + ksoftirqd: the receive path's kernel cost) with its inverse, "
          "Mpps per sending CPU; loss and backlog at that rate; cpu: receiver CPU s per million "
          "frames at %d frames/s; capacity: drain of %d x %d frames after SIGSTOP, frames per "
          "CPU-second. Median [min-max] over rounds." % (a.frames, a.rate, a.bursts, a.burst))
    hdr = "%-7s %-32s %-20s %-20s %-7s %-7s %9s %7s %-20s %-20s" % (
        "traffic", "receiver", "top Mpps (wall)", "sender ns/frame", "Mpps/CPU", "vs (b)",
        "loss", "backlog", "cpu s/Mframe", "capacity Mframes/CPU-s")
    print(hdr)
    print("-" * len(hdr))
    verdicts = []
    for t in pcaps:
        rows = [(k, name, res[t][k]["top"], res[t][k]) for k, name in RECEIVERS]
        rows.append(("d", "XDP_DROP only, no receiver", floor[t], None))
        ns = {k: [x["sender_ns"] for x in top] for k, _, top, _ in rows}
        b_norm = 1e3 / med(ns["b"])
        for k, name, top, r in rows:
            wall = [x["pps"] / 1e6 for x in top]
            norm = 1e3 / med(ns[k])
            line = "%-7s (%s) %-28s %6.3f %-13s %6.0f %-13s %7.3f %6.2fx" % (
                t, k, name, med(wall), spread(wall, "%.3f"), med(ns[k]), spread(ns[k], "%.0f"),
                norm, norm / b_norm)
            if r:
                cpu = [x["cpu_s_per_m"] for x in r["cpu"]]
                cap = [x["fps_per_cpu"] / 1e6 for x in r["burst"]]
                line += " %8.4f%% %5.0fms %6.3f %-13s %6.2f %-13s" % (
                    100 * max(x["loss"] for x in top), max(x["backlog_ms"] for x in top),
                    med(cpu), spread(cpu, "%.3f"), med(cap), spread(cap, "%.2f"))
            print(line.rstrip())
        a_norm, c_norm = 1e3 / med(ns["a"]), 1e3 / med(ns["c"])
        a_cpu = med([x["cpu_s_per_m"] for x in res[t]["a"]["cpu"]])
        a_loss = max(x["loss"] for x in res[t]["a"]["top"])
        verdicts += [
            (t, "(a) CPU s per Mframe <= 0.5", a_cpu <= 0.5, "%.3f" % a_cpu),
            (t, "(a) top rate >= 90% of (b)", a_norm >= 0.9 * b_norm,
             "%.0f%% per sending CPU" % (100 * a_norm / b_norm)),
            (t, "(a) top rate >= (c)", a_norm >= c_norm,
             "%.3f vs %.3f Mpps per sending CPU" % (a_norm, c_norm)),
            (t, "(a) zero loss (<= 0.01%) at top rate", a_loss <= 0.0001, "%.4f%%" % (100 * a_loss)),
        ]
        if a.rate > min(min(x["pps"] for x in res[t][k]["top"]) for k, _ in RECEIVERS):
            log("note: --rate %d is above a measured top rate: the cpu column is at the top" % a.rate)
    print()
    for t, what, ok, val in verdicts:
        print("target %-6s %-40s %-5s (%s)" % (t, what, "MET" if ok else "MISS", val))
    if a.json:
        with open(a.json, "w") as fp:
            json.dump({"receivers": res, "xdp_drop_only": floor}, fp, indent=1)


if __name__ == "__main__":
    main()
