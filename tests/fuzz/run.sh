#!/usr/bin/env bash
# Run the libFuzzer targets built by make fuzz-build.
#   tests/fuzz/run.sh FUZZ_BUILD SECONDS [TARGET...]
# FUZZ_BUILD is the fuzz build directory (BUILD/fuzz): the targets are
# FUZZ_BUILD/tests/fuzz/fuzz_NAME. For each target (all of them by
# default), as many at a time as there are cores (FUZZ_JOBS overrides):
#  1. every input under tests/fuzz/regressions/NAME/ is replayed: each
#     once crashed a target and must now run clean;
#  2. the target fuzzes for SECONDS from its seed corpus
#     tests/fuzz/corpus/NAME/ (never written) and the inputs it found
#     before (FUZZ_BUILD/work/NAME/corpus, kept between runs).
# Prints "PASS fuzz: NAME: ..." or "FAIL fuzz: NAME: why" per target,
# with its executions, then a total. A crash leaves its input in
# FUZZ_BUILD/work/NAME/ (crash-*, leak-*, timeout-*, oom-*): copy it to
# tests/fuzz/regressions/NAME/ once fixed. Exit status 1 if any failed.
set -u
[ $# -ge 2 ] || { echo "usage: tests/fuzz/run.sh FUZZ_BUILD SECONDS [TARGET...]" >&2; exit 2; }
top=$(cd "$(dirname "$0")/../.." && pwd)
fb=$(cd "$1" && pwd) || exit 1
secs=$2
shift 2
bindir=$fb/tests/fuzz
[ $# -gt 0 ] || set -- $(cd "$top/tests/fuzz" && ls fuzz_*.c | sed 's/\.c$//')
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}
res=$(mktemp -d)
trap 'rm -rf "$res"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# one NAME: results in $res/NAME
one() {
	name=$1 bin=$bindir/$1 work=$fb/work/$1 out=$res/$1
	if [ ! -x "$bin" ]; then
		echo "FAIL fuzz: $name: not built ($bin; make fuzz-build)" >"$out"
		return
	fi
	mkdir -p "$work/corpus"
	nreg=0
	if [ -d "$top/tests/fuzz/regressions/$name" ]; then
		for f in "$top/tests/fuzz/regressions/$name"/*; do
			[ -f "$f" ] || continue
			nreg=$((nreg + 1))
			if ! "$bin" -rss_limit_mb=2048 -timeout=20 "$f" >"$work/replay.log" 2>&1; then
				echo "FAIL fuzz: $name: regression input $(basename "$f") crashes again:" \
					"$(grep -m 3 -E 'ERROR|SUMMARY|runtime error' "$work/replay.log" | tr '\n' '|')" >"$out"
				return
			fi
		done
	fi
	seeds=$top/tests/fuzz/corpus/$name
	[ -d "$seeds" ] || seeds=
	"$bin" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=20 -print_final_stats=1 \
		-artifact_prefix="$work/" "$work/corpus" $seeds >"$work/fuzz.log" 2>&1
	st=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/fuzz.log" | tail -n 1)
	if [ "$st" -eq 0 ]; then
		echo "PASS fuzz: $name: ${secs} s, ${execs:-?} executions, $nreg regression inputs replayed, no crash" >"$out"
	else
		art=$(grep -o "Test unit written to [^ ]*" "$work/fuzz.log" | tail -n 1 | sed 's/.* to //')
		echo "FAIL fuzz: $name: exit $st after ${execs:-?} executions: $(grep -m 2 -E 'ERROR|runtime error' "$work/fuzz.log" | tr '\n' '|') input: ${art:-?} (log: $work/fuzz.log)" >"$out"
	fi
	echo "${execs:-0}" >"$out.execs"
}

for name in "$@"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n 2>/dev/null || sleep 1
	done
	one "$name" &
done
wait
failed=0 total=0
for name in "$@"; do
	cat "$res/$name"
	grep -q '^FAIL' "$res/$name" && failed=$((failed + 1))
	total=$((total + $(cat "$res/$name.execs" 2>/dev/null || echo 0)))
done
echo "fuzz: $# targets, $total executions, $failed failed"
[ "$failed" -eq 0 ]
