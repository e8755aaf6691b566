#ifndef PROF_PROC_H
#define PROF_PROC_H
/*
 * Running a command the way env(1) and time(1) do, for the tools that
 * profile one (profrec, profheap, profgpu).
 *
 * Exit status convention: the tool exits with the command's status;
 * 126 if it could not be executed, 127 if it was not found, 128+N if
 * signal N killed it.
 */
#include <signal.h>
#include <sys/types.h>

struct prof_child {
	pid_t pid;
	int go_fd;		/* write end: the child waits for "go" */
	int err_fd;		/* read end: exec errno from the child */
};

/*
 * Fork a child that will exec argv[0] (searched in PATH) with envp (NULL:
 * the current environment) but waits until prof_child_start() so the
 * caller can attach to it first. The child gets back the signal
 * dispositions (ignored or default) and signal mask the tool itself
 * started with, whatever the tool changed since: the command runs as it
 * would without the tool. Returns 0, or -1 after reporting.
 */
int prof_child_spawn(struct prof_child *c, char *const argv[], char *const envp[]);

/* prof_child_spawn() flag: the command's stdout is the tool's stderr. */
#define PROF_CHILD_STDOUT_TO_STDERR 1

/*
 * prof_child_spawn() with flags. A tool whose result goes to its standard
 * output passes PROF_CHILD_STDOUT_TO_STDERR, so that "tool -- app | next"
 * never mixes what the program prints into the result.
 */
int prof_child_spawn_flags(struct prof_child *c, char *const argv[], char *const envp[],
			   int flags);

/*
 * Let the child exec. Returns 0 if exec succeeded; otherwise reports
 * "prog: NAME: strerror", reaps the child, and returns 126 or 127.
 */
int prof_child_start(struct prof_child *c, const char *name);

/*
 * Whether sig was ignored when the tool started, and so is in a command
 * it runs (unless the command changes it): passing it on would not stop
 * the command.
 */
int prof_signal_ignored_at_start(int sig);

/*
 * The signals a tool reads, taken so that no thread can lose them.
 *
 * A library the tool loads may start threads (libnvidia-ml starts one
 * in nvmlInit, libdw's debuginfod client and CUDA may too). A signal
 * sent to the process goes to any thread that does not block it: one
 * with the default action taken there is lost (SIGCHLD) or kills the
 * process (SIGTERM) while the main thread waits on its signalfd. So
 * prof_sigwatch_start(), called before any library is loaded or
 * initialised:
 *  - blocks the signals in the calling thread, so that every thread
 *    started after it inherits the block; they stay pending for the
 *    signalfd (sigfd);
 *  - installs a handler for each, which writes the signal to a pipe
 *    (pipe_rd): a thread that unblocks signals itself runs the handler
 *    instead of the default action, and the signal still reaches the
 *    tool's loop.
 * The child of prof_child_spawn() gets back the mask and dispositions
 * the tool started with (a SIGINT ignored in a shell's background job is
 * ignored by the command, while the tool, asked by kill, still stops).
 */
struct prof_sigwatch {
	int sigfd;		/* signalfd of the blocked signals */
	int pipe_rd;		/* what the handlers wrote */
	sigset_t set;		/* the signals watched */
};

/*
 * Watch the signals of sigs (a list ended by 0) as above. Poll sigfd and
 * pipe_rd for POLLIN; read with prof_sigwatch_next(). One watch per
 * process. Dies on failure (signalfd, pipe: out of descriptors).
 */
void prof_sigwatch_start(struct prof_sigwatch *w, const int *sigs);

/*
 * The next signal received, or 0 when none is pending (never blocks).
 * *from_user (may be NULL) becomes 1 when the signal was sent by a
 * process (kill(2), SI_USER or SI_QUEUE), 0 when the kernel or the
 * terminal raised it (^C).
 */
int prof_sigwatch_next(struct prof_sigwatch *w, int *from_user);

/* Close the descriptors; the signals stay blocked and caught. */
void prof_sigwatch_close(struct prof_sigwatch *w);

/*
 * A pidfd of pid (pidfd_open(2)): readable when pid exits, however the
 * signals go; poll it to notice the command's end without relying on
 * SIGCHLD. -1 on kernels before 5.3 (the caller then polls with a
 * timeout and waitpid(WNOHANG)).
 */
int prof_child_pidfd(pid_t pid);

/* Exit status for a wait() status: code, or 128 + signal number. */
int prof_exit_status(int wstatus);

/*
 * Wait for pid, retrying on EINTR unless *stop becomes nonzero (stop may
 * be NULL). Returns the exit status as prof_exit_status(), or -1 if
 * interrupted by *stop.
 */
int prof_child_wait(pid_t pid, volatile int *stop);

/*
 * The file execvp(3) runs for name, so a tool can look at it before the
 * exec (profheap refuses static executables): name itself (a copy) when
 * it holds a '/'; else the first entry of path, a PATH-style list (NULL:
 * $PATH, or when that is unset the C library's default, as execvp does),
 * where name is an executable regular file. An empty entry means the
 * current directory ("./name" is returned). Returns a malloc'ed path the caller frees, or NULL
 * (errno ENOENT) when name is empty or found nowhere.
 */
char *prof_path_search(const char *name, const char *path);

#endif
