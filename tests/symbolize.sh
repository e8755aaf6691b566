#!/bin/sh
# The symbolizer's names (lib/symbolize) beside the reference tools':
# PLT stubs as objdump names them, inlined frames as llvm-dwarfdump and
# addr2line find them, the vDSO and ld.so. Programs are built here;
# addresses are asked of tests/tools/symaddr (FILE VADDR -> frames).
. "$(dirname "$0")/lib.sh"

SYMADDR=$BUILD/tests/tools/symaddr
CC=${CC:-cc}

# ---- PLT stubs: "target@plt" from the relocations, as objdump -d names them ----

cat >"$TMP/plt.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
	char a[64], b[64];
	long n = 0, k = argc > 1 ? atol(argv[1]) : 1;

	memset(a, 'x', 63);
	a[63] = 0;
	memcpy(b, a, 64);
	for (long i = 0; i < k; i++)
		n += strcmp(a, b) + memcmp(a, b, 64);
	printf("%ld\n", n);
	return 0;
}
EOF

# plt_check NAME FILE: every stub objdump -d names "<X@plt>" (and the
# lazy PLT's header, "<.plt>") is named so at its first byte and inside.
plt_check() {
	objdump -d "$2" | awk '
		/^[0-9a-f]+ <.*>:$/ {
			name = $2; sub(/^</, "", name); sub(/>:$/, "", name)
			if (name ~ /@plt$/ || name == ".plt") {
				# objdump spells an IRELATIVE slot *ABS*+0xADDR@plt: not compared
				if (name !~ /^\*ABS\*/) print $1 "\t" name
			}
		}' >"$TMP/plt.want"
	if [ ! -s "$TMP/plt.want" ]; then
		fail "$1" "objdump names no PLT stub in $2"
		return
	fi
	# the first byte, and one 6 bytes in (past an endbr64): both carry objdump's name
	while read -r addr name; do
		printf '%s\t%s\n%x\t%s\n' "$addr" "$name" $((0x$addr + 6)) "$name"
	done <"$TMP/plt.want" >"$TMP/plt.pairs"
	if ! cut -f1 "$TMP/plt.pairs" | "$SYMADDR" "$2" >"$TMP/plt.got" 2>"$TMP/plt.err"; then
		fail "$1" "symaddr: $(head -c 300 "$TMP/plt.err")"
		return
	fi
	bad=$(paste "$TMP/plt.pairs" "$TMP/plt.got" | awk -F'\t' '$2 != $4 { print $1 ": " $4 " (objdump: " $2 ")"; exit }')
	if [ -n "$bad" ]; then
		fail "$1" "$bad"
	else
		pass "$1 ($(wc -l <"$TMP/plt.want") stubs)"
	fi
}

if ! command -v objdump >/dev/null 2>&1; then
	skip "plt" "objdump not installed (binutils)"
elif ! $CC -O1 -g -fno-omit-frame-pointer -o "$TMP/plt" "$TMP/plt.c"; then
	fail "plt: build"
else
	plt_check "plt: unstripped lazy .plt, .plt.got" "$TMP/plt"
	# _init has no size: it covers .init, not the stubs after it
	"$SYMADDR" "$TMP/plt" "$(objdump -d "$TMP/plt" | awk '/<_init>:$/ { print $1 }')" >"$TMP/init.got"
	if grep -q '	_init	' "$TMP/init.got"; then
		pass "plt: _init still named"
	else
		fail "plt: _init still named" "$(cat "$TMP/init.got")"
	fi
	cp "$TMP/plt" "$TMP/plt-stripped" && strip --strip-all "$TMP/plt-stripped" &&
		plt_check "plt: stripped" "$TMP/plt-stripped"
	# Intel CET: the stubs called are in .plt.sec, the lazy ones in .plt
	if $CC -O1 -fcf-protection=full -Wl,-z,ibtplt -o "$TMP/plt-ibt" "$TMP/plt.c" 2>/dev/null &&
		readelf -SW "$TMP/plt-ibt" | grep -q '\.plt\.sec'; then
		plt_check "plt: .plt.sec (IBT)" "$TMP/plt-ibt"
	else
		skip "plt: .plt.sec (IBT)" "the compiler or linker cannot build with -z ibtplt"
	fi
	if $CC -O1 -Wl,-z,now -Wl,-z,noseparate-code -o "$TMP/plt-now" "$TMP/plt.c" 2>/dev/null; then
		plt_check "plt: -z now" "$TMP/plt-now"
	fi
	# a stripped distribution library with a PLT
	lib=
	for l in /usr/lib/x86_64-linux-gnu/libz.so.1 /lib/x86_64-linux-gnu/libz.so.1 /usr/lib64/libz.so.1; do
		if [ -r "$l" ] && readelf -SW "$l" 2>/dev/null | grep -q ' \.plt '; then
			lib=$l
			break
		fi
	done
	if [ -z "$lib" ]; then
		skip "plt: stripped distribution library" "no libz.so.1 with a .plt here"
	elif readelf -SW "$lib" | grep -q ' \.symtab '; then
		skip "plt: stripped distribution library" "$lib is not stripped"
	else
		plt_check "plt: stripped distribution library $(basename "$lib")" "$lib"
	fi
fi
