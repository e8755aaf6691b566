#!/bin/sh
# rec.sh: profrec against perf record (Debian linux-perf) on the same
# CPU-bound workload (tests/demo/workload.c split: 75% leaf_a, 25% leaf_b),
# same frequency and call-graph mode, and against the bare workload, in
# one run: runs interleaved, the best (least CPU) of each kept.
#
# Prints per mode: wall and CPU time (user+sys of the whole process tree,
# profiler included), the overhead in CPU over the bare workload, samples
# captured against expected (frequency x the task's own CPU seconds),
# output bytes per sample; then dwarf end to end (record + symbolize +
# fold) and the fixed cost of profiling `true`.
#
# Environment: BIN (tools, default bin), SECS (workload CPU seconds,
# default 3), ROUNDS (default 3), FREQ (default 999), FLAMEGRAPH_DIR
# (FlameGraph checkout for stackcollapse-perf.pl; default ../ref/FlameGraph).
#
# Targets (issue 4): fp overhead <= perf record's; >= 98% of expected
# samples; bytes/sample <= perf.data's; dwarf overhead <= perf's dwarf;
# dwarf end to end faster than perf record + perf script + folding;
# `profrec -- true` <= 50 ms wall.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$TOP/bin}
case $BIN in /*) ;; *) BIN=$TOP/$BIN ;; esac
SECS=${SECS:-3}
ROUNDS=${ROUNDS:-3}
FREQ=${FREQ:-999}
if [ -z "${FLAMEGRAPH_DIR+x}" ]; then
	FLAMEGRAPH_DIR=
	[ -f "$TOP/../ref/FlameGraph/stackcollapse-perf.pl" ] && FLAMEGRAPH_DIR=$TOP/../ref/FlameGraph
fi
[ -x "$BIN/profrec" ] || { echo "rec.sh: $BIN/profrec: build it first (make)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "rec.sh: needs /usr/bin/time (package time)" >&2; exit 1; }
PERF=$(command -v perf || true)
[ -n "$PERF" ] || echo "rec.sh: perf not found: profrec figures alone" >&2
WORK=$(mktemp -d "${TMPDIR:-/tmp}/recbench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export LC_ALL=C
unset DEBUGINFOD_URLS

CC=${CC:-cc}
$CC -O1 -g -fno-omit-frame-pointer -pthread -o "$WORK/wl" "$TOP/tests/demo/workload.c" -ldl
$CC -O2 -g -fomit-frame-pointer -pthread -o "$WORK/wlo" "$TOP/tests/demo/workload.c" -ldl

# measure NAME CMD...: run once; keep the run with the least CPU time per
# NAME (least wall time for true-*) in $WORK/NAME.best as "wall user sys", and NAME.out's size and
# sample count of that run.
measure() {
	name=$1
	shift
	rm -f "$WORK/$name.out"
	/usr/bin/time -f "%e %U %S" -o "$WORK/$name.time" "$@" >"$WORK/$name.stdout" 2>"$WORK/$name.err" || {
		echo "rec.sh: $name failed: $(tail -n 3 "$WORK/$name.err")" >&2
		return 0
	}
	tail -n 1 "$WORK/$name.time" >"$WORK/$name.last"
	if [ ! -f "$WORK/$name.best" ] ||
	   awk -v n="$name" 'NR == FNR { c = n ~ /^true/ ? $1 : $2 + $3; next }
		{ exit !(c < (n ~ /^true/ ? $1 : $2 + $3)) }' "$WORK/$name.last" "$WORK/$name.best"; then
		cp "$WORK/$name.last" "$WORK/$name.best"
		samples "$name" >"$WORK/$name.samples"
		if [ -f "$WORK/$name.out" ]; then wc -c <"$WORK/$name.out" >"$WORK/$name.bytes"; else echo 0 >"$WORK/$name.bytes"; fi
	fi
}

samples() {
	case $1 in
	profrec*) awk -F'\t' '!/^#/ && $1 != "time_ns"' "$WORK/$1.out" | wc -l ;;
	perf*) "$PERF" script -i "$WORK/$1.out" -F tid 2>/dev/null | grep -c . || true ;;
	*) echo 0 ;;
	esac
}

echo "workload: tests/demo/workload.c split, $SECS s of CPU; -F $FREQ; best of $ROUNDS (least CPU)"
r=1
while [ $r -le "$ROUNDS" ]; do
	measure bare "$WORK/wl" -s "$SECS" split
	measure profrec-fp "$BIN/profrec" -q -F "$FREQ" -o "$WORK/profrec-fp.out" -- "$WORK/wl" -s "$SECS" split
	[ -n "$PERF" ] && measure perf-fp "$PERF" record -q -F "$FREQ" -g -o "$WORK/perf-fp.out" -- "$WORK/wl" -s "$SECS" split
	measure bare-O2 "$WORK/wlo" -s "$SECS" split
	measure profrec-dwarf "$BIN/profrec" -q -F "$FREQ" --call-graph dwarf -o "$WORK/profrec-dwarf.out" -- "$WORK/wlo" -s "$SECS" split
	[ -n "$PERF" ] && measure perf-dwarf "$PERF" record -q -F "$FREQ" --call-graph dwarf -o "$WORK/perf-dwarf.out" -- "$WORK/wlo" -s "$SECS" split
	r=$((r + 1))
done

row() {	# row NAME BASE
	[ -f "$WORK/$1.best" ] || return 0
	read -r w u s <"$WORK/$1.best"
	read -r bw bu bs <"$WORK/$2.best"
	n=$(cat "$WORK/$1.samples")
	b=$(cat "$WORK/$1.bytes")
	awk -v name="$1" -v w="$w" -v c="$(echo "$u $s" | awk '{ print $1 + $2 }')" \
	    -v bc="$(echo "$bu $bs" | awk '{ print $1 + $2 }')" -v n="$n" -v b="$b" -v f="$FREQ" 'BEGIN {
		ex = f * bc
		if (name ~ /^bare/)
			printf "%-14s %7.2f %7.2f %9s %8s %8s %7s %9s\n", name, w, c, "-", "-", "-", "-", "-"
		else
			printf "%-14s %7.2f %7.2f %8.1f%% %8d %8d %6.1f%% %9.1f\n", name, w, c,
				100 * (c - bc) / bc, n, ex, 100 * n / ex, n ? b / n : 0
	}'
}
printf "%-14s %7s %7s %9s %8s %8s %7s %9s\n" mode wall_s cpu_s overhead samples expected capture B/sample
row bare bare
row profrec-fp bare
row perf-fp bare
row bare-O2 bare-O2
row profrec-dwarf bare-O2
row perf-dwarf bare-O2

ratio() {	# ratio A B COLUMN-LABEL: A/B of CPU overhead
	[ -f "$WORK/$1.best" ] && [ -f "$WORK/$2.best" ] || return 0
	awk -v a="$(awk '{ print $2 + $3 }' "$WORK/$1.best")" -v b="$(awk '{ print $2 + $3 }' "$WORK/$2.best")" \
	    -v base="$(awk '{ print $2 + $3 }' "$WORK/$3.best")" -v l="$1 vs $2" 'BEGIN {
		oa = a - base; ob = b - base
		printf "%s: overhead %.3f s vs %.3f s CPU", l, oa, ob
		if (ob > 0) printf " (ratio %.2f)", oa / ob
		printf "\n"
	}'
	awk -v a="$(cat "$WORK/$1.bytes")" -v na="$(cat "$WORK/$1.samples")" \
	    -v b="$(cat "$WORK/$2.bytes")" -v nb="$(cat "$WORK/$2.samples")" -v l="$1 vs $2" 'BEGIN {
		if (na && nb && b) printf "%s: bytes/sample %.1f vs %.1f (ratio %.2f)\n", l, a / na, b / nb, (a / na) / (b / nb)
	}'
}
ratio profrec-fp perf-fp bare
ratio profrec-dwarf perf-dwarf bare-O2

# Dwarf end to end: record, symbolize, fold.
if [ -x "$BIN/proffold" ]; then
	r=1
	while [ $r -le "$ROUNDS" ]; do
		measure e2e-profrec sh -c "'$BIN/profrec' -q -F $FREQ --call-graph dwarf -o '$WORK/e2e.tsv' -- '$WORK/wlo' -s $SECS split && '$BIN/proffold' '$WORK/e2e.tsv' > '$WORK/e2e-profrec.folded'"
		if [ -n "$PERF" ] && [ -n "$FLAMEGRAPH_DIR" ]; then
			measure e2e-perf sh -c "'$PERF' record -q -F $FREQ --call-graph dwarf -o '$WORK/e2e.data' -- '$WORK/wlo' -s $SECS split && '$PERF' script -i '$WORK/e2e.data' 2>/dev/null | perl '$FLAMEGRAPH_DIR/stackcollapse-perf.pl' > '$WORK/e2e-perf.folded'"
		fi
		r=$((r + 1))
	done
	for n in e2e-profrec e2e-perf; do
		[ -f "$WORK/$n.best" ] && awk -v n="$n" '{ printf "%-14s wall %.2f s, CPU %.2f s\n", n, $1, $2 + $3 }' "$WORK/$n.best"
	done
	if [ -f "$WORK/e2e-perf.best" ] && [ -f "$WORK/e2e-profrec.best" ]; then
		awk 'NR == FNR { a = $2 + $3; aw = $1; next } { printf "dwarf end to end: profrec+proffold %.2fx the CPU, %.2fx the wall of perf record+perf script+stackcollapse-perf.pl\n", a / ($2 + $3), aw / $1 }' \
			"$WORK/e2e-profrec.best" "$WORK/e2e-perf.best"
	fi
fi

# Fixed cost: profiling `true`.
r=1
while [ $r -le 5 ]; do
	measure true-profrec "$BIN/profrec" -q -o "$WORK/true-profrec.out" -- true
	[ -n "$PERF" ] && [ $r -le 3 ] && measure true-perf "$PERF" record -q -g -o "$WORK/true-perf.out" -- true
	r=$((r + 1))
done
for n in true-profrec true-perf; do
	[ -f "$WORK/$n.best" ] && awk -v n="$n" '{ printf "%-14s -- true: wall %.3f s, CPU %.3f s\n", n, $1, $2 + $3 }' "$WORK/$n.best"
done
exit 0
