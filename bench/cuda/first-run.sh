#!/usr/bin/env bash
# bench/cuda/first-run.sh BIN OUT: what `make gpu-first-run` runs on a machine
# with a GPU, from a fresh checkout, into one file (OUT) to keep or send.
# doc/gpu.md says what each part should show and what to suspect when not.
#
# Builds what is missing (make, printing what it found where; again with
# CUDA_WERROR=0 if warnings stopped it), then runs these parts in order,
# each time-boxed, the whole within FIRST_RUN_BUDGET seconds (480) of its
# start:
#   devices        GPUs, driver, and the CUDA libraries as loaded
#                  (check-gpu-compare versions: refuses a cuDNN older than
#                  the one bench-cuda was built against), PyTorch's
#   check          tests/drivers/check-gpu.sh: bench-cuda's first step in
#                  fp32 and amp, and IResNet-50 + ArcFace in fp32, against
#                  bench's CPU backend (where one runs: bin/bench, else the
#                  one `make gpu-carry` put in .gpu/) and against PyTorch in
#                  float64
#   bench-P torch-P  for P = amp, tf32, bf16, fp32: bench-cuda, and PyTorch
#                  at its best (pipelines/pytorch_synthetic.py), at batch
#                  FIRST_RUN_BATCH (256), FIRST_RUN_IMAGE px (224), synthetic
#                  data, each through the harness (make FRAMEWORK=bench or
#                  pytorch-synthetic RUNS=1): its log and table, nvidia-smi's
#                  memory column included
#   bench-graph    bench-cuda amp with --graph
#   bench-profile  bench-cuda amp --profile: where a step's time goes
#   torch-compile  PyTorch amp under torch.compile, when time allows
#   allreduce, bench-all   with more than one GPU and mpirun: the allreduce
#                  benchmark over them (busbw; MPIRUN, mpirun), and bench-cuda
#                  amp on all (launch starts mpirun); skipped on one GPU
# then the harness's side-by-side tables (compare_b<B>_<P>.md of every run
# above) and a summary, printed last: images/s from the median step and
# from wall time, spread, first step, peak device memory (nvidia-smi's,
# the program's own, PyTorch's max_memory_reserved), bench-cuda over
# PyTorch, and every part's status, skipped ones with why.
#
# A part gets at most its own limit (PLAN below) and never the time the
# essential parts after it need at least; one that would get less than its
# least is skipped, and said so. Everything is printed and written to
# OUT.tmp as it goes (and to FIRST_RUN_COPY/gpu-first-run.txt, default
# $OUT/ when the environment has OUT, as the device machine's tool gives),
# OUT.tmp renamed to OUT at the end; the logs, exports and tables stay in
# OUT without its .txt (a folder; with FIRST_RUN_COPY, also
# gpu-first-run.tar.gz there). No GPU: one line on stderr, exit 1, nothing
# written. Exit 0 when every part that ran passed, else 1.
#
# Knobs: FIRST_RUN_BUDGET, FIRST_RUN_BATCH, FIRST_RUN_IMAGE, FIRST_RUN_SKIP
# ("part part ..."), FIRST_RUN_LIMITS ("part=max:min ..."), FIRST_RUN_MAKE
# (make), PYTHON (python3: the one with PyTorch), FIRST_RUN_COPY, MPIRUN.
set -uo pipefail
export LC_ALL=C PYTHONUNBUFFERED=1

[ $# -eq 2 ] || { echo "usage: first-run.sh BIN OUT" >&2; exit 2; }
bin=$1 out=$2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
budget=${FIRST_RUN_BUDGET:-480} batch=${FIRST_RUN_BATCH:-256} image=${FIRST_RUN_IMAGE:-224}
skip=" ${FIRST_RUN_SKIP:-} "
read -r -a mk <<<"${FIRST_RUN_MAKE:-make}"
py=${PYTHON:-python3}
copy=${FIRST_RUN_COPY-${OUT:-}}
work=${out%.txt}
T0=$SECONDS

# name, most seconds, least seconds, essential (1: its least is kept free
# by the parts before it)
PLAN=(
	"devices 60 5 1"
	"check 180 40 1"
	"bench-amp 150 40 1" "torch-amp 120 30 1"
	"bench-tf32 150 40 1" "torch-tf32 120 30 1"
	"bench-bf16 150 40 1" "torch-bf16 120 30 1"
	"bench-fp32 180 60 0" "torch-fp32 150 45 0"
	"bench-graph 150 40 1" "bench-profile 120 30 1"
	"torch-compile 300 150 0"
	"allreduce 90 30 0" "bench-all 150 60 0"
)
# FIRST_RUN_LIMITS="NAME=MAX:MIN ...": other limits for those parts (a slower
# GPU, or a test of this scheduler).
for l in ${FIRST_RUN_LIMITS:-}; do
	[[ $l =~ ^([a-z0-9-]+)=([0-9]+):([0-9]+)$ ]] ||
		{ echo "gpu-first-run: FIRST_RUN_LIMITS: '$l' is not NAME=MAX:MIN" >&2; exit 2; }
	found=
	for i in "${!PLAN[@]}"; do
		read -r n mx mn e <<<"${PLAN[$i]}"
		[ "$n" = "${BASH_REMATCH[1]}" ] || continue
		PLAN[$i]="$n ${BASH_REMATCH[2]} ${BASH_REMATCH[3]} $e"
		found=1
	done
	[ -n "$found" ] || { echo "gpu-first-run: FIRST_RUN_LIMITS: no part '${BASH_REMATCH[1]}'" >&2; exit 2; }
done

# iterations per precision (the window times all but the first 10)
declare -A ITERS=([amp]=60 [bf16]=60 [tf32]=40 [fp32]=30)

# A GPU, as bench/cuda/cuda.mk probes for one.
gpu_here() {
	if [ "${CUDA_VISIBLE_DEVICES+set}" ] && { [ -z "$CUDA_VISIBLE_DEVICES" ] ||
		[ "$CUDA_VISIBLE_DEVICES" = -1 ]; }; then
		return 1
	fi
	compgen -G '/dev/nvidia[0-9]*' >/dev/null || nvidia-smi -L 2>/dev/null | grep -q '^GPU '
}
if ! gpu_here; then
	echo "gpu-first-run: no GPU here (no /dev/nvidiaN, nvidia-smi lists none, or CUDA_VISIBLE_DEVICES hides them)" >&2
	exit 1
fi

rm -rf "$work" "$out.tmp"
mkdir -p "$work/parts" "$work/logs" "$work/results" "$(dirname "$out")"
[ -z "$copy" ] || mkdir -p "$copy"
tmp=$out.tmp
exec 3>&1
exec > >(tee "$tmp" ${copy:+"$copy/gpu-first-run.txt"} >&3) 2>&1
teepid=$!

left() { echo $((budget - (SECONDS - T0))); }
say() { printf '\n=== %s [%ds in, %ds left]\n' "$*" $((SECONDS - T0)) "$(left)"; }

declare -A STATUS SECS
ORDER=()
record() { # NAME STATUS [SECS]
	ORDER+=("$1")
	STATUS[$1]=$2
	SECS[$1]=${3:-}
}

plan_of() { # NAME: "max min essential"
	local p
	for p in "${PLAN[@]}"; do
		[ "${p%% *}" = "$1" ] && { echo "${p#* }"; return; }
	done
	echo "0 0 0"
}

# The least seconds of the essential parts after NAME.
reserve_after() {
	local p after=0 sum=0 n mx mn e
	for p in "${PLAN[@]}"; do
		read -r n mx mn e <<<"$p"
		if ((after)) && ((e)); then
			sum=$((sum + mn))
		fi
		[ "$n" = "$1" ] && after=1
	done
	echo "$sum"
}

# part NAME CMD...: CMD (a program or an exported function) time-boxed as
# PLAN says, its output also in work/parts/NAME.txt; PART_T (its seconds)
# in its environment.
part() {
	local name=$1 max min ess t keep rc=0 s
	shift
	read -r max min ess <<<"$(plan_of "$name")"
	if [[ $skip == *" $name "* ]]; then
		say "$name: skipped (FIRST_RUN_SKIP)"
		record "$name" "skipped (FIRST_RUN_SKIP)"
		return 0
	fi
	keep=$(reserve_after "$name")
	t=$(($(left) - keep))
	((t > max)) && t=$max
	if ((t < min)); then
		say "$name: skipped ($(left)s left, ${keep}s kept for the parts after it; needs ${min}s)"
		record "$name" "skipped ($(left)s left, ${keep}s kept for later parts, needs ${min}s)"
		return 0
	fi
	say "$name (at most ${t}s)"
	s=$SECONDS
	PART_T=$t timeout -k 10 "$t" bash -c '"$@"' _ "$@" 2>&1 | tee "$work/parts/$name.txt"
	rc=${PIPESTATUS[0]}
	# (launch, stopped at its own -t a little before, says so)
	if [ "$rc" -ne 0 ] && grep -q '^launch: .*: timed out after ' "$work/parts/$name.txt"; then
		rc=124
	fi
	case $rc in
	0) record "$name" ok $((SECONDS - s)) ;;
	124 | 137) record "$name" "timed out after ${t}s" $((SECONDS - s)) ;;
	*) record "$name" "failed (exit $rc)" $((SECONDS - s)) ;;
	esac
	echo "--- $name: ${STATUS[$name]}, $((SECONDS - s))s"
	return "$rc"
}

# not_run NAME WHY: a part that cannot run here.
not_run() {
	say "$1: skipped ($2)"
	record "$1" "skipped ($2)"
}

# ---- the steps (exported: part runs them under timeout) -------------------

# launch's -t: a little under the part's own limit, so that launch stops the
# job (and says so) before timeout stops launch.
launch_t() { echo $((PART_T > 10 ? PART_T - 5 : PART_T > 1 ? PART_T - 1 : 1)); }

# harness FW PREC N: one run of N iterations of the pipeline FW at PREC
# through make, its log in work/logs/FW/KEY/1.log, its table
# work/results/FW/KEY.md.
harness() {
	local fw=$1 p=$2 n=$3 key=1n1g_b${FIRST_RUN_B}_$2 mk
	read -r -a mk <<<"$MK_LINE"
	"${mk[@]}" --no-print-directory -s CUDA_QUIET=1 -C "$ROOT" BIN="$BIN" FRAMEWORK="$fw" RUNS=1 \
		LOGDIR="$WORK/logs" RESULTS="$WORK/results/$fw" TIMEOUT="$(launch_t)" \
		WINDOW="-s 10 -n $((n - 10))" BENCH_ITERS="$n" PYTORCH_SYNTHETIC_ITERS="$n" \
		BENCH_ARGS="--image $FIRST_RUN_PX --warmup 10" \
		PYTORCH_SYNTHETIC_FLAGS="--image $FIRST_RUN_PX" PYTORCH_PYTHON="$PY" CUDA_DEVICE=1 \
		"$WORK/results/$fw/$key.md"
}

# variant NAME KEY CMD...: CMD under launch (which starts mpirun for more
# than one GPU) as a run of NAME, its log in work/logs/NAME/KEY/1.log
# (1.log.failed when it fails).
variant() {
	local name=$1 key=$2 rc=0
	shift 2
	local d=$WORK/logs/$name/$key
	mkdir -p "$d"
	"$BIN/launch" -t "$(launch_t)" "$key" -- "$@" >"$d/1.log.tmp" || rc=$?
	if [ "$rc" -eq 0 ]; then
		mv "$d/1.log.tmp" "$d/1.log"
		grep -v '^iter=' "$d/1.log" | grep -v '^# env node=0 [^s]' || true
	else
		mv "$d/1.log.tmp" "$d/1.log.failed"
	fi
	return "$rc"
}

devices() {
	local rc=0
	"$BIN/check-gpu-compare" devices || return 1
	nvidia-smi --query-gpu=index,name,driver_version,compute_cap,memory.total,memory.used,clocks.max.sm,clocks.sm,clocks.mem,power.limit,temperature.gpu,pstate --format=csv || true
	"$BIN/check-gpu-compare" versions || rc=3
	"$PY" - <<'EOF' || true
import importlib.metadata as md
try:
    import torch, torchvision
    print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(),
          "nccl", ".".join(map(str, torch.cuda.nccl.version())) if torch.cuda.is_available() else "-",
          "torchvision", torchvision.__version__)
    if torch.cuda.is_available():
        p = torch.cuda.get_device_properties(0)
        print("torch device", torch.cuda.get_device_name(0), "capability", torch.cuda.get_device_capability(0),
              "SMs", p.multi_processor_count)
except Exception as e:
    print("torch: not usable:", type(e).__name__, e)
for d in sorted(md.distributions(), key=lambda d: (d.metadata["Name"] or "").lower()):
    n = (d.metadata["Name"] or "").lower()
    if n.startswith(("nvidia-cudnn", "nvidia-nccl", "nvidia-cublas", "nvidia-cuda-runtime", "triton")):
        print("wheel", n, d.version)
EOF
	grep PRETTY_NAME /etc/os-release 2>/dev/null || true
	echo "$(uname -r), $(nproc) cores, $(ldd --version 2>&1 | head -1)"
	return "$rc"
}

check() {
	"$ROOT/tests/drivers/check-gpu.sh" "$BIN" "$WORK/check"
}

export -f launch_t harness variant devices check
export ROOT=$root BIN=$bin WORK=$work PY=$py FIRST_RUN_B=$batch FIRST_RUN_PX=$image
# (an array does not cross into bash -c: harness splits MK_LINE)
export MK_LINE="${mk[*]}"

# ---- build ------------------------------------------------------------------

# The commit: git's, else the one `make gpu-carry` wrote (a copy of a
# checkout that travelled without .git).
commit=$(git -C "$root" describe --always --dirty 2>/dev/null || cat "$root/.gpu/commit" 2>/dev/null ||
	echo unknown)
say "gpu-first-run $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), commit $commit; budget ${budget}s"
nvidia-smi -L 2>&1 || true

ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
mpirun=${MPIRUN:-mpirun}
targets=(check-gpu-compare bench-cuda launch outcome grep-iters window median speedup table)
((ngpu > 1)) && targets+=(bench-cuda-allreduce)
for h in /usr/include/dnnl.h /usr/include/oneapi/dnnl/dnnl.h /usr/local/include/dnnl.h; do
	[ -f "$h" ] && { targets+=(bench); break; }
done
say "build: ${targets[*]}"
s=$SECONDS
brc=0
"${mk[@]}" --no-print-directory -C "$root" -k -j"$(nproc)" BIN="$bin" "${targets[@]/#/$bin/}" || brc=$?
if [ "$brc" -ne 0 ]; then
	say "build: failed (exit $brc); again with CUDA_WERROR=0 (warnings not errors)"
	brc=0
	"${mk[@]}" --no-print-directory -C "$root" -k -j"$(nproc)" BIN="$bin" CUDA_WERROR=0 \
		CUDA_QUIET=1 "${targets[@]/#/$bin/}" || brc=$?
fi
record build "$([ "$brc" -eq 0 ] && echo ok || echo "failed (exit $brc)")" $((SECONDS - s))

bench_why=
for p in bench-cuda check-gpu-compare launch; do
	[ -x "$bin/$p" ] || { bench_why="no $bin/$p: the build failed"; break; }
done

# A CPU bench for check: bin/bench, else the one `make gpu-carry` packed.
if ! [ -x "$bin/bench" ] && [ -f "$root/.gpu/cpu-bench.tar.xz" ]; then
	mkdir -p "$work/cpu"
	if "$py" -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
		"$root/.gpu/cpu-bench.tar.xz" "$work/cpu"; then
		printf '#!/bin/sh\nLD_LIBRARY_PATH=%s/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} exec %s/bench "$@"\n' \
			"$work/cpu" "$work/cpu" >"$work/cpu/bench-cpu"
		chmod +x "$work/cpu/bench-cpu"
		export CHECK_GPU_CPU_BENCH=$work/cpu/bench-cpu
		echo "CPU bench: .gpu/cpu-bench.tar.xz ($(head -1 "$work/cpu/MANIFEST" 2>/dev/null))"
	fi
fi

# ---- the parts --------------------------------------------------------------

if [ -n "$bench_why" ]; then
	not_run devices "$bench_why"
else
	part devices devices
	case ${STATUS[devices]} in
	"failed (exit 1)") bench_why="check-gpu-compare finds no CUDA device" ;;
	"failed (exit 3)") bench_why="the loaded cuDNN is older than the one bench-cuda was built against" ;;
	esac
fi
if [ -n "$bench_why" ]; then not_run check "$bench_why"; else part check check; fi

for p in amp tf32 bf16 fp32; do
	if [ -n "$bench_why" ]; then
		not_run "bench-$p" "$bench_why"
	else
		part "bench-$p" harness bench "$p" "${ITERS[$p]}"
	fi
	part "torch-$p" harness pytorch-synthetic "$p" "${ITERS[$p]}"
done
if [ -n "$bench_why" ]; then
	not_run bench-graph "$bench_why"
	not_run bench-profile "$bench_why"
else
	part bench-graph variant bench-graph "1n1g_b${batch}_amp" "$bin/bench-cuda" --batch "$batch" \
		--image "$image" --precision amp --iters "${ITERS[amp]}" --warmup 10 --graph
	part bench-profile "$bin/bench-cuda" --batch "$batch" --image "$image" \
		--precision amp --iters 12 --warmup 2 --profile
fi
part torch-compile variant pytorch-compile "1n1g_b${batch}_amp" "$py" "$root/pipelines/pytorch_synthetic.py" \
	--device cuda --batch "$batch" --image "$image" --precision amp --iters "${ITERS[amp]}" \
	--compile default
if ((ngpu < 2)) || ! command -v "$mpirun" >/dev/null; then
	why="$( ((ngpu < 2)) && echo "one GPU" || echo "no $mpirun")"
	not_run allreduce "$why"
	not_run bench-all "$why"
elif [ -n "$bench_why" ]; then
	not_run allreduce "$bench_why"
	not_run bench-all "$bench_why"
else
	part allreduce "$mpirun" -np "$ngpu" --bind-to none "$bin/bench-cuda-allreduce" \
		--min-bytes 1048576 --max-bytes 268435456
	part bench-all variant bench "1n${ngpu}g_b${batch}_amp" "$bin/bench-cuda" \
		--batch "$batch" --image "$image" --precision amp --iters "${ITERS[amp]}" --warmup 10
fi

# ---- the harness's tables and the summary -----------------------------------

say "tables: every run above, side by side (make results/compare_b${batch}_P.md)"
for p in amp tf32 bf16 fp32; do
	compgen -G "$work/logs/*/1n1g_b${batch}_$p/1.log" >/dev/null || continue
	"${mk[@]}" --no-print-directory -s CUDA_QUIET=1 -C "$root" BIN="$bin" LOGDIR="$work/logs" \
		RESULTS="$work/results/all" WINDOW="-s 10 -n $((ITERS[$p] - 10))" \
		"$work/results/all/compare_b${batch}_$p.md" || echo "(the compare table of $p failed)"
done

# row LOG: "img/s median, img/s wall, spread %, first step s, device MB,
# own MB, torch reserved MB" of one run's log ("-" where absent).
row() {
	local log=$1 n s med wall spread first smi own res
	n=$(grep -c '^iter=' "$log")
	s=10
	((n - s < 5)) && s=$((n / 3))
	med=$("$bin/grep-iters" "$log" 2>/dev/null | "$bin/window" -s "$s" -n $((n - s)) -m median-step 2>/dev/null | awk -F'\t' 'NF >= 4 && !/^#/ { print $4 }')
	read -r wall spread < <("$bin/grep-iters" "$log" 2>/dev/null | "$bin/window" -s "$s" -n $((n - s)) 2>/dev/null | awk -F'\t' 'NF >= 5 && !/^#/ { print $4, $5 }')
	first=$(sed -n 's/^iter=1 .*step_s=\([0-9.]*\).*/\1/p' "$log")
	smi=$(sed -n 's/^# mem node=0 gpu=0 gpu_peak_mib=\([0-9]*\).*/\1/p' "$log" | head -1)
	own=$(sed -n 's/^# end .*peak_mem_mb=\([0-9]*\).*/\1/p' "$log")
	res=$(sed -n 's/^# end .*max_reserved_mb=\([0-9]*\).*/\1/p' "$log")
	echo "${med:--} ${wall:--} ${spread:--} ${first:--} ${smi:--} ${own:--} ${res:--}"
}

summary() {
	local p fw log r ratio_m ratio_w b t
	echo
	echo "=== gpu-first-run summary: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1), $(date -u +%Y-%m-%d), commit $commit; batch $batch, $image px, synthetic data"
	grep -h -E '^(CUDA driver|CUDA runtime|cuDNN|cuBLAS|NCCL): ' "$work/parts/devices.txt" 2>/dev/null
	grep -h '^torch ' "$work/parts/devices.txt" 2>/dev/null
	grep -h '^check-gpu .* against ' "$work/parts/check.txt" 2>/dev/null
	echo
	echo "img/s from the median step and from the timestamps of the timed steps (all but the"
	echo "first 10); spread: of the steps' rates; 1st s: the first step; smi MB: the device's"
	echo "memory in use at its highest (nvidia-smi, by launch); own MB: the program's own"
	echo "peak_mem_mb (both count the device as nvidia-smi does); resv MB: PyTorch's"
	echo "max_memory_reserved"
	printf '%-18s %-5s %-5s %9s %9s %7s %7s %8s %8s %8s\n' run gpus prec "img/s med" "img/s wall" \
		"spread%" "1st s" "smi MB" "own MB" "resv MB"
	for p in amp tf32 bf16 fp32; do
		for log in "$work"/logs/{bench,pytorch-synthetic,bench-graph,pytorch-compile}/*_b"${batch}_$p"/1.log; do
			[ -f "$log" ] || continue
			fw=${log#"$work"/logs/}
			read -r -a r < <(row "$log")
			printf '%-18s %-5s %-5s %9s %9s %7s %7s %8s %8s %8s\n' "${fw%%/*}" \
				"$(basename "$(dirname "$log")" | sed 's/_.*//')" "$p" "${r[@]}"
		done
	done
	# the runs that left no log: what became of them (make's outcome files)
	for log in "$work"/logs/*/*_b"$batch"_*/1.outcome; do
		[ -f "$log" ] && sed 's/^# outcome //' "$log"
	done
	echo
	for p in amp tf32 bf16 fp32; do
		b=$work/logs/bench/1n1g_b${batch}_$p/1.log t=$work/logs/pytorch-synthetic/1n1g_b${batch}_$p/1.log
		[ -f "$b" ] && [ -f "$t" ] || continue
		b=$(row "$b") t=$(row "$t")
		read -r ratio_m ratio_w < <(awk -v b="$b" -v t="$t" 'BEGIN { split(b, x, " "); split(t, y, " ");
			printf "%s %s\n", (x[1] > 0 && y[1] > 0) ? sprintf("%.2f", x[1] / y[1]) : "-",
				(x[2] > 0 && y[2] > 0) ? sprintf("%.2f", x[2] / y[2]) : "-" }')
		echo "bench-cuda / PyTorch, $p: ${ratio_m}x (median step), ${ratio_w}x (wall)"
	done
	grep -h -E '^bench: (--graph|cudnn|batch norm)' "$work/parts/bench-graph.txt" "$work/parts/bench-amp.txt" 2>/dev/null | sort -u
	grep -h -E '^# profile (kind|total)' "$work/parts/bench-profile.txt" 2>/dev/null
	echo
	for p in "${ORDER[@]}"; do
		printf '%-14s %s%s\n' "$p" "${STATUS[$p]}" "${SECS[$p]:+, ${SECS[$p]}s}"
	done
	echo "total ${SECONDS}s of a ${budget}s budget; everything above is in $out"
}
summary

failed=0
for p in "${ORDER[@]}"; do
	case ${STATUS[$p]} in ok | skipped*) ;; *) failed=1 ;; esac
done

exec >&3 2>&1
wait "$teepid" 2>/dev/null
mv "$tmp" "$out"
if [ -n "$copy" ]; then
	# the logs, tables and parts; not check's exports (hundreds of MB)
	tar -C "$(dirname "$work")" --exclude='*.f32' --exclude='*.i32' --exclude=cpu \
		-czf "$copy/gpu-first-run.tar.gz" "$(basename "$work")" 2>/dev/null ||
		echo "gpu-first-run: could not pack $work into $copy" >&2
fi
exit "$failed"
