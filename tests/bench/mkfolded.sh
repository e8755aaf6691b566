#!/bin/sh
# mkfolded.sh [OUT [MB]]: build a big folded-stack file (default ~100 MB,
# ~470k lines) from the corpus's reference .folded files by replication.
# Each copy renames its root frame ("workload" -> "workload-0042f"), so
# copies never fold together: every line stays a distinct stack, like a
# profile of hundreds of processes running the same code. Lines come out
# in byte order, as proffold writes them. Prints the file name.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
CORPUS=${CORPUS:-$TOP/../shared/corpus}
OUT=${1:-${TMPDIR:-/tmp}/proftools-bench/folded-100M.txt}
MB=${2:-100}
for f in perf-dwarf.folded perf-fp.folded; do
	[ -f "$CORPUS/$f" ] || { echo "mkfolded.sh: $CORPUS/$f: not found" >&2; exit 1; }
done
mkdir -p "$(dirname "$OUT")"
if [ -f "$OUT" ] && [ "$(wc -c <"$OUT")" -ge $((MB * 1000000 * 95 / 100)) ]; then
	echo "$OUT"
	exit 0
fi
LC_ALL=C awk -v target=$((MB * 1000000)) '
	FNR == 1 { f++ }
	/^#/ { next }
	{ line[f, ++n[f]] = $0; bytes += length($0) + 1 }
	END {
		copies = int(target / bytes + 0.5)
		if (copies < 1) copies = 1
		for (c = 1; c <= copies; c++)
			for (k = 1; k <= f; k++) {
				tag = sprintf("-%04d%s", c, k == 1 ? "d" : "f")
				for (i = 1; i <= n[k]; i++) {
					s = line[k, i]
					semi = index(s, ";")
					if (!semi)	# a root-only stack: "root COUNT"
						semi = match(s, / [0-9.]+( [0-9.]+)?$/)
					print substr(s, 1, semi - 1) tag substr(s, semi)
				}
			}
	}' "$CORPUS/perf-dwarf.folded" "$CORPUS/perf-fp.folded" >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "$OUT"
