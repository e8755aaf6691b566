/*
 * The interposed exec family (internal.h).
 *
 * A process that calls exec leaves no exit behind: its record would read
 * as a death, its live blocks as leaks. So the exec family notes the
 * program in the header first (exec.h), with the timeline and the
 * mappings brought up to date as at exit; a new image that loads the shim
 * starts PID.N.heap, one that cannot (static, set-user-ID, a scrubbed
 * environment) is then named by the report. posix_spawn and system()
 * exec in a new process, through the C library's internal calls: nothing
 * to note there.
 */
#include <alloca.h>
#include <errno.h>
#include <stdarg.h>
#include <unistd.h>

#include "heap/shim/exec.h"
#include "heap/shim/internal.h"

/* Returns 1 if the note was taken (exec_failed() must undo it if exec returns). */
static int exec_note(const char *file, int search, char *const envp[])
{
	uint32_t flags = PH_FLAG_EXEC;

	/* Not ours to note: a child of vfork shares our memory, record file included. */
	if (!__atomic_load_n(&ph_active, ACQUIRE) || T.guard || H->pid != (int32_t)getpid())
		return 0;
	T.guard++;
	ph_exec_path(file, search, H->exec_path, sizeof(H->exec_path));
	if (!ph_follow_fork)
		flags |= PH_FLAG_EXEC_NO_FOLLOW;	/* disable_env() dropped the shim */
	else if (!ph_exec_env_keeps_shim(envp))
		flags |= PH_FLAG_EXEC_NO_SHIM;
	ph_timeline_row(0);
	ph_save_maps();
	H->end_ns = ph_now_ns();
	__atomic_fetch_or(&H->flags, flags, RELAXED);
	T.guard--;
	return 1;
}

/* exec returned: the image goes on. */
static void exec_failed(int noted)
{
	if (!noted)
		return;
	__atomic_fetch_and(&H->flags, ~(PH_FLAG_EXEC | PH_FLAG_EXEC_NO_SHIM | PH_FLAG_EXEC_NO_FOLLOW),
			   RELAXED);
	H->end_ns = 0;
}

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	int noted, r, e;

	noted = exec_note(path, 0, envp);
	r = ph_real.execve ? ph_real.execve(path, argv, envp) : (errno = ENOSYS, -1);
	e = errno;
	exec_failed(noted);
	errno = e;
	return r;
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	int noted, r, e;

	noted = exec_note(file, 1, envp);
	r = ph_real.execvpe ? ph_real.execvpe(file, argv, envp) : (errno = ENOSYS, -1);
	e = errno;
	exec_failed(noted);
	errno = e;
	return r;
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	char link[64], num[32], path[4096];
	ssize_t l;
	int noted, r, e;

	ph_cat(link, sizeof(link), "/proc/self/fd/", ph_utoa(num + 32, (uint64_t)(fd < 0 ? 0 : fd)), "");
	l = readlink(link, path, sizeof(path) - 1);
	path[l > 0 ? l : 0] = 0;
	noted = exec_note(path, 0, envp);
	r = ph_real.fexecve ? ph_real.fexecve(fd, argv, envp) : (errno = ENOSYS, -1);
	e = errno;
	exec_failed(noted);
	errno = e;
	return r;
}

/* The C library's own execv, execvp and execl* call its internal execve: wrap them too. */
EXPORT int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

EXPORT int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

/* The arguments of an execl* call, arg0 included, up to the NULL. */
static size_t count_args(va_list *ap)
{
	size_t n = 1;

	while (va_arg(*ap, const char *))
		n++;
	return n;
}

/* argv[0..n] from arg0 and the n - 1 arguments and the NULL that follow in *ap. */
static void fill_args(char **argv, size_t n, const char *arg0, va_list *ap)
{
	size_t i;

	argv[0] = (char *)arg0;
	for (i = 1; i <= n; i++)
		argv[i] = va_arg(*ap, char *);
}

/*
 * argv on the stack, as the C library builds it (exec must not allocate
 * after vfork); arg0 is never NULL, as the C library assumes.
 */
#define EXECL_ARGV(argv, arg0, ap) do {					\
		va_list c_;						\
		size_t n_;						\
		va_copy(c_, ap);					\
		n_ = count_args(&c_);					\
		va_end(c_);						\
		argv = alloca((n_ + 1) * sizeof(char *));		\
		fill_args(argv, n_, arg0, &ap);				\
	} while (0)

EXPORT int execl(const char *path, const char *arg0, ...)
{
	va_list ap;
	char **argv;

	va_start(ap, arg0);
	EXECL_ARGV(argv, arg0, ap);
	va_end(ap);
	return execve(path, argv, environ);
}

EXPORT int execlp(const char *file, const char *arg0, ...)
{
	va_list ap;
	char **argv;

	va_start(ap, arg0);
	EXECL_ARGV(argv, arg0, ap);
	va_end(ap);
	return execvpe(file, argv, environ);
}

EXPORT int execle(const char *path, const char *arg0, ...)
{
	va_list ap;
	char **argv, *const *envp;

	va_start(ap, arg0);
	EXECL_ARGV(argv, arg0, ap);
	envp = va_arg(ap, char *const *);	/* after the NULL */
	va_end(ap);
	return execve(path, argv, envp);
}
