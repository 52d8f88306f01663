#!/usr/bin/env bats
# The tree itself: one style, every reference inside the repository, the
# calls between the files of a folder going one way, each shared helper
# defined once (in lib/).

load helper

# A long file is named, not failed: a place to look for a seam. Files are
# split where their jobs part, never to fit a count.
setup_file() {
	cd "$ROOT"
	git rev-parse --git-dir >/dev/null 2>&1 || return 0
	{
		git ls-files 'filters/*.c' 'filters/*.h' | xargs wc -l |
			awk '$2 != "total" && $1 > 400 { print $2, $1 }'
		git ls-files 'filters/formats/*.c' | grep -v -e registry.c -e scan.c | xargs -r wc -l |
			awk '$2 != "total" && $1 > 200 && $1 <= 400 { print $2, $1 }'
	} | while read -r f n; do
		echo "# warning: $f has $n lines; is it one job?" >&3
	done
}

setup() {
	common_setup
	cd "$ROOT"
	git rev-parse --git-dir >/dev/null 2>&1 || skip "not a git checkout"
}

@test "every C and CUDA file is formatted as .clang-format says" {
	run -0 make --no-print-directory -s format-check
}

@test "no tracked file cites a document outside the repository" {
	# The pattern is built so that this file does not match itself.
	run -1 git grep -nE "spec ""§|DESIGN""\.md|dlperf-""rules|\.\./""shared|CONTRACT""\.md" -- .
}

@test "every doc/ file a tracked file names exists" {
	missing=$(git grep -ohE 'doc/[a-z0-9-]+\.md' -- . | sort -u | while read -r f; do
		[ -f "$f" ] || echo "$f"; done)
	[ -z "$missing" ] || { echo "missing: $missing"; false; }
}

@test "no two files of one folder of C or CUDA code call each other, even through others" {
	run tests/circles.sh
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "circles.sh passes calls one way, and finds a circle made through a header's macro" {
	d="$BATS_TEST_TMPDIR/tool"
	cp -r "$FIXTURES/circles" "$d"
	run -0 tests/circles.sh "$d"
	[ -z "$output" ]
	echo '#define CALL_A() a()' >"$d/tool.h"
	sed -i 's/return s.a/return CALL_A() + s.a/' "$d/b.c"
	grep -q CALL_A "$d/b.c"
	run -1 tests/circles.sh "$d"
	[ "$output" = "$d: a.c b.c
  a.c -> b.c (b)
  b.c -> a.c (a)" ]
}

@test "the README is read in ten minutes: at most 250 lines" {
	[ "$(wc -l < README.md)" -le 250 ]
}

@test "no helper of lib/ is defined again outside it" {
	names=$(sed -nE 's/^[A-Za-z_ ]*[ *]([a-z_0-9]+)\(.*/\1/p' lib/lib.h | sort -u)
	[ "$(echo "$names" | wc -l)" -gt 20 ]
	for n in $names; do
		# A definition starts at column 0 and does not end in ';'.
		hits=$(git grep -nE "^[a-z_].*[ *]$n\([^;]*$" -- '*.c' '*.cu' '*.h' ':!lib' || true)
		[ -z "$hits" ] || { echo "$n defined again: $hits"; false; }
	done
}
