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

# ---- Go programs without .symtab: named by Go's function table ----
# go build -ldflags="-s -w", the way Go programs ship, left every frame
# "prog+0x79b63": the names are in .gopclntab, which Go's own tools and
# runtime read. Every function of the unstripped build (go tool nm: its
# .symtab) is named the same at its first and last byte of the stripped
# one, and placed at the same file:line as go tool addr2line places it.

# go_build DIR: tests/data/go/spin.go built in DIR as gox (unstripped),
# gox-s (stripped), gox-pie-s, gox-pie (position-independent) and gox-bid
# (stripped, with a GNU build-id: Go's linker writes none unless asked),
# with a cache and module settings of its own (no network, no $HOME).
go_build() {
	mkdir -p "$1" && cp "$TESTS/data/go/spin.go" "$1/" && printf 'module gox\n\ngo 1.19\n' >"$1/go.mod" &&
		(cd "$1" && export GOCACHE="$1/cache" GOPATH="$1/gopath" GOFLAGS=-mod=mod GO111MODULE=on \
			GOTOOLCHAIN=local GOPROXY=off CGO_ENABLED=0 &&
			go build -o gox . && go build -ldflags='-s -w' -o gox-s . &&
			go build -buildmode=pie -o gox-pie . && go build -buildmode=pie -ldflags='-s -w' -o gox-pie-s . &&
			go build -ldflags='-s -w -B 0x0123456789abcdef0123456789abcdef01234567' -o gox-bid .)
}

# go_check NAME UNSTRIPPED STRIPPED [LINES]: LINES 0 when go tool
# addr2line cannot read UNSTRIPPED (Go 1.19's, a position-independent one)
go_check() {
	# "ADDR<TAB>LAST<TAB>NAME" of each function with code, from .symtab (hex: awk adds the size)
	go tool nm -n -size "$2" | awk '
		function hex(s,   v, i) { v = 0; s = tolower(s)
			for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v }
		$3 ~ /^[Tt]$/ && $2 > 0 { name = $0; sub(/^ *[0-9a-f]+ +[0-9]+ +[Tt] /, "", name)
			printf "%s\t%x\t%s\n", $1, hex($1) + $2 - 1, name }' >"$TMP/$1.ref"
	cut -f1,2 "$TMP/$1.ref" | tr '\t' '\n' | "$SYMADDR" -l "$3" >"$TMP/$1.got" 2>"$TMP/$1.err"
	cut -f1 "$TMP/$1.ref" | sed 's/^/0x/' | go tool addr2line "$2" | paste - - | cut -f2 >"$TMP/$1.a2l"
	nol=$(awk -F'\t' '$4 == ""' "$TMP/$1.got" | wc -l)
	# the reference's name at each address asked, then what symaddr said of it
	awk -F'\t' '{ print $3; print $3 }' "$TMP/$1.ref" | paste - "$TMP/$1.got" >"$TMP/$1.cmp"
	bad=$(awk -F'\t' '
		# an assembly function with no ABI wrapper: .symtab adds ".abi0", the
		# table (and Go tracebacks, pprof) do not; the linker spells array
		# lengths of generated equality functions "[...]" in the table
		$1 != $3 && $1 != $3 ".abi0" && !($1 ~ /^type\.\.eq\./ && $3 ~ /^type\.\.eq\./) { print $1 " named " $3 }' \
		"$TMP/$1.cmp" | head -n 3 | tr '\n' '|')
	n=$(wc -l <"$TMP/$1.ref")
	pairs=$(awk -F'\t' '$1 == $3 && $1 ~ /\.abi0$/' "$TMP/$1.cmp" | wc -l)
	lines=$(awk 'NR % 2' "$TMP/$1.got" | cut -f4 | paste - "$TMP/$1.a2l" | awk -F'\t' '$1 != $2' | head -n 3 | tr '\n' '|')
	[ "${4:-1}" = 0 ] && lines=
	if [ "$n" -lt 1000 ] || ! grep -q '	main\.hashLoop$' "$TMP/$1.ref"; then
		fail "Go pclntab: $1" "go tool nm listed $n functions"
	elif [ -n "$bad" ]; then
		fail "Go pclntab: $1: names" "$bad"
	elif [ "$pairs" -lt 2 ]; then
		fail "Go pclntab: $1: ABI0 halves of wrapped functions" "$pairs named NAME.abi0 as .symtab names them"
	elif [ -n "$lines" ] || [ "$nol" -gt 0 ]; then
		fail "Go pclntab: $1: file:line" "$nol addresses without; $lines"
	elif ! grep -q "100% by Go's pclntab" "$TMP/$1.err"; then
		fail "Go pclntab: $1: naming report" "$(tail -c 300 "$TMP/$1.err")"
	else
		how="file:line as go tool addr2line places them"
		[ "${4:-1}" = 0 ] && how="a file:line for each"
		pass "Go pclntab: $1: $n functions named at both ends as .symtab names them ($pairs .abi0 halves), $how"
	fi
}

if ! have go; then
	skip "Go pclntab" "no go (Debian: golang-go)"
elif ! go_build "$TMP/gox" >"$TMP/gobuild.log" 2>&1; then
	fail "Go pclntab: build" "$(tail -c 400 "$TMP/gobuild.log")"
else
	go_check exe "$TMP/gox/gox" "$TMP/gox/gox-s"
	go_check pie "$TMP/gox/gox-pie" "$TMP/gox/gox-pie-s" 0
	# no section headers (e_shoff, e_shnum, e_shstrndx zeroed, as sstrip
	# leaves a file): the table is found in the segments by its header
	cp "$TMP/gox/gox-s" "$TMP/gox/gox-nosh" &&
		printf '\0\0\0\0\0\0\0\0' | dd of="$TMP/gox/gox-nosh" bs=1 seek=40 conv=notrunc 2>/dev/null &&
		printf '\0\0\0\0' | dd of="$TMP/gox/gox-nosh" bs=1 seek=60 conv=notrunc 2>/dev/null
	if readelf -SW "$TMP/gox/gox-nosh" 2>&1 | grep -q 'There are no sections'; then
		go_check nosh "$TMP/gox/gox" "$TMP/gox/gox-nosh"
	else
		fail "Go pclntab: no section headers" "$(readelf -SW "$TMP/gox/gox-nosh" 2>&1 | head -n 2)"
	fi
	# Names from the table go to the per-build-id cache as other names do,
	# and come back from it flagged as Go's (PROF_FRAME_GOPCLNTAB 0x80, CACHED 0x40).
	a=$(awk -F'\t' '$3 == "main.hashLoop" { print $1 }' "$TMP/exe.ref")
	first=$(XDG_CACHE_HOME=$TMP/gocache "$SYMADDR" -c "$TMP/gox/gox-bid" "$a" 2>/dev/null)
	again=$(XDG_CACHE_HOME=$TMP/gocache "$SYMADDR" -c "$TMP/gox/gox-bid" "$a" 2>/dev/null)
	if [ "$first" = "$a	main.hashLoop	80" ] && [ "$again" = "$a	main.hashLoop	c0" ]; then
		pass "Go pclntab: names cached per build-id, flagged as Go's when read back"
	else
		fail "Go pclntab: cache" "first run: $first; second: $again"
	fi
fi
