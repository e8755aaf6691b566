/*
 * lib/heap/launch.c: the shim's environment, the "could not record"
 * marker, why an exec'd program went unprofiled, removal.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../unit.h"
#include "base/error.h"
#include "heap/format.h"
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

/* An ELF file at path: class 32 or 64, one program header of type phdr. */
static void write_elf(const char *path, unsigned elf_class, uint32_t phdr)
{
	unsigned char file[sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr)] = { 0 };
	Elf64_Ehdr *e64 = (Elf64_Ehdr *)file;
	Elf32_Ehdr *e32 = (Elf32_Ehdr *)file;
	FILE *f = fopen(path, "wb");

	memcpy(file, ELFMAG, SELFMAG);
	file[EI_CLASS] = elf_class == 64 ? ELFCLASS64 : ELFCLASS32;
	file[EI_DATA] = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
	if (elf_class == 64) {
		e64->e_type = ET_EXEC;
		e64->e_phoff = sizeof(*e64);
		e64->e_phnum = 1;
		e64->e_phentsize = sizeof(Elf64_Phdr);
		((Elf64_Phdr *)(file + sizeof(*e64)))->p_type = phdr;
	} else {
		e32->e_type = ET_EXEC;
		e32->e_phoff = sizeof(*e32);
		e32->e_phnum = 1;
		e32->e_phentsize = sizeof(Elf32_Phdr);
		((Elf32_Phdr *)(file + sizeof(*e32)))->p_type = phdr;
	}
	fwrite(file, 1, sizeof(file), f);
	fclose(f);
}

/* Why path went unprofiled. */
static const char *reason(const char *path, uint32_t flags)
{
	static char buf[512];

	return prof_heap_unfollowed_reason(path, flags, buf, sizeof(buf));
}

static void test_unfollowed(const char *dir)
{
	char prog[256], script[256], expect[600];
	FILE *f;

	snprintf(prog, sizeof(prog), "%s/prog", dir);
	snprintf(script, sizeof(script), "%s/script", dir);
	TEST("unfollowed exec: --no-follow-fork, environment without the shim, before anything else") {
		CHECK_STR(reason("/nonexistent", PH_FLAG_EXEC | PH_FLAG_EXEC_NO_FOLLOW),
			  "--no-follow-fork: the programs it executes are not profiled");
		CHECK_STR(reason("/nonexistent", PH_FLAG_EXEC | PH_FLAG_EXEC_NO_SHIM),
			  "the environment it was given no longer preloads the shim");
	}
	TEST("unfollowed exec: a program that is gone") {
		CHECK_STR(reason("/nonexistent/prog", PH_FLAG_EXEC),
			  "it cannot be examined any more: No such file or directory");
	}
	TEST("unfollowed exec: static, set-user-ID, another class, not ELF, unknown") {
		write_elf(prog, 64, PT_LOAD);
		CHECK_STR(reason(prog, PH_FLAG_EXEC), "it is statically linked: nothing can be preloaded into it");
		chmod(prog, 04755);
		CHECK_STR(reason(prog, PH_FLAG_EXEC), "it is set-user-ID: the dynamic loader ignores LD_PRELOAD for it");
		chmod(prog, 02755);
		CHECK_STR(reason(prog, PH_FLAG_EXEC), "it is set-group-ID: the dynamic loader ignores LD_PRELOAD for it");
		chmod(prog, 0755);
		write_elf(prog, sizeof(void *) == 8 ? 32 : 64, PT_INTERP);
		snprintf(expect, sizeof(expect), "it is a %u-bit program or for another machine: the %u-bit "
			 "shim cannot be loaded into it", sizeof(void *) == 8 ? 32u : 64u,
			 (unsigned)sizeof(void *) * 8);
		CHECK_STR(reason(prog, PH_FLAG_EXEC), expect);
		f = fopen(prog, "w");
		fputs("plain text\n", f);
		fclose(f);
		CHECK_STR(reason(prog, PH_FLAG_EXEC), "it is not an ELF file");
		CHECK_STR(reason("/proc/self/exe", PH_FLAG_EXEC),
			  "the reason is unknown: the shim did not start in it");
	}
	TEST("unfollowed exec: a script is judged by its interpreter") {
		write_elf(prog, 64, PT_LOAD);
		f = fopen(script, "w");
		fprintf(f, "#! %s -x\necho\n", prog);
		fclose(f);
		snprintf(expect, sizeof(expect),
			 "its interpreter %s is statically linked: nothing can be preloaded into it", prog);
		CHECK_STR(reason(script, PH_FLAG_EXEC), expect);
		f = fopen(script, "w");
		fprintf(f, "#!/nonexistent/sh\n");
		fclose(f);
		CHECK_STR(reason(script, PH_FLAG_EXEC),
			  "its interpreter /nonexistent/sh cannot be read any more: No such file or directory");
	}
	unlink(prog);
	unlink(script);
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
	test_unfollowed(dir);
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
