/*
 * Reading profheap record files (heapfile.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "heap/records.h"

int prof_heapfile_open(struct prof_heapfile *f, const char *path)
{
	struct stat st;
	void *m;
	const struct ph_header *h;

	memset(f, 0, sizeof(*f));
	f->path = path;
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0) {
		prof_warn_errno("%s", path);
		return -1;
	}
	if (fstat(f->fd, &st) < 0) {
		prof_warn_errno("%s", path);
		goto fail;
	}
	if ((uint64_t)st.st_size < sizeof(struct ph_header)) {
		prof_warn("%s: not a profheap record file (too short)", path);
		goto fail;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED | MAP_NORESERVE, f->fd, 0);
	if (m == MAP_FAILED) {
		prof_warn_errno("%s: mmap", path);
		goto fail;
	}
	f->map_len = (size_t)st.st_size;
	f->base = m;
	f->h = h = m;
	if (memcmp(h->magic, PH_MAGIC, 8) != 0) {
		prof_warn("%s: not a profheap record file", path);
		goto fail_unmap;
	}
	if (h->version != PH_VERSION || h->header_size != sizeof(*h)) {
		prof_warn("%s: record file version %u, expected %u", path, h->version, PH_VERSION);
		goto fail_unmap;
	}
	f->size = h->used < (uint64_t)st.st_size ? h->used : (uint64_t)st.st_size;
	f->nstacks = h->nstacks < PH_MAX_STACKS ? (size_t)h->nstacks : PH_MAX_STACKS;
	if (h->count_unit == 0) {
		prof_warn("%s: corrupt header (count unit 0)", path);
		goto fail_unmap;
	}
	return 0;
fail_unmap:
	munmap(m, f->map_len);
fail:
	close(f->fd);
	f->fd = -1;
	f->h = NULL;
	return -1;
}

void prof_heapfile_close(struct prof_heapfile *f)
{
	if (f->h)
		munmap((void *)f->base, f->map_len);
	if (f->fd >= 0)
		close(f->fd);
	f->h = NULL;
	f->fd = -1;
}

/* Nonzero if [off, off + len) lies in the used part of the file. */
static int in_range(const struct prof_heapfile *f, uint64_t off, uint64_t len)
{
	return off >= sizeof(struct ph_header) && off <= f->size && len <= f->size - off;
}

const uint64_t *prof_heapfile_stack(struct prof_heapfile *f, size_t id, size_t *depth)
{
	uint64_t dir, off;
	const struct ph_stack *r;

	*depth = 0;
	if (id >= f->nstacks)
		return NULL;
	dir = f->h->stack_dir[id / PH_DIR_CHUNK];
	if (!in_range(f, dir, (uint64_t)PH_DIR_CHUNK * 8))
		return NULL;
	off = ((const uint64_t *)(f->base + dir))[id % PH_DIR_CHUNK];
	if (!in_range(f, off, sizeof(*r)))
		return NULL;
	r = (const struct ph_stack *)(f->base + off);
	if (r->depth > PH_MAX_DEPTH || !in_range(f, off, sizeof(*r) + (uint64_t)r->depth * 8))
		return NULL;
	*depth = r->depth;
	return r->pcs;
}

const char *prof_heapfile_pyframe(const struct prof_heapfile *f, uint64_t pc, size_t *len)
{
	uint64_t off = pc & ~PH_PC_PYTHON;
	const struct ph_pyframe *r;

	*len = 0;
	/* the shim's arena hands out 64-byte aligned records */
	if (!(pc & PH_PC_PYTHON) || (off & 7) || !in_range(f, off, sizeof(*r)))
		return NULL;
	r = (const struct ph_pyframe *)(f->base + off);
	if (r->len < 5 || !in_range(f, off, sizeof(*r) + (uint64_t)r->len + 1) || r->name[r->len] ||
	    memcmp(r->name, "py::", 4) != 0 || memchr(r->name, 0, r->len))
		return NULL;
	*len = r->len;
	return r->name;
}

int prof_heapfile_sum(struct prof_heapfile *f, struct prof_heap_site *sites)
{
	const struct ph_header *h = f->h;
	uint64_t gen = h->peak_gen + (h->peak_pending ? 1 : 0);
	double unit = (double)h->count_unit;
	uint32_t i, n = h->nthreads < PH_MAX_THREADS ? h->nthreads : PH_MAX_THREADS;

	memset(sites, 0, f->nstacks * sizeof(*sites));
	for (i = 0; i < n; i++) {
		const struct ph_thread *th;
		const struct ph_counters *c;
		uint64_t cap, k;

		if (!h->threads[i])
			continue;
		if (!in_range(f, h->threads[i], sizeof(*th))) {
			f->damaged++;
			continue;
		}
		th = (const struct ph_thread *)(f->base + h->threads[i]);
		cap = th->cap;
		if (!cap)
			continue;
		if (cap > PH_MAX_STACKS || !in_range(f, th->counters, cap * sizeof(*c))) {
			f->damaged++;
			continue;
		}
		c = (const struct ph_counters *)(f->base + th->counters);
		if (cap > f->nstacks)
			cap = f->nstacks;
		for (k = 0; k < cap; k++) {
			struct prof_heap_site *s = &sites[k];

			s->alloc_bytes += (double)c[k].alloc_bytes;
			s->alloc_count += (double)c[k].alloc_count / unit;
			s->live_bytes += (double)c[k].live_bytes;
			s->live_blocks += (double)c[k].live_blocks / unit;
			s->peak_bytes += (double)(c[k].gen == gen ? c[k].peak_bytes : c[k].live_bytes);
			s->temp_bytes += (double)c[k].temp_bytes;
			s->temp_count += (double)c[k].temp_count / unit;
		}
	}
	return 0;
}
