#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""TLS rules on real sessions, against tshark's and openssl's view of them.

Usage: check_tls_rules.py rules PCAP RULES_OUT   (writes the rules)
       check_tls_rules.py check PCAP EVE_JSON    (checks the alerts)

One rule per TLS buffer and keyword (docs/rules.md "DNS and TLS"), some
that must not fire. Values only the capture knows (a JA3 hash, the EC
certificate's fingerprint) are taken from tshark's view of it. Each rule's
expected alerts are the sessions tshark's view says it holds for (a session
is one transaction: one alert at most); every alert must be of such a
session (matched by the client's port), carry `app_proto` tls and the tls
object, whose sni and (for rules read on the ServerHello) version agree
with tshark and whose certificate fields, for certificate rules, agree
with openssl's reading of the DER tshark extracts.
"""
import datetime
import hashlib
import json
import subprocess
import sys
import tempfile

SERVER_PORTS = (4433, 8443)
VERSIONS = {0x0300: "SSLv3", 0x0301: "TLS 1.0", 0x0302: "TLS 1.1", 0x0303: "TLS 1.2",
            0x0304: "TLS 1.3"}
FIELDS = ["tls.record.content_type", "tls.record.opaque_type", "tcp.srcport", "tcp.dstport", "tls.handshake.type", "tls.handshake.extensions_server_name",
          "tls.handshake.ja3", "tls.handshake.ja3_full", "tls.handshake.ja3s",
          "tls.handshake.ja3s_full", "tls.handshake.version",
          "tls.handshake.extensions.supported_version", "tls.handshake.certificate",
          "tls.alert_message.level"]
failures = 0


def check(ok, what):
    global failures
    if not ok:
        print("FAIL: %s" % what)
        failures += 1
    return ok


def openssl_fields(der):
    with tempfile.NamedTemporaryFile(suffix=".der") as f:
        f.write(der)
        f.flush()
        out = subprocess.run(["openssl", "x509", "-inform", "der", "-noout", "-subject", "-issuer",
                              "-serial", "-startdate", "-enddate",
                              "-nameopt", "sep_comma_plus_space,sname,utf8,-esc_msb", "-in", f.name],
                             check=True, capture_output=True, text=True).stdout
    r = {}
    for line in out.splitlines():
        k, _, v = line.partition("=")
        r[k.strip()] = v.strip()

    def when(s):
        return datetime.datetime.strptime(s, "%b %d %H:%M:%S %Y %Z").replace(
            tzinfo=datetime.timezone.utc).timestamp()

    return {"subject": r["subject"], "issuer": r["issuer"], "serial": int(r["serial"], 16),
            "notbefore": when(r["notBefore"]), "notafter": when(r["notAfter"]),
            "fingerprint": ":".join("%02x" % b for b in hashlib.sha1(der).digest())}


def sessions(pcap):
    """Per client port: what tshark shows of its TLS session."""
    cmd = ["tshark", "-r", pcap, "-Y", "tls", "-T", "fields", "-E", "occurrence=a",
           "-E", "aggregator=|"]
    for f in FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    ss = {}
    for line in out.splitlines():
        v = dict(zip(FIELDS, line.split("\t")))
        sport, dport = int(v["tcp.srcport"]), int(v["tcp.dstport"])
        to_server = dport in SERVER_PORTS
        s = ss.setdefault(sport if to_server else dport,
                          {"server_port": dport if to_server else sport, "ctypes": set(),
                           "stypes": set(), "certs": [], "alert": False, "encrypted": False})
        types = [int(t) for t in v["tls.handshake.type"].split("|") if t]
        (s["ctypes"] if to_server else s["stypes"]).update(types)
        # an alert tshark can read is in the clear; meerkat parses nothing after the first
        # application data (in this frame's records before it, too: this view is per frame)
        if v["tls.alert_message.level"] and not s["encrypted"]:
            s["alert"] = True
        # TLS 1.3 names its records' type "opaque_type"
        if "23" in (v["tls.record.content_type"] + "|" + v["tls.record.opaque_type"]).split("|"):
            s["encrypted"] = True
        if 1 in types and to_server:
            s["sni"] = v["tls.handshake.extensions_server_name"] or None
            s["ja3"], s["ja3_full"] = v["tls.handshake.ja3"], v["tls.handshake.ja3_full"]
            sv = [int(x, 16) for x in v["tls.handshake.extensions.supported_version"].split("|")
                  if x]
            s["client_max"] = max([x for x in sv if (x & 0x0f0f) != 0x0a0a] or
                                  [int(v["tls.handshake.version"].split("|")[0], 16)])
        if 2 in types and not to_server:
            s["ja3s"], s["ja3s_full"] = v["tls.handshake.ja3s"], v["tls.handshake.ja3s_full"]
            sv = v["tls.handshake.extensions.supported_version"]
            s["version"] = int(sv.split("|")[0], 16) if sv else \
                int(v["tls.handshake.version"].split("|")[0], 16)
        if 11 in types and not to_server and v["tls.handshake.certificate"] and not s["certs"]:
            s["certs"] = [bytes.fromhex(c.replace(":", ""))
                          for c in v["tls.handshake.certificate"].split("|")]
            s["x509"] = openssl_fields(s["certs"][0])
    return ss


def x(s, k):
    return s.get("x509", {}).get(k)


def rules(ss):
    """(sid, rule text, which sessions it fires on, whether it reads the certificate)."""
    first = sorted(ss.values(), key=lambda s: s["server_port"])
    ja3 = next(s["ja3"] for s in first if s.get("ja3"))
    ja3s = next(s["ja3s"] for s in first if s.get("ja3s"))
    ja3s_full = next(s["ja3s_full"] for s in first if s.get("ja3s_full"))
    ec_fp = next(x(s, "fingerprint") for s in first
                 if s["server_port"] == 8443 and s.get("x509"))
    now = datetime.datetime.now(datetime.timezone.utc).timestamp()
    y2020 = datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc).timestamp()
    has_cert = lambda s: "x509" in s
    return [
        (1, 'tls.sni; content:"www.meerkat.test"; bsize:16;',
         lambda s: s.get("sni") == "www.meerkat.test", 0),
        (2, 'tls_sni; content:"ec."; startswith;',
         lambda s: (s.get("sni") or "").startswith("ec."), 0),
        (3, "tls.version:1.2;", lambda s: s.get("version") == 0x0303, 0),
        (4, "tls.version:1.3;", lambda s: s.get("version") == 0x0304, 0),
        (5, "flow:to_server; tls.version:1.3;", lambda s: s.get("client_max") == 0x0304, 0),
        (6, "ssl_version:tls1.2,tls1.3;", lambda s: s.get("version") in (0x0303, 0x0304), 0),
        (7, "ssl_version:!tls1.2;", lambda s: s.get("version") in (0x0300, 0x0301, 0x0302,
                                                                   0x0304), 0),
        (8, "ssl_version:sslv3,tls1.0,tls1.1;",
         lambda s: s.get("version") in (0x0300, 0x0301, 0x0302), 0),
        (9, "ssl_state:client_hello;", lambda s: 1 in s["ctypes"], 0),
        (10, "ssl_state:client_keyx;", lambda s: 16 in s["ctypes"], 0),
        (11, "ssl_state:server_keyx;", lambda s: 12 in s["stypes"], 0),
        (12, "ssl_state:!server_keyx;", lambda s: 12 not in s["stypes"], 0),
        (13, "ssl_state:unknown;", lambda s: False, 0),
        (14, "tls.cert_valid;", lambda s: has_cert(s) and x(s, "notbefore") <= now <=
         x(s, "notafter"), 1),
        (15, "tls_cert_expired;", lambda s: has_cert(s) and x(s, "notafter") < now, 1),
        (16, "tls.cert_notbefore:>2020-01-01;", lambda s: has_cert(s) and
         x(s, "notbefore") > y2020, 1),
        (17, "tls_cert_notafter:<2020;", lambda s: has_cert(s) and x(s, "notafter") < y2020, 1),
        (18, 'tls.cert_subject; content:"CN=www.meerkat.test";',
         lambda s: "CN=www.meerkat.test" in (x(s, "subject") or ""), 1),
        (19, 'tls_cert_issuer; content:"CN=Meerkat Test Intermediate";',
         lambda s: "CN=Meerkat Test Intermediate" in (x(s, "issuer") or ""), 1),
        (20, 'tls.cert_serial; content:"00:C0:FF:EE:12:34"; bsize:17;',
         lambda s: x(s, "serial") == 0xc0ffee1234, 1),
        (21, 'tls.cert_fingerprint; content:"%s";' % ec_fp,
         lambda s: x(s, "fingerprint") == ec_fp, 1),
        (22, 'tls.certs; content:"Meerkat Test Intermediate";',
         lambda s: any(b"Meerkat Test Intermediate" in c for c in s["certs"]), 1),
        (23, 'tls.certs; content:"|06 08 2a 86 48 ce 3d 03 01 07|";',
         lambda s: any(bytes.fromhex("06082a8648ce3d030107") in c for c in s["certs"]), 1),
        (24, 'ja3.hash; content:"%s";' % ja3, lambda s: s.get("ja3") == ja3, 0),
        (25, 'ja3_string; content:"771,"; startswith;',
         lambda s: (s.get("ja3_full") or "").startswith("771,"), 0),
        (26, 'ja3s.hash; content:"%s";' % ja3s, lambda s: s.get("ja3s") == ja3s, 0),
        (27, 'ja3s.string; content:"%s"; bsize:%d;' % (ja3s_full, len(ja3s_full)),
         lambda s: s.get("ja3s_full") == ja3s_full, 0),
        (28, 'ja4.hash; content:"t13d"; startswith;',
         lambda s: s.get("client_max") == 0x0304 and bool(s.get("sni")), 0),
        (29, "app-layer-event:tls.invalid_record_type;", lambda s: False, 0),
        (30, "app-layer-event:tls.error_message_encountered;", lambda s: s["alert"], 0),
        (31, 'flow:to_client; tls.sni; content:"www"; ssl_state:server_hello; tls.version:1.2;',
         lambda s: (s.get("sni") or "").startswith("www") and s.get("version") == 0x0303, 0),
        (32, 'tls.sni; content:"nomatch.example";', lambda s: False, 0),
    ]


def main():
    mode, pcap, path = sys.argv[1:4]
    ss = sessions(pcap)
    table = rules(ss)
    if mode == "rules":
        with open(path, "w") as f:
            for sid, text, _, _ in table:
                f.write('alert tls any any -> any any (msg:"tls rule %d"; %s sid:%d;)\n'
                        % (sid, text, sid))
        return 0
    alerts = [e for e in map(json.loads, open(path)) if e["event_type"] == "alert"]
    fired = 0
    for sid, text, want, cert in table:
        mine = [a for a in alerts if a["alert"]["signature_id"] == sid]
        ports = sorted(a["src_port"] if a["dest_port"] in SERVER_PORTS else a["dest_port"]
                       for a in mine)
        want_ports = sorted(p for p, s in ss.items() if want(s))
        fired += len(mine)
        check(ports == want_ports, "sid %d (%s): alerts on client ports %s, want %s"
              % (sid, text, ports, want_ports))
        for a in mine:
            port = a["src_port"] if a["dest_port"] in SERVER_PORTS else a["dest_port"]
            s, t = ss.get(port, {}), a.get("tls")
            if not check(t is not None and a.get("app_proto") == "tls",
                         "sid %d: alert without the tls object or app_proto" % sid):
                continue
            check(t.get("sni") == s.get("sni"), "sid %d: sni %s, tshark %s"
                  % (sid, t.get("sni"), s.get("sni")))
            if "version" in t and t["version"] != "UNDETERMINED":
                check(t["version"] == VERSIONS.get(s.get("version")),
                      "sid %d: version %s" % (sid, t["version"]))
            if cert:
                check(t.get("subject") == x(s, "subject") and
                      t.get("issuerdn") == x(s, "issuer") and
                      t.get("fingerprint") == x(s, "fingerprint"),
                      "sid %d: certificate fields %s" % (sid, t))
    print("%d tls rules, %d sessions, %d alerts: %s"
          % (len(table), len(ss), fired, "%d check(s) failed" % failures if failures
             else "each rule fired exactly where tshark says"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
