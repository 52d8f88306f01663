#!/usr/bin/env bats
# The fuzz targets (tests/fuzz/): the harness reports every kind of broken
# contract, then each filter's target runs FUZZ_SECONDS (default 15) from
# the fixtures with no finding. `make fuzz` runs longer campaigns.

load helper

FUZZ="$ROOT/${OBJ_UNDER_TEST:-build}/fuzz"

setup_file() {
	make -C "$ROOT" --no-print-directory -s OBJ="${OBJ_UNDER_TEST:-build}" fuzz-build >&2
}

selftest() {
	printf '\000%s\n' "$1" > "$BATS_TEST_TMPDIR/in"
	run -77 env ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
		"$FUZZ/fuzz-bin/fuzz-selftest" -error_exitcode=77 "$BATS_TEST_TMPDIR/in"
	[[ $output == *"fuzz: selftest: $2"* ]]
}

@test "fuzz harness: a well-behaved run is no finding, nor warnings before the error, nor a die() that leaves a file open and memory held" {
	for what in good warnings leakfile; do
		printf '\000%s\n' "$what" > "$BATS_TEST_TMPDIR/in"
		run env ASAN_OPTIONS=detect_leaks=0 "$FUZZ/fuzz-bin/fuzz-selftest" -runs=2000 \
			"$BATS_TEST_TMPDIR/in"
		[ "$status" -eq 0 ]
	done
}

@test "fuzz harness: inf, 0.00 and a partial line are findings" {
	selftest inf "a non-finite number"
	selftest zero "a field that must be above 0 is not"
	selftest partial "stdout ends inside a line"
}

@test "fuzz harness: a line on stderr without the name, an error without a file name, or another status are findings" {
	selftest unprefixed "a line on stderr does not start with the filter's name"
	selftest noname "the error line names no input file"
	selftest status3 "exit status 3"
}

@test "fuzz harness: a heap overflow is found by AddressSanitizer" {
	printf '\000overflow\n' > "$BATS_TEST_TMPDIR/in"
	run ! env ASAN_OPTIONS=detect_leaks=0 "$FUZZ/fuzz-bin/fuzz-selftest" -error_exitcode=77 "$BATS_TEST_TMPDIR/in"
	[[ $output == *"heap-buffer-overflow"* ]]
}

fuzz_target() {
	local name=$1
	run "$ROOT/tests/fuzz/run.sh" "$FUZZ/fuzz-bin/fuzz-$name" "$name" "${FUZZ_SECONDS:-15}" \
		"$BATS_TEST_TMPDIR/corpus" "$BATS_TEST_TMPDIR/findings" -max_len=32768 -timeout=10
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"no finding"* ]]
}

@test "fuzz: grep-iters, no finding" { fuzz_target grep-iters; }
@test "fuzz: window, no finding" { fuzz_target window; }
@test "fuzz: median, no finding" { fuzz_target median; }
@test "fuzz: speedup, no finding" { fuzz_target speedup; }
@test "fuzz: table, no finding" { fuzz_target table; }
@test "fuzz: compare, no finding" { fuzz_target compare; }
@test "fuzz: ranks, no finding" { fuzz_target ranks; }
@test "fuzz: plot, no finding" { fuzz_target plot; }
@test "fuzz: outcome, no finding" { fuzz_target outcome; }

@test "fuzz: the findings of earlier campaigns stay fixed (tests/fixtures/fuzz/<filter>/)" {
	for dir in "$ROOT"/tests/fixtures/fuzz/*/; do
		name=$(basename "$dir")
		run env ASAN_OPTIONS=detect_leaks=0 "$FUZZ/fuzz-bin/fuzz-$name" "$dir"*
		echo "$output" | tail -5
		[ "$status" -eq 0 ]
	done
}
