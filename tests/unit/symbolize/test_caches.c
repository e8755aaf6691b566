/*
 * Unit tests of what the symbolizer reads besides ELF files, through
 * symbolize.h: the on-disk caches (frames per build-id, kallsyms per
 * boot) in a private $XDG_CACHE_HOME, the kernel's symbols and a
 * /tmp/perf-PID.map of this process.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "symbolize/symbolize.h"
#include "../unit.h"

__attribute__((noinline)) int unit_cache_target(int x);
__attribute__((noinline)) int unit_cache_target(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 5 + 2;
}

static char cache_home[] = "/tmp/test_caches.XXXXXX";

/* The first file under dir whose name starts with prefix, into out; 0 if found. */
static int find_file(const char *dir, const char *prefix, char *out, size_t n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int rc = -1;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && strncmp(e->d_name, prefix, strlen(prefix)) == 0) {
			snprintf(out, n, "%s/%s", dir, e->d_name);
			rc = 0;
			break;
		}
	closedir(d);
	return rc;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 20);

	*len = f ? fread(buf, 1, (1 << 20) - 1, f) : 0;
	if (f)
		fclose(f);
	return buf;
}

static void spit(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fwrite(data, 1, len, f);
		fclose(f);
	}
}

static const char *symbolize_own(const struct prof_sym_options *o, uintptr_t addr)
{
	static char name[256];
	struct prof_symbolizer *s = prof_symbolizer_new(o);
	struct prof_addrspace *as = prof_addrspace_new(s, getpid());
	struct prof_frame f[8];
	size_t n;

	name[0] = 0;
	if (prof_addrspace_load_maps(as, "/proc/self/maps") == 0) {
		n = prof_symbolize(s, as, addr, 0, f, 8);
		if (n)
			snprintf(name, sizeof(name), "%s", f[n - 1].name);
	}
	prof_addrspace_free(as);
	prof_symbolizer_free(s);	/* writes the cache */
	return name;
}

/* The address of the kernel function name in /proc/kallsyms, 0 if hidden or absent. */
static uint64_t kallsyms_addr(const char *name)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], want[128];
	unsigned long long a = 0;

	snprintf(want, sizeof(want), " T %s\n", name);
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, want)) {
			a = strtoull(line, NULL, 16);
			break;
		}
	if (f)
		fclose(f);
	return a;
}

int main(void)
{
	struct prof_sym_options o;
	char dir[256], path[512];

	if (!mkdtemp(cache_home)) {
		perror("mkdtemp");
		return 1;
	}
	setenv("XDG_CACHE_HOME", cache_home, 1);
	unsetenv("PROFTOOLS_NO_CACHE");
	prof_sym_options_init(&o);

	TEST("frames cached per build-id and read back") {
		/* The test program has a build-id (the toolchain default). */
		size_t len;
		char *data, *hit;

		CHECK(o.cache == 1);
		CHECK_STR(symbolize_own(&o, (uintptr_t)unit_cache_target), "unit_cache_target");
		snprintf(dir, sizeof(dir), "%s/proftools/sym", cache_home);
		CHECK(find_file(dir, "", path, sizeof(path)) == 0);
		CHECK(strlen(path) > 4 && strcmp(path + strlen(path) - 4, "-101") == 0);
		data = slurp(path, &len);
		CHECK(len > 9 && memcmp(data, "PROFSYM4\n", 9) == 0);
		hit = strstr(data, "\tunit_cache_target\n");
		CHECK(hit != NULL);
		if (hit) {
			/* A later run believes the cache: rename the function in it. */
			memcpy(hit + 1, "unit_cache_RENAME", 17);
			spit(path, data, len);
			CHECK_STR(symbolize_own(&o, (uintptr_t)unit_cache_target), "unit_cache_RENAME");
			o.cache = 0;
			CHECK_STR(symbolize_own(&o, (uintptr_t)unit_cache_target), "unit_cache_target");
			o.cache = 1;
		}
		free(data);
	}
	TEST("a damaged frames cache is ignored") {
		spit(path, "PROFSYM4\nzz\n", 12);
		CHECK_STR(symbolize_own(&o, (uintptr_t)unit_cache_target), "unit_cache_target");
		spit(path, "PROFSYM1\n", 9);
		CHECK_STR(symbolize_own(&o, (uintptr_t)unit_cache_target), "unit_cache_target");
	}
	TEST("kernel symbols, then from the per-boot cache") {
		uint64_t a = kallsyms_addr("schedule");
		struct prof_symbolizer *s = prof_symbolizer_new(&o);
		struct prof_frame f[2];

		if (!a || !prof_symbolizer_kernel_ok(s)) {
			printf("# kallsyms hides addresses: kernel lookups not tested\n");
			prof_symbolizer_free(s);
			break;
		}
		CHECK(prof_symbolize(s, NULL, a + 1, 0, f, 2) == 1);
		CHECK_STR(f[0].name, "schedule");
		CHECK(f[0].flags == PROF_FRAME_KERNEL);
		prof_symbolizer_free(s);
		snprintf(dir, sizeof(dir), "%s/proftools", cache_home);
		CHECK(find_file(dir, "kallsyms-", path, sizeof(path)) == 0);
		s = prof_symbolizer_new(&o);
		CHECK(prof_symbolizer_kernel_ok(s));
		CHECK(prof_symbolize(s, NULL, a + 1, PROF_SYM_KERNEL, f, 2) == 1);
		CHECK_STR(f[0].name, "schedule");
		CHECK(prof_symbolize(s, NULL, 1, PROF_SYM_KERNEL, f, 2) == 1);
		CHECK(f[0].flags == (PROF_FRAME_KERNEL | PROF_FRAME_UNKNOWN));
		CHECK_STR(f[0].name, "[unknown]");
		prof_symbolizer_free(s);
	}
	TEST("JIT code named by /tmp/perf-PID.map, re-read when it changes") {
		struct prof_symbolizer *s = prof_symbolizer_new(&o);
		struct prof_addrspace *as = prof_addrspace_new(s, getpid());
		struct prof_map m = { 0 };
		struct prof_frame f[2];
		struct timespec pause = { 0, 60 * 1000 * 1000 };
		char map[64], text[256];
		unsigned char *code = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int k;

		CHECK(code != MAP_FAILED);
		m.start = (uintptr_t)code;
		m.end = m.start + 8192;
		m.path = "";
		m.prot = PROT_READ | PROT_EXEC;
		prof_addrspace_add_map(as, &m);
		snprintf(map, sizeof(map), "/tmp/perf-%d.map", (int)getpid());
		k = snprintf(text, sizeof(text), "%llx 100 jit_one\n%llx 80 jit two\n",
			     (unsigned long long)m.start, (unsigned long long)m.start + 0x1000);
		spit(map, text, (size_t)k);
		CHECK(prof_symbolize(s, as, m.start + 0x10, 0, f, 2) == 1);
		CHECK_STR(f[0].name, "jit_one");
		CHECK(f[0].flags == 0);
		CHECK(prof_symbolize(s, as, m.start + 0x1040, 0, f, 2) == 1);
		CHECK_STR(f[0].name, "jit two");
		CHECK(prof_symbolize(s, as, m.start + 0x100, 0, f, 2) == 1);
		CHECK_STR(f[0].name, "[unknown]");
		CHECK(f[0].flags == PROF_FRAME_UNKNOWN);
		/* The map grows: seen after the 50 ms between looks. */
		k = snprintf(text, sizeof(text), "%llx 100 jit_one\n%llx 100 jit_later\n",
			     (unsigned long long)m.start, (unsigned long long)m.start + 0x100);
		spit(map, text, (size_t)k);
		nanosleep(&pause, NULL);
		CHECK(prof_symbolize(s, as, m.start + 0x100, 0, f, 2) == 1);
		CHECK_STR(f[0].name, "jit_later");
		unlink(map);
		prof_addrspace_free(as);
		prof_symbolizer_free(s);
		munmap(code, 8192);
	}
	snprintf(path, sizeof(path), "rm -rf '%s'", cache_home);
	if (system(path) != 0)
		printf("# could not remove %s\n", cache_home);
	return UNIT_RESULT();
}
