#!/usr/bin/env bash
# bench/cuda/first-run.sh BIN OUT: what `make gpu-first-run` runs on a machine
# with GPUs, into one file (OUT) to keep or send: the devices, check-gpu's
# comparison with the CPU, the allreduce benchmark over this node's GPUs, a
# short run at each precision with its start-up lines (the batch-norm line
# among them), and the same in amp over all GPUs. doc/gpu.md says what each
# part should look like on an A100 or H100 and what to suspect when not.
#
# No GPU: says so on stderr, exit 1, and writes nothing. Otherwise every part
# runs even when one before it failed; each ends with its exit status, the
# file is written whole (OUT.tmp renamed) and the exit status is 1 if any
# part failed. Knobs: FIRST_RUN_BATCH (256), FIRST_RUN_ITERS (40),
# MPIRUN (mpirun).
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: first-run.sh BIN OUT" >&2; exit 2; }
bin=$1 out=$2
batch=${FIRST_RUN_BATCH:-256} iters=${FIRST_RUN_ITERS:-40} mpirun=${MPIRUN:-mpirun}

devices=$("$bin/check-gpu-compare" devices) || exit 1
ngpu=$(grep -c '^device ' <<<"$devices")
tmp=$out.tmp
trap 'rm -f "$tmp"' EXIT
failed=0

# part TITLE CMD...: the command's stdout and stderr under a heading, then its status
part() {
	local title=$1 rc=0
	shift
	printf '\n## %s\n$ %s\n' "$title" "$*"
	"$@" 2>&1 || rc=$?
	printf '# exit %d\n' "$rc"
	[ "$rc" -eq 0 ] || failed=1
}

{
	printf '# dlbench gpu-first-run %s on %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(hostname)"
	printf '%s\n' "$devices"
	part "driver" nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm \
		--format=csv
	part "check-gpu: CPU and GPU on the same weights and batch" make --no-print-directory \
		CUDA_QUIET=1 check-gpu
	if [ "$ngpu" -gt 1 ]; then
		part "allreduce over $ngpu GPUs" "$mpirun" -np "$ngpu" --bind-to none \
			"$bin/bench-cuda-allreduce" --min-bytes 1048576 --max-bytes 268435456
	else
		part "allreduce on one GPU (nothing moves)" "$bin/bench-cuda-allreduce" \
			--min-bytes 1048576 --max-bytes 4194304 --iters 5 --warmup 1
	fi
	for p in fp32 tf32 amp bf16; do
		part "one GPU, $p, batch $batch" "$bin/bench-cuda" --precision "$p" --batch "$batch" \
			--iters "$iters" --warmup 10
	done
	part "one GPU, amp, --graph" "$bin/bench-cuda" --precision amp --batch "$batch" \
		--iters "$iters" --warmup 10 --graph
	if [ "$ngpu" -gt 1 ]; then
		part "$ngpu GPUs, amp, batch $batch each" "$mpirun" -np "$ngpu" --bind-to none \
			"$bin/bench-cuda" --precision amp --batch "$batch" --iters "$iters" --warmup 10
	fi
} >"$tmp"
mv "$tmp" "$out"
trap - EXIT
echo "gpu-first-run: $out written$([ "$failed" -eq 0 ] || echo ', some parts failed (see # exit)')" >&2
exit "$failed"
