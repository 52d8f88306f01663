#!/usr/bin/env bats
# The Makefile pipeline: which runs happen, incrementality, failures.
# A fake workload (fixtures/make/fake-train) stands in for a framework.

load helper

setup() {
	common_setup
	T=$BATS_TEST_TMPDIR
	export FAKE_RUNS=$T/runs
	: > "$FAKE_RUNS"
	MK=(make -C "$ROOT" --no-print-directory LOGDIR="$T/logs" RESULTS="$T/results"
		FRAMEWORK=fake fake_CMD="$FIXTURES/make/fake-train" fake_DEPS= fake_FORMAT=bench
		RUNS=2 CUDA_QUIET=1)
}

@test "make -n lists exactly the runs of the ladder and changes nothing" {
	run -0 "${MK[@]}" -n "$T/results/1n2g_b16_fp32.md"
	[ "$(grep -c 'launch -t' <<<"$output")" -eq 4 ]
	grep -q "1n1g_b16_fp32 -- $FIXTURES/make/fake-train" <<<"$output"
	grep -q "1n2g_b16_fp32 -- $FIXTURES/make/fake-train" <<<"$output"
	[ ! -e "$T/logs" ] && [ ! -e "$T/results" ]
	[ ! -s "$FAKE_RUNS" ]
}

@test "a built tree is up to date: make -n all plans nothing, whatever its flags hold" {
	# The flags each object was built with are compared as make reads the
	# Makefile; nvcc's "-Xcompiler -Wall,-Wextra" once split that comparison
	# at its commas, and bench-cuda's drivers were rebuilt by every make.
	make -C "$ROOT" --no-print-directory CUDA_QUIET=1 all >/dev/null 2>&1
	run -0 make -C "$ROOT" --no-print-directory -n CUDA_QUIET=1 all
	[ "$output" = "make: Nothing to be done for 'all'." ]
}

@test "a result runs every missing configuration once and prints the table" {
	run -0 "${MK[@]}" "$T/results/1n2g_b16_fp32.md"
	[ "$(sort "$FAKE_RUNS" | uniq -c | awk '{print $1, $2}')" = "2 1n1g_b16_fp32
2 1n2g_b16_fp32" ]
	[ -f "$T/logs/fake/1n1g_b16_fp32/1.log" ] && [ -f "$T/logs/fake/1n2g_b16_fp32/2.log" ]
	grep -q '^| node_num' "$T/results/1n2g_b16_fp32.md"
	grep -q '^| 1 *| 2 *| 16 ' "$T/results/1n2g_b16_fp32.md"
	[[ "$output" == *"| node_num"* ]]
	! ls "$T"/logs/fake/*/*.tmp 2>/dev/null || false
}

@test "a second make runs nothing" {
	"${MK[@]}" "$T/results/1n2g_b16_fp32.md" >/dev/null 2>&1
	: > "$FAKE_RUNS"
	run -0 "${MK[@]}" "$T/results/1n2g_b16_fp32.md"
	[ ! -s "$FAKE_RUNS" ]
}

@test "a deleted log is the only run made again" {
	"${MK[@]}" "$T/results/1n2g_b16_fp32.md" >/dev/null 2>&1
	: > "$FAKE_RUNS"
	rm "$T/logs/fake/1n2g_b16_fp32/2.log"
	run -0 "${MK[@]}" -n "$T/results/1n2g_b16_fp32.md"
	[ "$(grep -c 'launch -t' <<<"$output")" -eq 1 ]
	run -0 "${MK[@]}" "$T/results/1n2g_b16_fp32.md"
	[ "$(cat "$FAKE_RUNS")" = "1n2g_b16_fp32" ]
}

@test "adding a node runs only the new configurations" {
	"${MK[@]}" "$T/results/1n2g_b16_fp32.md" >/dev/null 2>&1
	: > "$FAKE_RUNS"
	run -0 "${MK[@]}" -n "$T/results/2n2g_b16_fp32.md"
	[ "$(grep -c 'launch -t' <<<"$output")" -eq 2 ]
	grep -q '2n2g_b16_fp32 -- ' <<<"$output"
	! grep -q '1n[12]g_b16_fp32 -- ' <<<"$output" || false
}

@test "a failed run leaves no log but its outcome: the result has its row, make fails, and only it is run again" {
	run -2 env FAKE_FAIL=1n2g_b16_fp32 "${MK[@]}" "$T/results/1n2g_b16_fp32.md"
	[[ "$output" == *"make: fake 1n2g_b16_fp32 run 1 failed (exit 3); no log kept; its outcome, failed, is in $T/logs/fake/1n2g_b16_fp32/1.outcome"* ]]
	[ ! -e "$T/logs/fake/1n2g_b16_fp32/1.log" ]
	[ ! -e "$T/logs/fake/1n2g_b16_fp32/1.log.tmp" ]
	[ ! -e "$T/logs/fake/1n2g_b16_fp32/1.log.err" ]
	[ "$(cat "$T/logs/fake/1n2g_b16_fp32/1.outcome")" = "# outcome framework=fake key=1n2g_b16_fp32 run=1 status=failed exit=3 reason=fake-train:%20failing%20on%20purpose" ]
	[ -f "$T/logs/fake/1n1g_b16_fp32/1.log" ]
	# (J/sample "-": launch's energy lines, no figure for a run that failed; memory "-")
	grep -qx '| 1 | 2 | 16 | failed | - | - | - | - | 0 | - | - | - | runs 1,2: failed | - | - |' "$T/results/1n2g_b16_fp32.md"
	grep -qx -- '- \*\*failed runs\*\*: fake 1n2g_b16_fp32 runs 1,2: failed (exit 3): fake-train: failing on purpose' "$T/results/1n2g_b16_fp32.md"
	[[ "$output" == *"make: 2 run(s) failed: OOM, failed or timeout in the table of $T/results/1n2g_b16_fp32 (RETRY=1 runs again those out of memory)"* ]]
	: > "$FAKE_RUNS"
	run -0 "${MK[@]}" "$T/results/1n2g_b16_fp32.md"
	[ "$(sort "$FAKE_RUNS" | uniq -c | awk '{print $1, $2}')" = "2 1n2g_b16_fp32" ]
	[ ! -e "$T/logs/fake/1n2g_b16_fp32/1.outcome" ] && [ ! -e "$T/logs/fake/1n2g_b16_fp32/2.outcome" ]
	! grep -q 'failed' "$T/results/1n2g_b16_fp32.md" || false
}

@test "a run that outlives TIMEOUT is killed and leaves no log; its row says timeout" {
	run -2 env FAKE_HANG=1n1g_b16_fp32 "${MK[@]}" TIMEOUT=2 RUNS=1 "$T/results/1n1g_b16_fp32.md"
	[[ "$output" == *"1n1g_b16_fp32 run 1 failed"* ]]
	[ ! -e "$T/logs/fake/1n1g_b16_fp32/1.log" ]
	! pgrep -f "$FIXTURES/make/fake-train" >/dev/null || false
	grep -qx '| 1 | 1 | 16 | timeout | - | - | - | - | 0 | - | - | - | run 1: timeout |' "$T/results/1n1g_b16_fp32.md"
	grep -qx -- '- \*\*failed runs\*\*: fake 1n1g_b16_fp32 run 1: timeout (exit 124): launch: 1n1g_b16_fp32: timed out after 2 s' "$T/results/1n1g_b16_fp32.md"
}

@test "a ladder with an out-of-memory rung prints its table with OOM, and every view; it is not run again unless RETRY=1" {
	r=$T/results/1n2g_b16_fp32
	run -2 env FAKE_OOM=1n2g_b16_fp32 "${MK[@]}" "$r.md" "$r.json" "$r.html"
	[[ "$output" == *"its outcome, oom, is in $T/logs/fake/1n2g_b16_fp32/2.outcome, not run again without RETRY=1"* ]]
	grep -qx '| 1 | 2 | 16 | OOM | - | - | - | - | 0 | - | - | - | runs 1,2: OOM | - | - |' "$r.md"
	grep -Eq '^\| 1 \| 1 \| 16 \| 158.42 \| .* \| - \| [0-9]+ \|$' "$r.md"
	grep -qE -- '^- \*\*failed runs\*\*: fake 1n2g_b16_fp32 runs 1,2: OOM \(exit 1\): torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 48.00 MiB \(GPU [01]; 15.78 GiB total capacity\)$' "$r.md"
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))["r50"]
assert d["1n1g"]["median_speed"] == 158.42, d
c = d["1n2g"]
assert c["median_speed"] is None and c["speedup"] is None and c["outcome"] == "oom", c
assert [(f["run"], f["status"], f["exit"]) for f in c["failed_runs"]] == [(1, "oom", 1), (2, "oom", 1)], c' "$r.json"
	grep -q '<td class="bad">OOM: every run failed (runs 1,2: OOM)</td>' "$r.html"
	grep -q '>OOM<' "$r.svg"
	[ "$(grep -c 'run(s) failed' <<<"$output")" -eq 1 ]
	# The next make runs nothing, makes the view again and fails again.
	: > "$FAKE_RUNS"
	run -0 "${MK[@]}" -n "$r.md"
	! grep -q 'launch -t' <<<"$output" || false
	run -2 "${MK[@]}" "$r.md"
	[ ! -s "$FAKE_RUNS" ]
	[[ "$output" == *"make: 2 run(s) failed: OOM, failed or timeout in the table of $r "* ]]
	grep -q '| OOM |' "$r.md"
	# RETRY=1 runs them again.
	run -0 "${MK[@]}" RETRY=1 "$r.md"
	[ "$(sort "$FAKE_RUNS" | uniq -c | awk '{print $1, $2}')" = "2 1n2g_b16_fp32" ]
	! grep -q 'OOM' "$r.md" || false
	[ "$(ls "$T/logs/fake/1n2g_b16_fp32")" = "1.log
2.log" ]
	run -0 "${MK[@]}" -n "$r.md"
	[ "$output" = "make: '$r.md' is up to date." ]
}

@test "a configuration with some runs failed: the median of the others, n counts them, the failed run named" {
	r=$T/results/1n1g_b16_fp32
	run -2 env FAKE_ONCE="$T/once" "${MK[@]}" RUNS=3 "$r.md"
	grep -Eq '^\| 1 \| 1 \| 16 \| 158.42 \| 0.00 \| 1.00 \| 0.00 \| 1.00 \| 2 \| 0.0% \| 0.0% \| - \| run 1: failed \| - \| [0-9]+ \|$' "$r.md"
	grep -qx '# outcome framework=fake key=1n1g_b16_fp32 run=1 status=failed exit=3 reason=fake-train:%20failing%20on%20purpose' "$r.tsv"
	[ "$(grep -v '^#' "$r.tsv" | cut -f1,2,7)" = "fake	1n1g_b16_fp32	2" ]
}

@test "a 1n1g whose runs all failed: its row says so, the others have no speedup, plot leaves them out" {
	r=$T/results/1n2g_b16_fp32
	run -2 env FAKE_FAIL=1n1g_b16_fp32 "${MK[@]}" RUNS=1 "$r.md"
	grep -qx '| 1 | 1 | 16 | failed | - | - | - | - | 0 | - | - | - | run 1: failed | - | - |' "$r.md"
	grep -Eq '^\| 1 \| 2 \| 16 \| 313.73 \| - \| - \| - \| - \| 1 \| 0.0% \| - \| no interval: 1 run \| - \| - \| [0-9]+ \|$' "$r.md"
	run -2 env FAKE_FAIL=1n1g_b16_fp32 "${MK[@]}" RUNS=1 "$r.svg"
	xmllint --noout "$r.svg"
	! grep -q 'ideal: 1n1g' "$r.gp" || false
}

@test "a compare result shows OOM in the cell of the framework that ran out of memory" {
	"${MK[@]}" RUNS=1 "$T/results/1n2g_b16_fp32.md" >/dev/null 2>&1
	run -2 env FAKE_OOM=1n2g_b16_fp32 "${MK[@]}" FRAMEWORK=other other_CMD="$FIXTURES/make/fake-train" \
		other_FORMAT=bench RUNS=1 "$T/results/1n2g_b16_fp32.md"
	run -2 "${MK[@]}" RUNS=1 "$T/results/compare_b16_fp32.md"
	[[ "$output" == *"| 1 | 2 | 313.73 | OOM |"* ]]
	[[ "$output" == *"make: 1 run(s) failed: OOM, failed or timeout in the table of $T/results/compare_b16_fp32 "* ]]
}

@test "make maxbatch finds the largest batch that fits by doubling, then bisection, in one line; its runs stay" {
	run -0 --separate-stderr env FAKE_OOM_ABOVE=80 "${MK[@]}" maxbatch KEY=1n1g_b16_fp32
	[ "$output" = "maxbatch: fake 1n1g fp32: the largest batch per device that fits is 80 (81 runs out of memory)" ]
	[ "$(cat "$FAKE_RUNS")" = "1n1g_b16_fp32
1n1g_b32_fp32
1n1g_b64_fp32
1n1g_b128_fp32
1n1g_b96_fp32
1n1g_b80_fp32
1n1g_b88_fp32
1n1g_b84_fp32
1n1g_b82_fp32
1n1g_b81_fp32" ]
	[ -f "$T/logs/fake/1n1g_b80_fp32/1.log" ]
	grep -q ' status=oom ' "$T/logs/fake/1n1g_b81_fp32/1.outcome"
	# Its runs are the log tree's: asked again, nothing runs.
	: > "$FAKE_RUNS"
	run -0 --separate-stderr "${MK[@]}" maxbatch KEY=1n1g_b16_fp32
	[ "$output" = "maxbatch: fake 1n1g fp32: the largest batch per device that fits is 80 (81 runs out of memory)" ]
	[ ! -s "$FAKE_RUNS" ]
	# From above: halving, then bisection; the runs known are not run again.
	run -0 --separate-stderr env FAKE_OOM_ABOVE=80 "${MK[@]}" maxbatch KEY=1n1g_b200_fp32
	[ "$output" = "maxbatch: fake 1n1g fp32: the largest batch per device that fits is 80 (81 runs out of memory)" ]
	[ "$(cat "$FAKE_RUNS")" = "1n1g_b200_fp32
1n1g_b100_fp32
1n1g_b50_fp32
1n1g_b75_fp32
1n1g_b87_fp32
1n1g_b78_fp32
1n1g_b79_fp32" ]
}

@test "make maxbatch: nothing fits, a failure that is not out of memory, and a bad KEY" {
	run -2 --separate-stderr env FAKE_OOM_ABOVE=0 "${MK[@]}" maxbatch KEY=1n1g_b4_fp32
	[ "$output" = "maxbatch: fake 1n1g fp32: even batch 1 runs out of memory" ]
	run -2 --separate-stderr env FAKE_FAIL=1n1g_b8_fp32 "${MK[@]}" maxbatch KEY=1n1g_b8_fp32
	[ -z "$output" ]
	[[ "$stderr" == *"make maxbatch: fake 1n1g_b8_fp32 neither ran to its end nor ran out of memory ($T/logs/fake/1n1g_b8_fp32); no answer"* ]]
	run -2 --separate-stderr "${MK[@]}" maxbatch KEY=1n1g_b8
	[[ "$stderr" == *"make maxbatch: KEY=1n1g_b8 is not a configuration key <N>n<G>g_b<B>_<fp32|tf32|amp|bf16|fp16>"* ]]
	run -2 --separate-stderr "${MK[@]}" maxbatch
	[[ "$stderr" == *"make maxbatch needs KEY=<N>n<G>g_b<B>_<prec>"* ]]
}

@test "one run asked for itself: its log, or its outcome and a failure" {
	run -0 "${MK[@]}" "$T/logs/fake/1n1g_b16_fp32/3.log"
	[ -f "$T/logs/fake/1n1g_b16_fp32/3.log" ]
	run -2 env FAKE_OOM=1n1g_b32_fp32 "${MK[@]}" "$T/logs/fake/1n1g_b32_fp32/1.log"
	grep -q ' status=oom ' "$T/logs/fake/1n1g_b32_fp32/1.outcome"
	run -2 "${MK[@]}" "$T/logs/fake/1n1g_b32/1.log"
	[[ "$output" == *"$T/logs/fake/1n1g_b32: not a configuration key"* ]]
}

@test "launch's supervisor killed outright: the run fails, its half-written log goes, the logs and result there stay, the job is stopped" {
	d=$T/logs/fake/1n1g_b16_fp32
	run -0 "${MK[@]}" RUNS=1 "$T/results/1n1g_b16_fp32.md"
	cp "$d/1.log" "$T/1.log.before"
	cp "$T/results/1n1g_b16_fp32.md" "$T/md.before"
	FAKE_HANG=1n1g_b16_fp32 FAKE_PIDS=$T/pids "${MK[@]}" RUNS=2 \
		"$T/results/1n1g_b16_fp32.md" >"$T/out" 2>&1 &
	mp=$!
	for _ in $(seq 100); do
		[ -s "$T/pids" ] && break
		sleep 0.1
	done
	read -r shell supervisor sleeper <"$T/pids"
	# launch's header is written: run 2's log is half-written now.
	grep -q '^# launch key=1n1g_b16_fp32 ' "$d/2.log.tmp"
	[ "$(cat "/proc/$supervisor/comm")" = launch ]
	kill -KILL "$supervisor"
	status=0
	wait "$mp" || status=$?
	cat "$T/out"
	[ "$status" -eq 2 ]
	grep -qx 'launch: 1n1g_b16_fp32: supervisor killed by signal 9 (Killed)' "$T/out"
	grep -q 'make: fake 1n1g_b16_fp32 run 2 failed (exit 137); no log kept' "$T/out"
	[ ! -e "$d/2.log" ] && [ ! -e "$d/2.log.tmp" ]
	cmp "$T/1.log.before" "$d/1.log"
	cmp "$T/md.before" "$T/results/1n1g_b16_fp32.md"
	# launch (the outer process) exits only once nothing of the job is left;
	# what is left is named and ended (it would hold this test's output open).
	left=()
	for pid in "$shell" "$sleeper"; do
		state=$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null) || continue
		[ "$state" = Z ] || left+=("$pid")
	done
	[ ${#left[@]} -eq 0 ] || { echo "still running: ${left[*]}"; kill -KILL "${left[@]}"; false; }
}

@test "the JSON result has DLPerf's schema" {
	run -0 "${MK[@]}" RUNS=1 "$T/results/1n1g_b16_fp32.json"
	[[ "$(cat "$T/results/1n1g_b16_fp32.json")" == '{"r50": {"1n1g": {"average_speed": '*', "batch_size_per_device": 16, "median_speed": '*', "speedup": 1.0'* ]]
	# Beside DLPerf's keys: the run's environment, from launch's log.
	python3 -c 'import json, socket, sys
d = json.load(open(sys.argv[1]))
assert list(d["r50"]) == ["1n1g"] and d["r50"]["1n1g"]["batch_size_per_device"] == 16, d
assert d["environment"][0]["hostname"] == socket.gethostname(), d["environment"]' "$T/results/1n1g_b16_fp32.json"
}

@test "a target that is not a configuration key is refused" {
	run -2 "${MK[@]}" "$T/results/4n8g_b128.md"
	[[ "$output" == *"$T/results/4n8g_b128: not a configuration key"* ]]
}

@test "make takes exactly the keys grep-iters takes (lib/key.mk is lib/key.c's grammar)" {
	local k want got keys=0 others=0
	for k in 1n1g_b1_fp32 4n8g_b128_amp 1048576n1048576g_b1048576_bf16 1n2g_b16_fp16 \
		1048577n1g_b1_fp32 1n1048577g_b1_fp32 1n1g_b1048577_tf32 99999999999999999999n1g_b1_fp32 \
		0n1g_b1_fp32 01n1g_b1_fp32 1n1g_b0_fp32 1n01g_b1_fp32 1n1g_b1_fp64 1n1g_b1_ 1n1g \
		1n1g_b1_fp32x x1n1g_b1_fp32 1n1g_b1__fp32; do
		run grep-iters -k "$k" /dev/null
		if [ "$status" -eq 2 ]; then want='!'; else want=$k; fi
		run -0 make -C "$ROOT" --no-print-directory -s CUDA_QUIET=1 print-ladder KEY="$k"
		got=${lines[-1]##* }
		[ "$got" = "$want" ] || { echo "$k: make's ladder ends in '$got', want '$want'"; false; }
		if [ "$want" = '!' ]; then others=$((others + 1)); else keys=$((keys + 1)); fi
	done
	[ "$keys" -eq 4 ] && [ "$others" -eq 14 ]
}

# DLL lines (NGC PyTorch, doc/formats.md) with a constant step time per case.
make_dlperf_tree() {
	local root=$1 c us run
	for c in 1n1g:400000 1n8g:400000 2n8g:500000; do
		us=${c#*:}; c=${c%:*}
		mkdir -p "$root/$c"
		for run in 1 2 3; do
			awk -v us="$us" 'BEGIN {
				t = 1600180153 * 1000000
				for (i = 1; i <= 150; i++) {
					t += us
					s = int(t / 1000000)
					printf "DLL %s.%06d - Epoch: 0 Iteration: %d  train.loss : 6.9  train.total_ips : 1.0 img/s\n",
						strftime("%Y-%m-%d %H:%M:%S", s, 1), t % 1000000, i
				}
			}' > "$root/$c/r50_b128_fp32_$run.log"
		done
	done
}

@test "a DLPerf log tree gives a table without running anything" {
	make_dlperf_tree "$T/dlperf"
	run -0 make -C "$ROOT" --no-print-directory -n LOGDIR="$T/dlperf" RESULTS="$T/results" \
		"$T/results/2n8g_b128_fp32.md"
	! grep -q 'launch' <<<"$output" || false
	run -0 make -C "$ROOT" --no-print-directory LOGDIR="$T/dlperf" RESULTS="$T/results" \
		"$T/results/2n8g_b128_fp32.md"
	[ ! -s "$FAKE_RUNS" ]
	grep -Eq '^\| 1 +\| 1 +\| 128 +\| 320\.00 +\| [0-9.]+ +\| 1\.00 ' "$T/results/2n8g_b128_fp32.md"
	grep -Eq '^\| 1 +\| 8 +\| 128 +\| 2560\.00 +\| [0-9.]+ +\| 8\.00 ' "$T/results/2n8g_b128_fp32.md"
	grep -Eq '^\| 2 +\| 8 +\| 128 +\| 4096\.00 +\| [0-9.]+ +\| 12\.80 ' "$T/results/2n8g_b128_fp32.md"
	[ "$(grep -c '^| [0-9]' "$T/results/2n8g_b128_fp32.md")" -eq 3 ]
}

@test "COMPAT=dlperf reads the same tree with DLPerf's methods and windows" {
	make_dlperf_tree "$T/dlperf"
	# DLPerf drops iterations 1-5 and times kept lines 20..120 (iterations
	# 25..125); ours times iterations 21..120. A 124-iteration log tells them apart.
	f=$T/dlperf/1n1g/r50_b128_fp32_1.log
	run -0 make -C "$ROOT" --no-print-directory COMPAT=dlperf LOGDIR="$T/dlperf" \
		RESULTS="$T/results" "$T/results/1n8g_b128_fp32.json"
	[ "$(cat "$T/results/1n8g_b128_fp32.json")" = '{"r50": {"1n1g": {"average_speed": 320.0, "batch_size_per_device": 128, "median_speed": 320.0, "speedup": 1.0}, "1n8g": {"average_speed": 2560.0, "batch_size_per_device": 128, "median_speed": 2560.0, "speedup": 8.0}}}' ]
	head -124 "$f" > "$f.new" && mv "$f.new" "$f"
	run -2 make -C "$ROOT" --no-print-directory COMPAT=dlperf LOGDIR="$T/dlperf" \
		RESULTS="$T/results" "$T/results/1n8g_b128_fp32.md"
	[[ "$output" == *"window: "*": ngc-pytorch/1n1g_b128_fp32/1: "*"kept lines, need 120"* ]]
	[ ! -e "$T/results/1n8g_b128_fp32.md" ]
	run -0 make -C "$ROOT" --no-print-directory LOGDIR="$T/dlperf" \
		RESULTS="$T/results" "$T/results/1n8g_b128_fp32.md"
}

@test "under make -j runs on the same hosts never overlap" {
	export FAKE_SPANS=$T/spans FAKE_SLEEP=0.5
	run -0 "${MK[@]}" -j4 RUNS=2 "$T/results/1n2g_b16_fp32.md"
	[ "$(wc -l < "$FAKE_SPANS")" -eq 8 ]
	# Serial runs alternate start, end, start, end …
	run -0 awk 'NR % 2 == 1 && $1 != "start" || NR % 2 == 0 && $1 != "end" { bad = 1 } END { exit bad }' "$FAKE_SPANS"
}

@test "a ladder's plot and page: KEY.gp re-plots by hand to KEY.svg, KEY.html holds it; compare too" {
	run -0 "${MK[@]}" "$T/results/1n2g_b16_fp32.html"
	[ "$(sort "$FAKE_RUNS" | uniq -c | awk '{print $1, $2}')" = "2 1n1g_b16_fp32
2 1n2g_b16_fp32" ]
	r=$T/results/1n2g_b16_fp32
	[ -f "$r.md" ] && [ -f "$r.gp" ]
	xmllint --noout "$r.svg"
	gnuplot "$r.gp" | cmp - "$r.svg"
	grep -q 'title "fake b16 fp32 on ' "$r.gp"
	grep -q '<svg' "$r.html" && grep -q '<section id="environment">' "$r.html"
	! ls "$T"/results/*.tmp 2>/dev/null || false
	: > "$FAKE_RUNS"
	run -0 "${MK[@]}" "$T/results/compare_b16_fp32.svg"
	[ ! -s "$FAKE_RUNS" ]
	xmllint --noout "$T/results/compare_b16_fp32.svg"
	grep -q 'frameworks side by side' "$T/results/compare_b16_fp32.gp"
}

@test "each run's progress line has the run's own summary figure, else the time alone" {
	run -0 "${MK[@]}" RUNS=1 "$T/results/1n1g_b16_fp32.md"
	[[ "$output" =~ (^|$'\n')"run: fake 1n1g_b16_fp32 #1 done in "[0-9]+" s: 158.42 samples/s (its summary)"($'\n'|$) ]]
	run -0 env FAKE_NO_SUMMARY=1 "${MK[@]}" RUNS=1 "$T/results/1n2g_b16_fp32.md"
	[[ "$output" =~ (^|$'\n')"run: fake 1n2g_b16_fp32 #1 done in "[0-9]+" s"($'\n'|$) ]]
}

# the speedup records of the logs given, by hand
records() { grep-iters "$@" | window | median | speedup; }

@test "a ladder's records are made once, into KEY.tsv; the table, JSON, plot and page read it" {
	r=$T/results/1n2g_b16_fp32
	run -0 "${MK[@]}" "$r.md"
	records "$T"/logs/fake/1n[12]g_b16_fp32/[12].log > "$T/want"
	cmp "$T/want" "$r.tsv"
	grep -q '^# env framework=fake key=1n1g_b16_fp32 run=1 node=0 hostname=' "$r.tsv"
	table "$r.tsv" | cmp - "$r.md"
	run -0 "${MK[@]}" "$r.json" "$r.gp" "$r.svg" "$r.html"
	[[ "$output" != *grep-iters* ]]
	table -s json "$r.tsv" | cmp - "$r.json"
	plot "$r.tsv" | cmp - "$r.gp"
	plot -s page -t "$r.md" -g "$r.svg" "$r.tsv" | cmp - "$r.html"
	run -0 "${MK[@]}" -n "$r.tsv" "$r.md" "$r.json" "$r.gp" "$r.svg" "$r.html"
	[ "$output" = "make: '$r.tsv' is up to date.
make: '$r.md' is up to date.
make: '$r.json' is up to date.
make: '$r.gp' is up to date.
make: '$r.svg' is up to date.
make: '$r.html' is up to date." ]
}

@test "a .tsv made with other flags or logs is made again: COMPAT, WINDOW, RUNS, FRAMEWORK" {
	r=$T/results/1n1g_b16_fp32
	"${MK[@]}" "$r.md" >/dev/null 2>&1
	run -0 "${MK[@]}" -n "$r.md"
	[ "$output" = "make: '$r.md' is up to date." ]
	run -0 "${MK[@]}" COMPAT=dlperf "$r.md"
	grep -qx '# mode=dlperf' "$r.tsv"
	run -0 "${MK[@]}" -n COMPAT=dlperf "$r.md"
	[ "$output" = "make: '$r.md' is up to date." ]
	run -0 "${MK[@]}" WINDOW='-s 10 -n 100' "$r.md"
	[[ "$output" == *"bin/window -s 10 -n 100 | bin/median"* ]]
	! grep -q '^# mode=dlperf' "$r.tsv" || false
	# two runs' records, then one run's (n, the seventh field)
	[ "$(grep -v '^#' "$r.tsv" | cut -f7)" = 2 ]
	: > "$FAKE_RUNS"
	run -0 "${MK[@]}" WINDOW='-s 10 -n 100' RUNS=1 "$r.md"
	[ "$(grep -v '^#' "$r.tsv" | cut -f7)" = 1 ]
	mkdir -p "$T/logs/other" && cp -r "$T/logs/fake/1n1g_b16_fp32" "$T/logs/other/"
	run -0 "${MK[@]}" FRAMEWORK=other RUNS=1 "$r.md"
	[ ! -s "$FAKE_RUNS" ]
	[ "$(grep -v '^#' "$r.tsv" | cut -f1)" = other ]
}

@test "PUBLISHED's column: a change of PUBLISHED or of its file makes the views again, not the .tsv" {
	r=$T/results/1n2g_b16_fp32
	"${MK[@]}" "$r.md" >/dev/null 2>&1
	printf 'fake\t1n2g_b16_fp32\t300.00\t1.90\n' > "$T/published"
	run -0 "${MK[@]}" PUBLISHED="$T/published" "$r.md"
	[[ "$output" != *grep-iters* ]]
	grep -q '| published |' "$r.md"
	grep -q '^| 1 | 2 | 16 | .* | 300.00 |$' "$r.md"
	printf 'fake\t1n2g_b16_fp32\t301.00\t1.90\n' > "$T/published"
	run -0 "${MK[@]}" PUBLISHED="$T/published" "$r.md"
	grep -q '^| 1 | 2 | 16 | .* | 301.00 |$' "$r.md"
	run -0 "${MK[@]}" "$r.md"
	! grep -q 'published' "$r.md" || false
}

@test "ROOF and PEAK_TFLOPS: the MFU column in every view, made again when they change, not the .tsv" {
	r=$T/results/1n2g_b16_fp32
	printf 'roof fp32 100.0 GFLOP/s 128x128x3x3 s1 28x28 fwd\n' > "$T/roof"
	FAKE_FLOP=100000000 "${MK[@]}" "$r.md" >/dev/null 2>&1
	# launch's energy lines: a J/sample column, "-" here (the fake's clock
	# is not this machine's, and a machine without counters says so)
	grep -q '| noisy | J/sample | memory |$' "$r.md"
	grep -q '^| 1 | 1 | 16 | .* | - | [0-9]* |$' "$r.md"
	grep -q '^- \*\*no MFU\*\*: fake 1n1g_b16_fp32, fake 1n2g_b16_fp32: no peak of its CPUs' "$r.md"
	run -0 "${MK[@]}" ROOF="$T/roof" "$r.md" "$r.json"
	[[ "$output" != *grep-iters* ]]
	# 158.42 samples/s x 0.1 GFLOP / 100 GFLOP/s; 1n2g: 313.73 on one node's CPUs
	grep -q '^| 1 | 1 | 16 | 158.42 | .* | - | 15.8 | [0-9]* |$' "$r.md"
	grep -q '^| 1 | 2 | 16 | 313.73 | .* | - | 31.4 | [0-9]* |$' "$r.md"
	grep -q '"mfu_percent": 15.84' "$r.json"
	run -0 "${MK[@]}" PEAK_TFLOPS=0.2 "$r.md"
	grep -q '^| 1 | 1 | 16 | 158.42 | .* | - | 7.9 | [0-9]* |$' "$r.md"
	# a ROOF not there yet is measured by bin/perf-roof before the table
	run -0 "${MK[@]}" -n ROOF="$T/new/roof" "$r.md"
	[[ "$output" == *"bin/perf-roof > $T/new/roof.tmp"* ]]
}

@test "compare goes through its .tsv and honours WINDOW" {
	"${MK[@]}" "$T/results/1n2g_b16_fp32.md" >/dev/null 2>&1
	c=$T/results/compare_b16_fp32
	run -0 "${MK[@]}" "$c.md"
	records "$T"/logs/fake/1n[12]g_b16_fp32/[12].log | cmp - "$c.tsv"
	table -s compare "$c.tsv" | cmp - "$c.md"
	run -2 "${MK[@]}" WINDOW='-s 100 -n 50' "$c.md"
	[[ "$output" == *"window: "*": fake/1n1g_b16_fp32/1: 120 iterations, need 150"* ]]
	[ ! -e "$c.tsv.tmp" ]
	run -2 "${MK[@]}" "$T/results/compare_b32_fp32.md"
	[[ "$output" == *"no logs of *_b32_fp32 under $T/logs"* ]]
}

@test "make compare reads logs as the results do: COMPAT, ALIAS and WINDOW reach it" {
	run -0 "${MK[@]}" -n compare BASE="$T/base" COMPAT=dlperf ALIAS=fp16=amp WINDOW='-s 3 -n 7'
	[[ "$output" == *'runs() { bin/grep-iters -c dlperf -a fp16=amp $(for d in $common; do echo "$1/$d"/*.log; done) | bin/window -s 3 -n 7 '* ]]
}
