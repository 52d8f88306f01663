#!/usr/bin/env bash
# tests/perf/cpu.sh — bench against PyTorch on this CPU (`make perf-cpu`).
#
# Runs, for batch 16 at 224 and 112 px, fp32 and amp (bf16): bin/bench and
# pipelines/pytorch_synthetic.py (NCHW and channels_last, jemalloc preloaded
# with MALLOC_CONF=dirty_decay_ms:-1,muzzy_decay_ms:-1, the same threads), each
# REPEAT times, interleaved; bin/perf-roof measures the
# oneDNN convolution roof first, bin/perf-step-roof the roof of one step of
# each configuration (every op at its own lower bound) in every round, right
# before bench's run of that round. Prints a table on
# stdout: images/s (median of the repeats, each from the iterations after
# the warm-up, see STAT), bench's achieved GFLOP/s and its fraction of the
# single-convolution roof, the step's roof in images/s and bench's share of
# it, peak resident memory, PyTorch's best layout; the step roofs' breakdown
# by kind; then bench's targets (doc/performance.md), each PASS or MISS. The settings of both go beside the table.
# Logs are kept in LOGS. Progress goes to stderr.
#
# AGREE="112" (sizes; `make perf-agree`): at those sizes two more PyTorch
# runs join each round, at the channels_last run's settings: the harness's
# (HARNESS_CMD, the pytorch-synthetic pipeline's command as make expands it,
# run by HARNESS_BIN/launch and measured by grep-iters | window over the
# same iterations) and a plain loop outside the harness
# (tests/perf/plain_torch.py); a second table puts the three side by side.
# Those three run last in each round, in an order rotated from round to
# round; the verdict is the median of the rounds' own ratios, and with the
# round-to-round spread of a shared machine (doc/performance.md) it wants
# REPEAT >= 5.
#
# Without AVX512_BF16 or AMX (oneDNN then has no bf16 convolution) the
# default PRECISIONS is fp32 alone.
#
# Knobs (environment): STAT (median: images/s from the median step time of
# the timed iterations, window -m median-step; mean: from their total time,
# window -m time), REPEAT (1), ITERS (30), WARMUP (10), BATCH (16),
# SIZES ("224 112"), PRECISIONS ("fp32 amp"), THREADS (all cores), BENCH_FLAGS
# (more flags for every bench run, e.g. "--layout blocked"), BENCH
# (bin/bench), PEAK (bin/perf-roof), STEP_ROOF (bin/perf-step-roof), HARNESS_BIN
# (bin: grep-iters and window measure every run), PYTHON (/usr/bin/python3), JEMALLOC, LOGS
# (build/perf-cpu), LAYOUTS ("nchw cl": PyTorch memory formats tried),
# MALLOC_CONF (dirty_decay_ms:-1,muzzy_decay_ms:-1), ROOF_FROM (a peak.txt of
# an earlier run: its roof, not measured again), REPORT_ONLY (non-empty:
# run nothing, print the table from the complete logs already in LOGS, e.g.
# of a run cut short; REPEAT defaults to the rounds its bench logs number).
set -eu -o pipefail
export LC_ALL=C

prog=perf-cpu
root=$(cd "$(dirname "$0")/../.." && pwd)
precisions_given=${PRECISIONS+1}
repeat_given=${REPEAT:-}
REPEAT=${REPEAT:-1} ITERS=${ITERS:-30} WARMUP=${WARMUP:-10} BATCH=${BATCH:-16}
SIZES=${SIZES:-224 112} PRECISIONS=${PRECISIONS:-fp32 amp} LAYOUTS=${LAYOUTS:-nchw cl}
THREADS=${THREADS:-$(nproc)} STAT=${STAT:-median}
BENCH=${BENCH:-$root/bin/bench} PEAK=${PEAK:-$root/bin/perf-roof}
STEP_ROOF=${STEP_ROOF:-$root/bin/perf-step-roof} PYTHON=${PYTHON:-/usr/bin/python3}
HARNESS_BIN=${HARNESS_BIN:-$root/bin}
JEMALLOC=${JEMALLOC:-/usr/lib/x86_64-linux-gnu/libjemalloc.so.2}
LOGS=${LOGS:-$root/build/perf-cpu}
# REPORT_ONLY without REPEAT: as many rounds as the run's bench logs number.
if [ -n "${REPORT_ONLY:-}" ] && [ -z "$repeat_given" ]; then
	REPEAT=$(find "$LOGS" -maxdepth 1 -name 'bench_*_*_*.log' 2>/dev/null |
		sed -n 's/.*_\([0-9][0-9]*\)\.log$/\1/p' | sort -n | tail -n 1)
	REPEAT=${REPEAT:-1}
fi
MALLOC_CONF=${MALLOC_CONF:-dirty_decay_ms:-1,muzzy_decay_ms:-1} AGREE=${AGREE:-}
TORCH_SCRIPT=$root/pipelines/pytorch_synthetic.py

die() { echo "$prog: $*" >&2; exit 1; }
has() { [[ " $1 " == *" $2 "* ]]; }
div() { if [ "$1" = - ] || [ "$2" = - ]; then echo -; else awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; fi; }
case $STAT in median | mean) ;; *) echo "$prog: STAT=$STAT: want median or mean" >&2; exit 2 ;; esac
for v in REPEAT ITERS WARMUP BATCH THREADS; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "$prog: $v=${!v}: not a positive integer" >&2; exit 2; }
done
((WARMUP < ITERS)) || { echo "$prog: WARMUP=$WARMUP must be below ITERS=$ITERS" >&2; exit 2; }
[ -x "$BENCH" ] || die "$BENCH: not built (make bin/bench)"
[ -x "$PEAK" ] || die "$PEAK: not built (make bin/perf-roof)"
[ -x "$STEP_ROOF" ] || die "$STEP_ROOF: not built (make bin/perf-step-roof)"
if [ -n "$AGREE" ]; then
	for px in $AGREE; do has "$SIZES" "$px" || die "AGREE=$AGREE: $px is not in SIZES=$SIZES"; done
	[ -n "${HARNESS_CMD:-}" ] || die "AGREE needs HARNESS_CMD (make perf-agree sets it)"
	[ -x "$HARNESS_BIN/launch" ] || die "AGREE needs $HARNESS_BIN/launch (make bin/launch)"
fi
for t in grep-iters window; do
	[ -x "$HARNESS_BIN/$t" ] || die "$HARNESS_BIN/$t: not built (make bin/$t)"
done
have_torch=1
"$PYTHON" -c 'import torch, torchvision' 2>/dev/null || {
	have_torch=0
	echo "$prog: $PYTHON cannot import torch/torchvision: PyTorch columns left empty" >&2
}
preload=
if [ -r "$JEMALLOC" ]; then preload=$JEMALLOC; else
	echo "$prog: $JEMALLOC not found: PyTorch runs with glibc malloc (~40 % slower)" >&2
fi
mkdir -p "$LOGS"
# A rebuild of bin/bench during the run must not mix two versions in one table.
if [ -z "${REPORT_ONLY:-}" ]; then
	echo "$(git -C "$root" describe --always --dirty 2>/dev/null || echo '?') ($BENCH)" \
		>"$LOGS/bench.id"
	cp "$BENCH" "$LOGS/bench.bin"
	cut -d' ' -f1-3 /proc/loadavg >"$LOGS/load.before"
	: >"$LOGS/load.runs"
fi
bench_id=$(cat "$LOGS/bench.id" 2>/dev/null || echo '?')
BENCH=$LOGS/bench.bin
export OMP_NUM_THREADS=$THREADS

# rate LOG PREC [STAT]: images/s over the iterations after WARMUP, as the
# harness measures a run: grep-iters | window over iterations WARMUP+1 …
# ITERS. STAT=median: window -m median-step, the samples of a step over the
# median step time, robust to other work on a shared machine stalling a few
# steps; STAT=mean: window -m time, the samples over the window's time.
# -d 1000: no drift warnings (they would name a run, not the log, twice).
rate() {
	local method=median-step
	[ "${3:-$STAT}" = mean ] && method=time
	"$HARNESS_BIN/grep-iters" -k "1n1g_b${BATCH}_$2" "$1" |
		"$HARNESS_BIN/window" -s "$WARMUP" -n $((ITERS - WARMUP)) -m $method -d 1000 |
		awk -F '\t' '!/^#/ { print $4; n++ } END { exit n != 1 }' ||
		die "$1: grep-iters | window gave no one record"
}

# peak_mb LOG: the peak_mem_mb of the closing line.
peak_mb() {
	sed -n 's/^# end .*peak_mem_mb=\([0-9][0-9]*\).*/\1/p' "$1" | tail -n 1 | grep . ||
		die "$1: no '# end ... peak_mem_mb=' line"
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# The 1-minute load average as each run starts: other work on the machine.
load_mark() { cut -d' ' -f1 /proc/loadavg >>"$LOGS/load.runs"; }

run_bench() { # px prec rep -> log path
	local log="$LOGS/bench_${1}_${2}_$3.log"
	echo "$prog: bench $1 px $2 run $3" >&2
	load_mark
	# shellcheck disable=SC2086 # BENCH_FLAGS: several flags, split on purpose
	# --verbose: what oneDNN runs and what --conv-algo find kept, on stderr
	"$BENCH" --batch "$BATCH" --image "$1" --precision "$2" --iters "$ITERS" \
		--warmup "$WARMUP" --threads "$THREADS" --verbose ${BENCH_FLAGS:-} >"$log" 2>"$log.err" ||
		die "bench failed ($log.err): $(tail -n 1 "$log.err")"
	echo "$log"
}

run_torch() { # px prec layout rep -> log path
	local log="$LOGS/pytorch_${1}_${2}_${3}_$4.log" layout=nchw
	[ "$3" = cl ] && layout=channels_last
	echo "$prog: pytorch $1 px $2 $3 run $4" >&2
	load_mark
	env ${preload:+LD_PRELOAD=$preload MALLOC_CONF=$MALLOC_CONF} "$PYTHON" "$TORCH_SCRIPT" \
		--batch "$BATCH" --image "$1" --precision "$2" --iters "$ITERS" --threads "$THREADS" \
		--layout $layout >"$log" 2>"$log.err" ||
		die "pytorch_synthetic failed ($log.err): $(tail -n 1 "$log.err")"
	echo "$log"
}

# run_harness PX PREC REP: the harness's PyTorch run (launch and the
# pipeline's command with PYTORCH_SYNTHETIC_FLAGS='--image PX --iters ITERS
# --threads THREADS'), its figure from grep-iters | window over the
# iterations after WARMUP.
run_harness() {
	local log="$LOGS/harness_${1}_${2}_$3.log"
	echo "$prog: harness pytorch-synthetic $1 px $2 run $3" >&2
	load_mark
	# shellcheck disable=SC2086 # the pipeline's command, split as make splits it
	"$HARNESS_BIN/launch" -t 3600 "1n1g_b${BATCH}_$2" -- $HARNESS_CMD \
		--image "$1" --iters "$ITERS" --threads "$THREADS" >"$log" 2>"$log.err" ||
		die "harness run failed ($log.err): $(tail -n 1 "$log.err")"
	echo "$log"
}
# run_plain PX PREC REP: the plain loop, at channels_last's settings.
run_plain() {
	local out="$LOGS/plain_${1}_${2}_$3.txt"
	echo "$prog: plain PyTorch loop $1 px $2 run $3" >&2
	load_mark
	env ${preload:+LD_PRELOAD=$preload MALLOC_CONF=$MALLOC_CONF} "$PYTHON" \
		"$root/tests/perf/plain_torch.py" "$BATCH" "$1" "$2" "$ITERS" "$WARMUP" "$THREADS" \
		channels_last >"$out" 2>"$out.err" ||
		die "plain_torch.py failed ($out.err): $(tail -n 1 "$out.err")"
	echo "$out"
}

if [ -n "${ROOF_FROM:-}" ] && [ -z "${REPORT_ONLY:-}" ]; then
	cp "$ROOF_FROM" "$LOGS/peak.txt" || die "ROOF_FROM=$ROOF_FROM: cannot copy"
elif [ -z "${REPORT_ONLY:-}" ]; then
	echo "$prog: roof: $PEAK (single oneDNN convolutions of ResNet50's shapes, batch 16)" >&2
	"$PEAK" -b 16 -n 5 >"$LOGS/peak.txt" 2>"$LOGS/peak.err" ||
		die "roof failed: $(tail -n 1 "$LOGS/peak.err")"
fi
roof_fp32=$(awk '$1 == "roof" && $2 == "fp32" { print $3 }' "$LOGS/peak.txt")
roof_bf16=$(awk '$1 == "roof" && $2 == "bf16" { print $3 }' "$LOGS/peak.txt")
[ -n "$roof_fp32" ] && [ -n "$roof_bf16" ] || die "$LOGS/peak.txt: no roof lines"
[ "$roof_fp32" != - ] || die "$LOGS/peak.txt: oneDNN runs no fp32 convolution here"
if [ "$roof_bf16" = - ] && [[ " $PRECISIONS " == *" amp "* ]]; then
	[ -z "$precisions_given" ] ||
		die "PRECISIONS=$PRECISIONS: this CPU has no bf16 convolution in oneDNN (it needs AVX512_BF16 or AMX)"
	echo "$prog: no bf16 convolution in oneDNN on this CPU: fp32 only" >&2
	PRECISIONS=fp32 no_amp=1
fi

# The step's roof of a configuration, op by op (bench --profile --roof reads
# the same format), images/s on its last line. It is measured in every
# round, right before that round's bench run: the host's speed drifts
# (doc/performance.md), so a roof measured once, at the start, can read
# well below the same roof half an hour later, and bench then comes out
# above "its roof". Each round's bench run is set against its own round's
# roof.
run_roof() { # px prec rep
	local f=$LOGS/roof_${1}_${2}_$3.txt
	echo "$prog: step roof $1 px $2 run $3" >&2
	"$STEP_ROOF" -i "$1" -b "$BATCH" -p "$2" >"$f.tmp" 2>"$f.err" ||
		die "step roof failed: $(tail -n 1 "$f.err")"
	mv "$f.tmp" "$f"
}
roof_rate() { sed -n 's/^roof step_ms=[^ ]* images_per_s=\([0-9.]*\)$/\1/p' "$1" 2>/dev/null | grep . || echo -; }

declare -A R M # R[tool,px,prec] = rates (one per line), M[...] = peak MB
# add TOOL PX PREC LOG: one run's figures, or none when REPORT_ONLY finds no
# complete log (a run cut short).
add() {
	if [ -n "${REPORT_ONLY:-}" ] && ! grep -q '^# end ' "$4" 2>/dev/null; then
		return 0
	fi
	R[$1,$2,$3]+="$(rate "$4" "$3")"$'\n'
	R[$1/mean,$2,$3]+="$(rate "$4" "$3" mean)"$'\n' # the statistic of the agreement table
	M[$1,$2,$3]+="$(peak_mb "$4")"$'\n'
}
# one PX PREC REP WHAT: one PyTorch run (WHAT: a layout, harness or plain)
# and its figures; under REPORT_ONLY the log already there.
one() {
	local log
	case $4 in
	harness)
		if [ -n "${REPORT_ONLY:-}" ]; then log=$LOGS/harness_$1_$2_$3.log
		else log=$(run_harness "$1" "$2" "$3"); fi
		grep -q '^# end ' "$log" 2>/dev/null &&
			R[harness,$1,$2]+="$(harness_rate "$2" "$log")"$'\n'
		;;
	plain)
		if [ -n "${REPORT_ONLY:-}" ]; then log=$LOGS/plain_$1_$2_$3.txt
		else log=$(run_plain "$1" "$2" "$3"); fi
		[ -s "$log" ] && R[plain,$1,$2]+="$(cat "$log")"$'\n'
		;;
	*)
		if [ -n "${REPORT_ONLY:-}" ]; then log=$LOGS/pytorch_$1_$2_$4_$3.log
		else log=$(run_torch "$1" "$2" "$4" "$3"); fi
		add "$4" "$1" "$2" "$log"
		;;
	esac
	true
}
for rep in $(seq 1 "$REPEAT"); do
	for px in $SIZES; do
		for prec in $PRECISIONS; do
			if [ -n "${REPORT_ONLY:-}" ]; then log=$LOGS/bench_${px}_${prec}_$rep.log
			else run_roof "$px" "$prec" "$rep"; log=$(run_bench "$px" "$prec" "$rep"); fi
			add bench "$px" "$prec" "$log"
			# The round's roof, and bench's share of it in this round.
			sr=$(roof_rate "$LOGS/roof_${px}_${prec}_$rep.txt")
			if [ "$sr" != - ] && grep -q '^# end ' "$log" 2>/dev/null; then
				R[roof,$px,$prec]+="$sr"$'\n'
				R[step,$px,$prec]+="$(awk -v a="$(printf '%s' "${R[bench,$px,$prec]}" | tail -n 1)" -v r="$sr" \
					'BEGIN { printf "%.1f", 100 * a / r }')"$'\n'
			fi
			((have_torch)) || continue
			# At AGREE's sizes the runs the agreement compares (the cl
			# run, the harness's, the plain loop) go last, in an order
			# rotated each round: runs a minute apart meet different
			# speeds of a shared machine (doc/performance.md), and none
			# should always come after another.
			runs=() trio=()
			for lay in $LAYOUTS; do
				if has "$AGREE" "$px" && [ "$lay" = cl ]; then trio+=(cl); else runs+=("$lay"); fi
			done
			has "$AGREE" "$px" && trio+=(harness plain)
			for ((i = 0; i < ${#trio[@]}; i++)); do
				runs+=("${trio[(i + rep - 1) % ${#trio[@]}]}")
			done
			for what in "${runs[@]}"; do one "$px" "$prec" "$rep" "$what"; done
		done
	done
done

med() { printf '%s' "${R[$1]-}" | median; }
# rounds A B: each round's A / B (none unless both have every round); rmed: their median
rounds() {
	[ "$(printf '%s' "${R[$1]-}" | grep -c .)" = "$REPEAT" ] &&
		[ "$(printf '%s' "${R[$2]-}" | grep -c .)" = "$REPEAT" ] || return 0
	paste <(printf '%s' "${R[$1]}") <(printf '%s' "${R[$2]}") |
		awk '{ printf "%.2f\n", ($2 > 0 ? $1 / $2 : 0) }'
}
rmed() { rounds "$1" "$2" | median; }
medm() { printf '%s' "${M[$1]-}" | median; }
# One ResNet50 v1.5 training image at 224 px: 3 x 8.2 GFLOP (forward,
# backward-data, backward-weights; a multiply-add counts 2).
gflop_per_image() { awk -v p="$1" 'BEGIN { printf "%.4f\n", 24.5 * (p / 224) ^ 2 }'; }

echo "# perf-cpu $(date -u -r "$LOGS/peak.txt" +%Y-%m-%dT%H:%MZ)${REPORT_ONLY:+ (report of logs)}: $(env -u OMP_NUM_THREADS nproc) cores, $THREADS threads, batch $BATCH," \
	"$ITERS iterations ($WARMUP warm-up), images/s from the $STAT step, median of $REPEAT run(s)"
echo "# $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'); oneDNN roof (bin/perf-roof):" \
	"fp32 $roof_fp32 GFLOP/s, bf16 $roof_bf16 GFLOP/s"
echo "# bench: $bench_id;" \
	"load average before: $(cat "$LOGS/load.before" 2>/dev/null || echo '?'), after:" \
	"$(cut -d' ' -f1-3 /proc/loadavg)"
echo "# PyTorch: $("$PYTHON" -c 'import torch; print(torch.__version__)' 2>/dev/null || echo none)," \
	"best of: $LAYOUTS; logs in $LOGS"
# The settings PyTorch ran with, as its own log says them (the first cl run's).
for f in "$LOGS"/pytorch_*_cl_1.log "$LOGS"/pytorch_*_1.log; do
	[ -r "$f" ] || continue
	echo "# PyTorch settings ($(basename "$f")):" \
		"$(sed -n 's/^# env node=0 setting\.//p' "$f" | paste -sd' ')"
	break
done
[ -n "${no_amp:-}" ] &&
	echo "# amp: not run: this CPU has neither AVX512_BF16 nor AMX (oneDNN has no bf16 convolution here); the fp32 rows and targets stand"
echo "# bench settings: --threads $THREADS, OMP_NUM_THREADS=$THREADS${BENCH_FLAGS:+, $BENCH_FLAGS}," \
	"layout: ${BENCH_FLAGS:+as those flags say, else }its default (blocked in fp32 and amp: nChw16c, nChw8c without AVX-512)"
for f in "$LOGS"/bench_*_1.log; do
	[ -r "$f" ] || continue
	echo "# bench settings ($(basename "$f")): $(sed -n 's/^# env node=0 setting\.//p' "$f" | paste -sd' ')"
	break
done
# What --conv-algo find kept in round 1: of the 3x3 stride-1 shapes, how
# many run Winograd in each direction (bench --verbose's "conv find" lines).
for f in "$LOGS"/bench_*_1.log.err; do
	[ -r "$f" ] || continue
	k=$(basename "$f" _1.log.err)
	k=${k#bench_}
	awk -v k="${k/_/ px }" '/^bench: conv find: / { n[$8]++; if ($NF == "winograd") w[$8]++ }
		END { if (!length(n)) { print "# " k ": no convolution timed (direct only, or no Winograd here)"; exit }
		      printf "# %s: Winograd kept for", k
		      split("fwd: bwd-data: bwd-weights:", d, " ")
		      for (i = 1; i <= 3; i++) printf " %s %d/%d%s", d[i], w[d[i]], n[d[i]], i < 3 ? "," : ""
		      print " of the 3x3 stride-1 shapes (--conv-algo find, round 1)" }' "$f"
done
[ -s "$LOGS/load.runs" ] && echo "# load average (1 min) as the runs started: $(sort -g "$LOGS/load.runs" |
	awk '{ v[NR] = $1 } END { printf "min %s, median %s, max %s over %d runs", v[1], v[int((NR + 1) / 2)], v[NR], NR }')"
echo
printf '| %4s | %-4s | %8s | %7s | %6s | %9s | %6s | %8s | %10s | %9s | %-4s | %8s | %6s |\n' \
	px prec "bench/s" GFLOP/s "% roof" "step roof" "% step" "bench MB" "torch NCHW" "torch CL" best \
	"torch MB" ratio
printf '|-----:|------|---------:|--------:|-------:|----------:|-------:|---------:|-----------:|----------:|------|---------:|-------:|\n'
declare -A BEST BESTM STEP
for px in $SIZES; do
	gpi=$(gflop_per_image "$px")
	for prec in $PRECISIONS; do
		b=$(med "bench,$px,$prec") bm=$(medm "bench,$px,$prec")
		roof=$roof_fp32
		[ "$prec" = amp ] && roof=$roof_bf16
		gf=- pct=-
		if [ "$b" != - ]; then
			gf=$(awk -v r="$b" -v g="$gpi" 'BEGIN { printf "%.1f", r * g }')
			pct=$(awk -v a="$gf" -v r="$roof" 'BEGIN { printf "%.1f", 100 * a / r }')
		fi
		nchw=$(med "nchw,$px,$prec") cl=$(med "cl,$px,$prec")
		best=- bt=- btm=-
		for lay in $LAYOUTS; do
			v=$(med "$lay,$px,$prec")
			[ "$v" = - ] && continue
			if [ "$bt" = - ] || awk -v a="$v" -v b="$bt" 'BEGIN { exit !(a > b) }'; then
				best=$lay bt=$v btm=$(medm "$lay,$px,$prec")
			fi
		done
		BEST[$px,$prec]=$bt BESTM[$px,$prec]=$btm
		ratio=-
		[ "$bt" != - ] && ratio=$(awk -v a="$b" -v t="$bt" 'BEGIN { printf "%.2f", a / t }')
		sr=$(med "roof,$px,$prec") spct=$(med "step,$px,$prec")
		STEP[$px,$prec]=$spct
		printf '| %4s | %-4s | %8s | %7s | %6s | %9s | %6s | %8s | %10s | %9s | %-4s | %8s | %6s |\n' \
			"$px" "$prec" "$b" "$gf" "$pct" "$sr" "$spct" "$bm" "$nchw" "$cl" "$best" "$btm" \
			"$ratio"
	done
done
echo

echo "step roof = the median of the rounds' roofs; % step = the median of the rounds' bench / roof:"
for px in $SIZES; do
	for prec in $PRECISIONS; do
		[ -n "${R[roof,$px,$prec]-}" ] || continue
		echo "  $px px $prec: roofs $(printf '%s' "${R[roof,$px,$prec]}" | paste -sd' ') images/s," \
			"bench $(printf '%s' "${R[step,$px,$prec]}" | paste -sd' ') % of them"
	done
done
echo
# The best round's roof (the most images/s) is the one kept as
# roof_PX_PREC.txt, what `bench --profile --roof` reads, broken down here.
for px in $SIZES; do
	for prec in $PRECISIONS; do
		best=
		for f in "$LOGS/roof_${px}_${prec}_"[0-9]*.txt; do
			[ -r "$f" ] || continue
			if [ -z "$best" ] || awk -v a="$(roof_rate "$f")" -v b="$(roof_rate "$best")" \
				'BEGIN { exit !(a > b) }'; then best=$f; fi
		done
		[ -z "$best" ] || cp "$best" "$LOGS/roof_${px}_$prec.txt"
	done
done
echo "The step's roof (bin/perf-step-roof, the best round's): bound ms per kind of op, and its share of the roof"
echo
for px in $SIZES; do
	for prec in $PRECISIONS; do
		f=$LOGS/roof_${px}_$prec.txt
		[ -r "$f" ] || continue
		printf '%s px %s (%s): ' "$px" "$prec" "$(sed -n 's/^# roof .*\(bandwidth_gbs=[0-9.]*\).*/\1/p' "$f")"
		awk '$1 == "kind" { printf "%s%s %s ms (%s)", n++ ? ", " : "", $2, $3, $4 }
			$1 == "roof" { split($2, a, "="); printf "; step %s ms\n", a[2] }' "$f"
	done
done
echo

if [ -n "$AGREE" ]; then
	echo "PyTorch three ways, the same settings (channels_last), images/s, median of $REPEAT:"
	echo "harness = launch + the pytorch-synthetic pipeline + grep-iters | window (samples / time);"
	echo "perf-cpu = the cl runs above (samples / time); plain = tests/perf/plain_torch.py (samples / time)"
	echo
	printf '| %4s | %-4s | %8s | %8s | %8s | %13s | %14s |\n' px prec harness perf-cpu plain \
		"harness/plain" "perf-cpu/plain"
	printf '|-----:|------|---------:|---------:|---------:|--------------:|---------------:|\n'
	for px in $AGREE; do
		for prec in $PRECISIONS; do
			h=$(med "harness,$px,$prec") c=$(med "cl/mean,$px,$prec") p=$(med "plain,$px,$prec")
			printf '| %4s | %-4s | %8s | %8s | %8s | %13s | %14s |\n' "$px" "$prec" "$h" "$c" \
				"$p" "$(div "$h" "$p")" "$(div "$c" "$p")"
		done
	done
	echo
	# The verdict is on the median of each round's own ratio: the runs of a
	# round follow each other within a minute or two, so a load that comes
	# and goes over the rounds moves both figures of a ratio alike.
	echo "verdicts: the median over rounds of each round's ratio (rounds $(seq -s ' ' 1 "$REPEAT"))"
	for px in $AGREE; do
		for prec in $PRECISIONS; do
			for w in harness cl/mean; do
				r=$(rmed "$w,$px,$prec" "plain,$px,$prec")
				if [ "$r" = - ]; then v="(not measured)"
				elif awk -v r="$r" 'BEGIN { exit !(r >= 0.95 && r <= 1.05) }'; then v=PASS
				else v=MISS; fi
				printf 'agree %-34s %6s within 0.95..1.05 %s  (rounds: %s)\n' \
					"$px px $prec: ${w/cl\/mean/perf-cpu} / plain" "$r" "$v" \
					"$(rounds "$w,$px,$prec" "plain,$px,$prec" | paste -sd' ')"
			done
		done
	done
	echo
fi

# target NAME VALUE LIMIT: PASS when VALUE >= LIMIT
target() {
	if [ "$2" = - ] || [ "$3" = - ]; then
		printf 'target %-44s %8s  (not measured)\n' "$1" -
	elif awk -v v="$2" -v l="$3" 'BEGIN { exit !(v >= l) }'; then
		printf 'target %-44s %8s >= %-6s PASS\n' "$1" "$2" "$3"
	else
		printf 'target %-44s %8s >= %-6s MISS\n' "$1" "$2" "$3"
	fi
}
# The targets: bench >= 1.5x PyTorch at its best, amp >= 1.8x
# bench's fp32, peak memory <= 0.6x PyTorch's, >= 85 % of the step's roof.
for px in $SIZES; do
	for prec in $PRECISIONS; do
		target "$prec $px px: bench / PyTorch images/s" \
			"$(div "$(med "bench,$px,$prec")" "${BEST[$px,$prec]}")" 1.5
	done
	has "$PRECISIONS" amp && has "$PRECISIONS" fp32 &&
		target "amp $px px: bench amp / bench fp32 images/s" \
			"$(div "$(med "bench,$px,amp")" "$(med "bench,$px,fp32")")" 1.8
done
for px in $SIZES; do
	for prec in $PRECISIONS; do
		# PyTorch MB / bench MB >= 1/0.6 is "bench's peak memory <= 0.6x PyTorch's".
		target "memory $px px $prec: PyTorch MB / bench MB" \
			"$(div "${BESTM[$px,$prec]}" "$(medm "bench,$px,$prec")")" 1.67
	done
done
for px in $SIZES; do
	for prec in $PRECISIONS; do
		target "$prec $px px: % of the step's roof" "${STEP[$px,$prec]}" 85
	done
done
