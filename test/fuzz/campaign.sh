#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The long fuzzing campaign (docs/fuzzing.md): every libFuzzer target of
# build-fuzz/ for SECONDS each (default an hour), one after the other, at
# nice 10. Corpora are kept between runs in CORPUS/<target>/ (outside the
# source tree; the first run starts from the build's seed corpus, later ones
# from everything earlier runs found), findings (crash-, leak-, timeout-,
# oom- files) land in CORPUS/artifacts/, and a summary table -- executions,
# coverage, corpus size, findings per target -- is printed and appended to
# CORPUS/campaign.log. Exit status 1 when anything was found.
#
#   CC=clang meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false
#   ninja -C build-fuzz
#   test/fuzz/campaign.sh                       # 1 h per target, corpora in ./fuzz-corpus
#   test/fuzz/campaign.sh -t 600 fuzz_stream    # 10 min, one target
#
# Usage: campaign.sh [-t SECONDS] [-b BUILD_DIR] [-c CORPUS_DIR] [TARGET...]
set -euo pipefail

SECONDS_EACH=3600
BUILD=build-fuzz
CORPUS="${MEERKAT_FUZZ_CORPUS:-fuzz-corpus}"
while getopts "t:b:c:h" opt; do
	case "$opt" in
	t) SECONDS_EACH="$OPTARG" ;;
	b) BUILD="$OPTARG" ;;
	c) CORPUS="$OPTARG" ;;
	*)
		sed -n '3,19s/^# \{0,1\}//p' "$0"
		[ "$opt" = h ] && exit 0
		exit 2
		;;
	esac
done
shift $((OPTIND - 1))

FUZZ_DIR="$BUILD/test/fuzz"
if [ "$#" -gt 0 ]; then
	targets=("$@")
else
	mapfile -t targets < <(find "$FUZZ_DIR" -maxdepth 1 -type f -name 'fuzz_*' -perm -u+x \
		-printf '%f\n' | sort)
fi
[ "${#targets[@]}" -gt 0 ] || {
	echo "campaign: no fuzz target in $FUZZ_DIR (build it first, see above)" >&2
	exit 2
}
mkdir -p "$CORPUS/artifacts"

# the build's seeds for @1: its own seed directory, else the shared one
seeds_of() {
	local d
	for d in "$FUZZ_DIR/${1}_corpus" "$FUZZ_DIR/corpus"; do
		if [ -d "$d" ]; then
			echo "$d"
			return
		fi
	done
}

summary=()
found=0
start="$(date -u +%Y-%m-%dT%H:%MZ)"
for t in "${targets[@]}"; do
	exe="$FUZZ_DIR/$t"
	[ -x "$exe" ] || {
		echo "campaign: $exe: no such target" >&2
		exit 2
	}
	mkdir -p "$CORPUS/$t"
	seeds="$(seeds_of "$t")"
	before="$(find "$CORPUS/$t" -type f | wc -l)"
	arts_before="$(find "$CORPUS/artifacts" -name "$t-*" | wc -l)"
	log="$CORPUS/$t.log"
	echo "campaign: $t for ${SECONDS_EACH}s, corpus $CORPUS/$t ($before inputs)${seeds:+ + seeds $seeds}"
	# new inputs go to the first directory, the kept corpus; -close_fd_mask=2
	# hides the targets' own error lines, libFuzzer's and the sanitizers' stay
	UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1" \
		nice -n 10 "$exe" -max_total_time="$SECONDS_EACH" -print_final_stats=1 \
		-close_fd_mask=2 -artifact_prefix="$CORPUS/artifacts/$t-" \
		"$CORPUS/$t" ${seeds:+"$seeds"} >"$log" 2>&1 || true
	execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
	done_line="$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1 || true)"
	cov="$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$done_line")"
	ft="$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$done_line")"
	after="$(find "$CORPUS/$t" -type f | wc -l)"
	arts=$(($(find "$CORPUS/artifacts" -name "$t-*" | wc -l) - arts_before))
	[ "$arts" -eq 0 ] || found=1
	summary+=("$(printf '%-12s %8ss %12s %6s %7s %6s -> %-6s %s' "$t" "$SECONDS_EACH" \
		"${execs:-?}" "${cov:-?}" "${ft:-?}" "$before" "$after" \
		"$([ "$arts" -eq 0 ] && echo none || echo "$arts in $CORPUS/artifacts")")")
done

{
	echo "campaign $start, $(uname -r), $(nproc) CPUs:"
	printf '%-12s %9s %12s %6s %7s %16s %s\n' target time execs cov ft corpus findings
	printf '%s\n' "${summary[@]}"
} | tee -a "$CORPUS/campaign.log"
exit "$found"
