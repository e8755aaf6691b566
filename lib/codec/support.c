/*
 * What the codec files (ops.h) call back: the counting allocator that
 * measures a library's memory, and setting a context's error message.
 * Apart from the registry (codec.c), which calls the codec files.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/ops.h"

/* ---- the counting allocator ---- */

#define MEM_HDR 16	/* a block's size, before it; keeps 16-byte alignment */

void *prof_codec_mem_alloc(struct prof_codec_mem *m, size_t n)
{
	char *h = NULL;

	for (unsigned i = 0; i < m->ncache; i++) {
		if (m->cache_size[i] == n) {
			h = m->cache[i];
			m->ncache--;
			m->cache[i] = m->cache[m->ncache];
			m->cache_size[i] = m->cache_size[m->ncache];
			break;
		}
	}
	if (!h) {
		if (n > SIZE_MAX - MEM_HDR)
			return NULL;
		h = malloc(n + MEM_HDR);
		if (!h)
			return NULL;
		memcpy(h, &n, sizeof(n));
	}
	m->live += n;
	if (m->live > m->peak)
		m->peak = m->live;
	return h + MEM_HDR;
}

void prof_codec_mem_free(struct prof_codec_mem *m, void *p)
{
	char *h;
	size_t n;

	if (!p)
		return;
	h = (char *)p - MEM_HDR;
	memcpy(&n, h, sizeof(n));
	if (!m) {
		free(h);
		return;
	}
	m->live -= n;
	if (m->ncache < PROF_CODEC_MEM_CACHE) {
		m->cache[m->ncache] = h;
		m->cache_size[m->ncache] = n;
		m->ncache++;
	} else {
		free(h);
	}
}

void prof_codec_mem_release(struct prof_codec_mem *m)
{
	for (unsigned i = 0; i < m->ncache; i++)
		free(m->cache[i]);
	m->ncache = 0;
}

long long prof_codec_counted_mem(const struct prof_codec_ctx *x, int decomp)
{
	return (long long)(decomp ? x->dmem.peak : x->cmem.peak);
}

void prof_codec_ctx_err(struct prof_codec_ctx *x, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(x->err, sizeof(x->err), fmt, ap);
	va_end(ap);
}
