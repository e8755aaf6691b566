/* lib/base/proc.c: the PATH search execvp does, and exit statuses. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../unit.h"
#include "base/proc.h"

static char dir[] = "/tmp/test_proc.XXXXXX";

/* Create dir/sub/name with the given mode (sub made if needed); returns its path. */
static char *put(const char *sub, const char *name, mode_t mode)
{
	static char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, name);
	f = fopen(path, "w");
	if (f) {
		fputs("#!/bin/sh\n", f);
		fclose(f);
	}
	chmod(path, mode);
	return path;
}

static void cleanup(void)
{
	static const char *const files[] = { "a/plain", "b/plain", "b/tool", "c/tool", "a/tool",
					     "a", "b", "c", "" };
	char path[512];
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		if (unlink(path) < 0)
			rmdir(path);
	}
}

static int is(char *got, const char *want)
{
	int ok = got && want && strcmp(got, want) == 0;

	free(got);
	return ok;
}

/* A library's thread as libnvidia-ml starts one: every signal unblocked. */
static volatile int lib_thread_up, lib_thread_stop;

static void *lib_thread(void *arg)
{
	sigset_t none;

	(void)arg;
	sigemptyset(&none);
	pthread_sigmask(SIG_SETMASK, &none, NULL);
	lib_thread_up = 1;
	while (!lib_thread_stop)
		usleep(1000);
	return NULL;
}

/* The next watched signal within a second, or 0. */
static int next_signal(struct prof_sigwatch *w, int *user)
{
	for (int i = 0; i < 1000; i++) {
		struct pollfd p[2] = { { w->sigfd, POLLIN, 0 }, { w->pipe_rd, POLLIN, 0 } };
		int sig;

		if ((sig = prof_sigwatch_next(w, user)) != 0)
			return sig;
		poll(p, 2, 1);
	}
	return 0;
}

/* The signal watch: nothing lost, whichever thread the kernel picks. */
static void test_sigwatch(void)
{
	struct prof_sigwatch w;
	pthread_t t;
	sigset_t now;
	int user = -1;

	prof_sigwatch_start(&w, (const int[]){ SIGCHLD, SIGTERM, SIGHUP, 0 });
	TEST("the watched signals are blocked in the calling thread") {
		sigprocmask(SIG_SETMASK, NULL, &now);
		CHECK(sigismember(&now, SIGTERM) == 1 && sigismember(&now, SIGCHLD) == 1);
		CHECK(sigismember(&now, SIGINT) == 0);
	}
	TEST("a signal sent while blocked everywhere comes through the signalfd") {
		kill(getpid(), SIGHUP);
		CHECK(next_signal(&w, &user) == SIGHUP && user == 1);
		CHECK(prof_sigwatch_next(&w, NULL) == 0);
	}
	pthread_create(&t, NULL, lib_thread, NULL);
	while (!lib_thread_up)
		usleep(1000);
	TEST("a thread with every signal unblocked: SIGTERM caught, not fatal, not lost") {
		for (int i = 0; i < 20; i++) {
			kill(getpid(), SIGTERM);
			CHECK(next_signal(&w, &user) == SIGTERM && user == 1);
		}
	}
	TEST("and SIGCHLD of a child is not lost either; its pidfd is readable") {
		pid_t pid = fork();
		int fd, st;

		if (pid == 0)
			_exit(3);
		fd = prof_child_pidfd(pid);
		CHECK(next_signal(&w, NULL) == SIGCHLD);
		if (fd >= 0) {
			struct pollfd p = { fd, POLLIN, 0 };

			CHECK(poll(&p, 1, 1000) == 1);
			close(fd);
		}
		CHECK(waitpid(pid, &st, 0) == pid && prof_exit_status(st) == 3);
	}
	lib_thread_stop = 1;
	pthread_join(t, NULL);
	prof_sigwatch_close(&w);
}

int main(void)
{
	char list[2048], want[512], cwd[512];

	if (!mkdtemp(dir) || !getcwd(cwd, sizeof(cwd)))
		return 2;
	put("a", "plain", 0644);	/* not executable: skipped */
	put("b", "plain", 0755);
	put("b", "tool", 0755);
	put("c", "tool", 0755);
	snprintf(want, sizeof(want), "%s/a/tool", dir);
	mkdir(want, 0755);		/* a directory of that name: skipped */

	TEST("first executable regular file along the list") {
		snprintf(list, sizeof(list), "%s/a:%s/b:%s/c", dir, dir, dir);
		snprintf(want, sizeof(want), "%s/b/tool", dir);
		CHECK(is(prof_path_search("tool", list), want));
		snprintf(want, sizeof(want), "%s/b/plain", dir);
		CHECK(is(prof_path_search("plain", list), want));
		snprintf(list, sizeof(list), "%s/c:%s/b", dir, dir);
		snprintf(want, sizeof(want), "%s/c/tool", dir);
		CHECK(is(prof_path_search("tool", list), want));
	}
	TEST("not found: NULL and ENOENT; empty name never found") {
		snprintf(list, sizeof(list), "%s/a:%s/nonexistent", dir, dir);
		errno = 0;
		CHECK(prof_path_search("plain", list) == NULL && errno == ENOENT);
		CHECK(prof_path_search("missing", list) == NULL && errno == ENOENT);
		CHECK(prof_path_search("", "/bin") == NULL && errno == ENOENT);
		CHECK(prof_path_search("tool", "") == NULL);
	}
	TEST("a name with a slash is used as it is, found or not") {
		CHECK(is(prof_path_search("./x/y", "/bin"), "./x/y"));
		CHECK(is(prof_path_search("/no/such/file", NULL), "/no/such/file"));
	}
	TEST("an empty entry is the current directory") {
		snprintf(want, sizeof(want), "%s/c", dir);
		CHECK(chdir(want) == 0);
		snprintf(list, sizeof(list), "%s/a::%s/b", dir, dir);
		CHECK(is(prof_path_search("tool", list), "./tool"));
		snprintf(list, sizeof(list), "%s/a:", dir);
		CHECK(is(prof_path_search("tool", list), "./tool"));
		CHECK(chdir(cwd) == 0);
	}
	TEST("NULL list: $PATH, as execvp") {
		const char *old = getenv("PATH");
		char *saved = old ? strdup(old) : NULL;

		snprintf(list, sizeof(list), "%s/c", dir);
		setenv("PATH", list, 1);
		snprintf(want, sizeof(want), "%s/c/tool", dir);
		CHECK(is(prof_path_search("tool", NULL), want));
		unsetenv("PATH");
		/* The C library's default path holds sh. */
		{
			char *sh = prof_path_search("sh", NULL);

			CHECK(sh && (strcmp(sh, "/bin/sh") == 0 || strcmp(sh, "/usr/bin/sh") == 0));
			free(sh);
		}
		if (saved)
			setenv("PATH", saved, 1);
		free(saved);
	}
	TEST("exit status of a wait status: code, or 128 + signal") {
		CHECK(prof_exit_status(3 << 8) == 3);
		CHECK(prof_exit_status(0) == 0);
		CHECK(prof_exit_status(9) == 128 + 9);	/* killed by SIGKILL */
	}
	cleanup();
	test_sigwatch();
	return UNIT_RESULT();
}
