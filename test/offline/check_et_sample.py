#!/usr/bin/python3
"""The whole ET Open sample through `meerkat -T` (issue 20: at least 99.5 %
of the enabled rules load, the rest listed with their reasons, and every
loaded rule is one that can fire).

usage: check_et_sample.py MEERKAT RULES_DIR MIN_PERCENT
Skipped (77) when RULES_DIR holds no rules.

Checks, each printed:
- loaded + refused = the enabled rules of the files (counted here), one error
  line per refused rule naming file:line and sid;
- the share loaded is at least MIN_PERCENT (printed with the figure);
- the summary by reason after the totals: at most 21 lines, most frequent
  first, its counts add up to the refused rules, and each reason is the
  error of that many rules without their values;
- every loaded rule of an application protocol can fire: one reading its
  buffers (or an `alert PROTO` rule without payload keywords) is counted as
  a transaction rule of PROTO in the totals ("N transaction rules (http H,
  dns D, ...)"); an `alert PROTO` rule with payload keywords reads the flows
  meerkat recognises as PROTO; no rule mixing two protocols loads;
- a loaded rule checking a flowbit that no loaded rule sets (it cannot fire)
  has its flowbit named in the load log and is counted in the summary's
  "N loaded but cannot fire";
- no loaded rule reads a response buffer with `flow:to_server`.
"""
import collections
import glob
import os
import re
import subprocess
import sys

meerkat, d, floor = sys.argv[1], sys.argv[2], float(sys.argv[3])
files = sorted(glob.glob(os.path.join(d, "*.rules")))
if not files:
    # a git worktree lies one level deeper than the checkout it belongs to
    alt = os.path.normpath(os.path.join(d, "..", "..", "..", "..", "shared", "rules",
                                        "et-open-sample"))
    files = sorted(glob.glob(os.path.join(alt, "*.rules")))
if not files:
    print("skipped: no ET Open sample (*.rules) at %s" % d)
    sys.exit(77)

# buffers and keywords by application protocol, as meerkat names them in its totals
PROTO_OF_HEADER = {"http": "http", "http1": "http", "dns": "dns", "tls": "tls", "ssl": "tls"}
PROTO_PREFIXES = [
    ("http", re.compile(r"^(http[._]|file[._]data$|uricontent$|urilen$)")),  # and pcre flags
    ("dns", re.compile(r"^dns[._]")),
    ("tls", re.compile(r"^(tls[._]|ssl[._]|ja3s?[._]|ja4[._])")),
    ("ssh", re.compile(r"^(ssh[._]|hassh)")),
    ("smtp", re.compile(r"^smtp[._]")),
    ("ftp", re.compile(r"^(ftp[._]|ftpbounce$|ftpdata_)")),
    ("smb", re.compile(r"^smb[._]")),
]
TRANSPORTS = ("tcp", "udp", "ip", "icmp", "tcp-pkt", "tcp-stream", "icmpv6", "ipv6", "ipv4",
              "pkthdr")
# keywords that read a buffer (meerkat: the rule has payload keywords)
PAYLOAD_KW = {"content", "pcre", "byte_test", "byte_jump", "byte_extract", "byte_math",
              "isdataat", "bsize", "uricontent", "base64_data", "base64_decode"}
# response buffers (file.data follows the rule's direction)
TO_CLIENT_ONLY = re.compile(r"^(http[._](stat_code|stat_msg|response_line|server|location|"
                            r"response_body)|http_server_body|http_stat_(code|msg)|"
                            r"ja3s[._]|tls[._]cert|tls_cert)")


def split_options(body):
    """(keyword, value) of each option; ';' escaped with '\\' stays in the value."""
    opts, cur, i = [], "", 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            cur += body[i:i + 2]
            i += 2
            continue
        if c == ";":
            opts.append(cur)
            cur = ""
        else:
            cur += c
        i += 1
    out = []
    for o in opts:
        k, _, v = o.partition(":")
        if k.strip():
            out.append((k.strip(), v.strip()))
    return out


def read_rules(path):
    """The enabled rules of a file: (line, header tokens, options), as meerkat reads lines."""
    rules, acc, start = [], "", 0
    with open(path, errors="replace") as f:
        for no, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            cont = line.endswith("\\")
            if cont:
                line = line[:-1]
            if not acc:
                t = line.strip()
                if not t or t.startswith("#"):
                    continue
                start = no
            acc += line
            if cont:
                continue
            text, acc = acc.strip(), ""
            head, _, rest = text.partition("(")
            rules.append((start, head.split(), split_options(rest.rstrip().rstrip(")"))))
    return rules


enabled = {}
for f in files:
    for line, head, opts in read_rules(f):
        enabled[(f, line)] = (head, opts)

args = [meerkat, "-T", "-c", "/dev/null"]
for f in files:
    args += ["-S", f]
r = subprocess.run(args, capture_output=True, text=True)
out, err = r.stdout, r.stderr
failures = []


def check(ok, what):
    print("%s: %s" % ("ok" if ok else "FAILED", what))
    if not ok:
        failures.append(what)


m = re.search(r"^rules: (\d+) rules loaded from (\d+) file\(s\), (\d+) failed", out, re.M)
if not m:
    print(out + err)
    print("FAILED: no totals line from meerkat -T")
    sys.exit(1)
loaded, nfiles, failed = int(m.group(1)), int(m.group(2)), int(m.group(3))
totals = out[m.start():].splitlines()[0]
print(totals)

# refused rules: one error line each, naming file:line and sid
refused = {}
for e in re.finditer(r"^meerkat: error: (\S+?):(\d+): (sid (\d+): )?(.*)$", err, re.M):
    refused[(e.group(1), int(e.group(2)))] = (e.group(4), e.group(5))
print("refused rules (%d):" % len(refused))
for (f, line), (sid, why) in sorted(refused.items()):
    print("  %s:%d: sid %s: %s" % (os.path.basename(f), line, sid, why))
check(nfiles == len(files), "%d rule files read (%d given)" % (nfiles, len(files)))
check(loaded + failed == len(enabled),
      "loaded %d + refused %d = %d enabled rules in the files" % (loaded, failed, len(enabled)))
check(len(refused) == failed and all(k in enabled for k in refused),
      "one error line per refused rule, naming an enabled rule's file:line (%d lines)" %
      len(refused))
check(all(sid for sid, _ in refused.values()), "every error line names the sid")

share = 100.0 * loaded / len(enabled) if enabled else 0.0
check(share >= floor, "%d of %d enabled rules load: %.2f %% (at least %.2f %%)" %
      (loaded, len(enabled), share, floor))

# the summary by reason, after the totals
summary = re.findall(r"^rules: (\d+) refused: (.*)$", out, re.M)
more = re.findall(r"^rules: (\d+) refused for (?:at least )?(\d+) more reasons?$", out, re.M)
print("summary by reason (%d lines%s):" % (len(summary), ", and more" if more else ""))
for n, why in summary:
    print("  %s refused: %s" % (n, why))
counts = [int(n) for n, _ in summary]
check(len(summary) <= 20 and len(more) <= 1, "at most 20 reason lines and one for the rest")
check(counts == sorted(counts, reverse=True), "most frequent first")
check(sum(counts) + sum(int(n) for n, _ in more) == failed,
      "the summary accounts for all %d refused rules" % failed)


def without_values(why):
    """As meerkat's summary (refusals.c): names and limits kept, values out."""
    why = re.sub(r"(?<!keyword )(?<!protocol )'([^']*[A-Za-z0-9][^']*)'", "'...'", why)
    return re.sub(r"(?<![A-Za-z0-9_\[])(?<!above )(?<!below )(?<!than )(?<!most )(?<!least )"
                  r"(?<!, )\d+(\.\d+)*(?![A-Za-z_])", "N", why)


grouped = collections.Counter(without_values(why) for _, why in refused.values())
check(all(grouped.get(why) == int(n) for n, why in summary),
      "each summary line counts the error lines of its reason")
check(not any(re.search(r"\bsid \d", why) for _, why in summary), "no sid in the summary")

# Every loaded rule of an application protocol can fire: one reading its
# buffers (or urilen), or an `alert PROTO` rule without payload keywords, is a
# transaction rule of PROTO and counted as such in the totals; an `alert PROTO`
# rule with payload keywords reads the packets and stream of the flows
# recognised as PROTO, which meerkat must then recognise.
tx = re.search(r"(\d+) transaction rules(?: \(([^)]*)\))?", totals)
tx_by = collections.Counter()
if tx and tx.group(2):
    for part in tx.group(2).split(", "):
        name, n = part.rsplit(" ", 1)
        tx_by[name] = int(n)
want, gated = collections.Counter(), collections.Counter()
mixed = []
for key, (head, opts) in sorted(enabled.items()):
    if key in refused:
        continue
    hp = head[1].lower() if len(head) > 1 else ""
    by_head = PROTO_OF_HEADER.get(hp) or (hp if hp not in TRANSPORTS else None)
    by_kw = {name for k, _ in opts for name, rx in PROTO_PREFIXES if rx.search(k)}
    if any(k == "pcre" and re.search(r"/[A-Za-z]*[UIPQHDMCSYVWZ][A-Za-z]*\"?\s*$", v)
           for k, v in opts):
        by_kw.add("http")  # pcre's HTTP buffer flags (docs/rules.md)
    protos = by_kw | ({by_head} if by_head else set())
    if len(protos) > 1:
        mixed.append((key, sorted(protos)))
    elif by_kw or (by_head and not any(k in PAYLOAD_KW for k, _ in opts)):
        want[protos.pop()] += 1
    elif by_head:
        gated[by_head] += 1
print("loaded transaction rules by protocol: %s; the totals say: %s" %
      (dict(sorted(want.items())), dict(sorted(tx_by.items()))))
print("loaded payload rules on a protocol's flows: %s" % dict(sorted(gated.items())))
check(not mixed, "no loaded rule mixes protocols %s" % mixed[:5])
check(want == tx_by, "each protocol's loaded transaction rules are counted as its own")
check(sum(tx_by.values()) == (int(tx.group(1)) if tx else 0),
      "the transaction rules add up to the protocols' counts")


def recognised(proto):
    """meerkat tells flows of this protocol apart (app-layer-protocol loads)."""
    rule = "alert tcp any any -> any any (app-layer-protocol:%s; sid:1;)\n" % proto
    p = subprocess.run([meerkat, "-T", "-c", "/dev/null", "-S", "/dev/stdin"], input=rule,
                       capture_output=True, text=True)
    return p.returncode == 0


unknown = [p for p in gated if p not in tx_by and not recognised(p)]
check(not unknown, "the flows of every protocol with payload rules are recognised %s" % unknown)

# flowbits checked that no loaded rule sets: such a rule could never fire
sets, checks = set(), collections.defaultdict(list)
for key, (head, opts) in enabled.items():
    if key in refused:
        continue
    for k, v in opts:
        if k != "flowbits":
            continue
        op, _, names = v.partition(",")
        names = [n.strip() for n in re.split(r"[|&]", names) if n.strip()]
        if op.strip() in ("set", "toggle"):
            sets.update(names)
        elif op.strip() == "isset":
            for n in names:
                checks[n].append(key)
never = {n: ks for n, ks in checks.items() if n not in sets}
named = set(re.findall(r"flowbit '([^']+)' is checked but no rule sets it", err))
for n, ks in sorted(never.items()):
    print("  flowbit %s: checked by %s, set by no loaded rule" %
          (n, ", ".join("%s:%d" % (os.path.basename(f), line) for f, line in ks)))
check(set(never) <= named,
      "%d flowbit(s) checked but never set, each named in the load log (%s)" %
      (len(never), ", ".join(sorted(set(never) - named)) or "all named"))
dead_rules = {k for ks in never.values() for k in ks}
dead = re.search(r"^rules: (\d+) loaded but cannot fire", out, re.M)
check((int(dead.group(1)) if dead else 0) == len(dead_rules),
      "the summary counts the %d loaded rules that cannot fire" % len(dead_rules))

# a response buffer in a flow:to_server rule could never match (meerkat refuses it)
wrong_way = []
for key, (head, opts) in enabled.items():
    if key in refused:
        continue
    flow = ",".join(v for k, v in opts if k == "flow").replace(" ", "")
    if re.search(r"(^|,)(to_server|from_client)(,|$)", flow):
        wrong_way += ["%s:%d %s with flow:%s" % (os.path.basename(key[0]), key[1], k, flow)
                      for k, _ in opts if TO_CLIENT_ONLY.search(k)]
check(not wrong_way, "no loaded rule reads a response buffer in a to_server rule %s" %
      wrong_way[:5])

if failures:
    print("%d check(s) failed" % len(failures))
    sys.exit(1)
print("all checks passed")
