# The test runner and make check's summing (tests/run.sh, tests/check.sh):
# a gate that never passes on what it could not judge. A test file that
# hangs, or ends without a result line, fails; a pass of make check cut
# short (no summary line) fails the whole check.
. "$(dirname "$0")/lib.sh"

# a tree of its own: run.sh runs every tests/*.sh beside it
T=$TMP/tree
mkdir -p "$T/tests/unit"
cp "$TESTS/run.sh" "$TESTS/check.sh" "$T/tests/"
printf 'echo "PASS ok: one check"\n' >"$T/tests/ok.sh"
printf 'echo started; sleep 60 & wait\n' >"$T/tests/hangs.sh"
printf 'echo "no result, status 0"\n' >"$T/tests/silent.sh"
run env TEST_TIMEOUT=2 bash "$T/tests/run.sh" build bin
last=$(tail -n 1 "$TMP/stdout")
if [ "$STATUS" = 1 ] && [ "$last" = "1 passed, 2 failed, 0 skipped" ] &&
	grep -q '^FAIL hangs: still running after 2 s' "$TMP/stdout" &&
	grep -q '^FAIL silent: ended without a result line' "$TMP/stdout"; then
	pass "run.sh: a hanging file and a file without results fail ($last)"
else
	fail "run.sh: a hanging file and a file without results fail" \
		"exit $STATUS, $(tr '\n' '|' <"$TMP/stdout")"
fi

# check.sh with a sanitizer pass killed before its summary (as a hung
# pass stopped by hand once summed to "0 failed" and exit 0)
rm "$T/tests/hangs.sh" "$T/tests/silent.sh"
cat >"$T/tests/run.sh" <<'EOF2'
echo "PASS ok: one check"
if [ "${3:-}" = asan ]; then echo Terminated; exit 143; fi
echo "1 passed, 0 failed, 0 skipped"
EOF2
chmod +x "$T/tests/run.sh"
run env MAKE=true TMPDIR="$TMP" sh "$T/tests/check.sh" b bin sb sbin
last=$(tail -n 1 "$TMP/stdout")
if [ "$STATUS" = 1 ] && grep -q '^FAIL sanitizer pass: ended without its summary line' "$TMP/stdout" &&
	[ "${last#* passed, }" != "0 failed, 0 skipped" ]; then
	pass "check.sh: a pass cut short fails the check ($last)"
else
	fail "check.sh: a pass cut short fails the check" "exit $STATUS, $(tr '\n' '|' <"$TMP/stdout")"
fi
