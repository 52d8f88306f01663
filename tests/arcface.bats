#!/usr/bin/env bats
# bench's PLSC workload: IResNet-50 with the ArcFace head, its classifier
# split by class over the ranks. The model table, the flags, the log, that
# it learns, and that R ranks with the split classifier step as the R
# shards of the same global batch each trained alone with the whole one.
# (The float64 PyTorch check is in tests/bench-torch.bats.) Small images,
# few classes, one step where one will do.

load helper

B="$FIXTURES/bench"
IR=(--model iresnet50 --head arcface)

@test "describe counts iresnet50's 43,590,848 backbone parameters and 12.6 GFLOP at 112 px" {
	run -0 bench --describe "${IR[@]}" --classes 85742 --batch 128
	[ "${lines[0]}" = "# iresnet50 image=112 classes=85742 batch=128 embedding=512 dropout=0.4 head=arcface margin=0.5 scale=64 shards=1" ]
	# the backbone ends with features.bias; the classifier, 85742 x 512, follows
	[[ "$output" == *"159 features bn - 512 512 1024
160 head arcface 128x85742 512 85742 43899904
"* ]]
	[ "${lines[-4]}" = "params=87490752" ]
	[ "$((87490752 - 85742 * 512))" -eq 43590848 ]
	# the backbone's 6.31 GMAC and the classifier's 512 x 85742
	[ "${lines[-3]}" = "forward_flops_per_sample=12706461696" ]
	[ "$((12706461696 - 2 * 512 * 85742))" -eq 12618661888 ]
	[ "${lines[-2]}" = "forward_gflops_per_sample=12.706" ]
	[ "${lines[-1]}" = "train_flops_per_sample=$((3 * 12706461696))" ]
}

@test "describe prints iresnet50's layers: pre-BN blocks, PReLU, stride on conv2, bn3 with the add" {
	run -0 bench --describe "${IR[@]}" --image 32 --classes 10 --batch 2
	[ "$output" = "$(cat "$B/describe-iresnet50-32px-10cls.txt")" ]
	[[ "$output" == *"3 layer1.0.bn1 bn - 64x32x32 64x32x32 128
4 layer1.0.conv1 conv 3x3/1 64x32x32 64x32x32 36864
5 layer1.0.bn2 bn - 64x32x32 64x32x32 128
6 layer1.0.prelu prelu - 64x32x32 64x32x32 64
7 layer1.0.conv2 conv 3x3/2 64x32x32 64x16x16 36864
8 layer1.0.downsample.0 conv 1x1/2 64x32x32 64x16x16 4096
9 layer1.0.downsample.1 bn - 64x16x16 64x16x16 128
10 layer1.0.bn3 bn+add - 64x16x16 64x16x16 128
11 layer1.1.bn1 "* ]]
	[[ "$output" == *"155 bn2 bn - 512x2x2 512x2x2 1024
156 flatten flatten - 512x2x2 2048 0
157 dropout dropout - 2048 2048 0
158 fc fc - 2048 512 1049088
159 features bn - 512 512 1024
160 head arcface 2x10 512 10 5120
"* ]]
}

@test "the softmax head on iresnet50: a classifier with bias over the embedding" {
	run -0 bench --describe --model iresnet50 --image 32 --classes 10 --batch 2
	[ "${lines[0]}" = "# iresnet50 image=32 classes=10 batch=2 embedding=512 dropout=0.4 head=softmax" ]
	[[ "$output" == *"160 head fc - 512 10 5130"* ]]
	[ "${lines[-4]}" = "params=31799498" ]
}

@test "split over 2 ranks: each holds half the classifier; describe lists the collectives" {
	command -v mpirun || skip "mpirun not installed"
	run -0 mpirun -np 2 --bind-to none bench --describe "${IR[@]}" --classes 85742 --batch 128
	[[ "$output" == *"shards=2"* ]]
	[[ "$output" == *"160 head arcface 256x42871 512 42871 21949952"* ]]
	[[ "$output" == *"# head shard classes first rows
shard 0/2 42871 0 256
# head collective what count bytes
collective allgather embeddings 65536 262144
collective allgather labels 128 512
collective allreduce-max row-maxima 256 1024
collective allreduce-sum row-sums 256 1024
collective reduce-scatter embedding-gradients 65536 262144
"* ]]
	# the buckets stop below the shard: it is never summed over ranks
	[[ "$(grep '^bucket 0 ' <<<"$output")" == "bucket 0 "*" 43590847 "* ]]
	[ "${lines[-5]}" = "params=87490752" ]
	[ "${lines[-4]}" = "params_per_rank=$((43590848 + 42871 * 512))" ]
}

@test "the model's flags are checked against each other" {
	run -2 --separate-stderr bench --model vgg
	[ "$stderr" = "bench: --model: 'vgg' is not resnet50 or iresnet50" ]
	run -2 --separate-stderr bench --embedding 256 --iters 1
	[ "$stderr" = "bench: --embedding: iresnet50's; resnet50's features are its 2048 pooled ones" ]
	run -2 --separate-stderr bench --model iresnet50 --margin 0.3 --iters 1
	[ "$stderr" = "bench: --margin, --scale, --classifier: only with --head arcface" ]
	run -2 --separate-stderr bench "${IR[@]}" --label-smoothing 0.1 --iters 1
	[ "$stderr" = "bench: --label-smoothing: only with --head softmax" ]
	run -2 --separate-stderr bench "${IR[@]}" --scale 0.5 --iters 1
	[ "$stderr" = "bench: --scale: '0.5' is out of range [1, 1024]" ]
	run -2 --separate-stderr bench "${IR[@]}" --classifier half --iters 1
	[ "$stderr" = "bench: --classifier: 'half' is not split or whole" ]
}

@test "too few classes to split over the ranks is a usage error" {
	command -v mpirun || skip "mpirun not installed"
	# 5 classes over 4 ranks: 2 each, the last would have none
	run -2 --separate-stderr mpirun -np 4 --oversubscribe --bind-to none bench --describe \
		"${IR[@]}" --classes 5
	[[ "$stderr" == *"bench: --classes: 5 classes cannot be split over 4 ranks, 2 a rank (the last would have none): use more classes or --classifier whole"* ]]
}

@test "the log names the model, head and classes; its end line the classifier's memory" {
	run -0 --separate-stderr bench "${IR[@]}" --image 32 --batch 2 --classes 1000 --iters 1 \
		--conv-algo direct
	[ "${lines[0]}" = "# bench model=iresnet50 head=arcface classes=1000 embedding=512 margin=0.5 scale=64 classifier=split backend=cpu-onednn nodes=1 gpus_per_node=1 batch_per_device=2 precision=fp32 image=32 data=synthetic" ]
	# 1000 x 512 weights, gradient and momentum: 5.9 MB, all of it on one rank
	[[ "${lines[-1]}" =~ ^#\ end\ iters=1\ peak_mem_mb=[1-9][0-9]*\ classifier_mb=5\.9\ classifier_whole_mb=5\.9$ ]]
	# grep-iters reads it as any bench log
	printf '%s\n' "${lines[@]}" >"$BATS_TEST_TMPDIR/1.log"
	run -0 grep-iters -k 1n1g_b2_fp32 "$BATS_TEST_TMPDIR/1.log"
	[[ "${lines[0]}" == "bench	bench	1n1g_b2_fp32	1	1	"* ]]
}

@test "iresnet50 with the ArcFace head learns one fixed batch: the loss falls" {
	run -0 bash -c 'bench --model iresnet50 --head arcface --image 32 --batch 4 --classes 10 --iters 6 --conv-algo direct 2>/dev/null | grep ^iter='
	first=$(sed 's/.*loss=\([^ ]*\).*/\1/' <<<"${lines[0]}")
	last=$(sed 's/.*loss=\([^ ]*\).*/\1/' <<<"${lines[-1]}")
	awk -v f="$first" -v l="$last" 'BEGIN { exit !(f > 20 && l < 1) }'
}

@test "blocked and channels-last layouts give the same first loss (PReLU in both)" {
	for layout in blocked nhwc; do
		run -0 bash -c "bench ${IR[*]} --image 32 --batch 4 --classes 10 --iters 1 --conv-algo direct --layout $layout 2>/dev/null | grep -o 'loss=[^ ]*'"
		eval "loss_$layout=\$output"
	done
	[ "$loss_blocked" = "$loss_nhwc" ]
}

@test "--export writes the dropout mask: 40 % dropped, the same samples the same mask" {
	d="$BATS_TEST_TMPDIR"
	mkdir "$d/a" "$d/b"
	run -0 bench --export "$d/a" "${IR[@]}" --image 32 --batch 4 --classes 10 --conv-algo direct
	# 4 samples x 512 x 2 x 2 features, one byte each
	[ "$(stat -c %s "$d/a/dropout.u8")" -eq 8192 ]
	run -0 python3 -c 'import sys; m = open(sys.argv[1], "rb").read(); print(sum(m), set(m) <= {0, 1})' "$d/a/dropout.u8"
	read -r kept binary <<<"$output"
	[ "$binary" = True ]
	awk -v k="$kept" 'BEGIN { exit !(k > 0.57 * 8192 && k < 0.63 * 8192) }'
	# samples 2 and 3 alone (shard 1 of batch 2) keep what they kept in the batch of 4
	run -0 bench --export "$d/b" "${IR[@]}" --image 32 --batch 2 --shard 1 --classes 10 --conv-algo direct
	cmp <(tail -c 4096 "$d/a/dropout.u8") "$d/b/dropout.u8"
	[ "$(wc -l <"$d/a/manifest.tsv")" -eq 239 ]
	[ "$(tail -1 "$d/a/manifest.tsv")" = "$(printf 'head.weight\t10x512\t31794368\t5120')" ]
}

# split_step R: R ranks x batch 2 with the split classifier, against the R
# shards each trained alone with the whole classifier (split_check.py).
# One thread everywhere: the same kernels in the same order, so the only
# differences left are the sums the split changes (over the shards' rows
# and columns), which the backbone's batch norms carry to its first layers
# at about 1e-6 of the largest gradient (split_check.py's bounds).
split_step() {
	local r=$1 t="$BATS_TEST_TMPDIR" dirs=()
	local args="${IR[*]} --image 32 --batch 2 --classes 10 --seed 3 --lr 0.1 --threads 1 --conv-algo direct"
	mkdir "$t/split"
	run -0 --separate-stderr mpirun -np "$r" --oversubscribe --bind-to none bench $args --export "$t/split"
	[[ "${lines[0]}" == *" classifier=split backend=cpu-onednn nodes=1 gpus_per_node=$r "* ]]
	for ((s = 0; s < r; s++)); do
		mkdir "$t/s$s"
		run -0 bench $args --shard "$s" --export "$t/s$s"
		dirs+=("$t/s$s")
	done
	run -0 python3 "$B/split_check.py" "$t/split" "${dirs[@]}"
	echo "$output"
	[ "${#lines[@]}" -eq 4 ]
}

@test "2 ranks with the split classifier step as the 2 shards alone with the whole one" {
	command -v mpirun || skip "mpirun not installed"
	split_step 2
}

@test "4 ranks with the split classifier (3, 3, 3 and 1 classes) step as the 4 shards alone" {
	command -v mpirun || skip "mpirun not installed"
	split_step 4
}

@test "--classifier whole over 2 ranks is data parallel: the mean of the two halves" {
	command -v mpirun || skip "mpirun not installed"
	t="$BATS_TEST_TMPDIR"
	args="${IR[*]} --image 32 --batch 2 --classes 10 --seed 3 --lr 0.1 --threads 1 --conv-algo direct"
	mkdir "$t/dp" "$t/s0" "$t/s1"
	run -0 --separate-stderr mpirun -np 2 --bind-to none bench $args --classifier whole --export "$t/dp"
	[[ "${lines[0]}" == *" classifier=whole "* ]]
	run -0 bench $args --shard 0 --export "$t/s0"
	run -0 bench $args --shard 1 --export "$t/s1"
	run -0 python3 "$B/dp_check.py" "$t/dp" "$t/s0" "$t/s1"
	[ "${#lines[@]}" -eq 2 ]
}

@test "the split halves the classifier's memory on each rank, in the end line" {
	command -v mpirun || skip "mpirun not installed"
	run -0 --separate-stderr mpirun -np 2 --bind-to none bench "${IR[@]}" --image 32 --batch 2 \
		--classes 2000 --iters 1 --threads 1 --conv-algo direct
	[[ "${lines[-1]}" == *" classifier_mb=5.9 classifier_whole_mb=11.7" ]]
	run -0 --separate-stderr mpirun -np 2 --bind-to none bench "${IR[@]}" --image 32 --batch 2 \
		--classes 2000 --iters 1 --threads 1 --conv-algo direct --classifier whole
	[[ "${lines[-1]}" == *" classifier_mb=11.7 classifier_whole_mb=11.7" ]]
}

@test "make FRAMEWORK=bench-arcface runs the ladder through launch into a table (tiny: 32 px, 1000 classes)" {
	t="$BATS_TEST_TMPDIR"
	run -0 make -s --no-print-directory -C "$ROOT" CUDA=0 BIN="${BIN_UNDER_TEST:-$ROOT/bin}" \
		FRAMEWORK=bench-arcface RUNS=1 LOGDIR="$t/logs" RESULTS="$t/results" OBJ="$t/obj" \
		BENCH_ITERS=6 WINDOW='-s 2 -n 4' \
		BENCH_ARCFACE_ARGS='--image 32 --classes 1000 --threads 1 --conv-algo direct' \
		"$t/results/1n2g_b2_fp32.md"
	[ "$(grep "^# bench " "$t/logs/bench-arcface/1n2g_b2_fp32/1.log")" = "# bench model=iresnet50 head=arcface classes=1000 embedding=512 margin=0.5 scale=64 classifier=split backend=cpu-onednn nodes=1 gpus_per_node=2 batch_per_device=2 precision=fp32 image=32 data=synthetic" ]
	[ "$(sed -n 1p "$t/results/1n2g_b2_fp32.md")" = "## bench-arcface b2 fp32" ]
	[[ "$(sed -n 3p "$t/results/1n2g_b2_fp32.md")" == *" | memory | published |" ]]
	[[ "$(sed -n 6p "$t/results/1n2g_b2_fp32.md")" == "| 1 | 2 | 2 | "*" | - |" ]]
}

@test "check-gpu-compare holds iresnet50's null gradients by their norm, and catches one that is not" {
	need_bin check-gpu-compare
	t="$BATS_TEST_TMPDIR"
	mkdir "$t/a" "$t/b"
	args="${IR[*]} --image 32 --batch 8 --classes 10 --seed 7 --threads 1"
	# two correct fp32 steps: another layout, other kernels, other roundings
	run -0 bench $args --conv-algo direct --export "$t/a"
	run -0 bench $args --conv-algo direct --layout nhwc --export "$t/b"
	run -0 check-gpu-compare compare fp32 "$t/a" "$t/b"
	[[ "${lines[2]}" =~ ^null\ gradients\ +29\ zero\ in\ exact\ arithmetic,\ worst\ norm\ [0-9.e+-]+\ of\ the\ median\ \(.*\)\ tol\ 0.0001\ ok$ ]]
	[ "${lines[-1]}" = "check-gpu fp32: ok" ]
	# layer1.1.bn3.bias's gradient a hundredth of the median tensor's: not null
	python3 - "$t/b" <<-'EOF2'
		import array, sys
		d = sys.argv[1] + "/"
		m = [l.split("\t") for l in open(d + "manifest.tsv")]
		g = array.array("f"); g.frombytes(open(d + "grads.f32", "rb").read())
		norms = sorted(sum(x * x for x in g[int(o):int(o) + int(c)]) ** 0.5 for n, s, o, c in m)
		for n, s, o, c in m:
		    if n == "layer1.1.bn3.bias":
		        for i in range(int(o), int(o) + int(c)):
		            g[i] = 0.01 * norms[len(norms) // 2] / int(c) ** 0.5
		open(d + "grads.f32", "wb").write(g.tobytes())
	EOF2
	run -1 check-gpu-compare compare fp32 "$t/a" "$t/b"
	[[ "${lines[2]}" == "null gradients       29 zero in exact arithmetic, worst norm 1.000e-02 of the median (layer1.1.bn3.bias) tol 0.0001 FAIL" ]]
}
