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

# The 75/25 split as cpu-clock samples see it: 73 to 77 on a quiet
# machine; in the full suite on 2 cores (two test files at once, the
# sanitizer pass's slower profiler beside the workload) 68.8 to 81.9 was
# seen, for symbol- and FDE-named binaries alike. The checks that names
# are right (no +0x leaf, one frame per function) are exact.
SHARE_LO=67 SHARE_HI=83
within() {	# within VALUE LO HI
	awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v != "few" && v + 0 >= lo && v + 0 <= hi) }'
}

# wait_rows FILE N: wait (up to 20 s) until FILE, or the temporary file
# profrec writes beside it (.FILE.XXXXXX, renamed to FILE at the end),
# holds N sample rows (profrec flushes every second).
wait_rows() {
	_i=0
	while [ $_i -lt 100 ]; do
		for _f in "$1" "$(dirname "$1")/.$(basename "$1")".*; do
			[ -f "$_f" ] && [ "$(grep -vc '^#' "$_f" 2>/dev/null)" -gt "$2" ] && return 0
		done
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
	if within "$s" $SHARE_LO $SHARE_HI; then pass "fp: leaf_a share 75% +-8 ($s)"; else fail "fp: leaf_a share 75% +-8" "got $s"; fi
	assert "fp: full user stack main;split;leaf_a" grep -q 'main;split;leaf_a' "$TMP/fp.tsv"
	assert "fp: metadata line" grep -q '^# source=profrec event=cpu-clock unit=ns freq=999 call_graph=fp command=' "$TMP/fp.tsv"
	assert "fp: summary on stderr" grep -Eq '^profrec: .* samples .* lost, .* samples/s, 1 thread, .* B/sample' "$TMP/stderr"
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
	if within "$s" $SHARE_LO $SHARE_HI; then pass "dwarf: leaf_a share 75% +-8 ($s)"; else fail "dwarf: leaf_a share 75% +-8" "got $s"; fi
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

# ---- --processes: the processes started and the images exec'd ----
run "$P" -q --processes "$TMP/procs.tsv" -o "$TMP/procs-s.tsv" -- sh -c '/bin/true; exec sh -c "exec /bin/true"'
root=$(awk -F'\t' '$2 == "exec" { print $3; exit }' "$TMP/procs.tsv" 2>/dev/null)
if [ "$STATUS" = 0 ] && [ "$(sed -n 2p "$TMP/procs.tsv")" = "$(printf 'time_ns\tevent\tpid\tppid\tcomm')" ] &&
	head -n 1 "$TMP/procs.tsv" | grep -q '^# source=profrec ' && [ -n "$root" ] &&
	[ "$(awk -F'\t' -v r="$root" '$2 == "exec" && $3 == r { printf "%s ", $5 }' "$TMP/procs.tsv")" = "sh sh true " ] &&
	awk -F'\t' -v r="$root" '$2 == "fork" && $4 == r && $3 != r { f = $3 } $2 == "exec" && $3 == f && $5 == "true" { ok = 1 } END { exit !ok }' "$TMP/procs.tsv" &&
	awk -F'\t' 'NR > 2 && $1 !~ /^[0-9]+$/ { exit 1 } NR > 2 && $1 + 0 < prev { exit 1 } NR > 2 { prev = $1 + 0 }' "$TMP/procs.tsv"; then
	pass "--processes: the command's exec chain (sh, sh, true), the child it forked and what that exec'd, in time order"
else
	fail "--processes" "exit $STATUS: $(tr '\t\n' ' |' <"$TMP/procs.tsv" 2>&1 | head -c 400)"
fi
check_error "--processes with --python is a usage error" 2 'none of .*--processes' "$P" --python --processes "$TMP/pp.tsv" -- true

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
# the workload leaves its map behind, as JIT runtimes do
for pid in $(stacks "$TMP/jit.tsv" | cut -f1 | sort -u); do rm -f "/tmp/perf-$pid.map"; done
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

# ---- Rust names demangled (issue 17) ----
# tests/tools/shapes.rs: a trait method called by a generic function, std
# around them (legacy names for the program's crate, v0 for std). Every
# frame reads as rustc-demangle's short form prints it, in fp and dwarf.
if rust_shapes "Rust names demangled" "$TMP/shapes"; then
	for m in fp dwarf; do
		run "$P" --call-graph $m -o "$TMP/rs-$m.tsv" -- "$TMP/shapes" 0.5
		stacks "$TMP/rs-$m.tsv" | cut -f6 >"$TMP/rs-$m.stacks"
		tr ';' '\n' <"$TMP/rs-$m.stacks" | sort -u >"$TMP/rs-$m.frames"
		raw=$(rust_raw_names <"$TMP/rs-$m.frames" | head -n 3 | tr '\n' '|')
		if [ "$STATUS" != 0 ]; then
			fail "Rust $m: names demangled" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
		elif [ -n "$raw" ]; then
			fail "Rust $m: no hash, escape or mangled name left" "$raw"
		elif ! grep -q ';main::total;.*<main::Sq as main::Shape>::area' "$TMP/rs-$m.stacks"; then
			fail "Rust $m: trait method <main::Sq as main::Shape>::area under main::total" \
				"$(grep -m 3 'area\|total' "$TMP/rs-$m.frames" | tr '\n' '|')"
		elif ! grep -qx 'std::rt::lang_start_internal' "$TMP/rs-$m.frames"; then
			fail "Rust $m: std's v0 names demangled" "no std::rt::lang_start_internal frame"
		else
			pass "Rust $m: names demangled, no hash; main::total;...;<main::Sq as main::Shape>::area; std::rt::lang_start_internal"
		fi
	done
	run "$P" --no-demangle -o "$TMP/rs-raw.tsv" -- "$TMP/shapes" $SHORT
	if [ "$STATUS" = 0 ] && stacks "$TMP/rs-raw.tsv" | cut -f6 | tr ';' '\n' |
		grep -q '^_ZN40_$LT$main..Sq$u20$as$u20$main..Shape$GT$4area17h[0-9a-f]\{16\}E$'; then
		pass "Rust --no-demangle: raw names kept"
	else
		fail "Rust --no-demangle: raw names kept" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
	fi
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
run "$P" -q --folded --no-header -o "$TMP/nh.folded" -- "$TMP/wl" -s $SHORT split
if [ "$STATUS" = 0 ] && head -n 1 "$TMP/f.folded" | grep -q '^# .*source=profrec' &&
	grep -Eq '^wl;.*main;split;leaf_a [0-9]+$' "$TMP/nh.folded" && ! grep -q '^#' "$TMP/nh.folded"; then
	pass "--folded --no-header: no metadata line"
else
	fail "--folded --no-header: no metadata line" "exit $STATUS: $(head -c 300 "$TMP/nh.folded")"
fi
check_error "--no-header needs --folded" 2 "needs --folded" "$P" --no-header -- true
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
assert "-p attach: the metadata names the target" grep -q "^# .* command=-p%20$wp " "$TMP/att.tsv"
# -t on the same thread, for a fixed duration
run "$P" -t $wp -d 1 -o "$TMP/tid.tsv"
n=$(stacks "$TMP/tid.tsv" | grep -c 'split;leaf_')
if [ "$STATUS" = 0 ] && [ "$n" -ge 50 ]; then pass "-t TID -d 1"; else fail "-t TID -d 1" "exit $STATUS, $n samples"; fi
assert "-t TID: the metadata names the thread" grep -q "^# .* command=-t%20$wp " "$TMP/tid.tsv"
other=$(stacks "$TMP/tid.tsv" | awk -F'\t' -v t=$wp '$1 != t || $2 != t' | head -n 1)
if [ -z "$other" ]; then pass "-t TID: every row is that thread's"; else fail "-t TID: every row is that thread's" "$other"; fi
kill $wp
wait $wp 2>/dev/null

# ---- system-wide ----
if [ "$(id -u)" = 0 ]; then
	# (the workload outlives the recording, however late a loaded host starts it)
	"$TMP/wl" -s 30 split &
	wp=$!
	sleep 0.1
	run "$P" -a -d 0.3 -o "$TMP/all.tsv"
	kill $wp
	wait $wp 2>/dev/null
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
# A command that computes (wl split) and waits (sh in wait4, sleep): the
# offcpu workload alone burns ~1 ms of CPU, one sample or none at 999 Hz.
run "$P" -e cpu-clock --off-cpu -o "$TMP/off2.tsv" -- sh -c "'$TMP/wl' -s 0.2 split; sleep 0.1"
ev=$(stacks "$TMP/off2.tsv" | cut -f4 | sort -u | tr '\n' ' ')
if [ "$ev" = "cpu-clock offcpu-time " ]; then pass "-e cpu-clock --off-cpu: two events in one file"; else fail "-e cpu-clock --off-cpu: two events" "$ev"; fi

# ---- lost records are counted and reported ----
run "$P" -m 1 --call-graph dwarf -o "$TMP/lost.tsv" -- "$TMP/wlo" -s 0.1 split
if [ "$STATUS" = 0 ] && grep -Eq '[1-9][0-9]* records? lost' "$TMP/stderr" &&
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

# ---- the command's signal state is its own, not profrec's ----
check_sigstate "command starts with the dispositions and mask profrec started with" \
	"$P" -q -o "$TMP/sig.tsv" --
run "$P" -q -o "$TMP/sig.tsv" -- sh -c 'yes | head -n 1'
if [ "$STATUS" = 0 ] && [ "$(cat "$TMP/stdout")" = y ] && ! grep -q 'Broken pipe' "$TMP/stderr"; then
	pass "SIGPIPE not ignored in the command: yes | head -n 1 quiet"
else
	fail "SIGPIPE not ignored in the command" "exit $STATUS: $(head -c 200 "$TMP/stderr")"
fi

# ---- frame pointer walks that leave the stack ----
# Threads created one after another: the creating thread is often sampled
# in clone3, whose %rbp (glibc keeps data there) can be a self-referencing
# list head that the kernel's walk follows to its depth limit. The walk
# must end at the entry frame (clone3, start_thread), with no [unknown]
# chain after it. 1000 threads also grow profrec's thread table while
# FORK records arrive.
cat >"$TMP/spawn.c" <<'EOF2'
#include <pthread.h>
static volatile unsigned long sink;
__attribute__((noinline)) void thread_work(void)
{
	for (int i = 0; i < 20000; i++)
		sink += i;
	__asm__ volatile("" ::: "memory");
}
static void *thread_main(void *a)
{
	thread_work();
	return a;
}
int main(void)
{
	for (int k = 0; k < 1000; k++) {
		pthread_t t;
		pthread_create(&t, 0, thread_main, 0);
		pthread_join(t, 0);
	}
	return 0;
}
EOF2
if $CC -O1 -g -fno-omit-frame-pointer -pthread -o "$TMP/spawn" "$TMP/spawn.c"; then
	run "$P" -F 20000 -o "$TMP/spawn.tsv" -- "$TMP/spawn"
	stacks "$TMP/spawn.tsv" | cut -f 3,6 >"$TMP/spawn.rows"
	inclone=$(grep -c '	clone3' "$TMP/spawn.rows")
	bogus=$(grep -Ec '\[unknown\];\[unknown\]|.;(clone3|start_thread)(;|$)' "$TMP/spawn.rows")
	comms=$(cut -f 1 "$TMP/spawn.rows" | sort -u | tr '\n' ' ')
	if [ "$STATUS" = 0 ] && [ "$inclone" -ge 1 ] && [ "$bogus" = 0 ] && [ "$comms" = "spawn " ]; then
		pass "fp: threads' stacks end at clone3/start_thread, no [unknown] chains ($inclone samples in clone3)"
	else
		fail "fp: threads' stacks end at clone3/start_thread, no [unknown] chains" \
			"exit $STATUS, $inclone samples in clone3, $bogus bogus, comms '$comms': $(grep -E '\[unknown\];\[unknown\]' "$TMP/spawn.rows" | head -n 1 | cut -c 1-200)"
	fi
else
	fail "fp: build the thread-spawning workload"
fi
# Deeper than the kernel's limit: one [truncated] root frame, then the
# frames the kernel gave.
cat >"$TMP/deep.c" <<'EOF2'
#include <time.h>
static volatile unsigned long sink;
__attribute__((noinline)) void deep_leaf(void)
{
	for (int i = 0; i < 100000; i++)
		sink += i;
	__asm__ volatile("" ::: "memory");
}
__attribute__((noinline)) void deep(int n)
{
	if (n)
		deep(n - 1);
	else
		deep_leaf();
	__asm__ volatile("" ::: "memory");
}
int main(void)
{
	clock_t end = clock() + CLOCKS_PER_SEC / 5;
	while (clock() < end)
		deep(300);
	return 0;
}
EOF2
maxstack=$(cat /proc/sys/kernel/perf_event_max_stack 2>/dev/null || echo 127)
if $CC -O1 -g -fno-omit-frame-pointer -o "$TMP/deep" "$TMP/deep.c"; then
	run "$P" -o "$TMP/deep.tsv" -- "$TMP/deep"
	# user-only stacks in deep_leaf: [truncated] then maxstack frames, and
	# deep_leaf's caller, which the walk skips when deep_leaf is frameless
	# (gcc -O1 builds it without a frame) and the sampled stack gives back
	r=$(stacks "$TMP/deep.tsv" | awk -F'\t' -v m="$maxstack" '$6 ~ /deep_leaf$/ {
		n++; k = split($6, f, ";")
		if (f[1] == "[truncated]" && (k == m + 1 || (k == m + 2 && f[k - 1] == "deep")) &&
		    gsub(/\[truncated\]/, "&", $6) == 1) ok++ }
		END { print n + 0, ok + 0 }')
	if [ "$STATUS" = 0 ] && [ "${r% *}" -ge 50 ] && [ "${r% *}" = "${r#* }" ]; then
		pass "fp: deeper than perf_event_max_stack ($maxstack): one [truncated] root frame ($r)"
	else
		fail "fp: deeper than perf_event_max_stack: one [truncated] root frame" "exit $STATUS, samples/ok: $r"
	fi
else
	fail "fp: build the recursive workload"
fi

# ---- fp mode: a frameless leaf keeps its caller (issue 25) ----
# strcmp and memcmp set up no frame pointer: the kernel's walk starts
# from main's, whose return address is __libc_start_call_main's, so main
# was lost (perf -g loses it too). The sampled SP and top of stack put it
# back where the leaf's CFI says the return address is (CFA = rsp + 8).
cat >"$TMP/leaf.c" <<'EOF2'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static char a[256], b[256];
static char *volatile pa = a, *volatile pb = b;	/* no call hoisted out of the loop */
int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 0.3;
	struct timespec t0, t;
	long n = 0;

	memset(a, 'x', sizeof(a) - 1);
	memset(b, 'x', sizeof(b) - 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 10000; i++)
			n += strcmp(pa, pb) + memcmp(pa, pb, sizeof(a));
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	printf("%ld\n", n);
	return 0;
}
EOF2
# leaf_share FILE: "N K": samples whose innermost user frame is in strcmp
# or memcmp (libc's variants or their PLT stubs), K of them under main
leaf_share() {
	awk -F'\t' '{ n = split($6, f, ";"); leaf = ""; parent = ""
		for (i = n; i >= 1; i--) if (f[i] !~ /_\[k\]$/) { leaf = f[i]; parent = f[i - 1]; break }
		if (leaf ~ /(strcmp|memcmp)/) { t++; if (parent == "main") m++ } }
		END { print t + 0, m + 0 }'
}
if $CC -O1 -g -fno-omit-frame-pointer -o "$TMP/leaf" "$TMP/leaf.c"; then
	run "$P" -o "$TMP/leaf.tsv" -- "$TMP/leaf" $SHORT
	r=$(stacks "$TMP/leaf.tsv" | leaf_share)
	# perf -g on the same program, for the record (it loses main)
	ref=
	if command -v perf >/dev/null 2>&1 &&
		perf record -q -g -o "$TMP/leaf.perf" -- "$TMP/leaf" $SHORT >/dev/null 2>&1; then
		ref=$(perf script -i "$TMP/leaf.perf" -F ip,sym 2>/dev/null | awk '
			/^$/ { if (leaf != "") { if (leaf ~ /(strcmp|memcmp)/) { t++; if (parent == "main") m++ } }
				leaf = ""; parent = ""; k = 0; next }
			{ k++; if (k == 1) leaf = $2; else if (k == 2) parent = $2 }
			END { print t + 0, m + 0 }')
		ref="; perf record -g: ${ref#* } of ${ref% *}"
	fi
	if [ "$STATUS" = 0 ] && [ "${r% *}" -ge 20 ] && [ $((${r#* } * 100)) -ge $((${r% *} * 95)) ]; then
		pass "fp: a frameless leaf (strcmp, memcmp) keeps main as its caller: ${r#* } of ${r% *} samples$ref"
	else
		fail "fp: a frameless leaf (strcmp, memcmp) keeps main as its caller" \
			"exit $STATUS, under main: ${r#* } of ${r% *}$ref; $(stacks "$TMP/leaf.tsv" | cut -f6 | sort | uniq -c | sort -nr | head -n 3 | tr '\n' '|')"
	fi
else
	fail "fp: build the strcmp/memcmp workload"
fi
# the vDSO (clock_gettime) is named by its symbols, as perf names it, not [vdso]+0x
cat >"$TMP/vdso.c" <<'EOF2'
#include <stdlib.h>
#include <time.h>
int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 0.3;
	struct timespec t, cpu;

	/* CPU seconds (checked every 1000 vDSO calls): a loaded host
	 * stretches the run, not the number of samples */
	do {
		for (int i = 0; i < 1000; i++)
			clock_gettime(CLOCK_MONOTONIC, &t);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
	} while (cpu.tv_sec + cpu.tv_nsec / 1e9 < secs);
	return 0;
}
EOF2
if $CC -O1 -g -fno-omit-frame-pointer -o "$TMP/vdso" "$TMP/vdso.c"; then
	run "$P" -o "$TMP/vdso.tsv" -- "$TMP/vdso" $SHORT
	named=$(stacks "$TMP/vdso.tsv" | grep -c ';__vdso_clock_gettime')
	raw=$(stacks "$TMP/vdso.tsv" | grep -c '\[vdso\]+0x')
	if [ "$STATUS" = 0 ] && [ "$named" -ge 20 ] && [ "$raw" = 0 ]; then
		pass "fp: vDSO code named by its symbols ($named samples in __vdso_clock_gettime)"
	else
		fail "fp: vDSO code named by its symbols" "exit $STATUS, $named named, $raw [vdso]+0x"
	fi
else
	fail "fp: build the clock_gettime workload"
fi

# ---- code built without frame pointers is reported, once ----
run "$P" -o "$TMP/nofp.tsv" -- "$TMP/wlo" -s $SHORT split
n=$(grep -c 'seems to be built without frame pointers (try --call-graph dwarf)' "$TMP/stderr")
garbage=$(stacks "$TMP/nofp.tsv" | grep -c '\[unknown\]')
all=$(stacks "$TMP/nofp.tsv" | wc -l)
# The leaf's caller comes back from the sampled stack (leaf_[ab] are frameless).
trunc=$(stacks "$TMP/nofp.tsv" | awk -F'\t' '$6 ~ /^\[truncated\];(split;)?leaf_[ab]$/' | wc -l)
# Garbage frames would be in most samples. A sample taken inside the
# command's execve has the image before the exec as its user frame, which
# is [unknown] (1 in 305 samples, once, in a full suite's plain pass):
# up to 1% is let through.
if [ "$STATUS" = 0 ] && [ "$n" = 1 ] && [ $((garbage * 100)) -le "$all" ] && [ "$trunc" -ge 100 ]; then
	pass "-fomit-frame-pointer -O2: said once, stacks [truncated];leaf ($trunc)"
else
	fail "-fomit-frame-pointer -O2: said once, stacks [truncated];leaf" "exit $STATUS, said $n times, $garbage [unknown], $trunc truncated: $(head -c 300 "$TMP/stderr")"
fi
run "$P" -o "$TMP/withfp.tsv" -- "$TMP/wl" -s $SHORT split
if [ "$STATUS" = 0 ] && ! grep -q 'frame pointers' "$TMP/stderr" && grep -q 'samples' "$TMP/stderr"; then
	pass "-fno-omit-frame-pointer: no frame pointer note"
else
	fail "-fno-omit-frame-pointer: no frame pointer note" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
fi
run "$P" -q -o "$TMP/nofp.tsv" -- "$TMP/wlo" -s 0.1 split
if grep -q 'frame pointers' "$TMP/stderr"; then fail "-q: no frame pointer note"; else pass "-q: no frame pointer note"; fi

# ---- a full disk (a 16 KiB tmpfs in a private mount namespace) ----
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	mkdir "$TMP/full"
	unshare -m sh -c 'mount -t tmpfs -o size=16k none "$1" || exit 99
		cd "$1" && printf "old good\n" >f.tsv
		st=0; "$2" -o f.tsv -- "$3" -s 0.5 split 2>"$4.err" || st=$?
		echo "status $st"; ls -A; cat f.tsv' sh "$TMP/full" "$P" "$TMP/wl" "$TMP/full" >"$TMP/full.out" 2>&1
	if [ "$(cat "$TMP/full.out")" = "$(printf 'status 1\nf.tsv\nold good')" ] &&
		grep -q 'f.tsv: .*No space left on device' "$TMP/full.err" &&
		grep -q 'output to f.tsv failed$' "$TMP/full.err" && ! grep -q 'B/sample' "$TMP/full.err"; then
		pass "full disk: exit 1, the old file untouched, no temporary left, no bytes claimed"
	else
		fail "full disk: exit 1, the old file untouched, no bytes claimed" "$(head -c 300 "$TMP/full.out" | tr '\n' '|') $(head -c 300 "$TMP/full.err")"
	fi
else
	skip "full disk" "needs root and unshare -m"
fi

# ---- SIGINT: the file is complete and well formed, nothing else is left ----
# stop_rec PID SIG: send SIG, wait (at most 20 s, then SIGKILL) and set $st
# to the exit status (999 if it hung).
stop_rec() {
	kill -"$2" "$1"
	_i=0
	while kill -0 "$1" 2>/dev/null && [ $_i -lt 100 ]; do
		sleep 0.2
		_i=$((_i + 1))
	done
	kill -0 "$1" 2>/dev/null && { kill -KILL "$1"; pkill -KILL -P "$1"; }
	st=0
	wait "$1" || st=$?
	[ $_i -ge 100 ] && st=999
}
# complete_tsv DIR: DIR holds only f.tsv, a valid profrec-samples file
# ending in a newline, with at least 100 samples of the workload.
complete_tsv() {
	[ "$(ls -A "$1")" = f.tsv ] && [ "$(tail -c 1 "$1/f.tsv" | od -An -c | tr -d ' ')" = '\n' ] &&
		"$TSVCHECK" profrec-samples "$1/f.tsv" >/dev/null 2>&1 &&
		[ "$(stacks "$1/f.tsv" | grep -c 'split;leaf_')" -ge 100 ]
}
SIGSTATE=$BUILD/tests/tools/sigstate
mkdir "$TMP/int" "$TMP/intbg"
# As from a terminal (SIGINT not ignored): the command gets SIGINT.
"$SIGSTATE" -d 2 "$P" -q -o "$TMP/int/f.tsv" -- "$TMP/wl" forever 2>"$TMP/int.err" &
rp=$!
wait_rows "$TMP/int/f.tsv" 150
stop_rec $rp INT
if [ "$st" = 130 ] && complete_tsv "$TMP/int"; then
	pass "SIGINT: the command gets it (exit 130), the file complete and valid"
else
	fail "SIGINT: the command gets it (exit 130), the file complete and valid" \
		"exit $st, files: $(ls -A "$TMP/int" | tr '\n' ' ') $(head -c 200 "$TMP/int.err")"
fi
# A background job of a script: the command started with SIGINT ignored,
# as it would without profrec; it gets SIGTERM, and profrec does not hang.
"$P" -q -o "$TMP/intbg/f.tsv" -- "$TMP/wl" forever 2>"$TMP/intbg.err" &
rp=$!
wait_rows "$TMP/intbg/f.tsv" 150
stop_rec $rp INT
if [ "$st" = 143 ] && complete_tsv "$TMP/intbg"; then
	pass "SIGINT to a background profrec: the command (SIGINT ignored) gets SIGTERM, the file complete"
else
	fail "SIGINT to a background profrec: the command gets SIGTERM" \
		"exit $st, files: $(ls -A "$TMP/intbg" | tr '\n' ' ') $(head -c 200 "$TMP/intbg.err")"
fi

# ---- a run that records nothing leaves an old file as it was ----
mkdir "$TMP/keep"
printf 'old good\n' >"$TMP/keep/f.tsv"
run "$P" -q -o "$TMP/keep/f.tsv" -- "$TMP/no-such-command"
if [ "$STATUS" = 127 ] && [ "$(cat "$TMP/keep/f.tsv")" = "old good" ] && [ "$(ls -A "$TMP/keep")" = f.tsv ]; then
	pass "command not found: the old output file untouched"
else
	fail "command not found: the old output file untouched" "exit $STATUS, $(ls -A "$TMP/keep" | tr '\n' ' '): $(head -c 100 "$TMP/keep/f.tsv")"
fi

# ==== dwarf unwinding of Rust and -fomit-frame-pointer C++ (issue 10 B) ====
# lld (rustc's default linker) starts the text segment in the last file page
# of the read-only one: the unwinder took that page for the read-only
# segment, was a page off, and every Rust stack was the leaf alone. Each
# program: a trait/virtual call in a hot loop under a generic function and
# two more levels; the leaf's stacks must reach main (and for Rust
# main::main and lang_start), and where perf works the median depth of the
# leaf's stacks is within 2 frames of perf record --call-graph dwarf's.
DW_N=100000
[ -n "$SANITIZE" ] && DW_N=30000

# dw_depth FILE: median number of user frames of the samples whose leaf
# (innermost user frame) is the hot "area" function, from a profrec TSV.
dw_depth() {
	stacks "$1" | awk -F'\t' '{
		n = split($6, f, ";"); d = 0; leaf = ""
		for (i = 1; i <= n; i++) if (f[i] !~ /_\[k\]$/ && f[i] != "[truncated]") { d++; leaf = f[i] }
		if (leaf ~ /area/) print d }' | sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'
}
# perf_depth DATA: the same from perf script (user-only samples, no inlines).
perf_depth() {
	perf script -i "$1" --no-inline -F ip,sym 2>/dev/null | awk '
		NF == 0 { if (n && leaf ~ /area/) print n; n = 0; next }
		{ if (!n) leaf = $0; n++ }
		END { if (n && leaf ~ /area/) print n }' | sort -n |
		awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'
}
PERF_OK=0
if command -v perf >/dev/null 2>&1 &&
	perf record -q -e cpu-clock:u --call-graph dwarf -o "$TMP/perf-probe.data" -- true >/dev/null 2>&1; then
	PERF_OK=1
fi
# dw_check NAME BINARY REGEX: record BINARY with --call-graph dwarf; 90% of
# the samples whose leaf is area have a stack matching REGEX; compare depths.
dw_check() {
	_n=$1 _b=$2 _re=$3
	run "$P" -q --call-graph dwarf --no-inline -o "$TMP/$_n.tsv" -- "$_b" $DW_N
	if [ "$STATUS" != 0 ]; then
		fail "dwarf $_n: record" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
		return
	fi
	_full=$(stacks "$TMP/$_n.tsv" | awk -F'\t' -v re="$_re" '$6 ~ /area[^;]*$/ || $6 ~ /area[^;]*;[^;]*_\[k\]/ {
		n++; if ($6 ~ re) f++ } END { printf "%d %d", n ? 100 * f / n : 0, n }')
	set -- $_full
	if [ "$2" -ge 20 ] && [ "$1" -ge 90 ]; then
		pass "dwarf $_n: full chains to main ($1% of $2 leaf samples)"
	else
		fail "dwarf $_n: full chains to main" "$1% of $2 leaf samples match $_re; e.g. $(stacks "$TMP/$_n.tsv" | grep area | head -n 1 | cut -f6)"
	fi
	if [ "$PERF_OK" = 1 ]; then
		perf record -q -e cpu-clock:u --call-graph dwarf -o "$TMP/$_n.data" -- "$_b" $DW_N >/dev/null 2>&1
		_ours=$(dw_depth "$TMP/$_n.tsv") _perf=$(perf_depth "$TMP/$_n.data")
		if [ "$_perf" -le 2 ]; then
			skip "dwarf $_n: depth against perf" "this perf does not unwind dwarf stacks (median depth $_perf)"
		elif [ "$_ours" -ge $((_perf - 2)) ] && [ "$_ours" -le $((_perf + 2)) ]; then
			pass "dwarf $_n: median depth $_ours, perf's $_perf"
		else
			fail "dwarf $_n: median depth as perf's" "profrec $_ours, perf $_perf"
		fi
	else
		skip "dwarf $_n: depth against perf" "perf record --call-graph dwarf not usable here"
	fi
}

RUSTC=$(rustc_path)
if [ -n "$RUSTC" ]; then
	mkdir "$TMP/rs"
	cat >"$TMP/rs/main.rs" <<'RS'
trait Shape { fn area(&self, k: u64) -> u64; }
struct Sq(u64);
struct Circ(u64);
impl Shape for Sq {
    #[inline(never)]
    fn area(&self, k: u64) -> u64 {
        let mut x = self.0 ^ k;
        for i in 0..2000u64 { x = x.wrapping_mul(6364136223846793005).wrapping_add(i); x ^= x >> 13; }
        x
    }
}
impl Shape for Circ {
    #[inline(never)]
    fn area(&self, k: u64) -> u64 { self.0.wrapping_mul(k) }
}
#[inline(never)]
fn hot_generic<S: Shape>(s: &S, n: u64) -> u64 {
    let mut acc = 0u64;
    for k in 0..n { acc = acc.wrapping_add(std::hint::black_box(s).area(k)); }
    acc
}
#[inline(never)]
fn level2(n: u64) -> u64 { hot_generic(&Sq(7), n) ^ hot_generic(&Circ(3), 10) }
#[inline(never)]
fn level1(n: u64) -> u64 { level2(std::hint::black_box(n)) }
fn main() {
    let n: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(100000);
    println!("{}", level1(n));
}
RS
	if (cd "$TMP/rs" && "$RUSTC" -O -g main.rs -o main) >"$TMP/rs/build.log" 2>&1; then
		dw_check rust "$TMP/rs/main" \
			'(^|;)main;.*lang_start.*;main::main[^;]*;main::level1[^;]*;main::level2[^;]*;main::hot_generic[^;]*;[^;]*main::Sq[^;]*main::Shape[^;]*area'
	else
		fail "dwarf rust: build" "$(head -c 300 "$TMP/rs/build.log")"
	fi
else
	skip "dwarf rust: full chains" "no rustc in PATH or \$HOME/.cargo/bin"
fi

if command -v "${CXX:-c++}" >/dev/null 2>&1; then
	cat >"$TMP/dwcx.cc" <<'CC'
#include <cstdio>
#include <cstdlib>
#include <vector>
struct Shape { virtual ~Shape() {} virtual unsigned long area(unsigned long k) const = 0; };
struct Sq : Shape {
	unsigned long s;
	explicit Sq(unsigned long v) : s(v) {}
	__attribute__((noinline)) unsigned long area(unsigned long k) const override {
		unsigned long x = s ^ k;
		for (unsigned long i = 0; i < 2000; i++) { x = x * 6364136223846793005UL + i; x ^= x >> 13; }
		return x;
	}
};
template <typename T> __attribute__((noinline)) unsigned long hot_generic(const std::vector<T *> &v, unsigned long n) {
	unsigned long acc = 0;
	for (unsigned long k = 0; k < n; k++)
		for (const T *s : v) acc += s->area(k);
	return acc;
}
namespace app {
__attribute__((noinline)) unsigned long level2(unsigned long n) {
	Sq a(7);
	std::vector<Shape *> v{&a};
	return hot_generic(v, n);
}
__attribute__((noinline)) unsigned long level1(unsigned long n) { return level2(n) + 1; }
}
int main(int argc, char **argv) {
	unsigned long n = argc > 1 ? strtoul(argv[1], 0, 10) : 100000;
	printf("%lu\n", app::level1(n));
	return 0;
}
CC
	CXRE='(^|;)main;app::level1\(unsigned long\);app::level2\(unsigned long\);[^;]*hot_generic<Shape>[^;]*;Sq::area\(unsigned long\) const'
	if "${CXX:-c++}" -O2 -g -fomit-frame-pointer -o "$TMP/dwcx" "$TMP/dwcx.cc"; then
		dw_check c++ "$TMP/dwcx" "$CXRE"
	else
		fail "dwarf c++: build" "cannot build the C++ workload"
	fi
	# lld packs segments as rustc's binaries are (the layout that broke).
	if "${CXX:-c++}" -O2 -g -fomit-frame-pointer -fuse-ld=lld -o "$TMP/dwcxl" "$TMP/dwcx.cc" 2>/dev/null; then
		dw_check c++-lld "$TMP/dwcxl" "$CXRE"
	else
		skip "dwarf c++-lld: full chains" "no lld for -fuse-ld=lld"
	fi
else
	skip "dwarf c++: full chains" "no C++ compiler"
fi

# ---- stripped code named by its .eh_frame FDEs (issue 17) ----
# fn_share FILE BIN A B: the share (%) of frame BIN!fn_A among samples
# whose innermost user frame is BIN!fn_A or BIN!fn_B.
fn_share() {
	stacks "$1" | awk -F'\t' -v a="$2!fn_$3" -v b="$2!fn_$4" '{
		n = split($6, f, ";"); leaf = ""
		for (i = n; i > 0; i--) if (f[i] !~ /_\[k\]$/) { leaf = f[i]; break }
		if (leaf == a) na++; else if (leaf == b) nb++
	} END { if (na + nb < 50) print "few"; else printf "%.1f\n", 100 * na / (na + nb) }'
}
# fde_check MODE UNSTRIPPED: profile a strip -s copy with the symbol cache
# off (its build-id is the unstripped one's: the cache would name it).
fde_check() {
	_m=$1 _u=$2 _b=$(basename "$2")-stripped
	cp "$_u" "$TMP/$_b" && strip -s "$TMP/$_b" || { fail "stripped $_m: build"; return; }
	_a=$(nm "$_u" | awk '$3 == "leaf_a" { sub(/^0+/, "", $1); print $1 }')
	_c=$(nm "$_u" | awk '$3 == "leaf_b" { sub(/^0+/, "", $1); print $1 }')
	PROFTOOLS_NO_CACHE=1 run "$P" --call-graph "$_m" -o "$TMP/fde-$_m.tsv" -- "$TMP/$_b" -s $SECS split
	if [ "$STATUS" != 0 ]; then
		skip "stripped $_m: functions from .eh_frame" "profrec cannot record here: $(head -c 200 "$TMP/stderr")"
		return
	fi
	s=$(fn_share "$TMP/fde-$_m.tsv" "$_b" "$_a" "$_c")
	if within "$s" $SHARE_LO $SHARE_HI; then pass "stripped $_m: $_b!fn_$_a (leaf_a) share 75% +-8 ($s)"
	else fail "stripped $_m: $_b!fn_$_a share 75% +-8" "got $s"; fi
	assert "stripped $_m: the summary says the binary had no symbols" \
		grep -Eq "^profrec: [0-9]+% of samples in .*/$_b: no symbols, named by function start" "$TMP/stderr"
	# Both hot functions' samples fall in one frame each: no $_b+0x leaves.
	n=$(stacks "$TMP/fde-$_m.tsv" | awk -F'\t' -v p="$_b+0x" '{
		n = split($6, f, ";"); for (i = n; i > 0; i--) if (f[i] !~ /_\[k\]$/) { if (index(f[i], p) == 1) c++; break } } END { print c + 0 }')
	if [ "$n" -le 5 ]; then pass "stripped $_m: no leaf left as $_b+0xOFF ($n)"
	else fail "stripped $_m: leaves named by FDE" "$n samples end in $_b+0x"; fi
	# As many leaf frames as sampled functions: each $_b!fn_X leaf is the
	# start of a function of the unstripped file (nm), so no function is
	# split in two frames and no frame is shared by two functions.
	nm "$_u" | awk '$2 ~ /^[Tt]$/ { sub(/^0+/, "", $1); print $1 }' | sort -u >"$TMP/fde-$_m.starts"
	stacks "$TMP/fde-$_m.tsv" | awk -F'\t' -v p="$_b!fn_" '{ n = split($6, f, ";")
		for (i = n; i > 0; i--) if (f[i] !~ /_\[k\]$/) { if (index(f[i], p) == 1) print substr(f[i], length(p) + 1); break } }' |
		sort -u >"$TMP/fde-$_m.leaves"
	nl=$(wc -l <"$TMP/fde-$_m.leaves")
	odd=$(comm -23 "$TMP/fde-$_m.leaves" "$TMP/fde-$_m.starts" | head -n 3 | tr '\n' ' ')
	if [ "$nl" -ge 2 ] && [ -z "$odd" ]; then pass "stripped $_m: $nl leaf frames, each the start of one sampled function"
	else fail "stripped $_m: one leaf frame per sampled function" "$nl leaf frames; not a function start: $odd"; fi
}
fde_check fp "$TMP/wl"
fde_check dwarf "$TMP/wlo"

# MiniDebugInfo made as Fedora makes it (find-debuginfo): the function
# symbols of the debug file, xz-compressed into .gnu_debugdata.
if have xz && have objcopy && have nm; then
	nm "$TMP/wl" --format=posix --defined-only | awk '$2 ~ /^[Tt]$/ { print $1 }' | sort >"$TMP/mdi.keep"
	cp "$TMP/wl" "$TMP/wl-mdi" && strip -s "$TMP/wl-mdi" &&
		objcopy --only-keep-debug "$TMP/wl" "$TMP/mdi.debug" &&
		objcopy -S --remove-section .gdb_index --remove-section .comment \
			--keep-symbols="$TMP/mdi.keep" "$TMP/mdi.debug" "$TMP/mdi" &&
		xz -f "$TMP/mdi" && objcopy --add-section .gnu_debugdata="$TMP/mdi.xz" "$TMP/wl-mdi" ||
		fail "MiniDebugInfo: build"
	PROFTOOLS_NO_CACHE=1 run "$P" -o "$TMP/mdi.tsv" -- "$TMP/wl-mdi" -s $SECS split
	s=$(share "$TMP/mdi.tsv")
	if [ "$STATUS" != 0 ]; then skip "MiniDebugInfo: real names" "profrec cannot record here"
	elif within "$s" $SHARE_LO $SHARE_HI; then pass "MiniDebugInfo: .gnu_debugdata names leaf_a and leaf_b, 75% +-8 ($s)"
		assert "MiniDebugInfo: the summary says so" grep -Eq '^profrec: names: .* [1-9][0-9]*% by MiniDebugInfo' "$TMP/stderr"
	else fail "MiniDebugInfo: .gnu_debugdata names leaf_a and leaf_b" "share $s; $(stacks "$TMP/mdi.tsv" | cut -f6 | sort | uniq -c | sort -rn | head -n 3 | tr '\n' '|')"; fi
else
	skip "MiniDebugInfo: real names" "needs xz, objcopy and nm"
fi

# A Go program built the way Go programs ship (-ldflags="-s -w": no
# .symtab, no DWARF) was 100% unnamed, every frame gox-s+0x79b63: its
# functions are named by Go's function table (.gopclntab), each name one
# that the unstripped build's .symtab has (go tool nm).
if ! have go; then
	skip "Go pclntab: stripped Go program" "no go (Debian: golang-go)"
elif ! (mkdir -p "$TMP/gox" && cp "$TESTS/data/go/spin.go" "$TMP/gox/" &&
	printf 'module gox\n\ngo 1.19\n' >"$TMP/gox/go.mod" && cd "$TMP/gox" &&
	export GOCACHE="$TMP/gox/cache" GOPATH="$TMP/gox/gopath" GOFLAGS=-mod=mod GO111MODULE=on \
		GOTOOLCHAIN=local GOPROXY=off CGO_ENABLED=0 &&
	go build -o gox . && go build -ldflags='-s -w' -o gox-s .) >"$TMP/gobuild.log" 2>&1; then
	fail "Go pclntab: build" "$(tail -c 400 "$TMP/gobuild.log")"
else
	PROFTOOLS_NO_CACHE=1 run "$P" -F 499 -o "$TMP/gox.tsv" -- "$TMP/gox/gox-s" 800
	go tool nm "$TMP/gox/gox" | awk '$2 ~ /^[Tt]$/ { sub(/^ *[0-9a-f]+ +[Tt] /, ""); print }' | sort -u >"$TMP/gox.names"
	# the Go frames of the samples, once each: not the kernel's, the vDSO's, the
	# thread's name, nor where a frame pointer walk stopped (assembly keeps none)
	stacks "$TMP/gox.tsv" | cut -f6 | tr ';' '\n' |
		grep -v -e '_\[k\]$' -e '^gox-s$' -e '^\[truncated\]$' -e '^__vdso_' | sort -u >"$TMP/gox.frames"
	# an assembly function with no ABI wrapper: NAME in the table, NAME.abi0 in .symtab
	odd=$(while IFS= read -r f; do grep -qxF -e "$f" -e "$f.abi0" "$TMP/gox.names" || echo "$f"; done <"$TMP/gox.frames" |
		head -n 3 | tr '\n' '|')
	if [ "$STATUS" != 0 ]; then skip "Go pclntab: stripped Go program" "profrec cannot record here"
	elif grep -q '^gox-s+0x' "$TMP/gox.frames" || ! grep -qx 'main\.hashLoop' "$TMP/gox.frames" ||
		! grep -qx 'main\.sortLoop' "$TMP/gox.frames"; then
		fail "Go pclntab: stripped Go program" "frames: $(head -n 5 "$TMP/gox.frames" | tr '\n' '|')"
	elif [ -n "$odd" ]; then
		fail "Go pclntab: stripped Go program" "not named as .symtab names them: $odd"
	elif ! grep -Eq "^profrec: names: .* (9[0-9]|100)% by Go's pclntab" "$TMP/stderr"; then
		fail "Go pclntab: naming report" "$(grep names: "$TMP/stderr")"
	else
		pass "Go pclntab: stripped Go program: $(wc -l <"$TMP/gox.frames") functions sampled, each named as its unstripped build's .symtab names it"
	fi
fi

# A stripped shared library: its hidden hot function (no .dynsym entry)
# is one frame named by its FDE.
sed 's/^__attribute__((noinline)) void lib_hot/__attribute__((noinline, visibility("hidden"))) void lib_hot/' \
	"$TMP/spinlib.c" >"$TMP/spinlibh.c"
if $CC -O1 -fPIC -shared -fno-omit-frame-pointer -o "$TMP/libspinh.so" "$TMP/spinlibh.c" &&
	cp "$TMP/libspinh.so" "$TMP/libspinh-stripped.so" && strip -s "$TMP/libspinh-stripped.so"; then
	h=$(nm "$TMP/libspinh.so" | awk '$3 == "lib_hot" { sub(/^0+/, "", $1); print $1 }')
	PROFTOOLS_NO_CACHE=1 run "$P" -o "$TMP/dlh.tsv" -- "$TMP/wl" -s $SHORT -l "$TMP/libspinh-stripped.so" dlopen
	n=$(stacks "$TMP/dlh.tsv" | grep -c ";libspinh-stripped.so!fn_$h\(;\|\$\)")
	o=$(stacks "$TMP/dlh.tsv" | grep -c 'libspinh-stripped.so+0x')
	if [ "$STATUS" != 0 ]; then skip "stripped library: functions from .eh_frame" "profrec cannot record here"
	elif [ "$n" -ge 100 ] && [ "$o" -le 5 ]; then pass "stripped library: lib_hot is libspinh-stripped.so!fn_$h ($n samples, $o as +0x)"
	else fail "stripped library: lib_hot named by its FDE" "$n samples in fn_$h, $o as +0x; $(stacks "$TMP/dlh.tsv" | cut -f6 | sort | uniq -c | sort -rn | head -n 3 | tr '\n' '|')"; fi
else
	fail "stripped library: build"
fi

# Addresses outside every FDE keep the +0x form: hot_nofde is compiled
# without unwind tables (no FDE), hot_fde with; both in a strip -s binary.
cat >"$TMP/nofde-main.c" <<'EOF'
#include <time.h>
void hot_nofde(unsigned long n);
static volatile unsigned long sink;
__attribute__((noinline)) void hot_fde(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++)
		x = x * 31 + i;
	sink = x;
}
int main(void)
{
	struct timespec a, b;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	do {
		hot_fde(100000);
		hot_nofde(100000);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	} while ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9 < 0.5);
	return 0;
}
EOF
sed -n '/^static volatile/p; /^__attribute__/,/^}/p' "$TMP/nofde-main.c" | sed 's/hot_fde/hot_nofde/' >"$TMP/nofde-lib.c"
if $CC -O1 -fno-omit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables \
		-c -o "$TMP/nofde-lib.o" "$TMP/nofde-lib.c" &&
	$CC -O1 -fno-omit-frame-pointer -o "$TMP/nofde" "$TMP/nofde-main.c" "$TMP/nofde-lib.o" &&
	cp "$TMP/nofde" "$TMP/nofde-stripped" && strip -s "$TMP/nofde-stripped"; then
	f=$(nm "$TMP/nofde" | awk '$3 == "hot_fde" { sub(/^0+/, "", $1); print $1 }')
	read -r nva nsz <<EOF2
$(nm -S "$TMP/nofde" | awk '$4 == "hot_nofde" { print $1, $2 }')
EOF2
	# hot_nofde's file offset (the +0x form names file offsets)
	noff=$(readelf -lW "$TMP/nofde" | awk '$1 == "LOAD" { print $2, $3, $6 }' | while read -r o v s; do
		[ $((0x$nva)) -ge $((v)) ] && [ $((0x$nva)) -lt $((v + s)) ] && echo $((0x$nva - v + o)); done)
	PROFTOOLS_NO_CACHE=1 run "$P" -o "$TMP/nofde.tsv" -- "$TMP/nofde-stripped"
	stacks "$TMP/nofde.tsv" | awk -F'\t' '{ n = split($6, f, ";"); for (i = n; i > 0; i--)
		if (f[i] !~ /_\[k\]$/) { print f[i]; break } }' | sort | uniq -c >"$TMP/nofde.leaves"
	nf=$(awk -v k="nofde-stripped!fn_$f" '$2 == k { print $1 }' "$TMP/nofde.leaves")
	# every +0x leaf lies in hot_nofde; count their samples
	inside=0 outside=0
	while read -r c leaf; do
		case $leaf in nofde-stripped+0x*) ;; *) continue ;; esac
		o=$((${leaf#nofde-stripped+}))
		if [ "$o" -ge "${noff:-0}" ] && [ "$o" -lt $((${noff:-0} + 0x${nsz:-0})) ]; then inside=$((inside + c))
		else outside=$((outside + c)); fi
	done <"$TMP/nofde.leaves"
	if [ "$STATUS" != 0 ]; then
		skip "outside every FDE: +0x form" "profrec cannot record here: $(head -c 200 "$TMP/stderr")"
	elif [ -n "$noff" ] && [ "${nf:-0}" -ge 50 ] && [ "$inside" -ge 50 ] && [ "$outside" -le 5 ]; then
		pass "outside every FDE: hot_nofde's samples stay nofde-stripped+0xOFF ($inside), hot_fde is nofde-stripped!fn_$f ($nf)"
	else
		fail "outside every FDE: +0x form" "fn_$f $nf, +0x in hot_nofde $inside, elsewhere $outside (offset $noff); $(sort -rn "$TMP/nofde.leaves" | head -n 4 | tr '\n' '|')"
	fi
else
	fail "outside every FDE: build"
fi

# ---- --rotate: a file per interval ----
# rot_check DIR SECONDS: every file of DIR is an interval file, valid (TSV or
# folded), complete in itself (each stack and mapping id used has its
# text in that file), its rows inside its interval; the intervals follow
# one another (from = the previous until), none longer than SECONDS, all
# but the first and the last exactly SECONDS ending on a second, each
# named after its start. Prints
# "FILES ROWS" (ROWS: TSV sample rows, or the folded counts' sum), or
# the first problem on stderr and returns 1.
rot_check() {
	_prev= _files=0 _rows=0 _mid=
	_all=$(ls -A "$1")
	for _f in $_all; do
		case $_f in
		profrec-[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]T[0-9][0-9][0-9][0-9][0-9][0-9]Z.tsv)
			"$TSVCHECK" profrec-samples "$1/$_f" >/dev/null || { echo "$_f: invalid TSV" >&2; return 1; } ;;
		profrec-*Z.folded) ;;
		*) echo "unexpected file $_f" >&2; return 1 ;;
		esac
		_out=$(awk -F'\t' -v name="$_f" -v prev="$_prev" -v len="$2" '
			NR == 1 {
				n = split($0, kv, " ")
				for (i = 2; i <= n; i++) { split(kv[i], p, "="); m[p[1]] = p[2] }
				if (m["from"] == "" || m["until"] == "") { print "no from/until"; exit 1 }
				if (prev != "" && m["from"] != prev) { print "from " m["from"] " after until " prev; exit 1 }
				if (m["until"] - m["from"] > len + 0.0005 || m["until"] < m["from"]) { print "interval " m["from"] ".." m["until"]; exit 1 }
				t = substr(name, 9, 15)
				iso = substr(t, 1, 4) "-" substr(t, 5, 2) "-" substr(t, 7, 2) "T" substr(t, 10, 2) ":" substr(t, 12, 2) ":" substr(t, 14, 2) "Z"
				if (m["start_time"] != iso) { print "start_time " m["start_time"] " in " name; exit 1 }
				next
			}
			$1 == "time_ns" { next }
			name ~ /folded$/ { c = $0; sub(/.* /, "", c); rows += c; next }
			{
				rows++
				if ($9 != "") s[$8] = 1
				if (!($8 in s)) { print "stack id " $8 " without its text"; exit 1 }
				if ($11 != "" && $12 != "") mp[$11] = 1
				if ($11 != "" && !($11 in mp)) { print "map id " $11 " without its text"; exit 1 }
				if (m["from"] + $1 / 1e9 > m["until"] + 0.0015) { print "row at +" $1 " ns after until"; exit 1 }
			}
			END { printf "%s %s %d\n", m["from"], m["until"], rows }' "$1/$_f") ||
			{ echo "$_f: $_out" >&2; return 1; }
		set -- "$1" "$2" $_out
		_prev=$4 _rows=$((_rows + $5)) _files=$((_files + 1))
		_mid="$_mid $3-$4"
	done
	# every interval but the first and the last: SECONDS long, on the second
	echo "$_mid" | awk -v len="$2" '{ for (i = 2; i < NF; i++) { split($i, b, "-"); if (b[2] - b[1] < len - 0.0005 || b[2] !~ /\.000$/) { print "interval " $i " not " len " s on the second" > "/dev/stderr"; exit 1 } } }' || return 1
	echo "$_files $_rows"
}
# summary_samples FILE: the "N samples" of profrec's summary in FILE.
summary_samples() {
	sed -n 's/^profrec: [^,]*, \([0-9]*\) samples\{0,1\} .*/\1/p' "$1"
}

# RW seconds of the workload's CPU span at least ROT_MIN one-second intervals
RW=3.5 ROT_MIN=4
[ -n "$SANITIZE" ] && RW=2 ROT_MIN=2
run "$P" --rotate 1s -o "$TMP/rot-1s/" -- "$TMP/wl" -s $RW split
got=$(rot_check "$TMP/rot-1s" 1 2>"$TMP/rot-1s.why")
want=$(summary_samples "$TMP/stderr")
set -- $got
if [ "$STATUS" != 0 ]; then
	fail "--rotate 1s: one file per second" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
elif [ -z "$got" ]; then
	fail "--rotate 1s: files well formed, contiguous, each complete" "$(cat "$TMP/rot-1s.why")"
elif [ "$1" -lt $ROT_MIN ] || [ "$2" != "$want" ] || [ "$2" -lt 1000 ]; then
	fail "--rotate 1s: every sample in one file" "$1 files, $2 rows, summary $want samples"
else
	pass "--rotate 1s: $1 files of a ${RW} s run, contiguous, each complete; $2 rows = the summary's samples"
	assert "--rotate: the summary names the files" grep -q "to $1 files in $TMP/rot-1s\$" "$TMP/stderr"
fi

run "$P" -q --rotate 1s --keep 2 --folded -o "$TMP/rot-keep" -- "$TMP/wl" -s 2.5 split
got=$(rot_check "$TMP/rot-keep" 1 2>"$TMP/rot-keep.why")
set -- $got
if [ "$STATUS" = 0 ] && [ "${1:-}" = 2 ] && [ "$(ls -A "$TMP/rot-keep" | grep -c '\.folded$')" = 2 ] &&
	[ "$2" -ge 1 ]; then
	pass "--rotate --keep 2 --folded: the newest two files, contiguous ($2 samples)"
else
	fail "--rotate --keep 2 --folded: the newest two files" "exit $STATUS, [$got] $(cat "$TMP/rot-keep.why") $(ls -A "$TMP/rot-keep" | tr '\n' ' ')"
fi

# -p, stopped by SIGINT mid-interval: the last interval written, cut at the
# stop, no hidden file left; -p without a command exits 0.
"$TMP/wl" forever &
wp=$!
"$SIGSTATE" -d 2 "$P" --rotate 60s -p $wp -o "$TMP/rot-int" 2>"$TMP/rot-int.err" &
rp=$!
_i=0
while [ $_i -lt 100 ] && [ "$(cat "$TMP/rot-int"/.*profrec-* 2>/dev/null | grep -vc '^#')" -lt 300 ]; do
	sleep 0.2
	_i=$((_i + 1))
done
stop_rec $rp INT
kill $wp 2>/dev/null
wait $wp 2>/dev/null
got=$(rot_check "$TMP/rot-int" 60 2>"$TMP/rot-int.why")
set -- $got
last=$(ls "$TMP/rot-int" | tail -n 1)
cut=$(head -n 1 "$TMP/rot-int/$last" | tr ' ' '\n' | awk -F= '$1 == "from" { f = $2 } $1 == "until" { u = $2 } END { print u - f }')
if [ "$st" = 0 ] && [ -n "$got" ] && [ "$2" = "$(summary_samples "$TMP/rot-int.err")" ] && [ "$2" -ge 250 ] &&
	awk -v c="$cut" 'BEGIN { exit !(c > 0 && c < 59.9) }' &&
	[ -z "$(ls -A "$TMP/rot-int" | grep '^\.')" ]; then
	pass "--rotate, SIGINT mid-interval: the last interval written (cut at ${cut} s), $2 samples, no hidden file"
else
	fail "--rotate, SIGINT mid-interval: the last interval written" \
		"exit $st, [$got] cut $cut; $(cat "$TMP/rot-int.why") $(ls -A "$TMP/rot-int" | tr '\n' ' ') $(head -c 200 "$TMP/rot-int.err")"
fi

check_error "--keep needs --rotate" 2 'need --rotate' "$P" --keep 2 -o "$TMP/rot-x" -- true
check_error "--rotate needs -o DIR" 2 'needs -o DIR' "$P" --rotate 1s -- true
check_error "--rotate: whole seconds" 2 "invalid interval '1.5s'" "$P" --rotate 1.5s -o "$TMP/rot-x" -- true
check_error "--rotate: no --no-header" 2 'no --no-header' "$P" --rotate 1s --folded --no-header -o "$TMP/rot-x" -- true
: >"$TMP/rot-plain"
check_error "--rotate: -o names a file" 1 "plain: Not a directory" "$P" --rotate 1s -o "$TMP/rot-plain" -- true
# two recorders into one directory replaced each other's interval files
# (named by the second they start): the second is refused, naming the
# first; the lock file goes with the first
"$P" -q --rotate 1s -o "$TMP/rot-two" -- "$TMP/wl" -s 3 split >/dev/null 2>"$TMP/rot-two.err" &
rp=$!
_i=0
while [ $_i -lt 100 ] && [ ! -e "$TMP/rot-two/.profrec.lock" ]; do
	sleep 0.05
	_i=$((_i + 1))
done
check_error "--rotate: a directory another recorder writes into is refused, naming it" 1 \
	"rot-two: another recorder \(pid $rp\) is writing its intervals here" "$P" --rotate 1s -o "$TMP/rot-two" -- true
st=0
wait $rp || st=$?
if [ "$st" = 0 ] && [ ! -e "$TMP/rot-two/.profrec.lock" ] && ls "$TMP/rot-two" | grep -q '^profrec-.*\.tsv$'; then
	pass "--rotate: the first recorder goes on undisturbed; its lock file removed at the end"
else
	fail "--rotate: the first recorder undisturbed" "exit $st: $(ls -A "$TMP/rot-two" | tr '\n' ' ') $(head -c 200 "$TMP/rot-two.err")"
fi

# ---- -o NAME.pb.gz: pprof directly (issue 16) ----
run "$P" -o "$TMP/pp.pb.gz" -- "$TMP/wl" -s $SHORT split
if [ "$STATUS" = 0 ] && gzip -t "$TMP/pp.pb.gz" 2>/dev/null; then
	pass "-o x.pb.gz: a gzip'd profile"
	n=$(sed -n 's/.* \([0-9][0-9]*\) samples (.*/\1/p' "$TMP/stderr" | head -n 1)
	check "-o x.pb.gz: every sample, the workload's stacks" 0 "$n yes" sh -c \
		"\"$BIN/proffold\" -q --no-header -e samples \"$TMP/pp.pb.gz\" | awk '{ s += \$NF } /main;split;leaf_a/ { a = \"yes\" } END { print s, a }'"
	check "-o x.pb.gz: cpu nanoseconds, the recording's metadata" 0 "# source=pprof event=cpu unit=ns" \
		sh -c "\"$BIN/proffold\" -q \"$TMP/pp.pb.gz\" | head -n 1 | sed 's/ start_time=.*//'"
	assert "-o x.pb.gz: no temporary TSV left" sh -c "! ls \"$TMP\"/pp.pb.gz.*.tsv 2>/dev/null"
	if need_npm "-o x.pb.gz: pprof-format decodes it"; then
		check_error "-o x.pb.gz: pprof-format decodes it" 0 \
			"types=samples/count,cpu/nanoseconds default=cpu samples=[1-9][0-9]* period=1001001 period_type=cpu/nanoseconds time_nanos=[1-9][0-9]* duration_nanos=[1-9]" \
			node "$TESTS/tools/pprof_totals.js" "$NPM_DIR" "$TMP/pp.pb.gz"
		check_error "-o x.pb.gz: the workload's leaf functions in its mapping, with its build-id" 0 \
			"mappings=(.*,)?$TMP/wl@[0-9a-f]{40}:([^,]*\\+)?leaf_a@[0-9a-f]+" \
			node "$TESTS/tools/pprof_totals.js" "$NPM_DIR" "$TMP/pp.pb.gz"
	fi
else
	fail "-o x.pb.gz: a gzip'd profile" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
fi

# --lines: pprof Functions with their source file, Lines with their line,
# a Location per leaf address in the workload's mapping (pprof -list, -disasm)
if need "-o x.pb.gz --lines: files, lines, addresses" python3 python3; then
	run "$P" --lines -o "$TMP/pl.pb.gz" -- "$TMP/wl" -s $SHORT split
	python3 "$TESTS/tools/pprof_dump.py" "$TMP/pl.pb.gz" >"$TMP/pl.dump" 2>&1
	check "-o x.pb.gz --lines: files, lines, addresses" 0 "leaf_a workload.c yes yes" sh -c "awk '
		\$1 == \"mapping\" && \$5 == \"$TMP/wl\" { wl[\$2] = 1 }
		\$1 == \"function\" && \$3 == \"leaf_a\" { id = \$2; print \$3, \$4 }
		\$1 == \"location\" { split(\$5, l, \":\"); if (l[1] == id && l[2] > 0) line = \"yes\"; if (l[1] == id && wl[\$4] && \$3 != \"0x0\") addr = \"yes\" }
		END { print line, addr }' \"$TMP/pl.dump\" | paste -sd ' '"
fi

# Every frame at its address (issue 25 E): a hot loop in a function of its
# own called from main (tests/data/pprof-hot.c), not position-independent
# because go tool pprof (Go's cmd/pprof) takes addresses as the binary's own
# (its ObjAddr translates nothing). main's Location is at the return address
# of its call of hot_loop less 1 (inside the call, as Go writes callers),
# in the program's Mapping; go tool pprof -disasm then puts hot_loop's
# samples on its instructions and main's on its call, -list on the loop's
# lines, and -traces shows main calling hot_loop.
if $CC -O2 -g -fno-omit-frame-pointer -fno-pie -no-pie -o "$TMP/pphot" "$TESTS/data/pprof-hot.c"; then
	run "$P" --lines -o "$TMP/hot.pb.gz" -- "$TMP/pphot" $SECS
	[ "$STATUS" = 0 ] || fail "pprof-hot recorded" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
	if need "pprof: callers at their call, in their mapping" python3 python3 &&
	   need "pprof: callers at their call, in their mapping" objdump binutils; then
		python3 "$TESTS/tools/pprof_dump.py" "$TMP/hot.pb.gz" >"$TMP/hot.dump" 2>&1
		# main's code (nm: start, size) and the address after its call of
		# hot_loop (objdump): the return address its callers' samples hold
		{
			nm -S --defined-only "$TMP/pphot" | awk '$4 == "main" { print "main", $1, $2 }'
			objdump -d --no-show-raw-insn "$TMP/pphot" | awk '
				/^ *[0-9a-f]+:/ { if (ret) { sub(/:.*/, "", $1); sub(/^ */, "", $1); print "ret", $1; ret = 0 }
						  if ($0 ~ /call.*<hot_loop>/) ret = 1 }'
		} >"$TMP/hot.ret"
		check "pprof: callers at their call, in their mapping" 0 "main: in main's code, at its call of hot_loop, in $TMP/pphot" \
			sh -c "awk '
			function hex(s,  i, v) { v = 0; sub(/^0x/, \"\", s)
				for (i = 1; i <= length(s); i++) v = v * 16 + index(\"0123456789abcdef\", substr(s, i, 1)) - 1
				return v }
			FILENAME == ARGV[1] { if (\$1 == \"main\") { lo0 = hex(\$2); hi0 = lo0 + hex(\$3) } else ret[sprintf(\"%.0f\", hex(\$2))] = 1; next }
			\$1 == \"mapping\" { lo[\$2] = hex(\$3); hi[\$2] = hex(\$4); file[\$2] = \$5; next }
			\$1 == \"function\" && \$3 == \"main\" { main = \$2; next }
			\$1 == \"location\" { n = split(\$5, l, \",\"); split(l[n], f, \":\")
				if (f[1] != main) next
				a = hex(\$3)
				if (a < lo0 || a >= hi0 || a < lo[\$4] || a >= hi[\$4]) { print \"main at \" \$3 \" in mapping \" \$4; bad = 1 }
				if (sprintf(\"%.0f\", a + 1) in ret) { call = 1; where = file[\$4] } }
			END { if (call && !bad) print \"main: in main\047s code, at its call of hot_loop, in \" where }' \"$TMP/hot.ret\" \"$TMP/hot.dump\""
	fi
	# --lines: a Function's start_line is its DW_AT_decl_line, the line
	# of its definition in the source
	if need "pprof --lines: Functions' start_line" python3 python3; then
		check "pprof --lines: Functions' start_line, where the source defines them" 0 \
			"$(grep -n -e '^__attribute__((noinline)) unsigned long hot_loop(' -e '^int main(' "$TESTS/data/pprof-hot.c" |
			   sed 's/^\([0-9]*\):.* \([a-z_]*\)(.*/\2 \1/' | sort)" \
			sh -c "python3 \"$TESTS/tools/pprof_dump.py\" \"$TMP/hot.pb.gz\" |
			awk '\$1 == \"function\" && (\$3 == \"main\" || \$3 == \"hot_loop\") { print \$3, \$5 }' | sort"
	fi
	if need "go tool pprof -disasm, -list, -traces" go golang-go; then
		export PPROF_TMPDIR="$TMP"
		# one line per view, yes where it shows what the addresses give
		{
			go tool pprof -disasm=hot_loop "$TMP/hot.pb.gz" 2>&1 |
				awk '/^ROUTINE/ { r = 1 } r && $1 != "." && $3 ~ /^[0-9a-f]+:$/ { n++ }
				     END { print "-disasm=hot_loop: samples on its instructions:", (n > 0 ? "yes" : "no") }'
			go tool pprof -disasm=main "$TMP/hot.pb.gz" 2>&1 |
				awk '/CALL hot_loop/ && $2 != "." { y = 1 }
				     END { print "-disasm=main: samples on its call of hot_loop:", (y ? "yes" : "no") }'
			go tool pprof -list=hot_loop -source_path="$TESTS/data" "$TMP/hot.pb.gz" 2>&1 |
				awk '/6364136223846793005/ && $1 != "." { y = 1 }
				     END { print "-list=hot_loop: samples on the loop line:", (y ? "yes" : "no") }'
			go tool pprof -traces "$TMP/hot.pb.gz" 2>&1 |
				awk 'prev ~ /^ *[0-9.]+[mun]?s +hot_loop$/ && $1 == "main" { y = 1 } { prev = $0 }
				     END { print "-traces: main calls hot_loop:", (y ? "yes" : "no") }'
			go tool pprof -top -cum "$TMP/hot.pb.gz" 2>&1 |
				awk '$NF == "main" && $5 + 0 >= 90 { y = 1 }
				     END { print "-top -cum: main holds hot_loop time:", (y ? "yes" : "no") }'
		} >"$TMP/hot.go"
		check "go tool pprof: -disasm, -list, -traces, -top of every frame's address" 0 \
			"-disasm=hot_loop: samples on its instructions: yes
-disasm=main: samples on its call of hot_loop: yes
-list=hot_loop: samples on the loop line: yes
-traces: main calls hot_loop: yes
-top -cum: main holds hot_loop time: yes" cat "$TMP/hot.go"
	fi
else
	fail "build pprof-hot (non-PIE)"
fi

# ---- -o NAME.speedscope.json, NAME.folded: the format the name says (issue 25) ----
run "$P" -o "$TMP/ss.speedscope.json" -- "$TMP/wl" -s $SHORT split
if [ "$STATUS" = 0 ] && head -c 64 "$TMP/ss.speedscope.json" | grep -q '^{"$schema":"https://www.speedscope.app/file-format-schema.json"'; then
	pass "-o x.speedscope.json: a speedscope document"
	assert "-o x.speedscope.json: a profile per thread" grep -Eq '"type":"sampled","name":"wl-[0-9]+/[0-9]+"' "$TMP/ss.speedscope.json"
	check "-o x.speedscope.json: the workload's stacks" 0 "yes" sh -c \
		"\"$BIN/proffold\" -q --no-header \"$TMP/ss.speedscope.json\" | awk '/main;split;leaf_a/ { a = \"yes\" } END { print a }'"
	assert "-o x.speedscope.json: no temporary TSV left" sh -c "! ls \"$TMP\"/ss.speedscope.json.*.tsv 2>/dev/null"
	if need_npm "-o x.speedscope.json: valid against speedscope's schema"; then
		check_status "-o x.speedscope.json: valid against speedscope's schema" 0 \
			node "$TESTS/tools/speedscope_check.js" "$NPM_DIR" "$TMP/ss.speedscope.json"
	fi
else
	fail "-o x.speedscope.json: a speedscope document" "exit $STATUS: $(head -c 100 "$TMP/ss.speedscope.json" 2>&1) $(head -c 300 "$TMP/stderr")"
fi
run "$P" -o "$TMP/ff.folded.gz" -- "$TMP/wl" -s $SHORT split
if [ "$STATUS" = 0 ] && gzip -dc "$TMP/ff.folded.gz" | sed -n 1p | grep -q '^# source=profrec event=cpu-clock unit=samples ' &&
	gzip -dc "$TMP/ff.folded.gz" | sed 1d | grep -q '^wl;.*main;split;leaf_a [1-9][0-9]*$' &&
	! gzip -dc "$TMP/ff.folded.gz" | sed 1d | grep -qv ' [0-9][0-9]*$'; then
	pass "-o x.folded.gz: folded stacks, as --folded"
else
	fail "-o x.folded.gz: folded stacks, as --folded" "exit $STATUS: $(gzip -dc "$TMP/ff.folded.gz" 2>&1 | head -c 300) $(head -c 300 "$TMP/stderr")"
fi
check_error "-o x.folded with two events" 2 'takes one event' "$P" -e cpu-clock,task-clock -o "$TMP/two.folded" -- true

# ---- a process in another mount namespace (a container, unshare -m) ----
# Its mappings' paths are the paths it sees: here, under the tmpfs that
# only its namespace has over $TMP/ctr, nothing (or another program) lives
# there; its files are opened through /proc/PID/root.
ns_why=
mkdir -p "$TMP/ctr"
if [ "$(id -u)" != 0 ]; then ns_why="needs root (unshare -m, mount)"
elif ! have unshare; then ns_why="unshare not installed (package util-linux)"
elif ! unshare -m --propagation private sh -c "mount -t tmpfs tmpfs '$TMP/ctr'" 2>"$TMP/ns.err"; then
	ns_why="unshare -m and a tmpfs mount refused here: $(head -c 120 "$TMP/ns.err")"
fi
# $TMP/in_ns ARGS...: run $TMP/ns/app ARGS... as $TMP/ctr/app, a path that
# exists only inside a new mount namespace (the same pid throughout), with
# the other files of $TMP/ns beside it.
cat >"$TMP/in_ns" <<EOS
#!/bin/sh
exec unshare -m --propagation private sh -c 'mount -t tmpfs tmpfs "\$0" && cp "\$1"/* "\$0/" && shift && exec "\$0/app" "\$@"' \\
	"$TMP/ctr" "$TMP/ns" "\$@"
EOS
mkdir -p "$TMP/ns"
chmod +x "$TMP/in_ns"
# leaves FILE PATTERN: samples whose innermost user frame matches PATTERN.
leaves() {
	stacks "$1" | awk -F'\t' -v p="$2" '{
		n = split($6, f, ";"); for (i = n; i > 0; i--) if (f[i] !~ /_\[k\]$/) { if (f[i] ~ p) c++; break } } END { print c + 0 }'
}
if [ -n "$ns_why" ]; then
	skip "mount namespace: the binary only it has is named" "$ns_why"
	skip "mount namespace: names from its file, not the one at that path here" "$ns_why"
	skip "mount namespace: -p PID" "$ns_why"
	skip "mount namespace: --call-graph dwarf stacks whole" "$ns_why"
	skip "mount namespace: its debug file, found under its root" "$ns_why"
else
	cp "$TMP/wl" "$TMP/ns/app"
	run "$P" -o "$TMP/ns.tsv" -- "$TMP/in_ns" -s $SHORT split
	named=$(leaves "$TMP/ns.tsv" '^leaf_[ab]$') unnamed=$(leaves "$TMP/ns.tsv" '^app\+0x')
	if [ "$STATUS" = 0 ] && [ "$named" -ge 50 ] && [ "$unnamed" = 0 ]; then
		pass "mount namespace: the binary only it has is named ($named leaf_a/leaf_b)"
		# (the note that names came from the symbol cache is no complaint:
		# app is wl, whose addresses earlier runs here cached by build-id)
		assert "mount namespace: no naming complaint" sh -c "! grep 'app:' '$TMP/stderr' | grep -qv 'named from the symbol cache'"
	else
		fail "mount namespace: the binary only it has is named" "exit $STATUS, $named named, $unnamed app+0x: $(head -c 300 "$TMP/stderr")"
	fi
	# Another program at the same path here, and no build-id in either
	# file nor the MMAP2 record to tell them apart: the names must be the
	# namespace's file's (leaf_a), never the decoy's.
	cat >"$TMP/decoy.c" <<'EOC'
__attribute__((noinline)) int decoy_outside(int x) { __asm__ volatile(".skip 16384, 0x90"); return x * 3; }
__attribute__((noinline)) int decoy_other(int x) { return x + decoy_outside(x); }
int main(int argc, char **argv) { (void)argv; return decoy_other(argc); }
EOC
	if $CC -O1 -g -o "$TMP/decoy" "$TMP/decoy.c" &&
		objcopy --remove-section .note.gnu.build-id "$TMP/decoy" &&
		objcopy --remove-section .note.gnu.build-id "$TMP/wl" "$TMP/ns/app" &&
		cp "$TMP/decoy" "$TMP/ctr/app"; then
		PROFTOOLS_NO_CACHE=1 run "$P" -o "$TMP/nsd.tsv" -- "$TMP/in_ns" -s $SHORT split
		named=$(leaves "$TMP/nsd.tsv" '^leaf_[ab]$') decoy=$(stacks "$TMP/nsd.tsv" | grep -c 'decoy')
		if [ "$STATUS" = 0 ] && [ "$named" -ge 50 ] && [ "$decoy" = 0 ]; then
			pass "mount namespace: names from its file, not the one at that path here ($named leaf_a/leaf_b)"
		else
			fail "mount namespace: names from its file, not the one at that path here" "exit $STATUS, $named named, $decoy decoy: $(stacks "$TMP/nsd.tsv" | cut -f6 | sort | uniq -c | sort -rn | head -n 3 | tr '\n' '|')"
		fi
		rm -f "$TMP/ctr/app"
	else
		fail "mount namespace: names from its file, not the one at that path here" "cannot build the decoy"
	fi
	# --call-graph dwarf: the unwinder reads the CFI of the namespace's file too
	cp "$TMP/wlo" "$TMP/ns/app"
	run "$P" --call-graph dwarf -o "$TMP/nsw.tsv" -- "$TMP/in_ns" -s $SHORT split
	whole=$(stacks "$TMP/nsw.tsv" | grep -c 'main;split;leaf_[ab]')
	if [ "$STATUS" = 0 ] && [ "$whole" -ge 50 ]; then
		pass "mount namespace: --call-graph dwarf stacks whole ($whole main;split;leaf_a/b)"
	else
		fail "mount namespace: --call-graph dwarf stacks whole" "exit $STATUS, $whole whole: $(stacks "$TMP/nsw.tsv" | cut -f6 | sort | uniq -c | sort -rn | head -n 2 | tr '\n' '|')"
	fi
	# a stripped binary whose debug file (.gnu_debuglink) lies beside it, in
	# the namespace only (the symbol cache off: it knows this build-id)
	cp "$TMP/wls" "$TMP/ns/app" && cp "$TMP/wls.debug" "$TMP/ns/"
	PROFTOOLS_NO_CACHE=1 run "$P" -o "$TMP/nsg.tsv" -- "$TMP/in_ns" -s $SHORT split
	rm -f "$TMP/ns/wls.debug"
	named=$(leaves "$TMP/nsg.tsv" '^leaf_[ab]$')
	if [ "$STATUS" = 0 ] && [ "$named" -ge 50 ]; then
		pass "mount namespace: its debug file, found under its root ($named leaf_a/leaf_b)"
	else
		fail "mount namespace: its debug file, found under its root" "exit $STATUS, $named named: $(head -c 300 "$TMP/stderr")"
	fi
	# -p: a process started in its namespace before profrec
	cp "$TMP/wl" "$TMP/ns/app"
	"$TMP/in_ns" forever &
	nsp=$!
	_i=0
	while [ "$(cat /proc/$nsp/comm 2>/dev/null)" != app ] && [ $_i -lt 50 ]; do sleep 0.1; _i=$((_i + 1)); done
	run "$P" -p $nsp -d 1 -o "$TMP/nsp.tsv"
	kill $nsp 2>/dev/null
	wait $nsp 2>/dev/null
	named=$(leaves "$TMP/nsp.tsv" '^leaf_[ab]$') unnamed=$(leaves "$TMP/nsp.tsv" '^app\+0x')
	if [ "$STATUS" = 0 ] && [ "$named" -ge 50 ] && [ "$unnamed" = 0 ]; then
		pass "mount namespace: -p PID ($named leaf_a/leaf_b)"
	else
		fail "mount namespace: -p PID" "exit $STATUS, $named named, $unnamed app+0x: $(head -c 300 "$TMP/stderr")"
	fi
fi

# ---- JIT code of a process in its own pid and mount namespace ----
# It writes its map under the pid it sees itself as (1 here: the first
# process of the namespace), /tmp/perf-1.map, in its /tmp; profrec reads
# it through its root with its NSpid, not /tmp/perf-HOSTPID.map.
pns_why=$ns_why
if [ -z "$pns_why" ] && [ -e /tmp/perf-1.map ]; then pns_why="/tmp/perf-1.map exists already"
elif [ -z "$pns_why" ] && ! unshare -m -p -f --propagation private true 2>/dev/null; then pns_why="unshare -p refused here"
fi
if [ -n "$pns_why" ]; then
	skip "pid namespace: JIT code named from /tmp/perf-NSPID.map" "$pns_why"
	skip "pid namespace: JIT code named at the end from the map written at exit" "$pns_why"
else
	run "$P" -o "$TMP/nsj.tsv" -- unshare -m -p -f --propagation private "$TMP/wl" -s $SHORT jit
	# written by the program itself, not because of profrec's environment: kept
	assert "pid namespace: the cleanup leaves /tmp/perf-1.map (profrec did not cause it)" test -f /tmp/perf-1.map
	rm -f /tmp/perf-1.map
	n=$(leaves "$TMP/nsj.tsv" '^jitted_loop$')
	if [ "$STATUS" = 0 ] && [ "$n" -ge 50 ]; then pass "pid namespace: JIT code named from /tmp/perf-NSPID.map ($n)"
	else fail "pid namespace: JIT code named from /tmp/perf-NSPID.map" "exit $STATUS, $n samples: $(head -c 300 "$TMP/stderr")"; fi
	# a map written at exit (the JVM's DumpPerfMapAtExit): read at the end,
	# the process gone, where it saw it (its root, held) under its NSpid
	run "$P" -o "$TMP/nsl.tsv" -- unshare -m -p -f --propagation private "$TMP/wl" -s $SHORT jitlate
	rm -f /tmp/perf-1.map
	n=$(leaves "$TMP/nsl.tsv" '^jitted_loop$')
	if [ "$STATUS" = 0 ] && [ "$n" -ge 50 ]; then pass "pid namespace: JIT code named at the end from the map written at exit ($n)"
	else fail "pid namespace: JIT code named at the end from the map written at exit" "exit $STATUS, $n samples: $(head -c 300 "$TMP/stderr")"; fi
fi

# ---- a chroot: the same mount namespace, another root ----
# The static program maps /proftest-chroot-app, a path of its root only.
mkdir -p "$TMP/chroot"
if [ "$(id -u)" != 0 ]; then
	skip "chroot: its program named through its root" "needs root (chroot)"
elif [ -e /proftest-chroot-app ]; then
	skip "chroot: its program named through its root" "/proftest-chroot-app exists here"
elif ! $CC -O1 -g -fno-omit-frame-pointer -static -pthread -o "$TMP/chroot/proftest-chroot-app" "$WL_SRC" -ldl 2>/dev/null; then
	skip "chroot: its program named through its root" "no static C library to build a program that runs alone in it"
elif ! have chroot; then
	skip "chroot: its program named through its root" "chroot not installed (package coreutils)"
else
	run "$P" -o "$TMP/chr.tsv" -- chroot "$TMP/chroot" /proftest-chroot-app -s $SHORT split
	named=$(leaves "$TMP/chr.tsv" '^leaf_[ab]$') unnamed=$(leaves "$TMP/chr.tsv" '\+0x')
	if [ "$STATUS" = 0 ] && [ "$named" -ge 50 ] && [ "$unnamed" = 0 ]; then
		pass "chroot: its program named through its root ($named leaf_a/leaf_b)"
	else
		fail "chroot: its program named through its root" "exit $STATUS, $named named, $unnamed +0x: $(head -c 300 "$TMP/stderr")"
	fi
fi
