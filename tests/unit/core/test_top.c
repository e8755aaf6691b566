/*
 * core/top.h: the self/total sums that proffold --top and profcmp share,
 * the ranking, the hottest path and both report forms.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/buf.h"
#include "core/stack.h"
#include "core/top.h"
#include "formats/folded.h"
#include "io/output.h"
#include "../unit.h"

static void add(struct prof_stacks *t, const char *stack, prof_weight a, prof_weight b)
{
	prof_weight w[2];

	w[0] = a;
	w[1] = b;
	prof_folded_add(t, stack, strlen(stack), w, 2);
}

static prof_weight self_of(const struct prof_top_sums *s, struct prof_stacks *t,
			   const char *name)
{
	return s->self[prof_stacks_frame(t, name, strlen(name))];
}

static prof_weight total_of(const struct prof_top_sums *s, struct prof_stacks *t,
			    const char *name)
{
	return s->total[prof_stacks_frame(t, name, strlen(name))];
}

/* The report of t as text (caller frees). */
static char *report(const struct prof_stacks *t, const struct prof_top_opts *o,
		    const struct prof_meta *meta, const char *path)
{
	struct prof_output *out = prof_output_open(path, 0, PROF_COMP_NONE);
	char *text;
	size_t len;
	FILE *f;

	if (!out || prof_top_write(t, o, meta, out) || prof_output_close(out))
		return NULL;
	f = fopen(path, "r");
	text = calloc(1, 4096);
	len = fread(text, 1, 4095, f);
	text[len] = '\0';
	fclose(f);
	return text;
}

int main(void)
{
	struct prof_stacks t;
	struct prof_top_sums s;

	prof_stacks_init(&t, 2);
	/* column 0: a profile; column 1: another run of the same program */
	add(&t, "main;work;hot", 6, 3);
	add(&t, "main;work", 2, 2);
	add(&t, "main;rec;rec;rec", 2, 5);
	add(&t, "main;idle", 0, 10);

	TEST("self and total of a column") {
		prof_top_sums(&s, &t, 0);
		CHECK(s.grand == 10);
		CHECK(self_of(&s, &t, "hot") == 6 && total_of(&s, &t, "hot") == 6);
		CHECK(self_of(&s, &t, "work") == 2 && total_of(&s, &t, "work") == 8);
		CHECK(self_of(&s, &t, "main") == 0 && total_of(&s, &t, "main") == 10);
		/* recursion counted once per stack */
		CHECK(self_of(&s, &t, "rec") == 2 && total_of(&s, &t, "rec") == 2);
		CHECK(total_of(&s, &t, "idle") == 0);
		prof_top_sums_release(&s);
		CHECK(s.self == NULL && s.nframes == 0);
	}

	TEST("the second column lines up by frame id") {
		prof_top_sums(&s, &t, 1);
		CHECK(s.grand == 20);
		CHECK(self_of(&s, &t, "idle") == 10 && total_of(&s, &t, "rec") == 5);
		CHECK(total_of(&s, &t, "work") == 5);
		prof_top_sums_release(&s);
		prof_top_sums(&s, &t, 7);	/* no such column: all zero */
		CHECK(s.grand == 0 && s.nframes == prof_intern_count(&t.frames));
		prof_top_sums_release(&s);
	}

	TEST("rows ranked by self, then by total") {
		size_t n;
		prof_weight grand;
		struct prof_top_row *rows = prof_top_compute(&t, 0, &n, &grand);

		CHECK(grand == 10 && n == 4);	/* idle has no weight in column 0 */
		CHECK_STR(prof_stacks_frame_name(&t, rows[0].frame, NULL), "hot");
		CHECK_STR(prof_stacks_frame_name(&t, rows[1].frame, NULL), "work");
		CHECK_STR(prof_stacks_frame_name(&t, rows[2].frame, NULL), "rec");
		CHECK_STR(prof_stacks_frame_name(&t, rows[3].frame, NULL), "main");
		free(rows);
		rows = prof_top_compute(&t, 1, &n, &grand);
		CHECK_STR(prof_stacks_frame_name(&t, rows[0].frame, NULL), "main");
		CHECK_STR(prof_stacks_frame_name(&t, rows[1].frame, NULL), "work");
		free(rows);
	}

	TEST("hottest path stops at the hot leaf") {
		size_t depth;
		prof_weight w;
		uint32_t *path = prof_top_hot_path(&t, &depth, &w);

		CHECK(depth == 3 && w == 6);
		CHECK_STR(prof_stacks_frame_name(&t, path[2], NULL), "hot");
		free(path);
	}

	TEST("value formatting") {
		char buf[64];

		prof_top_format_value(buf, sizeof(buf), 3200000, "ns", 1);
		CHECK(strncmp(buf, "3.2", 3) == 0 && strstr(buf, " ms"));	/* prof_fmt_duration() */
		prof_top_format_value(buf, sizeof(buf), 3200000, "ns", 0);
		CHECK_STR(buf, "3200000");
		prof_top_format_value(buf, sizeof(buf), 4096, "bytes", 1);
		CHECK_STR(buf, "4096");
	}

	TEST("TSV and human reports") {
		struct prof_top_opts o;
		struct prof_meta meta = PROF_META_INIT;
		char path[] = "/tmp/test_top.XXXXXX", *text;
		int fd = mkstemp(path);

		memset(&o, 0, sizeof(o));
		o.n = 2;
		o.threshold_pct = 50;
		prof_meta_set(&meta, "unit", "ns");
		text = report(&t, &o, &meta, path);
		CHECK(text != NULL);
		CHECK_STR(text ? text : "",
			  "# unit=ns total=10 threshold_pct=50 sort=self hot_path=main;work;hot "
			  "hot_path_pct=60.00\n"
			  "rank\tfunction\tself\tself_pct\ttotal\ttotal_pct\tflag\n"
			  "1\thot\t6\t60.00\t6\t60.00\thot\n"
			  "2\twork\t2\t20.00\t8\t80.00\t\n");
		free(text);
		o.human = 1;
		o.unit = "ns";
		text = report(&t, &o, &meta, path);
		CHECK(text && strstr(text, "top 2 functions by self weight (total 10 ns)\n"));
		CHECK(text && strstr(text, "  <- hot (self >= 50%)\n"));
		CHECK(text && strstr(text, "hottest path (60.00%): main > work > hot\n"));
		free(text);
		prof_meta_release(&meta);
		if (fd >= 0)
			close(fd);
		unlink(path);
	}

	prof_stacks_release(&t);
	return UNIT_RESULT();
}
