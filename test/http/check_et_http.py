#!/usr/bin/python3
"""The ET Open sample's HTTP rules through `meerkat -T`: how many load as
HTTP transaction rules (at least FLOOR) and why the others are refused.

usage: check_et_http.py MEERKAT RULES_DIR
Skipped (77) when RULES_DIR is absent.
"""
import collections
import glob
import os
import re
import subprocess
import sys

# 1708 before bsize, transforms, the pcre buffer flags, http.start/accept_enc/
# accept_lang/connection and stream payload in HTTP rules; 1834 with them; 1836
# with xbits: every HTTP rule of the sample. An `alert dns` rule whose text holds
# "servehttp" is not one.
FLOOR = 1836
meerkat, d = sys.argv[1:3]
files = sorted(glob.glob(os.path.join(d, "*.rules")))
if not files:
    # a git worktree lies one level deeper than the checkout it belongs to
    alt = os.path.normpath(os.path.join(d, "..", "..", "..", "..", "shared", "rules",
                                        "et-open-sample"))
    files = sorted(glob.glob(os.path.join(alt, "*.rules")))
if not files:
    print("skipped: no ET Open sample at %s" % d)
    sys.exit(77)
args = [meerkat, "-T", "-c", "/dev/null"]
for f in files:
    args += ["-S", f]
r = subprocess.run(args, capture_output=True, text=True)
out = r.stdout + r.stderr
m = re.search(r"\d+ transaction rules \([^)]*\bhttp (\d+)", out)
loaded = int(m.group(1)) if m else 0
http = re.compile(r"^\S+\s+http\s|http[._]|file[._]data|uricontent|urilen")
reasons = collections.Counter()
lines = {}
for e in re.finditer(r"error: (\S+?):(\d+): (.*)", out):
    path, line, why = e.group(1), int(e.group(2)), e.group(3)
    if path not in lines:
        lines[path] = open(path, errors="replace").read().splitlines()
    text = lines[path][line - 1] if line <= len(lines[path]) else ""
    if not http.search(text) or re.match(r"^\S+\s+(dns|tls)\s", text):
        continue
    # the keyword and the reason, without values
    why = re.sub(r"^sid \d+: ", "", why)
    why = re.sub(r"'([^']*)'", lambda k: "'%s'" % k.group(1) if k.group(1).isidentifier() or "." in k.group(1) else "'...'", why)
    reasons[why] += 1
print("HTTP rules loaded: %d (floor %d); HTTP rules refused: %d" %
      (loaded, FLOOR, sum(reasons.values())))
for why, n in reasons.most_common():
    print("%6d  %s" % (n, why))
# every HTTP rule loads (the refused ones are listed above with their reasons)
sys.exit(0 if loaded >= FLOOR and not reasons else 1)
