#!/usr/bin/env bats
# window: grep-iters records -> one throughput per run.
# Fixtures (tests/fixtures/window/): energy.tsv (a 2-node run with
# launch's energy samples, the joules worked out by hand in its test); the frameworks' sample lines as
# grep-iters records written by hand: sample-a.tsv (PyTorch sample A as
# 2n8g_b128_fp32, run 1), sample-b.tsv (sample B as 4n8g_b128_fp32, grouped
# by iteration) and sample-b-lines.tsv (the same in file order, the records
# of grep-iters -c dlperf without its mode line), dll.tsv (NGC PyTorch's DLL
# sample as 2n8g_b128_fp32, stamps in UTC), oneflow.tsv and bert.tsv (the
# OneFlow docstrings). dlperf/ holds one log per format for DLPerf's mode,
# made by dlperf/make.py with numpy; <name>.expected is its expected output.

bats_require_minimum_version 1.5.0
load helper

F="$FIXTURES/window"

# window's first four columns (the throughput), no drift warnings: the
# tests of jitter and drift are at the end.
window4() {
	window -d 1000 "$@" > "$BATS_TEST_TMPDIR/w4" || return
	cut -f1-4 "$BATS_TEST_TMPDIR/w4"
}

rec() { # framework format key run iter ts step rate -> a record, loss 6.9
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t6.9\n' "$@"
}

# ---- the samples, every case (doc/dlperf.md) ------------------------------

@test "sample A, time, skip 0 count 5: 726.40 (reads 12.054 in full)" {
	run -0 window4 -s 0 -n 5 "$F/sample-a.tsv"
	[ "$output" = "$(printf 'pytorch\t2n8g_b128_fp32\t1\t726.40')" ]
}

@test "sample A, time, skip 1 count 4: 4009.79" {
	run -0 window4 -s 1 -n 4 "$F/sample-a.tsv"
	[ "$output" = "$(printf 'pytorch\t2n8g_b128_fp32\t1\t4009.79')" ]
}

@test "sample A, time, skip 2 count 3: 5726.00" {
	run -0 window4 -s 2 -n 3 "$F/sample-a.tsv"
	[ "$output" = "$(printf 'pytorch\t2n8g_b128_fp32\t1\t5726.00')" ]
}

@test "sample A, default window: 5 iterations, need 120" {
	run -1 --separate-stderr window "$F/sample-a.tsv"
	[ -z "$output" ]
	[[ $stderr == "window: "*:[0-9]*": pytorch/2n8g_b128_fp32/1: 5 iterations, need 120" ]]
}

@test "sample A, DLPerf arguments 0 / 3: no kept lines is an error, not 0" {
	run -1 --separate-stderr window -c dlperf -s 0 -n 3 "$F/sample-a.tsv"
	[ -z "$output" ]
	[[ $stderr == "window: "*:[0-9]*": pytorch/2n8g_b128_fp32/1: 0 kept lines, need 3" ]]
}

@test "sample B, time, skip 11 count 3: 8285.91" {
	run -0 window4 -s 11 -n 3 "$F/sample-b.tsv"
	[ "$output" = "$(printf 'pytorch\t4n8g_b128_fp32\t1\t8285.91')" ]
}

@test "sample B in file order, -c dlperf arguments 0 / 3 (kept lines 1-3): 8285.91" {
	run -0 window4 -c dlperf -s 0 -n 3 "$F/sample-b-lines.tsv"
	[ "$output" = "$(printf 'pytorch\t4n8g_b128_fp32\t1\t8285.91')" ]
}

@test "sample B, time, skip 0 count 6: 1567.15" {
	run -0 window4 -s 0 -n 6 "$F/sample-b.tsv"
	[ "$output" = "$(printf 'pytorch\t4n8g_b128_fp32\t1\t1567.15')" ]
}

@test "sample B, skip 0 count 14: the gap 7-11 is an error" {
	run -1 --separate-stderr window -s 0 -n 14 "$F/sample-b.tsv"
	[[ $stderr == "window: "*:[0-9]*": pytorch/4n8g_b128_fp32/1: iterations 7-11 missing" ]]
}

@test "DLL sample, time, skip 6 count 6: 5137.30 from integer microseconds" {
	run -0 window4 -s 6 -n 6 "$F/dll.tsv"
	[ "$output" = "$(printf 'ngc-pytorch\t2n8g_b128_fp32\t1\t5137.30')" ]
}

@test "DLL sample, -c dlperf arguments 1 / 7: 5137.30 (DLPerf printed 5137.3)" {
	run -0 window4 -c dlperf -s 1 -n 6 "$F/dll.tsv"
	[ "$output" = "$(printf 'ngc-pytorch\t2n8g_b128_fp32\t1\t5137.30')" ]
}

@test "DLL sample, time, skip 1 count 11: 4434.64" {
	run -0 window4 -s 1 -n 11 "$F/dll.tsv"
	[ "$output" = "$(printf 'ngc-pytorch\t2n8g_b128_fp32\t1\t4434.64')" ]
}

@test "DLL sample, rate, skip 6 count 6: 10290.80" {
	run -0 window4 -m rate -s 6 -n 6 "$F/dll.tsv"
	[ "$output" = "$(printf 'ngc-pytorch\t2n8g_b128_fp32\t1\t10290.80')" ]
}

@test "DLL sample, time, skip 0 count 12: no timestamp for the end of iteration 0" {
	run -1 --separate-stderr window -s 0 -n 12 "$F/dll.tsv"
	[[ $stderr == "window: "*:[0-9]*": ngc-pytorch/2n8g_b128_fp32/1: no timestamp for the end of iteration 0" ]]
}

@test "DLL sample, default window: 12 iterations, need 120" {
	run -1 --separate-stderr window "$F/dll.tsv"
	[[ $stderr == "window: "*:[0-9]*": ngc-pytorch/2n8g_b128_fp32/1: 12 iterations, need 120" ]]
}

@test "OneFlow cnns sample, skip 20 count 100: 5915.65 (difference of doubles)" {
	run -0 window4 "$F/oneflow.tsv"
	[ "$output" = "$(printf 'oneflow\t2n8g_b128_fp32\t0\t5915.65')" ]
}

@test "OneFlow cnns sample, -c dlperf: 5915.65 as DLPerf printed" {
	run -0 window4 -c dlperf "$F/oneflow.tsv"
	[ "$output" = "$(printf 'oneflow\t2n8g_b128_fp32\t0\t5915.65')" ]
}

@test "OneFlow cnns sample, skip 20 count 50: no record ends at iteration 70" {
	run -1 --separate-stderr window -s 20 -n 50 "$F/oneflow.tsv"
	[[ $stderr == "window: "*:[0-9]*": oneflow/2n8g_b128_fp32/0: no record ends at iteration 70" ]]
}

@test "OneFlow 0.1.8 sample (no stamps), ours: 20 x TB / samples/s of iterations 21-120 summed, 385.52" {
	run -0 --separate-stderr bash -c "grep-iters '$FIXTURES/grep-iters/oneflow/1n1g/r50_b128_fp32_1.log' | window -d 1000 | cut -f 1-4"
	[ "$output" = "$(printf 'oneflow\t1n1g_b128_fp32\t1\t385.52')" ]
	want=$(awk 'BEGIN { t = 0; split("385.628 386.264 385.723 384.622 385.367", r, " ")
		for (i = 1; i <= 5; i++) t += 20 * 128 / r[i]; printf "%.2f", 128 * 100 / t }')
	[ "$want" = 385.52 ]
}

@test "OneFlow 0.1.8 sample, -c dlperf: its report's rule, the mean of every samples/s after the first, 385.10" {
	run -0 --separate-stderr bash -c "grep-iters -c dlperf '$FIXTURES/grep-iters/oneflow/1n1g/r50_b128_fp32_1.log' | window"
	[ "$output" = "$(printf '# mode=dlperf\noneflow\t1n1g_b128_fp32\t1\t385.10')" ]
	want=$(awk 'BEGIN { split("385.628 386.264 385.723 384.622 385.367 384.704 384.927 384.109 384.517", r, " ")
		for (i = 1; i <= 9; i++) t += r[i]; printf "%.2f", t / 9 }')
	[ "$want" = 385.10 ]
	# -s: the records ending after it; the log must reach s + n
	run -0 --separate-stderr bash -c "grep-iters -c dlperf '$FIXTURES/grep-iters/oneflow/1n1g/r50_b128_fp32_1.log' | window -s 100 -n 100 | cut -f 4"
	[ "${lines[1]}" = "$(awk 'BEGIN { printf "%.2f", (385.367 + 384.704 + 384.927 + 384.109 + 384.517) / 5 }')" ]
	run -1 --separate-stderr bash -c "head -5 '$FIXTURES/grep-iters/oneflow/1n1g/r50_b128_fp32_1.log' | grep-iters -c dlperf -k 1n1g_b128_fp32 | window"
	[[ $stderr == "window: <stdin>:"*": oneflow/1n1g_b128_fp32/1: 100 iterations, need 120" ]]
}

@test "OneFlow BERT sample, skip 20 count 100: 140.20" {
	run -0 window4 "$F/bert.tsv"
	[ "$output" = "$(printf 'oneflow-bert\t1n1g_b24_fp32\t0\t140.20')" ]
}

# ("path says 1 node, body 2" is grep-iters' error: window never sees paths.)

# ---- DLPerf's mode, one format each (doc/dlperf.md) ------------------------

# With -c dlperf, and as grep-iters -c dlperf writes it: the mode line
# first, which window copies.
check_dlperf() {
	run -0 --separate-stderr window4 -c dlperf "$F/dlperf/$1.tsv"
	[ "$output" = "$(cat "$F/dlperf/$1.expected")" ]
	[ -z "$stderr" ]
	run -0 --separate-stderr bash -c 'echo "# mode=dlperf" | cat - "$1" | window' _ "$F/dlperf/$1.tsv"
	[ "$output" = "$(echo '# mode=dlperf'; cat "$F/dlperf/$1.expected")" ]
	[ -z "$stderr" ]
}

@test "-c dlperf pytorch: TB over the mean step of kept lines 21-120 (index > 5), R2p" {
	check_dlperf pytorch
}

@test "-c dlperf ngc-pytorch: stamps of kept lines 20 and 120 (iteration > 5)" {
	check_dlperf ngc-pytorch
}

@test "-c dlperf ngc-tensorflow: numpy mean of R2p rates of entries 1-100, R2n" {
	check_dlperf ngc-tensorflow
}

@test "-c dlperf tensorflow: mean of the rates of TimeHistory lines 2-6, R2n" {
	check_dlperf tensorflow
}

@test "-c dlperf paddle: mean of R4p(TB / elapse) of lines 21-120, R2n" {
	check_dlperf paddle
}

@test "-c dlperf plsc: two nodes average qps entries 11-30" {
	check_dlperf plsc
}

@test "-c dlperf plsc counts lines, N a period: a 2-node log of one line a period is too short, as DLPerf's window assumed" {
	awk 'BEGIN { for (b = 0; b <= 140; b += 10)
		printf "INFO 2021-03-12 10:15:%02d,331 entry.py:1024] Pass:0 batch:%d lr:0.1 loss:42.7 qps:5950.00\n", b / 10, b }' > "$BATS_TEST_TMPDIR/p.log"
	run -1 --separate-stderr bash -c "grep-iters -c dlperf -k 2n8g_b128_fp32 '$BATS_TEST_TMPDIR/p.log' | window"
	[[ $stderr == "window: "*": plsc/2n8g_b128_fp32/1: 15 lines, need 30" ]]
	# the same log with each line twice: entries 11-30 are batches 50-140
	awk '{ print; print }' "$BATS_TEST_TMPDIR/p.log" > "$BATS_TEST_TMPDIR/p2.log"
	run -0 --separate-stderr bash -c "grep-iters -c dlperf -k 2n8g_b128_fp32 '$BATS_TEST_TMPDIR/p2.log' | window | cut -f 4"
	[ "${lines[1]}" = 5950.00 ]
}

@test "-c dlperf ngc-mxnet: median over 4 ranks per row of R2p speeds, rows 21-120" {
	check_dlperf ngc-mxnet
}

@test "-c dlperf mxnet (gluon-cv): R2p speeds of lines 21-120, R2n" {
	check_dlperf mxnet
}

@test "-c dlperf means are numpy's pairwise sums (383.97, where a sequential sum gives 383.96)" {
	check_dlperf mxnet-pairwise
}

@test "-c dlperf mindspore: sink times past step 100 of all ranks, R2p" {
	check_dlperf mindspore
}

@test "-c dlperf oneflow-insightface: mean of 101 kept throughputs (DLPerf's off by one)" {
	check_dlperf insightface
}

@test "-c dlperf ngc-mxnet needs exactly 120 x W lines" {
	head -n 479 "$F/dlperf/ngc-mxnet.tsv" > "$BATS_TEST_TMPDIR/m"
	run -1 --separate-stderr window -c dlperf "$BATS_TEST_TMPDIR/m"
	[[ $stderr == "window: "*:[0-9]*": ngc-mxnet/1n4g_b128_fp32/1: 479 lines, need exactly 480" ]]
}

@test "-c dlperf ngc-tensorflow with too few lines is an error, not a shorter mean" {
	head -n 99 "$F/dlperf/ngc-tensorflow.tsv" > "$BATS_TEST_TMPDIR/t"
	run -1 --separate-stderr window -c dlperf "$BATS_TEST_TMPDIR/t"
	[[ $stderr == "window: "*:[0-9]*": ngc-tensorflow/1n1g_b128_fp32/1: 99 lines, need 100" ]]
}

@test "-c dlperf insightface with kept line 120 missing is an error" {
	head -n 124 "$F/dlperf/insightface.tsv" > "$BATS_TEST_TMPDIR/i"
	run -1 --separate-stderr window -c dlperf "$BATS_TEST_TMPDIR/i"
	[[ $stderr == "window: "*:[0-9]*": oneflow-insightface/1n1g_b115_fp32/1: 119 kept lines, need 120" ]]
}

@test "-c dlperf measures bench, which DLPerf never ran, our way" {
	for i in $(seq 1 120); do rec bench bench 1n1g_b16_fp32 7 "$i" - 0.5 - ; done > "$BATS_TEST_TMPDIR/b"
	run -0 window4 -c dlperf "$BATS_TEST_TMPDIR/b"
	[ "$output" = "$(printf 'bench\t1n1g_b16_fp32\t7\t32.00')" ]
}

@test "-c dlperf and -m exclude each other" {
	run -2 --separate-stderr window -c dlperf -m rate /dev/null
	[ "$stderr" = "window: -m: DLPerf's method is fixed per format with -c dlperf" ]
}

# ---- meta lines ---------------------------------------------------------------

@test "a mode line switches window to DLPerf's method; without it the same records are ours" {
	run -0 --separate-stderr bash -c '{ echo "# mode=dlperf"; cat "$1"; } | window -s 0 -n 3' _ "$F/sample-b-lines.tsv"
	[ "$output" = "$(printf '# mode=dlperf\npytorch\t4n8g_b128_fp32\t1\t8285.91')" ]
	run -1 --separate-stderr window -s 0 -n 3 "$F/sample-b-lines.tsv"
	[[ $stderr == "window: "*:[0-9]*": pytorch/4n8g_b128_fp32/1: iterations 1-3 missing" ]]
}

@test "grep-iters -c dlperf | window gives DLPerf's figure with the mode line first" {
	run -0 --separate-stderr bash -c 'grep-iters -c dlperf "$1" | window -s 0 -n 3' _ "$FIXTURES/grep-iters/pytorch/sample-b/4n8g/r50_b128_fp32_1.log"
	[ "$output" = "$(printf '# mode=dlperf\npytorch\t4n8g_b128_fp32\t1\t8285.91')" ]
	[ -z "$stderr" ]
}

@test "meta lines are copied to the output in input order" {
	run -0 --separate-stderr bash -c '{ echo "# mode=dlperf"; echo "# note=x  y=2"; cat "$1"; } | window' _ "$F/dlperf/tensorflow.tsv"
	[ "$output" = "$(echo '# mode=dlperf'; echo '# note=x  y=2'; cat "$F/dlperf/tensorflow.expected")" ]
}

@test "a mode line after the first record is an error naming file and line" {
	{ head -n 2 "$F/dlperf/tensorflow.tsv"; echo "# mode=dlperf"; tail -n +3 "$F/dlperf/tensorflow.tsv"; } > "$BATS_TEST_TMPDIR/m"
	run -1 --separate-stderr window "$BATS_TEST_TMPDIR/m"
	[ "$stderr" = "window: $BATS_TEST_TMPDIR/m:3: mode line after the first record" ]
	[ -z "$output" ]
}

@test "a mode line after the first record of an earlier file is an error too" {
	{ echo "# mode=dlperf"; cat "$F/dlperf/tensorflow.tsv"; } > "$BATS_TEST_TMPDIR/a"
	run -1 --separate-stderr window "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/a"
	[ "$stderr" = "window: $BATS_TEST_TMPDIR/a:1: mode line after the first record" ]
}

@test "a mode other than dlperf is an error" {
	run -1 --separate-stderr window <<<'# mode=fast'
	[ "$stderr" = "window: <stdin>:1: mode 'fast' is not dlperf" ]
}

@test "-m and a mode line exclude each other" {
	run -1 --separate-stderr window -m rate <<<'# mode=dlperf'
	[ "$stderr" = "window: <stdin>:1: -m: DLPerf's method is fixed per format with mode=dlperf" ]
}

# ---- ours: sources of time, formats, runs ---------------------------------

@test "TF 2.x interval records: TB x 500 / summed seconds of intervals 200-600" {
	run -0 window4 "$F/dlperf/tensorflow.tsv"
	[ "$output" = "$(printf 'tensorflow\t1n1g_b128_fp32\t1\t322.09')" ]
}

@test "rate method over interval records averages the records of the window" {
	run -0 window4 -m rate -s 200 -n 200 "$F/dlperf/tensorflow.tsv"
	[ "$output" = "$(printf 'tensorflow\t1n1g_b128_fp32\t1\t321.24')" ]
}

@test "an interval window must start at a record boundary" {
	run -1 --separate-stderr window -s 150 -n 200 "$F/dlperf/tensorflow.tsv"
	[[ $stderr == "window: "*:[0-9]*": tensorflow/1n1g_b128_fp32/1: no record ends at iteration 150" ]]
}

@test "timestamps win over step times when every record in the window has one" {
	{ rec bench bench 1n1g_b16_fp32 1 1 100.000000 9 - ; rec bench bench 1n1g_b16_fp32 1 2 100.500000 9 - ; rec bench bench 1n1g_b16_fp32 1 3 101.000000 9 - ; } > "$BATS_TEST_TMPDIR/b"
	run -0 window4 -s 1 -n 2 "$BATS_TEST_TMPDIR/b"
	[ "$output" = "$(printf 'bench\t1n1g_b16_fp32\t1\t32.00')" ]
}

@test "step times are summed when a record in the window lacks a timestamp" {
	{ rec bench bench 1n1g_b16_fp32 1 1 100.000000 0.25 - ; rec bench bench 1n1g_b16_fp32 1 2 - 0.5 - ; rec bench bench 1n1g_b16_fp32 1 3 101.000000 0.5 - ; } > "$BATS_TEST_TMPDIR/b"
	run -0 window4 -s 1 -n 2 "$BATS_TEST_TMPDIR/b"
	[ "$output" = "$(printf 'bench\t1n1g_b16_fp32\t1\t32.00')" ]
}

@test "durations are derived from printed rates when nothing else is given" {
	{ rec gluon mxnet 1n2g_b16_fp32 3 1 - - 100 ; rec gluon mxnet 1n2g_b16_fp32 3 2 - - 64 ; rec gluon mxnet 1n2g_b16_fp32 3 3 - - 32 ; } > "$BATS_TEST_TMPDIR/g"
	run -0 window4 -s 1 -n 2 "$BATS_TEST_TMPDIR/g"
	[ "$output" = "$(printf 'gluon\t1n2g_b16_fp32\t3\t42.67')" ]
}

@test "a window with neither timestamps, step times nor rates is an error" {
	{ rec x bench 1n1g_b16_fp32 1 1 - - - ; rec x bench 1n1g_b16_fp32 1 2 - - - ; } > "$BATS_TEST_TMPDIR/x"
	run -1 --separate-stderr window -s 1 -n 1 "$BATS_TEST_TMPDIR/x"
	[[ $stderr == "window: "*:[0-9]*": x/1n1g_b16_fp32/1: iteration 2 has no timestamp, 2 no step_s, 2 no samples_per_s" ]]
}

@test "the rate method needs a rate on every record of the window" {
	{ rec x bench 1n1g_b16_fp32 1 1 - 1 5 ; rec x bench 1n1g_b16_fp32 1 2 - 1 - ; } > "$BATS_TEST_TMPDIR/x"
	run -1 --separate-stderr window -m rate -s 0 -n 2 "$BATS_TEST_TMPDIR/x"
	[[ $stderr == "window: "*:[0-9]*": x/1n1g_b16_fp32/1: no samples_per_s for iteration 2" ]]
}

@test "a zero duration between stamps is an error" {
	{ rec x bench 1n1g_b16_fp32 1 1 5.0 - - ; rec x bench 1n1g_b16_fp32 1 2 5.000000 - - ; } > "$BATS_TEST_TMPDIR/x"
	run -1 --separate-stderr window -s 1 -n 1 "$BATS_TEST_TMPDIR/x"
	[[ $stderr == "window: "*:[0-9]*": x/1n1g_b16_fp32/1: iterations 2-2 took 0 s" ]]
}

@test "stamps going backwards are an error" {
	{ rec x bench 1n1g_b16_fp32 1 1 6.5 - - ; rec x bench 1n1g_b16_fp32 1 2 5.5 - - ; } > "$BATS_TEST_TMPDIR/x"
	run -1 --separate-stderr window -s 1 -n 1 "$BATS_TEST_TMPDIR/x"
	[[ $stderr == "window: "*:[0-9]*": x/1n1g_b16_fp32/1: iterations 2-2 took -1 s" ]]
}

@test "several runs in one stream and over several files, one line each, in order" {
	{ rec a bench 1n1g_b16_fp32 1 1 - 0.5 - ; rec a bench 1n1g_b16_fp32 2 1 - 0.25 - ; } > "$BATS_TEST_TMPDIR/1"
	rec a bench 1n2g_b16_fp32 1 1 - 0.5 - > "$BATS_TEST_TMPDIR/2"
	run -0 window4 -s 0 -n 1 "$BATS_TEST_TMPDIR/1" - < "$BATS_TEST_TMPDIR/2"
	[ "$output" = "$(printf 'a\t1n1g_b16_fp32\t1\t32.00\na\t1n1g_b16_fp32\t2\t64.00\na\t1n2g_b16_fp32\t1\t64.00')" ]
}

@test "each run takes its format's default window (bench: skip 20, count 100)" {
	for i in $(seq 1 120); do rec bench bench 1n1g_b16_fp32 7 "$i" - 0.5 - ; done > "$BATS_TEST_TMPDIR/b"
	run -0 window4 "$BATS_TEST_TMPDIR/b"
	[ "$output" = "$(printf 'bench\t1n1g_b16_fp32\t7\t32.00')" ]
	head -n 119 "$BATS_TEST_TMPDIR/b" > "$BATS_TEST_TMPDIR/c"
	run -1 --separate-stderr window "$BATS_TEST_TMPDIR/c"
	[[ $stderr == "window: "*:[0-9]*": bench/1n1g_b16_fp32/7: 119 iterations, need 120" ]]
}

@test "a gap outside the window does not matter, one inside does" {
	{ rec a bench 1n1g_b16_fp32 1 1 - 0.5 - ; rec a bench 1n1g_b16_fp32 1 3 - 0.5 - ; rec a bench 1n1g_b16_fp32 1 4 - 0.5 - ; } > "$BATS_TEST_TMPDIR/g"
	run -0 window4 -s 2 -n 2 "$BATS_TEST_TMPDIR/g"
	[ "$output" = "$(printf 'a\t1n1g_b16_fp32\t1\t32.00')" ]
	run -1 --separate-stderr window -s 1 -n 3 "$BATS_TEST_TMPDIR/g"
	[[ $stderr == "window: "*:[0-9]*": a/1n1g_b16_fp32/1: iteration 2 missing" ]]
}

@test "a run met again after another run is a duplicate, named by file and line" {
	{ rec a bench 1n1g_b16_fp32 1 1 - 0.5 - ; rec a bench 1n1g_b16_fp32 2 1 - 0.5 - ; rec a bench 1n1g_b16_fp32 1 2 - 0.5 - ; } > "$BATS_TEST_TMPDIR/d"
	run -1 --separate-stderr window -s 0 -n 1 "$BATS_TEST_TMPDIR/d"
	[ "$output" = "$(printf 'a\t1n1g_b16_fp32\t1\t32.00\t-\t-\t-\na\t1n1g_b16_fp32\t2\t32.00\t-\t-\t-')" ]
	[ "$stderr" = "window: $BATS_TEST_TMPDIR/d:3: duplicate run a/1n1g_b16_fp32/1" ]
}

@test "a run ends with its file: the same run in a second file is a duplicate" {
	rec a bench 1n1g_b16_fp32 1 1 - 0.5 - > "$BATS_TEST_TMPDIR/r"
	run -1 --separate-stderr window -s 0 -n 1 "$BATS_TEST_TMPDIR/r" "$BATS_TEST_TMPDIR/r"
	[ "$output" = "$(printf 'a\t1n1g_b16_fp32\t1\t32.00\t-\t-\t-')" ]
	[ "$stderr" = "window: $BATS_TEST_TMPDIR/r:1: duplicate run a/1n1g_b16_fp32/1" ]
}

@test "iterations must increase within a run (grep-iters groups ranks)" {
	run -1 --separate-stderr window "$F/dlperf/ngc-mxnet.tsv"
	[ "$stderr" = "window: $F/dlperf/ngc-mxnet.tsv:2: iteration 1 after 1" ]
}

# ---- malformed records -------------------------------------------------------

@test "a record with the wrong number of fields is an error" {
	run -1 --separate-stderr window <<<$'a\tbench\t1n1g_b16_fp32\t1\t1\t-\t0.5\t-'
	[ "$stderr" = "window: <stdin>:1: 8 fields, expected 9" ]
}

@test "an unknown format is an error" {
	run -1 --separate-stderr window < <(rec a caffe 1n1g_b16_fp32 1 1 - 0.5 -)
	[ "$stderr" = "window: <stdin>:1: unknown format 'caffe'" ]
}

@test "a bad key is an error" {
	run -1 --separate-stderr window < <(rec a bench 1n1g_b16 1 1 - 0.5 -)
	[ "$stderr" = "window: <stdin>:1: key '1n1g_b16' is not <N>n<G>g_b<B>_<prec>" ]
}

@test "a bad run is an error" {
	run -1 --separate-stderr window < <(rec a bench 1n1g_b16_fp32 -1 1 - 0.5 -)
	[ "$stderr" = "window: <stdin>:1: run '-1' is not a non-negative integer" ]
}

@test "iteration 0 is an error" {
	run -1 --separate-stderr window < <(rec a bench 1n1g_b16_fp32 1 0 - 0.5 -)
	[ "$stderr" = "window: <stdin>:1: iter '0' is not a positive integer" ]
}

@test "a bad timestamp is an error" {
	run -1 --separate-stderr window < <(rec a bench 1n1g_b16_fp32 1 1 12:00:01 0.5 -)
	[ "$stderr" = "window: <stdin>:1: timestamp_s '12:00:01' is not a number" ]
}

@test "a step time that does not parse is an error (Time x.yz)" {
	run -1 --separate-stderr window < <(rec a pytorch 1n1g_b16_fp32 1 1 - x.yz -)
	[ "$stderr" = "window: <stdin>:1: step_s 'x.yz' is not a number" ]
}

@test "a zero step time is an error, also outside the window" {
	run -1 --separate-stderr window < <(rec a pytorch 1n1g_b16_fp32 1 1 - 0.000 -)
	[ "$stderr" = "window: <stdin>:1: step_s '0.000' is not positive" ]
}

@test "a negative rate is an error" {
	run -1 --separate-stderr window < <(rec a pytorch 1n1g_b16_fp32 1 1 - - -3.5)
	[ "$stderr" = "window: <stdin>:1: samples_per_s '-3.5' is not positive" ]
}

@test "a NaN step time is an error" {
	run -1 --separate-stderr window < <(rec a pytorch 1n1g_b16_fp32 1 1 - nan -)
	[ "$stderr" = "window: <stdin>:1: step_s 'nan' is not a number" ]
}

@test "empty input gives empty output" {
	run -0 --separate-stderr window4 /dev/null
	[ -z "$output" ]
	[ -z "$stderr" ]
}

# ---- usage -------------------------------------------------------------------

@test "an unknown flag is a usage error" {
	run -2 --separate-stderr window -x
	[ -z "$output" ]
	[ "$stderr" = "usage: window [-c dlperf] [-s skip] [-n count] [-m method] [-d drift%] [file ...]
  -m:  time (TB x n / the window's duration), rate (the mean of the printed
       rates) or median-step (TB / the median step_s); default: the format's
  in:  framework format key run iter timestamp_s step_s samples_per_s loss
  out: framework key run samples_per_s jitter_pct drift_pct steady
       (DLPerf's mode: framework key run samples_per_s)" ]
}

@test "-s must be an integer" {
	run -2 --separate-stderr window -s 2x
	[ "$stderr" = "window: -s: '2x' is not an integer" ]
}

@test "-n must be at least 1" {
	run -2 --separate-stderr window -n 0
	[ "$stderr" = "window: -n: '0' is out of range 1..1000000000" ]
}

@test "-m takes time, rate or median-step" {
	run -2 --separate-stderr window -m fast
	[ "$stderr" = "window: -m: 'fast' is not time, rate or median-step" ]
}

@test "-c takes only dlperf" {
	run -2 --separate-stderr window -c ours
	[ "$stderr" = "window: -c: 'ours' is not dlperf" ]
}

@test "a missing file is an error" {
	run -1 --separate-stderr window "$BATS_TEST_TMPDIR/none"
	[ "$stderr" = "window: $BATS_TEST_TMPDIR/none: No such file or directory" ]
}

@test "a full disk is a failure" {
	run -1 --separate-stderr bash -c "window '$F/oneflow.tsv' > /dev/full"
	[ "$stderr" = "window: <stdout>: write error: No space left on device" ]
}

@test "a meta line is passed on whole, however many tabs it holds" {
	line="# host=a$(printf '\tx=%d' $(seq 1 20))"
	run -0 window <<<"$line"
	[ "$output" = "$line" ]
}

# ---- never a silent wrong number ---------------------------------

@test "a stamp of 10^12 s or more is an error, not a wrapped difference (2^64 us + 16 gave 1000000.00)" {
	{ rec x bench 1n1g_b16_fp32 1 1 0 - - ; rec x bench 1n1g_b16_fp32 1 2 18446744073709.551632 - - ; } > "$BATS_TEST_TMPDIR/x"
	run -1 --separate-stderr window -s 1 -n 1 "$BATS_TEST_TMPDIR/x"
	[ -z "$output" ]
	[ "$stderr" = "window: $BATS_TEST_TMPDIR/x:2: timestamp_s '18446744073709.551632' is not below 10^12" ]
}

@test "stamps just below 10^12 s are measured exactly" {
	{ rec x bench 1n1g_b16_fp32 1 1 999999999998.000000 - - ; rec x bench 1n1g_b16_fp32 1 2 999999999999.999999 - - ; } > "$BATS_TEST_TMPDIR/x"
	run -0 window4 -s 1 -n 1 "$BATS_TEST_TMPDIR/x"
	[ "$output" = "$(printf 'x\t1n1g_b16_fp32\t1\t8.00')" ]
}

@test "a throughput that %.2f would print as 0.00 is an error naming the run" {
	{ rec x bench 1n1g_b1_fp32 1 1 - 1000 - ; rec x bench 1n1g_b1_fp32 1 2 - 1000 - ; } > "$BATS_TEST_TMPDIR/x"
	run -1 --separate-stderr window -s 1 -n 1 "$BATS_TEST_TMPDIR/x"
	[ -z "$output" ]
	[[ $stderr == "window: "*:[0-9]*": x/1n1g_b1_fp32/1: samples/s 0.001 rounds to 0.00" ]]
}

@test "a mean rate that overflows is an error, not inf" {
	{ rec x bench 1n1g_b1_fp32 1 1 - - 1e308 ; rec x bench 1n1g_b1_fp32 1 2 - - 1e308 ; } > "$BATS_TEST_TMPDIR/x"
	run -1 --separate-stderr window -m rate -s 0 -n 2 "$BATS_TEST_TMPDIR/x"
	[[ $stderr == "window: "*:[0-9]*": x/1n1g_b1_fp32/1: samples/s inf is not finite" ]]
}

@test "a key part above 2^20 is not a key (9999999999n9999999999g_b9999999999_fp32 gave 224849479658089472.00)" {
	{ rec x bench 9999999999n9999999999g_b9999999999_fp32 1 1 - 1 - ; rec x bench 9999999999n9999999999g_b9999999999_fp32 1 2 - 1 - ; } > "$BATS_TEST_TMPDIR/x"
	run -1 --separate-stderr window -s 1 -n 1 "$BATS_TEST_TMPDIR/x"
	[ -z "$output" ]
	[ "$stderr" = "window: $BATS_TEST_TMPDIR/x:1: key '9999999999n9999999999g_b9999999999_fp32' is not <N>n<G>g_b<B>_<prec>" ]
	run -1 --separate-stderr window -s 1 -n 1 < <(rec x bench 1048577n1g_b1_fp32 1 1 - 1 -)
	[ "$stderr" = "window: <stdin>:1: key '1048577n1g_b1_fp32' is not <N>n<G>g_b<B>_<prec>" ]
}

@test "the largest key, 2^20 parts, gives the exact total batch 2^60" {
	{ rec x bench 1048576n1048576g_b1048576_fp32 1 1 - 1 - ; rec x bench 1048576n1048576g_b1048576_fp32 1 2 - 1 - ; } > "$BATS_TEST_TMPDIR/x"
	run -0 window4 -s 1 -n 1 "$BATS_TEST_TMPDIR/x"
	[ "$output" = "$(printf 'x\t1048576n1048576g_b1048576_fp32\t1\t1152921504606846976.00')" ]
}

@test "a NUL byte in a line is an error naming file and line" {
	{ rec x bench 1n1g_b16_fp32 1 1 - 1 - ; printf 'x\tbench\t1n1g_b16_fp32\t1\t2\t-\t1\t-\t6\0.9\n' ; } > "$BATS_TEST_TMPDIR/x"
	run -1 --separate-stderr window -s 1 -n 1 "$BATS_TEST_TMPDIR/x"
	[ -z "$output" ]
	[ "$stderr" = "window: $BATS_TEST_TMPDIR/x:2: NUL byte in the line" ]
}

# ---- jitter and drift (doc/statistics.md) ----------------------------------

# Expected jitter_pct, drift_pct and steady of the per-step rates TB / step
# (TB 16), computed here with python3's statistics module.
steady_want() { # threshold step_s ...
	python3 - "$@" <<'PY'
import statistics as st, sys
t = float(sys.argv[1]); r = [16 / float(x) for x in sys.argv[2:]]
m = st.median(r); mad = st.median([abs(x - m) for x in r]); h = len(r) // 2
a, b = st.median(r[:h]), st.median(r[-h:]); d = (b - a) / a * 100
print("%.2f\t%.2f\t%s" % (1.4826 * mad / m * 100, d, "drift" if abs(d) > t else "steady"))
PY
}

steps_file() { # step_s ... -> run 1 of a/1n1g_b16_fp32, no stamps
	i=0
	for s in "$@"; do
		i=$((i + 1))
		rec a bench 1n1g_b16_fp32 1 $i - "$s" -
	done > "$BATS_TEST_TMPDIR/s"
}

@test "jitter and drift of a steady window agree with python3's statistics" {
	steps_file 0.5 0.4 0.5 0.625 0.45 0.5 0.4 0.55 0.49
	run -0 --separate-stderr window -s 0 -n 9 "$BATS_TEST_TMPDIR/s"
	[ -z "$stderr" ]
	[ "$(cut -f5-7 <<<"$output")" = "$(steady_want 5 0.5 0.4 0.5 0.625 0.45 0.5 0.4 0.55 0.49)" ]
	[ "$(cut -f7 <<<"$output")" = steady ]
}

@test "a window that slows down is flagged and named on stderr" {
	steps_file 0.5 0.5 0.5 0.5 1 1 1 1
	run -0 --separate-stderr window -s 0 -n 8 "$BATS_TEST_TMPDIR/s"
	[ "$output" = "$(printf 'a\t1n1g_b16_fp32\t1\t21.33\t49.42\t-50.00\tdrift')" ]
	[ "$(cut -f5-7 <<<"$output")" = "$(steady_want 5 0.5 0.5 0.5 0.5 1 1 1 1)" ]
	[[ $stderr == "window: a/1n1g_b16_fp32/1: not in steady state: the median rate of the window's second half is -50.0 % off its first half (-d 5)" ]]
}

@test "-d sets the drift threshold: 3 % drift passes -d 5 and is flagged by -d 2" {
	steps_file 0.5 0.5 0.485 0.485
	run -0 --separate-stderr window -s 0 -n 4 "$BATS_TEST_TMPDIR/s"
	[ -z "$stderr" ]
	[ "$(cut -f6-7 <<<"$output")" = "$(printf '3.09\tsteady')" ]
	run -0 --separate-stderr window -d 2 -s 0 -n 4 "$BATS_TEST_TMPDIR/s"
	[ "$(cut -f6-7 <<<"$output")" = "$(printf '3.09\tdrift')" ]
	[[ $stderr == *"a/1n1g_b16_fp32/1: not in steady state"*"+3.1 %"* ]]
	run -2 --separate-stderr window -d x
	[ "$stderr" = "window: -d: 'x' is not a percentage >= 0" ]
}

@test "the odd window's middle step belongs to neither half" {
	steps_file 0.5 0.5 0.25 1 1
	run -0 window -d 1000 -s 0 -n 5 "$BATS_TEST_TMPDIR/s"
	[ "$(cut -f5-7 <<<"$output")" = "$(steady_want 1000 0.5 0.5 0.25 1 1)" ]
}

@test "per-step rates come from the stamps when every window record has one" {
	# steps of 0.5 s by the stamps; step_s says otherwise and is not used
	for i in 1 2 3 4 5; do
		rec a bench 1n1g_b16_fp32 1 $i "$((1000 + i / 2)).$((i % 2 * 5))00000" 9 -
	done > "$BATS_TEST_TMPDIR/t"
	run -0 --separate-stderr window -s 1 -n 4 "$BATS_TEST_TMPDIR/t"
	[ "$output" = "$(printf 'a\t1n1g_b16_fp32\t1\t32.00\t0.00\t0.00\tsteady')" ]
}

@test "a window of one step has no jitter or drift: -" {
	steps_file 0.5 0.5
	run -0 window -s 1 -n 1 "$BATS_TEST_TMPDIR/s"
	[ "$output" = "$(printf 'a\t1n1g_b16_fp32\t1\t32.00\t-\t-\t-')" ]
}

@test "DLPerf's mode keeps DLPerf's record: four columns" {
	steps_file 0.5 0.5 0.5
	run -0 window -c dlperf -s 0 -n 3 "$BATS_TEST_TMPDIR/s"
	[ "$output" = "$(printf 'a\t1n1g_b16_fp32\t1\t32.00')" ]
}

@test "an error of a run names the file and line of its latest record, not only the run" {
	printf 'x\tbench\t1n1g_b16_fp32\t1\t%s\t-\t0.5\t32\t1\n' 1 2 > "$BATS_TEST_TMPDIR/a.tsv"
	printf 'x\tbench\t1n1g_b16_fp32\t2\t%s\t-\t0.5\t32\t1\n' 1 2 3 4 5 > "$BATS_TEST_TMPDIR/b.tsv"
	run -1 --separate-stderr window -s 0 -n 5 "$BATS_TEST_TMPDIR/a.tsv" "$BATS_TEST_TMPDIR/b.tsv"
	[ "$stderr" = "window: $BATS_TEST_TMPDIR/a.tsv:2: x/1n1g_b16_fp32/1: 2 iterations, need 5" ]
	[ "$output" = "" ]
	# DLPerf's methods (formats/) locate theirs the same way
	printf 'pytorch\tpytorch\t1n1g_b128_fp32\t1\t%s\t-\t0.5\t256\t1\n' 1 2 3 > "$BATS_TEST_TMPDIR/c.tsv"
	run -1 --separate-stderr window -c dlperf "$BATS_TEST_TMPDIR/c.tsv"
	[[ $stderr == "window: $BATS_TEST_TMPDIR/c.tsv:3: pytorch/1n1g_b128_fp32/1: "* ]]
}

# ---- -m median-step (make perf-cpu's statistic) ----------------------------

@test "median-step: TB over the median step_s, the middle two averaged when even" {
	steps_file 0.5 0.4 0.25 1
	# 16 / 0.45; the median of the rates 32 40 64 16 would be 36.00
	run -0 window4 -m median-step -s 0 -n 4 "$BATS_TEST_TMPDIR/s"
	[ "$output" = "$(printf 'a\t1n1g_b16_fp32\t1\t35.56')" ]
	# odd: 16 / 0.4
	run -0 window4 -m median-step -s 1 -n 3 "$BATS_TEST_TMPDIR/s"
	[ "$output" = "$(printf 'a\t1n1g_b16_fp32\t1\t40.00')" ]
}

@test "median-step over interval records: each record's step_s over the iterations it covers" {
	# 128 / median(39.77, 39.74, 39.95 s per 100 iterations) = 128 / 0.3977
	run -0 window4 -m median-step -s 100 -n 300 "$F/dlperf/tensorflow.tsv"
	[ "$output" = "$(printf 'tensorflow\t1n1g_b128_fp32\t1\t321.85')" ]
}

@test "median-step reads step_s, not the stamps" {
	for i in 1 2 3 4; do rec a bench 1n1g_b16_fp32 1 $i "100$i.000000" 0.5 - ; done > "$BATS_TEST_TMPDIR/t"
	run -0 window4 -m median-step -s 1 -n 3 "$BATS_TEST_TMPDIR/t"
	[ "$output" = "$(printf 'a\t1n1g_b16_fp32\t1\t32.00')" ]
	run -0 window4 -s 1 -n 3 "$BATS_TEST_TMPDIR/t"
	[ "$output" = "$(printf 'a\t1n1g_b16_fp32\t1\t16.00')" ]
}

@test "median-step needs a step_s on every record of the window" {
	{ rec x bench 1n1g_b16_fp32 1 1 - - 5 ; rec x bench 1n1g_b16_fp32 1 2 - 1 5 ; rec x bench 1n1g_b16_fp32 1 3 - - 5 ; } > "$BATS_TEST_TMPDIR/x"
	run -1 --separate-stderr window -m median-step -s 1 -n 2 "$BATS_TEST_TMPDIR/x"
	[ -z "$output" ]
	[ "$stderr" = "window: $BATS_TEST_TMPDIR/x:3: x/1n1g_b16_fp32/1: no step_s for iteration 3" ]
}

@test "median-step of bench's log is perf-cpu's figure: samples of a step over the median step_s" {
	# iterations 3-6 of a 16-sample run: steps 0.4 0.5 0.45 0.8, median 0.475
	printf '%s\n' '# bench model=resnet50 backend=cpu-onednn nodes=1 gpus_per_node=1 batch_per_device=16 precision=fp32 image=64 data=synthetic' \
		'iter=1 loss=6.9 step_s=3.0000 samples_per_s=5.33 ts=1000.000000' \
		'iter=2 loss=6.9 step_s=0.9000 samples_per_s=17.78 ts=1000.900000' \
		'iter=3 loss=6.9 step_s=0.4000 samples_per_s=40.00 ts=1001.300000' \
		'iter=4 loss=6.9 step_s=0.5000 samples_per_s=32.00 ts=1001.800000' \
		'iter=5 loss=6.9 step_s=0.4500 samples_per_s=35.56 ts=1002.250000' \
		'iter=6 loss=6.9 step_s=0.8000 samples_per_s=20.00 ts=1003.050000' \
		'# end iters=6 peak_mem_mb=1' > "$BATS_TEST_TMPDIR/b.log"
	run -0 bash -c "grep-iters -k 1n1g_b16_fp32 '$BATS_TEST_TMPDIR/b.log' | window -d 1000 -m median-step -s 2 -n 4 | cut -f1-4"
	[ "$output" = "$(printf 'bench\t1n1g_b16_fp32\t1\t33.68')" ]
}

# ---- launch's energy samples ------------------------------------------------

@test "a run's energy samples become one line: the joules of its window, interpolated, over every node and device" {
	run -0 --separate-stderr window -d 1000 -s 1 -n 3 "$F/energy.tsv"
	# window: iterations 2-4, from the stamp of 1 (100.0) to that of 4 (103.5)
	#   gpu0:      500 x 0.5/2 = 125 at 100.0, 500 + 300 x 2/3 = 700 at 103.5: 575
	#   package-0: 60 x 1/6 = 10, 60 x 4.5/6 = 45: 35;  dram-0: 1 and 4.5: 3.5
	# 613.5 J for 2 nodes x 10 samples x 3 iterations
	[ "${lines[0]}" = "# env framework=bench key=2n1g_b10_fp32 run=1 node=0 hostname=a" ]
	[ "${lines[1]}" = "# mem framework=bench key=2n1g_b10_fp32 run=1 node=0 rank=0 host=a rss_peak_mib=10" ]
	[[ "${lines[2]}" == "bench	2n1g_b10_fp32	1	17.14	"* ]]
	[ "${lines[3]}" = "# energy framework=bench key=2n1g_b10_fp32 run=1 joules=613.500 samples=60 how=nvml:1,rapl:2" ]
	[ "${#lines[@]}" = 4 ]
	# median passes it on
	run -0 bash -c "window -d 1000 -s 1 -n 3 '$F/energy.tsv' | median | grep -c '^# energy .* joules=613.500 '"
	[ "$output" = 1 ]
}

@test "the window's stamps on a sample's own time take the sample as it is" {
	run -0 --separate-stderr window -d 1000 -s 0 -n 4 -m rate "$F/energy.tsv"
	# no stamp ends at iteration 0: the window has no place on the clock
	[[ "${lines[-1]}" == "# energy framework=bench key=2n1g_b10_fp32 run=1 reason=the%20window's%20records%20carry%20no%20timestamp_s:"* ]]
	sed 's/t=101.500/t=101.000/' "$F/energy.tsv" > "$BATS_TEST_TMPDIR/e"
	run -0 --separate-stderr window -d 1000 -s 2 -n 2 "$BATS_TEST_TMPDIR/e"
	# from 101.0, gpu0's own sample (500; package-0 20, dram-0 2), to 103.5
	# (gpu0 500 + 300 x 2.5/3.5, 45, 4.5): 214.286 + 25 + 2.5
	[ "${lines[-1]}" = "# energy framework=bench key=2n1g_b10_fp32 run=1 joules=241.786 samples=40 how=nvml:1,rapl:2" ]
}

# $F/energy.tsv with sed script $1 applied; window -s 1 -n 3's energy line.
energy_of() {
	sed "$1" "$F/energy.tsv" > "$BATS_TEST_TMPDIR/e"
	window -d 1000 -s 1 -n 3 "$BATS_TEST_TMPDIR/e" | grep '^# energy ' | sed 's/.* run=1 //; s/%20/ /g; s/%3D/=/g'
}

@test "a run without a figure says why: a node's own reason, a node without lines, samples short of the window, a counter going back" {
	run -0 energy_of '/node=1 device=/d; $a # energy framework=bench key=2n1g_b10_fp32 run=1 node=1 reason=no%20energy%20counter%20readable:%20no%20RAPL'
	[ "$output" = "reason=node 1: no energy counter readable: no RAPL" ]
	run -0 energy_of '/node=1 device=/d'
	[ "$output" = "reason=node 1 wrote no energy line" ]
	run -0 energy_of 's/t=104.500/t=103.400/'
	[ "$output" = "reason=node 0 gpu0's samples (t=99.500..103.400) do not cover the timed window (t=100.000..103.500)" ]
	run -0 energy_of 's/t=104.500 j=800.000/t=104.500 j=400.000/'
	[ "$output" = "reason=node 0 gpu0's counter goes back at t=104.500" ]
	# records with no timestamp_s: no place on the clock
	run -0 energy_of 's/\t10[0-4]\.[05]\t/\t-\t/'
	[[ "$output" == "reason=the window's records carry no timestamp_s: it has no place on the energy samples' clock" ]]
}

@test "DLPerf's methods give an energy line a reason, not a figure" {
	{
		echo '# mode=dlperf'
		cat "$F/dlperf/tensorflow.tsv"
		echo '# energy framework=tensorflow key=1n1g_b128_fp32 run=1 node=0 device=gpu0 how=nvml t=1 j=0'
	} > "$BATS_TEST_TMPDIR/d"
	run -0 --separate-stderr window "$BATS_TEST_TMPDIR/d"
	[ "${lines[1]}" = "$(cat "$F/dlperf/tensorflow.expected")" ]
	[ "${lines[2]}" = "# energy framework=tensorflow key=1n1g_b128_fp32 run=1 reason=measured%20by%20DLPerf's%20method:%20its%20window%20has%20no%20place%20on%20the%20clock" ]
}

@test "an energy sample not right after its run's records, or a device measured two ways, is an error naming file and line" {
	{ grep '^# energy' "$F/energy.tsv"; grep -v '^#' "$F/energy.tsv"; } > "$BATS_TEST_TMPDIR/e"
	run -1 --separate-stderr window "$BATS_TEST_TMPDIR/e"
	[ "$stderr" = "window: $BATS_TEST_TMPDIR/e:1: energy line of bench/2n1g_b10_fp32/1: not after that run's records" ]
	sed 's/run=1 node=0 device/run=2 node=0 device/' "$F/energy.tsv" > "$BATS_TEST_TMPDIR/e"
	run -1 --separate-stderr window "$BATS_TEST_TMPDIR/e"
	[ "$stderr" = "window: $BATS_TEST_TMPDIR/e:7: energy line of bench/2n1g_b10_fp32/2: not after that run's records" ]
	sed '8s/how=nvml/how=nvidia-smi/' "$F/energy.tsv" > "$BATS_TEST_TMPDIR/e"
	run -1 --separate-stderr window "$BATS_TEST_TMPDIR/e"
	[ "$stderr" = "window: $BATS_TEST_TMPDIR/e:8: node 0 gpu0 measured by nvml, then by nvidia-smi" ]
}

@test "a malformed energy line is an error naming file, line and what is wrong (lib/meta.c)" {
	e='# energy framework=bench key=2n1g_b10_fp32 run=1 node=0'
	for bad in "device=gpu0 how=nvml t=x j=0|energy line: t 'x' is not a number >= 0" \
		"device=gpu0 how=nvml t=1 j=-1|energy line: j '-1' is not a number >= 0" \
		"how=nvml device=gpu0 t=1 j=0|energy line: device= expected, not 'how=nvml'" \
		"device=gpu0 how=nvml t=1|energy line: 3 items after node=, expected device= how= t= j= or reason=" \
		"reason=a b|energy line: 2 items after node=, expected device= how= t= j= or reason="; do
		{ grep -v '^#' "$F/energy.tsv"; echo "$e ${bad%%|*}"; } > "$BATS_TEST_TMPDIR/e"
		run -1 --separate-stderr window "$BATS_TEST_TMPDIR/e"
		[ "$stderr" = "window: $BATS_TEST_TMPDIR/e:6: ${bad#*|}" ]
	done
	echo '# energy framework=a key=1n1g_b1_fp32 run=1 joules=1 samples=0 how=x' > "$BATS_TEST_TMPDIR/e"
	run -1 --separate-stderr window "$BATS_TEST_TMPDIR/e"
	[ "$stderr" = "window: $BATS_TEST_TMPDIR/e:1: energy line: samples '0' is not a whole number > 0" ]
}

@test "a run's energy line, window's own, is passed on as it is" {
	line='# energy framework=a key=1n1g_b1_fp32 run=1 joules=1.5 samples=2 how=rapl:1'
	run -0 window <<<"$line"
	[ "$output" = "$line" ]
}
