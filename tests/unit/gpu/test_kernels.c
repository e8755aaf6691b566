/* Unit tests of lib/gpu/kernels.c: record files written by hand (as
 * libprofgpu-cupti.so writes them) read back into the profgpu-kernels TSV
 * and folded stacks; a cut file, a foreign file, untimed records. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/error.h"
#include "base/xalloc.h"
#include "gpu/kernels.h"
#include "gpu/kernels_format.h"
#include "../unit.h"

static void rec(FILE *f, uint32_t type, const void *a, size_t alen, const void *b, size_t blen)
{
	struct pgk_rec r = { type, (uint32_t)((alen + blen + 7) & ~(size_t)7) };
	static const char zero[8];

	fwrite(&r, sizeof(r), 1, f);
	fwrite(a, alen, 1, f);
	if (blen)
		fwrite(b, blen, 1, f);
	fwrite(zero, r.len - alen - blen, 1, f);
}

static FILE *rec_file(const char *dir, const char *name, uint32_t pid, const char *comm)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "wb");
	struct pgk_header h;

	free(p);
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, PGK_MAGIC, 8);
	h.pid = pid;
	h.cupti_version = 24;
	h.clock_offset = 1000;
	snprintf(h.comm, sizeof(h.comm), "%s", comm);
	fwrite(&h, sizeof(h), 1, f);
	return f;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = xcalloc(1, 65536);

	if (f) {
		if (fread(buf, 1, 65535, f) == 0)
			buf[0] = 0;
		fclose(f);
	}
	return buf;
}

int main(void)
{
	char tmpl[] = "/tmp/test_kernels.XXXXXX", *dir = mkdtemp(tmpl), *tsv, *folded, *t, *s;
	struct prof_gpu_kernels k;
	struct pgk_kernel kr;
	struct pgk_copy cp;
	uint64_t pc = 0x1234, three = 3;
	struct stat st;
	FILE *f;

	if (!dir)
		return 2;
	prof_verbosity = 0;	/* no summary tables */
	tsv = xasprintf("%s.tsv", dir);
	folded = xasprintf("%s.folded", dir);

	/* a process with a launch, a kernel, an untimed kernel, a copy, drops */
	f = rec_file(dir, "100.rec", 100, "tr;ain\t");
	rec(f, PGK_STACK, &(struct pgk_stack){ 1, 1 }, sizeof(struct pgk_stack), &pc, 8);
	rec(f, PGK_LAUNCH, &(struct pgk_launch){ 7, 101, 1, 0 }, sizeof(struct pgk_launch), NULL, 0);
	memset(&kr, 0, sizeof(kr));
	kr.start = 5000;
	kr.end = 8000;
	kr.correlation = 7;
	kr.device = 1;
	kr.grid[0] = kr.grid[1] = kr.grid[2] = 2;
	kr.block[0] = 32, kr.block[1] = kr.block[2] = 1;
	kr.registers = 40;
	kr.static_shared = 16;
	kr.dynamic_shared = 48;
	kr.name_len = 7;
	rec(f, PGK_KERNEL, &kr, sizeof(kr), "_Z3fooi", 7);
	kr.start = 0;		/* CUPTI could not time it */
	rec(f, PGK_KERNEL, &kr, sizeof(kr), "_Z3fooi", 7);
	memset(&cp, 0, sizeof(cp));
	cp.start = 2000;
	cp.end = 2500;
	cp.bytes = 4096;
	cp.kind = 2;
	rec(f, PGK_COPY, &cp, sizeof(cp), NULL, 0);
	rec(f, PGK_DROPPED, &three, 8, NULL, 0);
	rec(f, PGK_END, "", 0, NULL, 0);
	fclose(f);
	/* a process killed while writing: its last record cut short */
	f = rec_file(dir, "200.rec", 200, "cut");
	kr.start = 9000;
	kr.end = 9500;
	kr.correlation = 1;
	kr.name_len = 3;
	rec(f, PGK_KERNEL, &kr, sizeof(kr), "bar", 3);
	fwrite(&(struct pgk_rec){ PGK_KERNEL, 200 }, sizeof(struct pgk_rec), 1, f);
	fwrite(&kr, 16, 1, f);
	fclose(f);
	/* not a record file */
	t = xasprintf("%s/300.rec", dir);
	f = fopen(t, "wb");
	free(t);
	fputs("hello, world: not records\n", f);
	fclose(f);

	memset(&k, 0, sizeof(k));
	k.tsv_path = tsv;
	k.folded_path = folded;
	k.dir = xstrdup(dir);
	k.on = 1;
	TEST("records read back") {
		CHECK(prof_gpu_kernels_finish(&k, 500) == 0);
		t = slurp(tsv);
		s = slurp(folded);
		/* times: + clock offset 1000, - t0 500; the untimed kernel and the cut record left out */
		CHECK_STR(t, "start_ns\tend_ns\tduration_ns\tpid\ttid\tdevice\tcontext\tstream\tkind\tname\t"
			  "grid\tblock\tregisters\tshared_bytes\tbytes\tdirection\tcorrelation\tstack_id\n"
			  "2500\t3000\t500\t100\t0\t0\t0\t0\tmemcpy\t[memcpy DtoH]\t-\t-\t0\t0\t4096\tDtoH\t0\t0\n"
			  "5500\t8500\t3000\t100\t101\t1\t0\t0\tkernel\tfoo(int)\t2,2,2\t32,1,1\t40\t64\t0\t-\t7\t1\n"
			  "9500\t10000\t500\t200\t0\t1\t0\t0\tkernel\tbar\t2,2,2\t32,1,1\t40\t64\t0\t-\t1\t0\n");
		/* the process name made a frame; the stack's pc unknown (no maps) */
		CHECK_STR(s, "cut;[gpu] bar 500\n"
			  "tr:ain_;[gpu] [memcpy DtoH] 500\n"
			  "tr:ain_;[unknown];[launch] cudaLaunchKernel;[gpu] foo(int) 3000\n");
		CHECK(stat(dir, &st) < 0);	/* the records' directory removed */
		free(t);
		free(s);
	}
	unlink(tsv);
	unlink(folded);
	free(tsv);
	free(folded);
	return UNIT_RESULT();
}
