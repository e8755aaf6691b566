#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "formats/folded.h"
#include "io/output.h"
#include "core/top.h"
#include "base/units.h"
#include "base/xalloc.h"

struct rank_ctx {
	const struct prof_stacks *t;
	int by_total;
};

static struct rank_ctx rank_ctx;

static int cmp_rows(const void *a, const void *b)
{
	const struct prof_top_row *x = a, *y = b;
	prof_weight x1 = rank_ctx.by_total ? x->total : x->self, y1 = rank_ctx.by_total ? y->total : y->self;
	prof_weight x2 = rank_ctx.by_total ? x->self : x->total, y2 = rank_ctx.by_total ? y->self : y->total;
	size_t lx, ly, n;
	const char *sx, *sy;
	int c;

	if (x1 != y1)
		return x1 > y1 ? -1 : 1;
	if (x2 != y2)
		return x2 > y2 ? -1 : 1;
	sx = prof_stacks_frame_name(rank_ctx.t, x->frame, &lx);
	sy = prof_stacks_frame_name(rank_ctx.t, y->frame, &ly);
	n = lx < ly ? lx : ly;
	c = memcmp(sx, sy, n);
	return c ? c : (lx > ly) - (lx < ly);
}

struct prof_top_row *prof_top_compute(const struct prof_stacks *t, int by_total, size_t *n,
				      prof_weight *grand)
{
	size_t nf = prof_intern_count(&t->frames), id, i, k = 0;
	prof_weight *self = xcalloc(nf ? nf : 1, sizeof(*self));
	prof_weight *total = xcalloc(nf ? nf : 1, sizeof(*total));
	int sat = 0;
	size_t *seen = xcalloc(nf ? nf : 1, sizeof(*seen));	/* stack id + 1 */
	struct prof_top_row *rows;

	*grand = 0;
	for (id = 0; id < prof_stacks_count(t); id++) {
		size_t depth;
		const uint32_t *f = prof_stacks_frames(t, (uint32_t)id, &depth);
		prof_weight w = prof_stacks_weights(t, (uint32_t)id)[0];

		if (w == 0 || depth == 0)
			continue;
		sat |= prof_weight_add(grand, w);
		sat |= prof_weight_add(&self[f[depth - 1]], w);
		for (i = 0; i < depth; i++) {
			if (seen[f[i]] != id + 1) {
				seen[f[i]] = id + 1;
				sat |= prof_weight_add(&total[f[i]], w);
			}
		}
	}
	if (sat)
		prof_weight_saturated("the total");
	rows = xmalloc((nf ? nf : 1) * sizeof(*rows));
	for (i = 0; i < nf; i++) {
		if (total[i] == 0)
			continue;
		rows[k].frame = (uint32_t)i;
		rows[k].self = self[i];
		rows[k].total = total[i];
		k++;
	}
	rank_ctx.t = t;
	rank_ctx.by_total = by_total;
	qsort(rows, k, sizeof(*rows), cmp_rows);
	free(self);
	free(total);
	free(seen);
	*n = k;
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

static void fmt_value(char *buf, size_t n, prof_weight v, const char *unit, int human)
{
	if (human && unit && strcmp(unit, "ns") == 0)
		prof_fmt_duration(buf, n, (double)(v / 1e9L));
	else
		prof_format_count(buf, v);
}

/* A frame name safe in a TSV field or a terminal line. */
static void add_name(struct prof_buf *b, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		prof_buf_addch(b, c < ' ' || c == 0x7f ? ' ' : c);
	}
}

int prof_top_write(const struct prof_stacks *t, const struct prof_top_opts *opts,
		   const struct prof_meta *meta, struct prof_output *o)
{
	struct prof_buf b = PROF_BUF_INIT, path_text = PROF_BUF_INIT;
	struct prof_meta m = PROF_META_INIT;
	size_t nrows, i, depth;
	prof_weight grand, path_w;
	struct prof_top_row *rows = prof_top_compute(t, opts->by_total, &nrows, &grand);
	uint32_t *path = prof_top_hot_path(t, &depth, &path_w);
	char v1[64], v2[64];
	int r;

	if (opts->n && nrows > opts->n)
		nrows = opts->n;
	for (i = 0; i < depth; i++) {
		size_t len;
		const char *s = prof_stacks_frame_name(t, path[i], &len);

		if (i)
			prof_buf_add(&path_text, opts->human ? " > " : ";", opts->human ? 3 : 1);
		add_name(&path_text, s, len);
	}
#define PCT(v) (grand > 0 ? (double)(100 * (v) / grand) : 0.0)
	if (opts->human) {
		fmt_value(v1, sizeof(v1), grand, opts->unit, 1);
		prof_buf_addf(&b, "top %zu function%s by %s weight (total %s%s%s)\n", nrows,
			      nrows == 1 ? "" : "s", opts->by_total ? "total" : "self", v1,
			      opts->unit && strcmp(opts->unit, "ns") ? " " : "",
			      opts->unit && strcmp(opts->unit, "ns") ? opts->unit : "");
		prof_buf_addf(&b, "%4s  %10s %7s  %10s %7s  %s\n", "rank", "self", "self%", "total",
			      "total%", "function");
		for (i = 0; i < nrows; i++) {
			size_t len;
			const char *s = prof_stacks_frame_name(t, rows[i].frame, &len);

			fmt_value(v1, sizeof(v1), rows[i].self, opts->unit, 1);
			fmt_value(v2, sizeof(v2), rows[i].total, opts->unit, 1);
			prof_buf_addf(&b, "%4zu  %10s %6.2f%%  %10s %6.2f%%  ", i + 1, v1,
				      PCT(rows[i].self), v2, PCT(rows[i].total));
			add_name(&b, s, len);
			if (PCT(rows[i].self) >= opts->threshold_pct)
				prof_buf_addf(&b, "  <- hot (self >= %g%%)", opts->threshold_pct);
			prof_buf_addch(&b, '\n');
		}
		if (depth) {
			prof_buf_addf(&b, "hottest path (%.2f%%): ", PCT(path_w));
			prof_buf_add(&b, path_text.data, path_text.len);
			prof_buf_addch(&b, '\n');
		}
	} else {
		if (meta)
			prof_meta_merge(&m, meta);
		prof_meta_setf(&m, "total", "%s", (prof_format_count(v1, grand), v1));
		prof_meta_setf(&m, "threshold_pct", "%g", opts->threshold_pct);
		prof_meta_set(&m, "sort", opts->by_total ? "total" : "self");
		if (depth) {
			prof_meta_set(&m, "hot_path", prof_buf_cstr(&path_text));
			prof_meta_setf(&m, "hot_path_pct", "%.2f", PCT(path_w));
		}
		prof_meta_format(&m, &b);
		prof_buf_addstr(&b, "rank\tfunction\tself\tself_pct\ttotal\ttotal_pct\tflag\n");
		for (i = 0; i < nrows; i++) {
			size_t len;
			const char *s = prof_stacks_frame_name(t, rows[i].frame, &len);

			prof_buf_addf(&b, "%zu\t", i + 1);
			add_name(&b, s, len);
			prof_format_count(v1, rows[i].self);
			prof_format_count(v2, rows[i].total);
			prof_buf_addf(&b, "\t%s\t%.2f\t%s\t%.2f\t%s\n", v1, PCT(rows[i].self), v2,
				      PCT(rows[i].total),
				      PCT(rows[i].self) >= opts->threshold_pct ? "hot" : "");
		}
	}
#undef PCT
	r = prof_output_write(o, b.data ? b.data : "", b.len);
	prof_buf_release(&b);
	prof_buf_release(&path_text);
	prof_meta_release(&m);
	free(rows);
	free(path);
	return r;
}
