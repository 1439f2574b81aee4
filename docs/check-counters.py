#!/usr/bin/python3
"""Every counter user space prints is explained in docs/.

Reads every counter list (X-macros) in the headers under userspace/ (the
run modes, the worker pipeline, the flow table, the stream engine, the
defragmenter, ...) and fails naming each counter that no file in docs/
mentions as `name`. The XDP program's counters are checked
by gen-reference.py --check.

usage: check-counters.py SOURCE_ROOT
"""
import glob
import os
import re
import sys

root = sys.argv[1]
docs = "".join(open(p).read() for p in glob.glob(os.path.join(root, "docs", "*.md")))
missing = []
total = 0
for header in sorted(glob.glob(os.path.join(root, "userspace", "**", "*.h"), recursive=True)):
    text = open(header).read()
    if not re.search(r"#define\s+[A-Z0-9_]+\(X\)", text):
        continue
    header = os.path.relpath(header, root)
    # X(ENUM, "name", "doc") lists, and defrag's X(name) list
    names = re.findall(r'\bX\(\s*[A-Z0-9_]+\s*,\s*"([a-z0-9_]+)"', text)
    names += re.findall(r'\bX\(([a-z][a-z0-9_]*)\s*[,)]', text)
    if not names:
        missing.append("%s: no counter list found (did its format change?)" % header)
    total += len(names)
    for n in names:
        if "`%s`" % n not in docs:
            missing.append("%s: counter `%s`" % (header, n))
if total == 0:
    missing.append("no counter list found under userspace/")
for m in missing:
    print("undocumented:", m)
print("%d undocumented" % len(missing))
sys.exit(1 if missing else 0)
