/*
 * heap-peak BEFORE AFTER: 1 MiB held throughout; after BEFORE seconds a
 * 9 MiB peak is held for 10 ms and freed; AFTER seconds later the program
 * exits. Built -O0 (the compiler may drop an allocation it sees unused).
 * profheap's peak_ns and the report's heap-peak mark are checked on it.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void spin(double s)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9 < s);
}

int main(int argc, char **argv)
{
	char *volatile keep = malloc(1 << 20), *volatile p;

	memset(keep, 1, 1 << 20);
	spin(argc > 1 ? atof(argv[1]) : 0.3);
	p = malloc(8 << 20);
	memset(p, 1, 8 << 20);
	spin(0.01);
	keep[1] = p[12345];
	free(p);
	spin(argc > 2 ? atof(argv[2]) : 0.4);
	free(keep);
	return 0;
}
