#!/usr/bin/env bash
# tests/perf/data.sh — bench's input pipeline against PyTorch's (`make perf-data`).
#
# On one ImageFolder tree (DATA, default data/imagenet-synthetic/train), on
# the same cores, REPEAT times interleaved:
#   - the loaders alone: bench --data-only with T threads against
#     torchvision's ImageFolder + DataLoader of T workers (RandomResizedCrop,
#     RandomHorizontalFlip, ToTensor, Normalize), images/s and per core, and
#     CPU time an image (what one core can do, however busy the machine);
#   - training end to end at each of SIZES px: bench and torchvision's
#     resnet50 (tests/perf/torch_data.py; NCHW and channels_last, the faster
#     kept), each on the tree and on synthetic data.
# PyTorch at its best: /usr/bin/python3, jemalloc preloaded,
# MALLOC_CONF=dirty_decay_ms:-1,muzzy_decay_ms:-1, T compute threads,
# workers with one thread each, persistent. Prints a markdown table of
# medians (images/s over the iterations after WARMUP); logs in LOGS.
#
# Knobs (environment): DATA, T (cores), BATCH (16), LOADER_ITERS (40),
# TRAIN_ITERS (8), WARMUP (3 for training, 5 for loaders), SIZES ("112 224"),
# REPEAT (3), LAYOUTS ("nchw cl"), BENCH (bin/bench), PYTHON, JEMALLOC, LOGS,
# REPORT_ONLY (non-empty: run nothing, print the table from the logs in LOGS).
set -eu -o pipefail
export LC_ALL=C

prog=perf-data
root=$(cd "$(dirname "$0")/../.." && pwd)
DATA=${DATA:-$root/data/imagenet-synthetic/train} T=${T:-$(nproc)} BATCH=${BATCH:-16}
LOADER_ITERS=${LOADER_ITERS:-40} TRAIN_ITERS=${TRAIN_ITERS:-8} WARMUP=${WARMUP:-3}
SIZES=${SIZES:-112 224} REPEAT=${REPEAT:-3} LAYOUTS=${LAYOUTS:-nchw cl}
BENCH=${BENCH:-$root/bin/bench} PYTHON=${PYTHON:-/usr/bin/python3}
JEMALLOC=${JEMALLOC:-/usr/lib/x86_64-linux-gnu/libjemalloc.so.2}
LOGS=${LOGS:-$root/build/perf-data}
TORCH=$root/tests/perf/torch_data.py

die() { echo "$prog: $*" >&2; exit 1; }
for v in T BATCH LOADER_ITERS TRAIN_ITERS REPEAT; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "$prog: $v=${!v}: not a positive integer" >&2; exit 2; }
done
((WARMUP < TRAIN_ITERS)) || { echo "$prog: WARMUP=$WARMUP must be below TRAIN_ITERS" >&2; exit 2; }
[ -d "$DATA" ] || die "$DATA: no such tree (make data/imagenet-synthetic N=... CLASSES=...)"
[ -x "$BENCH" ] || die "$BENCH: not built (make bin/bench)"
"$PYTHON" -c 'import torch, torchvision' 2>/dev/null || die "$PYTHON cannot import torchvision"
[ -r "$JEMALLOC" ] || die "$JEMALLOC: not found (libjemalloc2)"
mkdir -p "$LOGS"

torch_run() {
	LD_PRELOAD=$JEMALLOC MALLOC_CONF=dirty_decay_ms:-1,muzzy_decay_ms:-1 \
		OMP_NUM_THREADS=$T "$PYTHON" "$TORCH" "$@"
}

# rate LOG: images/s of a training log over the iterations after WARMUP
rate() {
	awk -v w="$WARMUP" -v b="$BATCH" '/^iter=/ {
		split($1, i, "="); if (i[2] <= w) next
		for (k = 2; k <= NF; k++) if ($k ~ /^step_s=/) { split($k, s, "="); t += s[2]; n++ } }
		END { if (n == 0) exit 1; printf "%.2f\n", b * n / t }' "$1"
}
# summary LOG: images/s of a loader's summary line; cpu LOG: its CPU ms an image
summary() { sed -n 's/^# summary .*images_per_s=\([0-9.]*\).*/\1/p' "$1"; }
cpu() { sed -n 's/^# summary .*cpu_ms_per_image=\([0-9.]*\).*/\1/p' "$1"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

for r in $(seq 1 "$REPEAT"); do
	[ -z "${REPORT_ONLY:-}" ] || break
	echo "$prog: run $r of $REPEAT: loaders" >&2
	"$BENCH" --data "$DATA" --data-only --loader-threads "$T" --batch "$BATCH" --image 224 \
		--iters "$LOADER_ITERS" --warmup 5 --seed "$r" >"$LOGS/loader-bench-$r.log"
	torch_run loader "$DATA" --workers "$T" --batch "$BATCH" --image 224 \
		--iters "$LOADER_ITERS" --warmup 5 >"$LOGS/loader-torch-$r.log"
	for px in $SIZES; do
		echo "$prog: run $r of $REPEAT: training at $px px" >&2
		common=(--batch "$BATCH" --image "$px" --iters "$TRAIN_ITERS")
		"$BENCH" "${common[@]}" --threads "$T" >"$LOGS/train-bench-syn-$px-$r.log" 2>/dev/null
		"$BENCH" "${common[@]}" --threads "$T" --loader-threads "$T" --data "$DATA" \
			>"$LOGS/train-bench-real-$px-$r.log" 2>/dev/null
		for lay in $LAYOUTS; do
			cl=()
			[ "$lay" = cl ] && cl=(--channels-last)
			torch_run train "${common[@]}" --threads "$T" "${cl[@]}" \
				>"$LOGS/train-torch-$lay-syn-$px-$r.log"
			torch_run train "$DATA" "${common[@]}" --threads "$T" --workers "$T" "${cl[@]}" \
				>"$LOGS/train-torch-$lay-real-$px-$r.log"
		done
	done
done

# best LAYOUT of PyTorch: the faster median
med() { for f in "$@"; do rate "$f"; done | median; }
torch_best() {
	local best=0 lay v
	for lay in $LAYOUTS; do
		v=$(med "$LOGS"/train-torch-$lay-"$1"-"$2"-*.log)
		awk -v a="$v" -v b="$best" 'BEGIN { exit !(a > b) }' && best=$v && bl=$lay
	done
	echo "$best $bl"
}

lb=$(for f in "$LOGS"/loader-bench-*.log; do summary "$f"; done | median)
lt=$(for f in "$LOGS"/loader-torch-*.log; do summary "$f"; done | median)
cb=$(for f in "$LOGS"/loader-bench-*.log; do cpu "$f"; done | median)
ct=$(for f in "$LOGS"/loader-torch-*.log; do cpu "$f"; done | median)
echo "## bench's loader against PyTorch's: $(nproc) cores, T=$T, batch $BATCH, 224 px, medians of $REPEAT"
echo
echo "| | bench | PyTorch | bench / PyTorch |"
echo "| --- | ---: | ---: | ---: |"
awk -v b="$lb" -v t="$lt" -v n="$T" -v cb="$cb" -v ct="$ct" 'BEGIN {
	printf "| loader alone, images/s | %.1f | %.1f | %.2f |\n", b, t, b / t
	printf "| per core (÷ %d) | %.1f | %.1f | |\n", n, b / n, t / n
	if (cb > 0 && ct > 0)
	printf "| loader alone, CPU ms an image (all threads and workers) | %.2f | %.2f | %.2f (images/s a core: %.0f vs %.0f) |\n", cb, ct, ct / cb, 1000 / cb, 1000 / ct }'
for px in $SIZES; do
	bs=$(med "$LOGS"/train-bench-syn-$px-*.log)
	br=$(med "$LOGS"/train-bench-real-$px-*.log)
	read -r ts tsl <<<"$(torch_best syn "$px")"
	read -r tr trl <<<"$(torch_best real "$px")"
	awk -v px="$px" -v bs="$bs" -v br="$br" -v ts="$ts" -v tr="$tr" -v a="$tsl" -v c="$trl" 'BEGIN {
		printf "| training %d px, synthetic, images/s | %.2f | %.2f (%s) | %.2f |\n", px, bs, ts, a, bs / ts
		printf "| training %d px, the tree, images/s | %.2f | %.2f (%s) | %.2f |\n", px, br, tr, c, br / tr }'
done
echo
echo "Settings: bench --loader-threads $T --threads $T --prefetch 2; PyTorch $("$PYTHON" -c 'import torch; print(torch.__version__)'), DataLoader num_workers=$T (1 thread each, persistent, shuffle), torch.set_num_threads($T), jemalloc + MALLOC_CONF=dirty_decay_ms:-1,muzzy_decay_ms:-1; training: $TRAIN_ITERS iterations, the first $WARMUP not timed; tree: $DATA ($(find "$DATA" -type f | wc -l) files)."
