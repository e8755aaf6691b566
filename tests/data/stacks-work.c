/*
 * The program whose stacks tests/data/eustack-*.txt, gdb-bt.txt and
 * perf-report-*.txt were taken from (tests/data/README): a busy thread
 * computing, one asleep (named "napper"), one blocked reading a pipe,
 * main asleep until its argument's seconds are over.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static unsigned long fib(unsigned n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static void *busy(void *arg)
{
	(void)arg;
	for (;;)
		sink += fib(27);
	return NULL;
}

static void nap(void)
{
	struct timespec ts = { 0, 200000000 };

	nanosleep(&ts, NULL);
}

static void *sleeper(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "napper");
	for (;;)
		nap();
	return NULL;
}

static void *reader(void *arg)
{
	char c;

	while (read(*(int *)arg, &c, 1) > 0)
		;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[3];
	int fd[2];

	if (pipe(fd))
		return 1;
	pthread_create(&t[0], NULL, busy, NULL);
	pthread_create(&t[1], NULL, sleeper, NULL);
	pthread_create(&t[2], NULL, reader, &fd[0]);
	sleep(argc > 1 ? (unsigned)atoi(argv[1]) : 60);
	return 0;
}
