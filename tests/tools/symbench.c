/*
 * symbench: the symbolizer's cost on one file, for tests/bench/symbolize.sh.
 *
 *   symbench FILE OFFSETS ROUNDS
 *
 * FILE is mapped whole at a fixed base, as one executable mapping; OFFSETS
 * holds one file offset per line (hex, no 0x): the samples. Each round
 * symbolizes every sample with a new symbolizer (the persistent cache
 * off: every file and table is read again), so a round is what a
 * recording of these samples costs to name. Prints the best round:
 * "samples N ns_per_sample X distinct_names D fde_named F unnamed U".
 * Uses only the symbolizer's public API, so that it builds against
 * earlier versions of the library too (the benchmark's baseline).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include "symbolize/symbolize.h"

#define BASE 0x555555554000ull

static uint64_t *read_offsets(const char *path, size_t *n)
{
	FILE *f = fopen(path, "r");
	uint64_t *v = NULL, x;
	size_t cap = 0;

	*n = 0;
	if (!f)
		return NULL;
	while (fscanf(f, "%llx", (unsigned long long *)&x) == 1) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 4096;
			v = realloc(v, cap * sizeof(*v));
			if (!v)
				exit(1);
		}
		v[(*n)++] = x;
	}
	fclose(f);
	return v;
}

static int by_pointer(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(const char *const *)a, y = (uintptr_t)*(const char *const *)b;

	return (x > y) - (x < y);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* One round: seconds; the names' figures of the last round in *d, *fde, *none. */
static double round_once(const char *file, const uint64_t *off, size_t n, size_t *d, size_t *fde,
			 size_t *none)
{
	struct prof_symbolizer *s = prof_symbolizer_new(NULL);
	struct prof_addrspace *as = prof_addrspace_new(s, 0);
	struct prof_map m;
	struct prof_frame fr[8];
	const char **seen = calloc(n, sizeof(*seen));
	double t0 = now(), t;

	memset(&m, 0, sizeof(m));
	m.start = BASE;
	m.end = BASE + (1ull << 32);
	m.path = file;
	m.prot = PROT_READ | PROT_EXEC;
	prof_addrspace_add_map(as, &m);
	*d = *fde = *none = 0;
	for (size_t i = 0; i < n; i++) {
		size_t k = prof_symbolize(s, as, BASE + off[i], 0, fr, 8);
		const char *name = fr[k - 1].name;

		seen[i] = name;
	}
	t = now() - t0;
	/* interned names: equal strings are one pointer */
	qsort(seen, n, sizeof(*seen), by_pointer);
	for (size_t i = 0; i < n; i++) {
		if (i && seen[i] == seen[i - 1])
			continue;
		(*d)++;
		*fde += strstr(seen[i], "!fn_") != NULL;
		*none += strstr(seen[i], "+0x") != NULL;
	}
	free(seen);
	prof_addrspace_free(as);
	prof_symbolizer_free(s);
	return t;
}

int main(int argc, char **argv)
{
	size_t n, d = 0, fde = 0, none = 0;
	uint64_t *off;
	double best = 1e30;
	int rounds;

	if (argc != 4 || (rounds = atoi(argv[3])) < 1) {
		fprintf(stderr, "usage: symbench FILE OFFSETS ROUNDS\n");
		return 2;
	}
	setenv("PROFTOOLS_NO_CACHE", "1", 1);
	off = read_offsets(argv[2], &n);
	if (!off || !n) {
		fprintf(stderr, "symbench: %s: no offsets\n", argv[2]);
		return 1;
	}
	for (int r = 0; r < rounds; r++) {
		double t = round_once(argv[1], off, n, &d, &fde, &none);

		if (t < best)
			best = t;
	}
	printf("samples %zu ns_per_sample %.1f distinct_names %zu fde_named %zu unnamed %zu\n", n,
	       best * 1e9 / (double)n, d, fde, none);
	free(off);
	return 0;
}
