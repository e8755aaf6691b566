/* Unit tests: the stack table with many weight columns, merging, saturation. */
#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "base/error.h"
#include "core/stack.h"
#include "../unit.h"

#define NCOL 6

/* Intern "a;b;c"-style text as frames of t; returns the depth. */
static size_t frames_of(struct prof_stacks *t, const char *text, uint32_t *frames)
{
	size_t depth = 0;

	while (*text) {
		const char *semi = strchr(text, ';');
		size_t len = semi ? (size_t)(semi - text) : strlen(text);

		frames[depth++] = prof_stacks_frame(t, text, len);
		text += len + (semi != NULL);
	}
	return depth;
}

static uint32_t add(struct prof_stacks *t, const char *text, const prof_weight *w)
{
	uint32_t frames[16];
	size_t depth = frames_of(t, text, frames);

	return prof_stacks_add(t, frames, depth, w);
}

static int row_is(const struct prof_stacks *t, uint32_t id, const prof_weight *want)
{
	const prof_weight *w = prof_stacks_weights(t, id);
	size_t i;

	for (i = 0; i < t->nweights; i++)
		if (w[i] != want[i])
			return 0;
	return 1;
}

static void test_many_columns(void)
{
	TEST("stack: six columns add up independently, rows stay apart") {
		struct prof_stacks t;
		prof_weight w1[NCOL] = { 1, 2, 3, 4, 5, 6 };
		prof_weight w2[NCOL] = { 10, 20, 30, 40, 50, 60 };
		prof_weight sum[NCOL] = { 11, 22, 33, 44, 55, 66 };
		uint32_t a, b, i;
		char name[32];

		prof_stacks_init(&t, NCOL);
		CHECK(t.nweights == NCOL);
		a = add(&t, "main;f", w1);
		b = add(&t, "main;g", w2);
		CHECK(add(&t, "main;f", w2) == a);
		CHECK(row_is(&t, a, sum));
		CHECK(row_is(&t, b, w2));
		/* Enough stacks to grow the arrays several times. */
		for (i = 0; i < 5000; i++) {
			prof_weight w[NCOL] = { i, i + 1, i + 2, i + 3, i + 4, i + 5 };

			snprintf(name, sizeof(name), "main;s%u", i);
			add(&t, name, w);
		}
		CHECK(prof_stacks_count(&t) == 5002);
		CHECK(row_is(&t, a, sum));
		CHECK(row_is(&t, b, w2));
		{
			prof_weight want[NCOL] = { 4321, 4322, 4323, 4324, 4325, 4326 };
			uint32_t frames[16];
			size_t depth = frames_of(&t, "main;s4321", frames);

			CHECK(row_is(&t, prof_stacks_intern(&t, frames, depth), want));
		}
		prof_stacks_release(&t);
	}
	TEST("stack: zero columns mean one; add_columns fills a prefix") {
		struct prof_stacks t;
		prof_weight two[2] = { 7, 8 };
		prof_weight want[NCOL] = { 7, 8, 0, 0, 0, 0 };
		prof_weight more[NCOL + 2] = { 1, 1, 1, 1, 1, 1, 1, 1 };
		prof_weight want2[NCOL] = { 8, 9, 1, 1, 1, 1 };
		uint32_t frames[16], id;
		size_t depth;

		prof_stacks_init(&t, 0);
		CHECK(t.nweights == 1);
		prof_stacks_release(&t);

		prof_stacks_init(&t, NCOL);
		depth = frames_of(&t, "x;y", frames);
		id = prof_stacks_add_columns(&t, frames, depth, two, 2);
		CHECK(row_is(&t, id, want));
		/* n above nweights is clamped: no read past the row. */
		CHECK(prof_stacks_add_columns(&t, frames, depth, more, NCOL + 2) == id);
		CHECK(row_is(&t, id, want2));
		prof_stacks_release(&t);
	}
}

static void test_merge(void)
{
	TEST("stack: merge matches columns by position, narrower source") {
		struct prof_stacks dst, src;
		prof_weight w6[NCOL] = { 1, 2, 3, 4, 5, 6 };
		prof_weight w3[3] = { 100, 200, 300 };
		prof_weight want_f[NCOL] = { 101, 202, 303, 4, 5, 6 };
		prof_weight want_h[NCOL] = { 100, 200, 300, 0, 0, 0 };
		uint32_t frames[16];
		size_t depth;

		prof_stacks_init(&dst, NCOL);
		prof_stacks_init(&src, 3);
		add(&dst, "main;f", w6);
		prof_stacks_frame(&src, "unused", 6);	/* src's frame ids differ */
		add(&src, "main;f", w3);
		add(&src, "main;h", w3);
		prof_stacks_merge(&dst, &src);
		CHECK(prof_stacks_count(&dst) == 2);
		depth = frames_of(&dst, "main;f", frames);
		CHECK(row_is(&dst, prof_stacks_intern(&dst, frames, depth), want_f));
		depth = frames_of(&dst, "main;h", frames);
		CHECK(row_is(&dst, prof_stacks_intern(&dst, frames, depth), want_h));
		prof_stacks_release(&src);
		prof_stacks_release(&dst);
	}
	TEST("stack: merge_column moves one column, out-of-range columns ignored") {
		struct prof_stacks dst, src;
		prof_weight w[NCOL] = { 1, 2, 3, 4, 5, 6 };
		prof_weight want[NCOL] = { 0, 0, 0, 0, 0, 6 };
		uint32_t frames[16];
		size_t depth;

		prof_stacks_init(&dst, NCOL);
		prof_stacks_init(&src, NCOL);
		add(&src, "a;b", w);
		prof_stacks_merge_column(&dst, 4, &src, 5);
		prof_stacks_merge_column(&dst, NCOL, &src, 0);
		prof_stacks_merge_column(&dst, 0, &src, NCOL);
		depth = frames_of(&dst, "a;b", frames);
		want[4] = 6;
		want[5] = 0;
		CHECK(row_is(&dst, prof_stacks_intern(&dst, frames, depth), want));
		prof_stacks_release(&src);
		prof_stacks_release(&dst);
	}
	TEST("stack: sorted keeps a stack whose only weight is in the last column") {
		struct prof_stacks t;
		prof_weight zero[NCOL] = { 0 };
		prof_weight last[NCOL] = { 0, 0, 0, 0, 0, 1 };
		struct prof_buf b = PROF_BUF_INIT;
		uint32_t *ids;
		size_t n;

		prof_stacks_init(&t, NCOL);
		add(&t, "z", last);
		add(&t, "y", zero);
		add(&t, "a;b", last);
		ids = prof_stacks_sorted(&t, &n);
		CHECK(n == 2);
		prof_stacks_format(&t, ids[0], &b);
		CHECK_STR(prof_buf_cstr(&b), "a;b");
		prof_buf_reset(&b);
		prof_stacks_format(&t, ids[1], &b);
		CHECK_STR(prof_buf_cstr(&b), "z");
		free(ids);
		prof_buf_release(&b);
		prof_stacks_release(&t);
	}
}

static void test_saturation(void)
{
	TEST("stack: sums saturate at 2^64-1 per column, in add and merge") {
		struct prof_stacks t, src;
		prof_weight big[NCOL] = { PROF_WEIGHT_MAX, 1, 0, 0, 0, PROF_WEIGHT_MAX - 1 };
		prof_weight one[NCOL] = { 1, 1, 1, 1, 1, 1 };
		prof_weight want[NCOL] = { PROF_WEIGHT_MAX, 2, 1, 1, 1, PROF_WEIGHT_MAX };
		prof_weight want2[NCOL] = { PROF_WEIGHT_MAX, 4, 2, 2, 2, PROF_WEIGHT_MAX };
		prof_weight w;
		uint32_t id;

		prof_set_progname("test_stack");
		w = PROF_WEIGHT_MAX - 1;
		CHECK(prof_weight_add(&w, 1) == 0 && w == PROF_WEIGHT_MAX);
		CHECK(prof_weight_add(&w, 1) == 1 && w == PROF_WEIGHT_MAX);

		prof_stacks_init(&t, NCOL);
		id = add(&t, "main;grow", big);
		CHECK(add(&t, "main;grow", one) == id);	/* column 5 reaches the max exactly */
		CHECK(row_is(&t, id, want));
		CHECK(add(&t, "main;grow", big) == id);	/* columns 0 and 5 saturate */
		want[1] = 3;
		CHECK(row_is(&t, id, want));

		prof_stacks_init(&src, NCOL);
		add(&src, "main;grow", one);
		prof_stacks_merge(&t, &src);
		CHECK(row_is(&t, id, want2));
		prof_stacks_merge_column(&t, 0, &src, 0);
		CHECK(prof_stacks_weights(&t, id)[0] == PROF_WEIGHT_MAX);
		prof_stacks_release(&src);
		prof_stacks_release(&t);
	}
}

int main(void)
{
	test_many_columns();
	test_merge();
	test_saturation();
	return UNIT_RESULT();
}
