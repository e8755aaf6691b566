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
	grep -q 'regression: calc::Acc<unsigned long>::sum self 64.1 ms -> 128 ms, +100.0% (.*; limit 5%)' "$TMP/stderr"; then
	pass "doubled function: first, ratio 2, +100%, gate fails naming it"
else
	fail "doubled function reported first, gate fails" "exit $STATUS, first row '$first', stderr $(head -c 300 "$TMP/stderr")"
fi
# Normalized: its share goes from s/T to 2s/(T+s).
run "$P" --normalize "$TMP/g.folded" "$TMP/slow.folded"
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
if [ "$STATUS" = 1 ] && sed -n 6p "$TMP/stdout" | grep -q '^calc::Acc<unsigned long>::sum .* +[0-9.]*% .* worse$' &&
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
	sh -c "'$P' --no-normalize -n 1 '$TMP/b.folded' '$TMP/n.folded' | sed 1,2d | cut -f1-9"
run "$P" --min-delta 1 "$TMP/b.folded" "$TMP/n.folded"
if [ "$STATUS" = 0 ] && ! grep -q '^d	' "$TMP/stdout" && grep -q '^b	' "$TMP/stdout"; then
	pass "--min-delta 1 drops a change of 0.4 points, keeps one of 14"
else
	fail "--min-delta" "$(cat "$TMP/stdout" | tr '\n\t' '| ')"
fi
# 200 -> 251 samples: 2.4 standard errors (sqrt(451) = 21.2), within the noise
check "--total ranks by total weight (the root grew most)" 0 "$(printf 'm\t0\t0\t200\t251\t51\t25.5\t1.255\tnoise\t100\t100\t2.4')" \
	sh -c "'$P' --no-normalize -t -n 1 '$TMP/b.folded' '$TMP/n.folded' | sed 1,2d | cut -f1-12"
check_status "a function new with 1 sample is noise, not a regression" 0 "$P" --fail-above 50 --function d "$TMP/b.folded" "$TMP/n.folded"
sed 's/^m;d 1$/m;d 30/' "$TMP/n.folded" >"$TMP/n30.folded"
check_error "a function new with 30 samples trips the gate, named with its amounts" 1 \
	'regression: d is new: 0 -> 30 .5.5 standard errors.' "$P" --fail-above 50 --function d "$TMP/b.folded" "$TMP/n30.folded"

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
	sh -c "'$P' --no-normalize -n 1 - '$TMP/n.folded.gz' <'$TMP/b.folded' | sed 1,2d | cut -f1-9"

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
	grep -q 'regression: a.txt,lz4,1,0 decomp_mb_per_s 4000 -> 3000, -25.0% (limit 10%, higher is better)' "$TMP/stderr" &&
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

# ---- gates never pass on what they could not judge (issue 25 B, C) ----
# Each input that holds nothing to compare is named, exit 1, and nothing
# is written (a CI step reading the TSV must not find a comparison).
printf 'm;a 100\nm;b 50\n' >"$TMP/g1.folded"
: >"$TMP/empty.folded"
printf '# unit=samples event=cpu-clock\n' >"$TMP/header.folded"
printf 'm;a 0\nm;b 0\n' >"$TMP/zeros.folded"
gzip -c "$TMP/g.folded" | head -c 200 >"$TMP/cut.folded.gz"
for bad in empty header zeros; do
	run "$P" --fail-above 5 "$TMP/g1.folded" "$TMP/$bad.folded"
	if [ "$STATUS" = 1 ] && grep -q "^profcmp: $TMP/$bad.folded: no samples" "$TMP/stderr" && [ ! -s "$TMP/stdout" ]; then
		pass "gate: new input '$bad' is named, exit 1, nothing written"
	else
		fail "gate: new input '$bad'" "exit $STATUS: $(head -c 300 "$TMP/stderr") | $(head -c 100 "$TMP/stdout")"
	fi
done
check_error "gate: an empty base is named too" 1 "empty.folded: no samples" \
	"$P" --fail-above 5 "$TMP/empty.folded" "$TMP/g1.folded"
run "$P" --fail-above 5 "$TMP/empty.folded" "$TMP/empty.folded"
if [ "$STATUS" = 1 ] && [ "$(grep -c 'empty.folded: no samples' "$TMP/stderr")" = 2 ]; then
	pass "gate: both inputs empty: both named, exit 1"
else
	fail "gate: both empty" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
fi
check_error "gate: truncated gzip is named, exit 1" 1 "cut.folded.gz: truncated" \
	"$P" --fail-above 5 "$TMP/g.folded" "$TMP/cut.folded.gz"
if have zstd; then
	zstd -q -c "$TMP/g.folded" | head -c 200 >"$TMP/cut.folded.zst"
	check_error "gate: truncated zstd is named, exit 1" 1 "cut.folded.zst: truncated" \
		"$P" --fail-above 5 "$TMP/g.folded" "$TMP/cut.folded.zst"
else
	skip "gate: truncated zstd" "zstd not installed"
fi
check_error "gate: /dev/null is refused by name, exit 1" 1 \
	'^profcmp: /dev/null: not a regular file, pipe or socket \(a character device\)' \
	"$P" --fail-above 5 "$TMP/g1.folded" /dev/null
# <(...) is a pipe: read once (it used to be sniffed, then read again as empty)
if [ -n "$BASH_VERSION" ] || have bash; then
	run bash -c '"$1" --no-normalize "$2" <(cat "$2") | sed 1,2d | cut -f1,9 | tr "\n\t" "| "' sh "$P" "$TMP/g1.folded"
	if [ "$STATUS" = 0 ] && [ "$(cat "$TMP/stdout")" = "a same|b same|" ]; then
		pass "a process substitution <(...) is read, not taken as empty"
	else
		fail "process substitution" "exit $STATUS: $(cat "$TMP/stdout") $(head -c 200 "$TMP/stderr")"
	fi
fi
# a FIFO: read once as a stream, no hang (it was opened a second time, with no writer left)
mkfifo "$TMP/fifo"
cat "$TMP/g1.folded" >"$TMP/fifo" &
run timeout 20 "$P" --no-normalize "$TMP/g1.folded" "$TMP/fifo"
wait
if [ "$STATUS" = 0 ] && [ "$(sed 1,2d "$TMP/stdout" | cut -f1,9 | tr '\n\t' '| ')" = "a same|b same|" ] &&
	grep -q "new=$TMP/fifo" "$TMP/stdout"; then
	pass "a FIFO is read once as a stream, named by its path, no hang"
else
	fail "FIFO input" "exit $STATUS: $(head -c 200 "$TMP/stdout") $(head -c 200 "$TMP/stderr")"
fi
# table cells that hide a value: named with file:line, exit 1
printf 'name\tthroughput_per_s\nparse\t100\nrender\t300\n' >"$TMP/v1.tsv"
for cell in nan 1e400 n/a inf; do
	printf 'name\tthroughput_per_s\nparse\t%s\nrender\t60\n' "$cell" >"$TMP/v2.tsv"
	check_error "tables: a cell '$cell' is named file:line, exit 1" 1 \
		"v2.tsv:2: column 'throughput_per_s': '$cell' is not a finite number" \
		"$P" --fail-above 5 "$TMP/v1.tsv" "$TMP/v2.tsv"
done
printf 'name\tcost_ns\nparse\t0\nrender\t300\n' >"$TMP/c0.tsv"
printf 'name\tcost_ns\nparse\t1000000\nrender\t300\n' >"$TMP/c1.tsv"
check_error "tables: a cost from 0 to 1,000,000 fails the gate" 1 \
	'regression: parse cost_ns 0 -> 1000000' "$P" --fail-above 5 "$TMP/c0.tsv" "$TMP/c1.tsv"
printf 'm;a 1000\n' >"$TMP/a1000.folded"
printf 'm;a 1000\nm;b 1000000\n' >"$TMP/b1m.folded"
check_error "profiles: a function from 0 to 1,000,000 samples fails the gate, named" 1 \
	'regression: b is new: 0 -> 1000000' "$P" --fail-above 5 "$TMP/a1000.folded" "$TMP/b1m.folded"

# ---- verdicts that tell the truth (issue 24 point 1) ----
# The cases of the issue, as their profiles say them.
# A function that did less is never worse, whatever its share: 371 -> 358 ms
# of CPU while the rest grew (its share fell from 74% to 36%).
printf '# source=profrec event=cpu-clock unit=ns freq=1000\nmain;matmul 371000000\nmain;other 130000000\n' >"$TMP/m1.folded"
printf '# source=profrec event=cpu-clock unit=ns freq=1000\nmain;matmul 358000000\nmain;other 640000000\n' >"$TMP/m2.folded"
check "371 -> 358 ms: -3.5%, within the counting error (0.5 standard errors): noise, not 'better -53.8%'" 0 \
	"$(printf 'matmul\t-3.5\tnoise\t0.48')" \
	sh -c "'$P' '$TMP/m1.folded' '$TMP/m2.folded' | awk -F'\t' '\$1 == \"matmul\" { print \$1 \"\t\" \$7 \"\t\" \$9 \"\t\" \$12 }'"
run "$P" --human "$TMP/m1.folded" "$TMP/m2.folded"
if [ "$STATUS" = 0 ] && head -n 1 "$TMP/stdout" | grep -q '^CPU: 501 ms -> 998 ms, +497 ms +99.2% (1 run -> 1 run, 12.8 se) worse$' &&
	grep -q '^matmul  *371 ms  *358 ms  *-13 ms -3.5%  *74.1% -> 35.9%  *0.5 se  *noise$' "$TMP/stdout"; then
	pass "--human: the totals line of each side first, amounts in ms, shares beside them"
else
	fail "--human totals and amounts" "$(head -n 8 "$TMP/stdout" | tr '\n' '|')"
fi
# Identical bytes get no verdict; one byte less is not worse.
printf '# tool=profheap report=alloc unit=bytes\nmain;load 17619072\nmain;parse 24577\nmain;grow 100\n' >"$TMP/h1.folded"
printf '# tool=profheap report=alloc unit=bytes\nmain;load 17619072\nmain;parse 24576\nmain;grow 4000000\n' >"$TMP/h2.folded"
check "bytes: identical amounts are 'same', one byte less is 'better' (an exact measure), never 'worse'" 0 \
	"$(printf 'load\t0\tsame\nparse\t-1\tbetter')" \
	sh -c "'$P' '$TMP/h1.folded' '$TMP/h2.folded' | awk -F'\t' '\$1 == \"load\" || \$1 == \"parse\" { print \$1 \"\t\" \$6 \"\t\" \$9 }' | sort"
# Off-CPU time is measured, not sampled: 2.65 s -> 4.24 s is worse, though its share fell.
printf '# source=profrec event=offcpu-time unit=ns period=1\nmain;schedule 2650000000\nmain;poll 350000000\n' >"$TMP/o1.folded"
printf '# source=profrec event=offcpu-time unit=ns period=1\nmain;schedule 4240000000\nmain;poll 5760000000\n' >"$TMP/o2.folded"
run "$P" --human --fail-above 5 "$TMP/o1.folded" "$TMP/o2.folded"
if [ "$STATUS" = 1 ] && grep -q '^schedule  *2.65 s  *4.24 s  *+1.59 s +60.0%  *88.3% -> 42.4%  *exact  *worse$' "$TMP/stdout" &&
	grep -q '^off-CPU: 3 s -> 10 s, +7 s +233.3% (1 run -> 1 run, exact) worse' "$TMP/stdout" &&
	grep -q 'regression: schedule self 2.65 s -> 4.24 s, +60.0% (an exact measure; limit 5%)' "$TMP/stderr"; then
	pass "off-CPU 2.65 s -> 4.24 s: worse (its share fell from 88% to 42%), the gate names it with its amounts"
else
	fail "off-CPU amounts" "exit $STATUS: $(head -n 8 "$TMP/stdout" | tr '\n' '|') $(head -c 300 "$TMP/stderr")"
fi
check "--normalize judges shares and says so" 0 "functions judged by their share of each run (--normalize)" \
	sh -c "'$P' --human --normalize '$TMP/o1.folded' '$TMP/o2.folded' | sed -n 2p"
# Recordings by attaching (profrec -p) are windows of a running program:
# shares are judged, and the output says why.
sed 's/unit=ns period=1/unit=ns period=1 command=-p%2042/' "$TMP/o1.folded" >"$TMP/w1.folded"
sed 's/unit=ns period=1/unit=ns period=1 command=-p%2042/' "$TMP/o2.folded" >"$TMP/w2.folded"
run "$P" --human "$TMP/w1.folded" "$TMP/w2.folded"
if [ "$STATUS" = 0 ] && sed -n 2p "$TMP/stdout" | grep -q 'both recordings are windows of a running program' &&
	grep -q '^schedule .* better$' "$TMP/stdout"; then
	pass "two attached recordings (command=-p PID): shares judged, and said"
else
	fail "attached recordings" "exit $STATUS: $(head -n 8 "$TMP/stdout" | tr '\n' '|')"
fi
# The benchmark table of the issue: 5 runs a side, the new program slower
# in 24 of the 25 pairs, +21.7%: the old rule (a change within max - min
# is noise) passed it; Mann-Whitney p = 4/252 and the interval excludes 1.
{ printf 'bench\ttime_ms\n'; for v in 100 101 102 103 104; do printf 'parse\t%s\n' $v; done; } >"$TMP/r5a.tsv"
{ printf 'bench\ttime_ms\n'; for v in 103.5 123 124.1 125 126; do printf 'parse\t%s\n' $v; done; } >"$TMP/r5b.tsv"
run "$P" --fail-above 5 "$TMP/r5a.tsv" "$TMP/r5b.tsv"
row=$(grep -v '^#' "$TMP/stdout" | sed -n 2p | cut -f1,4,6,7,9,11,13,14)
lo=$(grep -v '^#' "$TMP/stdout" | sed -n 2p | cut -f15)
if [ "$STATUS" = 1 ] && [ "$row" = "$(printf 'parse\t102\t5\t124.1\t5\t21.67\tworse\t0.015873')" ] &&
	awk -v lo="$lo" 'BEGIN { exit !(lo > 1) }' && grep -q 'regression: parse time_ms 102 -> 124.1, +21.7%' "$TMP/stderr"; then
	pass "tables: 5 runs a side, slower in 24 of 25 pairs, +21.7%: worse (p = 0.016, interval above 1), the gate fails"
else
	fail "tables: 5 runs" "exit $STATUS: row '$row' lo '$lo' $(head -c 300 "$TMP/stderr")"
fi
# Equal medians of runs that differ are noise, not "same": same is for identical values
{ printf 'bench\ttime_ms\n'; for v in 50 51 52 53 54; do printf 'render\t%s\n' $v; done; } >"$TMP/r5c.tsv"
{ printf 'bench\ttime_ms\n'; for v in 50 52 51 53 55; do printf 'render\t%s\n' $v; done; } >"$TMP/r5d.tsv"
check "tables: equal medians of different runs are noise; identical runs same" 0 "$(printf 'noise\nsame')" \
	sh -c "'$P' '$TMP/r5c.tsv' '$TMP/r5d.tsv' | sed -n 3p | cut -f13; '$P' '$TMP/r5c.tsv' '$TMP/r5c.tsv' | sed -n 3p | cut -f13"
check "profiles: the same runs on both sides, in another order, are the same" 0 "same" \
	sh -c "'$P' '$TMP/b.folded' '$TMP/n.folded' -- '$TMP/n.folded' '$TMP/b.folded' | grep -v '^#' | sed 1d | cut -f9 | sort -u"
# The same runs given as one file per run: base ... -- new ...
i=0
for v in 100 101 102 103 104; do i=$((i + 1)); printf 'bench\ttime_ms\nparse\t%s\n' $v >"$TMP/ra$i.tsv"; done
i=0
for v in 103.5 123 124.1 125 126; do i=$((i + 1)); printf 'bench\ttime_ms\nparse\t%s\n' $v >"$TMP/rb$i.tsv"; done
check "tables: one file per run, base ... -- new ..." 0 "$(printf 'parse\t102\t5\t124.1\t5\tworse')" \
	sh -c "'$P' --fail-above 5 '$TMP'/ra?.tsv -- '$TMP'/rb?.tsv 2>/dev/null | grep -v '^#' | sed -n 2p | cut -f1,4,6,7,9,13"
check_error "base ... --: no new input is a usage error" 2 'no new input after "--"' "$P" "$TMP/ra1.tsv" --

# Real recordings (profrec) of one small program: two runs of the same
# binary pass --fail-above 5; a build where one function does 3x the work
# fails it, named with its amounts (the kernel's tick handling, which
# grows with the run's length, may be named beside it: that is real).
cat >"$TMP/three.c" <<'CEOF'
#include <stdlib.h>
static volatile unsigned long sink;
/* the same loop in each function, so that each has self time of its own */
#define WORK(n) do { unsigned long x = sink; for (unsigned long i = 0; i < (n); i++) x = x * 6364136223846793005UL + i; sink = x; } while (0)
__attribute__((noinline)) void alpha(unsigned long n) { WORK(n); }
__attribute__((noinline)) void beta(unsigned long n) { WORK(n); }
__attribute__((noinline)) void gamma_(unsigned long n) { WORK(n); }
int main(int argc, char **argv)
{
	unsigned long n = strtoul(argv[1], NULL, 10), slow = strtoul(argv[2], NULL, 10);

	alpha(n);
	beta(n);
	gamma_(n * slow);
	return 0;
}
CEOF
if ! ${CC:-cc} -O1 -g -fno-omit-frame-pointer -o "$TMP/three" "$TMP/three.c"; then
	fail "real recordings: build the program"
elif ! "$BIN/profrec" -q --folded -o "$TMP/r1.folded" -- "$TMP/three" 60000000 1 2>"$TMP/rec.err"; then
	skip "real recordings" "profrec cannot record here: $(head -c 200 "$TMP/rec.err")"
else
	"$BIN/profrec" -q --folded -o "$TMP/r2.folded" -- "$TMP/three" 60000000 1
	"$BIN/profrec" -q --folded -o "$TMP/r3.folded" -- "$TMP/three" 60000000 3
	run "$P" --human --fail-above 5 "$TMP/r1.folded" "$TMP/r2.folded"
	if [ "$STATUS" = 0 ] && tail -n 1 "$TMP/stdout" | grep -q '^gate: pass' && ! grep -q 'worse$' "$TMP/stdout"; then
		pass "real recordings: two runs of the same binary pass --fail-above 5, no 'worse'"
	else
		fail "real recordings: same binary" "exit $STATUS: $(head -c 300 "$TMP/stderr") $(head -n 12 "$TMP/stdout" | tr '\n' '|')"
	fi
	run "$P" --fail-above 5 "$TMP/r1.folded" "$TMP/r3.folded"
	if [ "$STATUS" = 1 ] && grep -Eq '^profcmp: regression: gamma_ self [0-9.]+ ms -> [0-9.]+ ms, \+[0-9.]+% \([0-9.]+ standard errors; limit 5%\)$' "$TMP/stderr" &&
		! grep -Eq 'regression: (alpha|beta) ' "$TMP/stderr" &&
		[ "$(grep -v '^#' "$TMP/stdout" | awk -F'\t' '$1 == "gamma_" { print ($3 > 2.2 * $2 && $3 < 4 * $2) ? "3x" : "not 3x" }')" = 3x ]; then
		pass "real recordings: one function 3x slower fails the gate, named with its amounts; the unchanged ones are not"
	else
		fail "real recordings: 3x slower" "exit $STATUS: $(head -c 400 "$TMP/stderr")"
	fi
	# several runs a side: the rank test and the interval
	"$BIN/profrec" -q --folded -o "$TMP/r4.folded" -- "$TMP/three" 60000000 1
	"$BIN/profrec" -q --folded -o "$TMP/r5.folded" -- "$TMP/three" 60000000 3
	"$BIN/profrec" -q --folded -o "$TMP/r6.folded" -- "$TMP/three" 60000000 3
	"$BIN/profrec" -q --folded -o "$TMP/r7.folded" -- "$TMP/three" 60000000 1
	"$BIN/profrec" -q --folded -o "$TMP/r8.folded" -- "$TMP/three" 60000000 3
	run "$P" --fail-above 5 "$TMP/r1.folded" "$TMP/r2.folded" "$TMP/r4.folded" "$TMP/r7.folded" -- \
		"$TMP/r3.folded" "$TMP/r5.folded" "$TMP/r6.folded" "$TMP/r8.folded"
	g=$(grep -v '^#' "$TMP/stdout" | awk -F'\t' '$1 == "gamma_" { print $9, $13, ($14 > 2 && $15 < 4.5) ? "interval ok" : "interval " $14 ".." $15 }')
	if [ "$STATUS" = 1 ] && [ "$g" = "worse 0.0285714 interval ok" ] && grep -q 'runs=4,4' "$TMP/stdout" &&
		grep -Eq 'regression: gamma_ self .* \(ratio [0-9.]+\.\.[0-9.]+, p=0\.029; limit 5%\)' "$TMP/stderr"; then
		pass "real recordings, 4 runs a side: Mann-Whitney p = 2/70, the interval of the ratio printed, the gate fails"
	else
		fail "real recordings, 4 runs a side" "exit $STATUS: '$g' $(head -c 300 "$TMP/stderr")"
	fi
fi

# ---- a terminal (issue 24 point 5): colour and width ----
esc=$(printf '\033')
check "--color=always: verdicts coloured in a pipe too" 0 "${esc}[1;31mworse${esc}[0m" \
	sh -c "'$P' --human --color=always '$TMP/o1.folded' '$TMP/o2.folded' | grep -o '${esc}\[1;31mworse${esc}\[0m' | head -n 1"
run "$P" --human "$TMP/o1.folded" "$TMP/o2.folded"
if [ "$STATUS" = 0 ] && ! grep -q "$esc" "$TMP/stdout"; then
	pass "--color=auto: no colour in a pipe"
else
	fail "--color=auto in a pipe" "exit $STATUS: $(head -n 2 "$TMP/stdout" | cat -v)"
fi
check_error "--color takes auto, always or never" 2 "bad --color 'blue'" "$P" --color=blue "$TMP/o1.folded" "$TMP/o2.folded"
# script(1) gives the command a terminal
if have script && script -qc true /dev/null >/dev/null 2>&1; then

	printf 'main;a_function_with_a_name_much_longer_than_a_terminal_line_can_hold_next_to_its_numbers_abcdefghijklmnopqrstuvwxyz 1000\nmain;b 10\n' >"$TMP/long1.folded"
	printf 'main;a_function_with_a_name_much_longer_than_a_terminal_line_can_hold_next_to_its_numbers_abcdefghijklmnopqrstuvwxyz 3000\nmain;b 10\n' >"$TMP/long2.folded"
	TERM=xterm COLUMNS=80 script -qc "'$P' --human '$TMP/long1.folded' '$TMP/long2.folded'" /dev/null </dev/null >"$TMP/tty.out" 2>&1
	sed "s/${esc}\[[0-9;]*m//g; s/$(printf '\r')//g" "$TMP/tty.out" >"$TMP/tty.plain"
	if grep -q "${esc}\[1;31mworse" "$TMP/tty.out" && grep -q '^a_function_with_a_name.*~ ' "$TMP/tty.plain" &&
		[ "$(sed -n '5,$p' "$TMP/tty.plain" | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')" -le 80 ]; then
		pass "a terminal: verdicts coloured, names cut with ~ so that rows fit COLUMNS=80"
	else
		fail "a terminal: colour and width" "$(cat -v "$TMP/tty.out" | head -n 8 | tr '\n' '|')"
	fi
	NO_COLOR=1 TERM=xterm script -qc "'$P' --human '$TMP/long1.folded' '$TMP/long2.folded'" /dev/null </dev/null >"$TMP/tty.out" 2>&1
	if grep -q 'worse' "$TMP/tty.out" && ! grep -q "$esc" "$TMP/tty.out"; then
		pass "a terminal with NO_COLOR set: no colour"
	else
		fail "NO_COLOR" "$(cat -v "$TMP/tty.out" | head -n 3 | tr '\n' '|')"
	fi
	TERM=xterm script -qc "'$P' --human --color=never '$TMP/long1.folded' '$TMP/long2.folded'" /dev/null </dev/null >"$TMP/tty.out" 2>&1
	if grep -q 'worse' "$TMP/tty.out" && ! grep -q "$esc" "$TMP/tty.out"; then
		pass "a terminal with --color=never: no colour"
	else
		fail "--color=never on a terminal" "$(cat -v "$TMP/tty.out" | head -n 3 | tr '\n' '|')"
	fi
else
	skip "a terminal: colour and width" "script(1) cannot give a terminal here"
fi
# An endless line through a pipe: the copy of standard input stops at the
# cap, as the reader does (it read on for ever, dropping the excess)
run sh -c "cat /dev/zero | PROFTOOLS_MAX_LINE=4096 timeout 30 '$P' - '$TMP/b.folded'"
if [ "$STATUS" = 1 ] && grep -q '^profcmp: <stdin>:1: line longer than 4096 bytes' "$TMP/stderr"; then
	pass "an endless line on standard input ends at the cap: named, exit 1"
else
	fail "endless line on stdin" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
fi
