#!/usr/bin/env bats
# bench's host logic, through the tests' own drivers (tests/drivers/), with
# neither bench nor a device: the memory plan's checker (bin/test-arena-check);
# the loss-scale state machine, the layouts, convolution shapes, pooling
# windows and the kernels' index arithmetic (bin/test-gpu-host); check-gpu's
# comparison (bin/check-gpu-compare, built with the CUDA toolkit only).
# make test-sanitize runs this file again on AddressSanitizer + UBSan builds.

bats_require_minimum_version 1.5.0
load helper

# ---- the memory plan ------------------------------------------------------------

@test "the memory plan: no op reads a buffer that another has overwritten" {
	# fp32 and fp16 element sizes give different arenas; every read the
	# backends make is checked, the fused batch norm's read of y included,
	# and every "gradients final from here" of backward (103 a step, 3 steps)
	for cfg in "1 32 4" "2 64 2" "3 96 4" "4 224 2"; do
		run -0 test-arena-check $cfg
		[[ "$output" =~ ^batch\ [0-9]+\ image\ [0-9]+\ bytes\ [24]:\ arena\ [1-9][0-9]*\ bytes,\ [1-9][0-9]*\ reads\ checked,\ 309\ ready\ offsets\ checked,\ 0\ hazards$ ]]
	done
}

@test "the memory plan of iresnet50 with the ArcFace head: no hazard, batch norms adding their dx" {
	# the blocks' bn1 add their data gradient to the shortcut's, the
	# head writes the logits' gradient in forward; 155 gradients final
	# from here a step (the head's shard is one of them)
	for cfg in "1 32 4" "2 64 2" "4 112 4"; do
		run -0 test-arena-check -a $cfg
		[[ "$output" =~ ^iresnet50\ arcface\ batch\ [0-9]+\ image\ [0-9]+\ bytes\ [24]:\ arena\ [1-9][0-9]*\ bytes,\ [1-9][0-9]*\ reads\ checked,\ 465\ ready\ offsets\ checked,\ 0\ hazards$ ]]
	done
}

@test "the arena check catches a read of memory the plan gave away: the stem's bn1 output" {
	# -y: every BN+ReLU reads y in backward, also the stem's, which the plan
	# does not keep (max pooling reads it, then others get its bytes)
	run -1 test-arena-check -y 4 224 2
	[[ "${lines[0]}" == "hazard: batch norm backward reads y (the ReLU mask) "*"(tensor 3) at byte 0, last written by tensor "* ]]
	[[ "${lines[-1]}" =~ ,\ [1-9][0-9]*\ hazards$ ]]
	run -2 --separate-stderr test-arena-check 4 224 3
	[ "$stderr" = "test-arena-check: bytes: '3' is not 2 or 4" ]
}

# ---- loss scale -------------------------------------------------------------------

@test "dynamic loss scale: starts at 2^16, doubles after 2000 clean steps" {
	run -0 test-gpu-host lossscale <<<$'1999 0\n1 0\n1999 0\n1 0'
	[ "$output" = "steps=1999 applied=1999 skipped=0 scale=65536 clean=1999
steps=2000 applied=1 skipped=0 scale=131072 clean=0
steps=3999 applied=1999 skipped=0 scale=131072 clean=1999
steps=4000 applied=1 skipped=0 scale=262144 clean=0" ]
}

@test "dynamic loss scale: an overflow skips the step, halves and restarts the count" {
	run -0 test-gpu-host lossscale <<<$'1500 0\n1 1\n1999 0\n1 0\n3 1'
	[ "$output" = "steps=1500 applied=1500 skipped=0 scale=65536 clean=1500
steps=1501 applied=0 skipped=1 scale=32768 clean=0
steps=3500 applied=1999 skipped=1 scale=32768 clean=1999
steps=3501 applied=1 skipped=1 scale=65536 clean=0
steps=3504 applied=0 skipped=4 scale=8192 clean=0" ]
}

@test "dynamic loss scale stays within [1, 2^24]" {
	run -0 test-gpu-host lossscale <<<$'40 1\n20000 0'
	[ "$output" = "steps=40 applied=0 skipped=40 scale=1 clean=0
steps=20040 applied=20000 skipped=40 scale=1024 clean=0" ]
	run -0 test-gpu-host lossscale <<<$'40000 0'
	[ "$output" = "steps=40000 applied=40000 skipped=0 scale=16777216 clean=0" ]
}

@test "static loss scale (--loss-scale N) never changes but still skips overflows" {
	run -0 test-gpu-host lossscale -s 128 <<<$'5000 0\n2 1\n1 0'
	[ "$output" = "steps=5000 applied=5000 skipped=0 scale=128 clean=0
steps=5002 applied=0 skipped=2 scale=128 clean=0
steps=5003 applied=1 skipped=2 scale=128 clean=0" ]
}

@test "a bad loss-scale script line is an error naming the line" {
	run -1 --separate-stderr test-gpu-host lossscale <<<$'1 0\n1 2'
	[ "$stderr" = 'test-gpu-host: <stdin>:2: expected "steps flag"' ]
	run -2 --separate-stderr test-gpu-host lossscale -s 0
	[ "$stderr" = "test-gpu-host: -s: '0' is not an integer in [1, 16777216]" ]
}

# ---- convolution shapes -----------------------------------------------------------------

@test "cudnnFind runs once per distinct convolution shape" {
	# layer1 of ResNet50 at batch 32 in fp16: blocks 1 and 2 repeat block 1's
	# 1x1 and 3x3 shapes; the precision is part of the shape
	run -0 test-gpu-host dedup <<<'32 64 56 56 64 1 1 1 0 2
32 64 56 56 64 3 3 1 1 2
32 64 56 56 256 1 1 1 0 2
32 256 56 56 64 1 1 1 0 2
32 64 56 56 64 3 3 1 1 2
32 256 56 56 64 1 1 1 0 2
32 64 56 56 64 3 3 1 1 0
32 3 224 224 64 7 7 2 3 2'
	[ "$output" = "0 0 56x56
1 1 56x56
2 2 56x56
3 3 56x56
4 1 56x56
5 3 56x56
6 6 56x56
7 7 112x112
distinct=6" ]
}

@test "the layout kernels' index maps: NCHW to NHWC and OIHW to KRSC" {
	run -0 test-gpu-host layout 1 2 2 3
	[ "$output" = "nchw->nhwc 0 2 4 6 8 10 1 3 5 7 9 11
nchw->nhwc: 12 elements, bijection, inverse ok" ]
	run -0 test-gpu-host weights 2 3 1 2
	[ "$output" = "oihw->krsc 0 3 1 4 2 5 6 9 7 10 8 11
oihw->krsc: 12 elements, bijection, inverse ok" ]
	# ResNet50's shapes: the stem and a bottleneck's 1x1
	run -0 test-gpu-host layout 2 64 7 7
	[ "$output" = "nchw->nhwc: 6272 elements, bijection, inverse ok" ]
	run -0 test-gpu-host weights 64 3 7 7
	[ "$output" = "oihw->krsc: 9408 elements, bijection, inverse ok" ]
	run -0 test-gpu-host weights 256 64 1 1
	[ "$output" = "oihw->krsc: 16384 elements, bijection, inverse ok" ]
}

@test "the first convolution's channels padded 3 -> 4: weights and image map one to one" {
	run -0 test-gpu-host weights 64 3 4 7 7
	[ "$output" = "oihw->krsc c=3 padded to 4: 9408 weights, 3136 padding, one to one, inverse ok" ]
	run -0 test-gpu-host weights 2 3 4 1 2
	[ "$output" = "oihw->krsc c=3 padded to 4: 12 weights, 4 padding, one to one, inverse ok" ]
	run -0 test-gpu-host image 2 3 4 64 64
	[ "$output" = "image c=3 padded to 4: 24576 values, 8192 padding, one to one" ]
	run -0 test-gpu-host image 2 3 3 5 7
	[ "$output" = "image c=3 padded to 3: 210 values, 0 padding, one to one" ]
}

@test "max pooling's backward gathers from exactly the windows that cover each input" {
	run -0 test-gpu-host pool 8 3 2 1
	[ "$output" = "0:0-0 1:0-1 2:1-1 3:1-2 4:2-2 5:2-3 6:3-3 7:3-3
pool in=8 k=3 s=2 pad=1 out=4: windows ok" ]
	# ResNet50's max pool at 224 and 64 px; a position no window reaches
	run -0 test-gpu-host pool 112 3 2 1
	[ "$output" = "pool in=112 k=3 s=2 pad=1 out=56: windows ok" ]
	run -0 test-gpu-host pool 32 3 2 1
	[ "$output" = "pool in=32 k=3 s=2 pad=1 out=16: windows ok" ]
	run -0 test-gpu-host pool 9 2 2 0
	[ "${lines[0]}" = "0:0-0 1:0-0 2:1-1 3:1-1 4:2-2 5:2-2 6:3-3 7:3-3 8:4-3" ]
	[ "${lines[1]}" = "pool in=9 k=2 s=2 pad=0 out=4: windows ok" ]
}

# ---- the first GPU run: its host logic, on the CPU --------------------------------------------

@test "the kernels' 32-bit division by multiply-high is exact up to 2^31 - 1" {
	run -0 test-gpu-host div
	[ "$output" = "div: 821400 quotients, all exact" ]
}

@test "index maps of the vectorised NHWC kernels: positions and channels of every group" {
	# the stem's bn1 output at batch 256, 8 fp16 channels a thread; layer4's
	# 7x7; NCHW planes 4 floats a thread; an odd shape one at a time
	run -0 test-gpu-host pos nhwc 256 64 112 112 8
	[ "$output" = "nhwc 256x64x112x112 by 8: 25690112 groups, positions exact" ]
	run -0 test-gpu-host pos nhwc 256 2048 7 7 8
	[ "$output" = "nhwc 256x2048x7x7 by 8: 3211264 groups, positions exact" ]
	run -0 test-gpu-host pos nchw 8 64 56 56 4
	[ "$output" = "nchw 8x64x56x56 by 4: 401408 groups, positions exact" ]
	run -0 test-gpu-host pos nhwc 3 5 7 9 1
	[ "$output" = "nhwc 3x5x7x9 by 1: 945 groups, positions exact" ]
	run -2 --separate-stderr test-gpu-host pos nhwc 2 12 3 3 8
	[ "$stderr" = "test-gpu-host: pos: nhwc 2x12x3x3 cannot go by 8" ]
}

@test "the warp-per-row softmax in float matches the double-precision row at 1000 classes" {
	run -0 test-gpu-host softmax 64 1000 10
	[ "$output" = "softmax 64 rows of 1000, logits in +-10: loss rel err < 1e-5, dz err < 1e-6: ok" ]
	# logits spread over +-80: their probabilities span e^160, far beyond a float
	run -0 test-gpu-host softmax 16 1000 80
	[ "$output" = "softmax 16 rows of 1000, logits in +-80: loss rel err < 1e-5, dz err < 1e-6: ok" ]
	# fewer classes than lanes: idle lanes merge nothing
	run -0 test-gpu-host softmax 8 10 1
	[ "$output" = "softmax 8 rows of 10, logits in +-1: loss rel err < 1e-5, dz err < 1e-6: ok" ]
}

@test "the split classifier's shards: ceil(C/R) a rank, the last the rest, each class on one rank" {
	run -0 test-gpu-host shard 85742 8
	[ "${lines[0]}" = "rank 0: first 0 size 10718" ]
	[ "${lines[7]}" = "rank 7: first 75026 size 10716" ]
	[ "${lines[8]}" = "85742 classes over 8 ranks: each on one rank, one column" ]
	run -0 test-gpu-host shard 85742 32
	[ "${lines[31]}" = "rank 31: first 83080 size 2662" ]
	[ "${lines[32]}" = "85742 classes over 32 ranks: each on one rank, one column" ]
	run -0 test-gpu-host shard 10 4
	[ "$output" = "rank 0: first 0 size 3
rank 1: first 3 size 3
rank 2: first 6 size 3
rank 3: first 9 size 1
10 classes over 4 ranks: each on one rank, one column" ]
	# PLSC's rule leaves the last rank nothing here: refused
	run -1 test-gpu-host shard 5 4
	[ "$output" = "5 classes over 4 ranks: 2 a rank, the last would hold -1" ]
	run -0 test-gpu-host shard 7 1
	[ "${lines[0]}" = "rank 0: first 0 size 7" ]
}

@test "the margin, both backends' code: cos(theta + m) and its slope, insightface's fallback past pi - m" {
	for m in 0.5 0.2 1.2; do
		run -0 test-gpu-host margin "$m"
		[ "$output" = "margin $m: phi err < 1e-6, slope err < 1e-2: ok" ]
	done
}

@test "the dropout mask keeps 1 - p, drawn anew each step" {
	run -0 test-gpu-host dropout 0.4 4096
	[ "$output" = "dropout 0.4 over 2097152: kept 0.600, steps 1 and 2 agree on 0.520" ]
	run -0 test-gpu-host dropout 0 4
	[ "$output" = "dropout 0 over 2048: kept 1.000, steps 1 and 2 agree on 1.000" ]
}

@test "the local rank before MPI_Init: Open MPI, MPICH, srun's own tasks, not mpirun inside Slurm" {
	run -0 test-gpu-host localrank <<<$'OMPI_COMM_WORLD_LOCAL_RANK=3\nSLURM_LOCALID=0'
	[ "$output" = "local rank 3" ]
	run -0 test-gpu-host localrank <<<'MPI_LOCALRANKID=5'
	[ "$output" = "local rank 5" ]
	run -0 test-gpu-host localrank <<<$'SLURM_LOCALID=2\nSLURM_PROCID=6\nPMIX_RANK=6'
	[ "$output" = "local rank 2" ]
	run -0 test-gpu-host localrank <<<$'SLURM_LOCALID=2\nSLURM_PROCID=6\nPMI_RANK=6'
	[ "$output" = "local rank 2" ]
	# srun started mpirun (task 0), which started this rank as its 7th
	run -0 test-gpu-host localrank <<<$'SLURM_LOCALID=0\nSLURM_PROCID=0\nPMIX_RANK=6'
	[ "$output" = "local rank -1" ]
	run -0 test-gpu-host localrank <<<$'OMPI_COMM_WORLD_LOCAL_RANK=x'
	[ "$output" = "local rank -1" ]
	run -0 test-gpu-host localrank </dev/null
	[ "$output" = "local rank -1" ]
}

@test "the start-up line says how each batch norm runs" {
	run -0 test-gpu-host bnsum 48 1 0 0 4 amp
	[ "$output" = "batch norm: 48 fused, 1 unfused (stem), 4 plain" ]
	run -0 test-gpu-host bnsum 0 1 0 48 4 fp32
	[ "$output" = "batch norm: 0 fused, 49 unfused (stem, 48: no fused form in fp32), 4 plain" ]
	run -0 test-gpu-host bnsum 40 1 8 0 4 amp
	[ "$output" = "batch norm: 40 fused, 9 unfused (stem, 8 refused by cuDNN), 4 plain" ]
	run -0 test-gpu-host bnsum 49 0 0 0 4 amp
	[ "$output" = "batch norm: 49 fused, 0 unfused, 4 plain" ]
}

@test "the bounded wait: done, a peer's error, and the timeout each end as they should" {
	run -0 test-gpu-host watch 300 <<<'done 0.5'
	[ "$output" = "done at 0.501 s, 503 naps of at most 0.001 s, not aborted" ]
	run -0 test-gpu-host watch 300 <<<'error 4.2 remote process exited or there was a network error'
	[ "$output" = "peer error at 4.200 s, 4199 naps of at most 0.001 s, aborted
bench: rank 0: waiting for the step: NCCL reported an error after 4.2 s: remote process exited or there was a network error; communicator aborted" ]
	run -0 test-gpu-host watch 30 <<<'never'
	[ "$output" = "timeout at 30.000 s, 29973 naps of at most 0.001 s, aborted
bench: rank 0: waiting for the step: not done after 30 s, and NCCL reports no error: a peer is gone or stuck (--nccl-timeout); communicator aborted" ]
	# done before the first nap: no wait at all
	run -0 test-gpu-host watch 1 <<<'done 0'
	[ "$output" = "done at 0.000 s, 0 naps of at most 0 s, not aborted" ]
	run -1 --separate-stderr test-gpu-host watch 1 <<<'soon'
	[ "$stderr" = 'test-gpu-host: <stdin>:1: expected "done T", "error T text" or "never"' ]
}

# ---- check-gpu's comparison ---------------------------------------------------------------

# mkexport DIR GRADSCALE FACTOR: a tiny export directory (2 tensors); the
# gradients times GRADSCALE, bn1.weight's times FACTOR; the step always from
# the true gradients
mkexport() {
	/usr/bin/python3 - "$@" <<'EOF'
import os, struct, sys
d, scale, perturb = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
os.makedirs(d, exist_ok=True)
def w(name, fmt, vals):
    with open(os.path.join(d, name), "wb") as f:
        f.write(struct.pack("<%d%s" % (len(vals), fmt), *vals))
p = [0.5, -0.25, 0.125, 1.0, 2.0, -1.0]
g = [0.1, 0.2, -0.3, 0.4, 0.01, -0.02]
w("params.f32", "f", p)
w("input.f32", "f", [1.0, 2.0])
w("labels.i32", "i", [1])
w("logits.f32", "f", [0.3, -0.7])
w("grads.f32", "f", [x * scale * (perturb if i >= 4 else 1) for i, x in enumerate(g)])
w("params_after.f32", "f", [a - 0.1 * b for a, b in zip(p, g)])
open(os.path.join(d, "loss.txt"), "w").write("0.693147\n")
open(os.path.join(d, "manifest.tsv"), "w").write("conv1.weight\t1x1x2x2\t0\t4\nbn1.weight\t2\t4\t2\n")
EOF
}

@test "check-gpu-compare passes exports within rounding and unscales amp's gradients" {
	need_bin check-gpu-compare
	mkexport "$BATS_TEST_TMPDIR/a" 1 1
	mkexport "$BATS_TEST_TMPDIR/b" 65536 1.0005
	run -0 check-gpu-compare compare -g 65536 fp32 "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
	[ "$output" = "logits               rel_err 0.000e+00 tol 0.001 ok
loss                 rel_err 0.000e+00 tol 0.001 ok
grad norm ratio      median 2.500e-04 tol 0.005, worst 5.000e-04 (bn1.weight) tol 0.05 ok
grad direction       median 2.500e-04, worst 5.000e-04 (bn1.weight) tol 0.15 ok
step norm ratio      median 0.000e+00 tol 0.005, worst 0.000e+00 (conv1.weight) tol 0.05 ok
step direction       median 0.000e+00, worst 0.000e+00 (conv1.weight) tol 0.15 ok
check-gpu fp32: ok" ]
}

@test "check-gpu-compare fails a gradient twice too large, and a sign flip" {
	need_bin check-gpu-compare
	mkexport "$BATS_TEST_TMPDIR/a" 1 1
	mkexport "$BATS_TEST_TMPDIR/b" 1 2
	run -1 check-gpu-compare compare fp32 "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
	[ "${lines[2]}" = "grad norm ratio      median 5.000e-01 tol 0.005, worst 1.000e+00 (bn1.weight) tol 0.05 FAIL" ]
	[ "${lines[6]}" = "check-gpu fp32: FAIL" ]
	mkexport "$BATS_TEST_TMPDIR/c" 1 -1
	run -1 check-gpu-compare compare amp "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/c"
	[ "${lines[2]}" = "grad norm ratio      median 0.000e+00 tol 0.02, worst 0.000e+00 (conv1.weight) tol 0.25 ok" ]
	[ "${lines[3]}" = "grad direction       median 1.000e+00, worst 2.000e+00 (bn1.weight) tol 1.2 FAIL" ]
	# bf16 judges norms only: its own rounding leaves no agreement in direction
	run -0 check-gpu-compare compare bf16 "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/c"
	[ "${lines[3]}" = "grad direction       median 1.000e+00, worst 2.000e+00 (bn1.weight) not judged" ]
}

@test "check-gpu-compare says so when the GPU skipped its update" {
	need_bin check-gpu-compare
	mkexport "$BATS_TEST_TMPDIR/a" 1 1
	mkexport "$BATS_TEST_TMPDIR/b" 1 1
	cp "$BATS_TEST_TMPDIR/b/params.f32" "$BATS_TEST_TMPDIR/b/params_after.f32"
	run -1 check-gpu-compare compare amp "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
	[ "${lines[2]}" = "step: $BATS_TEST_TMPDIR/b/params_after.f32 equals params.f32: the update was skipped (an fp16 overflow at this loss scale?)" ]
	[ "${lines[7]}" = "check-gpu amp: FAIL" ]
}

@test "check-gpu's tolerances per precision" {
	run -0 test-gpu-host tol fp32
	[ "$output" = "logits=0.001 loss=0.001 norm_median=0.005 norm_worst=0.05 dir_worst=0.15" ]
	run -0 test-gpu-host tol amp
	[ "$output" = "logits=0.1 loss=0.02 norm_median=0.02 norm_worst=0.25 dir_worst=1.2" ]
	run -2 --separate-stderr test-gpu-host tol fp16
	[ "$stderr" = "test-gpu-host: tol: unknown precision 'fp16'" ]
}

@test "check-gpu-compare refuses exports of different weights" {
	need_bin check-gpu-compare
	mkexport "$BATS_TEST_TMPDIR/a" 1 0
	mkexport "$BATS_TEST_TMPDIR/b" 1 0
	printf '\0\0\0\0' >>"$BATS_TEST_TMPDIR/b/params.f32"
	run -1 --separate-stderr check-gpu-compare compare fp32 "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
	[ "$stderr" = "check-gpu-compare: params.f32 differs between $BATS_TEST_TMPDIR/a and $BATS_TEST_TMPDIR/b: not the same --seed, batch or image" ]
	run -2 --separate-stderr check-gpu-compare compare fp16 "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
	[ "$stderr" = "check-gpu-compare: 'fp16' is not fp32, tf32, amp or bf16" ]
}
