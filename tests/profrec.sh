#!/bin/sh
# profrec: recording real workloads built here (tests/demo/workload.c).
. "$(dirname "$0")/lib.sh"

P=$BIN/profrec
CC=${CC:-cc}
# A private symbol cache: hermetic runs, and the cache path is exercised.
XDG_CACHE_HOME=$TMP/cache
export XDG_CACHE_HOME
WL_SRC=$TESTS/demo/workload.c
# Share tests run 1 s of CPU; the rest 0.3 s.
SECS=1
SHORT=0.3

if [ ! -r /proc/sys/kernel/perf_event_paranoid ]; then
	skip "all" "no perf_event support"
	exit 0
fi
# Workloads: frame pointers (leaf functions get frames: they call leaf_done),
# -O2 without frame pointers (dwarf mode), stripped + debug link, a dlopen'd lib.
$CC -O1 -g -fno-omit-frame-pointer -pthread -o "$TMP/wl" "$WL_SRC" -ldl || { fail "build workload"; exit 0; }
$CC -O2 -g -fomit-frame-pointer -pthread -o "$TMP/wlo" "$WL_SRC" -ldl || { fail "build -O2 workload"; exit 0; }
cp "$TMP/wl" "$TMP/wls"
objcopy --only-keep-debug "$TMP/wls" "$TMP/wls.debug" && strip --strip-all "$TMP/wls" &&
	objcopy --add-gnu-debuglink="$TMP/wls.debug" "$TMP/wls" || { fail "build stripped workload"; exit 0; }
cat >"$TMP/spinlib.c" <<'EOF'
#include <time.h>
static volatile unsigned long lsink;
__attribute__((noinline)) void lib_hot(unsigned long n)
{
	unsigned long x = lsink;
	for (unsigned long i = 0; i < n; i++)
		x = x * 31 + i;
	lsink = x;
}
void lib_spin(double s)
{
	struct timespec a, b;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do {
		lib_hot(100000);
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	} while ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9 < s);
}
EOF
$CC -O1 -g -fPIC -shared -fno-omit-frame-pointer -o "$TMP/libspin.so" "$TMP/spinlib.c" ||
	{ fail "build dlopen library"; exit 0; }

# stacks FILE: "pid<TAB>tid<TAB>comm<TAB>event<TAB>weight<TAB>stack" per sample,
# with each row's stack resolved through its stack_id.
stacks() {
	awk -F'\t' '/^#/ || $1 == "time_ns" { next }
		{ if ($9 != "") s[$8] = $9; print $2 "\t" $3 "\t" $4 "\t" $6 "\t" $7 "\t" s[$8] }' "$1"
}

# share FILE: percentage of leaf_a among samples whose innermost user
# frame (kernel frames _[k] skipped) is leaf_a or leaf_b.
share() {
	stacks "$1" | awk -F'\t' '{
		n = split($6, f, ";"); leaf = ""
		for (i = n; i > 0; i--) if (f[i] !~ /_\[k\]$/) { leaf = f[i]; break }
		if (leaf == "leaf_a") a++; else if (leaf == "leaf_b") b++
	} END { if (a + b < 50) print "few"; else printf "%.1f\n", 100 * a / (a + b) }'
}

within() {	# within VALUE LO HI
	awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v != "few" && v + 0 >= lo && v + 0 <= hi) }'
}

# wait_rows FILE N: wait (up to 20 s) until FILE holds N sample rows
# (profrec flushes every second).
wait_rows() {
	_i=0
	while [ $_i -lt 100 ]; do
		[ -f "$1" ] && [ "$(grep -vc '^#' "$1" 2>/dev/null)" -gt "$2" ] && return 0
		sleep 0.2
		_i=$((_i + 1))
	done
	return 1
}

# ---- usage errors ----
check_error "no command is a usage error" 2 "nothing to profile" "$P"
check_error "unknown event" 2 "unknown event 'bogus'" "$P" -e bogus -- true
check_error "bad frequency" 2 "invalid frequency" "$P" -F abc -- true
check_error "bad call-graph mode" 2 "unknown mode" "$P" --call-graph lbr -- true
check_error "command and -p together" 2 "one of" "$P" -p 1 -- true

# ---- fp mode: the 75/25 split ----
run "$P" -o "$TMP/fp.tsv" -- "$TMP/wl" -s $SECS split
if [ "$STATUS" != 0 ]; then
	fail "fp: record" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
else
	pass "fp: record"
	validate_tsv "fp: valid profrec-samples TSV" profrec-samples "$TMP/fp.tsv"
	s=$(share "$TMP/fp.tsv")
	if within "$s" 70 80; then pass "fp: leaf_a share 75% +-5 ($s)"; else fail "fp: leaf_a share 75% +-5" "got $s"; fi
	assert "fp: full user stack main;split;leaf_a" grep -q 'main;split;leaf_a' "$TMP/fp.tsv"
	assert "fp: metadata line" grep -q '^# source=profrec event=cpu-clock unit=ns freq=999 call_graph=fp command=' "$TMP/fp.tsv"
	assert "fp: summary on stderr" grep -Eq '^profrec: .* samples .* lost, .* samples/s, 1 threads, .* B/sample' "$TMP/stderr"
	n=$(stacks "$TMP/fp.tsv" | wc -l)
	if [ "$n" -ge 900 ]; then pass "fp: samples captured ($n of ~1000 expected)"; else fail "fp: samples captured" "$n of ~1000"; fi
	# each stack defined once, before use
	assert "fp: stacks defined once, before use" awk -F'\t' '/^#/ || $1 == "time_ns" { next }
		$9 != "" { if ($8 in d) exit 1; d[$8] = 1; next } !($8 in d) { exit 1 }' "$TMP/fp.tsv"
fi

# ---- the persistent symbol cache gives the same names ----
n=$(ls "$TMP/cache/proftools/sym" 2>/dev/null | wc -l)
run "$P" -o "$TMP/fp2.tsv" -- "$TMP/wl" -s 0.2 split
if [ "$n" -ge 1 ] && grep -q 'main;split;leaf_a' "$TMP/fp2.tsv"; then
	pass "symbol cache written and used ($n files)"
else
	fail "symbol cache written and used" "$n files"
fi

# ---- dwarf mode on a build without frame pointers ----
run "$P" --call-graph dwarf -o "$TMP/dw.tsv" -- "$TMP/wlo" -s $SECS split
if [ "$STATUS" != 0 ]; then
	fail "dwarf: record" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
else
	validate_tsv "dwarf: valid TSV" profrec-samples "$TMP/dw.tsv"
	s=$(share "$TMP/dw.tsv")
	if within "$s" 70 80; then pass "dwarf: leaf_a share 75% +-5 ($s)"; else fail "dwarf: leaf_a share 75% +-5" "got $s"; fi
	full=$(stacks "$TMP/dw.tsv" | awk -F'\t' '$6 ~ /leaf_[ab]/ { n++; if ($6 ~ /main;split;leaf_[ab]/) f++ } END { printf "%d", n ? 100 * f / n : 0 }')
	if [ "$full" -ge 95 ]; then pass "dwarf: -O2 -fomit-frame-pointer gets full stacks ($full%)"; else fail "dwarf: full stacks" "$full% of leaf samples under main;split"; fi
fi

# ---- threads ----
run "$P" -o "$TMP/th.tsv" -- "$TMP/wl" -s $SHORT -t 3 threads
stacks "$TMP/th.tsv" >"$TMP/th.rows"
ok=1
for i in 0 1 2; do
	n=$(awk -F'\t' -v c="worker-$i" '$3 == c && $2 != $1 && $6 ~ /worker;split;leaf_/ { n++ } END { print n + 0 }' "$TMP/th.rows")
	[ "$n" -ge 100 ] || { ok=0; fail "threads: worker-$i samples with its tid and comm" "$n samples"; }
done
tids=$(awk -F'\t' '$3 ~ /^worker-/ { print $2 }' "$TMP/th.rows" | sort -u | wc -l)
[ "$ok" = 1 ] && [ "$tids" = 3 ] && pass "threads: every thread's samples, tid and comm"
[ "$ok" = 1 ] && [ "$tids" != 3 ] && fail "threads: 3 distinct worker tids" "$tids"

# ---- fork + exec ----
run "$P" -o "$TMP/fe.tsv" -- "$TMP/wl" -s $SHORT forkexec
stacks "$TMP/fe.tsv" >"$TMP/fe.rows"
parent=$(awk -F'\t' '$6 ~ /main;split;leaf_a/ { print $1; exit }' "$TMP/fe.rows")
child=$(awk -F'\t' '$6 ~ /main;child_main;child_leaf/ { print $1; exit }' "$TMP/fe.rows")
if [ -n "$parent" ] && [ -n "$child" ] && [ "$parent" != "$child" ]; then
	pass "fork+exec: child profiled and symbolized"
else
	fail "fork+exec: child profiled and symbolized" "parent=$parent child=$child"
fi

# ---- dlopen ----
run "$P" -o "$TMP/dl.tsv" -- "$TMP/wl" -s $SHORT -l "$TMP/libspin.so" dlopen
n=$(stacks "$TMP/dl.tsv" | grep -c ';lib_hot')
if [ "$STATUS" = 0 ] && [ "$n" -ge 100 ]; then pass "dlopen'd library symbolized"; else fail "dlopen'd library symbolized" "exit $STATUS, $n samples in lib_hot"; fi

# ---- stripped binary, separate debug file (.gnu_debuglink) ----
run "$P" -o "$TMP/st.tsv" -- "$TMP/wls" -s $SHORT split
n=$(stacks "$TMP/st.tsv" | grep -c 'main;split;leaf_')
if [ "$n" -ge 100 ]; then pass "stripped binary + debug file symbolized"; else fail "stripped binary + debug file symbolized" "$n samples named"; fi

# ---- inlined function ----
run "$P" -o "$TMP/in.tsv" -- "$TMP/wlo" -s $SHORT inline
n=$(stacks "$TMP/in.tsv" | grep -c 'inline_caller;inlined_work_\[i\]')
if [ "$n" -ge 100 ]; then pass "inlined function shown with _[i]"; else fail "inlined function shown with _[i]" "$n samples"; fi
run "$P" --no-inline -o "$TMP/in2.tsv" -- "$TMP/wlo" -s 0.1 inline
if grep -q '_\[i\]' "$TMP/in2.tsv"; then fail "--no-inline: no _[i] frames"; else pass "--no-inline: no _[i] frames"; fi

# ---- JIT code named through /tmp/perf-PID.map ----
run "$P" -o "$TMP/jit.tsv" -- "$TMP/wl" -s $SHORT jit
n=$(stacks "$TMP/jit.tsv" | grep -c ';jitted_loop')
if [ "$n" -ge 100 ]; then pass "JIT code named from /tmp/perf-PID.map"; else fail "JIT code named from /tmp/perf-PID.map" "$n samples"; fi

# ---- C++ names demangled ----
if command -v "${CXX:-c++}" >/dev/null 2>&1; then
	cat >"$TMP/cxx.cc" <<'EOF'
#include <ctime>
namespace demo {
struct Engine {
	__attribute__((noinline)) static unsigned long spin(unsigned long n)
	{
		volatile unsigned long x = 0;
		for (unsigned long i = 0; i < n; i++)
			x = x * 3 + i;
		return x;
	}
};
}
int main()
{
	std::clock_t end = std::clock() + CLOCKS_PER_SEC / 4;
	while (std::clock() < end)
		demo::Engine::spin(100000);
}
EOF
	if "${CXX:-c++}" -O1 -g -fno-omit-frame-pointer -o "$TMP/cxx" "$TMP/cxx.cc"; then
		run "$P" -o "$TMP/cxx.tsv" -- "$TMP/cxx"
		n=$(stacks "$TMP/cxx.tsv" | grep -c 'main;demo::Engine::spin(unsigned long)')
		if [ "$n" -ge 50 ]; then pass "C++ names demangled"; else fail "C++ names demangled" "$n samples"; fi
	else
		fail "C++ names demangled" "cannot build the C++ workload"
	fi
else
	skip "C++ names demangled" "no C++ compiler"
fi

# ---- --lines, --folded, compressed output ----
run "$P" --lines -o "$TMP/ln.tsv" -- "$TMP/wl" -s 0.1 split
assert "--lines: file:line in frame names" grep -Eq 'leaf_[ab] workload\.c:[0-9]+' "$TMP/ln.tsv"
run "$P" --folded -o "$TMP/f.folded" -- "$TMP/wl" -s $SHORT split
if [ "$STATUS" = 0 ] && grep -Eq '^wl;.*main;split;leaf_a [0-9]+$' "$TMP/f.folded" &&
	! grep -Evq '^(#|.* [0-9]+$)' "$TMP/f.folded"; then
	pass "--folded: folded stacks rooted at the command name"
else
	fail "--folded: folded stacks rooted at the command name" "$(head -c 300 "$TMP/f.folded")"
fi
run "$P" -o "$TMP/c.tsv.zst" -- "$TMP/wl" -s 0.1 split
validate_tsv "-o FILE.zst: compressed, valid" profrec-samples "$TMP/c.tsv.zst"

# ---- profile on stdout: the command's own stdout goes to stderr ----
"$P" -q -- sh -c 'echo from-the-command' >"$TMP/so.tsv" 2>"$TMP/so.err"
if ! grep -qx from-the-command "$TMP/so.tsv" && grep -qx from-the-command "$TMP/so.err" &&
	head -n 1 "$TMP/so.tsv" | grep -q '^# source=profrec'; then
	pass "profile on stdout: command output moved to stderr"
else
	fail "profile on stdout: command output moved to stderr"
fi

# ---- exit statuses ----
check_status "exits with the command's status" 3 "$P" -q -o "$TMP/x.tsv" -- sh -c 'exit 3'
check_error "command not found: 127" 127 "no-such-command" "$P" -q -o "$TMP/x.tsv" -- "$TMP/no-such-command"

# ---- a crashing target keeps every sample ----
run "$P" -o "$TMP/cr.tsv" -- "$TMP/wl" -s $SHORT crash
n=$(stacks "$TMP/cr.tsv" | grep -c 'split;leaf_')
if [ "$STATUS" = 139 ] && [ "$n" -ge 200 ]; then
	pass "crashing target: exit 139, samples kept ($n)"
else
	fail "crashing target: exit 139, samples kept" "exit $STATUS, $n samples"
fi
validate_tsv "crashing target: valid TSV" profrec-samples "$TMP/cr.tsv"

# ---- SIGTERM to profrec: stops, passes it on, output complete ----
"$P" -q -o "$TMP/term.tsv" -- "$TMP/wl" forever 2>"$TMP/term.err" &
rp=$!
wait_rows "$TMP/term.tsv" 150
kill -TERM $rp
st=0
wait $rp || st=$?
if [ "$st" = 143 ] && [ "$(stacks "$TMP/term.tsv" | grep -c 'split;leaf_')" -ge 90 ]; then
	pass "SIGTERM: command stopped, exit 143, samples kept"
else
	fail "SIGTERM: command stopped, exit 143, samples kept" "exit $st"
fi

# ---- attach with -p, stop with SIGINT ----
"$TMP/wl" forever &
wp=$!
sleep 0.1
"$P" -p $wp -o "$TMP/att.tsv" 2>"$TMP/att.err" &
rp=$!
wait_rows "$TMP/att.tsv" 250
kill -INT $rp
st=0
wait $rp || st=$?
n=$(stacks "$TMP/att.tsv" | awk -F'\t' -v p=$wp '$1 == p && $6 ~ /split;leaf_/' | wc -l)
if [ "$st" = 0 ] && [ "$n" -ge 180 ]; then pass "-p attach, SIGINT: exit 0, samples ($n)"; else fail "-p attach, SIGINT" "exit $st, $n samples: $(head -c 200 "$TMP/att.err")"; fi
validate_tsv "-p attach: valid TSV" profrec-samples "$TMP/att.tsv"
# -t on the same thread, for a fixed duration
run "$P" -t $wp -d 1 -o "$TMP/tid.tsv"
n=$(stacks "$TMP/tid.tsv" | grep -c 'split;leaf_')
if [ "$STATUS" = 0 ] && [ "$n" -ge 50 ]; then pass "-t TID -d 1"; else fail "-t TID -d 1" "exit $STATUS, $n samples"; fi
kill $wp
wait $wp 2>/dev/null

# ---- system-wide ----
if [ "$(id -u)" = 0 ]; then
	"$TMP/wl" -s 0.5 split &
	wp=$!
	run "$P" -a -d 0.3 -o "$TMP/all.tsv"
	wait $wp
	n=$(stacks "$TMP/all.tsv" | awk -F'\t' -v p=$wp '$1 == p && $6 ~ /split;leaf_/' | wc -l)
	if [ "$STATUS" = 0 ] && [ "$n" -ge 50 ]; then pass "-a -d: system-wide, other processes symbolized"; else fail "-a -d" "exit $STATUS, $n samples"; fi
else
	skip "-a -d" "not root"
fi

# ---- off-CPU time ----
run "$P" --off-cpu -o "$TMP/off.tsv" -- "$TMP/wl" -s $SHORT offcpu
validate_tsv "--off-cpu: valid TSV" profrec-samples "$TMP/off.tsv"
stacks "$TMP/off.tsv" >"$TMP/off.rows"
ms=$(awk -F'\t' '$4 == "offcpu-time" && $6 ~ /main;offcpu;/ { t += $5 } END { printf "%d", t / 1e6 }' "$TMP/off.rows")
# ~0.3 s of wall time, almost all of it in 20 ms sleeps
if [ "$ms" -ge 150 ] && [ "$ms" -le 400 ]; then pass "--off-cpu: blocked time under offcpu (sleeps) (${ms} ms)"; else fail "--off-cpu: blocked time under offcpu (sleeps)" "${ms} ms"; fi
if awk -F'\t' '$4 != "offcpu-time"' "$TMP/off.rows" | grep -q .; then fail "--off-cpu alone: only offcpu-time rows"; else pass "--off-cpu alone: only offcpu-time rows"; fi
run "$P" -e cpu-clock --off-cpu -o "$TMP/off2.tsv" -- "$TMP/wl" -s 0.2 offcpu
ev=$(stacks "$TMP/off2.tsv" | cut -f4 | sort -u | tr '\n' ' ')
if [ "$ev" = "cpu-clock offcpu-time " ]; then pass "-e cpu-clock --off-cpu: two events in one file"; else fail "-e cpu-clock --off-cpu: two events" "$ev"; fi

# ---- lost records are counted and reported ----
run "$P" -m 1 --call-graph dwarf -o "$TMP/lost.tsv" -- "$TMP/wlo" -s 0.1 split
if [ "$STATUS" = 0 ] && grep -Eq '[1-9][0-9]* records lost' "$TMP/stderr" &&
	grep -Eq ' [1-9][0-9]* lost,' "$TMP/stderr"; then
	pass "lost records counted and reported (1-page ring, 8 KiB stacks)"
else
	fail "lost records counted and reported" "$(head -c 300 "$TMP/stderr")"
fi

# ---- errors ----
check_error "nonexistent pid" 1 "pid 999999999: no such process|invalid process id" "$P" -p 999999999 -o "$TMP/x.tsv"
pid_max=$(cat /proc/sys/kernel/pid_max)
check_error "pid not running" 1 "no such process" "$P" -p $((pid_max - 1)) -o "$TMP/x.tsv"
check_error "unwritable output" 1 "/nonexistent/dir/out.tsv" "$P" -o /nonexistent/dir/out.tsv -- true
if perf stat -e instructions true 2>&1 | grep -q 'not supported'; then
	check_error "unsupported hardware event names an alternative" 1 "instructions.*not supported.*-e cpu-clock" \
		"$P" -e instructions -o "$TMP/x.tsv" -- true
else
	skip "unsupported hardware event" "this machine has hardware counters"
fi
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	mkdir "$TMP/nobody" && chmod 777 "$TMP/nobody" && chmod 755 "$TMP"
	NB="setpriv --reuid=nobody --regid=nogroup --clear-groups"
	check_error "as nobody: pid of another user not permitted" 1 "pid 1: not permitted" \
		$NB "$P" -p 1 -o "$TMP/nobody/x.tsv"
	run $NB "$P" -o "$TMP/nobody/nb.tsv" -- "$TMP/wl" -s $SHORT split
	n=$(stacks "$TMP/nobody/nb.tsv" | grep -c 'split;leaf_')
	if [ "$STATUS" = 0 ] && [ "$n" -ge 100 ] && ! grep -q '_\[k\]' "$TMP/nobody/nb.tsv" &&
		grep -q 'kernel frames not recorded' "$TMP/stderr"; then
		pass "as nobody: user-space-only profile, said once"
	else
		fail "as nobody: user-space-only profile" "exit $STATUS, $n samples: $(head -c 300 "$TMP/stderr")"
	fi
else
	skip "as nobody" "needs root, setpriv and user nobody"
fi

# ---- pipeline into proffold, when it is built ----
if [ -x "$BIN/proffold" ]; then
	run sh -c "'$BIN/proffold' '$TMP/fp.tsv' > '$TMP/pf.folded'"
	if [ "$STATUS" = 0 ] && grep -q 'main;split;leaf_a' "$TMP/pf.folded"; then
		pass "proffold reads profrec TSV"
	else
		fail "proffold reads profrec TSV" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
	fi
else
	skip "proffold reads profrec TSV" "proffold not built"
fi
