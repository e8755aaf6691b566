/*
 * The stacks a flame graph draws (flame.h): folded reading, a flame
 * chart's input order, and the rewrites, done by core/transform.h with
 * the input order following the stacks.
 */
#include <stdlib.h>
#include <string.h>
#include "base/xalloc.h"
#include "flame/flame.h"
#include "formats/folded.h"
#include "io/input.h"

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

int prof_flame_read(struct prof_lines *lr, struct prof_stacks *t, struct prof_meta *meta,
		    struct prof_flame_seq *seq, struct prof_folded_stats *stats)
{
	struct prof_folded_reader fr;

	prof_folded_reader_init(&fr, t, meta, stats, prof_lines_name(lr));
	if (seq) {
		fr.on_stack = prof_flame_seq_on_stack;
		fr.ctx = seq;
	}
	return prof_folded_reader_run(&fr, lr);
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
