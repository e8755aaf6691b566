#include <stdlib.h>
#include <string.h>
#include "buf.h"
#include "stack.h"
#include "xalloc.h"

void prof_stacks_init(struct prof_stacks *t, size_t nweights)
{
	memset(t, 0, sizeof(*t));
	prof_intern_init(&t->frames);
	if (nweights < 1)
		nweights = 1;
	if (nweights > PROF_STACKS_MAX_WEIGHTS)
		nweights = PROF_STACKS_MAX_WEIGHTS;
	t->nweights = nweights;
}

void prof_stacks_release(struct prof_stacks *t)
{
	prof_intern_release(&t->frames);
	free(t->slots);
	free(t->frame_pool);
	free(t->offsets);
	free(t->depths);
	free(t->hashes);
	free(t->weights);
	memset(t, 0, sizeof(*t));
}

static uint64_t hash_frames(const uint32_t *frames, size_t depth)
{
	uint64_t h = 0x84222325cbf29ce4ULL ^ depth;
	size_t i;

	for (i = 0; i < depth; i++)
		h = prof_hash_mix(h, frames[i]);
	return h;
}

static void rehash(struct prof_stacks *t)
{
	size_t n = t->nslots ? t->nslots * 2 : 1024, i;
	uint32_t *slots = xcalloc(n, sizeof(*slots));

	for (i = 0; i < t->count; i++) {
		size_t j = t->hashes[i] & (n - 1);

		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = (uint32_t)i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = n;
}

uint32_t prof_stacks_intern(struct prof_stacks *t, const uint32_t *frames, size_t depth)
{
	uint64_t hash = hash_frames(frames, depth);
	size_t j;
	uint32_t id;

	if (t->count * 2 >= t->nslots)
		rehash(t);
	j = hash & (t->nslots - 1);
	while ((id = t->slots[j]) != 0) {
		id--;
		if (t->hashes[id] == hash && t->depths[id] == depth &&
		    memcmp(t->frame_pool + t->offsets[id], frames, depth * sizeof(*frames)) == 0)
			return id;
		j = (j + 1) & (t->nslots - 1);
	}
	if (t->count == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 1024;
		t->offsets = xreallocarray(t->offsets, t->cap, sizeof(*t->offsets));
		t->depths = xreallocarray(t->depths, t->cap, sizeof(*t->depths));
		t->hashes = xreallocarray(t->hashes, t->cap, sizeof(*t->hashes));
		t->weights = xreallocarray(t->weights, t->cap * t->nweights, sizeof(*t->weights));
	}
	PROF_GROW(t->frame_pool, t->pool_len + depth, t->pool_cap);
	id = (uint32_t)t->count++;
	if (depth)
		memcpy(t->frame_pool + t->pool_len, frames, depth * sizeof(*frames));
	t->offsets[id] = t->pool_len;
	t->pool_len += depth;
	t->depths[id] = (uint32_t)depth;
	t->hashes[id] = hash;
	memset(t->weights + (size_t)id * t->nweights, 0, t->nweights * sizeof(*t->weights));
	t->slots[j] = id + 1;
	return id;
}

uint32_t prof_stacks_add(struct prof_stacks *t, const uint32_t *frames, size_t depth,
			 const double *weights)
{
	uint32_t id = prof_stacks_intern(t, frames, depth);
	double *w = prof_stacks_weights(t, id);
	size_t i;

	for (i = 0; i < t->nweights; i++)
		w[i] += weights[i];
	return id;
}

/* Map src's frame ids to dst's, re-interning each name once. */
static uint32_t *map_frames(struct prof_stacks *dst, const struct prof_stacks *src)
{
	size_t n = prof_intern_count(&src->frames), i;
	uint32_t *map = xmalloc((n ? n : 1) * sizeof(*map));

	for (i = 0; i < n; i++) {
		size_t len;
		const char *s = prof_intern_str(&src->frames, (uint32_t)i, &len);

		map[i] = prof_intern_hashed(&dst->frames, s, len, src->frames.hashes[i]);
	}
	return map;
}

static void merge(struct prof_stacks *dst, size_t dst_col, const struct prof_stacks *src,
		  size_t src_col, int all_columns)
{
	uint32_t *map = map_frames(dst, src);
	uint32_t *frames = NULL;
	size_t cap = 0, id, i;

	for (id = 0; id < src->count; id++) {
		size_t depth;
		const uint32_t *f = prof_stacks_frames(src, (uint32_t)id, &depth);
		const double *sw = prof_stacks_weights(src, (uint32_t)id);
		double *dw;

		PROF_GROW(frames, depth + 1, cap);
		for (i = 0; i < depth; i++)
			frames[i] = map[f[i]];
		dw = prof_stacks_weights(dst, prof_stacks_intern(dst, frames, depth));
		if (all_columns) {
			for (i = 0; i < src->nweights && i < dst->nweights; i++)
				dw[i] += sw[i];
		} else {
			dw[dst_col] += sw[src_col];
		}
	}
	free(frames);
	free(map);
}

void prof_stacks_merge(struct prof_stacks *dst, const struct prof_stacks *src)
{
	merge(dst, 0, src, 0, 1);
}

void prof_stacks_merge_column(struct prof_stacks *dst, size_t dst_column,
			      const struct prof_stacks *src, size_t src_column)
{
	if (dst_column < dst->nweights && src_column < src->nweights)
		merge(dst, dst_column, src, src_column, 0);
}

void prof_stacks_format(const struct prof_stacks *t, uint32_t id, struct prof_buf *out)
{
	size_t depth, i, len;
	const uint32_t *f = prof_stacks_frames(t, id, &depth);

	for (i = 0; i < depth; i++) {
		const char *s = prof_stacks_frame_name(t, f[i], &len);

		if (i)
			prof_buf_addch(out, ';');
		prof_buf_add(out, s, len);
	}
}

/*
 * Sorting: each stack's folded text is built once into one arena; the
 * sort compares those strings as byte strings (memcmp, then length),
 * which is Perl's default "sort keys" order.
 */
struct sort_key {
	const char *text;
	size_t len;
	uint32_t id;
};

static int compare_keys(const void *a, const void *b)
{
	const struct sort_key *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->text, y->text, n);

	if (c)
		return c;
	return (x->len > y->len) - (x->len < y->len);
}

uint32_t *prof_stacks_sorted(const struct prof_stacks *t, size_t *n)
{
	struct prof_buf text = PROF_BUF_INIT;
	struct sort_key *keys = xmalloc((t->count ? t->count : 1) * sizeof(*keys));
	size_t *starts = xmalloc((t->count ? t->count : 1) * sizeof(*starts));
	uint32_t *ids;
	size_t i, k = 0;

	for (i = 0; i < t->count; i++) {
		const double *w = prof_stacks_weights(t, (uint32_t)i);
		size_t c, nonzero = 0;

		for (c = 0; c < t->nweights; c++)
			nonzero |= w[c] != 0;
		if (!nonzero)
			continue;
		starts[k] = text.len;
		prof_stacks_format(t, (uint32_t)i, &text);
		keys[k].len = text.len - starts[k];
		keys[k].id = (uint32_t)i;
		k++;
	}
	for (i = 0; i < k; i++)
		keys[i].text = prof_buf_cstr(&text) + starts[i];
	qsort(keys, k, sizeof(*keys), compare_keys);
	ids = xmalloc((k ? k : 1) * sizeof(*ids));
	for (i = 0; i < k; i++)
		ids[i] = keys[i].id;
	*n = k;
	free(keys);
	free(starts);
	prof_buf_release(&text);
	return ids;
}
