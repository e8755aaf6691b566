/*
 * The program README's tour runs as ./app (tests/readme.sh): it prints to
 * stdout, runs threads, allocates and leaks, and exits 0.
 *
 *   app            (APP_SECONDS: CPU seconds per thread, default 1)
 *
 * Two worker threads burn CPU in work_hot (3/4) and work_cold (1/4),
 * each through a few calls so stacks have depth; the main thread blocks
 * (off-CPU time) waiting for them. Allocations: 64 blocks of 128 KiB live
 * at once (the peak, 8 MiB) then freed, and one 300-byte block from main
 * that is never freed (the leak). A line per phase goes to stdout.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double seconds = 1.0;
static volatile unsigned long sink;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Called by spin so that spin is no leaf function: with frame pointers it
 * then sets up its own frame and its caller shows in the stacks. */
__attribute__((noinline)) void spin_done(void);
__attribute__((noinline)) void spin_done(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void spin(unsigned long n)
{
	unsigned long x = sink;

	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005UL + i;
	sink = x;
	spin_done();
}

/* Not tail calls (the leaves keep their frames): spin, then touch sink. */
__attribute__((noinline)) void work_hot(void);
__attribute__((noinline)) void work_hot(void)
{
	spin(300000);
	sink++;
}

__attribute__((noinline)) void work_cold(void);
__attribute__((noinline)) void work_cold(void)
{
	spin(100000);
	sink++;
}

__attribute__((noinline)) static void *worker(void *arg)
{
	double end = cpu_now() + seconds;

	(void)arg;
	while (cpu_now() < end) {
		work_hot();
		work_cold();
	}
	return NULL;
}

__attribute__((noinline)) static void peak_phase(void)
{
	enum { N = 64, SIZE = 128 * 1024 };
	char *blocks[N];

	for (int i = 0; i < N; i++) {
		blocks[i] = malloc(SIZE);
		if (!blocks[i])
			exit(1);
		memset(blocks[i], i, SIZE);
	}
	for (int i = 0; i < N; i++)
		free(blocks[i]);
}

__attribute__((noinline)) static char *leak_phase(void)
{
	char *p = malloc(300);

	if (p)
		snprintf(p, 300, "this block is never freed");
	return p;
}

int main(void)
{
	const char *s = getenv("APP_SECONDS");
	pthread_t t[2];
	char *leaked;

	if (s && atof(s) > 0)
		seconds = atof(s);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("app: starting 2 threads for %.2f s of CPU each\n", seconds);
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, NULL))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("app: threads done (sink %lu)\n", sink & 0xff);
	peak_phase();
	printf("app: 8 MiB peak allocated and freed\n");
	leaked = leak_phase();
	printf("app: leaked %d bytes at %p\n", leaked ? 300 : 0, (void *)leaked);
	leaked = NULL;
	return 0;
}
