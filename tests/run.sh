#!/bin/sh
# Run the test suite once against one build: the lib unit tests
# (BUILD/tests/unit/test_*) and the tool tests (tests/*.sh).
#   tests/run.sh BUILD BINDIR [LABEL]
# Prints every result line, then "N passed, N failed, N skipped".
# Exit status 0 only when nothing failed.
set -u
BUILD=${1:-build}
BIN=${2:-bin}
LABEL=${3:-}
TOP=$(cd "$(dirname "$0")/.." && pwd)
export BUILD BIN
results=$(mktemp)
trap 'rm -f "$results"' EXIT

run_one() {
	name=$1
	shift
	out=$(mktemp)
	status=0
	"$@" >"$out" 2>&1 || status=$?
	grep -E '^(PASS|FAIL|SKIP) ' "$out" | sed "s|^\([A-Z]*\) |\1 ${LABEL:+[$LABEL] }|"
	grep -E '^(PASS|FAIL|SKIP) ' "$out" >>"$results"
	if [ "$status" -ne 0 ] && ! grep -q '^FAIL ' "$out"; then
		echo "FAIL ${LABEL:+[$LABEL] }$name: exited $status: $(grep -Ev '^(PASS|SKIP) ' "$out" | tail -n 5 | tr '\n' '|')"
		echo "FAIL $name" >>"$results"
	fi
	rm -f "$out"
}

cd "$TOP" || exit 1
for t in "$BUILD"/tests/unit/test_*; do
	[ -x "$t" ] || continue
	case $t in *.o|*.d) continue ;; esac
	run_one "$(basename "$t")" "$t"
done
for t in tests/*.sh; do
	[ "$t" = tests/lib.sh ] && continue
	[ "$t" = tests/run.sh ] && continue
	[ "$t" = tests/check.sh ] && continue
	run_one "$(basename "$t" .sh)" sh "$t"
done

p=$(grep -c '^PASS ' "$results")
f=$(grep -c '^FAIL ' "$results")
s=$(grep -c '^SKIP ' "$results")
echo "$p passed, $f failed, $s skipped"
[ "$f" -eq 0 ]
