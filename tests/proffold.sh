#!/bin/sh
# proffold: stack samples (perf script, profrec TSV, folded) -> folded stacks.
. "$(dirname "$0")/lib.sh"
F=$BIN/proffold

# ---- golden: byte-identical to stackcollapse-perf.pl ------------------------
if need_corpus "golden perf-fp"; then
	check_file "golden perf-fp" 0 "$CORPUS/perf-fp.folded" "$F" --no-header "$CORPUS/perf-fp.txt"
	check_file "golden perf-dwarf" 0 "$CORPUS/perf-dwarf.folded" "$F" --no-header "$CORPUS/perf-dwarf.txt"
	check_file "golden -j 3 identical" 0 "$CORPUS/perf-dwarf.folded" "$F" -j 3 --no-header "$CORPUS/perf-dwarf.txt"
	check_file "golden from stdin" 0 "$CORPUS/perf-dwarf.folded" sh -c "\"$F\" --no-header <\"$CORPUS/perf-dwarf.txt\""
	gzip -c "$CORPUS/perf-dwarf.txt" >"$TMP/dwarf.txt.gz"
	check_file "golden gzip input" 0 "$CORPUS/perf-dwarf.folded" "$F" --no-header -j 2 "$TMP/dwarf.txt.gz"
	if command -v zstd >/dev/null 2>&1; then
		zstd -q -c "$CORPUS/perf-dwarf.txt" >"$TMP/dwarf.txt.zst"
		check_file "golden zstd input" 0 "$CORPUS/perf-dwarf.folded" "$F" --no-header "$TMP/dwarf.txt.zst"
	else
		skip "golden zstd input" "zstd not installed"
	fi
	"$F" "$CORPUS/perf-fp.txt" >"$TMP/fp.out"
	check "metadata header" 0 "# unit=ns event=cpu-clock source=perf-script" head -n 1 "$TMP/fp.out"
	# folded output read back (folded input detected) gives the same
	"$F" "$CORPUS/perf-fp.txt" >"$TMP/fp.folded"
	check_file "folded input round trip" 0 "$TMP/fp.folded" "$F" "$TMP/fp.folded"
	# merging: the same profile twice doubles every count
	awk '{ $NF = $NF * 2; print }' "$CORPUS/perf-dwarf.folded" >"$TMP/double.folded"
	check_file "merge two inputs" 0 "$TMP/double.folded" "$F" --no-header "$CORPUS/perf-dwarf.txt" "$CORPUS/perf-dwarf.folded"
	# line numbers of bad lines stay right when blocks go to several threads
	{ cat "$CORPUS/perf-dwarf.txt"; echo bogus1; cat "$CORPUS/perf-dwarf.txt"; echo bogus2; } >"$TMP/bad2.txt"
	n1=$(($(wc -l <"$CORPUS/perf-dwarf.txt") + 1))
	check_error "-j 3 reports input line numbers" 1 "bad2.txt:$n1: unrecognized line: bogus1" \
		"$F" -j 3 "$TMP/bad2.txt"
	check_error "-j 3 reports input line numbers (2)" 1 "bad2.txt:$((n1 * 2)): unrecognized line: bogus2" \
		"$F" -j 3 "$TMP/bad2.txt"
	# -o writes atomically, compressed by suffix
	run "$F" -o "$TMP/out.folded.gz" "$CORPUS/perf-dwarf.txt"
	if [ "$STATUS" = 0 ] && gzip -dc "$TMP/out.folded.gz" | sed 1d | cmp -s - "$CORPUS/perf-dwarf.folded"; then
		pass "-o compressed output"
	else
		fail "-o compressed output" "exit $STATUS"
	fi
	# --top: valid proffold-top TSV; the corpus' hottest function is the sort
	"$F" --top 5 "$CORPUS/perf-fp.txt" >"$TMP/top.tsv"
	validate_tsv "--top TSV schema" proffold-top "$TMP/top.tsv"
	check "--top ranks by self" 0 "1	msort_with_tmp.part.0	hot" \
		awk -F '\t' 'NR == 3 { print $1 "\t" $2 "\t" $7 }' "$TMP/top.tsv"
	run "$F" --top 3 --human "$CORPUS/perf-fp.txt"
	if [ "$STATUS" = 0 ] && grep -q '^hottest path' "$TMP/stdout" && grep -q 'hot (self >= 5%)' "$TMP/stdout"; then
		pass "--top --human"
	else
		fail "--top --human" "$(head -c 300 "$TMP/stdout")"
	fi
fi

# ---- perf script rules (more in tests/unit/test_perfscript.c) -------------
cat >"$TMP/snip.txt" <<'SNIP'
io worker 1  5197/5198 [002] 100.000003:     250000 cpu-clock: 
	1000 inner_fn+0x10 (/opt/app)
	1001 outer_fn->mid_fn+0x20 (/opt/app)
	1002 std::function<void (int)>::operator()(int) const+0x5 (/opt/app)
	1003 [unknown] (/usr/lib/libfoo.so.1)
	ffffffff8103ce3b native_safe_halt+0x1b ([kernel.kallsyms])

main 42/42 100.000004: 7 cycles: 
	2000 other (/opt/app)

main 42/42 100.500000: 250000 cpu-clock: 
	2001 f2 (/opt/app)
bogus line

main 42/42 101.000000: 250000 cpu-clock: 
	2002 f3 (/opt/app)
SNIP
check "perf rules" 1 "io_worker;native_safe_halt;[libfoo.so.1];std::function<void ;outer_fn;mid_fn_[i];inner_fn 250000
main;f2 250000
main;f3 250000" "$F" --no-header "$TMP/snip.txt"
check_error "unrecognized line reported with its number" 1 "snip.txt:13: unrecognized line: bogus line" \
	"$F" "$TMP/snip.txt"
check_error "note names the skipped events" 1 "skipped 1 samples of: cycles" "$F" "$TMP/snip.txt"
check "--pid --kernel" 1 "io_worker-?;native_safe_halt_[k];[libfoo.so.1];std::function<void ;outer_fn;mid_fn_[i];inner_fn 250000
main-42;f2 250000
main-42;f3 250000" "$F" --no-header --pid --kernel "$TMP/snip.txt"
check "--event-filter --counts" 1 "# unit=samples event=cycles source=perf-script
main;other 1" "$F" -q --counts -e cycles "$TMP/snip.txt"
check "--cpp-names" 1 "io_worker;native_safe_halt;[libfoo.so.1];std::function<void (int)>::operator();outer_fn;mid_fn_[i];inner_fn 1" \
	"$F" -q --no-header --cpp-names --counts --time-to 0.1 "$TMP/snip.txt"
check "--time-from/--time-to" 1 "main;f2 250000" "$F" -q --no-header --time-from 0.2 --time-to 900ms "$TMP/snip.txt"
check "-q silences notes" 1 "" sh -c "\"$F\" -q \"$TMP/snip.txt\" 2>&1 >/dev/null | grep -v unrecognized"

# Side by side with the reference script when a FlameGraph checkout is
# at hand (FLAMEGRAPH_DIR, default ../ref/FlameGraph), on the snippet
# with a final blank line (the Perl script drops an unterminated sample).
FG=${FLAMEGRAPH_DIR:-$TOP/../ref/FlameGraph}
if [ -f "$FG/stackcollapse-perf.pl" ] && command -v perl >/dev/null 2>&1; then
	{ cat "$TMP/snip.txt"; printf '\njava 7/8 1.0: 3 cpu-clock:\n\t1 Lpkg/C;.m(I)V (/tmp/perf-7.map)\n\t2 [unknown] ([unknown])\n\n'; } >"$TMP/snip2.txt"
	for o in "" --pid --tid --all --addrs "--event-filter=cycles"; do
		perl "$FG/stackcollapse-perf.pl" $o "$TMP/snip2.txt" >"$TMP/ref.folded" 2>/dev/null
		check_file "same as stackcollapse-perf.pl ${o:-(defaults)}" 1 "$TMP/ref.folded" \
			"$F" -q --no-header $o "$TMP/snip2.txt"
	done
else
	skip "same as stackcollapse-perf.pl" "no FlameGraph checkout (FLAMEGRAPH_DIR)"
fi

# ---- profrec sample TSV -----------------------------------------------------
printf '# source=profrec event=cpu-clock unit=ns freq=999 call_graph=fp\n' >"$TMP/s.tsv"
printf 'time_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack\n' >>"$TMP/s.tsv"
printf '100\t10\t11\tmy app\t0\tcpu-clock\t1000\t1\tmain;work;leaf\n' >>"$TMP/s.tsv"
printf '200\t10\t11\tmy app\t1\tcpu-clock\t1000\t1\t\n' >>"$TMP/s.tsv"
printf '300\t10\t12\tmy app\t0\tcycles\t5\t2\tmain;other\n' >>"$TMP/s.tsv"
printf '400\t10\t12\tmy app\t0\tcpu-clock\t1000\t2\t\n' >>"$TMP/s.tsv"
check "profrec TSV" 0 "# source=profrec event=cpu-clock unit=ns freq=999 call_graph=fp
my_app;main;other 1000
my_app;main;work;leaf 2000" "$F" -q "$TMP/s.tsv"
validate_tsv "profrec TSV fixture valid" profrec-samples "$TMP/s.tsv"
check "profrec --tid --counts --time" 0 "my_app-10/11;main;work;leaf 1
my_app-10/12;main;other 1" "$F" -q --no-header --tid --counts --time-from 150ns --time-to 450ns "$TMP/s.tsv"
# a second file concatenated: ids start over
sed 1d "$TMP/s.tsv" | sed 's/main;work;leaf/x;y/; s/main;other/z/' >"$TMP/s2.tsv"
check "profrec concatenated files" 0 "my_app;main;other 1000
my_app;main;work;leaf 2000
my_app;x;y 2000
my_app;z 1000" sh -c "cat \"$TMP/s.tsv\" \"$TMP/s2.tsv\" | \"$F\" -q --no-header"
printf '500\t10\t12\tmy app\t0\tcpu-clock\t1000\t7\t\n600\t1\t1\ta\t0\tcpu-clock\tx\t1\t\n' >>"$TMP/s.tsv"
check_error "profrec undefined stack id" 1 "s.tsv:7: stack_id not defined by an earlier row" "$F" "$TMP/s.tsv"
check_error "profrec bad number" 1 "s.tsv:8: bad number" "$F" "$TMP/s.tsv"

# ---- transformations (folded input) -----------------------------------------
printf 'app;main;f;f;f;leaf 1\napp;main;g;leaf 2\napp;main;h;x 4\nother;main;f 8\n' >"$TMP/t.folded"
check "--focus" 0 "app;main;f;f;f;leaf 1
other;main;f 8" "$F" --no-header --focus '^f$' "$TMP/t.folded"
check "--exclude" 0 "app;main;g;leaf 2
app;main;h;x 4" "$F" --no-header --exclude '^f$' "$TMP/t.folded"
check "--collapse-recursion" 0 "app;main;f;leaf 1
app;main;g;leaf 2
app;main;h;x 4
other;main;f 8" "$F" --no-header --collapse-recursion "$TMP/t.folded"
check "--strip-comm merges" 0 "main;f 8
main;f;f;f;leaf 1
main;g;leaf 2
main;h;x 4" "$F" --no-header --strip-comm "$TMP/t.folded"
check "--skip-after" 0 "app;main;h;x 4
f 8
f;leaf 1" "$F" --no-header --skip-after f --exclude '^g$' "$TMP/t.folded"
check "--max-depth" 0 "app;main 7
other;main 8" "$F" --no-header --max-depth 2 "$TMP/t.folded"
check "--reverse" 0 "f;main;other 8
leaf;f;f;f;main;app 1
leaf;g;main;app 2
x;h;main;app 4" "$F" --no-header --reverse "$TMP/t.folded"
printf 'a;b 3 5\na;c 1 0\n' >"$TMP/diff.folded"
check "two-count folded kept" 0 "b 3 5
c 1 0" "$F" --no-header --strip-comm "$TMP/diff.folded"
printf 'a;b 3\nno count here\na;c x\n' >"$TMP/bad.folded"
check_error "malformed folded line" 1 "bad.folded:2: missing count" "$F" "$TMP/bad.folded"
check "malformed folded: rest kept" 1 "a;b 3" "$F" --no-header "$TMP/bad.folded"

# ---- usage and errors ----------------------------------------------------
check_error "missing file" 1 "proffold: $TMP/nope: No such file" "$F" "$TMP/nope"
check_error "bad option" 2 "usage: proffold" "$F" --bogus
check_error "bad regex" 2 "bad regex" "$F" --focus '(' "$TMP/t.folded"
check_error "bad jobs" 2 "--jobs" "$F" -j 0 "$TMP/t.folded"
check_error "--human without --top" 2 "needs --top" "$F" --human "$TMP/t.folded"
run "$F" --help
if [ "$STATUS" = 0 ] && grep -q "^usage: proffold \[-ahqv\]" "$TMP/stdout"; then
	pass "--help"
else
	fail "--help" "exit $STATUS"
fi
run "$F" --list-options
if [ "$STATUS" = 0 ] && grep -qx -- "--focus=" "$TMP/stdout" && grep -qx -- "--reverse" "$TMP/stdout"; then
	pass "--list-options"
else
	fail "--list-options" "exit $STATUS"
fi
if command -v mandoc >/dev/null 2>&1; then
	assert "man page lint" mandoc -Tlint -W warning "$TOP/man/proffold.1"
	# every long option is documented in the man page and in --help
	missing=
	for o in $("$F" --list-options | sed 's/=$//; s/^--//'); do
		grep -q -- "Fl -$o\b" "$TOP/man/proffold.1" || missing="$missing man:$o"
		"$F" --help | grep -q -- "--$o\b" || missing="$missing help:$o"
	done
	if [ -z "$missing" ]; then pass "options documented"; else fail "options documented" "$missing"; fi
	syn=$(mandoc -Tascii "$TOP/man/proffold.1" 2>/dev/null | col -bx | awk '/^SYNOPSIS/ { getline; while ($0 ~ /[^ ]/) { s = s " " $0; getline } print s }' | tr -s ' ' | sed 's/^ //')
	check "usage line equals man SYNOPSIS" 0 "usage: $syn" sh -c "\"$F\" --help | head -n 1"
else
	skip "man page lint" "mandoc not installed"
fi
