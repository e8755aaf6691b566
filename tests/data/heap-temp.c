/*
 * Known allocation counts for the heap views: 10,000 temporary
 * allocations of 100 bytes (each freed before anything else is
 * allocated, heaptrack's "temporary"), 1,000 blocks of 1,000 bytes kept
 * together (the peak, 1,000,000 bytes), 100 blocks of 64 bytes leaked.
 * Build with -O0 -fno-builtin: compilers remove a malloc whose block is
 * never used.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static void temp_work(void)
{
	for (int i = 0; i < 10000; i++) {
		char *p = malloc(100);

		memset(p, i, 100);
		free(p);
	}
}

__attribute__((noinline)) static void keep_work(void)
{
	static char *v[1000];

	for (int i = 0; i < 1000; i++) {
		v[i] = malloc(1000);
		memset(v[i], 1, 1000);
	}
	for (int i = 0; i < 1000; i++)
		free(v[i]);
}

__attribute__((noinline)) static void leak_work(void)
{
	for (int i = 0; i < 100; i++) {
		char *p = malloc(64);

		p[0] = 1;
	}
}

int main(void)
{
	temp_work();
	keep_work();
	leak_work();
	puts("ok");
	return 0;
}
