#include <math.h>
#include <stdint.h>
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

#define NO_ROW UINT32_MAX	/* a frame with no row (no weight on its side) */
#define NEW_ONLY (UINT32_MAX - 1)	/* a new frame whose name base lacks */

/* An escaped name (as proffold --top prints it: no byte that splits a row) added to text. */
static size_t add_name(struct prof_buf *text, const struct prof_stacks *t, uint32_t frame)
{
	size_t len, at = text->len;
	const char *name = prof_stacks_frame_name(t, frame, &len);

	prof_tsv_text(text, name, len);
	prof_buf_addch(text, '\0');
	return at;
}

/*
 * What new's frames are in base, by name (link[g]: base's frame id,
 * NEW_ONLY, or NO_ROW without weight), looked up in base's string table
 * so no name is interned twice; the names base lacks are copied to text
 * now, their offsets appended to *only (*nonly of them), so that new can
 * be released before base's sums are made.
 */
static void link_new(const struct prof_stacks *base, const struct prof_stacks *new,
		     const struct prof_top_sums *sn, uint32_t *link, struct prof_buf *text,
		     size_t **only, size_t *nonly)
{
	size_t cap = 0;

	*nonly = 0;
	for (size_t g = 0; g < sn->nframes; g++) {
		size_t len;
		const char *name = prof_stacks_frame_name(new, (uint32_t)g, &len);
		uint32_t f;

		link[g] = NO_ROW;
		if (sn->total[g] == 0)
			continue;
		f = prof_intern_find(&base->frames, name, len);
		link[g] = f != UINT32_MAX ? f : NEW_ONLY;
		if (f == UINT32_MAX) {
			PROF_GROW(*only, *nonly + 1, cap);
			(*only)[(*nonly)++] = add_name(text, new, (uint32_t)g);
		}
	}
}

/*
 * Row numbers: base's frames with weight, then the new frames base has
 * without weight (named from base), then those base lacks (named
 * already). base_row[f] and link[g] (in place) become row numbers or
 * NO_ROW; offs[row] gets each row's name in text. Returns the rows.
 */
static size_t number_rows(const struct prof_stacks *base, const struct prof_top_sums *sb,
			  uint32_t *base_row, uint32_t *link, size_t nlink, const size_t *only,
			  size_t nonly, struct prof_buf *text, size_t **offs)
{
	size_t n = 0, k = 0;

	for (size_t f = 0; f < sb->nframes; f++)
		base_row[f] = sb->total[f] != 0 ? (uint32_t)n++ : NO_ROW;
	for (size_t g = 0; g < nlink; g++)
		if (link[g] != NO_ROW && link[g] != NEW_ONLY && base_row[link[g]] == NO_ROW)
			base_row[link[g]] = (uint32_t)n++;
	*offs = xmalloc((n + nonly + 1) * sizeof(**offs));
	for (size_t f = 0; f < sb->nframes; f++)
		if (base_row[f] != NO_ROW)
			(*offs)[base_row[f]] = add_name(text, base, (uint32_t)f);
	for (size_t g = 0; g < nlink; g++) {
		if (link[g] == NEW_ONLY) {
			(*offs)[n] = only[k++];
			link[g] = (uint32_t)n++;
		} else if (link[g] != NO_ROW) {
			link[g] = base_row[link[g]];
		}
	}
	return n;
}

/* One side's sums into the rows, then the sums freed. */
static void take_sums(struct prof_functions *out, struct prof_top_sums *s, const uint32_t *row,
		      int new_side)
{
	for (size_t f = 0; f < s->nframes; f++) {
		struct prof_function_change *c;

		if (row[f] == NO_ROW)
			continue;
		c = &out->rows[row[f]];
		if (new_side) {
			c->new_self = s->self[f];
			c->new_total = s->total[f];
		} else {
			c->base_self = s->self[f];
			c->base_total = s->total[f];
		}
	}
	if (new_side)
		out->new_whole = s->grand;
	else
		out->base_whole = s->grand;
	prof_top_sums_release(s);
}

/*
 * Rows of both sides, matched by name. Memory is the point (two profiles
 * of a million functions each): new's sums are taken and its names
 * matched, and new released, before base's sums are made; base is
 * released before the rows (the largest array) are allocated.
 */
static void gather(struct prof_stacks *base, struct prof_stacks *new, struct prof_functions *out)
{
	struct prof_top_sums sb, sn;
	struct prof_buf text = PROF_BUF_INIT;
	uint32_t *base_row, *link;
	size_t *only = NULL, nonly, *offs;

	prof_top_sums(&sn, new, 0);
	link = xmalloc((sn.nframes + 1) * sizeof(*link));
	link_new(base, new, &sn, link, &text, &only, &nonly);
	prof_stacks_release(new);
	prof_top_sums(&sb, base, 0);
	base_row = xmalloc((sb.nframes + 1) * sizeof(*base_row));
	out->n = number_rows(base, &sb, base_row, link, sn.nframes, only, nonly, &text, &offs);
	free(only);
	prof_stacks_release(base);
	out->text = prof_buf_detach(&text, NULL);
	out->rows = xcalloc(out->n + 1, sizeof(*out->rows));
	for (size_t i = 0; i < out->n; i++)
		out->rows[i].function = out->text + offs[i];
	free(offs);
	take_sums(out, &sb, base_row, 0);
	take_sums(out, &sn, link, 1);
	free(base_row);
	free(link);
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

void prof_functions_compare(struct prof_stacks *base, struct prof_stacks *new,
			    const struct prof_functions_opts *o, struct prof_functions *out)
{
	size_t kept = 0;

	memset(out, 0, sizeof(*out));
	gather(base, new, out);
	for (size_t i = 0; i < out->n; i++) {
		struct prof_function_change *c = &out->rows[i];

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
	free(f->text);
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
