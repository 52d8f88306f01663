#!/usr/bin/env bats
# bench --profile (where a step's time goes, per layer and op) and
# bin/perf-step-roof (the step's roof, op by op), on the CPU backend. The
# table's arithmetic is checked, never its speed: small images, seconds each.

load helper

RUN="--image 32 --batch 2 --classes 10 --iters 3 --warmup 1 --seed 3"

# The profile's rows of the log in $output as "layer op ms share" lines.
rows() {
	grep '^# profile ' <<<"$output" | awk '$3 != "layer" && $3 != "kind" && $3 != "total" && $3 !~ /^steps=/ { print $3, $4, $5, $6 }'
}

@test "--profile has a row for every op of every layer, the loss and the update" {
	run -0 bash -c "bench $RUN --profile 2>/dev/null"
	out="$output"
	run -0 bench --describe --image 32 --batch 2 --classes 10
	want=$(awk '$1 ~ /^[0-9]+$/ {
		if ($3 == "conv") { print $2, "conv-fwd"; print $2, "conv-bwd-weights"; if ($2 != "conv1") print $2, "conv-bwd-data" }
		else if ($3 ~ /^bn/) { print $2, "bn-fwd"; print $2, "bn-bwd" }
		else if ($3 ~ /pool$/) { print $2, "pool-fwd"; print $2, "pool-bwd" }
		else if ($3 == "fc") { print $2, "fc-fwd"; print $2, "fc-bwd" } }' <<<"$output" | sort)
	[ "$(wc -l <<<"$want")" -eq 270 ]
	output="$out"
	got=$(rows | awk '$2 != "reorder" && $2 != "dx-add" && $1 != "-" { print $1, $2 }' | sort)
	[ "$got" = "$want" ]
	[ "$(rows | awk '$1 == "-" { print $2 }' | sort | paste -sd' ')" = "loss other update" ]
	# the CPU backend's own steps: weight reorders, the dx of a block's input added
	rows | grep -q '^layer1.0.conv1 reorder '
	rows | grep -q '^layer1.0.conv1 dx-add '
}

@test "--profile: the rows' milliseconds and shares add up to the step" {
	run -0 bash -c "bench $RUN --profile 2>/dev/null"
	head=$(grep '^# profile steps=' <<<"$output")
	[[ "$head" =~ ^#\ profile\ steps=2\ step_ms=[0-9]+\.[0-9]{3}\ rows_ms=([0-9]+\.[0-9]{3})\ roof=none$ ]]
	total=${BASH_REMATCH[1]}
	# the ms add up within their rounding; each share is its row's ms over the
	# rows' total, to its one decimal (their sum is not 100: 343 rows, many of
	# them under 0.05 %, each printed as 0.0 %)
	# (a share to 0.05, and its ms to 0.0005 of t: 0.05 / t of a share)
	rows | awk -v t="$total" '{ ms += $3; d = $4 - 100 * $3 / t; e = 0.05 + 0.05 / t + 1e-9
		if (d > e || d < -e) { print "row", NR, $0, "share off by", d; bad = 1 } }
		END { if (bad) exit 1; n = NR; if (n < 270 || ms - t > 0.0005 * n || t - ms > 0.0005 * n) exit 1 }'
	# two timed steps: the median is the mean, of the step as of its parts
	[[ "$head" =~ step_ms=([0-9.]+) ]]
	awk -v s="${BASH_REMATCH[1]}" -v t="$total" 'BEGIN { exit !(t > 0.99 * s && t < 1.01 * s) }'
}

@test "--profile: the kinds sum their rows, and the total sums the kinds" {
	run -0 bash -c "bench $RUN --profile 2>/dev/null"
	grep '^# profile kind ' <<<"$output" | awk '$4 != "op" { print $4, $5 }' | sort >"$BATS_TEST_TMPDIR/kinds"
	rows | awk '{ ms[$2] += $3 } END { for (k in ms) printf "%s %.3f\n", k, ms[k] }' | sort >"$BATS_TEST_TMPDIR/sums"
	join "$BATS_TEST_TMPDIR/kinds" "$BATS_TEST_TMPDIR/sums" | awk '{ d = $2 - $3; if (d < 0) d = -d; if (d > 0.05) exit 1; n++ } END { exit n < 12 }'
	[ "$(wc -l <"$BATS_TEST_TMPDIR/kinds")" -eq "$(wc -l <"$BATS_TEST_TMPDIR/sums")" ]
	total=$(grep '^# profile total ' <<<"$output" | awk '{ print $5 }')
	awk -v t="$total" '{ s += $2 } END { d = s - t; if (d < 0) d = -d; exit !(d < 0.02) }' "$BATS_TEST_TMPDIR/kinds"
	grep -q "^# profile total  *step  *$total 100.0% " <<<"$output"
}

@test "off by default: no profile lines, the same losses as with --profile" {
	# the algorithms pinned: find may keep others from run to run
	run -0 bash -c "bench $RUN --conv-algo direct 2>/dev/null"
	[ "$(grep -c '^# profile' <<<"$output")" -eq 0 ]
	[ "$(grep -c . <<<"$output")" -eq 10 ] # header, 4 env lines, 3 steps, summary, end
	plain=$(grep -o 'loss=[^ ]*' <<<"$output")
	run -0 bash -c "bench $RUN --conv-algo direct --profile 2>/dev/null"
	[ "$(grep -o 'loss=[^ ]*' <<<"$output")" = "$plain" ]
	[[ "${lines[-1]}" =~ ^#\ end\ iters=3\  ]]
}

@test "--roof is only for --profile; --profile refuses --graph" {
	run -2 bench --image 32 --roof /dev/null
	[[ "$output" == *"bench: --roof: only with --profile"* ]]
	run -2 bench --image 32 --profile --graph
	[[ "$output" == *"--profile: not with --graph"* ]]
}

@test "the step roof has one op per op of the step; bench --profile takes its bounds" {
	run -0 --separate-stderr perf-step-roof -i 32 -b 2 -c 10 -n 1
	roof="$BATS_TEST_TMPDIR/roof.txt"
	printf '%s\n' "${lines[@]}" >"$roof"
	[[ "${lines[0]}" =~ ^#\ roof\ model=resnet50\ image=32\ batch=2\ precision=fp32\ classes=10\ threads=[0-9]+\ bandwidth_gbs=[0-9.]+\ reps=1$ ]]
	[ "$(grep -c '^op ' "$roof")" -eq 272 ]
	# the step is the sum of its ops, images/s the batch over it
	awk '$1 == "op" { s += $4 } $1 == "roof" { split($2, a, "="); split($3, b, "=")
		if (a[2] - s > 0.01 || s - a[2] > 0.01) exit 1
		r = 2000 / a[2]; if (b[2] - r > 0.01 * r + 0.01 || r - b[2] > 0.01 * r + 0.01) exit 1; ok = 1 }
		END { exit !ok }' "$roof"
	grep -q '^op layer2.0.conv2 conv-fwd [0-9.]* [0-9]* [0-9]* [0-9.]* \(direct\|winograd\)$' "$roof"
	grep -q '^op - update [0-9.]* 0 [0-9]* [0-9.]* bandwidth$' "$roof"
	run -0 bash -c "bench $RUN --profile --roof '$roof' 2>/dev/null"
	# each op's bound in the profile is the roof's, rounded
	rows_b=$(grep '^# profile ' <<<"$output" | awk '$3 != "layer" && $3 != "kind" && $3 != "total" && $3 !~ /^steps=/ && $(NF-1) != "-" { print $3, $4, $(NF-1) }' | sort)
	[ "$(wc -l <<<"$rows_b")" -eq 272 ]
	join -j1 <(awk '$1 == "op" { print $2 "/" $3, $4 }' "$roof" | sort) \
		<(awk '{ print $1 "/" $2, $3 }' <<<"$rows_b" | sort) |
		awk '{ d = $2 - $3; if (d < 0) d = -d; if (d > 0.0006) exit 1; n++ } END { exit n != 272 }'
}

@test "a roof of another configuration, or a bad line in it, is an error naming the file" {
	printf '# roof model=resnet50 image=64 batch=2 precision=fp32 classes=10\n' >"$BATS_TEST_TMPDIR/r"
	run -1 --separate-stderr bench $RUN --profile --roof "$BATS_TEST_TMPDIR/r"
	[ "$stderr" = "bench: $BATS_TEST_TMPDIR/r:1: a roof of another configuration (want image=32 batch=2 precision=fp32)" ]
	printf '# roof model=resnet50 image=32 batch=2 precision=fp32 classes=10\nop layer9.0.conv1 conv-fwd 1.0\n' >"$BATS_TEST_TMPDIR/r"
	run -1 --separate-stderr bench $RUN --profile --roof "$BATS_TEST_TMPDIR/r"
	[ "$stderr" = "bench: $BATS_TEST_TMPDIR/r:2: no op 'layer9.0.conv1 conv-fwd' in this model" ]
	printf '# roof model=resnet50 image=32 batch=2 precision=fp32 classes=10\nop conv1 conv-fwd x\n' >"$BATS_TEST_TMPDIR/r"
	run -1 --separate-stderr bench $RUN --profile --roof "$BATS_TEST_TMPDIR/r"
	[ "$stderr" = "bench: $BATS_TEST_TMPDIR/r:2: want 'op LAYER KIND BOUND_MS ...'" ]
	run -1 --separate-stderr bench $RUN --profile --roof "$BATS_TEST_TMPDIR/none"
	[[ "$stderr" == "bench: $BATS_TEST_TMPDIR/none: "* ]]
}

@test "--profile over 2 ranks has the allreduce wait as a row of its own" {
	command -v mpirun || skip "mpirun not installed"
	run -0 --separate-stderr mpirun -np 2 --bind-to none bench $RUN --profile
	[ "$(grep -c '^# profile steps=2 ' <<<"$output")" -eq 1 ]
	[ "$(rows | awk '$1 == "-" { print $2 }' | sort | paste -sd' ')" = "allreduce-wait loss other update" ]
}
