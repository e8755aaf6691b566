/*
 * The bundled workload profiled by tests/profrec.sh and `make demo`.
 * Functions burn known shares of CPU: leaf_a does three times the work of
 * leaf_b (75% / 25%) with identical loop bodies.
 *
 *   workload [-s SECONDS] [-t THREADS] [-l LIB.so] MODE
 *
 * MODE: split (default), threads, forkexec, dlopen, inline, offcpu,
 * jit, jitlate (its map written at exit, as the JVM's), crash, forever,
 * child (used by forkexec).
 * Build plainly (cc -O1 -g -fno-omit-frame-pointer); the tests also
 * build it -O2 -fomit-frame-pointer, stripped with a debug link.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define UNIT 200000

static double seconds = 1.0;
static volatile unsigned long sink;

/* Called by the leaves so that they are not leaf functions: with frame
 * pointers they then set up their own frame and the caller shows. */
__attribute__((noinline)) void leaf_done(void);
__attribute__((noinline)) void leaf_done(void)
{
	__asm__ volatile("" ::: "memory");
}

#define LEAF(name)                                                  \
	__attribute__((noinline)) void name(unsigned long n)        \
	{                                                           \
		unsigned long x = sink;                             \
		for (unsigned long i = 0; i < n; i++)               \
			x = x * 6364136223846793005UL + i;          \
		sink = x;                                           \
		leaf_done();                                        \
	}

LEAF(leaf_a)
LEAF(leaf_b)
LEAF(child_leaf)
void leaf_a(unsigned long n);
void leaf_b(unsigned long n);
void child_leaf(unsigned long n);

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* 75% in leaf_a, 25% in leaf_b, for `seconds` of this thread's CPU time. */
__attribute__((noinline)) static void split(void)
{
	double end = cpu_now() + seconds;

	while (cpu_now() < end) {
		leaf_a(3 * UNIT);
		leaf_b(UNIT);
	}
}

static inline __attribute__((always_inline)) unsigned long inlined_work(unsigned long n)
{
	unsigned long x = sink;

	for (unsigned long i = 0; i < n; i++)
		x = x * 2862933555777941757UL + (i ^ (x >> 7));
	return x;
}

__attribute__((noinline)) static void inline_caller(void)
{
	double end = cpu_now() + seconds;

	while (cpu_now() < end)
		sink = inlined_work(UNIT);
}

static void *worker(void *arg)
{
	char name[16];

	snprintf(name, sizeof(name), "worker-%d", (int)(long)arg);
	pthread_setname_np(pthread_self(), name);
	split();
	return NULL;
}

static void run_threads(int n)
{
	pthread_t t[64];

	if (n > 64)
		n = 64;
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, (void *)(long)i);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
}

__attribute__((noinline)) static void child_main(void)
{
	double end = cpu_now() + seconds;

	while (cpu_now() < end)
		child_leaf(UNIT);
}

/* Off-CPU: short bursts of CPU, then blocking sleeps. */
__attribute__((noinline)) static void block_in_sleep(void)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

__attribute__((noinline)) static void offcpu(void)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		leaf_a(UNIT / 4);
		block_in_sleep();
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
}

/*
 * JIT: machine code generated at run time into an anonymous mapping,
 * named in /tmp/perf-PID.map the way JIT compilers do for perf: before
 * it runs, or (late) only when the program exits, as the JVM does with
 * DumpPerfMapAtExit.
 */
static int write_perfmap(const void *code, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	if (!(f = fopen(path, "w")))
		return -1;
	fprintf(f, "%lx %zx jitted_loop\n", (unsigned long)code, len);
	return fclose(f);
}

__attribute__((noinline)) static int jit(int late)
{
	/* mov $N, %rcx; 1: dec %rcx; jnz 1b; ret */
	static const unsigned char code[] = {
		0x48, 0xb9, 0x40, 0x0d, 0x03, 0, 0, 0, 0, 0,
		0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3,
	};
	unsigned char *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void (*fn)(void);
	double end;

	if (mem == MAP_FAILED)
		return 1;
	memcpy(mem, code, sizeof(code));
	*(void **)&fn = mem;
	if (!late && write_perfmap(mem, sizeof(code)) != 0)
		return 1;
	end = cpu_now() + seconds;
	while (cpu_now() < end)
		fn();
	if (late && write_perfmap(mem, sizeof(code)) != 0)
		return 1;
	/* The map stays, as JIT runtimes leave it (node --perf-basic-prof):
	 * a profiler may read it after the process is gone. */
	return 0;
}

int main(int argc, char **argv)
{
	const char *lib = NULL, *mode;
	int threads = 4, c;

	while ((c = getopt(argc, argv, "l:s:t:")) != -1) {
		switch (c) {
		case 'l':
			lib = optarg;
			break;
		case 's':
			seconds = atof(optarg);
			break;
		case 't':
			threads = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: workload [-s seconds] [-t threads] [-l lib] mode\n");
			return 2;
		}
	}
	mode = optind < argc ? argv[optind] : "split";
	if (strcmp(mode, "split") == 0) {
		split();
	} else if (strcmp(mode, "threads") == 0) {
		run_threads(threads);
	} else if (strcmp(mode, "inline") == 0) {
		inline_caller();
	} else if (strcmp(mode, "child") == 0) {
		child_main();
	} else if (strcmp(mode, "forkexec") == 0) {
		pid_t pid = fork();
		char secs[32];

		if (pid == 0) {
			char self[4096];
			ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

			if (n <= 0)
				_exit(127);
			self[n] = 0;
			snprintf(secs, sizeof(secs), "%g", seconds);
			execl(self, "workload", "-s", secs, "child", (char *)NULL);
			_exit(127);
		}
		split();
		waitpid(pid, NULL, 0);
	} else if (strcmp(mode, "dlopen") == 0) {
		void *h = lib ? dlopen(lib, RTLD_NOW) : NULL;
		void (*fn)(double);

		if (!h) {
			fprintf(stderr, "workload: dlopen: %s\n", lib ? dlerror() : "no -l");
			return 1;
		}
		*(void **)&fn = dlsym(h, "lib_spin");
		if (!fn)
			return 1;
		fn(seconds);
	} else if (strcmp(mode, "jit") == 0 || strcmp(mode, "jitlate") == 0) {
		return jit(strcmp(mode, "jitlate") == 0);
	} else if (strcmp(mode, "offcpu") == 0) {
		offcpu();
	} else if (strcmp(mode, "crash") == 0) {
		split();
		*(volatile int *)(sink & 0) = 1;	/* SIGSEGV */
	} else if (strcmp(mode, "forever") == 0) {
		for (;;)
			split();
	} else {
		fprintf(stderr, "workload: unknown mode %s\n", mode);
		return 2;
	}
	return 0;
}
