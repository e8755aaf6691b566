#!/bin/sh
# make check: the suite against the plain build, then against the
# sanitizer build; the last line sums both passes.
#   tests/check.sh BUILD BINDIR SAN_BUILD SAN_BINDIR
set -u
cd "$(dirname "$0")/.." || exit 1
log=$(mktemp)
trap 'rm -f "$log"' EXIT

echo "== plain build"
./tests/run.sh "$1" "$2" | tee "$log"
plain=$(tail -n 1 "$log")

echo "== AddressSanitizer + UndefinedBehaviorSanitizer build"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=99 \
SANITIZE=address,undefined ./tests/run.sh "$3" "$4" asan | tee "$log"
san=$(tail -n 1 "$log")

sum() { echo "$plain" "$san" | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($(i+1) ~ "^" k) t += $i } END { print t + 0 }'; }
p=$(sum passed) f=$(sum failed) s=$(sum skipped)
echo "plain: $plain"
echo "sanitizers: $san"
echo "$p passed, $f failed, $s skipped"
[ "$f" -eq 0 ]
