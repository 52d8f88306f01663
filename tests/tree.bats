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

@test "generated text is what its program prints (make generate): lib/key.mk, doc/dlperf.md's formats" {
	run -0 diff -u lib/key.mk <(test-key-mk)
	run -0 grep -c '^<!-- \(begin\|end\): grep-iters -l' doc/dlperf.md
	[ "$output" = 2 ]
	run -0 diff -u <(sed -n '/^<!-- begin: grep-iters -l/,/^<!-- end: grep-iters -l/p' doc/dlperf.md |
		sed '1d;$d') <(grep-iters -l)
}

# Every function defined in filters/ and lib/, static ones too: "name file
# shared", shared 1 when its own file hands it to a struct (".parse = parse,":
# its part of an interface that many files implement, as every log format
# has a parse). A definition starts at column 0 with "name(" and its
# signature is followed by a line "{" before any line that ends in ";".
function_definitions() {
	git ls-files 'filters/*.c' 'filters/*.h' 'lib/*.c' 'lib/*.h' | xargs awk '
		FNR == 1 { pending = "" }
		/^[A-Za-z_]/ && /\(/ && !/;[ \t]*$/ {
			s = $0
			gsub(/LIB_[A-Z_]+(\([^)]*\))?|__attribute__\(\([^)]*\)\)/, "", s)
			if (match(s, /[A-Za-z_][A-Za-z_0-9]*\(/))
				pending = substr(s, RSTART, RLENGTH - 1)
		}
		/;[ \t]*$/ { pending = "" }
		/^\{$/ && pending != "" { def[++n] = pending " " FILENAME; pending = "" }
		/^[ \t]+\.[a-z_]+ = [A-Za-z_0-9]+,?$/ { v = $3; sub(/,$/, "", v); given[v " " FILENAME] = 1 }
		END { for (i = 1; i <= n; i++) print def[i], (def[i] in given) }'
}

@test "no two functions of one name in what one program is built from (filters/, lib/; static ones too)" {
	run -0 function_definitions
	[ "${#lines[@]}" -gt 300 ]
	defs=$output bad=
	# A program: filters/NAME.c or filters/NAME/, with lib/ and the log formats.
	for prog in filters/*.c filters/*/; do
		[ "$prog" != filters/formats/ ] || continue
		bad+=$(awk -v p="$prog" '
			index($2, p) == 1 || index($2, "lib/") == 1 || index($2, "filters/formats/") == 1 {
				n[$1]++; where[$1] = where[$1] " " $2; if (!$3) own[$1]++ }
			END { for (f in n) if (n[f] > 1 && own[f]) print f ":" where[f] }' <<<"$defs")$'\n'
	done
	bad=$(sort -u <<<"$bad" | sed '/^$/d')
	[ -z "$bad" ] || { echo "defined twice: $bad"; false; }
}
