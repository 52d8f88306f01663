#!/usr/bin/env bats
# launch: the header, placeholders and environment, the three ways of
# starting a job (directly, mpirun, srun), exit statuses, the timeout and
# the clean-up, host-file checks. Many hosts: tests/multinode.bats.

load helper
bats_require_minimum_version 1.5.0

F="$FIXTURES/launch"
STAMP='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z'

# Put the fake mpirun / srun (prints its argv) first on PATH.
fake() {
	mkdir -p "$BATS_TEST_TMPDIR/fake"
	for name in "$@"; do
		ln -sf "$F/fake" "$BATS_TEST_TMPDIR/fake/$name"
	done
	export PATH="$BATS_TEST_TMPDIR/fake:$PATH"
}

# launch's own path, as the ranks' wrapper is named in mpirun's and srun's argv.
self() {
	readlink -f "$(command -v launch)"
}

# Every pid in file $1 has exited. A zombie has: it waits only for its
# parent, which for an orphan is this machine's init, to collect its status.
all_gone() {
	local pid state
	[ -s "$1" ]
	while read -r pid; do
		state=$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null) || continue
		if [ "$state" != Z ]; then
			echo "process $pid is still running ($state): $(ps -o args= -p "$pid")"
			return 1
		fi
	done <"$1"
}

@test "the header names key, hosts, start time and command, then the command's output" {
	run --separate-stderr launch 1n1g_b16_fp32 -- echo hello
	drop_meta
	[ "$status" -eq 0 ]
	[ "$stderr" = "" ]
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" =~ ^"# launch key=1n1g_b16_fp32 hosts=localhost:1 start="$STAMP" command=echo hello"$ ]]
	[ "${lines[1]}" = "hello" ]
}

@test "the start time is the current UTC time" {
	before=$(date -u +%s)
	run --separate-stderr launch 1n1g_b8_fp32 -- true
	drop_meta
	after=$(date -u +%s)
	[ "$status" -eq 0 ]
	start=${lines[0]#*start=}
	start=$(date -u -d "${start%% *}" +%s)
	[ "$start" -ge "$before" ] && [ "$start" -le "$after" ]
}

@test "placeholders are substituted in every word, unknown braces stay" {
	run --separate-stderr launch 1n1g_b64_amp -- echo {batch} {precision} {nodes} {gpus} {key} \
		--bs={batch}x{batch} '{other}' '{batch'
	drop_meta
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "64 amp 1 1 1n1g_b64_amp --bs=64x64 {other} {batch" ]
	[[ "${lines[0]}" == *" command=echo 64 amp 1 1 1n1g_b64_amp --bs=64x64 '{other}' '{batch'" ]]
}

@test "the header quotes the command line the way sh reads it back" {
	run --separate-stderr launch 1n1g_b1_fp32 -- printf '%s|' "a b" "it's" "" 'x$y' plain-1.0/a:b,c=d
	drop_meta
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *" command=printf '%s|' 'a b' 'it'\\''s' '' 'x\$y' plain-1.0/a:b,c=d" ]]
	cmd=${lines[0]#* command=}
	eval "set -- $cmd"
	[ "$#" -eq 7 ] && [ "$3" = "a b" ] && [ "$4" = "it's" ] && [ "$5" = "" ] && [ "$6" = 'x$y' ]
}

@test "the configuration is exported to the command" {
	run --separate-stderr launch 1n1g_b32_bf16 -- sh -c 'env | grep ^DLBENCH_ | sort'
	drop_meta
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "DLBENCH_BATCH=32" ]
	[ "${lines[2]}" = "DLBENCH_GPUS=1" ]
	[ "${lines[3]}" = "DLBENCH_HOSTS=localhost:1" ]
	[ "${lines[4]}" = "DLBENCH_KEY=1n1g_b32_bf16" ]
	[ "${lines[5]}" = "DLBENCH_NODES=1" ]
	[ "${lines[6]}" = "DLBENCH_PRECISION=bf16" ]
	[ "${lines[7]}" = "DLBENCH_WORLD=1" ]
	[ "${#lines[@]}" -eq 8 ]
}

@test "1n1g runs the command itself, not mpirun" {
	fake mpirun
	run --separate-stderr launch 1n1g_b16_fp32 -- sh -c 'cat /proc/$PPID/comm; echo ${OMPI_COMM_WORLD_SIZE:-none}'
	drop_meta
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "launch" ]
	[ "${lines[2]}" = "none" ]
}

@test "1n2g runs two ranks under mpirun, output after the header" {
	run --separate-stderr launch 1n2g_b16_fp32 -- sh -c 'echo rank $OMPI_COMM_WORLD_RANK of $OMPI_COMM_WORLD_SIZE $DLBENCH_WORLD'
	drop_meta
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" =~ ^"# launch key=1n2g_b16_fp32 hosts=localhost:2 start="$STAMP" command=sh -c 'echo rank "\$"OMPI_COMM_WORLD_RANK of "\$"OMPI_COMM_WORLD_SIZE "\$"DLBENCH_WORLD'"$ ]]
	[ "$(printf '%s\n' "${lines[@]:1}" | sort)" = "$(printf 'rank 0 of 2 2\nrank 1 of 2 2')" ]
}

@test "1n4g runs four ranks on two cores without oversubscription flags" {
	run --separate-stderr launch 1n4g_b16_fp32 -- sh -c 'echo $OMPI_COMM_WORLD_RANK'
	drop_meta
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "${lines[@]:1}" | sort)" = "$(printf '0\n1\n2\n3')" ]
}

@test "mpirun gets G ranks per host, no binding, and the environment to forward" {
	fake mpirun
	run --separate-stderr env -i PATH="$PATH" HOME="$HOME" ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=eth0 \
		OMP_NUM_THREADS=3 OMPI_MCA_btl=self,tcp launch 1n2g_b16_fp32 -- bench --batch {batch}
	[ "$status" -eq 0 ]
	[ "$stderr" = "" ]
	expected='mpirun
-np
2
--host
localhost:2
--map-by
ppr:2:node
--bind-to
none
-x
DLBENCH_BATCH
-x
DLBENCH_GPUS
-x
DLBENCH_HOSTS
-x
DLBENCH_KEY
-x
DLBENCH_NODES
-x
DLBENCH_PRECISION
-x
DLBENCH_WORLD
-x
NCCL_DEBUG
-x
NCCL_SOCKET_IFNAME
-x
OMP_NUM_THREADS
-x
PATH
'"$(self)"'
--rank
--
bench
--batch
16'
	[ "$(printf '%s\n' "${lines[@]:1}")" = "$expected" ]
}

@test "with a host file, mpirun gets the first N hosts with G slots each" {
	fake mpirun
	run --separate-stderr launch -H "$F/hosts-ok.txt" 2n2g_b16_fp32 -- true
	drop_meta
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" =~ ^"# launch key=2n2g_b16_fp32 hosts=127.0.0.1:2,127.0.0.2:2 start="$STAMP" command=true"$ ]]
	[ "${lines[1]} ${lines[2]} ${lines[3]} ${lines[4]} ${lines[5]}" = "mpirun -np 4 --host 127.0.0.1:2,127.0.0.2:2" ]
	[ "${lines[6]} ${lines[7]}" = "--map-by ppr:2:node" ]
	[ "${lines[-1]}" = "true" ]
}

@test "a host named twice adds its slots; a host without slots is taken as it is" {
	fake mpirun
	run --separate-stderr launch -H "$F/hosts-repeat.txt" 2n2g_b16_fp32 -- true
	drop_meta
	[ "$status" -eq 0 ]
	[ "${lines[5]}" = "127.0.0.1:2,127.0.0.2:2" ]
}

@test "1n1g with a host file runs on the first host through mpirun" {
	fake mpirun
	run --separate-stderr launch -H "$F/hosts-ok.txt" 1n1g_b16_fp32 -- true
	drop_meta
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "# launch key=1n1g_b16_fp32 hosts=127.0.0.1:1 "* ]]
	[ "${lines[1]} ${lines[2]} ${lines[3]} ${lines[4]} ${lines[5]}" = "mpirun -np 1 --host 127.0.0.1:1" ]
}

@test "a host file with too few hosts is refused before anything starts" {
	run --separate-stderr launch -H "$F/hosts-one.txt" 2n2g_b16_fp32 -- touch "$BATS_TEST_TMPDIR/ran"
	drop_meta
	[ "$status" -eq 1 ]
	[ "$output" = "" ]
	[ "$stderr" = "launch: $F/hosts-one.txt: 1 host, need 2 for 2n2g_b16_fp32" ]
	[ ! -e "$BATS_TEST_TMPDIR/ran" ]
	run --separate-stderr launch -H "$F/hosts-empty.txt" 1n1g_b16_fp32 -- true
	drop_meta
	[ "$status" -eq 1 ]
	[ "$stderr" = "launch: $F/hosts-empty.txt: 0 hosts, need 1 for 1n1g_b16_fp32" ]
}

@test "hosts with too few slots are each named" {
	run --separate-stderr launch -H "$F/hosts-few-slots.txt" 3n2g_b16_fp32 -- true
	drop_meta
	[ "$status" -eq 1 ]
	[ "$output" = "" ]
	[ "$stderr" = "launch: $F/hosts-few-slots.txt: 127.0.0.1: 1 slot, need 2 for 3n2g_b16_fp32
launch: $F/hosts-few-slots.txt: 127.0.0.3: 1 slot, need 2 for 3n2g_b16_fp32" ]
}

@test "a malformed host file names the file and line" {
	run --separate-stderr launch -H "$F/hosts-bad-count.txt" 2n1g_b16_fp32 -- true
	drop_meta
	[ "$status" -eq 1 ]
	[ "$stderr" = "launch: $F/hosts-bad-count.txt:2: slots: 'two' is not a count 1..1000000" ]
	run --separate-stderr launch -H "$F/hosts-bad-setting.txt" 2n1g_b16_fp32 -- true
	drop_meta
	[ "$status" -eq 1 ]
	[ "$stderr" = "launch: $F/hosts-bad-setting.txt:2: 'gpus': unknown setting" ]
	run --separate-stderr launch -H "$BATS_TEST_TMPDIR/none.txt" 2n1g_b16_fp32 -- true
	drop_meta
	[ "$status" -eq 1 ]
	[ "$stderr" = "launch: $BATS_TEST_TMPDIR/none.txt: No such file or directory" ]
}

@test "more than one node without a host file or Slurm is an error" {
	run --separate-stderr launch 2n1g_b16_fp32 -- true
	drop_meta
	[ "$status" -eq 1 ]
	[ "$output" = "" ]
	[ "$stderr" = "launch: 2n1g_b16_fp32: 2 nodes need a host file (-H) or a Slurm allocation" ]
}

@test "inside Slurm the job is started by srun with the same placement" {
	fake srun mpirun
	export SLURM_JOB_ID=4242 SLURM_JOB_NODELIST='gpu[01-03,07]'
	run --separate-stderr launch 2n4g_b128_fp32 -- sh -c 'bench --batch {batch}'
	drop_meta
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" =~ ^"# launch key=2n4g_b128_fp32 hosts=gpu01:4,gpu02:4 start="$STAMP" command=sh -c 'bench --batch 128'"$ ]]
	[ "$(printf '%s\n' "${lines[@]:1}")" = "srun
--nodes=2
--ntasks=8
--ntasks-per-node=4
--nodelist=gpu01,gpu02
--cpu-bind=none
--kill-on-bad-exit=1
$(self)
--rank
--
sh
-c
bench --batch 128" ]
}

@test "inside Slurm the node list is expanded as Slurm writes it" {
	fake srun
	export SLURM_JOB_ID=4242 SLURM_JOB_NODELIST='r[1-2]-n[08-10],login'
	run --separate-stderr launch 7n1g_b1_fp32 -- sh -c 'echo $DLBENCH_HOSTS'
	drop_meta
	[ "$status" -eq 0 ]
	[ "${lines[5]}" = "--nodelist=r1-n08,r1-n09,r1-n10,r2-n08,r2-n09,r2-n10,login" ]
	for bad in 'gpu[01-' 'gpu[2-1]' 'gpu[a-b]' 'gpu]' 'a,,b'; do
		SLURM_JOB_NODELIST=$bad run --separate-stderr launch 2n1g_b1_fp32 -- true
		drop_meta
		[ "$status" -eq 1 ]
		[ "$stderr" = "launch: Slurm job 4242: SLURM_JOB_NODELIST: '$bad' is not a host list" ]
	done
}

@test "inside Slurm a host file picks the nodes" {
	fake srun
	export SLURM_JOB_ID=4242 SLURM_JOB_NODELIST='gpu[01-03]'
	run --separate-stderr launch -H "$F/hosts-ok.txt" 2n2g_b16_fp32 -- true
	drop_meta
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "# launch key=2n2g_b16_fp32 hosts=127.0.0.1:2,127.0.0.2:2 "* ]]
	[ "${lines[5]}" = "--nodelist=127.0.0.1,127.0.0.2" ]
}

@test "inside Slurm an allocation with too few nodes is refused" {
	fake srun
	export SLURM_JOB_ID=4242 SLURM_JOB_NODELIST=gpu01
	run --separate-stderr launch 2n1g_b16_fp32 -- true
	drop_meta
	[ "$status" -eq 1 ]
	[ "$output" = "" ]
	[ "$stderr" = "launch: Slurm job 4242: 1 node, need 2 for 2n1g_b16_fp32" ]
}

@test "inside Slurm 1n1g runs the command itself" {
	fake srun
	export SLURM_JOB_ID=4242 SLURM_JOB_NUM_NODES=1
	run --separate-stderr launch 1n1g_b16_fp32 -- echo direct
	drop_meta
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "direct" ]
}

@test "the command's exit status is launch's, with a message" {
	run --separate-stderr launch 1n1g_b16_fp32 -- sh -c 'exit 3'
	drop_meta
	[ "$status" -eq 3 ]
	[ "$stderr" = "launch: 1n1g_b16_fp32: failed with exit status 3" ]
}

@test "a command killed by a signal exits 128+n and names the signal" {
	run --separate-stderr launch 1n1g_b16_fp32 -- sh -c 'kill -KILL $$'
	drop_meta
	[ "$status" -eq 137 ]
	[ "$stderr" = "launch: 1n1g_b16_fp32: killed by signal 9 (Killed)" ]
}

@test "one failed rank fails the run" {
	run --separate-stderr launch 1n2g_b16_fp32 -- sh -c '[ $OMPI_COMM_WORLD_RANK = 1 ] && exit 5; sleep 2'
	drop_meta
	[ "$status" -eq 5 ]
	[ "${stderr##*$'\n'}" = "launch: 1n2g_b16_fp32: failed with exit status 5" ]
}

@test "a command that cannot be run exits 127" {
	run -127 --separate-stderr launch 1n1g_b16_fp32 -- no-such-command-here
	[ "$stderr" = "launch: no-such-command-here: No such file or directory" ]
}

@test "at the timeout the whole process group is killed" {
	pids="$BATS_TEST_TMPDIR/pids"
	# 3 s: time enough for the shell to start both children on a loaded machine.
	run --separate-stderr launch -t 3 1n1g_b16_fp32 -- \
		sh -c 'echo $$ >>"$0"; sleep 300 & echo $! >>"$0"; sleep 300 & echo $! >>"$0"; wait' "$pids"
	drop_meta
	[ "$status" -eq 124 ]
	[ "$stderr" = "launch: 1n1g_b16_fp32: timed out after 3 s" ]
	[ "$(wc -l <"$pids")" -eq 3 ]
	all_gone "$pids"
}

@test "at the timeout every rank of mpirun is killed" {
	pids="$BATS_TEST_TMPDIR/pids"
	run --separate-stderr launch -t 5 1n2g_b16_fp32 -- sh -c 'echo $$ >>"$0"; exec sleep 300' "$pids"
	drop_meta
	[ "$status" -eq 124 ]
	grep -Fx "launch: 1n2g_b16_fp32: timed out after 5 s" <<<"$stderr"
	[ "$(wc -l <"$pids")" -eq 2 ]
	all_gone "$pids"
}

@test "a job that ignores SIGTERM is killed after the grace period" {
	pids="$BATS_TEST_TMPDIR/pids"
	run --separate-stderr launch -t 1 1n1g_b16_fp32 -- \
		sh -c 'trap "" TERM; echo $$ >>"$0"; while :; do sleep 0.2; done' "$pids"
	drop_meta
	[ "$status" -eq 124 ]
	all_gone "$pids"
}

@test "processes the command leaves behind, even in a new session, do not outlive launch" {
	pids="$BATS_TEST_TMPDIR/pids"
	run --separate-stderr launch 1n1g_b16_fp32 -- \
		sh -c 'setsid sh -c "echo \$\$ >>$0; exec sleep 300" & sleep 0.5; exit 0' "$pids"
	drop_meta
	[ "$status" -eq 0 ]
	[ "$(wc -l <"$pids")" -eq 1 ]
	all_gone "$pids"
}

@test "without the kernel's children lists (the scan of /proc), the same: nothing left behind, memory sampled" {
	pids="$BATS_TEST_TMPDIR/pids"
	export DLBENCH_PROC_SCAN=1 # bats' run is a function: a prefix would not reach launch
	# (the memory first: a scan that finds nothing fails here, not by a hang)
	run --separate-stderr launch 1n1g_b16_fp32 -- sh -c "$(hold 200)"
	[[ "${lines[-1]}" =~ ^"# mem node=0 rank=0 host="[^\ ]+" rss_peak_mib="([0-9]+)$ ]]
	[ "${BASH_REMATCH[1]}" -ge 200 ]
	run --separate-stderr launch -t 1 1n1g_b16_fp32 -- sh -c 'sleep 300; :'
	[ "$status" -eq 124 ]
	run --separate-stderr launch 1n1g_b16_fp32 -- \
		sh -c 'setsid sh -c "echo \$\$ >>$0; exec sleep 300" & sleep 0.5; exit 0' "$pids"
	[ "$status" -eq 0 ]
	[ "$(wc -l <"$pids")" -eq 1 ]
	all_gone "$pids"
}

@test "SIGTERM to launch stops the job and exits 143" {
	pids="$BATS_TEST_TMPDIR/pids"
	launch 1n2g_b16_fp32 -- sh -c 'echo $$ >>"$0"; exec sleep 300' "$pids" \
		>"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
	lp=$!
	for _ in $(seq 50); do
		[ -f "$pids" ] && [ "$(wc -l <"$pids")" = 2 ] && break
		sleep 0.1
	done
	kill -TERM "$lp"
	status=0
	wait "$lp" || status=$?
	[ "$status" -eq 143 ]
	[ "$(head -1 "$BATS_TEST_TMPDIR/err")" = "launch: 1n2g_b16_fp32: interrupted by signal 15 (Terminated)" ]
	all_gone "$pids"
}

@test "a full stdout is an error before the command runs" {
	run --separate-stderr bash -c 'launch 1n1g_b16_fp32 -- touch "$0" >/dev/full' "$BATS_TEST_TMPDIR/ran"
	[ "$status" -eq 1 ]
	[ "$stderr" = "launch: <stdout>: write error: No space left on device" ]
	[ ! -e "$BATS_TEST_TMPDIR/ran" ]
}

@test "usage errors exit 2" {
	run --separate-stderr launch
	[ "$status" -eq 2 ]
	[ "$stderr" = "usage: launch [-t timeout] [-H hostfile] [-v command] key -- command ..." ]
	run --separate-stderr launch 1n1g_b16_fp32 true
	drop_meta
	[ "$status" -eq 2 ]
	[ "$stderr" = "usage: launch [-t timeout] [-H hostfile] [-v command] key -- command ..." ]
	run --separate-stderr launch 1n1g_b16_fp32 --
	drop_meta
	[ "$status" -eq 2 ]
	run --separate-stderr launch -x 1n1g_b16_fp32 -- true
	drop_meta
	[ "$status" -eq 2 ]
	[ "${stderr##*$'\n'}" = "usage: launch [-t timeout] [-H hostfile] [-v command] key -- command ..." ]
	run --separate-stderr launch 1n1g_b16_fp33 -- true
	drop_meta
	[ "$status" -eq 2 ]
	[ "$stderr" = "launch: '1n1g_b16_fp33' is not a key <N>n<G>g_b<B>_<precision>" ]
	run --separate-stderr launch -t 1.5 1n1g_b16_fp32 -- true
	drop_meta
	[ "$status" -eq 2 ]
	[ "$stderr" = "launch: -t: '1.5' is not an integer" ]
	run --separate-stderr launch -t 604801 1n1g_b16_fp32 -- true
	drop_meta
	[ "$status" -eq 2 ]
	[ "$stderr" = "launch: -t: '604801' is out of range 0..604800" ]
	run --separate-stderr launch 2000n1000g_b16_fp32 -- true
	drop_meta
	[ "$status" -eq 2 ]
	[ "$stderr" = "launch: 2000n1000g_b16_fp32: 2000 × 1000 ranks, at most 1000000" ]
}

@test "when launch is killed outright the job is stopped too" {
	pids="$BATS_TEST_TMPDIR/pids"
	launch 1n2g_b16_fp32 -- sh -c 'echo $$ >>"$0"; exec sleep 300' "$pids" >/dev/null 2>&1 &
	lp=$!
	for _ in $(seq 50); do
		[ -f "$pids" ] && [ "$(wc -l <"$pids")" = 2 ] && break
		sleep 0.1
	done
	[ "$(wc -l <"$pids")" -eq 2 ]
	kill -KILL "$lp"
	for _ in $(seq 50); do
		all_gone "$pids" >/dev/null && break
		sleep 0.1
	done
	all_gone "$pids"
}

@test "launch killed outright leaves nothing: a shell's child, a daemon, mpirun's ranks" {
	for how in "1n1g_b16_fp32 pid" "1n2g_b16_fp32 pid" "1n1g_b16_fp32 group"; do
		run -0 "$F/kill-outright" $how "$BATS_TEST_TMPDIR/pids-${how#* }-${how%%_*}"
		[ "$output" = "" ]
	done
}

@test "launch's supervisor killed outright: launch exits 137 once nothing of the job is left" {
	for how in "1n1g_b16_fp32 supervisor" "1n2g_b16_fp32 supervisor"; do
		run -0 "$F/kill-outright" $how "$BATS_TEST_TMPDIR/pids-${how#* }-${how%%_*}"
		[ "$output" = "" ]
	done
}

# The supervisor's death re-parents the job's orphans to launch while it
# walks /proc for them, and a walk can miss a process being re-parented: 13
# of 100 rounds left a process running once, and a missed one had SIGKILL
# after the grace instead of its SIGTERM. So 40 rounds, each of which must
# end with the orphan's SIGTERM trap run and nothing of the job left.
@test "launch's supervisor killed outright, 40 rounds: each orphan has its SIGTERM, none is left" {
	d=$BATS_TEST_TMPDIR
	for round in $(seq 40); do
		rm -f "$d/pids"
		launch 1n1g_b16_fp32 -- bash -c 'bash -c "trap \"echo term >>$1/terms; exit 0\" TERM
			sleep 1000 & echo \$! >>$1/pids; wait" & echo $! >>"$1/pids"; wait' _ "$d" \
			>/dev/null 2>&1 3>&- &
		lp=$!
		for _ in $(seq 100); do
			[ -f "$d/pids" ] && [ "$(wc -l <"$d/pids")" = 2 ] && break
			sleep 0.05
		done
		kill -KILL "$(ps -o pid= --ppid "$lp" | tr -d ' ')"
		rc=0
		wait "$lp" || rc=$?
		[ "$rc" -eq 137 ]
		left=()
		while read -r pid; do
			state=$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null) || continue
			[ "$state" = Z ] || left+=("$pid")
		done <"$d/pids"
		[ ${#left[@]} -eq 0 ] || { echo "round $round: ${left[*]} left"; kill -KILL "${left[@]}"; false; }
		[ "$(wc -l <"$d/terms")" -eq "$round" ] || { echo "round $round: no SIGTERM"; false; }
	done
}

# ---- the environment and memory lines ------------------------

# The value of item $1 of node $2 (default 0) in $lines, %XX decoded; fails
# when it is absent.
env_item() {
	local line
	line=$(printf '%s\n' "${lines[@]}" | grep -m1 "^# env node=${2:-0} $1=") || return 1
	printf '%b\n' "$(printf '%s' "${line#*"$1"=}" | sed 's/%\([0-9A-F][0-9A-F]\)/\\x\1/g')"
}

@test "env lines follow the header, come before the job's output, and each is one name=value" {
	run --separate-stderr launch 1n1g_b16_fp32 -- echo hello
	[ "$status" -eq 0 ]
	[ "$stderr" = "" ]
	[[ "${lines[0]}" == "# launch key=1n1g_b16_fp32 "* ]]
	i=1
	while [[ "${lines[i]}" == "# env "* ]]; do
		[[ "${lines[i]}" =~ ^"# env node=0 "[A-Za-z0-9_.-]+=[^\ =]+$ ]]
		i=$((i + 1))
	done
	[ "$i" -gt 8 ]
	[ "${lines[i]}" = "hello" ]
	# Each name once.
	[ -z "$(printf '%s\n' "${lines[@]:1:i-1}" | cut -d' ' -f4 | cut -d= -f1 | sort | uniq -d)" ]
}

@test "env values are the machine's own, and what cannot be read is absent" {
	run --separate-stderr launch 1n1g_b16_fp32 -- true
	[ "$status" -eq 0 ]
	[ "$(env_item hostname)" = "$(hostname)" ]
	[ "$(env_item kernel)" = "$(uname -r)" ]
	[ "$(env_item cpus)" = "$(getconf _NPROCESSORS_ONLN)" ]
	[ "$(env_item mem_total_mib)" = "$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)" ]
	[ "$(env_item cpu_model)" = "$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo | head -1)" ]
	[ "$(env_item openmpi)" = "$(mpirun --version | sed -n 's/.*(Open MPI) //p' | head -1)" ]
	[ -n "$(env_item load1)" ]
	gov=/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor
	if [ -r "$gov" ]; then
		[ "$(env_item governor)" = "$(cat "$gov")" ]
	else
		! env_item governor || false
	fi
	# No nvidia-smi on PATH: no GPU item at all, not even a count.
	! command -v nvidia-smi || false
	! printf '%s\n' "${lines[@]}" | grep -q '^# env node=0 \(gpu\|cuda\)' || false
	! printf '%s\n' "${lines[@]}" | grep -q '^# mem node=0 gpu=' || false
}

@test "GPUs are described by nvidia-smi's own values; [N/A] fields are absent" {
	mkdir -p "$BATS_TEST_TMPDIR/smi"
	ln -s "$F/nvidia-smi" "$BATS_TEST_TMPDIR/smi/nvidia-smi"
	PATH="$BATS_TEST_TMPDIR/smi:$PATH" run --separate-stderr launch 1n1g_b16_fp32 -- sleep 1
	[ "$status" -eq 0 ]
	[ "$(env_item gpus)" = 2 ]
	[ "$(env_item cuda_driver)" = 535.104.05 ]
	[ "$(env_item gpu0.name)" = "Tesla V100-SXM2-16GB" ]
	[ "$(env_item gpu1.bus_id)" = 00000000:1B:00.0 ]
	[ "$(env_item gpu0.memory_total_mib)" = 16160 ]
	[ "$(env_item gpu0.clocks_max_sm_mhz)" = 1530 ]
	[ "$(env_item gpu0.clocks_app_sm_mhz)" = 1312 ]
	[ "$(env_item gpu0.power_limit_w)" = 300.00 ]
	[ "$(env_item gpu1.throttle_reasons)" = 0x0000000000000004 ]
	! env_item gpu1.clocks_app_sm_mhz || false
	! env_item gpu1.clocks_app_mem_mhz || false
	! env_item gpu2.name || false
	# Memory: the largest memory.used the sampler printed, per device, at the end.
	[ "${lines[-2]}" = "# mem node=0 gpu=0 gpu_peak_mib=2048" ]
	[ "${lines[-1]}" = "# mem node=0 gpu=1 gpu_peak_mib=1024" ]
}

# The fake nvidia-smi first on PATH (tests/fixtures/launch/nvidia-smi).
fake_smi() {
	mkdir -p "$BATS_TEST_TMPDIR/smi"
	ln -sf "$F/nvidia-smi" "$BATS_TEST_TMPDIR/smi/nvidia-smi"
	export PATH="$BATS_TEST_TMPDIR/smi:$PATH"
}

@test "the topology: nvidia-smi topo -m as items, a row a line, its cells one per column" {
	fake_smi
	run --separate-stderr launch 1n1g_b16_fp32 -- echo ran
	[ "$status" -eq 0 ]
	# the OneFlow 0.1.8 report's DGX-1: 8 V100s over NVLink (NV1, NV2) and mlx5_0
	[ "$(env_item topo.columns)" = GPU0,GPU1,GPU2,GPU3,GPU4,GPU5,GPU6,GPU7,mlx5_0 ]
	[ "$(env_item topo.GPU0)" = X,NV1,NV1,NV2,NV2,SYS,SYS,SYS,NODE ]
	[ "$(env_item topo.GPU7)" = SYS,SYS,SYS,NV1,NV2,NV1,NV2,X,SYS ]
	[ "$(env_item topo.mlx5_0)" = NODE,NODE,PIX,PIX,SYS,SYS,SYS,SYS,X ]
	[ "$(env_item topo.GPU0.cpu_affinity)" = 0-11,24-35 ]
	[ "$(env_item topo.GPU4.cpu_affinity)" = 12-23,36-47 ]
	! env_item topo.mlx5_0.cpu_affinity || false
	[ "$(printf '%s\n' "${lines[@]}" | grep -c '^# env node=0 topo\.')" = 18 ]
	# with the other items, before the job's output
	i=$(printf '%s\n' "${lines[@]}" | grep -n '^ran$' | cut -d: -f1)
	[ "$(printf '%s\n' "${lines[@]:0:i}" | grep -c '^# env node=0 topo\.')" = 18 ]
	# a newer driver: NIC columns and their legend; N/A (GPU NUMA ID) left out
	FAKE_SMI_TOPO=nic run --separate-stderr launch 1n1g_b16_fp32 -- true
	[ "$(env_item topo.columns)" = GPU0,GPU1,GPU2,GPU3,NIC0,NIC1 ]
	[ "$(env_item topo.GPU2)" = NV18,NV18,X,NV18,SYS,PIX ]
	[ "$(env_item topo.GPU2.cpu_affinity)" = 56-111,168-223 ]
	[ "$(env_item topo.GPU2.numa_affinity)" = 1 ]
	! env_item topo.GPU2.gpu_numa_id || false
	[ "$(env_item topo.NIC1)" = SYS,SYS,PIX,NODE,SYS,X ]
	[ "$(env_item topo.NIC0.name)" = mlx5_0 ]
	[ "$(env_item topo.NIC1.name)" = mlx5_1 ]
}

@test "the topology under mpirun: the first rank of the node writes it once" {
	fake_smi
	run --separate-stderr launch 1n2g_b16_fp32 -- true
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "${lines[@]}" | grep -c '^# env node=0 topo\.columns=')" = 1 ]
	[ "$(env_item topo.GPU3)" = NV2,NV1,NV2,X,SYS,SYS,SYS,NV1,PIX ]
}

@test "the topology as a terminal shows it (blanks, no tabs) reads the same; a short row is left out" {
	fake_smi
	sed -e 's/\x1b\[[0-9]*m//g' -e 's/\t/    /g' "$F/topo-dgx1.txt" |
		sed 's/^GPU5 .*/GPU5    SYS     NV2/' >"$BATS_TEST_TMPDIR/blanks.txt"
	FAKE_SMI_TOPO=$BATS_TEST_TMPDIR/blanks.txt run --separate-stderr launch 1n1g_b16_fp32 -- true
	[ "$(env_item topo.columns)" = GPU0,GPU1,GPU2,GPU3,GPU4,GPU5,GPU6,GPU7,mlx5_0 ]
	[ "$(env_item topo.GPU2)" = NV1,NV2,X,NV2,SYS,SYS,NV1,SYS,PIX ]
	[ "$(env_item topo.GPU2.cpu_affinity)" = 0-11,24-35 ]
	! env_item topo.GPU5 || false
	# no matrix at all: nothing
	printf 'No devices were found\n' >"$BATS_TEST_TMPDIR/none.txt"
	FAKE_SMI_TOPO=$BATS_TEST_TMPDIR/none.txt run --separate-stderr launch 1n1g_b16_fp32 -- true
	[ "$status" -eq 0 ]
	! printf '%s\n' "${lines[@]}" | grep -q '^# env node=0 topo\.' || false
}

@test "InfiniBand: each device and port of /sys/class/infiniband, as sysfs says it, in natural order" {
	DLBENCH_SYSFS_ROOT=$F/sysfs run --separate-stderr launch 1n1g_b16_fp32 -- true
	[ "$status" -eq 0 ]
	[ "$(env_item ib_devices)" = 3 ]
	[ "$(env_item ib.mlx5_0.hca_type)" = MT4115 ]
	[ "$(env_item ib.mlx5_0.fw_ver)" = 12.27.1016 ]
	[ "$(env_item ib.mlx5_0.1.link_layer)" = InfiniBand ]
	[ "$(env_item ib.mlx5_0.1.rate)" = "100 Gb/sec (4X EDR)" ]
	[ "$(env_item ib.mlx5_0.1.state)" = "4: ACTIVE" ]
	[ "$(env_item ib.mlx5_0.1.phys_state)" = "5: LinkUp" ]
	[ "$(env_item ib.mlx5_1.1.link_layer)" = Ethernet ]
	[ "$(env_item ib.mlx5_1.1.state)" = "1: DOWN" ]
	[ "$(env_item ib.mlx5_10.1.rate)" = "200 Gb/sec (4X HDR)" ]
	! env_item ib.mlx5_10.fw_ver || false
	# mlx5_0, mlx5_1, mlx5_10: 2 before 10
	[ "$(printf '%s\n' "${lines[@]}" | sed -n 's/^# env node=0 ib\.\([^.]*\)\.hca_type=.*/\1/p' | paste -sd,)" = mlx5_0,mlx5_1,mlx5_10 ]
	# the root stands for /sys: the CPU's settings are read there too
	[ "$(env_item governor)" = performance ]
	# no /sys/class/infiniband: no item, not even a count
	mkdir -p "$BATS_TEST_TMPDIR/sys"
	DLBENCH_SYSFS_ROOT=$BATS_TEST_TMPDIR/sys run --separate-stderr launch 1n1g_b16_fp32 -- true
	[ "$status" -eq 0 ]
	! printf '%s\n' "${lines[@]}" | grep -q '^# env node=0 ib' || false
	! env_item governor || false
	# a class without devices: a count of 0
	mkdir -p "$BATS_TEST_TMPDIR/sys/class/infiniband"
	DLBENCH_SYSFS_ROOT=$BATS_TEST_TMPDIR/sys run --separate-stderr launch 1n1g_b16_fp32 -- true
	[ "$(env_item ib_devices)" = 0 ]
}

@test "the pipeline's version command adds its name=value lines; a hung one is left out" {
	run --separate-stderr launch -v 'echo framework=torch; echo torch=2.1.0+cpu; echo "not a pair"; echo =x' \
		1n1g_b16_fp32 -- true
	[ "$status" -eq 0 ]
	[ "$(env_item framework)" = torch ]
	[ "$(env_item torch)" = 2.1.0+cpu ]
	[ "$(printf '%s\n' "${lines[@]}" | grep -c '^# env node=0 \(not\|=\)')" = 0 ]
	run --separate-stderr launch -v 'echo framework=torch; exec sleep 60' 1n1g_b16_fp32 -- echo ran
	[ "$status" -eq 0 ]
	! env_item framework || false
	drop_meta
	[ "${lines[1]}" = ran ]
}

@test "the git commit of the command's repository, none outside one" {
	git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1 || skip "$ROOT is not a git checkout"
	run --separate-stderr launch 1n1g_b16_fp32 -- "$F/fake" x
	[ "$status" -eq 0 ]
	[ "$(env_item git_repo)" = "$ROOT" ]
	[ "$(env_item git_commit)" = "$(git -C "$ROOT" rev-parse HEAD)" ]
	[[ "$(env_item git_dirty)" =~ ^(yes|no)$ ]]
	cp "$F/fake" "$BATS_TEST_TMPDIR/fake-copy"
	run --separate-stderr launch 1n1g_b16_fp32 -- "$BATS_TEST_TMPDIR/fake-copy" x
	echo "$stderr"
	[ "$status" -eq 0 ]
	! env_item git_commit || false
}

# A workload that holds $1 MiB, touched, for a second.
hold() {
	echo "python3 -c 'import time; b = bytearray($1 << 20); time.sleep(1)'"
}

@test "memory: the peak resident size of a known allocation, run directly" {
	run --separate-stderr launch 1n1g_b16_fp32 -- sh -c "$(hold 300)"
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" =~ ^"# mem node=0 rank=0 host="[^\ ]+" rss_peak_mib="([0-9]+)$ ]]
	mib=${BASH_REMATCH[1]}
	# 300 MiB and the interpreter (and the shell) around it.
	[ "$mib" -ge 300 ] && [ "$mib" -le 380 ]
}

# A job that stops launch's sampler (its parent, $PPID), holds $1 MiB in a
# child that ends, and lets the sampler go on: no sample can see that peak,
# only the kernel's account of the reaped command has it.
unsampled() {
	echo "sleep 0.5; kill -STOP \$PPID; $(hold "$1"); kill -CONT \$PPID"
}

@test "memory: a peak no sample saw is the kernel's figure of the reaped command, run directly" {
	run --separate-stderr launch 1n1g_b16_fp32 -- sh -c "$(unsampled 300)"
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" =~ ^"# mem node=0 rank=0 host="[^\ ]+" rss_peak_mib="([0-9]+)$ ]]
	mib=${BASH_REMATCH[1]}
	[ "$mib" -ge 300 ] && [ "$mib" -le 380 ]
}

@test "memory: a peak no sample saw is the kernel's figure of the reaped command, in a rank's wrapper" {
	run --separate-stderr launch 1n2g_b16_fp32 -- sh -c "$(unsampled 200)"
	[ "$status" -eq 0 ]
	for r in 0 1; do
		line=$(printf '%s\n' "${lines[@]}" | grep "^# mem node=0 rank=$r ")
		mib=${line##*rss_peak_mib=}
		[ "$mib" -ge 200 ] && [ "$mib" -le 280 ]
	done
}

@test "memory: every rank under mpirun writes its own peak, and node 0 its environment once" {
	run --separate-stderr launch 1n2g_b16_fp32 -- sh -c "$(hold 200)"
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "${lines[@]}" | grep -c '^# env node=0 hostname=')" = 1 ]
	for r in 0 1; do
		line=$(printf '%s\n' "${lines[@]}" | grep "^# mem node=0 rank=$r ")
		mib=${line##*rss_peak_mib=}
		[ "$mib" -ge 200 ] && [ "$mib" -le 280 ]
	done
}

@test "memory: launch's figure for bench agrees with bench's own peak_mem_mb" {
	# the sanitizer run's programs (make test-sanitize) hold no bench
	command -v bench >/dev/null || skip "no bench among the programs under test"
	run --separate-stderr launch 1n1g_b2_fp32 -- bench --batch {batch} --image 32 --classes 10 --iters 2
	[ "$status" -eq 0 ]
	own=$(printf '%s\n' "${lines[@]}" | sed -n 's/^# end .*peak_mem_mb=\([0-9]*\)$/\1/p')
	ours=$(printf '%s\n' "${lines[@]}" | sed -n 's/^# mem node=0 rank=0 .*rss_peak_mib=\([0-9]*\)$/\1/p')
	echo "bench: $own MiB, launch: $ours MiB"
	# bench's is its own process's peak (ru_maxrss) when it ends its run;
	# launch's the sampled tree and the kernel's peak of the reaped bench
	# (the same ru_maxrss, at its exit): within 5 % or 2 MiB.
	d=$((own > ours ? own - ours : ours - own))
	[ "$own" -gt 0 ] && [ "$d" -le $((own / 20 > 2 ? own / 20 : 2)) ]
}

@test "launch --libs: each library's own version, as its package and headers give it" {
	command -v bench >/dev/null || skip "no bench among the programs under test"
	run --separate-stderr launch --libs "$(command -v bench)"
	[ "$status" -eq 0 ]
	pkg=$(dpkg-query -W -f '${Version}' "$(dpkg -S "$(readlink -f "$(ldd "$(command -v bench)" |
		awk '/libdnnl/ { print $3 }')")" | cut -d: -f1)")
	[ "${lines[0]}" = "onednn=${pkg%%-*}" ]
	# bench links no MPI (it opens one under a launcher and names it itself)
	[ "${#lines[@]}" = 1 ]
	command -v bench-cuda >/dev/null || skip "no bench-cuda among the programs under test"
	run --separate-stderr launch --libs "$(command -v bench-cuda)"
	[ "$status" -eq 0 ]
	h=/usr/local/cuda/include/cudnn_version.h
	[ "${lines[0]}" = "cudnn=$(awk '/define CUDNN_(MAJOR|MINOR|PATCHLEVEL) /{ v = v sep $3; sep = "." } END { print v }' "$h")" ]
	printf '%s\n' "${lines[@]}" | grep -qx 'nccl=[0-9]*\.[0-9]*\.[0-9]*'
	# cuDNN, NCCL and the CUDA runtime; the linked cuBLAS gives none.
	[ "${#lines[@]}" = 3 ]
}

# ---- the energy lines -------------------------------------------------------

# NVML faked (tests/drivers/fake-nvml.c): each read of a GPU's counter
# advances it by FAKE_NVML_STEP_MJ (1000 mJ).
NVML_LIB="${BIN_UNDER_TEST:-$ROOT/bin}/test-fake-nvml"

# The energy lines of $lines (of device $1 when given).
energy_lines() {
	printf '%s\n' "${lines[@]}" | grep "^# energy .*${1:+ device=$1 }" || true
}

# %XX decoded.
decoded() {
	printf '%b\n' "$(sed 's/%\([0-9A-F][0-9A-F]\)/\\x\1/g' <<<"$1")"
}

# An empty sysfs root: no RAPL counter, whatever this machine has.
no_rapl() {
	mkdir -p "$BATS_TEST_TMPDIR/nosys"
	export DLBENCH_SYSFS_ROOT="$BATS_TEST_TMPDIR/nosys"
}

# tests/fixtures/launch/energy/nvidia-smi on PATH: power.draw, a constant.
power_smi() {
	mkdir -p "$BATS_TEST_TMPDIR/esmi"
	ln -sf "$F/energy/nvidia-smi" "$BATS_TEST_TMPDIR/esmi/nvidia-smi"
	export PATH="$BATS_TEST_TMPDIR/esmi:$PATH"
}

# awk's verdict on an expression of the numbers given as a=, b=, ...
holds() {
	local expr=$1
	shift
	awk "$@" "BEGIN { exit !($expr) }"
}

@test "energy: a node with no counter readable writes one line saying what was tried" {
	if ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml\.so\.1 '; then
		skip "this machine has NVML"
	fi
	no_rapl
	run --separate-stderr launch 1n1g_b16_fp32 -- sleep 0.3
	[ "$status" -eq 0 ]
	vm=
	if grep -qw hypervisor /proc/cpuinfo; then vm='; a virtual machine'; fi
	e=$(energy_lines)
	[[ "$e" == "# energy node=0 reason="* ]] && [ "$(wc -l <<<"$e")" = 1 ]
	[ "$(decoded "${e#*reason=}")" = "no energy counter readable: no NVML (libnvidia-ml.so.1 not found), no power.draw from nvidia-smi, no RAPL (/sys/class/powercap absent)$vm" ]
	# the energy lines come before the memory lines, which stay last
	[[ "${lines[-1]}" == "# mem node=0 rank=0 "* ]]
}

@test "energy: NVML's counter of each GPU, sampled at the start, every second and at the end" {
	no_rapl
	t0=$(date +%s.%N)
	LD_LIBRARY_PATH=$NVML_LIB FAKE_NVML_GPUS=2 run --separate-stderr launch 1n1g_b16_fp32 -- sleep 2.3
	t1=$(date +%s.%N)
	[ "$status" -eq 0 ]
	[ "$(energy_lines | grep -vc ' device=gpu[01] how=nvml ')" = 0 ]
	for k in 0 1; do
		mapfile -t e < <(energy_lines "gpu$k")
		[ "${#e[@]}" -ge 3 ] && [ "${#e[@]}" -le 5 ]
		prev=0
		for i in "${!e[@]}"; do
			# a second's step at least between two, the last aside
			[[ "${e[i]}" =~ ^"# energy node=0 device=gpu$k how=nvml t="([0-9]+\.[0-9]{3})" j=$i.000"$ ]]
			t=${BASH_REMATCH[1]}
			holds 't >= a - 0.01 && t <= b + 0.01' -v t="$t" -v a="$t0" -v b="$t1"
			if [ "$i" -gt 0 ] && [ "$i" -lt $((${#e[@]} - 1)) ]; then
				holds 't - p >= 0.99' -v t="$t" -v p="$prev"
			fi
			prev=$t
		done
	done
}

@test "energy: a GPU without NVML's counter is measured by nvidia-smi's power.draw, integrated, said so" {
	no_rapl
	power_smi
	LD_LIBRARY_PATH=$NVML_LIB FAKE_NVML_NO_ENERGY=1 FAKE_SMI_GPUS='0 1' FAKE_SMI_WATTS=100.00 \
		run --separate-stderr launch 1n1g_b16_fp32 -- sleep 2.5
	[ "$status" -eq 0 ]
	# GPU 0 keeps NVML's counter (nvidia-smi's lines of it are not taken)
	[ "$(energy_lines gpu0 | grep -vc ' how=nvml ')" = 0 ]
	mapfile -t e < <(energy_lines gpu1)
	[ "${#e[@]}" -ge 2 ]
	for i in "${!e[@]}"; do
		[[ "${e[i]}" =~ ^"# energy node=0 device=gpu1 how=nvidia-smi t="([0-9.]+)" j="([0-9.]+)$ ]]
		[ "$i" -gt 0 ] || { first=${BASH_REMATCH[1]}; [ "${BASH_REMATCH[2]}" = 0.000 ]; }
		# 100 W for the time since the first sample, to the digits printed
		holds 'j - 100 * (t - f) <= 0.11 && 100 * (t - f) - j <= 0.11' \
			-v j="${BASH_REMATCH[2]}" -v t="${BASH_REMATCH[1]}" -v f="$first"
	done
	holds 'j > 100' -v j="${e[-1]##*j=}"
}

@test "energy: without NVML every GPU is nvidia-smi's; a node with a counter writes no reason" {
	no_rapl
	power_smi
	FAKE_SMI_GPUS='0 1' run --separate-stderr launch 1n1g_b16_fp32 -- sleep 1.5
	[ "$status" -eq 0 ]
	[ "$(energy_lines | grep -c ' how=nvidia-smi ')" -ge 2 ]
	[ "$(energy_lines | grep -vc ' how=nvidia-smi ')" = 0 ]
}

# A powercap tree under $BATS_TEST_TMPDIR/sys: package 0 (its counter at
# 0.9 J, wrapping at 1 J) with its core and DRAM zones, a psys zone and an
# MMIO zone (parts or copies of the package: not counted).
rapl_tree() {
	local p=$BATS_TEST_TMPDIR/sys/class/powercap z
	for z in intel-rapl:0 intel-rapl:0:0 intel-rapl:0:1 intel-rapl:1 intel-rapl-mmio:0; do
		mkdir -p "$p/$z"
		echo 1000000 >"$p/$z/max_energy_range_uj"
		echo 500 >"$p/$z/energy_uj"
	done
	echo package-0 >"$p/intel-rapl:0/name"
	echo 900000 >"$p/intel-rapl:0/energy_uj"
	echo core >"$p/intel-rapl:0:0/name"
	echo dram >"$p/intel-rapl:0:1/name"
	echo psys >"$p/intel-rapl:1/name"
	echo package-0 >"$p/intel-rapl-mmio:0/name"
	export DLBENCH_SYSFS_ROOT=$BATS_TEST_TMPDIR/sys
	PKG=$p/intel-rapl:0/energy_uj
}

@test "energy: RAPL's package and DRAM counters, a wrap-around added back; core, psys and MMIO left out" {
	rapl_tree
	# the package counter: 0.9 J, 0.1 J (it wrapped at 1 J), 0.6 J
	run --separate-stderr launch 1n1g_b16_fp32 -- sh -c \
		"sleep 1.2; echo 100000 > '$PKG'; sleep 1.2; echo 600000 > '$PKG'; sleep 0.2"
	[ "$status" -eq 0 ]
	[ "$(energy_lines | grep -vc ' device=\(package-0\|dram-0\) how=rapl ')" = 0 ]
	mapfile -t e < <(energy_lines package-0)
	[ "${#e[@]}" -ge 3 ]
	[ "${e[0]##* j=}" = 0.000 ]
	[ "${e[-1]##* j=}" = 0.700 ]
	# never back: each sample at least the one before
	printf '%s\n' "${e[@]}" | awk '{ j = substr($NF, 3) + 0; if (j < last) exit 1; last = j }'
	[ -z "$(energy_lines dram-0 | grep -v ' j=0\.000$')" ]
	[ "$(energy_lines dram-0 | wc -l)" = "${#e[@]}" ]
}

@test "energy: RAPL zones whose counter cannot be read say so" {
	if ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml\.so\.1 '; then
		skip "this machine has NVML"
	fi
	rapl_tree
	for z in intel-rapl:0 intel-rapl:0:1; do
		rm "$DLBENCH_SYSFS_ROOT/class/powercap/$z/energy_uj"
		mkdir "$DLBENCH_SYSFS_ROOT/class/powercap/$z/energy_uj"
	done
	run --separate-stderr launch 1n1g_b16_fp32 -- true
	[ "$status" -eq 0 ]
	e=$(energy_lines)
	[[ "$(decoded "${e#*reason=}")" == *", no RAPL (RAPL's energy_uj unreadable)"* ]]
}

@test "energy under mpirun: the node's first rank samples its counters, once" {
	no_rapl
	LD_LIBRARY_PATH=$NVML_LIB FAKE_NVML_GPUS=1 run --separate-stderr launch 1n2g_b16_fp32 -- sleep 1.2
	[ "$status" -eq 0 ]
	[ "$(energy_lines gpu0 | grep -c ' j=0\.000$')" = 1 ]
	[ "$(energy_lines | grep -vc '^# energy node=0 device=gpu0 how=nvml ')" = 0 ]
}
