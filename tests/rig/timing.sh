#!/usr/bin/env bash
# timing.sh — how long launch takes to start ranks across the rig's hosts:
# a trivial command (true) as 2n1g (2 ranks, 2 hosts), 2n2g (4 ranks,
# 2 hosts) and 4n1g (4 ranks, 4 hosts); wall time of launch from start to
# exit, median of RUNS (default 5) by the median filter. Prints one line
# per configuration. Needs root; builds and removes its own rig.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
launch=${LAUNCH:-$here/../../bin/launch}
median=${MEDIAN:-$here/../../bin/median}
runs=${RUNS:-5}
dir=$(mktemp -d)
trap '"$here/down.sh" "$dir"; rm -rf "$dir"' EXIT
"$here/up.sh" 4 "$dir" 2
# shellcheck source=/dev/null
. "$dir/env"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

echo "launch start-up across network namespaces, median of $runs, $(date -u +%Y-%m-%d)"
for key in 2n1g_b1_fp32 2n2g_b1_fp32 4n1g_b1_fp32; do
	times=()
	for _ in $(seq "$runs"); do
		t0=$(date +%s.%N)
		"$launch" -t 60 -H "$dir/hosts" "$key" -- true >/dev/null
		t1=$(date +%s.%N)
		times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')")
	done
	# As window records (framework, key, run, value): median's third field.
	med=$(for i in "${!times[@]}"; do
		printf 'launch\t%s\t%d\t%s\n' "$key" "$((i + 1))" "${times[i]}"
	done | "$median" | cut -f3)
	case=${key%%_*} nodes=${key%%n*} gpus=${case#*n}
	printf '%-6s %s ranks  median %.2f s  (runs: %s)\n' "$case" "$((nodes * ${gpus%g}))" \
		"$med" "$(printf '%.2f ' "${times[@]}")"
done
