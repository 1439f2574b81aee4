#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""meerkat's `tls` events against tshark and openssl on the same capture.

Usage: check_tls_e2e.py PCAP EVE_JSON SESSIONS

One `tls` event per TLS session tshark finds (SESSIONS of them), matched by
the client's port. Compared with tshark: sni, the JA3 string and hash of
the ClientHello, the JA3S string and hash of the ServerHello, the version
the server chose (its supported_versions, else its hello's). The server
certificate tshark extracts (TLS 1.2 and earlier) is read by `openssl
x509`: subject, issuer, serial, SHA-1 fingerprint, notBefore and notAfter
must equal meerkat's subject, issuerdn, serial, fingerprint, notbefore and
notafter; a TLS 1.3 session has none of them. ja4 must have the JA4 shape
and its first part must agree with tshark's ClientHello (version, SNI,
counts, ALPN).
"""
import datetime
import json
import re
import subprocess
import sys
import tempfile

PCAP, EVE, WANT = sys.argv[1], sys.argv[2], int(sys.argv[3])
failures = 0
VERSIONS = {0x0300: "SSLv3", 0x0301: "TLS 1.0", 0x0302: "TLS 1.1", 0x0303: "TLS 1.2",
            0x0304: "TLS 1.3"}


def check(ok, what):
    global failures
    if not ok:
        print("FAIL: %s" % what)
        failures += 1
    return ok


FIELDS = ["tcp.srcport", "tcp.dstport", "tls.handshake.type", "tls.handshake.extensions_server_name",
          "tls.handshake.ja3", "tls.handshake.ja3_full", "tls.handshake.ja3s",
          "tls.handshake.ja3s_full", "tls.handshake.version",
          "tls.handshake.extensions.supported_version", "tls.handshake.certificate",
          "tls.handshake.ciphersuite", "tls.handshake.extension.type",
          "tls.handshake.extensions_alpn_str"]


def tshark():
    cmd = ["tshark", "-r", PCAP, "-Y", "tls.handshake.type == 1 || tls.handshake.type == 2 || "
           "tls.handshake.type == 11", "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=|"]
    for f in FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    sessions = {}
    for line in out.splitlines():
        v = dict(zip(FIELDS, line.split("\t")))
        types = v["tls.handshake.type"].split("|")
        sport, dport = int(v["tcp.srcport"]), int(v["tcp.dstport"])
        if "1" in types:
            s = sessions.setdefault(sport, {})
            s["sni"] = v["tls.handshake.extensions_server_name"] or None
            s["ja3"], s["ja3_full"] = v["tls.handshake.ja3"], v["tls.handshake.ja3_full"]
            sv = [int(x, 16) for x in v["tls.handshake.extensions.supported_version"].split("|") if x]
            s["client_max"] = max([x for x in sv if (x & 0x0f0f) != 0x0a0a] or
                                  [int(v["tls.handshake.version"].split("|")[0], 16)])
            s["nciphers"] = len([c for c in v["tls.handshake.ciphersuite"].split("|") if c])
            s["nexts"] = len([e for e in v["tls.handshake.extension.type"].split("|") if e])
            s["alpn"] = v["tls.handshake.extensions_alpn_str"].split("|")[0] or None
        if "2" in types or "11" in types:
            s = sessions.setdefault(dport, {})
        if "2" in types:
            s["ja3s"], s["ja3s_full"] = v["tls.handshake.ja3s"], v["tls.handshake.ja3s_full"]
            sv = v["tls.handshake.extensions.supported_version"]
            s["version"] = int(sv.split("|")[0], 16) if sv else \
                int(v["tls.handshake.version"].split("|")[0], 16)
        if "11" in types and v["tls.handshake.certificate"]:
            s["cert"] = v["tls.handshake.certificate"].split("|")[0].replace(":", "")
    return sessions


def openssl_fields(der_hex):
    with tempfile.NamedTemporaryFile(suffix=".der") as f:
        f.write(bytes.fromhex(der_hex))
        f.flush()
        out = subprocess.run(["openssl", "x509", "-inform", "der", "-noout", "-subject", "-issuer",
                              "-serial", "-fingerprint", "-sha1", "-startdate", "-enddate",
                              "-nameopt", "sep_comma_plus_space,sname,utf8,-esc_msb", "-in", f.name],
                             check=True, capture_output=True, text=True).stdout
    r = {}
    for line in out.splitlines():
        k, _, v = line.partition("=")
        r[k.strip()] = v.strip()

    def when(s):
        return datetime.datetime.strptime(s, "%b %d %H:%M:%S %Y %Z").strftime("%Y-%m-%dT%H:%M:%S")

    return {"subject": r["subject"], "issuerdn": r["issuer"],
            "serial_int": int(r["serial"], 16),
            "fingerprint": r["sha1 Fingerprint"].lower(),
            "notbefore": when(r["notBefore"]), "notafter": when(r["notAfter"])}


def main():
    sessions = tshark()
    events = [json.loads(l) for l in open(EVE)]
    tls = {e["src_port"]: e for e in events if e["event_type"] == "tls"}
    check(len(sessions) == WANT, "tshark sees %d TLS sessions, the test made %d" % (len(sessions), WANT))
    check(len(tls) == len(sessions), "%d tls events for %d sessions" % (len(tls), len(sessions)))
    for port, s in sorted(sessions.items()):
        e = tls.get(port)
        what = "session from port %d" % port
        if not check(e is not None, "%s: no tls event" % what):
            continue
        t = e["tls"]
        check(t.get("sni") == s.get("sni"), "%s: sni %s, tshark %s" % (what, t.get("sni"), s.get("sni")))
        check(t["ja3"]["string"] == s["ja3_full"] and t["ja3"]["hash"] == s["ja3"],
              "%s: ja3 %s, tshark %s %s" % (what, t["ja3"], s["ja3"], s["ja3_full"]))
        check(t["ja3s"]["string"] == s["ja3s_full"] and t["ja3s"]["hash"] == s["ja3s"],
              "%s: ja3s %s, tshark %s %s" % (what, t["ja3s"], s["ja3s"], s["ja3s_full"]))
        check(t["version"] == VERSIONS[s["version"]], "%s: version %s, tshark %#x"
              % (what, t["version"], s["version"]))
        m = re.fullmatch(r"t(\d\d)([di])(\d\d)(\d\d)(..)_([0-9a-f]{12})_([0-9a-f]{12})", t["ja4"])
        if check(m is not None, "%s: ja4 %s" % (what, t["ja4"])):
            vmap = {0x0304: "13", 0x0303: "12", 0x0302: "11", 0x0301: "10"}
            want = (vmap[s["client_max"]], "d" if s.get("sni") else "i", "%02d" % s["nciphers"],
                    "%02d" % s["nexts"],
                    (s["alpn"][0] + s["alpn"][-1]) if s.get("alpn") else "00")
            check(m.groups()[:5] == want, "%s: ja4 %s, want %s from tshark" % (what, t["ja4"], want))
        if "cert" in s:
            o = openssl_fields(s["cert"])
            for k in ("subject", "issuerdn", "fingerprint", "notbefore", "notafter"):
                check(t.get(k) == o[k], "%s: %s %r, openssl %r" % (what, k, t.get(k), o[k]))
            check(int(t.get("serial", "0").replace(":", ""), 16) == o["serial_int"] and
                  re.fullmatch(r"[0-9A-F]{2}(:[0-9A-F]{2})*", t.get("serial", "")),
                  "%s: serial %s, openssl %x" % (what, t.get("serial"), o["serial_int"]))
        else:
            check("subject" not in t and "fingerprint" not in t,
                  "%s: no certificate in the clear, none in the event" % what)
    certs = sum(1 for s in sessions.values() if "cert" in s)
    v13 = sum(1 for s in sessions.values() if s.get("version") == 0x0304)
    check(certs >= 3 and v13 >= 2, "the capture has certificates (%d) and TLS 1.3 (%d)" % (certs, v13))
    print("%d sessions, %d with a certificate, %d TLS 1.3: %s" % (
        len(sessions), certs, v13, "%d check(s) failed" % failures if failures else "all match"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
