/*
 * stripes [ROUNDS [WORK_MS [SLEEP_MS]]]: a program that works WORK_MS,
 * then sleeps SLEEP_MS, ROUNDS times (default 15 rounds of 100 ms and
 * 100 ms: 3 s), allocating a 1000-byte block per round (tests only): the
 * heat map's stripes and the hot/cold graph's warm work and cool sleep,
 * a busy command for the fault tests, steady allocations for profheap.
 * Built with frame pointers.
 */
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void work(double until);

__attribute__((noinline)) void work(double until)
{
	volatile unsigned long x = 0;

	while (now() < until)
		x++;
}

void *volatile kept;

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 15;
	double work_s = (argc > 2 ? atof(argv[2]) : 100) / 1000;
	double sleep_s = (argc > 3 ? atof(argv[3]) : 100) / 1000;
	struct timespec nap = { (time_t)sleep_s, (long)((sleep_s - (time_t)sleep_s) * 1e9) };
	double t0 = now();

	for (int i = 0; i < rounds; i++) {
		free(kept);	/* one block live at a time: no leak at exit */
		kept = malloc(1000);
		work(t0 + i * (work_s + sleep_s) + work_s);
		if (sleep_s > 0)
			nanosleep(&nap, 0);
	}
	free(kept);
	return 0;
}
