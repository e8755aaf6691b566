/*
 * A hot loop in a function of its own (not inlined), called from main:
 * tests/profrec.sh records it and reads the pprof export with go tool
 * pprof (-disasm, -list, -traces) and an independent decoder (every
 * caller at its call). hot_loop calls sink() now and then, so that it
 * is not a leaf and keeps its frame pointer (as a real hot function
 * does): perf -g sees the same call chain.
 *
 * pprof-hot SECONDS: loop for that much CPU time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) void sink(unsigned long v)
{
	__asm__ volatile("" : : "r"(v) : "memory");
}

__attribute__((noinline)) unsigned long hot_loop(unsigned long n)
{
	unsigned long s = 1;

	for (unsigned long i = 0; i < n; i++) {
		s = s * 6364136223846793005UL + (i ^ (s >> 29));
		if ((i & 0xfffff) == 0)
			sink(s);
	}
	return s;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1;
	unsigned long s = 0;

	while ((double)clock() < secs * CLOCKS_PER_SEC)
		s += hot_loop(1UL << 22);
	printf("%lu\n", s & 1);
	return 0;
}
