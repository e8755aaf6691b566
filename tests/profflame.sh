#!/bin/sh
# profflame: any profile (folded stacks, profrec TSV, perf script) -> flame graph.
. "$(dirname "$0")/lib.sh"
F=$BIN/profflame

# count FILE XPATH: evaluate an XPath count() on an SVG (namespace-blind).
count() {
	xmllint --xpath "$2" "$1" 2>/dev/null
}
FRAMES="count(//*[local-name()='g'][@id='frames']/*)"
# title FILE: every frame tooltip, one per line, sorted.
titles() {
	grep -o '<title>[^<]*</title>' "$1" | sed 's/<title>//; s/<\/title>//' | sort
}
# fill FILE NAME: the fill colour of the frame whose tooltip starts with NAME.
fill() {
	grep -o "<title>$2 ([^<]*</title><rect [^>]*" "$1" | head -n 1 | sed 's/.*fill="\([^"]*\)".*/\1/'
}

if ! command -v xmllint >/dev/null 2>&1; then
	skip all "xmllint not installed (package libxml2-utils)"
	exit 0
fi

# ---- basics -------------------------------------------------------------
printf 'a;b;c 1\na;b;d 2\na;e 3\nf 4\n' >"$TMP/small.folded"
run "$F" --width 1200 "$TMP/small.folded"
cp "$TMP/stdout" "$TMP/small.svg"
if [ "$STATUS" = 0 ] && xmllint --noout "$TMP/small.svg" 2>"$TMP/xml.err"; then
	pass "well-formed SVG"
else
	fail "well-formed SVG" "exit $STATUS: $(head -c 300 "$TMP/xml.err" "$TMP/stderr")"
fi
check "frame count" 0 "7" count "$TMP/small.svg" "$FRAMES"
titles "$TMP/small.svg" >"$TMP/titles"
cat >"$TMP/titles.expected" <<'EOF'
a (6 samples, 60.00%)
all (10 samples, 100%)
b (3 samples, 30.00%)
c (1 samples, 10.00%)
d (2 samples, 20.00%)
e (3 samples, 30.00%)
f (4 samples, 40.00%)
EOF
check_file "tooltips: name (N samples, P%)" 0 "$TMP/titles.expected" cat "$TMP/titles"
check "title text" 0 "Flame Graph" count "$TMP/small.svg" "string(//*[@id='title'])"
check "self-contained: no external references" 0 "" \
	sh -c "grep -Eo '(src|href)=\"(https?:)?//[^\"]*' '$TMP/small.svg'; grep -c 'xlink:href' '$TMP/small.svg' | grep -v '^0$'; true"
check "script embedded" 0 "1" count "$TMP/small.svg" "count(//*[local-name()='script'])"

# counts up to 2^64-1 (issue 10 item 3): proffold's output of them is drawn
printf 'a;b 18446744073709551615\na;c 1\n' >"$TMP/big.folded"
"$BIN/proffold" "$TMP/big.folded" | "$F" >"$TMP/big.svg" 2>"$TMP/stderr"
check "2^64-1 through proffold is drawn" 0 "b (18,446,744,073,709,551,61" \
	sh -c "grep -o '<title>b ([^<]*' '$TMP/big.svg' | sed 's/<title>//' | cut -c1-28; grep . '$TMP/stderr' || true"

# duplicate stacks merge; stdin when no operand
printf 'a;b 1\nc 2\na;b 3\n' | "$F" >"$TMP/dup.svg" 2>"$TMP/stderr"
check "duplicate stacks merge" 0 "b (4 samples, 66.67%)" \
	sh -c "grep -o '<title>b ([^<]*' '$TMP/dup.svg' | sed 's/<title>//'"
# intrinsic size: width, height and viewBox always (an <img> runs no script);
# a fluid graph's script switches to the window's width (see the browser tests)
check "fluid: intrinsic width, height, viewBox" 0 "1200 118 0 0 1200 118" \
	count "$TMP/dup.svg" "concat(/*/@width, ' ', /*/@height, ' ', /*/@viewBox)"
check "fluid: the script fills the window" 0 "1" sh -c "grep -c 'fluid: true,' '$TMP/dup.svg'"
check "fixed width" 0 "1200 134 0 0 1200 134" \
	count "$TMP/small.svg" "concat(/*/@width, ' ', /*/@height, ' ', /*/@viewBox)"
check "fixed width: the script keeps it" 0 "1" sh -c "grep -c 'fluid: false,' '$TMP/small.svg'"

# ---- any profile: profrec TSV and perf script text ------------------------
# profrec's sample TSV, read directly: the same graph as through proffold
printf '%s\n' '# source=profrec event=cpu-clock,offcpu-time unit=ns,ns' \
	"$(printf 'time_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack')" \
	"$(printf '1000\t7\t7\tapp\t0\tcpu-clock\t1000000\t1\tmain;work;leaf')" \
	"$(printf '2000\t7\t7\tapp\t0\tcpu-clock\t1000000\t2\tmain;idle')" \
	"$(printf '3000\t7\t7\tapp\t0\toffcpu-time\t5000000\t3\tmain;sleep')" \
	"$(printf '4000\t7\t7\tapp\t0\tcpu-clock\t2000000\t1\t')" >"$TMP/app.tsv"
check_status "profrec TSV: exit 0" 0 "$F" --width 1200 "$TMP/app.tsv"
cp "$TMP/stdout" "$TMP/tsv.svg"
titles "$TMP/tsv.svg" >"$TMP/t"
check "profrec TSV: the first event folded, in its unit" 0 "leaf (3,000,000 ns, 75.00%)" grep '^leaf ' "$TMP/t"
check "profrec TSV: no offcpu-time frames" 0 "0" sh -c "grep -c '<title>sleep' '$TMP/tsv.svg' || true"
check "profrec TSV: the same graph as proffold | profflame" 0 "" \
	sh -c "'$BIN/proffold' '$TMP/app.tsv' | '$F' --width 1200 | cmp - '$TMP/tsv.svg'"
check "profrec TSV: --flamechart keeps the sample order" 0 "leaf|idle|leaf" \
	sh -c "'$F' --flamechart --minwidth 0 '$TMP/app.tsv' | grep -o '<title>[a-z]* ' | sed 's/<title>//; s/ //' | grep -x -e leaf -e idle | paste -sd '|'"
# perf script text on stdin: the same graph as through proffold
gzip -dc "$TESTS/data/perf-g.txt.gz" >"$TMP/perf-g.txt"
"$F" --width 1200 <"$TMP/perf-g.txt" >"$TMP/perf.svg" 2>"$TMP/perf.err"
check "perf script | profflame: the same graph as perf script | proffold | profflame" 0 "" \
	sh -c "'$BIN/proffold' <'$TMP/perf-g.txt' | '$F' --width 1200 | cmp - '$TMP/perf.svg'; grep . '$TMP/perf.err' || true"
check "perf script | profflame: counts in the event's unit" 0 "all (82,082,082 ns, 100%)" \
	sh -c "grep -o '<title>all ([^<]*' '$TMP/perf.svg' | sed 's/<title>//'"
check "perf script: a compressed file operand" 0 "" \
	sh -c "'$F' --width 1200 '$TESTS/data/perf-g.txt.gz' | cmp - '$TMP/perf.svg'"
# --diff takes any two profiles
"$BIN/proffold" "$TMP/app.tsv" >"$TMP/app.folded" 2>/dev/null
"$BIN/proffold" "$TMP/perf-g.txt" >"$TMP/perf-g.folded"
"$F" --width 1200 --diff "$TMP/app.folded" "$TMP/perf-g.folded" | grep -v '^<g id="legend">' >"$TMP/d1.svg"
check "--diff of profrec TSV and perf script equals --diff of their folded stacks" 0 "" \
	sh -c "'$F' --width 1200 --diff '$TMP/app.tsv' '$TMP/perf-g.txt' 2>/dev/null | grep -v '^<g id=\"legend\">' | cmp - '$TMP/d1.svg'"

# ---- identical to flamegraph.pl ------------------------------------------
# extract FILE: "y x width fill title" per frame, positions to 0.1 px.
extract() {
	sed -n 's/.*<title>\([^<]*\)<\/title><rect x="\([0-9.]*\)" y="\([0-9.]*\)" width="\([0-9.]*\)" height="[0-9.]*" fill="\([^"]*\)".*/\3 \2 \4 \5 \1/p' "$1" |
	awk '{ f = $4
		if (f ~ /^rgb\(/) { split(substr(f, 5), c, /[,)]/); f = sprintf("#%02x%02x%02x", c[1], c[2], c[3]) }
		$4 = f; print }' | sort -k1,1n -k2,2n
}
FG=${FLAMEGRAPH_DIR:-}
if [ -n "$CORPUS" ] && [ -n "$FG" ] && [ -f "$FG/flamegraph.pl" ] && command -v perl >/dev/null; then
	for opts in "" "--colors=java --hash" "--inverted --colors=mem" "--reverse --minwidth=0.5%"; do
		for f in perf-fp perf-dwarf; do
			name="same frames, positions and colours as flamegraph.pl: $f $opts"
			# shellcheck disable=SC2086
			"$F" --width 1200 --compact-width 0 $opts "$CORPUS/$f.folded" >"$TMP/ours.svg" 2>/dev/null
			# shellcheck disable=SC2086
			perl "$FG/flamegraph.pl" $opts "$CORPUS/$f.folded" >"$TMP/ref.svg" 2>/dev/null
			extract "$TMP/ours.svg" >"$TMP/ours.txt"
			extract "$TMP/ref.svg" >"$TMP/ref.txt"
			if [ ! -s "$TMP/ref.txt" ]; then
				fail "$name" "no frames from flamegraph.pl"
				continue
			fi
			paste -d '|' "$TMP/ours.txt" "$TMP/ref.txt" | awk -F'|' '
				{ split($1, a, " "); split($2, b, " ")
				  ta = $1; sub(/^[^ ]* [^ ]* [^ ]* [^ ]* /, "", ta)
				  tb = $2; sub(/^[^ ]* [^ ]* [^ ]* [^ ]* /, "", tb)
				  d = a[2] - b[2]; e = a[3] - b[3]
				  if (a[1] != b[1] || d > 0.06 || d < -0.06 || e > 0.11 || e < -0.11 || a[4] != b[4] || ta != tb) {
					print "line " NR ": ours " $1 " / ref " $2; bad = 1; exit 1 } }
				END { exit bad }' >"$TMP/cmp.out" 2>&1 &&
			[ "$(wc -l <"$TMP/ours.txt")" = "$(wc -l <"$TMP/ref.txt")" ] &&
				pass "$name" || fail "$name" "$(wc -l <"$TMP/ours.txt") vs $(wc -l <"$TMP/ref.txt") frames; $(head -c 300 "$TMP/cmp.out")"
		done
	done
	# differential: difffolded.pl's two-count form, and --negate
	perl "$FG/difffolded.pl" "$CORPUS/perf-fp.folded" "$CORPUS/perf-dwarf.folded" >"$TMP/pl-diff.folded" 2>/dev/null
	for opts in "" "--negate"; do
		name="differential same as flamegraph.pl $opts"
		# shellcheck disable=SC2086
		"$F" --width 1200 --compact-width 0 $opts "$TMP/pl-diff.folded" | extract /dev/stdin >"$TMP/ours.txt"
		# shellcheck disable=SC2086
		perl "$FG/flamegraph.pl" $opts "$TMP/pl-diff.folded" 2>/dev/null | extract /dev/stdin >"$TMP/ref.txt"
		paste -d '|' "$TMP/ours.txt" "$TMP/ref.txt" | awk -F'|' '
			{ split($1, a, " "); split($2, b, " ")
			  d = a[2] - b[2]; if (d < 0) d = -d
			  if (a[1] != b[1] || d > 0.06 || a[4] != b[4]) { print NR ": " $1 " / " $2; exit 1 } }' >"$TMP/cmp.out" &&
		[ "$(wc -l <"$TMP/ours.txt")" = "$(wc -l <"$TMP/ref.txt")" ] && [ -s "$TMP/ref.txt" ] &&
			pass "$name" || fail "$name" "$(head -c 300 "$TMP/cmp.out")"
	done
	# the same but for the legend, which names the files with --diff
	"$F" --width 1200 --diff "$CORPUS/perf-fp.folded" "$CORPUS/perf-dwarf.folded" |
		grep -v '^<g id="legend">' >"$TMP/diff-files.svg"
	"$F" --width 1200 "$TMP/pl-diff.folded" | grep -v '^<g id="legend">' >"$TMP/diff-pl.svg"
	check "--diff equals difffolded.pl | profflame" 0 "" cmp "$TMP/diff-files.svg" "$TMP/diff-pl.svg"
	check "difffolded.pl | profflame --diff: one two-count input is accepted" 0 "" \
		sh -c "perl '$FG/difffolded.pl' '$CORPUS/perf-fp.folded' '$CORPUS/perf-dwarf.folded' 2>/dev/null |
			'$F' --width 1200 --diff | grep -v '^<g id=\"legend\">' | cmp - '$TMP/diff-pl.svg'"
else
	skip "same frames as flamegraph.pl" "needs CORPUS, FLAMEGRAPH_DIR (a FlameGraph checkout) and perl"
fi

if [ -n "$CORPUS" ] && [ -f "$CORPUS/perf-fp.folded" ]; then
	run "$F" --width 1200 "$CORPUS/perf-fp.folded"
	cp "$TMP/stdout" "$TMP/corpus.svg"
	check "corpus: frame count" 0 "249" count "$TMP/corpus.svg" "$FRAMES"
	assert "corpus: well-formed" xmllint --noout "$TMP/corpus.svg"
	run "$F" --width 1200 --minwidth 0 "$CORPUS/perf-dwarf.folded"
	cp "$TMP/stdout" "$TMP/dwarf0.svg"
	check "corpus: minwidth 0 draws every frame" 0 "656" count "$TMP/dwarf0.svg" "$FRAMES"
	"$F" --width 1200 --minwidth 2 "$CORPUS/perf-dwarf.folded" >"$TMP/dwarf2.svg"
	check "corpus: --minwidth 2 px prunes" 0 "189" count "$TMP/dwarf2.svg" "$FRAMES"
else
	skip "corpus" "corpus not present"
fi

# ---- hostile names --------------------------------------------------------
printf '<script>alert(1)</script>;a&b"c'"'"'d 5\nesc\033[31mred;nul\000byte 3\nbad\377utf8;\302 2\n' >"$TMP/hostile.folded"
printf 'x;%s 4\n' "$(printf '\346\227\245\346\234\254\350\252\236%.0s' 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20)" >>"$TMP/hostile.folded"
check_status "hostile names: exit 0" 0 \
	"$F" --width 300 --title '<b>"t"</b>' --subtitle '&x' --countname '<u>' --notes 'a -- b -->' "$TMP/hostile.folded"
cp "$TMP/stdout" "$TMP/hostile.svg"
check "hostile names: every frame drawn" 0 "9" count "$TMP/hostile.svg" "$FRAMES"
assert "hostile names: well-formed XML" xmllint --noout "$TMP/hostile.svg"
check "hostile names: script name is text" 0 "1" \
	count "$TMP/hostile.svg" "count(//*[local-name()='title'][starts-with(., '<script>alert(1)</script> (5 ')])"
check "hostile names: only our script element" 0 "1" count "$TMP/hostile.svg" "count(//*[local-name()='script'])"
check "hostile names: no raw markup" 0 "0" sh -c "grep -c '<script>alert\\|<b>\"t\"\\|<u>' '$TMP/hostile.svg' || true"
assert "hostile names: valid UTF-8" iconv -f UTF-8 -t UTF-8 "$TMP/hostile.svg" -o /dev/null
check "hostile names: no control characters" 0 "0" \
	sh -c "LC_ALL=C tr -d '\n\t' <'$TMP/hostile.svg' | LC_ALL=C tr -d '\040-\176\200-\377' | wc -c | tr -d ' '"
check "hostile names: ESC replaced" 0 "1" \
	count "$TMP/hostile.svg" "count(//*[local-name()='title'][starts-with(., '$(printf 'esc\357\277\275[31mred')')])"
check "hostile names: NUL replaced" 0 "1" \
	count "$TMP/hostile.svg" "count(//*[local-name()='title'][starts-with(., '$(printf 'nul\357\277\275byte')')])"
check "hostile names: invalid UTF-8 replaced" 0 "1" \
	count "$TMP/hostile.svg" "count(//*[local-name()='title'][starts-with(., '$(printf 'bad\357\277\275utf8')')])"
check "hostile names: title escaped" 0 '<b>"t"</b>' count "$TMP/hostile.svg" "string(//*[@id='title'])"
# labels are cut at character boundaries: the CJK label ends in ".." after whole characters
check "labels cut on UTF-8 boundaries" 0 "1" \
	count "$TMP/hostile.svg" "count(//*[local-name()='text'][contains(., '日本語..') or contains(., '本語..') or contains(., '語..')])"

# ---- XML-forbidden code points, random bytes --------------------------------
# U+FFFE and U+FFFF are valid UTF-8 but no XML 1.0 Char: replaced like controls
printf 'a\357\277\276;b\357\277\277;c\357\267\220;d\001e 3\n' >"$TMP/nonchar.folded"
check_status "noncharacters: exit 0" 0 "$F" --width 1200 "$TMP/nonchar.folded"
cp "$TMP/stdout" "$TMP/nonchar.svg"
assert "noncharacters U+FFFE, U+FFFF: well-formed XML" xmllint --noout "$TMP/nonchar.svg"
check "noncharacters become U+FFFD" 0 "$(printf 'a\357\277\275|b\357\277\275|c\357\277\275|d\357\277\275e')" \
	sh -c "grep -o '<title>[^<]*' '$TMP/nonchar.svg' | sed 's/<title>//; s/ (.*//' | grep -v '^all\$' | sort | paste -sd '|'"
# random byte strings, biased towards (nearly) valid multibyte sequences,
# as frame names, in labels cut to fit and in the countname of the script
awk 'BEGIN { srand(16); split("239 191 190 237 244 143 240 144 183 194 128 159 127", L, " ")
	for (i = 0; i < 3000; i++) {
		s = "f"; n = 1 + int(rand() * 40)
		for (k = 0; k < n; k++) {
			c = int(rand() * 5)
			if (c == 0) r = 1 + int(rand() * 255)
			else if (c == 1) r = 128 + int(rand() * 64)
			else if (c == 2) r = 192 + int(rand() * 64)
			else if (c == 3) r = L[1 + int(rand() * 13)]
			else r = 1 + int(rand() * 126)
			if (r == 10) r = 59
			s = s sprintf("%c", r)
		}
		print s "x " 1 + int(rand() * 5)
	} }' >"$TMP/fuzz.folded"
check_status "random bytes: 3000 names drawn, exit 0" 0 \
	"$F" --width 100000 --minwidth 0 --countname "$(printf 'u\357\277\277\001<')" "$TMP/fuzz.folded"
cp "$TMP/stdout" "$TMP/fuzz.svg"
assert "random bytes: well-formed XML (xmllint)" xmllint --noout "$TMP/fuzz.svg"
assert "random bytes: valid UTF-8" iconv -f UTF-8 -t UTF-8 "$TMP/fuzz.svg" -o /dev/null
check "random bytes: labels drawn (cut on characters)" 0 "1" \
	sh -c "[ \$(xmllint --xpath \"count(//*[local-name()='g'][@id='frames']/*/*[local-name()='text'])\" '$TMP/fuzz.svg') -gt 1000 ] && echo 1"

# ---- annotations ----------------------------------------------------------
printf 'java;a_[j];b_[k];c_[i] 1\n' >"$TMP/ann.folded"
"$F" --width 1200 --colors java "$TMP/ann.folded" >"$TMP/ann.svg" 2>/dev/null
check "annotations stripped from labels and tooltips" 0 "0" sh -c "grep -c '_\\[' '$TMP/ann.svg' || true"
fill "$TMP/ann.svg" a >"$TMP/fill"
check "java palette: _[j] green" 0 "1" grep -Ec '^#(3[2-9a-f]|[4-6][0-9a-f])(c[89a-f]|[d-f][0-9a-f])' "$TMP/fill"
fill "$TMP/ann.svg" b >"$TMP/fill"
check "java palette: _[k] orange" 0 "1" grep -Ec '^#[b-f][0-9a-f][5-9a-f][0-9a-f]00$' "$TMP/fill"

# ---- differential ---------------------------------------------------------
printf 'a;b 10 20\na;c 20 10\na;d 5 5\n' >"$TMP/diff.folded"
"$F" --width 1200 "$TMP/diff.folded" >"$TMP/diff.svg" 2>/dev/null
check "differential: grew is red" 0 "#ff0000" fill "$TMP/diff.svg" b
check "differential: shrank is blue" 0 "#0000ff" fill "$TMP/diff.svg" c
check "differential: unchanged is white" 0 "#ffffff" fill "$TMP/diff.svg" d
titles "$TMP/diff.svg" >"$TMP/t"
check "differential: tooltip has the delta" 0 "b (20 samples, 57.14%; +28.57%)" grep '^b ' "$TMP/t"
"$F" --width 1200 --negate "$TMP/diff.folded" >"$TMP/neg.svg" 2>/dev/null
check "differential: --negate swaps hues" 0 "#0000ff" fill "$TMP/neg.svg" b
printf 'a;b 10\na;c 20\na;d 5\n' >"$TMP/before.folded"
printf 'a;b 20\na;c 10\na;d 5\n' >"$TMP/after.folded"
"$F" --width 1200 --diff "$TMP/before.folded" "$TMP/after.folded" >"$TMP/diff2.svg" 2>/dev/null
check "--diff BEFORE AFTER equals two-count input (but for the legend)" 0 "" \
	sh -c "grep -v '^<g id=\"legend\">' '$TMP/diff.svg' >'$TMP/l1'; grep -v '^<g id=\"legend\">' '$TMP/diff2.svg' >'$TMP/l2'; cmp '$TMP/l1' '$TMP/l2'"
# legend: what the colours mean and which input is which
legend() { xmllint --xpath "string(//*[@id='legend'])" "$1" 2>/dev/null; }
check "differential legend (two-count input)" 0 "grew (AFTER > BEFORE)shrank (AFTER < BEFORE)unchangedwidths: AFTER; BEFORE, AFTER: the first and second count of each stack" \
	legend "$TMP/diff.svg"
check "differential legend names the files (--diff)" 0 "grew (AFTER > BEFORE)shrank (AFTER < BEFORE)unchangedwidths: AFTER; BEFORE: $TMP/before.folded, AFTER: $TMP/after.folded" \
	legend "$TMP/diff2.svg"
check "differential legend: --negate swaps the hues" 0 "shrank (AFTER < BEFORE)grew (AFTER > BEFORE)" \
	sh -c "xmllint --xpath \"concat(//*[@id='legend']/*[local-name()='text'][1], //*[@id='legend']/*[local-name()='text'][2])\" '$TMP/neg.svg'"
check "differential legend: swatch colours" 0 "#ff0000 #0000ff #ffffff" \
	count "$TMP/diff.svg" "concat(//*[@id='legend']/*[local-name()='rect'][1]/@fill, ' ', //*[@id='legend']/*[local-name()='rect'][2]/@fill, ' ', //*[@id='legend']/*[local-name()='rect'][3]/@fill)"
check "differential: default title" 0 "Differential Flame Graph" count "$TMP/diff.svg" "string(//*[@id='title'])"
check "differential: --inverted title" 0 "Differential Icicle Graph" \
	sh -c "'$F' --inverted '$TMP/diff.folded' | xmllint --xpath \"string(//*[@id='title'])\" -"
check "not differential: no legend" 0 "0" count "$TMP/small.svg" "count(//*[@id='legend'])"
# labels readable on every fill: white text (class dk) on dark fills only
check "label colour: white on blue, black on red and white" 0 "c" \
	sh -c "grep -o '<title>[a-z] ([^<]*</title><rect [^>]*class=\"dk\"' '$TMP/diff.svg' | sed 's/<title>\\(.\\).*/\\1/'"
check "label colour: the style makes dk labels white" 0 "1" sh -c "grep -c '^#frames rect.dk~text{fill:#fff}\$' '$TMP/diff.svg'"
printf 'a;b 10 100\na;c 100 10\n' >"$TMP/strong.folded"
check "label colour: pure red keeps black (better contrast), pure blue white" 0 "c" \
	sh -c "'$F' '$TMP/strong.folded' 2>/dev/null | grep -o '<title>[a-z] ([^<]*</title><rect [^>]*class=\"dk\"' | sed 's/<title>\\(.\\).*/\\1/'"
# --diff with one input: the two-count form is the documented differential
check "--diff with one two-count file equals without --diff" 0 "" \
	sh -c "'$F' --width 1200 --diff '$TMP/diff.folded' | cmp - '$TMP/diff.svg'"
check "--diff with a two-count stdin equals without --diff" 0 "" \
	sh -c "'$F' --width 1200 --diff <'$TMP/diff.folded' | cmp - '$TMP/diff.svg'"
check_error "--diff with one single-count input: exit 1" 1 "--diff with one input needs its differential form" \
	"$F" -o "$TMP/diff1.svg" --diff "$TMP/before.folded"
check "--diff with one single-count input: no file written" 0 "" sh -c "ls '$TMP' | grep -F 'diff1.svg'; true"
# difffolded.pl turns a "# ..." metadata line into " 0 0": read it as nothing
{ echo ' 0 0'; cat "$TMP/diff.folded"; } >"$TMP/diff-mangled.folded"
"$F" --width 1200 "$TMP/diff-mangled.folded" >"$TMP/diff3.svg" 2>"$TMP/diff3.err"
check "difffolded.pl's ' 0 0' line is skipped" 0 "" cmp "$TMP/diff.svg" "$TMP/diff3.svg"
printf 'a;b 20\na;c 40\n' >"$TMP/before2.folded"
printf 'a;b 20\na;c 10\n' >"$TMP/after2.folded"
"$F" --width 1200 -n --diff "$TMP/before2.folded" "$TMP/after2.folded" >"$TMP/norm.svg" 2>/dev/null
titles "$TMP/norm.svg" >"$TMP/t"
check "--normalize scales BEFORE to AFTER's total" 0 "b (20 samples, 66.67%; +33.33%)" grep '^b ' "$TMP/t"

# ---- modes ----------------------------------------------------------------
printf 'a;b 1\nc 1\na;b 1\n' >"$TMP/chart.folded"
check "flame graph merges" 0 "4" sh -c "'$F' '$TMP/chart.folded' >'$TMP/g.svg' && xmllint --xpath \"$FRAMES\" '$TMP/g.svg'"
check "--flamechart keeps input order" 0 "6" sh -c "'$F' --flamechart '$TMP/chart.folded' >'$TMP/c.svg' && xmllint --xpath \"$FRAMES\" '$TMP/c.svg'"
check "--flamechart title" 0 "Flame Chart" count "$TMP/c.svg" "string(//*[@id='title'])"
printf 'a;b 1\nc;b 1\n' >"$TMP/rev.folded"
check "--reverse merges leaves" 0 "b (2 samples, 100.00%)" \
	sh -c "'$F' --reverse '$TMP/rev.folded' | grep -o '<title>b ([^<]*' | sed 's/<title>//'"
"$F" --inverted --width 1200 "$TMP/small.folded" >"$TMP/inv.svg"
check "--inverted: icicle title" 0 "Icicle Graph" count "$TMP/inv.svg" "string(//*[@id='title'])"
check "--inverted: root at the top" 0 "36" \
	sh -c "grep -o '<title>all [^<]*</title><rect x=\"[0-9.]*\" y=\"[0-9.]*\"' '$TMP/inv.svg' | sed 's/.*y=\"//; s/\"//'"
printf 'main;a;x 5\nmain;b;x 3\nother 2\n' >"$TMP/base.folded"
check "--base roots the graph" 0 "a (5 samples, 62.50%)|all (8 samples, 100%)|b (3 samples, 37.50%)|x (3 samples, 37.50%)|x (5 samples, 62.50%)" \
	sh -c "'$F' --base a --base b '$TMP/base.folded' >'$TMP/b.svg' && grep -o '<title>[^<]*' '$TMP/b.svg' | sed 's/<title>//' | sort | paste -sd '|'"
printf 'a 1000\nb 1\n' >"$TMP/min.folded"
check "--minwidth PCT% prunes" 0 "2" sh -c "'$F' --minwidth 1% '$TMP/min.folded' >'$TMP/m.svg' && xmllint --xpath \"$FRAMES\" '$TMP/m.svg'"
check "--minwidth 0 keeps all" 0 "3" sh -c "'$F' --minwidth 0 '$TMP/min.folded' >'$TMP/m.svg' && xmllint --xpath \"$FRAMES\" '$TMP/m.svg'"
check "--max-depth caps drawn depth" 0 "5" sh -c "'$F' -q --max-depth 2 '$TMP/small.folded' | grep -c '<g><title>[a-f] \\|<g><title>all'" 
printf '# unit=ns event=cpu-clock\na;b 1500\n' >"$TMP/unit.folded"
check "countname from # unit=" 0 "b (1,500 ns, 100.00%)" \
	sh -c "'$F' '$TMP/unit.folded' | grep -o '<title>b ([^<]*' | sed 's/<title>//'"
check "--countname overrides" 0 "b (1,500 bytes, 100.00%)" \
	sh -c "'$F' --countname bytes '$TMP/unit.folded' | grep -o '<title>b ([^<]*' | sed 's/<title>//'"
check "--factor scales tooltips" 0 "b (3,000 ns, 100.00%)" \
	sh -c "'$F' --factor 2 '$TMP/unit.folded' | grep -o '<title>b ([^<]*' | sed 's/<title>//'"
check "--total sets the 100% width" 0 "b (1,500 ns, 50.00%)" \
	sh -c "'$F' --total 3000 '$TMP/unit.folded' | grep -o '<title>b ([^<]*' | sed 's/<title>//'"
check "--notes in a comment" 0 "1" sh -c "'$F' --notes 'built by ci' '$TMP/small.folded' | grep -c '<!-- NOTES: built by ci -->'"

# flamegraph.pl's --encoding and --random
check "--encoding UTF-8 is accepted: the SVG is UTF-8 anyway" 0 "" \
	sh -c "'$F' --width 1200 --encoding utf-8 '$TMP/small.folded' | cmp - '$TMP/small.svg'"
check_error "--encoding other than UTF-8: refused, naming iconv" 2 "iconv -f ISO-8859-1 -t UTF-8" \
	"$F" --encoding ISO-8859-1 "$TMP/small.folded"
awk 'BEGIN { for (i = 0; i < 40; i++) print "s" i ";x 1" }' >"$TMP/rand.folded"
xfills() { grep -o '<title>x ([^<]*</title><rect [^>]*' "$1" | sed 's/.*fill="\([^"]*\)".*/\1/' | sort -u; }
check_status "without --random" 0 "$F" "$TMP/rand.folded"
xfills "$TMP/stdout" >"$TMP/xfills"
check "without --random: one colour per name" 0 "1" sh -c "wc -l <'$TMP/xfills' | tr -d ' '"
check_status "--random" 0 "$F" --random "$TMP/rand.folded"
xfills "$TMP/stdout" >"$TMP/xfills"
n=$(wc -l <"$TMP/xfills" | tr -d ' ')
[ "$n" -ge 30 ] && pass "--random: 40 frames of one name, $n colours" || fail "--random: one colour per frame" "$n colours for 40 frames"
check "--random: colours stay in the palette (hot: red 205..255)" 0 "0" \
	sh -c "grep -v '^#[c-f][0-9a-f]' '$TMP/xfills' | wc -l | tr -d ' '"

# chain: frames after "--" are wakers (aqua), the rest blue
printf 'off;sleep;--;waker;wake 5\n' >"$TMP/chain.folded"
"$F" --colors chain --width 1200 "$TMP/chain.folded" >"$TMP/chain.svg"
fill "$TMP/chain.svg" waker >"$TMP/fill"
check "chain palette: waker frames aqua" 0 "1" grep -c '^#[3-6][0-9a-f][a-d][0-9a-f][a-d][0-9a-f]$' "$TMP/fill"
check "chain palette: separator grey" 0 "#a0a0a0" fill "$TMP/chain.svg" --

# consistent palette
( cd "$TMP" && "$F" --cp small.folded >/dev/null ) 
check "--cp writes palette.map sorted" 0 "a|b|c|d|e|f" sh -c "sed 's/->.*//' '$TMP/palette.map' | grep -v '^\$' | paste -sd '|'"
printf 'a->rgb(1,2,3)\n' >"$TMP/pal.map"
check "--palette-file colours are reused" 0 "#010203" \
	sh -c "'$F' --palette-file '$TMP/pal.map' '$TMP/small.folded' >'$TMP/p.svg' && grep -o '<title>a ([^<]*</title><rect [^>]*' '$TMP/p.svg' | sed 's/.*fill=\"//; s/\".*//'"
check "--palette-file grows with new names (root included, as flamegraph.pl)" 0 "7" sh -c "grep -c 'rgb(' '$TMP/pal.map'"

# name attributes
printf 'b\thref=https://example.com/?a=1&b=2\ttitle=<about b>\tclass=hot\n' >"$TMP/attr.txt"
"$F" --nameattr "$TMP/attr.txt" "$TMP/small.folded" >"$TMP/attr.svg"
assert "--nameattr: well-formed" xmllint --noout "$TMP/attr.svg"
check "--nameattr: link, title and attributes" 0 "1" \
	count "$TMP/attr.svg" "count(//*[local-name()='a'][@class='hot'][*[local-name()='title']='<about b>'])"

# output file, atomic, compressed, html
run "$F" -o "$TMP/out.svg" "$TMP/small.folded"
check "-o FILE" 0 "7" count "$TMP/out.svg" "$FRAMES"
"$F" -o "$TMP/out.svg.gz" "$TMP/small.folded"
check "-o FILE.gz compresses" 0 "7" sh -c "gzip -dc '$TMP/out.svg.gz' >'$TMP/gz.svg' && xmllint --xpath \"$FRAMES\" '$TMP/gz.svg'"
"$F" -o "$TMP/out.html" "$TMP/small.folded"
check "-o FILE.html writes a page" 0 "1" sh -c "head -n 1 '$TMP/out.html' | grep -c '<!DOCTYPE html>'"
assert "html page parses" xmllint --html --noout "$TMP/out.html"
check "--format html" 0 "1" sh -c "'$F' --format html '$TMP/small.folded' | grep -c '^<svg '"

# ---- errors ---------------------------------------------------------------
printf 'a;b 1\nno count here\nc;d 2\n-x -1\n' >"$TMP/bad.folded"
check_error "malformed line: file:line" 1 "bad.folded:2: missing count" "$F" -o "$TMP/bad.svg" "$TMP/bad.folded"
check_error "negative count: file:line" 1 "bad.folded:4: negative count" "$F" -o "$TMP/bad.svg" "$TMP/bad.folded"
check "malformed lines: the rest is drawn" 0 "5" count "$TMP/bad.svg" "$FRAMES"
printf 'a;b 1 2\nc 3\n' >"$TMP/mixed.folded"
check_error "differential then single count" 1 "mixed.folded:2: expected two counts" "$F" "$TMP/mixed.folded"
: >"$TMP/empty.folded"
check_error "empty input: exit 1" 1 "no stacks in the input" "$F" -o "$TMP/empty.svg" "$TMP/empty.folded"
check "empty input: no file written" 0 "" sh -c "ls '$TMP' | grep -F 'empty.svg'; true"
printf '# unit=samples\n\n# only comments\n' >"$TMP/comments.folded"
check_error "comments only: exit 1" 1 "no stacks in the input" "$F" "$TMP/comments.folded"
check_error "fully filtered by --base: exit 1" 1 "no stack contains" "$F" -o "$TMP/none.svg" --base nothere "$TMP/small.folded"
check "fully filtered: no file written" 0 "" sh -c "ls '$TMP' | grep -F 'none.svg'; true"
printf 'a 0\n' >"$TMP/zero.folded"
check_error "all counts zero: exit 1" 1 "all counts are zero" "$F" "$TMP/zero.folded"
check_error "missing file" 1 "nosuch.folded" "$F" "$TMP/nosuch.folded"
# an unreadable input: nothing is drawn (the others alone would be a wrong picture)
printf 'old\n' >"$TMP/keep.svg"
check_error "missing input among others: FILE: strerror, exit 1" 1 \
	"^profflame: $TMP/nosuch.folded: No such file or directory\$" \
	"$F" -o "$TMP/keep.svg" "$TMP/small.folded" "$TMP/nosuch.folded"
check "missing input: an existing -o target is untouched" 0 "old" cat "$TMP/keep.svg"
check "missing input: nothing on stdout" 1 "" "$F" "$TMP/nosuch.folded" "$TMP/small.folded"
mkdir "$TMP/adir"
check_error "unreadable input (a directory): exit 1" 1 "adir: .*Is a directory" \
	"$F" -o "$TMP/keep.svg" "$TMP/adir" "$TMP/small.folded"
check "unreadable input: the -o target is untouched" 0 "old" cat "$TMP/keep.svg"
gzip -c "$TMP/small.folded" | head -c 20 >"$TMP/cut.folded.gz"
check_error "cut compressed input: exit 1" 1 "cut.folded.gz: truncated" \
	"$F" -o "$TMP/keep.svg" "$TMP/cut.folded.gz" "$TMP/small.folded"
check "cut compressed input: the -o target is untouched" 0 "old" cat "$TMP/keep.svg"
check_error "--diff with a missing BEFORE: exit 1" 1 "nosuch.folded: No such file or directory" \
	"$F" -o "$TMP/dmiss.svg" --diff "$TMP/nosuch.folded" "$TMP/after.folded"
check "--diff with a missing BEFORE: no file written (not all growth)" 0 "" \
	sh -c "ls '$TMP' | grep -F 'dmiss.svg'; true"
check "--diff with a missing AFTER: nothing on stdout" 1 "" \
	"$F" --diff "$TMP/before.folded" "$TMP/nosuch.folded"
printf 'a;b 1 2\n' >"$TMP/d2.folded"
check_error "--diff rejects differential files" 1 "already differential" "$F" --diff "$TMP/d2.folded" "$TMP/small.folded"
check_error "usage: unknown palette, the valid ones listed" 2 \
	"unknown palette \"nope\" \(one of hot, mem, io, wakeup, chain, java, js, perl, red, green, blue, aqua, yellow, purple, orange\)" \
	"$F" --colors nope "$TMP/small.folded"
check_error "usage: bad minwidth" 2 "--minwidth" "$F" --minwidth abc "$TMP/small.folded"
check_error "usage: bad width" 2 "--width" "$F" --width -5 "$TMP/small.folded"
check_error "usage: bad bgcolors" 2 "--bgcolors" "$F" --bgcolors '#12345z' "$TMP/small.folded"
check_error "usage: css in font name" 2 "--fonttype" "$F" --fonttype 'a;}body{x' "$TMP/small.folded"
check_error "usage: bad format" 2 "--format" "$F" --format png "$TMP/small.folded"
check_error "usage: --diff takes at most two files" 2 "two files BEFORE AFTER, or one" \
	"$F" --diff "$TMP/small.folded" "$TMP/small.folded" "$TMP/small.folded"
check_error "usage: unknown option" 2 "usage: profflame" "$F" --bogus "$TMP/small.folded"
check_error "usage: bad max-depth" 2 "--max-depth" "$F" --max-depth 0 "$TMP/small.folded"
check_status "--help exits 0" 0 "$F" --help
cp "$TMP/stdout" "$TMP/help.txt"
check "--help describes every option" 0 "" sh -c "'$F' --list-options | grep '^--' | sed 's/=.*//' |
	grep -v -x -e --list-options | while read -r o; do grep -q -e \"\$o \" '$TMP/help.txt' || echo \"\$o\"; done"
check "--help prints the man page's synopsis" 0 "usage: profflame [-hq] [-o file] [--format svg|html] [--title text]
                 [--colors palette] [--width px] [--minwidth px|pct%]
                 [--reverse] [--inverted] [--flamechart] [--diff] [options]
                 [file ...]" sh -c "'$F' --help | head -n 4"
check "--list-options" 0 "--minwidth=" sh -c "'$F' --list-options | grep -x -- --minwidth="

# ---- in a real browser (optional) ---------------------------------------
CHROMIUM=
for c in chromium chromium-browser google-chrome; do
	command -v "$c" >/dev/null 2>&1 && { CHROMIUM=$c; break; }
done
# browser_run PAGE JS RESULT [#HASH]: PAGE (HTML, or an SVG document: *.svg) with
# the harness JS appended, opened in headless chromium; what the harness
# put in <pre id="result"> (an SVG: <text id="result">) goes to RESULT
# (empty when the page did not run: see $TMP/chromium.err)
browser_run() {
	case $1 in
	*.svg)
		{ sed '/^<\/svg>$/,$d' "$1"; printf '<script type="text/ecmascript"><![CDATA[\n'; cat "$2"
		  printf ']]></script>\n</svg>\n'; } >"$TMP/harness.svg" ;;
	*)
		{ sed '/<\/body>/,$d' "$1"; printf '<script>\n'; cat "$2"; printf '</script>\n</body>\n</html>\n'; } >"$TMP/harness.html" ;;
	esac
	timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --user-data-dir="$TMP/chromium" \
		--dump-dom "file://$TMP/harness.${1##*.}${4:-}" >"$TMP/dom.html" 2>"$TMP/chromium.err" || true
	sed -n '/<\(pre\|text\) id="result">/,/<\/\(pre\|text\)>/p' "$TMP/dom.html" |
		sed 's/.*<\(pre\|text\) id="result">//; s/<\/\(pre\|text\)>.*//; s/&lt;/</g; s/&gt;/>/g; s/&amp;/\&/g' >"$3"
}
# browser_shot PAGE W,H: headless chromium's screenshot of PAGE in a W x H
# window, counted by pngpixels ("WxH warm=N match=N"; "none" if no image)
browser_shot() {
	rm -f "$TMP/shot.png"
	timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --user-data-dir="$TMP/chromium" \
		--hide-scrollbars --window-size="$2" --screenshot="$TMP/shot.png" "file://$1" \
		>/dev/null 2>"$TMP/chromium.err" || true
	"$BUILD/tests/tools/pngpixels" "$TMP/shot.png" 2>/dev/null || echo none
}
if [ -z "$CHROMIUM" ]; then
	skip "browser" "no chromium installed"
elif [ -n "$SANITIZE" ]; then
	skip "browser" "not repeated in the sanitizer pass"
else
	printf 'main;a_long_function_name_that_is_cut 3\nmain;other 60\nmain;other;Deep 3\nsecond 39\n' >"$TMP/ui.folded"
	"$F" --format html --width 1200 --countname "ms (wall)" "$TMP/ui.folded" >"$TMP/ui.html"
	# a harness that drives the graph like a user and writes what it saw
	cat >"$TMP/harness.js" <<'JS'
window.addEventListener("load", function () {
  var out = [], fr = document.getElementById("frames");
  function find(n) {
    for (var i = 0; i < fr.children.length; i++) {
      var g = fr.children[i];
      if (g.querySelector("title").textContent.indexOf(n + " (") === 0) return g;
    }
  }
  function ev(el, type) { el.dispatchEvent(new MouseEvent(type, { bubbles: true })); }
  function label(n) { var t = find(n).querySelector("text"); return t ? t.textContent : ""; }
  // a harness error is written out (and fails the checks), not a blank result
  try {
  var cut = find("a_long_function_name_that_is_cut");
  out.push("label-before=" + label("a_long_function_name_that_is_cut"));
  ev(cut.querySelector("rect"), "mouseover");
  out.push("details=" + document.getElementById("details").textContent);
  ev(cut.querySelector("rect"), "click");
  out.push("label-zoomed=" + label("a_long_function_name_that_is_cut"));
  out.push("width-zoomed=" + cut.querySelector("rect").getAttribute("width"));
  out.push("other-hidden=" + find("other").classList.contains("hide"));
  out.push("main-parent=" + find("main").classList.contains("parent"));
  out.push("unzoom-shown=" + !document.getElementById("unzoom").classList.contains("hide"));
  out.push("hash-zoom=" + /^#z=\d+$/.test(location.hash));
  ev(document.getElementById("unzoom"), "click");
  out.push("other-shown=" + !find("other").classList.contains("hide"));
  out.push("hash-unzoom=" + (location.hash || "none"));
  // the search field: Ctrl-F focuses it, typing searches (no prompt())
  window.prompt = function () { out.push("prompt-called"); return null; };
  var field = document.querySelector("#searchbox input");
  window.dispatchEvent(new KeyboardEvent("keydown", { key: "f", ctrlKey: true, bubbles: true }));
  out.push("focused=" + (field !== null && document.activeElement === field));
  function type(s) { field.value = s; field.dispatchEvent(new Event("input", { bubbles: true })); }
  type("^(deep|second)$");
  out.push("matched-case=" + document.getElementById("matched").textContent);
  ev(document.getElementById("ignorecase"), "click");
  out.push("matched-nocase=" + document.getElementById("matched").textContent);
  out.push("deep-fill=" + find("Deep").querySelector("rect").getAttribute("fill"));
  out.push("hash-search=" + location.hash);
  type("(");
  out.push("bad-regex=" + document.getElementById("matched").textContent + "," + field.classList.contains("bad"));
  type("");
  out.push("after-reset=" + document.getElementById("matched").classList.contains("hide") +
    "," + (location.hash || "none") + "," + find("Deep").querySelector("rect").getAttribute("fill"));
  } catch (e) { out.push("error=" + e); }
  var pre = document.createElement("pre");
  pre.id = "result";
  pre.textContent = out.join("\n");
  document.body.appendChild(pre);
});
JS
	browser_run "$TMP/ui.html" "$TMP/harness.js" "$TMP/ui.result"
	got() { grep "^$1=" "$TMP/ui.result" | sed "s/^$1=//"; }
	if [ ! -s "$TMP/ui.result" ]; then
		skip "browser" "chromium did not run the page: $(tail -c 200 "$TMP/chromium.err")"
	else
		deep_fill=$(grep -o '<title>Deep ([^<]*</title><rect [^>]*fill="#[0-9a-f]*"' "$TMP/ui.html" | sed 's/.*fill="//; s/"$//')
		check "browser: the harness ran to its end" 0 "" got error
		check "browser: labels cut to fit" 0 "a_.." got label-before
		check "browser: tooltip on the details line" 0 "Function: a_long_function_name_that_is_cut (3 ms (wall), 2.86%)" got details
		check "browser: click zooms, label re-cut" 0 "a_long_function_name_that_is_cut" got label-zoomed
		check "browser: zoomed frame fills the width" 0 "1180" got width-zoomed
		check "browser: zoom hides other frames" 0 "true" got other-hidden
		check "browser: zoom fades the callers" 0 "true" got main-parent
		check "browser: Reset Zoom shown" 0 "true" got unzoom-shown
		check "browser: zoom kept in the URL" 0 "true" got hash-zoom
		check "browser: Reset Zoom restores" 0 "true" got other-shown
		check "browser: Reset Zoom clears the URL" 0 "none" got hash-unzoom
		check "browser: Ctrl-F focuses the search field" 0 "true" got focused
		check "browser: no prompt() (ignored in a sandboxed frame)" 0 "" sh -c "! grep -q prompt-called '$TMP/ui.result'"
		check "browser: typing a regex searches, Matched %" 0 "Matched: 37.1%" got matched-case
		check "browser: ignore-case toggle" 0 "Matched: 40.0%" got matched-nocase
		check "browser: matches highlighted" 0 "rgb(230,0,230)" got deep-fill
		check "browser: search kept in the URL" 0 "#s=%5E(deep%7Csecond)%24&i=1" got hash-search
		check "browser: a bad regex says so" 0 "Invalid regex,true" got bad-regex
		check "browser: an empty field resets the search" 0 "true,#i=1,$deep_fill" got after-reset
	fi

	# fluid by default: a page fills the window; an <img> (no script) shows
	# the intrinsic 1200 px; a tall flame graph opens scrolled to its root
	awk 'BEGIN { s = "root"; for (i = 0; i < 80; i++) { s = s ";f" i; print s " 1" } print "root;wide 100" }' >"$TMP/tall.folded"
	"$F" "$TMP/tall.folded" >"$TMP/tall.svg"
	"$F" --format html "$TMP/tall.folded" >"$TMP/tall.html"
	cat >"$TMP/fluid.js" <<'JS'
window.addEventListener("load", function () {
  var out = [], svg = document.querySelector("svg"), fr = document.getElementById("frames");
  var img = document.getElementById("img"), root = null;
  for (var i = 0; i < fr.children.length; i++) {
    var g = fr.children[i];
    if (g.querySelector("title").textContent.indexOf("all (") === 0) root = g.querySelector("rect");
  }
  var sw = svg.getBoundingClientRect().width, rb = root.getBoundingClientRect();
  out.push("width-attr=" + svg.getAttribute("width"));
  out.push("viewbox=" + svg.getAttribute("viewBox"));
  out.push("fills-window=" + (Math.abs(sw - document.documentElement.clientWidth) < 1));
  out.push("root-fills=" + (Math.abs(parseFloat(root.getAttribute("width")) - (sw - 20)) < 0.02));
  out.push("scrolled=" + (window.scrollY > 0));
  out.push("root-below=" + (rb.top > window.innerHeight));
  out.push("img=" + img.naturalWidth + "x" + img.naturalHeight);
  var pre = document.createElement("pre");
  pre.id = "result";
  pre.textContent = out.join("\n");
  document.body.appendChild(pre);
});
JS
	{ sed '/<\/body>/,$d' "$TMP/tall.html"; printf '<img id="img" src="tall.svg">\n<script>\n'; cat "$TMP/fluid.js"
	  printf '</script>\n</body>\n</html>\n'; } >"$TMP/fluid.html"
	timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --user-data-dir="$TMP/chromium" \
		--window-size=800,600 --dump-dom "file://$TMP/fluid.html" >"$TMP/dom.html" 2>"$TMP/chromium.err" || true
	sed -n '/<pre id="result">/,/<\/pre>/p' "$TMP/dom.html" | sed 's/<pre id="result">//; s/<\/pre>.*//' >"$TMP/ui.result"
	if [ ! -s "$TMP/ui.result" ]; then
		skip "browser: fluid" "chromium did not run the page: $(tail -c 200 "$TMP/chromium.err")"
	else
		h=$(xmllint --xpath "string(/*/@height)" "$TMP/tall.svg")
		check "browser: fluid: the script sets width 100%" 0 "100%" got width-attr
		check "browser: fluid: and drops the viewBox" 0 "null" got viewbox
		check "browser: fluid: the graph fills the window" 0 "true" got fills-window
		check "browser: fluid: the root frame spans it" 0 "true" got root-fills
		check "browser: <img>: intrinsic size 1200 x height" 0 "1200x$h" got img
		check "browser: tall graph: the page opens at its top, not scrolled" 0 "false" got scrolled
		check "browser: tall graph: the root frame below, as flamegraph.pl's" 0 "true" got root-below
	fi

	# what a screenshot shows (issue 24): a graph taller than the window
	# (one stack of 60 frames, 1046 px, in 800 x 400) was a blank page in
	# headless chromium, its script having scrolled it on load; the pixels
	# are judged, not the DOM: most of the window is frames
	awk 'BEGIN { s = "main"; for (i = 2; i <= 60; i++) s = s ";f" i; print s " 100" }' >"$TMP/deep60.folded"
	"$F" "$TMP/deep60.folded" >"$TMP/deep60.svg"
	"$F" --format html "$TMP/deep60.folded" >"$TMP/deep60.html"
	for page in deep60.svg deep60.html; do
		px=$(browser_shot "$TMP/$page" 800,400)
		warm=$(echo "$px" | sed -n 's/^800x400 warm=\([0-9]*\) .*/\1/p')
		if [ -n "$warm" ] && [ "$warm" -ge $((800 * 400 / 2)) ]; then
			pass "browser: screenshot of a tall graph ($page, 800x400) shows its frames"
		else
			fail "browser: screenshot of a tall graph ($page, 800x400)" "half the pixels frames expected: $px"
		fi
	done
	# the search field as a user sees it: "^f5" typed into it paints
	# f5 and f50..f59, the ten frames at the top of the window, magenta
	{ sed '/^<\/svg>$/,$d' "$TMP/deep60.svg"; cat <<'JS'; } >"$TMP/typed.svg"
<script type="text/ecmascript"><![CDATA[
var field = document.querySelector("#searchbox input");
if (field) { field.value = "^f5"; field.dispatchEvent(new Event("input", { bubbles: true })); }
]]></script>
</svg>
JS
	px=$(browser_shot "$TMP/typed.svg" 800,400)
	match=$(echo "$px" | sed -n 's/^800x400 warm=[0-9]* match=\([0-9]*\)$/\1/p')
	if [ -n "$match" ] && [ "$match" -ge $((10 * 14 * 700)) ]; then
		pass "browser: screenshot: a term typed into the search field paints its matches"
	else
		fail "browser: screenshot of a search typed into the field" "10 frames of magenta expected: $px"
	fi
fi

# ---- compact frames (issue 24): narrow frames in a table, drawn by the script ----
# 300 frames of 0.22 px under "coldgroup" (and their leaves), beside wide ones
awk 'BEGIN { print "main;hot 5000"; print "main;coldgroup;cold_x;deep 30"
	for (i = 0; i < 300; i++) print "main;coldgroup;cold_" i ";leaf_" i " 1" }' >"$TMP/narrow.folded"
"$F" --width 1200 "$TMP/narrow.folded" >"$TMP/compact.svg"
"$F" --width 1200 --compact-width 0 "$TMP/narrow.folded" >"$TMP/full.svg"
check "compact: frames under a pixel are not elements (6 of 606)" 0 "6 606" \
	sh -c "echo \$(grep -c '^<g><title>' '$TMP/compact.svg') \$(grep -c '^<g><title>' '$TMP/full.svg')"
check "compact: the graph is under a third of the size" 0 "" \
	sh -c "[ \$((\$(wc -c <'$TMP/compact.svg') * 3)) -lt \$(wc -c <'$TMP/full.svg') ] || echo bigger"
check "compact: --compact-width 2 leaves coldgroup (73 px) an element" 0 "6" \
	sh -c "'$F' --width 1200 --compact-width 2 '$TMP/narrow.folded' | grep -c '^<g><title>'"
check_error "usage: --compact-width below 0" 2 "--compact-width: expected pixels" "$F" --compact-width -1 "$TMP/narrow.folded"
if [ -n "$CHROMIUM" ] && [ -z "$SANITIZE" ]; then
	cat >"$TMP/compact.js" <<'JS'
(function () {
  var out = [], fr = document.getElementById("frames");
  function find(n) {
    for (var i = 0; i < fr.children.length; i++) {
      var t = fr.children[i].querySelector("title");
      if (t && t.textContent.indexOf(n + " (") === 0) return fr.children[i];
    }
    return null;
  }
  function click(g) { g.querySelector("rect").dispatchEvent(new MouseEvent("click", { bubbles: true })); }
  function type(s) { var f = document.querySelector("#searchbox input"); f.value = s; f.dispatchEvent(new Event("input", { bubbles: true })); }
  try {
    if (location.hash) {
      out.push("loaded-zoom=" + find("leaf_7").querySelector("rect").getAttribute("width") + "," +
        find("hot").classList.contains("hide"));
    } else {
      out.push("slivers=" + (document.querySelectorAll("#grass path").length > 0));
      // a sliver: pointing at it shows its tooltip, clicking it zooms into it
      var path = null, d = null, paths = document.querySelectorAll("#grass path");
      for (var i = 0; i < paths.length && !d; i++) { path = paths[i]; d = /^M(\d+) (\d+)h(\d+)/.exec(path.getAttribute("d")); }
      if (d) {
      var pt = document.documentElement.createSVGPoint();
      pt.x = (+d[1] + d[3] / 2) / 10; pt.y = +d[2] / 10 + 7;
      pt = pt.matrixTransform(fr.getScreenCTM());
      path.dispatchEvent(new MouseEvent("mousemove", { bubbles: true, clientX: pt.x, clientY: pt.y }));
      var tip = document.getElementById("details").textContent.replace(/^Function: /, "");
      var ptip = path.querySelector("title");
      path.dispatchEvent(new MouseEvent("click", { bubbles: true, clientX: pt.x, clientY: pt.y }));
      var z = find(tip.replace(/ \(.*/, ""));
      out.push("sliver=" + /^(cold|leaf)_\d+ \(1 samples, 0.02%\)$/.test(tip) + "," +
        (ptip !== null && ptip.textContent === tip) + "," +
        (z !== null && z.querySelector("title").textContent === tip) + "," +
        (z !== null && z.querySelector("rect").getAttribute("width")));
      document.getElementById("unzoom").dispatchEvent(new MouseEvent("click", { bubbles: true }));
      }
      type("^cold_");
      out.push("matched=" + document.getElementById("matched").textContent);
      out.push("sliver-hit=" + (document.querySelector('#grass path[fill="rgb(230,0,230)"]') !== null));
      type("");
      click(find("coldgroup"));
      var c7 = find("cold_7");
      out.push("cold7=" + (c7 ? c7.querySelector("title").textContent + " " + c7.querySelector("rect").getAttribute("width") +
        " " + c7.querySelector("rect").getAttribute("fill") : "none"));
      click(c7);
      out.push("leaf7=" + find("leaf_7").querySelector("rect").getAttribute("width"));
      out.push("hash=" + location.hash);
    }
  } catch (e) { out.push("error=" + e); }
  var t = document.createElementNS("http://www.w3.org/2000/svg", "text");
  t.id = "result"; t.textContent = out.join("\n"); document.documentElement.appendChild(t);
})();
JS
	browser_run "$TMP/full.svg" "$TMP/compact.js" "$TMP/full.result"
	browser_run "$TMP/compact.svg" "$TMP/compact.js" "$TMP/compact.result"
	if [ ! -s "$TMP/compact.result" ] || [ ! -s "$TMP/full.result" ]; then
		skip "browser: compact" "chromium did not run the page: $(tail -c 200 "$TMP/chromium.err")"
	else
		cgot() { grep "^$1=" "$TMP/compact.result" | sed "s/^$1=//"; }
		fgot() { grep "^$1=" "$TMP/full.result" | sed "s/^$1=//"; }
		check "browser: compact: the harness ran" 0 "" cgot error
		check "browser: compact: narrow frames drawn as slivers" 0 "true" cgot slivers
		check "browser: compact: search counts them (as with every frame an element)" 0 "Matched: 6.2% Matched: 6.2%" \
			sh -c "echo \$(grep '^matched=' '$TMP/compact.result' '$TMP/full.result' | sed 's/.*matched=//')"
		check "browser: compact: and highlights their slivers" 0 "true" cgot sliver-hit
		check "browser: compact: zoomed in, a narrow frame is a frame, as with every frame an element" 0 "$(fgot cold7)" cgot cold7
		check "browser: compact: it zooms in turn" 0 "1180" cgot leaf7
		check "browser: compact: pointing at a sliver shows its tooltip, clicking zooms into it" 0 "true,true,true,1180" cgot sliver
		hash=$(cgot hash)
		browser_run "$TMP/compact.svg" "$TMP/compact.js" "$TMP/compact.result" "$hash"
		check "browser: compact: the URL ($hash) opens the view zoomed into it" 0 "1180,true" cgot loaded-zoom
		a=$(browser_shot "$TMP/compact.svg" 1200,200 | sed -n 's/.* warm=\([0-9]*\) .*/\1/p')
		b=$(browser_shot "$TMP/full.svg" 1200,200 | sed -n 's/.* warm=\([0-9]*\) .*/\1/p')
		if [ -n "$a" ] && [ -n "$b" ] && [ "$b" -gt 0 ] && [ $((a * 100 / b)) -ge 97 ] && [ $((a * 100 / b)) -le 103 ]; then
			pass "browser: compact: a screenshot shows the same graph (frame pixels $a, all elements $b)"
		else
			fail "browser: compact: screenshot" "frame pixels $a, with every frame an element $b"
		fi
	fi
fi

# ---- hostile --nameattr, --diff on stdin twice, --diff across units ----
printf 'main;a 5\nmain;b 3\n' >"$TMP/na.folded"
printf 'a\thref=javascript:alert(1)\nb\tonmouseover=alert(2)\nmain\thref=https://example.com/x\tclass=ok\nb\txlink:href= JavaScript:x\nmain\tsrc=data:text/html,x\n' >"$TMP/na.txt"
run "$F" --nameattr "$TMP/na.txt" "$TMP/na.folded"
if [ "$STATUS" = 1 ] && ! grep -qi 'javascript\|alert\|data:text' "$TMP/stdout" &&
	grep -q 'href="https://example.com/x"' "$TMP/stdout" && grep -q 'class="ok"' "$TMP/stdout" &&
	[ "$(grep -c 'could run script: refused' "$TMP/stderr")" = 4 ]; then
	pass "--nameattr: on* handlers and javascript:/data: URLs refused with file:line, safe attributes kept"
else
	fail "--nameattr script refusal" "exit $STATUS: $(head -c 300 "$TMP/stderr" | tr '\n' '|')"
fi
# keys that make the SVG ill-formed XML (Chromium then draws nothing):
# an undeclared prefix, the reserved xml* names, a key given twice
printf 'a\tdata:x=1\tclass=ok\nb\txmlns=http://example.com/\nmain\tdata-k=1\tdata-k=2\n' >"$TMP/na-xml.txt"
run "$F" --nameattr "$TMP/na-xml.txt" "$TMP/na.folded"
if [ "$STATUS" = 1 ] && xmllint --noout "$TMP/stdout" 2>/dev/null &&
	grep -q 'na-xml.txt:1: attribute key "data:x": a namespace prefix the SVG does not declare' "$TMP/stderr" &&
	grep -q 'na-xml.txt:2: attribute key "xmlns": names starting with xml are reserved' "$TMP/stderr" &&
	grep -q 'na-xml.txt:3: attribute key "data-k" given twice' "$TMP/stderr"; then
	pass "--nameattr: keys making the SVG ill-formed refused with file:line, the SVG well-formed"
else
	fail "--nameattr: ill-formed keys" "exit $STATUS: $(head -c 400 "$TMP/stderr" | tr '\n' '|')"
fi
check_error "--diff - -: standard input cannot be both sides" 2 'cannot both be the standard input' \
	sh -c "'$F' --diff - - <'$TMP/na.folded'"
printf '# unit=ns\nmain;a 5\n' >"$TMP/ns.folded"
printf '# unit=bytes\nmain;a 7\n' >"$TMP/bytes.folded"
run "$F" --diff "$TMP/ns.folded" "$TMP/bytes.folded"
if [ "$STATUS" = 1 ] && [ ! -s "$TMP/stdout" ] && grep -q 'ns.folded is in ns, .*bytes.folded in bytes' "$TMP/stderr"; then
	pass "--diff of ns against bytes is refused, nothing drawn"
else
	fail "--diff across units" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
fi

# ---- --hot-cold: on-CPU (warm) and off-CPU (cool) time in one graph ----
# rgb FILE NAME: "R B" of the fill of the frame NAME; warm NAME FILE: red above blue.
rgb() {
	c=$(fill "$1" "$2")
	[ -n "$c" ] && printf '%d %d\n' "0x$(echo "$c" | cut -c2-3)" "0x$(echo "$c" | cut -c6-7)"
}
warmth() {
	rgb "$1" "$2" | awk '{ print ($1 > $2 ? "warm" : $1 < $2 ? "cool" : "grey") }'
}
# hc_split FILE NAME: "ON OFF" ms of the first frame NAME's tooltip
hc_split() {
	grep -o "<title>$2 ([^<]*" "$1" | head -n 1 | sed 's/.*on-CPU \([0-9.]*\) ms, off-CPU \([0-9.]*\) ms)$/\1 \2/'
}
# proffold_ms FILE EVENT NAME: what proffold -e EVENT folds under frame NAME (all: everything), in ms
proffold_ms() {
	"$BIN/proffold" -q -e "$2" "$1" | awk -v f="$3" '{ n = split($1, a, ";")
		for (i = 1; i <= n; i++) { sub(/_\[[kij]\]$/, "", a[i])	# titles drop the annotation
			if (a[i] == f || f == "all") { s += $NF; break } } }
		END { printf "%.2f\n", s / 1e6 }'
}
# hc_matches SVG TSV NAME...: each frame's split equals proffold's per event
hc_matches() {
	svg=$1 tsv=$2
	shift 2
	for name; do
		want="$(proffold_ms "$tsv" cpu-clock "$name") $(proffold_ms "$tsv" offcpu-time "$name")"
		got=$(hc_split "$svg" "$name")
		[ "$got" = "$want" ] || { echo "$name: graph $got, proffold $want"; return 1; }
	done
	echo ok
}
# 3 s alternating 100 ms busy in work (a 1 ms sample each ms) and 100 ms in nanosleep
# (one on-CPU sample and one 99 ms offcpu-time sample per idle phase)
awk 'BEGIN {
	print "# source=profrec event=cpu-clock,offcpu-time unit=ns,ns"
	print "time_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack"
	for (ms = 0; ms < 3000; ms++) {
		if (int(ms / 100) % 2 == 0) {
			printf "%.0f\t7\t7\tapp\t0\tcpu-clock\t1000000\t1\t%s\n", ms * 1000000, b++ ? "" : "main;work"
		} else if (ms % 100 == 50) {
			printf "%.0f\t7\t7\tapp\t0\tcpu-clock\t1000000\t2\t%s\n", ms * 1000000, w++ ? "" : "main;nanosleep"
			printf "%.0f\t7\t7\tapp\t0\toffcpu-time\t99000000\t2\t\n", ms * 1000000
		}
	}
}' >"$TMP/hc.tsv"
run "$F" --hot-cold --width 1200 "$TMP/hc.tsv"
cp "$TMP/stdout" "$TMP/hc.svg"
titles "$TMP/hc.svg" >"$TMP/hc.titles"
if [ "$STATUS" = 0 ] && [ ! -s "$TMP/stderr" ] && xmllint --noout "$TMP/hc.svg" 2>"$TMP/xml.err"; then
	pass "--hot-cold: well-formed SVG, no notes"
else
	fail "--hot-cold" "exit $STATUS: $(head -c 300 "$TMP/stderr" "$TMP/xml.err")"
fi
check "--hot-cold: title" 0 "Hot/Cold Flame Graph" count "$TMP/hc.svg" "string(//*[@id='title'])"
check "--hot-cold: widths are time, the split in the tooltip" 0 \
	"all (3,000,000,000 ns, 100%; on-CPU 1515.00 ms, off-CPU 1485.00 ms)
main (3,000,000,000 ns, 100.00%; on-CPU 1515.00 ms, off-CPU 1485.00 ms)
nanosleep (1,500,000,000 ns, 50.00%; on-CPU 15.00 ms, off-CPU 1485.00 ms)
work (1,500,000,000 ns, 50.00%; on-CPU 1500.00 ms, off-CPU 0.00 ms)" \
	grep -v '^app ' "$TMP/hc.titles"
check "--hot-cold: work warm, nanosleep cool" 0 "warm cool" \
	echo "$(warmth "$TMP/hc.svg" work)" "$(warmth "$TMP/hc.svg" nanosleep)"
check "--hot-cold: on-CPU and off-CPU per frame = proffold -e cpu-clock / -e offcpu-time" 0 ok \
	hc_matches "$TMP/hc.svg" "$TMP/hc.tsv" all main work nanosleep
check "--hot-cold: the legend" 0 "on-CPU (warm: mostly running)|off-CPU (cool: mostly blocked)|widths: on-CPU + off-CPU time" \
	sh -c "xmllint --xpath \"//*[@id='legend']/*[local-name()='text']/text()\" '$TMP/hc.svg' | paste -sd '|'"
# two profiles ON-CPU OFF-CPU: the same frames
"$BIN/proffold" -q -e cpu-clock "$TMP/hc.tsv" >"$TMP/hc-on.folded"
"$BIN/proffold" -q -e offcpu-time "$TMP/hc.tsv" >"$TMP/hc-off.folded"
"$F" --hot-cold --width 1200 "$TMP/hc-on.folded" "$TMP/hc-off.folded" >"$TMP/hc2.svg"
grep -v '^<g id="legend">' "$TMP/hc2.svg" >"$TMP/hc2.nolegend"
check "--hot-cold ON OFF: the same graph as the recording's" 0 "" sh -c \
	"grep -v '^<g id=\"legend\">' '$TMP/hc.svg' | diff - '$TMP/hc2.nolegend'"
check "--hot-cold ON OFF: the legend names them" 0 "1" sh -c "grep -c 'on-CPU: $TMP/hc-on.folded, off-CPU: $TMP/hc-off.folded' '$TMP/hc2.svg' || true"
printf '# unit=bytes\nmain;malloc 100\n' >"$TMP/hc-bytes.folded"
run "$F" --hot-cold "$TMP/hc-on.folded" "$TMP/hc-bytes.folded"
if [ "$STATUS" = 1 ] && [ ! -s "$TMP/stdout" ] && grep -q 'in ns, off-CPU side .* in bytes: --hot-cold needs one unit' "$TMP/stderr"; then
	pass "--hot-cold: sides of different units refused, nothing drawn"
else
	fail "--hot-cold across units" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
fi
grep -v offcpu-time "$TMP/hc.tsv" >"$TMP/hc-cpu.tsv"
check_error "--hot-cold: a recording without offcpu-time" 1 "no offcpu-time samples" "$F" --hot-cold "$TMP/hc-cpu.tsv"
check_error "--hot-cold: not the standard input" 1 "not the standard input" sh -c "'$F' --hot-cold - <'$TMP/hc.tsv'"
check_error "--hot-cold: three operands" 2 "--hot-cold takes one recording" "$F" --hot-cold "$TMP/hc.tsv" "$TMP/hc.tsv" "$TMP/hc.tsv"
check_error "--hot-cold --diff" 2 "without --diff" "$F" --hot-cold --diff "$TMP/hc-on.folded" "$TMP/hc-off.folded"

# a real recording (profrec -e cpu-clock --off-cpu) of 100 ms of work, 100 ms asleep, 15 times
# tests/tools/stripes: 100 ms of work, 100 ms asleep, fifteen times
if [ -x "$BUILD/tests/tools/stripes" ] &&
	"$BIN/profrec" -q -e cpu-clock --off-cpu -o "$TMP/rec.tsv" -- "$BUILD/tests/tools/stripes" 2>"$TMP/rec.err" &&
	grep -q '	offcpu-time	' "$TMP/rec.tsv" && grep -q '	cpu-clock	' "$TMP/rec.tsv"; then
	run "$F" --hot-cold --minwidth 0 "$TMP/rec.tsv"
	cp "$TMP/stdout" "$TMP/rec.svg"
	# the sleep's frame: of the *nanosleep frames (libc's, the kernel's),
	# the one holding the most blocked time
	sleeper=$(grep -o '<title>[a-z_]*nanosleep [^<]*' "$TMP/rec.svg" |
		sed -n 's/^<title>\([a-z_]*nanosleep\) .*off-CPU \([0-9.]*\) ms.*/\2 \1/p' |
		sort -rn | head -n 1 | cut -d' ' -f2)
	# work is warm unless a loaded machine kept it waiting for a CPU (time
	# spent preempted is off-CPU time too) longer than it ran
	work_temp=$(echo "$(proffold_ms "$TMP/rec.tsv" cpu-clock work) $(proffold_ms "$TMP/rec.tsv" offcpu-time work)" |
		awk '{ print ($1 > $2 ? "warm" : "cool") }')
	check "--hot-cold of a real recording: work $work_temp (as its split), ${sleeper:-nanosleep} cool" 0 "$work_temp cool" \
		echo "$(warmth "$TMP/rec.svg" work)" "$(warmth "$TMP/rec.svg" "${sleeper:-nanosleep}")"
	check "--hot-cold of a real recording: per frame = proffold per event" 0 ok \
		hc_matches "$TMP/rec.svg" "$TMP/rec.tsv" all stripes work "${sleeper:-nanosleep}"
else
	skip "--hot-cold of a real recording" "profrec could not record cpu-clock and offcpu-time here: $(head -c 200 "$TMP/rec.err" 2>/dev/null | tr '\n' ' ')"
fi

# ---- --heatmap: proffold --heatmap's TSV drawn (FlameScope layout) ------
# hm_cells SVG: "second bucket fill" per cell in time order, read back from
# the heat map's paths (a rectangle per run of cells down a column; a cell
# in none is the white grid) placed by the geometry of its table (HMC)
hm_cells() {
	awk '/^<path fill="#[0-9a-f]*" d="/ {
		f = substr($0, 13, 7); d = $0; sub(/.* d="/, "", d); sub(/".*/, "", d)
		n = split(d, r, "z")
		for (i = 1; i < n; i++) { split(r[i], q, /[M hv]/); box[++nb] = q[2] " " q[3] " " q[5] " " f }
	}
	/^var HMC = / {
		line = $0; gsub(/[{},]/, " ", line); n = split(line, a, " ")
		for (i = 1; i < n; i++) if (a[i] ~ /^[a-z]+:$/) v[substr(a[i], 1, length(a[i]) - 1)] = a[i + 1]
	}
	END {
		for (c = 0; c < v["seconds"] * v["per"]; c++) fill[c] = "#ffffff"
		for (i = 1; i <= nb; i++) {
			split(box[i], q, " ")
			s = (q[1] - v["left"]) / v["cw"]; b = (q[2] - v["top"]) / v["ch"]
			for (k = 0; k < q[3] / v["ch"]; k++) fill[s * v["per"] + b + k] = q[4]
		}
		for (c = 0; c < v["seconds"] * v["per"]; c++) print int(c / v["per"]), c % v["per"], fill[c]
	}' "$1"
}
# hm_weights SVG: each cell's weight as its tooltip says it, in time order
hm_weights() {
	sed -n 's/^w: "\(.*\)"};$/\1/p' "$1" | tr ' ' '\n'
}
# 2 s of 250 ms buckets, weights 0..7 in a shuffled order, unit ns
printf '%s\n' '# source=profrec event=cpu-clock unit=ns bucket_ms=250' \
	"$(printf 'second\toffset_ms\tevent\tsamples\tweight')" \
	"$(printf '0\t0\tcpu-clock\t3\t3000000')" "$(printf '0\t250\tcpu-clock\t0\t0')" \
	"$(printf '0\t500\tcpu-clock\t7\t7000000')" "$(printf '0\t750\tcpu-clock\t1\t1000000')" \
	"$(printf '1\t0\tcpu-clock\t6\t6000000')" "$(printf '1\t250\tcpu-clock\t5\t5000000')" \
	"$(printf '1\t500\tcpu-clock\t2\t2000000')" "$(printf '1\t750\tcpu-clock\t4\t4000000')" >"$TMP/hm.tsv"
run "$F" --heatmap "$TMP/hm.tsv"
cp "$TMP/stdout" "$TMP/hm.svg"
if [ "$STATUS" = 0 ] && [ ! -s "$TMP/stderr" ] && xmllint --noout "$TMP/hm.svg" 2>"$TMP/xml.err"; then
	pass "--heatmap: well-formed SVG"
else
	fail "--heatmap: well-formed SVG" "exit $STATUS: $(head -c 300 "$TMP/stderr" "$TMP/xml.err")"
fi
hm_cells "$TMP/hm.svg" >"$TMP/hm.cells"
hm_weights "$TMP/hm.svg" >"$TMP/hm.weights"
check "--heatmap: one cell per second and bucket" 0 "8" sh -c "wc -l <'$TMP/hm.cells'"
# a bucket_ms no proffold --bucket gives (300 ms: not dividing a second)
# was taken silently: said, exit 1
sed 's/bucket_ms=250/bucket_ms=300/' "$TMP/hm.tsv" >"$TMP/hm300.tsv"
check_error "--heatmap: a TSV whose bucket_ms does not divide a second: said, exit 1" 1 \
	"hm300.tsv: bucket_ms=300: not a bucket of at least 1 ms dividing one second evenly" "$F" --heatmap "$TMP/hm300.tsv"
check "--heatmap: a path per colour, white cells not drawn, no <title> per cell" 0 "7 0" sh -c \
	"echo \$(grep -c '^<path fill' '$TMP/hm.svg') \$(grep -c '<title>' '$TMP/hm.svg')"
# colours by weight: sorted by weight, each fill darker (green channel strictly decreasing)
check "--heatmap: cell colours ordered by weight" 0 "ordered 8" sh -c \
	"paste -d ' ' '$TMP/hm.weights' '$TMP/hm.cells' | sed 's/#..\\(..\\)..$/\\1/' |
	 while read w s b g; do echo \"\$w \$((0x\$g))\"; done | sort -n |
	 awk 'NR > 1 && \$2 >= g { bad = 1 } { g = \$2; n++ } END { print (bad ? \"unordered\" : \"ordered\"), n }'"
# the 7 ms of second 0 at 500 ms are the heaviest; second 0 at 250 ms is empty
check "--heatmap: the heaviest cell darkest, an empty one white, offset 0 at the top" 0 "#b41400 #ffffff" sh -c \
	"echo \$(sed -n 's/^0 2 //p' '$TMP/hm.cells') \$(sed -n 's/^0 1 //p' '$TMP/hm.cells')"
check "--heatmap: the tooltips' table: per cell samples and weight, per row its times" 0 \
	'[3,0,7,1,6,5,2,4] 3.00|0.00|7.00|1.00|6.00|5.00|2.00|4.00 ["250","500",0,"250-500"] ["750","000",1,"750-1000"] " ms"' \
	sh -c "echo \$(sed -n 's/^n: \\(.*\\),$/\\1/p' '$TMP/hm.svg') \$(paste -sd '|' '$TMP/hm.weights') \$(grep -o '\\[\"[27]50\"[^]]*\\]' '$TMP/hm.svg') \$(grep -o 'unit: \"[^\"]*\"' '$TMP/hm.svg' | cut -c7-)"
# the SVG alone in a browser: a hovered cell's tooltip, built then by its script
if [ -z "$CHROMIUM" ]; then
	skip "browser: heat map SVG tooltips" "no chromium installed"
elif [ -n "$SANITIZE" ]; then
	skip "browser: heat map SVG tooltips" "not repeated in the sanitizer pass"
else
	cat >"$TMP/hm.js" <<'JS'
window.addEventListener("load", function () {
  var P = profHeatmap, out = [document.getElementById("tooltip") ? "tooltip before" : "none before"];
  [[1, 1], [0, 1], [0, 2], [1, 3]].forEach(function (c) {
    var p = P.client(c[0] * P.D.per + c[1]);
    document.elementFromPoint(p.x, p.y).dispatchEvent(new MouseEvent("mousemove", { bubbles: true, clientX: p.x, clientY: p.y }));
    out.push(document.querySelector("#tooltip text").textContent);
  });
  var t = document.createElementNS("http://www.w3.org/2000/svg", "text");
  t.id = "result";
  t.textContent = out.join("\n");
  document.documentElement.appendChild(t);
});
JS
	browser_run "$TMP/hm.svg" "$TMP/hm.js" "$TMP/hm.result"
	if [ ! -s "$TMP/hm.result" ]; then
		skip "browser: heat map SVG tooltips" "chromium did not run the page: $(tail -c 200 "$TMP/chromium.err")"
	else
		cat >"$TMP/hm.result.expected" <<'EOF'
none before
1.250 s - 1.500 s (second 1, 250-500 ms): 5 samples, 5.00 ms
0.250 s - 0.500 s (second 0, 250-500 ms): 0 samples, 0.00 ms
0.500 s - 0.750 s (second 0, 500-750 ms): 7 samples, 7.00 ms
1.750 s - 2.000 s (second 1, 750-1000 ms): 4 samples, 4.00 ms
EOF
		check_file "browser: the SVG alone: a hovered cell's tooltip (time range, samples, weight), made on demand" 0 \
			"$TMP/hm.result.expected" cat "$TMP/hm.result"
	fi
fi
check "--heatmap: x axis: seconds" 0 "0|1|time (seconds from the start)" sh -c \
	"xmllint --xpath \"//*[@id='xaxis']/*/text()\" '$TMP/hm.svg' | paste -sd '|'"
check "--heatmap: y axis: offsets" 0 "0 ms|250 ms|500 ms|750 ms|offset in the second (250 ms rows)" sh -c \
	"xmllint --xpath \"//*[@id='yaxis']/*/text()\" '$TMP/hm.svg' | paste -sd '|'"
check "--heatmap: colour scale up to the heaviest cell" 0 "7.00 ms (the heaviest cell)" \
	count "$TMP/hm.svg" "string(//*[@id='scalemax'])"
check "--heatmap: the event under the title" 0 "Subsecond Heat Map|event: cpu-clock" sh -c \
	"echo \$(xmllint --xpath \"string(//*[@id='title'])\" '$TMP/hm.svg')'|'\$(xmllint --xpath \"string(//*[@id='subtitle'])\" '$TMP/hm.svg')"
# hostile event names are escaped
printf '%s\n' '# event=<script>alert(1)</script>&x" unit=<b>' \
	"$(printf 'second\toffset_ms\tevent\tsamples\tweight')" \
	"$(printf '0\t0\t<script>alert(1)</script>&x"\t1\t1')" >"$TMP/hostile-hm.tsv"
run "$F" --heatmap --format html "$TMP/hostile-hm.tsv"
if [ "$STATUS" = 0 ] && ! grep -q '<script>alert\|<b>' "$TMP/stdout" && grep -q '&lt;script&gt;alert(1)&lt;/script&gt;&amp;x' "$TMP/stdout" &&
	head -n 1 "$TMP/stdout" | grep -q '^<!DOCTYPE html>' && sed -n '/<svg/,/<\/svg>/p' "$TMP/stdout" | xmllint --noout - 2>/dev/null; then
	pass "--heatmap --format html: hostile event and unit names escaped, well-formed SVG inside"
else
	fail "--heatmap hostile names" "exit $STATUS: $(grep -o '.\{20\}script.\{20\}' "$TMP/stdout" | head -n 3)"
fi
# from proffold --heatmap on a pipe: 3 s of 20 ms buckets, the busy stripes darkest
"$BIN/proffold" -q --heatmap "$TMP/hc.tsv" | "$F" --heatmap >"$TMP/hm2.svg" 2>"$TMP/hm2.err"
hm_cells "$TMP/hm2.svg" >"$TMP/hm2.cells"
check "--heatmap: proffold --heatmap | profflame --heatmap: 150 cells" 0 "150" sh -c "wc -l <'$TMP/hm2.cells'"
check "--heatmap: busy buckets darkest, asleep ones white (or nearly)" 0 "75 busy dark, 75 idle light" sh -c \
	"sed 's/ #..\\(..\\)..$/ \\1/' '$TMP/hm2.cells' |
	 while read s b g; do echo \"\$((0x\$g)) \$((b / 5 % 2))\"; done |
	 awk '\$2 == 0 && \$1 < 40 { d++ } \$2 == 1 && \$1 > 200 { l++ } END { printf \"%d busy dark, %d idle light\\n\", d, l }'"
# a recording drawn directly: the cells of proffold --heatmap's TSV
"$F" --heatmap "$TMP/hc.tsv" >"$TMP/hm3.svg" 2>"$TMP/hm3.err"
check "--heatmap RECORDING: the same cells as proffold --heatmap | profflame --heatmap" 0 "" \
	sh -c "grep -v '^<!-- ' '$TMP/hm2.svg' | diff - '$TMP/hm3.svg'"
"$F" --heatmap --bucket 100ms "$TMP/hc.tsv" >"$TMP/hm4.svg" && hm_cells "$TMP/hm4.svg" >"$TMP/hm4.cells"
check "--heatmap RECORDING --bucket 100ms: 30 cells" 0 "30" sh -c "wc -l <'$TMP/hm4.cells'"
check_error "--heatmap: folded stacks have no times" 1 "no sample times" "$F" --heatmap "$TMP/hc-on.folded"
check_error "--heatmap: a bad --bucket" 2 "--bucket: expected a duration" "$F" --heatmap --bucket 7ms "$TMP/hc.tsv"
check_error "--bucket needs --heatmap" 2 "--bucket needs it" "$F" --bucket 20ms "$TMP/hc.tsv"
printf 'second\toffset_ms\tevent\tsamples\tweight\n0\t0\tx\t1\t1\n0\t2000\tx\t1\t1\n' >"$TMP/bad-hm.tsv"
run "$F" --heatmap "$TMP/bad-hm.tsv"
if [ "$STATUS" = 1 ] && grep -q 'bad-hm.tsv:3: not a proffold-heatmap row' "$TMP/stderr" && grep -qx 'n: \[1\],' "$TMP/stdout"; then
	pass "--heatmap: a malformed row reported with file:line, the rest drawn, exit 1"
else
	fail "--heatmap malformed row" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
fi
check_error "--heatmap: one input" 2 "--heatmap draws one recording or heat map TSV" "$F" --heatmap "$TMP/hm.tsv" "$TMP/hm.tsv"
check_error "--heatmap --hot-cold" 2 "--heatmap draws one recording or heat map TSV" "$F" --heatmap --hot-cold "$TMP/hm.tsv"
"$F" --heatmap --format html "$TMP/hm.tsv" >"$TMP/hm.html"
check "--heatmap --format html of a TSV: no range selection, a note says why" 0 "1 0" \
	sh -c "echo \$(grep -c 'without stacks: draw the recording itself' '$TMP/hm.html') \$(grep -c 'var HM =' '$TMP/hm.html')"

# ---- --heatmap --format html: a range of cells -> its flame graph in the page ----
# 3 s of a recording: work on one of every two 100 ms, a stack per phase of
# the second and a sleeper with uneven weights, so that ranges differ
awk 'BEGIN {
	print "# source=profrec event=cpu-clock unit=ns"
	print "time_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack"
	for (ms = 0; ms < 3000; ms++) {
		if (int(ms / 100) % 2 == 0) {
			id = 1 + int(ms / 250) % 4
			printf "%.0f\t7\t7\tapp\t0\tcpu-clock\t1000000\t%d\t%s\n", ms * 1000000, id,
				seen[id]++ ? "" : "main;work;phase" id
		} else if (ms % 10 == 5) {
			printf "%.0f\t7\t7\tapp\t0\tcpu-clock\t%d\t9\t%s\n", ms * 1000000, 1000000 + ms * 7,
				seen[9]++ ? "" : "main;wait;nanosleep_[k]"
		}
	}
}' >"$TMP/range.tsv"
"$F" --heatmap --format html "$TMP/range.tsv" >"$TMP/range.html" 2>"$TMP/range.err"
check "--heatmap html: 3 s x 50 cells, no <title> per cell (the page's own only)" 0 "150 1" \
	sh -c "echo \$(sed -n 's/^n: \\[\\(.*\\)\\],$/\\1/p' '$TMP/range.html' | tr ',' '\\n' | wc -l) \$(grep -c '<title>' '$TMP/range.html')"
check "--heatmap html: each frame name and each stack once in the page" 0 \
	'names: ["app","main","nanosleep","phase1","phase2","phase3","phase4","wait","work"],|5' \
	sh -c "echo \$(grep '^names:' '$TMP/range.html')'|'\$(grep '^stacks:' '$TMP/range.html' | grep -o '\[[0-9,]*\]' | wc -l)"
# the titles of `proffold --time-from A --time-to B | profflame`: what the page must draw
flame_titles() {
	"$BIN/proffold" -q --time-from "$1" --time-to "$2" "$TMP/range.tsv" | "$F" --width 1200 | titles /dev/stdin
}
fold_total() {
	"$BIN/proffold" -q --time-from "$1" --time-to "$2" "$TMP/range.tsv" | awk '{ s += $NF } END { print s }'
}
if [ -z "$CHROMIUM" ]; then
	skip "browser: heat map ranges" "no chromium installed"
elif [ -n "$SANITIZE" ]; then
	skip "browser: heat map ranges" "not repeated in the sanitizer pass"
else
	# select like a user: two clicks (the later cell first), a drag, a
	# click then a shift-click; write each range graph's titles and command
	cat >"$TMP/range.js" <<'JS'
window.addEventListener("load", function () {
  var out = [], P = profHeatmap;
  /* a mouse event at the centre of cell (s, b), on what is drawn there */
  function ev(s, b, type, shift) {
    var p = P.client(s * P.D.per + b), el = document.elementFromPoint(p.x, p.y) || document.getElementById("cells");
    el.dispatchEvent(new MouseEvent(type, { bubbles: true, shiftKey: !!shift, clientX: p.x, clientY: p.y }));
  }
  function click(s, b, shift) { ev(s, b, "mousedown", shift); ev(s, b, "mouseup", shift); ev(s, b, "click", shift); }
  function tip() { var t = document.querySelector("#tooltip text"); return t ? t.textContent : "none"; }
  function graph(tag) {
    var fr = document.querySelector("#range #frames");
    out.push(tag + " command " + document.getElementById("command").textContent);
    if (!fr) return;
    for (var i = 0; i < fr.children.length; i++)
      out.push(tag + " title " + fr.children[i].querySelector("title").textContent);
  }
  out.push("tooltip before hovering: " + tip());
  ev(1, 12, "mouseover");
  out.push("tooltip 1 12: " + tip());
  ev(0, 7, "mousemove");
  out.push("tooltip 0 7: " + tip());
  click(1, 12); click(0, 7);
  graph("clicks");
  out.push("hash " + location.hash);
  var box = [];
  document.querySelectorAll("#selection rect").forEach(function (r) {
    box.push(["x", "y", "width", "height"].map(function (k) { return r.getAttribute(k); }).join(","));
  });
  out.push("selected " + box.join(" "));
  ev(2, 3, "mousedown"); ev(2, 20, "mousemove"); ev(2, 44, "mousemove"); ev(2, 44, "mouseup");
  graph("drag");
  click(0, 0); click(0, 0, true);
  graph("one");
  click(0, 49); click(1, 0, true);
  graph("shift");
  var pre = document.createElement("pre");
  pre.id = "result";
  pre.textContent = out.join("\n");
  document.body.appendChild(pre);
});
JS
	browser_run "$TMP/range.html" "$TMP/range.js" "$TMP/range.result"
	if [ ! -s "$TMP/range.result" ]; then
		skip "browser: heat map ranges" "chromium did not run the page: $(tail -c 200 "$TMP/chromium.err")"
	else
		# range TAG A B: the page's command is proffold's for [A, B), the
		# drawn graph's titles are those of that command's flame graph, and
		# its root's total is the sum of that command's folded counts
		range() {
			want="proffold --time-from ${2}s --time-to ${3}s $TMP/range.tsv | profflame"
			got=$(sed -n "s/^$1 command //p" "$TMP/range.result")
			[ "$got" = "$want" ] || { echo "$1: command '$got', want '$want'"; return 1; }
			sed -n "s/^$1 title //p" "$TMP/range.result" | sort >"$TMP/range.got"
			flame_titles "$2" "$3" | diff - "$TMP/range.got" >"$TMP/range.diff" ||
				{ echo "$1: titles differ: $(head -c 300 "$TMP/range.diff")"; return 1; }
			total=$(sed -n "s/^$1 title all (\([0-9,]*\) ns, 100%)$/\1/p" "$TMP/range.result" | tr -d ,)
			[ -n "$total" ] && [ "$total" = "$(fold_total "$2" "$3")" ] ||
				{ echo "$1: total $total, proffold $(fold_total "$2" "$3")"; return 1; }
			echo ok
		}
		check "browser: two clicks (later cell first): the range in time order, graph = proffold --time-from/--time-to" 0 ok range clicks 0.14 1.26
		check "browser: the range is kept in the URL" 0 "#range=0.14,1.26" sh -c "sed -n 's/^hash //p' '$TMP/range.result'"
		# outlined: a box from cell (0, 7) to (0, 49), one from (1, 0) to (1, 12)
		# cell (s, b) is at x = left + s * cw, y = top + b * ch (the grid's geometry)
		geo() { sed -n "s/^var HMC = .* $1: \([0-9.]*\),.*/\1/p" "$TMP/range.html"; }
		outline() { echo "$(($(geo left) + $1 * $(geo cw))),$(($(geo top) + $2 * $(geo ch))),$(geo cw),$((($4 - $2 + 1) * $(geo ch)))"; }
		check "browser: the range outlined, a box per column" 0 "$(outline 0 7 0 49) $(outline 1 0 1 12)" \
			sh -c "sed -n 's/^selected //p' '$TMP/range.result'"
		check "browser: a drag across cells" 0 ok range drag 2.06 2.9
		# ms 1240-1259 work 1 ms each; ms 145 and 155 sleep 1,001,015 and 1,001,085 ns
		check "browser: a hovered cell's tooltip, made on demand" 0 \
			"none|1.240 s - 1.260 s (second 1, 240-260 ms): 20 samples, 20.00 ms|0.140 s - 0.160 s (second 0, 140-160 ms): 2 samples, 2.00 ms" \
			sh -c "sed -n 's/^tooltip [^:]*: //p' '$TMP/range.result' | paste -sd '|'"
		check "browser: one cell" 0 ok range one 0 0.02
		check "browser: a click then a shift-click, across a second" 0 ok range shift 0.98 1.02
	fi
fi
