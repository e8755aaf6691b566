/* lib/heap/launch.c: the shim's environment, the "could not record" marker, removal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../unit.h"
#include "base/error.h"
#include "heap/launch.h"

static const char *find(char **env, const char *prefix)
{
	size_t i, n = strlen(prefix), hits = 0;
	const char *found = NULL;

	for (i = 0; env[i]; i++)
		if (!strncmp(env[i], prefix, n))
			found = env[i], hits++;
	return hits == 1 ? found : NULL;
}

int main(void)
{
	char dir[] = "/tmp/test_launch.XXXXXX", path[256];
	struct prof_heap_launch l = {
		.shim = "/x/libprofheap.so", .dir = "/out", .failed = "/out/run-7.failed",
		.run_id = 7, .interval_ns = 10000000, .sample = 524288, .dwarf = 1, .follow_fork = 0,
	};
	char home[] = "HOME=/h", stale[] = "PROFHEAP_DIR=/stale", preload[] = "LD_PRELOAD=/a.so";
	char bin[] = "PATH=/bin";
	char *base[] = { home, stale, preload, bin, NULL };
	char *plain[] = { home, NULL };
	char **env;
	FILE *f;

	prof_set_progname("test_launch");
	if (!mkdtemp(dir))
		return 2;
	TEST("environment: shim preloaded first, PROFHEAP_* replaced, the rest kept") {
		env = prof_heap_env(&l, base);
		CHECK(find(env, "HOME=") == base[0] && find(env, "PATH=") == base[3]);
		CHECK(find(env, "LD_PRELOAD=") && !strcmp(find(env, "LD_PRELOAD="), "LD_PRELOAD=/x/libprofheap.so:/a.so"));
		CHECK(find(env, "PROFHEAP_DIR=") && !strcmp(find(env, "PROFHEAP_DIR="), "PROFHEAP_DIR=/out"));
		CHECK(find(env, "PROFHEAP_RUN=") && !strcmp(find(env, "PROFHEAP_RUN="), "PROFHEAP_RUN=7"));
		CHECK(find(env, "PROFHEAP_INTERVAL=") &&
		      !strcmp(find(env, "PROFHEAP_INTERVAL="), "PROFHEAP_INTERVAL=10000000"));
		CHECK(find(env, "PROFHEAP_SAMPLE=") && !strcmp(find(env, "PROFHEAP_SAMPLE="), "PROFHEAP_SAMPLE=524288"));
		CHECK(find(env, "PROFHEAP_FAILED=") &&
		      !strcmp(find(env, "PROFHEAP_FAILED="), "PROFHEAP_FAILED=/out/run-7.failed"));
		CHECK(find(env, "PROFHEAP_UNWIND=") && !strcmp(find(env, "PROFHEAP_UNWIND="), "PROFHEAP_UNWIND=dwarf"));
		CHECK(find(env, "PROFHEAP_FOLLOW_FORK=") &&
		      !strcmp(find(env, "PROFHEAP_FOLLOW_FORK="), "PROFHEAP_FOLLOW_FORK=0"));
		prof_heap_env_free(env);
	}
	TEST("environment: no LD_PRELOAD before, fp unwinding, follow fork") {
		l.dwarf = 0;
		l.follow_fork = 1;
		env = prof_heap_env(&l, plain);
		CHECK(find(env, "LD_PRELOAD=") && !strcmp(find(env, "LD_PRELOAD="), "LD_PRELOAD=/x/libprofheap.so"));
		CHECK(find(env, "PROFHEAP_UNWIND=") && !strcmp(find(env, "PROFHEAP_UNWIND="), "PROFHEAP_UNWIND=fp"));
		CHECK(find(env, "PROFHEAP_FOLLOW_FORK=") &&
		      !strcmp(find(env, "PROFHEAP_FOLLOW_FORK="), "PROFHEAP_FOLLOW_FORK=1"));
		prof_heap_env_free(env);
		prof_heap_env_free(NULL);
	}
	TEST("failed marker: '0' when made, marked when '1' or gone") {
		snprintf(path, sizeof(path), "%s/run.failed", dir);
		CHECK(prof_heap_failed_create(path) == 0);
		CHECK(prof_heap_failed_marked(path) == 0);
		f = fopen(path, "r+");
		fputc('1', f);
		fclose(f);
		CHECK(prof_heap_failed_marked(path) == 1);
		unlink(path);
		CHECK(prof_heap_failed_marked(path) == 1);
		snprintf(path, sizeof(path), "%s/no/such/dir/run.failed", dir);
		CHECK(prof_heap_failed_create(path) == -1);
	}
	TEST("directory removal takes its files") {
		struct stat st;

		snprintf(path, sizeof(path), "%s/a.heap", dir);
		fclose(fopen(path, "w"));
		snprintf(path, sizeof(path), "%s/b.folded", dir);
		fclose(fopen(path, "w"));
		prof_heap_dir_remove(dir);
		CHECK(stat(dir, &st) < 0);
	}
	return UNIT_RESULT();
}
