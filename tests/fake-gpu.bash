# tests/fake-gpu.bash: a machine with a GPU, as far as bench/cuda/first-run.sh
# can tell, on a machine without one (tests/gpu-ready.bats).
#
# fake_gpu DIR BIN makes DIR/path (put it first on PATH) and DIR/bin:
#   nvidia-smi         lists one "NVIDIA H100 80GB HBM3" and answers the
#                      queries launch, make and first-run.sh make
#   python3            this machine's /usr/bin/python3, but
#                      pipelines/pytorch_synthetic.py prints a GPU run's log
#                      (FAKE_TORCH_STEP seconds a step, 0.08) without torch
#   DIR/bin            BIN's filters; check-gpu-compare (BIN's, with devices
#                      answering the fake GPU); bench-cuda: with --export it
#                      is BIN/bench (CPU; amp: fp32 with the gradients times
#                      --loss-scale, as a GPU's amp export holds them), else
#                      a GPU run's log (FAKE_BENCH_STEP seconds a step,
#                      0.06; FAKE_BENCH_SLEEP seconds first; --graph and
#                      --profile say what the real ones say)
#   make               DIR/bin/make, for FIRST_RUN_MAKE: the build (make -k)
#                      builds nothing (exit FAKE_BUILD_RC, 0); anything else is
#                      make on the CPU (CUDA=0) with bench-cuda the fake one
# Every program appends its command line to DIR/calls.

fake_gpu() {
	local d=$1 bin=$2 f
	mkdir -p "$d/path" "$d/bin"
	: >"$d/calls"
	for f in launch outcome grep-iters window median speedup table; do
		ln -sf "$bin/$f" "$d/bin/$f"
	done

	cat >"$d/path/nvidia-smi" <<EOF
#!/bin/bash
echo "nvidia-smi \$*" >>"$d/calls"
case "\$*" in
-L) echo "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-00000000-0000-0000-0000-000000000000)" ;;
*compute_cap*noheader*) echo "9.0" ;;
*index,memory.used*) echo "0, 20480" ;;
*name,driver_version*noheader*) echo "NVIDIA H100 80GB HBM3, 580.159.04" ;;
*noheader*) echo "NVIDIA H100 80GB HBM3, 00000000:00:05.0, 580.159.04, 81559, 1980, 2619, 1980, 2619, 700.00, None" ;;
*--query-gpu*) echo "index, name"; echo "0, NVIDIA H100 80GB HBM3" ;;
"topo -m") printf '\tGPU0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\nGPU0\t X \t0-15\t0\t\tN/A\n' ;;
*) exit 1 ;;
esac
EOF

	cat >"$d/path/python3" <<EOF
#!/bin/bash
echo "python3 \$*" >>"$d/calls"
case "\${1:-}" in
*/pipelines/pytorch_synthetic.py) exec "$d/bin/fake-run" pytorch "\$@" ;;
esac
exec /usr/bin/python3 "\$@"
EOF

	cat >"$d/bin/check-gpu-compare" <<EOF
#!/bin/bash
echo "check-gpu-compare \$*" >>"$d/calls"
if [ "\$*" = devices ]; then
	echo "device 0: NVIDIA H100 80GB HBM3, compute capability 9.0, 81559 MB"
	exit 0
fi
exec "$bin/check-gpu-compare" "\$@"
EOF

	cat >"$d/bin/bench-cuda" <<EOF
#!/bin/bash
echo "bench-cuda \$*" >>"$d/calls"
case " \$* " in
*" --export "*)
	args=() scale= prec= dir=
	while [ \$# -gt 0 ]; do
		case \$1 in
		--loss-scale) scale=\$2; shift 2 ;;
		--precision) prec=\$2; args+=(--precision fp32); shift 2 ;;
		--export) dir=\$2; args+=(--export "\$2"); shift 2 ;;
		*) args+=("\$1"); shift ;;
		esac
	done
	"$bin/bench" "\${args[@]}" || exit
	[ -z "\$scale" ] || /usr/bin/python3 -c 'import numpy as n, sys
(n.fromfile(sys.argv[1], "<f4") * float(sys.argv[2])).astype("<f4").tofile(sys.argv[1])' "\$dir/grads.f32" "\$scale"
	exit ;;
esac
exec "$d/bin/fake-run" bench "\$@"
EOF

	cat >"$d/bin/make" <<EOF
#!/bin/bash
echo "make \$*" >>"$d/calls"
case " \$* " in
*" -k "*) echo "make: the build (fake)"; exit \${FAKE_BUILD_RC:-0} ;;
esac
exec make CUDA=0 BENCH_BIN="$d/bin/bench-cuda" bench_DEPS= pytorch-synthetic_DEPS= "\$@"
EOF

	# fake-run bench|pytorch ARGS: a GPU run's log in bench's format
	cat >"$d/bin/fake-run" <<'EOF'
#!/bin/bash
who=$1
shift
[ "$who" = pytorch ] && shift # the script's path
iters=120 batch=16 prec=fp32 image=224 graph= profile= compile=
while [ $# -gt 0 ]; do
	case $1 in
	--iters) iters=$2; shift 2 ;;
	--batch) batch=$2; shift 2 ;;
	--precision) prec=$2; shift 2 ;;
	--image) image=$2; shift 2 ;;
	--graph) graph=1; shift ;;
	--profile) profile=1; shift ;;
	--compile) compile=$2; shift 2 ;;
	*) shift ;;
	esac
done
if [ "$who" = bench ]; then
	step=${FAKE_BENCH_STEP:-0.06} own=18000
	sleep "${FAKE_BENCH_SLEEP:-0}"
	echo "# bench model=resnet50 backend=cuda-cudnn nodes=1 gpus_per_node=1 batch_per_device=$batch precision=$prec image=$image data=synthetic"
	echo "bench: cudnn: 23 convolution shapes searched, workspace limit 2048.0 MB, using 512.0 MB" >&2
	[ -z "$graph" ] || echo "bench: --graph: step captured" >&2
else
	step=${FAKE_TORCH_STEP:-0.08} own=24000
	echo "# bench model=resnet50 backend=pytorch-cuda nodes=1 gpus_per_node=1 batch_per_device=$batch precision=$prec image=$image data=synthetic"
	echo "# env node=0 setting.compile=${compile:-none}"
fi
awk -v n="$iters" -v s="$step" -v b="$batch" 'BEGIN {
	t = 1800000000
	for (i = 1; i <= n; i++) {
		d = (i == 1) ? 5 * s : s * (1 + 0.01 * (i % 3))
		t += d
		printf "iter=%d loss=6.9000 step_s=%.4f samples_per_s=%.2f ts=%.6f\n", i, d, b / d, t
	}
}'
if [ -n "$profile" ]; then
	echo "# profile kind                     conv-fwd             20.000  33.3%   300.0 TFLOP/s         -        -"
	echo "# profile total                    step                 60.000 100.0%               -         -        -"
fi
if [ "$who" = bench ]; then
	echo "# end iters=$iters peak_mem_mb=$own"
else
	echo "# end iters=$iters peak_mem_mb=$own max_reserved_mb=21000 max_allocated_mb=19000"
fi
EOF
	chmod +x "$d/path/"* "$d/bin/"*
}
