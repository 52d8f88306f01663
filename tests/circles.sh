#!/usr/bin/env bash
# circles.sh — the circles between the files of one folder of C or CUDA code.
#
# usage: tests/circles.sh [folder ...]
#
# Reads the .c, .cu, .h and .cuh files of each folder (default: every
# folder of the git checkout that holds a .c or .cu file); writes to stdout each circle found, its
# files and, per edge, one name that makes it:
#
#   filters/launch: env.c libs.c
#     env.c -> libs.c (env_git)
#     libs.c -> env.c (item)
#
# and exits 1 when there is one, 0 when the calls between the files of every
# folder go one way, 2 when a folder cannot be read.
#
# A file depends on another of its folder when it names a function or
# variable that the other defines at file scope without `static`, itself
# or through a macro or inline function of the folder's headers. Comments,
# strings and member names (declared in a type at file scope, or after '.'
# or '->') do not count; neither does
# main, nor a name two files of the folder define (each its own program,
# as the filters/*.c are). Names pasted together by the preprocessor's ##
# are not seen.
set -euo pipefail
export LC_ALL=C

if [ $# -eq 0 ]; then
	mapfile -t folders < <(git ls-files '*.c' '*.cu' | sed 's,/[^/]*$,,; t; s,.*,.,' | sort -u)
	set -- "${folders[@]}"
fi

status=0
for dir in "$@"; do
	[ -d "$dir" ] || { echo "circles.sh: $dir: no such folder" >&2; exit 2; }
	mapfile -t files < <(find "$dir" -maxdepth 1 -type f \( -name '*.c' -o -name '*.cu' \) | sort)
	[ "${#files[@]}" -gt 1 ] || continue
	mapfile -t headers < <(find "$dir" -maxdepth 1 -type f \( -name '*.h' -o -name '*.cuh' \) | sort)
	rc=0
	awk -v dir="$dir" '
	# The line without comments, string and character literals (each one blank).
	function strip(s,   out, c, t, re) {
		out = ""
		while (s != "") {
			if (incomment) {
				if (!(t = index(s, "*/")))
					return out
				s = substr(s, t + 2)
				incomment = 0
				out = out " "
				continue
			}
			if (!match(s, /\/\*|\/\/|"|'\''/))
				return out s
			out = out substr(s, 1, RSTART - 1)
			c = substr(s, RSTART, RLENGTH)
			s = substr(s, RSTART + RLENGTH)
			if (c == "//")
				return out
			out = out " "
			if (c == "/*") {
				incomment = 1
				continue
			}
			re = c == "\"" ? "\\\\.|\"" : "\\\\.|'\''"
			while (s != "" && match(s, re)) {
				t = substr(s, RSTART, RLENGTH)
				s = substr(s, RSTART + RLENGTH)
				if (t == c)
					break
			}
		}
		return out
	}
	function define(name) {
		if (name == "main" || (FILENAME, name) in defs)
			return
		defs[FILENAME, name] = 1
		ndef[name]++
		where[name] = FILENAME
	}
	FNR == 1 {
		incomment = 0
		pending = ""
		body = ""
		macro = 0
		intype = typedepth = 0
		header = FILENAME ~ /\.(h|cuh)$/
		if (!header)
			file[++nfiles] = FILENAME
	}
	{
		line = strip($0)
		if ($0 ~ /^extern *"C" /)
			sub(/^extern */, "", line) # a C function of a .cu file
		# A macro or function of a header: the names it uses count for its users.
		if (header && !macro && match(line, /^# *define +[A-Za-z_][A-Za-z0-9_]*/)) {
			body = substr(line, RSTART, RLENGTH)
			sub(/.* /, "", body)
			line = substr(line, RSTART + RLENGTH)
			macro = 1
		}
		# A function: the first "{" or ";" after its name says definition or not.
		if (pending == "" && body == "" && line ~ /^[A-Za-z_]/ &&
		    (header || line !~ /^(static|extern|typedef)[^A-Za-z0-9_]/)) {
			t = line
			gsub(/__attribute__ *\(\([^)]*\)\)/, " ", t)
			if (match(t, /^[A-Za-z_][^=;{(]*[ *]+[A-Za-z_][A-Za-z0-9_]* *\(/)) {
				head = substr(t, 1, RLENGTH - 1)
				sub(/ *$/, "", head)
				match(head, /[A-Za-z_][A-Za-z0-9_]*$/)
				pending = substr(head, RSTART)
			} else if (!header && t !~ /^(struct|union|enum) +[A-Za-z_][A-Za-z0-9_]* *;/ &&
				   match(t, /^[A-Za-z_][^=;{(]*[ *]+[A-Za-z_][A-Za-z0-9_]* *(\[[^]]*\] *)*(=|;)/)) {
				head = substr(t, 1, RLENGTH - 1)
				sub(/ *(\[[^]]*\] *)*$/, "", head)
				match(head, /[A-Za-z_][A-Za-z0-9_]*$/)
				define(substr(head, RSTART))
			}
		}
		if (pending != "" && match(line, /[{;]/)) {
			if (substr(line, RSTART, 1) == "{") {
				if (header) {
					body = pending
					depth = 0
				} else
					define(pending)
			}
			pending = ""
		}
		# A type: its members name nothing of another file.
		if (line ~ /^(typedef +)?(struct|union|enum)( +[A-Za-z_][A-Za-z0-9_]*)? *{/)
			intype = 1
		if (intype) {
			t = line
			typedepth += gsub(/{/, "", t) - gsub(/}/, "", t)
			intype = typedepth > 0
			next
		}
		brace = line
		gsub(/(\.|->) *[A-Za-z_][A-Za-z0-9_]*/, " ", line)
		while (match(line, /[A-Za-z_][A-Za-z0-9_]*/)) {
			t = substr(line, RSTART, RLENGTH)
			line = substr(line, RSTART + RLENGTH)
			if (!header)
				uses[FILENAME, t] = 1
			else if (body != "" && t != body)
				inner[body] = inner[body] " " t
		}
		if (body != "" && !macro)
			depth += gsub(/{/, "{", brace) - gsub(/}/, "}", brace)
		if (body != "" && (macro ? $0 !~ /\\$/ : depth <= 0))
			body = ""
		if ($0 !~ /\\$/)
			macro = 0
	}
	END {
		# A name of a header macro or function: the names it uses, in turn.
		for (key in uses)
			todo[++ntodo] = key
		for (i = 1; i <= ntodo; i++) {
			split(todo[i], k, SUBSEP)
			if (!(k[2] in inner))
				continue
			n = split(inner[k[2]], words, " ")
			for (j = 1; j <= n; j++)
				if (!((k[1], words[j]) in uses)) {
					uses[k[1], words[j]] = 1
					todo[++ntodo] = k[1] SUBSEP words[j]
				}
		}
		for (key in uses) {
			split(key, k, SUBSEP)
			f = k[1]
			n = k[2]
			# The first name in byte order: the same report every run.
			if (ndef[n] == 1 && where[n] != f &&
			    (!((f, where[n]) in edge) || n < edge[f, where[n]]))
				edge[f, where[n]] = n
		}
		for (key in edge) {
			split(key, k, SUBSEP)
			reach[k[1], k[2]] = 1
		}
		for (m = 1; m <= nfiles; m++)
			for (i = 1; i <= nfiles; i++)
				if ((file[i], file[m]) in reach)
					for (j = 1; j <= nfiles; j++)
						if ((file[m], file[j]) in reach)
							reach[file[i], file[j]] = 1
		for (i = 1; i <= nfiles; i++) {
			if (file[i] in done || !((file[i], file[i]) in reach))
				continue
			names = ""
			nin = 0
			for (j = 1; j <= nfiles; j++)
				if ((file[i], file[j]) in reach && (file[j], file[i]) in reach) {
					done[file[j]] = 1
					in_circle[++nin] = file[j]
					names = names " " base(file[j])
				}
			print dir ":" names
			for (a = 1; a <= nin; a++)
				for (b = 1; b <= nin; b++)
					if ((in_circle[a], in_circle[b]) in edge)
						printf "  %s -> %s (%s)\n", base(in_circle[a]),
						       base(in_circle[b]), edge[in_circle[a], in_circle[b]]
			found = 1
		}
		exit found
	}
	function base(p) {
		sub(/.*\//, "", p)
		return p
	}
	' "${headers[@]}" "${files[@]}" || rc=$?
	case $rc in
	0) ;;
	1) status=1 ;;
	*) exit 2 ;;
	esac
done
exit $status
