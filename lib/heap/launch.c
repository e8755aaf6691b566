#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/xalloc.h"
#include "heap/launch.h"

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

char **prof_heap_env(const struct prof_heap_launch *l, char *const *env)
{
	const char *old = NULL;
	size_t n = 0, i, k = 0;
	char **out;

	while (env[n])
		n++;
	out = xcalloc(n + 9, sizeof(*out));
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
