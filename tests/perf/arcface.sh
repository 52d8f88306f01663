#!/usr/bin/env bash
# tests/perf/arcface.sh — bench's PLSC workload (IResNet-50, ArcFace head)
# against PyTorch on this CPU, and what splitting the classifier over 2
# ranks saves and costs (`make perf-arcface`).
#
# Each round runs, one after another at BATCH per rank, IMAGE px, CLASSES
# classes, ITERS iterations (WARMUP of them warm-up):
#   bench           bin/bench, 1 rank of THREADS threads
#   pytorch-cl      pipelines/pytorch_synthetic.py --model iresnet50 --head
#   pytorch-nchw    arcface, 1 process of THREADS threads, jemalloc preloaded
#                   with its pages kept (MALLOC_CONF below), channels_last
#                   and NCHW: PyTorch at its best is the faster of the two
#   bench2-split    mpirun -np 2 bin/bench, THREADS / 2 threads a rank, the
#                   classifier split over the 2 ranks, --profile
#   bench2-whole    the same with --classifier whole: every rank all of it,
#                   its gradient summed with the backbone's
# in an order rotated from round to round (runs minutes apart meet other
# speeds of a shared machine). Prints on stdout: samples/s of each (the
# median over the rounds, each run's from grep-iters | window -m
# median-step over the iterations after WARMUP); bench over PyTorch's best,
# the median of the rounds' own ratios, against the target (1.3 x), PASS or
# MISS; and at 2 ranks the split against the whole classifier: peak memory
# per rank, the classifier's memory per rank (the log's end line), the
# messages of a step (bench --describe) and the milliseconds a step spends
# in the head's collectives and waiting for the gradient sums (--profile).
# Progress on stderr; logs kept in LOGS.
#
# Knobs (environment): REPEAT (3), ITERS (12), WARMUP (2), BATCH (16),
# IMAGE (112), CLASSES (85742), THREADS (all cores), BENCH (bin/bench),
# HARNESS_BIN (bin: grep-iters, window), PYTHON (/usr/bin/python3), JEMALLOC,
# MALLOC_CONF (dirty_decay_ms:-1,muzzy_decay_ms:-1), LOGS (build/perf-arcface),
# TARGET (1.3), REPORT_ONLY (non-empty: run nothing, report the logs in LOGS).
set -eu -o pipefail
export LC_ALL=C

prog=perf-arcface
root=$(cd "$(dirname "$0")/../.." && pwd)
REPEAT=${REPEAT:-3} ITERS=${ITERS:-12} WARMUP=${WARMUP:-2} BATCH=${BATCH:-16}
IMAGE=${IMAGE:-112} CLASSES=${CLASSES:-85742} THREADS=${THREADS:-$(nproc)} TARGET=${TARGET:-1.3}
BENCH=${BENCH:-$root/bin/bench} HARNESS_BIN=${HARNESS_BIN:-$root/bin}
PYTHON=${PYTHON:-/usr/bin/python3} LOGS=${LOGS:-$root/build/perf-arcface}
JEMALLOC=${JEMALLOC:-/usr/lib/x86_64-linux-gnu/libjemalloc.so.2}
MALLOC_CONF=${MALLOC_CONF:-dirty_decay_ms:-1,muzzy_decay_ms:-1}
TORCH_SCRIPT=$root/pipelines/pytorch_synthetic.py

die() { echo "$prog: $*" >&2; exit 1; }
for v in REPEAT ITERS WARMUP BATCH IMAGE CLASSES THREADS; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "$prog: $v=${!v}: not a positive integer" >&2; exit 2; }
done
((WARMUP < ITERS)) || { echo "$prog: WARMUP=$WARMUP must be below ITERS=$ITERS" >&2; exit 2; }
((THREADS >= 2)) || { echo "$prog: THREADS=$THREADS: two ranks need 2 or more" >&2; exit 2; }
[ -x "$BENCH" ] || die "$BENCH: not built (make bin/bench)"
for t in grep-iters window; do
	[ -x "$HARNESS_BIN/$t" ] || die "$HARNESS_BIN/$t: not built (make bin/$t)"
done
command -v mpirun >/dev/null || die "mpirun not found (apt-get install openmpi-bin)"
"$PYTHON" -c 'import torch' 2>/dev/null || die "$PYTHON cannot import torch (python3-torch)"
[ -r "$JEMALLOC" ] || die "$JEMALLOC not found (apt-get install libjemalloc2)"
mkdir -p "$LOGS"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if [ -z "${REPORT_ONLY:-}" ]; then
	echo "$(git -C "$root" describe --always --dirty 2>/dev/null || echo '?')" >"$LOGS/bench.id"
	cp "$BENCH" "$LOGS/bench.bin" # a rebuild during the run changes nothing here
	cut -d' ' -f1-3 /proc/loadavg >"$LOGS/load.before"
fi
BENCH=$LOGS/bench.bin
NET=(--model iresnet50 --head arcface --classes "$CLASSES" --batch "$BATCH" --image "$IMAGE"
	--iters "$ITERS")
declare -A KEYRANKS=([bench]=1 [pytorch-cl]=1 [pytorch-nchw]=1 [bench2-split]=2 [bench2-whole]=2)

run() { # WHAT ROUND: one run into LOGS/WHAT_ROUND.log
	local log=$LOGS/$1_$2.log
	echo "$prog: $1 round $2" >&2
	case $1 in
	bench)
		"$BENCH" "${NET[@]}" --warmup "$WARMUP" --threads "$THREADS" --profile ;;
	bench2-split | bench2-whole)
		mpirun -np 2 --bind-to none "$BENCH" "${NET[@]}" --warmup "$WARMUP" \
			--threads $((THREADS / 2)) --profile --classifier "${1#bench2-}" ;;
	pytorch-cl | pytorch-nchw)
		local layout=channels_last
		[ "$1" = pytorch-nchw ] && layout=nchw
		env LD_PRELOAD="$JEMALLOC" MALLOC_CONF="$MALLOC_CONF" "$PYTHON" "$TORCH_SCRIPT" \
			"${NET[@]}" --threads "$THREADS" --layout $layout ;;
	esac >"$log.tmp" 2>"$log.err" || die "$1 failed ($log.err): $(tail -n 1 "$log.err")"
	mv "$log.tmp" "$log"
}

# rate LOG RANKS: samples/s as the harness measures a run.
rate() {
	"$HARNESS_BIN/grep-iters" -k "1n$2g_b${BATCH}_fp32" "$1" |
		"$HARNESS_BIN/window" -s "$WARMUP" -n $((ITERS - WARMUP)) -m median-step -d 1000 |
		awk -F '\t' '!/^#/ { print $4; n++ } END { exit n != 1 }' ||
		die "$1: grep-iters | window gave no one record"
}
endkey() { sed -n "s/^# end .* $2=\([0-9.]*\).*/\1/p" "$1" | tail -n 1 | grep . || echo -; }
profkind() { awk -v k="$2" '$1 == "#" && $2 == "profile" && $3 == "kind" && $4 == k { print $5 }' "$1" | grep . || echo 0; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

WHATS=(bench pytorch-cl pytorch-nchw bench2-split bench2-whole)
declare -A RATE PEAK CLS COMM WAIT
for rep in $(seq 1 "$REPEAT"); do
	n=${#WHATS[@]}
	for ((i = 0; i < n; i++)); do
		what=${WHATS[(i + rep - 1) % n]}
		[ -n "${REPORT_ONLY:-}" ] || run "$what" "$rep"
		log=$LOGS/${what}_$rep.log
		[ -r "$log" ] || die "$log: no such log (REPORT_ONLY needs every run of REPEAT rounds)"
		RATE[$what]+="$(rate "$log" "${KEYRANKS[$what]}")"$'\n'
		RATE[$what,$rep]=$(rate "$log" "${KEYRANKS[$what]}")
		PEAK[$what]+="$(endkey "$log" peak_mem_mb)"$'\n'
		CLS[$what]=$(endkey "$log" classifier_mb)
		COMM[$what]+="$(profkind "$log" head-comm)"$'\n'
		WAIT[$what]+="$(profkind "$log" allreduce-wait)"$'\n'
	done
done
med() { printf '%s' "$1" | median; }
# ratio A B: each round's A over the best of B's two layouts, their median
ratio() {
	for rep in $(seq 1 "$REPEAT"); do
		awk -v a="${RATE[$1,$rep]}" -v b="${RATE[pytorch-cl,$rep]}" -v c="${RATE[pytorch-nchw,$rep]}" \
			'BEGIN { m = b > c ? b : c; printf "%.2f\n", a / m }'
	done | median
}

echo "# perf-arcface: $(env -u OMP_NUM_THREADS nproc) cores, iresnet50 + arcface, $CLASSES classes," \
	"batch $BATCH a rank, $IMAGE px, fp32, $ITERS iterations ($WARMUP warm-up), samples/s from the" \
	"median step, median of $REPEAT round(s)"
echo "# $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'); bench $(cat "$LOGS/bench.id");" \
	"load average before: $(cat "$LOGS/load.before"), after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# PyTorch $("$PYTHON" -c 'import torch; print(torch.__version__)'): $(sed -n 's/^# env node=0 setting\.//p' "$LOGS/pytorch-cl_1.log" | paste -sd' ')"
echo "# bench: $(sed -n 's/^# env node=0 setting\.//p' "$LOGS/bench_1.log" | paste -sd' ') (1 rank); 2 ranks: threads $((THREADS / 2)) each"
echo
echo "| run | ranks | classifier | samples/s | peak MB a rank | classifier MB a rank |"
echo "| --- | --- | --- | --- | --- | --- |"
for what in "${WHATS[@]}"; do
	cls=whole
	[ "$what" = bench2-split ] && cls=split
	[ "$what" = bench ] && cls="whole (1 rank)"
	case $what in pytorch-*) c=- ;; *) c=${CLS[$what]} ;; esac
	echo "| $what | ${KEYRANKS[$what]} | $cls | $(med "${RATE[$what]}") | $(med "${PEAK[$what]}") | $c |"
done
r1=$(ratio bench)
echo
echo "bench / PyTorch at its best, 1 rank: $r1 x (target $TARGET x):" \
	"$(awk -v r="$r1" -v t="$TARGET" 'BEGIN { print (r >= t ? "PASS" : "MISS") }')"
echo "bench 2 ranks (split) / bench 1 rank: $(awk -v a="$(med "${RATE[bench2-split]}")" -v b="$(med "${RATE[bench]}")" 'BEGIN { printf "%.2f", a / b }') x"

# The messages of a step at 2 ranks, from the model's table.
desc() { mpirun -np 2 --bind-to none "$BENCH" --describe "${NET[@]}" --classifier "$1" 2>/dev/null; }
sum_buckets() { awk '$1 == "bucket" { s += $5 } END { printf "%.1f", s * 4 / 1048576 }'; }
split_d=$(desc split) whole_d=$(desc whole)
coll=$(awk '$1 == "collective" { s += $5 } END { printf "%.2f", s / 1048576 }' <<<"$split_d")
echo
echo "| at 2 ranks | split | whole |"
echo "| --- | --- | --- |"
echo "| classifier MB a rank (weights, gradient, momentum) | ${CLS[bench2-split]} | ${CLS[bench2-whole]} |"
echo "| peak MB a rank | $(med "${PEAK[bench2-split]}") | $(med "${PEAK[bench2-whole]}") |"
echo "| gradients allreduced a step, MB | $(sum_buckets <<<"$split_d") | $(sum_buckets <<<"$whole_d") |"
echo "| head's collectives a step, MB a rank's messages | $coll | 0 |"
echo "| ms a step in the head's collectives | $(med "${COMM[bench2-split]}") | $(med "${COMM[bench2-whole]}") |"
echo "| ms a step waiting for the gradient sums | $(med "${WAIT[bench2-split]}") | $(med "${WAIT[bench2-whole]}") |"
echo "| samples/s | $(med "${RATE[bench2-split]}") | $(med "${RATE[bench2-whole]}") |"
