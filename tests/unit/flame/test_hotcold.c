/*
 * lib/flame/hotcold.c: reading on-CPU and off-CPU sides (one recording
 * folded twice, two profiles, refusals), the layout's inclusive on-CPU
 * totals, and the drawn colours, tooltip split and legend.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/buf.h"
#include "base/error.h"
#include "core/meta.h"
#include "core/stack.h"
#include "flame/flame.h"
#include "io/input.h"
#include "../unit.h"

static const struct prof_flame_node *node(const struct prof_flame_graph *g,
					  const struct prof_stacks *t, const char *name)
{
	size_t i;

	for (i = 0; i < g->n; i++) {
		const struct prof_flame_node *n = &g->nodes[i];

		if (n->frame == UINT32_MAX ? strcmp(name, "all") == 0
		    : strcmp(prof_stacks_frame_name(t, n->frame, NULL), name) == 0)
			return n;
	}
	return NULL;
}

static const char recording[] =
	"# source=profrec event=cpu-clock,offcpu-time unit=ns,ns\n"
	"time_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack\n"
	"1\t7\t7\tapp\t0\tcpu-clock\t3000000\t1\tmain;work\n"
	"2\t7\t7\tapp\t0\tcpu-clock\t1000000\t2\tmain;sleep\n"
	"3\t7\t7\tapp\t0\toffcpu-time\t6000000\t2\t\n";

/* "#rrggbb" fill of the first frame whose tooltip starts with name. */
static unsigned fill_of(const char *svg, const char *name)
{
	char key[64];
	const char *p;
	unsigned c = 0;

	snprintf(key, sizeof(key), "<title>%s (", name);
	p = strstr(svg, key);
	p = p ? strstr(p, "fill=\"#") : NULL;
	if (p)
		sscanf(p + 7, "%6x", &c);
	return c;
}

int main(void)
{
	prof_set_progname("test_hotcold");
	prof_verbosity = 0;

	TEST("one recording: cpu-clock in column 0, offcpu-time in column 1, inclusive on-CPU") {
		char *path = unit_temp_file(recording), *out = strdup("/tmp/test_hotcold_svg.XXXXXX"), *svg;
		const char *paths[1] = { path };
		size_t read_len;
		struct prof_stacks t;
		struct prof_meta meta = PROF_META_INIT;
		struct prof_flame_opts o;
		struct prof_flame_graph g;
		const struct prof_flame_node *n;
		int fd = mkstemp(out);

		close(fd);
		prof_stacks_init(&t, 2);
		CHECK(prof_flame_read_hotcold(paths, 1, &t, &meta) == 0);
		CHECK_STR(prof_meta_get(&meta, "unit"), "ns");
		prof_flame_opts_init(&o);
		o.hotcold = 1;
		o.minwidth = 0;
		o.countname = "ns";
		CHECK(prof_flame_layout(&g, &t, NULL, 0, &o) == 0);
		CHECK(g.hotcold && g.sum == 10000000);
		n = node(&g, &t, "main");
		CHECK(n && n->width == 10000000 && n->delta == 4000000);
		n = node(&g, &t, "sleep");
		CHECK(n && n->width == 7000000 && n->delta == 1000000);
		n = node(&g, &t, "work");
		CHECK(n && n->width == 3000000 && n->delta == 3000000);
		n = node(&g, &t, "all");
		CHECK(n && n->delta == 4000000);
		CHECK(prof_flame_write_file(&g, &t, &o, out, NULL, NULL) == 0);
		svg = prof_read_file(out, &read_len);
		CHECK(svg && strstr(svg, "<title>sleep (7,000,000 ns, 70.00%; on-CPU 1.00 ms, "
				    "off-CPU 6.00 ms)</title>"));
		CHECK(svg && strstr(svg, ">Hot/Cold Flame Graph<"));
		CHECK(svg && strstr(svg, "<g id=\"legend\">"));
		CHECK(svg && fill_of(svg, "work") == prof_flame_color(PROF_PAL_HOT, 0, "work", 4));
		CHECK(svg && fill_of(svg, "sleep") == prof_flame_color(PROF_PAL_BLUE, 0, "sleep", 5));
		/* main: 4 ms on, 6 ms off: mostly blocked */
		CHECK(svg && fill_of(svg, "main") == prof_flame_color(PROF_PAL_BLUE, 0, "main", 4));
		free(svg);
		prof_flame_graph_release(&g);
		prof_stacks_release(&t);
		prof_meta_release(&meta);
		unlink(path);
		unlink(out);
		free(path);
		free(out);
	}

	TEST("two profiles; refused: different units, a missing event, stdin, three inputs") {
		char *on = unit_temp_file("# unit=ns\nmain;work 5\n"), *off = unit_temp_file("# unit=ns\nmain;wait 7\n");
		char *bytes = unit_temp_file("# unit=bytes\nmain;malloc 9\n");
		char *cpu_only = unit_temp_file("# source=profrec event=cpu-clock unit=ns\n"
					   "time_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack\n"
					   "1\t7\t7\tapp\t0\tcpu-clock\t3\t1\tmain\n");
		const char *two[2] = { on, off }, *mixed[2] = { on, bytes }, *one[1] = { cpu_only };
		const char *dash[1] = { "-" }, *three[3] = { on, off, on };
		struct prof_stacks t;
		struct prof_meta meta = PROF_META_INIT;
		size_t n;
		uint32_t *ids;

		prof_stacks_init(&t, 2);
		CHECK(prof_flame_read_hotcold(two, 2, &t, &meta) == 0);
		ids = prof_stacks_sorted(&t, &n);
		CHECK(n == 2);
		CHECK(n == 2 && prof_stacks_weights(&t, ids[0])[0] == 0 &&
		      prof_stacks_weights(&t, ids[0])[1] == 7);	/* main;wait */
		CHECK(n == 2 && prof_stacks_weights(&t, ids[1])[0] == 5 &&
		      prof_stacks_weights(&t, ids[1])[1] == 0);	/* main;work */
		free(ids);
		prof_stacks_release(&t);
		prof_meta_release(&meta);

		prof_stacks_init(&t, 2);
		CHECK(prof_flame_read_hotcold(mixed, 2, &t, &meta) == -2);
		prof_stacks_release(&t);
		prof_meta_release(&meta);
		prof_stacks_init(&t, 2);
		CHECK(prof_flame_read_hotcold(one, 1, &t, &meta) == -2);
		prof_stacks_release(&t);
		prof_meta_release(&meta);
		prof_stacks_init(&t, 2);
		CHECK(prof_flame_read_hotcold(dash, 1, &t, &meta) == -2);
		CHECK(prof_flame_read_hotcold(three, 3, &t, &meta) == -2);
		prof_stacks_release(&t);
		prof_meta_release(&meta);
		unlink(on);
		unlink(off);
		unlink(bytes);
		unlink(cpu_only);
		free(on);
		free(off);
		free(bytes);
		free(cpu_only);
	}
	return UNIT_RESULT();
}
