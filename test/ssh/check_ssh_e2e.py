#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""meerkat's `ssh` events and alerts against tshark's view of the same capture.

Usage: check_ssh_e2e.py PCAP EVE_JSON STATS_JSON SESSIONS

Every TCP stream tshark finds SSH on is matched to meerkat's ssh event by
the client's port. Compared: each side's banner (proto_version and
software_version from tshark's ssh.protocol) and the HASSH and HASSH
server strings and hashes (ssh.kex.hassh_algorithms, ssh.kex.hassh,
ssh.kex.hasshserver_algorithms, ssh.kex.hasshserver). The flows are
`ssh` in their flow events; sid 1, 2 and 4 fire once per session, sid 3
(an smtp rule) never; the ssh buffers (ssh.proto, ssh.software of each
side, ssh.hassh, ssh.hassh.string, ssh.hassh.server and its string)
fire once per session, the aes128-ctr HASSH string on its session only;
the counters agree.
"""
import json
import subprocess
import sys

PCAP, EVE, STATS, SESSIONS = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
failures = 0


def check(ok, what):
    global failures
    if not ok:
        print("FAIL: %s" % what)
        failures += 1
    return ok


def tshark():
    fields = ["tcp.stream", "tcp.srcport", "tcp.dstport", "ssh.protocol",
              "ssh.kex.hassh_algorithms", "ssh.kex.hassh", "ssh.kex.hasshserver_algorithms",
              "ssh.kex.hasshserver"]
    cmd = ["tshark", "-r", PCAP, "-d", "tcp.port==2222,ssh", "-Y", "ssh", "-T", "fields",
           "-E", "separator=\t", "-E", "occurrence=f"]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    streams = {}
    for line in out.splitlines():
        v = dict(zip(fields, line.split("\t")))
        to_server = v["tcp.dstport"] in ("22", "2222")
        cport = int(v["tcp.srcport"] if to_server else v["tcp.dstport"])
        s = streams.setdefault(cport, {})
        side = "client" if to_server else "server"
        if v["ssh.protocol"]:
            s[side + "_banner"] = v["ssh.protocol"]
        if v["ssh.kex.hassh"]:
            s["hassh"] = (v["ssh.kex.hassh"], v["ssh.kex.hassh_algorithms"])
        if v["ssh.kex.hasshserver"]:
            s["hasshserver"] = (v["ssh.kex.hasshserver"], v["ssh.kex.hasshserver_algorithms"])
    return streams


events = [json.loads(l) for l in open(EVE)]
ssh = {e["src_port"]: e for e in events if e["event_type"] == "ssh"}
streams = tshark()
check(len(streams) == SESSIONS, "tshark sees %d SSH sessions, expected %d" % (len(streams), SESSIONS))
check(len(ssh) == len(streams), "%d ssh events for %d sessions" % (len(ssh), len(streams)))
hashes = set()
for cport, s in sorted(streams.items()):
    e = ssh.get(cport)
    if not check(e is not None, "no ssh event for client port %d" % cport):
        continue
    for side in ("client", "server"):
        banner = s.get(side + "_banner", "")
        proto, _, rest = banner[4:].partition("-")
        soft = rest.split(" ")[0]
        got = e["ssh"].get(side, {})
        check(got.get("proto_version") == proto and got.get("software_version") == soft,
              "%d %s: banner %r, meerkat %s/%s" % (cport, side, banner, got.get("proto_version"),
                                                   got.get("software_version")))
    for key, side in (("hassh", "client"), ("hasshserver", "server")):
        want = s.get(key)
        got = e["ssh"].get(side, {}).get("hassh")
        if check(want is not None and got is not None,
                 "%d: %s missing (tshark %s, meerkat %s)" % (cport, key, want, got)):
            check((got["hash"], got["string"]) == want,
                  "%d: %s meerkat %s, tshark %s" % (cport, key, got, want))
            hashes.add(got["hash"])
    print("port %d: %s / %s, hassh %s, hassh server %s" % (
        cport, e["ssh"]["client"].get("software_version"), e["ssh"]["server"].get("software_version"),
        e["ssh"]["client"].get("hassh", {}).get("hash"), e["ssh"]["server"].get("hassh", {}).get("hash")))
check(len(hashes) >= 3, "the sessions with other ciphers give other HASSH values")

flows = [e for e in events if e["event_type"] == "flow" and e.get("proto") == "TCP"]
check(flows and all(f.get("app_proto") == "ssh" for f in flows),
      "every TCP flow is ssh: %s" % [f.get("app_proto") for f in flows])
alerts = {}
for e in events:
    if e["event_type"] == "alert":
        alerts.setdefault(e["alert"]["signature_id"], []).append(e)
for sid in (1, 2, 4):
    check(len(alerts.get(sid, [])) == SESSIONS,
          "sid %d fired %d times, expected %d" % (sid, len(alerts.get(sid, [])), SESSIONS))
    for a in alerts.get(sid, []):
        check(a.get("app_proto") == "ssh", "sid %d alert's app_proto %s" % (sid, a.get("app_proto")))
check(3 not in alerts, "the smtp rule fired on ssh")
# the ssh buffers: once per session (transaction rules), sid 8 only on the aes128-ctr session
for sid, n in ((6, SESSIONS), (7, SESSIONS), (8, 1), (9, SESSIONS), (10, SESSIONS)):
    check(len(alerts.get(sid, [])) == n,
          "sid %d fired %d times, expected %d" % (sid, len(alerts.get(sid, [])), n))
check([a["dest_port"] for a in alerts.get(8, [])] == [2222], "sid 8 on the session to 2222")

st = json.load(open(STATS))["app_layer"]
check(st["ssh_flows"] == SESSIONS and st["ssh_logged"] == SESSIONS and
      st["ssh_malformed"] == 0 and st["ssh_gap"] == 0,
      "counters: %s" % {k: v for k, v in st.items() if k.startswith("ssh")})
check(st["ssh_encrypted"] >= SESSIONS - 1, "ssh_encrypted %d" % st["ssh_encrypted"])
print("%d ssh events, %d alerts checked, %d failures" % (len(ssh), sum(len(v) for v in alerts.values()),
                                                         failures))
sys.exit(1 if failures else 0)
