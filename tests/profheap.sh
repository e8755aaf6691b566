# profheap: the heap profiler (launcher + preloaded shim).
. "$(dirname "$0")/lib.sh"

P=$BIN/profheap
CC=${CC:-cc}
if [ ! -x "$P" ] || [ ! -f "$SHIM" ]; then
	fail "profheap built" "no $P or $SHIM"
	exit 0
fi

# The workload: one scenario per argv[1], built without sanitizers.
cat >"$TMP/work.c" <<'EOF'
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define KEEP(p) __asm__ volatile("" : : "r"(p) : "memory")
#define NOINLINE __attribute__((noinline))

NOINLINE static void leak_one(size_t n)
{
	char *p = malloc(n);
	memset(p, 1, n);
	KEEP(p);
}

NOINLINE static void leaky(int count, size_t n)
{
	for (int i = 0; i < count; i++)
		leak_one(n);
}

NOINLINE static void churn(int count)
{
	for (int i = 0; i < count; i++) {
		void *p = malloc(16 + (size_t)(i % 50) * 8);
		KEEP(p);
		free(p);
	}
}

NOINLINE static void peak(void)
{
	void *blocks[16];
	for (int i = 0; i < 16; i++) {
		blocks[i] = malloc(4 << 20);
		memset(blocks[i], 0, 4096);
	}
	for (int i = 0; i < 16; i++)
		free(blocks[i]);
}

/* Fixed total work split between the threads; each frees the next one's blocks. */
#define TOTAL 40000
static int nthreads;
static void **arrays[64];
static pthread_barrier_t barrier;

NOINLINE static void *thread_alloc(size_t n)
{
	void *p = malloc(n);
	KEEP(p);
	return p;
}

static void *worker(void *arg)
{
	long id = (long)arg, next = (id + 1) % nthreads;
	int per = TOTAL / nthreads;

	arrays[id] = calloc((size_t)per, sizeof(void *));
	for (int i = 0; i < per; i++)
		arrays[id][i] = thread_alloc(8 + (size_t)((id * per + i) % 100) * 8);
	leaky(800 / nthreads, 77);	/* 800 is a multiple of 1, 8 and 32 */
	pthread_barrier_wait(&barrier);
	for (int i = 0; i < per; i++)
		free(arrays[next][i]);
	pthread_barrier_wait(&barrier);
	free(arrays[id]);
	return NULL;
}

NOINLINE static void sampled(void)
{
	for (int i = 0; i < 200000; i++) {
		void *p = malloc(1000);
		KEEP(p);
		free(p);
	}
	leaky(2000, 1000);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "leak";

	if (!strcmp(mode, "leak")) {
		leaky(1000, 123);
		churn(100);
		printf("done\n");
	} else if (!strcmp(mode, "peak")) {
		churn(1000);
		peak();
		churn(1000);
	} else if (!strcmp(mode, "threads")) {
		pthread_t t[64];

		nthreads = atoi(argv[2]);
		pthread_barrier_init(&barrier, NULL, (unsigned)nthreads);
		for (long i = 0; i < nthreads; i++)
			pthread_create(&t[i], NULL, worker, (void *)i);
		for (int i = 0; i < nthreads; i++)
			pthread_join(t[i], NULL);
		pthread_barrier_destroy(&barrier);
	} else if (!strcmp(mode, "fork")) {
		void *inherited[10];
		pid_t pid;

		for (int i = 0; i < 10; i++)
			inherited[i] = malloc(50);
		leaky(10, 100);
		pid = fork();
		if (pid == 0) {
			for (int i = 0; i < 10; i++)
				free(inherited[i]);
			leaky(20, 200);
			exit(0);
		}
		waitpid(pid, NULL, 0);
		for (int i = 0; i < 10; i++)
			free(inherited[i]);
	} else if (!strcmp(mode, "forks")) {
		/* many short children: one is bound to be forked while
		 * the parent's timer thread is writing a timeline row */
		int n = atoi(argv[2]);

		for (int i = 0; i < n; i++) {
			void *p = malloc(100);
			pid_t pid = fork();

			if (pid == 0) {
				free(malloc(64));
				exit(0);
			}
			waitpid(pid, NULL, 0);
			free(p);
		}
	} else if (!strcmp(mode, "exec")) {
		leaky(5, 300);
		execl("/proc/self/exe", argv[0], "execd", (char *)NULL);
		return 99;
	} else if (!strcmp(mode, "execd")) {
		leaky(7, 400);
	} else if (!strcmp(mode, "execfail")) {
		leaky(2, 500);
		execl("/nonexistent/program", "program", (char *)NULL);
		leaky(3, 600);	/* exec failed: the image goes on and exits */
	} else if (!strcmp(mode, "abort")) {
		leaky(3, 1000);
		abort();
	} else if (!strcmp(mode, "segv")) {
		leaky(4, 1000);
		raise(SIGSEGV);
	} else if (!strcmp(mode, "kill")) {
		leaky(6, 1000);
		kill(getpid(), SIGKILL);
	} else if (!strcmp(mode, "exit")) {
		leaky(2, 1000);
		_exit(3);
	} else if (!strcmp(mode, "family")) {
		void *p = calloc(10, 10), *q, *r, *s;

		p = realloc(p, 1000);
		if (posix_memalign(&q, 64, 640))
			return 1;
		r = aligned_alloc(256, 512);
		s = reallocarray(NULL, 10, 30);
		KEEP(p);
		KEEP(q);
		KEEP(r);
		KEEP(s);
	} else if (!strcmp(mode, "sample")) {
		sampled();
	}
	return 0;
}
EOF
W=$TMP/work
if ! $CC -O2 -g -fno-omit-frame-pointer -pthread "$TMP/work.c" -o "$W" 2>"$TMP/cc.err"; then
	fail "workload builds" "$(head -c 300 "$TMP/cc.err")"
	exit 0
fi

# data FILE: the folded lines (no metadata) of FILE.
data() { grep -v '^#' "$1"; }
# total FILE: the sum of the counts of FILE.
total() { grep -v '^#' "$1" | awk '{ s += $NF } END { printf "%d\n", s }'; }
# one_file DIR SUFFIX: the single DIR/*SUFFIX file (fails if not exactly one).
one_file() {
	set -- "$1"/*"$2"
	[ $# -eq 1 ] && [ -f "$1" ] && echo "$1"
}

# ---- bad use
check_error "no command is a usage error" 2 "no command given" "$P" -o "$TMP/x"
check_error "unknown report" 2 "bad report" "$P" -r nope true
check_error "bad unwinder" 2 "bad unwinder" "$P" -u nope true
check_error "bad sampling interval" 2 "bad sampling interval" "$P" --sample=zero true
check_error "command not found exits 127" 127 "no-such-command" "$P" -q -o "$TMP/nf" no-such-command-xyz
if [ -e "$TMP/nf" ]; then
	fail "no output directory left when the command did not run"
else
	pass "no output directory left when the command did not run"
fi
: >"$TMP/afile"
check_error "unwritable output directory" 1 "cannot create output directory" \
	"$P" -o "$TMP/afile/sub" "$W" leak
printf 'leak:ok\nbogus line\n' >"$TMP/bad.supp"
check_error "malformed suppression file" 1 "bad.supp:2: malformed suppression" \
	"$P" -S "$TMP/bad.supp" -o "$TMP/bs" "$W" leak
if printf 'int main(void){return 0;}\n' >"$TMP/st.c" && \
	$CC -static "$TMP/st.c" -o "$TMP/static" 2>/dev/null; then
	check_error "static binary refused" 1 "statically linked" "$P" -o "$TMP/st" "$TMP/static"
	# Found through PATH as execvp finds it: a directory of the same name
	# earlier in PATH is not the command.
	mkdir -p "$TMP/pathdir/static" "$TMP/pathbin" && cp "$TMP/static" "$TMP/pathbin/"
	check_error "static binary refused when found in PATH" 1 "static: statically linked" \
		env PATH="$TMP/pathdir:$TMP/pathbin" "$P" -o "$TMP/st2" static
else
	skip "static binary refused" "cannot link statically here"
fi

# ---- exact leaks: 1000 blocks of 123 bytes, nothing else
run "$P" -o "$TMP/leak" "$W" leak
f=$(one_file "$TMP/leak" .leak.folded)
if [ "$STATUS" = 0 ] && [ -n "$f" ] && [ "$(data "$f" | wc -l)" = 1 ] &&
	data "$f" | grep -q ';main;leaky;leak_one 123000$'; then
	pass "1000 leaked blocks of 123 bytes: 123000 bytes at one call site, nothing else"
else
	fail "1000 leaked blocks of 123 bytes" "exit $STATUS: $(cat "$f" 2>/dev/null | tr '\n' '|') $(head -c 300 "$TMP/stderr")"
fi
if grep -q 'leaked 123,000 bytes in 1,000 blocks$' "$TMP/stderr" &&
	grep -q '123,000 bytes in 1,000 blocks at leak_one < leaky < main' "$TMP/stderr"; then
	pass "leak report on stderr"
else
	fail "leak report on stderr" "$(head -c 400 "$TMP/stderr")"
fi
# on a terminal each leak site is one line: its outer callers give way (issue 24 point 5)
if python3 -c 'import pty, termios' 2>/dev/null; then
	python3 "$TESTS/tools/on-tty.py" 52 2 "$P" -o "$TMP/leak-tty" "$W" leak >"$TMP/tty.out"
	if grep -q "^profheap:   123,000 bytes in 1,000 blocks at leak_o~" "$TMP/tty.out" &&
		[ "$(tr -d '\r' <"$TMP/tty.out" | awk '/bytes in .* blocks at/ { if (length($0) > 52) n++ } END { print n + 0 }')" = 0 ]; then
		pass "leak sites cut to a 52-column terminal"
	else
		fail "leak sites on a terminal" "$(tr -d '\r' <"$TMP/tty.out" | grep 'blocks at' | head -n 2 | tr '\n' '|')"
	fi
else
	skip "leak sites on a terminal" "no python3 with pty and termios"
fi
if [ "$(cat "$TMP/stdout")" = done ]; then
	pass "the command's output is untouched"
else
	fail "the command's output is untouched" "$(head -c 100 "$TMP/stdout")"
fi
if head -n 1 "$f" | grep -q 'unit=bytes' &&
	head -n 1 "$(one_file "$TMP/leak" .count.folded)" | grep -q 'unit=allocations'; then
	pass "folded files carry their unit"
else
	fail "folded files carry their unit" "$(head -n 1 "$f")"
fi
if [ -z "$(ls "$TMP/leak" | grep -e '\.heap$' -e '\.maps$')" ]; then
	pass "raw record files removed without --keep"
else
	fail "raw record files removed without --keep" "$(ls "$TMP/leak" | tr '\n' ' ')"
fi
validate_tsv "timeline is valid profheap-timeline TSV" profheap-timeline \
	"$(one_file "$TMP/leak" .timeline.tsv)"

if [ -n "$SANITIZE" ]; then
	skip "same as valgrind definitely lost" "sanitizer pass"
elif ! command -v valgrind >/dev/null 2>&1; then
	skip "same as valgrind definitely lost" "valgrind not installed"
else
	vg=$(valgrind --leak-check=full "$W" leak 2>&1 >/dev/null |
		sed -n 's/.*definitely lost: \([0-9,]*\) bytes in \([0-9,]*\) blocks.*/\1 \2/p')
	ph=$(sed -n 's/.*: leaked \([0-9,]*\) bytes in \([0-9,]*\) blocks$/\1 \2/p' "$TMP/stderr")
	if [ -n "$vg" ] && [ "$vg" = "$ph" ]; then
		pass "same as valgrind definitely lost ($vg)"
	else
		fail "same as valgrind definitely lost" "valgrind '$vg', profheap '$ph'"
	fi
fi

# ---- --report to stdout, --fail-on-leak, -q
run "$P" -q -r leak -o "$TMP/rep" "$W" leak
if [ "$STATUS" = 0 ] && grep -q '^# .*unit=bytes' "$TMP/stdout" &&
	grep -q ';leaky;leak_one 123000$' "$TMP/stdout" && ! grep -q profheap "$TMP/stderr"; then
	pass "--report leak writes folded stacks to stdout; -q is quiet"
else
	fail "--report leak" "exit $STATUS: $(head -c 300 "$TMP/stdout")"
fi
run "$P" -q -r count -o "$TMP/rep" "$W" leak
if grep -q '^# .*unit=allocations' "$TMP/stdout" && grep -q ';leaky;leak_one 1000$' "$TMP/stdout"; then
	pass "--report count"
else
	fail "--report count" "$(head -c 300 "$TMP/stdout")"
fi
check_error "--fail-on-leak exits 1 when something leaked" 1 "fail-on-leak" \
	"$P" -f -o "$TMP/fl" "$W" leak
check_status "--fail-on-leak exits 0 without leaks" 0 "$P" -q -f -o "$TMP/fl0" "$W" peak
# a gate must not pass on what it could not see: sampling misses small leaks
check_error "--fail-on-leak with --sample is a usage error" 2 \
	"--fail-on-leak needs every allocation counted: with --sample a leak can go unsampled" \
	"$P" -f --sample=1M -o "$TMP/fls" "$W" leak
printf '# ours\nleak:leak_one\n' >"$TMP/ok.supp"
run "$P" -S "$TMP/ok.supp" -f -o "$TMP/supp" "$W" leak
if [ "$STATUS" = 0 ] && grep -q 'no leaks' "$TMP/stderr" &&
	[ -z "$(data "$(one_file "$TMP/supp" .leak.folded)")" ]; then
	pass "LSAN suppressions hide matching leaks"
else
	fail "LSAN suppressions hide matching leaks" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
fi

# ---- exact peak: 16 blocks of 4 MiB live at once
run "$P" -o "$TMP/peak" "$W" peak
f=$(one_file "$TMP/peak" .peak.folded)
if [ -n "$f" ] && [ "$(total "$f")" = 67108864 ] && grep -q 'peak 67,108,864 bytes' "$TMP/stderr" &&
	data "$f" | grep -q ';main;peak 67108864$'; then
	pass "64 MiB peak reported as 67,108,864 bytes at its call site"
else
	fail "64 MiB peak" "$(cat "$f" 2>/dev/null | tr '\n' '|') $(head -c 300 "$TMP/stderr")"
fi
f=$(one_file "$TMP/peak" .temp.folded)
if [ -n "$f" ] && data "$f" | grep -q ';main;churn 2000$'; then
	pass "temporary allocations (freed right after) counted"
else
	fail "temporary allocations" "$(cat "$f" 2>/dev/null | tr '\n' '|')"
fi

# ---- threads: same totals with 1 and 8 threads (freed by another thread)
sums() {
	a=$(grep thread_alloc "$(one_file "$1" .alloc.folded)" | awk '{ s += $NF } END { print s }')
	c=$(grep thread_alloc "$(one_file "$1" .count.folded)" | awk '{ s += $NF } END { print s }')
	l=$(total "$(one_file "$1" .leak.folded)")
	echo "$a $c $l"
}
"$P" -q -o "$TMP/t1" "$W" threads 1 >/dev/null 2>&1
"$P" -q -o "$TMP/t8" "$W" threads 8 >/dev/null 2>&1
"$P" -q -o "$TMP/t32" "$W" threads 32 >/dev/null 2>&1
s1=$(sums "$TMP/t1") s8=$(sums "$TMP/t8") s32=$(sums "$TMP/t32")
if [ "$s1" = "$s8" ] && [ "$s1" = "$s32" ] && [ "$s1" = "16160000 40000 61600" ]; then
	pass "8 and 32 threads give the same totals as 1 ($s1)"
else
	fail "8 and 32 threads give the same totals as 1" "1: '$s1', 8: '$s8', 32: '$s32'"
fi

# ---- fork: the child has its own profile, without inherited blocks
run "$P" -o "$TMP/fork" "$W" fork
n=$(ls "$TMP/fork"/*.leak.folded 2>/dev/null | wc -l)
totals=$(for f in "$TMP/fork"/*.leak.folded; do total "$f"; done | sort -n | tr '\n' ' ')
if [ "$STATUS" = 0 ] && [ "$n" = 2 ] && [ "$totals" = "1000 4000 " ]; then
	pass "fork: parent leaks 1000, child 4000 (inherited blocks not its own)"
else
	fail "fork followed" "exit $STATUS, $n profiles, leaks '$totals'"
fi
# 1000 children forked under a 1 ms timeline: a child forked while the
# parent's timer thread held the timeline's lock spun forever at exit
# (3 of 3 runs hung before the lock was reset in the child). 5 s here;
# a hang is forever: 600 s, as a sanitizer build on a loaded machine
# went past 120
run timeout 600 "$P" -q -i 1ms -o "$TMP/forks" "$W" forks 1000
n=$(ls "$TMP/forks"/*.timeline.tsv 2>/dev/null | wc -l)
if [ "$STATUS" = 0 ] && [ "$n" = 1001 ]; then
	pass "1000 forks under a 1 ms timeline: every child ends (1001 timelines)"
else
	fail "1000 forks under a 1 ms timeline" "exit $STATUS (124: a child hung), $n timelines"
fi
rm -rf "$TMP/forks"
run "$P" -q --no-follow-fork -o "$TMP/nofork" "$W" fork
n=$(ls "$TMP/nofork"/*.leak.folded 2>/dev/null | wc -l)
if [ "$STATUS" = 0 ] && [ "$n" = 1 ]; then
	pass "--no-follow-fork profiles only the parent"
else
	fail "--no-follow-fork" "exit $STATUS, $n profiles"
fi

# ---- exec: both images profiled
run "$P" -q -o "$TMP/exec" "$W" exec
totals=$(for f in "$TMP/exec"/*.leak.folded; do total "$f"; done | sort -n | tr '\n' ' ')
if [ "$STATUS" = 0 ] && [ "$totals" = "1500 2800 " ]; then
	pass "exec: the old image (1500) and the new one (2800)"
else
	fail "exec followed" "exit $STATUS, leaks '$totals'"
fi

# ---- exec of a program the shim cannot follow (issue 15): a note names
# it and says why; the blocks the old image left live at the exec are in
# its own PID.leak.folded but are not leaks (summary, -r leak, -f).
if [ -x "$TMP/static" ]; then
	printf '#!/bin/sh\nexec "%s"\n' "$TMP/static" >"$TMP/execstatic.sh"
	chmod +x "$TMP/execstatic.sh"
	run "$P" -f -r leak -o "$TMP/es" "$TMP/execstatic.sh"
	pid=$(ls "$TMP/es" | sed -n 's/^\([0-9]*\)\.leak\.folded$/\1/p')
	note="^profheap: $pid: exec'd $TMP/static, which was not profiled \\(it is statically linked: nothing can be preloaded into it\\); the figures of $pid are those of /.* up to the exec\$"
	if [ "$STATUS" = 0 ] && [ -n "$pid" ] && [ "$(grep -Ec "$note" "$TMP/stderr")" = 1 ] &&
	   [ "$(grep -c "exec'd" "$TMP/stderr")" = 1 ] && ! grep -q "leaked" "$TMP/stderr" &&
	   [ "$(data "$TMP/stdout" | wc -l)" = 0 ] && [ -s "$TMP/es/$pid.alloc.folded" ]; then
		pass "script that execs a static binary: one note, the shell's blocks are not leaks"
	else
		fail "script that execs a static binary" "exit $STATUS, pid '$pid', stdout '$(data "$TMP/stdout" | head -3 | tr '\n' '|')', stderr: $(head -c 600 "$TMP/stderr")"
	fi
else
	skip "script that execs a static binary" "cannot link statically here"
fi
# The same with a dynamic program run by env -i: its environment has no shim.
run "$P" -f -r leak -o "$TMP/ei" env -i "$W" leak
tag=$(ls "$TMP/ei" | sed -n 's/^\([0-9]*\)\.leak\.folded$/\1/p')
note="^profheap: $tag: exec'd $W, which was not profiled \\(the environment it was given no longer preloads the shim\\); the figures of $tag are those of /.*env up to the exec\$"
if [ "$STATUS" = 0 ] && [ -n "$tag" ] && [ "$(grep -Ec "$note" "$TMP/stderr")" = 1 ] &&
   ! grep -q "leaked" "$TMP/stderr" && [ "$(data "$TMP/stdout" | wc -l)" = 0 ]; then
	pass "env -i: the program run without the shim is named, env's blocks are not leaks"
else
	fail "env -i exec noted" "exit $STATUS, tag '$tag', stderr: $(head -c 600 "$TMP/stderr")"
fi
# --no-follow-fork: the shim leaves the programs the command executes alone.
run "$P" --no-follow-fork -f -r leak -o "$TMP/nf2" sh -c 'exec "$1" leak' sh "$W"
pid=$(ls "$TMP/nf2" | sed -n 's/^\([0-9]*\)\.leak\.folded$/\1/p')
if [ "$STATUS" = 0 ] && [ -n "$pid" ] && ! grep -q "leaked" "$TMP/stderr" &&
   grep -q "^profheap: $pid: exec'd $W, which was not profiled (--no-follow-fork: the programs it executes are not profiled)" "$TMP/stderr"; then
	pass "--no-follow-fork: an exec'd program is named as not profiled, the shell's blocks are not leaks"
else
	fail "--no-follow-fork exec noted" "exit $STATUS, pid '$pid', stderr: $(head -c 600 "$TMP/stderr")"
fi
# An exec that fails leaves the image as it was: it exits, its leaks count.
run "$P" -r leak -o "$TMP/ef" "$W" execfail
if [ "$STATUS" = 0 ] && [ "$(total "$TMP/stdout")" = 2800 ] && ! grep -q "exec'd" "$TMP/stderr" &&
   grep -q "leaked 2,800 bytes in 5 blocks\$" "$TMP/stderr"; then
	pass "failed exec: no note, the process's leaks (2800) count"
else
	fail "failed exec" "exit $STATUS, -r leak total '$(total "$TMP/stdout")', stderr: $(head -c 400 "$TMP/stderr")"
fi

# ---- abnormal ends keep their data
for c in "abort 134 3000" "segv 139 4000" "kill 137 6000" "exit 3 2000"; do
	set -- $c
	run "$P" -q -o "$TMP/$1" "$W" "$1"
	f=$(one_file "$TMP/$1" .leak.folded)
	if [ "$STATUS" = "$2" ] && [ -n "$f" ] && [ "$(total "$f")" = "$3" ]; then
		pass "$1: exit status $2 and the $3 bytes recorded kept"
	else
		fail "$1 keeps its data" "exit $STATUS, leak '$(total "$f" 2>/dev/null)'"
	fi
done

# ---- the whole malloc family
run "$P" -q -o "$TMP/fam" "$W" family
f=$(one_file "$TMP/fam" .leak.folded)
c=$(one_file "$TMP/fam" .count.folded)
if [ -n "$f" ] && [ "$(total "$f")" = 2452 ] && [ "$(grep ';main ' "$c" | awk '{ print $NF }')" = 5 ]; then
	pass "calloc/realloc/posix_memalign/aligned_alloc/reallocarray counted"
else
	fail "malloc family" "$(cat "$f" "$c" 2>/dev/null | tr '\n' '|')"
fi

# ---- --keep
run "$P" -q -k -o "$TMP/keep" "$W" leak
h=$(one_file "$TMP/keep" .heap)
if [ -n "$h" ] && [ -f "${h%.heap}.maps" ] && [ "$(wc -c <"$h")" -lt 10000000 ]; then
	pass "--keep keeps the record file (trimmed) and maps"
else
	fail "--keep" "$(ls -l "$TMP/keep" | tr '\n' '|')"
fi

# ---- --sample: unbiased estimates
run "$P" -q --sample=16K -o "$TMP/samp" "$W" sample
f=$(one_file "$TMP/samp" .alloc.folded)
if [ "$STATUS" = 0 ] && [ -n "$f" ] &&
	total "$f" | awk '{ exit !($1 > 0.9 * 202000000 && $1 < 1.1 * 202000000) }' &&
	total "$(one_file "$TMP/samp" .leak.folded)" | awk '{ exit !($1 > 1100000 && $1 < 2900000) }' &&
	grep -q 'estimated=' "$(one_file "$TMP/samp" .timeline.tsv)"; then
	pass "--sample estimates within 10% (alloc $(total "$f") of 202000000)"
else
	fail "--sample estimates" "exit $STATUS, alloc $(total "$f" 2>/dev/null), leak $(total "$(one_file "$TMP/samp" .leak.folded)" 2>/dev/null)"
fi

# ---- --unwind dwarf on code without frame pointers
if [ ! -e /usr/lib/x86_64-linux-gnu/libunwind.so.8 ] && ! ldconfig -p 2>/dev/null | grep -q 'libunwind.so.8 '; then
	skip "--unwind dwarf" "libunwind.so.8 not installed"
elif $CC -O2 -g -fomit-frame-pointer -pthread "$TMP/work.c" -o "$TMP/work-nofp" 2>/dev/null; then
	run "$P" -q -u dwarf -o "$TMP/dwarf" "$TMP/work-nofp" leak
	f=$(one_file "$TMP/dwarf" .leak.folded)
	if [ "$STATUS" = 0 ] && [ -n "$f" ] && data "$f" | grep -q ';main;leaky;leak_one 123000$'; then
		pass "--unwind dwarf walks code built without frame pointers"
	else
		fail "--unwind dwarf" "exit $STATUS: $(cat "$f" 2>/dev/null | tr '\n' '|') $(head -c 200 "$TMP/stderr")"
	fi
fi

# ---- C++ operator new/delete
if command -v c++ >/dev/null 2>&1 && cat >"$TMP/cxx.cc" <<'EOF' && c++ -O2 -g -fno-omit-frame-pointer "$TMP/cxx.cc" -o "$TMP/cxx" 2>/dev/null
#include <new>
#include <string>
__attribute__((noinline)) static char *make(int n)
{
	char *p = new char[n];
	p[0] = 1;
	return p;
}
int main()
{
	for (int i = 0; i < 10; i++) {
		char *volatile p = make(100);
		(void)p;
	}
	int *x = new int(3);
	delete x;
	char *a = static_cast<char *>(::operator new(256, std::align_val_t(64)));
	::operator delete(a, std::align_val_t(64));
	char *b = new (std::nothrow) char[50];
	delete[] b;
	std::string s(1000, 'x');
	try {
		char *volatile big = new char[(size_t)1 << 62];
		(void)big;
		return 2;
	} catch (const std::bad_alloc &) {
	}
	if (new (std::nothrow) char[(size_t)1 << 62])
		return 3;
	return s.size() == 1000 ? 0 : 1;
}
EOF
then
	run "$P" -q -o "$TMP/cxxout" "$TMP/cxx"
	f=$(one_file "$TMP/cxxout" .leak.folded)
	c=$(one_file "$TMP/cxxout" .count.folded)
	if [ "$STATUS" = 0 ] && [ -n "$f" ] && data "$f" | grep -q ';main;make(int)[^;]* 1000$' &&
		[ "$(data "$f" | wc -l)" = 1 ] && [ "$(grep -c 'main' "$c")" -ge 2 ]; then
		pass "C++ new/delete variants, bad_alloc thrown, nothrow NULL: 1000 bytes leaked by make()"
	else
		fail "C++ new/delete" "exit $STATUS: $(cat "$f" 2>/dev/null | tr '\n' '|')"
	fi
else
	skip "C++ new/delete" "no C++ compiler"
fi

# ---- a real C++ leak through libstdc++ (issue 25): valgrind --leak-check=full
# finds 133 bytes lost, 32 direct (the std::string object) and 101
# indirect (its buffer, allocated inside libstdc++, which keeps no frame
# pointers: the fp walk ends there in [truncated]). libstdc++'s own
# emergency exception pool (72704 bytes, allocated by its static
# initialiser before the shim's constructor) stays the runtime's.
if command -v g++ >/dev/null 2>&1 && cat >"$TMP/strleak.cc" <<'EOF' && g++ -O1 -g -fno-omit-frame-pointer "$TMP/strleak.cc" -o "$TMP/strleak" 2>/dev/null
#include <cstdio>
#include <string>
#include <vector>
static std::string *volatile keep;
__attribute__((noinline)) static void make_leak()
{
	keep = new std::string(100, 'x');
	keep = nullptr;
}
int main()
{
	std::vector<int> v(1000);
	make_leak();
	std::printf("%zu\n", v.size());
	return 0;
}
EOF
then
	run "$P" -q -o "$TMP/strleak.d" "$TMP/strleak"
	f=$(one_file "$TMP/strleak.d" .leak.folded)
	if [ "$STATUS" = 0 ] && [ -n "$f" ] && [ "$(total "$f")" = 133 ] &&
		data "$f" | grep -q '^\[truncated\];.*_M_construct[^;]* 101$' &&
		data "$f" | grep -q ';main;make_leak()[^;]* 32$'; then
		pass "a new std::string leaked through libstdc++ counts: 133 bytes, as memcheck says"
	else
		fail "C++ leak through libstdc++" "exit $STATUS: $(cat "$f" 2>/dev/null | tr '\n' '|')"
	fi
	# -u dwarf: libstdc++'s static initialiser calls malloc before the
	# shim's constructor loads libunwind: walked with frame pointers, no crash.
	if [ ! -e /usr/lib/x86_64-linux-gnu/libunwind.so.8 ] && ! ldconfig -p 2>/dev/null | grep -q 'libunwind.so.8 '; then
		skip "C++ under --unwind dwarf" "libunwind.so.8 not installed"
	else
		run "$P" -q -u dwarf -o "$TMP/strleak.dw" "$TMP/strleak"
		f=$(one_file "$TMP/strleak.dw" .leak.folded)
		a=$(one_file "$TMP/strleak.dw" .alloc.folded)
		if [ "$STATUS" = 0 ] && [ "$(cat "$TMP/stdout")" = 1000 ] && [ -n "$f" ] &&
			[ "$(total "$f")" = 133 ] &&
			data "$f" | grep -q ';main;make_leak();.*_M_construct[^;]* 101$' &&
			data "$a" | grep -q '^\[start-up\];.* 72704$'; then
			pass "C++ under --unwind dwarf: start-up allocations walked with frame pointers, 133 bytes leaked"
		else
			fail "C++ under --unwind dwarf" "exit $STATUS: $(cat "$f" 2>/dev/null | tr '\n' '|') $(head -c 300 "$TMP/stderr")"
		fi
	fi
	# --sample 1M: 133 bytes leaked are sampled 1 time in 7,900: never "no leaks"
	run "$P" --sample=1M -o "$TMP/strleak.s" "$TMP/strleak"
	if [ "$STATUS" = 0 ] && ! grep -q 'no leaks' "$TMP/stderr" &&
		grep -Eq 'no leak was sampled; sampling every 1.00 MiB on average misses leaks of under 3.00 MiB|leaked an estimated' "$TMP/stderr"; then
		pass "--sample: no leak sampled is not \"no leaks\""
	else
		fail "--sample: no leak sampled is not \"no leaks\"" "exit $STATUS: $(head -c 400 "$TMP/stderr")"
	fi
else
	skip "C++ leak through libstdc++" "no g++"
fi

# ---- a library loaded with dlopen and closed before the end
cat >"$TMP/plug.c" <<'EOF'
#include <stdlib.h>
#include <string.h>
__attribute__((noinline)) void plugin_leak(void)
{
	for (int i = 0; i < 3; i++) {
		char *p = malloc(555);
		memset(p, 0, 555);
		__asm__ volatile("" : : "r"(p) : "memory");
	}
}
EOF
cat >"$TMP/dl.c" <<'EOF'
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	void *h = dlopen(argv[1], RTLD_NOW);
	void (*f)(void);

	if (!h || !(f = (void (*)(void))dlsym(h, "plugin_leak")))
		return 1;
	f();
	dlclose(h);
	return 0;
}
EOF
if $CC -O2 -g -fno-omit-frame-pointer -shared -fPIC "$TMP/plug.c" -o "$TMP/plug.so" &&
	$CC -O2 -g -fno-omit-frame-pointer "$TMP/dl.c" -o "$TMP/dl" -ldl; then
	run "$P" -q -o "$TMP/dlo" "$TMP/dl" "$TMP/plug.so"
	f=$(one_file "$TMP/dlo" .leak.folded)
	if [ "$STATUS" = 0 ] && [ -n "$f" ] && [ "$(data "$f")" = "$(data "$f" | grep ';main;plugin_leak 1665$')" ] &&
		[ "$(data "$f" | wc -l)" = 1 ]; then
		pass "dlopen'd then dlclose'd library: its functions named"
	else
		fail "dlopen'd library" "exit $STATUS: $(cat "$f" 2>/dev/null | tr '\n' '|')"
	fi
else
	fail "dlopen workload builds"
fi

# ---- the timeline: interval, last row at exit agrees with the folded totals
run "$P" -q -i 2ms -o "$TMP/tl" "$W" peak
t=$(one_file "$TMP/tl" .timeline.tsv)
c=$(one_file "$TMP/tl" .count.folded)
if [ -n "$t" ] && grep -q '^# .*interval_ns=2000000' "$t" &&
	[ "$(tail -n 1 "$t" | cut -f 5)" = "$(total "$c")" ] && [ "$(tail -n 1 "$t" | cut -f 2)" = 0 ]; then
	pass "-i sets the timeline interval; its last row matches the totals"
else
	fail "timeline" "$(head -n 1 "$t" 2>/dev/null) last: $(tail -n 1 "$t" 2>/dev/null) count $(total "$c" 2>/dev/null)"
fi
check_error "bad interval" 2 "bad interval" "$P" -i 0 true

# ---- no -o: records in a private temporary directory, removed at the end
mkdir "$TMP/cwd" "$TMP/tmpd"
(cd "$TMP/cwd" && TMPDIR=$TMP/tmpd "$P" -q -r peak "$W" peak >"$TMP/cwd.out" 2>"$TMP/cwd.err")
s1=$?
(cd "$TMP/cwd" && TMPDIR=$TMP/tmpd "$P" -f "$W" peak >/dev/null 2>>"$TMP/cwd.err")
s2=$?
if [ $s1 = 0 ] && [ $s2 = 0 ] && [ -z "$(ls -A "$TMP/cwd")" ] && [ -z "$(ls -A "$TMP/tmpd")" ] &&
	grep -q '^# .*report=peak' "$TMP/cwd.out" && [ "$(total "$TMP/cwd.out")" -ge 67108864 ] &&
	! grep -q 'output in' "$TMP/cwd.err"; then
	pass "without -o nothing is left in the cwd or TMPDIR (-r and -f)"
else
	fail "no -o leaves nothing behind" "exit $s1/$s2, cwd: $(ls -A "$TMP/cwd" | tr '\n' ' ') tmp: $(ls -A "$TMP/tmpd" | tr '\n' ' ')"
fi
# -k without -o: kept as ./profheap.PID, PID the command's, as the files in it
mkdir "$TMP/cwdk"
(cd "$TMP/cwdk" && TMPDIR=$TMP/tmpd "$P" -q -k sh -c 'echo $$ >pid; exec "$1" peak' sh "$W" >/dev/null 2>&1)
kp=$(cat "$TMP/cwdk/pid" 2>/dev/null)
if [ -n "$kp" ] && [ -d "$TMP/cwdk/profheap.$kp" ] && [ -f "$TMP/cwdk/profheap.$kp/$kp.heap" ] &&
	[ -f "$TMP/cwdk/profheap.$kp/$kp.1.peak.folded" ] && [ "$(ls -A "$TMP/cwdk" | wc -l)" = 2 ] &&
	! ls "$TMP/cwdk/profheap.$kp" | grep -q failed && [ -z "$(ls -A "$TMP/tmpd")" ]; then
	pass "-k without -o keeps ./profheap.PID named after the command's pid"
else
	fail "-k keeps profheap.PID" "pid $kp: $(ls -AR "$TMP/cwdk" | tr '\n' ' ')"
fi

# ---- the command's signal state is its own, not profheap's
check_sigstate "command starts with the dispositions and mask profheap started with" \
	"$P" -q -o "$TMP/sigdir"

# ---- programs that ask glibc for their stack bounds (pthread_getattr_np
# takes a lock and calls malloc: the shim must not call it back)
cat >"$TMP/getattr.c" <<'EOF2'
#define _GNU_SOURCE	/* pthread_getattr_np */
#include <pthread.h>
#include <stdlib.h>
#define KEEP(p) __asm__ volatile("" : : "r"(p) : "memory")
__attribute__((noinline)) static void leak_after_getattr(void)
{
	void *p = malloc(1234);
	KEEP(p);
}
int main(void)
{
	pthread_attr_t a;
	void *addr;
	size_t size;

	if (pthread_getattr_np(pthread_self(), &a) || pthread_attr_getstack(&a, &addr, &size))
		return 1;
	pthread_attr_destroy(&a);
	leak_after_getattr();
	return 0;
}
EOF2
if $CC -O1 -fno-omit-frame-pointer -pthread -o "$TMP/getattr" "$TMP/getattr.c"; then
	run timeout 20 "$P" -o "$TMP/ga" "$TMP/getattr"
	if [ "$STATUS" = 0 ] && grep -q 'leaked 1,234 bytes in 1 block$' "$TMP/stderr" &&
		grep -q ': *1,234 bytes in 1 block at leak_after_getattr < main' "$TMP/stderr"; then
		pass "pthread_getattr_np on the main thread does not deadlock; the leak is exact"
	else
		fail "pthread_getattr_np under profheap" "exit $STATUS: $(head -c 400 "$TMP/stderr")"
	fi
else
	fail "getattr workload builds"
fi

RUSTC=$(rustc_path)
cat >"$TMP/leak.rs" <<'EOF2'
#[inline(never)]
fn leak_it(n: usize) {
    let v: Vec<u8> = std::hint::black_box(vec![7u8; n]);
    std::mem::forget(v);
}
fn main() {
    leak_it(4321);
    leak_it(4321);
    println!("done");
}
EOF2
if [ -z "$RUSTC" ]; then
	skip "Rust program under profheap" "rustc not in PATH or \$HOME/.cargo/bin"
elif ! "$RUSTC" -O -o "$TMP/leakrs" "$TMP/leak.rs" 2>"$TMP/rustc.err"; then
	skip "Rust program under profheap" "rustc cannot build: $(head -c 200 "$TMP/rustc.err")"
else
	run timeout 20 "$P" -o "$TMP/rs" "$TMP/leakrs"
	l=$(one_file "$TMP/rs" .leak.folded)
	if [ "$STATUS" = 0 ] && [ "$(cat "$TMP/stdout")" = done ] &&
		grep -Eq ': *8,642 bytes in 2 blocks at leak::leak_it < main' "$TMP/stderr" &&
		[ "$(grep 'leak_it' "$l" | awk '{ s += $NF } END { print s }')" = 8642 ]; then
		pass "a Rust program finishes under profheap; its leak is exact"
	else
		fail "Rust program under profheap" "exit $STATUS: $(head -c 600 "$TMP/stderr")"
	fi
fi

# ---- Rust names demangled (issue 17): tests/tools/shapes.rs allocates in
# its trait method, called by a generic function; every frame of the
# program and of std reads as rustc-demangle's short form prints it.
if rust_shapes "Rust names demangled" "$TMP/shapes"; then
	run "$P" -o "$TMP/rsd" -- "$TMP/shapes" 0.2
	f=$(one_file "$TMP/rsd" .alloc.folded)
	data "$f" | sed 's/ [0-9]*$//' >"$TMP/rsd.stacks"
	tr ';' '\n' <"$TMP/rsd.stacks" | sort -u >"$TMP/rsd.frames"
	raw=$(rust_raw_names <"$TMP/rsd.frames" | head -n 3 | tr '\n' '|')
	if [ "$STATUS" != 0 ] || [ -z "$f" ]; then
		fail "Rust: names demangled" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
	elif [ -n "$raw" ]; then
		fail "Rust: no hash, escape or mangled name left" "$raw"
	elif ! grep -q ';main::total::{{closure}};<main::Sq as main::Shape>::area;' "$TMP/rsd.stacks"; then
		fail "Rust: the trait method allocates under main::total" \
			"$(grep -m 3 'area\|total' "$TMP/rsd.frames" | tr '\n' '|')"
	elif ! grep -qx 'std::rt::lang_start_internal' "$TMP/rsd.frames"; then
		fail "Rust: std's v0 names demangled" "no std::rt::lang_start_internal frame"
	else
		pass "Rust: names demangled, no hash; main::total;...;<main::Sq as main::Shape>::area allocates"
	fi
	run "$P" --no-demangle -o "$TMP/rsr" -- "$TMP/shapes" 0.1
	f=$(one_file "$TMP/rsr" .alloc.folded)
	if [ "$STATUS" = 0 ] && [ -n "$f" ] && data "$f" | tr ';' '\n' |
		grep -q '^_ZN40_$LT$main..Sq$u20$as$u20$main..Shape$GT$4area17h[0-9a-f]\{16\}E$'; then
		pass "Rust --no-demangle: raw names kept"
	else
		fail "Rust --no-demangle: raw names kept" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
	fi
fi

# ---- Rust inlined frames (issue 25): the HashSet's growth allocates under
# main::count through HashSet::insert and hashbrown, all inlined into it;
# the symbolizer found no inlined frame of Rust code (rustc leaves a
# function's DIE inside its namespace, where libdw's dwarf_getscopes()
# does not look), so count called hashbrown's reserve_rehash directly.
if RUSTC=$(rustc_path); then
	mkdir -p "$TMP/rsi"
	cat >"$TMP/rsi/main.rs" <<'RS'
use std::collections::HashSet;
#[inline(never)]
fn count(n: u64) -> usize {
    let mut s = HashSet::new();
    for i in 0..n { s.insert(i.wrapping_mul(2654435761) % 100000); }
    s.len()
}
fn main() { println!("{}", count(std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1000))); }
RS
	if ! (cd "$TMP/rsi" && "$RUSTC" -C opt-level=3 -C debuginfo=2 -C force-frame-pointers=yes \
		main.rs -o main) >"$TMP/rsi/build.log" 2>&1; then
		fail "Rust inlined frames: build" "$(head -c 300 "$TMP/rsi/build.log")"
	else
		run "$P" -q -r alloc -o "$TMP/rsi/out" "$TMP/rsi/main" 20000
		if [ "$STATUS" = 0 ] &&
			grep -q ';main::count;std::collections::hash::set::HashSet<T,S,A>::insert;hashbrown::set::HashSet<T,S,A>::insert;' "$TMP/stdout"; then
			pass "Rust inlined frames: main::count;HashSet::insert;hashbrown ... allocates"
		else
			fail "Rust inlined frames" "exit $STATUS: $(grep -o 'main::count;[^ ]*' "$TMP/stdout" | head -n 2 | cut -c1-300 | tr '\n' '|')"
		fi
	fi
else
	skip "Rust inlined frames" "rustc not installed (not in PATH nor in ~/.cargo/bin)"
fi

# ---- a failure to record is exit 1, -f never passes on missing records
# (tmpfs in a private mount namespace: 64 KiB holds no record at all;
# 1600 KiB holds the parent's first MiB, not its fork child's)
cat >"$TMP/forker.c" <<'EOF2'
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
int main(void)
{
	void *p = malloc(100);
	int st;
	pid_t c = fork();

	if (c == 0) {
		free(malloc(50));
		exit(0);
	}
	free(p);
	waitpid(c, &st, 0);
	return 0;
}
EOF2
if ! $CC -O1 -o "$TMP/forker" "$TMP/forker.c"; then
	fail "forker workload builds"
elif [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	for sz in 64k 1600k 4m; do
		mkdir "$TMP/full$sz"
		unshare -m sh -c 'mount -t tmpfs -o size=$1 none "$2" || exit 99
			st=0; "$3" -f -o "$2/out" "$4" 2>"$5" || st=$?
			echo "status $st"; ls -A "$2/out"' sh "$sz" "$TMP/full$sz" "$P" "$TMP/forker" \
			"$TMP/full$sz.err" >"$TMP/full$sz.out" 2>&1
	done
	if [ "$(head -n 1 "$TMP/full64k.out")" = "status 1" ] &&
		grep -q 'no heap records' "$TMP/full64k.err" &&
		grep -q 'could not write its heap records' "$TMP/full64k.err"; then
		pass "-f on a full disk: no records is exit 1"
	else
		fail "-f on a full disk: no records is exit 1" "$(tr '\n' '|' <"$TMP/full64k.out") $(head -c 300 "$TMP/full64k.err")"
	fi
	if [ "$(head -n 1 "$TMP/full1600k.out")" = "status 1" ] &&
		grep -q 'could not write its heap records' "$TMP/full1600k.err" &&
		[ "$(grep -c 'leak.folded' "$TMP/full1600k.out")" = 1 ]; then
		pass "-f: a child that could not record makes the run fail"
	else
		fail "-f: a child that could not record makes the run fail" "$(tr '\n' '|' <"$TMP/full1600k.out") $(head -c 300 "$TMP/full1600k.err")"
	fi
	if [ "$(head -n 1 "$TMP/full4m.out")" = "status 0" ] && [ "$(grep -c 'leak.folded' "$TMP/full4m.out")" = 2 ] &&
		! grep -q failed "$TMP/full4m.out"; then
		pass "-f with room for every record passes"
	else
		fail "-f with room for every record passes" "$(tr '\n' '|' <"$TMP/full4m.out") $(head -c 300 "$TMP/full4m.err")"
	fi
else
	skip "full disk" "needs root and unshare -m"
fi

# ---- with the report on stdout, the command's output goes to stderr
cat >"$TMP/printer.c" <<'EOF2'
#include <stdio.h>
#include <stdlib.h>
#define KEEP(p) __asm__ volatile("" : : "r"(p) : "memory")
int main(void)
{
	void *p = malloc(300);

	KEEP(p);
	for (int i = 0; i < 3; i++)
		printf("line %d from the program\n", i);
	return 0;
}
EOF2
if $CC -O1 -fno-omit-frame-pointer -o "$TMP/printer" "$TMP/printer.c"; then
	run "$P" -q -r peak -- "$TMP/printer"
	if [ "$STATUS" = 0 ] && ! grep -q 'from the program' "$TMP/stdout" &&
		[ "$(grep -c 'from the program' "$TMP/stderr")" = 3 ] &&
		"$BIN/proffold" <"$TMP/stdout" >"$TMP/printer.folded" && grep -q "main 300$" "$TMP/printer.folded"; then
		pass "-r: the command's stdout goes to stderr, the report parses as folded"
	else
		fail "-r: the command's stdout goes to stderr" "exit $STATUS: $(head -c 300 "$TMP/stdout" | tr '\n' '|')"
	fi
	run "$P" -q -o "$TMP/pr" -- "$TMP/printer"
	if [ "$STATUS" = 0 ] && [ "$(grep -c 'from the program' "$TMP/stdout")" = 3 ]; then
		pass "without -r the command's stdout stays stdout"
	else
		fail "without -r the command's stdout stays stdout" "exit $STATUS: $(head -c 300 "$TMP/stdout" | tr '\n' '|')"
	fi
else
	fail "printer workload builds"
fi

# ---- --sample takes a required size: "-s 1M" is not a command named 1M
run "$P" -q -s 64K -r alloc -- "$W" sample
if [ "$STATUS" = 0 ] && grep -q '^# .*report=alloc' "$TMP/stdout" && [ "$(total "$TMP/stdout")" -gt 100000000 ]; then
	pass "-s 64K samples (not taken as the command)"
else
	fail "-s 64K samples" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
fi
run "$P" -q --sample 64K -r alloc -- "$W" sample
if [ "$STATUS" = 0 ] && [ "$(total "$TMP/stdout")" -gt 100000000 ]; then
	pass "--sample 64K samples"
else
	fail "--sample 64K samples" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
fi
check_error "--sample with a command after it is a clear usage error" 2 \
	"bad sampling interval '$TMP/work' \(--sample takes a size" "$P" --sample "$W" sample
check "--list-options offers --sample= (an argument follows)" 0 "--sample=" sh -c '"$1" --list-options | grep -- "^--sample"' sh "$P"

# ---- the installed layout: bin/profheap finds ../lib/proftools/libprofheap.so
# (its path was built in a buffer one byte short: the sanitizer build catches it)
mkdir -p "$TMP/inst/bin" "$TMP/inst/lib/proftools"
cp "$P" "$TMP/inst/bin/profheap" && cp "$SHIM" "$TMP/inst/lib/proftools/"
run "$TMP/inst/bin/profheap" -q -r leak -- "$TMP/printer"
if [ "$STATUS" = 0 ] && grep -q "main 300$" "$TMP/stdout" && ! grep -q Sanitizer "$TMP/stderr"; then
	pass "installed layout: the shim is found in ../lib/proftools"
else
	fail "installed layout" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
fi

# ---- frame-pointer walks end at the stack's end, never in garbage
# (a chain of ~120 [unknown] frames ending at clone3 came 1 run in 5)
worst=0 bad=
for i in 1 2 3 4 5; do
	"$P" -q -r alloc "$W" threads 8 >"$TMP/thr.folded" 2>/dev/null || bad="exit $?"
	m=$(data "$TMP/thr.folded" | awk '{ n = split($1, a, ";"); r = 0
		for (i = 1; i <= n; i++) { if (a[i] == "[unknown]") { if (++r > m) m = r } else r = 0 } }
		END { print m + 0 }')
	[ "$m" -gt "$worst" ] && worst=$m
	grep -q '^start_thread;worker;thread_alloc ' "$TMP/thr.folded" || bad="no start_thread;worker;thread_alloc"
done
if [ -z "$bad" ] && [ "$worst" -le 3 ]; then
	pass "threaded frame-pointer stacks: no run of [unknown] frames in 5 runs"
else
	fail "threaded frame-pointer stacks" "$bad; longest [unknown] run $worst"
fi

# ---- code without frame pointers: honest [truncated] stacks and one hint
if $CC -O2 -g -fomit-frame-pointer -pthread "$TMP/work.c" -o "$TMP/worknofp" 2>"$TMP/cc.err"; then
	run "$P" -r alloc "$TMP/worknofp" threads 8
	if [ "$STATUS" = 0 ] && [ "$(grep -c 'built without frame pointers.*--unwind dwarf' "$TMP/stderr")" = 1 ] &&
		grep -q '^\[truncated\];thread_alloc 16160000$' "$TMP/stdout" && ! grep -q 'unknown' "$TMP/stdout"; then
		pass "-fomit-frame-pointer: [truncated] stacks and the --unwind dwarf hint"
	else
		fail "-fomit-frame-pointer hint" "exit $STATUS: $(head -c 300 "$TMP/stderr") $(head -c 300 "$TMP/stdout" | tr '\n' '|')"
	fi
	run "$P" -q -r alloc "$TMP/worknofp" threads 8
	if grep -q 'frame pointers' "$TMP/stderr"; then fail "-q: no frame pointer hint"; else pass "-q: no frame pointer hint"; fi
	run "$P" -r alloc "$W" threads 8
	if [ "$STATUS" = 0 ] && ! grep -q 'frame pointers' "$TMP/stderr" && ! grep -q truncated "$TMP/stdout"; then
		pass "frame-pointer build: no hint, nothing truncated"
	else
		fail "frame-pointer build: no hint" "$(head -c 300 "$TMP/stderr")"
	fi
else
	fail "no-frame-pointer workload builds" "$(head -c 300 "$TMP/cc.err")"
fi

# ---- stripped code named by its .eh_frame FDEs (issue 17) ----
# Two allocating functions, 1:3 in bytes, in a strip -s binary, with the
# symbol cache off (a build-id seen unstripped would be named from it).
cat >"$TMP/two.c" <<'EOF2'
#include <stdlib.h>
#define KEEP(p) __asm__ volatile("" : : "r"(p) : "memory")
__attribute__((noinline)) void alloc_a(void) { for (int i = 0; i < 1000; i++) { void *p = malloc(1000); KEEP(p); free(p); } }
__attribute__((noinline)) void alloc_b(void) { for (int i = 0; i < 1000; i++) { void *p = malloc(3000); KEEP(p); free(p); } }
int main(void) { alloc_a(); alloc_b(); return 0; }
EOF2
if $CC -O1 -fno-omit-frame-pointer -o "$TMP/two" "$TMP/two.c" && cp "$TMP/two" "$TMP/two-stripped" &&
	strip -s "$TMP/two-stripped"; then
	a=$(nm "$TMP/two" | awk '$3 == "alloc_a" { sub(/^0+/, "", $1); print $1 }')
	b=$(nm "$TMP/two" | awk '$3 == "alloc_b" { sub(/^0+/, "", $1); print $1 }')
	PROFTOOLS_NO_CACHE=1 run "$P" -o "$TMP/strip-out" -- "$TMP/two-stripped"
	f=$(ls "$TMP"/strip-out/*.alloc.folded 2>/dev/null | head -n 1)
	na=$(grep -c "two-stripped!fn_$a [0-9]*\$" "$f" 2>/dev/null)
	nb=$(grep -c "two-stripped!fn_$b [0-9]*\$" "$f" 2>/dev/null)
	ba=$(awk -v k="two-stripped!fn_$a" '{ n = split($1, x, ";"); if (x[n] == k) s += $2 } END { print s + 0 }' "$f" 2>/dev/null)
	if [ "$STATUS" = 0 ] && [ "$na" = 1 ] && [ "$nb" = 1 ] && [ "$ba" = 1000000 ]; then
		pass "stripped: one frame per allocating function (two-stripped!fn_$a: $ba bytes)"
	else
		fail "stripped: one frame per allocating function" "exit $STATUS, fn_$a $na stacks ($ba bytes), fn_$b $nb; $(head -c 300 "$f" | tr '\n' '|')"
	fi
	assert "stripped: the summary says the binary had no symbols" \
		grep -Eq '^profheap: [0-9]+% of allocated bytes in .*/two-stripped: no symbols, named by function start' "$TMP/stderr"
else
	fail "stripped: build"
fi

# ---- -r REPORT --output-format pprof (issue 16) ----
# The same run's reports as folded and as pprof: each type folds to its column.
run "$P" -q -k -r alloc --output-format pprof -o "$TMP/pp" "$W" leak
if [ "$STATUS" = 0 ] && gzip -t "$TMP/stdout" 2>/dev/null; then
	cp "$TMP/stdout" "$TMP/heap.pb.gz"
	pass "-r alloc --output-format pprof: gzip'd on stdout"
	for r in alloc:alloc_space count:alloc_objects; do
		"$BIN/proffold" -q --no-header "$TMP/pp/"*."${r%%:*}".folded >"$TMP/heap.${r%%:*}"
		check_file "pprof type ${r#*:} = the ${r%%:*} report" 0 "$TMP/heap.${r%%:*}" \
			"$BIN/proffold" -q --no-header -e "${r#*:}" "$TMP/heap.pb.gz"
	done
	check "pprof default type alloc_space, in bytes" 0 "# source=pprof event=alloc_space unit=bytes" \
		sh -c "\"$BIN/proffold\" -q \"$TMP/heap.pb.gz\" | head -n 1"
	if need_npm "profheap pprof: pprof-format decodes it"; then
		check_error "profheap pprof: pprof-format decodes it" 0 \
			"types=alloc_space/bytes,alloc_objects/count default=alloc_space samples=[1-9]" \
			node "$TESTS/tools/pprof_totals.js" "$NPM_DIR" "$TMP/heap.pb.gz"
	fi
else
	fail "-r alloc --output-format pprof: gzip'd on stdout" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
fi
"$P" -q -r leak --output-format pprof -o "$TMP/pl" "$W" leak >"$TMP/leak.pb.gz"
check "pprof -r leak: leak_objects, the blocks leaked" 0 "1000" sh -c \
	"\"$BIN/proffold\" -q --no-header -e leak_objects \"$TMP/leak.pb.gz\" | awk '/;leaky;leak_one / { print \$NF }'"
check_error "--output-format pprof needs -r" 2 "needs -r report" "$P" --output-format pprof true
check_error "--output-format: folded or pprof" 2 "bad output format 'svg'" "$P" -r alloc --output-format svg true

# ---- when the heap peaked: peak_ns in the folded files' metadata (issue 24 point 3)
if cc -O0 -g -o "$TMP/peakt" "$TESTS/data/heap-peak.c"; then
	run "$P" -q -o "$TMP/peakt.d" -- "$TMP/peakt" 0.3 0.4
	pk=$(head -n 1 "$TMP"/peakt.d/*.peak.folded 2>/dev/null | sed -n 's/.* peak_ns=\([0-9]*\).*/\1/p')
	if [ "$STATUS" = 0 ] && [ -n "$pk" ] && [ "$pk" -ge 300000000 ] && [ "$pk" -le 2000000000 ]; then
		pass "peak_ns: the heap left its 9 MiB peak at $pk ns (0.31 s into the program)"
	else
		fail "peak_ns: when the heap left its peak" "exit $STATUS, peak_ns '${pk:-none}' (0.3 s to 2 s expected)"
	fi
fi

# ---- --python: the allocating thread's Python frames (issue 26)
cat >"$TMP/grow.py" <<'PYEOF'
keep = []
def grow_big():
    for i in range(200):
        keep.append(bytearray(100000))
def churn():
    n = 0
    for i in range(20000):
        l = [i, i + 1, i + 2]
        n += len(l)
    return n
def outer():
    grow_big()
    churn()
outer()
PYEOF
cat >"$TMP/threads.py" <<'PYEOF'
import threading
keep = []
def worker_a():
    for i in range(100):
        keep.append(bytearray(50000))
def worker_b():
    for i in range(100):
        keep.append(bytes(30000))
ta = threading.Thread(target=worker_a)
tb = threading.Thread(target=worker_b)
ta.start(); tb.start(); ta.join(); tb.join()
PYEOF
# sum_of FILE REGEX: the weights of FILE's stacks matching REGEX
sum_of() {
	awk -v re="$2" '!/^#/ && $0 ~ re { s += $NF } END { printf "%.0f\n", s }' "$1" 2>/dev/null
}
pythons=
for v in 3.9 3.10 3.11 3.12 3.13; do
	for exe in /root/.pyenv/versions/$v.*/bin/python$v; do
		[ -x "$exe" ] && pythons="$pythons $exe" && break
	done
done
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import sys; sys.exit(sys.version_info < (3, 9) or sys.version_info >= (3, 14))' &&
	pythons="$pythons /usr/bin/python3"
if [ -z "$pythons" ]; then
	skip "--python" "no CPython 3.9 to 3.13 (pyenv: /root/.pyenv/versions/3.*, /usr/bin/python3)"
fi
for py in $pythons; do
	v=$("$py" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')
	rm -rf "$TMP/py.d"
	run env -u PYTHONMALLOC "$P" --python -o "$TMP/py.d" -- "$py" "$TMP/grow.py"
	pk=$(cat "$TMP"/py.d/*.peak.folded 2>/dev/null)
	printf '%s\n' "$pk" >"$TMP/py.peak"
	# 200 bytearrays of 100 kB kept: grow_big's, under outer and <module>
	big=$(sum_of "$TMP/py.peak" '^py::<module> \([^)]*grow\.py:1\);py::outer \([^)]*grow\.py:11\);py::grow_big \([^)]*grow\.py:2\);')
	churn_peak=$(sum_of "$TMP/py.peak" 'py::churn ')
	churn_n=$(sum_of "$(ls "$TMP"/py.d/*.count.folded 2>/dev/null | head -n 1)" \
		'^py::<module> \([^)]*grow\.py:1\);py::outer \([^)]*grow\.py:11\);py::churn \([^)]*grow\.py:5\);')
	if [ "$STATUS" = 0 ] && [ "${big:-0}" -ge 20000000 ] && [ "$big" -le 20500000 ] &&
	   [ "${churn_n:-0}" -ge 20000 ] && [ "${churn_peak:-0}" -lt 4096 ] &&
	   head -n 1 "$TMP/py.peak" | grep -q " python=$v pythonmalloc=malloc\$" &&
	   grep -q 'PYTHONMALLOC=malloc' "$TMP/stderr"; then
		pass "--python, Python $v: py::grow_big holds $big bytes at the peak; py::churn made $churn_n allocations, $churn_peak bytes of them at the peak"
	else
		fail "--python, Python $v: grow_big's 20 MB and churn's allocations named" \
			"exit $STATUS, grow_big ${big:-none}, churn ${churn_n:-none} allocations, ${churn_peak:-none} bytes at the peak; $(head -c 300 "$TMP/stderr")"
	fi
	# two threads: each allocation under its own thread's frames (3.9, 3.10 name
	# functions without their class: no co_qualname)
	rm -rf "$TMP/pyt.d"
	run "$P" -q --python -o "$TMP/pyt.d" -- "$py" "$TMP/threads.py"
	cat "$TMP"/pyt.d/*.peak.folded >"$TMP/pyt.peak" 2>/dev/null
	a=$(sum_of "$TMP/pyt.peak" '^py::(Thread\.)?_bootstrap .*;py::worker_a \(')
	b=$(sum_of "$TMP/pyt.peak" '^py::(Thread\.)?_bootstrap .*;py::worker_b \(')
	mixed=$(grep -c 'worker_a.*worker_b\|worker_b.*worker_a' "$TMP/pyt.peak")
	if [ "$STATUS" = 0 ] && [ "${a:-0}" -ge 5000000 ] && [ "$a" -le 5100000 ] &&
	   [ "${b:-0}" -ge 3000000 ] && [ "$b" -le 3100000 ] && [ "$mixed" = 0 ]; then
		pass "--python, Python $v, two threads: worker_a's 50 kB bytearrays ($a bytes) and worker_b's 30 kB bytes ($b) each under its own thread"
	else
		fail "--python, Python $v, two threads: each thread's frames" \
			"exit $STATUS, worker_a ${a:-none}, worker_b ${b:-none}, $mixed stacks mixed; $(head -c 300 "$TMP/stderr")"
	fi
done
if [ -n "$pythons" ]; then
	py=${pythons##* }
	# the user's PYTHONMALLOC is kept, and said to hide pymalloc's objects
	rm -rf "$TMP/pym.d"
	run env PYTHONMALLOC=pymalloc "$P" --python -o "$TMP/pym.d" -- "$py" "$TMP/grow.py"
	if [ "$STATUS" = 0 ] && grep -q 'pythonmalloc=pymalloc' "$TMP"/pym.d/*.peak.folded &&
	   grep -q 'ran with PYTHONMALLOC set: objects of up to 512 bytes' "$TMP/stderr" &&
	   ! grep -q 'PYTHONMALLOC=malloc' "$TMP/stderr"; then
		pass "--python keeps the user's PYTHONMALLOC=pymalloc, and says what it hides"
	else
		fail "--python keeps the user's PYTHONMALLOC" "exit $STATUS; $(head -c 300 "$TMP/stderr")"
	fi
	# code objects freed and others made at their addresses: each
	# allocation under the name of the code that ran (the name cache
	# trusts a code object until its free, then reads it again)
	cat >"$TMP/reuse.py" <<'PYEOF'
ids = {}
keep = []
for i in range(200):
    g = {"keep": keep}
    exec(compile("def f%d():\n    return bytearray(%d)\nkeep.append(f%d())" % (i % 3, 3000 + i, i % 3), "<gen%d>" % (i % 3), "exec"), g)
    c = g["f%d" % (i % 3)].__code__
    ids.setdefault(id(c), set()).add(c.co_name)
print(sum(1 for v in ids.values() if len(v) > 1))
PYEOF
	rm -rf "$TMP/pyr.d"
	run env -u PYTHONMALLOC "$P" -q --python -o "$TMP/pyr.d" -- "$py" "$TMP/reuse.py"
	cat "$TMP"/pyr.d/*.alloc.folded >"$TMP/pyr.alloc" 2>/dev/null
	# bytearray(3000 + i) of f(i % 3), each with its NUL: 207700, 207767, 204633 bytes
	f0=$(sum_of "$TMP/pyr.alloc" 'py::f0 \(<gen0>:1\);PyByteArray_Resize ')
	f1=$(sum_of "$TMP/pyr.alloc" 'py::f1 \(<gen1>:1\);PyByteArray_Resize ')
	f2=$(sum_of "$TMP/pyr.alloc" 'py::f2 \(<gen2>:1\);PyByteArray_Resize ')
	reused=$(cat "$TMP/stdout")
	if [ "$STATUS" = 0 ] && [ "$f0" = 207700 ] && [ "$f1" = 207767 ] && [ "$f2" = 204633 ] &&
	   [ "${reused:-0}" -ge 1 ]; then
		pass "--python: code objects made at a freed one's address ($reused addresses) named each after its own code"
	else
		fail "--python: code objects made at a freed one's address named after their own code" \
			"exit $STATUS, f0 $f0 (207700), f1 $f1 (207767), f2 $f2 (204633), ${reused:-?} addresses reused"
	fi
	# not a CPython: native stacks, said
	check_error "--python with no CPython: said, native stacks" 0 \
		'--python: no CPython ran in the profiled processes' "$P" --python -o "$TMP/pyn.d" -- "$W" churn
fi
old=
for exe in /root/.pyenv/versions/3.8.*/bin/python3.8; do [ -x "$exe" ] && old=$exe; done
if [ -n "$old" ]; then
	check_error "--python refuses Python 3.8: exit 1, named" 1 \
		'Python 3\.8\.[0-9]+ is not supported \(3\.9 to 3\.13 are\)' "$P" --python -o "$TMP/py8.d" -- "$old" "$TMP/grow.py"
else
	skip "--python refuses Python 3.8" "no pyenv 3.8"
fi
check "--python in --list-options" 0 "--python" sh -c "\"$P\" --list-options | tr ' ' '\n' | grep -x -- --python"

# ---- a process in another mount namespace (a container, unshare -m) ----
# Its maps name the paths it sees: its program lives only under the tmpfs
# its namespace mounts over $TMP/ctr, gone with it before profheap names
# anything. Its shim hands its root over (PROFHEAP_ROOTS); without that,
# the file at that path here (a decoy) must not lend its names.
ns_why=
mkdir -p "$TMP/ctr" "$TMP/ns"
if [ "$(id -u)" != 0 ]; then ns_why="needs root (unshare -m, mount)"
elif ! have unshare; then ns_why="unshare not installed (package util-linux)"
elif ! unshare -m --propagation private sh -c "mount -t tmpfs tmpfs '$TMP/ctr'" 2>"$TMP/ns.err"; then
	ns_why="unshare -m and a tmpfs mount refused here: $(head -c 120 "$TMP/ns.err")"
fi
cat >"$TMP/nsleak.c" <<'EOC'
#include <stdlib.h>
#define KEEP(p) __asm__ volatile("" : : "r"(p) : "memory")
__attribute__((noinline)) static void leak_in_ns(void) { void *p = malloc(4321); KEEP(p); }
int main(void) { leak_in_ns(); return 0; }
EOC
cat >"$TMP/nsdecoy.c" <<'EOC'
__attribute__((noinline)) int decoy_outside(int x) { __asm__ volatile(".skip 16384, 0x90"); return x * 3; }
__attribute__((noinline)) int decoy_other(int x) { return x + decoy_outside(x); }
int main(int argc, char **argv) { (void)argv; return decoy_other(argc); }
EOC
# in_ns [WRAPPER...]: $TMP/ns/app run as $TMP/ctr/app, a path only its namespace has
cat >"$TMP/in_ns" <<EOS
#!/bin/sh
exec "\$@" unshare -m --propagation private sh -c 'mount -t tmpfs tmpfs "\$0" && cp "\$1" "\$0/app" && exec "\$0/app"' \\
	"$TMP/ctr" "$TMP/ns/app"
EOS
chmod +x "$TMP/in_ns"
if [ -z "$ns_why" ] && ! { $CC -O1 -g -fno-omit-frame-pointer -o "$TMP/ns/app" "$TMP/nsleak.c" &&
	$CC -O1 -g -o "$TMP/nsdecoy" "$TMP/nsdecoy.c"; }; then
	ns_why="cannot build the workloads"
fi
if [ -n "$ns_why" ]; then
	skip "mount namespace: the leak of a program only it has is named" "$ns_why"
	skip "mount namespace: names from its file, not the one at that path here" "$ns_why"
	skip "mount namespace: its root not handed over: the file here lends no names" "$ns_why"
else
	PROFTOOLS_NO_CACHE=1 run "$P" -o "$TMP/nsh" -- "$TMP/in_ns"
	if [ "$STATUS" = 0 ] && grep -q ': *4,321 bytes in 1 block at leak_in_ns < main' "$TMP/stderr"; then
		pass "mount namespace: the leak of a program only it has is named"
	else
		fail "mount namespace: the leak of a program only it has is named" "exit $STATUS: $(grep -v 'no leaks' "$TMP/stderr" | head -c 600)"
	fi
	# no build-id in either file to tell them apart: a decoy program here
	if objcopy --remove-section .note.gnu.build-id "$TMP/nsdecoy" &&
		objcopy --remove-section .note.gnu.build-id "$TMP/ns/app" && cp "$TMP/nsdecoy" "$TMP/ctr/app"; then
		PROFTOOLS_NO_CACHE=1 run "$P" -o "$TMP/nsd" -- "$TMP/in_ns"
		if [ "$STATUS" = 0 ] && grep -q ': *4,321 bytes in 1 block at leak_in_ns < main' "$TMP/stderr" &&
			! grep -q decoy "$TMP/stderr" "$TMP"/nsd/*.folded; then
			pass "mount namespace: names from its file, not the one at that path here"
		else
			fail "mount namespace: names from its file, not the one at that path here" "exit $STATUS: $(grep -v 'no leaks' "$TMP/stderr" | head -c 600)"
		fi
		# its root never handed over (the variable dropped): unnamed, and said why
		PROFTOOLS_NO_CACHE=1 run "$P" -o "$TMP/nsg" -- "$TMP/in_ns" env -u PROFHEAP_ROOTS
		if [ "$STATUS" = 0 ] && grep -q ': *4,321 bytes in 1 block at app+0x' "$TMP/stderr" &&
			! grep -q decoy "$TMP/stderr" "$TMP"/nsg/*.folded &&
			grep -q 'not opened: its process ran in another mount namespace whose root profheap could not keep open' "$TMP/stderr"; then
			pass "mount namespace: its root not handed over: the file here lends no names"
		else
			fail "mount namespace: its root not handed over: the file here lends no names" "exit $STATUS: $(grep -v 'no leaks' "$TMP/stderr" | head -c 600)"
		fi
		rm -f "$TMP/ctr/app"
	else
		fail "mount namespace: names from its file, not the one at that path here" "cannot strip the build-ids"
	fi
fi
