/*
 * cpurun: run a command and print "wall_s user_s sys_s maxrss_kib" of it
 * (wait4 rusage, microsecond resolution, unlike time(1)'s 10 ms) on the
 * file named by the first argument. Used by tests/bench/gpu.sh.
 *   cpurun OUTFILE CMD [ARG...]
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec a, b;
	struct rusage ru;
	int st;
	pid_t pid;
	FILE *f;

	if (argc < 3) {
		fprintf(stderr, "usage: cpurun OUTFILE CMD [ARG...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	pid = fork();
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &st, 0, &ru) < 0) {
		perror("cpurun");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	f = fopen(argv[1], "w");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	fprintf(f, "%.6f %.6f %.6f %ld\n",
		(double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9,
		ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
		ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, ru.ru_maxrss);
	fclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
