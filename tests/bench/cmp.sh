#!/bin/sh
# cmp.sh: profcmp against FlameGraph's difffolded.pl on the same two
# folded files of ~1 million lines each (tests/bench/mkfolded.sh; the new
# one has every 7th stack's weight doubled and every 11th stack dropped),
# in one run: runs interleaved, best of each kept, wall and CPU time, peak
# RSS and the ratios. profcmp is measured twice: the per-function table
# (its default) and --folded-diff, the same output as difffolded.pl's,
# whose lines are checked to be the same stacks and counts.
#
# Environment: BIN (directory of profcmp, default bin), FLAMEGRAPH_DIR (a
# FlameGraph checkout; default ../ref/FlameGraph when present, else our
# figures alone), ROUNDS (profcmp runs, default 3), PERL_ROUNDS (default
# 1), MB (size of each input, default 210: ~1M lines).
#
# Targets (issue 12): < 2 s of CPU for two 1M-line files, memory
# proportional to the distinct stacks, >= 10x faster than difffolded.pl
# (profcmp reads its two inputs in two threads: wall and CPU both shown).
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BENCH=cmp.sh
. "$TOP/tests/bench/lib.sh"
bench_setup profcmp difffolded.pl
MB=${MB:-210}
BASE=$(sh "$TOP/tests/bench/mkfolded.sh" "${TMPDIR:-/tmp}/proftools-bench/folded-${MB}M.txt" "$MB")
NEW=$WORK/new.folded
awk '/^#/ { print; next } NR % 11 == 0 { next }
	NR % 7 == 0 { n = $NF; sub(/ [0-9]+$/, ""); printf "%s %.0f\n", $0, n * 2; next } { print }' "$BASE" >"$NEW"
LINES=$(grep -vc '^#' "$BASE")
echo "inputs: $LINES and $(grep -vc '^#' "$NEW") lines, $(($(wc -c <"$BASE") / 1000000)) MB each; $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"

r=1
while [ $r -le "$ROUNDS" ] || { [ -n "$FLAMEGRAPH_DIR" ] && [ $r -le "$PERL_ROUNDS" ]; }; do
	if [ $r -le "$ROUNDS" ]; then
		bench_measure profcmp "$BIN/profcmp" "$BASE" "$NEW"
		bench_measure profcmp-diff "$BIN/profcmp" --folded-diff "$BASE" "$NEW"
	fi
	if [ -n "$FLAMEGRAPH_DIR" ] && [ $r -le "$PERL_ROUNDS" ]; then
		bench_measure difffolded.pl perl "$FLAMEGRAPH_DIR/difffolded.pl" "$BASE" "$NEW"
	fi
	r=$((r + 1))
done

report() {
	read -r wall user sys rss <"$WORK/$1.best"
	awk -v n="$1" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" 'BEGIN {
		printf "%-14s wall %6.2f s  cpu %6.2f s  RSS %7.1f MB\n", n, w, u + s, r / 1024
	}'
}
report profcmp
report profcmp-diff
awk '{ if ($2 + $3 > 2) { print "target < 2 s of CPU: MISSED"; exit 1 } print "target < 2 s of CPU: met" }' \
	"$WORK/profcmp.best" || true
[ -n "$FLAMEGRAPH_DIR" ] || { echo "(FLAMEGRAPH_DIR not set: difffolded.pl not run)"; exit 0; }
report difffolded.pl
# Same stacks and counts (difffolded.pl keeps input order, we sort).
if grep -v '^#' "$WORK/profcmp-diff.out" | cmp -s - "$(sort "$WORK/difffolded.pl.out" >"$WORK/dff.sorted"; echo "$WORK/dff.sorted")"; then
	echo "outputs: --folded-diff and difffolded.pl give the same lines"
else
	echo "outputs: --folded-diff and difffolded.pl DIFFER"
	exit 1
fi
ratio() { # OURS: against difffolded.pl
	read -r cw cu cs crss <"$WORK/$1.best"
	read -r dw du ds drss <"$WORK/difffolded.pl.best"
	awk -v n="$1" -v cw="$cw" -v cc="$(echo "$cu $cs" | awk '{ print $1 + $2 }')" -v crss="$crss" \
	    -v dw="$dw" -v dc="$(echo "$du $ds" | awk '{ print $1 + $2 }')" -v drss="$drss" 'BEGIN {
		printf "ratios (%s vs difffolded.pl): %.1fx faster (wall%s), %.1fx less CPU%s, RSS %.2f of its\n", n,
		    dw / (cw > 0 ? cw : 0.01), (dw >= 10 * cw ? ", target >= 10x: met" : ", target >= 10x: MISSED"),
		    dc / (cc > 0 ? cc : 0.01), (dc >= 10 * cc ? " (10x: met)" : " (10x: missed)"), crss / drss
	}'
}
ratio profcmp
ratio profcmp-diff
