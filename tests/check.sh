#!/bin/sh
# make check: the suite against the plain build, then against the
# sanitizer build, each run from a tree installed into a temporary
# DESTDIR (make install PREFIX=/usr) so the installed layout is what is
# tested; the tree is uninstalled afterwards and must then be empty.
# The last line sums both passes.
#   tests/check.sh BUILD BINDIR SAN_BUILD SAN_BINDIR
# MAKE (set by make check) is the make to install with.
set -u
cd "$(dirname "$0")/.." || exit 1
: "${MAKE:=make}"
log=$(mktemp)
inst=$(mktemp -d "${TMPDIR:-/tmp}/proftools-inst.XXXXXX")
trap 'rm -rf "$log" "$inst"' EXIT
ip=0 if=0

result() { # result PASS|FAIL NAME [WHY]
	echo "$1 $2${3:+: $3}"
	if [ "$1" = PASS ]; then ip=$((ip + 1)); else if=$((if + 1)); fi
}

# install_tree DIR BUILD BINDIR [SANITIZE]: make install into DIR.
# DIR/usr/share/man exists beforehand: uninstall must keep it.
install_tree() {
	mkdir -p "$1/usr/share/man"
	if $MAKE --no-print-directory -s install DESTDIR="$1" PREFIX=/usr BUILD="$2" BINDIR="$3" \
		${4:+SANITIZE=$4} >"$log" 2>&1; then
		result PASS "install: make install DESTDIR=$1 PREFIX=/usr${4:+ SANITIZE=$4}"
	else
		result FAIL "install: make install${4:+ SANITIZE=$4}" "$(tail -n 5 "$log" | tr '\n' '|')"
	fi
}

# uninstall_tree DIR BUILD BINDIR [SANITIZE]: make uninstall leaves only
# what was there before the install.
uninstall_tree() {
	if ! $MAKE --no-print-directory -s uninstall DESTDIR="$1" PREFIX=/usr BUILD="$2" BINDIR="$3" \
		${4:+SANITIZE=$4} >"$log" 2>&1; then
		result FAIL "install: make uninstall${4:+ SANITIZE=$4}" "$(tail -n 5 "$log" | tr '\n' '|')"
		return
	fi
	left=$(cd "$1" && find . -mindepth 1 | sort | tr '\n' ' ')
	if [ "$left" = "./usr ./usr/share ./usr/share/man " ]; then
		result PASS "install: make uninstall removes every file and the directories install created${4:+ (SANITIZE=$4)}"
	else
		result FAIL "install: make uninstall removes every file and the directories install created${4:+ (SANITIZE=$4)}" \
			"left: $left"
	fi
}

echo "== plain build, installed"
install_tree "$inst/plain" "$1" "$2"
./tests/run.sh "$1" "$inst/plain/usr/bin" | tee "$log"
plain=$(tail -n 1 "$log")
uninstall_tree "$inst/plain" "$1" "$2"

echo "== AddressSanitizer + UndefinedBehaviorSanitizer build, installed"
install_tree "$inst/san" "$3" "$4" address,undefined
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=99 \
SANITIZE=address,undefined ./tests/run.sh "$3" "$inst/san/usr/bin" asan | tee "$log"
san=$(tail -n 1 "$log")
uninstall_tree "$inst/san" "$3" "$4" address,undefined

# A pass whose last line is not its summary was cut short (killed, or
# run.sh failed): nothing it did not report can count as passed.
summary='^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$'
printf '%s\n' "$plain" | grep -Eq "$summary" ||
	{ result FAIL "plain pass" "ended without its summary line (last line: '$plain')"; plain=""; }
printf '%s\n' "$san" | grep -Eq "$summary" ||
	{ result FAIL "sanitizer pass" "ended without its summary line (last line: '$san')"; san=""; }

sum() { echo "$plain" "$san" | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($(i+1) ~ "^" k) t += $i } END { print t + 0 }'; }
p=$(($(sum passed) + ip)) f=$(($(sum failed) + if)) s=$(sum skipped)
echo "plain: $plain"
echo "sanitizers: $san"
echo "install: $ip passed, $if failed"
echo "$p passed, $f failed, $s skipped"
[ "$f" -eq 0 ]
