/*
 * Flame graph layout (flame.h): flamegraph.pl's flow merge of sorted (or,
 * for a flame chart, input-ordered) stacks into frames.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "base/units.h"
#include "base/xalloc.h"
#include "flame/flame.h"
#include "flame/internal.h"

void prof_flame_opts_init(struct prof_flame_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->width = 1200;
	o->frameheight = 16;
	o->fontsize = 12;
	o->fontwidth = 0.59;
	o->fonttype = "Verdana";
	o->minwidth = 0.1;
	o->compactwidth = 1;
	o->countname = "samples";
	o->nametype = "Function:";
	o->palette = PROF_PAL_HOT;
	memcpy(o->bg1, "#eeeeee", 8);
	memcpy(o->bg2, "#eeeeb0", 8);
	o->factor = 1;
	o->maxdepth = 2000;
}

int prof_flame_minwidth_parse(struct prof_flame_opts *o, const char *arg)
{
	size_t n = strlen(arg);
	int pct = n > 1 && arg[n - 1] == '%';
	char *num = xstrdup(arg);
	double v;
	int r;

	if (pct)
		num[n - 1] = '\0';
	r = prof_parse_double(num, &v) || v < 0 ? -1 : 0;
	free(num);
	if (r == 0) {
		o->minwidth = v;
		o->minwidth_pct = pct;
	}
	return r;
}

void prof_flame_graph_release(struct prof_flame_graph *g)
{
	free(g->nodes);
	memset(g, 0, sizeof(*g));
}

int prof_flame_compare_names(const void *a, const void *b, void *ctx)
{
	const struct prof_intern *names = ctx;
	size_t la, lb;
	const char *sa = prof_intern_str(names, *(const uint32_t *)a, &la);
	const char *sb = prof_intern_str(names, *(const uint32_t *)b, &lb);
	int c = memcmp(sa, sb, la < lb ? la : lb);

	return c ? c : (la > lb) - (la < lb);
}

struct sort_ctx {
	const struct prof_stacks *t;
	const uint32_t *rank;
};

/* Order of stacks as frame sequences, frames by name rank; prefixes first. */
static int compare_stacks(const void *a, const void *b, void *p)
{
	const struct sort_ctx *c = p;
	size_t da, db, i, n;
	const uint32_t *fa = prof_stacks_frames(c->t, *(const uint32_t *)a, &da);
	const uint32_t *fb = prof_stacks_frames(c->t, *(const uint32_t *)b, &db);

	n = da < db ? da : db;
	for (i = 0; i < n; i++) {
		if (fa[i] != fb[i]) {
			uint32_t ra = c->rank[fa[i]], rb = c->rank[fb[i]];

			return ra < rb ? -1 : 1;
		}
	}
	return (da > db) - (da < db);
}

/* Stack ids with weight, sorted for the flow merge. */
static uint32_t *sorted_stacks(const struct prof_stacks *t, size_t wcol, int diff, size_t *n)
{
	size_t count = prof_stacks_count(t), nf = prof_intern_count(&t->frames), i, k = 0;
	uint32_t *ids = xmalloc((count ? count : 1) * sizeof(*ids));
	uint32_t *byname = xmalloc((nf ? nf : 1) * sizeof(*byname));
	uint32_t *rank = xmalloc((nf ? nf : 1) * sizeof(*rank));
	struct sort_ctx c = { t, rank };
	int sorted = 1;

	for (i = 0; i < nf; i++)
		byname[i] = (uint32_t)i;
	qsort_r(byname, nf, sizeof(*byname), prof_flame_compare_names, (void *)&t->frames);
	for (i = 0; i < nf; i++)
		rank[byname[i]] = (uint32_t)i;
	free(byname);
	for (i = 0; i < count; i++) {
		const prof_weight *w = prof_stacks_weights(t, (uint32_t)i);

		if (w[wcol] == 0 && (!diff || w[0] == 0))
			continue;
		ids[k] = (uint32_t)i;
		if (sorted && k && compare_stacks(&ids[k - 1], &ids[k], &c) > 0)
			sorted = 0;
		k++;
	}
	/* sorted input (proffold writes it) needs no sort */
	if (!sorted)
		qsort_r(ids, k, sizeof(*ids), compare_stacks, &c);
	free(rank);
	*n = k;
	return ids;
}

struct open_frame {
	uint32_t frame;
	double start;
	double delta;
};

struct flow {
	struct prof_flame_graph *g;
	struct open_frame *path;	/* path[0] is the root */
	size_t depth, cap;		/* frames open above the root */
	double time, minw;
	unsigned maxdepth;
	int hotcold;		/* delta is inclusive: a frame's goes to its parent */
};

static void emit(struct flow *f, size_t depth)
{
	struct prof_flame_graph *g = f->g;
	const struct open_frame *o = &f->path[depth];
	double w = f->time - o->start;

	if (f->hotcold && depth)
		f->path[depth - 1].delta += o->delta;
	if (depth && (w <= 0 || w < f->minw)) {	/* the root is always drawn */
		g->pruned++;
		return;
	}
	if (depth > f->maxdepth) {
		g->too_deep++;
		return;
	}
	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 4096;
		g->nodes = xreallocarray(g->nodes, g->cap, sizeof(*g->nodes));
	}
	g->nodes[g->n].frame = depth ? o->frame : UINT32_MAX;
	g->nodes[g->n].depth = (uint32_t)depth;
	g->nodes[g->n].start = o->start;
	g->nodes[g->n].width = w;
	g->nodes[g->n].delta = o->delta;
	g->n++;
	if (depth > g->depthmax)
		g->depthmax = (unsigned)depth;
}

/* Merge one stack into the open path (flamegraph.pl's flow()). */
static void flow_stack(struct flow *f, const uint32_t *frames, size_t n, double w, double delta)
{
	size_t same = 0, i;

	while (same < f->depth && same < n && f->path[same + 1].frame == frames[same])
		same++;
	for (i = f->depth; i > same; i--)
		emit(f, i);
	PROF_GROW(f->path, n + 1, f->cap);
	for (i = same; i < n; i++) {
		f->path[i + 1].frame = frames[i];
		f->path[i + 1].start = f->time;
		f->path[i + 1].delta = 0;
	}
	f->depth = n;
	f->path[n].delta += delta;
	f->time += w;
}

int prof_flame_layout(struct prof_flame_graph *g, const struct prof_stacks *t,
		      const struct prof_flame_seq *seq, int diff,
		      const struct prof_flame_opts *o)
{
	size_t wcol = diff ? 1 : 0, n, i;
	double width = o->width > 0 ? o->width : PROF_FLAME_FLUID_WIDTH, wpt;
	uint32_t *ids = NULL;
	struct flow f;

	memset(g, 0, sizeof(*g));
	g->diff = diff;
	g->hotcold = o->hotcold && !diff && !seq;
	g->maxdelta = 1;
	if (seq) {
		n = seq->n;
		for (i = 0; i < n; i++)
			g->sum += seq->w[i * 2 + wcol];
	} else {
		ids = sorted_stacks(t, g->hotcold ? 1 : wcol, diff || g->hotcold, &n);
		for (i = 0; i < n; i++) {
			const prof_weight *tw = prof_stacks_weights(t, ids[i]);

			g->sum += g->hotcold ? (double)tw[0] + (double)tw[1] : (double)tw[wcol];
		}
	}
	if (!(g->sum > 0)) {
		free(ids);
		return -1;
	}
	g->timemax = o->total > g->sum ? o->total : g->sum;
	wpt = (width - 2 * PROF_FLAME_XPAD) / g->timemax;
	memset(&f, 0, sizeof(f));
	f.g = g;
	f.minw = o->minwidth_pct ? g->timemax * o->minwidth / 100 : o->minwidth / wpt;
	f.maxdepth = o->maxdepth;
	f.hotcold = g->hotcold;
	f.cap = 64;
	f.path = xcalloc(f.cap, sizeof(*f.path));
	f.path[0].frame = UINT32_MAX;
	for (i = 0; i < n; i++) {
		uint32_t id = seq ? seq->ids[i] : ids[i];
		const prof_weight *tw = seq ? NULL : prof_stacks_weights(t, id);
		/* Drawing needs no more than double precision. */
		double w[2] = { seq ? seq->w[i * 2] : (double)tw[0],
				seq ? seq->w[i * 2 + 1] : t->nweights > 1 ? (double)tw[1] : 0 };
		size_t depth;
		const uint32_t *frames = prof_stacks_frames(t, id, &depth);
		double delta = diff ? w[1] - w[0] : g->hotcold ? w[0] : 0;

		if (diff && fabs(delta) > g->maxdelta)
			g->maxdelta = fabs(delta);
		flow_stack(&f, frames, depth, g->hotcold ? w[0] + w[1] : w[wcol], delta);
	}
	for (i = f.depth; i > 0; i--)
		emit(&f, i);
	f.path[0].start = 0;
	emit(&f, 0);
	free(f.path);
	free(ids);
	return 0;
}
