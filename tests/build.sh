#!/bin/sh
# build: what the Makefile decides before it compiles anything. A library
# installed after a first make (make deps, make demo on a fresh machine)
# is found by the next make, not hidden by the cached probe of the first;
# a required library that is missing stops the build before any object,
# naming its Debian package and the install line. A compiler wrapper hides
# a header from the probes (as a missing -dev package does) until the test
# "installs" it by creating a file.
. "$(dirname "$0")/lib.sh"

if [ -n "$SANITIZE" ]; then
	skip "all" "checks of the Makefile: run in the plain pass"
	exit 0
fi
command -v make >/dev/null 2>&1 || { skip "all" "no make"; exit 0; }
REAL_CC=${CC:-cc}
# The nested makes must not join the jobserver of make check's.
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -C "$TOP" "$@"; }

# $TMP/cc: the compiler, except that a program read from standard input
# (a probe: -x c -) that includes a header named in $TMP/hidden.HEADER's
# absence list fails, as when its package is not installed.
cat >"$TMP/cc" <<EOF2
#!/bin/sh
for a in "\$@"; do
	if [ "\$a" = - ]; then
		src=\$(mktemp "$TMP/probe.XXXXXX")
		cat >"\$src"
		for h in libdeflate.h capstone/capstone.h; do
			f=$TMP/installed.\$(echo "\$h" | tr / _)
			if grep -q "<\$h>" "\$src" && [ ! -e "\$f" ]; then rm -f "\$src"; exit 1; fi
		done
		first=1
		for b in "\$@"; do
			[ -n "\$first" ] && set -- && first=
			if [ "\$b" = - ]; then set -- "\$@" "\$src"; else set -- "\$@" "\$b"; fi
		done
		$REAL_CC "\$@"; st=\$?
		rm -f "\$src"
		exit \$st
	fi
done
exec $REAL_CC "\$@"
EOF2
chmod +x "$TMP/cc"
touch "$TMP/installed.capstone_capstone.h"

# ---- an optional codec library installed after the first make is used
printf '#include <libdeflate.h>\nint main(void){return 0;}\n' >"$TMP/d.c"
if ! $REAL_CC "$TMP/d.c" -ldeflate -o "$TMP/d" >/dev/null 2>&1; then
	skip "a codec library installed between two makes is used" "libdeflate (libdeflate-dev) is not installed"
else
	codecs() { # the codec list the compile of the codec registry gets
		mk -n BUILD="$TMP/b" BINDIR="$TMP/bin" CC="$TMP/cc" "$TMP/b/lib/codec/codec.o" 2>&1 |
			grep -o 'PROF_CODECS=[^"]*' | head -n 1
	}
	before=$(codecs)
	touch "$TMP/installed.libdeflate.h"
	after=$(codecs)
	if printf '%s' "$before" | grep -q 'X(libdeflate)'; then
		fail "a codec library installed between two makes is used" "the hidden header was found: $before"
	elif ! printf '%s' "$after" | grep -q 'X(libdeflate)'; then
		fail "a codec library installed between two makes is used" "still left out after it was installed: $after"
	elif grep -q 'have_lib\.libdeflate' "$TMP/b/config.mk" && ! grep -q 'have_lib\.libdeflate.* := yes' "$TMP/b/config.mk"; then
		fail "a codec library installed between two makes is used" "a negative answer is cached: $(grep libdeflate "$TMP/b/config.mk")"
	else
		pass "a codec library installed between two makes is used"
	fi
fi

# ---- a required library missing: the build stops before any object
rm -f "$TMP/installed.capstone_capstone.h"
run mk BUILD="$TMP/b2" BINDIR="$TMP/bin2" CC="$TMP/cc" "$TMP/b2/lib/base/units.o"
if [ "$STATUS" -eq 0 ]; then
	fail "a missing required library stops the build" "make exited 0"
elif [ -e "$TMP/b2/lib/base/units.o" ]; then
	fail "a missing required library stops the build" "an object was compiled first"
elif ! grep -q 'required libraries are missing (Debian packages: libcapstone-dev)' "$TMP/stderr" ||
	! grep -q 'apt-get install libcapstone-dev' "$TMP/stderr"; then
	fail "a missing required library stops the build" "message: $(tail -n 3 "$TMP/stderr" | tr '\n' '|')"
else
	pass "a missing required library stops the build"
fi
# ... and once it is installed, the same build directory builds.
touch "$TMP/installed.capstone_capstone.h"
run mk BUILD="$TMP/b2" BINDIR="$TMP/bin2" CC="$TMP/cc" "$TMP/b2/lib/base/units.o"
if [ "$STATUS" -eq 0 ] && [ -e "$TMP/b2/lib/base/units.o" ]; then
	pass "the build goes on once the required library is installed"
else
	fail "the build goes on once the required library is installed" "exit $STATUS: $(tail -n 3 "$TMP/stderr" | tr '\n' '|')"
fi
