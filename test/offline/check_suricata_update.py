#!/usr/bin/python3
"""The README's way of loading an ET Open ruleset fetched with suricata-update,
without a network: the sample packed as the ET tarball (rules/*.rules,
classification.config), `suricata-update --url file://...` in a network
namespace of its own (root) or with unreachable proxies, then
`meerkat -T -S DIR/suricata.rules`: every enabled rule of suricata.rules is
loaded or refused with a reason, at least MIN_PERCENT load.

usage: check_suricata_update.py MEERKAT RULES_DIR MIN_PERCENT WORKDIR
Skipped (77) without suricata-update or without the sample.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tarfile

meerkat, d, floor, work = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
su = shutil.which("suricata-update")
if not su:
    print("skipped: suricata-update is not installed (Debian package suricata-update)")
    sys.exit(77)
files = sorted(glob.glob(os.path.join(d, "*.rules")))
if not files:
    alt = os.path.normpath(os.path.join(d, "..", "..", "..", "..", "shared", "rules",
                                        "et-open-sample"))
    d, files = alt, sorted(glob.glob(os.path.join(alt, "*.rules")))
if not files:
    print("skipped: no ET Open sample (*.rules) at %s" % d)
    sys.exit(77)

shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
tarball = os.path.join(work, "emerging.rules.tar.gz")
with tarfile.open(tarball, "w:gz") as t:
    for f in files + glob.glob(os.path.join(d, "*.config")):
        t.add(f, arcname="rules/" + os.path.basename(f))

out = os.path.join(work, "rules")
# the README's command ("Loading an ET Open ruleset")
cmd = [su, "update", "--no-test", "--no-reload", "--suricata-version", "7.0.0", "-c", "/dev/null",
       "-D", os.path.join(work, "data"), "--url", "file://" + tarball, "-o", out]
# no network: a namespace without one when root, else proxies nobody answers on
env = dict(os.environ, http_proxy="http://127.0.0.1:9", https_proxy="http://127.0.0.1:9")
if os.geteuid() == 0 and shutil.which("unshare"):
    cmd = ["unshare", "--net"] + cmd
print("$ " + " ".join(cmd))
r = subprocess.run(cmd, capture_output=True, text=True, env=env)
log = r.stdout + r.stderr
print(log.rstrip())
failures = []


def check(ok, what):
    print("%s: %s" % ("ok" if ok else "FAILED", what))
    if not ok:
        failures.append(what)


merged = os.path.join(out, "suricata.rules")
check(r.returncode == 0 and os.path.exists(merged),
      "suricata-update wrote %s (exit %d)" % (merged, r.returncode))
if failures:
    sys.exit(1)
check("Fetching file://" in log and not re.search(r"Fetching https?://", log),
      "it read the tarball and fetched nothing else")
m = re.search(r"enabled: (\d+)", log)
enabled = sum(1 for line in open(merged, errors="replace")
              if line.strip() and not line.lstrip().startswith("#"))
check(m and int(m.group(1)) == enabled,
      "suricata.rules holds the %d enabled rules suricata-update reported" % enabled)

r = subprocess.run([meerkat, "-T", "-S", merged], capture_output=True, text=True)
print(r.stdout.rstrip())
m = re.search(r"^rules: (\d+) rules loaded from 1 file\(s\), (\d+) failed", r.stdout, re.M)
check(m is not None, "meerkat -T printed its totals")
if failures:
    sys.exit(1)
loaded, failed = int(m.group(1)), int(m.group(2))
errors = re.findall(r"^meerkat: error: .*suricata\.rules:\d+: sid \d+: .*$", r.stderr, re.M)
check(loaded + failed == enabled, "loaded %d + refused %d = %d" % (loaded, failed, enabled))
check(len(errors) == failed, "one error line (file:line, sid, reason) per refused rule")
check(r.returncode == (1 if failed else 0), "meerkat -T exits %d" % r.returncode)
share = 100.0 * loaded / enabled
check(share >= floor, "%d of %d rules load: %.2f %% (at least %.2f %%)" %
      (loaded, enabled, share, floor))
if failures:
    print("%d check(s) failed" % len(failures))
    sys.exit(1)
print("all checks passed")
