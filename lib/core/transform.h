#ifndef PROF_TRANSFORM_H
#define PROF_TRANSFORM_H
/*
 * Stack transformations on a stack table: the one rewriting mechanism of
 * proftools, so that every rewrite applies to any profile (perf script,
 * profrec samples, folded files) and every tool (proffold's options,
 * profflame's --reverse, --base and chain graphs) gets the same result.
 * One pass over the source table re-interns each frame name once into
 * the destination. The steps run in this order:
 *
 *   1. focus / exclude  keep stacks with a frame matching any focus regex
 *                       (POSIX extended), then drop those with a frame
 *                       matching any exclude regex
 *   2. skip_after FUNC  drop every frame above the deepest frame named
 *                       FUNC, which becomes the root (stacks without it
 *                       are kept whole)
 *   3. strip_comm       drop the root frame (the process name) of the
 *                       stacks skip_after did not cut
 *   4. collapse_recursion  a frame repeated directly (f;f;f) counts once
 *   5. max_depth N      keep the N frames nearest the root; the weight
 *                       of deeper frames goes to the last kept one
 *   6. tag_wakers       frames after a "--" frame (the waker half of a
 *                       wakeup chain, flamegraph.pl's --colors=chain)
 *                       get the "_[w]" annotation, unless they have it
 *   7. reverse          leaf first (for "who calls this" graphs)
 *   8. base NAMES       keep only stacks with a frame named one of
 *                       base[0..nbase), each starting at the first such
 *                       frame from its root (after reverse: from its
 *                       leaf); the others are dropped
 *
 * Stacks that become identical are merged (weights added); a stack that
 * loses all its frames is dropped. The source table is not changed.
 */
#include <regex.h>
#include <stddef.h>
#include <stdint.h>
#include "core/stack.h"

struct prof_transform {
	regex_t *focus;			/* nfocus compiled regexes */
	size_t nfocus;
	regex_t *exclude;
	size_t nexclude;
	const char *skip_after;		/* NULL: off */
	int strip_comm;
	int collapse_recursion;
	size_t max_depth;		/* 0: off */
	int reverse;
	int tag_wakers;
	const char *const *base;	/* nbase names (not copied), or NULL */
	size_t nbase;
};

#define PROF_TRANSFORM_INIT { NULL, 0, NULL, 0, NULL, 0, 0, 0, 0, 0, NULL, 0 }

/*
 * Compile pattern and add it to the focus (exclude == 0) or exclude list.
 * Returns 0, or -1 with a description of the error in errbuf.
 */
int prof_transform_add_regex(struct prof_transform *x, int exclude, const char *pattern,
			     char *errbuf, size_t errlen);

/* Nonzero if x changes anything. */
int prof_transform_active(const struct prof_transform *x);

/*
 * Transform every stack of src into dst, a table initialised by the
 * caller with src's number of weight columns (frame names re-interned;
 * weight columns matched by position, those dst lacks are not copied).
 */
void prof_transform_apply(const struct prof_transform *x, const struct prof_stacks *src,
			  struct prof_stacks *dst);

/*
 * prof_transform_apply() that also says where each stack went: map (NULL,
 * or room for prof_stacks_count(src) ids) receives, for every stack id of
 * src, the id in dst it was added to, or UINT32_MAX if it was dropped (so
 * that per-sample data such as a flame chart's input order can follow).
 * Returns the number of src stacks kept.
 */
size_t prof_transform_apply_map(const struct prof_transform *x, const struct prof_stacks *src,
				struct prof_stacks *dst, uint32_t *map);

/*
 * Transform t in place: its stacks are rewritten into a new table with
 * the same number of weight columns, which replaces *t (the old one is
 * released). map is as for prof_transform_apply_map(), with room for the
 * old prof_stacks_count(t). Returns the number of stacks kept.
 */
size_t prof_transform_replace(const struct prof_transform *x, struct prof_stacks *t,
			      uint32_t *map);

/* Free the compiled regexes (base names are the caller's). */
void prof_transform_release(struct prof_transform *x);

#endif
