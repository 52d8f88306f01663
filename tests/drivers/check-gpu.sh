#!/usr/bin/env bash
# tests/drivers/check-gpu.sh BIN DIR: the checks of `make check-gpu` (and of
# gpu-first-run's check part). bench-cuda's first step in fp32 and in amp
# (static loss scale 128: at the dynamic 2^16 the first step's fp16 weight
# gradients of a random-init network may overflow, and a skipped step has
# nothing to compare), and IResNet-50 with the ArcFace head in fp32 (one rank:
# the whole classifier; "arcface" below), each written with --export into
# DIR, against:
#
#   bench's CPU backend   the same weights and batch through bin/bench in fp32,
#                         compared by check-gpu-compare (doc/gpu.md's bounds);
#                         where a CPU bench runs here: BIN/bench, else
#                         CHECK_GPU_CPU_BENCH (a program; LD_LIBRARY_PATH as
#                         given), else skipped and said so
#   PyTorch in float64    tests/torch_reference.py on the CPU, where PYTHON
#                         (python3) imports torch; amp's gradients divided by
#                         the loss scale first (exact: a power of 2)
#
# One verdict line per comparison, last:
#   check-gpu fp32 against bench's CPU backend: ok | FAIL | skipped (why)
# Exit 1 when an export or a comparison fails, else 0 (skipped is not a
# failure, and not a pass: the line says which). Reads BIN's programs and
# tests/torch_reference.py; writes DIR (emptied first) and stdout.
set -uo pipefail

[ $# -eq 2 ] || { echo "usage: check-gpu.sh BIN DIR" >&2; exit 2; }
bin=$1 dir=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ref=$here/../torch_reference.py
py=${PYTHON:-python3}
flags=(--batch 8 --image 64 --classes 10 --seed 7 --lr 0.1 --momentum 0.9 --weight-decay 1e-4)
# arcface: 32 px (IResNet keeps the stem's resolution: 64 px is 4x the work);
# seed 1, tests/bench-torch.bats' one: at seed 7 a PReLU input of layer3.10
# lies within float32's rounding of 0 and bench's CPU step itself flips it
# (2e-2 in that block's gradients), a lump torch's float32 does not draw
arcface=(--model iresnet50 --head arcface --batch 8 --image 32 --classes 10 --seed 1 --lr 0.1
	--momentum 0.9 --weight-decay 1e-4 --precision fp32)
scale=128
failed=0
verdicts=()

# verdict WHAT RESULT
verdict() { verdicts+=("check-gpu $1: $2"); }

# step NAME CMD...: the command's output under a heading; its status
step() {
	local name=$1 rc=0
	shift
	printf '\n-- %s\n$ %s\n' "$name" "$*"
	"$@" 2>&1 || rc=$?
	printf -- '-- %s: exit %d\n' "$name" "$rc"
	return "$rc"
}

rm -rf "$dir"
mkdir -p "$dir/fp32" "$dir/amp" "$dir/amp-unscaled" "$dir/arcface" "$dir/cpu" "$dir/cpu-arcface"

exported=()
step "bench-cuda fp32 export" "$bin/bench-cuda" --export "$dir/fp32" --precision fp32 "${flags[@]}" &&
	exported+=(fp32) || failed=1
step "bench-cuda amp export" "$bin/bench-cuda" --export "$dir/amp" --precision amp \
	--loss-scale "$scale" "${flags[@]}" && exported+=(amp) || failed=1
step "bench-cuda arcface export" "$bin/bench-cuda" --export "$dir/arcface" "${arcface[@]}" &&
	exported+=(arcface) || failed=1
for p in fp32 amp arcface; do
	[[ " ${exported[*]} " == *" $p "* ]] || verdict "$p" "FAIL (bench-cuda's $p export failed)"
done

# ---- bench's CPU backend ---------------------------------------------------
cpu=${CHECK_GPU_CPU_BENCH:-$bin/bench}
why=
if ! [ -x "$cpu" ]; then
	why="no CPU bench: $cpu not built (oneDNN not found); CHECK_GPU_CPU_BENCH=PROGRAM"
elif ! step "CPU bench export" "$cpu" --export "$dir/cpu" --precision fp32 "${flags[@]}"; then
	why="$cpu --export failed"
elif [[ " ${exported[*]} " == *" arcface "* ]] &&
	! step "CPU bench arcface export" "$cpu" --export "$dir/cpu-arcface" "${arcface[@]}"; then
	why="$cpu --export (arcface) failed"
fi
for p in "${exported[@]}"; do
	what="$p against bench's CPU backend"
	if [ -n "$why" ]; then
		verdict "$what" "skipped ($why)"
		continue
	fi
	g=() c=$dir/cpu q=$p
	[ "$p" = amp ] && g=(-g "$scale")
	[ "$p" = arcface ] && c=$dir/cpu-arcface q=fp32
	if step "compare $p with the CPU" "$bin/check-gpu-compare" compare "${g[@]}" "$q" \
		"$c" "$dir/$p"; then
		verdict "$what" ok
	else
		verdict "$what" FAIL
		failed=1
	fi
done

# ---- PyTorch in float64 ----------------------------------------------------
if ! "$py" -c 'import torch, torchvision, numpy' 2>/dev/null; then
	for p in "${exported[@]}"; do
		verdict "$p against PyTorch float64" "skipped ($py cannot import torch, torchvision, numpy)"
	done
	exported=()
fi
for p in "${exported[@]}"; do
	d=$dir/$p
	if [ "$p" = amp ]; then
		# the gradients without the loss scale; the rest as exported
		d=$dir/amp-unscaled
		for f in "$dir/amp"/*; do
			[ "$(basename "$f")" = grads.f32 ] || cp "$f" "$d/"
		done
		"$py" -c 'import numpy as n, sys
(n.fromfile(sys.argv[1], "<f4") / float(sys.argv[3])).astype("<f4").tofile(sys.argv[2])' \
			"$dir/amp/grads.f32" "$d/grads.f32" "$scale" || failed=1
	fi
	m=(--precision "$p")
	[ "$p" = arcface ] && m=(--precision fp32 --model iresnet50 --head arcface)
	rc=0
	step "compare $p with PyTorch float64" "$py" "$ref" "${m[@]}" --threads "$(nproc)" \
		--lr 0.1 --momentum 0.9 --weight-decay 1e-4 "$d" || rc=$?
	case $rc in
	0) verdict "$p against PyTorch float64" ok ;;
	77) verdict "$p against PyTorch float64" "skipped (torch_reference.py: no torch)" ;;
	*)
		verdict "$p against PyTorch float64" FAIL
		failed=1
		;;
	esac
done

echo
printf '%s\n' "${verdicts[@]}"
exit "$failed"
