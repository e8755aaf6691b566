/*
 * The compact frames of a flame graph (internal.h): frames narrower than
 * --compact-width pixels are not written as elements (a <g> with its
 * <title>, <rect> and <text>, some 140 bytes each) but as a table in the
 * graph's constants, which the script (script.c) draws: the narrow ones
 * as slivers (one <path> per colour), and as frames like any other once
 * a zoom makes them --compact-width wide. A deep profile is mostly such
 * frames (89% of the 56,925 of a PyTorch run are under a pixel), so its
 * graph is a fraction of the size and loads in a fraction of the time.
 *
 * The table, C.k = {n: NAMES, s: STREAM}: NAMES the frames' names (as
 * their tooltips say them), STREAM unsigned integers in a base-32
 * varint of letters, digits, - and _ (a character carries 5 bits; the
 * last of a number is one of the first 32 characters, the others one of
 * the last 32): for each depth that has compact frames, the depth and
 * the number of frames, then per frame, in x order: its x in hundredths
 * of a pixel after the end of the previous one at that depth (from 0),
 * (zigzag: 2x, or -2x - 1 if negative: rounding may overlap them by a
 * hundredth) its width in hundredths, its name's index, its count (as the tooltip
 * says it), with per-name colours its colour is its name's (C.k.nc: a
 * colour index per name), else its colour's index, and in a
 * differential graph its delta: hundredths of a percent times 3, plus 1
 * if it grew, 2 if it shrank. Colours are C.k.c: "#rrggbb", "*#rrggbb"
 * when labels on it are white.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "base/hashmap.h"
#include "base/xalloc.h"
#include "flame/internal.h"

static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static void add_varint(struct prof_buf *b, unsigned long long v)
{
	char tmp[16], *p = tmp + sizeof(tmp);

	*--p = digits[v & 31];
	for (v >>= 5; v; v >>= 5)
		*--p = digits[32 + (v & 31)];
	prof_buf_add(b, p, (size_t)(tmp + sizeof(tmp) - p));
}

/* a signed number as an unsigned one: 0, -1, 1, -2... as 0, 1, 2, 3... */
static unsigned long long zigzag(long long v)
{
	return v < 0 ? 2 * (unsigned long long)-(v + 1) + 1 : 2 * (unsigned long long)v;
}

int prof_flame_compact_wanted(const struct prof_flame_writer *w, const struct prof_flame_node *n,
			      double pxwidth, const char *name, size_t len)
{
	const struct prof_flame_opts *o = w->o;

	if (n->depth == 0 || pxwidth >= o->compactwidth || w->g->hotcold)
		return 0;
	/* a --nameattr frame keeps its element: its attributes, its link */
	return !(o->nameattr && prof_flame_nameattr_find(o->nameattr, name, len));
}

void prof_flame_compact_add(struct prof_flame_writer *w, const struct prof_flame_node *n,
			    long long h1, long long h2, uint32_t fill)
{
	struct prof_flame_compact *c;

	if (w->ncompact == w->capcompact) {
		w->capcompact = w->capcompact ? 2 * w->capcompact : 1024;
		w->compact = xreallocarray(w->compact, w->capcompact, sizeof(*w->compact));
	}
	c = &w->compact[w->ncompact++];
	c->node = (size_t)(n - w->g->nodes);
	c->h1 = h1;
	c->h2 = h2;
	c->fill = fill;
}

static int by_depth_x(const void *a, const void *b, void *ctx)
{
	const struct prof_flame_compact *x = a, *y = b;
	const struct prof_flame_node *nodes = ctx;
	uint32_t dx = nodes[x->node].depth, dy = nodes[y->node].depth;

	if (dx != dy)
		return dx < dy ? -1 : 1;
	return x->h1 < y->h1 ? -1 : x->h1 > y->h1;
}

/* The index of colour fill in C.k.c, adding it (and its "c" entry) if new. */
static uint32_t color_index(struct prof_hashmap *colors, struct prof_buf *list, uint32_t fill)
{
	int added;
	uint32_t *ix = prof_hashmap_put(colors, fill, &added);

	if (added) {
		*ix = (uint32_t)prof_hashmap_count(colors) - 1;
		if (*ix)
			prof_buf_addch(list, ',');
		prof_buf_addstr(list, prof_flame_dark(fill) ? "\"*" : "\"");
		prof_flame_add_hex(list, fill);
		prof_buf_addch(list, '"');
	}
	return *ix;
}

void prof_flame_compact_write(struct prof_flame_writer *w)
{
	const struct prof_flame_opts *o = w->o;
	const struct prof_flame_graph *g = w->g;
	struct prof_buf *b = &w->b, names = PROF_BUF_INIT, namecolors = PROF_BUF_INIT;
	struct prof_buf colorlist = PROF_BUF_INIT;
	struct prof_hashmap nameix, colors;
	double total = g->timemax * o->factor;
	/* --random draws each frame's colour: then a colour per frame */
	int pernode = g->diff || (o->random && !o->hash && !o->palmap);
	uint32_t nnames = 0;
	size_t i = 0;

	if (!w->ncompact)
		return;
	prof_hashmap_init(&nameix, sizeof(uint32_t));
	prof_hashmap_init(&colors, sizeof(uint32_t));
	qsort_r(w->compact, w->ncompact, sizeof(*w->compact), by_depth_x, g->nodes);
	prof_buf_addstr(b, ", kw: ");
	prof_flame_add_num(b, o->compactwidth);
	prof_buf_addstr(b, ", rh: ");
	prof_flame_add_num(b, o->frameheight - PROF_FLAME_FRAMEPAD);
	prof_buf_addf(b, ", tot: %.17g, k: {s: \"", total);
	while (i < w->ncompact) {
		uint32_t depth = g->nodes[w->compact[i].node].depth;
		size_t j = i;
		long long end = 0;

		while (j < w->ncompact && g->nodes[w->compact[j].node].depth == depth)
			j++;
		add_varint(b, depth);
		add_varint(b, j - i);
		for (; i < j; i++) {
			const struct prof_flame_compact *c = &w->compact[i];
			const struct prof_flame_node *n = &g->nodes[c->node];
			const char *name = "";
			size_t len = 0;
			int added;
			uint32_t *ni = prof_hashmap_put(&nameix, n->frame, &added);

			if (added) {
				*ni = nnames++;
				if (n->frame != UINT32_MAX)
					name = prof_stacks_frame_name(w->t, n->frame, &len);
				if (*ni)
					prof_buf_addch(&names, ',');
				prof_flame_add_js_string_len(&names, name, prof_flame_deannotate(name, len));
				if (!pernode)
					add_varint(&namecolors, color_index(&colors, &colorlist, c->fill));
			}
			add_varint(b, zigzag(c->h1 - end));
			add_varint(b, (unsigned long long)(c->h2 - c->h1));
			add_varint(b, *ni);
			add_varint(b, (unsigned long long)nearbyint(n->width * o->factor));
			if (pernode)
				add_varint(b, color_index(&colors, &colorlist, c->fill));
			if (g->diff) {
				double d = o->negate ? -n->delta : n->delta;

				add_varint(b, (unsigned long long)llround(fabs(10000 * d / total)) * 3 +
					      (d > 0 ? 1 : d < 0 ? 2 : 0));
			}
			end = c->h2;
		}
	}
	prof_buf_addstr(b, "\", n: [");
	prof_buf_add(b, names.data, names.len);
	prof_buf_addstr(b, "], c: [");
	prof_buf_add(b, colorlist.data, colorlist.len);
	prof_buf_addstr(b, "], nc: \"");
	prof_buf_add(b, namecolors.data, namecolors.len);
	prof_buf_addf(b, "\", pn: %s, diff: %s}", pernode ? "true" : "false", g->diff ? "true" : "false");
	prof_buf_release(&names);
	prof_buf_release(&namecolors);
	prof_buf_release(&colorlist);
	prof_hashmap_release(&nameix);
	prof_hashmap_release(&colors);
}
