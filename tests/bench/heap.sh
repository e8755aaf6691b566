#!/bin/sh
# heap.sh: profheap against heaptrack on the same allocation-heavy program
# (tests/bench/heapload.c: 4 threads sharing ~20 M malloc/free pairs of
# 8 B - 16 KiB from call paths of depth 2-7, calloc/realloc/posix_memalign,
# known leaks and a 64 MiB peak), in one run: runs interleaved, the best of
# each kept, CPU time (user + sys, every process of the run: profheap's
# post-processing and heaptrack's interpreter included) beside wall time,
# the CPU overhead ratios over the bare program, output sizes and peak RSS.
#
# Environment: BIN (directory of profheap and libprofheap.so, default bin),
# BASE_BIN (another build's bin, e.g. an older commit's: its profheap is
# measured in the same rounds, interleaved, on rows marked "base"),
# PAIRS (default 20000000), THREADS (default 4), ROUNDS (default 2),
# HEAPTRACK (default: heaptrack in PATH; empty to skip it), CC.
#
# Targets (issue 5): exact mode CPU ratio <= 1/3 of heaptrack's (<= ~4x),
# folded + timeline output <= 1 MB, --sample ratio <= 1.10.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$TOP/bin}
case $BIN in /*) ;; *) BIN=$TOP/$BIN ;; esac
BASE_BIN=${BASE_BIN:-}
case $BASE_BIN in /* | '') ;; *) BASE_BIN=$TOP/$BASE_BIN ;; esac
PAIRS=${PAIRS:-20000000}
THREADS=${THREADS:-4}
ROUNDS=${ROUNDS:-2}
CC=${CC:-cc}
if [ -z "${HEAPTRACK+x}" ]; then
	HEAPTRACK=$(command -v heaptrack || true)
fi
[ -x "$BIN/profheap" ] || { echo "heap.sh: $BIN/profheap: build it first (make)" >&2; exit 1; }
[ -z "$BASE_BIN" ] || [ -x "$BASE_BIN/profheap" ] ||
	{ echo "heap.sh: $BASE_BIN/profheap: build it first" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "heap.sh: needs /usr/bin/time (package time)" >&2; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/heapbench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export LC_ALL=C
$CC -O2 -g -fno-omit-frame-pointer -pthread "$TOP/tests/bench/heapload.c" -o "$WORK/heapload"
echo "workload: heapload $PAIRS pairs, $THREADS threads; $ROUNDS rounds, best kept; $(nproc) cores; load average $(cut -d" " -f1-3 /proc/loadavg)"

# measure NAME OUTDIR CMD...: run once; keep the best CPU time per NAME in
# $WORK/NAME.best as "wall user sys maxrss_kb", the output size in NAME.size.
measure() {
	name=$1 out=$2
	shift 2
	rm -rf "$out"
	mkdir -p "$out"
	/usr/bin/time -f "%e %U %S %M" -o "$WORK/$name.time" "$@" >/dev/null 2>"$WORK/$name.err" || {
		echo "heap.sh: $name failed: $(tail -n 3 "$WORK/$name.err")" >&2
		exit 1
	}
	tail -n 1 "$WORK/$name.time" >"$WORK/$name.last"
	if [ ! -f "$WORK/$name.best" ] ||
	   awk 'NR == FNR { c = $2 + $3; next } { exit !(c < $2 + $3) }' "$WORK/$name.last" "$WORK/$name.best"; then
		cp "$WORK/$name.last" "$WORK/$name.best"
	fi
	find "$out" -type f -exec cat {} + | wc -c >"$WORK/$name.size"
}

# profheap_runs SUFFIX DIR: the exact and the sampled run of DIR/profheap.
# --sample=SIZE, with '=', is read alike by every profheap (before issue
# 10 the size was optional and could only be attached that way).
profheap_runs() {
	measure "profheap$1" "$WORK/o-ph$1" "$2/profheap" -q -o "$WORK/o-ph$1" "$WORK/heapload" "$PAIRS" "$THREADS"
	measure "sample$1" "$WORK/o-s$1" "$2/profheap" -q --sample=512K -o "$WORK/o-s$1" "$WORK/heapload" "$PAIRS" "$THREADS"
}

names="bare profheap sample"
[ -n "$BASE_BIN" ] && names="$names profheap-base sample-base"
[ -n "$HEAPTRACK" ] && names="$names heaptrack"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	measure bare "$WORK/o-bare" "$WORK/heapload" "$PAIRS" "$THREADS"
	# with a base, which build goes first alternates from round to round
	if [ -n "$BASE_BIN" ] && [ $((r % 2)) -eq 0 ]; then
		profheap_runs -base "$BASE_BIN"
		profheap_runs "" "$BIN"
	else
		profheap_runs "" "$BIN"
		[ -z "$BASE_BIN" ] || profheap_runs -base "$BASE_BIN"
	fi
	if [ -n "$HEAPTRACK" ]; then
		measure heaptrack "$WORK/o-ht" "$HEAPTRACK" -o "$WORK/o-ht/heaptrack.out" "$WORK/heapload" "$PAIRS" "$THREADS"
	fi
	r=$((r + 1))
done

printf '%-22s %9s %9s %9s %10s %12s\n' tool wall_s cpu_s cpu_ratio maxrss_mb output_bytes
for n in $names; do
	case $n in
	bare) label="heapload (bare)" ;;
	profheap) label="profheap (exact)" ;;
	sample) label="profheap --sample" ;;
	profheap-base) label="profheap (exact) base" ;;
	sample-base) label="profheap --sample base" ;;
	heaptrack) label="heaptrack" ;;
	esac
	awk -v label="$label" -v size="$(cat "$WORK/$n.size")" 'NR == FNR { base = $2 + $3; next }
		{ printf "%-22s %9.2f %9.2f %8.2fx %10.1f %12d\n", label, $1, $2 + $3, ($2 + $3) / base, $4 / 1024, size }' \
		"$WORK/bare.best" "$WORK/$n.best"
done
if [ -n "$HEAPTRACK" ]; then
	awk 'NR == FNR { base = $2 + $3; next } FILENAME ~ /profheap/ { p = ($2 + $3) / base - 1; next }
		{ h = ($2 + $3) / base - 1 }
		END { printf "CPU overhead (ratio - 1): profheap %.2f, heaptrack %.2f: profheap costs %.2f of heaptrack'"'"'s overhead\n", p, h, (h > 0 ? p / h : 0) }' \
		"$WORK/bare.best" "$WORK/profheap.best" "$WORK/heaptrack.best"
fi
echo "profheap leak report:"
grep 'leaked\|peak' "$WORK/o-ph"/*.folded >/dev/null 2>&1 || true
for f in "$WORK/o-ph"/*.leak.folded; do grep -v '^#' "$f" | sed 's/^/  /'; done
