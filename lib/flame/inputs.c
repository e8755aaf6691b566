/*
 * A tool's operands read as its options say (flame.h): one or more
 * profiles, a --diff pair, or a --hot-cold recording or pair. Apart from
 * stacks.c, differential.c and hotcold.c, which it dispatches to.
 */
#include "flame/flame.h"

int prof_flame_read_inputs(const char *const *paths, size_t n, int diff_files,
			   struct prof_stacks *t, struct prof_meta *meta, struct prof_flame_seq *seq,
			   struct prof_flame_opts *o, int *diff)
{
	int r, ncounts = 2;

	if (o->hotcold) {
		r = prof_flame_read_hotcold(paths, n, t, meta);
		if (n == 2) {
			o->diff_before = paths[0];
			o->diff_after = paths[1];
		}
		ncounts = 1;
	} else if (diff_files && n == 2) {
		r = prof_flame_read_diff(paths[0], paths[1], t, meta);
		o->diff_before = paths[0];
		o->diff_after = paths[1];
	} else {
		r = prof_flame_read_profiles(paths, n, t, meta, seq, &ncounts);
	}
	*diff = ncounts == 2;
	return r;
}
