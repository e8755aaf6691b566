/*
 * Three named threads (worker-0..2) run the same hot function, then the
 * main thread a cold one: the profile of proffold's thread-merged views.
 * CPU time is measured per thread, so that the shares hold on a loaded
 * machine: hot about 0.9 s of 1.25 s, each thread's part of it a third.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static volatile double sink;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void hot(double secs)
{
	double t = cpu_now(), x = 0;

	while (cpu_now() - t < secs)
		for (int i = 0; i < 1000; i++)
			x += i * 0.5;
	sink = x;
}

__attribute__((noinline)) static void cold(double secs)
{
	double t = cpu_now(), x = 0;

	while (cpu_now() - t < secs)
		for (int i = 0; i < 1000; i++)
			x += i * 0.25;
	sink = x;
}

static void *worker(void *arg)
{
	char name[16];

	snprintf(name, sizeof(name), "worker-%d", (int)(long)arg);
	pthread_setname_np(pthread_self(), name);
	hot(0.3);
	cold(0.05);
	return NULL;
}

int main(void)
{
	pthread_t t[3];

	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	cold(0.2);
	return 0;
}
