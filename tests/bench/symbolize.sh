#!/bin/sh
# symbolize.sh: what naming stripped code by its .eh_frame FDEs (issue 17)
# costs the symbolizer. A generated program of NFUNCS functions, built
# with frame pointers and stripped (strip -s), and the same file without
# .eh_frame and .eh_frame_hdr (objcopy): the symbolizer then names its
# addresses "app+0xOFF" as it did before FDE naming, through the same
# code. 100,000 samples drawn uniformly over its .text (nearly all of
# them distinct addresses, the worst case: every one a lookup) are
# symbolized by tests/tools/symbench, the persistent cache off, best of
# ROUNDS; both files are timed in alternation.
#
# With BASE=COMMIT (for instance BASE=e753b57^, the commit before FDE
# naming), the stripped file is also symbolized by that commit's
# library, built in a temporary git worktree (removed at the end): the
# code before the change on the very same file.
#
# Environment: BUILD (build directory holding tests/tools/symbench,
# default build), SAMPLES (default 100000), NFUNCS (default 2000), ROUNDS
# (default 5), BASE (unset: no baseline build).
#
# Target (issue 17): symbolizing with FDE naming costs no more than 10%
# over without (the FDE table is read once per file and bisected).
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$TOP/build}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
SAMPLES=${SAMPLES:-100000}
NFUNCS=${NFUNCS:-2000}
ROUNDS=${ROUNDS:-5}
SB=$BUILD/tests/tools/symbench
[ -x "$SB" ] || { echo "symbolize.sh: $SB: build it first (make tests-build)" >&2; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/symbench.XXXXXX")
cleanup() {
	[ -d "$WORK/basetree" ] && git -C "$TOP" worktree remove --force "$WORK/basetree" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
export LC_ALL=C
CC=${CC:-cc}

# NFUNCS functions of different sizes, each called by main
awk -v n="$NFUNCS" 'BEGIN {
	print "volatile unsigned long sink;"
	for (i = 0; i < n; i++) {
		printf "__attribute__((noinline)) void f%d(unsigned long k) { unsigned long x = sink;", i
		for (j = 0; j <= i % 7; j++)
			printf " for (unsigned long i = 0; i < k; i++) x = x * %d + (i ^ %d);", 31 + j, i
		print " sink = x; }"
	}
	print "int main(int argc, char **argv) { (void)argv;"
	for (i = 0; i < n; i++)
		printf "\tf%d((unsigned long)argc);\n", i
	print "\treturn 0; }"
}' >"$WORK/app.c"
$CC -O1 -fno-omit-frame-pointer -o "$WORK/app" "$WORK/app.c"
strip -s "$WORK/app"
objcopy --remove-section .eh_frame --remove-section .eh_frame_hdr "$WORK/app" "$WORK/app-nofde"
# SAMPLES file offsets, uniform over .text (fixed seed: the same samples each run)
set -- $(readelf -SW "$WORK/app" | awk '$2 == ".text" { print $5, $6 } $3 == ".text" { print $6, $7 }')
awk -v off=$((0x$1)) -v size=$((0x$2)) -v n="$SAMPLES" 'BEGIN {
	srand(17); for (i = 0; i < n; i++) printf "%x\n", off + int(rand() * size) }' >"$WORK/offsets"

if [ -n "${BASE:-}" ]; then
	git -C "$TOP" worktree add -q --detach "$WORK/basetree" "$BASE"
	make -s -C "$WORK/basetree" -j2 BUILD="$WORK/basetree/build" BINDIR="$WORK/basetree/bin" \
		"$WORK/basetree/build/lib/libcommon.a" >/dev/null
	$CC -O2 -std=gnu11 -D_GNU_SOURCE -pthread -I"$WORK/basetree/lib" -o "$WORK/symbench-base" \
		"$TOP/tests/tools/symbench.c" "$WORK/basetree/build/lib/libcommon.a" -ldw -lelf -lzstd -llz4 -lz -lm -ldl -llzma
fi

# run NAME FILE [SYMBENCH]: one measurement, appended to WORK/NAME
run() {
	"${3:-$SB}" "$2" "$WORK/offsets" 1 >>"$WORK/$1"
}
for r in $(seq "$ROUNDS"); do
	run fde "$WORK/app"
	run nofde "$WORK/app-nofde"
	[ -z "${BASE:-}" ] || run base "$WORK/app" "$WORK/symbench-base"
done
# best NAME: the best round's line
best() {
	sort -n -k4 "$WORK/$1" | head -n 1
}
echo "symbolize.sh: $SAMPLES samples over the .text of a stripped program of $NFUNCS functions ($(wc -c <"$WORK/app") bytes), best of $ROUNDS"
printf '%-34s %s\n' "with .eh_frame (FDE naming):" "$(best fde)"
printf '%-34s %s\n' "without .eh_frame (+0x names):" "$(best nofde)"
[ -z "${BASE:-}" ] || printf '%-34s %s\n' "$BASE's library (before FDEs):" "$(best base)"
fde=$(best fde | awk '{ print $4 }')
fde_named=$(best fde | awk '{ print $8 }')
for other in nofde ${BASE:+base}; do
	awk -v a="$fde" -v b="$(best "$other" | awk '{ print $4 }')" -v o="$other" \
		'BEGIN { printf "FDE naming over %s: %+.1f%%\n", o, 100 * (a - b) / b }'
done
# every sampled function is one name (NFUNCS functions, main, the CRT's few)
if [ "$fde_named" -lt "$NFUNCS" ]; then
	echo "symbolize.sh: only $fde_named functions named by their FDE, expected $NFUNCS or more" >&2
	exit 1
fi
awk -v a="$fde" -v b="$(best nofde | awk '{ print $4 }')" 'BEGIN {
	ok = a <= 1.10 * b
	printf "target FDE naming <= 10%% over without: %s\n", ok ? "met" : "MISSED"
	exit !ok }'
