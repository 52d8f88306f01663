#!/usr/bin/env bats
# outcome: what became of a run that left no log, from its partial log and
# its stderr. fixtures/outcome/<name>.err: what a failed run of a framework
# (or of CUDA, cuDNN, NCCL, bench) printed, in the form each prints it;
# <name>.expected beside it: outcome's line for it, byte for byte
# (<name>.flags: its command line's -x, else -x 1).

load helper

O="$FIXTURES/outcome"

@test "every fixture gives its expected outcome line" {
	local n=0 f flags
	for f in "$O"/*.err; do
		flags=(-x 1)
		[ ! -e "${f%.err}.flags" ] || read -ra flags <"${f%.err}.flags"
		run -0 outcome -F fw -k 1n8g_b256_fp32 -r 1 "${flags[@]}" "$f"
		[ "$output" = "$(cat "${f%.err}.expected")" ] ||
			{ echo "$f: got $output"; false; }
		n=$((n + 1))
	done
	[ "$n" -ge 18 ]
}

@test "each framework's out-of-memory message is out of memory; TensorFlow's retried allocations and other failures are not" {
	local f
	for f in pytorch pytorch-1.6 pytorch-cuda-error pytorch-cpu tensorflow paddle paddle-1.8 \
		mxnet oneflow-0.1.8 oneflow mindspore cudnn nccl bench-cuda; do
		grep -q ' status=oom ' "$O/$f.expected" || { echo "$f: not oom"; false; }
	done
	for f in tensorflow-retried failed killed; do
		grep -q ' status=failed ' "$O/$f.expected" || { echo "$f: not failed"; false; }
	done
	grep -q ' status=timeout exit=124 reason=launch:%201n8g_b256_fp32:%20timed%20out%20after%203600%20s$' "$O/timeout.expected"
}

@test "the reason is the last out-of-memory line, else the last error line that is not launch's, in the meta lines' encoding" {
	run -0 outcome -F fw -k 1n8g_b256_fp32 -r 1 -x 1 "$O/paddle.err"
	[ "$output" = "# outcome framework=fw key=1n8g_b256_fp32 run=1 status=oom exit=1 reason=Out%20of%20memory%20error%20on%20GPU%200.%20Cannot%20allocate%201.531250GB%20memory%20on%20GPU%200,%20available%20memory%20is%20only%20416.625000MB." ]
	run -0 outcome -F fw -k 1n8g_b256_fp32 -r 1 -x 1 "$O/failed.err"
	[ "$output" = "# outcome framework=fw key=1n8g_b256_fp32 run=1 status=failed exit=1 reason=ModuleNotFoundError:%20No%20module%20named%20'horovod'" ]
}

@test "a log and a stderr are read in order; meta lines are not read; with nothing to say, no reason" {
	printf '# env node=0 hostname=OutOfMemoryError\niter=1 loss=6.9\n' > "$BATS_TEST_TMPDIR/1.log"
	printf 'fake-train: failing on purpose\n' > "$BATS_TEST_TMPDIR/1.err"
	run -0 outcome -F fake -k 1n1g_b16_fp32 -r 2 -x 3 "$BATS_TEST_TMPDIR/1.log" "$BATS_TEST_TMPDIR/1.err"
	[ "$output" = "# outcome framework=fake key=1n1g_b16_fp32 run=2 status=failed exit=3 reason=fake-train:%20failing%20on%20purpose" ]
	run -0 outcome -F fake -k 1n1g_b16_fp32 -r 2 -x 3 /dev/null
	[ "$output" = "# outcome framework=fake key=1n1g_b16_fp32 run=2 status=failed exit=3" ]
	run -0 bash -c "printf 'RuntimeError: CUDA out of memory.\n' | outcome -F fake -k 1n1g_b16_fp32 -r 2 -x 1"
	[ "$output" = "# outcome framework=fake key=1n1g_b16_fp32 run=2 status=oom exit=1 reason=RuntimeError:%20CUDA%20out%20of%20memory." ]
}

@test "a long reason is cut to 200 bytes between characters; a NUL byte ends its line's text" {
	{ printf 'RuntimeError: CUDA out of memory. '; for i in $(seq 60); do printf 'é'; done
		printf '%0300d\n' 0; } > "$BATS_TEST_TMPDIR/long.err"
	run -0 outcome -F fw -k 1n1g_b16_fp32 -r 1 -x 1 "$BATS_TEST_TMPDIR/long.err"
	reason=$(sed 's/.* reason=//' <<<"$output" | sed 's/%20/ /g')
	[ "$(printf '%s' "$reason" | wc -c)" -le 200 ]
	[[ "$reason" == "RuntimeError: CUDA out of memory. é"* ]]
	printf '%s' "$reason" | iconv -f UTF-8 -t UTF-8 >/dev/null
	printf 'launch: 1n1g_b16_fp32: failed with exit status 1\nboom\000 CUDA out of memory\n' > "$BATS_TEST_TMPDIR/nul.err"
	run -0 outcome -F fw -k 1n1g_b16_fp32 -r 1 -x 1 "$BATS_TEST_TMPDIR/nul.err"
	[ "$output" = "# outcome framework=fw key=1n1g_b16_fp32 run=1 status=failed exit=1 reason=launch:%201n1g_b16_fp32:%20failed%20with%20exit%20status%201" ]
}

@test "a run launch says was interrupted has no outcome: nothing written, exit 3" {
	for line in 'interrupted by signal 2 (Interrupt)' 'supervisor killed by signal 9 (Killed)' \
		'launch was killed, stopping the job'; do
		run -3 --separate-stderr bash -c "printf 'CUDA out of memory\nlaunch: 1n1g_b16_fp32: %s\n' '$line' |
			outcome -F fw -k 1n1g_b16_fp32 -r 1 -x 130"
		[ -z "$output" ] && [ -z "$stderr" ]
	done
	# another key's line is not this run's
	run -0 bash -c "printf 'launch: 1n2g_b16_fp32: interrupted by signal 2 (Interrupt)\n' |
		outcome -F fw -k 1n1g_b16_fp32 -r 1 -x 130"
	[ "$output" = "# outcome framework=fw key=1n1g_b16_fp32 run=1 status=failed exit=130 reason=launch:%201n2g_b16_fp32:%20interrupted%20by%20signal%202%20(Interrupt)" ]
}

@test "bench's own out-of-memory message, on the CPU backend, is read as out of memory" {
	need_bin bench
	run -0 bash -c 'ulimit -v 4000000; bench --batch 4096 --iters 1 --image 224 2>&1 >/dev/null |
		outcome -F bench -k 1n1g_b4096_fp32 -r 1 -x 1'
	[[ "$output" == "# outcome framework=bench key=1n1g_b4096_fp32 run=1 status=oom exit=1 reason=bench:%20out%20of%20device%20memory:%20"*"%20MiB%20more%20of%20this%20host's%20memory%20(Cannot%20allocate%20memory);%20a%20smaller%20--batch%20may%20fit" ]]
}

@test "a bad command line is a usage error" {
	run -2 --separate-stderr outcome -F fw -k 1n1g_b16_fp32 -r 1
	[[ "$stderr" == "usage: outcome -F framework -k key -r run -x exit [file ...]"* ]]
	run -2 --separate-stderr outcome -F fw -k 1n1g_b16 -r 1 -x 1
	[ "$stderr" = "outcome: -k: '1n1g_b16' is not <N>n<G>g_b<B>_<prec>" ]
	run -2 --separate-stderr outcome -F fw -k 1n1g_b16_fp32 -r 1 -x 0
	[ "$stderr" = "outcome: -x: '0' is out of range 1..255" ]
	run -2 --separate-stderr outcome -F '' -k 1n1g_b16_fp32 -r 1 -x 1
	[ "$stderr" = "outcome: -F: empty framework" ]
}

@test "an unreadable file is an error naming it; a full disk is a failure" {
	run -1 --separate-stderr outcome -F fw -k 1n1g_b16_fp32 -r 1 -x 1 "$BATS_TEST_TMPDIR/none"
	[ "$stderr" = "outcome: $BATS_TEST_TMPDIR/none: No such file or directory" ]
	run -1 --separate-stderr bash -c "outcome -F fw -k 1n1g_b16_fp32 -r 1 -x 1 /dev/null > /dev/full"
	[ "$stderr" = "outcome: <stdout>: write error: No space left on device" ]
}
