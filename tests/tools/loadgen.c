/*
 * loadgen: workloads of known shape for the load tests (tests/load.sh,
 * tests/bench/load.sh).
 *
 *   loadgen spin THREADS MS      THREADS threads each burn MS of CPU in
 *                                spin_worker(), then exit 0
 *   loadgen handoff THREADS N    THREADS threads in a ring: each
 *                                allocates N blocks (100 + i % 900 bytes,
 *                                in handoff_alloc()) and hands every one
 *                                to the next thread, which frees it: N *
 *                                THREADS blocks allocated and freed
 *                                across threads, none leaked. Prints the
 *                                bytes allocated.
 *   loadgen work 1 MILLIONS      fixed work: MILLIONS million steps of a
 *                                dependent multiply chain in work_chain(),
 *                                then prints the CPU seconds it used
 *                                itself (user + system): what profiling
 *                                costs the profiled program
 * Built with frame pointers.
 */
#include <pthread.h>
#include <sys/resource.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long ms_arg;

NOINLINE static void burn(double ms)
{
	volatile unsigned long x = 0;
	double end = cpu_now() + ms / 1000;

	while (cpu_now() < end)
		for (int i = 0; i < 1000; i++)
			x++;
}

NOINLINE static void *spin_worker(void *arg)
{
	(void)arg;
	burn((double)ms_arg);
	return NULL;
}

/* ---- handoff: a ring of threads, each freeing what the previous allocated ---- */

#define SLOTS 1024

struct mailbox {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	void *slot[SLOTS];
	size_t head, tail;	/* tail - head blocks waiting */
};

static struct mailbox *boxes;
static int nthreads;
static long per_thread;
static unsigned long long allocated;

static void put(struct mailbox *b, void *p)
{
	pthread_mutex_lock(&b->lock);
	while (b->tail - b->head == SLOTS)
		pthread_cond_wait(&b->cond, &b->lock);
	b->slot[b->tail++ % SLOTS] = p;
	pthread_cond_broadcast(&b->cond);
	pthread_mutex_unlock(&b->lock);
}

static void *take(struct mailbox *b)
{
	void *p;

	pthread_mutex_lock(&b->lock);
	while (b->tail == b->head)
		pthread_cond_wait(&b->cond, &b->lock);
	p = b->slot[b->head++ % SLOTS];
	pthread_cond_broadcast(&b->cond);
	pthread_mutex_unlock(&b->lock);
	return p;
}

NOINLINE static void *handoff_alloc(long i)
{
	size_t n = 100 + (size_t)(i % 900);
	char *p = malloc(n);

	if (!p)
		abort();
	memset(p, (int)i, n);
	__atomic_add_fetch(&allocated, n, __ATOMIC_RELAXED);
	return p;
}

/* Thread k allocates into box k+1 and frees what arrives in box k. */
NOINLINE static void *handoff_worker(void *arg)
{
	int k = (int)(intptr_t)arg;
	struct mailbox *out = &boxes[(k + 1) % nthreads], *in = &boxes[k];
	long sent = 0, freed = 0;

	while (sent < per_thread || freed < per_thread) {
		if (sent < per_thread) {
			put(out, handoff_alloc(sent));
			sent++;
		}
		/* take only what is there (or must come): no deadlock in the ring */
		while (freed < per_thread) {
			pthread_mutex_lock(&in->lock);
			int ready = in->tail != in->head;
			pthread_mutex_unlock(&in->lock);
			if (!ready && sent < per_thread)
				break;
			free(take(in));
			freed++;
		}
	}
	return NULL;
}

NOINLINE static uint64_t work_chain(long millions)
{
	uint64_t x = 88172645463325252ULL;

	for (long i = 0; i < millions * 1000000L; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

static int run_threads(int n, void *(*fn)(void *))
{
	pthread_t *t = calloc((size_t)n, sizeof(*t));

	if (!t)
		return 1;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, fn, (void *)(intptr_t)i) != 0) {
			perror("loadgen: pthread_create");
			return 1;
		}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: loadgen spin|handoff|work N MS_OR_COUNT\n");
		return 2;
	}
	long n = atol(argv[2]), m = atol(argv[3]);

	if (!strcmp(argv[1], "spin")) {
		ms_arg = m;
		return run_threads((int)n, spin_worker);
	}
	if (!strcmp(argv[1], "handoff")) {
		nthreads = (int)n;
		per_thread = m;
		boxes = calloc((size_t)n, sizeof(*boxes));
		if (!boxes)
			return 1;
		for (int i = 0; i < nthreads; i++) {
			pthread_mutex_init(&boxes[i].lock, NULL);
			pthread_cond_init(&boxes[i].cond, NULL);
		}
		if (run_threads(nthreads, handoff_worker))
			return 1;
		printf("%llu\n", allocated);
		free(boxes);
		return 0;
	}
	if (!strcmp(argv[1], "work")) {
		struct rusage ru;
		volatile uint64_t sink = work_chain(m);

		(void)sink;
		getrusage(RUSAGE_SELF, &ru);
		printf("%.3f\n", (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
		       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
		return 0;
	}
	fprintf(stderr, "loadgen: unknown mode %s\n", argv[1]);
	return 2;
}
