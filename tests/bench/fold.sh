#!/bin/sh
# fold.sh: proffold against stackcollapse-perf.pl on the same ~350 MB
# `perf script` file (tests/bench/mkperf.sh), in one run: runs
# interleaved, best of each kept, wall and CPU time, throughput, peak RSS,
# -j scaling and the ratios; the outputs are checked identical.
#
# Environment: BIN (directory of proffold, default bin), FLAMEGRAPH_DIR
# (a FlameGraph checkout; default ../ref/FlameGraph when present, else our
# figures alone), ROUNDS (proffold runs, default 3), PERL_ROUNDS (default
# 1: the Perl script is slow), JOBS (thread counts to try, default "1 2"),
# INPUT (a perf script file instead of the built one).
#
# Targets (issue 3): >= 400 MB/s single thread (>= 20x the Perl script),
# RSS < 64 MB, >= 1.6x faster at -j 2 than -j 1 on 2 cores.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BENCH=fold.sh
. "$TOP/tests/bench/lib.sh"
bench_setup proffold stackcollapse-perf.pl
JOBS=${JOBS:-1 2}
INPUT=${INPUT:-$(sh "$TOP/tests/bench/mkperf.sh")}
BYTES=$(wc -c <"$INPUT")
echo "input: $INPUT: $BYTES bytes; $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"

r=1
while [ $r -le "$ROUNDS" ] || { [ -n "$FLAMEGRAPH_DIR" ] && [ $r -le "$PERL_ROUNDS" ]; }; do
	if [ $r -le "$ROUNDS" ]; then
		for j in $JOBS; do
			bench_measure "proffold-j$j" "$BIN/proffold" --no-header -j "$j" "$INPUT"
		done
	fi
	if [ -n "$FLAMEGRAPH_DIR" ] && [ $r -le "$PERL_ROUNDS" ]; then
		bench_measure stackcollapse-perf.pl perl "$FLAMEGRAPH_DIR/stackcollapse-perf.pl" "$INPUT"
	fi
	r=$((r + 1))
done

report() {
	read -r wall user sys rss <"$WORK/$1.best"
	awk -v n="$1" -v b="$BYTES" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" 'BEGIN {
		cpu = u + s
		printf "%-22s wall %7.2f s  cpu %7.2f s  %7.1f MB/s (wall) %7.1f MB/s (cpu)  RSS %6.1f MB\n",
		    n, w, cpu, b / 1e6 / (w > 0 ? w : 0.01), b / 1e6 / (cpu > 0 ? cpu : 0.01), r / 1024
	}'
}
first=
for j in $JOBS; do
	report "proffold-j$j"
	[ -n "$first" ] || first=$j
	cmp -s "$WORK/proffold-j$first.out" "$WORK/proffold-j$j.out" ||
		echo "fold.sh: -j $j output differs from -j $first" >&2
done
wall_of() { cut -d' ' -f1 "$WORK/$1.best"; }
cpu_of() { awk '{ print $2 + $3 }' "$WORK/$1.best"; }
for j in $JOBS; do
	[ "$j" = "$first" ] && continue
	awk -v a="$(wall_of "proffold-j$first")" -v b="$(wall_of "proffold-j$j")" -v j="$j" -v f="$first" 'BEGIN {
		printf "scaling: -j %s is %.2fx faster than -j %s (wall)\n", j, a / (b > 0 ? b : 0.01), f
	}'
done
[ -n "$FLAMEGRAPH_DIR" ] || { echo "(FLAMEGRAPH_DIR not set: stackcollapse-perf.pl not run)"; exit 0; }
report stackcollapse-perf.pl
cmp -s "$WORK/proffold-j$first.out" "$WORK/stackcollapse-perf.pl.out" &&
	echo "outputs: identical to stackcollapse-perf.pl's" ||
	echo "outputs: DIFFER from stackcollapse-perf.pl's (note: the Perl script drops an unterminated last sample)"
awk -v pw="$(wall_of "proffold-j$first")" -v pc="$(cpu_of "proffold-j$first")" \
    -v fw="$(wall_of stackcollapse-perf.pl)" -v fc="$(cpu_of stackcollapse-perf.pl)" -v b="$BYTES" 'BEGIN {
	printf "ratios (-j %s): %.1fx faster (wall), %.1fx less CPU; single-thread %.0f MB/s of CPU (target >= 400)\n",
	    "'"$first"'", fw / (pw > 0 ? pw : 0.01), fc / (pc > 0 ? pc : 0.01), b / 1e6 / (pc > 0 ? pc : 0.01)
}'
