#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "base/escape.h"
#include "base/term.h"
#include "formats/folded.h"
#include "io/output.h"
#include "core/top.h"
#include "core/transform.h"
#include "base/units.h"
#include "base/xalloc.h"

struct ranking {
	const struct prof_stacks *t;	/* for the frame names */
	int by_total;
};

/* Rank by the chosen sum, then the other, then by name: a total order. */
static int cmp_rows(const void *a, const void *b, void *arg)
{
	const struct prof_top_row *x = a, *y = b;
	const struct prof_stacks *t = ((const struct ranking *)arg)->t;
	int by_total = ((const struct ranking *)arg)->by_total;
	prof_weight x1 = by_total ? x->total : x->self, y1 = by_total ? y->total : y->self;
	prof_weight x2 = by_total ? x->self : x->total, y2 = by_total ? y->self : y->total;
	size_t lx, ly, n;
	const char *sx, *sy;
	int c;

	if (x1 != y1)
		return x1 > y1 ? -1 : 1;
	if (x2 != y2)
		return x2 > y2 ? -1 : 1;
	sx = prof_stacks_frame_name(t, x->frame, &lx);
	sy = prof_stacks_frame_name(t, y->frame, &ly);
	n = lx < ly ? lx : ly;
	c = memcmp(sx, sy, n);
	return c ? c : (lx > ly) - (lx < ly);
}

void prof_top_sums(struct prof_top_sums *s, const struct prof_stacks *t, size_t column)
{
	size_t nf = prof_intern_count(&t->frames), id, i;
	size_t *seen = xcalloc(nf ? nf : 1, sizeof(*seen));	/* stack id + 1 */
	int sat = 0;

	s->nframes = nf;
	s->self = xcalloc(nf ? nf : 1, sizeof(*s->self));
	s->total = xcalloc(nf ? nf : 1, sizeof(*s->total));
	s->grand = 0;
	for (id = 0; id < prof_stacks_count(t) && column < t->nweights; id++) {
		size_t depth;
		const uint32_t *f = prof_stacks_frames(t, (uint32_t)id, &depth);
		prof_weight w = prof_stacks_weights(t, (uint32_t)id)[column];

		if (w == 0 || depth == 0)
			continue;
		sat |= prof_weight_add(&s->grand, w);
		sat |= prof_weight_add(&s->self[f[depth - 1]], w);
		for (i = 0; i < depth; i++) {
			/* once per stack: a recursive function is not counted twice */
			if (seen[f[i]] != id + 1) {
				seen[f[i]] = id + 1;
				sat |= prof_weight_add(&s->total[f[i]], w);
			}
		}
	}
	if (sat)
		prof_weight_saturated("the total");
	free(seen);
}

void prof_top_sums_release(struct prof_top_sums *s)
{
	free(s->self);
	free(s->total);
	memset(s, 0, sizeof(*s));
}

struct prof_top_row *prof_top_compute(const struct prof_stacks *t, int by_total, size_t *n,
				      prof_weight *grand)
{
	struct prof_top_sums s;
	struct prof_top_row *rows;
	struct ranking rank;
	size_t i, k = 0;

	prof_top_sums(&s, t, 0);
	rows = xmalloc((s.nframes ? s.nframes : 1) * sizeof(*rows));
	for (i = 0; i < s.nframes; i++) {
		if (s.total[i] == 0)
			continue;
		rows[k].frame = (uint32_t)i;
		rows[k].self = s.self[i];
		rows[k].total = s.total[i];
		k++;
	}
	rank.t = t;
	rank.by_total = by_total;
	qsort_r(rows, k, sizeof(*rows), cmp_rows, &rank);
	*grand = s.grand;
	*n = k;
	prof_top_sums_release(&s);
	return rows;
}

uint32_t *prof_top_hot_path(const struct prof_stacks *t, size_t *depth_out, prof_weight *weight)
{
	size_t nf = prof_intern_count(&t->frames), ns = prof_stacks_count(t), id, d = 0;
	prof_weight *acc = xcalloc(nf ? nf : 1, sizeof(*acc));
	uint32_t *touched = xmalloc((nf ? nf : 1) * sizeof(*touched));
	uint32_t *path = NULL;
	size_t cap = 0;
	/* alive[id]: the stack still matches the path chosen so far */
	unsigned char *alive = xmalloc(ns ? ns : 1);

	memset(alive, 1, ns ? ns : 1);
	*weight = 0;
	for (;;) {
		size_t ntouched = 0, i;
		uint32_t best = UINT32_MAX;
		prof_weight self_here = 0;	/* weight of the stacks ending at the path */

		for (id = 0; id < ns; id++) {
			size_t depth;
			const uint32_t *f;
			prof_weight w;

			if (!alive[id])
				continue;
			f = prof_stacks_frames(t, (uint32_t)id, &depth);
			w = prof_stacks_weights(t, (uint32_t)id)[0];
			if (depth <= d || w == 0) {
				if (depth == d)
					prof_weight_add(&self_here, w);
				alive[id] = 0;
				continue;
			}
			if (acc[f[d]] == 0)
				touched[ntouched++] = f[d];
			prof_weight_add(&acc[f[d]], w);
		}
		for (i = 0; i < ntouched; i++) {
			uint32_t c = touched[i];

			if (best == UINT32_MAX || acc[c] > acc[best] ||
			    (acc[c] == acc[best] &&
			     strcmp(prof_stacks_frame_name(t, c, NULL),
				    prof_stacks_frame_name(t, best, NULL)) < 0))
				best = c;
		}
		/* Stop where more ends here than goes on into any one child. */
		if (best == UINT32_MAX || (d > 0 && self_here >= acc[best])) {
			for (i = 0; i < ntouched; i++)
				acc[touched[i]] = 0;
			break;
		}
		*weight = acc[best];
		for (i = 0; i < ntouched; i++)
			acc[touched[i]] = 0;
		for (id = 0; id < ns; id++) {
			size_t depth;

			if (alive[id] && prof_stacks_frames(t, (uint32_t)id, &depth)[d] != best)
				alive[id] = 0;
		}
		PROF_GROW(path, d + 1, cap);
		path[d++] = best;
	}
	free(acc);
	free(touched);
	free(alive);
	*depth_out = d;
	return path;
}

void prof_top_format_value(char *buf, size_t n, prof_weight v, const char *unit, int human)
{
	if (human && unit && strcmp(unit, "ns") == 0)
		prof_fmt_duration(buf, n, (double)(v / 1e9L));
	else
		prof_format_count(buf, v);
}

/* What both report forms show. */
struct report {
	const struct prof_stacks *t;
	const struct prof_top_opts *opts;
	struct prof_top_row *rows;
	size_t nrows;
	prof_weight grand;
	struct prof_buf path;		/* the hottest path's names, joined */
	size_t path_depth;
	prof_weight path_weight;
};

static double share_pct(const struct report *rp, prof_weight v)
{
	return rp->grand > 0 ? (double)(100 * v / rp->grand) : 0.0;
}

static void write_human(const struct report *rp, struct prof_buf *b)
{
	const struct prof_top_opts *opts = rp->opts;
	int other_unit = opts->unit && strcmp(opts->unit, "ns") != 0;
	char v1[64], v2[64];
	size_t i;

	prof_top_format_value(v1, sizeof(v1), rp->grand, opts->unit, 1);
	prof_buf_addf(b, "top %zu function%s by %s weight (total %s%s%s)\n", rp->nrows,
		      rp->nrows == 1 ? "" : "s", opts->by_total ? "total" : "self", v1,
		      other_unit ? " " : "", other_unit ? opts->unit : "");
	prof_buf_addf(b, "%4s  %10s %7s  %10s %7s  %s\n", "rank", "self", "self%", "total",
		      "total%", "function");
	for (i = 0; i < rp->nrows; i++) {
		const struct prof_top_row *row = &rp->rows[i];
		size_t len;
		const char *s = prof_stacks_frame_name(rp->t, row->frame, &len);

		prof_top_format_value(v1, sizeof(v1), row->self, opts->unit, 1);
		prof_top_format_value(v2, sizeof(v2), row->total, opts->unit, 1);
		size_t start = b->len, used;
		int hot = share_pct(rp, row->self) >= opts->threshold_pct;
		char flag[64];

		prof_buf_addf(b, "%4zu  %10s %6.2f%%  %10s %6.2f%%  ", i + 1, v1,
			      share_pct(rp, row->self), v2, share_pct(rp, row->total));
		snprintf(flag, sizeof(flag), hot ? "  <- hot (self >= %g%%)" : "", opts->threshold_pct);
		used = b->len - start + strlen(flag);
		if (opts->width && hot && used + prof_utf8_chars(s, len) > opts->width)
			snprintf(flag, sizeof(flag), "  <- hot");	/* a narrow terminal */
		used = b->len - start + strlen(flag);
		if (opts->width) {
			/* on a terminal the name gives way: one row, one line */
			struct prof_buf name = PROF_BUF_INIT;
			char cut[512];

			prof_tsv_text(&name, s, len);
			prof_buf_addstr(b, prof_term_cut(cut, sizeof(cut), prof_buf_cstr(&name),
							 used + 12 < opts->width ? opts->width - used : 12));
			prof_buf_release(&name);
		} else {
			prof_tsv_text(b, s, len);
		}
		prof_buf_addf(b, "%s\n", flag);
	}
	if (rp->path_depth) {
		size_t start = b->len, skip = 0;

		prof_buf_addf(b, "hottest path%s (%.2f%%): ", opts->merge_roots ? ", threads merged" : "",
			      share_pct(rp, rp->path_weight));
		/*
		 * On a terminal a path too long for the line loses its frames
		 * after the root, not its leaf: "root > ... > caller > leaf".
		 */
		if (opts->width) {
			const char *p = rp->path.data, *first = strstr(p, " > "), *q = first;
			size_t head = b->len - start;

			while (q && head + rp->path.len - (size_t)(q - p) + (size_t)(first - p) + 6 > opts->width &&
			       strstr(q + 3, " > "))
				q = strstr(q + 3, " > ");
			if (q && head + rp->path.len > opts->width && q != first)
				skip = (size_t)(q - first);
			if (skip) {
				prof_buf_add(b, p, (size_t)(first - p));
				prof_buf_addstr(b, " > ...");
				prof_buf_add(b, q, rp->path.len - (size_t)(q - p));
			}
		}
		if (!skip)
			prof_buf_add(b, rp->path.data, rp->path.len);
		if (opts->width && prof_utf8_chars(b->data + start, b->len - start) > opts->width) {
			char *line = xstrndup(b->data + start, b->len - start), cut[1024];

			b->len = start;	/* the line replaced by its cut form */
			b->data[start] = 0;
			prof_buf_addstr(b, prof_term_cut(cut, sizeof(cut), line, opts->width));
			free(line);
		}
		prof_buf_addch(b, '\n');
	}
}

static void write_tsv(const struct report *rp, const struct prof_meta *meta, struct prof_buf *b)
{
	const struct prof_top_opts *opts = rp->opts;
	struct prof_meta m = PROF_META_INIT;
	char v1[64], v2[64];
	size_t i;

	if (meta)
		prof_meta_merge(&m, meta);
	prof_format_count(v1, rp->grand);
	prof_meta_set(&m, "total", v1);
	prof_meta_setf(&m, "threshold_pct", "%g", opts->threshold_pct);
	prof_meta_set(&m, "sort", opts->by_total ? "total" : "self");
	if (rp->path_depth) {
		prof_meta_set(&m, "hot_path", prof_buf_cstr(&rp->path));
		prof_meta_setf(&m, "hot_path_pct", "%.2f", share_pct(rp, rp->path_weight));
		if (opts->merge_roots)
			prof_meta_set(&m, "hot_path_threads", "merged");
	}
	prof_meta_format(&m, b);
	prof_meta_release(&m);
	prof_buf_addstr(b, "rank\tfunction\tself\tself_pct\ttotal\ttotal_pct\tflag\n");
	for (i = 0; i < rp->nrows; i++) {
		const struct prof_top_row *row = &rp->rows[i];
		size_t len;
		const char *s = prof_stacks_frame_name(rp->t, row->frame, &len);

		prof_buf_addf(b, "%zu\t", i + 1);
		prof_tsv_text(b, s, len);
		prof_format_count(v1, row->self);
		prof_format_count(v2, row->total);
		prof_buf_addf(b, "\t%s\t%.2f\t%s\t%.2f\t%s\n", v1, share_pct(rp, row->self), v2,
			      share_pct(rp, row->total),
			      share_pct(rp, row->self) >= opts->threshold_pct ? "hot" : "");
	}
}

int prof_top_write(const struct prof_stacks *t, const struct prof_top_opts *opts,
		   const struct prof_meta *meta, struct prof_output *o)
{
	struct prof_buf b = PROF_BUF_INIT;
	struct prof_transform strip = PROF_TRANSFORM_INIT;
	struct prof_stacks merged;
	const struct prof_stacks *pt = t;	/* where the path is found */
	struct report rp;
	uint32_t *path;
	size_t i;
	int r;

	memset(&rp, 0, sizeof(rp));
	rp.t = t;
	rp.opts = opts;
	rp.rows = prof_top_compute(t, opts->by_total, &rp.nrows, &rp.grand);
	if (opts->n && rp.nrows > opts->n)
		rp.nrows = opts->n;
	if (opts->merge_roots) {
		strip.strip_comm = 1;
		prof_stacks_init(&merged, t->nweights);
		prof_transform_apply(&strip, t, &merged);
		pt = &merged;
	}
	path = prof_top_hot_path(pt, &rp.path_depth, &rp.path_weight);
	for (i = 0; i < rp.path_depth; i++) {
		size_t len;
		const char *s = prof_stacks_frame_name(pt, path[i], &len);

		if (i)
			prof_buf_addstr(&rp.path, opts->human ? " > " : ";");
		prof_tsv_text(&rp.path, s, len);
	}
	if (opts->human)
		write_human(&rp, &b);
	else
		write_tsv(&rp, meta, &b);
	r = prof_output_write(o, b.data ? b.data : "", b.len);
	prof_buf_release(&b);
	prof_buf_release(&rp.path);
	free(rp.rows);
	free(path);
	if (pt != t)
		prof_stacks_release(&merged);
	return r;
}
