#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Client and server of the inline (IPS) testbench: real TCP sessions
through the sensor, whose bytes are compared at both ends.

  ips_peer.py serve PORT DIR
      accepts connections until killed; each one starts with a line
      "PUT NAME" (the rest of the stream is stored in DIR/NAME as it
      arrives, then answered "OK <sha256>") or "GET N" (N deterministic
      bytes are sent, then the connection is closed) or "SINK" (the rest
      of the stream is read and dropped, then its length is answered).
  ips_peer.py put HOST PORT NAME FILE [TIMEOUT [PACE_MS]]
      sends FILE (64 KiB every PACE_MS when given), prints "OK <sha256>" as the server answered, or
      "ECONNRESET" (exit 3) or "TIMEOUT" (exit 4).
  ips_peer.py get HOST PORT N [TIMEOUT]
      prints the sha256 of what arrived and its length, or ECONNRESET/TIMEOUT.
  ips_peer.py blast HOST PORT MB
      sends MB megabytes to a SINK and prints "MBIT <rate> SECONDS <s>",
      timed until the server's answer (every byte arrived).
  ips_peer.py pattern N OUT
      writes the N deterministic bytes GET sends, to compare.
"""
import hashlib
import os
import socket
import sys
import threading


def pattern(n):
    block = hashlib.sha256(b"meerkat").digest() * 2048  # 64 KiB
    out = bytearray()
    i = 0
    while len(out) < n:
        out += hashlib.sha256(i.to_bytes(8, "big")).digest()[:8] + block[:65528]
        i += 1
    return bytes(out[:n])


def handle(conn, outdir):
    f = conn.makefile("rb")
    line = f.readline().decode(errors="replace").split()
    if len(line) == 2 and line[0] == "PUT":
        h = hashlib.sha256()
        path = os.path.join(outdir, os.path.basename(line[1]))
        with open(path, "wb", buffering=0) as out:
            while True:
                b = f.read1(65536)
                if not b:
                    break
                out.write(b)
                h.update(b)
        conn.sendall(("OK %s\n" % h.hexdigest()).encode())
    elif len(line) == 2 and line[0] == "GET":
        conn.sendall(pattern(int(line[1])))
    elif line == ["SINK"]:
        total = 0
        while True:
            b = f.read1(262144)
            if not b:
                break
            total += len(b)
        conn.sendall(b"%d\n" % total)
    conn.close()


def serve(port, outdir):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", port))
    s.listen(16)
    while True:
        c, _ = s.accept()
        threading.Thread(target=guard, args=(c, outdir), daemon=True).start()


def guard(c, outdir):
    try:
        handle(c, outdir)
    except OSError:
        c.close()


def connect(host, port, timeout):
    s = socket.create_connection((host, port), timeout=timeout)
    s.settimeout(timeout)
    return s


def put(host, port, name, path, timeout, pace_ms=0):
    import time
    data = open(path, "rb").read()
    s = connect(host, port, timeout)
    s.sendall(("PUT %s\n" % name).encode())
    if pace_ms:
        # a long-lived session: 64 KiB every pace_ms
        for off in range(0, len(data), 65536):
            s.sendall(data[off:off + 65536])
            time.sleep(pace_ms / 1000)
    else:
        s.sendall(data)
    s.shutdown(socket.SHUT_WR)
    answer = b""
    while True:
        b = s.recv(4096)
        if not b:
            break
        answer += b
    print(answer.decode().strip())
    return 0


def get(host, port, n, timeout):
    s = connect(host, port, timeout)
    s.sendall(("GET %d\n" % n).encode())
    h = hashlib.sha256()
    total = 0
    while True:
        b = s.recv(262144)
        if not b:
            break
        h.update(b)
        total += len(b)
    print("%s %d" % (h.hexdigest(), total))
    return 0


def blast(host, port, mb):
    import time
    chunk = memoryview(bytes(1 << 20))
    s = connect(host, port, 60)
    t0 = time.monotonic()
    s.sendall(b"SINK\n")
    for _ in range(mb):
        s.sendall(chunk)
    s.shutdown(socket.SHUT_WR)
    answer = s.makefile("rb").readline()
    dt = time.monotonic() - t0
    if int(answer or 0) != mb << 20:
        print("SHORT %s" % answer.decode().strip())
        return 1
    print("MBIT %.0f SECONDS %.2f" % ((mb << 20) * 8 / dt / 1e6, dt))
    return 0


def main(a):
    try:
        if a[0] == "serve":
            serve(int(a[1]), a[2])
        elif a[0] == "put":
            return put(a[1], int(a[2]), a[3], a[4], float(a[5]) if len(a) > 5 else 20,
                       int(a[6]) if len(a) > 6 else 0)
        elif a[0] == "get":
            return get(a[1], int(a[2]), int(a[3]), float(a[4]) if len(a) > 4 else 20)
        elif a[0] == "blast":
            return blast(a[1], int(a[2]), int(a[3]))
        elif a[0] == "pattern":
            open(a[2], "wb").write(pattern(int(a[1])))
        else:
            sys.exit(__doc__)
    except ConnectionResetError:
        print("ECONNRESET")
        return 3
    except (socket.timeout, TimeoutError):
        print("TIMEOUT")
        return 4
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
