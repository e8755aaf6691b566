# profcompress: selection syntax, round trips of every codec and level on
# edge inputs, corrupt input, plausibility, TSV validity, options.
. "$(dirname "$0")/lib.sh"

P=$BIN/profcompress
[ -x "$P" ] || { fail "profcompress built" "no $P"; exit 0; }
T=0.002	# seconds per cell: these tests check behaviour, not speed

# Inputs: edge cases and a text-like sample.
: >"$TMP/empty"
printf 'x' >"$TMP/one"
head -c 20000 /dev/urandom >"$TMP/random"
awk 'BEGIN { for (i = 0; i < 1500; i++) print "GET /index.html HTTP/1.1 200 " i % 7 }' >"$TMP/repetitive"
awk 'BEGIN { srand(7); for (i = 0; i < 1500; i++) printf "%s %d %s\n", (i % 3 ? "alpha" : "beta"), int(rand() * 1000), substr("qwertyuiopasdfghjkl", 1 + i % 11) }' >"$TMP/text"

# same_out NAME EXPECTED ACTUAL: two strings are equal.
same_out() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "expected '$2', got '$3'"
	fi
}

field() { # field FILE CODEC LEVEL COLUMN: a field of the row codec/level
	awk -F'\t' -v c="$2" -v l="$3" -v col="$4" '
		/^#/ { next }
		NR == 1 || $1 == "input" { for (i = 1; i <= NF; i++) idx[$i] = i; next }
		$2 == c && $3 == l { print $idx[col]; exit }' "$1"
}

# ---- round trips of every codec at every level ("all") on edge inputs ----
# (the empty input is refused below; test_codec round-trips it in every codec)
spec=all
[ -n "$SANITIZE" ] && spec='memcpy/lz4:1,64/lz4hc:1,12/lz4f:1,12/snappy/zstd:-7,1,19/libdeflate:0,12/zlib:0,9/gzip:1/brotli:0,11/bzip2:1,9/xz:0,6'
for f in one random repetitive text; do
	run "$P" -q -t $T -e "$spec" "$TMP/$f"
	bad=$(awk -F'\t' '!/^#/ && $1 != "input" && $14 != "ok"' "$TMP/stdout" | head -n 3)
	rows=$(grep -vc '^#' "$TMP/stdout")
	if [ "$STATUS" = 0 ] && [ -z "$bad" ] && [ "$rows" -gt 20 ]; then
		pass "every codec and level round-trips: $f"
	else
		fail "every codec and level round-trips: $f" "exit $STATUS, $rows lines; $bad $(head -c 300 "$TMP/stderr")"
	fi
	cp "$TMP/stdout" "$TMP/all-$f.tsv"
done
validate_tsv "output is valid profcompress TSV" profcompress "$TMP/all-text.tsv"

# Block mode: a size that does not divide the input, every codec.
run "$P" -q -t $T -e "$spec" -b 7K "$TMP/text"
bad=$(awk -F'\t' '!/^#/ && $1 != "input" && ($14 != "ok" || $4 != 7168)' "$TMP/stdout" | head -n 2)
if [ "$STATUS" = 0 ] && [ -z "$bad" ]; then
	pass "block mode with a partial last block round-trips"
else
	fail "block mode with a partial last block round-trips" "exit $STATUS: $bad"
fi
validate_tsv "block-mode output is valid TSV" profcompress "$TMP/stdout"

# The validator rejects hand-broken output.
awk -F'\t' 'BEGIN { OFS = "\t" } !/^#/ && $1 != "input" { $6 = "12x" } { print }' \
	"$TMP/all-text.tsv" >"$TMP/broken1.tsv"
check_status "validator rejects a non-numeric comp_bytes" 1 "$TSVCHECK" profcompress "$TMP/broken1.tsv"
sed '5s/\t[^\t]*$//' "$TMP/all-text.tsv" >"$TMP/broken2.tsv"
check_status "validator rejects a row missing a field" 1 "$TSVCHECK" profcompress "$TMP/broken2.tsv"

# ---- plausibility ----
t=$TMP/all-repetitive.tsv
r=$TMP/all-random.tsv
assert "memcpy row: ratio 1, size unchanged, speed > 100 MB/s" awk -F'\t' '
	!/^#/ && $2 == "memcpy" { n++; if ($7 != "1.000" || $6 != $5 || $8 < 100 || $9 < 100) bad = 1 }
	END { exit bad || n != 1 }' "$t"
# level 0 of the deflate codecs stores: ratio just under 1
assert "repetitive input: every codec's ratio is at least 2 (stored levels 1)" awk -F'\t' '
	!/^#/ && $1 != "input" && $2 != "memcpy" {
		n++
		stored = $3 == 0 && ($2 == "zlib" || $2 == "gzip" || $2 == "libdeflate")
		if (stored ? $7 != "1.000" : $7 < 2) { print; bad = 1 }
	}
	END { exit bad || n < 20 }' "$t"
assert "random input: every ratio is about 1 (0.95 to 1.01)" awk -F'\t' '
	!/^#/ && $1 != "input" { n++; if ($7 < 0.95 || $7 > 1.01) { print; bad = 1 } }
	END { exit bad || n < 20 }' "$r"
assert "speeds, CPU speeds and sizes are filled in on ok rows" awk -F'\t' '
	!/^#/ && $1 != "input" { if ($6 == "" || $8 == "" || $9 == "" || $10 == "" || $11 == "" || $8 <= 0 || $9 <= 0) { print; bad = 1 } }
	END { exit bad }' "$t"
assert "memory: zstd and zlib report their state, lz4 its 16 KiB state" awk -F'\t' '
	!/^#/ && $2 == "zstd" && $12 <= 0 { bad = 1 }
	!/^#/ && $2 == "zlib" && ($12 <= 100000 || $13 <= 1000) { bad = 1 }
	!/^#/ && $2 == "lz4" && $12 != 16416 { bad = 1 }
	END { exit bad }' "$t"

# ---- sizes equal the reference tools' ----
# bench_size TOOL ARGS...: the compressed size a CLI benchmark reports
bench_size() {
	"$@" -i0 "$TMP/text" 2>&1 | tr '\r' '\n' | grep -- '->' | tail -n 1 | sed 's/.*-> *\([0-9]*\).*/\1/'
}
if command -v zstd >/dev/null 2>&1; then
	run "$P" -q -t $T -e zstd:1,3,19,-5 "$TMP/text"
	ok=1 detail=
	for l in 1 3 19 -5; do
		case $l in -*) want=$(bench_size zstd -b --fast=${l#-}) ;; *) want=$(bench_size zstd -b$l) ;; esac
		got=$(field "$TMP/stdout" zstd "$l" comp_bytes)
		[ -n "$want" ] && [ "$want" = "$got" ] || { ok=0; detail="$detail level $l: $got vs zstd -b $want;"; }
	done
	[ $ok = 1 ] && pass "zstd sizes equal zstd -b's" || fail "zstd sizes equal zstd -b's" "$detail"
else
	skip "zstd sizes equal zstd -b's" "zstd not installed"
fi
if command -v lz4 >/dev/null 2>&1; then
	run "$P" -q -t $T -e lz4:1,6/lz4hc:9/lz4f:1,9 "$TMP/text"
	got="$(field "$TMP/stdout" lz4 1 comp_bytes) $(field "$TMP/stdout" lz4hc 9 comp_bytes)"
	got="$got $(field "$TMP/stdout" lz4f 1 comp_bytes) $(field "$TMP/stdout" lz4f 9 comp_bytes)"
	# the CLI's --fast=N is acceleration N+1
	got="$got $(field "$TMP/stdout" lz4 6 comp_bytes)"
	want="$(bench_size lz4 -b1) $(bench_size lz4 -b9) $(lz4 -1 -c "$TMP/text" | wc -c) $(lz4 -9 -c "$TMP/text" | wc -c) $(bench_size lz4 -b --fast=5)"
	[ "$got" = "$want" ] && pass "lz4/lz4hc/lz4f sizes equal lz4 -b1/-b9/--fast=5 and lz4 -1/-9" ||
		fail "lz4/lz4hc/lz4f sizes equal lz4 -b1/-b9/--fast=5 and lz4 -1/-9" "got $got, want $want"
fi
if command -v xz >/dev/null 2>&1 && "$P" -l | grep -q '^xz '; then
	run "$P" -q -t $T -e xz:1,6 "$TMP/text"
	got="$(field "$TMP/stdout" xz 1 comp_bytes) $(field "$TMP/stdout" xz 6 comp_bytes)"
	want="$(xz -1 -T1 -c "$TMP/text" | wc -c) $(xz -6 -T1 -c "$TMP/text" | wc -c)"
	[ "$got" = "$want" ] && pass "xz sizes equal xz -1/-6" || fail "xz sizes equal xz -1/-6" "got $got, want $want"
fi

# ---- corrupt input: decode-only on damaged streams fails cleanly ----
if command -v zstd >/dev/null 2>&1; then
	zstd -q -3 -c "$TMP/text" >"$TMP/good.zst"
	run "$P" -q -t $T --decode-only -e zstd "$TMP/good.zst"
	if [ "$STATUS" = 0 ] && [ "$(field "$TMP/stdout" zstd - orig_bytes)" = "$(wc -c <"$TMP/text" | tr -d ' ')" ]; then
		pass "--decode-only finds the decompressed size of a .zst file"
	else
		fail "--decode-only finds the decompressed size of a .zst file" "exit $STATUS $(cat "$TMP/stderr")"
	fi
	head -c 2000 "$TMP/good.zst" >"$TMP/trunc.zst"
	check_error "truncated zstd stream: error, exit 1" 1 "trunc.zst: zstd: decompression failed: .*truncated" \
		"$P" -q -t $T --decode-only -e zstd "$TMP/trunc.zst"
	assert "failed row has status failed and a flag" awk -F'\t' '!/^#/ && $2 == "zstd" { ok = $14 == "failed" && $15 == "decomp-error" } END { exit !ok }' "$TMP/stdout"
fi
# Streams written by the reference CLIs decode (decode-only), sizes found.
tsize=$(wc -c <"$TMP/text" | tr -d ' ')
for pair in gzip:gzip xz:xz bzip2:bzip2 lz4:lz4f zstd:zstd; do
	tool=${pair%%:*} codec=${pair#*:}
	command -v "$tool" >/dev/null 2>&1 && "$P" -l | grep -q "^$codec " || continue
	"$tool" -c <"$TMP/text" >"$TMP/cli.$tool"
	run "$P" -q -t $T --decode-only -e "$codec" "$TMP/cli.$tool"
	[ "$STATUS" = 0 ] && [ "$(field "$TMP/stdout" "$codec" - orig_bytes)" = "$tsize" ] &&
		pass "--decode-only reads $tool's output" ||
		fail "--decode-only reads $tool's output" "exit $STATUS $(head -c 300 "$TMP/stderr")"
done
gzip -c "$TMP/text" >"$TMP/good.gz"
size=$(wc -c <"$TMP/good.gz")
# flip one bit in the middle of the deflate data: the CRC-32 must catch it
{ head -c $((size / 2)) "$TMP/good.gz"; head -c $((size / 2 + 1)) "$TMP/good.gz" | tail -c 1 | tr '\000-\377' '\001-\377\000'
  tail -c $((size - size / 2 - 1)) "$TMP/good.gz"; } >"$TMP/flip.gz"
check_error "bit-flipped gzip stream: error, exit 1" 1 "flip.gz: gzip: decompression failed" \
	"$P" -q -t $T --decode-only -e gzip "$TMP/flip.gz"
check_error "garbage to every decoder: errors, no crash" 1 "random: (xz|bzip2|brotli|lz4f|zstd|gzip|snappy|zlib|libdeflate): decompression failed" \
	"$P" -q -t $T --decode-only -e "zstd/gzip/zlib/lz4f/$("$P" -l | awk '$1 ~ /^(xz|bzip2|brotli|snappy|libdeflate)$/ { printf "%s/", $1 }')memcpy" "$TMP/random"
check_error "--decode-only refuses the size-less lz4 block format" 2 "lz4 records no decompressed size" \
	"$P" --decode-only -e lz4 "$TMP/good.gz"

# ---- selection syntax ----
check_error "unknown codec" 2 "-e: unknown codec 'nope'" "$P" -e nope "$TMP/one"
check_error "bad level" 2 "-e: zstd: bad level 'x'" "$P" -e zstd:1,x "$TMP/one"
check_error "level out of range" 2 "-e: zstd: level 23 out of range" "$P" -e zstd:23 "$TMP/one"
check_error "level out of range in a range" 2 "-e: zlib: level 10 out of range 0..9" "$P" -e zlib:1-10 "$TMP/one"
check_error "empty range" 2 "-e: zstd: empty range 9-1" "$P" -e zstd:9-1 "$TMP/one"
check_error "missing level" 2 "-e: zstd: missing level" "$P" -e zstd: "$TMP/one"
check_error "levels on memcpy" 2 "-e: memcpy has no levels" "$P" -e memcpy:1 "$TMP/one"
check_error "empty item" 2 "-e: empty item" "$P" -e zstd//lz4 "$TMP/one"
check_error "trailing junk" 2 "-e: lz4: unexpected ';2'" "$P" -e 'lz4:1;2' "$TMP/one"
check_error "alias with a level" 2 "-e: unknown codec 'fast'" "$P" -e fast:1 "$TMP/one"
check_error "bad --stat" 2 "--stat: expected min, median or mean" "$P" --stat max "$TMP/one"
check_error "bad -t" 2 "-t: bad duration" "$P" -t 0 "$TMP/one"
check_error "bad -b" 2 "-b: bad block size" "$P" -b 12Q "$TMP/one"
check_error "bad -T" 2 "-T: bad thread count" "$P" -T 0 "$TMP/one"
check_error "-D with a codec without dictionaries" 2 "-D: lz4 does not support dictionaries" \
	"$P" -D "$TMP/text" -e lz4 "$TMP/one"
check_error "bad --recommend" 2 "--recommend: unknown metric" "$P" --recommend 'speed>1' "$TMP/one"
check_error "missing input" 1 "nosuch: No such file" "$P" -q -t $T -e memcpy "$TMP/nosuch"

# ---- empty input: an error at once, not a benchmark of nothing ----
run sh -c 'exec "$0" -q -e lz4/zstd:1 </dev/null' "$P"
same_out "empty stdin: error, exit 1, no table" "1|profcompress: <stdin>: empty input|" \
	"$STATUS|$(cat "$TMP/stderr")|$(cat "$TMP/stdout")"
run "$P" -q -t $T -e lz4/zstd:1 "$TMP/one" "$TMP/empty" "$TMP/text"
same_out "an empty file among good ones: reported, the rest benchmarked, exit 1" \
	"1|profcompress: $TMP/empty: empty input|one lz4|one zstd|text lz4|text zstd" \
	"$STATUS|$(cat "$TMP/stderr")|$(awk -F'\t' '!/^#/ && $1 != "input" { sub(".*/", "", $1); print $1, $2 }' "$TMP/stdout" | paste -sd'|')"
run "$P" -q -t $T -e lz4 --join "$TMP/empty" "$TMP/one"
same_out "--join with an empty file: reported, exit 1" "1|profcompress: $TMP/empty: empty input" \
	"$STATUS|$(cat "$TMP/stderr")"

# ---- -v names cells as -e does and says how each side was timed ----
run "$P" -v -t $T -e memcpy/lz4:1 "$TMP/text"
if [ "$STATUS" = 0 ] && ! grep -q -- '-2147483648' "$TMP/stderr" &&
	grep -q "text: memcpy: compression: [0-9]* batch" "$TMP/stderr" &&
	grep -q "text: lz4:1: decompression: [0-9]* batch" "$TMP/stderr"; then
	pass "-v: memcpy and lz4:1 as -e spells them, no level sentinel"
else
	fail "-v: memcpy and lz4:1 as -e spells them, no level sentinel" "$(head -c 400 "$TMP/stderr")"
fi

# ---- progress: on a terminal only, cleared at the end ----
if command -v script >/dev/null 2>&1; then
	script -qec "'$P' -t $T -e lz4:1,2/zstd:1 -o '$TMP/tty.tsv' '$TMP/text'" /dev/null \
		</dev/null >"$TMP/tty.out" 2>&1
	st=$?
	# the line rewritten in place with \r, then blanked out: "\r   \r" after
	# the last cell (then at most the "flagged suspect" note of a busy machine)
	if [ $st = 0 ] && tr '\r' '\n' <"$TMP/tty.out" | grep -q 'profcompress: cell 1/3: .*text: lz4:1$' &&
		tr '\r' '\n' <"$TMP/tty.out" | grep -q 'profcompress: cell 3/3: .*text: zstd:1$' &&
		tr '\r' '\n' <"$TMP/tty.out" | sed -n '/cell 3\/3/{n;p;}' | grep -Eqx ' {20,}' &&
		[ -z "$(tr '\r' '\n' <"$TMP/tty.out" | sed '/^ *$/d;/cell [1-3]\/3/d;/flagged suspect/d')" ]; then
		pass "progress on a terminal: cell n/N, codec and level, cleared at the end"
	else
		fail "progress on a terminal: cell n/N, codec and level, cleared at the end" \
			"exit $st: $(od -c "$TMP/tty.out" | head -n 8 | tr '\n' '|')"
	fi
	validate_tsv "progress leaves the table alone" profcompress "$TMP/tty.tsv"
	# -v lines are whole lines: the progress line is blanked out first
	script -qec "'$P' -v -t $T -e lz4:1/zstd:1 -o '$TMP/tty.tsv' '$TMP/text'" /dev/null \
		</dev/null >"$TMP/tty.out" 2>&1
	tr '\r' '\n' <"$TMP/tty.out" >"$TMP/tty.lines"
	if [ "$(grep -c '^profcompress: [^ ]*text: \(lz4\|zstd\):1: \(de\)*compression: ' "$TMP/tty.lines")" = 4 ] &&
		! grep -q 'cell [12]/2.*profcompress' "$TMP/tty.lines" &&
		grep -q 'cell 2/2: .*text: zstd:1$' "$TMP/tty.lines"; then
		pass "-v on a terminal: its lines and the progress line do not mix"
	else
		fail "-v on a terminal: its lines and the progress line do not mix" "$(head -c 400 "$TMP/tty.lines" | tr '\n' '|')"
	fi
	script -qec "'$P' -q -t $T -e lz4:1 -o '$TMP/tty.tsv' '$TMP/text'" /dev/null \
		</dev/null >"$TMP/tty.out" 2>&1
	same_out "-q: no progress on a terminal" "" "$(cat "$TMP/tty.out")"
else
	skip "progress on a terminal" "script (util-linux) not installed"
fi
run "$P" -t $T -e lz4:1,2/zstd:1 "$TMP/text"
# (a loaded machine may add the "flagged suspect" note, never anything else)
same_out "no progress when stderr is not a terminal" "0|" \
	"$STATUS|$(grep -v '^profcompress: [0-9]* rows* flagged suspect' "$TMP/stderr")"

# ---- listing, ranges, aliases ----
run "$P" -l
if [ "$STATUS" = 0 ] && grep -q "^zstd .*$(zstd --version 2>/dev/null | sed 's/.*v\([0-9.]*\).*/\1/')" "$TMP/stdout" &&
	grep -q '^alias fast = ' "$TMP/stdout" && grep -q '^memcpy ' "$TMP/stdout"; then
	pass "-l lists codecs with library versions and the aliases"
else
	fail "-l lists codecs with library versions and the aliases" "$(head -c 300 "$TMP/stdout")"
fi
run "$P" -q -t $T -e zstd:-3--1,3/zlib:1-3,2 "$TMP/one"
cp "$TMP/stdout" "$TMP/levels.tsv"
check "levels: lists, negative ranges, duplicates once" 0 "zstd -3
zstd -2
zstd -1
zstd 3
zlib 1
zlib 2
zlib 3" awk -F'\t' '!/^#/ && $1 != "input" { print $2, $3 }' "$TMP/levels.tsv"

# ---- metadata ----
run "$P" -q -t $T -e memcpy "$TMP/text"
sha=$(sha256sum "$TMP/text" | cut -d' ' -f1)
if grep -q "^# .*input.1.sha256=$sha" "$TMP/stdout" && grep -q '^# source=profcompress cpu=.* cores=[0-9]* kernel=.* loadavg=' "$TMP/stdout" &&
	grep -q '^# .*lib.zstd=' "$TMP/stdout"; then
	pass "metadata: machine, library versions, input sha256"
else
	fail "metadata: machine, library versions, input sha256" "$(grep '^#' "$TMP/stdout" | head -c 400)"
fi
# one lib.NAME per library of -l's codecs; the optional ones -l lacks are not_built
"$P" -l >"$TMP/list"
want="lib.glibc lib.lz4 lib.zstd lib.zlib" missing=
for pair in libdeflate:libdeflate snappy:snappy brotli:brotli bzip2:bzip2 xz:liblzma; do
	if grep -q "^${pair%%:*} " "$TMP/list"; then
		want="$want lib.${pair#*:}"
	else
		missing="$missing,${pair%%:*}"
	fi
done
got=$(grep '^# lib\.' "$TMP/stdout" | tr ' ' '\n' | sed -n 's/^\(lib\.[a-z0-9]*\)=[0-9].*/\1/p' | paste -sd' ')
got_missing=$(grep '^# lib\.' "$TMP/stdout" | tr ' ' '\n' | sed -n 's/^not_built=/,/p')
same_out "metadata: a version for each library of the codecs built, the others not_built" \
	"$want|$missing" "$got|$got_missing"
gzip -c "$TMP/text" >"$TMP/text.gz"
run "$P" -q -t $T -e lz4 "$TMP/text.gz"
[ "$(field "$TMP/stdout" lz4 1 orig_bytes)" = "$(wc -c <"$TMP/text" | tr -d ' ')" ] &&
	pass "compressed input is benchmarked on its content" ||
	fail "compressed input is benchmarked on its content" "$(tail -n 1 "$TMP/stdout")"

# ---- options ----
run "$P" -q -t $T -e lz4/zstd "$TMP/text" "$TMP/one"
[ "$(awk -F'\t' '!/^#/ && $1 != "input"' "$TMP/stdout" | wc -l)" = 4 ] &&
	pass "several inputs: rows for each" || fail "several inputs: rows for each" "$(cat "$TMP/stdout")"
run "$P" -q -t $T -e lz4 --join "$TMP/text" "$TMP/one"
want=$(( $(wc -c <"$TMP/text") + 1 ))
[ "$(awk -F'\t' '!/^#/ && $2 == "lz4" { print $1, $5 }' "$TMP/stdout")" = "joined:2 $want" ] &&
	pass "--join benchmarks the concatenation" || fail "--join benchmarks the concatenation" "$(tail -n 1 "$TMP/stdout")"
run "$P" -q -t $T -e zstd:1/zlib:6 -D "$TMP/text" "$TMP/repetitive"
[ "$STATUS" = 0 ] && grep -q '^# .*dict_sha256=' "$TMP/stdout" &&
	pass "-D dictionary with zstd and zlib" || fail "-D dictionary with zstd and zlib" "exit $STATUS $(cat "$TMP/stderr")"
# (bzip2: a codec without a reusable state, when this build has it)
grep -q '^bzip2 ' "$TMP/list" && with_bzip2=/bzip2:1 || with_bzip2=
run "$P" -q -t $T -T 2 -b 4K -e lz4/zstd:1$with_bzip2 "$TMP/text"
[ "$STATUS" = 0 ] && ! awk -F'\t' '!/^#/ && $1 != "input" && $14 != "ok"' "$TMP/stdout" | grep -q . &&
	grep -q '^# .*threads=2' "$TMP/stdout" &&
	pass "-T 2 with blocks round-trips" || fail "-T 2 with blocks round-trips" "exit $STATUS $(cat "$TMP/stderr")"
check_error "-T beyond the block count warns" 0 "only 1 block for 4 threads" "$P" -t $T -T 4 -e lz4 "$TMP/one"
# --batch sets the length of a timed batch: 50 ms of work in 20 ms batches
# is a handful of batches (a few more while calibrating), in the default
# 1-2 ms batches dozens. The metadata records it.
batches() { sed -n "s/.*: $1: \([0-9]*\) batch.*/\1/p" "$TMP/stderr"; }
run "$P" -v -t 0.05 --batch 20ms -e lz4 "$TMP/text"
if [ "$STATUS" = 0 ] && [ "$(batches compression)" -le 8 ] && [ "$(batches decompression)" -le 8 ] &&
	grep -q '^# .* stat=min time_s=0.05 batch_s=0.02 ' "$TMP/stdout"; then
	pass "--batch 20ms: a few 20 ms batches, batch_s=0.02 in the metadata"
else
	fail "--batch 20ms: a few 20 ms batches, batch_s=0.02 in the metadata" \
		"exit $STATUS: $(batches compression) $(batches decompression) batches; $(head -n 1 "$TMP/stdout")"
fi
# (0.2 s: dozens of batches even when a loaded host takes half the time)
run "$P" -v -t 0.2 -e lz4 "$TMP/text"
if [ "$STATUS" = 0 ] && [ "$(batches compression)" -ge 10 ] && [ "$(batches decompression)" -ge 10 ] &&
	! grep -q '^# .*batch_s=' "$TMP/stdout"; then
	pass "default batches: many short ones, no batch_s in the metadata"
else
	fail "default batches: many short ones, no batch_s in the metadata" \
		"exit $STATUS: $(batches compression) $(batches decompression) batches; $(head -n 1 "$TMP/stdout")"
fi
check_error "bad --batch" 2 "--batch: bad duration" "$P" --batch 0 "$TMP/one"
# --stat picks the statistic of the batches the table reports, recorded in
# the metadata: the default is the fastest batch.
for s in default median mean; do
	if [ $s = default ]; then
		s=min
		run "$P" -q -t $T -e lz4 "$TMP/text"
	else
		run "$P" -q -t $T --stat $s -e lz4 "$TMP/text"
	fi
	if [ "$STATUS" = 0 ] && grep -q "^# source=profcompress .* stat=$s " "$TMP/stdout" &&
		[ "$(grep -c '^# .* stat=' "$TMP/stdout")" = 1 ] &&
		[ "$(field "$TMP/stdout" lz4 1 status)" = ok ]; then
		pass "--stat $s: stat=$s in the metadata"
	else
		fail "--stat $s: stat=$s in the metadata" "exit $STATUS: $(head -n 1 "$TMP/stdout")"
	fi
done
run "$P" -q -t $T -e memcpy/lz4/zstd:1,19 -o "$TMP/out.tsv" "$TMP/text"
[ "$STATUS" = 0 ] && [ ! -s "$TMP/stdout" ] && [ -s "$TMP/out.tsv" ] &&
	pass "-o writes the file, nothing on stdout" || fail "-o writes the file, nothing on stdout" "exit $STATUS"
validate_tsv "-o output is valid TSV" profcompress "$TMP/out.tsv"
run "$P" -q -t $T --human -e memcpy/lz4/zstd:1 "$TMP/text"
[ "$STATUS" = 0 ] && head -n 1 "$TMP/stdout" | grep -q '^input  *codec  *level  *ratio  *comp MB/s.*flags$' &&
	[ "$(wc -l <"$TMP/stdout")" = 4 ] && pass "--human table" || fail "--human table" "$(head -n 2 "$TMP/stdout")"
run "$P" -q -t $T --pareto -e lz4/zstd:1,19/zlib:1 "$TMP/text"
assert "--pareto flags the frontier: zstd:19 (best ratio) is on it" awk -F'\t' '
	!/^#/ && $2 == "zstd" && $3 == 19 { ok = $15 ~ /pareto-comp/ && $15 ~ /pareto-decomp/ } END { exit !ok }' "$TMP/stdout"
run "$P" -q -t $T --recommend 'cspeed>=0.001,ratio>=1' -e lz4/zstd:1,19 "$TMP/text"
cp "$TMP/stdout" "$TMP/rec.txt"
check "--recommend picks the best ratio meeting the constraints" 0 "zstd:19" cut -f2 "$TMP/rec.txt"
check_error "--recommend with nothing meeting it: exit 1" 1 "no codec and level meets" \
	"$P" -q -t $T --recommend 'ratio>=1000' -e lz4 "$TMP/text"

# ---- terminals (issue 24 point 5): progress on a terminal's stderr only; tables fit ----
ONTTY="python3 $TESTS/tools/on-tty.py"
if ! python3 -c 'import pty, termios' 2>/dev/null; then
	skip "terminals" "no python3 with pty and termios"
else
	cp "$TMP/text" "$TMP/an-input-with-a-name-far-too-long-for-the-terminal.txt"
	$ONTTY 72 2 "$P" -t $T -e lz4/zstd:1 -o "$TMP/res.tsv" "$TMP/text" >"$TMP/tty.out" 2>/dev/null
	# a busy machine adds the "flagged suspect" note after the last cell,
	# a message (whole lines, not cut to the terminal): the progress only
	tr '\r' '\n' <"$TMP/tty.out" | grep -v 'flagged suspect' >"$TMP/tty.lines"
	if grep -q "$(printf '\rprofcompress: cell 1/2: ')" "$TMP/tty.out" &&
		grep -q "$(printf '\rprofcompress: cell 2/2: ')" "$TMP/tty.out" &&
		[ "$(awk '{ if (length($0) > 71) n++ } END { print n + 0 }' "$TMP/tty.lines")" = 0 ] &&
		tail -n 1 "$TMP/tty.lines" | grep -q '^ *$'; then
		pass "progress on a terminal's stderr: one line per cell, narrower than the terminal, blanked at the end"
	else
		fail "progress on a terminal's stderr" "$(od -c "$TMP/tty.out" | head -n 5 | tr '\n' '|')"
	fi
	run "$P" -t $T -e lz4/zstd:1 "$TMP/text"
	# (the busy machine's "flagged suspect" note is a message, not progress;
	# a copy: check's own run replaces $TMP/stderr before reading it)
	sed '/flagged suspect/d' "$TMP/stderr" >"$TMP/pipe.err"
	check "no progress when stderr is a pipe" 0 "" cat "$TMP/pipe.err"
	$ONTTY 72 2 "$P" -q -t $T -e lz4 -o "$TMP/res.tsv" "$TMP/text" >"$TMP/tty.out" 2>/dev/null
	check "no progress with -q" 0 "" cat "$TMP/tty.out"
	big="$TMP/an-input-with-a-name-far-too-long-for-the-terminal.txt"
	$ONTTY 110 1 "$P" -q --human -t $T -e lz4 "$big" >"$TMP/tty.out" 2>/dev/null
	# wider only where the name is down to its 8 columns (long flags: suspect timings)
	w=$(awk '{ if (length($0) > m && (length($0) <= 110 || length($1) > 8)) m = length($0) } END { print m }' "$TMP/tty.out")
	"$P" -q --human -t $T -e lz4 "$big" >"$TMP/pipe.out"
	if [ "$w" -le 110 ] && grep -q '^~[a-z.-]*\.txt  *lz4 ' "$TMP/tty.out" && grep -qF "$big" "$TMP/pipe.out"; then
		pass "--human on a 110-column terminal: input names cut to fit ($w columns); whole in a pipe"
	else
		fail "--human on a terminal" "widest line $w: $(head -n 2 "$TMP/tty.out" | tr '\n' '|')"
	fi
fi
