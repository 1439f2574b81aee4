#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Keeps the generated parts of docs/reference.md in step with common/*.h.

Blocks between "<!-- gen:NAME -->" and "<!-- /gen -->" are rewritten from the
headers: "counters" from the X-macro lists in common/stats.h, "struct X" from
the struct definition (field, type, offset, size, the field's comment), "enum
X" from an enum's values and comments. Offsets are computed with natural
alignment and checked against the header's _Static_assert on the size.

  gen-reference.py --write   rewrite docs/reference.md in place
  gen-reference.py --check   exit 1 and show a diff when the doc has drifted
"""
import argparse
import difflib
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "reference.md")
COMMON = os.path.join(ROOT, "common")
SIZES = {"__u8": 1, "__u16": 2, "__u32": 4, "__u64": 8}


def cell(s):
    """Text safe inside a markdown table cell."""
    return s.replace("|", "\\|")


def headers():
    text = {}
    for name in sorted(os.listdir(COMMON)):
        if name.endswith(".h"):
            with open(os.path.join(COMMON, name)) as f:
                text[name] = f.read()
    return text


def counters(src):
    """Markdown table of every counter, in enum order, with its class."""
    rows = []
    for macro, cls in (("MK_STAT_OUTCOMES", "outcome"), ("MK_STAT_ERRORS", "error"),
                       ("MK_STAT_INFO", "info")):
        m = re.search(r"#define %s\(X\)(.*?)(?:\n\n|\n#)" % macro, src, re.S)
        if not m:
            sys.exit("gen-reference: %s not found in common/stats.h" % macro)
        # an entry may be wrapped over lines joined by the macro's backslashes
        body = m.group(1).replace("\\\n", " ")
        for enum, name, doc in re.findall(r'X\((\w+),\s*"([^"]+)",\s*"((?:[^"\\]|\\.)*)"\)',
                                          body):
            rows.append((len(rows), name, cls, "MK_STAT_" + enum, cell(doc)))
    out = ["| index | counter | class | enum | meaning |", "|---:|---|---|---|---|"]
    out += ["| %d | `%s` | %s | `%s` | %s |" % r for r in rows]
    return out


def struct(text, name):
    for fname, src in text.items():
        m = re.search(r"struct %s \{\n(.*?)\n\};" % name, src, re.S)
        if m:
            break
    else:
        sys.exit("gen-reference: struct %s not found in common/" % name)
    off, align, rows = 0, 1, []
    for line in m.group(1).split("\n"):
        f = re.match(r"\s*(__u8|__u16|__u32|__u64)\s+(\w+)(?:\[(\d+)\])?;\s*(?:/\*\s*(.*?)\s*\*/)?",
                     line)
        if not f:
            if line.strip() and not line.strip().startswith(("/*", "*")):
                sys.exit("gen-reference: cannot read struct %s line: %r" % (name, line))
            continue
        typ, field, count, doc = f.group(1), f.group(2), f.group(3), f.group(4) or ""
        size = SIZES[typ] * int(count or 1)
        a = SIZES[typ]
        off = (off + a - 1) // a * a
        align = max(align, a)
        rows.append((field + ("[%s]" % count if count else ""), typ, off, size, cell(doc)))
        off += size
    total = (off + align - 1) // align * align
    sa = re.search(r"_Static_assert\(sizeof\(struct %s\) == (\d+)" % name, src)
    if not sa or int(sa.group(1)) != total:
        sys.exit("gen-reference: struct %s: computed size %d, _Static_assert says %s"
                 % (name, total, sa.group(1) if sa else "nothing"))
    out = ["`struct %s` (common/%s), %d bytes:" % (name, fname, total), "",
           "| field | type | offset | size | meaning |", "|---|---|---:|---:|---|"]
    out += ["| `%s` | %s | %d | %d | %s |" % r for r in rows]
    return out


def enum(text, name):
    for fname, src in text.items():
        m = re.search(r"enum %s \{\n(.*?)\n\};" % name, src, re.S)
        if m:
            break
    else:
        sys.exit("gen-reference: enum %s not found in common/" % name)
    out = ["`enum %s` (common/%s):" % (name, fname), "", "| name | value | meaning |",
           "|---|---|---|"]
    for line in m.group(1).split("\n"):
        e = re.match(r"\s*(\w+)\s*=\s*([^,]+),\s*(?:/\*\s*(.*?)\s*\*/)?", line)
        if e:
            out.append("| `%s` | `%s` | %s |" % (e.group(1), e.group(2).strip(), cell(e.group(3) or "")))
    return out


def render(doc, text):
    out, lines, i = [], doc.split("\n"), 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"<!-- gen:(.+?) -->$", line)
        if not m:
            out.append(line)
            i += 1
            continue
        what = m.group(1).split()
        out.append(line)
        if what[0] == "counters":
            out += counters(text["stats.h"])
        elif what[0] == "struct":
            out += struct(text, what[1])
        elif what[0] == "enum":
            out += enum(text, what[1])
        else:
            sys.exit("gen-reference: unknown block %r" % m.group(1))
        i += 1
        while i < len(lines) and lines[i] != "<!-- /gen -->":
            i += 1
        if i == len(lines):
            sys.exit("gen-reference: block %r is not closed" % m.group(1))
        out.append(lines[i])
        i += 1
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description="regenerate or check docs/reference.md")
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--write", action="store_true")
    g.add_argument("--check", action="store_true")
    args = ap.parse_args()
    with open(DOC) as f:
        doc = f.read()
    new = render(doc, headers())
    if args.write:
        if new != doc:
            with open(DOC, "w") as f:
                f.write(new)
        return 0
    if new != doc:
        sys.stdout.writelines(difflib.unified_diff(doc.splitlines(True), new.splitlines(True),
                                                   "docs/reference.md", "generated"))
        print("docs/reference.md is out of date: run docs/gen-reference.py --write")
        return 1
    print("docs/reference.md matches common/*.h")
    return 0


if __name__ == "__main__":
    sys.exit(main())
