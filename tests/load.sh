#!/bin/sh
# Load (issue 15), small versions that make check can afford: many
# threads under profrec, allocations handed across 32 threads under
# profheap, a 10,000-frame stack through proffold and profflame, a large
# input folded in bounded memory, profcmp on 100,000-line profiles. The
# big versions (1 GB inputs, 1-million-line profiles, a 10-minute -a
# recording, overhead against perf) are tests/bench/load.sh (make bench).
. "$(dirname "$0")/lib.sh"
LOADGEN=$BUILD/tests/tools/loadgen

# ---- profrec: 64 threads -----------------------------------------------------
# Every sample the summary counts is in the file, every thread is seen,
# and the summary says how many were lost (none at this rate).
if "$BIN/profrec" -q -o /dev/null -- true 2>/dev/null; then
	run "$BIN/profrec" -o "$TMP/t64.tsv" -- "$LOADGEN" spin 64 40
	said=$(sed -n 's/.* \([0-9]*\) samples (.*/\1/p' "$TMP/stderr" | head -n 1)
	lost=$(sed -n 's/.*), \([0-9]*\) lost,.*/\1/p' "$TMP/stderr" | head -n 1)
	rows=$(grep -c '^[0-9]' "$TMP/t64.tsv")
	tids=$(grep '^[0-9]' "$TMP/t64.tsv" | cut -f3 | sort -u | wc -l)
	if [ "$STATUS" = 0 ] && [ "$rows" = "$said" ] && [ "$lost" = 0 ] && [ "$tids" -ge 60 ]; then
		pass "profrec: 64 threads: $rows samples as the summary says, 0 lost, $tids threads"
	else
		fail "profrec: 64 threads" "exit $STATUS, $rows rows, summary '$said' lost '$lost', $tids threads: $(head -c 300 "$TMP/stderr")"
	fi
else
	skip "profrec: 64 threads" "perf_event_open refused here"
fi

# ---- profrec: buffers that overflow ---------------------------------------------
# A 4-page ring cannot keep up with 8 threads' 8 KiB DWARF stacks at
# 10 kHz: the loss is reported, and the samples counted are the file's.
if "$BIN/profrec" -q -o /dev/null -- true 2>/dev/null; then
	run "$BIN/profrec" -m 4 -F 10000 --call-graph dwarf -o "$TMP/ov.tsv" -- "$LOADGEN" spin 8 50
	said=$(sed -n 's/.* \([0-9]*\) samples (.*/\1/p' "$TMP/stderr" | head -n 1)
	lost=$(sed -n 's/.*), \([0-9]*\) lost,.*/\1/p' "$TMP/stderr" | head -n 1)
	rows=$(grep -c '^[0-9]' "$TMP/ov.tsv")
	if [ "$STATUS" = 0 ] && [ "${lost:-0}" -gt 0 ] && [ "$rows" = "$said" ] &&
	   grep -q "$lost records lost: the ring buffer overflowed (raise -m or lower -F)" "$TMP/stderr"; then
		pass "profrec: an overflowing ring: $lost records lost said, the $rows samples counted are in the file"
	else
		fail "profrec: overflowing ring" "exit $STATUS, $rows rows, summary '$said' lost '$lost': $(head -c 300 "$TMP/stderr")"
	fi
fi

# ---- profheap: 32 threads, each freeing what another allocated -----------------
# The folded reports hold exactly what the program counted itself.
# (profheap preloads its library: the program is built here without ASan)
n=20000
[ -n "$SANITIZE" ] && n=5000
${CC:-cc} -O1 -fno-omit-frame-pointer -pthread -o "$TMP/loadgen" "$TESTS/tools/loadgen.c"
run "$BIN/profheap" -q -o "$TMP/hand" "$TMP/loadgen" handoff 32 $n
want=$(cat "$TMP/stdout")
sum_at() { grep "$2" "$TMP"/hand/*."$1".folded | awk '{ s += $NF } END { print s + 0 }'; }
got_bytes=$(sum_at alloc handoff_alloc)
got_count=$(sum_at count handoff_alloc)
got_leak=$(sum_at leak handoff_alloc)
if [ "$STATUS" = 0 ] && [ "$got_bytes" = "$want" ] && [ "$got_count" = $((32 * n)) ] && [ "$got_leak" = 0 ]; then
	pass "profheap: 32 threads freeing each other's blocks: $got_count allocations, $got_bytes bytes, as counted by the program; no leak"
else
	fail "profheap: 32 threads" "exit $STATUS: program $want bytes; profheap $got_bytes bytes, $got_count blocks, leak $got_leak"
fi

# ---- a stack 10,000 frames deep ------------------------------------------------
awk 'BEGIN { s = "root"; for (i = 1; i < 10000; i++) s = s ";f" i; print s " 7"; print "root;other 3" }' \
	>"$TMP/deep.folded"
run "$BIN/proffold" "$TMP/deep.folded"
if [ "$STATUS" = 0 ] && grep -v '^#' "$TMP/stdout" | sort | cmp -s - "$TMP/deep.folded"; then
	pass "proffold: a 10,000-frame stack kept whole"
else
	fail "proffold: 10,000 frames" "exit $STATUS: $(head -c 200 "$TMP/stderr")"
fi
run "$BIN/profflame" --minwidth 0 --max-depth 10000 "$TMP/deep.folded"
frames=$(grep -c '^<g><title>' "$TMP/stdout")
if [ "$STATUS" = 0 ] && [ "$frames" = 10002 ] && grep -q '<title>f9999 (7 samples, 70.00%)' "$TMP/stdout"; then
	pass "profflame --max-depth 10000: a 10,000-frame stack drawn to its leaf ($frames frames)"
else
	fail "profflame: 10,000 frames" "exit $STATUS, $frames frames: $(head -c 200 "$TMP/stderr")"
fi
check_error "profflame: deeper than --max-depth (2000): said, not silently cut" 0 \
	"8000 frames deeper than 2000 not drawn \(--max-depth\)" "$BIN/profflame" "$TMP/deep.folded"

# ---- a large input in bounded memory ---------------------------------------------
# 2 million lines (about 110 MB) of 50 stacks through a pipe, under a
# 150 MB address-space limit: the fold streams. (Not under ASan, whose
# shadow memory needs terabytes of address space.)
if [ -z "$SANITIZE" ]; then
	STATUS=0
	( ulimit -v 150000
	  awk 'BEGIN { for (i = 0; i < 2000000; i++) printf "main;serve;handler_%d;parse_request;read_socket 3\n", i % 50 }' |
		"$BIN/proffold" >"$TMP/big.out" 2>"$TMP/big.err" ) || STATUS=$?
	total=$(grep -v '^#' "$TMP/big.out" | awk '{ s += $NF } END { print s + 0 }')
	if [ "$STATUS" = 0 ] && [ "$total" = 6000000 ] && [ "$(grep -vc '^#' "$TMP/big.out")" = 50 ]; then
		pass "proffold: 2 million lines from a pipe within 150 MB of address space, every count kept"
	else
		fail "proffold: large input, bounded memory" "exit $STATUS, total $total: $(head -c 200 "$TMP/big.err")"
	fi
fi

# ---- profcmp on 100,000-line profiles ------------------------------------------------
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "main;mod_%d;fn_%d %d\n", i % 100, i, 1 + i % 7 }' >"$TMP/base.folded"
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "main;mod_%d;fn_%d %d\n", i % 100, i, 1 + (i + 1) % 7 }' >"$TMP/new.folded"
run "$BIN/profcmp" -t --no-normalize "$TMP/base.folded" "$TMP/new.folded"
want="$(awk '{ s += $NF } END { print s }' "$TMP/base.folded") $(awk '{ s += $NF } END { print s }' "$TMP/new.folded")"
rows=$(grep -v '^#' "$TMP/stdout" | sed 1d | wc -l)
main=$(grep -v '^#' "$TMP/stdout" | awk -F'\t' '$1 == "main" { print $4 " " $5 }')
if [ "$STATUS" = 0 ] && [ "$rows" = 100101 ] && [ "$main" = "$want" ]; then
	pass "profcmp -t: two 100,000-line profiles: every function compared ($rows), totals kept"
else
	fail "profcmp: 100,000 lines" "exit $STATUS, $rows functions, main '$main' want $want: $(head -c 200 "$TMP/stderr")"
fi
# Its peak RSS: both tables, then the rows once the tables are released
# (29 MB; 53 MB when each side was ranked and every name interned again).
if [ -z "$SANITIZE" ] && need "profcmp's peak RSS" /usr/bin/time time; then
	run /usr/bin/time -f '%M' -o "$TMP/rss" "$BIN/profcmp" -t --no-normalize "$TMP/base.folded" "$TMP/new.folded"
	rss=$(cat "$TMP/rss")
	if [ "$STATUS" = 0 ] && [ "$rss" -lt 42000 ]; then
		pass "profcmp: two 100,000-line profiles in $rss KiB peak RSS (< 42000)"
	else
		fail "profcmp: peak RSS" "exit $STATUS, $rss KiB"
	fi
fi
