/*
 * Stack transformations (every step, alone and together, and the map of
 * where each stack went), the --top report and the profrec TSV reader.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/buf.h"
#include "core/intern.h"
#include "io/chunk.h"
#include "formats/folded.h"
#include "io/input.h"
#include "formats/samples_tsv.h"
#include "core/stack.h"
#include "core/top.h"
#include "core/transform.h"
#include "../unit.h"

static void load(struct prof_stacks *t, const char *text)
{
	char *copy = strdup(text), *line, *save = NULL;

	prof_stacks_init(t, 1);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct prof_folded_line fl;
		const char *why;

		if (prof_folded_parse(line, strlen(line), &fl, &why) == 0)
			prof_folded_add(t, fl.stack, fl.stack_len, fl.counts, fl.ncounts);
	}
	free(copy);
}

static char *dump(const struct prof_stacks *t)
{
	struct prof_buf b = PROF_BUF_INIT;
	size_t n, i;
	uint32_t *ids = prof_stacks_sorted(t, &n);

	for (i = 0; i < n; i++) {
		char num[64];

		prof_stacks_format(t, ids[i], &b);
		prof_format_count(num, prof_stacks_weights(t, ids[i])[0]);
		prof_buf_addf(&b, " %s\n", num);
	}
	free(ids);
	return prof_buf_detach(&b, NULL);
}

static char *transform(const char *in, const struct prof_transform *x)
{
	struct prof_stacks src, dst;
	char *out;

	load(&src, in);
	prof_stacks_init(&dst, 1);
	prof_transform_apply(x, &src, &dst);
	out = dump(&dst);
	prof_stacks_release(&src);
	prof_stacks_release(&dst);
	return out;
}

static const char input[] = "app;main;f;f;f;leaf 1\napp;main;g;leaf 2\napp;main;h;x 4\nother;main;f 8\n";

int main(void)
{
	char err[128], *got;

	TEST("a table wider than PROF_STACKS_MAX_WEIGHTS keeps every column") {
		struct prof_stacks src, dst;
		struct prof_transform x = PROF_TRANSFORM_INIT;
		prof_weight w[7] = { 1, 2, 3, 4, 5, 6, 7 };
		uint32_t f[2];
		size_t depth;
		const uint32_t *df;

		prof_stacks_init(&src, 7);
		prof_stacks_init(&dst, 7);
		f[0] = prof_stacks_frame(&src, "root", 4);
		f[1] = prof_stacks_frame(&src, "leaf", 4);
		prof_stacks_add(&src, f, 2, w);
		x.reverse = 1;
		prof_transform_apply(&x, &src, &dst);
		CHECK(prof_stacks_count(&dst) == 1);
		df = prof_stacks_frames(&dst, 0, &depth);
		CHECK(depth == 2 && !strcmp(prof_stacks_frame_name(&dst, df[0], NULL), "leaf"));
		for (int i = 0; i < 7; i++)
			CHECK(prof_stacks_weights(&dst, 0)[i] == w[i]);
		prof_stacks_release(&src);
		prof_stacks_release(&dst);
	}
	TEST("focus and exclude by regex, any frame") {
		struct prof_transform x = PROF_TRANSFORM_INIT;

		CHECK(prof_transform_add_regex(&x, 0, "^(g|h)$", err, sizeof(err)) == 0);
		CHECK(prof_transform_add_regex(&x, 1, "^x", err, sizeof(err)) == 0);
		CHECK(prof_transform_active(&x));
		got = transform(input, &x);
		CHECK_STR(got, "app;main;g;leaf 2\n");
		free(got);
		CHECK(prof_transform_add_regex(&x, 0, "(", err, sizeof(err)) == -1 && err[0]);
		prof_transform_release(&x);
	}
	TEST("skip-after, strip-comm, collapse-recursion, max-depth, reverse") {
		struct prof_transform x = PROF_TRANSFORM_INIT;

		x.skip_after = "f";
		x.strip_comm = 1;
		got = transform(input, &x);
		CHECK_STR(got, "f 8\nf;leaf 1\nmain;g;leaf 2\nmain;h;x 4\n");
		free(got);
		x.skip_after = NULL;
		x.collapse_recursion = 1;
		x.max_depth = 3;
		x.reverse = 1;
		got = transform(input, &x);
		CHECK_STR(got, "f;main 8\nleaf;f;main 1\nleaf;g;main 2\nx;h;main 4\n");
		free(got);
	}
	TEST("tag_wakers: frames after \"--\" get _[w] once, in root-first order") {
		struct prof_transform x = PROF_TRANSFORM_INIT;

		x.tag_wakers = 1;
		CHECK(prof_transform_active(&x));
		got = transform("off;sleep;--;waker;wake_[w] 5\nw;--;k;--;j 1\nplain 2\n", &x);
		CHECK_STR(got, "off;sleep;--;waker_[w];wake_[w] 5\nplain 2\nw;--;k_[w];--;j_[w] 1\n");
		free(got);
		/* tagged before reversing: the waker half is the same frames */
		x.reverse = 1;
		got = transform("a;--;b 1\n", &x);
		CHECK_STR(got, "b_[w];--;a 1\n");
		free(got);
	}
	TEST("base: stacks start at the first named frame, the others dropped") {
		struct prof_transform x = PROF_TRANSFORM_INIT;
		const char *names[] = { "h", "main" };

		x.base = names;
		x.nbase = 1;
		CHECK(prof_transform_active(&x));
		got = transform(input, &x);
		CHECK_STR(got, "h;x 4\n");
		free(got);
		x.nbase = 2;	/* the first of any: main comes before h */
		got = transform(input, &x);
		CHECK_STR(got, "main;f 8\nmain;f;f;f;leaf 1\nmain;g;leaf 2\nmain;h;x 4\n");
		free(got);
		/* after reverse the first from the leaf: who calls main */
		x.reverse = 1;
		got = transform(input, &x);
		CHECK_STR(got, "h;main;app 4\nmain;app 3\nmain;other 8\n");
		free(got);
	}
	TEST("apply_map: where every stack went; replace in place") {
		struct prof_transform x = PROF_TRANSFORM_INIT;
		const char *names[] = { "g", "f" };
		struct prof_stacks t;
		uint32_t map[4];
		size_t d;

		load(&t, input);
		x.base = names;
		x.nbase = 2;
		x.collapse_recursion = 1;
		CHECK(prof_transform_replace(&x, &t, map) == 3);
		CHECK(prof_stacks_count(&t) == 3);	/* f;leaf 1, g;leaf 2, f 8 */
		CHECK(map[2] == UINT32_MAX);		/* app;main;h;x has neither */
		CHECK(map[0] != UINT32_MAX && map[1] != UINT32_MAX && map[3] != UINT32_MAX);
		CHECK(map[0] != map[1] && map[3] != map[0]);
		prof_stacks_frames(&t, map[3], &d);
		CHECK(d == 1 && prof_stacks_weights(&t, map[3])[0] == 8);
		prof_stacks_release(&t);
	}
	TEST("reverse alone: the same table profflame's own rewrite gave") {
		struct prof_transform x = PROF_TRANSFORM_INIT;
		struct prof_stacks src, dst;
		struct prof_buf b = PROF_BUF_INIT;
		uint32_t map[4];

		x.reverse = 1;
		load(&src, "a;m;x 1\nb;m;x 2\nc 4\nw;--;k 1\n");
		prof_stacks_init(&dst, 1);
		CHECK(prof_transform_apply_map(&x, &src, &dst, map) == 4);
		CHECK(map[0] == 0 && map[1] == 1 && map[2] == 2 && map[3] == 3);
		prof_stacks_format(&dst, 0, &b);
		prof_buf_addch(&b, '|');
		prof_stacks_format(&dst, 3, &b);
		CHECK_STR(b.data, "x;m;a|k;--;w");
		CHECK(prof_intern_count(&dst.frames) == prof_intern_count(&src.frames));
		prof_buf_release(&b);
		prof_stacks_release(&src);
		prof_stacks_release(&dst);
	}
	TEST("top: self, total once per stack, threshold, hot path") {
		struct prof_stacks t;
		struct prof_top_row *rows;
		size_t n, depth;
		prof_weight grand, w;
		uint32_t *path;

		load(&t, input);
		rows = prof_top_compute(&t, 0, &n, &grand);
		CHECK(grand == 15);
		CHECK(n == 8);
		CHECK_STR(prof_stacks_frame_name(&t, rows[0].frame, NULL), "f");
		CHECK(rows[0].self == 8 && rows[0].total == 9);	/* f;f;f counted once */
		CHECK_STR(prof_stacks_frame_name(&t, rows[1].frame, NULL), "x");
		free(rows);
		rows = prof_top_compute(&t, 1, &n, &grand);
		CHECK_STR(prof_stacks_frame_name(&t, rows[0].frame, NULL), "main");
		free(rows);
		path = prof_top_hot_path(&t, &depth, &w);
		CHECK(depth == 3 && w == 8);	/* other;main;f */
		CHECK_STR(prof_stacks_frame_name(&t, path[2], NULL), "f");
		free(path);
		prof_stacks_release(&t);
	}
	TEST("profrec TSV: stack ids, comm root, event filter, namespaces") {
		char path[] = "/tmp/test_transform.XXXXXX";
		int fd = mkstemp(path);
		FILE *f = fdopen(fd, "w");
		struct prof_stacks t;
		struct prof_samples_opts o;
		struct prof_samples_stats st;
		struct prof_meta meta = PROF_META_INIT;
		struct prof_chunks *r;

		fputs("# source=profrec event=cpu-clock unit=ns\n"
		      "time_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack\n"
		      "1\t5\t6\tw 1\t0\tcpu-clock\t10\t1\ta;b\n"
		      "2\t5\t6\tw 1\t0\tcycles\t99\t2\ta;c\n"
		      "3\t5\t6\tw 1\t0\tcpu-clock\t10\t2\t\n"
		      "time_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack\n"
		      "4\t5\t6\tw 1\t0\tcpu-clock\t5\t1\td\n", f);
		fclose(f);
		memset(&o, 0, sizeof(o));
		memset(&st, 0, sizeof(st));
		prof_stacks_init(&t, 1);
		r = prof_chunks_open(prof_input_open(path), 4096);
		CHECK(prof_samples_read(r, &t, &o, &meta, &st) == 0);
		prof_chunks_close(r);
		got = dump(&t);
		CHECK_STR(got, "w_1;a;b 10\nw_1;a;c 10\nw_1;d 5\n");
		CHECK(st.samples == 3 && st.other_samples == 1 && strcmp(st.others, "cycles") == 0);
		CHECK_STR(prof_meta_get(&meta, "unit"), "ns");
		free(got);
		prof_samples_stats_release(&st);
		prof_meta_release(&meta);
		prof_stacks_release(&t);
		unlink(path);
	}
	return UNIT_RESULT();
}
