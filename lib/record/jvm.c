/*
 * A running JVM asked for its perf map through its attach mechanism, and
 * a recording's JVMs asked at its end (jvm.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "base/procns.h"
#include "base/sysfile.h"
#include "base/units.h"
#include "base/xalloc.h"
#include "record/jvm.h"

static int say(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int say(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return -1;
}

/* Whether process pid maps HotSpot's libjvm.so. */
static int maps_libjvm(int pid)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	if (!(f = fopen(path, "re")))
		return 0;
	while (!found && getline(&line, &cap, f) > 0)
		found = strstr(line, "/libjvm.so\n") != NULL;
	free(line);
	fclose(f);
	return found;
}

/* Whether pid catches SIGQUIT: bit SIGQUIT - 1 of SigCgt. */
static int catches_sigquit(int pid)
{
	char path[64], mask[64];

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (prof_read_file_key(path, "SigCgt", mask, sizeof(mask)) != 0)
		return 0;
	return (strtoull(mask, NULL, 16) >> (SIGQUIT - 1)) & 1;
}

static int is_socket(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/*
 * Make the JVM start its attach listener: the trigger file in its working
 * directory (else its /tmp), SIGQUIT, then wait for the socket. 0 or -1.
 */
static int start_listener(int pid, int nspid, const char *sock, int timeout_ms, char *why,
			  size_t n)
{
	char trigger[96], proc[32];
	int fd, waited = 0, step = 5, rc = -1;
	struct stat st;

	snprintf(trigger, sizeof(trigger), "/proc/%d/cwd/.attach_pid%d", pid, nspid);
	fd = open(trigger, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		snprintf(trigger, sizeof(trigger), "/proc/%d/root/tmp/.attach_pid%d", pid, nspid);
		fd = open(trigger, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	}
	if (fd < 0)
		return say(why, n, "%s: %s", trigger, strerror(errno));
	/*
	 * HotSpot heeds only a trigger file of its own effective user: ours
	 * (root's) given to it, as /proc/PID is its; else it would print a
	 * thread dump instead. Not root, we are that user or cannot attach.
	 */
	snprintf(proc, sizeof(proc), "/proc/%d", pid);
	if (stat(proc, &st) == 0 && fchown(fd, st.st_uid, st.st_gid) != 0 && geteuid() == 0) {
		say(why, n, "%s: chown: %s", trigger, strerror(errno));
		close(fd);
		unlink(trigger);
		return -1;
	}
	close(fd);
	if (kill(pid, SIGQUIT) != 0) {
		say(why, n, "SIGQUIT: %s", strerror(errno));
		goto out;
	}
	for (;;) {
		if (is_socket(sock)) {
			rc = 0;
			break;
		}
		if (waited >= timeout_ms)
			break;
		sleep_ms(step);
		waited += step;
		if (step < 100)
			step *= 2;
	}
	if (rc != 0)
		say(why, n, "no attach listener after %d ms (-XX:+DisableAttachMechanism?)", waited);
out:
	unlink(trigger);
	return rc;
}

/* Send the request, read the answer into buf (NUL-terminated). Returns 0 or -1. */
static int request(const char *sock, int timeout_ms, char *buf, size_t cap, char *why, size_t n)
{
	static const char req[] = "1\0jcmd\0Compiler.perfmap\0\0";	/* + the literal's NUL */
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };
	size_t len = 0;
	ssize_t k;
	int fd, rc = -1;

	if (strlen(sock) >= sizeof(sa.sun_path))
		return say(why, n, "%s: path too long", sock);
	strcpy(sa.sun_path, sock);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return say(why, n, "socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		say(why, n, "%s: %s", sock, strerror(errno));
		goto out;
	}
	if (write(fd, req, sizeof(req)) != (ssize_t)sizeof(req)) {
		say(why, n, "%s: write: %s", sock, strerror(errno));
		goto out;
	}
	while (len + 1 < cap && (k = read(fd, buf + len, cap - 1 - len)) > 0)
		len += (size_t)k;
	buf[len] = 0;
	if (!len)
		say(why, n, "%s: no answer", sock);
	else
		rc = 0;
out:
	close(fd);
	return rc;
}

int prof_jvm_perfmap(int pid, int timeout_ms, char *why, size_t whylen)
{
	char sock[96], answer[1024], *nl;
	int nspid;
	uint64_t t0 = prof_now_ns(), spent;

	if (why && whylen)
		why[0] = 0;
	if (!maps_libjvm(pid))
		return say(why, whylen, "not a HotSpot JVM");
	nspid = prof_procns_nspid(pid);
	snprintf(sock, sizeof(sock), "/proc/%d/root/tmp/.java_pid%d", pid, nspid);
	if (!is_socket(sock)) {
		if (!catches_sigquit(pid))
			return say(why, whylen, "it does not catch SIGQUIT (-XX:+ReduceSignalUsage)");
		if (start_listener(pid, nspid, sock, timeout_ms, why, whylen) != 0)
			return -1;
	}
	spent = (prof_now_ns() - t0) / 1000000;
	if (request(sock, spent < (uint64_t)timeout_ms ? timeout_ms - (int)spent : 1, answer,
		    sizeof(answer), why, whylen) != 0)
		return -1;
	/* "0\n" then jcmd's output: empty when the map was written */
	if (strncmp(answer, "0\n", 2) == 0 && !strstr(answer + 2, "Exception") &&
	    !strstr(answer + 2, "Unknown diagnostic command"))
		return 0;
	for (char *c = answer; *c; c++)
		if (*c == '\n')
			*c = ' ';
	if ((nl = answer + strlen(answer)) > answer && nl[-1] == ' ')
		nl[-1] = 0;
	return say(why, whylen, "Compiler.perfmap failed: %.200s", answer);
}

/* The effective uid of process pid (Uid: real, effective, ...), or -1. */
static long euid_of(int pid)
{
	char path[64], uids[128], *p;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (prof_read_file_key(path, "Uid", uids, sizeof(uids)) != 0)
		return -1;
	strtol(uids, &p, 10);	/* the real uid, then the effective one */
	return p == uids ? -1 : strtol(p, NULL, 10);
}

static void made(struct prof_jvm_asks *a, int pid)
{
	PROF_GROW(a->made, a->nmade + 1, a->cap);
	a->made[a->nmade++] = pid;
}

static void tell(const int *loud, size_t nloud, int pid, const char *why)
{
	int named = 0;

	for (size_t i = 0; i < nloud; i++)
		named |= loud[i] == pid;
	if (named)
		prof_warn("pid %d: the JVM wrote no perf map (%s): its JIT frames are [unknown]", pid, why);
	else
		prof_info(2, "pid %d: the JVM wrote no perf map (%s): its JIT frames are [unknown]", pid, why);
}

void prof_jvm_ask_all(struct prof_jvm_asks *a, const int *pids, size_t n, const int *loud,
		      size_t nloud, int total_ms)
{
	uint64_t t0 = prof_now_ns();
	char why[256], map[64];
	struct stat st;

	for (size_t i = 0; i < n; i++) {
		int pid = pids[i], seen = 0, left, had;
		long euid;

		for (size_t k = 0; k < i && !seen; k++)
			seen = pids[k] == pid;
		if (seen || pid <= 0 || kill(pid, 0) != 0 || !maps_libjvm(pid))
			continue;
		left = total_ms - (int)((prof_now_ns() - t0) / 1000000);
		euid = euid_of(pid);
		if (geteuid() != 0 && euid != (long)geteuid()) {
			/* it would refuse us: its socket and map are its user's */
			snprintf(why, sizeof(why), "another user's JVM (uid %ld)", euid);
		} else if (left < 20) {
			snprintf(why, sizeof(why), "not asked: the %d ms for asking JVMs were spent", total_ms);
		} else {
			snprintf(map, sizeof(map), "/tmp/perf-%d.map", pid);
			had = lstat(map, &st) == 0;
			if (prof_jvm_perfmap(pid, left < PROF_JVM_TIMEOUT_MS ? left : PROF_JVM_TIMEOUT_MS,
					     why, sizeof(why)) == 0) {
				a->wrote++;
				if (!had && lstat(map, &st) == 0 && S_ISREG(st.st_mode))
					made(a, pid);
				continue;
			}
			if (strcmp(why, "not a HotSpot JVM") == 0)
				continue;	/* gone meanwhile */
		}
		a->failed++;
		tell(loud, nloud, pid, why);
	}
}

int prof_jvm_remove_made(struct prof_jvm_asks *a)
{
	char map[64];
	int removed = 0;

	for (size_t i = 0; i < a->nmade; i++) {
		snprintf(map, sizeof(map), "/tmp/perf-%d.map", a->made[i]);
		removed += unlink(map) == 0;
	}
	a->nmade = 0;
	return removed;
}

void prof_jvm_asks_release(struct prof_jvm_asks *a)
{
	free(a->made);
	memset(a, 0, sizeof(*a));
}
