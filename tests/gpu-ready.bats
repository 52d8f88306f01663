#!/usr/bin/env bats
# What a GPU machine with only a driver and PyTorch's CUDA wheels needs, on
# a machine without a GPU: bench and bench-cuda start without MPI and
# libjpeg (in a chroot that holds neither) and refuse a launcher or --data
# with one line; bench-cuda builds against a wheel-shaped tree of links
# made from /usr/local/cuda's dist-info RECORDs (the wheels this toolkit was
# assembled from), with versioned names in the link and the wheels' folders
# in its run path; CUDA_ARCH=native; check-gpu-compare versions; and `make
# gpu-first-run`'s scheduler and summary on a fake GPU (tests/fake-gpu.bash).

bats_require_minimum_version 1.5.0
load helper
load fake-gpu

CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}

setup() {
	common_setup
	export PATH=$PATH:/usr/sbin:/sbin # chroot
	cd "$ROOT"
}

need_cuda() {
	[ -x "$CUDA_HOME/bin/nvcc" ] && [ -f "$CUDA_HOME/include/cudnn_version.h" ] ||
		skip "no CUDA toolkit with cuDNN at $CUDA_HOME"
}

need_wheels_record() {
	compgen -G "$CUDA_HOME/dist-info/nvidia_cudnn*/RECORD" >/dev/null ||
		skip "$CUDA_HOME/dist-info holds no wheel RECORDs"
}

# A chroot needs root, or a user namespace that maps this user to root.
need_chroot() {
	unshare -r chroot / true 2>/dev/null || skip "no chroot here (unshare -r chroot)"
}

in_root() { # ROOT CMD...: CMD in a chroot of ROOT
	local r=$1
	shift
	unshare -r chroot "$r" "$@"
}

# wheel_tree DIR: DIR/nvidia/<package>/... as pip lays out PyTorch's CUDA
# wheels, one hard link (else symbolic) per file each RECORD lists, to its
# file in the toolkit; and DIR/py/python3, a python3 that imports from DIR.
wheel_tree() {
	local d=$1 p rest
	cat "$CUDA_HOME"/dist-info/*/RECORD | cut -d, -f1 | grep '^nvidia/' | while read -r p; do
		rest=${p#nvidia/*/}
		case $rest in .metadata/*) continue ;; esac
		mkdir -p "$d/$(dirname "$p")"
		ln "$CUDA_HOME/$rest" "$d/$p" 2>/dev/null || ln -s "$CUDA_HOME/$rest" "$d/$p"
	done
	mkdir -p "$d/py"
	printf '#!/bin/sh\nPYTHONPATH=%s exec /usr/bin/python3 "$@"\n' "$d" >"$d/py/python3"
	chmod +x "$d/py/python3"
}

# root_for PROGRAM ROOT: ROOT/... holds (hard links to) what the loader
# resolves for PROGRAM from the system's folders, as a machine with glibc,
# libstdc++ and the program's own needs has them; nothing else.
root_for() {
	local f
	for f in $(ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
		case $f in "$BATS_TEST_TMPDIR"/*) continue ;; esac
		mkdir -p "$2$(dirname "$f")"
		[ -e "$2$f" ] || ln "$(readlink -f "$f")" "$2$f" 2>/dev/null || cp -L "$f" "$2$f"
	done
}

# ---- MPI and libjpeg at run time ---------------------------------------------------

@test "bench links neither MPI nor libjpeg, and keeps libmpi's folder in its run path" {
	run -0 readelf -d "$ROOT/bin/bench"
	! grep -E 'NEEDED.*(libmpi|libjpeg)' <<<"$output" || false
	dir=$(mpicc --showme:libdirs 2>/dev/null) || skip "no mpicc"
	grep -q "RUNPATH.*$dir" <<<"$output"
	if [ -x "$ROOT/bin/bench-cuda" ]; then
		run -0 readelf -d "$ROOT/bin/bench-cuda"
		! grep -E 'NEEDED.*(libmpi|libjpeg)' <<<"$output" || false
	fi
}

@test "bench starts without libmpi and libjpeg; a launcher and --data are refused in one line" {
	need_chroot
	r=$BATS_TEST_TMPDIR/root
	root_for "$ROOT/bin/bench" "$r"
	cp "$ROOT/bin/bench" "$r/bench"
	[ -z "$(find "$r" -name 'libmpi*' -o -name 'libjpeg*')" ]
	run -0 --separate-stderr in_root "$r" /bench --batch 2 --image 32 --classes 10 --iters 2 --threads 1
	[ "${lines[0]}" = "# bench model=resnet50 backend=cpu-onednn nodes=1 gpus_per_node=1 batch_per_device=2 precision=fp32 image=32 data=synthetic" ]
	[[ "${lines[-1]}" =~ ^#\ end\ iters=2\ peak_mem_mb=[0-9]+$ ]]
	OMPI_COMM_WORLD_SIZE=2 run -1 --separate-stderr in_root "$r" /bench --batch 2 --image 32 --iters 1
	[ "$stderr" = "bench: started by an MPI launcher (OMPI_COMM_WORLD_SIZE is set), but MPI cannot be loaded: libmpi.so.40: cannot open shared object file: No such file or directory" ]
	[ "$output" = "" ]
	PMI_SIZE=2 run -1 --separate-stderr in_root "$r" /bench --batch 2 --image 32 --iters 1
	[[ "$stderr" == "bench: started by an MPI launcher (PMI_SIZE is set), but MPI cannot be loaded: "* ]]
	mkdir -p "$r/data/a"
	run -1 --separate-stderr in_root "$r" /bench --batch 2 --image 32 --iters 1 --data /data
	[ "${stderr_lines[-1]}" = "bench: --data: libjpeg-turbo cannot be loaded: libjpeg.so.62: cannot open shared object file: No such file or directory" ]
}

@test "make MPI=0 JPEG=0 builds a bench that refuses a launcher and --data; make says so first" {
	o=$BATS_TEST_TMPDIR
	run -0 make --no-print-directory -n MPI=0 JPEG=0 OBJ="$o/obj" BIN="$o/bin" "$o/bin/bench"
	[ "${lines[0]}" = "MPI: off (MPI=0); bench runs one process only (several ranks are refused)" ]
	[ "${lines[1]}" = "libjpeg: off (JPEG=0); bench refuses --data" ]
	grep -q -- '-DBENCH_NO_MPI -DBENCH_NO_JPEG' <<<"$output"
	grep -q 'decode_none\.c' <<<"$output"
	! grep -q 'data/decode\.c' <<<"$output" || false
	run -0 make --no-print-directory -s CUDA_QUIET=1 MPI=0 JPEG=0 OBJ="$o/obj" BIN="$o/bin" \
		"$o/bin/bench" "$o/bin/test-data-check"
	OMPI_COMM_WORLD_SIZE=2 run -1 --separate-stderr "$o/bin/bench" --batch 2 --image 32 --iters 1
	[ "$stderr" = "bench: started by an MPI launcher (OMPI_COMM_WORLD_SIZE is set), but this bench was built without MPI (make MPI=0): run it alone, as one process" ]
	mkdir -p "$o/data/a"
	run -2 --separate-stderr "$o/bin/bench" --batch 2 --image 32 --iters 1 --data "$o/data"
	[ "$stderr" = "bench: --data: this bench was built without libjpeg-turbo (make JPEG=0)" ]
	# alone, it trains as the default build does, to the bit
	run -0 "$o/bin/bench" --batch 2 --image 32 --classes 10 --iters 2 --threads 1 --seed 3
	a=$(grep '^iter=' <<<"$output" | sed 's/ step_s=.*//')
	run -0 bench --batch 2 --image 32 --classes 10 --iters 2 --threads 1 --seed 3
	[ "$a" = "$(grep '^iter=' <<<"$output" | sed 's/ step_s=.*//')" ]
}

@test "bench loads MPI under mpirun: two ranks train and sum" {
	command -v mpirun >/dev/null || skip "mpirun not installed"
	run -0 --separate-stderr mpirun -np 2 --bind-to none bench --batch 2 --image 32 --classes 10 \
		--iters 2 --threads 1
	[[ "${lines[0]}" == "# bench model=resnet50 backend=cpu-onednn nodes=1 gpus_per_node=2 "* ]]
	[ "$(grep -c '^iter=' <<<"$output")" = 2 ]
}

# ---- bench-cuda against PyTorch's wheels ---------------------------------------------

@test "make finds cuDNN and NCCL in PyTorch's wheels and links their versioned files" {
	need_cuda
	need_wheels_record
	w=$BATS_TEST_TMPDIR/site
	wheel_tree "$w"
	n=$w/nvidia
	# nvcc from the wheel (nvidia/cu13 is a toolkit: nvcc, cuBLAS, the runtime);
	# cuDNN and NCCL only in their wheels, found through python3's `import nvidia`
	PATH=$w/py:$PATH run -0 make --no-print-directory -n CUDA_HOME="$n/cu13" bin/bench-cuda
	[ "${lines[2]}" = "nvcc: $n/cu13/bin/nvcc" ]
	[ "${lines[3]}" = "cuDNN: found 9.19 in PyTorch's wheel: $n/cudnn/include/cudnn_version.h $n/cudnn/lib/libcudnn.so.9" ]
	[ "${lines[4]}" = "cuBLAS: found 13.1: $n/cu13/include/cublas_v2.h $n/cu13/lib/libcublas.so.13" ]
	[ "${lines[5]}" = "CUDA runtime: found 13.0: $n/cu13/include/cuda_runtime_api.h $n/cu13/lib/libcudart.so.13" ]
	[ "${lines[6]}" = "NCCL: found 2.28 in PyTorch's wheel: $n/nccl/include/nccl.h $n/nccl/lib/libnccl.so.2" ]
	link=$(grep -- '-o bin/bench-cuda ' <<<"$output")
	[[ "$link" == *" -l:libcudnn.so.9 -l:libcublas.so.13 -l:libnccl.so.2 -l:libcudart.so.13 "* ]]
	for d in cu13 cudnn nccl; do
		[[ "$link" == *" -L$n/$d/lib "* ]] && [[ "$link" == *" -Wl,-rpath,$n/$d/lib "* ]]
	done
	[[ "$(grep 'nvcc .*bench/cuda/conv.cu' <<<"$output")" == *" -I$n/cudnn/include "* ]]
	# without the wheels: not found, and said
	run -0 make --no-print-directory -n CUDA_HOME="$n/cu13" CUDA_PYTHON=false bin/test-gpu-host
	[ "${lines[3]}" = "cuDNN: not found, GPU backend skipped" ]
	# CUDNN_HOME and NCCL_HOME name them outright (a wheel's folder, or an install)
	run -0 make --no-print-directory -n CUDA_HOME="$n/cu13" CUDA_PYTHON=false \
		CUDNN_HOME="$n/cudnn" NCCL_HOME="$n/nccl" bin/bench-cuda
	[ "${lines[3]}" = "cuDNN: found 9.19: $n/cudnn/include/cudnn_version.h $n/cudnn/lib/libcudnn.so.9" ]
	[ "${lines[6]}" = "NCCL: found 2.28: $n/nccl/include/nccl.h $n/nccl/lib/libnccl.so.2" ]
}

@test "bench-cuda built against the wheels runs with only glibc, libstdc++ and their folders" {
	need_cuda
	need_wheels_record
	need_chroot
	r=$BATS_TEST_TMPDIR/root
	w=$BATS_TEST_TMPDIR/site o=$BATS_TEST_TMPDIR
	wheel_tree "$w"
	n=$w/nvidia
	[ "$(stat -c %h "$n/cudnn/lib/libcudnn.so.9")" -gt 1 ] || skip "no hard links to $CUDA_HOME here"
	PATH=$w/py:$PATH run -0 make --no-print-directory -s CUDA_QUIET=1 CUDA_HOME="$n/cu13" \
		CUDA_ARCH=90 OBJ="$o/obj" BIN="$o/bin" "$o/bin/bench-cuda" "$o/bin/check-gpu-compare"
	run -0 readelf -d "$o/bin/bench-cuda"
	needed=$(sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' <<<"$output" | paste -sd' ')
	[ "$needed" = "libcudnn.so.9 libcublas.so.13 libnccl.so.2 libcudart.so.13 libstdc++.so.6 libm.so.6 libgcc_s.so.1 libc.so.6" ]
	[[ "$(grep RUNPATH <<<"$output")" == *"[$n/cu13/lib:$n/cudnn/lib:$n/nccl/lib"* ]]
	# a root of glibc and the C++ runtime alone, and the wheels' tree at the
	# path the run path names
	mkdir -p "$r$BATS_TEST_TMPDIR"
	cp -al "$w" "$r$w"
	for p in bench-cuda check-gpu-compare; do
		root_for "$o/bin/$p" "$r"
		cp "$o/bin/$p" "$r/$p"
	done
	# the CUDA libraries' own needs: libdl, librt, ... and zlib (cuDNN's
	# parts, which libcudnn.so.9 opens when first called)
	for l in cudnn/lib/libcudnn.so.9 cudnn/lib/libcudnn_graph.so.9 cu13/lib/libcublas.so.13 \
		nccl/lib/libnccl.so.2; do
		root_for "$n/$l" "$r"
	done
	[ -z "$(find "$r" -path "$r$BATS_TEST_TMPDIR" -prune -o \( -name 'libmpi*' -o -name 'libjpeg*' -o -name 'libcudnn*' \) -print)" ]
	run -0 in_root "$r" /bench-cuda --describe --batch 2 --image 32
	[ "${lines[0]}" = "# resnet50 v1.5 image=32 classes=1000 batch=2" ]
	run -1 --separate-stderr in_root "$r" /bench-cuda --batch 2 --image 32 --iters 1
	[[ "$stderr" =~ ^bench:\ no\ CUDA\ device\ \(.*\)$ ]]
	OMPI_COMM_WORLD_SIZE=2 run -1 --separate-stderr in_root "$r" /bench-cuda --batch 2 --image 32 --iters 1
	[ "$stderr" = "bench: started by an MPI launcher (OMPI_COMM_WORLD_SIZE is set), but MPI cannot be loaded: libmpi.so.40: cannot open shared object file: No such file or directory" ]
	run -0 in_root "$r" /check-gpu-compare versions
	[ "${lines[0]}" = "CUDA driver: none" ]
	[ "${lines[2]}" = "cuDNN: 9.19.0 (built against 9.19.0) $n/cudnn/lib/libcudnn.so.9" ]
	[ "${lines[4]}" = "NCCL: 2.28.9 (built against 2.28.9) $n/nccl/lib/libnccl.so.2" ]
}

@test "CUDA_ARCH: the GPU's own where there is one (or native), the list elsewhere" {
	need_cuda
	fake_gpu "$BATS_TEST_TMPDIR/gpu" "$ROOT/bin"
	line() { grep 'nvcc .*bench/cuda/backend.cu' <<<"$output"; }
	PATH=$BATS_TEST_TMPDIR/gpu/path:$PATH run -0 make --no-print-directory -n -W bench/cuda/backend.cu \
		build/bench/cuda/backend.o
	grep -qx 'CUDA_ARCH: 90 (the GPU here)' <<<"$output"
	[[ "$(line)" == *" -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 "* ]]
	! [[ "$(line)" == *sm_75* ]] || false
	PATH=$BATS_TEST_TMPDIR/gpu/path:$PATH CUDA_VISIBLE_DEVICES=-1 run -0 make --no-print-directory -n \
		-W bench/cuda/backend.cu build/bench/cuda/backend.o
	[[ "$(line)" == *"-gencode arch=compute_75,code=sm_75 "* ]]
	PATH=$BATS_TEST_TMPDIR/gpu/path:$PATH run -0 make --no-print-directory -n CUDA_ARCH=native \
		-W bench/cuda/backend.cu build/bench/cuda/backend.o
	grep -qx 'CUDA_ARCH: 90 (native)' <<<"$output"
	if ! command -v nvidia-smi >/dev/null; then
		run -2 make --no-print-directory -n CUDA_ARCH=native build/bench/cuda/backend.o
		[[ "$output" == *"CUDA_ARCH=native: nvidia-smi reports no GPU's compute capability here; name them, e.g. CUDA_ARCH=90.  Stop."* ]]
	fi
}

@test "check-gpu-compare versions names each library as loaded, and refuses an older cuDNN" {
	need_bin check-gpu-compare
	h=$CUDA_HOME/include/cudnn_version.h
	v="$(sed -n 's/^#define CUDNN_MAJOR *//p' "$h").$(sed -n 's/^#define CUDNN_MINOR *//p' "$h").$(sed -n 's/^#define CUDNN_PATCHLEVEL *//p' "$h")"
	run -0 check-gpu-compare versions
	[ "${#lines[@]}" -eq 5 ]
	[[ "${lines[1]}" =~ ^CUDA\ runtime:\ [0-9]+\.[0-9]+\ \(built\ against\ [0-9]+\.[0-9]+\)\ /.*/libcudart\.so\.[0-9]+$ ]]
	[[ "${lines[2]}" =~ ^cuDNN:\ $v\ \(built\ against\ $v\)\ /.*/libcudnn\.so\.9$ ]]
	[[ "${lines[3]}" =~ ^cuBLAS:\ [0-9.]+\ \(built\ against\ [0-9.]+\)\ /.*/libcublas\.so\.[0-9]+$ ]]
	# a cuDNN that says it is 9.1.0, first on the loader's path
	f=$BATS_TEST_TMPDIR/old
	mkdir -p "$f"
	printf '#include <stddef.h>\nsize_t cudnnGetVersion(void) { return 90100; }\n' >"$f/c.c"
	printf 'libcudnn.so.9 { global: *; };\n' >"$f/v.map"
	cc -shared -fPIC -o "$f/libcudnn.so.9" -Wl,-soname,libcudnn.so.9 -Wl,--version-script,"$f/v.map" "$f/c.c"
	LD_LIBRARY_PATH=$f run -1 --separate-stderr check-gpu-compare versions
	[ "${lines[2]}" = "cuDNN: 9.1.0 (built against $v) $f/libcudnn.so.9" ]
	[ "$stderr" = "check-gpu-compare: cuDNN 9.1.0 loaded from $f/libcudnn.so.9 is older than the $v bench-cuda was built against" ]
}

# ---- gpu-first-run on a fake GPU -------------------------------------------------------

# first_run [VAR=VALUE...]: bench/cuda/first-run.sh on the fake GPU of
# $G (fake_gpu), its file $G/out/gpu-first-run.txt, a copy in $G/copy.
first_run() {
	env PATH="$G/path:$PATH" FIRST_RUN_MAKE="$G/bin/make" FIRST_RUN_COPY="$G/copy" "$@" \
		bench/cuda/first-run.sh "$G/bin" "$G/out/gpu-first-run.txt"
}

@test "gpu-first-run on one GPU: the build, the parts in order through the harness, the summary last" {
	G=$BATS_TEST_TMPDIR/gpu
	fake_gpu "$G" "$ROOT/bin"
	run -0 first_run FIRST_RUN_SKIP=check
	# what it ran, in order
	parts=$(sed -n 's/^=== \([a-z0-9-]*\)[ :].*/\1/p' <<<"$output" | paste -sd' ')
	[ "$parts" = "gpu-first-run build devices check bench-amp torch-amp bench-tf32 torch-tf32 bench-bf16 torch-bf16 bench-fp32 torch-fp32 bench-graph bench-profile torch-compile allreduce bench-all tables gpu-first-run" ]
	grep -qx '=== check: skipped (FIRST_RUN_SKIP) .*' <<<"$output"
	grep -qx '=== allreduce: skipped (one GPU) .*' <<<"$output"
	# the harness ran the pairs: bench-cuda at 224 px, PyTorch on the GPU
	grep -qx "bench-cuda --batch 256 --precision amp --iters 60 --image 224 --warmup 10" "$G/calls"
	grep -qx "bench-cuda --batch 256 --precision fp32 --iters 30 --image 224 --warmup 10" "$G/calls"
	grep -q "^python3 $ROOT/pipelines/pytorch_synthetic.py --batch 256 --precision tf32 --iters 40 --layout channels_last --device cuda --image 224$" "$G/calls"
	grep -q "^python3 $ROOT/pipelines/pytorch_synthetic.py --device cuda --batch 256 --image 224 --precision amp --iters 60 --compile default$" "$G/calls"
	grep -qx "bench-cuda --batch 256 --image 224 --precision amp --iters 60 --warmup 10 --graph" "$G/calls"
	# each harness table has nvidia-smi's memory column
	[ "$(grep '^| 1 | 1 | 256 |' "$G/out/gpu-first-run/results/bench/1n1g_b256_amp.md" | awk -F' [|] ' '{ print $NF }')" = "20480 |" ]
	[ -f "$G/out/gpu-first-run/results/all/compare_b256_amp.md" ]
	grep -q '^| node num | device num | PyTorch (synthetic) | bench | bench-graph | pytorch-compile |' "$G/out/gpu-first-run/results/all/compare_b256_amp.md"
	# the summary: the side by side, the ratios, the status of every part
	grep -qx 'bench              1n1g  amp     4224.42   4224.43    1.45  0.3000    20480    18000        -' <<<"$output"
	grep -qx 'pytorch-synthetic  1n1g  amp     3168.32   3168.32    1.45  0.4000    20480    24000    21000' <<<"$output"
	grep -qx 'bench-cuda / PyTorch, tf32: 1.33x (median step), 1.33x (wall)' <<<"$output"
	grep -qx 'bench: --graph: step captured' <<<"$output"
	grep -q '^# profile total ' <<<"$output"
	grep -qx 'torch-compile  ok, [0-9]*s' <<<"$output"
	grep -qx 'bench-all      skipped (one GPU)' <<<"$output"
	[[ "${lines[-1]}" == "total "*"s of a 480s budget; everything above is in $G/out/gpu-first-run.txt" ]]
	# the whole output in one file, and its copy with the logs
	[ "$(cat "$G/out/gpu-first-run.txt")" = "$output" ]
	[ "$(cat "$G/copy/gpu-first-run.txt")" = "$output" ]
	[ ! -e "$G/out/gpu-first-run.txt.tmp" ]
	tar -tzf "$G/copy/gpu-first-run.tar.gz" | grep -qx 'gpu-first-run/logs/bench/1n1g_b256_amp/1.log'
}

@test "gpu-first-run's check: bench-cuda's exports against the CPU backend and PyTorch in float64" {
	/usr/bin/python3 -c 'import torch, torchvision, numpy' 2>/dev/null || skip "python3-torch not installed"
	G=$BATS_TEST_TMPDIR/gpu
	fake_gpu "$G" "$ROOT/bin"
	skips=$(printf '%s ' bench-{amp,tf32,bf16,fp32,graph,profile} torch-{amp,tf32,bf16,fp32,compile})
	# check at most 600 s: here every "GPU" export and reference runs on 2 cores
	run -0 first_run FIRST_RUN_SKIP="$skips" CHECK_GPU_CPU_BENCH="$ROOT/bin/bench" \
		FIRST_RUN_LIMITS=check=600:40 FIRST_RUN_BUDGET=900
	grep -q "^bench-cuda --export $G/out/gpu-first-run/check/amp --precision amp --loss-scale 128 --batch 8 --image 64 " "$G/calls"
	v=$(sed -n '/^=== gpu-first-run summary/,$p' <<<"$output" | grep '^check-gpu ')
	[ "$v" = "check-gpu fp32 against bench's CPU backend: ok
check-gpu amp against bench's CPU backend: ok
check-gpu arcface against bench's CPU backend: ok
check-gpu fp32 against PyTorch float64: ok
check-gpu amp against PyTorch float64: ok
check-gpu arcface against PyTorch float64: ok" ]
	grep -qx 'check          ok, [0-9]*s' <<<"$output"
}

@test "check-gpu.sh fails an export whose gradients lack the loss scale, and says what it skipped" {
	G=$BATS_TEST_TMPDIR/gpu
	fake_gpu "$G" "$ROOT/bin"
	# the fake amp export without its loss scale: the CPU comparison fails
	sed -i 's/\[ -z "\$scale" \]/[ -z "$scale" ] || [ -n "${FAKE_NO_SCALE:-}" ]/' "$G/bin/bench-cuda"
	FAKE_NO_SCALE=1 CHECK_GPU_CPU_BENCH=$ROOT/bin/bench PYTHON=false run -1 \
		tests/drivers/check-gpu.sh "$G/bin" "$BATS_TEST_TMPDIR/check"
	[ "${lines[-6]}" = "check-gpu fp32 against bench's CPU backend: ok" ]
	[ "${lines[-5]}" = "check-gpu amp against bench's CPU backend: FAIL" ]
	[ "${lines[-4]}" = "check-gpu arcface against bench's CPU backend: ok" ]
	[ "${lines[-3]}" = "check-gpu fp32 against PyTorch float64: skipped (false cannot import torch, torchvision, numpy)" ]
	[ "${lines[-2]}" = "check-gpu amp against PyTorch float64: skipped (false cannot import torch, torchvision, numpy)" ]
	[ "${lines[-1]}" = "check-gpu arcface against PyTorch float64: skipped (false cannot import torch, torchvision, numpy)" ]
	CHECK_GPU_CPU_BENCH=$BATS_TEST_TMPDIR/none PYTHON=false run -0 \
		tests/drivers/check-gpu.sh "$G/bin" "$BATS_TEST_TMPDIR/check"
	[ "${lines[-6]}" = "check-gpu fp32 against bench's CPU backend: skipped (no CPU bench: $BATS_TEST_TMPDIR/none not built (oneDNN not found); CHECK_GPU_CPU_BENCH=PROGRAM)" ]
}

@test "gpu-first-run time-boxes each part and skips what no longer fits, saying so" {
	G=$BATS_TEST_TMPDIR/gpu
	fake_gpu "$G" "$ROOT/bin"
	limits=$(printf '%s=3:2 ' bench-{amp,tf32,bf16,fp32,graph,profile} torch-{amp,tf32,bf16,fp32})
	# bench-cuda takes 20 s to start: each of its parts is stopped at its 3 s;
	# the budget runs out before torch.compile's 150 s
	FAKE_BENCH_SLEEP=20 run -1 first_run FIRST_RUN_SKIP="devices check" FIRST_RUN_BUDGET=40 \
		FIRST_RUN_LIMITS="$limits"
	grep -qx 'bench-amp      timed out after 3s, [0-9]*s' <<<"$output"
	grep -qx 'torch-amp      ok, [0-9]*s' <<<"$output"
	grep -qx 'bench-graph    timed out after 3s, [0-9]*s' <<<"$output"
	grep -Eqx 'torch-compile  skipped \([0-9]+s left, 0s kept for later parts, needs 150s\)' <<<"$output"
	grep -Eqx '=== torch-compile: skipped \([0-9]+s left, 0s kept for the parts after it; needs 150s\) .*' <<<"$output"
	# no part ran past the budget
	total=$(sed -n 's/^total \([0-9]*\)s of a 40s budget.*/\1/p' <<<"$output")
	[ "$total" -le 40 ]
	# a limit that is not NAME=MAX:MIN, or names no part
	run -2 --separate-stderr first_run FIRST_RUN_LIMITS="bench-amp=3"
	[ "$stderr" = "gpu-first-run: FIRST_RUN_LIMITS: 'bench-amp=3' is not NAME=MAX:MIN" ]
	run -2 --separate-stderr first_run FIRST_RUN_LIMITS="bench-fp64=3:1"
	[ "$stderr" = "gpu-first-run: FIRST_RUN_LIMITS: no part 'bench-fp64'" ]
}

@test "gpu-first-run when the build fails: PyTorch's parts still run, bench-cuda's say why not" {
	G=$BATS_TEST_TMPDIR/gpu
	fake_gpu "$G" "$ROOT/bin"
	rm "$G/bin/bench-cuda"
	FAKE_BUILD_RC=2 run -1 first_run FIRST_RUN_SKIP="torch-tf32 torch-bf16 torch-fp32 torch-compile"
	grep -qx '=== build: failed (exit 2); again with CUDA_WERROR=0 (warnings not errors) .*' <<<"$output"
	grep -qx "bench-amp      skipped (no $G/bin/bench-cuda: the build failed)" <<<"$output"
	grep -qx 'torch-amp      ok, [0-9]*s' <<<"$output"
	grep -qx 'build          failed (exit 2), [0-9]*s' <<<"$output"
}

@test "gpu-first-run without a GPU says so and writes nothing" {
	G=$BATS_TEST_TMPDIR/gpu
	fake_gpu "$G" "$ROOT/bin"
	compgen -G '/dev/nvidia[0-9]*' >/dev/null && skip "this machine has a GPU"
	CUDA_VISIBLE_DEVICES=-1 run -1 --separate-stderr first_run
	[ "$stderr" = "gpu-first-run: no GPU here (no /dev/nvidiaN, nvidia-smi lists none, or CUDA_VISIBLE_DEVICES hides them)" ]
	[ ! -e "$G/out" ] && [ ! -e "$G/copy/gpu-first-run.txt" ]
}
