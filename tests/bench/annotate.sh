#!/bin/sh
# annotate.sh: profannotate on a function of ~10,000 instructions with
# 1 million samples (a synthetic profrec recording whose samples are
# spread over the function, a hot spot in its middle; the same samples as
# perf script text), and, when perf can record, beside
# perf annotate --stdio on one perf recording of the program: perf
# annotate reads perf.data, profannotate the perf script text of the same
# file (the perf script run timed apart), with the ratios. Best of ROUNDS
# runs, wall and CPU time, peak RSS.
#
# Environment: BIN (directory of profannotate, default bin), ROUNDS
# (default 3), SAMPLES (default 1000000), STATEMENTS (statements of the
# generated function, default 3400: ~10,000 instructions).
#
# Target (issue 14): under 1 s.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$TOP/bin}
case $BIN in /*) ;; *) BIN=$TOP/$BIN ;; esac
ROUNDS=${ROUNDS:-3}
SAMPLES=${SAMPLES:-1000000}
STATEMENTS=${STATEMENTS:-3400}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-annotate.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
CC=${CC:-cc}

# A long function: STATEMENTS dependent statements (3 instructions each).
awk -v n="$STATEMENTS" 'BEGIN {
	print "#include <stdlib.h>"
	print "__attribute__((noinline)) unsigned long big(unsigned long x, long reps) {"
	print "\tfor (long r = 0; r < reps; r++) {"
	for (i = 0; i < n; i++) printf "\t\tx = (x ^ %d) * %d + r;\n", i * 7 + 1, i * 2 + 3
	print "\t}\n\treturn x;\n}"
	print "int main(int argc, char **argv) { return (int)big((unsigned long)argc, argc > 1 ? atol(argv[1]) : 1000) & 1; }"
}' >"$WORK/big.c"
$CC -O1 -g -fPIE -pie -o "$WORK/big" "$WORK/big.c"
set -- $(nm -S "$WORK/big" | awk '$4 == "big" { print $1, $2 }')
ADDR=$((0x$1)) SIZE=$((0x$2))
BID=$(readelf -n "$WORK/big" | awk '/Build ID/ { print $3 }')
INSNS=$(objdump -d --no-show-raw-insn "$WORK/big" | awk '/<big>:/ { on = 1; next } /^$/ { on = 0 } on' | wc -l)
# PIE: the text's file offsets equal its addresses; a load address of
# 0x555500000000 (written as text: awk's numbers may not print 48 bits in hex).
awk -v n="$SAMPLES" -v a="$ADDR" -v s="$SIZE" -v bid="$BID" -v path="$WORK/big" 'BEGIN {
	print "# source=profrec event=cpu-clock unit=ns"
	print "time_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack\tip\tmap_id\tmap"
	srand(1)
	for (i = 0; i < n; i++) {
		off = (i % 4 == 0) ? int(s / 2) : int(rand() * (s - 16))
		printf "%d\t1\t1\tbig\t0\tcpu-clock\t1000000\t0\t%s\t5555%08x\t0\t%s\n", i, i ? "" : "main;big",
			a + off, i ? "" : "0x555500000000 0x0 " bid " " path
	}
}' >"$WORK/big.tsv"
echo "function big: $INSNS instructions, $SIZE bytes; $SAMPLES samples; $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"

best() { # NAME CMD...: best of ROUNDS, "wall cpu rss_kb" in $WORK/NAME.best
	_n=$1
	shift
	: >"$WORK/$_n.all"
	_r=0
	while [ $_r -lt "$ROUNDS" ]; do
		/usr/bin/time -f "%e %U %S %M" -o "$WORK/$_n.time" "$@" >"$WORK/$_n.out" 2>"$WORK/$_n.err" ||
			{ echo "$_n failed: $(tail -n 3 "$WORK/$_n.err")" >&2; return 1; }
		awk '{ print $1, $2 + $3, $4 }' "$WORK/$_n.time" >>"$WORK/$_n.all"
		_r=$((_r + 1))
	done
	sort -n "$WORK/$_n.all" | head -n 1 >"$WORK/$_n.best"
	read -r w c m <"$WORK/$_n.best"
	printf '%-28s wall %6.2f s  cpu %6.2f s  RSS %7.1f MB\n' "$_n" "$w" "$c" "$(echo "$m" | awk '{ print $1 / 1024 }')"
}
best profannotate "$BIN/profannotate" -s big "$WORK/big.tsv"
rows=$(($(wc -l <"$WORK/profannotate.out") - 1))
hot=$(awk -F'\t' '$6 == "*" { print $3 }' "$WORK/profannotate.out")
echo "  $rows instructions annotated, the hottest at $hot (expected near $(printf '%x' $((ADDR + SIZE / 2))))"
# wall time is the target; CPU time says what an unloaded machine would take
target() {
	awk -v what="$1" '{ printf "target < 1 s%s: wall %s, cpu %s\n", what, $1 < 1 ? "met" : "MISSED", $2 < 1 ? "met" : "MISSED" }' "$2"
}
target "" "$WORK/profannotate.best"
# The same samples as perf script -F ip,sym,symoff,dso prints them (the
# same awk, the same seed: the same offsets).
awk -v n="$SAMPLES" -v a="$ADDR" -v s="$SIZE" -v path="$WORK/big" 'BEGIN {
	srand(1)
	for (i = 0; i < n; i++) {
		off = (i % 4 == 0) ? int(s / 2) : int(rand() * (s - 16))
		printf " 5555%08x big+0x%x (%s)\n", a + off, off, path
	}
}' >"$WORK/big.perf.txt"
best "profannotate (perf text)" "$BIN/profannotate" -q -s big "$WORK/big.perf.txt"
target " (perf script text)" "$WORK/profannotate (perf text).best"

# A fixed period (-c), so perf's shares (of the period) are sample shares
# like ours; tried twice: perf 6.1 aborts now and then collecting build-ids.
perf_rec() {
	perf record -q -e cpu-clock -c 50000 -o "$WORK/perf.data" "$WORK/big" 100000 >/dev/null 2>&1
}
if command -v perf >/dev/null 2>&1 && { perf_rec || perf_rec; }; then
	n=$(perf report -i "$WORK/perf.data" --stdio --sort sym 2>/dev/null | awk '/^# Samples:/ { print $3 }')
	echo "one perf recording of the program, $n samples:"
	best "perf annotate --stdio" perf annotate --stdio -i "$WORK/perf.data" -s big
	best "perf script -F ip,sym,symoff,dso" perf script -i "$WORK/perf.data" -F ip,sym,symoff,dso
	cp "$WORK/perf script -F ip,sym,symoff,dso.out" "$WORK/perf.txt"
	best "profannotate (its text)" "$BIN/profannotate" -q -s big "$WORK/perf.txt"
	phot=$(awk '$2 == ":" && $1 ~ /^[0-9.]+$/ && $3 ~ /:$/ { a = $3; sub(/:$/, "", a); if ($1 + 0 > b) { b = $1 + 0; h = a } } END { print h }' \
		"$WORK/perf annotate --stdio.out")
	ohot=$(awk -F'\t' '$6 == "*" { print $3 }' "$WORK/profannotate (its text).out")
	pct() { awk -v a="$1" '$2 == ":" && $3 == a ":" { print $1; exit }' "$WORK/perf annotate --stdio.out"; }
	# thousands of instructions share the top share, rounded: a tie is no difference
	echo "  hottest instruction: perf annotate's $phot ($(pct "$phot")%), profannotate's $ohot ($(pct "$ohot")% in perf's)"
	read -r pw pc _ <"$WORK/perf annotate --stdio.best"
	read -r sw sc _ <"$WORK/perf script -F ip,sym,symoff,dso.best"
	read -r ow oc _ <"$WORK/profannotate (its text).best"
	awk -v pw="$pw" -v pc="$pc" -v sw="$sw" -v sc="$sc" -v ow="$ow" -v oc="$oc" 'BEGIN {
		printf "  ratio profannotate / perf annotate: wall %.2f, cpu %.2f\n", ow / (pw ? pw : 0.01), oc / (pc ? pc : 0.01)
		printf "  ratio (perf script + profannotate) / perf annotate: wall %.2f, cpu %.2f\n", (sw + ow) / (pw ? pw : 0.01), (sc + oc) / (pc ? pc : 0.01)
	}'
else
	echo "(perf cannot record here: perf annotate not measured)"
fi
