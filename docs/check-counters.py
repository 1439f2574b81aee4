#!/usr/bin/python3
"""Every counter user space prints is explained in docs/.

Reads the counter lists (X-macros) of the offline pipeline, the flow table,
the stream engine and the defragmenter, and fails naming each counter that
no file in docs/ mentions as `name`. The XDP program's counters are checked
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
for header in ("offline.h", "flow.h", "stream.h", "defrag.h"):
    text = open(os.path.join(root, "userspace", header)).read()
    # X(ENUM, "name", "doc") lists, and defrag's X(name) list
    names = re.findall(r'\bX\(\s*[A-Z0-9_]+\s*,\s*"([a-z0-9_]+)"', text)
    names += re.findall(r'\bX\(([a-z][a-z0-9_]*)\)', text)
    if not names:
        missing.append("%s: no counter list found (did its format change?)" % header)
    for n in names:
        if "`%s`" % n not in docs:
            missing.append("%s: counter `%s`" % (header, n))
for m in missing:
    print("undocumented:", m)
print("%d undocumented" % len(missing))
sys.exit(1 if missing else 0)
