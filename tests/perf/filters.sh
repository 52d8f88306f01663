#!/usr/bin/env bash
# make perf-filters: the harness's speed figures.
#  1. grep-iters | window over a generated bench-format log of SIZE_MB
#     (default 1024) MB: MB/s of the pipe, each filter alone, median of REPEAT.
#  2. make -n with 1,002 configurations' logs present (167 ladders of 4n8g,
#     5 runs each): seconds, median of REPEAT.
#  3. every filter at N and 4N records (default N = 20000), each input
#     shaped to hold as many configurations, runs, groups or environment
#     items as it can: seconds, median of REPEAT, and their ratio (4 when the
#     time is linear in the input, 16 when it is quadratic).
# PARTS (default "pipe make linear") picks the parts.
set -euo pipefail
cd "$(dirname "$0")/../.."
size_mb=${SIZE_MB:-1024}
repeat=${REPEAT:-3}
parts=" ${PARTS:-pipe make linear} "
work=${WORK:-$(mktemp -d)}
trap 'rm -rf "$work"' EXIT
bin=${BIN:-$PWD/bin}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }

if [[ $parts == *" pipe "* ]]; then
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
fi

if [[ $parts == *" make "* ]]; then
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
fi

[[ $parts == *" linear "* ]] || exit 0
# gen SHAPE N: an input of N records (lines) of that shape on stdout.
#   grep: a bench log of 50 N lines (grep-iters is fast); window: grep-iters records, 10 iterations a run;
#   median-configs / median-runs: window records, 5 runs a configuration /
#   one configuration; speedup, table: ladders of 6 keys, one batch each
#   (table adds an env line a record, each of its own item); published:
#   the same keys' published figures; compare: window records of them;
#   plot: one series of N keys; plot-env: 6 keys and N env lines, each of
#   its own item; ranks: "# ranks" lines of 8 ranks.
gen() {
	awk -v shape="$1" -v n="$2" 'BEGIN {
		split("1n1g 1n2g 1n4g 1n8g 2n8g 4n8g", c, " ")
		split("1 2 4 8 16 32", dev, " ")
		if (shape == "grep") {
			print "# bench model=resnet50 backend=cpu-onednn nodes=1 gpus_per_node=1 batch_per_device=16 precision=fp32 image=224 data=synthetic"
			for (i = 1; i <= 50 * n; i++)
				printf "iter=%d loss=6.9000 step_s=0.4410 samples_per_s=36.28 ts=%d.%06d\n", i, 1763781234 + int(i * 441000 / 1e6), (i * 441000) % 1000000
		} else if (shape == "window") {
			for (i = 0; i < n; i++)
				printf "bench\tbench\t1n1g_b%d_fp32\t%d\t%d\t-\t0.441\t36.28\t6.9\n", int(i / 10 / 1000) + 1, int(i / 10) % 1000, i % 10 + 1
		} else if (shape == "median-configs" || shape == "median-runs") {
			for (i = 0; i < n; i++)
				printf "bench\t1n1g_b%d_fp32\t%d\t%.2f\n", shape == "median-runs" ? 16 : int(i / 5) + 1, shape == "median-runs" ? i : i % 5, 36 + i % 7
		} else if (shape == "speedup" || shape == "table" || shape == "published" || shape == "compare") {
			for (i = 0; i < n; i++) {
				b = int(i / 6) + 1; k = i % 6 + 1; m = 36 * dev[k]
				if (shape == "table")
					printf "# env framework=bench key=%s_b%d_fp32 run=1 node=0 item%d=v%d\n", c[k], b, i, i % 7
				if (shape == "published")
					printf "bench\t%s_b%d_fp32\t%.2f\t%.2f\n", c[k], b, m, dev[k]
				else if (shape == "compare")
					printf "bench\t%s_b%d_fp32\t1\t%.2f\n", c[k], b, m
				else
					printf "bench\t%s_b%d_fp32\t%.2f\t%.2f\t%.2f\t%.2f\t5%s\n", c[k], b, m, m, m, m, shape == "table" ? sprintf("\t%.2f", dev[k]) : ""
			}
		} else if (shape == "plot" || shape == "plot-env") {
			for (i = 0; i < n; i++)
				if (shape == "plot-env")
					printf "# env framework=bench key=1n1g_b16_fp32 run=%d node=0 item%d=v%d\n", i, i, i % 7
			for (i = 1; i <= (shape == "plot" ? n : 6); i++)
				printf "bench\t%dn1g_b16_fp32\t%.2f\t%.2f\t%.2f\t%.2f\t5\t%.2f\n", i, 36 * i, 36 * i, 36 * i, 36 * i, i
		} else if (shape == "ranks") {
			print "# bench model=resnet50 backend=cpu-onednn nodes=8 gpus_per_node=1 batch_per_device=16 precision=fp32 image=64 data=synthetic"
			for (i = 1; i <= n; i++)
				printf "# ranks iter=%d compute_s=0.41%02d,0.4100,0.4200,0.4150,0.4120,0.4130,0.4140,0.4160\n", i, i % 100
		}
	}'
}
# time_of CMD...: CPU seconds (user + system: the machine is shared, so
# wall-clock time measures the others too), median of REPEAT runs, stdout
# dropped; a failed run ends the benchmark.
time_of() {
	local t=() TIMEFORMAT='%3U %3S'
	for _ in $(seq "$repeat"); do
		{ time "$@" > /dev/null 2> "$work/err" || { cat "$work/err" >&4; exit 1; }; } 2> "$work/t"
		t+=("$(awk '{ print $1 + $2 }' "$work/t")")
	done
	printf '%s\n' "${t[@]}" | median
}
n=${N:-20000}
exec 4>&2 # time_of's errors
printf '\nfilter at N and 4N records, CPU seconds (median of %d; load %s):\n' "$repeat" \
	"$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-36s %10s %10s %7s\n' "filter (input)" "N=$n" "4N=$((4 * n))" ratio
# plot -s page's table and plot: small, the same at N and 4N
cp tests/fixtures/plot/stats.md "$work/page.md"
echo '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"></svg>' > "$work/page.svg"
# one [NAME SHAPE CMD...]: CMD on the N and the 4N input of SHAPE ({} is
# the input file, {p} the published one).
one() {
	local name=$1 shape=$2 t=()
	shift 2
	for m in "$n" $((4 * n)); do
		gen "$shape" "$m" > "$work/in"
		gen published "$m" > "$work/pub"
		gen "$shape" "$m" > "$work/in2"
		local args=()
		for a in "$@"; do
			a=${a//\{p\}/$work/pub}
			args+=("${a//\{\}/$work/in}")
		done
		t+=("$(time_of "${args[@]}")")
	done
	printf '%-36s %9.3fs %9.3fs %7s\n' "$name" "${t[0]}" "${t[1]}" \
		"$(awk -v a="${t[0]}" -v b="${t[1]}" 'BEGIN { if (a > 0) printf "%.1f", b / a; else print "-" }')"
}
one "grep-iters (50 N iteration lines)" grep "$bin/grep-iters" -f bench -k 1n1g_b16_fp32 {}
one "window (runs of 10 iterations)" window "$bin/window" -s 0 -n 10 {}
one "median (5 runs a configuration)" median-configs "$bin/median" {}
one "median (runs of one configuration)" median-runs "$bin/median" {}
one "speedup (ladders of 6 keys)" speedup "$bin/speedup" {}
one "table (6-key groups, env lines)" table "$bin/table" {}
one "table -p (published figures)" table "$bin/table" -p {p} {}
one "table -s compare" table "$bin/table" -s compare {}
one "compare (one run a configuration)" compare "$bin/compare" {} "$work/in2"
one "ranks (8 ranks a line)" ranks "$bin/ranks" {}
one "plot (points of one series)" plot "$bin/plot" {}
one "plot -s page (env lines)" plot-env "$bin/plot" -s page -t "$work/page.md" -g "$work/page.svg" {}
