#!/usr/bin/env bats
# compare: two files of window records (baseline, new) -> per configuration
# the means, the change, Welch's p-value and a verdict; exit 3 when one is
# significantly slower. Expected p-values are computed here with python3
# alone: Welch's t and degrees of freedom, and the two-sided tail by
# integrating Student's t density numerically (Simpson's rule), not by
# compare's incomplete beta function.

bats_require_minimum_version 1.5.0
load helper

runs() { # file framework key speed ... -> window records, runs 1, 2, ...
	local f=$1 fw=$2 key=$3 i=0
	shift 3
	for s in "$@"; do
		i=$((i + 1))
		printf '%s\t%s\t%d\t%s\t1.00\t0.00\tsteady\n' "$fw" "$key" $i "$s"
	done >> "$BATS_TEST_TMPDIR/$f"
}

welch_p() { # "base speeds" "new speeds" -> p (%.3g)
	python3 - "$1" "$2" <<'PY'
import math, statistics as st, sys
a = [float(x) for x in sys.argv[1].split()]; b = [float(x) for x in sys.argv[2].split()]
va, vb = st.variance(a) / len(a), st.variance(b) / len(b)
t = abs(st.mean(b) - st.mean(a)) / math.sqrt(va + vb)
df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
f = lambda x: c * (1 + x * x / df) ** (-(df + 1) / 2)
n = 200000; h = t / n  # P(|T| < t) by Simpson's rule on [0, t]
s = f(0) + f(t) + sum((4 if i % 2 else 2) * f(i * h) for i in range(1, n))
print("%.3g" % (1 - 2 * s * h / 3))
PY
}

@test "5 % slower but within noise: same, exit 0" {
	runs base a 1n1g_b16_fp32 100.00 90.00 110.00
	runs new a 1n1g_b16_fp32 95.00 85.00 105.00
	run -0 --separate-stderr compare "$BATS_TEST_TMPDIR/base" "$BATS_TEST_TMPDIR/new"
	[ -z "$stderr" ]
	p=$(welch_p "100 90 110" "95 85 105")
	[ "$output" = "$(printf 'a\t1n1g_b16_fp32\t100.00\t3\t95.00\t3\t-5.00\t%s\tsame' "$p")" ]
	[ "$p" = 0.573 ]
}

@test "1 % slower with tiny noise: significant but below the threshold, same" {
	runs base a 1n1g_b16_fp32 100.00 100.01 99.99
	runs new a 1n1g_b16_fp32 99.00 99.01 98.99
	run -0 compare "$BATS_TEST_TMPDIR/base" "$BATS_TEST_TMPDIR/new"
	p=$(welch_p "100 100.01 99.99" "99 99.01 98.99")
	[ "$output" = "$(printf 'a\t1n1g_b16_fp32\t100.00\t3\t99.00\t3\t-1.00\t%s\tsame' "$p")" ]
	awk -v p="$p" 'BEGIN { exit !(p < 0.05) }'
	# a threshold below 1 % calls it slower
	run -3 compare -t 0.5 "$BATS_TEST_TMPDIR/base" "$BATS_TEST_TMPDIR/new"
	[ "$(cut -f9 <<<"$output")" = slower ]
}

@test "10 % slower, clearly: slower, exit 3; the other way round: faster, exit 0" {
	runs base a 1n1g_b16_fp32 100.00 101.00 99.00
	runs new a 1n1g_b16_fp32 90.00 91.00 89.50 90.50
	run -3 --separate-stderr compare "$BATS_TEST_TMPDIR/base" "$BATS_TEST_TMPDIR/new"
	[ -z "$stderr" ]
	p=$(welch_p "100 101 99" "90 91 89.5 90.5")
	[ "$output" = "$(printf 'a\t1n1g_b16_fp32\t100.00\t3\t90.25\t4\t-9.75\t%s\tslower' "$p")" ]
	run -0 compare "$BATS_TEST_TMPDIR/new" "$BATS_TEST_TMPDIR/base"
	[ "$(cut -f7-9 <<<"$output")" = "$(printf '10.80\t%s\tfaster' "$p")" ]
}

@test "several configurations: baseline order, one slower is enough for exit 3" {
	runs base a 1n1g_b16_fp32 100.00 101.00 99.00
	runs base a 1n2g_b16_fp32 190.00 191.00 189.00
	runs new a 1n2g_b16_fp32 150.00 151.00 149.00
	runs new a 1n1g_b16_fp32 100.50 100.00 99.50
	run -3 compare "$BATS_TEST_TMPDIR/base" "$BATS_TEST_TMPDIR/new"
	[ "$(cut -f2,9 <<<"$output")" = "$(printf '1n1g_b16_fp32\tsame\n1n2g_b16_fp32\tslower')" ]
}

@test "a configuration in one file only is named on stderr and left out" {
	runs base a 1n1g_b16_fp32 100.00 101.00
	runs base a 1n2g_b16_fp32 190.00 191.00
	runs new a 1n1g_b16_fp32 100.00 101.00
	runs new b 1n1g_b16_fp32 100.00 101.00
	run -0 --separate-stderr compare "$BATS_TEST_TMPDIR/base" "$BATS_TEST_TMPDIR/new"
	[ "$(cut -f1,2,9 <<<"$output")" = "$(printf 'a\t1n1g_b16_fp32\tsame')" ]
	[ "$stderr" = "compare: $BATS_TEST_TMPDIR/new:3: b 1n1g_b16_fp32 is not in the baseline: not compared
compare: $BATS_TEST_TMPDIR/base: a 1n2g_b16_fp32 is not in $BATS_TEST_TMPDIR/new: not compared" ]
}

@test "one run a side cannot be tested: untested, p -" {
	runs base a 1n1g_b16_fp32 100.00
	runs new a 1n1g_b16_fp32 50.00 51.00
	run -0 compare "$BATS_TEST_TMPDIR/base" "$BATS_TEST_TMPDIR/new"
	[ "$output" = "$(printf 'a\t1n1g_b16_fp32\t100.00\t1\t50.50\t2\t-49.50\t-\tuntested')" ]
}

@test "no spread at all: equal means p 1, different means p 0" {
	runs base a 1n1g_b16_fp32 100.00 100.00
	runs new a 1n1g_b16_fp32 100.00 100.00
	run -0 compare "$BATS_TEST_TMPDIR/base" "$BATS_TEST_TMPDIR/new"
	[ "$(cut -f8,9 <<<"$output")" = "$(printf '1\tsame')" ]
	runs new2 a 1n1g_b16_fp32 90.00 90.00
	run -3 compare "$BATS_TEST_TMPDIR/base" "$BATS_TEST_TMPDIR/new2"
	[ "$(cut -f8,9 <<<"$output")" = "$(printf '0\tslower')" ]
}

@test "four-column records (DLPerf's mode) are read too; meta lines are ignored" {
	printf '# mode=dlperf\na\t1n1g_b16_fp32\t1\t100.00\na\t1n1g_b16_fp32\t2\t102.00\n' > "$BATS_TEST_TMPDIR/b"
	run -0 compare "$BATS_TEST_TMPDIR/b" "$BATS_TEST_TMPDIR/b"
	[ "$output" = "$(printf 'a\t1n1g_b16_fp32\t101.00\t2\t101.00\t2\t0.00\t1\tsame')" ]
}

@test "bad input is exit 1 naming file and line, distinct from slower (3)" {
	runs base a 1n1g_b16_fp32 100.00 101.00
	printf 'a\t1n1g_b16_fp32\t1\tfast\n' > "$BATS_TEST_TMPDIR/bad"
	run -1 --separate-stderr compare "$BATS_TEST_TMPDIR/base" "$BATS_TEST_TMPDIR/bad"
	[ -z "$output" ]
	[ "$stderr" = "compare: $BATS_TEST_TMPDIR/bad:1: samples_per_s 'fast' is not a number" ]
	runs dup a 1n1g_b16_fp32 100.00
	runs dup a 1n1g_b16_fp32 100.00
	run -1 --separate-stderr compare "$BATS_TEST_TMPDIR/base" "$BATS_TEST_TMPDIR/dup"
	[ "$stderr" = "compare: $BATS_TEST_TMPDIR/dup:2: duplicate run 1 of a 1n1g_b16_fp32" ]
	runs other b 1n1g_b16_fp32 100.00
	run -1 --separate-stderr compare "$BATS_TEST_TMPDIR/base" "$BATS_TEST_TMPDIR/other"
	[[ $stderr == *"have no configuration in common" ]]
	run -1 --separate-stderr compare "$BATS_TEST_TMPDIR/base" "$BATS_TEST_TMPDIR/missing"
	[[ $stderr == "compare: $BATS_TEST_TMPDIR/missing: No such file or directory" ]]
}

@test "a bad command line is exit 2" {
	run -2 --separate-stderr compare onlyone
	[[ $stderr == "usage: compare [-t percent] BASELINE NEW"* ]]
	run -2 --separate-stderr compare -t x a b
	[ "$stderr" = "compare: -t: 'x' is not a percentage >= 0" ]
}

# ---- make compare BASE=<log tree> -----------------------------------------------

bench_log() { # path step_s total_batch: 120 iterations of bench's log
	mkdir -p "$(dirname "$1")"
	awk -v st="$2" -v tb="$3" 'BEGIN {
		print "# bench model=resnet50 backend=cpu-onednn nodes=1 batch_per_device=16"
		for (i = 1; i <= 120; i++)
			printf "iter=%d loss=6.9310 step_s=%.4f samples_per_s=%.2f\n", i, st, tb / st
		print "# end iters=120 peak_mem_mb=4521" }' > "$1"
}

mk_compare() { # make compare with the binaries under test
	local b=${BIN_UNDER_TEST:-$ROOT/bin} o
	o=${b%/bin}
	[ "$b" != "$ROOT/bin" ] || o=$ROOT/build
	make -C "$ROOT" --no-print-directory CUDA_QUIET=1 BIN="$b" OBJ="$o" compare "$@"
}

@test "make compare BASE=: the configurations both trees hold, exit status for slower" {
	T=$BATS_TEST_TMPDIR
	for r in 1 2 3; do
		bench_log "$T/old/bench/1n1g_b16_fp32/$r.log" "0.50$r" 16
		bench_log "$T/old/bench/1n2g_b16_fp32/$r.log" "0.50$r" 32
		bench_log "$T/same/bench/1n1g_b16_fp32/$r.log" "0.50$((4 - r))" 16
		bench_log "$T/slow/bench/1n1g_b16_fp32/$r.log" "0.55$r" 16
	done
	bench_log "$T/same/bench/1n8g_b16_fp32/1.log" 0.5 128
	run -0 --separate-stderr mk_compare BASE="$T/old" LOGDIR="$T/same"
	[ "$(grep $'\t' <<<"$output")" = "$(printf 'bench\t1n1g_b16_fp32\t31.87\t3\t31.87\t3\t0.00\t1\tsame')" ]
	run -2 --separate-stderr mk_compare BASE="$T/old" LOGDIR="$T/slow"
	[[ $output == *$'bench\t1n1g_b16_fp32\t31.87\t3\t28.99\t3\t-9.06\t'*$'\tslower'* ]]
	[[ $stderr == *"compare] Error 3"* ]]
	run -2 --separate-stderr mk_compare LOGDIR="$T/same"
	[[ $stderr == *"make compare needs BASE=<log tree>"* ]]
}
