#!/usr/bin/env bash
# Run the test suite once against one build: the lib unit tests
# (BUILD/tests/unit/*/test_*) and the tool tests (tests/*.sh), as many at a
# time as there are cores (TEST_JOBS overrides).
#   tests/run.sh BUILD BINDIR [LABEL]
# Prints every result line, then "N passed, N failed, N skipped".
# Exit status 0 only when nothing failed. A test file that runs longer
# than TEST_TIMEOUT seconds (default 1200) is stopped and fails, as does
# one that ends without a single result line: a hang or a crash before
# the first check is a failure, never a quiet pass.
set -u
BUILD=${1:-build}
BIN=${2:-bin}
LABEL=${3:-}
TOP=$(cd "$(dirname "$0")/.." && pwd)
export BUILD BIN
jobs=${TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
limit=${TEST_TIMEOUT:-1200}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run_one INDEX NAME CMD...: results go to $work/INDEX.{out,res}
run_one() {
	local idx=$1 name=$2 status=0 start end
	shift 2
	start=$(date +%s)
	# timeout signals the test's whole process group (what it started too)
	timeout -k 10 "$limit" "$@" >"$work/$idx.raw" 2>&1 </dev/null || status=$?
	end=$(date +%s)
	grep -E '^(PASS|FAIL|SKIP) ' "$work/$idx.raw" >"$work/$idx.res"
	if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
		echo "FAIL $name: still running after $limit s (TEST_TIMEOUT), stopped: $(grep -Ev '^(PASS|SKIP) ' "$work/$idx.raw" | tail -n 3 | tr '\n' '|')" >>"$work/$idx.res"
	elif [ "$status" -eq 0 ] && [ ! -s "$work/$idx.res" ]; then
		echo "FAIL $name: ended without a result line: $(tail -n 3 "$work/$idx.raw" | tr '\n' '|')" >>"$work/$idx.res"
	elif [ "$status" -ne 0 ] && ! grep -q '^FAIL ' "$work/$idx.raw"; then
		echo "FAIL $name: exited $status: $(grep -Ev '^(PASS|SKIP) ' "$work/$idx.raw" | tail -n 5 | tr '\n' '|')" >>"$work/$idx.res"
	fi
	echo "# $name: $((end - start)) s" >>"$work/$idx.res"
}

cd "$TOP" || exit 1
tests=()
# The unit tests of today's sources (a build directory may keep the
# binaries of tests since removed or renamed).
for src in tests/unit/*/test_*.c; do
	[ -f "$src" ] || continue
	t=$BUILD/${src%.c}
	if [ -x "$t" ]; then
		tests+=("$(basename "$t")|$t")
	else
		tests+=("$(basename "$t")|echo FAIL $(basename "$t"): not built: $t")
	fi
done
for t in tests/*.sh; do
	case $t in tests/lib.sh|tests/check.sh|tests/run.sh) continue ;; esac
	tests+=("$(basename "$t" .sh)|bash $t")
done

i=0
for entry in "${tests[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n 2>/dev/null || true
	done
	name=${entry%%|*}
	# shellcheck disable=SC2086
	run_one "$i" "$name" ${entry#*|} &
	i=$((i + 1))
done
wait

prefix=${LABEL:+[$LABEL] }
: >"$work/all"
for ((k = 0; k < i; k++)); do
	sed "s/^\(PASS\|FAIL\|SKIP\) /\1 $prefix/" "$work/$k.res"
	grep -v '^#' "$work/$k.res" >>"$work/all"
done
p=$(grep -c '^PASS ' "$work/all")
f=$(grep -c '^FAIL ' "$work/all")
s=$(grep -c '^SKIP ' "$work/all")
echo "$p passed, $f failed, $s skipped"
[ "$f" -eq 0 ]
