#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# meerkat's test command (README, CI): on Debian 12 as root,
#   1. deps.sh (installs what is missing),
#   2. build/ with -Dwerror=true, every meson suite (unit, bpf, root testbench...),
#   3. build-asan/: gcc with AddressSanitizer + UndefinedBehaviorSanitizer
#      (LeakSanitizer included on x86-64), the unit, offline and attack suites
#      (meerkat -r on generated, malformed and attack traffic) and the live
#      daemon under faults on the testbench (suite faults, root only),
#   4. build-fuzz/ (when test/fuzz exists): clang libFuzzer targets, each
#      fuzz_* run for FUZZ_SECONDS (default 20) on its seed corpus.
# Every stage runs even when an earlier one failed. The last line is always
#   tests: N passed, M failed, K skipped
# summed over all stages (a failed build counts as one failure); the exit
# status is non-zero when M > 0.
#
# Environment: FUZZ_SECONDS (per target), SKIP_DEPS=1 (do not run deps.sh),
# SKIP_ASAN=1, SKIP_FUZZ=1 (for quick local runs; CI runs everything).
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")"

FUZZ_SECONDS="${FUZZ_SECONDS:-20}"
PASSED=0
FAILED=0
SKIPPED=0
FAILURES=()
T0=$SECONDS

step() { printf '\n==> %s\n' "$*"; }

fail_stage() {
	FAILED=$((FAILED + 1))
	FAILURES+=("$1")
	printf 'run-tests: FAIL: %s\n' "$1" >&2
}

# meson_setup DIR ARGS...: sets up DIR, or reconfigures it when it exists.
meson_setup() {
	local dir="$1"
	shift
	if [ -f "$dir/build.ninja" ]; then
		meson setup --reconfigure "$dir" "$@"
	else
		rm -rf "$dir"
		meson setup "$dir" "$@"
	fi
}

# Adds the results of DIR/meson-logs/testlog.json to the totals.
tally_meson() {
	local dir="$1" label="$2" counts p f s
	if [ ! -f "$dir/meson-logs/testlog.json" ]; then
		# meson test wrote no log: it ran nothing, which is a failure, not zero tests
		fail_stage "$label: meson test wrote no testlog.json"
		return 0
	fi
	counts="$(/usr/bin/python3 - "$dir/meson-logs/testlog.json" "$label" <<'PY'
import json, sys
ok = {"OK", "EXPECTEDFAIL"}
bad = {"FAIL", "UNEXPECTEDPASS", "TIMEOUT", "ERROR"}
p = f = s = 0
names = []
for line in open(sys.argv[1]):
    line = line.strip()
    if not line:
        continue
    t = json.loads(line)
    r = t.get("result")
    if r in ok:
        p += 1
    elif r == "SKIP":
        s += 1
    else:
        f += 1
        names.append("%s: %s (%s)" % (sys.argv[2], t.get("name"), r))
print(p, f, s)
for n in names:
    print(n)
PY
)"
	read -r p f s <<<"$(head -n 1 <<<"$counts")"
	PASSED=$((PASSED + p))
	FAILED=$((FAILED + f))
	SKIPPED=$((SKIPPED + s))
	if [ "$f" -gt 0 ]; then
		mapfile -t -O "${#FAILURES[@]}" FAILURES < <(tail -n +2 <<<"$counts")
	fi
}

# run_meson_tests DIR LABEL [meson test args]
run_meson_tests() {
	local dir="$1" label="$2"
	shift 2
	rm -f "$dir/meson-logs/testlog.json"
	# meson's exit status is reflected in the tally; keep going either way
	meson test -C "$dir" --print-errorlogs "$@" || true
	tally_meson "$dir" "$label"
}

# ---------------------------------------------------------------------------
if [ "${SKIP_DEPS:-0}" != 1 ]; then
	step "dependencies (deps.sh)"
	# a failed install is a failure, and the stages below still run and report
	./deps.sh || fail_stage "deps.sh failed"
fi

step "build/: -Dwerror=true"
if meson_setup build -Dwerror=true && ninja -C build; then
	step "build/: meson test (all suites)"
	run_meson_tests build "build"
else
	fail_stage "build/ (-Dwerror=true) did not build"
fi

if [ "${SKIP_ASAN:-0}" != 1 ]; then
	step "build-asan/: gcc -fsanitize=address,undefined, unit, offline, attack and faults suites"
	if CC=gcc meson_setup build-asan -Db_sanitize=address,undefined &&
		ninja -C build-asan; then
		UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1" \
			run_meson_tests build-asan "build-asan" --suite unit --suite offline --suite attack \
			--suite faults
	else
		fail_stage "build-asan/ did not build"
	fi
fi

if [ "${SKIP_FUZZ:-0}" != 1 ] && [ -d test/fuzz ]; then
	step "build-fuzz/: clang libFuzzer targets, ${FUZZ_SECONDS}s each"
	# only what test/fuzz defines (targets and seed corpora): the rest of the
	# tree is built and tested above
	if CC=clang meson_setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined &&
		mapfile -t fuzz_outputs < <(ninja -C build-fuzz -t targets all |
			sed -n 's#^\(test/fuzz/[^:/]*\): \(c_LINKER\|CUSTOM_COMMAND\)$#\1#p') &&
		[ "${#fuzz_outputs[@]}" -gt 0 ] && ninja -C build-fuzz "${fuzz_outputs[@]}"; then
		mapfile -t targets < <(find build-fuzz/test/fuzz -maxdepth 1 -type f -name 'fuzz_*' \
			-perm -u+x | sort)
		[ "${#targets[@]}" -gt 0 ] || fail_stage "build-fuzz/: no fuzz_* target was built"
		mkdir -p build-fuzz/fuzz-artifacts
		for t in "${targets[@]}"; do
			name="$(basename "$t")"
			seeds=()
			# a target's own seed directory if there is one, else the shared corpus
			for d in "test/fuzz/corpus/$name" "test/fuzz/corpus/${name#fuzz_}" \
				"build-fuzz/test/fuzz/${name}_corpus" "build-fuzz/test/fuzz/corpus/$name"; do
				[ -d "$d" ] && seeds+=("$d")
			done
			if [ "${#seeds[@]}" -eq 0 ]; then
				for d in test/fuzz/corpus build-fuzz/test/fuzz/corpus; do
					[ -d "$d" ] && seeds+=("$d")
				done
			fi
			# new inputs go to a scratch directory, never into the source tree
			work="build-fuzz/fuzz-work/$name"
			rm -rf "$work"
			mkdir -p "$work"
			printf '%s: %ss on %s\n' "$name" "$FUZZ_SECONDS" \
				"${seeds[*]:-an empty corpus (no seed directory found)}"
			if "$t" -max_total_time="$FUZZ_SECONDS" -print_final_stats=1 \
				-artifact_prefix="build-fuzz/fuzz-artifacts/${name}-" \
				"$work" "${seeds[@]}" >"build-fuzz/$name.log" 2>&1; then
				PASSED=$((PASSED + 1))
				grep -E '^(#[0-9]+.*DONE|stat::number_of_executed_units)' \
					"build-fuzz/$name.log" | tail -n 1 || true
			else
				tail -n 40 "build-fuzz/$name.log" >&2
				fail_stage "$name crashed or failed (log build-fuzz/$name.log)"
			fi
		done
	else
		fail_stage "build-fuzz/ did not build"
	fi
elif [ ! -d test/fuzz ]; then
	step "build-fuzz/: skipped, no test/fuzz in this tree"
fi

step "summary ($((SECONDS - T0)) s)"
for f in "${FAILURES[@]}"; do
	printf '  failed: %s\n' "$f"
done
printf 'tests: %d passed, %d failed, %d skipped\n' "$PASSED" "$FAILED" "$SKIPPED"
[ "$FAILED" -eq 0 ]
