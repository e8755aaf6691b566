#!/bin/sh
# flame.sh: profflame against flamegraph.pl on the same ~100 MB folded file
# (tests/bench/mkfolded.sh), in one run: runs interleaved, best of each
# kept, wall and CPU time, throughput, peak RSS, SVG size and the ratios.
#
# Environment: BIN (directory of profflame, default bin), FLAMEGRAPH_DIR
# (a FlameGraph checkout; default ../ref/FlameGraph when present, else our
# figures alone), ROUNDS (profflame runs, default 3), PERL_ROUNDS (default
# 1: flamegraph.pl is slow), INPUT (a folded file instead of the built one).
#
# Targets (issue 3): >= 100 MB/s of folded input, RSS <= 1/4 of
# flamegraph.pl's, SVG no larger than flamegraph.pl's at the same minwidth.
#
# The subsecond heat map's HTML page of a 10-minute recording is measured
# by tests/bench/heatmap.sh.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BENCH=flame.sh
. "$TOP/tests/bench/lib.sh"
bench_setup profflame flamegraph.pl
INPUT=${INPUT:-$(sh "$TOP/tests/bench/mkfolded.sh")}
BYTES=$(wc -c <"$INPUT")
LINES=$(wc -l <"$INPUT")
echo "input: $INPUT: $BYTES bytes, $LINES lines; --width 1200, default minwidth 0.1 px"

# measure NAME CMD...: bench_measure, plus the SVG's size and frame count.
measure() {
	bench_measure "$@"
	wc -c <"$WORK/$1.out" >"$WORK/$1.size"
	grep -c '<rect' "$WORK/$1.out" >"$WORK/$1.rects" || true
}

r=1
while [ $r -le "$ROUNDS" ] || { [ -n "$FLAMEGRAPH_DIR" ] && [ $r -le "$PERL_ROUNDS" ]; }; do
	[ $r -le "$ROUNDS" ] && measure profflame "$BIN/profflame" --width 1200 "$INPUT"
	if [ -n "$FLAMEGRAPH_DIR" ] && [ $r -le "$PERL_ROUNDS" ]; then
		measure flamegraph.pl perl "$FLAMEGRAPH_DIR/flamegraph.pl" --width 1200 "$INPUT"
	fi
	r=$((r + 1))
done

report() {
	read -r wall user sys rss <"$WORK/$1.best"
	awk -v n="$1" -v b="$BYTES" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" \
	    -v size="$(cat "$WORK/$1.size")" -v rects="$(cat "$WORK/$1.rects")" 'BEGIN {
		cpu = u + s
		printf "%-14s wall %6.2f s  cpu %6.2f s  %7.1f MB/s (cpu) %7.1f MB/s (wall)  RSS %6.1f MB  SVG %6.2f MB, %d frames\n",
		    n, w, cpu, b / 1e6 / (cpu > 0 ? cpu : 0.01), b / 1e6 / (w > 0 ? w : 0.01), r / 1024, size / 1e6, rects - 1
	}'
}
report profflame

[ -n "$FLAMEGRAPH_DIR" ] || { echo "(FLAMEGRAPH_DIR not set: flamegraph.pl not run)"; exit 0; }
report flamegraph.pl
read -r pw pu ps prss <"$WORK/profflame.best"
read -r fw fu fs frss <"$WORK/flamegraph.pl.best"
awk -v pw="$pw" -v pc="$(echo "$pu $ps" | awk '{print $1 + $2}')" -v prss="$prss" \
    -v fw="$fw" -v fc="$(echo "$fu $fs" | awk '{print $1 + $2}')" -v frss="$frss" \
    -v ps="$(cat "$WORK/profflame.size")" -v fs="$(cat "$WORK/flamegraph.pl.size")" 'BEGIN {
	printf "ratios: %.1fx faster (wall), %.1fx less CPU, RSS %.3f of flamegraph.pl%s, SVG %.2f of its size%s\n",
	    fw / (pw > 0 ? pw : 0.01), fc / (pc > 0 ? pc : 0.01), prss / frss,
	    prss * 4 <= frss ? " (target <= 0.25: met)" : " (target <= 0.25: MISSED)",
	    ps / fs, ps <= fs ? " (target <= 1: met)" : " (target <= 1: MISSED)"
}'
