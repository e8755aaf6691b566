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

# ---- inlined frames of Rust code, as addr2line -i finds them ----
# rustc leaves a function's DIE inside its namespace, where libdw's
# dwarf_getscopes() does not look: every inlined frame of Rust code was lost.

if ! RUSTC=$(rustc_path); then
	skip "rust inlines" "rustc not installed (not in PATH nor in ~/.cargo/bin)"
elif ! command -v addr2line >/dev/null 2>&1 || ! command -v objdump >/dev/null 2>&1; then
	skip "rust inlines" "addr2line or objdump not installed (binutils)"
else
	mkdir "$TMP/rs"
	cat >"$TMP/rs/main.rs" <<'RS'
use std::collections::HashSet;
#[inline(never)]
fn count(n: u64) -> usize {
    let mut s = HashSet::new();
    for i in 0..n { s.insert(i.wrapping_mul(2654435761) % 100000); }
    s.len()
}
fn main() { println!("{}", count(std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1000))); }
RS
	if ! (cd "$TMP/rs" && "$RUSTC" -C opt-level=3 -C debuginfo=2 main.rs -o main) >"$TMP/rs/build.log" 2>&1; then
		fail "rust inlines: build" "$(head -c 300 "$TMP/rs/build.log")"
	else
		# every instruction of main::count (not the padding after it)
		range=$(nm -S "$TMP/rs/main" | awk '$4 ~ /4main5count/ { print $1, $2; exit }')
		objdump -d --no-show-raw-insn --start-address="0x${range% *}" \
			--stop-address=$((0x${range% *} + 0x${range#* })) "$TMP/rs/main" |
			awk '/^ *[0-9a-f]+:/ { sub(/:.*/, ""); sub(/^ */, ""); print }' >"$TMP/rs/addrs"
		# addr2line: innermost first, each address after its own "0x..." line
		sed 's/^/0x/' "$TMP/rs/addrs" | addr2line -a -i -f -C -e "$TMP/rs/main" | awk '
			/^0x[0-9a-f]+$/ { if (a != "") print a "\t" s; a = $0; sub(/^0x0*/, "", a); s = ""; odd = 1; next }
			{ if (odd) s = s (s == "" ? "" : ";") $0; odd = !odd }
			END { if (a != "") print a "\t" s }' >"$TMP/rs/want"
		# ours: outermost first; turned innermost first
		"$SYMADDR" "$TMP/rs/main" <"$TMP/rs/addrs" | awk -F'\t' '{
			n = split($2, f, ";"); s = ""
			for (i = n; i >= 1; i--) s = s (s == "" ? "" : ";") f[i]
			a = $1; sub(/^0*/, "", a); print a "\t" s }' >"$TMP/rs/got"
		n=$(wc -l <"$TMP/rs/addrs")
		inl=$(awk -F'\t' '$2 ~ /;/' "$TMP/rs/want" | wc -l)
		if [ "$n" -lt 20 ] || [ "$inl" -lt 10 ]; then
			fail "rust inlines" "addr2line finds $inl inlined addresses of $n in main::count"
		elif ! cmp -s "$TMP/rs/want" "$TMP/rs/got"; then
			fail "rust inlines" "$(diff "$TMP/rs/want" "$TMP/rs/got" | head -n 4 | tr '\n' '|' | head -c 600)"
		elif ! grep -q 'hashbrown::.*insert' "$TMP/rs/got"; then
			fail "rust inlines" "no hashbrown insert frame inlined in main::count"
		else
			pass "rust inlines: $n addresses of main::count as addr2line -i ($inl with inlined frames)"
		fi
	fi
fi

# ---- the naming report says where names came from ----
# A stripped program named by its debug file, then (the debug file gone)
# from the symbol cache, was reported "50% by symbols" both times.

if ! $CC -O1 -g -o "$TMP/named" "$TMP/plt.c" 2>/dev/null ||
	! objcopy --only-keep-debug "$TMP/named" "$TMP/named.debug" ||
	! strip --strip-all "$TMP/named" || ! objcopy --add-gnu-debuglink="$TMP/named.debug" "$TMP/named"; then
	fail "naming report: build a stripped program with a debug link"
else
	main_at=$(nm "$TMP/named.debug" | awk '$3 == "main" { print $1 }')
	# main (named) and the ELF header (nothing names it): 50% each
	XDG_CACHE_HOME=$TMP/cache run "$SYMADDR" -c "$TMP/named" "$main_at" 40
	if ! grep -q '	main	' "$TMP/stdout"; then
		fail "naming report: debug file" "main not named: $(cat "$TMP/stdout" "$TMP/stderr")"
	elif grep -q 'names: 50% of samples by the files. own symbols, 0% by separate debug files' "$TMP/stderr" ||
		! grep -q 'names: 0% of samples by the files. own symbols, 50% by separate debug files, 0% from the symbol cache' "$TMP/stderr" ||
		! grep -q "50% of samples in $TMP/named: named by its debug file $TMP/named.debug" "$TMP/stderr"; then
		fail "naming report: debug file" "$(head -c 600 "$TMP/stderr")"
	else
		pass "naming report: names from a debug file are said to be"
	fi
	mv "$TMP/named.debug" "$TMP/named.away"
	XDG_CACHE_HOME=$TMP/cache run "$SYMADDR" -c "$TMP/named" "$main_at" 40
	if ! grep -q '	main	' "$TMP/stdout"; then
		fail "naming report: symbol cache" "main not named from the cache: $(cat "$TMP/stdout")"
	elif ! grep -q 'names: 0% of samples by the files. own symbols, 0% by separate debug files, 50% from the symbol cache' "$TMP/stderr" ||
		! grep -q "50% of samples in $TMP/named: named from the symbol cache" "$TMP/stderr"; then
		fail "naming report: symbol cache" "$(head -c 600 "$TMP/stderr")"
	else
		pass "naming report: names from the symbol cache are said to be"
	fi
fi

# ---- _start: the entry point of a program without .symtab ----
# ld.so (stripped, no debug file on a fresh machine) showed its _start as
# ld-linux-x86-64.so.2+0x1ab77: it is in no symbol table it keeps, and no
# FDE covers it.

# entry FILE: e_entry, hex without 0x
entry() {
	readelf -hW "$1" | awk '/Entry point address:/ { sub(/^0x0*/, "", $4); print $4 }'
}
if ! $CC -O1 -o "$TMP/start" "$TMP/plt.c" 2>/dev/null; then
	fail "_start: build"
else
	want=$(nm "$TMP/start" | awk '$3 == "_start" { sub(/^0*/, "", $1); print $1 }')
	cp "$TMP/start" "$TMP/start-stripped" && strip --strip-all "$TMP/start-stripped"
	e=$(entry "$TMP/start-stripped")
	got=$("$SYMADDR" "$TMP/start-stripped" "$e" "$(printf %x $((0x$e + 4)))" | cut -f2 | sort -u)
	if [ "$want" != "$e" ]; then
		fail "_start: stripped program" "nm says _start is at $want, the entry point is $e"
	elif [ "$got" != "_start" ]; then
		fail "_start: stripped program" "named $got"
	else
		pass "_start: stripped program's entry point named as nm named it before strip"
	fi
fi
ldso=$(readlink -f /lib64/ld-linux-x86-64.so.2 2>/dev/null)
if [ -z "$ldso" ] || [ ! -r "$ldso" ]; then
	skip "_start: ld.so" "no /lib64/ld-linux-x86-64.so.2"
else
	# A copy without build-id or debug link: no debug file can name it.
	cp "$ldso" "$TMP/ld.so" && objcopy --remove-section .note.gnu.build-id \
		--remove-section .gnu_debuglink "$TMP/ld.so" 2>/dev/null
	e=$(entry "$TMP/ld.so")
	if readelf -SW "$TMP/ld.so" | grep -q ' \.symtab '; then
		skip "_start: ld.so" "$ldso is not stripped"
	else
		got=$("$SYMADDR" "$TMP/ld.so" "$(printf %x $((0x$e + 7)))" | cut -f2)
		# the debug file, where installed (libc6-dbg), is the reference
		bid=$(readelf -nW "$ldso" | awk '/Build ID:/ { print $3 }')
		dbg=/usr/lib/debug/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).debug
		ref=_start
		[ -n "$bid" ] && [ -r "$dbg" ] &&
			ref=$(nm "$dbg" | awk -v e="$e" '{ a = $1; sub(/^0*/, "", a) } a == e && $2 ~ /^[tT]$/ { print $3; exit }')
		if [ "$got" = "$ref" ]; then
			pass "_start: ld.so without symbols or debug file: its entry named $ref"
		else
			fail "_start: ld.so" "0x$e + 7 named $got, not $ref"
		fi
	fi
fi
