#!/bin/sh
# make demo: profile the bundled workload (tests/demo/workload.c) with
# profrec, fold it with proffold and draw it with profflame; print the
# path of the SVG.
#   scripts/demo.sh [BINDIR]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-bin}
case $bin in /*) ;; *) bin=$top/$bin ;; esac
out=${DEMO_DIR:-${TMPDIR:-/tmp}/proftools-demo}
mkdir -p "$out"
unset DEBUGINFOD_URLS

for t in profrec proffold profflame; do
	[ -x "$bin/$t" ] || { echo "demo: $bin/$t not built (run make)" >&2; exit 1; }
done
${CC:-cc} -O1 -g -fno-omit-frame-pointer -pthread -o "$out/workload" \
	"$top/tests/demo/workload.c" -ldl

# Two threads, each splitting one second of CPU 75/25 between leaf_a and leaf_b.
"$bin/profrec" -o "$out/cpu.tsv" -- "$out/workload" -s 1 -t 2 threads
"$bin/proffold" "$out/cpu.tsv" | "$bin/profflame" --title "proftools demo: workload threads" \
	-o "$out/cpu.svg"
echo "$out/cpu.svg"
