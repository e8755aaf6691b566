#!/bin/sh
# layout: the rules of ARCHITECTURE.md that the source tree itself can be
# checked for, one PASS or FAIL line per rule, naming the offenders:
# cmd/ files are glue (short), lib/ includes nothing outside lib/, no
# function is long (option switches excepted), lib objects depend on each
# other without cycles, and lib/README lists every file of lib/.
. "$(dirname "$0")/lib.sh"

if [ -n "$SANITIZE" ]; then
	skip "all" "static checks of the source tree: run in the plain pass"
	exit 0
fi
cd "$TOP" || exit 1
CMD_MAX_LINES=450
FUNC_MAX_LINES=120
lib_files=$(find lib -type f ! -name README | LC_ALL=C sort)
c_files=$(find lib cmd -name '*.[ch]' | LC_ALL=C sort)

# ---- cmd/NAME.c is glue: options, usage, calls into lib/
long=$(wc -l cmd/*.c | awk -v max="$CMD_MAX_LINES" '$2 != "total" && $1 > max { printf " %s (%d)", $2, $1 }')
if [ -z "$long" ]; then pass "no cmd/*.c over $CMD_MAX_LINES lines"
else fail "no cmd/*.c over $CMD_MAX_LINES lines" "over:$long"; fi

# ---- lib/ includes: by folder ("core/stack.h"), resolved inside lib/
# includes FILE...: "file:line:header" of every #include "header".
includes() {
	awk '/^[ \t]*#[ \t]*include[ \t]*"/ { h = $0; sub(/^[^"]*"/, "", h); sub(/".*/, "", h)
		print FILENAME ":" FNR ":" h }' "$@"
}
# shellcheck disable=SC2086
includes $(echo "$lib_files" | grep '\.[ch]$') >"$TMP/lib-includes"
up= outside=
while IFS=: read -r file line hdr; do
	# the compiler looks beside the file first, then in lib/ (-Ilib)
	where=
	for cand in "$(dirname "$file")/$hdr" "lib/$hdr"; do
		[ -f "$cand" ] || continue
		where=$(cd "$(dirname "$cand")" && pwd -P)/$(basename "$cand")
		break
	done
	case $where in
	"$TOP/lib/"*) ;;
	"$TOP/cmd/"*) up="$up $file:$line:\"$hdr\"" ;;
	*) outside="$outside $file:$line:\"$hdr\"" ;;
	esac
done <"$TMP/lib-includes"
if [ -z "$up" ]; then pass "no include from lib/ up to cmd/"
else fail "no include from lib/ up to cmd/" "$up"; fi
if [ -z "$outside" ]; then pass "lib/ includes no header from outside lib/"
else fail "lib/ includes no header from outside lib/" "not in lib/:$outside"; fi

# ---- no function over FUNC_MAX_LINES lines (from its first line to its
# closing brace) in lib/ and cmd/; the lines of an option switch (the
# switch of a getopt loop) do not count. A brace-depth scanner: string and
# character literals and comments are blanked first.
# shellcheck disable=SC2086
awk -v max="$FUNC_MAX_LINES" '
FNR == 1 { depth = 0; incomment = 0; header = ""; hstart = 0; getopt = 0; swdepth = 0 }
{
	line = $0
	# blank comments, strings and character literals
	out = ""
	while (line != "") {
		if (incomment) {
			i = index(line, "*/")
			if (!i) { line = ""; break }
			line = substr(line, i + 2); incomment = 0; continue
		}
		if (match(line, /\/\*|\/\/|"|\047/) == 0) { out = out line; break }
		out = out substr(line, 1, RSTART - 1)
		tok = substr(line, RSTART, RLENGTH)
		line = substr(line, RSTART + RLENGTH)
		if (tok == "/*") incomment = 1
		else if (tok == "//") line = ""
		else {
			# skip to the closing quote, past escapes
			while (line != "") {
				c = substr(line, 1, 1)
				if (c == "\\") { line = substr(line, 3); continue }
				line = substr(line, 2)
				if (c == tok) break
			}
			out = out tok tok
		}
	}
	code = out
	if (depth == 0) {
		if (code ~ /^[ \t]*#/) { header = ""; next }
		if (header == "" && code ~ /[A-Za-z_]/) hstart = FNR
		if (code !~ /^[ \t]*$/) header = header " " code
	}
	if (code ~ /getopt/) getopt = FNR
	if (code ~ /(^|[^A-Za-z_0-9])switch[ \t]*\(/ && getopt && FNR - getopt <= 2 && !swdepth)
		{ swdepth = depth + 1; swstart = FNR }
	n = length(code)
	for (i = 1; i <= n; i++) {
		c = substr(code, i, 1)
		if (c == "{") {
			if (depth == 0) {
				name = ""
				h = header
				gsub(/__attribute__[ \t]*\(\([^)]*\)\)/, "", h)
				if (h !~ /=/ && match(h, /[A-Za-z_][A-Za-z_0-9]*[ \t]*\(/)) {
					name = substr(h, RSTART, RLENGTH)
					sub(/[ \t]*\($/, "", name)
				}
				fstart = hstart; skipped = 0
			}
			depth++
		} else if (c == "}") {
			depth--
			if (swdepth && depth == swdepth - 1) {
				skipped += FNR - swstart + 1; swdepth = 0; getopt = 0
			}
			if (depth == 0) {
				if (name != "" && FNR - fstart + 1 - skipped > max)
					printf "%s:%d:%s:%d\n", FILENAME, fstart, name, FNR - fstart + 1 - skipped
				header = ""; name = ""
			}
		} else if (c == ";" && depth == 0)
			header = ""
	}
}' $(echo "$c_files" | grep '\.c$') >"$TMP/long-functions"
if [ ! -s "$TMP/long-functions" ]; then
	pass "no function over $FUNC_MAX_LINES lines in lib/ and cmd/ (option switches excepted)"
else
	fail "no function over $FUNC_MAX_LINES lines in lib/ and cmd/ (option switches excepted)" \
		"$(awk -F: '{ printf " %s:%s %s (%d lines)", $1, $2, $3, $4 }' "$TMP/long-functions")"
fi

# ---- no dependency cycle between lib/ objects: A -> B when A uses a
# symbol B defines (nm of $BUILD/lib/**/*.o); a cycle is reported as the
# objects of one strongly connected component.
# (the objects of today's sources only: a build directory may keep those
# of files since removed)
objs=$(for c in $(echo "$lib_files" | grep '\.c$' | grep -v '^lib/heap/shim/'); do
	o=$BUILD/${c%.c}.o
	[ -f "$o" ] && echo "$o"
done)
if [ -z "$objs" ] || ! have nm; then
	skip "no dependency cycle between lib/ objects" "no objects in $BUILD/lib or no nm"
else
	for o in $objs; do
		nm "$o" 2>/dev/null | awk -v o="${o#"$BUILD"/lib/}" '
			$1 == "U" { print "U", o, $2; next }
			NF >= 3 && $2 ~ /^[A-TV-Z]$/ { print "D", o, $3 }'
	done >"$TMP/symbols"
	awk '
	$1 == "D" { def[$3] = $2; next }
	{ use[++nu] = $2 SUBSEP $3 }
	END {
		for (i = 1; i <= nu; i++) {
			split(use[i], p, SUBSEP)
			if ((p[2] in def) && def[p[2]] != p[1] && !((p[1], def[p[2]]) in edge)) {
				edge[p[1], def[p[2]]] = 1
				adj[p[1]] = adj[p[1]] " " def[p[2]]
				node[p[1]] = node[def[p[2]]] = 1
			}
		}
		# Tarjan: strongly connected components of more than one object
		for (v in node) if (!(v in index_)) connect(v)
	}
	function connect(v,    n, k, w, a, comp) {
		index_[v] = low[v] = ++counter
		stack[++sp] = v; onstack[v] = 1
		n = split(adj[v], a, " ")
		for (k = 1; k <= n; k++) {
			w = a[k]
			if (!(w in index_)) { connect(w); if (low[w] < low[v]) low[v] = low[w] }
			else if (onstack[w] && index_[w] < low[v]) low[v] = index_[w]
		}
		if (low[v] == index_[v]) {
			comp = ""; n = 0
			do { w = stack[sp--]; onstack[w] = 0; comp = comp " " w; n++ } while (w != v)
			if (n > 1) print comp
		}
	}' "$TMP/symbols" | sort >"$TMP/cycles"
	if [ ! -s "$TMP/cycles" ]; then
		pass "no dependency cycle between lib/ objects"
	else
		fail "no dependency cycle between lib/ objects" \
			"$(awk '{ printf " {"; for (i = 1; i <= NF; i++) printf "%s%s", (i > 1 ? " " : ""), $i; printf "}" }' "$TMP/cycles")"
	fi
fi

# ---- lib/README lists every file: in the section of its folder (a line
# "FOLDER/" at the start), a line whose first word is the file's name, or
# NAME.[ch] for a .c and .h pair.
unlisted=
for f in $lib_files; do
	dir=${f#lib/}
	dir=${dir%/*}
	base=${f##*/}
	pair=${base%.[ch]}.[ch]
	awk -v dir="$dir/" -v base="$base" -v pair="$pair" '
		/^[^ \t]/ { in_dir = ($1 == dir) ; next }
		in_dir && ($1 == base || $1 == pair) { found = 1 }
		END { exit !found }' lib/README 2>/dev/null || unlisted="$unlisted $f"
done
if [ -z "$unlisted" ]; then pass "lib/README lists every file of lib/"
else fail "lib/README lists every file of lib/" "not listed:$unlisted"; fi
# ... and names no file that is not there (NAME.[ch]: both)
stale=$(awk '/^[^ \t]/ { dir = ($1 ~ /\/$/) ? $1 : ""; next }
	dir != "" && NF { print "lib/" dir $1 }' lib/README 2>/dev/null |
	while read -r f; do
		case $f in
		*.\[ch\]) for g in "${f%.\[ch\]}.c" "${f%.\[ch\]}.h"; do [ -f "$g" ] || printf ' %s' "$g"; done ;;
		*) [ -f "$f" ] || printf ' %s' "$f" ;;
		esac
	done)
if [ -z "$stale" ]; then pass "lib/README names only files that exist"
else fail "lib/README names only files that exist" "missing:$stale"; fi
