#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/xalloc.h"
#include "heap/format.h"
#include "heap/launch.h"
#include "symbolize/binary_info.h"

char *prof_heap_shim_find(void)
{
	static const char *const places[] = { "/libprofheap.so", "/../lib/proftools/libprofheap.so" };
	char self[PATH_MAX], *slash, *p;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	size_t i;

	if (n <= 0)
		return NULL;
	self[n] = 0;
	slash = strrchr(self, '/');
	if (!slash)
		return NULL;
	*slash = 0;
	for (i = 0; i < sizeof(places) / sizeof(places[0]); i++) {
		p = xasprintf("%s%s", self, places[i]);
		if (access(p, R_OK) == 0)
			return p;
		free(p);
	}
	return NULL;
}

/* The entries prof_heap_env() sets itself (and so allocates). */
static int ours(const char *entry)
{
	return !strncmp(entry, "PROFHEAP_", 9) || !strncmp(entry, "LD_PRELOAD=", 11);
}

int prof_heap_env_has_pythonmalloc(char *const *env)
{
	for (; *env; env++)
		if (!strncmp(*env, "PYTHONMALLOC=", 13))
			return 1;
	return 0;
}

char **prof_heap_env(const struct prof_heap_launch *l, char *const *env)
{
	const char *old = NULL;
	size_t n = 0, i, k = 0;
	char **out;

	while (env[n])
		n++;
	out = xcalloc(n + 12, sizeof(*out));
	for (i = 0; i < n; i++) {
		if (!strncmp(env[i], "LD_PRELOAD=", 11))
			old = env[i] + 11;
		if (!ours(env[i]))
			out[k++] = env[i];
	}
	out[k++] = xasprintf("LD_PRELOAD=%s%s%s", l->shim, old && *old ? ":" : "", old ? old : "");
	out[k++] = xasprintf("PROFHEAP_DIR=%s", l->dir);
	out[k++] = xasprintf("PROFHEAP_RUN=%llu", (unsigned long long)l->run_id);
	out[k++] = xasprintf("PROFHEAP_INTERVAL=%llu", (unsigned long long)l->interval_ns);
	out[k++] = xasprintf("PROFHEAP_SAMPLE=%llu", (unsigned long long)l->sample);
	out[k++] = xasprintf("PROFHEAP_FAILED=%s", l->failed);
	out[k++] = xstrdup(l->dwarf ? "PROFHEAP_UNWIND=dwarf" : "PROFHEAP_UNWIND=fp");
	out[k++] = xstrdup(l->follow_fork ? "PROFHEAP_FOLLOW_FORK=1" : "PROFHEAP_FOLLOW_FORK=0");
	if (l->roots)
		out[k++] = xasprintf("PROFHEAP_ROOTS=%s", l->roots);
	if (l->python) {
		out[k++] = xstrdup("PROFHEAP_PYTHON=1");
		/* a literal: not ours() to free; the user's own setting is kept */
		if (!prof_heap_env_has_pythonmalloc(env))
			out[k++] = (char *)"PYTHONMALLOC=malloc";
	}
	out[k] = NULL;
	return out;
}

void prof_heap_env_free(char **env)
{
	size_t i;

	for (i = 0; env && env[i]; i++)
		if (ours(env[i]))
			free(env[i]);
	free(env);
}

int prof_heap_failed_create(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || write(fd, "0", 1) != 1 || fsync(fd) < 0) {
		prof_warn_errno("cannot create '%s'", path);
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		return -1;
	}
	return close(fd);
}

int prof_heap_failed_marked(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char c = '1';

	if (fd >= 0) {
		if (read(fd, &c, 1) != 1)
			c = '1';
		close(fd);
	}
	return c != '0';
}

/* The interpreter a "#!" script names, into buf; 0, or -1 when path is no such script. */
static int script_interpreter(const char *path, char *buf, size_t n)
{
	char line[256], *prog;
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return -1;
	ok = fgets(line, sizeof(line), f) && !strncmp(line, "#!", 2);
	fclose(f);
	if (!ok)
		return -1;
	line[strcspn(line, "\n")] = 0;
	prog = line + 2 + strspn(line + 2, " \t");
	snprintf(buf, n, "%.*s", (int)strcspn(prog, " \t"), prog);
	return buf[0] ? 0 : -1;
}

/* What the ELF headers of prog (a program or a script's interpreter) tell. */
static char *elf_reason(const char *prog, const char *what, char *buf, size_t n)
{
	struct prof_binary_info info, self;

	if (prof_binary_info_read(prog, &info) < 0) {
		if (errno == ENOEXEC)
			snprintf(buf, n, "%s is not an ELF file", what);
		else
			snprintf(buf, n, "%s cannot be read any more: %s", what, strerror(errno));
	} else if (prof_binary_is_static_executable(prog)) {
		snprintf(buf, n, "%s is statically linked: nothing can be preloaded into it", what);
	} else if (prof_binary_info_read("/proc/self/exe", &self) == 0 &&
		   (self.elf_class != info.elf_class || self.machine != info.machine)) {
		snprintf(buf, n, "%s is a %u-bit program or for another machine: the %u-bit shim "
			 "cannot be loaded into it", what, info.elf_class, self.elf_class);
	} else {
		snprintf(buf, n, "the reason is unknown: the shim did not start in it");
	}
	return buf;
}

char *prof_heap_unfollowed_reason(const char *path, uint32_t flags, char *buf, size_t n)
{
	char interp[256], what[300];
	struct stat st;

	if (flags & PH_FLAG_EXEC_NO_FOLLOW) {
		snprintf(buf, n, "--no-follow-fork: the programs it executes are not profiled");
	} else if (flags & PH_FLAG_EXEC_NO_SHIM) {
		snprintf(buf, n, "the environment it was given no longer preloads the shim");
	} else if (stat(path, &st) < 0) {
		snprintf(buf, n, "it cannot be examined any more: %s", strerror(errno));
	} else if (st.st_mode & (S_ISUID | S_ISGID)) {
		snprintf(buf, n, "it is set-%s-ID: the dynamic loader ignores LD_PRELOAD for it",
			 st.st_mode & S_ISUID ? "user" : "group");
	} else if (script_interpreter(path, interp, sizeof(interp)) == 0) {
		snprintf(what, sizeof(what), "its interpreter %s", interp);
		elf_reason(interp, what, buf, n);
	} else {
		elf_reason(path, "it", buf, n);
	}
	return buf;
}

void prof_heap_dir_remove(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (d) {
		while ((e = readdir(d))) {
			char *path;

			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			path = xasprintf("%s/%s", dir, e->d_name);
			if (unlink(path) < 0)
				prof_warn_errno("%s", path);
			free(path);
		}
		closedir(d);
	}
	if (rmdir(dir) < 0 && errno != ENOENT)
		prof_warn_errno("%s", dir);
}
