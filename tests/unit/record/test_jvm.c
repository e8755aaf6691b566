/*
 * lib/record/jvm.c: a JVM asked for its perf map. The JVM is a fake that
 * does what HotSpot's attach mechanism does on Linux: it maps a file
 * named libjvm.so, catches SIGQUIT, and at SIGQUIT, when .attach_pidPID
 * is in its working directory, listens on /tmp/.java_pidPID; it reads
 * one request (the version and four NUL-terminated strings), writes the
 * perf map for "jcmd Compiler.perfmap" and answers "0\n". It records the
 * request's bytes for the test to check. One that catches SIGQUIT but
 * never listens is a JVM run with -XX:+DisableAttachMechanism. (The real
 * JVM is the shell test's, tests/profrec-runtimes.sh, where java is
 * installed.) Then a recording's JVMs asked at its end, within a time
 * bound, and the maps the asking made removed (prof_jvm_ask_all()).
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "../unit.h"
#include "record/jvm.h"

static volatile sig_atomic_t quit;

static void on_quit(int sig)
{
	(void)sig;
	quit = 1;
}

/* Map a file named libjvm.so in dir, as a JVM maps HotSpot. */
static void map_libjvm(const char *dir)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/libjvm.so", dir);
	fd = open(path, O_RDWR | O_CREAT, 0600);
	if (fd < 0 || ftruncate(fd, 4096) != 0 ||
	    mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED)
		_exit(3);
	close(fd);
}

/* How the fake behaves. */
enum { NO_QUIT, ATTACH, NO_ATTACH };

/* The fake JVM (a child): writes the request it got to dir/request. */
static void fake_jvm(const char *dir, int mode, int wfd)
{
	char sock[128], trigger[128], path[256], req[256];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	ssize_t k, len = 0;
	int ls, c, nuls = 0;
	FILE *f;

	sigset_t block, old;

	map_libjvm(dir);
	sigemptyset(&block);
	sigaddset(&block, SIGQUIT);
	sigprocmask(SIG_BLOCK, NULL, &old);
	if (mode != NO_QUIT) {
		signal(SIGQUIT, on_quit);
		sigprocmask(SIG_BLOCK, &block, &old);
	}
	if (chdir(dir) != 0)
		_exit(3);
	if (write(wfd, "r", 1) != 1)	/* ready: libjvm mapped, handler set */
		_exit(3);
	while (!quit || mode == NO_ATTACH)
		sigsuspend(&old);	/* no SIGQUIT lost between the test and the wait */
	snprintf(trigger, sizeof(trigger), ".attach_pid%d", (int)getpid());
	if (access(trigger, F_OK) != 0)
		_exit(4);	/* HotSpot would print a thread dump */
	snprintf(sock, sizeof(sock), "/tmp/.java_pid%d", (int)getpid());
	strcpy(sa.sun_path, sock);
	ls = socket(AF_UNIX, SOCK_STREAM, 0);
	if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(ls, 1) != 0)
		_exit(5);
	c = accept(ls, NULL, NULL);
	/* "1", then the command and three arguments: five NULs */
	while (c >= 0 && nuls < 5 && len < (ssize_t)sizeof(req) &&
	       (k = read(c, req + len, 1)) == 1)
		nuls += req[len++] == 0;
	snprintf(path, sizeof(path), "%s/request", dir);
	if ((f = fopen(path, "w"))) {
		fwrite(req, 1, (size_t)len, f);
		fclose(f);
	}
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	if ((f = fopen(path, "w"))) {
		fputs("7f0000001000 40 void Fake.run()\n", f);
		fclose(f);
	}
	if (c < 0 || write(c, "0\n", 2) != 2)
		_exit(6);
	close(c);
	unlink(sock);
	_exit(0);
}

static pid_t spawn(const char *dir, int mode)
{
	int p[2];
	char ready;
	pid_t pid;

	if (pipe(p) != 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		fake_jvm(dir, mode, p[1]);
	}
	close(p[1]);
	if (read(p[0], &ready, 1) != 1)
		ready = 0;
	close(p[0]);
	return pid;
}

int main(void)
{
	char dir[] = "/tmp/test_jvm.XXXXXX", path[256], why[256], got[64];
	static const char want[] = "1\0jcmd\0Compiler.perfmap\0\0";
	pid_t pid;
	int ws = 0;
	size_t n = 0;
	FILE *f;

	if (!mkdtemp(dir))
		return 1;
	TEST("a JVM's attach listener started by SIGQUIT and asked for Compiler.perfmap") {
		pid = spawn(dir, ATTACH);
		CHECK(prof_jvm_perfmap(pid, 3000, why, sizeof(why)) == 0);
		waitpid(pid, &ws, 0);
		CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
		snprintf(path, sizeof(path), "%s/request", dir);
		if ((f = fopen(path, "r"))) {
			n = fread(got, 1, sizeof(got), f);
			fclose(f);
		}
		CHECK(n == sizeof(want) && memcmp(got, want, n) == 0);
		snprintf(path, sizeof(path), "%s/.attach_pid%d", dir, (int)pid);
		CHECK(access(path, F_OK) != 0);	/* the trigger removed */
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)pid);
		CHECK(access(path, F_OK) == 0);
		unlink(path);
	}
	TEST("a process that does not catch SIGQUIT is not sent it") {
		pid = spawn(dir, NO_QUIT);
		CHECK(prof_jvm_perfmap(pid, 300, why, sizeof(why)) == -1);
		CHECK(strstr(why, "SIGQUIT") != NULL);
		CHECK(kill(pid, 0) == 0);	/* still alive: SIGQUIT would have killed it */
		kill(pid, SIGKILL);
		waitpid(pid, &ws, 0);
	}
	TEST("a process that is no JVM is left alone") {
		CHECK(prof_jvm_perfmap((int)getpid(), 300, why, sizeof(why)) == -1);
		CHECK_STR(why, "not a HotSpot JVM");
	}
	TEST("a recording's JVMs asked once each; what is no JVM or gone not counted; the map made removed") {
		struct prof_jvm_asks a = PROF_JVM_ASKS_INIT;
		pid_t gone = fork();
		int pids[4];

		if (gone == 0)
			_exit(0);
		waitpid(gone, NULL, 0);
		pid = spawn(dir, ATTACH);
		pids[0] = (int)pid;
		pids[1] = (int)getpid();
		pids[2] = (int)pid;
		pids[3] = (int)gone;
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)pid);
		unlink(path);
		prof_jvm_ask_all(&a, pids, 4, NULL, 0, 5000);
		waitpid(pid, &ws, 0);
		CHECK(a.wrote == 1 && a.failed == 0);
		CHECK(a.nmade == 1 && a.made[0] == (int)pid);
		CHECK(access(path, F_OK) == 0);
		CHECK(prof_jvm_remove_made(&a) == 1);
		CHECK(access(path, F_OK) != 0);
		prof_jvm_asks_release(&a);
	}
	TEST("a map there before the JVM was asked stays") {
		struct prof_jvm_asks a = PROF_JVM_ASKS_INIT;
		int one;

		pid = spawn(dir, ATTACH);
		one = (int)pid;
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", one);
		if ((f = fopen(path, "w")))
			fclose(f);
		prof_jvm_ask_all(&a, &one, 1, NULL, 0, 5000);
		waitpid(pid, &ws, 0);
		CHECK(a.wrote == 1 && a.nmade == 0);
		CHECK(prof_jvm_remove_made(&a) == 0);
		CHECK(access(path, F_OK) == 0);
		unlink(path);
		prof_jvm_asks_release(&a);
	}
	TEST("JVMs that never answer: the time bound holds for all, each failure counted") {
		struct prof_jvm_asks a = PROF_JVM_ASKS_INIT;
		struct timespec t0, t1;
		int pids[3];
		double ms;

		pids[0] = (int)spawn(dir, NO_ATTACH);
		pids[1] = (int)spawn(dir, NO_ATTACH);
		pids[2] = (int)spawn(dir, NO_QUIT);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		prof_jvm_ask_all(&a, pids, 3, NULL, 0, 400);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
		/* the first waits 400 ms, the others are out of time */
		CHECK(a.wrote == 0 && a.failed == 3 && a.nmade == 0);
		CHECK(ms >= 350 && ms < 1500);
		for (int i = 0; i < 3; i++) {
			CHECK(kill(pids[i], 0) == 0);	/* none killed by SIGQUIT */
			kill(pids[i], SIGKILL);
			waitpid(pids[i], &ws, 0);
		}
		prof_jvm_asks_release(&a);
	}
	snprintf(path, sizeof(path), "%s/request", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/libjvm.so", dir);
	unlink(path);
	rmdir(dir);
	return UNIT_RESULT();
}
