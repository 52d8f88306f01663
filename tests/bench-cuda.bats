#!/usr/bin/env bats
# bench's GPU side, on a machine without a GPU: the CUDA backend compiles and
# links with warnings as errors; the host-side logic runs (loss-scale state
# machine, layouts, convolution shapes, check-gpu's comparison); the
# allreduce benchmark runs on the CPU build under mpirun -np 2; and everything
# that needs a device fails cleanly with "no CUDA device".
#
# The toolkit is /usr/local/cuda (or CUDA_HOME); without nvcc and cuDNN the
# compile tests are skipped (said so), never passed. The programs under test
# are BIN_UNDER_TEST's (built with OBJ set to its parent directory, as in
# make OBJ=build/x BIN=build/x/bin), else the tree's bin/ and build/.

bats_require_minimum_version 1.5.0
load helper

CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
if [ -n "${BIN_UNDER_TEST:-}" ]; then
	BIN_DIR=$BIN_UNDER_TEST OBJ_DIR=$(dirname "$BIN_UNDER_TEST")
else
	BIN_DIR=$ROOT/bin OBJ_DIR=$ROOT/build
fi

need_cuda() {
	[ -x "$CUDA_HOME/bin/nvcc" ] && [ -f "$CUDA_HOME/include/cudnn_version.h" ] ||
		skip "no CUDA toolkit with cuDNN at $CUDA_HOME"
}

# need_bin NAME: bin/NAME is built only with the CUDA toolkit
need_bin() {
	[ -x "$BIN_DIR/$1" ] || skip "bin/$1 not built (no CUDA toolkit, or CUDA=0)"
}

no_gpu() {
	if "$BIN_DIR/check-gpu-compare" devices >/dev/null 2>&1; then
		skip "this machine has a CUDA device"
	fi
}

setup() {
	common_setup
	cd "$ROOT"
}

# ---- build ------------------------------------------------------------------

@test "make reports the cuDNN and NCCL it found" {
	need_cuda
	h="$CUDA_HOME/include/cudnn_version.h"
	v="$(sed -n 's/^#define CUDNN_MAJOR *//p' "$h").$(sed -n 's/^#define CUDNN_MINOR *//p' "$h")"
	run -0 make --no-print-directory -n bin/test-gpu-host
	[ "${lines[0]}" = "cuDNN: found $v" ]
	[[ "${lines[1]}" =~ ^NCCL:\ found\ 2\.[0-9]+$ ]]
}

@test "CUDA=0 turns the GPU backend off and nvcc is never run" {
	run -0 make --no-print-directory -n CUDA=0 all
	[ "${lines[0]}" = "cuDNN: off (CUDA=0), GPU backend skipped" ]
	! grep -q nvcc <<<"$output" || false
	! grep -q bench-cuda <<<"$output" || false
}

@test "a toolkit that is not there is reported and skipped" {
	run -0 make --no-print-directory -n CUDA_HOME=/nonexistent all
	[ "${lines[0]}" = "nvcc: not found at /nonexistent/bin/nvcc" ]
	[ "${lines[1]}" = "cuDNN: not found, GPU backend skipped" ]
	! grep -q '/bin/nvcc -' <<<"$output" || false
}

@test "the default build targets sm_75 to sm_90 plus PTX of sm_90, warnings as errors" {
	need_cuda
	run -0 make --no-print-directory -n -W bench/cuda/backend.cu build/bench/cuda/backend.o
	line="$(grep 'nvcc .*bench/cuda/backend.cu' <<<"$output")"
	for a in 75 80 86 89 90; do
		[[ "$line" == *"-gencode arch=compute_$a,code=sm_$a "* ]]
	done
	[[ "$line" == *"-gencode arch=compute_90,code=compute_90 "* ]]
	[[ "$line" == *"-Werror all-warnings"* ]]
	[[ "$line" == *"-Xcompiler -Wall,-Wextra,-Werror"* ]]
}

@test "CUDA_ARCH picks the architectures; one nvcc cannot build for is a clear error" {
	need_cuda
	run -0 make --no-print-directory -n -W bench/cuda/backend.cu CUDA_ARCH="75 80" \
		build/bench/cuda/backend.o
	line="$(grep 'nvcc .*bench/cuda/backend.cu' <<<"$output")"
	[[ "$line" == *"-gencode arch=compute_75,code=sm_75 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_80,code=compute_80 "* ]]
	! [[ "$line" == *sm_86* ]] || false
	if "$CUDA_HOME/bin/nvcc" --list-gpu-arch | grep -qx compute_70; then
		skip "this nvcc still builds for sm_70"
	fi
	run -2 make --no-print-directory -n CUDA_ARCH="70 75" build/bench/cuda/backend.o
	[[ "$output" == *"CUDA_ARCH: 70 not supported by $CUDA_HOME/bin/nvcc, which builds for 75 80"*"; sm_70 (V100) needs CUDA 12 or older: CUDA_HOME=/usr/local/cuda-12.x.  Stop."* ]]
}

@test "the CUDA backend, NCCL comm and allreduce benchmark compile and link with warnings as errors" {
	need_cuda
	o="$BATS_TEST_TMPDIR"
	# One architecture keeps this test short; the flags are the real ones.
	run -0 make OBJ="$o/obj" BIN="$o/bin" CUDA_ARCH=80 \
		"$o/bin/bench-cuda" "$o/bin/bench-cuda-allreduce" "$o/bin/check-gpu-compare"
	! grep -Eq 'warning( #|:)' <<<"$output" || false
	[ -x "$o/bin/bench-cuda" ] && [ -x "$o/bin/bench-cuda-allreduce" ]
	run -0 nm -D --undefined-only "$o/bin/bench-cuda"
	grep -q cudnnConvolutionForward <<<"$output"
	grep -q cublasSgemm <<<"$output"
	grep -q ncclAllReduce <<<"$output"
	grep -q cudnnBatchNormalizationForwardTrainingEx <<<"$output"
	# the fat binary holds SASS and PTX of exactly the architecture asked for
	objcopy -O binary --only-section=.nv_fatbin "$o/obj/bench/cuda/kernels.o" "$o/fatbin"
	[ "$(fatbin_entries "$o/fatbin" | sort)" = "ELF sm_80
PTX sm_80" ]
}

# fatbin_entries FILE: one line per entry of a CUDA fat binary, "ELF sm_XY" or
# "PTX sm_XY" (fatbinary's layout: 16-byte headers, then entries whose kind is
# 1 for PTX, 2 for ELF, with the architecture at byte 28)
fatbin_entries() {
	/usr/bin/python3 - "$1" <<'EOF'
import struct, sys
d = open(sys.argv[1], "rb").read()
off = 0
while off + 16 <= len(d):
    magic, _, hsize, fsize = struct.unpack_from("<IHHQ", d, off)
    if magic != 0xBA55ED50:
        break
    p, end = off + hsize, off + hsize + fsize
    while p < end:
        kind, _, ehs, psize = struct.unpack_from("<HHIQ", d, p)
        arch = struct.unpack_from("<I", d, p + 28)[0]
        print("PTX" if kind == 1 else "ELF", "sm_%d" % arch)
        p += ehs + psize
    off = end
EOF
}

@test "nvcc with the project's flags turns a warning into an error" {
	need_cuda
	flags="$(make -s -p -n CUDA_ARCH=80 bin/test-gpu-host 2>/dev/null | sed -n 's/^NVCCFLAGS := //p')"
	[[ "$flags" == *"-Werror all-warnings"* ]]
	printf '__global__ void k(float *x) { x[0] = 1.0f; }\n' >"$BATS_TEST_TMPDIR/ok.cu"
	printf '__global__ void k(float *x) { int unused; x[0] = 1.0f; }\n' >"$BATS_TEST_TMPDIR/w.cu"
	run -0 "$CUDA_HOME/bin/nvcc" $flags -c -o "$BATS_TEST_TMPDIR/ok.o" "$BATS_TEST_TMPDIR/ok.cu"
	run ! "$CUDA_HOME/bin/nvcc" $flags -c -o "$BATS_TEST_TMPDIR/w.o" "$BATS_TEST_TMPDIR/w.cu"
	grep -q 'unused' <<<"$output"
	[ ! -e "$BATS_TEST_TMPDIR/w.o" ]
}

# ---- no device here -------------------------------------------------------------

@test "make check-gpu fails cleanly with no CUDA device" {
	need_cuda
	need_bin check-gpu-compare
	no_gpu
	run -2 make BIN="$BIN_DIR" OBJ="$OBJ_DIR" check-gpu
	grep -q '^check-gpu-compare: no CUDA device (' <<<"$output"
	! grep -q 'bin/bench --export' <<<"$output" || false
}

@test "bench-cuda says there is no CUDA device and exits 1" {
	need_cuda
	need_bin bench-cuda
	no_gpu
	run -1 --separate-stderr bench-cuda --batch 2 --image 32 --classes 10 --iters 1
	[[ "$stderr" =~ ^bench:\ no\ CUDA\ device\ \(.*\)$ ]]
}

@test "under mpirun bench-cuda says there is no CUDA device and the job ends, exit 1" {
	need_cuda
	need_bin bench-cuda
	no_gpu
	command -v mpirun || skip "mpirun not installed"
	run -1 --separate-stderr mpirun -np 2 --bind-to none bench-cuda --batch 2 --image 32 --iters 1
	[ "$output" = "" ]
	# the first rank to get there says why, then MPI_Aborts the job (the
	# other may be killed before it prints; Open MPI's own banner after it
	# is not reliably printed, so it is not checked)
	[[ "${stderr_lines[0]}" =~ ^bench:\ no\ CUDA\ device\ \(.*\)$ ]]
}

@test "bench-cuda-allreduce says there is no CUDA device and exits 1" {
	need_cuda
	need_bin bench-cuda-allreduce
	no_gpu
	run -1 --separate-stderr bench-cuda-allreduce --max-bytes 4096
	[[ "$stderr" =~ ^bench:\ no\ CUDA\ device\ \(.*\)$ ]]
	[ "$output" = "" ]
}

@test "a failing CUDA, cuDNN, cuBLAS or NCCL call prints one located line and exits 1" {
	need_cuda
	need_bin bench-cuda
	no_gpu
	x="$BATS_TEST_TMPDIR/checks"
	flags="$(make -s -p -n CUDA_ARCH=80 bin/test-gpu-host 2>/dev/null | sed -n 's/^NVCCFLAGS := //p')"
	cd "$FIXTURES/bench-cuda"
	# the checks die through lib's die (bench's exit hook then ends every rank)
	run -0 "$CUDA_HOME/bin/nvcc" $flags -I"$ROOT/lib" -I"$ROOT/bench" -o "$x" checks.cu \
		"$OBJ_DIR/libdlbench.a" -lcudnn -lcublas -lnccl \
		-Xlinker -rpath -Xlinker "$CUDA_HOME/lib64"
	run -1 --separate-stderr "$x" cuda
	[[ "$stderr" =~ ^bench:\ cuda\ error\ at\ checks\.cu:20:\ .+$ ]]
	run -1 --separate-stderr "$x" cudnn
	[[ "$stderr" =~ ^bench:\ cudnn\ error\ at\ checks\.cu:23:\ CUDNN_STATUS_[A-Z_]+$ ]]
	run -1 --separate-stderr "$x" cublas
	[[ "$stderr" =~ ^bench:\ cublas\ error\ at\ checks\.cu:26:\ .+$ ]]
	run -1 --separate-stderr "$x" nccl
	[[ "$stderr" =~ ^bench:\ nccl\ error\ at\ checks\.cu:30:\ .+$ ]]
	[ "${#stderr_lines[@]}" -eq 1 ]
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

@test "the CPU bench refuses --graph and the NCCL flags, exit 2" {
	run -2 --separate-stderr bench --graph --image 32 --batch 2 --iters 2
	[ "$stderr" = "bench: --graph: CUDA graphs; the CPU backend has none" ]
	run -2 --separate-stderr bench --nccl-timeout 5 --image 32 --batch 2 --iters 2
	[ "$stderr" = "bench: --nccl-high-priority, --nccl-timeout: NCCL runs in bench-cuda only" ]
	run -2 --separate-stderr bench --nccl-timeout 0 --image 32 --batch 2 --iters 2
	[ "$stderr" = "bench: --nccl-timeout: '0' is out of range [1, 86400]" ]
}

@test "make gpu-first-run without a GPU says so and writes nothing" {
	need_cuda
	need_bin bench-cuda
	no_gpu
	r="$BATS_TEST_TMPDIR/results"
	run -1 --separate-stderr bench/cuda/first-run.sh "$BIN_DIR" "$r/gpu-first-run.txt"
	[[ "$stderr" =~ ^check-gpu-compare:\ no\ CUDA\ device\ \(.*\)$ ]]
	[ ! -e "$r/gpu-first-run.txt" ] && [ ! -e "$r/gpu-first-run.txt.tmp" ]
	run -0 make --no-print-directory -n RESULTS="$r" gpu-first-run
	[[ "$output" == *"bench/cuda/first-run.sh bin $r/gpu-first-run.txt"* ]]
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

@test "two correct fp32 implementations pass check-gpu's fp32 bounds: bench CPU and PyTorch" {
	/usr/bin/python3 -c 'import torch, torchvision, numpy' 2>/dev/null ||
		skip "python3-torch not installed"
	need_bin check-gpu-compare
	a="$BATS_TEST_TMPDIR/cpu" b="$BATS_TEST_TMPDIR/torch"
	mkdir -p "$a"
	run -0 --separate-stderr bench --export "$a" --batch 8 --image 64 --classes 10 --seed 7 \
		--lr 0.1 --momentum 0.9 --weight-decay 1e-4
	# PyTorch float32 on bench's weights and batch, written as an export
	run -0 /usr/bin/python3 - "$ROOT/tests/torch_reference.py" "$a" "$b" <<'EOF'
import importlib.util, os, shutil, sys
import numpy as np, torch, torchvision, torch.nn.functional as F
spec = importlib.util.spec_from_file_location("tr", sys.argv[1])
tr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tr)
src, dst = sys.argv[2], sys.argv[3]
ex = tr.load_export(np, src)
class A:
    label_smoothing, lr, momentum, weight_decay = 0.0, 0.1, 0.9, 1e-4
os.makedirs(dst)
for f in ("params.f32", "input.f32", "labels.i32", "manifest.tsv"):
    shutil.copy(os.path.join(src, f), dst)
m = tr.build_model(torch, torchvision, ex, torch.float32)
B, PX = ex["batch"], ex["image"]
x = torch.from_numpy(ex["input"]).view(B, 3, PX, PX)
logits, loss = tr.train_step(torch, F, m, x, torch.from_numpy(ex["labels"]).long(), A)
named = dict(m.named_parameters())
names = [e[0] for e in ex["manifest"]]
g = torch.cat([named[n].grad.reshape(-1) for n in names])
torch.optim.SGD(tr.param_groups(m, A.weight_decay), lr=A.lr, momentum=A.momentum).step()
p1 = torch.cat([named[n].detach().reshape(-1) for n in names])
for name, t in (("logits.f32", logits), ("grads.f32", g), ("params_after.f32", p1)):
    t.numpy().astype("<f4").tofile(os.path.join(dst, name))
open(os.path.join(dst, "loss.txt"), "w").write("%.9g\n" % loss)
EOF
	run -0 check-gpu-compare compare fp32 "$a" "$b"
	[ "${lines[6]}" = "check-gpu fp32: ok" ]
	# and the fp32 direction bound is not slack: the measured worst is within 4x
	worst="$(awk '/^grad direction/ { print $6 }' <<<"$output")"
	awk -v w="$worst" 'BEGIN { exit !(w > 0.15 / 4 / 4) }'
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

# ---- the allreduce benchmark on the CPU ------------------------------------------------------------

ROW='^ {0,11}[0-9]+ {1,12}[0-9]+ {1,12}[0-9]+\.[0-9]{2} {1,10}[0-9]+\.[0-9]{3} {1,10}[0-9]+\.[0-9]{3}$'

@test "the allreduce benchmark under mpirun -np 2 prints one fixed-width row per size, 1 KB to 1 MB" {
	run -0 --separate-stderr mpirun -np 2 bench-allreduce --max-bytes 1048576 --iters 3 --warmup 1
	[ "${#lines[@]}" -eq 8 ]
	[ "${lines[0]}" = "# bench allreduce backend=cpu-onednn ranks=2 nodes=1 iters=3 warmup=1 type=float op=sum" ]
	[ "${lines[1]}" = "#      bytes        count      time_us  algbw_GBs  busbw_GBs" ]
	sizes=(1024 4096 16384 65536 262144 1048576)
	for i in 0 1 2 3 4 5; do
		row="${lines[$((i + 2))]}"
		[[ "$row" =~ $ROW ]]
		[ "${#row}" -eq 60 ]
		read -r bytes count us alg bus <<<"$row"
		[ "$bytes" = "${sizes[$i]}" ]
		[ "$count" = "$((bytes / 4))" ]
		# two ranks: busbw = algbw * 2 (n - 1) / n = algbw
		[ "$alg" = "$bus" ]
	done
}

@test "the allreduce benchmark's bus bandwidth is algbw * 2(n-1)/n: 4/3 at three ranks" {
	run -0 --separate-stderr mpirun --oversubscribe -np 3 bench-allreduce --min-bytes 65536 \
		--max-bytes 65536 --iters 2 --warmup 1
	[ "${lines[0]}" = "# bench allreduce backend=cpu-onednn ranks=3 nodes=1 iters=2 warmup=1 type=float op=sum" ]
	read -r bytes count us alg bus <<<"${lines[2]}"
	[ "$bytes" = 65536 ]
	# alg = bytes / time: recompute from the printed time, then busbw
	awk -v b="$bytes" -v us="$us" -v a="$alg" -v s="$bus" 'BEGIN {
		t = us / 1e6; want = b / t / 1e9
		exit !((a - want) ^ 2 <= (0.002 + want * 0.01) ^ 2 && (s - a * 4 / 3) ^ 2 <= 0.002 ^ 2)
	}'
}

@test "the allreduce benchmark with factor 2 and one rank prints no bandwidth" {
	run -0 bench-allreduce --min-bytes 1024 --max-bytes 4096 --factor 2 --iters 1 --warmup 0
	[ "${#lines[@]}" -eq 5 ]
	[ "${lines[0]}" = "# bench allreduce backend=cpu-onednn ranks=1 nodes=1 iters=1 warmup=0 type=float op=sum" ]
	for i in 2 3 4; do
		[[ "${lines[$i]}" =~ ^\ +[0-9]+\ +[0-9]+\ +[0-9]+\.[0-9]{2}\ {10}-\ {10}-$ ]]
	done
	[ "$(awk 'NR > 2 { print $1 }' <<<"$output" | tr '\n' ' ')" = "1024 2048 4096 " ]
}

@test "bench --allreduce under mpirun -np 2 prints the allreduce benchmark's table" {
	run -0 --separate-stderr mpirun -np 2 bench --allreduce --max-bytes 4096 --iters 2 --warmup 1
	[ "${lines[0]}" = "# bench allreduce backend=cpu-onednn ranks=2 nodes=1 iters=2 warmup=1 type=float op=sum" ]
	[ "${lines[1]}" = "#      bytes        count      time_us  algbw_GBs  busbw_GBs" ]
	[ "${#lines[@]}" -eq 4 ]
	[[ "${lines[2]}" =~ $ROW ]] && [[ "${lines[3]}" =~ $ROW ]]
	[ "$(awk 'NR > 2 { print $1 }' <<<"$output" | tr '\n' ' ')" = "1024 4096 " ]
}

@test "the allreduce benchmark's flags are checked" {
	run -2 --separate-stderr bench-allreduce --iters 0
	[ "$stderr" = "bench: --iters: '0' is not an integer in [1, 1000000]" ]
	run -2 --separate-stderr bench-allreduce --factor 3
	[ "$stderr" = "bench: --factor: '3' is not 2 or 4" ]
	run -2 --separate-stderr bench-allreduce --min-bytes 8192 --max-bytes 4096
	[ "$stderr" = "bench: --min-bytes 8192 is more than --max-bytes 4096" ]
	run -2 --separate-stderr bench-allreduce --max-bytes 1030
	[ "$stderr" = "bench: --min-bytes, --max-bytes: must be multiples of 4 (float32)" ]
	run -2 --separate-stderr bench-allreduce --frobnicate 1
	[[ "$stderr" == usage:\ bench-allreduce* ]]
}
