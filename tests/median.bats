#!/usr/bin/env bats
# median: window records -> per-configuration median, mean, min, max, n.
# Fixtures: tests/fixtures/median/<case>.tsv hold the per-run speeds that
# DLPerf's READMEs print as sample output, in DLPerf's reading order
# (doc/dlperf.md, "Published tables"); <case>.expected the published
# median_speed and average_speed (printed %.2f) with min, max and n.
# failed.tsv: runs of which some left outcome lines (doc/formats.md), and
# failed.expected median's whole output for it.

bats_require_minimum_version 1.5.0
load helper

F="$FIXTURES/median"

# median's first seven columns, DLPerf's (ours after them are tested at the end).
median7() {
	median "$@" > "$BATS_TEST_TMPDIR/m7" || return
	cut -f1-7 "$BATS_TEST_TMPDIR/m7"
}

check_case() {
	run -0 --separate-stderr median "$F/$1.tsv"
	# the published columns; ours after them are tested below
	[ "$(printf '%s\n' "$output" | cut -f1-7)" = "$(cat "$F/$1.expected")" ]
	[ -z "$stderr" ]
}

@test "PyTorch examples (DALI, 4n8g has 10 runs) gives the published medians and means" {
	check_case pytorch
}

@test "NGC PyTorch AMP gives the published medians and means" {
	check_case ngc-pytorch
}

@test "NGC TensorFlow 1.15 (6 runs, R2n ties 5099.42 and 9514.64) gives the published values" {
	check_case ngc-tensorflow
}

@test "TensorFlow 2.3 gives the published medians and means" {
	check_case tensorflow
}

@test "PaddlePaddle 1.8.3 (R2n tie 1358.64) gives the published medians and means" {
	check_case paddle
}

@test "NGC MXNet (7 runs) gives the published medians and means" {
	check_case ngc-mxnet
}

@test "MXNet gluon-cv gives the published medians and means" {
	check_case mxnet
}

@test "MindSpore gives the published medians and means" {
	check_case mindspore
}

@test "OneFlow InsightFace gives the published medians and means" {
	check_case insightface
}

@test "PaddlePaddle PLSC gives the published medians and means" {
	check_case plsc
}

@test "an even median rounds half to even on x*100 (R2n), not on the exact binary" {
	run -0 median7 <<'IN'
ngc-tensorflow	2n8g_b128_fp32	1	5097.79
ngc-tensorflow	2n8g_b128_fp32	2	5101.06
paddle	1n4g_b128_fp32	1	1357.79
paddle	1n4g_b128_fp32	2	1359.48
IN
	[ "$output" = "$(printf 'ngc-tensorflow\t2n8g_b128_fp32\t5099.42\t5099.42\t5097.79\t5101.06\t2\npaddle\t1n4g_b128_fp32\t1358.64\t1358.64\t1357.79\t1359.48\t2')" ]
}

@test "configurations come out in the order first met, runs of one may interleave" {
	run -0 median7 <<'IN'
b	1n8g_b128_fp32	1	3.00
a	1n1g_b128_fp32	1	1.00
b	1n8g_b128_fp32	2	5.00
IN
	[ "$output" = "$(printf 'b\t1n8g_b128_fp32\t4.00\t4.00\t3.00\t5.00\t2\na\t1n1g_b128_fp32\t1.00\t1.00\t1.00\t1.00\t1')" ]
}

@test "the same key of two frameworks is two configurations" {
	run -0 median7 <<'IN'
a	1n1g_b128_fp32	1	1.00
b	1n1g_b128_fp32	1	2.00
IN
	[ "$output" = "$(printf 'a\t1n1g_b128_fp32\t1.00\t1.00\t1.00\t1.00\t1\nb\t1n1g_b128_fp32\t2.00\t2.00\t2.00\t2.00\t1')" ]
}

@test "files are read in order, - is stdin" {
	printf 'a\t1n1g_b128_fp32\t2\t3.00\n' > "$BATS_TEST_TMPDIR/x"
	run -0 bash -c "printf 'a\t1n1g_b128_fp32\t1\t1.00\n' | median - '$BATS_TEST_TMPDIR/x' | cut -f1-7"
	[ "$output" = "$(printf 'a\t1n1g_b128_fp32\t2.00\t2.00\t1.00\t3.00\t2')" ]
}

@test "empty input gives empty output" {
	run -0 --separate-stderr median /dev/null
	[ -z "$output" ]
	[ -z "$stderr" ]
}

@test "a run met twice is an error naming file and line" {
	printf 'pytorch\t1n1g_b128_fp32\t1\t1.00\npytorch\t1n1g_b128_fp32\t2\t2.00\npytorch\t1n1g_b128_fp32\t1\t3.00\n' > "$BATS_TEST_TMPDIR/r"
	run -1 --separate-stderr median "$BATS_TEST_TMPDIR/r"
	[ -z "$output" ]
	[ "$stderr" = "median: $BATS_TEST_TMPDIR/r:3: duplicate run 1 of pytorch 1n1g_b128_fp32" ]
}

@test "a run met twice in two files is an error too" {
	printf 'pytorch\t1n1g_b128_fp32\t1\t1.00\n' > "$BATS_TEST_TMPDIR/a"
	run -1 --separate-stderr median "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/a"
	[ "$stderr" = "median: $BATS_TEST_TMPDIR/a:1: duplicate run 1 of pytorch 1n1g_b128_fp32" ]
}

@test "3,000 configurations with interleaved runs: in the order first met, and a run met twice among them found" {
	awk 'BEGIN { for (r = 1; r <= 2; r++) for (i = 1; i <= 3000; i++)
		printf "f%d\t1n1g_b%d_fp32\t%d\t%d.00\n", i % 7, i, r, i + r }' > "$BATS_TEST_TMPDIR/many"
	run -0 median7 "$BATS_TEST_TMPDIR/many"
	[ "$output" = "$(awk 'BEGIN { for (i = 1; i <= 3000; i++)
		printf "f%d\t1n1g_b%d_fp32\t%.2f\t%.2f\t%d.00\t%d.00\t2\n", i % 7, i, i + 1.5, i + 1.5, i + 1, i + 2 }')" ]
	printf 'f1\t1n1g_b2997_fp32\t1\t5.00\n' >> "$BATS_TEST_TMPDIR/many"
	run -1 --separate-stderr median "$BATS_TEST_TMPDIR/many"
	[ "$stderr" = "median: $BATS_TEST_TMPDIR/many:6001: duplicate run 1 of f1 1n1g_b2997_fp32" ]
}

@test "-c dlperf lets a later run replace the earlier one in its place" {
	run -0 median -c dlperf <<'IN'
a	1n1g_b128_fp32	1	1.00
a	1n1g_b128_fp32	2	2.00
a	1n1g_b128_fp32	1	9.00
IN
	[ "$output" = "$(printf 'a\t1n1g_b128_fp32\t5.50\t5.50\t2.00\t9.00\t2')" ]
}

@test "# mode=dlperf in the input selects DLPerf's mode, as -c dlperf does" {
	run -0 median <<'IN'
# mode=dlperf
a	1n1g_b128_fp32	1	1.00
a	1n1g_b128_fp32	2	2.00
a	1n1g_b128_fp32	1	9.00
IN
	[ "$output" = "$(printf '# mode=dlperf\na\t1n1g_b128_fp32\t5.50\t5.50\t2.00\t9.00\t2')" ]
}

@test "a meta line without mode= leaves the mode as it was" {
	run -1 --separate-stderr median <<'IN'
# note=dlperf model=resnet50
a	1n1g_b128_fp32	1	1.00
a	1n1g_b128_fp32	1	9.00
IN
	[ "$stderr" = "median: <stdin>:3: duplicate run 1 of a 1n1g_b128_fp32" ]
}

@test "an item named mode in launch's env line is data, not the stream's mode" {
	env='# env framework=a key=1n1g_b128_fp32 run=1 node=0 mode=train'
	run -0 --separate-stderr median <<<"$env"$'\na\t1n1g_b128_fp32\t1\t1.00\t2.00\t0.10\t-'
	[ "$output" = "$env"$'\na\t1n1g_b128_fp32\t1.00\t1.00\t1.00\t1.00\t1\t-\t-\t-\t-' ]
	run -1 --separate-stderr median <<<$'# source=x mode=train'
	[ "$stderr" = "median: <stdin>:1: mode 'train' is not dlperf" ]
}

@test "meta lines are copied unchanged, in input order, before the records" {
	run -0 median <<<$'# mode=dlperf\na\t1n1g_b128_fp32\t1\t1.00\n# x=1\ty=2\nb\t1n1g_b128_fp32\t1\t2.00\n#'
	[ "$output" = "$(printf '# mode=dlperf\n# x=1\ty=2\n#\na\t1n1g_b128_fp32\t1.00\t1.00\t1.00\t1.00\t1\nb\t1n1g_b128_fp32\t2.00\t2.00\t2.00\t2.00\t1')" ]
}

@test "a mode line after the first record is an error naming file and line" {
	printf 'a\t1n1g_b128_fp32\t1\t1.00\n' > "$BATS_TEST_TMPDIR/r"
	printf '# mode=dlperf\n' > "$BATS_TEST_TMPDIR/m"
	run -1 --separate-stderr median "$BATS_TEST_TMPDIR/r" "$BATS_TEST_TMPDIR/m"
	[ "$stderr" = "median: $BATS_TEST_TMPDIR/m:1: mode line after the first record" ]
}

@test "a mode other than dlperf is an error" {
	run -1 --separate-stderr median <<<$'# source=x mode=ours'
	[ -z "$output" ]
	[ "$stderr" = "median: <stdin>:1: mode 'ours' is not dlperf" ]
}

@test "a record with the wrong number of fields is an error" {
	run -1 --separate-stderr median <<<$'a\t1n1g_b128_fp32\t1'
	[ "$stderr" = "median: <stdin>:1: 3 fields, expected 4 or 7" ]
}

@test "a bad key is an error" {
	run -1 --separate-stderr median <<<$'a\t1n1g_128_fp32\t1\t2.00'
	[ "$stderr" = "median: <stdin>:1: key '1n1g_128_fp32' is not <N>n<G>g_b<B>_<prec>" ]
}

@test "a bad run number is an error" {
	run -1 --separate-stderr median <<<$'a\t1n1g_b128_fp32\tx1\t2.00'
	[ "$stderr" = "median: <stdin>:1: run 'x1' is not a non-negative integer" ]
}

@test "a zero speed is an error" {
	run -1 --separate-stderr median <<<$'a\t1n1g_b128_fp32\t1\t0.00'
	[ "$stderr" = "median: <stdin>:1: samples_per_s '0.00' is not positive" ]
}

@test "a NaN speed is an error" {
	run -1 --separate-stderr median <<<$'a\t1n1g_b128_fp32\t1\tnan'
	[ "$stderr" = "median: <stdin>:1: samples_per_s 'nan' is not a number" ]
}

@test "an unknown flag is a usage error" {
	run -2 --separate-stderr median -x
	[ -z "$output" ]
	[ "$stderr" = "usage: median [-c dlperf] [file ...]
  in:  framework key run samples_per_s [jitter_pct drift_pct steady]
  out: framework key median mean min max n ci_lo ci_hi cv_pct outliers
       (DLPerf's mode: framework key median mean min max n)" ]
}

@test "-c takes only dlperf" {
	run -2 --separate-stderr median -c ours
	[ "$stderr" = "median: -c: 'ours' is not dlperf" ]
}

@test "a missing file is an error" {
	run -1 --separate-stderr median "$BATS_TEST_TMPDIR/none"
	[ "$stderr" = "median: $BATS_TEST_TMPDIR/none: No such file or directory" ]
}

@test "a full disk is a failure" {
	run -1 --separate-stderr bash -c "median '$F/plsc.tsv' > /dev/full"
	[ "$stderr" = "median: <stdout>: write error: No space left on device" ]
}

# ---- never a silent wrong number ---------------------------------

@test "a speed that R2n's x100 overflows is an error, not inf (1e307)" {
	run -1 --separate-stderr median <<<$'a\t1n1g_b1_fp32\t1\t1e307'
	[ -z "$output" ]
	[ "$stderr" = "median: <stdin>:1: samples_per_s '1e307' overflows when rounded" ]
}

@test "a speed that rounds to 0.00 is an error, not 0.00 (0.001)" {
	run -1 --separate-stderr median <<<$'a\t1n1g_b1_fp32\t1\t0.001'
	[ -z "$output" ]
	[ "$stderr" = "median: <stdin>:1: samples_per_s '0.001' rounds to 0.00" ]
}

@test "a mean whose sum overflows is an error naming the configuration, not inf" {
	printf 'a\t1n1g_b1_fp32\t%s\t1.7e306\n' $(seq 120) > "$BATS_TEST_TMPDIR/big"
	run -1 --separate-stderr median "$BATS_TEST_TMPDIR/big"
	[ -z "$output" ]
	[ "$stderr" = "median: a 1n1g_b1_fp32: the sum of 120 samples_per_s overflows" ]
}

@test "a key part above 2^20 is not a key (9999999999n9999999999g_b9999999999_fp32)" {
	run -1 --separate-stderr median <<<$'a\t9999999999n9999999999g_b9999999999_fp32\t1\t5.00'
	[ "$stderr" = "median: <stdin>:1: key '9999999999n9999999999g_b9999999999_fp32' is not <N>n<G>g_b<B>_<prec>" ]
	run -1 --separate-stderr median <<<$'a\t1n1048577g_b1_fp32\t1\t5.00'
	[ "$stderr" = "median: <stdin>:1: key '1n1048577g_b1_fp32' is not <N>n<G>g_b<B>_<prec>" ]
	run -0 median7 <<<$'a\t1048576n1048576g_b1048576_fp32\t1\t5.00'
	[ "$output" = "$(printf 'a\t1048576n1048576g_b1048576_fp32\t5.00\t5.00\t5.00\t5.00\t1')" ]
}

@test "a NUL byte in a line is an error naming file and line, not a cut number (8940\\0.30)" {
	printf 'a\t1n1g_b1_fp32\t1\t8941.00\na\t1n1g_b1_fp32\t2\t8940\0.30\n' > "$BATS_TEST_TMPDIR/nul"
	run -1 --separate-stderr median "$BATS_TEST_TMPDIR/nul"
	[ -z "$output" ]
	[ "$stderr" = "median: $BATS_TEST_TMPDIR/nul:2: NUL byte in the line" ]
}

# ---- ours: interval, coefficient of variation, outliers (doc/statistics.md) ----

# Expected columns 8-11 of one configuration's runs, computed here with
# python3's statistics module and t quantiles from a printed table of
# Student's t (0.975; df 1-9), not from median's own code.
stats_want() { # speed ...
	python3 - "$@" <<'PY'
import statistics as st, sys
v = [float(x) for x in sys.argv[1:]]; n = len(v)
t975 = {1: 12.7062, 2: 4.3027, 3: 3.1824, 4: 2.7764, 5: 2.5706, 6: 2.4469, 7: 2.3646, 8: 2.3060, 9: 2.2622}
if n < 2:
    cols = ["-", "-", "-"]
else:
    m, s = st.mean(v), st.stdev(v); h = t975[n - 1] * s / n ** 0.5
    cols = ["%.2f" % (m - h), "%.2f" % (m + h), "%.2f" % (s / m * 100)]
med = st.median(v); mad = st.median([abs(x - med) for x in v]); k = 0.6745
if mad == 0:
    mad = st.mean([abs(x - med) for x in v]); k = 1 / 1.253314
out = [str(i + 1) for i, x in enumerate(v) if n >= 3 and mad > 0 and abs(k * (x - med) / mad) > 3.5]
print("\t".join(cols + [",".join(out) or "-"]))
PY
}

runs_of() { # speed ... -> window records of a/1n1g_b16_fp32, runs 1, 2, ...
	i=0
	for s in "$@"; do
		i=$((i + 1))
		printf 'a\t1n1g_b16_fp32\t%d\t%s\n' $i "$s"
	done
}

check_stats() { # speed ...
	run -0 --separate-stderr median < <(runs_of "$@")
	[ -z "$stderr" ]
	[ "$(cut -f8-11 <<<"$output")" = "$(stats_want "$@")" ]
}

@test "5 runs, one far off: the t-interval, CV and the outlier run 5 agree with python3" {
	check_stats 100.00 102.00 101.00 99.00 130.00
	[ "$(cut -f11 <<<"$output")" = 5 ]
}

@test "3 runs (t with 2 degrees of freedom) and 10 runs agree with python3" {
	check_stats 40.11 39.87 40.52
	[ "$(cut -f11 <<<"$output")" = - ]
	check_stats 354.44 354.61 353.62 354.02 354.47 351.20 354.30 354.90 354.10 354.00
	[ "$(cut -f11 <<<"$output")" = 6 ]
}

@test "MAD 0: the mean absolute deviation stands in for it (100 x4, 120 is an outlier)" {
	check_stats 100.00 100.00 100.00 100.00 120.00
	[ "$(cut -f11 <<<"$output")" = 5 ]
	check_stats 100.00 100.00 100.00
}

@test "one run has no interval, two runs no outliers: -" {
	check_stats 50.00
	[ "$(cut -f8-11 <<<"$output")" = "$(printf -- '-\t-\t-\t-')" ]
	check_stats 50.00 70.00
	[ "$(cut -f8-10 <<<"$output")" = "$(printf -- '-67.06\t187.06\t23.57')" ]
}

@test "outlier runs are named by their run numbers, ascending" {
	run -0 median <<<$'a\t1n1g_b16_fp32\t9\t10.00\na\t1n1g_b16_fp32\t3\t50.00\na\t1n1g_b16_fp32\t4\t10.10\na\t1n1g_b16_fp32\t7\t10.05\na\t1n1g_b16_fp32\t1\t90.00\na\t1n1g_b16_fp32\t2\t10.02'
	[ "$(cut -f11 <<<"$output")" = 1,3 ]
}

@test "window's steady columns are read and checked; DLPerf's mode keeps seven columns" {
	run -0 median <<<$'a\t1n1g_b16_fp32\t1\t10.00\t1.20\t-0.50\tsteady\na\t1n1g_b16_fp32\t2\t11.00\t-\t-\t-'
	[ "$(cut -f1-7 <<<"$output")" = "$(printf 'a\t1n1g_b16_fp32\t10.50\t10.50\t10.00\t11.00\t2')" ]
	run -1 --separate-stderr median <<<$'a\t1n1g_b16_fp32\t1\t10.00\t1.20\t-0.50\tmaybe'
	[ "$stderr" = "median: <stdin>:1: steady 'maybe' is not steady, drift or -" ]
	run -1 --separate-stderr median <<<$'a\t1n1g_b16_fp32\t1\t10.00\t-1\t-0.50\tsteady'
	[ "$stderr" = "median: <stdin>:1: jitter_pct '-1' is negative" ]
	run -0 median -c dlperf <<<$'a\t1n1g_b16_fp32\t1\t10.00\na\t1n1g_b16_fp32\t2\t11.00'
	[ "$output" = "$(printf 'a\t1n1g_b16_fp32\t10.50\t10.50\t10.00\t11.00\t2')" ]
}

@test "a standard deviation that overflows is an error naming the configuration, not inf" {
	run -1 --separate-stderr median <<<$'a\t1n1g_b16_fp32\t1\t1e306\na\t1n1g_b16_fp32\t2\t1.0'
	[ -z "$output" ]
	[ "$stderr" = "median: a 1n1g_b16_fp32: the standard deviation of 2 samples_per_s overflows" ]
	run -0 median -c dlperf <<<$'a\t1n1g_b16_fp32\t1\t1e306\na\t1n1g_b16_fp32\t2\t1.0'
}

# ---- runs that failed: outcome lines ---------------------------------------

@test "outcome lines pass on; a configuration is the median of its runs with records, n counts them; one whose runs all failed has no record" {
	run -0 --separate-stderr median "$F/failed.tsv"
	[ "$output" = "$(cat "$F/failed.expected")" ]
	[ -z "$stderr" ]
	[ "$(grep -c '^# outcome ' <<<"$output")" -eq 4 ]
	[ "$(grep -v '^#' <<<"$output" | cut -f2,7)" = "1n1g_b256_fp32	3
1n2g_b256_fp32	2" ]
}

@test "outcome lines from files after stdin, as make passes them; DLPerf's mode too" {
	printf '# outcome framework=a key=1n2g_b16_fp32 run=1 status=oom exit=1\n' > "$BATS_TEST_TMPDIR/1.outcome"
	run -0 bash -c "printf '# mode=dlperf\na\t1n1g_b16_fp32\t1\t100\n' | median - '$BATS_TEST_TMPDIR/1.outcome'"
	[ "$output" = "# mode=dlperf
# outcome framework=a key=1n2g_b16_fp32 run=1 status=oom exit=1
a	1n1g_b16_fp32	100.00	100.00	100.00	100.00	1" ]
}

@test "a run with a record and an outcome, or two outcomes, is an error naming the later line" {
	run -1 --separate-stderr bash -c "printf 'a\t1n1g_b16_fp32\t1\t100\n# outcome framework=a key=1n1g_b16_fp32 run=1 status=oom exit=1\n' | median"
	[ "$stderr" = "median: <stdin>:2: run 1 of a 1n1g_b16_fp32 has a record and an outcome (oom)" ]
	run -1 --separate-stderr bash -c "printf '# outcome framework=a key=1n1g_b16_fp32 run=1 status=failed exit=3\na\t1n1g_b16_fp32\t1\t100\n' | median"
	[ "$stderr" = "median: <stdin>:2: run 1 of a 1n1g_b16_fp32 has an outcome and a record" ]
	run -1 --separate-stderr bash -c "printf '# outcome framework=a key=1n1g_b16_fp32 run=1 status=oom exit=1\n# outcome framework=a key=1n1g_b16_fp32 run=1 status=timeout exit=124\n' | median"
	[ "$stderr" = "median: <stdin>:2: a second outcome of run 1 of a 1n1g_b16_fp32" ]
}

@test "an outcome line is read by the meta lines' one grammar: its errors, exact" {
	bad() {
		run -1 --separate-stderr bash -c "printf '%s\n' '$1' | median"
		[ "$stderr" = "median: <stdin>:1: $2" ] || { echo "$1: $stderr"; false; }
	}
	bad '# outcome framework=a key=1n1g_b16 run=1 status=oom exit=1' \
		"outcome line: key '1n1g_b16' is not <N>n<G>g_b<B>_<prec>"
	bad '# outcome framework=a key=1n1g_b16_fp32 run=1 status=oops exit=1' \
		"outcome line: status 'oops' is not oom, failed or timeout"
	bad '# outcome framework=a key=1n1g_b16_fp32 run=1 status=oom exit=0' \
		"outcome line: exit '0' is not a status 1..255"
	bad '# outcome framework=a key=1n1g_b16_fp32 run=1 exit=1 status=oom' \
		"outcome line: 'exit=1' where status= was expected"
	bad '# outcome framework=a key=1n1g_b16_fp32 run=1 status=oom' \
		"outcome line: 1 item after run=, expected 2 or 3"
	bad '# outcome framework=a key=1n1g_b16_fp32 run=1 status=oom exit=1 reason=a%G1' \
		"outcome line: 'reason=a%G1': '%G1' is not %XX (XX two hex digits, not 00)"
	bad '# outcome key=1n1g_b16_fp32 run=1 status=oom exit=1' \
		"outcome line: framework=<framework> expected, not 'key=1n1g_b16_fp32'"
	bad '# outcome framework=a key=1n1g_b16_fp32 run=x status=oom exit=1' \
		"outcome line: run 'x' is not a whole number"
}
