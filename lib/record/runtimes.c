/*
 * Runtimes' perf support in a command's environment (runtimes.h).
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/hashmap.h"
#include "record/runtimes.h"

/* name=OLD WORD, or name=WORD when unset or empty. */
static void append_word(const char *name, const char *old, const char *word)
{
	struct prof_buf b = PROF_BUF_INIT;

	if (old && *old)
		prof_buf_addf(&b, "%s ", old);
	prof_buf_addstr(&b, word);
	setenv(name, prof_buf_cstr(&b), 1);
	prof_buf_release(&b);
}

const char *prof_runtime_perf_enable(void)
{
	static char names[32];
	const char *node = getenv("NODE_OPTIONS"), *java = getenv("JAVA_TOOL_OPTIONS");

	names[0] = 0;
	if (!getenv("PYTHONPERFSUPPORT")) {
		setenv("PYTHONPERFSUPPORT", "1", 1);
		strcat(names, "python");
	}
	if (!node || !strstr(node, "--perf-")) {
		append_word("NODE_OPTIONS", node, "--perf-basic-prof --interpreted-frames-native-stack");
		strcat(names, names[0] ? ",node" : "node");
	}
	if (!java || !strstr(java, "PreserveFramePointer")) {
		append_word("JAVA_TOOL_OPTIONS", java, PROF_RUNTIME_JAVA_OPTIONS);
		strcat(names, names[0] ? ",java" : "java");
	}
	return names[0] ? names : NULL;
}

/*
 * Remove path when it is a regular file that appeared since started and
 * pid, the process that wrote it, is gone (a running one may still write
 * it). Returns 1 when removed.
 */
static int remove_left_by(const char *path, int pid, double started)
{
	struct stat st;

	if (pid <= 0 || lstat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (double)st.st_ctime + 1 < started)
		return 0;
	if (kill(pid, 0) == 0 || errno != ESRCH)
		return 0;
	return unlink(path) == 0;
}

int prof_runtime_perf_remove_maps(const char *names, double started,
				  const struct prof_hashmap *pids)
{
	DIR *d;
	struct dirent *e;
	int removed = 0;

	if (!names || strcmp(names, "python,node,java") != 0 || !(d = opendir("/tmp")))
		return 0;
	while ((e = readdir(d))) {
		char path[300];
		int pid, end = 0;

		if (sscanf(e->d_name, "perf-%d.map%n", &pid, &end) != 1 || e->d_name[end] ||
		    !prof_hashmap_get(pids, (uint64_t)pid))
			continue;
		snprintf(path, sizeof(path), "/tmp/%s", e->d_name);
		removed += remove_left_by(path, pid, started);
	}
	closedir(d);
	return removed;
}

int prof_runtime_perf_cleanup(const char *names, double started)
{
	DIR *d;
	struct dirent *e;
	int removed = 0;

	if (!names || !strstr(names, "node") || !(d = opendir(".")))
		return 0;
	while ((e = readdir(d))) {
		unsigned long long addr;
		int pid, end = 0;

		if (sscanf(e->d_name, "isolate-0x%llx-%d-v8.log%n", &addr, &pid, &end) == 2 &&
		    !e->d_name[end])
			removed += remove_left_by(e->d_name, pid, started);
	}
	closedir(d);
	return removed;
}
