#!/usr/bin/env bats
# Many nodes on one machine: launch across the test rig's network namespaces
# (tests/rig/up.sh), Open MPI started in each by tests/rig/agent, its TCP
# restricted to the rig's subnet. Runs, and the failures that must lose
# nothing: a rank killed, a host unreachable, a hang, a wrong world size.
# Needs root and `ip netns`; skipped otherwise.

load helper
bats_require_minimum_version 1.5.0

RIG="$BATS_TEST_DIRNAME/rig"

setup_file() {
	# Bats 1.8 cannot skip from setup_file: each test skips with the reason.
	export RIG_SKIP=
	if [ "$(id -u)" -ne 0 ]; then
		RIG_SKIP="needs root for network namespaces"
	elif ! command -v ip >/dev/null || ! ip netns list >/dev/null 2>&1; then
		RIG_SKIP="ip netns (iproute2) is not available"
	elif ! command -v mpicc >/dev/null || ! command -v mpirun >/dev/null; then
		RIG_SKIP="Open MPI (mpicc, mpirun) is not installed"
	fi
	[ -z "$RIG_SKIP" ] || return 0
	export RIGDIR="$BATS_FILE_TMPDIR/rig"
	mkdir -p "$RIGDIR"
	# 4 hosts with 2 slots each; down.sh also undoes a half-built rig.
	"$RIG/up.sh" 4 "$RIGDIR" 2 || { "$RIG/down.sh" "$RIGDIR"; return 1; }
	mpicc -std=c11 -D_DEFAULT_SOURCE -Wall -Wextra -Werror -o "$BATS_FILE_TMPDIR/allreduce" \
		"$RIG/allreduce.c"
}

teardown_file() {
	if [ -n "${RIGDIR:-}" ]; then
		"$RIG/down.sh" "$RIGDIR"
	fi
}

setup() {
	common_setup
	[ -z "$RIG_SKIP" ] || skip "$RIG_SKIP"
	# shellcheck source=/dev/null
	. "$RIGDIR/env"
	NET=$DLBENCH_RIG_NET
	HOSTS="$RIGDIR/hosts"
	AR="$BATS_FILE_TMPDIR/allreduce"
}

# Every namespace of the rig is empty within a few seconds (remote daemons
# notice that mpirun is gone and stop their ranks).
rig_empty() {
	local ns left
	for _ in $(seq 50); do
		left=
		while read -r _ ns; do
			left="$left$(ip netns pids "$ns" | tr '\n' ' ')"
		done <"$RIGDIR/map"
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	echo "still running in the rig: $left"
	ps -o pid,args -p "${left// /,}" || true
	return 1
}

# The first n hosts of the rig as a host file.
hosts() {
	head -n "$1" "$HOSTS" >"$BATS_TEST_TMPDIR/hosts"
	echo "$BATS_TEST_TMPDIR/hosts"
}

@test "the agent runs a command line in the namespace of its host, after ssh-style options" {
	run --separate-stderr "$RIG/agent" -x -o BatchMode=yes "$NET.2" 'ip -o -4 addr show eth0 |' \
		"awk '{print \$4}'"
	[ "$status" -eq 0 ]
	[ "$output" = "$NET.2/24" ]
	run --separate-stderr "$RIG/agent" "$NET.9" true
	[ "$status" -eq 255 ]
	[ "$stderr" = "agent: $NET.9: no such test host" ]
}

@test "2n1g: one rank in each of two namespaces, allreduce across them" {
	run --separate-stderr launch -t 60 -H "$(hosts 2)" 2n1g_b8_fp32 -- "$AR"
	drop_meta
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "# launch key=2n1g_b8_fp32 hosts=$NET.1:1,$NET.2:1 start="* ]]
	[ "$(printf '%s\n' "${lines[@]:1}" | sort)" = "rank 0 of 2 on $NET.1 sum 3
rank 1 of 2 on $NET.2 sum 3" ]
	rig_empty
}

@test "2n2g: two ranks in each of two namespaces" {
	run --separate-stderr launch -t 60 -H "$(hosts 2)" 2n2g_b8_fp32 -- "$AR"
	drop_meta
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "${lines[@]:1}" | sort)" = "rank 0 of 4 on $NET.1 sum 10
rank 1 of 4 on $NET.1 sum 10
rank 2 of 4 on $NET.2 sum 10
rank 3 of 4 on $NET.2 sum 10" ]
	rig_empty
}

@test "4n1g: one rank in each of four namespaces" {
	run --separate-stderr launch -t 60 -H "$HOSTS" 4n1g_b8_fp32 -- "$AR"
	drop_meta
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "${lines[@]:1}" | sort)" = "rank 0 of 4 on $NET.1 sum 10
rank 1 of 4 on $NET.2 sum 10
rank 2 of 4 on $NET.3 sum 10
rank 3 of 4 on $NET.4 sum 10" ]
}

@test "the allreduce crosses the namespace boundary over TCP on the rig's subnet" {
	run --separate-stderr env OMPI_MCA_btl_base_verbose=30 launch -t 60 -H "$(hosts 2)" \
		2n1g_b8_fp32 -- "$AR"
	[ "$status" -eq 0 ]
	# Rank 0 (on .1) sends to rank 1 on .2 through the tcp BTL; no shared memory.
	grep -E "bml: Using tcp btl for send to \[\[[0-9]+,1\],1\] on node $NET\.2\$" <<<"$stderr"
	grep -F "btl:tcp: path from $NET.1 to $NET.2: IPV4 PRIVATE SAME NETWORK" <<<"$stderr"
	[ -z "$(grep -E 'vader|btl:sm' <<<"$stderr")" ]
}

@test "the configuration's environment reaches ranks on other hosts" {
	export NCCL_SOCKET_IFNAME=eth0 OMP_NUM_THREADS=1
	run --separate-stderr launch -t 60 -H "$(hosts 2)" 2n1g_b8_amp -- \
		sh -c 'echo $DLBENCH_KEY $DLBENCH_WORLD $DLBENCH_BATCH $DLBENCH_PRECISION $NCCL_SOCKET_IFNAME $OMP_NUM_THREADS $DLBENCH_HOSTS'
	drop_meta
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "2n1g_b8_amp 2 8 amp eth0 1 $NET.1:1,$NET.2:1" ]
	[ "${lines[2]}" = "${lines[1]}" ]
}

@test "a rank killed mid-run fails the run within the timeout, nothing left on any host" {
	SECONDS=0
	run --separate-stderr launch -t 30 -H "$(hosts 2)" 2n2g_b8_fp32 -- "$AR" die 3
	drop_meta
	[ "$status" -ne 0 ]
	[ "$status" -ne 124 ]
	[ "$SECONDS" -lt 30 ]
	[ "${stderr##*$'\n'}" = "launch: 2n2g_b8_fp32: failed with exit status 137" ]
	rig_empty
}

@test "an unreachable host is one error naming it, and nothing starts" {
	printf '%s\n' "$NET.1 slots=2" "$NET.9 slots=2" >"$BATS_TEST_TMPDIR/hosts"
	run --separate-stderr launch -t 30 -H "$BATS_TEST_TMPDIR/hosts" 2n1g_b8_fp32 -- "$AR"
	drop_meta
	[ "$status" -eq 1 ]
	[ "$output" = "" ]
	[ "$stderr" = "launch: $BATS_TEST_TMPDIR/hosts: $NET.9: host unreachable (TCP port 22: No route to host)" ]
	rig_empty
}

@test "a hang is killed at the timeout, its processes gone in every namespace" {
	run --separate-stderr launch -t 3 -H "$(hosts 2)" 2n2g_b8_fp32 -- "$AR" hang
	drop_meta
	[ "$status" -eq 124 ]
	grep -Fx "launch: 2n2g_b8_fp32: timed out after 3 s" <<<"$stderr"
	rig_empty
}

@test "a world size that differs from the configuration is an error" {
	run --separate-stderr launch -t 30 -H "$(hosts 2)" 2n1g_b8_fp32 -- \
		sh -c 'DLBENCH_WORLD=3 exec "$0"' "$AR"
	drop_meta
	[ "$status" -eq 1 ]
	grep -Fx "allreduce: rank 0: world size 2, DLBENCH_WORLD=3" <<<"$stderr"
	[ "${stderr##*$'\n'}" = "launch: 2n1g_b8_fp32: failed with exit status 1" ]
	rig_empty
}

@test "bench trains 2n1g across namespaces (CPU backend)" {
	[ -x "$ROOT/bin/bench" ] || skip "bin/bench is not built"
	"$ROOT/bin/bench" --describe >/dev/null 2>&1 || skip "bin/bench does not run here"
	run --separate-stderr launch -t 100 -H "$(hosts 2)" 2n1g_b2_fp32 -- \
		bench --image 32 --batch {batch} --iters 3 --warmup 0 --threads 1
	drop_meta
	[ "$status" -eq 0 ]
	[[ "${lines[1]}" == "# bench "*" nodes=2 gpus_per_node=1 batch_per_device=2 "* ]]
	[ "$(grep -c '^iter=' <<<"$output")" -eq 3 ]
	rig_empty
}

@test "down.sh removes the namespaces, links and bridge, and may run twice" {
	d="$BATS_TEST_TMPDIR/rig2"
	mkdir "$d"
	"$RIG/up.sh" 1 "$d" 1
	ns=$(awk '{print $2}' "$d/map")
	br=$(awk '$1 == "link" && $2 ~ /br$/ {print $2}' "$d/state")
	ip netns pids "$ns" >/dev/null
	ip link show "$br" >/dev/null
	"$RIG/down.sh" "$d"
	"$RIG/down.sh" "$d"
	[ -z "$(ip netns list | grep -w "$ns")" ]
	run ip link show "$br"
	[ "$status" -ne 0 ]
	run ip link show "${ns%h1}v1"
	[ "$status" -ne 0 ]
	[ ! -e "$d/state" ]
}

# make with the rig as HOSTS: short bench runs, a window that fits them.
rig_make() {
	make -C "$ROOT" --no-print-directory "$@" HOSTS="$HOSTS" LOGDIR="$BATS_TEST_TMPDIR/logs" \
		RESULTS="$BATS_TEST_TMPDIR/results" RUNS=1 BENCH_ITERS=6 TIMEOUT=60 \
		BENCH_ARGS='--image 32 --threads 1 --warmup 1' WINDOW='-s 2 -n 4'
}

@test "make builds a 2n1g table across namespaces with HOSTS=" {
	[ -x "$ROOT/bin/bench" ] || skip "bin/bench is not built"
	run --separate-stderr rig_make "$BATS_TEST_TMPDIR/results/2n1g_b8_fp32.md"
	[ "$status" -eq 0 ]
	grep -Fx "run: bench 1n1g_b8_fp32 #1 …" <<<"$stderr"
	grep -Fx "run: bench 2n1g_b8_fp32 #1 …" <<<"$stderr"
	# node_num gpu_num_per_node batch samples/s ± speedup ± efficiency n
	grep -E '^\| 2 \| 1 \| 8 \| [0-9.]+ \| [^|]+ \| [0-9.]+ \| [^|]+ \| [0-9.]+ \| 1 \|' "$BATS_TEST_TMPDIR/results/2n1g_b8_fp32.md"
	[[ "$(head -1 "$BATS_TEST_TMPDIR/logs/bench/2n1g_b8_fp32/1.log")" == "# launch key=2n1g_b8_fp32 hosts=$NET.1:1,$NET.2:1 "* ]]
	rig_empty
}

@test "make: a rank killed mid-run keeps no log but its outcome, the table its failed row, and only it runs again" {
	[ -x "$ROOT/bin/bench" ] || skip "bin/bench is not built"
	flag="$BATS_TEST_TMPDIR/kill-rank-1"
	touch "$flag"
	# Rank 1 of a 2-node run is killed 2 s into training while the flag exists
	# (60 steps of about 0.08 s: 6 ended in 1.5 s, before the kill, once the
	# convolutions found Winograd).
	cmd="sh -c '$ROOT/bin/bench --batch {batch} --iters 60 --image 32 --threads 1 --warmup 1 & p=\$\$!;"
	cmd+=" if [ -e $flag ] && [ \$\$DLBENCH_NODES = 2 ] && [ \$\$OMPI_COMM_WORLD_RANK = 1 ];"
	cmd+=" then sleep 2; kill -KILL \$\$p; fi; wait \$\$p'"
	run --separate-stderr rig_make "$BATS_TEST_TMPDIR/results/2n1g_b8_fp32.md" bench_CMD="$cmd"
	[ "$status" -ne 0 ]
	echo "$stderr"
	# 137: the killed rank's status; 255: Open MPI's, when rank 0 sees its
	# peer's connection reset first (both seen, from run to run)
	o=$BATS_TEST_TMPDIR/logs/bench/2n1g_b8_fp32/1.outcome
	grep -Ex "make: bench 2n1g_b8_fp32 run 1 failed \(exit (137|255)\); no log kept; its outcome, failed, is in $o" <<<"$stderr"
	[ -f "$BATS_TEST_TMPDIR/logs/bench/1n1g_b8_fp32/1.log" ]
	[ ! -e "$BATS_TEST_TMPDIR/logs/bench/2n1g_b8_fp32/1.log" ]
	[ ! -e "$BATS_TEST_TMPDIR/logs/bench/2n1g_b8_fp32/1.log.tmp" ]
	[[ "$(cat "$o")" =~ ^"# outcome framework=bench key=2n1g_b8_fp32 run=1 status=failed exit="(137|255) ]]
	grep -Eq '^\| 2 \| 1 \| 8 \| failed \|' "$BATS_TEST_TMPDIR/results/2n1g_b8_fp32.md"
	rig_empty
	rm "$flag"
	run --separate-stderr rig_make "$BATS_TEST_TMPDIR/results/2n1g_b8_fp32.md" bench_CMD="$cmd"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^run: .* …$' <<<"$stderr")" -eq 1 ]
	grep -Fx "run: bench 2n1g_b8_fp32 #1 …" <<<"$stderr"
	[ ! -e "$o" ]
	grep -Eq '^\| 2 \| 1 \| 8 \| [0-9.]+ \|' "$BATS_TEST_TMPDIR/results/2n1g_b8_fp32.md"
	rig_empty
}

@test "every node writes its environment once, every rank its peak memory" {
	run --separate-stderr launch -t 60 -H "$(hosts 2)" 2n2g_b8_fp32 -- "$AR"
	[ "$status" -eq 0 ]
	for node in 0 1; do
		[ "$(printf '%s\n' "${lines[@]}" | grep -c "^# env node=$node hostname=")" = 1 ]
		[ "$(printf '%s\n' "${lines[@]}" | grep -c "^# env node=$node ")" -gt 8 ]
	done
	[ "$(printf '%s\n' "${lines[@]}" | grep -c '^# env node=2 ')" = 0 ]
	for rank in 0 1 2 3; do
		[[ "$(printf '%s\n' "${lines[@]}" | grep "^# mem node=$((rank / 2)) rank=$rank ")" =~ \ rss_peak_mib=[0-9]+$ ]]
	done
	rig_empty
}


@test "make across nodes: each node's topology in the log, a run whose NCCL went over sockets marked in the table" {
	[ -x "$ROOT/bin/bench" ] || skip "bin/bench is not built"
	mkdir -p "$BATS_TEST_TMPDIR/smi"
	ln -s "$FIXTURES/launch/nvidia-smi" "$BATS_TEST_TMPDIR/smi/nvidia-smi"
	# every rank prints NCCL 2.19's line of a connection over TCP sockets
	# (1n1g's too: one node is never marked)
	cmd="sh -c 'echo \"n\$\$OMPI_COMM_WORLD_RANK:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0\";"
	cmd+=" exec $ROOT/bin/bench --batch {batch} --iters 6 --image 32 --threads 1 --warmup 1'"
	PATH=$BATS_TEST_TMPDIR/smi:$PATH DLBENCH_SYSFS_ROOT=$FIXTURES/launch/sysfs \
		run --separate-stderr rig_make "$BATS_TEST_TMPDIR/results/2n1g_b8_fp32.md" bench_CMD="$cmd"
	[ "$status" -eq 0 ]
	log=$BATS_TEST_TMPDIR/logs/bench/2n1g_b8_fp32/1.log
	for node in 0 1; do
		[ "$(grep -c "^# env node=$node topo.columns=GPU0,GPU1,GPU2,GPU3,GPU4,GPU5,GPU6,GPU7,mlx5_0$" "$log")" = 1 ]
		[ "$(grep -c "^# env node=$node ib.mlx5_0.1.state=4:%20ACTIVE$" "$log")" = 1 ]
	done
	md=$BATS_TEST_TMPDIR/results/2n1g_b8_fp32.md
	grep -E '^\| 1 \| 1 \| 8 \| .* \| NET/Socket \|$' "$md"
	grep -E '^\| 2 \| 1 \| 8 \| .* \| NET/Socket † \|$' "$md"
	grep -Fx -- "- † **NCCL over sockets between nodes**: bench 2n1g_b8_fp32 run 1. NCCL's traffic between the nodes went over TCP sockets (NET/Socket), not InfiniBand or RoCE (NET/IB): the figure is not what the interconnect can do (doc/cluster.md)" "$md"
	grep -F -- "- interconnect: 8 GPUs (pairs: 8 NV2, 8 NV1, 12 SYS); mlx5_0 nearest GPU2, GPU3 (PIX); InfiniBand ports: " "$md"
	rig_empty
}
