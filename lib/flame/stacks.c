/*
 * The stacks a flame graph draws (flame.h): reading any profile through
 * formats/profile.h, a flame chart's input order, and the rewrites, done
 * by core/transform.h with the input order following the stacks.
 */
#include <stdlib.h>
#include <string.h>
#include "base/xalloc.h"
#include "flame/flame.h"
#include "formats/profile.h"

void prof_flame_seq_release(struct prof_flame_seq *s)
{
	free(s->ids);
	free(s->w);
	memset(s, 0, sizeof(*s));
}

void prof_flame_seq_on_stack(void *ctx, uint32_t id, const prof_weight *w, int nw)
{
	struct prof_flame_seq *s = ctx;

	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1024;
		s->ids = xreallocarray(s->ids, s->cap, sizeof(*s->ids));
		s->w = xreallocarray(s->w, s->cap * 2, sizeof(*s->w));
	}
	/* drawing needs no more than double precision */
	s->ids[s->n] = id;
	s->w[s->n * 2] = (double)w[0];
	s->w[s->n * 2 + 1] = nw == 2 ? (double)w[1] : 0;
	s->n++;
}

int prof_flame_read_profiles(const char *const *paths, size_t n, struct prof_stacks *t,
			     struct prof_meta *meta, struct prof_flame_seq *seq, int *ncounts)
{
	struct prof_profile_opts opts;
	struct prof_profile_summary sum;
	int r;

	prof_profile_opts_init(&opts);
	if (seq) {
		opts.on_stack = prof_flame_seq_on_stack;
		opts.on_stack_ctx = seq;
	}
	r = prof_profile_read_all(paths, n, &opts, t, meta, &sum);
	*ncounts = sum.ncounts;
	if (sum.unreadable)
		return -2;
	return r ? -1 : 0;
}

/* Follow the stacks to their new ids (map); drop lines whose stack went. */
static void seq_remap(struct prof_flame_seq *seq, const uint32_t *map)
{
	size_t i, j = 0;

	for (i = 0; i < seq->n; i++) {
		uint32_t m = map[seq->ids[i]];

		if (m == UINT32_MAX)
			continue;
		seq->ids[j] = m;
		seq->w[j * 2] = seq->w[i * 2];
		seq->w[j * 2 + 1] = seq->w[i * 2 + 1];
		j++;
	}
	seq->n = j;
}

size_t prof_flame_transform(struct prof_stacks *t, const struct prof_transform *x,
			    struct prof_flame_seq *seq)
{
	size_t n = prof_stacks_count(t), kept;
	uint32_t *map = seq ? xmalloc((n ? n : 1) * sizeof(*map)) : NULL;

	kept = prof_transform_replace(x, t, map);
	/* a chart draws seq's weights; the table's were added by stack */
	if (seq)
		seq_remap(seq, map);
	free(map);
	return kept;
}
