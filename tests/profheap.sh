# profheap: the heap profiler (launcher + preloaded shim).
. "$(dirname "$0")/lib.sh"

P=$BIN/profheap
CC=${CC:-cc}
if [ ! -x "$P" ] || [ ! -f "$BIN/libprofheap.so" ]; then
	fail "profheap built" "no $P or $BIN/libprofheap.so"
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
	} else if (!strcmp(mode, "exec")) {
		leaky(5, 300);
		execl("/proc/self/exe", argv[0], "execd", (char *)NULL);
		return 99;
	} else if (!strcmp(mode, "execd")) {
		leaky(7, 400);
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

# ---- the default output directory
mkdir "$TMP/cwd"
(cd "$TMP/cwd" && "$P" -q "$W" peak >/dev/null 2>&1)
set -- "$TMP/cwd"/profheap.*
if [ $# -eq 1 ] && [ -d "$1" ] && [ -n "$(one_file "$1" .peak.folded)" ]; then
	pass "default output directory profheap.PID"
else
	fail "default output directory" "$(ls "$TMP/cwd" | tr '\n' ' ')"
fi
