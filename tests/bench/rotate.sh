#!/bin/sh
# rotate.sh: the overhead of continuous profiling (profrec --rotate) over
# a long run, beside plain profrec and beside perf record (Debian
# linux-perf), on the same CPU-bound workload (tests/demo/workload.c
# split), frame pointers, same frequency.
#
# Each mode runs once for DURATION seconds of workload CPU time: bare,
# profrec -o FILE, profrec --rotate INTERVAL -o DIR (a file per interval,
# --keep KEEP), perf record -g. Prints per mode wall and CPU time (user +
# sys of the whole process tree, profiler included), the CPU overhead
# over the bare run, samples written and output bytes; then the ratios
# rotate/plain and rotate/perf of the overheads, and what the rotation
# left: files, their samples against plain profrec's.
#
# Environment: BIN (tools, default bin), DURATION (seconds, default 600:
# the 10-minute run; 120 for a quick one), INTERVAL (default 60s; 10s when
# DURATION is under 300, so that a short run still rotates), KEEP
# (default 1000), FREQ (default 999).
#
# Target (issue 16): --rotate costs no more CPU than plain profrec (ratio
# about 1), and stays at or under perf record's overhead.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$TOP/bin}
case $BIN in /*) ;; *) BIN=$TOP/$BIN ;; esac
DURATION=${DURATION:-600}
if [ "$DURATION" -lt 300 ]; then INTERVAL=${INTERVAL:-10s}; else INTERVAL=${INTERVAL:-60s}; fi
KEEP=${KEEP:-1000}
FREQ=${FREQ:-999}
[ -x "$BIN/profrec" ] || { echo "rotate.sh: $BIN/profrec: build it first (make)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "rotate.sh: needs /usr/bin/time (package time)" >&2; exit 1; }
PERF=$(command -v perf || true)
[ -n "$PERF" ] || echo "rotate.sh: perf not found: profrec figures alone" >&2
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rotbench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export LC_ALL=C
unset DEBUGINFOD_URLS

CC=${CC:-cc}
$CC -O1 -g -fno-omit-frame-pointer -pthread -o "$WORK/wl" "$TOP/tests/demo/workload.c" -ldl

# measure NAME CMD...: one run; "wall cpu" in $WORK/NAME.time.
measure() {
	name=$1
	shift
	/usr/bin/time -f "%e %U %S" -o "$WORK/$name.t" "$@" >/dev/null 2>"$WORK/$name.err" || {
		echo "rotate.sh: $name failed: $(tail -n 3 "$WORK/$name.err")" >&2
		exit 1
	}
	tail -n 1 "$WORK/$name.t" | awk '{ print $1, $2 + $3 }' >"$WORK/$name.time"
}

echo "workload: tests/demo/workload.c split, $DURATION s of CPU; -F $FREQ; --rotate $INTERVAL --keep $KEEP"
measure bare "$WORK/wl" -s "$DURATION" split
measure plain "$BIN/profrec" -F "$FREQ" -o "$WORK/plain.tsv" -- "$WORK/wl" -s "$DURATION" split
measure rotate "$BIN/profrec" -F "$FREQ" --rotate "$INTERVAL" --keep "$KEEP" -o "$WORK/rot" -- "$WORK/wl" -s "$DURATION" split
[ -n "$PERF" ] && measure perf "$PERF" record -q -F "$FREQ" -g -o "$WORK/perf.data" -- "$WORK/wl" -s "$DURATION" split

rows() { awk -F'\t' '!/^#/ && $1 != "time_ns"' "$@" | wc -l; }
echo "plain $(rows "$WORK/plain.tsv") $(wc -c <"$WORK/plain.tsv")" >"$WORK/plain.out"
# shellcheck disable=SC2046
echo "rotate $(rows "$WORK"/rot/*.tsv) $(cat "$WORK"/rot/*.tsv | wc -c) $(ls "$WORK/rot" | wc -l)" >"$WORK/rotate.out"
[ -n "$PERF" ] && echo "perf $("$PERF" script -i "$WORK/perf.data" -F tid 2>/dev/null | grep -c .) $(wc -c <"$WORK/perf.data")" >"$WORK/perf.out"

printf "%-8s %9s %9s %10s %9s %11s\n" mode wall_s cpu_s overhead samples bytes
read -r bw bc <"$WORK/bare.time"
printf "%-8s %9.2f %9.2f %10s %9s %11s\n" bare "$bw" "$bc" - - -
for m in plain rotate perf; do
	[ -f "$WORK/$m.time" ] || continue
	read -r w c <"$WORK/$m.time"
	read -r _ n b _ <"$WORK/$m.out"
	awk -v m="$m" -v w="$w" -v c="$c" -v bc="$bc" -v n="$n" -v b="$b" 'BEGIN {
		printf "%-8s %9.2f %9.2f %9.2f%% %9d %11d\n", m, w, c, 100 * (c - bc) / bc, n, b }'
done
ratio() {	# ratio A B: A's CPU overhead over B's
	[ -f "$WORK/$1.time" ] && [ -f "$WORK/$2.time" ] || return 0
	awk -v a="$(cut -d' ' -f2 "$WORK/$1.time")" -v b="$(cut -d' ' -f2 "$WORK/$2.time")" -v base="$bc" \
	    -v l="$1 vs $2" 'BEGIN {
		oa = a - base; ob = b - base
		printf "%s: CPU overhead %.2f s vs %.2f s", l, oa, ob
		if (ob > 0) printf " (ratio %.2f)", oa / ob
		printf "\n"
	}'
}
ratio rotate plain
ratio rotate perf
ratio plain perf
read -r _ n b f <"$WORK/rotate.out"
read -r _ pn _ <"$WORK/plain.out"
echo "rotation: $f files of $INTERVAL, $n samples (plain profrec: $pn)"
exit 0
