#!/bin/sh
# The line cap (issue 15): every reader stops at a line longer than
# PROFTOOLS_MAX_LINE bytes (default 16 MiB) with "file:line: line longer
# than N bytes", uses the lines before it and exits 1; memory stays
# bounded however long the line, and so does time: the rest is never read
# (issue 25: reading on to the newline of /dev/zero never ended).
# (prof-formats.5, LINE LENGTH).
. "$(dirname "$0")/lib.sh"
DATA=$TESTS/data

# good lines around a line of 65 bytes (cap 64) and one of exactly 64
# (62 frame bytes, a blank, a count)
long=$(printf '%065d' 0 | tr 0 x)
edge=$(printf '%062d' 0 | tr 0 y)
printf 'main;a 1\n%s 7\nmain;b 2\n%s\nmain;a 3\n' "$edge" "$long" >"$TMP/cap.folded"
printf 'main;a 4\nmain;b 2\n%s 7\n' "$edge" >"$TMP/cap.expected"
printf 'main;a 1\nmain;b 2\n%s 7\n' "$edge" >"$TMP/cap.before"
run env PROFTOOLS_MAX_LINE=64 "$BIN/proffold" "$TMP/cap.folded"
if [ "$STATUS" = 1 ] && cmp -s "$TMP/stdout" "$TMP/cap.before" &&
   [ "$(cat "$TMP/stderr")" = "proffold: $TMP/cap.folded:4: line longer than 64 bytes (PROFTOOLS_MAX_LINE raises the cap)" ]; then
	pass "proffold: a line of cap + 1 bytes is reported with file:line, the lines before it folded, exit 1"
else
	fail "proffold: cap + 1" "exit $STATUS: $(tr '\n' '|' <"$TMP/stdout") / $(tr '\n' '|' <"$TMP/stderr")"
fi
check_file "proffold: the cap raised: the line is read (and is malformed: no count)" 1 "$TMP/cap.expected" \
	env PROFTOOLS_MAX_LINE=65 "$BIN/proffold" "$TMP/cap.folded"
gzip -c "$TMP/cap.folded" >"$TMP/cap.folded.gz"
check_error "proffold: compressed input and stdin: the same line number" 1 \
	'^proffold: <stdin>:4: line longer than 64 bytes' \
	sh -c 'PROFTOOLS_MAX_LINE=64 "$1" <"$2"' sh "$BIN/proffold" "$TMP/cap.folded.gz"
check_error "an invalid PROFTOOLS_MAX_LINE is said and the default kept" 0 \
	"PROFTOOLS_MAX_LINE: expected a size such as 64M, got 'lots': lines are capped at 16777216 bytes" \
	env PROFTOOLS_MAX_LINE=lots "$BIN/proffold" "$TMP/cap.expected"

# /dev/zero, a line that never ends: stopped at the cap (it was read on
# for ever, looking for the newline)
check_error "proffold /dev/zero: the first line over the cap stops it, exit 1" 1 \
	'^proffold: /dev/zero:1: line longer than 4096 bytes' \
	env PROFTOOLS_MAX_LINE=4096 timeout 60 "$BIN/proffold" /dev/zero
check_error "proffold -j 4 /dev/zero (perf script's threads): stopped too, exit 1" 1 \
	'^proffold: /dev/zero:1: line longer than 16777216 bytes' timeout 60 "$BIN/proffold" -j 4 /dev/zero
check_error "profflame /dev/zero: stopped, exit 1" 1 '^profflame: /dev/zero:1: line longer than' \
	timeout 60 "$BIN/profflame" /dev/zero

# profflame and profcmp read through the same readers
run env PROFTOOLS_MAX_LINE=64 "$BIN/profflame" "$TMP/cap.folded"
if [ "$STATUS" = 1 ] && grep -q 'main' "$TMP/stdout" && grep -q "$edge" "$TMP/stdout" &&
   grep -q "cap.folded:4: line longer than 64 bytes" "$TMP/stderr"; then
	pass "profflame: the long line reported, the graph drawn from the lines before it, exit 1"
else
	fail "profflame: long line" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
fi
check_error "profcmp: the long line reported, exit 1" 1 'cap.folded:4: line longer than 64 bytes' \
	env PROFTOOLS_MAX_LINE=64 "$BIN/profcmp" "$TMP/cap.folded" "$TMP/cap.expected"
# profcmp copies standard input to a temporary file (it reads it twice):
# a long line only to cap + 1 bytes, so 20 MB of NUL bytes stay under a
# 32 KiB file-size limit (before, SIGXFSZ: the disk could fill)
mkdir "$TMP/spool"
check_error "profcmp - : a long line on stdin is copied to cap + 1 bytes, reported, exit 1" 1 \
	"^profcmp: <stdin>:1: line longer than 4096 bytes" \
	sh -c 'ulimit -f 64; head -c 20000000 /dev/zero | TMPDIR="$1" PROFTOOLS_MAX_LINE=4096 "$2" - "$3"' \
	sh "$TMP/spool" "$BIN/profcmp" "$TMP/cap.expected"
gzip -c "$TMP/cap.expected" >"$TMP/cap.expected.gz"
"$BIN/profcmp" "$TMP/cap.expected" "$TMP/cap.expected" | sed 1d >"$TMP/cmp.same"
check_file "profcmp - : compressed stdin is copied as it is" 0 "$TMP/cmp.same" \
	sh -c 'PROFTOOLS_MAX_LINE=64 "$1" - "$2" <"$3" | sed 1d' sh "$BIN/profcmp" "$TMP/cap.expected" "$TMP/cap.expected.gz"

# profrec TSV: a long row among good ones: the rows before it folded
{
	printf 'time_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack\n'
	printf '1\t1\t1\tapp\t0\tcpu-clock\t5\t1\tmain;a\n'
	printf '2\t1\t1\tapp\t0\tcpu-clock\t5\t2\tmain;%s\n' "$long$long"
	printf '3\t1\t1\tapp\t0\tcpu-clock\t6\t3\tmain;b\n'
} >"$TMP/cap.tsv"
run env PROFTOOLS_MAX_LINE=100 "$BIN/proffold" --no-header "$TMP/cap.tsv"
if [ "$STATUS" = 1 ] && [ "$(cat "$TMP/stdout")" = "app;main;a 5" ] &&
   grep -q 'cap.tsv:3: line longer than 100 bytes' "$TMP/stderr"; then
	pass "proffold: profrec TSV: the long row reported, the rows before it folded, exit 1"
else
	fail "proffold: profrec TSV long row" "exit $STATUS: $(tr '\n' '|' <"$TMP/stdout") / $(head -c 300 "$TMP/stderr")"
fi

# perf script, read by several threads (blocks end at blank lines): a long
# line between two samples; the line number is the input's, the folding
# that of the samples before it
zcat "$DATA/perf-g.txt.gz" >"$TMP/g.txt"
n=$(grep -n '^$' "$TMP/g.txt" | sed -n 40p | cut -d: -f1)
head -n "$n" "$TMP/g.txt" | "$BIN/proffold" >"$TMP/g.folded"
{ head -n "$n" "$TMP/g.txt"; printf '%s\n\n' "$long$long"; tail -n "+$((n + 1))" "$TMP/g.txt"; } >"$TMP/g-long.txt"
for j in 1 4; do
	run env PROFTOOLS_MAX_LINE=100 "$BIN/proffold" -j "$j" "$TMP/g-long.txt"
	if [ "$STATUS" = 1 ] && cmp -s "$TMP/stdout" "$TMP/g.folded" &&
	   grep -q "g-long.txt:$((n + 1)): line longer than 100 bytes" "$TMP/stderr"; then
		pass "proffold -j $j: perf script: the long line reported at its line, the samples before it folded"
	else
		fail "proffold -j $j: perf script long line" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
	fi
done

# the imported formats (gdb, eu-stack, DTrace, bpftrace) are read through
# the same cap: a long line after a whole input reported, what came
# before it folded as without it, the copy after it never read
huge=$(head -c 5000 /dev/zero | tr '\0' x)
for f in gdb-bt.txt eustack.txt dtrace.txt bpftrace.txt; do
	{ cat "$DATA/$f"; printf '%s\n' "$huge"; cat "$DATA/$f"; } >"$TMP/long-$f"
	at=$(($(wc -l <"$DATA/$f") + 1))
	"$BIN/proffold" "$DATA/$f" >"$TMP/want-$f"
	run env PROFTOOLS_MAX_LINE=4096 "$BIN/proffold" "$TMP/long-$f"
	if [ "$STATUS" = 1 ] && cmp -s "$TMP/stdout" "$TMP/want-$f" &&
	   [ "$(cat "$TMP/stderr")" = "proffold: $TMP/long-$f:$at: line longer than 4096 bytes (PROFTOOLS_MAX_LINE raises the cap)" ]; then
		pass "proffold: $f: the long line reported at its line, what came before it folded, exit 1"
	else
		fail "proffold: $f long line" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
	fi
done
# ... in bounded memory (the whole input was once held: out of memory)
if [ -z "$SANITIZE" ]; then
	STATUS=0
	( ulimit -v 150000
	  { cat "$DATA/gdb-bt.txt"; head -c 300M /dev/zero; printf '\n'; } |
		"$BIN/proffold" /dev/stdin >"$TMP/stdout" 2>"$TMP/stderr" ) || STATUS=$?
	if [ "$STATUS" = 1 ] && cmp -s "$TMP/stdout" "$TMP/want-gdb-bt.txt" &&
	   grep -q '^proffold: /dev/stdin:[0-9]*: line longer than 16777216 bytes' "$TMP/stderr"; then
		pass "proffold: gdb backtraces then a 300 MB line, within 150 MB of address space"
	else
		fail "proffold: gdb backtraces, bounded memory" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
	fi
fi

# prof_lines readers (profflame --nameattr's file)
printf 'main\ttitle=hello\n%s\ttitle=x\n' "$long" >"$TMP/attrs"
check_error "profflame --nameattr: a long line of the attribute file reported, exit 1" 1 \
	'attrs:2: line longer than 64 bytes' \
	env PROFTOOLS_MAX_LINE=64 "$BIN/profflame" --nameattr "$TMP/attrs" "$TMP/cap.expected"

# profflame --heatmap's TSV (proffold --heatmap): the long row reported,
# the cells before it drawn, none after it
printf '%s\n' '# source=profrec event=cpu-clock unit=ns bucket_ms=250' \
	"$(printf 'second\toffset_ms\tevent\tsamples\tweight')" \
	"$(printf '0\t0\tcpu-clock\t3\t3000000')" "$(printf '0\t500\tcpu-clock\t7\t7000000')" \
	"$(printf '0\t250\tcpu-clock\t1\t%s' "$long")" "$(printf '0\t750\tcpu-clock\t9\t9000000')" >"$TMP/hm.tsv"
run env PROFTOOLS_MAX_LINE=64 "$BIN/profflame" --heatmap "$TMP/hm.tsv"
if [ "$STATUS" = 1 ] && grep -q 'hm.tsv:5: line longer than 64 bytes' "$TMP/stderr" &&
   grep -qx 'n: \[3,0,7,0\],' "$TMP/stdout"; then
	pass "profflame --heatmap: the long row reported, the cells before it drawn, exit 1"
else
	fail "profflame --heatmap: long row" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
fi

# Memory: 200 MB of NUL bytes (one line, no newline) through the default
# cap: the line is dropped as it streams by, peak RSS stays small.
if [ -n "$SANITIZE" ]; then
	size=40M limit=400000
else
	size=200M limit=120000
fi
if need "peak RSS of a 200 MB line" /usr/bin/time time; then
	run sh -c 'head -c "$1" /dev/zero | /usr/bin/time -f "rss=%M" "$2" -q' sh "$size" "$BIN/proffold"
	rss=$(sed -n 's/^rss=//p' "$TMP/stderr")
	if [ "$STATUS" = 1 ] && grep -q '^proffold: <stdin>:1: line longer than 16777216 bytes' "$TMP/stderr" &&
	   [ -n "$rss" ] && [ "$rss" -lt "$limit" ]; then
		pass "proffold: a $size line from a pipe: reported, peak RSS $rss KiB (< $limit)"
	else
		fail "proffold: a $size line from a pipe" "exit $STATUS, rss ${rss:-?} KiB: $(head -c 300 "$TMP/stderr")"
	fi
	printf 'main;a 3\n' >"$TMP/before"
	run sh -c '{ cat "$3"; head -c "$1" /dev/zero; } | /usr/bin/time -f "rss=%M" "$2" -q' sh "$size" \
		"$BIN/profflame" "$TMP/before"
	rss=$(sed -n 's/^rss=//p' "$TMP/stderr")
	if [ "$STATUS" = 1 ] && grep -q 'main' "$TMP/stdout" && [ -n "$rss" ] && [ "$rss" -lt "$limit" ]; then
		pass "profflame: a stack then a $size line: the stack drawn, peak RSS $rss KiB (< $limit)"
	else
		fail "profflame: a stack then a $size line" "exit $STATUS, rss ${rss:-?} KiB: $(head -c 300 "$TMP/stderr")"
	fi
fi

# Every tool that reads input lines says so: one shared line in --help
# (io/input.h's PROF_MAX_LINE_HELP) and its man page's ENVIRONMENT.
for t in profannotate profcmp profflame proffold profheap profreport; do
	env_man=$(sed -n '/^\.Sh ENVIRONMENT/,/^\.Sh /p' "$TOP/man/$t.1")
	if "$BIN/$t" --help | grep -q '^Environment: PROFTOOLS_MAX_LINE=SIZE caps an input line (default 16M)' &&
	   printf '%s\n' "$env_man" | grep -q '^\.It Ev PROFTOOLS_MAX_LINE$'; then
		pass "$t: PROFTOOLS_MAX_LINE in --help and in the man page's ENVIRONMENT"
	else
		fail "$t: PROFTOOLS_MAX_LINE documented" "--help or man/$t.1 ENVIRONMENT lacks it"
	fi
done
