/*
 * lib/flame/heatmap.c: proffold-heatmap TSV read back into cells (bucket
 * from the metadata or the offsets, other events skipped, malformed rows
 * and foreign input refused), the drawn document (a path per colour,
 * colours darker with weight, the tooltips' table, escaping), and the
 * HTML page of a recording: its range selection data.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/buf.h"
#include "base/error.h"
#include "core/meta.h"
#include "flame/flame.h"
#include "flame/heatmap.h"
#include "io/input.h"
#include "../unit.h"

/*
 * The green component of the fill of the path that draws a rectangle
 * from (x, y) in svg (a cell, or the first of a run down a column); -1
 * if none does (a white cell: the grid's background).
 */
static int green_of(const char *svg, int x, int y)
{
	char key[64];
	const char *p, *end;
	unsigned c;

	snprintf(key, sizeof(key), "M%d %dh", x, y);
	for (p = strstr(svg, "<path fill=\"#"); p; p = strstr(end, "<path fill=\"#")) {
		end = strstr(p, "/>");
		if (!end)
			return -1;
		if (sscanf(p + 13, "%6x", &c) == 1 && strstr(p, key) && strstr(p, key) < end)
			return (int)((c >> 8) & 0xff);
	}
	return -1;
}

#define HEADER "second\toffset_ms\tevent\tsamples\tweight\n"

int main(void)
{
	prof_set_progname("test_heatmap");
	prof_verbosity = 0;

	TEST("TSV: bucket from metadata, every cell placed, other events skipped") {
		char *path = unit_temp_file("# event=cpu-clock unit=ns bucket_ms=250\n" HEADER
				       "0\t0\tcpu-clock\t3\t30\n0\t500\tcpu-clock\t7\t70\n"
				       "1\t750\tcpu-clock\t1\t10\n1\t0\toffcpu-time\t9\t90\n");
		struct prof_heatmap hm;
		struct prof_meta meta = PROF_META_INIT;

		CHECK(prof_flame_heatmap_read_tsv(path, &hm, &meta) == 0);
		CHECK(hm.bucket_ns == 250000000 && hm.per_second == 4 && hm.seconds == 2);
		CHECK(hm.ncells == 8);
		CHECK(hm.ncells == 8 && hm.cells[0].samples == 3 && hm.cells[0].weight == 30);
		CHECK(hm.ncells == 8 && hm.cells[2].samples == 7 && hm.cells[1].samples == 0);
		CHECK(hm.ncells == 8 && hm.cells[7].samples == 1 && hm.cells[4].samples == 0);
		CHECK_STR(prof_meta_get(&meta, "unit"), "ns");
		prof_heatmap_release(&hm);
		prof_meta_release(&meta);
		unlink(path);
		free(path);
	}

	TEST("TSV: bucket from the offsets; the event from the rows") {
		char *path = unit_temp_file(HEADER "0\t0\tx\t1\t1\n0\t100\tx\t2\t2\n0\t300\tx\t4\t4\n");
		struct prof_heatmap hm;
		struct prof_meta meta = PROF_META_INIT;

		CHECK(prof_flame_heatmap_read_tsv(path, &hm, &meta) == 0);
		CHECK(hm.bucket_ns == 100000000 && hm.per_second == 10 && hm.seconds == 1);
		CHECK(hm.ncells == 10 && hm.cells[3].samples == 4);
		CHECK_STR(prof_meta_get(&meta, "event"), "x");
		prof_heatmap_release(&hm);
		prof_meta_release(&meta);
		unlink(path);
		free(path);
	}

	TEST("TSV refused: other input, no rows, malformed rows (the rest kept)") {
		char *other = unit_temp_file("main;work 5\n"), *empty = unit_temp_file(HEADER);
		char *bad = unit_temp_file(HEADER "0\t0\tx\t1\t1\n0\t1000\tx\t1\t1\nzz\n");
		struct prof_heatmap hm;
		struct prof_meta meta = PROF_META_INIT;

		CHECK(prof_flame_heatmap_read_tsv(other, &hm, &meta) == -2);
		prof_heatmap_release(&hm);
		CHECK(prof_flame_heatmap_read_tsv(empty, &hm, &meta) == -2);
		prof_heatmap_release(&hm);
		CHECK(prof_flame_heatmap_read_tsv(bad, &hm, &meta) == -1);
		CHECK(hm.ncells >= 1 && hm.cells[0].samples == 1);
		prof_heatmap_release(&hm);
		CHECK(prof_flame_heatmap_read_tsv("/nonexistent/hm.tsv", &hm, &meta) == -2);
		prof_heatmap_release(&hm);
		prof_meta_release(&meta);
		unlink(other);
		unlink(empty);
		unlink(bad);
		free(other);
		free(empty);
		free(bad);
	}

	TEST("drawing: a path per colour, darker with weight, the tooltips' table, escaped names") {
		char *in = unit_temp_file("# bucket_ms=500 unit=ns\n" HEADER
				     "0\t0\t<e>&\"\t1\t1000000\n0\t500\t<e>&\"\t0\t0\n"
				     "1\t0\t<e>&\"\t4\t4000000\n1\t500\t<e>&\"\t2\t2000000\n");
		char *out = strdup("/tmp/test_heatmap_svg.XXXXXX"), *svg;
		size_t read_len;
		struct prof_flame_opts fo;
		int fd = mkstemp(out);

		close(fd);
		prof_flame_opts_init(&fo);
		CHECK(prof_flame_heatmap_file(in, &fo, 0, out) == 0);
		svg = prof_read_file(out, &read_len);
		/* 2 s of 2 rows: cells 40 x 20 from (84, 60), under a white grid */
		CHECK(svg && strstr(svg, "<g id=\"cells\">\n<rect x=\"84\" y=\"60\" width=\"80\" "
				    "height=\"40\" fill=\"#ffffff\"/>\n<path fill="));
		/* no <title> per cell: the script builds the tooltip from the table */
		CHECK(svg && !strstr(svg, "<title>"));
		CHECK(svg && strstr(svg, "\nrows: [[\"000\",\"500\",0,\"0-500\"],"
				    "[\"500\",\"000\",1,\"500-1000\"]],\nn: [1,0,4,2],\n"
				    "w: \"1.00 0.00 4.00 2.00\"};\nvar profHeatmap = "));
		CHECK(svg && strstr(svg, "unit: \" ms\""));
		CHECK(svg && strstr(svg, "event: &lt;e&gt;&amp;&quot;"));
		CHECK(svg && !strstr(svg, "<e>"));
		/* weights 0 < 1 < 2 < 4 ms: green strictly decreasing */
		CHECK(svg && green_of(svg, 84, 80) == -1);
		CHECK(svg && green_of(svg, 84, 60) > green_of(svg, 124, 80));
		CHECK(svg && green_of(svg, 124, 80) > green_of(svg, 124, 60));
		CHECK(svg && green_of(svg, 124, 60) == 0x14);
		CHECK(svg && strstr(svg, ">4.00 ms (the heaviest cell)</text>"));
		free(svg);
		unlink(in);
		unlink(out);
		free(in);
		free(out);
	}

	TEST("a recording as HTML: names and stacks once, cells of (stack, weight), escaped") {
		/* 2 samples of a;b in cell 0, one of a;<c> in cell 0, one of a;b in cell 2 */
		char *in = unit_temp_file("time_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack\n"
				     "1000000\t1\t1\tx\t0\tcpu-clock\t5\t1\ta;b\n"
				     "2000000\t1\t1\tx\t0\tcpu-clock\t7\t1\t\n"
				     "3000000\t1\t1\tx\t0\tcpu-clock\t11\t2\ta;</script><c>\n"
				     "45000000\t1\t1\tx\t0\tcpu-clock\t13\t1\t\n");
		char *out = strdup("/tmp/test_heatmap_html.XXXXXX"), *html, *script;
		size_t read_len;
		struct prof_flame_opts fo;
		int fd = mkstemp(out);

		close(fd);
		prof_flame_opts_init(&fo);
		fo.html = 1;
		CHECK(prof_flame_heatmap_file(in, &fo, 0, out) == 0);
		html = prof_read_file(out, &read_len);
		script = html ? strstr(html, "var HM = ") : NULL;
		CHECK(script != NULL);
		/* names in byte order, each once; the root x is the comm */
		CHECK(script && strstr(script, "\nnames: [\"\\u003c/script\\u003e\\u003cc\\u003e\",\"a\",\"b\",\"x\"],"));
		CHECK(script && strstr(script, "\nstacks: [[3,1,2],[3,1,0]],"));
		/* cell 0: 2 pairs, a;b 12, a;<c> 11 (index 0, then +1); cell 1 none;
		 * cell 2: a;b 13; the rest of the second's 50 cells none. Base-32
		 * digits, a number's last from "g..._" (g = 0) */
		CHECK(script && strstr(script, "\nnpairs: 3, scale: 1e0,\ncells: \"igshrghgtggg"));
		CHECK(script && strstr(script, "ggg\"};\nfunction profFlame(fr, C) {"));
		/* the samples per cell are the tooltips' */
		CHECK(html && strstr(html, "\nn: [3,0,1,0,0,"));
		CHECK(script && strstr(script, "input: \""));
		CHECK(html && !strstr(html, "<c>"));
		free(html);
		unlink(in);
		unlink(out);
		free(in);
		free(out);
	}
	TEST("a recording as HTML: fractional weights in the power of ten that makes them integers") {
		char *in = unit_temp_file("time_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack\n"
				     "1000000\t1\t1\tx\t0\tcpu-clock\t1.5\t1\ta;b\n"
				     "2000000\t1\t1\tx\t0\tcpu-clock\t0.25\t2\ta;c\n"
				     "45000000\t1\t1\tx\t0\tcpu-clock\t3\t1\t\n");
		char *out = strdup("/tmp/test_heatmap_html.XXXXXX"), *html;
		size_t read_len;
		struct prof_flame_opts fo;
		int fd = mkstemp(out);

		close(fd);
		prof_flame_opts_init(&fo);
		fo.html = 1;
		CHECK(prof_flame_heatmap_file(in, &fo, 0, out) == 0);
		html = prof_read_file(out, &read_len);
		/* 150 = 4 * 32 + 22 ("E2"), 25 ("5"), 300 = 9 * 32 + 12 ("Js") */
		CHECK(html && strstr(html, "\nnpairs: 3, scale: 1e2,\ncells: \"igE2h5ghgJsggg"));
		free(html);
		unlink(in);
		unlink(out);
		free(in);
		free(out);
	}
	return UNIT_RESULT();
}
