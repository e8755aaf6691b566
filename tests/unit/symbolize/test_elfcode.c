/*
 * symbolize/elfcode: this test program's own functions, their bytes, the
 * offset <-> address translation; not-ELF and truncated files refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "symbolize/elfcode.h"
#include "../unit.h"

__attribute__((noinline)) int unit_elfcode_probe(int x);
__attribute__((noinline)) int unit_elfcode_probe(int x)
{
	return x * 3 + 1;
}

static void put(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fwrite(data, 1, n, f);
		fclose(f);
	}
}

int main(void)
{
	char err[256], exe[4096], cut[] = "/tmp/test_elfcode.XXXXXX";
	const struct prof_elfcode_func *f;
	struct prof_elfcode *c;
	uint64_t off, va;
	unsigned char head[100];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *in;
	int fd;

	if (n <= 0)
		return 1;
	exe[n] = 0;
	c = prof_elfcode_open(exe, err, sizeof(err));
	TEST("its own functions: by name, by address, their bytes") {
		CHECK(c != NULL);
		if (!c)
			break;
		f = prof_elfcode_find(c, "unit_elfcode_probe");
		CHECK(f && f->size > 0);
		if (!f)
			break;
		CHECK(prof_elfcode_at(c, f->addr) == f && prof_elfcode_at(c, f->addr + f->size - 1) == f);
		CHECK(prof_elfcode_bytes(c, f->addr, f->size) != NULL);
		CHECK(prof_elfcode_bytes(c, f->addr, 1ull << 40) == NULL);
		CHECK(prof_elfcode_vaddr_to_off(c, f->addr, &off) == 0 &&
		      prof_elfcode_off_to_vaddr(c, off, &va) == 0 && va == f->addr);
		CHECK(prof_elfcode_has_symtab(c) && prof_elfcode_find(c, "no_such_function") == NULL);
		/* by name, one function: found, then no other */
		CHECK(prof_elfcode_find_named(c, "unit_elfcode_probe", NULL) == f &&
		      prof_elfcode_find_named(c, "unit_elfcode_probe", f) == NULL);
		CHECK(prof_elfcode_find_named(c, "no_such_function", NULL) == NULL);
	}
	prof_elfcode_close(c);
	TEST("not ELF, truncated ELF, missing file: NULL and why") {
		CHECK(prof_elfcode_open("/proc/self/status", err, sizeof(err)) == NULL);
		CHECK_STR(err, "not an ELF file");
		in = fopen(exe, "r");
		CHECK(in && fread(head, 1, sizeof(head), in) == sizeof(head));
		if (in)
			fclose(in);
		fd = mkstemp(cut);
		if (fd >= 0)
			close(fd);
		put(cut, head, sizeof(head));
		CHECK(prof_elfcode_open(cut, err, sizeof(err)) == NULL);
		CHECK_STR(err, "truncated or malformed ELF file");
		unlink(cut);
		CHECK(prof_elfcode_open("/nonexistent/x", err, sizeof(err)) == NULL);
		CHECK(strstr(err, "No such file") != NULL);
	}
	return UNIT_RESULT() + unit_elfcode_probe(0) - 1;
}
