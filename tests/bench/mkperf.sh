#!/bin/sh
# mkperf.sh [SIZE_MB]: build a big `perf script` file for benchmarks by
# replicating the corpus captures (perf-fp.txt and perf-dwarf.txt), each
# copy with its function names renamed (name -> name_kN), so the copies do
# not fold together and the output grows like a real, bigger profile.
# Prints the file's path; the file is cached under $TMPDIR (reused when
# it exists). Default size: ~350 MB.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SIZE_MB=${1:-350}
CORPUS=${CORPUS:-$TOP/../shared/corpus}
for f in perf-fp.txt perf-dwarf.txt; do
	[ -f "$CORPUS/$f" ] || { echo "mkperf.sh: $CORPUS/$f: corpus missing" >&2; exit 1; }
done
DIR=${TMPDIR:-/tmp}/proftools-bench
OUT=$DIR/perf-${SIZE_MB}M.txt
if [ ! -s "$OUT" ]; then
	mkdir -p "$DIR"
	tmp=$OUT.tmp.$$
	: >"$tmp"
	per_copy=$(cat "$CORPUS/perf-fp.txt" "$CORPUS/perf-dwarf.txt" | wc -c)
	want=$((SIZE_MB * 1000000))
	k=0
	while [ "$(wc -c <"$tmp")" -lt "$want" ]; do
		# Rename symbols in frame lines ("<pc> name+0x.. (dso)"), not [unknown].
		LC_ALL=C sed -E "s/^([[:space:]]+[0-9a-f]+ )([^ +[][^ +]*)/\\1\\2_k$k/" \
			"$CORPUS/perf-fp.txt" "$CORPUS/perf-dwarf.txt" >>"$tmp"
		k=$((k + 1))
	done
	mv "$tmp" "$OUT"
	echo "mkperf.sh: $OUT: $k copies of $per_copy bytes" >&2
fi
echo "$OUT"
