#!/bin/sh
# Faults across the tools (issue 15): a full device and a full file
# system under every writer, a reader that goes away early, missing and
# unreadable inputs among good ones, interrupted recorders, and profiled
# programs that crash, fork a thousand children or exec another binary.
# Each tool's own file tests its options; this one tests the bad day.
. "$(dirname "$0")/lib.sh"
DATA=$TESTS/data
STRIPES=$BUILD/tests/tools/stripes
zcat "$DATA/perf-g.txt.gz" >"$TMP/g.txt"
"$BIN/proffold" "$TMP/g.txt" >"$TMP/g.folded"
# 4000 different stacks: outputs far bigger than the small file system below
awk 'BEGIN { for (i = 0; i < 4000; i++) printf "main;work_%d;leaf_%d %d\n", i % 97, i, i + 1 }' \
	>"$TMP/many.folded"

# ---- a full device: every writer says so once and exits 1 -------------------
# (our own /dev/full: mknod in the test's directory, never the real /dev)
if [ "$(id -u)" -ne 0 ] || ! mknod "$TMP/full" c 1 7 2>/dev/null; then
	skip "full device" "mknod needs root"
else
	# full_check NAME CMD...: CMD writes to $TMP/full (by -o or by >)
	full_check() {
		_n=$1
		shift
		run "$@"
		if [ "$STATUS" = 1 ] && [ "$(grep -c 'No space left on device' "$TMP/stderr")" = 1 ] &&
		   ! grep -q Sanitizer "$TMP/stderr"; then
			pass "full device: $_n: exit 1, the error said once"
		else
			fail "full device: $_n" "exit $STATUS: $(head -c 400 "$TMP/stderr" | tr '\n' '|')"
		fi
	}
	full_check "proffold -o" "$BIN/proffold" -o "$TMP/full" "$TMP/g.txt"
	full_check "proffold >" sh -c '"$1" "$2" >"$3"' sh "$BIN/proffold" "$TMP/g.txt" "$TMP/full"
	full_check "proffold --top >" sh -c '"$1" --top 5 "$2" >"$3"' sh "$BIN/proffold" "$TMP/g.txt" "$TMP/full"
	full_check "profflame -o" "$BIN/profflame" -o "$TMP/full" "$TMP/g.folded"
	full_check "profflame --format html >" sh -c '"$1" --format html "$2" >"$3"' sh "$BIN/profflame" "$TMP/g.folded" "$TMP/full"
	full_check "profcmp >" sh -c '"$1" "$2" "$2" >"$3"' sh "$BIN/profcmp" "$TMP/g.folded" "$TMP/full"
	full_check "profcompress -o" "$BIN/profcompress" -q -e zstd -t 0.01 -o "$TMP/full" "$TMP/g.txt"
	mkdir "$TMP/rundir" && cp "$TMP/g.folded" "$TMP/rundir/cpu.folded"
	full_check "profreport -o" "$BIN/profreport" -q -o "$TMP/full" "$TMP/rundir"
	full_check "profgpu --host-output" "$BIN/profgpu" -q --host-output "$TMP/full" -i 10ms -- sleep 0.2
	if "$BIN/profrec" -q -o /dev/null -- true 2>/dev/null; then
		full_check "profrec -o" "$BIN/profrec" -q -o "$TMP/full" -- "$STRIPES" 1 50 50
	else
		skip "full device: profrec" "perf_event_open refused here"
	fi
	full_check "profheap -r leak >" sh -c '"$1" -q -o "$2/hf" -r leak /bin/true >"$2/full"' \
		sh "$BIN/profheap" "$TMP"
fi

# ---- a full file system: no partial file under the final name -----------------
# A 16 KiB tmpfs in a private mount namespace. The old file at the name
# stays as it was, and no temporary file is left beside it.
if [ "$(id -u)" -ne 0 ] || ! have unshare || ! unshare -m true 2>/dev/null; then
	skip "full file system" "needs root and unshare -m"
else
	# fs_check NAME NAME_IN_FS CMD...: CMD (with @ for the mount point) writes NAME_IN_FS
	fs_check() {
		_n=$1 _f=$2
		shift 2
		mkdir -p "$TMP/mnt"
		STATUS=0
		unshare -m sh -c 'mount -t tmpfs -o size=16k none "$1" || exit 99
			echo old >"$1/$2"; m=$1 f=$2; shift 2
			for a in "$@"; do set -- "$@" "$(printf %s "$a" | sed "s|@|$m|")"; shift; done
			"$@" >/dev/null 2>"$m.err"; echo "status $?" >"$m.res"
			ls -A "$m" >>"$m.res"; cat "$m/$f" >>"$m.res"' sh "$TMP/mnt" "$_f" "$@" || STATUS=$?
		if [ "$STATUS" = 99 ]; then
			skip "full file system: $_n" "cannot mount a tmpfs"
		elif [ "$(cat "$TMP/mnt.res")" = "status 1
$_f
old" ] && grep -q 'No space left on device' "$TMP/mnt.err"; then
			pass "full file system: $_n: exit 1, the old file kept, no temporary left"
		else
			fail "full file system: $_n" "$(head -c 300 "$TMP/mnt.res" | tr '\n' '|') $(head -c 300 "$TMP/mnt.err")"
		fi
	}
	fs_check "proffold -o" out.folded "$BIN/proffold" -o @/out.folded "$TMP/many.folded"
	fs_check "profflame -o" out.svg "$BIN/profflame" --format html -o @/out.svg "$TMP/many.folded"
	if "$BIN/profrec" -q -o /dev/null -- true 2>/dev/null; then
		fs_check "profrec -o (streamed)" rec.tsv "$BIN/profrec" -q -F 999 -o @/rec.tsv -- "$BUILD/tests/tools/loadgen" spin 1 500
	fi
fi

# ---- the reader goes away ---------------------------------------------------------
# "profrec ... | head -1": profrec stops within a flush interval (1 s),
# says nothing, ends as a writer whose reader left (SIGPIPE: 141), and
# the command it started is not left running.
if "$BIN/profrec" -q -o /dev/null -- true 2>/dev/null; then
	start=$(date +%s)
	sh -c '"$1" -- "$2" 1 30000 0 2>"$3/pipe.err"; echo $? >"$3/pipe.st"' sh "$BIN/profrec" "$STRIPES" "$TMP" |
		head -n 1 >"$TMP/pipe.out"
	took=$(($(date +%s) - start))
	sleep 0.2
	left=$(ps -eo args | grep -c "^$STRIPES 1 30000 0")
	if [ "$(cat "$TMP/pipe.st")" = 141 ] && [ "$took" -le 6 ] && [ ! -s "$TMP/pipe.err" ] &&
	   [ "$left" = 0 ] && grep -q '^# source=profrec' "$TMP/pipe.out"; then
		pass "profrec | head -1: stops at once, quietly, SIGPIPE status, the command ended"
	else
		fail "profrec | head -1" "status $(cat "$TMP/pipe.st"), ${took}s, $left left, stderr: $(head -c 200 "$TMP/pipe.err")"
	fi
else
	skip "profrec | head -1" "perf_event_open refused here"
fi
# a big fold or flame graph read by head: quiet, no error
for i in 1 2 3 4 5 6 7 8 9 10; do cat "$TMP/many.folded"; done >"$TMP/big.folded"
for t in "proffold" "proffold --top 50" "profflame" "profcmp"; do
	# shellcheck disable=SC2086
	set -- $t
	tool=$1
	shift
	[ "$tool" = profcmp ] && set -- "$TMP/big.folded"
	sh -c '"$@" "'"$TMP/big.folded"'" 2>"'"$TMP/head.err"'"; echo $? >"'"$TMP/head.st"'"' sh "$BIN/$tool" "$@" |
		head -c 100 >/dev/null
	st=$(cat "$TMP/head.st")
	if { [ "$st" = 0 ] || [ "$st" = 141 ]; } && [ ! -s "$TMP/head.err" ]; then
		pass "$t | head: quiet (exit $st)"
	else
		fail "$t | head" "exit $st: $(head -c 200 "$TMP/head.err")"
	fi
done

# ---- missing and unreadable inputs among good ones -----------------------------
# The good ones are still folded; exit 1; each bad one named.
cp "$TMP/g.folded" "$TMP/a.folded"
mkdir "$TMP/adir"
run "$BIN/proffold" "$TMP/a.folded" "$TMP/missing.folded" "$TMP/adir" "$TMP/g.txt"
"$BIN/proffold" "$TMP/a.folded" "$TMP/g.txt" >"$TMP/good.folded"
if [ "$STATUS" = 1 ] && grep -q "missing.folded: No such file or directory" "$TMP/stderr" &&
   grep -q "adir: .*Is a directory" "$TMP/stderr" && cmp -s "$TMP/good.folded" "$TMP/stdout"; then
	pass "proffold: a missing and an unreadable input among good ones: the good ones folded, exit 1"
else
	fail "proffold: bad inputs among good" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
fi
check_error "profcmp: a missing input: exit 1, named" 1 "missing.folded: No such file" \
	"$BIN/profcmp" "$TMP/a.folded" "$TMP/missing.folded"

# ---- interrupted recorders keep what they had -----------------------------------
# (profheap preloads its library: the program runs without ASan, even in
# the sanitizer pass, so it is built here)
PLAIN_STRIPES=$TMP/stripes-plain
${CC:-cc} -O1 -fno-omit-frame-pointer -o "$PLAIN_STRIPES" "$TESTS/tools/stripes.c"
# profheap: SIGTERM while the command allocates; the records up to that
# moment are in well-formed folded files (the shim's file is mapped
# shared: a death loses nothing written before it).
"$BIN/profheap" -q -o "$TMP/hint" "$PLAIN_STRIPES" 50 20 20 >/dev/null 2>"$TMP/hint.err" &
hp=$!
sleep 1
kill -TERM $hp
st=0
wait $hp || st=$?
leak=$(cat "$TMP"/hint/*.leak.folded 2>/dev/null | grep -v '^#' | awk '{ s += $NF } END { print s + 0 }')
rows=$(cat "$TMP"/hint/*.timeline.tsv 2>/dev/null | grep -c '^[0-9]')
if [ "$st" = 143 ] && [ "$rows" -ge 5 ] && "$BIN/proffold" "$TMP"/hint/*.alloc.folded >/dev/null 2>&1; then
	pass "profheap: SIGTERM mid-run: exit 143, timeline ($rows rows) and folded files well formed (leak $leak)"
else
	fail "profheap: SIGTERM mid-run" "exit $st, rows $rows: $(head -c 300 "$TMP/hint.err")"
fi

# ---- profiled programs that crash, fork a thousand children, exec ------------
if "$BIN/profrec" -q -o /dev/null -- true 2>/dev/null; then
	run "$BIN/profrec" -q -o "$TMP/crash.tsv" -- sh -c '"$1" 1 200 0; kill -SEGV $$' sh "$STRIPES"
	n=$(grep -c '^[0-9]' "$TMP/crash.tsv" 2>/dev/null)
	if [ "$STATUS" = 139 ] && [ "${n:-0}" -gt 10 ] && "$TSVCHECK" profrec-samples "$TMP/crash.tsv" >/dev/null 2>&1; then
		pass "profrec: the command crashes (SIGSEGV): its status 139 passed on, the $n samples kept, valid TSV"
	else
		fail "profrec: crashing command" "exit $STATUS, ${n:-0} samples: $(head -c 300 "$TMP/stderr")"
	fi
	kids=1000
	[ -n "$SANITIZE" ] && kids=200
	run "$BIN/profrec" -q -c 100000 -e task-clock -o "$TMP/forks.tsv" -- \
		sh -c 'i=0; while [ $i -lt $1 ]; do /bin/true & i=$((i + 1)); done; wait' sh "$kids"
	pids=$(grep '^[0-9]' "$TMP/forks.tsv" | cut -f2 | sort -u | wc -l)
	if [ "$STATUS" = 0 ] && [ "$pids" -ge $((kids / 2)) ] && "$TSVCHECK" profrec-samples "$TMP/forks.tsv" >/dev/null 2>&1; then
		pass "profrec: $kids short-lived children: exit 0, samples from $pids processes, valid TSV"
	else
		fail "profrec: $kids children" "exit $STATUS, $pids processes: $(head -c 300 "$TMP/stderr")"
	fi
	run "$BIN/profrec" -q -o "$TMP/exec.tsv" -- sh -c 'exec "$1" 1 300 0' sh "$STRIPES"
	if [ "$STATUS" = 0 ] && grep '^[0-9]' "$TMP/exec.tsv" | cut -f4 | grep -qx stripes &&
	   "$BIN/proffold" "$TMP/exec.tsv" | grep -q 'main;.*busy\|busy.*;main\|;main;' ; then
		pass "profrec: the command execs another binary: its samples carry the new image's name and symbols"
	else
		fail "profrec: exec" "exit $STATUS: $("$BIN/proffold" "$TMP/exec.tsv" 2>&1 | head -3 | tr '\n' '|')"
	fi
else
	skip "profrec: crash, fork, exec" "perf_event_open refused here"
fi

# ---- hostile input through the text tools -----------------------------------
# Names with markup, a tab, NUL and ESC; counts that overflow, are
# negative or not numbers. The bad lines are named by file:line and left
# out (exit 1); every name reaches TSV with no byte that splits a row or
# drives a terminal, the same in proffold --top and profcmp.
printf 'main;<script>x</script>&"q 1\nmain;a\tb 2\nmain;nul\000x 3\nmain;esc\033[31m 4\nmain;over 18446744073709551616\nmain;neg -5\nmain;nan nan\nmain;ok 5\n' \
	>"$TMP/hostile.folded"
run "$BIN/proffold" "$TMP/hostile.folded"
if [ "$STATUS" = 1 ] && grep -aq 'hostile.folded:5: count above 18446744073709551615' "$TMP/stderr" &&
   grep -aq 'hostile.folded:6: negative count' "$TMP/stderr" && grep -aq 'hostile.folded:7: ' "$TMP/stderr" &&
   [ "$(grep -av '^#' "$TMP/stdout" | awk '{ s += $NF } END { print s }')" = 15 ]; then
	pass "proffold: overflowing, negative and non-numeric counts named by line, exit 1, the rest folded"
else
	fail "proffold: bad counts" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
fi
# fields_ok FILE N: every non-# line of FILE has N tab-separated fields and no control character but tab
fields_ok() {
	grep -v '^#' "$1" | awk -F'\t' -v n="$2" 'NF != n { bad = 1 } END { exit bad }' &&
		! grep -v '^#' "$1" | tr -d '\t\n' | LC_ALL=C grep -q '[[:cntrl:]]'
}
"$BIN/proffold" -q --top 20 "$TMP/hostile.folded" >"$TMP/top.tsv" 2>/dev/null
"$BIN/profcmp" -q "$TMP/hostile.folded" "$TMP/hostile.folded" >"$TMP/cmp.tsv" 2>/dev/null
if fields_ok "$TMP/top.tsv" 7 && fields_ok "$TMP/cmp.tsv" 15 &&
   [ "$(grep -v '^#' "$TMP/top.tsv" | sed 1d | awk -F'\t' '$3 > 0 { print $2 }' | sort)" = "$(grep -v '^#' "$TMP/cmp.tsv" | sed 1d | cut -f1 | sort)" ] &&
   grep -q "$(printf '^nul x\t')" "$TMP/cmp.tsv" && grep -q "$(printf '\t<script>x</script>&"q\t')" "$TMP/top.tsv"; then
	pass "hostile names: proffold --top and profcmp rows keep their columns, control bytes become spaces, the same names in both"
else
	fail "hostile names in TSV" "$(cat -A "$TMP/cmp.tsv" | head -n 8 | tr '\n' '|')"
fi
printf '\n\n\n' >"$TMP/newlines.folded"
check "a file of only newlines: proffold folds nothing, exit 0" 0 "" "$BIN/proffold" "$TMP/newlines.folded"
check_error "a file of only newlines: profflame has nothing to draw, exit 1" 1 "no stacks in the input" \
	"$BIN/profflame" "$TMP/newlines.folded"
