#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "base/escape.h"
#include "base/units.h"
#include "base/xalloc.h"
#include "compare/functions.h"
#include "core/intern.h"
#include "core/top.h"
#include "formats/folded.h"
#include "formats/tsv.h"
#include "io/output.h"

/* The rows of one side, added into out by function name. */
static void add_side(struct prof_functions *out, size_t *cap, const struct prof_stacks *t,
		     int new_side)
{
	size_t n;
	prof_weight grand;
	struct prof_top_row *rows = prof_top_compute(t, 0, &n, &grand);
	struct prof_buf safe = PROF_BUF_INIT;

	if (new_side)
		out->new_whole = grand;
	else
		out->base_whole = grand;
	for (size_t i = 0; i < n; i++) {
		size_t len;
		const char *name = prof_stacks_frame_name(t, rows[i].frame, &len);
		struct prof_function_change *c;
		uint32_t id;

		/* as proffold --top prints it: no byte that splits a row */
		prof_buf_reset(&safe);
		prof_tsv_text(&safe, name, len);
		id = prof_intern(&out->names, safe.data ? safe.data : "", safe.len);

		if (id == out->n) {
			if (out->n == *cap) {
				*cap = *cap ? *cap * 2 : 256;
				out->rows = xreallocarray(out->rows, *cap, sizeof(*out->rows));
			}
			memset(&out->rows[out->n++], 0, sizeof(*out->rows));
		}
		c = &out->rows[id];
		if (new_side) {
			c->new_self = rows[i].self;
			c->new_total = rows[i].total;
		} else {
			c->base_self = rows[i].self;
			c->base_total = rows[i].total;
		}
	}
	prof_buf_release(&safe);
	free(rows);
}

static double share(prof_weight w, prof_weight whole)
{
	return whole > 0 ? (double)(w / whole * 100) : 0;
}

static void judge(struct prof_function_change *c, const struct prof_functions *f,
		  const struct prof_functions_opts *o)
{
	prof_weight b = o->by_total ? c->base_total : c->base_self;
	prof_weight n = o->by_total ? c->new_total : c->new_self;

	c->base = o->raw ? (double)b : share(b, f->base_whole);
	c->new = o->raw ? (double)n : share(n, f->new_whole);
	c->delta = c->new - c->base;
	c->ratio = c->base != 0 ? c->new / c->base : NAN;
	c->delta_pct = c->base != 0 ? c->delta / c->base * 100 : NAN;
	c->delta_points = o->raw ? share(n > b ? n - b : b - n, f->base_whole) : fabs(c->delta);
	if (b == 0)
		c->verdict = PROF_CHANGE_ADDED;
	else if (n == 0)
		c->verdict = PROF_CHANGE_REMOVED;
	else if (c->delta == 0)
		c->verdict = PROF_CHANGE_SAME;
	else
		c->verdict = c->delta > 0 ? PROF_CHANGE_WORSE : PROF_CHANGE_BETTER;
}

static int cmp_magnitude(const void *a, const void *b)
{
	const struct prof_function_change *x = a, *y = b;

	if (fabs(x->delta) != fabs(y->delta))
		return fabs(x->delta) > fabs(y->delta) ? -1 : 1;
	if (x->base != y->base)
		return x->base > y->base ? -1 : 1;
	return strcmp(x->function, y->function);
}

void prof_functions_compare(const struct prof_stacks *base, const struct prof_stacks *new,
			    const struct prof_functions_opts *o, struct prof_functions *out)
{
	size_t cap = 0, kept = 0;

	memset(out, 0, sizeof(*out));
	prof_intern_init(&out->names);
	add_side(out, &cap, base, 0);
	add_side(out, &cap, new, 1);
	for (size_t i = 0; i < out->n; i++) {
		struct prof_function_change *c = &out->rows[i];

		c->function = prof_intern_str(&out->names, (uint32_t)i, NULL);
		if ((o->by_total ? c->base_total + c->new_total : c->base_self + c->new_self) == 0)
			continue;	/* a caller only: nothing of its own to compare */
		judge(c, out, o);
		if (o->min_delta > 0 && c->delta_points < o->min_delta)
			continue;	/* noise the caller asked to drop */
		out->rows[kept++] = *c;
	}
	out->n = kept;
	qsort(out->rows, out->n, sizeof(*out->rows), cmp_magnitude);
}

void prof_functions_free(struct prof_functions *f)
{
	free(f->rows);
	prof_intern_release(&f->names);
	memset(f, 0, sizeof(*f));
}

/* ---- writing ---- */

static const char *weight(char *buf, prof_weight w)
{
	prof_format_count(buf, w);
	return buf;
}

static const char *number(char *buf, size_t n, double v, const char *absent)
{
	return isnan(v) ? absent : prof_fmt_number(buf, n, v, 6);
}

static void write_tsv_row(const struct prof_function_change *c, struct prof_output *o)
{
	char w[4][48], v[3][48];

	prof_output_printf(o, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c->function,
			   weight(w[0], c->base_self), weight(w[1], c->new_self),
			   weight(w[2], c->base_total), weight(w[3], c->new_total),
			   number(v[0], 48, c->delta, ""),
			   number(v[1], 48, isnan(c->delta_pct) ? NAN : round(c->delta_pct * 100) / 100, ""),
			   number(v[2], 48, c->ratio, ""), prof_change_verdict_name(c->verdict));
}

static void write_human_row(const struct prof_function_change *c, int raw, int width,
			    struct prof_output *o)
{
	char b[48], n[48], d[48], p[48];

	if (raw) {
		prof_fmt_number(b, sizeof(b), c->base, 6);
		prof_fmt_number(n, sizeof(n), c->new, 6);
		prof_fmt_number(d, sizeof(d), c->delta, 6);
	} else {
		snprintf(b, sizeof(b), "%.2f%%", c->base);
		snprintf(n, sizeof(n), "%.2f%%", c->new);
		snprintf(d, sizeof(d), "%+.2f", c->delta);
	}
	if (isnan(c->delta_pct))
		snprintf(p, sizeof(p), "new");
	else
		snprintf(p, sizeof(p), "%+.1f%%", c->delta_pct);
	prof_output_printf(o, "%-*s  %12s  %12s  %10s  %9s  %s\n", width, c->function, b, n, d,
			   p, prof_change_verdict_name(c->verdict));
}

int prof_functions_write(const struct prof_functions *f, const struct prof_functions_opts *opts,
			 size_t limit, int human, const struct prof_meta *meta,
			 struct prof_output *o)
{
	size_t n = limit && limit < f->n ? limit : f->n;
	int width = 8;

	if (!human) {
		struct prof_buf b = PROF_BUF_INIT;

		if (meta && meta->count) {
			prof_meta_format(meta, &b);
			prof_output_write(o, b.data, b.len);
			prof_buf_release(&b);
		}
		prof_output_puts(o, prof_tsv_header(prof_tsv_schema_find("profcmp-functions")));
		for (size_t i = 0; i < n; i++)
			write_tsv_row(&f->rows[i], o);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		if ((int)strlen(f->rows[i].function) > width)
			width = (int)strlen(f->rows[i].function);
	prof_output_printf(o, "%-*s  %12s  %12s  %10s  %9s  %s\n", width, "function",
			   opts->by_total ? "base total" : "base self",
			   opts->by_total ? "new total" : "new self", opts->raw ? "delta" : "points",
			   "change", "verdict");
	/* Regressions first, each group in order of size. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			const struct prof_function_change *c = &f->rows[i];
			int regressed = c->verdict == PROF_CHANGE_WORSE || c->verdict == PROF_CHANGE_ADDED;

			if (regressed == (pass == 0))
				write_human_row(c, opts->raw, width, o);
		}
	return 0;
}

int prof_functions_write_folded_diff(struct prof_stacks *base, const struct prof_stacks *new,
				     const struct prof_meta *meta, struct prof_output *o)
{
	/* A reader may have used the second column (perf script marks zero-period samples there). */
	for (size_t id = 0; id < prof_stacks_count(base); id++)
		prof_stacks_weights(base, (uint32_t)id)[1] = 0;
	prof_stacks_merge_column(base, 1, new, 0);
	return prof_folded_write(base, meta, 2, o);
}
