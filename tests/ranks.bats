#!/usr/bin/env bats
# ranks: the rank that is consistently slower than the median rank, from
# bench's "# ranks" lines (bench --rank-times). Logs made by hand whose
# answer is known; bench's own lines with a rank slowed on purpose are in
# tests/bench.bats.

bats_require_minimum_version 1.5.0
load helper

# log FILE LINE...: a bench log whose "# ranks" lines carry the given times,
# one argument a step, numbered from 1.
log() {
	local f=$1 i=0
	shift
	{
		echo "# bench model=resnet50 backend=cpu-onednn nodes=1 gpus_per_node=4 batch_per_device=2 precision=fp32 image=32 data=synthetic"
		for t in "$@"; do
			i=$((i + 1))
			echo "# ranks iter=$i compute_s=$t"
			echo "iter=$i loss=6.9 step_s=0.5 samples_per_s=16.00 ts=1763781234.$(printf %06d $i)"
		done
	} >"$f"
}

@test "a rank 6 % slower in every step is named; the others are not" {
	log "$BATS_TEST_TMPDIR/a.log" 9,9,9,9 1.00,1.00,1.06,1.00 1.00,1.01,1.06,1.00 \
		0.99,1.00,1.06,1.00 1.00,1.00,1.06,1.01
	run -0 --separate-stderr ranks "$BATS_TEST_TMPDIR/a.log"
	[ "$stderr" = "" ]
	f="$BATS_TEST_TMPDIR/a.log"
	# step medians 1.000 1.005 1.000 1.005: rank 2's ratios 1.060 1.055 1.060
	# 1.055, their median 1.057; rank 0's 1 0.995 0.99 0.995, median 0.995
	[ "$output" = "$(printf '%s\t0\t1.0000\t0.995\t0\t4\tok\n%s\t1\t1.0000\t1.000\t0\t4\tok\n%s\t2\t1.0600\t1.057\t4\t4\tslow\n%s\t3\t1.0000\t1.000\t0\t4\tok' "$f" "$f" "$f" "$f")" ]
}

@test "a rank 4 % slower is within the default 5 %, and named with -t 3" {
	log "$BATS_TEST_TMPDIR/b.log" 9,9,9 1.00,1.04,1.00 1.00,1.04,1.00 1.00,1.04,1.00
	run -0 ranks "$BATS_TEST_TMPDIR/b.log"
	[ "$(cut -f2,4,5,7 <<<"$output" | tr '\t\n' ' ;')" = "0 1.000 0 ok;1 1.040 0 ok;2 1.000 0 ok;" ]
	run -0 ranks -t 3 "$BATS_TEST_TMPDIR/b.log"
	[ "$(cut -f2,5,7 <<<"$output" | tr '\t\n' ' ;')" = "0 0 ok;1 3 slow;2 0 ok;" ]
}

@test "one stall is not a slow rank: slower in fewer than half the steps" {
	log "$BATS_TEST_TMPDIR/c.log" 9,9,9 1,1,1 1,1,3 1,1,1 1,1.5,1 1,1,1
	run -0 ranks "$BATS_TEST_TMPDIR/c.log"
	[ "$(cut -f2,5,6,7 <<<"$output" | tr '\t\n' ' ;')" = "0 0 5 ok;1 1 5 ok;2 1 5 ok;" ]
}

@test "the warm-up is skipped: -s 1 by default, -s 0 counts every step" {
	log "$BATS_TEST_TMPDIR/d.log" 1,9 1,1 1,1 1,1
	run -0 ranks "$BATS_TEST_TMPDIR/d.log"
	[ "$(cut -f2,6,7 <<<"$output" | tr '\t\n' ' ;')" = "0 3 ok;1 3 ok;" ]
	run -0 ranks -s 0 -t 0 "$BATS_TEST_TMPDIR/d.log"
	[ "$(cut -f2,5,6 <<<"$output" | tr '\t\n' ' ;')" = "0 0 4;1 1 4;" ]
}

@test "two ranks: the median is their mean, so the slower by more than ~10 % is named" {
	log "$BATS_TEST_TMPDIR/e.log" 1,1 1,1.2 1,1.2 1,1.2
	run -0 ranks "$BATS_TEST_TMPDIR/e.log"
	[ "$(cut -f2,4,7 <<<"$output" | tr '\t\n' ' ;')" = "0 0.909 ok;1 1.091 slow;" ]
}

@test "several files: each its own ranks, in order; a launcher's prefix is read" {
	log "$BATS_TEST_TMPDIR/f.log" 1,1 1,1 1,2
	log "$BATS_TEST_TMPDIR/g.log" 1,1,1 2,1,1 2,1,1
	sed -i 's/^# ranks/[1,0]<stdout>:# ranks/' "$BATS_TEST_TMPDIR/g.log"
	run -0 ranks "$BATS_TEST_TMPDIR/f.log" "$BATS_TEST_TMPDIR/g.log"
	[ "${#lines[@]}" -eq 5 ]
	[[ "${lines[0]}" == "$BATS_TEST_TMPDIR/f.log	0	"* ]]
	[[ "${lines[2]}" == "$BATS_TEST_TMPDIR/g.log	0	2.0000	2.000	2	2	slow" ]]
	# the same bytes from stdin, named <stdin>
	run -0 ranks <"$BATS_TEST_TMPDIR/f.log"
	[[ "${lines[1]}" == "<stdin>	1	"* ]]
}

@test "bad input: one line naming file and line, exit 1, nothing on stdout" {
	f="$BATS_TEST_TMPDIR/h.log"
	log "$f" 1,1 1,1,1
	run -1 --separate-stderr ranks "$f"
	[ "$stderr" = "ranks: $f:4: 3 ranks, but 2 on the earlier lines" ]
	[ "$output" = "" ]
	log "$f" 1,1 1,x
	run -1 --separate-stderr ranks "$f"
	[ "$stderr" = "ranks: $f:4: rank 1: compute time 'x' is not a positive number" ]
	log "$f" 1,1 1,0
	run -1 --separate-stderr ranks "$f"
	[ "$stderr" = "ranks: $f:4: rank 1: compute time '0' is not a positive number" ]
	printf '# ranks iter=2 compute_s=1,1\n# ranks iter=2 compute_s=1,1\n' >"$f"
	run -1 --separate-stderr ranks "$f"
	[ "$stderr" = "ranks: $f:2: iteration 2 after 2" ]
	printf '# ranks compute_s=1,1\n' >"$f"
	run -1 --separate-stderr ranks "$f"
	[ "$stderr" = "ranks: $f:1: '# ranks' line without iter=" ]
	log "$f" 1,1
	run -1 --separate-stderr ranks "$f"
	[ "$stderr" = "ranks: $f: no '# ranks' lines after iteration 1 (bench --rank-times)" ]
	run -1 --separate-stderr ranks "$BATS_TEST_TMPDIR/none.log"
	[ "$stderr" = "ranks: $BATS_TEST_TMPDIR/none.log: No such file or directory" ]
}

@test "a bad flag prints the synopsis and the columns, exit 2" {
	run -2 --separate-stderr ranks -q
	[ "${stderr_lines[0]}" = "usage: ranks [-s skip] [-t percent] [file ...]" ]
	[ "${stderr_lines[2]}" = "  out: file rank median_compute_s ratio slow_steps steps verdict" ]
	run -2 --separate-stderr ranks -t x /dev/null
	[ "${stderr_lines[0]}" = "ranks: -t: 'x' is not a percentage in [0, 1000]" ]
}

@test "a ratio or time too small for its decimals is printed in 3 digits, never as 0" {
	printf '# ranks iter=1 compute_s=0.4012,8839\n' > "$BATS_TEST_TMPDIR/t.log"
	run -0 ranks -s 0 "$BATS_TEST_TMPDIR/t.log"
	[ "$(cut -f2-4 <<<"$output" | tr '\t\n' ' ;')" = "0 0.4012 9.08e-05;1 8839.0000 2.000;" ]
}
