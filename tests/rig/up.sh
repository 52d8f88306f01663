#!/bin/sh
# up.sh K DIR [SLOTS] — the multi-node test rig: K "hosts" on this machine.
#
# Creates K network namespaces dlb<id>h1 … dlb<id>hK, one bridge dlb<id>br and
# one veth pair per host, on a private test subnet 10.200.<x>.0/24 that no
# other interface of this machine uses (<x> is picked free under a lock).
# Host i is 10.200.<x>.<i>; the bridge (this namespace, where mpirun runs) is
# 10.200.<x>.254. Nothing outside these project-own devices is touched.
#
# Writes into DIR (which must exist):
#   hosts   Open MPI host file: one "10.200.<x>.<i> slots=SLOTS" line per host
#   map     "address namespace" per host (read by tests/rig/agent)
#   env     shell exports for Open MPI: the agent, TCP only, the test subnet
#   state   what down.sh removes
# Needs root and iproute2. Undo with tests/rig/down.sh DIR (also after a
# partial failure: state is written before each device is created).
set -eu

prog=up.sh
die() { echo "$prog: $*" >&2; exit 1; }

[ $# -ge 2 ] && [ $# -le 3 ] || { echo "usage: up.sh K DIR [SLOTS]" >&2; exit 2; }
k=$1 dir=$2 slots=${3:-2}
case $k in ''|*[!0-9]*) die "K: '$k' is not an integer" ;; esac
case $slots in ''|*[!0-9]*) die "SLOTS: '$slots' is not an integer" ;; esac
[ "$k" -ge 1 ] && [ "$k" -le 16 ] || die "K: '$k' is out of range 1..16"
[ "$slots" -ge 1 ] && [ "$slots" -le 64 ] || die "SLOTS: '$slots' is out of range 1..64"
[ -d "$dir" ] || die "$dir: not a directory"
[ "$(id -u)" -eq 0 ] || die "needs root (network namespaces)"

here=$(cd "$(dirname "$0")" && pwd)
dir=$(cd "$dir" && pwd)
id=$$
br=dlb${id}br
: >"$dir/state"
: >"$dir/map"
: >"$dir/hosts"

# Pick a free 10.200.<x>.0/24 and claim it (bridge address) under a lock, so
# that two rigs at once never share a subnet.
lock=/run/lock/dlbench-rig.lock
mkdir -p /run/lock
exec 9>"$lock"
flock 9
x=
for n in $(seq 1 250); do
	if [ -z "$(ip -o addr show to "10.200.$n.0/24")" ] &&
		[ -z "$(ip route show to match "10.200.$n.1" | grep -v '^default')" ]; then
		x=$n
		break
	fi
done
[ -n "$x" ] || die "no free subnet in 10.200.1-250.0/24"
net=10.200.$x
echo "link $br" >>"$dir/state"
ip link add "$br" type bridge
ip addr add "$net.254/24" dev "$br"
ip link set "$br" up
flock -u 9
exec 9>&-

for i in $(seq 1 "$k"); do
	ns=dlb${id}h$i
	echo "netns $ns" >>"$dir/state"
	ip netns add "$ns"
	echo "link dlb${id}v$i" >>"$dir/state"
	ip link add "dlb${id}v$i" type veth peer name "dlb${id}p$i"
	ip link set "dlb${id}p$i" netns "$ns"
	ip -n "$ns" link set "dlb${id}p$i" name eth0
	ip -n "$ns" addr add "$net.$i/24" dev eth0
	ip -n "$ns" link set lo up
	ip -n "$ns" link set eth0 up
	ip link set "dlb${id}v$i" master "$br"
	ip link set "dlb${id}v$i" up
	echo "$net.$i $ns" >>"$dir/map"
	echo "$net.$i slots=$slots" >>"$dir/hosts"
done

cat >"$dir/env" <<ENV
export DLBENCH_RIG_MAP='$dir/map'
export OMPI_MCA_plm_rsh_agent='$here/agent'
export OMPI_MCA_plm_rsh_no_tree_spawn=1
export OMPI_MCA_btl=self,tcp
export OMPI_MCA_btl_tcp_if_include=$net.0/24
export OMPI_MCA_oob_tcp_if_include=$net.0/24
export DLBENCH_RIG_NET=$net
ENV
