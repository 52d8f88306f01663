#!/usr/bin/env bats
# grep-iters: training logs -> one record per iteration (framework, format,
# key, run, iter, timestamp_s, step_s, samples_per_s, loss).
#
# Fixtures: tests/fixtures/grep-iters/<format>/, a folder for every format
# of the registry (FORMATS in filters/formats/formats.h, checked below), at
# paths that give their configurations, each log with its golden records
# beside it; the README there says where each log comes from and what its
# golden shows. One test checks every golden: a format's new log and golden
# need no edit here. Expected outputs written here are written with '|' for
# TAB.

bats_require_minimum_version 1.5.0
load helper

F="$FIXTURES/grep-iters"

setup() {
	common_setup
	cd "$F"
}

want() {
	tr '|' '\t'
}

# A copy of fixture $1 at $BATS_TEST_TMPDIR/$2.
place() {
	mkdir -p "$BATS_TEST_TMPDIR/$(dirname "$2")"
	cp "$1" "$BATS_TEST_TMPDIR/$2"
}

# ---- the goldens --------------------------------------------------------------

# Beside a fixture <name>.log: <name>.expected, what grep-iters prints for
# it, byte for byte; <name>.<case>.expected, what it prints with the flags
# of <name>.<case>.flags (one line of words). The log is read at its path
# here, which gives its configuration.
@test "every fixture log gives exactly the records of each golden beside it" {
	local golden base log flags run out="$BATS_TEST_TMPDIR/out" err="$BATS_TEST_TMPDIR/err"
	mapfile -t goldens < <(find -- * -name '*.expected' | sort)
	[ "${#goldens[@]}" -gt 0 ]
	for golden in "${goldens[@]}"; do
		base=${golden##*/}
		log=${golden%/*}/${base%%.*}.log
		flags=()
		[ ! -e "${golden%.expected}.flags" ] || read -ra flags <"${golden%.expected}.flags"
		run="grep-iters${flags[*]:+ ${flags[*]}} $log"
		grep-iters "${flags[@]}" "$log" >"$out" 2>"$err" || { echo "$run: exit $?: $(cat "$err")"; false; }
		diff -u "$golden" "$out" || { echo "$run: not $golden"; false; }
		[ ! -s "$err" ] || { echo "$run: stderr: $(cat "$err")"; false; }
	done
	# and every format's folder holds one
	for dir in */; do
		[ -n "$(find "$dir" -name '*.expected')" ] || { echo "$dir: no golden"; false; }
	done
}

# ---- OneFlow's body against the path, its epochs ---------------------------------

# grep-iters -k KEY on stdin: fixture LOG with LINE after its lines.
with_line() { # log key line
	{ cat "$1"; printf '%s\n' "$3"; } | grep-iters -k "$2" -
}

@test "the OneFlow cnns sample at a 1n8g path is an error: the body says 2 nodes" {
	place oneflow/2n8g/r50_b128_fp32_0.log x/1n8g/r50_b128_fp32_0.log
	cd "$BATS_TEST_TMPDIR"
	run -1 --separate-stderr grep-iters x/1n8g/r50_b128_fp32_0.log
	[ "$stderr" = "grep-iters: x/1n8g/r50_b128_fp32_0.log:4: the log says num_nodes = 2, the path says 1" ]
	[ -z "$output" ]
}

@test "the OneFlow cnns sample at a b64 path is an error naming batch_size_per_device" {
	place oneflow/2n8g/r50_b128_fp32_0.log x/2n8g/r50_b64_fp32_0.log
	cd "$BATS_TEST_TMPDIR"
	run -1 --separate-stderr grep-iters x/2n8g/r50_b64_fp32_0.log
	[ "$stderr" = "grep-iters: x/2n8g/r50_b64_fp32_0.log:2: the log says batch_size_per_device = 128, the path says 64" ]
}

@test "OneFlow 0.1.8's lines end at samples/s: records without a timestamp, the key from the path" {
	run -0 --separate-stderr bash -c 'grep-iters oneflow/1n1g/r50_b128_fp32_1.log | cut -f 3,5,6,8'
	[ "${lines[0]}" = "$(want <<<'1n1g_b128_fp32|20|-|288.088')" ]
	[ "${lines[9]}" = "$(want <<<'1n1g_b128_fp32|200|-|384.517')" ]
}

@test "a OneFlow log is stamped or not from its first line: a line of the other kind is an error naming it" {
	run -1 --separate-stderr with_line oneflow/1n1g/r50_b128_fp32_1.log 1n1g_b128_fp32 \
		"train: epoch 0, iter 220, loss: 1.04, top_1: 1.0, top_k: 1.0, samples/s: 384.5 1597933990.5"
	[ "$stderr" = "grep-iters: <stdin>:11: a time stamp after samples/s; the log's first line had none" ]
	run -1 --separate-stderr with_line oneflow/2n8g/r50_b128_fp32_0.log 2n8g_b128_fp32 \
		"train: epoch 0, iter 140, loss: 1.04, top_1: 1.0, top_k: 1.0, samples/s: 5917.5"
	[ "$stderr" = "grep-iters: <stdin>:7: no time stamp after samples/s; the log's first line had one" ]
	run -1 --separate-stderr bash -c 'sed "1s/288.088/288.088 soon/" oneflow/1n1g/r50_b128_fp32_1.log | grep-iters -k 1n1g_b128_fp32'
	[ "$stderr" = "grep-iters: <stdin>:1: timestamp 'soon' is not a number" ]
}

@test "OneFlow lines of a later epoch are an error: their iterations cannot be numbered" {
	run -1 --separate-stderr with_line oneflow/2n8g/r50_b128_fp32_0.log 2n8g_b128_fp32 \
		"train: epoch 1, iter 20, loss: 1.0, top_1: 0.0, top_k: 0.0, samples/s: 3988.891 1597933990.5"
	[ "$stderr" = "grep-iters: <stdin>:7: epoch 1: iterations of later epochs cannot be numbered (this format restarts them and prints only every few)" ]
}

@test "an iteration 0 is an error naming the line, not a record of iteration 0 (OneFlow's iter 0; found by the fuzz campaign)" {
	run -1 --separate-stderr bash -c 'echo "train: epoch 0, iter 0, loss: 1.05, top_1: 1.0, top_k: 1.0, samples/s: 5917.583 1597933977.6" |
		grep-iters -f oneflow -k 1n1g_b128_fp32'
	[ -z "$output" ]
	[ "$stderr" = "grep-iters: <stdin>:1: iteration 0 is not above 0" ]
}

# ---- bench ------------------------------------------------------------------

@test "a bench log on stdin takes its key from the header, run 1" {
	run -0 --separate-stderr bash -c 'grep-iters < bench/1n2g_b16_fp32/1.log'
	[ "$output" = "$(cat bench/1n2g_b16_fp32/1.expected)" ]
}

@test "a bench header that contradicts the path is an error naming the line" {
	place bench/1n2g_b16_fp32/1.log logs/bench/1n4g_b16_fp32/1.log
	cd "$BATS_TEST_TMPDIR"
	run -1 --separate-stderr grep-iters logs/bench/1n4g_b16_fp32/1.log
	[ "$stderr" = "grep-iters: logs/bench/1n4g_b16_fp32/1.log:1: the log says gpus_per_node=2, the path says 4" ]
	[ -z "$output" ]
}

@test "a bench header that contradicts -k on its precision is an error" {
	run -1 --separate-stderr bash -c 'grep-iters -k 1n2g_b16_amp < bench/1n2g_b16_fp32/1.log'
	[ "$stderr" = "grep-iters: <stdin>:1: the log says precision=fp32, -k says amp" ]
}

@test "bench lines behind an unknown prefix are read, other lines are skipped" {
	run -0 --separate-stderr bash -c 'printf "%s\n" "starting" "[1,0]<stdout>:iter=7 loss=nan step_s=1.5 samples_per_s=10.5 ts=17.25" "" |
		grep-iters -k 1n1g_b16_fp32 -F mine'
	[ "$output" = "$(want <<<'mine|bench|1n1g_b16_fp32|1|7|17.25|1.5|10.5|nan')" ]
}

@test "a bench line with a zero step time is an error naming the line" {
	run -1 --separate-stderr bash -c 'printf "%s\n" "iter=1 loss=1 step_s=0.000 samples_per_s=10 ts=1" |
		grep-iters -k 1n1g_b16_fp32'
	[ "$stderr" = "grep-iters: <stdin>:1: step_s '0.000' is not positive" ]
}

@test "bench lines in another order, with other keys and exponents, are read the same way" {
	run -0 --separate-stderr bash -c 'printf "%s\n" "iter=3 ts=5 extra=x samples_per_s=1e2 step_s=0.5 loss=-1.5" "iter=4 loss=1 step_s=2.5E-1" |
		grep-iters -k 1n1g_b16_fp32'
	[ "$output" = "$(want <<'EOF'
bench|bench|1n1g_b16_fp32|1|3|5|0.5|1e2|-1.5
bench|bench|1n1g_b16_fp32|1|4|-|2.5E-1|-|1
EOF
)" ]
}

@test "a bench line in bench's own layout with a zero rate is an error naming the line" {
	run -1 --separate-stderr bash -c 'printf "%s\n" "iter=1 loss=6.9 step_s=0.4 samples_per_s=0.00 ts=1.5" |
		grep-iters -k 1n1g_b16_fp32'
	[ "$stderr" = "grep-iters: <stdin>:1: samples_per_s '0.00' is not positive" ]
}

@test "a bench iteration that is not a number is an error naming the line" {
	run -1 --separate-stderr bash -c 'printf "%s\n" "iter=1x loss=6.9 step_s=0.4 samples_per_s=10 ts=1.5" |
		grep-iters -k 1n1g_b16_fp32'
	[ "$stderr" = "grep-iters: <stdin>:1: iter '1x' is not an integer" ]
}

# ---- the other formats, beyond their fixtures ----------------------------------

@test "TensorFlow 2: intervals that do not join up are an error" {
	run -1 --separate-stderr bash -c 'sed 1d tensorflow/1n1g/rn50_b128_fp32_1.log | grep-iters -k 1n1g_b128_fp32'
	[ "$stderr" = "grep-iters: <stdin>:1: interval starts at step 100, the previous one ended at 0" ]
}

@test "PyTorch ranks over two epochs: the second epoch continues the count" {
	run -0 --separate-stderr bash -c 'printf "Epoch: [%s][ %s/2]\tTime %s (1.0)\n" 0 0 1.0 0 1 1.0 0 0 3.0 1 0 2.0 0 1 4.0 1 1 2.5 |
		grep-iters -k 1n2g_b16_fp32'
	[ "$output" = "$(want <<'EOF'
pytorch|pytorch|1n2g_b16_fp32|1|1|-|2.0|-|-
pytorch|pytorch|1n2g_b16_fp32|1|2|-|2.5|-|-
pytorch|pytorch|1n2g_b16_fp32|1|3|-|2.0|-|-
pytorch|pytorch|1n2g_b16_fp32|1|4|-|2.5|-|-
EOF
)" ]
}

@test "NGC PyTorch: a later epoch continues the count; validation lines are skipped" {
	run -0 --separate-stderr bash -c 'printf "DLL 2020-09-15 14:29:1%s - Epoch: %s Iteration: %s  train.loss : 7.0  train.total_ips : 300 img/s\n" \
		3 0 1 4.5 0 2 5.25 1 1 | sed "\$a DLL 2020-09-15 14:29:16.000001 - Epoch: 1 Iteration: 1  val.loss : 7.0  val.top1 : 0.1" |
		grep-iters -k 1n1g_b16_fp32'
	[ "$output" = "$(want <<'EOF'
ngc-pytorch|ngc-pytorch|1n1g_b16_fp32|1|1|1600180153.000000|-|300|7.0
ngc-pytorch|ngc-pytorch|1n1g_b16_fp32|1|2|1600180154.5|-|300|7.0
ngc-pytorch|ngc-pytorch|1n1g_b16_fp32|1|3|1600180155.25|-|300|7.0
EOF
)" ]
}

@test "unknown line prefixes (launcher rank tags) are tolerated" {
	run -0 --separate-stderr bash -c '{
		printf "%s\n" "[1,0]<stdout>:DLL 2020-09-15 14:29:13.473765 - Epoch: 0 Iteration: 1  train.loss : 7.09304  train.total_ips : 267.44 img/s"
		} | grep-iters -k 1n1g_b16_fp32
		printf "[1,1]<stderr>:Epoch: [0][ 0/5]\tTime 1.5 (1.5)\tLoss 7.0 (7.0)\n" | grep-iters -k 1n1g_b16_fp32'
	[ "$output" = "$(want <<'EOF'
ngc-pytorch|ngc-pytorch|1n1g_b16_fp32|1|1|1600180153.473765|-|267.44|7.09304
pytorch|pytorch|1n1g_b16_fp32|1|1|-|1.5|-|7.0
EOF
)" ]
}

@test "PLSC: a node's lines of one period are one record (their qps' median); with -c dlperf each is one, its step from the period" {
	run -0 --separate-stderr bash -c 'grep-iters plsc/2n8g/r50_b128_fp32_1.log | cut -f 5,6,8'
	[ "$output" = "$(want <<'OUT'
1|1615544401.142|1204.375
11|1615544404.541|5956.01
21|1615544408.012|5944.135
OUT
)" ]
	run -0 --separate-stderr bash -c 'grep-iters -c dlperf plsc/2n8g/r50_b128_fp32_1.log | cut -f 5,7 | sed -n "4,5p"'
	[ "$output" = "$(want <<'OUT'
11|3.4418201312866157
11|3.4352732786731255
OUT
)" ]
	# a period that goes back is still an error
	run -1 --separate-stderr bash -c 'sed "5s/batch:20/batch:0/" plsc/2n8g/r50_b128_fp32_1.log | grep-iters -c dlperf -k 2n8g_b128_fp32'
	[ "$stderr" = "grep-iters: <stdin>:5: iteration 1 after 11" ]
}

@test "NGC PyTorch: the PARAMETER line agrees with the path: batch, precision and processes" {
	place ngc-pytorch/2n8g/r50_b128_fp32_5.log x/1n8g/r50_b256_amp_1.log
	place ngc-pytorch/2n8g/r50_b128_fp32_5.log x/2n8g/r50_b128_amp_1.log
	place ngc-pytorch/2n8g/r50_b128_fp32_5.log x/4n8g/r50_b128_fp32_1.log
	place ngc-pytorch/2n8g/r50_b128_fp32_5.log x/2n8g/r50_b128_fp16_2.log
	cd "$BATS_TEST_TMPDIR"
	run -1 --separate-stderr grep-iters x/1n8g/r50_b256_amp_1.log
	[ "$stderr" = "grep-iters: x/1n8g/r50_b256_amp_1.log:9: the log's PARAMETER line says batch_size : 128, the path says 256" ]
	run -1 --separate-stderr grep-iters x/2n8g/r50_b128_amp_1.log
	[ "$stderr" = "grep-iters: x/2n8g/r50_b128_amp_1.log:9: the log's PARAMETER line says amp : False, fp16 : False, the path says amp" ]
	run -1 --separate-stderr grep-iters x/4n8g/r50_b128_fp32_1.log
	[ "$stderr" = "grep-iters: x/4n8g/r50_b128_fp32_1.log:9: the log's PARAMETER line says world_size : 16, the path says 4n8g (32 processes)" ]
	run -1 --separate-stderr grep-iters -k 2n8g_b64_fp32 - < x/4n8g/r50_b128_fp32_1.log
	[ "$stderr" = "grep-iters: <stdin>:9: the log's PARAMETER line says batch_size : 128, -k says 64" ]
	# mixed precision said either way agrees with amp and fp16 (DLPerf named it both)
	sed -i 's/  amp : False / amp : True /' x/2n8g/r50_b128_amp_1.log x/2n8g/r50_b128_fp16_2.log
	run -0 --separate-stderr bash -c 'grep-iters -a fp16=amp x/2n8g/r50_b128_amp_1.log x/2n8g/r50_b128_fp16_2.log | grep -v "^#" | cut -f 3 | sort -u'
	[ "$output" = 2n8g_b128_amp ]
	# a PARAMETER value that is not one
	sed 's/ batch_size : 128 / batch_size : x /' x/4n8g/r50_b128_fp32_1.log > x/bad
	run -1 --separate-stderr grep-iters -k 2n8g_b128_fp32 x/bad
	[ "$stderr" = "grep-iters: x/bad:9: PARAMETER batch_size 'x' is not an integer" ]
	sed 's/ amp : False / amp : maybe /' x/4n8g/r50_b128_fp32_1.log > x/bad
	run -1 --separate-stderr grep-iters -k 2n8g_b128_fp32 x/bad
	[ "$stderr" = "grep-iters: x/bad:9: PARAMETER amp 'maybe' is not True or False" ]
}

# ---- options ------------------------------------------------------------------

@test "-F sets the framework column" {
	run -0 --separate-stderr grep-iters -F pytorch-dali pytorch/sample-a/2n8g/r50_b128_fp32_1.log
	[ "${lines[0]}" = "$(want <<<'pytorch-dali|pytorch|2n8g_b128_fp32|1|1|-|12.054|-|6.9828e+00')" ]
	[ "${#lines[@]}" -eq 5 ]
}

@test "several files are read in order, each with its own format and configuration" {
	run -0 --separate-stderr grep-iters oneflow-bert/1n1g/bert_b24_fp32_0.log tensorflow/1n1g/rn50_b128_fp32_1.log
	[ "$output" = "$(cat oneflow-bert/1n1g/bert_b24_fp32_0.expected tensorflow/1n1g/rn50_b128_fp32_1.expected)" ]
}

@test "- between files is stdin: key from -k, run 1, the format's framework" {
	run -0 --separate-stderr bash -c 'grep-iters -k 1n1g_b24_fp32 oneflow-bert/1n1g/bert_b24_fp32_0.log - < tensorflow/1n1g/rn50_b128_fp32_1.log'
	# the second file's records with the key of -k
	[ "$output" = "$(cat oneflow-bert/1n1g/bert_b24_fp32_0.expected
		sed 's/1n1g_b128_fp32/1n1g_b24_fp32/' tensorflow/1n1g/rn50_b128_fp32_1.expected)" ]
}

@test "-f forces a format: the DLL sample read as pytorch has no iteration lines" {
	run -1 --separate-stderr grep-iters -f pytorch ngc-pytorch/2n8g/r50_b128_fp32_1.log
	[ "$stderr" = "grep-iters: ngc-pytorch/2n8g/r50_b128_fp32_1.log: no iteration lines of format pytorch" ]
}

@test "-a fp16=amp rewrites the precision of the path (an alias)" {
	place ngc-pytorch/2n8g/r50_b128_fp32_1.log workspace/rn50/scripts/j5_amp_ngc/pytorch/1n1g/r50_b256_fp16_4.log
	cd "$BATS_TEST_TMPDIR"
	run -0 --separate-stderr bash -c 'grep-iters -a fp16=amp workspace/rn50/scripts/j5_amp_ngc/pytorch/1n1g/r50_b256_fp16_4.log | cut -f 1-4 | sort -u'
	[ "$output" = "$(want <<<'ngc-pytorch|ngc-pytorch|1n1g_b256_amp|4')" ]
}

@test "-k contradicting the path is an error" {
	run -1 --separate-stderr grep-iters -k 1n1g_b128_fp32 pytorch/sample-a/2n8g/r50_b128_fp32_1.log
	[ "$stderr" = "grep-iters: pytorch/sample-a/2n8g/r50_b128_fp32_1.log: the path says 2n8g_b128_fp32, -k says 1n1g_b128_fp32" ]
}

@test "-k gives the key of a path that carries none; the run comes from <run>.log" {
	place pytorch/sample-a/2n8g/r50_b128_fp32_1.log some/where/7.log
	cd "$BATS_TEST_TMPDIR"
	run -0 --separate-stderr bash -c 'grep-iters -k 1n1g_b128_fp32 some/where/7.log | cut -f 1-5'
	[ "${lines[0]}" = "$(want <<<'pytorch|pytorch|1n1g_b128_fp32|7|1')" ]
}

@test "usage errors exit 2 with the synopsis or a message naming the flag" {
	local u="usage: grep-iters [-c dlperf] [-f format] [-k key] [-F framework] [-a from=to] [file ...]
       grep-iters -l"
	run -2 --separate-stderr grep-iters -x
	[ "$stderr" = "$u" ]
	run -2 --separate-stderr grep-iters -k
	[ "$stderr" = "$u" ]
	run -2 --separate-stderr grep-iters -l x.log
	[ "$stderr" = "$u" ]
	run -2 --separate-stderr grep-iters -c strict
	[ "$stderr" = "grep-iters: -c: 'strict' is not dlperf" ]
	run -2 --separate-stderr grep-iters -f caffe
	[ "$stderr" = "grep-iters: -f: unknown format 'caffe'" ]
	run -2 --separate-stderr grep-iters -k 1n1g
	[ "$stderr" = "grep-iters: -k: '1n1g' is not a key <N>n<G>g_b<B>_<prec>" ]
	run -2 --separate-stderr grep-iters -k 1n1g_b16_fp8
	[ "$stderr" = "grep-iters: -k: precision 'fp8' is not fp32, tf32, amp, bf16 or fp16" ]
	run -2 --separate-stderr grep-iters -a fp16
	[ "$stderr" = "grep-iters: -a: 'fp16' is not from=to with to one of fp32, tf32, amp, bf16 or fp16" ]
	run -2 --separate-stderr grep-iters -F ''
	[ "$stderr" = "grep-iters: -F: '' is not a framework name" ]
}

# ---- paths -------------------------------------------------------------------

path_key_run() {
	place ngc-pytorch/2n8g/r50_b128_fp32_1.log "$1"
	(cd "$BATS_TEST_TMPDIR" && grep-iters "$1" | cut -f 3,4 | sort -u)
}

@test "DLPerf's paths that are accepted give their key and run" {
	[ "$(path_key_run logs/ngc/tensorflow/resnet50/2n8g/r50_b128_fp32_5.log)" = "$(want <<<'2n8g_b128_fp32|5')" ]
	[ "$(path_key_run workspace/rn50/scripts/j5_amp_ngc/pytorch/1n1g/r50_b256_fp16_4.log)" = "$(want <<<'1n1g_b256_fp16|4')" ]
	[ "$(path_key_run logs_fp32/mindspore/resnet50/bz128/4n8g/rn50_b128_fp32_1.log)" = "$(want <<<'4n8g_b128_fp32|1')" ]
	[ "$(path_key_run r100_fp32_b115_oneflow_model_parallel_True_partial_fc_False_0.1/r100/1n8g/r100_b115_fp32_3.log)" = "$(want <<<'1n8g_b115_fp32|3')" ]
	[ "$(path_key_run x/1n16g/r50_b64_amp_2.log)" = "$(want <<<'1n16g_b64_amp|2')" ]
	[ "$(path_key_run x/10n8g/r50_b128_fp32_1.log)" = "$(want <<<'10n8g_b128_fp32|1')" ]
	[ "$(path_key_run x/physical_j8_dali/4n8g/r50_b128_fp32_42.log)" = "$(want <<<'4n8g_b128_fp32|42')" ]
}

@test "train.sh's layout <model>_<N>node_bz<B>/<N>n<G>c_real.log: fp32, run 1, -k must agree" {
	[ "$(path_key_run benchmark_log/cnns/resnet50_1node_bz128/1n8c_real.log)" = "$(want <<<'1n8g_b128_fp32|1')" ]
	[ "$(path_key_run logs/resnet50_4node_bz32/4n8c_real.log)" = "$(want <<<'4n8g_b32_fp32|1')" ]
	[ "$(path_key_run resnet_50_2node_bz160/2n16c_real.log)" = "$(want <<<'2n16g_b160_fp32|1')" ]
	run -0 --separate-stderr grep-iters -k 2n8g_b128_fp32 pytorch/train-sh/resnet50_2node_bz128/2n8c_real.log
	[ -z "$stderr" ]
	run -1 --separate-stderr grep-iters -k 2n8g_b64_fp32 pytorch/train-sh/resnet50_2node_bz128/2n8c_real.log
	[ "$stderr" = "grep-iters: pytorch/train-sh/resnet50_2node_bz128/2n8c_real.log: the path says 2n8g_b128_fp32, -k says 2n8g_b64_fp32" ]
}

@test "train.sh's layout: a file name not <N>n<G>c_real.log, or other nodes than the directory's, is an error" {
	# the last: no model before _<N>node, so not this layout
	while IFS='|' read -r path msg; do
		cd "$F"
		path_error "$path"
		[ "$stderr" = "grep-iters: $path: $msg" ] || { echo "$path: $stderr"; false; }
	done <<'CASES'
x/resnet50_1node_bz128/1n8g_real.log|file name '1n8g_real.log' is not <N>n<G>c_real.log (the layout of 'resnet50_1node_bz128')
x/resnet50_1node_bz128/2n8c_real.log|the directory says 1 node, the file name 2
x/resnet50_0node_bz128/0n8c_real.log|nodes '0' is not a positive integer
x/resnet50_1node_bz2000000/1n8c_real.log|batch '2000000' is out of range 1..1048576
x/_1node_bz128/1n8c_real.log|directory '_1node_bz128' is none of <N>n<G>g, <N>n<G>g_b<B>_<prec>, <model>_<N>node_bz<B>; give -k key
CASES
}

@test "our layout logs/<framework>/<key>/<run>.log names the framework" {
	place ngc-pytorch/2n8g/r50_b128_fp32_1.log logs/ngc-pytorch-ib/4n8g_b256_amp/3.log
	cd "$BATS_TEST_TMPDIR"
	run -0 --separate-stderr bash -c 'grep-iters logs/ngc-pytorch-ib/4n8g_b256_amp/3.log | cut -f 1-4 | sort -u'
	[ "$output" = "$(want <<<'ngc-pytorch-ib|ngc-pytorch|4n8g_b256_amp|3')" ]
}

path_error() {
	place ngc-pytorch/2n8g/r50_b128_fp32_1.log "$1"
	cd "$BATS_TEST_TMPDIR"
	run -1 --separate-stderr grep-iters "$1"
	[ -z "$output" ]
}

@test "DLPerf's paths: a file name of 3 fields is an error" {
	path_error x/4n8g/r50_b128_fp32.log
	[ "$stderr" = "grep-iters: x/4n8g/r50_b128_fp32.log: file name has 3 '_'-separated fields, expected 4: <model>_b<B>_<prec>_<run>.log" ]
}

@test "DLPerf's paths: a file name of 5 fields is an error" {
	path_error x/4n8g/r50_b128_fp32_1_old.log
	[ "$stderr" = "grep-iters: x/4n8g/r50_b128_fp32_1_old.log: file name has 5 '_'-separated fields, expected 4: <model>_b<B>_<prec>_<run>.log" ]
}

@test "DLPerf's paths: batch 0 is an error" {
	path_error x/4n8g/r50_b0_fp32_1.log
	[ "$stderr" = "grep-iters: x/4n8g/r50_b0_fp32_1.log: batch 'b0' is not b<B> with B a positive integer" ]
}

@test "DLPerf's paths: a case directory that is not <N>n<G>g is an error" {
	path_error x/8g/r50_b128_fp32_1.log
	[ "$stderr" = "grep-iters: x/8g/r50_b128_fp32_1.log: directory '8g' is none of <N>n<G>g, <N>n<G>g_b<B>_<prec>, <model>_<N>node_bz<B>; give -k key" ]
}

@test "a precision that is not one of ours is an error" {
	path_error x/4n8g/r50_b128_half_1.log
	[ "$stderr" = "grep-iters: x/4n8g/r50_b128_half_1.log: precision 'half' is not fp32, tf32, amp, bf16 or fp16" ]
}

@test "an alias may name a precision that is not one of ours" {
	place ngc-pytorch/2n8g/r50_b128_fp32_1.log x/4n8g/r50_b128_half_1.log
	cd "$BATS_TEST_TMPDIR"
	run -0 --separate-stderr bash -c 'grep-iters -a half=fp16 x/4n8g/r50_b128_half_1.log | cut -f 3 | sort -u'
	[ "$output" = "4n8g_b128_fp16" ]
}

@test "a run that is not a number is an error" {
	path_error x/4n8g/r50_b128_fp32_one.log
	[ "$stderr" = "grep-iters: x/4n8g/r50_b128_fp32_one.log: run 'one' is not a non-negative integer" ]
}

@test "our layout with a file name that is not <run>.log is an error" {
	path_error logs/bench/1n1g_b16_fp32/first.log
	[ "$stderr" = "grep-iters: logs/bench/1n1g_b16_fp32/first.log: file name 'first.log' is not <run>.log" ]
}

@test "a path without a configuration directory is an error unless -k is given" {
	path_error train.log
	[ "$stderr" = "grep-iters: train.log: no directory <N>n<G>g, <N>n<G>g_b<B>_<prec> or <model>_<N>node_bz<B> in the path; give -k key" ]
}

# ---- bad input -----------------------------------------------------------------

@test "an empty log is an error" {
	: > "$BATS_TEST_TMPDIR/e"
	run -1 --separate-stderr grep-iters -k 1n1g_b16_fp32 "$BATS_TEST_TMPDIR/e"
	[ "$stderr" = "grep-iters: $BATS_TEST_TMPDIR/e: empty log" ]
}

@test "a log of no known format is an error" {
	run -1 --separate-stderr bash -c 'printf "%s\n" "Use GPU: 0 for training" "done" | grep-iters -k 1n1g_b16_fp32'
	[ "$stderr" = "grep-iters: <stdin>: unknown format (no iteration line of any known format)" ]
}

@test "a log on stdin without -k or a header is an error at the first iteration line" {
	run -1 --separate-stderr bash -c 'grep-iters < pytorch/sample-a/2n8g/r50_b128_fp32_1.log'
	[ "$stderr" = "grep-iters: <stdin>:1: no configuration before the first iteration line; give -k key" ]
}

@test "a Time that does not parse is an error naming file and line" {
	run -1 --separate-stderr bash -c 'sed "3s/Time  0.363/Time x.yz/" pytorch/sample-a/2n8g/r50_b128_fp32_1.log | grep-iters -k 2n8g_b128_fp32'
	[ "$stderr" = "grep-iters: <stdin>:3: Time 'x.yz' is not a number" ]
}

@test "a NaN, zero or negative step time is an error" {
	for t in nan 0.000 -0.363; do
		run -1 --separate-stderr bash -c "sed '3s/Time  0.363/Time $t/' pytorch/sample-a/2n8g/r50_b128_fp32_1.log | grep-iters -k 2n8g_b128_fp32"
		case $t in
		nan) [ "$stderr" = "grep-iters: <stdin>:3: Time 'nan' is not a number" ] ;;
		*) [ "$stderr" = "grep-iters: <stdin>:3: Time '$t' is not positive" ] ;;
		esac
	done
}

@test "a zero rate is an error" {
	run -1 --separate-stderr bash -c 'sed "2s/4294.91/0/" ngc-pytorch/2n8g/r50_b128_fp32_1.log | grep-iters -k 2n8g_b128_fp32'
	[ "$stderr" = "grep-iters: <stdin>:2: train.total_ips '0' is not positive" ]
}

@test "an impossible date is an error" {
	run -1 --separate-stderr bash -c 'sed "2s/2020-09-15/2021-02-29/" ngc-pytorch/2n8g/r50_b128_fp32_1.log | grep-iters -k 2n8g_b128_fp32'
	[ "$stderr" = "grep-iters: <stdin>:2: timestamp '2021-02-29 14:29:14' is not a valid date and time" ]
}

@test "an unreadable file is an error" {
	run -1 --separate-stderr grep-iters -k 1n1g_b16_fp32 "$BATS_TEST_TMPDIR/missing"
	[ "$stderr" = "grep-iters: $BATS_TEST_TMPDIR/missing: No such file or directory" ]
}

# ---- numbers, stamps and keys that do not fit --------------------------------

# $1 lines of printf format $2 (the line number as its %d) in $BATS_TEST_TMPDIR/$3.
lines_to() {
	mkdir -p "$BATS_TEST_TMPDIR/$(dirname "$3")"
	awk -v n="$1" -v f="$2" 'BEGIN { for (i = 1; i <= n; i++) printf f "\n", i }' > "$BATS_TEST_TMPDIR/$3"
}

@test "a stamp in year 9999 is the latest over ranks (no overflow past 2262)" {
	mkdir -p "$BATS_TEST_TMPDIR/x/1n2g"
	printf '%s\tSpeed: 100 samples/sec\n' \
		'9999-12-31 23:59:59,000:INFO: Epoch[0] Batch [0-0]' \
		'2020-09-10 12:34:56,801:INFO: Epoch[0] Batch [0-0]' > "$BATS_TEST_TMPDIR/x/1n2g/r50_b128_fp32_1.log"
	run -0 --separate-stderr grep-iters "$BATS_TEST_TMPDIR/x/1n2g/r50_b128_fp32_1.log"
	[ "$output" = "$(want <<<'ngc-mxnet|ngc-mxnet|1n2g_b128_fp32|1|1|253402300799.000|2.56|100.0|-')" ]
	# and through a DLL line
	run -0 --separate-stderr bash -c 'sed "2s/2020-09-15 14:29:14/9999-12-31 23:59:59/" ngc-pytorch/2n8g/r50_b128_fp32_1.log | grep-iters -k 2n8g_b128_fp32 | cut -f 5,6'
	[ "${lines[1]}" = "$(want <<<'2|253402300799.427490')" ]
}

@test "a key part above 1048576 is an error in a path, -k, bench's header and OneFlow's values" {
	printf 'INFO:root:Epoch[0] Batch[0]\tSpeed: 100 samples/sec\n' > "$BATS_TEST_TMPDIR/m.log"
	cd "$BATS_TEST_TMPDIR"
	for d in 1048577n1g_b1_fp32 1n1048577g_b1_fp32 1n1g_b1048577_fp32 999999999n999999999g_b999999999_fp32; do
		mkdir -p "mxnet/$d"
		cp m.log "mxnet/$d/1.log"
	done
	run -1 --separate-stderr grep-iters mxnet/1048577n1g_b1_fp32/1.log
	[ "$stderr" = "grep-iters: mxnet/1048577n1g_b1_fp32/1.log: directory '1048577n1g_b1_fp32': nodes 1048577 is out of range 1..1048576" ]
	run -1 --separate-stderr grep-iters mxnet/1n1048577g_b1_fp32/1.log
	[ "$stderr" = "grep-iters: mxnet/1n1048577g_b1_fp32/1.log: directory '1n1048577g_b1_fp32': devices per node 1048577 is out of range 1..1048576" ]
	run -1 --separate-stderr grep-iters mxnet/1n1g_b1048577_fp32/1.log
	[ "$stderr" = "grep-iters: mxnet/1n1g_b1048577_fp32/1.log: directory '1n1g_b1048577_fp32': batch 1048577 is out of range 1..1048576" ]
	# the total batch overflowed: a step time of 8.515845249265066e+16 s
	run -1 --separate-stderr grep-iters mxnet/999999999n999999999g_b999999999_fp32/1.log
	[ "$stderr" = "grep-iters: mxnet/999999999n999999999g_b999999999_fp32/1.log: directory '999999999n999999999g_b999999999_fp32': nodes 999999999 is out of range 1..1048576" ]
	mkdir -p 1048577n8g 8n8g
	cp m.log 1048577n8g/r50_b1_fp32_1.log
	cp m.log 8n8g/r50_b1048577_fp32_1.log
	run -1 --separate-stderr grep-iters 1048577n8g/r50_b1_fp32_1.log
	[ "$stderr" = "grep-iters: 1048577n8g/r50_b1_fp32_1.log: directory '1048577n8g': nodes 1048577 is out of range 1..1048576" ]
	run -1 --separate-stderr grep-iters 8n8g/r50_b1048577_fp32_1.log
	[ "$stderr" = "grep-iters: 8n8g/r50_b1048577_fp32_1.log: batch 'b1048577' is out of range 1..1048576" ]
	run -2 --separate-stderr grep-iters -k 1n1g_b1048577_fp32 m.log
	[ "$stderr" = "grep-iters: -k: batch 1048577 is out of range 1..1048576" ]
	run -1 --separate-stderr bash -c "sed '1s/nodes=1/nodes=1048577/' '$F/bench/1n2g_b16_fp32/1.log' | grep-iters"
	[ "$stderr" = "grep-iters: <stdin>:1: header: nodes=1048577 is out of range 1..1048576" ]
	run -1 --separate-stderr bash -c "sed 's/^num_nodes = 2/num_nodes = 1048577/' '$F/oneflow/2n8g/r50_b128_fp32_0.log' | grep-iters -k 2n8g_b128_fp32"
	[ "$stderr" = "grep-iters: <stdin>:4: num_nodes = '1048577' is out of range 1..1048576" ]
}

@test "a key of 1048576 in each part is taken: total batch 2^60, exact" {
	mkdir -p "$BATS_TEST_TMPDIR/mxnet/1048576n1048576g_b1048576_fp32"
	printf 'INFO:root:Epoch[0] Batch[0]\tSpeed: 100 samples/sec\n' > "$BATS_TEST_TMPDIR/mxnet/1048576n1048576g_b1048576_fp32/1.log"
	cd "$BATS_TEST_TMPDIR"
	run -0 --separate-stderr grep-iters mxnet/1048576n1048576g_b1048576_fp32/1.log
	[ "$output" = "$(want <<<'mxnet|mxnet|1048576n1048576g_b1048576_fp32|1|1|-|1.152921504606847e+16|100|-')" ]
}

@test "a rate of 63 zeros then 4 is a tiny positive number, 70 ones a number of 70 digits" {
	local z o
	z=$(printf '0%.0s' {1..62})
	o=$(printf '1%.0s' {1..70})
	printf 'INFO:root:Epoch[0] Batch[%d]\tSpeed: %s samples/sec\n' 0 "0.${z}4" 1 "$o" > "$BATS_TEST_TMPDIR/m.log"
	run -0 --separate-stderr grep-iters -k 1n1g_b128_fp32 "$BATS_TEST_TMPDIR/m.log"
	[ "$output" = "$(want <<EOF
mxnet|mxnet|1n1g_b128_fp32|1|1|-|3.1999999999999996e+64|0.${z}4|-
mxnet|mxnet|1n1g_b128_fp32|1|2|-|1.1519999999999999e-67|$o|-
EOF
)" ]
}

@test "a number beyond a double's range, or one whose step time would be, is an error naming file and line" {
	local z
	z=$(printf '0%.0s' {1..400})
	for r in 1e400 1e-400 "1$z" "0.${z}4" 1e-307; do
		printf 'INFO:root:Epoch[0] Batch[0]\tSpeed: 100 samples/sec\nINFO:root:Epoch[0] Batch[1]\tSpeed: %s samples/sec\n' "$r" > "$BATS_TEST_TMPDIR/m.log"
		run -1 --separate-stderr grep-iters -k 1n1g_b128_fp32 "$BATS_TEST_TMPDIR/m.log"
		case $r in
		1e-307) [ "$stderr" = "grep-iters: $BATS_TEST_TMPDIR/m.log:2: step_s derived from samples_per_s is out of range" ] ;;
		1e*) [ "$stderr" = "grep-iters: $BATS_TEST_TMPDIR/m.log:2: Speed '$r' is out of range" ] ;;
		*) [ "$stderr" = "grep-iters: $BATS_TEST_TMPDIR/m.log:2: Speed '${r:0:40}...' is out of range" ] ;;
		esac
	done
	# a bench step_s of 400 digits is not taken as printed
	run -1 --separate-stderr bash -c "sed '2s/step_s=0.4821/step_s=1$z/' bench/1n2g_b16_fp32/1.log | grep-iters"
	[ "$stderr" = "grep-iters: <stdin>:2: step_s '1${z:0:39}...' is out of range" ]
}

@test "the iteration count of many epochs or a sink's epoch × step that overflows is an error" {
	# each epoch one line of iteration 10^15: epoch 9223 would end past 2^63
	awk 'BEGIN { for (e = 0; e < 9300; e++)
		printf "INFO:root:Epoch[%d] Batch[999999999999999]\tSpeed: 100 samples/sec\n", e }' > "$BATS_TEST_TMPDIR/e.log"
	run -1 --separate-stderr grep-iters -k 1n1g_b128_fp32 "$BATS_TEST_TMPDIR/e.log"
	[ "$stderr" = "grep-iters: $BATS_TEST_TMPDIR/e.log:9224: epoch 9223: the count of iterations overflows" ]
	run -1 --separate-stderr bash -c 'printf "%s\n" "epoch: 999999999999999 step: 999999999999999, loss is 6.9" | grep-iters -k 1n1g_b128_fp32'
	[ "$stderr" = "grep-iters: <stdin>:1: epoch 999999999999999 step 999999999999999: the iteration overflows" ]
}

@test "a NUL byte in a line is an error naming file and line, not the end of the line" {
	run -1 --separate-stderr bash -c "sed '2s/step_s=0.4821/step_s=8940\x00.30/' bench/1n2g_b16_fp32/1.log | grep-iters"
	[ "$stderr" = "grep-iters: <stdin>:2: NUL byte in the line (column 31)" ]
	[ -z "$output" ]
}

@test "a line of 20 MB without a newline is read whole" {
	run -0 --separate-stderr bash -c '{ head -2 bench/1n2g_b16_fp32/1.log; printf "# "; head -c 20000000 /dev/zero | tr "\0" x; } | grep-iters'
	[ "$output" = "$(want <<<'bench|bench|1n2g_b16_fp32|1|1|1763781234.123456|0.4821|66.37|6.9310')" ]
}

@test "when a later file fails, stdout holds whole records only" {
	lines_to 2000 'iter=%d loss=6.9310 step_s=0.4821 samples_per_s=66.37 ts=1763781234.123456' logs/bench/1n2g_b16_fp32/1.log
	lines_to 1 'iter=%d loss=6.9310 step_s=x samples_per_s=66.37 ts=1763781234.123456' logs/bench/1n2g_b16_fp32/2.log
	cd "$BATS_TEST_TMPDIR"
	run -1 --separate-stderr bash -c 'grep-iters logs/bench/1n2g_b16_fp32/1.log logs/bench/1n2g_b16_fp32/2.log > out'
	[ "$stderr" = "grep-iters: logs/bench/1n2g_b16_fp32/2.log:1: step_s 'x' is not a number" ]
	[ "$(wc -c < out)" -ge 65536 ]
	[ "$(tail -c 1 out | od -An -c | tr -d ' ')" = '\n' ]
	[ -z "$(awk -F '\t' 'NF != 9' out)" ]
}

# ---- every format has fixtures ------------------------------------------------

# The registered formats' names: each X(id) line of FORMATS (formats.h)
# names the `id_format` of a file of filters/formats/, whose .name is the
# format's.
registered() {
	local src="$ROOT/filters/formats" id file
	sed -n 's/^[[:space:]]*X(\([a-z_]*\)).*/\1/p' "$src/formats.h" | while read -r id; do
		file=$(grep -l "^const struct format ${id}_format = {" "$src"/*.c) || return 1
		sed -n 's/^[[:space:]]*\.name = "\(.*\)",$/\1/p' "$file"
	done
}

@test "every registered format has a fixture folder whose logs grep-iters detects as it" {
	run -0 registered
	[ "${#lines[@]}" -eq "$(grep -c '^[[:space:]]*X(' "$ROOT/filters/formats/formats.h")" ]
	[ "${#lines[@]}" -gt 0 ]
	for name in "${lines[@]}"; do
		logs=$(find "$name" -name '*.log' | sort)
		[ -n "$logs" ]
		for log in $logs; do
			[ "$(grep-iters "$log" | grep -v '^#' | cut -f 2 | sort -u)" = "$name" ]
		done
	done
}

# ---- launch's environment and memory lines ---------------------------------

# bench's fixture as launch writes it: header, env lines, the job, mem lines.
launched() {
	mkdir -p "$BATS_TEST_TMPDIR/logs/bench/1n2g_b16_fp32"
	{
		echo '# launch key=1n2g_b16_fp32 hosts=localhost:2 start=2026-11-24T04:00:00Z command=bench'
		echo '# env node=0 hostname=vm'
		echo '# env node=0 cpu_model=AMD%20EPYC'
		cat bench/1n2g_b16_fp32/1.log
		echo '# mem node=0 rank=1 host=vm rss_peak_mib=4400'
		echo '# mem node=0 rank=0 host=vm rss_peak_mib=4521'
		printf '%s\n' "$@"
	} >"$BATS_TEST_TMPDIR/logs/bench/1n2g_b16_fp32/1.log"
}

@test "launch's env and mem lines follow the log's records, the run in front" {
	launched
	run -0 --separate-stderr grep-iters "$BATS_TEST_TMPDIR/logs/bench/1n2g_b16_fp32/1.log"
	[ "${#lines[@]}" = 6 ]
	[[ "${lines[0]}" == bench$'\t'bench$'\t'1n2g_b16_fp32$'\t'1$'\t'1$'\t'* ]]
	[[ "${lines[1]}" == bench$'\t'bench$'\t'1n2g_b16_fp32$'\t'1$'\t'2$'\t'* ]]
	[ "${lines[2]}" = "# env framework=bench key=1n2g_b16_fp32 run=1 node=0 hostname=vm" ]
	[ "${lines[3]}" = "# env framework=bench key=1n2g_b16_fp32 run=1 node=0 cpu_model=AMD%20EPYC" ]
	[ "${lines[4]}" = "# mem framework=bench key=1n2g_b16_fp32 run=1 node=0 rank=1 host=vm rss_peak_mib=4400" ]
	[ "${lines[5]}" = "# mem framework=bench key=1n2g_b16_fp32 run=1 node=0 rank=0 host=vm rss_peak_mib=4521" ]
	# window, median and speedup pass them on as meta lines.
	run -0 bash -c "grep-iters '$BATS_TEST_TMPDIR/logs/bench/1n2g_b16_fp32/1.log' | window -s 1 -n 1 | grep -c '^# \(env\|mem\) '"
	[ "$output" = 4 ]
}

@test "a malformed env or mem line is an error naming file and line" {
	for bad in '# env node=0 cpu model=x' '# env hostname=vm' '# env node=x hostname=vm' \
		'# mem node=0 rank=0 rss_peak_mib=lots' '# env node=0 a=b c=d' '# mem node=0'; do
		launched "$bad"
		run -1 --separate-stderr grep-iters "$BATS_TEST_TMPDIR/logs/bench/1n2g_b16_fp32/1.log"
		[[ "$stderr" == "grep-iters: $BATS_TEST_TMPDIR/logs/bench/1n2g_b16_fp32/1.log:10: "* ]]
	done
}

# The meta lines' one grammar (lib/meta.c), through grep-iters: it reads
# launch's lines and writes them again with lib's encoder.

@test "env values are decoded and written again by lib's encoder: %XX upper-case, '=' encoded" {
	# lib's meta_encode (launch's too): '%', '=', blanks, control bytes and
	# DEL as %XX; every other byte (UTF-8's included) as it is
	launched $'# env node=0 v=a%3db=c%25%09d%2D%7f\x01\xc3\xa9%20%5c' '# mem node=0 gpu=0 gpu_peak_mib=12'
	run -0 --separate-stderr grep-iters "$BATS_TEST_TMPDIR/logs/bench/1n2g_b16_fp32/1.log"
	[ "${lines[6]}" = $'# env framework=bench key=1n2g_b16_fp32 run=1 node=0 v=a%3Db%3Dc%25%09d-%7F%01\xc3\xa9%20\\' ]
	[ "${lines[7]}" = "# mem framework=bench key=1n2g_b16_fp32 run=1 node=0 gpu=0 gpu_peak_mib=12" ]
}

@test "words of an env line are split at blanks, however many: written with one" {
	launched $'#  env\tnode=0   hostname=vm2 '
	run -0 --separate-stderr grep-iters "$BATS_TEST_TMPDIR/logs/bench/1n2g_b16_fp32/1.log"
	[ "${lines[6]}" = "# env framework=bench key=1n2g_b16_fp32 run=1 node=0 hostname=vm2" ]
}

@test "a framework name with blanks, '=' or '%' is encoded in the env lines and read back by table" {
	launched
	mkdir -p "$BATS_TEST_TMPDIR/logs/my fw=1%/1n2g_b16_fp32"
	mv "$BATS_TEST_TMPDIR/logs/bench/1n2g_b16_fp32/1.log" "$BATS_TEST_TMPDIR/logs/my fw=1%/1n2g_b16_fp32/1.log"
	run -0 --separate-stderr grep-iters "$BATS_TEST_TMPDIR/logs/my fw=1%/1n2g_b16_fp32/1.log"
	[ "${lines[2]}" = "# env framework=my%20fw%3D1%25 key=1n2g_b16_fp32 run=1 node=0 hostname=vm" ]
	# table: the record's framework as the records have it, the meta lines from grep-iters
	run -0 --separate-stderr bash -c "{ printf 'my fw=1%%\t1n2g_b16_fp32\t19.00\t19.00\t18.90\t19.10\t2\t1.90\n'
		grep-iters '$BATS_TEST_TMPDIR/logs/my fw=1%/1n2g_b16_fp32/1.log' | grep '^#'; } | table -s json"
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["r50"]["1n2g"]["memory_mib"] == 4521, d
e = d["environment"]
assert e == [{"framework": "my fw=1%", "key": "1n2g_b16_fp32", "run": 1, "node": 0,
              "hostname": "vm", "cpu_model": "AMD EPYC"}], e'
}

@test "a bad %XX in an env or mem line is an error naming file, line and the escape" {
	for bad in 'a%G1' 'a%4' 'a%' '%00'; do
		launched "# env node=0 v=$bad"
		run -1 --separate-stderr grep-iters "$BATS_TEST_TMPDIR/logs/bench/1n2g_b16_fp32/1.log"
		[ "$stderr" = "grep-iters: $BATS_TEST_TMPDIR/logs/bench/1n2g_b16_fp32/1.log:10: env line: 'v=$bad': '${bad#a}' is not %XX (XX two hex digits, not 00)" ]
		[ -z "$output" ]
	done
	launched '# mem node=0 rank=0 host=v%ZZ rss_peak_mib=1'
	run -1 --separate-stderr grep-iters "$BATS_TEST_TMPDIR/logs/bench/1n2g_b16_fp32/1.log"
	[ "$stderr" = "grep-iters: $BATS_TEST_TMPDIR/logs/bench/1n2g_b16_fp32/1.log:10: mem line: 'host=v%ZZ': '%ZZ' is not %XX (XX two hex digits, not 00)" ]
}

@test "env and mem lines: each shape error is one line naming file and line" {
	log="$BATS_TEST_TMPDIR/logs/bench/1n2g_b16_fp32/1.log"
	while IFS='|' read -r line msg; do
		launched "$line"
		run -1 --separate-stderr grep-iters "$log"
		[ "$stderr" = "grep-iters: $log:10: $msg" ] || { echo "$line: $stderr"; false; }
	done <<'CASES'
# env node=0 cpu model=x|env line: 2 items after node=, expected 1
# env hostname=vm|env line: node=<number> expected, not 'hostname=vm'
# env|env line: node=<number> expected, not the end of the line
# env node=x hostname=vm|env line: node 'x' is not a whole number
# env node=0 =vm|env line: '=vm' is not name=value
# env node=0 host name=vm|env line: 2 items after node=, expected 1
# env node=0 hostname=|env line: 'hostname=' is not name=value
# env node=0 host/name=vm|env line: 'host/name=vm' is not name=value
# env framework=bench node=0 hostname=vm|env line: node=<number> expected, not 'framework=bench'
# mem node=0|mem line: 0 items after node=, expected 1 to 3
# mem node=0 rank=0 host=vm rss_peak_mib=1 x=2|mem line: 4 items after node=, expected 1 to 3
# mem node=0 rank=0 rss_peak_mib=lots|mem line: rss_peak_mib 'lots' is not a whole number
# mem node=0 rank=-1 rss_peak_mib=1|mem line: rank '-1' is not a whole number
# mem node=0 gpu=0 peak=1|mem line: the last item, 'peak', is not rss_peak_mib or gpu_peak_mib
CASES
}

# ---- what NCCL chose (nccl.c): its NCCL_DEBUG=INFO lines ---------------------

# items LINE…: bench's fixture with LINEs after its header, at our layout,
# through grep-iters: its env lines as "name=value" (still %XX-encoded).
items() {
	mkdir -p "$BATS_TEST_TMPDIR/logs/bench/2n2g_b16_fp32"
	{
		head -1 bench/1n2g_b16_fp32/1.log | sed 's/nodes=1 gpus_per_node=2/nodes=2 gpus_per_node=2/'
		printf '%s\n' "$@"
		tail -n +2 bench/1n2g_b16_fp32/1.log
	} >"$BATS_TEST_TMPDIR/logs/bench/2n2g_b16_fp32/1.log"
	grep-iters "$BATS_TEST_TMPDIR/logs/bench/2n2g_b16_fp32/1.log" >"$BATS_TEST_TMPDIR/out" || return
	# the records, as without those lines
	[ "$(grep -vc '^#' "$BATS_TEST_TMPDIR/out")" = 2 ] || return
	sed -n 's/^# env framework=bench key=2n2g_b16_fp32 run=1 node=0 //p' "$BATS_TEST_TMPDIR/out"
}

@test "NCCL 2.4: the bootstrap's NET/Socket line, then NET/IB's: the network is IB; Ring lines' transports" {
	run -0 items 'n1:20:289 [0] NCCL INFO NET/Socket : Using [0]ib0:192.168.11.1<0>' \
		'n1:20:289 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so).' \
		'n1:20:289 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:192.168.11.1<0>' \
		'NCCL version 2.4.7+cuda10.0' \
		'n1:20:301 [0] NCCL INFO Ring 00 :    0   1   2   3' \
		'n1:20:301 [0] NCCL INFO Ring 00 : 0[0] -> 1[1] via P2P/IPC' \
		'n1:21:302 [1] NCCL INFO Ring 00 : 1 -> 2 [send] via NET/IB/0'
	[ "$output" = "nccl.version=2.4.7+cuda10.0
nccl.net=IB
nccl.net_devices=mlx5_0:1/IB
nccl.transports=P2P/IPC,NET/IB" ]
}

@test "NCCL 2.3's 'Using internal Network', 2.11's 'Using network Socket' with its interfaces" {
	run -0 items 'n1:40511:40511 [4] NCCL INFO NET : Using interface enp1s0f0:100.97.16.164<0>' \
		'n1:40511:40511 [4] NCCL INFO Using internal Network Socket' \
		'NCCL version 2.3.7+cuda9.0' \
		'n1:40511:40644 [4] NCCL INFO Ring 00 : 4 -> 5 via direct shared memory'
	[ "$output" = "nccl.version=2.3.7+cuda9.0
nccl.net=Socket
nccl.transports=direct%20shared%20memory" ]
	# NCCL_IB_DISABLE=1: sockets, though an IB line came first; both interfaces
	run -0 items 'n1:852750:852802 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.' \
		'n1:852750:852802 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:192.168.1.14<0>' \
		'n1:852750:852802 [0] NCCL INFO NET/Socket : Using [0]ibs85f0:192.168.1.14<0> [1]ib0:192.168.1.15<0>' \
		'n1:852750:852802 [0] NCCL INFO Using network Socket' \
		'n1:852750:852802 [0] NCCL INFO Channel 00/0 : 1[1] -> 2[0] [send] via NET/Socket/1'
	[ "$output" = "nccl.net=Socket
nccl.net_devices=ibs85f0,ib0
nccl.transports=NET/Socket" ]
}

@test "NCCL lines behind mpirun's tag, between iteration lines and after the last, in DLPerf's mode too" {
	mkdir -p "$BATS_TEST_TMPDIR/logs/bench/2n2g_b16_fp32"
	{
		head -1 bench/1n2g_b16_fp32/1.log | sed 's/nodes=1 gpus_per_node=2/nodes=2 gpus_per_node=2/'
		echo '[1,0]<stdout>:NCCL version 2.5.6+cuda10.2'
		sed -n 2p bench/1n2g_b16_fp32/1.log
		echo '[1,1]<stdout>:n1:10159:10559 [1] NCCL INFO Ring 00 : 1[1b000] -> 2[3d000] [send] via NET/IB/1(0)/GDRDMA'
		tail -n +3 bench/1n2g_b16_fp32/1.log
		echo '[1,0]<stdout>:n1:10158:10560 [0] NCCL INFO Using network IB'
	} >"$BATS_TEST_TMPDIR/logs/bench/2n2g_b16_fp32/1.log"
	for flags in "" "-c dlperf"; do
		run -0 --separate-stderr grep-iters $flags "$BATS_TEST_TMPDIR/logs/bench/2n2g_b16_fp32/1.log"
		[ "${lines[-3]}" = "# env framework=bench key=2n2g_b16_fp32 run=1 node=0 nccl.version=2.5.6+cuda10.2" ]
		[ "${lines[-2]}" = "# env framework=bench key=2n2g_b16_fp32 run=1 node=0 nccl.net=IB" ]
		[ "${lines[-1]}" = "# env framework=bench key=2n2g_b16_fp32 run=1 node=0 nccl.transports=NET/IB/GDRDMA" ]
		[ "$(grep -vc '^#' <<<"$output")" = 2 ]
	done
}

@test "NCCL's items follow launch's lines; each log has its own; 16 values an item, then ..." {
	launched
	cp "$BATS_TEST_TMPDIR/logs/bench/1n2g_b16_fp32/1.log" "$BATS_TEST_TMPDIR/l"
	{ cat "$BATS_TEST_TMPDIR/l"; echo 'n1:1:1 [0] NCCL INFO Using network IB'; } \
		>"$BATS_TEST_TMPDIR/logs/bench/1n2g_b16_fp32/1.log"
	cp "$BATS_TEST_TMPDIR/l" "$BATS_TEST_TMPDIR/logs/bench/1n2g_b16_fp32/2.log"
	run -0 --separate-stderr grep-iters "$BATS_TEST_TMPDIR/logs/bench/1n2g_b16_fp32/1.log" \
		"$BATS_TEST_TMPDIR/logs/bench/1n2g_b16_fp32/2.log"
	[ "${lines[5]}" = "# mem framework=bench key=1n2g_b16_fp32 run=1 node=0 rank=0 host=vm rss_peak_mib=4521" ]
	[ "${lines[6]}" = "# env framework=bench key=1n2g_b16_fp32 run=1 node=0 nccl.net=IB" ]
	! grep -q 'run=2 .*nccl' <<<"$output" || false
	mapfile -t many < <(for k in $(seq 1 20); do echo "n1:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via NET/X$k/0"; done)
	run -0 items "${many[@]}"
	[ "$output" = "nccl.transports=$(seq -f 'NET/X%g' 1 16 | paste -sd,),..." ]
}

@test "a meta line is not NCCL's, though it quotes NCCL's words (launch's header quoting the command)" {
	run -0 items "# launch key=2n2g_b16_fp32 hosts=a:2,b:2 start=2026-11-27T00:00:00Z command=sh -c 'echo NCCL INFO Using network Socket; echo NCCL version 2.1.0'" \
		'# NCCL INFO Channel 00/0 : 0[0] -> 1[1] via NET/Socket/0'
	[ -z "$output" ]
}
