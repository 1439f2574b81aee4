#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""A server that accepts CONNECT (200) and Upgrade (101) on PORT, as a proxy
and a websocket server would, then swallows what follows: http_raw.sh's
tunnels. A client that starts with a VNC (RFB) banner gets one back (a flow in
which no protocol is recognised). Runs until killed.

usage: tunnel_server.py IP PORT
"""
import socket
import sys
import threading

srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind((sys.argv[1], int(sys.argv[2])))
srv.listen(8)


def serve(c):
    c.settimeout(5)
    data = b""
    try:
        data = c.recv(4096)
        if data.startswith(b"RFB "):
            c.sendall(b"RFB 003.008-tunnel_server\r\n")
            while c.recv(4096):
                pass
            return
        while b"\r\n\r\n" not in data:
            d = c.recv(4096)
            if not d:
                return
            data += d
        if data.startswith(b"CONNECT "):
            c.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        else:
            c.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                      b"Connection: Upgrade\r\n\r\n")
        while c.recv(4096):
            pass
    except OSError:
        pass
    finally:
        c.close()


while True:
    conn, _ = srv.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
