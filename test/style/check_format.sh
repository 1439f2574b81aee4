#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Fails when a C source or header of the tree differs from what clang-format
# makes of it with the top-level .clang-format (one style, enforced). Prints
# each file at fault with the first lines of its diff and the command that
# mends it.
set -euo pipefail
top="$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)"
cd "$top"

fmt="$(command -v clang-format-14 || command -v clang-format || true)"
if [ -z "$fmt" ]; then
	echo "check_format: no clang-format on PATH (deps.sh installs clang-format)" >&2
	exit 1
fi

mapfile -t files < <(git ls-files '*.c' '*.h' 2>/dev/null ||
	find common xdp userspace test -name '*.[ch]')
bad=0
for f in "${files[@]}"; do
	[ -f "$f" ] || continue
	if ! "$fmt" --style=file "$f" | cmp -s - "$f"; then
		bad=$((bad + 1))
		echo "not formatted: $f"
		"$fmt" --style=file "$f" | diff -u "$f" - | head -n 20 || true
	fi
done
echo "check_format: ${#files[@]} files, $bad not formatted"
if [ "$bad" -gt 0 ]; then
	echo "mend with: clang-format -i \$(git ls-files '*.c' '*.h')" >&2
	exit 1
fi
