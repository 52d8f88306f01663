#!/usr/bin/env bats
# bench: the native ResNet50 v1.5 trainer. Model table, flags, log format,
# training (overfit), data parallel over MPI, --export. Small images keep
# every test to seconds on two cores.

load helper

B="$FIXTURES/bench"

@test "describe counts torchvision's 25,557,032 parameters and 8.18 GFLOP at 224 px" {
	run -0 bench --describe
	[ "${lines[0]}" = "# resnet50 v1.5 image=224 classes=1000 batch=16" ]
	[ "${lines[-4]}" = "params=25557032" ]
	[ "${lines[-3]}" = "forward_flops_per_sample=8178368512" ]
	[ "${lines[-2]}" = "forward_gflops_per_sample=8.178" ]
	# a training sample, MFU's count: 3 x the forward
	[ "${lines[-1]}" = "train_flops_per_sample=24535105536" ]
}

@test "the log says the FLOP of a training sample, bench's own count at its image size" {
	run -0 --separate-stderr bench --image 32 --batch 2 --classes 10 --iters 1
	[ "$(grep '^# env node=0 flop_per_sample=' <<<"$output")" = \
		"# env node=0 flop_per_sample=$(bench --describe --image 32 --classes 10 |
			sed -n 's/^train_flops_per_sample=//p')" ]
	[ "$(bench --describe --image 32 --classes 10 | sed -n 's/^train_flops_per_sample=//p')" = 500588544 ]
}

@test "describe prints every layer's shapes, stride on the 3x3 conv (v1.5)" {
	run -0 bench --describe --image 32 --classes 10 --batch 2
	[ "$output" = "$(cat "$B/describe-32px-10cls.txt")" ]
	[[ "$output" == *"layer2.0.conv2 conv 3x3/2 128x8x8 128x4x4 147456"* ]]
	[[ "$output" == *"layer2.0.conv1 conv 1x1/1 256x8x8 128x8x8 32768"* ]]
	[[ "$output" == *"fc fc - 2048 10 20490"* ]]
}

@test "a bottleneck's bn3, add and ReLU are one layer, after the downsample branch" {
	run -0 bench --describe --image 32 --classes 10 --batch 2
	[[ "$output" == *"7 layer1.0.conv3 conv 1x1/1 64x8x8 256x8x8 16384
8 layer1.0.downsample.0 conv 1x1/1 64x8x8 256x8x8 16384
9 layer1.0.downsample.1 bn - 256x8x8 256x8x8 512
10 layer1.0.bn3 bn+add+relu - 256x8x8 256x8x8 512
11 layer1.1.conv1"* ]]
	[[ "$output" != *"add+relu - 256x8x8 256x8x8 0"* ]]
}

# The "bucket i first last elements" rows of bench --describe on stdin tile
# the gradient buffer of $1 parameters from its top down, in backward order:
# the first ends at the last parameter, each ends where the one before
# began, the last begins at 0.
buckets_tile() {
	awk -v params="$1" '
		/^bucket / {
			n++
			if ($5 != $4 - $3 + 1 || (n == 1 && $4 != params - 1) ||
			    (n > 1 && $4 != prev - 1))
				bad = 1
			prev = $3
		}
		END { exit bad || !(n > 0 && prev == 0) }'
}

@test "describe lists allreduce buckets that tile the gradient buffer in backward order" {
	run -0 bash -c 'bench --describe | grep -c "^bucket"'
	[ "$output" -eq 4 ]
	bench --describe | buckets_tile 25557032
	# 0.001 MB: a bucket at every layer with gradients, at most 64 (the last takes the rest)
	run -0 bash -c 'bench --describe --bucket-mb 0.001 | grep -c "^bucket"'
	[ "$output" -eq 64 ]
	bench --describe --bucket-mb 0.001 | buckets_tile 25557032
	# and the check catches a gap, a wrong count and a wrong top
	! bench --describe | sed '/^bucket 1 /d' | buckets_tile 25557032 || false
	! bench --describe | sed 's/^\(bucket 0 [0-9]* [0-9]*\) [0-9]*$/\1 7/' |
		buckets_tile 25557032 || false
	! bench --describe | buckets_tile 25557033 || false
}

@test "bn3's gradient waits for the downsample's, which backward finishes after it" {
	# layer4.0: bn3 [12477504, 12481600) lies below downsample.0 and .1 in
	# the buffer but runs after them; its bucket is complete only once
	# downsample.0 is done, so both go together, downsample.1 just before
	run -0 bench --describe --image 32 --classes 10 --bucket-mb 0.001
	[[ "$output" == *"bucket 13 14578752 14582847 4096
bucket 14 12477504 14578751 2101248
bucket 15 11428928 12477503 1048576"* ]]
}

@test "a non-integer --batch is a usage error naming the flag" {
	run -2 --separate-stderr bench --batch x
	[ "$stderr" = "bench: --batch: 'x' is not an integer" ]
	[ "$output" = "" ]
}

@test "an out-of-range --image is a usage error" {
	run -2 --separate-stderr bench --image 8
	[ "$stderr" = "bench: --image: '8' is out of range [32, 4096]" ]
}

@test "a non-number --lr is a usage error" {
	run -2 --separate-stderr bench --lr 0.1x
	[ "$stderr" = "bench: --lr: '0.1x' is not a number" ]
}

@test "an unknown precision is a usage error" {
	run -2 --separate-stderr bench --precision fp16
	[ "$stderr" = "bench: --precision: 'fp16' is not fp32, tf32, amp or bf16" ]
}

@test "tf32 is a GPU precision: the CPU backend refuses it" {
	run -2 --separate-stderr bench --precision tf32 --image 32 --iters 1
	[ "$stderr" = "bench: --precision: the CPU backend runs fp32, amp and bf16 only" ]
	[ "$output" = "" ]
}

@test "an unknown option prints the usage" {
	run -2 --separate-stderr bench --frobnicate
	[ "${stderr_lines[0]}" = "bench: unknown option '--frobnicate'" ]
	[[ "${stderr_lines[1]}" == "usage: bench [--describe] [--batch B]"* ]]
}

@test "a flag without its value is a usage error" {
	run -2 --separate-stderr bench --iters
	[ "${stderr_lines[0]}" = "bench: --iters needs a value" ]
}

@test "--warmup must leave iterations to time" {
	run -2 --separate-stderr bench --iters 3 --warmup 3
	[ "$stderr" = "bench: --warmup: '3' must be less than --iters (3)" ]
}

@test "without --warmup the first step (set-up, allocation) is kept out of the summary" {
	run -0 --separate-stderr bench --image 32 --batch 2 --classes 10 --iters 2
	[[ "$(grep '^# summary' <<<"$output")" =~ ^#\ summary\ warmup=1\ timed_iters=1\ samples_per_s=[0-9]+\.[0-9]+$ ]]
	# one step: nothing left to time after it, no summary (the setting
	# lines aside: header, the step, the end)
	run -0 --separate-stderr bench --image 32 --batch 2 --classes 10 --iters 1
	[ "$(grep -vc '^# env ' <<<"$output")" -eq 3 ]
	[[ "${lines[-1]}" =~ ^#\ end\ iters=1\  ]]
}

@test "the log follows bench's format: header, one line per iteration, end line" {
	# OMP_NUM_THREADS unset: its setting line is absent, not "-"
	run -0 --separate-stderr env -u OMP_NUM_THREADS bench --image 32 --batch 2 --classes 10 --iters 3 --warmup 1
	[ "${#lines[@]}" -eq 10 ]
	[ "${lines[0]}" = "# bench model=resnet50 backend=cpu-onednn nodes=1 gpus_per_node=1 batch_per_device=2 precision=fp32 image=32 data=synthetic" ]
	[[ "${lines[1]}" =~ ^#\ env\ node=0\ setting\.threads=[1-9][0-9]*$ ]]
	[ "${lines[2]}" = "# env node=0 setting.layout=default" ]
	[ "${lines[3]}" = "# env node=0 setting.conv_algo=find" ]
	[ "${lines[4]}" = "# env node=0 flop_per_sample=500588544" ]
	num='[0-9]+\.[0-9]+'
	for k in 1 2 3; do
		[[ "${lines[$((k + 4))]}" =~ ^iter=$k\ loss=$num\ step_s=$num\ samples_per_s=$num\ ts=[0-9]+\.[0-9]{6}$ ]]
	done
	[[ "${lines[8]}" =~ ^#\ summary\ warmup=1\ timed_iters=2\ samples_per_s=$num$ ]]
	[[ "${lines[9]}" =~ ^#\ end\ iters=3\ peak_mem_mb=[1-9][0-9]*$ ]]
	[[ "$stderr" == "bench: cpu-onednn, 1 rank(s)"* ]]
}

@test "the same seed gives the same losses with the algorithms pinned; samples/s is batch over step time" {
	# find may keep other algorithms from run to run (bench/backend.h);
	# direct and winograd each repeat bitwise, at 64 px where Winograd
	# runs (AVX-512) and its losses differ from direct's
	declare -A first
	for a in direct winograd; do
		for r in 1 2; do
			run -0 bash -c "bench --image 64 --batch 2 --classes 10 --iters 3 --seed 7 --conv-algo $a 2>/dev/null | grep -o 'loss=[^ ]*'"
			[ "${#lines[@]}" -eq 3 ]
			[ "$r" = 2 ] || first[$a]=$output
			[ "$output" = "${first[$a]}" ]
		done
	done
	if has_winograd; then
		[ "${first[winograd]}" != "${first[direct]}" ]
	else
		[ "${first[winograd]}" = "${first[direct]}" ]
	fi
	run -0 bash -c 'bench --image 32 --batch 4 --classes 10 --iters 1 2>/dev/null | grep ^iter= |
		awk "{split(\$3,a,\"=\"); split(\$4,b,\"=\"); r = 4 / a[2]; d = r - b[2]; if (d < 0) d = -d; exit !(d < 0.01 * r + 0.01)}"'
}

@test "training overfits one fixed batch: loss below 0.05" {
	run -0 bash -c 'bench --image 32 --batch 4 --classes 10 --iters 30 --lr 0.01 --weight-decay 0 2>/dev/null | grep ^iter='
	first=$(echo "${lines[0]}" | sed 's/.*loss=\([^ ]*\).*/\1/')
	last=$(echo "${lines[-1]}" | sed 's/.*loss=\([^ ]*\).*/\1/')
	awk -v f="$first" -v l="$last" 'BEGIN { exit !(f > 1.0 && l < 0.05) }'
}

@test "--export writes the files of doc/correctness.md with consistent sizes" {
	d="$BATS_TEST_TMPDIR/x"
	mkdir "$d"
	run -0 bench --export "$d" --image 32 --batch 2 --classes 10
	n=23528522
	[ "$(stat -c %s "$d/params.f32")" -eq $((4 * n)) ]
	[ "$(stat -c %s "$d/grads.f32")" -eq $((4 * n)) ]
	[ "$(stat -c %s "$d/params_after.f32")" -eq $((4 * n)) ]
	[ "$(stat -c %s "$d/input.f32")" -eq $((4 * 2 * 3 * 32 * 32)) ]
	[ "$(stat -c %s "$d/labels.i32")" -eq 8 ]
	[ "$(stat -c %s "$d/logits.f32")" -eq 80 ]
	[[ "$(cat "$d/loss.txt")" =~ ^[0-9]+\.[0-9]+$ ]]
	[ "$(wc -l < "$d/manifest.tsv")" -eq 161 ]
	[ "$(head -1 "$d/manifest.tsv")" = "$(printf 'conv1.weight\t64x3x7x7\t0\t9408')" ]
	[ "$(tail -1 "$d/manifest.tsv")" = "$(printf 'fc.bias\t10\t23528512\t10')" ]
	[ "$(awk -F'\t' '{ s += $4 } END { print s }' "$d/manifest.tsv")" -eq $n ]
	[ -z "$(find "$d" -name '*.tmp')" ]
}

@test "--export gives the weights in torchvision's order whatever layout the convolutions keep them in" {
	# With lr 0 a step changes nothing: the weights read back after it
	# (turned from the convolutions' layouts to OIHW) are the ones written.
	d="$BATS_TEST_TMPDIR/x"
	mkdir "$d"
	for p in fp32 amp; do
		[ "$p" = amp ] && ! grep -qw avx512_bf16 /proc/cpuinfo && continue
		run -0 bench --export "$d" --image 32 --batch 2 --classes 10 --precision "$p" \
			--lr 0 --weight-decay 0
		cmp "$d/params.f32" "$d/params_after.f32"
	done
}

@test "a step reorders no weights from or to torchvision's OIHW: the convolutions keep their own layouts" {
	# oneDNN's verbose lines of step 2 (between iter=1 and iter=2): no
	# reorder of a weight tensor (dims not led by the batch of 2) has a
	# plain abcd side; before, every convolution had three such a step.
	for p in fp32 amp; do
		[ "$p" = amp ] && ! grep -qw avx512_bf16 /proc/cpuinfo && continue
		run -0 env ONEDNN_VERBOSE=1 bench --image 32 --batch 2 --classes 10 --iters 2 \
			--warmup 0 --precision "$p"
		step=$(printf '%s\n' "${lines[@]}" | sed -n '/^iter=1 /,/^iter=2 /p')
		[ "$(grep -c 'exec,cpu,convolution' <<<"$step")" -ge 100 ]
		plain=$(grep 'exec,cpu,reorder' <<<"$step" | grep 'abcd' |
			awk -F, '$(NF - 1) !~ /^2x/' || true)
		[ -z "$plain" ] || { echo "$p: $plain"; false; }
	done
}

@test "--export into a missing directory fails before training" {
	run -1 --separate-stderr bench --export "$BATS_TEST_TMPDIR/none" --image 32
	[ "$stderr" = "bench: --export: $BATS_TEST_TMPDIR/none: No such file or directory" ]
	[ "$output" = "" ]
}

@test "2 ranks x batch B step like the mean of the two halves' gradients" {
	command -v mpirun || skip "mpirun not installed"
	command -v python3 || skip "python3 not installed"
	t="$BATS_TEST_TMPDIR"
	mkdir "$t/dp" "$t/s0" "$t/s1"
	# one thread everywhere: the same kernels in the same order, so the
	# only difference left is the sum over ranks (at 32 px, BN over 2
	# values per channel makes the net chaotic in rounding order)
	args="--image 32 --batch 2 --classes 10 --seed 3 --lr 0.1 --threads 1 --conv-algo direct"
	run -0 --separate-stderr mpirun -np 2 --bind-to none bench $args --export "$t/dp"
	[[ "${lines[0]}" == *" nodes=1 gpus_per_node=2 batch_per_device=2 "* ]]
	# the MPI it loaded, as the library names itself, once (rank 0's log)
	v=$(mpirun --version | sed -n 's/.*(Open MPI) //p' | head -1)
	[ "$(printf '%s\n' "${lines[@]}" | grep -c '^# env node=0 mpi_library=')" = 1 ]
	printf '%s\n' "${lines[@]}" | grep -qx "# env node=0 mpi_library=Open%20MPI%20v$v"
	# rank r trains samples [rB, (r+1)B): the same halves, one process each
	run -0 bench $args --shard 0 --export "$t/s0"
	# one process loads no MPI and names none
	[ "$(printf '%s\n' "${lines[@]}" | grep -c 'mpi_library')" = 0 ]
	run -0 bench $args --shard 1 --export "$t/s1"
	run -0 python3 "$B/dp_check.py" "$t/dp" "$t/s0" "$t/s1"
	[ "${#lines[@]}" -eq 2 ]
}

@test "the setting lines say the threads, layout and convolution algorithms bench ran with" {
	run -0 --separate-stderr env OMP_NUM_THREADS=1 bench --image 32 --batch 2 --classes 10 --iters 1 --threads 1 --layout nhwc
	[ "${lines[1]}" = "# env node=0 setting.threads=1" ]
	[ "${lines[2]}" = "# env node=0 setting.layout=nhwc" ]
	[ "${lines[3]}" = "# env node=0 setting.conv_algo=find" ]
	[ "${lines[4]}" = "# env node=0 setting.omp_num_threads=1" ]
	run -0 --separate-stderr bench --image 32 --batch 2 --classes 10 --iters 1 --conv-algo direct --workspace-mb 64.5
	[ "${lines[3]}" = "# env node=0 setting.conv_algo=direct" ]
	[ "${lines[4]}" = "# env node=0 setting.workspace_mb=64.5" ]
}

@test "--rank-times: one '# ranks' line per iteration, one compute time per rank" {
	run -0 --separate-stderr bench --image 32 --batch 2 --classes 10 --iters 3 --threads 1 --rank-times
	run -0 grep -c '^# ranks iter=[1-3] compute_s=[0-9]*\.[0-9]\{4\}$' <<<"$output"
	[ "$output" = 3 ]
	# without the flag, none
	run -0 --separate-stderr bench --image 32 --batch 2 --classes 10 --iters 2 --threads 1
	[[ "$output" != *"# ranks"* ]]
}

@test "a rank slowed on purpose (DLBENCH_SLOW_RANK) is the one ranks names" {
	command -v mpirun || skip "mpirun not installed"
	# Rank 1 sleeps 8 s in each step's compute. A step of 32 px, batch 1,
	# takes tens of ms on a quiet machine and 3 to 6 s on this 2-core one
	# at a load of 13 (measured). With two ranks the median rank is their
	# mean: rank 1 is named unless rank 0's own compute exceeds 7.2 s +
	# 0.9 x rank 1's in 2 of the 3 steps read, and rank 0 only if it
	# exceeds rank 1's 8 s and more by 10 %: the load cannot decide it.
	DLBENCH_SLOW_RANK=1:8000 run -0 --separate-stderr mpirun -np 2 --bind-to none \
		bench --image 32 --batch 1 --classes 10 --iters 4 --threads 1 --rank-times
	printf '%s\n' "${lines[@]}" >"$BATS_TEST_TMPDIR/slow.log"
	run -0 grep -c '^# ranks iter=[1-4] compute_s=[0-9.]*,[0-9.]*$' "$BATS_TEST_TMPDIR/slow.log"
	[ "$output" = 4 ]
	# every step of rank 1 took the 8 s it slept, at least
	run -0 awk -F'[=,]' '/^# ranks/ { if ($4 < 8) exit 1 }' "$BATS_TEST_TMPDIR/slow.log"
	run -0 ranks "$BATS_TEST_TMPDIR/slow.log"
	[ "$(cut -f2,6,7 <<<"$output" | tr '\t\n' ' ;')" = "0 3 ok;1 3 slow;" ]
}

@test "a bad DLBENCH_SLOW_RANK is an error naming it" {
	DLBENCH_SLOW_RANK=1 run -1 --separate-stderr bench --image 32 --batch 1 --iters 1
	[ "$stderr" = "bench: DLBENCH_SLOW_RANK=1: want RANK:MILLISECONDS" ]
	DLBENCH_SLOW_RANK=0:x run -1 --separate-stderr bench --image 32 --batch 1 --iters 1
	[ "$stderr" = "bench: DLBENCH_SLOW_RANK=0:x: want RANK:MILLISECONDS (0..3600000)" ]
	[ "$output" = "" ]
}

@test "amp runs on a CPU with AVX512_BF16 and is refused clearly without it" {
	if grep -qw -e avx512_bf16 -e amx_bf16 /proc/cpuinfo; then
		run -0 --separate-stderr bench --precision amp --image 32 --batch 2 --classes 10 --iters 2
		[[ "${lines[0]}" == *" precision=amp "* ]]
		[[ "$(grep '^iter=2 ' <<<"$output")" =~ ^iter=2\ loss=[0-9]+\.[0-9]+\  ]]
	else
		run -2 --separate-stderr bench --precision amp --image 32 --iters 1
		[[ "$stderr" == "bench: --precision amp: this CPU has neither AVX512_BF16 nor AMX"* ]]
	fi
}

@test "blocked and channels-last layouts give the same first loss" {
	a="--image 64 --batch 4 --classes 10 --iters 1"
	run -0 bash -c "bench $a --layout nhwc 2>/dev/null | grep ^iter= | sed 's/.*loss=\([^ ]*\).*/\1/'"
	l1="$output"
	run -0 bash -c "bench $a --layout blocked 2>/dev/null | grep ^iter= | sed 's/.*loss=\([^ ]*\).*/\1/'"
	l2="$output"
	awk -v a="$l1" -v b="$l2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 1 && d <= 2e-4 * a) }'
}

@test "an unknown --layout is a usage error" {
	run -2 --separate-stderr bench --layout nchw
	[ "$stderr" = "bench: --layout: 'nchw' is not blocked or nhwc" ]
}

@test "an unknown --conv-algo is a usage error; bench-cuda refuses all but find" {
	run -2 --separate-stderr bench --conv-algo fast
	[ "$stderr" = "bench: --conv-algo: 'fast' is not find, direct or winograd" ]
	[ -x "$ROOT/bin/bench-cuda" ] || return 0
	run -2 --separate-stderr bench-cuda --conv-algo direct --image 32
	[ "$stderr" = "bench: --conv-algo: the CUDA backend always finds (cudnnFind, conv.cu)" ]
}

@test "--conv-algo winograd: the thirteen 3x3 stride-1 convolutions on oneDNN's Winograd, all three directions; where it has none, one line says so" {
	a="--image 64 --batch 2 --classes 10 --iters 1 --verbose"
	run -0 --separate-stderr bench $a --conv-algo winograd
	if has_winograd; then
		for d in fwd "bwd data" "bwd weights"; do
			[ "$(grep -c "^bench: conv $d: jit_wino_4x3:" <<<"$stderr")" -eq 13 ]
		done
		[ "$(grep -c "has no Winograd" <<<"$stderr")" -eq 0 ]
	else
		[ "$(grep -c "has no Winograd" <<<"$stderr")" -eq 1 ]
	fi
	run -0 --separate-stderr bench $a --conv-algo direct
	[ "$(grep -c '^bench: conv fwd: ' <<<"$stderr")" -eq 53 ]
	[ "$(grep -c 'wino\|find' <<<"$stderr")" -eq 0 ]
	grep -qw avx512_bf16 /proc/cpuinfo || return 0
	run -0 --separate-stderr bench $a --precision amp --conv-algo winograd
	grep -Fx "bench: --conv-algo winograd: oneDNN has no Winograd here for bf16 3x3 convolutions on 16x16 (only fp32 on AVX-512, blocked layout); they run direct" <<<"$stderr"
	[ "$(grep -c "has no Winograd" <<<"$stderr")" -eq 1 ]
	[ "$(grep -c 'jit_wino' <<<"$stderr")" -eq 0 ]
}

@test "--workspace-mb: a Winograd whose scratchpad is larger runs direct, --verbose says so, and the peak falls" {
	run -2 --separate-stderr bench --workspace-mb 0.5
	[[ "$stderr" == "bench: --workspace-mb: '0.5' is out of range [1, "* ]]
	a="--image 64 --batch 2 --classes 10 --iters 2 --conv-algo winograd --verbose"
	run -0 --separate-stderr bench $a
	all=$(grep -o 'peak_mem_mb=[0-9]*' <<<"$output" | cut -d= -f2)
	run -0 --separate-stderr bench $a --workspace-mb 32
	if ! has_winograd; then
		[ "$(grep -c 'workspace' <<<"$stderr")" -eq 0 ]
		return 0
	fi
	# batch 2: layer3's weight gradients (35 MB) and all of layer4 (42 and
	# 116 MB) are over 32 MB; layer1, layer2 and the rest of layer3 are not
	[ "$(grep -c "is over --workspace-mb 32.0: direct$" <<<"$stderr")" -eq 4 ]
	[ "$(grep -c "has no Winograd" <<<"$stderr")" -eq 0 ]
	[ "$(grep -c '^bench: conv fwd: jit_wino_4x3:' <<<"$stderr")" -eq 11 ]
	[ "$(grep -c '^bench: conv bwd data: jit_wino_4x3:' <<<"$stderr")" -eq 11 ]
	[ "$(grep -c '^bench: conv bwd weights: jit_wino_4x3:' <<<"$stderr")" -eq 6 ]
	limited=$(grep -o 'peak_mem_mb=[0-9]*' <<<"$output" | cut -d= -f2)
	echo "peak: $all MB, with --workspace-mb 32: $limited MB"
	[ "$limited" -lt $((all - 32)) ]
}

@test "--conv-algo find times direct against Winograd once per shape and direction, and keeps the faster" {
	run -0 --separate-stderr bench --image 64 --batch 4 --classes 10 --iters 1 --verbose
	finds=$(grep '^bench: conv find: ' <<<"$stderr" || true)
	if ! has_winograd; then
		[ -z "$finds" ]
		return 0
	fi
	echo "$finds"
	# four shapes (layer1: 3 convolutions, layer2: 3, layer3: 5, layer4: 2),
	# three directions each; e.g. "bench: conv find: 4x64x16x16 k3 -> 64
	# fwd: direct 0.594 ms, winograd 0.288 ms: winograd"
	[ "$(wc -l <<<"$finds")" -eq 12 ]
	[ "$(awk '{ print $4, $8 }' <<<"$finds" | sort -u | wc -l)" -eq 12 ]
	# the faster is kept (times equal to the printed 3 decimals may go either way)
	awk '{ if (($13 < $10 && $NF != "winograd") || ($13 > $10 && $NF != "direct")) exit 1 }' <<<"$finds"
	for d in fwd bwd-data bwd-weights; do
		want=$(awk -v d="$d:" '$8 == d && $NF == "winograd" { split($4, s, "x"); n += s[2] == 64 ? 3 : s[2] == 128 ? 3 : s[2] == 256 ? 5 : 2 } END { print n + 0 }' <<<"$finds")
		[ "$(grep -c "^bench: conv ${d//-/ }: jit_wino_4x3:" <<<"$stderr")" -eq "$want" ]
	done
}
