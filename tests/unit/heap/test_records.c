/* Unit tests of the profheap record file reader (lib/heap/records.c). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "heap/records.h"
#include "../unit.h"

#define FILE_SIZE (1u << 20)

static char *image;

static uint64_t put(uint64_t *used, const void *p, size_t n)
{
	uint64_t off = *used;

	memcpy(image + off, p, n);
	*used += (n + 63) & ~(size_t)63;
	return off;
}

/* A record file: stack 0 empty, stack 1 two frames; threads A and B. */
static void build(int pending, uint64_t count_unit, uint64_t bad_thread)
{
	struct ph_header *h;
	uint64_t used, dir, s0, s1, ca, cb, ta, tb;
	uint64_t stack1[2 + 2] = { 0, 2, 0x401000, 0x402000 };
	struct ph_counters a[2], b[2];
	struct ph_thread t;

	memset(image, 0, FILE_SIZE);
	h = (struct ph_header *)image;
	memcpy(h->magic, PH_MAGIC, 8);
	h->version = PH_VERSION;
	h->header_size = sizeof(*h);
	h->count_unit = count_unit;
	used = (sizeof(*h) + 63) & ~(uint64_t)63;
	dir = used;
	used += PH_DIR_CHUNK * 8;
	stack1[1] = 0;
	s0 = put(&used, stack1, 16);		/* depth 0 */
	stack1[1] = 2;
	s1 = put(&used, stack1, sizeof(stack1));
	((uint64_t *)(image + dir))[0] = s0;
	((uint64_t *)(image + dir))[1] = s1;
	h->stack_dir[0] = dir;
	h->nstacks = 2;
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	a[1].alloc_bytes = 100;
	a[1].alloc_count = 3 * count_unit;
	a[1].live_bytes = 60;
	a[1].live_blocks = 2 * count_unit;
	a[1].peak_bytes = 80;
	a[1].gen = 1;
	a[1].temp_count = count_unit;
	b[1].live_bytes = -10;
	b[1].live_blocks = -1 * (int64_t)count_unit;
	b[1].gen = 0;
	ca = put(&used, a, sizeof(a));
	cb = put(&used, b, sizeof(b));
	memset(&t, 0, sizeof(t));
	t.counters = ca;
	t.cap = 2;
	ta = put(&used, &t, sizeof(t));
	t.counters = cb;
	tb = put(&used, &t, sizeof(t));
	h->threads[0] = ta;
	h->threads[1] = bad_thread ? bad_thread : tb;
	h->nthreads = 2;
	h->peak_gen = 1;
	h->peak_pending = (uint64_t)pending;
	h->used = used;
}

static int write_image(const char *path)
{
	FILE *f = fopen(path, "wb");
	int ok = f && fwrite(image, 1, FILE_SIZE, f) == FILE_SIZE;

	if (f && fclose(f) != 0)
		ok = 0;
	return ok ? 0 : -1;
}

int main(void)
{
	char path[] = "/tmp/test_heapfile.XXXXXX";
	int fd = mkstemp(path);
	struct prof_heapfile f;
	struct prof_heap_site s[2];
	const uint64_t *pcs;
	size_t depth;

	image = calloc(1, FILE_SIZE);
	if (fd < 0 || !image)
		return 1;
	close(fd);

	TEST("sums threads; peak from the snapshot or the live value by generation") {
		build(0, 1, 0);
		CHECK(write_image(path) == 0);
		CHECK(prof_heapfile_open(&f, path) == 0);
		CHECK(f.nstacks == 2);
		prof_heapfile_sum(&f, s);
		CHECK(s[1].alloc_bytes == 100 && s[1].alloc_count == 3);
		CHECK(s[1].live_bytes == 50 && s[1].live_blocks == 1);
		CHECK(s[1].peak_bytes == 70);	/* 80 (A, snapshot) + -10 (B, unchanged since) */
		CHECK(s[1].temp_count == 1);
		CHECK(s[0].alloc_count == 0);
		pcs = prof_heapfile_stack(&f, 1, &depth);
		CHECK(pcs && depth == 2 && pcs[0] == 0x401000 && pcs[1] == 0x402000);
		pcs = prof_heapfile_stack(&f, 0, &depth);
		CHECK(pcs && depth == 0);
		CHECK(!prof_heapfile_stack(&f, 2, &depth) && depth == 0);
		CHECK(f.damaged == 0);
		prof_heapfile_close(&f);
	}
	TEST("a maximum not followed by a drop: the peak is the current state") {
		build(1, 1, 0);
		CHECK(write_image(path) == 0);
		CHECK(prof_heapfile_open(&f, path) == 0);
		prof_heapfile_sum(&f, s);
		CHECK(s[1].peak_bytes == 50);
		prof_heapfile_close(&f);
	}
	TEST("sampled counts are divided by the count unit") {
		build(0, 65536, 0);
		CHECK(write_image(path) == 0);
		CHECK(prof_heapfile_open(&f, path) == 0);
		prof_heapfile_sum(&f, s);
		CHECK(s[1].alloc_count == 3 && s[1].live_blocks == 1 && s[1].temp_count == 1);
		prof_heapfile_close(&f);
	}
	TEST("a thread record out of range is left out and counted") {
		build(0, 1, (uint64_t)FILE_SIZE * 4);
		CHECK(write_image(path) == 0);
		CHECK(prof_heapfile_open(&f, path) == 0);
		prof_heapfile_sum(&f, s);
		CHECK(f.damaged == 1);
		CHECK(s[1].live_bytes == 60);
		prof_heapfile_close(&f);
	}
	TEST("--python frames: named from their record; out of range or malformed: NULL") {
		struct ph_header *h;
		struct ph_pyframe *r;
		uint64_t at, bad;
		const char *name;
		size_t len;

		build(0, 1, 0);
		h = (struct ph_header *)image;
		at = h->used;
		r = (struct ph_pyframe *)(image + at);
		r->len = (uint32_t)strlen("py::leaf (a.py:3)");
		memcpy(r->name, "py::leaf (a.py:3)", r->len + 1);
		bad = at + 64;		/* a record that says it is longer than the file */
		r = (struct ph_pyframe *)(image + bad);
		r->len = 1u << 30;
		memcpy(r->name, "py::x", 6);
		h->used = at + 128;
		CHECK(write_image(path) == 0);
		CHECK(prof_heapfile_open(&f, path) == 0);
		name = prof_heapfile_pyframe(&f, PH_PC_PYTHON | at, &len);
		CHECK(name && len == 17 && !strcmp(name, "py::leaf (a.py:3)"));
		CHECK(!prof_heapfile_pyframe(&f, at, &len) && len == 0);	/* not a Python pc */
		CHECK(!prof_heapfile_pyframe(&f, PH_PC_PYTHON | bad, &len));
		CHECK(!prof_heapfile_pyframe(&f, PH_PC_PYTHON | (at + 2), &len));	/* misaligned */
		CHECK(!prof_heapfile_pyframe(&f, PH_PC_PYTHON | (at + 8), &len));	/* no "py::" */
		CHECK(!prof_heapfile_pyframe(&f, PH_PC_PYTHON | ((uint64_t)FILE_SIZE * 4), &len));
		CHECK(!prof_heapfile_pyframe(&f, PH_PC_PYTHON | 8, &len));	/* the header */
		prof_heapfile_close(&f);
	}
	TEST("not a record file is refused") {
		build(0, 1, 0);
		memcpy(image, "NOTHEAP!", 8);
		CHECK(write_image(path) == 0);
		CHECK(prof_heapfile_open(&f, path) == -1);
	}
	unlink(path);
	free(image);
	return UNIT_RESULT();
}
