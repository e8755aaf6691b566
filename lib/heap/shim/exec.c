/*
 * The exec notes of the heap shim (exec.h).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "heap/shim/exec.h"

/* dst = a + b + c when it fits in n bytes; returns 0, else -1 (dst untouched). */
static int join3(char *dst, size_t n, const char *a, size_t la, const char *b, const char *c)
{
	size_t lb = strlen(b), lc = strlen(c);

	if (la + lb + lc + 1 > n)
		return -1;
	memcpy(dst, a, la);
	memcpy(dst + la, b, lb);
	memcpy(dst + la + lb, c, lc + 1);
	return 0;
}

/* 1 if path is a regular file that we may execute (what execvp takes). */
static int is_executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* The first PATH entry holding an executable file, into buf; 0, or -1. */
static int search_path(const char *file, char *buf, size_t n)
{
	const char *path = getenv("PATH"), *p, *end;

	if (!path)
		path = "/bin:/usr/bin";
	for (p = path;; p = end + 1) {
		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		/* an empty entry is the current directory */
		if (join3(buf, n, p, (size_t)(end - p), end == p ? "" : "/", file) == 0 &&
		    is_executable(buf))
			return 0;
		if (!*end)
			return -1;
	}
}

void ph_exec_path(const char *file, int search, char *buf, size_t n)
{
	char found[4096], cwd[4096];
	const char *path = file ? file : "";
	size_t len;

	if (!n)
		return;
	if (search && *path && !strchr(path, '/') && search_path(path, found, sizeof(found)) == 0)
		path = found;
	if (path[0] != '/' && getcwd(cwd, sizeof(cwd)) &&
	    join3(buf, n, cwd, strlen(cwd), "/", path[0] == '.' && path[1] == '/' ? path + 2 : path) == 0)
		return;
	len = strlen(path);
	if (len >= n)
		len = n - 1;	/* too long: cut, it still says what it was */
	memcpy(buf, path, len);
	buf[len] = 0;
}

int ph_exec_env_keeps_shim(char *const envp[])
{
	int preload = 0, dir = 0;

	for (; envp && *envp; envp++) {
		if (!strncmp(*envp, "LD_PRELOAD=", 11) && strstr(*envp + 11, "libprofheap.so"))
			preload = 1;
		else if (!strncmp(*envp, "PROFHEAP_DIR=", 13) && (*envp)[13])
			dir = 1;
	}
	return preload && dir;
}
