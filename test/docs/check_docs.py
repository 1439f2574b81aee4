#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The documentation, executed (meson suite 'docs').

usage: check_docs.py MEERKAT MEERKATCTL SOURCE_ROOT WORKDIR

Reads README.md and docs/*.md and checks three things against the built
binaries, so that a page cannot name what the programs do not have:

1. YAML examples. Every fenced block opened with ```yaml is written to a
   file and given to `meerkat -T -c FILE`, which must exit 0. A block is a
   configuration file or a fragment of one (a top-level section such as
   `outputs:` or `decoder:`); fragments are valid files as they are, since
   every key is optional. A block that shows a mistake on purpose is opened
   with ```yaml invalid instead: `meerkat -T` must then exit 1 with one
   `meerkat: error:` line. No other convention exists.

2. Configuration keys. Every markdown table whose header has a `key`
   column (the key tables of docs/configuration.md, and any other page's,
   e.g. docs/tunnels.md) is read: each backticked key in a `key` cell is
   set, alone, to the value of its `default` cell in a file of its own, and
   `meerkat -T -c FILE` must accept it. An unknown key is refused by the
   loader, so a key the code does not have fails here. Where the default is
   not a literal (the variable groups), a valid value of the key's type is
   used (SAMPLE below).

3. meerkatctl commands. Every `meerkatctl WORD` in the pages (code spans,
   code blocks, text) must be a command `meerkatctl --help` lists, or one
   of its global options.

Exit status 0 when everything holds, 1 otherwise (each failure printed).
"""
import glob
import os
import re
import subprocess
import sys

MEERKAT, MEERKATCTL, ROOT, WORK = sys.argv[1:5]
os.makedirs(WORK, exist_ok=True)

# Keys whose documented default is prose, not a value: a valid value instead.
SAMPLE = {
    "vars.address-groups": 'vars:\n  address-groups:\n    HOME_NET: "[10.0.0.0/8]"\n',
    "vars.port-groups": 'vars:\n  port-groups:\n    HTTP_PORTS: "80"\n',
}

failures = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def pages():
    paths = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    for path in paths:
        with open(path) as f:
            yield os.path.relpath(path, ROOT), f.read()


def meerkat_test(name, text):
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        f.write(text)
    return subprocess.run([MEERKAT, "-T", "-c", path], capture_output=True, text=True, timeout=60)


# ---- 1. YAML examples ------------------------------------------------------
FENCE = re.compile(r"^```yaml([^\n]*)\n(.*?)^```", re.M | re.S)
n_yaml = 0
for page, text in pages():
    for m in FENCE.finditer(text):
        n_yaml += 1
        line = text.count("\n", 0, m.start()) + 1
        info = m.group(1).strip()
        what = "%s:%d: yaml example" % (page, line)
        check(info in ("", "invalid"), "%s: unknown fence info %r (```yaml or ```yaml invalid)" % (what, info))
        name = "example_%s_%d.yaml" % (re.sub(r"\W", "_", page), line)
        p = meerkat_test(name, m.group(2))
        if info == "invalid":
            check(p.returncode == 1 and p.stderr.startswith("meerkat: error:") and p.stderr.count("\n") == 1,
                  "%s (marked invalid) is not refused with one error line: %d %r" % (what, p.returncode, p.stderr))
        else:
            check(p.returncode == 0, "%s: meerkat -T refuses it: %s" % (what, p.stderr.strip()))

# ---- 2. every key of every key table -----------------------------------------
CELL_KEY = re.compile(r"`([a-z][a-z0-9-]*(?:\.[a-z0-9][a-z0-9-]*)+)`")


def cells(row):
    return [c.strip() for c in row.strip().strip("|").split("|")]


def default_value(cell):
    """The first code span of a default cell, else its first word."""
    m = re.search(r"`([^`]*)`", cell)
    if m:
        return m.group(1)
    words = cell.split()
    return words[0] if words else ""


def yaml_for(key, value):
    """A configuration file setting KEY (dotted path) to VALUE (YAML text)."""
    if key in SAMPLE:
        return SAMPLE[key]
    parts = key.split(".")
    if parts[:2] == ["outputs", "eve-log"]:
        rest = parts[2:]
        if len(rest) >= 3 and rest[0] == "types":
            # an event type with options: types: [ {alert: {payload: no}} ]
            return "outputs:\n  - eve-log:\n      types:\n        - %s:\n            %s: %s\n" % (
                rest[1], ".".join(rest[2:]), value)
        out, ind = "outputs:\n  - eve-log:\n", "      "
        if len(rest) >= 2 and rest[0] in ("redis", "kafka"):
            # a transport's setting needs its filetype
            out += "%sfiletype: %s\n" % (ind, rest[0])
        for p in rest[:-1]:
            out += "%s%s:\n" % (ind, p)
            ind += "  "
        return out + "%s%s: %s\n" % (ind, rest[-1], value)
    out, ind = "", ""
    for p in parts[:-1]:
        out += "%s%s:\n" % (ind, p)
        ind += "  "
    return out + "%s%s: %s\n" % (ind, parts[-1], value)


n_keys = 0
for page, text in pages():
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        head = cells(lines[i]) if lines[i].startswith("|") else []
        if "key" not in head or i + 1 >= len(lines) or not lines[i + 1].startswith("|---"):
            i += 1
            continue
        pairs = [(k, k + 1 if k + 1 < len(head) and head[k + 1] == "default" else
                  (head.index("default") if "default" in head else None))
                 for k, h in enumerate(head) if h == "key"]
        i += 2
        while i < len(lines) and lines[i].startswith("|"):
            row = cells(lines[i])
            for kcol, dcol in pairs:
                if kcol >= len(row):
                    continue
                value = default_value(row[dcol]) if dcol is not None and dcol < len(row) else ""
                if value in ("", '""'):
                    value = '""'
                elif not re.match(r"^[\[{]", value):
                    value = '"%s"' % value if value.startswith(("*", "&", "!", "%", "@")) else value
                for key in CELL_KEY.findall(row[kcol]):
                    n_keys += 1
                    p = meerkat_test("key_%s.yaml" % key, yaml_for(key, value))
                    check(p.returncode == 0, "%s:%d: `%s` (set to %s) is refused: %s"
                          % (page, i + 1, key, value, p.stderr.strip()))
            i += 1

check(n_keys > 0, "no key table found (a `| key | ... | default |` header) in the pages")

# ---- 3. meerkatctl commands -----------------------------------------------
h = subprocess.run([MEERKATCTL, "--help"], capture_output=True, text=True, timeout=30)
check(h.returncode == 0, "meerkatctl --help exits %d" % h.returncode)
commands = set()
in_cmds = False
for line in h.stdout.splitlines():
    if line.startswith("Commands:"):
        in_cmds = True
    elif in_cmds and re.match(r"^  [a-z]", line):
        commands.add(line.split()[0])
check(commands, "meerkatctl --help lists no command")
options = set(re.findall(r"(?<![\w-])(-[a-z]|--[a-z][a-z-]*)", h.stdout.split("Commands:")[0]))


def is_code(text, pos):
    """POS is in a fenced block, an indented code line or a code span."""
    if text.count("\n```", 0, pos) % 2 == 1:
        return True
    start = text.rfind("\n", 0, pos) + 1
    return text.startswith("    ", start) or text.count("`", start, pos) % 2 == 1


USE = re.compile(r"meerkatctl((?:\s+(?:-s\s+\S+|--socket\s+\S+|-v+))*)\s+([a-z-][a-z0-9-]*)")
n_ctl = 0
for page, text in pages():
    for m in USE.finditer(text):
        word = m.group(2)
        line = text.count("\n", 0, m.start()) + 1
        n_ctl += 1
        if word.startswith("-"):
            check(word in options, "%s:%d: meerkatctl %s: no such option" % (page, line, word))
        elif word in commands:
            p = subprocess.run([MEERKATCTL, word, "--help"], capture_output=True, text=True, timeout=30)
            check(p.returncode == 0 and "usage: meerkatctl" in (p.stdout + p.stderr).lower(),
                  "%s:%d: meerkatctl %s --help prints no usage" % (page, line, word))
        elif is_code(text, m.start()):
            check(False, "%s:%d: meerkatctl %s: no such command (meerkatctl --help: %s)"
                  % (page, line, word, ", ".join(sorted(commands))))
        # else prose ("meerkatctl reads ..."): only code names a command

print("%d yaml examples, %d keys, %d meerkatctl uses; %d checks, %d failed"
      % (n_yaml, n_keys, n_ctl, checks, len(failures)))
sys.exit(1 if failures else 0)
