#!/usr/bin/env bash
# make perf-filters: the harness's speed figures.
#  1. grep-iters | window over a generated bench-format log of SIZE_MB
#     (default 1024) MB: MB/s of the pipe, each filter alone, median of REPEAT.
#  2. make -n with 1,002 configurations' logs present (167 ladders of 4n8g,
#     5 runs each): seconds, median of REPEAT.
set -euo pipefail
cd "$(dirname "$0")/../.."
size_mb=${SIZE_MB:-1024}
repeat=${REPEAT:-3}
work=${WORK:-$(mktemp -d)}
trap 'rm -rf "$work"' EXIT
bin=${BIN:-$PWD/bin}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }

# One run's log of n iterations, repeated under many keys' paths would need
# many files; a single huge run is the worst case for window (one run).
log=$work/logs/bench/1n1g_b16_fp32/1.log
mkdir -p "$(dirname "$log")"
echo "generating ${size_mb} MB bench log…" >&2
awk -v mb="$size_mb" 'BEGIN {
	print "# bench model=resnet50 backend=cpu-onednn nodes=1 gpus_per_node=1 batch_per_device=16 precision=fp32 image=224 data=synthetic"
	t = 1763781234000000; target = mb * 1048576; bytes = 0
	for (i = 1; bytes < target; i++) {
		t += 441000 + (i % 7) * 1000
		line = sprintf("iter=%d loss=%.4f step_s=%.4f samples_per_s=%.2f ts=%d.%06d", i,
			6.9 - (i % 1000) / 1000.0, (441000 + (i % 7) * 1000) / 1e6,
			16e6 / (441000 + (i % 7) * 1000), int(t / 1e6), t % 1000000)
		print line; bytes += length(line) + 1
	}
}' > "$log"
bytes=$(stat -c %s "$log")
cat "$log" > /dev/null	# warm the page cache

t_pipe=() t_grep=()
for _ in $(seq "$repeat"); do
	s=$(now); "$bin/grep-iters" "$log" | "$bin/window" > /dev/null; e=$(now)
	t_pipe+=("$(calc "$e - $s")")
	s=$(now); "$bin/grep-iters" "$log" > /dev/null; e=$(now)
	t_grep+=("$(calc "$e - $s")")
done
mp=$(printf '%s\n' "${t_pipe[@]}" | median)
mg=$(printf '%s\n' "${t_grep[@]}" | median)
printf 'grep-iters | window: %d MB in %.2f s = %.0f MB/s (median of %d; target >= 300 MB/s)\n' \
	$((bytes / 1048576)) "$mp" "$(calc "$bytes / 1048576 / $mp")" "$repeat"
printf 'grep-iters alone:    %d MB in %.2f s = %.0f MB/s\n' \
	$((bytes / 1048576)) "$mg" "$(calc "$bytes / 1048576 / $mg")"
rm -f "$log"

# 1,002 configurations: batches 1..167, each with the 4n8g ladder (6 keys).
echo "generating 1,002 configurations x 5 runs of logs…" >&2
goals=()
for b in $(seq 1 167); do
	for c in 1n1g 1n2g 1n4g 1n8g 2n8g 4n8g; do
		d=$work/logs/bench/${c}_b${b}_fp32
		mkdir -p "$d"
		for r in 1 2 3 4 5; do : > "$d/$r.log"; done
	done
	goals+=("$work/results/4n8g_b${b}_fp32.md")
done
# Logs older than the tools, so nothing is out of date but the results.
find "$work/logs" -name '*.log' -exec touch -d '2000-01-01' {} +
t_make=()
for _ in $(seq "$repeat"); do
	s=$(now)
	make -n --no-print-directory LOGDIR="$work/logs" RESULTS="$work/results" "${goals[@]}" > "$work/plan"
	e=$(now)
	t_make+=("$(calc "$e - $s")")
done
runs=$(grep -c 'launch -t' "$work/plan" || true)
printf 'make -n, 1002 configurations (5010 logs, 167 results): %.2f s (median of %d; target < 1 s); runs planned: %d\n' \
	"$(printf '%s\n' "${t_make[@]}" | median)" "$repeat" "$runs"
