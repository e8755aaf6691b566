#ifndef PROF_HEAPFILE_H
#define PROF_HEAPFILE_H
/*
 * Reading profheap record files (TAG.heap, written by the preloaded shim;
 * layout in heap/format.h). A record file may come from a process that
 * was killed at any instant: every offset is checked against the bytes
 * in use, and whatever is out of range is left out (and counted in
 * .damaged) rather than trusted.
 *
 * Per stack, prof_heapfile_sum() adds the counters of every thread into
 * one struct prof_heap_site (counts already divided by the file's count
 * unit, so sampled files give estimates in allocations).
 */
#include <stddef.h>
#include <stdint.h>
#include "heap/format.h"

struct prof_heapfile {
	const char *path;
	const struct ph_header *h;	/* the header (read-only mapping) */
	const char *base;
	uint64_t size;			/* bytes that may be read */
	size_t nstacks;
	unsigned long damaged;		/* stacks or threads out of range */
	/* private */
	int fd;
	size_t map_len;
};

/* Totals of one call stack. */
struct prof_heap_site {
	double alloc_bytes, alloc_count;
	double live_bytes, live_blocks;		/* at the end: leaked */
	double peak_bytes;			/* live at the global peak */
	double temp_bytes, temp_count;
};

/*
 * Open and map path. Returns 0, or -1 after reporting
 * "prog: path: what is wrong" (unreadable, not a record file, wrong version).
 */
int prof_heapfile_open(struct prof_heapfile *f, const char *path);

/* Unmap and close. */
void prof_heapfile_close(struct prof_heapfile *f);

/*
 * The return addresses of stack id (innermost first) and their number in
 * *depth; NULL (and *depth 0) when the record is out of range.
 */
const uint64_t *prof_heapfile_stack(struct prof_heapfile *f, size_t id, size_t *depth);

/*
 * The name of the Python frame pc (PH_PC_PYTHON | offset of its struct
 * ph_pyframe: profheap --python), "py::QUALNAME (FILE:LINE)", and its
 * length in *len; NULL when pc is no such frame or its record is out of
 * range or malformed.
 */
const char *prof_heapfile_pyframe(const struct prof_heapfile *f, uint64_t pc, size_t *len);

/*
 * Sum every thread's counters: sites[0..f->nstacks) are overwritten.
 * Returns 0.
 */
int prof_heapfile_sum(struct prof_heapfile *f, struct prof_heap_site *sites);

#endif
