#!/bin/bash
# run.sh BINARY NAME SECONDS CORPUS FINDINGS [libFuzzer options...]
#
# One fuzz target for SECONDS: seeds CORPUS from the target's fixtures when it
# is empty (each fixture once per command line: the first byte picks it; two
# fixtures joined by a "%%" line for the command lines with two inputs), runs
# libFuzzer on it, and prints one summary line. A finding (crash, hang,
# violated contract) is kept in FINDINGS and fails the run.
set -euo pipefail
bin=$1 name=$2 seconds=$3 corpus=$4 findings=$5
shift 5
mkdir -p "$corpus" "$findings"
if [ -z "$(ls -A "$corpus")" ]; then
	{ read -r nconfigs; read -r globs; } < <(FUZZ_INFO=1 "$bin")
	# shellcheck disable=SC2086 # the globs are meant to expand
	files=()
	for f in $globs; do
		if [ -f "$f" ]; then files+=("$f"); fi
	done
	i=0
	for f in "${files[@]}"; do
		next=${files[$(((i + 1) % ${#files[@]}))]}
		for ((c = 0; c < nconfigs; c++)); do
			{ printf "\\x$(printf %02x "$c")"; cat "$f"; } > "$corpus/seed-$i-$c"
			{ printf "\\x$(printf %02x "$c")"; cat "$f"; echo '%%'; cat "$next"; } \
				> "$corpus/pair-$i-$c"
		done
		i=$((i + 1))
	done
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
start=$(date +%s)
ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:quarantine_size_mb=16 UBSAN_OPTIONS=halt_on_error=1 \
	"$bin" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$findings/" "$@" "$corpus" \
	> "$log" 2>&1 || status=$?
elapsed=$(($(date +%s) - start))
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
if [ "$status" -ne 0 ]; then
	grep -E "^fuzz:|ERROR|SUMMARY|^---|^==" "$log" | head -40 >&2
	echo "$name: FINDING after ${execs:-?} executions, input in $findings/" >&2
	exit 1
fi
echo "$name: ${execs:-?} executions in ${elapsed} s, corpus $(ls "$corpus" | wc -l) inputs, no finding"
