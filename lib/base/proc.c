#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "base/error.h"
#include "base/proc.h"
#include "base/xalloc.h"

/*
 * The signal dispositions and mask this process started with, taken
 * before main() runs: whatever the tool changes afterwards (handlers,
 * SIGPIPE ignored, signals blocked for a signalfd) is undone in the child,
 * which so starts the command exactly as the shell would have.
 */
static sigset_t start_ignored, start_mask;

__attribute__((constructor)) static void save_start_signals(void)
{
	struct sigaction sa;

	sigemptyset(&start_ignored);
	for (int sig = 1; sig < NSIG; sig++)
		if (sigaction(sig, NULL, &sa) == 0 && !(sa.sa_flags & SA_SIGINFO) &&
		    sa.sa_handler == SIG_IGN)
			sigaddset(&start_ignored, sig);
	sigprocmask(SIG_SETMASK, NULL, &start_mask);
}

/* In the child (async-signal-safe): the start-up dispositions and mask. */
static void restore_start_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	for (int sig = 1; sig < NSIG; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP)
			continue;
		sa.sa_handler = sigismember(&start_ignored, sig) == 1 ? SIG_IGN : SIG_DFL;
		sigaction(sig, &sa, NULL);	/* EINVAL for libc's own: fine */
	}
	sigprocmask(SIG_SETMASK, &start_mask, NULL);
}

int prof_signal_ignored_at_start(int sig)
{
	return sigismember(&start_ignored, sig) == 1;
}

/* ---- the signal watch ---- */

/* The write end of the watch's pipe, for the handlers. */
static volatile int sigwatch_wr = -1;

/* One record per signal: well under PIPE_BUF, so written whole. */
struct sigwatch_rec {
	int sig;
	int from_user;
};

static int sent_by_user(int code)
{
	return code == SI_USER || code == SI_QUEUE;
}

/* Runs in whichever thread took the signal: only write(2) (async-signal-safe). */
static void sigwatch_handler(int sig, siginfo_t *si, void *uc)
{
	struct sigwatch_rec r = { sig, si && sent_by_user(si->si_code) };
	int saved = errno;

	(void)uc;
	if (sigwatch_wr >= 0 && write(sigwatch_wr, &r, sizeof(r)) < 0) {
		/* Pipe full: thousands pending; the loop is reading them. */
	}
	errno = saved;
}

void prof_sigwatch_start(struct prof_sigwatch *w, const int *sigs)
{
	struct sigaction sa;
	int fds[2];

	sigemptyset(&w->set);
	for (; *sigs; sigs++)
		sigaddset(&w->set, *sigs);
	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0)
		prof_die_errno("pipe");
	w->pipe_rd = fds[0];
	sigwatch_wr = fds[1];
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sigwatch_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&sa.sa_mask);
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(&w->set, sig) == 1 && sigaction(sig, &sa, NULL) < 0)
			prof_die_errno("sigaction");
	if (sigprocmask(SIG_BLOCK, &w->set, NULL) < 0)
		prof_die_errno("sigprocmask");
	w->sigfd = signalfd(-1, &w->set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (w->sigfd < 0)
		prof_die_errno("signalfd");
}

int prof_sigwatch_next(struct prof_sigwatch *w, int *from_user)
{
	struct signalfd_siginfo si;
	struct sigwatch_rec r;
	int user = 0, sig = 0;

	if (w->sigfd >= 0 && read(w->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		sig = (int)si.ssi_signo;
		user = sent_by_user(si.ssi_code);
	} else if (w->pipe_rd >= 0 && read(w->pipe_rd, &r, sizeof(r)) == (ssize_t)sizeof(r)) {
		sig = r.sig;
		user = r.from_user;
	}
	if (from_user)
		*from_user = user;
	return sig;
}

void prof_sigwatch_close(struct prof_sigwatch *w)
{
	int wr = sigwatch_wr;

	sigwatch_wr = -1;
	if (wr >= 0)
		close(wr);
	if (w->pipe_rd >= 0)
		close(w->pipe_rd);
	if (w->sigfd >= 0)
		close(w->sigfd);
	w->pipe_rd = w->sigfd = -1;
}

int prof_child_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);

	if (fd >= 0) {
		fcntl(fd, F_SETFD, FD_CLOEXEC);
		return fd;
	}
#else
	(void)pid;
#endif
	return -1;
}

int prof_child_spawn(struct prof_child *c, char *const argv[], char *const envp[])
{
	return prof_child_spawn_flags(c, argv, envp, 0);
}

int prof_child_spawn_flags(struct prof_child *c, char *const argv[], char *const envp[],
			   int flags)
{
	int go[2], err[2];
	char byte;
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) {
		prof_warn_errno("pipe");
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		prof_warn_errno("fork");
		close(go[0]), close(go[1]), close(err[0]), close(err[1]);
		return -1;
	}
	if (pid == 0) {
		int e;

		restore_start_signals();
		/* No stderr to go to: no stdout either, never the result's. */
		if ((flags & PROF_CHILD_STDOUT_TO_STDERR) && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			close(STDOUT_FILENO);
		close(go[1]);
		close(err[0]);
		/* Wait for "go": the parent attaches before the exec. */
		if (read(go[0], &byte, 1) != 1)
			_exit(127);
		close(go[0]);
		if (envp)
			execvpe(argv[0], argv, envp);
		else
			execvp(argv[0], argv);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(e == ENOENT ? 127 : 126);
	}
	close(go[0]);
	close(err[1]);
	c->pid = pid;
	c->go_fd = go[1];
	c->err_fd = err[0];
	return 0;
}

int prof_child_start(struct prof_child *c, const char *name)
{
	int e = 0, status;
	ssize_t n;

	if (write(c->go_fd, "g", 1) != 1)
		prof_warn_errno("cannot start %s", name);
	close(c->go_fd);
	c->go_fd = -1;
	/* EOF (close-on-exec) means exec succeeded; an int means it failed. */
	do
		n = read(c->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	if (n != (ssize_t)sizeof(e))
		return 0;
	errno = e;
	prof_warn_errno("%s", name);
	while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
		;
	return e == ENOENT ? 127 : 126;
}

int prof_exit_status(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return PROF_EXIT_FAIL;
}

int prof_child_wait(pid_t pid, volatile int *stop)
{
	int status;

	for (;;) {
		if (waitpid(pid, &status, 0) == pid)
			return prof_exit_status(status);
		if (errno != EINTR)
			return PROF_EXIT_FAIL;
		if (stop && *stop)
			return -1;
	}
}

/* $PATH, or the C library's default search path (what execvp uses). */
static char *default_search_path(void)
{
	const char *env = getenv("PATH");
	size_t n;
	char *buf;

	if (env)
		return xstrdup(env);
	n = confstr(_CS_PATH, NULL, 0);
	if (n == 0)
		return xstrdup("/bin:/usr/bin");
	buf = xmalloc(n);
	confstr(_CS_PATH, buf, n);
	return buf;
}

static int is_executable_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *prof_path_search(const char *name, const char *path)
{
	char *list, *entry, *next;
	char *found = NULL;

	if (!*name) {
		errno = ENOENT;
		return NULL;
	}
	if (strchr(name, '/'))
		return xstrdup(name);
	list = path ? xstrdup(path) : default_search_path();
	for (entry = list; entry && !found; entry = next) {
		char *full;

		next = strchr(entry, ':');
		if (next)
			*next++ = '\0';
		full = xasprintf("%s/%s", *entry ? entry : ".", name);
		if (is_executable_file(full))
			found = full;
		else
			free(full);
	}
	free(list);
	if (!found)
		errno = ENOENT;
	return found;
}
