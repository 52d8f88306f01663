#!/usr/bin/env bats
# bench's GPU side, on a machine without a GPU: the CUDA backend compiles and
# links with warnings as errors; check-gpu's fp32 bounds hold between bench
# on the CPU and PyTorch; the allreduce benchmark runs on the CPU build under
# mpirun -np 2; and everything that needs a device fails cleanly with "no
# CUDA device". The host-side logic (loss-scale state machine, layouts,
# convolution shapes, check-gpu's comparison): tests/bench-host.bats.
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

# make's lines on what the build found (after bench.mk's MPI and libjpeg lines)
cuda_lines() {
	grep -E '^(nvcc|cuDNN|cuBLAS|CUDA runtime|NCCL|CUDA_ARCH):' <<<"$output"
}

@test "make reports the cuDNN and NCCL it found, and where" {
	need_cuda
	h="$CUDA_HOME/include/cudnn_version.h"
	v="$(sed -n 's/^#define CUDNN_MAJOR *//p' "$h").$(sed -n 's/^#define CUDNN_MINOR *//p' "$h")"
	run -0 make --no-print-directory -n bin/test-gpu-host
	mapfile -t found < <(cuda_lines)
	[ "${found[0]}" = "nvcc: $CUDA_HOME/bin/nvcc" ]
	[[ "${found[1]}" == "cuDNN: found $v: $h "*/libcudnn.so* ]]
	[[ "${found[4]}" =~ ^NCCL:\ found\ 2\.[0-9]+:\ .*/nccl\.h\ .*/libnccl\.so ]]
}

@test "CUDA=0 turns the GPU backend off and nvcc is never run" {
	run -0 make --no-print-directory -n CUDA=0 all
	[ "$(cuda_lines)" = "cuDNN: off (CUDA=0), GPU backend skipped" ]
	! grep -q nvcc <<<"$output" || false
	! grep -q bench-cuda <<<"$output" || false
}

@test "a toolkit that is not there is reported and skipped" {
	run -0 make --no-print-directory -n CUDA_HOME=/nonexistent all
	[ "$(cuda_lines)" = "nvcc: not found at /nonexistent/bin/nvcc
cuDNN: not found, GPU backend skipped" ]
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
	# the split ArcFace head's collectives
	grep -q ncclAllGather <<<"$output"
	grep -q ncclReduceScatter <<<"$output"
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
	command -v nvidia-smi >/dev/null && skip "nvidia-smi is here"
	r="$BATS_TEST_TMPDIR/results"
	run -1 --separate-stderr bench/cuda/first-run.sh "$BIN_DIR" "$r/gpu-first-run.txt"
	[ "$stderr" = "gpu-first-run: no GPU here (no /dev/nvidiaN, nvidia-smi lists none, or CUDA_VISIBLE_DEVICES hides them)" ]
	[ ! -e "$r/gpu-first-run.txt" ] && [ ! -e "$r/gpu-first-run.txt.tmp" ]
	run -0 make --no-print-directory -n RESULTS="$r" gpu-first-run
	[[ "$output" == *"bench/cuda/first-run.sh bin $r/gpu-first-run.txt"* ]]
}

# ---- check-gpu's bounds on two real implementations -------------------------------------------

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
