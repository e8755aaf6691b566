#ifndef PROF_TRANSFORM_H
#define PROF_TRANSFORM_H
/*
 * Stack transformations on a stack table, so they apply to any profile
 * (perf script, profrec samples, folded files). They run in this order:
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
 *   6. reverse          leaf first (for "who calls this" graphs)
 *
 * Stacks that become identical are merged (weights added); a stack that
 * loses all its frames is dropped.
 */
#include <regex.h>
#include <stddef.h>
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
};

#define PROF_TRANSFORM_INIT { NULL, 0, NULL, 0, NULL, 0, 0, 0, 0 }

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
 * caller with src's number of weight columns (frame names re-interned).
 */
void prof_transform_apply(const struct prof_transform *x, const struct prof_stacks *src,
			  struct prof_stacks *dst);

/* Free the compiled regexes. */
void prof_transform_release(struct prof_transform *x);

#endif
