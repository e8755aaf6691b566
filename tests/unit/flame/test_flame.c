/*
 * lib/flame: colours identical to flamegraph.pl's (values taken from its
 * output), annotations, layout (merging, pruning, flame charts,
 * differentials), the stack rewrites through core/transform.h with a
 * flame chart's order following them, normalising, palette files and the
 * SVG writer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/buf.h"
#include "flame/flame.h"
#include "formats/folded.h"
#include "io/input.h"
#include "io/output.h"
#include "core/meta.h"
#include "core/stack.h"
#include "../unit.h"

#define RGB(r, g, b) (((uint32_t)(r) << 16) | ((uint32_t)(g) << 8) | (uint32_t)(b))

static uint32_t color(const char *pal, int hash, const char *name)
{
	enum prof_flame_palette p;

	if (prof_flame_palette_parse(pal, &p))
		return 0xffffffff;
	return prof_flame_color(p, hash, name, strlen(name));
}

/* Read folded text into a fresh 2-column table as the profile reader does. */
static int load(struct prof_stacks *t, const char *text, struct prof_flame_seq *seq,
		struct prof_folded_stats *st)
{
	struct prof_lines *lr = prof_lines_from_mem("test", text, strlen(text));
	struct prof_folded_reader fr;
	int r;

	prof_stacks_init(t, 2);
	memset(st, 0, sizeof(*st));
	prof_folded_reader_init(&fr, t, NULL, st, "test");
	if (seq) {
		fr.on_stack = prof_flame_seq_on_stack;
		fr.ctx = seq;
	}
	r = prof_folded_reader_run(&fr, lr);
	prof_lines_close(lr);
	return r;
}

/* The folded text of t's stacks, sorted, "stack w0 w1" per line (malloc'ed). */
static char *dump(const struct prof_stacks *t)
{
	struct prof_buf b = PROF_BUF_INIT;
	size_t n, i;
	uint32_t *ids = prof_stacks_sorted(t, &n);

	for (i = 0; i < n; i++) {
		const prof_weight *w = prof_stacks_weights(t, ids[i]);

		prof_stacks_format(t, ids[i], &b);
		prof_buf_addf(&b, " %.0Lf %.0Lf\n", w[0], w[1]);
	}
	free(ids);
	return prof_buf_detach(&b, NULL);
}

/* Find the drawn frame named name at depth; NULL if none. */
static const struct prof_flame_node *node(const struct prof_flame_graph *g,
					  const struct prof_stacks *t, const char *name,
					  unsigned depth)
{
	size_t i;

	for (i = 0; i < g->n; i++) {
		const struct prof_flame_node *n = &g->nodes[i];

		if (n->depth != depth)
			continue;
		if (n->frame == UINT32_MAX ? strcmp(name, "all") == 0
		    : strcmp(prof_stacks_frame_name(t, n->frame, NULL), name) == 0)
			return n;
	}
	return NULL;
}

int main(void)
{
	struct prof_flame_opts o;

	prof_flame_opts_init(&o);

	TEST("colours: name-seeded palettes equal flamegraph.pl's") {
		CHECK(color("hot", 0, "main") == RGB(243, 179, 42));
		CHECK(color("hot", 0, "malloc") == RGB(230, 119, 28));
		CHECK(color("hot", 0, "") == RGB(213, 39, 9));
		CHECK(color("hot", 0, "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e") == RGB(253, 223, 53));
		CHECK(color("hot", 0, "libc.so`memcpy") == RGB(232, 125, 30));
		CHECK(color("mem", 0, "main") == RGB(0, 228, 163));
		CHECK(color("io", 0, "malloc") == RGB(111, 111, 218));
		CHECK(color("red", 0, "main") == RGB(242, 112, 112));
		CHECK(color("java", 0, "malloc") == RGB(228, 91, 91));
	}
	TEST("colours: --hash equals flamegraph.pl's namehash") {
		CHECK(color("hot", 1, "main") == RGB(247, 83, 46));
		CHECK(color("hot", 1, "malloc") == RGB(238, 112, 36));
		CHECK(color("hot", 1, "libc.so`memcpy") == RGB(240, 144, 39));
		CHECK(color("hot", 1, "") == RGB(255, 230, 55));
	}
	TEST("colours: multi palettes pick by annotation and name") {
		uint32_t c = color("java", 0, "Interpreter_[j]");

		CHECK((c & 0xff) == ((c >> 16) & 0xff) && ((c >> 8) & 0xff) >= 200);	/* green */
		c = color("java", 0, "vfs_read_[k]");
		CHECK((c & 0xff) == 0 && (c >> 16) >= 190);				/* orange */
		c = color("java", 0, "std::vector<int>::push_back");
		CHECK((c >> 16) == ((c >> 8) & 0xff) && (c & 0xff) <= 70);		/* yellow */
		c = color("java", 0, "Ljava/lang/String;::hashCode");
		CHECK(((c >> 8) & 0xff) >= 200 && (c >> 16) < 120);			/* green */
		c = color("chain", 0, "waker_[w]");
		CHECK((c >> 16) < 120 && ((c >> 8) & 0xff) >= 165);			/* aqua */
		c = color("js", 0, "/app/index.js:42");
		CHECK(((c >> 8) & 0xff) >= 200 && (c >> 16) < 120);			/* green */
		CHECK(color("nope", 0, "x") == 0xffffffff);
	}
	TEST("annotations are stripped only at the end") {
		CHECK(prof_flame_deannotate("a_[k]", 5) == 1);
		CHECK(prof_flame_deannotate("a_[w]", 5) == 1);
		CHECK(prof_flame_deannotate("a_[x]", 5) == 5);
		CHECK(prof_flame_deannotate("_[j]x", 5) == 5);
		CHECK(prof_flame_deannotate("[k]", 3) == 3);
	}
	TEST("background names") {
		char c1[8], c2[8];

		CHECK(prof_flame_bg_parse("blue", c1, c2) == 0 && strcmp(c2, "#e0e0ff") == 0);
		CHECK(prof_flame_bg_parse("#123abc", c1, c2) == 0 && strcmp(c1, "#123abc") == 0);
		CHECK(prof_flame_bg_parse("#123abz", c1, c2) == -1);
		CHECK(strcmp(prof_flame_palette_bg(PROF_PAL_MEM), "green") == 0);
	}
	TEST("layout: merge, order, widths") {
		struct prof_stacks t;
		struct prof_folded_stats st;
		struct prof_flame_graph g;
		const struct prof_flame_node *a, *b, *c, *root;

		CHECK(load(&t, "a;c 2\nb 5\na;b 1\na 4\na;c 3\n", NULL, &st) == 0);
		CHECK(st.lines == 5 && st.ncounts == 1);
		CHECK(prof_flame_layout(&g, &t, NULL, 0, &o) == 0);
		CHECK(g.n == 5 && g.sum == 15 && g.depthmax == 2);
		root = node(&g, &t, "all", 0);
		a = node(&g, &t, "a", 1);
		b = node(&g, &t, "b", 2);
		c = node(&g, &t, "c", 2);
		CHECK(root && root->start == 0 && root->width == 15);
		/* a's own 4 come first, then its callees by name */
		CHECK(a && a->start == 0 && a->width == 10);
		CHECK(b && b->start == 4 && b->width == 1);
		CHECK(c && c->start == 5 && c->width == 5);
		CHECK(node(&g, &t, "b", 1) && node(&g, &t, "b", 1)->start == 10);
		prof_flame_graph_release(&g);
		prof_stacks_release(&t);
	}
	TEST("layout: minwidth prunes, maxdepth caps") {
		struct prof_stacks t;
		struct prof_folded_stats st;
		struct prof_flame_graph g;
		struct prof_flame_opts p = o;

		load(&t, "big;x;y;z 10000\nsmall 1\n", NULL, &st);
		p.minwidth = 1;
		p.minwidth_pct = 1;
		p.maxdepth = 2;
		CHECK(prof_flame_layout(&g, &t, NULL, 0, &p) == 0);
		CHECK(node(&g, &t, "small", 1) == NULL && g.pruned == 1);
		CHECK(node(&g, &t, "x", 2) != NULL && node(&g, &t, "y", 3) == NULL);
		CHECK(g.too_deep == 2 && g.depthmax == 2);
		prof_flame_graph_release(&g);
		prof_stacks_release(&t);
	}
	TEST("layout: flame chart keeps input order") {
		struct prof_stacks t;
		struct prof_folded_stats st;
		struct prof_flame_seq seq = { 0 };
		struct prof_flame_graph g;
		size_t i, as = 0;

		load(&t, "a;b 1\nc 2\na;b 3\na;d 1\n", &seq, &st);
		CHECK(seq.n == 4 && prof_stacks_count(&t) == 3);
		CHECK(prof_flame_layout(&g, &t, &seq, 0, &o) == 0);
		for (i = 0; i < g.n; i++)
			as += g.nodes[i].frame != UINT32_MAX &&
			      strcmp(prof_stacks_frame_name(&t, g.nodes[i].frame, NULL), "a") == 0;
		CHECK(as == 2);		/* a, c, a: not merged across c */
		CHECK(node(&g, &t, "c", 1)->start == 1);
		prof_flame_graph_release(&g);
		prof_flame_seq_release(&seq);
		prof_stacks_release(&t);
	}
	TEST("layout: differential self deltas") {
		struct prof_stacks t;
		struct prof_folded_stats st;
		struct prof_flame_graph g;

		CHECK(load(&t, "a;b 10 20\na;c 20 10\na 1 0\n", NULL, &st) == 0);
		CHECK(st.ncounts == 2);
		CHECK(prof_flame_layout(&g, &t, NULL, 1, &o) == 0);
		CHECK(g.sum == 30 && g.maxdelta == 10);
		CHECK(node(&g, &t, "b", 2)->delta == 10 && node(&g, &t, "c", 2)->delta == -10);
		CHECK(node(&g, &t, "a", 1)->delta == -1 && node(&g, &t, "a", 1)->width == 30);
		prof_flame_graph_release(&g);
		prof_stacks_release(&t);
	}
	TEST("read: forms, frames with numbers, bad lines") {
		struct prof_stacks t;
		struct prof_folded_stats st;
		size_t d;

		/* the first line decides the form */
		CHECK(load(&t, "x 1\njava;Thread 12 5\n", NULL, &st) == 0);
		CHECK(st.ncounts == 1 && prof_stacks_count(&t) == 2);
		CHECK(strcmp(prof_stacks_frame_name(&t, prof_stacks_frames(&t, 1, &d)[1], NULL),
			     "Thread 12") == 0 && d == 2);
		CHECK(prof_stacks_weights(&t, 1)[0] == 5);
		prof_stacks_release(&t);
		CHECK(load(&t, "a 1\nnocount\nb -3\n", NULL, &st) == -1);
		CHECK(st.lines == 1 && st.malformed == 2);
		prof_stacks_release(&t);
	}
	TEST("rewrites through core/transform.h: reverse, base, chain") {
		struct prof_stacks t;
		struct prof_folded_stats st;
		const char *names[] = { "m" };
		struct prof_buf b = PROF_BUF_INIT;

		load(&t, "a;m;x 1\nb;m;x 2\nc 4\nw;--;k 1\n", NULL, &st);
		{
			struct prof_transform x = PROF_TRANSFORM_INIT;

			x.reverse = 1;
			CHECK(prof_flame_transform(&t, &x, NULL) == 4);
			prof_stacks_format(&t, 0, &b);
			CHECK_STR(b.data, "x;m;a");
			CHECK(prof_stacks_count(&t) == 4);
		}
		prof_stacks_release(&t);

		load(&t, "a;m;x 1\nb;m;x 2\nc 4\nw;--;k 1\n", NULL, &st);
		{
			struct prof_transform x = PROF_TRANSFORM_INIT;

			x.base = names;
			x.nbase = 1;
			CHECK(prof_flame_transform(&t, &x, NULL) == 2);
			CHECK(prof_stacks_count(&t) == 1 && prof_stacks_weights(&t, 0)[0] == 3);
		}
		prof_stacks_release(&t);

		load(&t, "a;m;x 1\nb;m;x 2\nc 4\nw;--;k 1\n", NULL, &st);
		{
			struct prof_transform x = PROF_TRANSFORM_INIT;

			x.tag_wakers = 1;
			CHECK(prof_flame_transform(&t, &x, NULL) == 4);
			prof_buf_reset(&b);
			prof_stacks_format(&t, 3, &b);
			CHECK_STR(b.data, "w;--;k_[w]");
		}
		prof_buf_release(&b);
		prof_stacks_release(&t);
	}
	TEST("rewrites: a flame chart's input order follows its stacks") {
		struct prof_stacks t;
		struct prof_folded_stats st;
		struct prof_flame_seq seq = { 0 };
		struct prof_transform x = PROF_TRANSFORM_INIT;
		const char *names[] = { "b" };
		struct prof_buf b = PROF_BUF_INIT;

		/* --reverse --base b: "c" goes, both a;b lines become one stack b;a */
		load(&t, "a;b 1\nc 2\nd;b 3\na;b 4\n", &seq, &st);
		x.reverse = 1;
		x.base = names;
		x.nbase = 1;
		CHECK(prof_flame_transform(&t, &x, &seq) == 2);
		CHECK(seq.n == 3 && prof_stacks_count(&t) == 2);
		CHECK(seq.ids[0] == seq.ids[2] && seq.ids[0] != seq.ids[1]);
		CHECK(seq.w[0] == 1 && seq.w[2] == 3 && seq.w[4] == 4);
		prof_stacks_format(&t, seq.ids[1], &b);
		CHECK_STR(b.data, "b;d");
		CHECK(prof_stacks_weights(&t, seq.ids[0])[0] == 5);
		prof_buf_release(&b);
		prof_flame_seq_release(&seq);
		prof_stacks_release(&t);
	}
	TEST("differential: --normalize scales BEFORE to AFTER's total") {
		struct prof_stacks t;
		struct prof_folded_stats st;
		struct prof_flame_seq seq = { 0 };

		load(&t, "a 20 20\nb 40 10\n", &seq, &st);
		CHECK(prof_flame_normalize(&t, &seq) == 1);
		CHECK(prof_stacks_weights(&t, 0)[0] == 10 && prof_stacks_weights(&t, 1)[0] == 20);
		CHECK(prof_stacks_weights(&t, 1)[1] == 10);
		CHECK(seq.w[0] == 10 && seq.w[2] == 20 && seq.w[3] == 10);
		CHECK(prof_flame_normalize(&t, NULL) == 0);	/* equal sums already */
		prof_flame_seq_release(&seq);
		prof_stacks_release(&t);
		load(&t, "a 0 5\n", NULL, &st);
		CHECK(prof_flame_normalize(&t, NULL) == 0 && prof_stacks_weights(&t, 0)[0] == 0);
		prof_stacks_release(&t);
	}
	TEST("colours from files: rgb() and #hex, the consistent palette map") {
		struct prof_flame_palmap m;
		uint32_t c = 0;

		CHECK(prof_flame_parse_color("rgb(1,2,3)", &c) == 0 && c == RGB(1, 2, 3));
		CHECK(prof_flame_parse_color("#A0b1C2", &c) == 0 && c == RGB(0xa0, 0xb1, 0xc2));
		CHECK(prof_flame_parse_color("rgb(1,2,256)", &c) == -1);
		CHECK(prof_flame_parse_color("rgb(1,2,3) ", &c) == -1);
		CHECK(prof_flame_parse_color("#12345", &c) == -1);
		CHECK(prof_flame_diff_color(0, 10) == RGB(255, 255, 255));
		CHECK(prof_flame_diff_color(10, 10) == RGB(255, 0, 0));
		CHECK(prof_flame_diff_color(-5, 10) == RGB(105, 105, 255));
		prof_flame_palmap_init(&m);
		CHECK(prof_flame_palmap_get(&m, "f", 1, &c) == -1);
		prof_flame_palmap_set(&m, "f", 1, RGB(9, 8, 7));
		prof_flame_palmap_set(&m, "g", 1, 1);
		prof_flame_palmap_set(&m, "f", 1, RGB(1, 2, 3));
		CHECK(prof_flame_palmap_get(&m, "f", 1, &c) == 0 && c == RGB(1, 2, 3));
		CHECK(prof_flame_palmap_get(&m, "g", 1, &c) == 0 && c == 1);
		prof_flame_palmap_release(&m);
	}
	TEST("reading any profile: folded, profrec TSV, perf script; chart order") {
		char *folded = unit_temp_file("# unit=bytes\na;b 3\nc 4\n");
		char *tsv = unit_temp_file("# source=profrec event=cpu-clock unit=ns\n"
				      "time_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack\n"
				      "1\t5\t6\tw\t0\tcpu-clock\t10\t1\ta;b\n"
				      "2\t5\t6\tw\t0\tcpu-clock\t20\t2\ta\n"
				      "3\t5\t6\tw\t0\tcpu-clock\t10\t1\t\n");
		char *perf = unit_temp_file("app 123 [000] 1.000000: 1 cycles:\n"
				       "\t4005d0 leaf (/bin/app)\n\t400600 main (/bin/app)\n\n"
				       "app 123 [000] 1.100000: 1 cycles:\n"
				       "\t400600 main (/bin/app)\n\n");
		const char *paths[1];
		struct prof_stacks t;
		struct prof_meta meta = PROF_META_INIT;
		struct prof_flame_seq seq = { 0 };
		int ncounts = 0;
		char *got;

		paths[0] = folded;
		prof_stacks_init(&t, 2);
		CHECK(prof_flame_read_profiles(paths, 1, &t, &meta, NULL, &ncounts) == 0);
		CHECK(ncounts == 1 && strcmp(prof_meta_get(&meta, "unit"), "bytes") == 0);
		got = dump(&t);
		CHECK_STR(got, "a;b 3 0\nc 4 0\n");
		free(got);
		prof_stacks_release(&t);
		prof_meta_release(&meta);

		paths[0] = tsv;
		prof_stacks_init(&t, 2);
		CHECK(prof_flame_read_profiles(paths, 1, &t, &meta, &seq, &ncounts) == 0);
		got = dump(&t);
		CHECK_STR(got, "w;a 20 0\nw;a;b 20 0\n");
		CHECK_STR(prof_meta_get(&meta, "unit"), "ns");
		/* a flame chart keeps the samples' order: b, a, b again */
		CHECK(seq.n == 3 && seq.ids[0] == seq.ids[2] && seq.ids[0] != seq.ids[1]);
		CHECK(seq.w[0] == 10 && seq.w[2] == 20);
		free(got);
		prof_flame_seq_release(&seq);
		prof_stacks_release(&t);
		prof_meta_release(&meta);

		paths[0] = perf;
		prof_stacks_init(&t, 2);
		CHECK(prof_flame_read_profiles(paths, 1, &t, &meta, NULL, &ncounts) == 0);
		got = dump(&t);
		CHECK_STR(got, "app;main 1 0\napp;main;leaf 1 0\n");
		free(got);
		prof_stacks_release(&t);
		prof_meta_release(&meta);
		unlink(folded);
		unlink(tsv);
		unlink(perf);
		free(folded);
		free(tsv);
		free(perf);
	}
	TEST("reading: a missing or unreadable input draws nothing, -2") {
		char *ok = unit_temp_file("a 1\n");
		const char *paths[2] = { ok, "/nonexistent/test_flame" };
		struct prof_stacks t;
		struct prof_meta meta = PROF_META_INIT;
		int ncounts;

		prof_stacks_init(&t, 2);
		CHECK(prof_flame_read_profiles(paths, 2, &t, &meta, NULL, &ncounts) == -2);
		paths[1] = "/tmp";
		CHECK(prof_flame_read_profiles(paths, 2, &t, &meta, NULL, &ncounts) == -2);
		prof_stacks_release(&t);
		prof_meta_release(&meta);
		unlink(ok);
		free(ok);
	}
	TEST("reading --diff: BEFORE and AFTER into columns 0 and 1") {
		char *before = unit_temp_file("a;b 10\na;c 20\n");
		char *after = unit_temp_file("a;b 20\nd 5\n");
		char *two = unit_temp_file("a 1 2\n");
		struct prof_stacks t;
		struct prof_meta meta = PROF_META_INIT;
		char *got;

		prof_stacks_init(&t, 2);
		CHECK(prof_flame_read_diff(before, after, &t, &meta) == 0);
		got = dump(&t);
		CHECK_STR(got, "a;b 10 20\na;c 20 0\nd 0 5\n");
		free(got);
		prof_stacks_release(&t);
		prof_stacks_init(&t, 2);
		CHECK(prof_flame_read_diff(two, after, &t, &meta) == -2);	/* reported */
		prof_stacks_release(&t);
		prof_meta_release(&meta);
		unlink(before);
		unlink(after);
		unlink(two);
		free(before);
		free(after);
		free(two);
	}
	TEST("reading a tool's operands: profiles, a --diff pair (named for the legend)") {
		char *before = unit_temp_file("a;b 10\n");
		char *after = unit_temp_file("a;b 20\nd 5\n");
		const char *paths[2] = { before, after };
		struct prof_flame_opts fo;
		struct prof_stacks t;
		struct prof_meta meta = PROF_META_INIT;
		int diff = -1;
		char *got;

		prof_flame_opts_init(&fo);
		prof_stacks_init(&t, 2);
		CHECK(prof_flame_read_inputs(paths, 2, 0, &t, &meta, NULL, &fo, &diff) == 0);
		CHECK(diff == 0 && fo.diff_before == NULL);
		got = dump(&t);
		CHECK_STR(got, "a;b 30 0\nd 5 0\n");
		free(got);
		prof_stacks_release(&t);
		prof_stacks_init(&t, 2);
		CHECK(prof_flame_read_inputs(paths, 2, 1, &t, &meta, NULL, &fo, &diff) == 0);
		CHECK(diff == 1 && fo.diff_before == before && fo.diff_after == after);
		got = dump(&t);
		CHECK_STR(got, "a;b 10 20\nd 0 5\n");
		free(got);
		prof_stacks_release(&t);
		prof_meta_release(&meta);
		unlink(before);
		unlink(after);
		free(before);
		free(after);
	}
	TEST("writing: frames under --compact-width go in the script's table, not the markup") {
		char svg[] = "/tmp/test_flame_svg.XXXXXX";
		struct prof_stacks t;
		struct prof_folded_stats st;
		struct prof_flame_graph g;
		struct prof_flame_opts p = o;
		size_t read_len;
		char *out;
		int fd = mkstemp(svg);

		close(fd);
		/* b: 1180 / 2001 = 0.59 px, from x 1189.41 */
		load(&t, "a 2000\nb 1\n", NULL, &st);
		CHECK(prof_flame_layout(&g, &t, NULL, 0, &p) == 0);
		CHECK(prof_flame_write_file(&g, &t, &p, svg, NULL, NULL) == 0);
		out = prof_read_file(svg, &read_len);
		CHECK(out && strstr(out, "<title>a (2,000 samples") && !strstr(out, "<title>b ("));
		/* depth 1 (B), 1 frame (B), x 118941 zigzagged (237882: 7 8 9 26 in
		 * base 32: nopa), width 59 (1 27: hb), name 0 (A), count 1 (B) */
		CHECK(out && strstr(out, ", kw: 1, rh: 15, tot: 2001, k: {s: \"BBnopahbAB\", n: [\"b\"], c: [\"#"));
		CHECK(out && strstr(out, "\"], nc: \"A\", pn: false, diff: false}"));
		free(out);
		p.compactwidth = 0;
		CHECK(prof_flame_write_file(&g, &t, &p, svg, NULL, NULL) == 0);
		out = prof_read_file(svg, &read_len);
		CHECK(out && strstr(out, "<title>b (1 samples, 0.05%)</title>") && !strstr(out, "k: {"));
		free(out);
		prof_flame_graph_release(&g);
		prof_stacks_release(&t);
		unlink(svg);
	}
	TEST("writing: tooltips, geometry, consistent palette and name attributes") {
		char *pal = unit_temp_file("b->rgb(1,2,3)\n");
		char *attrs = unit_temp_file("a\thref=https://x/?a&b\tclass=k\n");
		char svg[] = "/tmp/test_flame_svg.XXXXXX";
		size_t read_len;
		struct prof_stacks t;
		struct prof_folded_stats st;
		struct prof_flame_graph g;
		struct prof_flame_opts p = o;
		char *out, *map;
		int fd = mkstemp(svg);

		close(fd);
		load(&t, "a;b 1\na 2\n", NULL, &st);
		CHECK(prof_flame_layout(&g, &t, NULL, 0, &p) == 0);
		CHECK(prof_flame_write_file(&g, &t, &p, svg, pal, attrs) == 0);
		CHECK(p.palmap == NULL && p.nameattr == NULL);
		out = prof_read_file(svg, &read_len);
		CHECK(out && strncmp(out, "<?xml ", 6) == 0);
		CHECK(out && strstr(out, "<g><title>all (3 samples, 100%)</title><rect x=\"10\" y=\"69\" "
				    "width=\"1180\" height=\"15\" fill=\"#d52709\" class=\"dk\"/>"));
		CHECK(out && strstr(out, "<g><title>b (1 samples, 33.33%)</title><rect x=\"796.67\" "
				    "y=\"37\" width=\"393.33\" height=\"15\" fill=\"#010203\" class=\"dk\"/>"));
		CHECK(out && strstr(out, "<a xlink:href=\"https://x/?a&amp;b\" target=\"_top\" "
				    "class=\"k\"><title>a (3 samples, 100.00%)</title>"));
		CHECK(out && strlen(out) > 17 && strcmp(out + strlen(out) - 17, "</script>\n</svg>\n") == 0);
		map = prof_read_file(pal, &read_len);
		/* sorted by name; the root's name is empty */
		CHECK(map && strcmp(map, "->rgb(213,39,9)\na->rgb(236,146,35)\nb->rgb(1,2,3)\n") == 0);
		free(map);
		free(out);
		prof_flame_graph_release(&g);
		prof_stacks_release(&t);
		unlink(svg);
		unlink(pal);
		unlink(attrs);
		free(pal);
		free(attrs);
	}
	TEST("palette names: every one listed parses back to itself") {
		enum prof_flame_palette p;
		const char *name;
		size_t i;

		for (i = 0; (name = prof_flame_palette_name(i)) != NULL; i++) {
			CHECK(prof_flame_palette_parse(name, &p) == 0);
			CHECK((size_t)p == i);
		}
		CHECK(i == 15);
	}

	TEST("random colours: in the palette, different per call, multi palettes by name") {
		uint64_t state = 1;
		uint32_t c, first = prof_flame_color_random(PROF_PAL_HOT, "x", 1, &state);
		int k, differ = 0;

		for (k = 0; k < 100; k++) {
			c = prof_flame_color_random(PROF_PAL_HOT, "x", 1, &state);
			CHECK((c >> 16) >= 205 && ((c >> 8) & 0xff) <= 230 && (c & 0xff) <= 55);
			differ += c != first;
		}
		CHECK(differ >= 95);
		/* java: a _[k] frame stays orange (blue 0), a _[j] frame green */
		for (k = 0; k < 100; k++) {
			c = prof_flame_color_random(PROF_PAL_JAVA, "f_[k]", 5, &state);
			CHECK((c & 0xff) == 0 && (c >> 16) >= 190);
			c = prof_flame_color_random(PROF_PAL_JAVA, "f_[j]", 5, &state);
			CHECK(((c >> 8) & 0xff) >= 200 && (c >> 16) <= 110);
		}
	}
	return UNIT_RESULT();
}
