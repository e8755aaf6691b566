/*
 * Hot/cold flame graphs (flame.h): on-CPU time (column 0) and off-CPU
 * time (column 1) in one graph, widths their sum, as Brendan Gregg's
 * hot/cold flame graphs draw them; here reading both sides, the colours,
 * the tooltip's split and the legend.
 */
#include <stdio.h>
#include <string.h>
#include "base/error.h"
#include "base/escape.h"
#include "flame/flame.h"
#include "flame/internal.h"
#include "formats/profile.h"

/*
 * Fold paths[0] for event (NULL: its first) into column col of t; the
 * side's metadata goes to side_meta. Returns as prof_flame_read_hotcold().
 */
static int read_side(const char *path, const char *event, size_t col, struct prof_stacks *t,
		     struct prof_meta *side_meta)
{
	struct prof_profile_opts opts;
	struct prof_profile_summary sum;
	struct prof_stacks side;
	int r, verbosity = prof_verbosity;

	prof_profile_opts_init(&opts);
	opts.event = event;
	prof_stacks_init(&side, 2);
	/* "the other event's samples skipped" is the split asked for: no note */
	if (event && prof_verbosity == 1)
		prof_verbosity = 0;
	r = prof_profile_read(path, &opts, &side, side_meta, &sum) ? -1 : 0;
	prof_verbosity = verbosity;
	if (sum.unreadable) {
		r = -2;
	} else if (sum.ncounts == 2) {
		prof_warn("%s: differential input (two counts per line): --hot-cold takes "
			  "on-CPU and off-CPU profiles", path);
		r = -2;
	} else if (prof_stacks_count(&side) == 0) {
		if (event)
			prof_warn("%s: no %s samples: --hot-cold needs a recording of both %s "
				  "and %s (profrec -e %s --off-cpu)", path, event,
				  PROF_FLAME_ON_CPU_EVENT, PROF_FLAME_OFF_CPU_EVENT,
				  PROF_FLAME_ON_CPU_EVENT);
		else
			prof_warn("%s: no stacks: nothing to draw on the %s side", path,
				  col ? "off-CPU" : "on-CPU");
		r = -2;
	}
	prof_stacks_merge_column(t, col, &side, 0);
	prof_stacks_release(&side);
	return r;
}

int prof_flame_read_hotcold(const char *const *paths, size_t n, struct prof_stacks *t,
			    struct prof_meta *meta)
{
	static const char *const events[2] = { PROF_FLAME_ON_CPU_EVENT, PROF_FLAME_OFF_CPU_EVENT };
	struct prof_meta side_meta[2] = { PROF_META_INIT, PROF_META_INIT };
	const char *unit[2];
	int i, r, rval = 0;

	if (n < 1 || n > 2) {
		prof_warn("--hot-cold takes one recording of %s and %s, or two profiles "
			  "ON-CPU OFF-CPU", events[0], events[1]);
		return -2;
	}
	for (i = 0; i < 2; i++) {
		const char *path = paths[n == 1 ? 0 : i];

		if (!strcmp(path, "-")) {
			prof_warn("--hot-cold reads its inputs twice or in pairs: give files, "
				  "not the standard input");
			rval = -2;
			break;
		}
		r = read_side(path, n == 1 ? events[i] : NULL, (size_t)i, t, &side_meta[i]);
		if (r < rval)
			rval = r;
	}
	/* One width scale for both sides: time against bytes means nothing. */
	unit[0] = prof_meta_get(&side_meta[0], "unit");
	unit[1] = prof_meta_get(&side_meta[1], "unit");
	if (rval > -2 && unit[0] && unit[1] && strcmp(unit[0], unit[1])) {
		prof_warn("on-CPU side (%s) is in %s, off-CPU side (%s) in %s: --hot-cold needs "
			  "one unit for both", paths[0], unit[0], paths[n - 1], unit[1]);
		rval = -2;
	}
	prof_meta_merge(meta, &side_meta[0]);
	prof_meta_merge(meta, &side_meta[1]);
	prof_meta_release(&side_meta[0]);
	prof_meta_release(&side_meta[1]);
	return rval;
}

uint32_t prof_flame_hotcold_color(const struct prof_flame_node *n, const char *name, size_t len)
{
	double on = n->delta, off = n->width - n->delta;

	/* by name within each scale, so a function keeps its colour */
	return prof_flame_color(on >= off ? PROF_PAL_HOT : PROF_PAL_BLUE, 0, name, len);
}

/* " N.NN ms" for ns, else " N unit" (thousands separated). */
static void add_time(struct prof_buf *b, double v, const struct prof_flame_opts *o)
{
	char tmp[64];

	v *= o->factor;
	if (!strcmp(o->countname, "ns")) {
		snprintf(tmp, sizeof(tmp), " %.2f ms", v / 1e6);
		prof_buf_addstr(b, tmp);
		return;
	}
	prof_buf_addch(b, ' ');
	prof_flame_add_count(b, v);
	prof_buf_addch(b, ' ');
	prof_xml_escape(b, o->countname, strlen(o->countname));
}

void prof_flame_add_hotcold_split(struct prof_buf *b, const struct prof_flame_node *n,
				  const struct prof_flame_opts *o)
{
	double off = n->width - n->delta;

	prof_buf_addstr(b, "; on-CPU");
	add_time(b, n->delta, o);
	prof_buf_addstr(b, ", off-CPU");
	add_time(b, off > 0 ? off : 0, o);
}

void prof_flame_write_hotcold_legend(struct prof_flame_writer *w, double y)
{
	const struct prof_flame_opts *o = w->o;
	struct prof_buf *b = &w->b;
	double x = PROF_FLAME_XPAD, fs = o->fontsize;

	prof_buf_addstr(b, "<g id=\"legend\">");
	prof_flame_legend_item(b, &x, y, fs, prof_flame_color(PROF_PAL_HOT, 0, "on-CPU", 6),
			       "on-CPU (warm: mostly running)");
	prof_flame_legend_item(b, &x, y, fs, prof_flame_color(PROF_PAL_BLUE, 0, "off-CPU", 7),
			       "off-CPU (cool: mostly blocked)");
	prof_buf_addstr(b, "<text x=\"");
	prof_flame_add_num(b, x);
	prof_buf_addstr(b, "\" y=\"");
	prof_flame_add_num(b, y);
	prof_buf_addstr(b, "\">widths: on-CPU + off-CPU time");
	if (o->diff_before && o->diff_after) {
		prof_buf_addstr(b, "; on-CPU: ");
		prof_xml_escape(b, o->diff_before, strlen(o->diff_before));
		prof_buf_addstr(b, ", off-CPU: ");
		prof_xml_escape(b, o->diff_after, strlen(o->diff_after));
	}
	prof_buf_addstr(b, "</text></g>\n");
}
