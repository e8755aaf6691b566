/*
 * stripes: 3 s of a program that works 100 ms, then sleeps 100 ms,
 * fifteen times (tests only): the heat map's stripes and the hot/cold
 * graph's warm work and cool sleep. Built with frame pointers.
 */
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

int main(void)
{
	struct timespec nap = { 0, 100000000 };
	double t0 = now();

	for (int i = 0; i < 15; i++) {
		work(t0 + i * 0.2 + 0.1);
		nanosleep(&nap, 0);
	}
	return 0;
}
