#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The configuration from the command line (meson suite 'offline').

usage: check_config.py MEERKAT SOURCE_ROOT WORKDIR

Checks `meerkat -T` (exit status, the one line it prints, errors from the
file and from the options), `--dump-config` (the options override the
file), that configs/meerkat.yaml sets exactly the keys meerkat knows, to
their built-in defaults, that docs/configuration.md documents each key, and
that configs/meerkat.service starts meerkat with the reference file.
"""
import os
import re
import shutil
import subprocess
import sys

import yaml

MEERKAT, ROOT, WORK = sys.argv[1:4]
REF = os.path.join(ROOT, "configs", "meerkat.yaml")
failures = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def meerkat(*args):
    return subprocess.run([MEERKAT, *args], capture_output=True, text=True, timeout=30)


def write(name, text):
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def dump_keys(text):
    """--dump-config lines as {key: value}"""
    out = {}
    for line in text.splitlines():
        key, sep, value = line.partition(" = ")
        check(sep and key not in out, "dump line %r" % line)
        out[key] = value
    return out


def yaml_paths(node, prefix=""):
    """Key paths of a YAML document as the dump names them: mappings nest,
    `outputs` is Suricata's list of one-key mappings, so is an event type
    with options in `types` (its options are keys), other lists are values."""
    if isinstance(node, dict):
        paths = set()
        for k, v in node.items():
            p = "%s.%s" % (prefix, k) if prefix else str(k)
            if k == "outputs" and not prefix:
                for item in v:
                    for name, sub in item.items():
                        paths |= yaml_paths(sub, "outputs." + name)
            elif isinstance(v, dict) and v:
                paths |= yaml_paths(v, p)
            else:
                paths.add(p)
                if k == "types" and isinstance(v, list):
                    for item in v:
                        if isinstance(item, dict):
                            for name, sub in item.items():
                                paths |= yaml_paths(sub, "%s.%s" % (p, name))
        return paths
    return {prefix}


os.makedirs(WORK, exist_ok=True)

# -T: exit 0 and one line on stdout
p = meerkat("-T", "-c", REF)
check(p.returncode == 0 and p.stdout == "configuration OK: %s\n" % REF and p.stderr == "",
      "-T on the reference: %d %r %r" % (p.returncode, p.stdout, p.stderr))
p = meerkat("-T")
check(p.returncode == 0 and p.stdout == "configuration OK: built-in defaults\n", "-T without -c: %r" % p.stdout)
p = meerkat("--test-config", "-c", REF, "--workers", "4", "-i", "eth0", "-i", "eth1", "-l", WORK)
check(p.returncode == 0, "-T with options: %r" % p.stderr)

# -T: non-zero and the one error line on stderr, nothing on stdout
cases = [
    ("bad_value.yaml", "flow:\n  prealloc: 100\nflow-timeouts:\n  tcp:\n    new: lots\n",
     "{f}:5:10: flow-timeouts.tcp.new: 'lots' is not a number in [0, 86400]"),
    ("unknown.yaml", "%YAML 1.1\n---\ncapture:\n  workers: 2\n  worker: 3\n", "{f}:5:3: capture.worker: unknown key"),
    ("syntax.yaml", "flow:\n  prealloc: 1\n bad\n",
     "{f}:3:2: YAML syntax error: did not find expected key (while parsing a block mapping at 1:1)"),
    ("type.yaml", "outputs:\n  eve-log: {}\n",
     "{f}:2:3: outputs: expected a list of outputs (- eve-log: ...), found a mapping"),
]
for name, text, want in cases:
    f = write(name, text)
    p = meerkat("-T", "-c", f)
    check(p.returncode == 1 and p.stdout == "" and p.stderr == "meerkat: error: %s\n" % want.format(f=f),
          "-T %s: %d %r" % (name, p.returncode, p.stderr))
p = meerkat("-T", "-c", os.path.join(WORK, "missing.yaml"))
check(p.returncode == 1 and p.stderr == "meerkat: error: %s: No such file or directory\n"
      % os.path.join(WORK, "missing.yaml"), "-T on a missing file: %r" % p.stderr)
for args, want in ((["--workers", "0"], "--workers: '0' is not a number in [1, 64]"),
                   (["-i", "a/b"], "-i: 'a/b' is not an interface name (1 to 15 bytes, no '/', ':' or space)"),
                   (["-i", "a", "-i", "a"], "-i: 'a' is listed twice"),
                   (["--unix-socket", "/" + "s" * 120], "--unix-socket: '/%s...' is longer than 107 bytes" % ("s" * 47))):
    p = meerkat("-T", "-c", REF, *args)
    check(p.returncode == 1 and p.stderr == "meerkat: error: %s\n" % want, "-T %s: %r" % (args, p.stderr))
# too many -i is a usage error of the option parser
p = meerkat("-T", "-i", "a", "-i", "b", "-i", "c", "-i", "d", "-i", "e")
check(p.returncode == 2 and p.stderr.startswith("meerkat: error: --interface: at most 4\n"), "five -i: %r" % p.stderr)
# an error in the file is reported before the options are looked at
p = meerkat("-T", "-c", os.path.join(WORK, "unknown.yaml"), "--workers", "0")
check("capture.worker: unknown key" in p.stderr and "--workers" not in p.stderr, "file first: %r" % p.stderr)

# --dump-config: defaults, the reference file, the options over the file
defaults = meerkat("--dump-config")
check(defaults.returncode == 0, "--dump-config")
ref = meerkat("--dump-config", "-c", REF)
check(ref.returncode == 0 and ref.stdout == defaults.stdout,
      "configs/meerkat.yaml is not the built-in defaults:\n" +
      "\n".join(sorted(set(ref.stdout.splitlines()) ^ set(defaults.stdout.splitlines()))))
f = write("over.yaml", "capture:\n  workers: 8\n  interfaces:\n    - interface: eth1\n      queues: 2\n"
          "default-log-dir: /var/x\n")
got = dump_keys(meerkat("--dump-config", "-c", f).stdout)
check(got.get("capture.workers") == "8" and got.get("default-log-dir") == "/var/x", "file values: %r" % got)
got = dump_keys(meerkat("--dump-config", "-c", f, "--workers", "3", "-i", "eth1", "-i", "eth2",
                        "-l", "/tmp/l", "--unix-socket", "/tmp/s.sock").stdout)
check(got.get("capture.control-socket") == "/tmp/s.sock", "--unix-socket overrides: %r"
      % got.get("capture.control-socket"))
check(got.get("capture.workers") == "3", "--workers overrides: %r" % got.get("capture.workers"))
check(got.get("capture.interfaces") == "[{interface: eth1, queues: 2}, {interface: eth2, queues: 0}]",
      "-i overrides: %r" % got.get("capture.interfaces"))
check(got.get("default-log-dir") == "/tmp/l", "-l overrides: %r" % got.get("default-log-dir"))

# the reference file sets every key meerkat knows and no other
keys = set(dump_keys(defaults.stdout))
with open(REF) as fh:
    ref_paths = yaml_paths(yaml.safe_load(fh))
check(keys - ref_paths == set(), "keys missing from configs/meerkat.yaml: %s" % sorted(keys - ref_paths))
check(ref_paths - keys == set(), "configs/meerkat.yaml sets unknown keys: %s" % sorted(ref_paths - keys))

# docs/configuration.md documents every key (variables by their group)
with open(os.path.join(ROOT, "docs", "configuration.md")) as fh:
    doc = fh.read()
documented = set(re.findall(r"`([a-z][a-z0-9.-]*)`", doc))
for k in sorted(keys):
    k = re.sub(r"^(vars\.(address|port)-groups)\..*", r"\1", k)
    check(k in documented, "docs/configuration.md does not document `%s`" % k)

# --help names -T and --dump-config
p = meerkat("--help")
check("-T, --test-config" in p.stdout and "--dump-config" in p.stdout, "--help: %r" % p.stdout)

# the systemd unit runs the installed binary on /etc/meerkat/meerkat.yaml, checked first
with open(os.path.join(ROOT, "configs", "meerkat.service")) as fh:
    unit = fh.read()
for line in ("ExecStartPre=/usr/local/bin/meerkat -T -c /etc/meerkat/meerkat.yaml",
             "ExecStart=/usr/local/bin/meerkat -c /etc/meerkat/meerkat.yaml",
             "ExecReload=/bin/kill -HUP $MAINPID", "Type=simple", "Restart=on-failure"):
    check(line in unit.splitlines(), "meerkat.service: no line %r" % line)
caps = "CAP_NET_ADMIN CAP_BPF CAP_NET_RAW CAP_SYS_ADMIN CAP_PERFMON CAP_IPC_LOCK"
check("AmbientCapabilities=" + caps in unit and "CapabilityBoundingSet=" + caps in unit,
      "meerkat.service capabilities")
if shutil.which("systemd-analyze"):
    # the unit's syntax; the binary path is the installed one, so that complaint is expected
    p = subprocess.run(["systemd-analyze", "verify", os.path.join(ROOT, "configs", "meerkat.service")],
                       capture_output=True, text=True)
    bad = [line for line in p.stderr.splitlines() if line.strip() and "/usr/local/bin/meerkat" not in line]
    check(not bad, "systemd-analyze verify: %s" % bad)

print("%d checks, %d failed" % (checks, len(failures)))
sys.exit(1 if failures else 0)
