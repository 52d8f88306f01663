#!/usr/bin/env bats
# speedup: median records -> the same records with speedup appended.
# Fixtures: tests/fixtures/speedup/<case>.tsv are the median records of
# DLPerf's sample outputs (tests/fixtures/median/); <case>.expected adds the
# published speedups (doc/dlperf.md, "Published tables").

bats_require_minimum_version 1.5.0
load helper

F="$FIXTURES/speedup"

check_case() {
	run -0 --separate-stderr speedup "$F/$1.tsv"
	[ "$output" = "$(cat "$F/$1.expected")" ]
	[ -z "$stderr" ]
}

@test "PyTorch examples (DALI) speedups are the published ones" {
	check_case pytorch
}

@test "NGC PyTorch AMP speedups are the published ones" {
	check_case ngc-pytorch
}

@test "NGC TensorFlow 1.15 speedups are the published ones" {
	check_case ngc-tensorflow
}

@test "TensorFlow 2.3 speedups are the published ones" {
	check_case tensorflow
}

@test "PaddlePaddle 1.8.3 speedups are the published ones" {
	check_case paddle
}

@test "NGC MXNet speedups are the published ones" {
	check_case ngc-mxnet
}

@test "MXNet gluon-cv speedups are the published ones" {
	check_case mxnet
}

@test "MindSpore speedups are the published ones" {
	check_case mindspore
}

@test "OneFlow InsightFace speedups are the published ones" {
	check_case insightface
}

@test "PaddlePaddle PLSC speedups are the published ones" {
	check_case plsc
}

@test "OneFlow's 2020-08-21 report medians give its printed speedups" {
	run -0 speedup <<'IN'
oneflow	1n1g_b128_fp32	384.85	384.22	382.31	385.07	7
oneflow	1n8g_b128_fp32	2969.45	2977.44	2961.61	3006.33	7
oneflow	2n8g_b128_fp32	5906.55	5895.15	5826.49	5974.30	7
oneflow	4n8g_b128_fp32	11711.18	11707.43	11613.26	11797.74	7
IN
	[ "${lines[0]##*$'\t'}" = 1.00 ]
	[ "${lines[1]##*$'\t'}" = 7.72 ]
	[ "${lines[2]##*$'\t'}" = 15.35 ]
	[ "${lines[3]##*$'\t'}" = 30.43 ]
}

@test "each batch size has its own base (OneFlow's 0.2.0 report, FP32)" {
	run -0 speedup <<'IN'
oneflow	1n1g_b144_fp32	394.87	394.87	394.87	394.87	1
oneflow	2n8g_b144_fp32	6254.94	6254.94	6254.94	6254.94	1
oneflow	4n8g_b144_fp32	12407.59	12407.59	12407.59	12407.59	1
oneflow	1n1g_b128_fp32	397.64	397.64	397.64	397.64	1
oneflow	1n8g_b128_fp32	3130.34	3130.34	3130.34	3130.34	1
oneflow	2n8g_b128_fp32	6260.30	6260.30	6260.30	6260.30	1
oneflow	4n8g_b128_fp32	12411.97	12411.97	12411.97	12411.97	1
oneflow	1n1g_b96_fp32	394.62	394.62	394.62	394.62	1
oneflow	1n8g_b96_fp32	3095.36	3095.36	3095.36	3095.36	1
oneflow	2n8g_b96_fp32	6141.07	6141.07	6141.07	6141.07	1
oneflow	4n8g_b96_fp32	12162.41	12162.41	12162.41	12162.41	1
IN
	speedups=$(printf '%s\n' "${lines[@]}" | cut -f 8 | tr '\n' ' ')
	[ "$speedups" = "1.00 15.84 31.42 1.00 7.87 15.74 31.21 1.00 7.84 15.56 30.82 " ]
}

@test "the base may come after the cases that need it" {
	run -0 speedup <<'IN'
a	1n8g_b16_fp32	8.00	8.00	8.00	8.00	1
a	1n1g_b16_fp32	3.00	3.00	3.00	3.00	1
IN
	[ "$output" = "$(printf 'a\t1n8g_b16_fp32\t8.00\t8.00\t8.00\t8.00\t1\t2.67\na\t1n1g_b16_fp32\t3.00\t3.00\t3.00\t3.00\t1\t1.00')" ]
}

@test "a configuration without its 1n1g base is an error and nothing is written" {
	run -1 --separate-stderr speedup <<'IN'
pytorch	1n1g_b256_fp32	100.00	100.00	100.00	100.00	1
pytorch	1n8g_b128_fp32	800.00	800.00	800.00	800.00	1
IN
	[ -z "$output" ]
	[ "$stderr" = "speedup: <stdin>:2: no 1n1g base for pytorch 1n8g_b128_fp32 (need 1n1g_b128_fp32)" ]
}

@test "another framework's 1n1g is not a base" {
	run -1 --separate-stderr speedup <<'IN'
tensorflow	1n1g_b128_fp32	100.00	100.00	100.00	100.00	1
pytorch	1n8g_b128_fp32	800.00	800.00	800.00	800.00	1
IN
	[ "$stderr" = "speedup: <stdin>:2: no 1n1g base for pytorch 1n8g_b128_fp32 (need 1n1g_b128_fp32)" ]
}

@test "an fp16 base does not serve an amp case (no silent alias)" {
	run -1 --separate-stderr speedup <<'IN'
ngc-pytorch	1n1g_b256_fp16	802.90	801.31	793.90	803.69	5
ngc-pytorch	4n8g_b256_amp	22551.16	22599.43	22053.98	23049.75	5
IN
	[ "$stderr" = "speedup: <stdin>:2: no 1n1g base for ngc-pytorch 4n8g_b256_amp (need 1n1g_b256_amp)" ]
}

@test "meta lines are copied unchanged, each before the records that followed it" {
	run -0 speedup <<<$'# mode=dlperf\na\t1n8g_b16_fp32\t8.00\t8.00\t8.00\t8.00\t1\n# x=1\ty=2\na\t1n1g_b16_fp32\t3.00\t3.00\t3.00\t3.00\t1\n# end'
	[ "$output" = "$(printf '# mode=dlperf\na\t1n8g_b16_fp32\t8.00\t8.00\t8.00\t8.00\t1\t2.67\n# x=1\ty=2\na\t1n1g_b16_fp32\t3.00\t3.00\t3.00\t3.00\t1\t1.00\n# end')" ]
}

@test "window's energy lines pass through median and speedup as they are; a malformed one is an error" {
	e='# energy framework=a key=1n1g_b16_fp32 run=1 joules=12.5 samples=16 how=rapl:2'
	n='# energy framework=a key=1n1g_b16_fp32 run=2 reason=node%200:%20no%20counter'
	run -0 --separate-stderr bash -c "printf 'a\t1n1g_b16_fp32\t1\t3.00\na\t1n1g_b16_fp32\t2\t3.00\n%s\n%s\n' '$e' '$n' | median | speedup"
	[ "${lines[0]}" = "$e" ] && [ "${lines[1]}" = "$n" ]
	[[ "${lines[2]}" == a$'\t'1n1g_b16_fp32$'\t'3.00$'\t'* ]]
	run -1 --separate-stderr speedup <<<'# energy framework=a key=1n1g_b16_fp32 run=1 joules=x samples=16 how=rapl:2'
	[ "$stderr" = "speedup: <stdin>:1: energy line: joules 'x' is not a number >= 0" ]
}

@test "median's mode line passes through median and speedup" {
	run -0 bash -c "{ echo '# mode=dlperf'; cat '$FIXTURES/median/plsc.tsv'; } | median | speedup"
	[ "$output" = "$(echo '# mode=dlperf'; cat "$F/plsc.expected")" ]
}

@test "the medians are divided as read, each rounded once by median, and copied as read" {
	run -0 speedup <<'IN'
a	1n1g_b16_fp32	1.004	1.0	1	1.01	1
a	1n8g_b16_fp32	100.0	100	100	100	1
IN
	[ "$output" = "$(printf 'a\t1n1g_b16_fp32\t1.004\t1.0\t1\t1.01\t1\t1.00\na\t1n8g_b16_fp32\t100.0\t100\t100\t100\t1\t99.60')" ]
}

@test "a configuration met twice is an error naming file and line" {
	run -1 --separate-stderr speedup <<'IN'
a	1n1g_b16_fp32	3.00	3.00	3.00	3.00	1
a	1n1g_b16_fp32	3.00	3.00	3.00	3.00	1
IN
	[ "$stderr" = "speedup: <stdin>:2: duplicate configuration a 1n1g_b16_fp32" ]
}

@test "a record with the wrong number of fields is an error" {
	run -1 --separate-stderr speedup <<<$'a\t1n1g_b16_fp32\t3.00\t3.00\t3.00\t3.00'
	[ "$stderr" = "speedup: <stdin>:1: 6 fields, expected 7" ]
}

@test "a zero median is an error" {
	run -1 --separate-stderr speedup <<<$'a\t1n1g_b16_fp32\t0.00\t3.00\t3.00\t3.00\t1'
	[ "$stderr" = "speedup: <stdin>:1: median '0.00' is not positive" ]
}

@test "a bad count is an error" {
	run -1 --separate-stderr speedup <<<$'a\t1n1g_b16_fp32\t3.00\t3.00\t3.00\t3.00\t0'
	[ "$stderr" = "speedup: <stdin>:1: n '0' is not a positive integer" ]
}

@test "a bad key is an error" {
	run -1 --separate-stderr speedup <<<$'a\t1n1g_b16_fp31\t3.00\t3.00\t3.00\t3.00\t1'
	[ "$stderr" = "speedup: <stdin>:1: key '1n1g_b16_fp31' is not <N>n<G>g_b<B>_<prec>" ]
}

@test "empty input gives empty output" {
	run -0 --separate-stderr speedup /dev/null
	[ -z "$output" ]
	[ -z "$stderr" ]
}

@test "a flag is a usage error" {
	run -2 --separate-stderr speedup -x
	[ "$stderr" = "usage: speedup [file ...]
  in:  framework key median mean min max n [ci_lo ci_hi cv_pct outliers]
  out: the record, speedup [speedup_pm efficiency] (- when the 1n1g base's
       runs all failed: its # outcome lines)" ]
}

@test "a full disk is a failure" {
	run -1 --separate-stderr bash -c "speedup '$F/plsc.tsv' > /dev/full"
	[ "$stderr" = "speedup: <stdout>: write error: No space left on device" ]
}

@test "a meta line is passed on whole, however many tabs it holds" {
	line="# host=a$(printf '\tx=%d' $(seq 1 20))"
	run -0 speedup <<<"$line"
	[ "$output" = "$line" ]
}

# ---- never a silent wrong number ---------------------------------

@test "medians below 0.005 are divided as read, not rounded to 0 first (0/0 gave -nan)" {
	run -0 speedup <<<$'a\t1n1g_b1_fp32\t0.001\t0.001\t0.001\t0.001\t1'
	[ "$output" = "$(printf 'a\t1n1g_b1_fp32\t0.001\t0.001\t0.001\t0.001\t1\t1.00')" ]
}

@test "a speedup that rounds to 0.00 is an error naming its record, and nothing is written" {
	run -1 --separate-stderr speedup <<'IN'
a	1n1g_b1_fp32	1	1	1	1	1
a	2n1g_b1_fp32	0.001	0.001	0.001	0.001	1
IN
	[ -z "$output" ]
	[ "$stderr" = "speedup: <stdin>:2: speedup 0.001 / 1 rounds to 0.00" ]
}

@test "an efficiency that rounds to 0.00 is an error naming its record, and nothing is written" {
	# 1.94 x on 2231 devices: the line would stop at its speedup
	run -1 --separate-stderr speedup <<'IN'
a	1n1g_b1_fp32	100	100	100	100	3	99	101	0.5	-
a	1n2231g_b1_fp32	194	194	194	194	3	193	195	0.5	-
IN
	[ -z "$output" ]
	[ "$stderr" = "speedup: <stdin>:2: efficiency 0.000869565 of a 1n2231g_b1_fp32 is not above 0.00" ]
}

@test "an error quoting bad input is one line: a decoded newline is written as ?" {
	run -1 --separate-stderr speedup <<<'# outcome framework=a key=1n1g_b1%0Afp32 run=1 status=oom exit=1'
	[ "$stderr" = "speedup: <stdin>:1: outcome line: key '1n1g_b1?fp32' is not <N>n<G>g_b<B>_<prec>" ]
}

@test "a speedup that overflows is an error naming its record, not inf" {
	run -1 --separate-stderr speedup <<'IN'
a	1n1g_b1_fp32	1e-300	1e-300	1e-300	1e-300	1
a	2n1g_b1_fp32	1e300	1e300	1e300	1e300	1
IN
	[ -z "$output" ]
	[ "$stderr" = "speedup: <stdin>:2: speedup 1e300 / 1e-300 overflows" ]
}

@test "min above max, or a median or mean outside them, is bad input" {
	run -1 --separate-stderr speedup <<<$'a\t1n1g_b1_fp32\t1\t1\t5\t2\t1'
	[ "$stderr" = "speedup: <stdin>:1: min '5' is above max '2'" ]
	run -1 --separate-stderr speedup <<<$'a\t1n1g_b1_fp32\t3\t1.5\t1\t2\t1'
	[ "$stderr" = "speedup: <stdin>:1: median '3' is outside min..max '1'..'2'" ]
	run -1 --separate-stderr speedup <<<$'a\t1n1g_b1_fp32\t1.5\t0.5\t1\t2\t1'
	[ "$stderr" = "speedup: <stdin>:1: mean '0.5' is outside min..max '1'..'2'" ]
}

@test "a key part above 2^20 is not a key (9999999999n9999999999g_b9999999999_fp32)" {
	run -1 --separate-stderr speedup <<<$'a\t9999999999n9999999999g_b9999999999_fp32\t3.00\t3.00\t3.00\t3.00\t1'
	[ "$stderr" = "speedup: <stdin>:1: key '9999999999n9999999999g_b9999999999_fp32' is not <N>n<G>g_b<B>_<prec>" ]
	run -1 --separate-stderr speedup <<<$'a\t1n1g_b1048577_fp32\t3.00\t3.00\t3.00\t3.00\t1'
	[ "$stderr" = "speedup: <stdin>:1: key '1n1g_b1048577_fp32' is not <N>n<G>g_b<B>_<prec>" ]
}

@test "a configuration met twice far apart is still a duplicate (found by a tree)" {
	{ for b in $(seq 1 300); do printf 'a\t1n1g_b%s_fp32\t3.00\t3.00\t3.00\t3.00\t1\n' "$b"; done
	  printf 'a\t1n1g_b7_fp32\t3.00\t3.00\t3.00\t3.00\t1\n'; } > "$BATS_TEST_TMPDIR/d"
	run -1 --separate-stderr speedup "$BATS_TEST_TMPDIR/d"
	[ "$stderr" = "speedup: $BATS_TEST_TMPDIR/d:301: duplicate configuration a 1n1g_b7_fp32" ]
}

# ---- ours: the speedup's half-width and the efficiency (doc/statistics.md) ----

@test "the speedup's half-width adds the relative half-widths in quadrature; efficiency per device" {
	in=$'a\t1n1g_b16_fp32\t100.00\t100.00\t97.00\t103.00\t3\t98.00\t102.00\t2.00\t-\na\t1n2g_b16_fp32\t190.00\t190.00\t180.00\t200.00\t3\t182.40\t197.60\t3.00\t2'
	run -0 --separate-stderr speedup <<<"$in"
	[ -z "$stderr" ]
	want=$(python3 -c 'import math
r = lambda lo, hi, m: (hi - lo) / 2 / m
s = round(190 / 100, 2); pm = s * math.hypot(r(98, 102, 100), r(182.4, 197.6, 190))
print("1.00\t0.00\t1.00\n%.2f\t%.2f\t%.2f" % (s, pm, 190 / 100 / 2))')
	[ "$(cut -f12-14 <<<"$output")" = "$want" ]
	[ "$(cut -f1-11 <<<"$output")" = "$(cut -f1-11 <<<"$in")" ]
}

@test "no interval on either side: the half-width is -, the efficiency is still there" {
	run -0 speedup <<<$'a\t1n1g_b16_fp32\t100.00\t100.00\t100.00\t100.00\t1\t-\t-\t-\t-\na\t1n4g_b16_fp32\t300.00\t300.00\t290.00\t310.00\t2\t172.94\t427.06\t4.71\t-'
	[ "$(cut -f12-14 <<<"$output")" = "$(printf '1.00\t0.00\t1.00\n3.00\t-\t0.75')" ]
}

@test "a bad interval in a median record is an error naming file and line" {
	run -1 --separate-stderr speedup <<<$'a\t1n1g_b16_fp32\t100.00\t100.00\t100.00\t100.00\t2\t103.00\t99.00\t1.00\t-'
	[ "$stderr" = "speedup: <stdin>:1: ci_lo '103.00' is above ci_hi '99.00'" ]
	run -1 --separate-stderr speedup <<<$'a\t1n1g_b16_fp32\t100.00\t100.00\t100.00\t100.00\t2\t99.00\t101.00\t1.00\t3;4'
	[ "$stderr" = "speedup: <stdin>:1: outliers '3;4' is not run numbers joined by ','" ]
}

# ---- runs that failed: outcome lines ---------------------------------------

@test "a 1n1g whose runs all failed (its outcome lines, no record): the others get - for speedup, its ± and efficiency" {
	run -0 --separate-stderr speedup "$F/failed.tsv"
	[ "$output" = "$(cat "$F/failed.expected")" ]
	[ "$(grep -v '^#' <<<"$output" | cut -f1,2,12-)" = "bench	1n2g_b64_fp32	-	-	-
bench	1n4g_b64_fp32	-	-	-" ]
	[ "$(grep -c "^# outcome " <<<"$output")" -eq 5 ]
	run -0 bash -c "printf '# mode=dlperf\n# outcome framework=a key=1n1g_b16_fp32 run=1 status=oom exit=1\na\t1n2g_b16_fp32\t9.00\t9.00\t9.00\t9.00\t1\n' | speedup"
	[ "${lines[2]}" = "a	1n2g_b16_fp32	9.00	9.00	9.00	9.00	1	-" ]
}

@test "a base with a record and some failed runs is a base; another framework's, batch's or a 2n1g outcome is not" {
	run -0 bash -c "printf '# outcome framework=a key=1n1g_b16_fp32 run=2 status=oom exit=1\na\t1n1g_b16_fp32\t4.00\t4.00\t4.00\t4.00\t1\na\t1n2g_b16_fp32\t8.00\t8.00\t8.00\t8.00\t1\n' | speedup"
	[ "${lines[2]}" = "a	1n2g_b16_fp32	8.00	8.00	8.00	8.00	1	2.00" ]
	for o in 'framework=b key=1n1g_b16_fp32' 'framework=a key=1n1g_b32_fp32' 'framework=a key=2n1g_b16_fp32'; do
		run -1 --separate-stderr bash -c "printf '# outcome $o run=1 status=oom exit=1\na\t1n2g_b16_fp32\t8.00\t8.00\t8.00\t8.00\t1\n' | speedup"
		[ "$stderr" = "speedup: <stdin>:2: no 1n1g base for a 1n2g_b16_fp32 (need 1n1g_b16_fp32)" ]
	done
}
