/*
 * The codec registry and what every codec call shares (codec.h): level
 * and dictionary checks, contexts, errors and the block limit. The
 * codecs themselves are in one file per library (ops.h); what those
 * files call back is in support.c, so dependencies go one way:
 * codec.c -> each codec file -> support.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/codec.h"
#include "codec/ops.h"
#include "base/xalloc.h"

/*
 * PROF_CODECS is "X(memcpy) X(lz4) ...": the codecs of the files
 * lib/codec/codec.mk compiled, in the order of profcompress -l;
 * PROF_CODECS_NOT_BUILT the same for the files it left out.
 */
#ifndef PROF_CODECS
#error "PROF_CODECS comes from lib/codec/codec.mk"
#endif
#ifndef PROF_CODECS_NOT_BUILT
#define PROF_CODECS_NOT_BUILT
#endif

#define X(name) extern const struct prof_codec prof_codec_##name;
PROF_CODECS
#undef X

const struct prof_codec *const prof_codecs[] = {
#define X(name) &prof_codec_##name,
	PROF_CODECS
#undef X
	NULL,
};

const char *const prof_codecs_not_built[] = {
#define X(name) #name,
	PROF_CODECS_NOT_BUILT
#undef X
	NULL,
};

const struct prof_codec *prof_codec_find(const char *name)
{
	for (size_t i = 0; prof_codecs[i]; i++)
		if (strcmp(prof_codecs[i]->name, name) == 0)
			return prof_codecs[i];
	return NULL;
}

int prof_codec_is_not_built(const char *name)
{
	for (size_t i = 0; prof_codecs_not_built[i]; i++)
		if (strcmp(prof_codecs_not_built[i], name) == 0)
			return 1;
	return 0;
}

int prof_codec_has_levels(const struct prof_codec *c)
{
	return c->min_level != PROF_CODEC_NOLEVEL;
}

const char *prof_codec_version(const struct prof_codec *c)
{
	const char *v = c->ops->version();

	return v ? v : "unknown";
}

size_t prof_codec_bound(const struct prof_codec *c, int level, size_t n)
{
	return c->ops->bound(level, n);
}

/* ---- contexts ---- */

/* Check level (NOLEVEL: the default) against c; the level to use, or -1 with err. */
static int check_level(const struct prof_codec *c, int *level, char *err, size_t errlen)
{
	int lo = c->min_level, hi = c->max_level;

	if (!prof_codec_has_levels(c)) {
		if (*level == PROF_CODEC_NOLEVEL)
			return 0;
		snprintf(err, errlen, "%s has no levels", c->name);
		return -1;
	}
	if (c->ops->level_range)
		c->ops->level_range(&lo, &hi);
	if (*level == PROF_CODEC_NOLEVEL)
		*level = c->default_level;
	if (*level < lo || *level > hi) {
		snprintf(err, errlen, "%s: level %d out of range %d..%d", c->name, *level, lo, hi);
		return -1;
	}
	return 0;
}

struct prof_codec_ctx *prof_codec_ctx_new(const struct prof_codec *c, int level,
					  const void *dict, size_t dictlen,
					  char *err, size_t errlen)
{
	struct prof_codec_ctx *x;

	if (check_level(c, &level, err, errlen))
		return NULL;
	if (dict && !(c->flags & PROF_CODEC_F_DICT)) {
		snprintf(err, errlen, "%s does not support dictionaries", c->name);
		return NULL;
	}
	x = xcalloc(1, sizeof(*x));
	x->codec = c;
	x->level = level;
	x->cmem_fixed = x->dmem_fixed = -1;
	if (dict) {
		x->dict = xmemdup(dict, dictlen);
		x->dictlen = dictlen;
	}
	if (c->ops->init && c->ops->init(x, err, errlen) != 0) {
		prof_codec_ctx_free(x);
		return NULL;
	}
	return x;
}

void prof_codec_ctx_free(struct prof_codec_ctx *x)
{
	if (!x)
		return;
	if (x->codec->ops->release)
		x->codec->ops->release(x);
	else
		free(x->state);
	prof_codec_mem_release(&x->cmem);
	prof_codec_mem_release(&x->dmem);
	free(x->dict);
	free(x);
}

const char *prof_codec_ctx_error(const struct prof_codec_ctx *x)
{
	return x->err;
}

int prof_codec_ctx_too_small(const struct prof_codec_ctx *x)
{
	return x->too_small;
}

static long long ctx_mem(const struct prof_codec_ctx *x, int decomp)
{
	if (x->codec->ops->mem)
		return x->codec->ops->mem(x, decomp);
	return decomp ? x->dmem_fixed : x->cmem_fixed;
}

long long prof_codec_comp_mem(const struct prof_codec_ctx *x)
{
	return ctx_mem(x, 0);
}

long long prof_codec_decomp_mem(const struct prof_codec_ctx *x)
{
	return ctx_mem(x, 1);
}

size_t prof_codec_compress(struct prof_codec_ctx *x, void *dst, size_t cap,
			   const void *src, size_t n)
{
	const struct prof_codec *c = x->codec;
	size_t max = c->ops->max_block ? c->ops->max_block : SIZE_MAX;

	x->err[0] = '\0';
	if (n > max) {
		prof_codec_ctx_err(x, "block of %zu bytes exceeds the %s API limit of %zu (use -b)",
				   n, c->name, max);
		return PROF_CODEC_FAIL;
	}
	return c->ops->compress(x, dst, cap, src, n);
}

size_t prof_codec_decompress(struct prof_codec_ctx *x, void *dst, size_t cap,
			     const void *src, size_t n)
{
	x->err[0] = '\0';
	x->too_small = 0;
	return x->codec->ops->decompress(x, dst, cap, src, n);
}
