#!/bin/sh
# The libFuzzer targets (tests/fuzz/README), a few seconds each
# (FUZZ_SECONDS, default 3): every regression input replayed, then a
# short run from the seed corpus, so that a parser change that crashes on
# one of them fails make check. make fuzz runs them for longer.
. "$(dirname "$0")/lib.sh"
FB=$BUILD/fuzz
if [ -n "$SANITIZE" ]; then
	skip "fuzz targets" "run once, in the plain pass (they are ASan+UBSan builds themselves)"
	exit 0
fi
if ! ls "$FB"/tests/fuzz/fuzz_* >/dev/null 2>&1; then
	skip "fuzz targets" "not built: clang with libFuzzer is missing (make fuzz-build says why)"
	exit 0
fi
# a work directory of its own (FB/check: a crash's input stays there to
# be looked at), so that make check leaves make fuzz's corpus alone
W=$FB/check
rm -rf "$W" && mkdir -p "$W/tests" && ln -s "$FB/tests/fuzz" "$W/tests/fuzz"
FUZZ_JOBS=${FUZZ_JOBS:-1} "$TESTS/fuzz/run.sh" "$W" "${FUZZ_SECONDS:-3}" | grep -E '^(PASS|FAIL) '
