#!/bin/sh
# profcmp: profiles compared function by function, tables row by row,
# the CI gate, the differential folded form, errors.
. "$(dirname "$0")/lib.sh"
P=$BIN/profcmp
F=$BIN/proffold
DATA=$TESTS/data

# ---- profiles: a real capture (perf script of tests/data/perf-work.cc) ----
"$F" "$DATA/perf-g.txt.gz" >"$TMP/g.folded"

run "$P" "$DATA/perf-g.txt.gz" "$TMP/g.folded"
if [ "$STATUS" = 0 ] && [ "$(grep -v '^#' "$TMP/stdout" | sed 1d | cut -f9 | sort -u)" = same ]; then
	pass "a profile against itself (perf script vs its folded form): every function same"
else
	fail "a profile against itself" "exit $STATUS: $(head -c 300 "$TMP/stdout" | tr '\n\t' '| ')"
fi
validate_tsv "function table is valid profcmp-functions TSV" profcmp-functions "$TMP/stdout"
check_status "a profile against itself passes the gate at 0%" 0 "$P" --fail-above 0 "$TMP/g.folded" "$DATA/perf-g.txt.gz"

# self and total are proffold --top's, to the unit
"$P" --no-normalize "$TMP/g.folded" "$TMP/g.folded" | grep -v '^#' | sed 1d |
	awk -F'\t' '$2 > 0 { print $1 "\t" $2 "\t" $4 }' | sort >"$TMP/cmp"
"$F" --top 1000 "$TMP/g.folded" | grep -v '^#' | sed 1d | awk -F'\t' '$3 > 0' | cut -f2,3,5 | sort >"$TMP/top"
if [ -s "$TMP/top" ] && cmp -s "$TMP/top" "$TMP/cmp"; then
	pass "self and total per function equal proffold --top's"
else
	fail "self and total equal proffold --top's" "$(diff "$TMP/top" "$TMP/cmp" | head -5 | tr '\n\t' '| ')"
fi

# A synthetic regression: the stacks ending in calc::...::sum weigh twice as much.
grep -v '^#' "$TMP/g.folded" | awk '{ n = $NF; sub(/ [0-9]+$/, ""); if ($0 ~ /::sum$/) n *= 2; print $0 " " n }' >"$TMP/slow.folded"
run "$P" --no-normalize --fail-above 5 "$TMP/g.folded" "$TMP/slow.folded"
first=$(grep -v '^#' "$TMP/stdout" | sed -n 2p | cut -f1,7,8,9)
if [ "$STATUS" = 1 ] && [ "$first" = "$(printf 'calc::Acc<unsigned long>::sum\t100\t2\tworse')" ] &&
	grep -q 'regression: calc::Acc<unsigned long>::sum self +100.0% (limit 5%)' "$TMP/stderr"; then
	pass "doubled function: first, ratio 2, +100%, gate fails naming it"
else
	fail "doubled function reported first, gate fails" "exit $STATUS, first row '$first', stderr $(head -c 300 "$TMP/stderr")"
fi
# Normalized: its share goes from s/T to 2s/(T+s).
run "$P" "$TMP/g.folded" "$TMP/slow.folded"
want=$(grep -v '^#' "$TMP/g.folded" | awk '{ t += $NF; if ($0 ~ /::sum [0-9]+$/) s += $NF } END { printf "%.6g", (2 * s / (t + s)) / (s / t) }')
got=$(grep -v '^#' "$TMP/stdout" | sed -n 2p | cut -f8)
if awk -v a="$want" -v b="$got" 'BEGIN { exit !(b > 0 && (a - b) ^ 2 < 1e-10) }'; then
	pass "normalized: the share ratio is 2T/(T+s) ($got)"
else
	fail "normalized share ratio" "want $want, got $got"
fi
check_status "the gate on another function is not tripped by it" 0 "$P" --fail-above 5 --function do_syscall_64 --no-normalize "$TMP/g.folded" "$TMP/slow.folded"
check_error "the gate on a function neither profile has" 1 "no function 'nosuch'" "$P" --fail-above 5 --function nosuch "$TMP/g.folded" "$TMP/slow.folded"

# --human: regressions first, the verdict last
run "$P" --human --fail-above 5 "$TMP/g.folded" "$TMP/slow.folded"
if [ "$STATUS" = 1 ] && sed -n 2p "$TMP/stdout" | grep -q '^calc::Acc<unsigned long>::sum .* +[0-9.]*% *worse$' &&
	tail -n 1 "$TMP/stdout" | grep -q '^gate: FAIL: 1 function regressed by more than 5%$'; then
	pass "--human: aligned, regression first, the gate's verdict last"
else
	fail "--human" "exit $STATUS: $(head -c 400 "$TMP/stdout" | tr '\n' '|')"
fi
run "$P" --human --fail-above 5 "$TMP/g.folded" "$TMP/g.folded"
if [ "$STATUS" = 0 ] && tail -n 1 "$TMP/stdout" | grep -q '^gate: pass'; then
	pass "--human: a passing gate says so last"
else
	fail "--human passing gate" "exit $STATUS: $(tail -n 2 "$TMP/stdout" | tr '\n' '|')"
fi

# --top, --min-delta, --total
printf 'm;a 100\nm;b 50\nm;b;c 50\n' >"$TMP/b.folded"
printf 'm;a 100\nm;b 100\nm;b;c 50\nm;d 1\n' >"$TMP/n.folded"
check "--top 1 keeps the largest change" 0 "$(printf 'b\t50\t100\t100\t150\t50\t100\t2\tworse')" \
	sh -c "'$P' --no-normalize -n 1 '$TMP/b.folded' '$TMP/n.folded' | sed 1,2d"
run "$P" --min-delta 1 "$TMP/b.folded" "$TMP/n.folded"
if [ "$STATUS" = 0 ] && ! grep -q '^d	' "$TMP/stdout" && grep -q '^b	' "$TMP/stdout"; then
	pass "--min-delta 1 drops a change of 0.4 points, keeps one of 14"
else
	fail "--min-delta" "$(cat "$TMP/stdout" | tr '\n\t' '| ')"
fi
check "--total ranks by total weight (the root grew most)" 0 "$(printf 'm\t0\t0\t200\t251\t51\t25.5\t1.255\tworse')" \
	sh -c "'$P' --no-normalize -t -n 1 '$TMP/b.folded' '$TMP/n.folded' | sed 1,2d"
check_status "a new function trips the gate" 1 "$P" --fail-above 50 --function d "$TMP/b.folded" "$TMP/n.folded"

# --folded-diff: difffolded.pl's form, drawn by profflame --diff
check "--folded-diff: every stack with both counts" 0 "$(printf 'm;a 100 100\nm;b 50 100\nm;b;c 50 50\nm;d 0 1')" \
	sh -c "'$P' --folded-diff '$TMP/b.folded' '$TMP/n.folded' | grep -v '^#'"
run sh -c "'$P' --folded-diff '$TMP/g.folded' '$TMP/slow.folded' | '$BIN/profflame' --diff"
if [ "$STATUS" = 0 ] && grep -q 'Differential Flame Graph' "$TMP/stdout" && grep -q 'sum' "$TMP/stdout"; then
	pass "profcmp --folded-diff | profflame --diff draws the differential graph"
else
	fail "--folded-diff | profflame --diff" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
fi

# perf script input with a zero-period sample (the reader marks those in a
# second weight column, which must not leak into the NEW count)
printf 'app 1 1.000000:          0 cpu-clock: \n\t            1000 main+0x1 (/app)\n\napp 1 1.001000:        100 cpu-clock: \n\t            1000 main+0x1 (/app)\n\n' >"$TMP/zp.txt"
check "--folded-diff of perf script with a zero period: equal counts on both sides" 0 "app;main $("$F" --no-header "$TMP/zp.txt" | cut -d' ' -f2) $("$F" --no-header "$TMP/zp.txt" | cut -d' ' -f2)" \
	sh -c "'$P' --folded-diff '$TMP/zp.txt' '$TMP/zp.txt' | grep -v '^#'"

# inputs: compressed, standard input
gzip -c "$TMP/n.folded" >"$TMP/n.folded.gz"
check "compressed input and standard input" 0 "$(printf 'b\t50\t100\t100\t150\t50\t100\t2\tworse')" \
	sh -c "'$P' --no-normalize -n 1 - '$TMP/n.folded.gz' <'$TMP/b.folded' | sed 1,2d"

# errors
printf '# unit=bytes\nm;a 100\n' >"$TMP/bytes.folded"
printf '# unit=samples\nm;a 100\n' >"$TMP/samples.folded"
check_error "profiles of different units are refused" 1 'bytes.folded is in bytes, .*samples.folded in samples' \
	"$P" "$TMP/bytes.folded" "$TMP/samples.folded"
printf 'm;a 100\nm;b lots\nm;c 5\n' >"$TMP/bad.folded"
check_error "a malformed line: file and line named, exit 1" 1 'bad.folded:2:' "$P" "$TMP/b.folded" "$TMP/bad.folded"
check_error "a missing input" 1 'nosuch.folded' "$P" "$TMP/b.folded" "$TMP/nosuch.folded"
check_error "one input is a usage error" 2 'two inputs needed' "$P" "$TMP/b.folded"
check_error "three inputs are a usage error" 2 'too many inputs' "$P" "$TMP/b.folded" "$TMP/b.folded" "$TMP/b.folded"
check_error "--fail-above needs a percentage" 2 "bad --fail-above 'x'" "$P" --fail-above x "$TMP/b.folded" "$TMP/n.folded"
check_error "--key is for tables" 2 'are for tables' "$P" --key a "$TMP/b.folded" "$TMP/n.folded"

# ---- tables ----
hdr='input	codec	level	block_bytes	orig_bytes	comp_bytes	ratio	comp_mb_per_s	decomp_mb_per_s	status	flags'
{
	echo '# source=profcompress'
	echo "$hdr"
	for s in 400 410 405; do
		printf 'a.txt\tzstd\t1\t0\t1000\t500\t2.000\t%s\t900\tok\t-\n' "$s"
		printf 'a.txt\tlz4\t1\t0\t1000\t600\t1.667\t%s\t4000\tok\t-\n' "$((s + 600))"
	done
} >"$TMP/base.tsv"
{
	echo '# source=profcompress'
	echo "$hdr"
	for s in 402 398 409; do
		printf 'a.txt\tzstd\t1\t0\t1000\t500\t2.000\t%s\t900\tok\t-\n' "$s"
		printf 'a.txt\tlz4\t1\t0\t1000\t600\t1.667\t%s\t3000\tok\t-\n' "$((s + 600))"
	done
} >"$TMP/new.tsv"
run "$P" --fail-above 10 "$TMP/base.tsv" "$TMP/new.tsv"
row=$(grep -v '^#' "$TMP/stdout" | sed -n 2p | cut -f1,2,3,4,7,11,13)
if [ "$STATUS" = 1 ] && [ "$row" = "$(printf 'a.txt,lz4,1,0\tdecomp_mb_per_s\thigher\t4000\t3000\t-25\tworse')" ] &&
	grep -q 'regression: a.txt,lz4,1,0 decomp_mb_per_s -25.0% (limit 10%, higher is better)' "$TMP/stderr" &&
	[ "$(grep -c regression: "$TMP/stderr")" = 1 ]; then
	pass "tables: a 25% slower decompression fails the gate, first row, alone"
else
	fail "tables: regression" "exit $STATUS, row '$row', stderr $(head -c 300 "$TMP/stderr" | tr '\n' '|')"
fi
validate_tsv "table comparison is valid profcmp-table TSV" profcmp-table "$TMP/stdout"
zstd_row=$(grep -v '^#' "$TMP/stdout" | awk -F'\t' '$1 == "a.txt,zstd,1,0" && $2 == "comp_mb_per_s" { print $4, $5, $6, $7, $8, $9, $13 }')
if [ "$zstd_row" = "405 400 3 402 398 3 noise" ]; then
	pass "tables: repeated runs summarized (median, min, runs); a change inside the spread is noise"
else
	fail "tables: repeated runs" "'$zstd_row'"
fi
check_status "tables: runs within their spread pass the gate" 0 "$P" --fail-above 1 --metric comp_mb_per_s "$TMP/base.tsv" "$TMP/new.tsv"
check "tables: --key and --metric choose the columns" 0 "$(printf 'lz4\tdecomp_mb_per_s\t-25\tworse\nzstd\tdecomp_mb_per_s\t0\tsame')" \
	sh -c "'$P' --key codec --metric decomp_mb_per_s '$TMP/base.tsv' '$TMP/new.tsv' | grep -v '^#' | sed 1d | cut -f1,2,11,13"
check "tables: --lower-better turns a drop into an improvement" 0 "better" \
	sh -c "'$P' --key codec --metric decomp_mb_per_s --lower-better decomp_mb_per_s '$TMP/base.tsv' '$TMP/new.tsv' | grep -v '^#' | sed -n 2p | cut -f13"
check_error "tables: an unknown --key column" 1 "no column 'nosuch' in" "$P" --key nosuch "$TMP/base.tsv" "$TMP/new.tsv"
printf 'name\tvalue\nparse\t100\nrender\t300\n' >"$TMP/t1.tsv"
printf 'name\tvalue\nparse\t100\nrender\t360\n' >"$TMP/t2.tsv"
check "tables: a name/value list with a header" 0 "$(printf 'render\tvalue\tlower\t300\t360\t20\tworse')" \
	sh -c "'$P' --fail-above 10 '$TMP/t1.tsv' '$TMP/t2.tsv' 2>/dev/null | grep -v '^#' | sed -n 2p | cut -f1,2,3,4,7,11,13"
check "tables: without a header, columns are named by position" 0 "$(printf 'render\t2\t300\t360\t20\tworse')" \
	sh -c "sed 1d '$TMP/t1.tsv' | '$P' - '$TMP/t2.tsv' 2>/dev/null; sed 1d '$TMP/t2.tsv' >'$TMP/t2n.tsv'; sed 1d '$TMP/t1.tsv' | '$P' - '$TMP/t2n.tsv' | grep -v '^#' | sed -n 2p | cut -f1,2,4,7,11,13"
printf 'parse 100\nrender 300\n' >"$TMP/s1.txt"
printf 'parse 100\nrender 240\n' >"$TMP/s2.txt"
check "tables: --table reads blank-separated name value lists" 0 "$(printf 'render\t300\t240\t-20\tbetter')" \
	sh -c "'$P' --table '$TMP/s1.txt' '$TMP/s2.txt' | grep -v '^#' | sed -n 2p | cut -f1,4,7,11,13"
printf 'name\tvalue\nparse\t100\nrender\t300\textra\n' >"$TMP/t3.tsv"
check_error "tables: a row with the wrong field count is named and counted" 1 't3.tsv:3: 3 fields, expected 2' \
	"$P" "$TMP/t1.tsv" "$TMP/t3.tsv"
# Tables are read through the shared line cap: a long line is named, the
# rows before it compared, none after it read (issue 25), exit 1 ...
{ printf 'name\tvalue\nparse\t100\n'; head -c 5000 /dev/zero | tr '\0' x; printf '\t1\nrender\t300\n'; } >"$TMP/tl.tsv"
PROFTOOLS_MAX_LINE=4096 run "$P" "$TMP/tl.tsv" "$TMP/t2.tsv"
if [ "$STATUS" = 1 ] &&
	[ "$(cat "$TMP/stderr")" = "profcmp: $TMP/tl.tsv:3: line longer than 4096 bytes (PROFTOOLS_MAX_LINE raises the cap)" ] &&
	[ "$(grep -v '^#' "$TMP/stdout" | sed 1d | cut -f1,4,7,13 | tr '\n' ' ')" = "$(printf 'parse\t100\t100\tsame render\t\t360\tadded ')" ]; then
	pass "tables: a line over PROFTOOLS_MAX_LINE is named, the rows before it compared, exit 1"
else
	fail "tables: long line" "exit $STATUS: $(head -c 300 "$TMP/stderr") | $(head -c 300 "$TMP/stdout")"
fi
# ... and memory stays bounded: 300 MB in one line through 150 MB of
# address space (the whole file was once read into memory).
if [ -z "$SANITIZE" ]; then
	STATUS=0
	( ulimit -v 150000
	  { printf 'name\tvalue\nparse\t100\n'; head -c 300M /dev/zero; printf '\nrender\t300\n'; } |
		"$P" --table /dev/stdin "$TMP/t2.tsv" >"$TMP/stdout" 2>"$TMP/stderr" ) || STATUS=$?
	if [ "$STATUS" = 1 ] && grep -q '^profcmp: /dev/stdin:3: line longer than 16777216 bytes' "$TMP/stderr" &&
		[ "$(grep -v '^#' "$TMP/stdout" | sed 1d | cut -f1,13 | tr '\n' ' ')" = "$(printf 'parse\tsame render\tadded ')" ]; then
		pass "tables: a 300 MB line within 150 MB of address space, stopped at the default 16 MiB cap"
	else
		fail "tables: bounded memory" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
	fi
fi
check_error "a table and a profile do not compare" 1 'is a table, .* a profile' "$P" "$TMP/t1.tsv" "$TMP/b.folded"
check_error "--folded-diff is for profiles" 2 'folded-diff' "$P" --folded-diff "$TMP/t1.tsv" "$TMP/t2.tsv"

# profrec TSV inputs are profiles, -e picks the event
{
	printf '# source=profrec event=cpu-clock,offcpu-time unit=ns,ns\n'
	printf 'time_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack\n'
	printf '1\t1\t1\tapp\t0\tcpu-clock\t10\t0\tmain;work\n'
	printf '2\t1\t1\tapp\t0\toffcpu-time\t99\t1\tmain;sleep\n'
	printf '3\t1\t1\tapp\t0\tcpu-clock\t10\t0\t\n'
} >"$TMP/rec.tsv"
check "profrec TSV: the first event by default" 0 "$(printf 'work\t20\t20\tsame')" \
	sh -c "'$P' --no-normalize '$TMP/rec.tsv' '$TMP/rec.tsv' | grep -v '^#' | sed 1d | cut -f1,2,3,9"
check "profrec TSV: -e offcpu-time" 0 "$(printf 'sleep\t99\t99\tsame')" \
	sh -c "'$P' --no-normalize --event-filter offcpu-time '$TMP/rec.tsv' '$TMP/rec.tsv' | grep -v '^#' | sed 1d | cut -f1,2,3,9"
# standard input is copied to a temporary file (it is read twice), but
# messages and the metadata name it <stdin>, not that file
printf 'main;a 4\nmain;b\n' >"$TMP/bad.folded"
check_error "stdin: a malformed line is named <stdin>:LINE" 1 '^profcmp: <stdin>:2: ' \
	sh -c "'$P' - '$TMP/b.folded' <'$TMP/bad.folded'"
check "stdin: the metadata names it base=<stdin>" 0 "base=<stdin> new=$TMP/b.folded" \
	sh -c "'$P' - '$TMP/b.folded' <'$TMP/bad.folded' 2>/dev/null | head -n 1 | grep -o 'base=[^ ]* new=[^ ]*'"
