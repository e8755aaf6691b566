#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "base/error.h"
#include "core/stack.h"
#include "base/xalloc.h"

void prof_stacks_init(struct prof_stacks *t, size_t nweights)
{
	memset(t, 0, sizeof(*t));
	prof_intern_init(&t->frames);
	if (nweights < 1)
		nweights = 1;
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

void prof_weight_saturated(const char *what)
{
	static int said;

	if (__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		return;
	prof_warn("counts add up to more than 18446744073709551615 (2^64-1)%s%s; kept at 18446744073709551615",
		  what ? " for " : "", what ? what : "");
}

/* Say which stack saturated (the first time only). */
static void stack_saturated(const struct prof_stacks *t, uint32_t id)
{
	struct prof_buf b = PROF_BUF_INIT;

	prof_stacks_format(t, id, &b);
	prof_weight_saturated(prof_buf_cstr(&b));
	prof_buf_release(&b);
}

static uint64_t hash_frames(const uint32_t *frames, size_t depth)
{
	uint64_t h = 0x84222325cbf29ce4ULL ^ depth;
	size_t i;

	for (i = 0; i < depth; i++)
		h = prof_hash_mix(h, frames[i]);
	return h;
}

uint32_t prof_stacks_intern(struct prof_stacks *t, const uint32_t *frames, size_t depth)
{
	uint64_t hash = hash_frames(frames, depth);
	size_t j;
	uint32_t id;

	if (t->count * 2 >= t->nslots)
		prof_hash_slots_grow(&t->slots, &t->nslots, t->hashes, t->count);
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

uint32_t prof_stacks_add_columns(struct prof_stacks *t, const uint32_t *frames, size_t depth,
				 const prof_weight *weights, size_t n)
{
	uint32_t id = prof_stacks_intern(t, frames, depth);
	prof_weight *w = prof_stacks_weights(t, id);
	size_t i;
	int sat = 0;

	if (n > t->nweights)
		n = t->nweights;
	for (i = 0; i < n; i++)
		sat |= prof_weight_add(&w[i], weights[i]);
	if (sat)
		stack_saturated(t, id);
	return id;
}

uint32_t prof_stacks_add(struct prof_stacks *t, const uint32_t *frames, size_t depth,
			 const prof_weight *weights)
{
	return prof_stacks_add_columns(t, frames, depth, weights, t->nweights);
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
		const prof_weight *sw = prof_stacks_weights(src, (uint32_t)id);
		prof_weight *dw;
		uint32_t did;
		int sat = 0;

		PROF_GROW(frames, depth + 1, cap);
		for (i = 0; i < depth; i++)
			frames[i] = map[f[i]];
		did = prof_stacks_intern(dst, frames, depth);
		dw = prof_stacks_weights(dst, did);
		if (all_columns) {
			for (i = 0; i < src->nweights && i < dst->nweights; i++)
				sat |= prof_weight_add(&dw[i], sw[i]);
		} else {
			sat = prof_weight_add(&dw[dst_col], sw[src_col]);
		}
		if (sat)
			stack_saturated(dst, did);
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
 * Sorting in byte order of the folded text without building the text:
 * stacks are compared frame by frame, and because a frame's text is
 * followed by ';' (or by the end of the line when it is the leaf), each
 * frame gets two ranks: its name followed by ';' and its name alone, both
 * ranked once among all frame names in byte order. Comparing rank
 * sequences then gives exactly the order of comparing the joined texts
 * (names never contain ';'), with integer compares instead of memcmp.
 */
struct rank_key {
	const char *name;
	uint32_t len;
	uint32_t slot;		/* frame * 2 + (1 if followed by ';') */
};

static int compare_rank_keys(const void *a, const void *b)
{
	const struct rank_key *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->name, y->name, n), cx, cy;

	if (c)
		return c;
	/* The byte after the common part: the rest of the longer name, ';' or end (-1). */
	cx = x->len > n ? (unsigned char)x->name[n] : (x->slot & 1) ? ';' : -1;
	cy = y->len > n ? (unsigned char)y->name[n] : (y->slot & 1) ? ';' : -1;
	if (cx != cy)
		return cx < cy ? -1 : 1;
	return x->len != y->len ? (x->len < y->len ? -1 : 1) : (int)(x->slot & 1) - (int)(y->slot & 1);
}

struct sort_ctx {
	const struct prof_stacks *t;
	const uint32_t *rank;	/* slot -> rank */
};

static int compare_stacks(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *ctx = arg;
	uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
	size_t da, db, i, n;
	const uint32_t *fa = prof_stacks_frames(ctx->t, ia, &da);
	const uint32_t *fb = prof_stacks_frames(ctx->t, ib, &db);

	n = da < db ? da : db;
	for (i = 0; i < n; i++) {
		uint32_t ra = ctx->rank[fa[i] * 2 + (i + 1 < da)];
		uint32_t rb = ctx->rank[fb[i] * 2 + (i + 1 < db)];

		if (ra != rb)
			return ra < rb ? -1 : 1;
	}
	return (da > db) - (da < db);
}

uint32_t *prof_stacks_sorted(const struct prof_stacks *t, size_t *n)
{
	size_t nframes = prof_intern_count(&t->frames), i, k = 0;
	struct rank_key *keys = xmalloc((nframes * 2 + 1) * sizeof(*keys));
	uint32_t *rank = xmalloc((nframes * 2 + 1) * sizeof(*rank));
	uint32_t *ids = xmalloc((t->count + 1) * sizeof(*ids));
	struct sort_ctx ctx = { t, rank };

	for (i = 0; i < nframes * 2; i++) {
		size_t len;

		keys[i].name = prof_intern_str(&t->frames, (uint32_t)(i / 2), &len);
		keys[i].len = (uint32_t)len;
		keys[i].slot = (uint32_t)i;
	}
	qsort(keys, nframes * 2, sizeof(*keys), compare_rank_keys);
	for (i = 0; i < nframes * 2; i++)
		rank[keys[i].slot] = (uint32_t)i;
	free(keys);

	for (i = 0; i < t->count; i++) {
		const prof_weight *w = prof_stacks_weights(t, (uint32_t)i);
		size_t c;

		for (c = 0; c < t->nweights; c++) {
			if (w[c] != 0) {
				ids[k++] = (uint32_t)i;
				break;
			}
		}
	}
	qsort_r(ids, k, sizeof(*ids), compare_stacks, &ctx);
	free(rank);
	*n = k;
	return ids;
}
