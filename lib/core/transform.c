/*
 * Stack transformations (transform.h): one pass over the source table,
 * each stack copied into a scratch buffer and rewritten there step by
 * step, each frame name re-interned into the destination once.
 */
#include <stdlib.h>
#include <string.h>
#include "core/transform.h"
#include "base/buf.h"
#include "base/xalloc.h"

int prof_transform_add_regex(struct prof_transform *x, int exclude, const char *pattern,
			     char *errbuf, size_t errlen)
{
	regex_t **list = exclude ? &x->exclude : &x->focus;
	size_t *n = exclude ? &x->nexclude : &x->nfocus;
	int rc;

	*list = xreallocarray(*list, *n + 1, sizeof(**list));
	rc = regcomp(&(*list)[*n], pattern, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		regerror(rc, &(*list)[*n], errbuf, errlen);
		return -1;
	}
	(*n)++;
	return 0;
}

int prof_transform_active(const struct prof_transform *x)
{
	return x->nfocus || x->nexclude || x->skip_after || x->strip_comm ||
	       x->collapse_recursion || x->max_depth || x->reverse || x->tag_wakers ||
	       x->nbase;
}

void prof_transform_release(struct prof_transform *x)
{
	size_t i;

	for (i = 0; i < x->nfocus; i++)
		regfree(&x->focus[i]);
	for (i = 0; i < x->nexclude; i++)
		regfree(&x->exclude[i]);
	free(x->focus);
	free(x->exclude);
	x->focus = x->exclude = NULL;
	x->nfocus = x->nexclude = 0;
}

/* The state of one prof_transform_apply_map() call. */
struct pass {
	const struct prof_transform *x;
	const struct prof_stacks *src;
	struct prof_stacks *dst;
	unsigned char *cls;	/* src frame -> 1 focus match, 2 exclude match */
	uint32_t *map;		/* src frame -> dst frame, UINT32_MAX: not yet */
	uint32_t *tagged;	/* src frame -> dst frame "name_[w]", or UINT32_MAX */
	unsigned char *isbase;	/* dst frame -> 0 unknown, 1 not a base name, 2 one */
	size_t isbase_cap;
	uint32_t skip_id;	/* src frame named skip_after, or UINT32_MAX */
	uint32_t dash_id;	/* src frame "--", or UINT32_MAX */
	uint32_t *buf;		/* the stack being rewritten */
	size_t cap;
};

/* Per source frame: bit 1 matches a focus regex, bit 2 an exclude regex. */
static unsigned char *classify(const struct prof_transform *x, const struct prof_stacks *src)
{
	size_t n = prof_intern_count(&src->frames), i, k;
	unsigned char *c = xcalloc(n ? n : 1, 1);

	for (i = 0; i < n; i++) {
		const char *name = prof_stacks_frame_name(src, (uint32_t)i, NULL);

		for (k = 0; k < x->nfocus && !(c[i] & 1); k++)
			if (regexec(&x->focus[k], name, 0, NULL, 0) == 0)
				c[i] |= 1;
		for (k = 0; k < x->nexclude && !(c[i] & 2); k++)
			if (regexec(&x->exclude[k], name, 0, NULL, 0) == 0)
				c[i] |= 2;
	}
	return c;
}

static uint32_t *unmapped(size_t n)
{
	uint32_t *m = xmalloc((n ? n : 1) * sizeof(*m));

	memset(m, 0xff, (n ? n : 1) * sizeof(*m));
	return m;
}

static void pass_init(struct pass *p, const struct prof_transform *x,
		      const struct prof_stacks *src, struct prof_stacks *dst)
{
	size_t nframes = prof_intern_count(&src->frames);

	memset(p, 0, sizeof(*p));
	p->x = x;
	p->src = src;
	p->dst = dst;
	p->cls = (x->nfocus || x->nexclude) ? classify(x, src) : NULL;
	p->map = unmapped(nframes);
	p->tagged = x->tag_wakers ? unmapped(nframes) : NULL;
	p->skip_id = x->skip_after ? prof_intern_find(&src->frames, x->skip_after,
						      strlen(x->skip_after))
				   : UINT32_MAX;
	p->dash_id = x->tag_wakers ? prof_intern_find(&src->frames, "--", 2) : UINT32_MAX;
}

static void pass_release(struct pass *p)
{
	free(p->cls);
	free(p->map);
	free(p->tagged);
	free(p->isbase);
	free(p->buf);
}

/* Step 1: whether the focus and exclude regexes keep frames f[0..depth). */
static int kept_by_regex(const struct pass *p, const uint32_t *f, size_t depth)
{
	int any_focus = 0, any_exclude = 0;
	size_t i;

	if (!p->cls)
		return 1;
	for (i = 0; i < depth; i++) {
		any_focus |= p->cls[f[i]] & 1;
		any_exclude |= p->cls[f[i]] & 2;
	}
	return (!p->x->nfocus || any_focus) && !any_exclude;
}

/* Steps 2 and 3: the index of the frame that becomes the root. */
static size_t new_root(const struct pass *p, const uint32_t *f, size_t depth)
{
	size_t i;

	if (p->skip_id != UINT32_MAX) {
		for (i = depth; i-- > 0;)
			if (f[i] == p->skip_id)
				return i;
	}
	return p->x->strip_comm ? 1 : 0;
}

/* Steps 4 and 5: copy f[start..depth) into p->buf; returns the frames kept. */
static size_t copy_frames(struct pass *p, const uint32_t *f, size_t start, size_t depth)
{
	size_t i, n = 0;

	PROF_GROW(p->buf, depth + 1, p->cap);
	for (i = start; i < depth; i++) {
		if (p->x->collapse_recursion && n > 0 && p->buf[n - 1] == f[i])
			continue;
		p->buf[n++] = f[i];
	}
	if (p->x->max_depth && n > p->x->max_depth)
		n = p->x->max_depth;
	return n;
}

/* The dst frame of src frame s. */
static uint32_t dst_frame(struct pass *p, uint32_t s)
{
	if (p->map[s] == UINT32_MAX) {
		size_t len;
		const char *name = prof_stacks_frame_name(p->src, s, &len);

		p->map[s] = prof_stacks_frame(p->dst, name, len);
	}
	return p->map[s];
}

/* The dst frame of src frame s in a waker stack: its name with "_[w]". */
static uint32_t dst_waker_frame(struct pass *p, uint32_t s)
{
	if (p->tagged[s] == UINT32_MAX) {
		size_t len;
		const char *name = prof_stacks_frame_name(p->src, s, &len);

		if (len >= 4 && memcmp(name + len - 4, "_[w]", 4) == 0) {
			p->tagged[s] = dst_frame(p, s);
		} else {
			struct prof_buf b = PROF_BUF_INIT;

			prof_buf_add(&b, name, len);
			prof_buf_addstr(&b, "_[w]");
			p->tagged[s] = prof_stacks_frame(p->dst, b.data, b.len);
			prof_buf_release(&b);
		}
	}
	return p->tagged[s];
}

/* Step 6 with the re-interning: p->buf[0..n) becomes dst frame ids. */
static void to_dst_frames(struct pass *p, size_t n)
{
	int waker = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t s = p->buf[i];

		if (s == p->dash_id)
			waker = 1;
		p->buf[i] = waker && s != p->dash_id ? dst_waker_frame(p, s) : dst_frame(p, s);
	}
}

/* Step 7. */
static void reverse(uint32_t *f, size_t n)
{
	size_t i;

	for (i = 0; i < n / 2; i++) {
		uint32_t tmp = f[i];

		f[i] = f[n - 1 - i];
		f[n - 1 - i] = tmp;
	}
}

/* Whether dst frame d is named one of the base names (decided once per frame). */
static int is_base(struct pass *p, uint32_t d)
{
	if ((size_t)d >= p->isbase_cap) {
		size_t old = p->isbase_cap;

		PROF_GROW(p->isbase, (size_t)d + 1, p->isbase_cap);
		memset(p->isbase + old, 0, p->isbase_cap - old);
	}
	if (!p->isbase[d]) {
		size_t len, k;
		const char *name = prof_stacks_frame_name(p->dst, d, &len);

		p->isbase[d] = 1;
		for (k = 0; k < p->x->nbase; k++) {
			if (strlen(p->x->base[k]) == len && memcmp(p->x->base[k], name, len) == 0)
				p->isbase[d] = 2;
		}
	}
	return p->isbase[d] == 2;
}

/* Step 8: the index in p->buf[0..n) of the first base frame, or n if none. */
static size_t base_start(struct pass *p, size_t n)
{
	size_t i;

	for (i = 0; i < n && !is_base(p, p->buf[i]); i++)
		;
	return i;
}

size_t prof_transform_apply_map(const struct prof_transform *x, const struct prof_stacks *src,
				struct prof_stacks *dst, uint32_t *map)
{
	size_t nstacks = prof_stacks_count(src), id, kept = 0;
	struct pass p;

	pass_init(&p, x, src, dst);
	for (id = 0; id < nstacks; id++) {
		size_t depth, n, start = 0;
		const uint32_t *f = prof_stacks_frames(src, (uint32_t)id, &depth);
		uint32_t added;

		if (map)
			map[id] = UINT32_MAX;
		if (!kept_by_regex(&p, f, depth))
			continue;
		n = copy_frames(&p, f, new_root(&p, f, depth), depth);
		to_dst_frames(&p, n);
		if (x->reverse)
			reverse(p.buf, n);
		if (x->nbase)
			start = base_start(&p, n);
		if (start == n)		/* no frame left, or no base frame */
			continue;
		/* src's row as it is: any number of columns (dst takes what it has). */
		added = prof_stacks_add_columns(dst, p.buf + start, n - start,
						prof_stacks_weights(src, (uint32_t)id), src->nweights);
		if (map)
			map[id] = added;
		kept++;
	}
	pass_release(&p);
	return kept;
}

void prof_transform_apply(const struct prof_transform *x, const struct prof_stacks *src,
			  struct prof_stacks *dst)
{
	prof_transform_apply_map(x, src, dst, NULL);
}

size_t prof_transform_replace(const struct prof_transform *x, struct prof_stacks *t,
			      uint32_t *map)
{
	struct prof_stacks dst;
	size_t kept;

	prof_stacks_init(&dst, t->nweights);
	kept = prof_transform_apply_map(x, t, &dst, map);
	prof_stacks_release(t);
	*t = dst;
	return kept;
}
