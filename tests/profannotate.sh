#!/bin/sh
# profannotate: the SIMD check of small kernels (AVX2, AVX-512, scalar),
# annotation of a recorded division chain (PIE, non-PIE, a shared
# library; beside perf annotate when perf works), build-id mismatch,
# missing debug information, and bad input.
. "$(dirname "$0")/lib.sh"
A=$BIN/profannotate
R=$BIN/profrec
CC=${CC:-cc}

echo 'int main(void) { return 0; }' >"$TMP/main.c"
$CC -O2 -o "$TMP/true" "$TMP/main.c" || { fail "build a program"; exit 0; }
# capstone is required by the build: no profannotate exists that cannot
# disassemble, so nothing here is skipped for want of it.
run "$A" --simd "$TMP/true" main
if [ "$STATUS" -ne 0 ]; then
	fail "--simd on a trivial program" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
else
	pass "--simd on a trivial program"
fi

# ---- --simd: the same loops at -O3 -mavx2, -O3 -mavx512f and -O0 ----
cat >"$TMP/k.c" <<'EOF2'
void add(int *restrict a, const int *restrict b, int n) { for (int i = 0; i < n; i++) a[i] += b[i]; }
void addf(float *restrict a, const float *restrict b, int n) { for (int i = 0; i < n; i++) a[i] += b[i]; }
EOF2
# simd_col FILE FUNC COLUMN: the column of FUNC's row of --simd TSV.
simd_col() {
	awk -F'\t' -v f="$2" -v c="$3" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == f { print $col[c] }' "$1"
}
kernels_ok=1
for v in avx2 avx512 O0; do
	case $v in
	avx2) fl="-O3 -mavx2" ;;
	avx512) fl="-O3 -mavx512f" ;;
	O0) fl="-O0" ;;
	esac
	# shellcheck disable=SC2086
	$CC $fl -o "$TMP/k-$v" "$TMP/k.c" "$TMP/main.c" 2>/dev/null || kernels_ok=0
done
if [ $kernels_ok = 0 ]; then
	skip "--simd kernels" "the compiler cannot build -mavx2/-mavx512f code"
else
	"$A" --simd "$TMP/k-avx2" add addf >"$TMP/avx2.tsv"
	validate_tsv "--simd: valid profannotate-simd TSV" profannotate-simd "$TMP/avx2.tsv"
	w=$(simd_col "$TMP/avx2.tsv" add widest_bits) n=$(simd_col "$TMP/avx2.tsv" add avx2)
	if [ "$w" = 256 ] && [ "${n:-0}" -gt 0 ]; then pass "-O3 -mavx2 integer loop: AVX2, 256 bits"
	else fail "-O3 -mavx2 integer loop: AVX2, 256 bits" "widest $w, avx2 $n"; fi
	check_status "--require avx2 on the -mavx2 loop: exit 0" 0 "$A" --simd --require avx2 "$TMP/k-avx2" add
	"$A" --simd "$TMP/k-avx512" add addf >"$TMP/avx512.tsv"
	w=$(simd_col "$TMP/avx512.tsv" addf widest_bits) n=$(simd_col "$TMP/avx512.tsv" addf avx512)
	if [ "$w" = 512 ] && [ "${n:-0}" -gt 0 ]; then pass "-O3 -mavx512f loop: AVX-512, 512 bits"
	else fail "-O3 -mavx512f loop: AVX-512, 512 bits" "widest $w, avx512 $n"; fi
	"$A" --simd "$TMP/k-O0" add addf >"$TMP/o0.tsv"
	bad=$(awk -F'\t' 'NR > 1 && ($4 + $5 + $6 + $7 != 0 || $10 != 0 || $3 != $2)' "$TMP/o0.tsv")
	if [ -z "$bad" ] && objdump -d "$TMP/k-O0" 2>/dev/null | grep -q addss; then
		pass "-O0: scalar only (addss is scalar, not a vector)"
	else
		fail "-O0: scalar only" "$bad"
	fi
	check_error "--require avx2 on the -O0 loop: exit 1, named" 1 "addf: no 256-bit vector instruction" \
		"$A" --simd --require avx2 "$TMP/k-O0" addf
	run "$A" --simd --human "$TMP/k-avx2"
	if [ "$STATUS" = 0 ] && head -n 1 "$TMP/stdout" | grep -q '^function  *insns' && grep -q '^add ' "$TMP/stdout"; then
		pass "--simd --human: aligned table of every function"
	else
		fail "--simd --human" "exit $STATUS: $(head -c 300 "$TMP/stdout")"
	fi
	# a symbol whose size reaches past the file's contents: its code cannot
	# be read, so --require cannot judge it (it exited 0 on an empty table)
	if have python3; then
		python3 - "$TMP/k-avx2" "$TMP/k-badsize" add <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
shoff, = struct.unpack_from("<Q", data, 0x28)
shentsize, shnum = struct.unpack_from("<HH", data, 0x3a)
secs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
for s in secs:
    if s[1] != 2:       # SHT_SYMTAB
        continue
    strtab = secs[s[6]]
    for off in range(s[4], s[4] + s[5], 24):
        name = struct.unpack_from("<I", data, off)[0]
        end = data.index(b"\0", strtab[4] + name)
        if data[strtab[4] + name:end] == sys.argv[3].encode():
            struct.pack_into("<Q", data, off + 16, 1 << 40)     # st_size
open(sys.argv[2], "wb").write(data)
PY
		check_error "--simd --require avx2, a symbol's size outside the file: exit 1, named" 1 \
			"k-badsize: add: its code .* is not in the file's contents" "$A" --simd --require avx2 "$TMP/k-badsize" add
		check_error "--simd naming such a symbol (no --require): exit 1, named" 1 \
			"k-badsize: add: its code .* is not in the file's contents" "$A" --simd "$TMP/k-badsize" add
	else
		skip "--simd: a symbol's size outside the file" "python3 not installed"
	fi
fi

# ---- --simd names C++ functions demangled (raw with --no-demangle) and
# finds them by either name ----
cat >"$TMP/kc.cc" <<'EOF2'
namespace ns {
struct Vec {
	void add(int *__restrict a, const int *__restrict b, int n);
};
void Vec::add(int *__restrict a, const int *__restrict b, int n) { for (int i = 0; i < n; i++) a[i] += b[i]; }
}
int main() { return 0; }
EOF2
CXX=${CXX:-g++}
dm='ns::Vec::add(int*, int const*, int)' mg=_ZN2ns3Vec3addEPiPKii
if ! have "$CXX" || ! $CXX -O3 -mavx2 -o "$TMP/kc" "$TMP/kc.cc" 2>/dev/null; then
	skip "--simd C++ names" "$CXX cannot build -O3 -mavx2 C++ code"
else
	run "$A" --simd "$TMP/kc"
	w=$(simd_col "$TMP/stdout" "$dm" widest_bits) n=$(simd_col "$TMP/stdout" "$dm" avx2)
	if [ "$STATUS" = 0 ] && [ "$w" = 256 ] && [ "${n:-0}" -gt 0 ] && ! grep -q "^$mg" "$TMP/stdout"; then
		pass "--simd: the C++ method named demangled, AVX2 256 bits"
	else
		fail "--simd: the C++ method named demangled" "exit $STATUS, widest $w, avx2 $n: $(grep Vec "$TMP/stdout")"
	fi
	run "$A" --simd --no-demangle "$TMP/kc"
	if [ "$STATUS" = 0 ] && [ "$(simd_col "$TMP/stdout" "$mg" widest_bits)" = 256 ] &&
	   ! grep -q '^ns::' "$TMP/stdout"; then
		pass "--simd --no-demangle: the C++ method by its symbol"
	else
		fail "--simd --no-demangle: the C++ method by its symbol" "$(grep Vec "$TMP/stdout")"
	fi
	run "$A" --simd --require avx2 "$TMP/kc" "$dm"
	if [ "$STATUS" = 0 ] && [ "$(wc -l <"$TMP/stdout")" = 2 ] && [ "$(simd_col "$TMP/stdout" "$dm" widest_bits)" = 256 ]; then
		pass "--simd --require avx2 'ns::Vec::add(...)': selected by its demangled name, passes"
	else
		fail "--simd --require avx2 by demangled name" "exit $STATUS: $(cat "$TMP/stdout" "$TMP/stderr")"
	fi
	run "$A" --simd --no-demangle "$TMP/kc" "$dm"
	if [ "$STATUS" = 0 ] && [ "$(cut -f1 "$TMP/stdout" | sed 1d)" = "$mg" ]; then
		pass "--simd --no-demangle: selected by the demangled name, shown raw"
	else
		fail "--simd --no-demangle by demangled name" "exit $STATUS: $(cat "$TMP/stdout" "$TMP/stderr")"
	fi
	run "$A" --simd "$TMP/kc" "$mg"
	if [ "$STATUS" = 0 ] && [ "$(cut -f1 "$TMP/stdout" | sed 1d)" = "$dm" ]; then
		pass "--simd: selected by the mangled name, shown demangled"
	else
		fail "--simd by mangled name" "exit $STATUS: $(cat "$TMP/stdout" "$TMP/stderr")"
	fi
	check_error "--simd --require avx512 by demangled name: exit 1, named demangled" 1 \
		"^profannotate: ns::Vec::add\\(int\\*, int const\\*, int\\): no 512-bit vector instruction \\(widest: 256 bits\\)$" \
		"$A" --simd --require avx512 "$TMP/kc" "$dm"
	check_error "--simd: a demangled name without its parameters names nothing" 1 \
		"kc: no function 'ns::Vec::add'" "$A" --simd "$TMP/kc" ns::Vec::add
fi

# ---- AArch64: the same loop cross-built by clang (lld links it) ----
# sve_section: capstone 4 cannot decode SVE. A function whose loop clang
# vectorised to SVE, after a NEON add (a 128-bit generic vector): the
# undecodable bytes are said once and counted apart, the NEON and scalar
# instructions around them still counted. What llvm-objdump without
# +sve cannot decode either ('<unknown>', 4 bytes each) is the expectation.
sve_section() {
	case $(pkg-config --modversion capstone 2>/dev/null) in
	4.*) ;;
	*) skip "AArch64 SVE" "capstone is not version 4 (5 decodes SVE)"; return ;;
	esac
	cat >"$TMP/sve.c" <<'EOF2'
typedef int v4 __attribute__((vector_size(16)));
void mixed(v4 *restrict x, const v4 *restrict y, int *restrict a, const int *restrict b, int n)
{ *x += *y; for (int i = 0; i < n; i++) a[i] += b[i]; }
EOF2
	if ! clang --target=aarch64-linux-gnu -O3 -g -march=armv8-a+sve -nostdlib -fuse-ld=lld \
		-Wl,-e,mixed -o "$TMP/sve" "$TMP/sve.c" 2>/dev/null; then
		skip "AArch64 SVE" "clang cannot build -march=armv8-a+sve code"
		return
	fi
	llvm-objdump -d "$TMP/sve" | awk '/^ *[0-9a-f]+: /' >"$TMP/sve.dis"
	unknown=$(grep -c '<unknown>' "$TMP/sve.dis") total=$(wc -l <"$TMP/sve.dis")
	first=$(awk '/<unknown>/ { sub(/:/, "", $1); print $1; exit }' "$TMP/sve.dis")
	if [ "${unknown:-0}" = 0 ]; then
		fail "AArch64 SVE: the loop is SVE" "no SVE instruction in $(head -c 300 "$TMP/sve.dis")"
		return
	fi
	run "$A" --simd "$TMP/sve" mixed
	row="$(simd_col "$TMP/stdout" mixed instructions) $(simd_col "$TMP/stdout" mixed neon) $(simd_col "$TMP/stdout" mixed widest_bits) $(simd_col "$TMP/stdout" mixed undecoded_bytes)"
	said=$(grep -c "^profannotate: $TMP/sve: mixed: $((unknown * 4)) bytes could not be decoded, the first at 0x$first (capstone 4\.[0-9]*; SVE needs capstone 5)\$" "$TMP/stderr")
	if [ "$STATUS" = 0 ] && [ "$row" = "$((total - unknown)) 1 128 $((unknown * 4))" ] && [ "$said" = 1 ] &&
	   [ "$(wc -l <"$TMP/stderr")" = 1 ]; then
		pass "AArch64 SVE: $((unknown * 4)) bytes said once, undecoded_bytes; NEON and scalar counted"
	else
		fail "AArch64 SVE: undecoded bytes said and counted" "exit $STATUS, row '$row' (want $((total - unknown)) 1 128 $((unknown * 4))): $(cat "$TMP/stderr")"
	fi
	check_status "AArch64 SVE: --require neon passes on the NEON add decoded" 0 \
		"$A" --simd --require neon "$TMP/sve" mixed
	clang --target=aarch64-linux-gnu -O3 -march=armv8-a+sve -nostdlib -fuse-ld=lld -Wl,-e,add \
		-o "$TMP/sve-add" "$TMP/k.c" 2>/dev/null
	check_error "AArch64 SVE: --require sve fails on an SVE loop capstone cannot decode, said" 1 \
		"add: no 128-bit vector instruction \\(widest: 0 bits; [1-9][0-9]* bytes not decoded\\)" \
		"$A" --simd --require sve "$TMP/sve-add" add
	# annotating says it too, and still shows the decoded instructions
	va=$(awk '/\tadd\tv[0-9]+\.4s/ { sub(/:/, "", $1); print $1; exit }' "$TMP/sve.dis")
	a64_recording "$TMP/sve" "$va" >"$TMP/sve-rec.tsv"
	run "$A" "$TMP/sve-rec.tsv"
	if [ "$STATUS" = 0 ] && grep -q "^profannotate: $TMP/sve: mixed: $((unknown * 4)) bytes could not be decoded" "$TMP/stderr" &&
	   [ "$(awk -F'\t' '$8 == "(bad)"' "$TMP/stdout" | wc -l)" = "$unknown" ] &&
	   awk -F'\t' -v va="$va" '$6 == "*" && $3 == va && $4 == 3' "$TMP/stdout" | grep -q .; then
		pass "AArch64 SVE: annotating says the undecoded bytes, the NEON add still hottest"
	else
		fail "AArch64 SVE: annotating" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
	fi
}

# a64_recording BINARY VA: a profrec recording (made up: 3 samples) of
# BINARY mapped at 0x5500000000, all at ELF address VA (hex): file offset
# = address - p_vaddr + p_offset.
a64_recording() {
	_off=$(readelf -lW "$1" | awk '$1 == "LOAD" { print $2, $3, $6 }' | while read -r o v z; do
		[ $((0x${2:-0})) -ge $((v)) ] && [ $((0x${2:-0})) -lt $((v + z)) ] && printf '%x' $((0x$2 - v + o))
	done)
	_bid=$(readelf -n "$1" | awk '/Build ID/ { print $3 }')
	_ip=$(printf '%x' $((0x5500000000 + 0x${_off:-0})))
	echo "# source=profrec event=cpu-clock unit=ns"
	printf 'time_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack\tip\tmap_id\tmap\n'
	printf '1\t1\t1\ta64\t0\tcpu-clock\t1\t0\tadd\t%s\t0\t0x5500000000 0x0 %s %s\n' "$_ip" "$_bid" "$1"
	printf '2\t1\t1\ta64\t0\tcpu-clock\t1\t0\tadd\t%s\t0\t\n3\t1\t1\ta64\t0\tcpu-clock\t1\t0\tadd\t%s\t0\t\n' "$_ip" "$_ip"
}
if have clang && have ld.lld && clang --target=aarch64-linux-gnu -O3 -g -nostdlib -fuse-ld=lld \
	-Wl,-e,add -o "$TMP/a64-O3" "$TMP/k.c" 2>/dev/null &&
	clang --target=aarch64-linux-gnu -O0 -nostdlib -fuse-ld=lld -Wl,-e,add -o "$TMP/a64-O0" "$TMP/k.c" 2>/dev/null; then
	"$A" --simd "$TMP/a64-O3" add >"$TMP/a64.tsv"
	w=$(simd_col "$TMP/a64.tsv" add widest_bits) n=$(simd_col "$TMP/a64.tsv" add neon)
	if [ "$w" = 128 ] && [ "${n:-0}" -gt 0 ]; then pass "AArch64 -O3 loop: NEON, 128 bits"
	else fail "AArch64 -O3 loop: NEON, 128 bits" "widest $w, neon $n"; fi
	check_status "AArch64: --require neon on the -O3 loop: exit 0" 0 "$A" --simd --require neon "$TMP/a64-O3" add
	check_error "AArch64: --require neon on the -O0 loop: exit 1, named" 1 "add: no 128-bit vector instruction" \
		"$A" --simd --require neon "$TMP/a64-O0" add
	# annotate: a recording (made up: 3 samples) of the -O3 binary, all on
	# its first NEON add.
	va=$(llvm-objdump -d "$TMP/a64-O3" 2>/dev/null | awk '/^ *[0-9a-f]+:.*\tadd\tv[0-9]+\.4s/ { sub(/:/, "", $1); print $1; exit }')
	a64_recording "$TMP/a64-O3" "$va" >"$TMP/a64-rec.tsv"
	run "$A" "$TMP/a64-rec.tsv"
	hot=$(awk -F'\t' '$6 == "*" { print $3 " " $4 " " $8 }' "$TMP/stdout")
	if [ "$STATUS" = 0 ] && [ -n "$va" ] && echo "$hot" | grep -Eq "^$va 3 add v[0-9]+\.4s"; then
		pass "AArch64: annotated, the sampled NEON add marked hottest"
	else
		fail "AArch64: annotated, the sampled NEON add marked hottest" "exit $STATUS, va $va: $hot; $(head -c 300 "$TMP/stderr")"
	fi
	sve_section
else
	skip "AArch64 kernels" "clang cannot cross-build for aarch64-linux-gnu with ld.lld here"
fi

# ---- bad input ----
echo "not a program" >"$TMP/text"
check_error "not ELF: exit 1, said" 1 "text: not an ELF file" "$A" --simd "$TMP/text"
head -c 200 "$TMP/true" >"$TMP/cut"
check_error "truncated ELF: exit 1, said" 1 "cut: truncated or malformed ELF file" "$A" --simd "$TMP/cut"
check_error "unknown symbol: exit 1, named" 1 "true: no function 'no_such_function'" "$A" --simd "$TMP/true" no_such_function
strip -o "$TMP/stripped" "$TMP/true"
check_error "stripped binary: exit 1, said" 1 "stripped: no function symbols \(stripped binary\?\)" "$A" --simd "$TMP/stripped"
check_error "missing file: exit 1" 1 "nothere: No such file" "$A" --simd "$TMP/nothere"
check_error "--require bogus: usage error" 2 "bad --require 'bogus'" "$A" --simd --require bogus "$TMP/true"
check_error "--require without --simd: usage error" 2 "--require goes with --simd" "$A" --require avx2 "$TMP/x.tsv"
check_error "no samples file: usage error" 2 "one samples file expected" "$A"

# the same through annotating: perf script text naming such files
printf ' 5555deadbeef main+0x4 (%s)\n' "$TMP/text" >"$TMP/ne.txt"
check_error "annotate, not ELF: said with the samples lost, exit 1" 1 "text: not an ELF file \(1 samples not annotated\)" "$A" "$TMP/ne.txt"
printf ' 5555deadbeef main+0x4 (%s)\n' "$TMP/cut" >"$TMP/cut.txt"
check_error "annotate, truncated ELF: said, exit 1" 1 "cut: truncated or malformed ELF file \(1 samples" "$A" "$TMP/cut.txt"
printf ' 5555deadbeef main+0x4 (%s)\n' "$TMP/stripped" >"$TMP/st.txt"
check_error "annotate, stripped binary: said, exit 1" 1 "stripped: no function symbols \(stripped binary\?\): 1 samples not annotated" "$A" "$TMP/st.txt"
# a FIFO or a device named as the binary: refused, never opened for
# reading (a FIFO blocked the open for ever, issue 25)
mkfifo "$TMP/fifo"
check_error "--simd on a FIFO: refused, exit 1" 1 "fifo: not a regular file \(a FIFO\)" timeout 20 "$A" --simd "$TMP/fifo"
check_error "--simd on /dev/zero: refused, exit 1" 1 "/dev/zero: not a regular file \(a character device\)" timeout 20 "$A" --simd /dev/zero
printf ' 5555deadbeef main+0x4 (%s)\n' "$TMP/fifo" >"$TMP/fifo.txt"
check_error "annotate, a FIFO as the dso: refused, exit 1" 1 "fifo: not a regular file \(a FIFO\) \(1 samples not annotated\)" timeout 20 "$A" "$TMP/fifo.txt"
printf ' 5555deadbeef main+0x4 (/dev/zero)\n' >"$TMP/zero.txt"
check_error "annotate, /dev/zero as the dso: refused, exit 1" 1 "/dev/zero: not a regular file \(a character device\) \(1 samples" timeout 20 "$A" "$TMP/zero.txt"

# ---- annotate a recording ----
cat >"$TMP/div.c" <<'EOF2'
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) unsigned long chain(unsigned long x, unsigned long d, long n)
{
	for (long i = 0; i < n; i++)
		x = x / d + 12345;	/* a dependent division chain */
	return x;
}
int main(int argc, char **argv)
{
	printf("%lu\n", chain(argc > 1 ? strtoul(argv[1], 0, 10) : 123456789, argc > 5 ? 7 : 3, 40000000));
	return 0;
}
EOF2
$CC -O2 -g -fPIE -pie -o "$TMP/div" "$TMP/div.c" || { fail "build the workload"; exit 0; }
if [ ! -r /proc/sys/kernel/perf_event_paranoid ] || ! "$R" -q -o "$TMP/div.tsv" -- "$TMP/div" >/dev/null 2>"$TMP/rec.err"; then
	skip "annotate a recording" "profrec cannot record here: $(head -c 200 "$TMP/rec.err" 2>/dev/null)"
	exit 0
fi
# hot_in_chain TSV: the hottest instruction is a div or one of the two after it.
# cpu-clock samples come from a timer interrupt, so the pc they carry is
# the next instruction to retire when it fired: while a div stalls, that
# is the div, or the add after it that waits for its quotient, or -- when
# the div retires together with that add -- the compare after it. Any of
# the three is "in the division chain"; the exact-match check is the one
# beside perf annotate on the same recording, below.
hot_in_chain() {
	awk -F'\t' 'NR > 1 { if ($6 == "*") { print (p2 ~ /^div/ || p1 ~ /^div/ || $8 ~ /^div/) ? "yes" : "no: " p2 " / " p1 " / " $8; exit } p2 = p1; p1 = $8 }' "$1"
}
run "$A" "$TMP/div.tsv"
validate_tsv "annotate: valid profannotate TSV" profannotate "$TMP/stdout"
cp "$TMP/stdout" "$TMP/ann.tsv"
r=$(hot_in_chain "$TMP/ann.tsv")
if [ "$STATUS" = 0 ] && [ "$r" = yes ] && awk -F'\t' 'NR > 1 && $1 != "chain" { exit 1 }' "$TMP/ann.tsv"; then
	pass "PIE: the hottest instruction of chain is in its division chain"
else
	fail "PIE: the hottest instruction is in the division chain" "exit $STATUS, $r; $(head -c 300 "$TMP/stderr")"
fi
if grep -q "	div.c:[0-9]*	div" "$TMP/ann.tsv" || grep -q "/div.c:[0-9]*	div" "$TMP/ann.tsv"; then
	pass "source file:line from the debug information"
else
	fail "source file:line from the debug information" "$(sed -n 2,4p "$TMP/ann.tsv" | tr '\n\t' '| ')"
fi
s=$(awk -F'\t' 'NR > 1 { s += $5 } END { printf "%.0f", s }' "$TMP/ann.tsv")
if [ "$s" = 100 ]; then pass "the shares of a function's instructions add up to 100%"
else fail "the shares add up to 100%" "$s"; fi
run "$A" --human -s chain "$TMP/div.tsv"
if [ "$STATUS" = 0 ] && grep -q '^ chain  (' "$TMP/stdout" && grep -Eq '^ +[0-9.]+ \* :' "$TMP/stdout" &&
	grep -Eq '^ +: .*div\.c:[0-9]+$' "$TMP/stdout"; then
	pass "--human -s chain: title, source lines interleaved, the hottest marked"
else
	fail "--human -s chain" "exit $STATUS: $(head -c 400 "$TMP/stdout")"
fi
check_error "-s unknown function: exit 1, named" 1 "no function 'nosuch' in the files sampled" "$A" -s nosuch "$TMP/div.tsv"
check_error "-s a function without samples: exit 1" 1 "function 'main' has no samples" "$A" -s main "$TMP/div.tsv"

# non-PIE and a shared library
if $CC -O2 -g -no-pie -fno-pie -o "$TMP/divn" "$TMP/div.c" 2>/dev/null && "$R" -q -o "$TMP/divn.tsv" -- "$TMP/divn" >/dev/null 2>&1; then
	"$A" "$TMP/divn.tsv" >"$TMP/annn.tsv" 2>"$TMP/stderr"
	r=$(hot_in_chain "$TMP/annn.tsv")
	if [ "$r" = yes ]; then pass "non-PIE: the hottest instruction is in the division chain"
	else fail "non-PIE: the hottest instruction is in the division chain" "$r $(head -c 200 "$TMP/stderr")"; fi
fi
sed -n '/^__attribute__/,/^}/p' "$TMP/div.c" >"$TMP/libdiv.c"
sed '/^__attribute__/,/^}/d; 1i unsigned long chain(unsigned long, unsigned long, long);' "$TMP/div.c" >"$TMP/usediv.c"
if $CC -O2 -g -shared -fPIC -o "$TMP/libdiv.so" "$TMP/libdiv.c" &&
	$CC -O2 -o "$TMP/usediv" "$TMP/usediv.c" -L"$TMP" -ldiv -Wl,-rpath,"$TMP" &&
	"$R" -q -o "$TMP/lib.tsv" -- "$TMP/usediv" >/dev/null 2>&1; then
	"$A" "$TMP/lib.tsv" >"$TMP/annl.tsv" 2>"$TMP/stderr"
	r=$(hot_in_chain "$TMP/annl.tsv")
	if [ "$r" = yes ] && grep -q 'libdiv.so' "$TMP/annl.tsv"; then pass "shared library: the hottest instruction is in the division chain"
	else fail "shared library: the hottest instruction is in its division chain" "$r $(head -c 200 "$TMP/stderr")"; fi
else
	fail "build and record the shared-library workload"
fi

# Rust (issue 17): functions shown demangled (tests/tools/shapes.rs's trait
# method), -s takes either name, --no-demangle shows the symbol table's
if rust_shapes "Rust: functions demangled" "$TMP/shapes" &&
	"$R" -q -o "$TMP/rs.tsv" -- "$TMP/shapes" 0.5 >/dev/null 2>"$TMP/rec.err"; then
	run "$A" -n 5 "$TMP/rs.tsv"
	fns=$(awk -F'\t' 'NR > 1 { print $1 }' "$TMP/stdout" | sort -u)
	raw=$(echo "$fns" | rust_raw_names | head -n 3 | tr '\n' '|')
	if [ "$STATUS" = 0 ] && [ -z "$raw" ] && echo "$fns" | grep -qx '<main::Sq as main::Shape>::area'; then
		pass "Rust: the 5 hottest functions demangled, <main::Sq as main::Shape>::area among them"
	else
		fail "Rust: functions demangled" "exit $STATUS, raw: $raw; $(echo "$fns" | head -n 5 | tr '\n' '|')"
	fi
	run "$A" --no-demangle -s '<main::Sq as main::Shape>::area' "$TMP/rs.tsv"
	fns=$(awk -F'\t' 'NR > 1 { print $1 }' "$TMP/stdout" | sort -u)
	if [ "$STATUS" = 0 ] && echo "$fns" | grep -qx '_ZN40_$LT$main..Sq$u20$as$u20$main..Shape$GT$4area17h[0-9a-f]\{16\}E'; then
		pass "Rust: -s by the demangled name; --no-demangle shows the mangled one"
		check "Rust: -s by the mangled name" 0 "<main::Sq as main::Shape>::area" \
			sh -c "\"\$0\" -s '$fns' \"\$1\" | awk -F'\t' 'NR > 1 { print \$1 }' | sort -u" "$A" "$TMP/rs.tsv"
	else
		fail "Rust: -s by the demangled name; --no-demangle" "exit $STATUS: $fns $(head -c 300 "$TMP/stderr")"
	fi
elif [ -f "$TMP/rec.err" ]; then
	skip "Rust: functions demangled" "profrec cannot record here: $(head -c 200 "$TMP/rec.err")"
fi

# without debug information: addresses only, said once
$CC -O2 -o "$TMP/divnd" "$TMP/div.c" && "$R" -q -o "$TMP/nd.tsv" -- "$TMP/divnd" >/dev/null 2>&1
run "$A" "$TMP/nd.tsv"
if [ "$STATUS" = 0 ] && [ "$(grep -c 'no debug information: addresses only' "$TMP/stderr")" = 1 ] &&
	[ "$(hot_in_chain "$TMP/stdout")" = yes ]; then
	pass "no debug information: addresses only, said once"
else
	fail "no debug information: addresses only, said once" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
fi

# the binary changed since the recording: refused
$CC -O1 -g -o "$TMP/divnd" "$TMP/div.c"
check_error "build-id mismatch: refused, said" 1 "divnd: build-id [0-9a-f]+, but the recording has [0-9a-f]+: the file changed" "$A" "$TMP/nd.tsv"
# a file without a build-id at the path (a container's program, seen from
# outside its mount namespace, is another file or none): never annotated
# as the one recorded, and a missing one says where it may be
objcopy --remove-section .note.gnu.build-id "$TMP/divnd"
check_error "a file without a build-id at a path recorded with one: refused, said" 1 \
	"divnd: no build-id, but the recording has [0-9a-f]+: another file than the one recorded" "$A" "$TMP/nd.tsv"
rm -f "$TMP/divnd"
run "$A" "$TMP/nd.tsv"
if grep -q "divnd: No such file or directory ([0-9]* samples not annotated); if its process ran in a container or another mount namespace, the file was under its root" "$TMP/stderr"; then
	pass "a file not found: said where a container's is"
else
	fail "a file not found: said where a container's is" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
fi

# a recording of profrec before 0.4 (no ip column)
cut -f 1-9 "$TMP/div.tsv" >"$TMP/old.tsv"
check_error "a recording without the ip column: said" 1 "recorded without the ip column" "$A" "$TMP/old.tsv"
check_error "neither a recording nor perf script: said" 1 "neither profrec TSV with the ip column .* nor perf script text" "$A" "$TMP/text"

# ---- perf script text, beside perf annotate on the same perf recording ----
# perf_profile FILE: "address percent" of every instruction with samples,
# from perf annotate --stdio (its lines "  58.14 :   11c9:   add ...").
perf_profile() {
	awk '$2 == ":" && $1 ~ /^[0-9]+\.[0-9]+$/ && $1 + 0 > 0 && $3 ~ /^[0-9a-f]+:$/ { a = $3; sub(/:$/, "", a); print a, $1 }' "$1"
}
# our_profile TSV: the same from profannotate's TSV.
our_profile() {
	awk -F'\t' 'NR > 1 && $4 > 0 { print $3, $5 }' "$1"
}
# hottest PROFILE: the address with the largest percent (the first of a tie).
hottest() {
	sort -k2,2nr -k1,1 "$1" | awk 'NR == 1 { print $1 }'
}
# perf_record NAME ARGS...: perf record into $TMP/NAME.data with a fixed
# period (-c), so that perf annotate's percentages (of the period) and
# ours (of the sample count) are the same numbers. perf 6.1 here aborts
# now and then while it collects build-ids ("assertion failed at
# util/build-id.c"), seemingly when other perf runs touch ~/.debug at the
# same time: a failed recording is tried again, twice.
perf_record() {
	_n=$1
	shift
	for _try in 1 2 3; do
		perf record -q -e cpu-clock -c 250000 -o "$TMP/$_n.data" "$@" >/dev/null 2>"$TMP/perf.err" && return 0
	done
	return 1
}
if ! have perf; then
	skip "perf script input" "perf is not installed"
elif ! perf_record pdiv -- "$TMP/div"; then
	skip "perf script input" "perf cannot record here (uid $(id -u), perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)): $(head -c 200 "$TMP/perf.err")"
else
	# perf_same NAME WHAT PERF-SCRIPT-OPTIONS...: profannotate on the perf
	# script text of $TMP/NAME.data names the hottest instruction perf
	# annotate -s ${PSYM:-chain} names, with the same percentages. Both read the very same
	# samples and give each to the instruction at its pc, so the match is
	# exact, not "near": skid moved the pc before either tool saw it. A tie
	# (two instructions with the same count) is not a difference.
	perf_same() {
		_n=$1 _what=$2
		shift 2
		perf annotate --stdio -i "$TMP/$_n.data" -s "${PSYM:-chain}" >"$TMP/$_n.ann" 2>/dev/null
		perf_profile "$TMP/$_n.ann" >"$TMP/$_n.theirs"
		perf script -i "$TMP/$_n.data" "$@" >"$TMP/$_n.txt" 2>/dev/null
		run "$A" "$TMP/$_n.txt"	# the hottest function: the chain
		cp "$TMP/stdout" "$TMP/$_n.tsv"
		our_profile "$TMP/$_n.tsv" >"$TMP/$_n.ours"
		_t=$(hottest "$TMP/$_n.theirs") _o=$(hottest "$TMP/$_n.ours")
		_tp=$(awk -v a="$_t" '$1 == a { print $2 }' "$TMP/$_n.theirs")
		_op=$(awk -v a="$_o" '$1 == a { print $2 }' "$TMP/$_n.theirs")
		_hot=$(awk -F'\t' '$6 == "*" { print $3 }' "$TMP/$_n.tsv")
		if [ "$STATUS" != 0 ] || [ ! -s "$TMP/$_n.theirs" ]; then
			fail "$_what" "exit $STATUS, perf annotate: $(wc -l <"$TMP/$_n.theirs") lines; $(head -c 300 "$TMP/stderr")"
		elif [ "$_o" != "$_t" ] && [ "$_op" != "$_tp" ]; then
			fail "$_what" "ours $_o ($_op% in perf's), perf annotate's $_t ($_tp%)"
		elif [ "$_hot" != "$_o" ] || [ "$(hot_in_chain "$TMP/$_n.tsv")" != yes ]; then
			fail "$_what" "the marked instruction $_hot is not the hottest $_o or not in the division chain"
		elif ! cmp -s "$TMP/$_n.ours" "$TMP/$_n.theirs"; then
			fail "$_what" "percentages differ: ours $(tr '\n' ' ' <"$TMP/$_n.ours"), perf's $(tr '\n' ' ' <"$TMP/$_n.theirs")"
		else
			pass "$_what (hottest $_o, $_tp%)"
		fi
	}
	perf_same pdiv "PIE, perf script -F ip,sym,symoff,dso: perf annotate's hottest instruction and shares" \
		-F ip,sym,symoff,dso
	perf_same pdiv "PIE, perf script with its default fields: the same" 
	perf_same pdiv "PIE, -F ip,sym,dso --show-mmap-events (placed by the mapping): the same" \
		-F ip,sym,dso --show-mmap-events
	if perf_record pdivn -- "$TMP/divn"; then
		perf_same pdivn "non-PIE, -F ip,dso (the pc as is): perf annotate's hottest instruction" -F ip,dso
	fi
	if perf_record plib -- "$TMP/usediv"; then
		perf_same plib "shared library, -F ip,sym,symoff,dso: perf annotate's hottest instruction" \
			-F ip,sym,symoff,dso
	fi
	# C++: perf script prints demangled names without parameters
	cat >"$TMP/cxx.cc" <<'EOF2'
#include <cstdio>
namespace demo {
struct Engine {
	__attribute__((noinline)) unsigned long chain(unsigned long x, unsigned long d, long n) const;
};
unsigned long Engine::chain(unsigned long x, unsigned long d, long n) const
{
	for (long i = 0; i < n; i++)
		x = x / d + 12345;	/* a dependent division chain */
	return x;
}
}
int main(int argc, char **)
{
	demo::Engine e;
	std::printf("%lu\n", e.chain(123456789, argc > 5 ? 7 : 3, 40000000));
}
EOF2
	if "${CXX:-c++}" -O2 -g -o "$TMP/cxx" "$TMP/cxx.cc" 2>/dev/null && perf_record pcxx -- "$TMP/cxx"; then
		PSYM=demo::Engine::chain perf_same pcxx \
			"C++, -F ip,sym,symoff,dso: demo::Engine::chain found by its demangled name" -F ip,sym,symoff,dso
	fi
	if perf_record pg -g -- "$TMP/div"; then
		perf_same pg "call chains (-g), perf script's default fields: the first frame counted" 
	fi

	perf script -i "$TMP/pdiv.data" -F ip,sym,dso >"$TMP/nosymoff.txt" 2>/dev/null
	check_error "PIE without symoff or mmap events: not placed, said" 1 \
		"samples in .*/div not placed: a PIE or shared library needs sym\+offset" "$A" "$TMP/nosymoff.txt"
	perf script -i "$TMP/pdiv.data" -F comm,tid,sym,dso >"$TMP/noip.txt" 2>/dev/null
	check_error "perf script text without the ip field: said" 1 \
		"noip.txt: perf script text without the ip field: perf script -F ip,sym,symoff,dso" "$A" "$TMP/noip.txt"
	perf script -i "$TMP/pdiv.data" -F ip,sym >"$TMP/nodso.txt" 2>/dev/null
	check_error "perf script text without the dso field: said" 1 \
		"nodso.txt: perf script text without the dso field" "$A" "$TMP/nodso.txt"
	check_error "perf script text without build-ids: said" 0 "no build-id in the input" \
		"$A" "$TMP/pdiv.txt"

	# build-ids: perf buildid-list before the samples; the binary rebuilt
	cp "$TMP/div" "$TMP/pdivb"
	perf_record pdivb -- "$TMP/pdivb"
	{ perf buildid-list -i "$TMP/pdivb.data"; perf script -i "$TMP/pdivb.data" -F ip,sym,symoff,dso; } >"$TMP/bid.txt" 2>/dev/null
	run "$A" - <"$TMP/bid.txt"
	if [ "$STATUS" = 0 ] && ! grep -q 'no build-id' "$TMP/stderr" && [ "$(hot_in_chain "$TMP/stdout")" = yes ]; then
		pass "perf buildid-list lines before the samples (stdin): checked, annotated"
	else
		fail "perf buildid-list lines before the samples" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
	fi
	$CC -O1 -g -o "$TMP/pdivb" "$TMP/div.c"
	check_error "perf script input, binary rebuilt since (buildid-list): refused" 1 \
		"pdivb: build-id [0-9a-f]+, but the recording has [0-9a-f]+: the file changed" "$A" "$TMP/bid.txt"
	cp "$TMP/div" "$TMP/pdivm"
	if perf_record pdivm --buildid-mmap -- "$TMP/pdivm"; then
		perf script -i "$TMP/pdivm.data" -F ip,sym,symoff,dso --show-mmap-events >"$TMP/bidm.txt" 2>/dev/null
		$CC -O1 -g -o "$TMP/pdivm" "$TMP/div.c"
		check_error "perf record --buildid-mmap, binary rebuilt since (mmap events): refused" 1 \
			"pdivm: build-id [0-9a-f]+, but the recording has" "$A" "$TMP/bidm.txt"
	else
		skip "build-ids from mmap events" "perf record --buildid-mmap is not supported here"
	fi
fi
