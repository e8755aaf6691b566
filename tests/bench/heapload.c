/*
 * heapload: an allocation-heavy workload for tests/bench/heap.sh.
 *
 *   heapload [PAIRS [THREADS]]      (default 20000000 pairs, 4 threads)
 *
 * THREADS threads share PAIRS malloc/free pairs of mixed sizes (8 B to
 * 16 KiB, mostly small) made from call paths of depth 2 to 7; each thread
 * keeps a ring of 256 live blocks, so a block lives a while before it is
 * freed. Every 64th allocation is a calloc, every 256th a realloc of a
 * live block, every 1024th a posix_memalign. Known results: 1000 leaked
 * blocks of 100 bytes per thread, and a 64 MiB block live while the rest
 * is small (the peak). Build with -O2 -g -fno-omit-frame-pointer.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RING 256
#define NOINLINE __attribute__((noinline))
#define KEEP(p) __asm__ volatile("" : : "r"(p) : "memory")

static long per_thread;

struct state {
	uint64_t rng;
	void *ring[RING];
	unsigned pos;
};

static uint64_t next_rand(struct state *s)
{
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	return s->rng;
}

static size_t pick_size(struct state *s)
{
	uint64_t r = next_rand(s);

	/* Mostly small: 8-128 B (70%), up to 1 KiB (25%), up to 16 KiB (5%). */
	switch (r % 20) {
	case 0:
		return 1024 + (r >> 8) % (15 * 1024);
	case 1: case 2: case 3: case 4: case 5:
		return 128 + (r >> 8) % 896;
	default:
		return 8 + (r >> 8) % 120;
	}
}

NOINLINE static void *leaf_alloc(struct state *s, long i)
{
	size_t n = pick_size(s);
	void *p;

	if (i % 1024 == 0) {
		if (posix_memalign(&p, 64, n))
			p = NULL;
	} else if (i % 64 == 0) {
		p = calloc(1, n);
	} else {
		p = malloc(n);
	}
	if (p)
		*(volatile char *)p = 1;
	return p;
}

NOINLINE static void *path1(struct state *s, long i) { void *p = leaf_alloc(s, i); KEEP(p); return p; }
NOINLINE static void *path2(struct state *s, long i) { void *p = path1(s, i); KEEP(p); return p; }
NOINLINE static void *path3(struct state *s, long i) { void *p = path2(s, i); KEEP(p); return p; }
NOINLINE static void *path4(struct state *s, long i) { void *p = path3(s, i); KEEP(p); return p; }
NOINLINE static void *path5(struct state *s, long i) { void *p = path4(s, i); KEEP(p); return p; }
NOINLINE static void *path6(struct state *s, long i) { void *p = path5(s, i); KEEP(p); return p; }

NOINLINE static void *alloc_from_some_path(struct state *s, long i)
{
	switch (next_rand(s) % 6) {
	case 0: return path1(s, i);
	case 1: return path2(s, i);
	case 2: return path3(s, i);
	case 3: return path4(s, i);
	case 4: return path5(s, i);
	default: return path6(s, i);
	}
}

NOINLINE static void leak_some(void)
{
	for (int i = 0; i < 1000; i++) {
		void *p = malloc(100);
		KEEP(p);
	}
}

NOINLINE static void big_peak(void)
{
	char *p = malloc(64 << 20);

	memset(p, 1, 64 << 20);
	KEEP(p);
	free(p);
}

static void *worker(void *arg)
{
	struct state s = { .rng = 0x9E3779B97F4A7C15ULL * ((uintptr_t)arg + 1) };
	long i;

	for (i = 0; i < per_thread; i++) {
		unsigned k = s.pos++ % RING;

		if (i % 256 == 255 && s.ring[k]) {
			void *q = realloc(s.ring[k], pick_size(&s));

			if (q)
				s.ring[k] = q;
			continue;
		}
		free(s.ring[k]);
		s.ring[k] = alloc_from_some_path(&s, i);
	}
	for (i = 0; i < RING; i++)
		free(s.ring[i]);
	leak_some();
	return NULL;
}

int main(int argc, char **argv)
{
	long pairs = argc > 1 ? atol(argv[1]) : 20000000;
	int threads = argc > 2 ? atoi(argv[2]) : 4, i;
	pthread_t t[64];

	if (pairs <= 0 || threads < 1 || threads > 64) {
		fprintf(stderr, "usage: heapload [pairs [threads]]\n");
		return 2;
	}
	per_thread = pairs / threads;
	big_peak();
	for (i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)i);
	for (i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	return 0;
}
