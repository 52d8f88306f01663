#!/bin/sh
# down.sh DIR — remove what tests/rig/up.sh created (listed in DIR/state):
# first every process still running in the rig's namespaces, then the
# namespaces, veth pairs and the bridge. Idempotent: what is gone is skipped,
# a missing DIR/state is nothing to do.
set -u

[ $# -eq 1 ] || { echo "usage: down.sh DIR" >&2; exit 2; }
state=$1/state
[ -f "$state" ] || exit 0

while read -r what name; do
	case $what in
	netns)
		if ip netns pids "$name" >/dev/null 2>&1; then
			pids=$(ip netns pids "$name")
			# shellcheck disable=SC2086 # one word per pid
			[ -z "$pids" ] || kill -KILL $pids 2>/dev/null
			ip netns del "$name" 2>/dev/null
		fi
		;;
	esac
done <"$state"
while read -r what name; do
	case $what in
	link) ip link del "$name" 2>/dev/null ;;
	esac
done <"$state"
rm -rf "$1"/tmp-dlb*
rm -f "$state"
exit 0
