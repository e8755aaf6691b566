#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "base/error.h"
#include "base/escape.h"
#include "base/units.h"
#include "base/xalloc.h"
#include "compare/functions.h"
#include "compare/stats.h"
#include "core/meta.h"
#include "core/top.h"
#include "formats/folded.h"
#include "formats/profile.h"
#include "formats/tsv.h"
#include "io/input.h"
#include "io/output.h"

/* ---- gathering the runs ---- */

void prof_functions_init(struct prof_functions *f, size_t base_runs, size_t new_runs)
{
	memset(f, 0, sizeof(*f));
	prof_intern_init(&f->names);
	f->run_base = base_runs;
	f->nruns = base_runs + new_runs;
	f->wholes = xcalloc(f->nruns + 1, sizeof(*f->wholes));
}

/* The first item of a comma-separated metadata value into buf. */
static void first_item(char *buf, size_t n, const char *v)
{
	size_t len = v ? strcspn(v, ",") : 0;

	if (len >= n)
		len = n - 1;
	memcpy(buf, v ? v : "", len);
	buf[len] = '\0';
}

/* cpu-clock, task-clock, with perf's modifiers or not (cpu-clock:ppp) */
static int is_clock(const char *event)
{
	size_t n = strcspn(event, ":");

	return (n == 9 && !strncmp(event, "cpu-clock", n)) || (n == 10 && !strncmp(event, "task-clock", n));
}

/* What the first run of a side says its weights are. */
static void describe(struct prof_functions_side *s, const struct prof_meta *m)
{
	const char *period = m ? prof_meta_get(m, "period") : NULL;
	const char *freq = m ? prof_meta_get(m, "freq") : NULL;
	const char *cmd = m ? prof_meta_get(m, "command") : NULL;
	char event[64];
	double p = 0, hz = 0;

	first_item(s->unit, sizeof(s->unit), m ? prof_meta_get(m, "unit") : NULL);
	s->said = *s->unit != '\0';
	first_item(event, sizeof(event), m ? prof_meta_get(m, "event") : NULL);
	if (!*s->unit)
		strcpy(s->unit, "samples");	/* the folded convention: a count per stack */
	if (period && (prof_parse_double(period, &p) < 0 || p <= 0))
		p = 0;
	if (freq && (prof_parse_double(freq, &hz) < 0 || hz <= 0))
		hz = 0;
	/* Off-CPU time, bytes and allocations are measured, not sampled. */
	if (!strcmp(event, "offcpu-time") || !strcmp(s->unit, "bytes") ||
	    !strcmp(s->unit, "allocations"))
		s->per_sample = 0;
	else if (!strcmp(s->unit, "samples"))
		s->per_sample = 1;
	else if (p > 0)
		s->per_sample = p;
	else if (hz > 0 && !strcmp(s->unit, "ns"))
		s->per_sample = 1e9 / hz;
	if (!strcmp(s->unit, "ns"))
		s->ns_per_unit = 1;
	else if (!strcmp(s->unit, "samples") && is_clock(event) && hz > 0)
		s->ns_per_unit = 1e9 / hz;
	else if (!strcmp(s->unit, "samples") && is_clock(event) && p > 0)
		s->ns_per_unit = p;
	/* (the precision: a longer report name is cut, and GCC knows it) */
	snprintf(s->label, sizeof(s->label), "%.*s", (int)sizeof(s->label) - 1,
		 is_clock(event) || !strncmp(event, "cycles", 6) ? "CPU" :
		 !strcmp(event, "offcpu-time") ? "off-CPU" :
		 m && prof_meta_get(m, "report") ? prof_meta_get(m, "report") :
		 *event ? event : "total");
	s->window = cmd && (!strncmp(cmd, "-p ", 3) || !strncmp(cmd, "-t ", 3) || !strcmp(cmd, "-a"));
}

/* Room for row id's weights. */
static double *row_weights(struct prof_functions *f, uint32_t id)
{
	if (id >= f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 1024;

		while (cap <= id)
			cap *= 2;
		f->w = xreallocarray(f->w, cap, 2 * f->nruns * sizeof(*f->w));
		memset(f->w + f->cap * 2 * f->nruns, 0, (cap - f->cap) * 2 * f->nruns * sizeof(*f->w));
		f->cap = cap;
	}
	return f->w + (size_t)id * 2 * f->nruns;
}

double prof_functions_add(struct prof_functions *f, int side, struct prof_stacks *t,
			  const struct prof_meta *meta)
{
	struct prof_functions_side *s = &f->side[side];
	size_t run = (side ? f->run_base : 0) + s->runs;
	struct prof_top_sums sums;

	if (run >= (side ? f->nruns : f->run_base))
		return 0;	/* more runs than announced: a caller's bug, ignored */
	if (!s->runs++)
		describe(s, meta);
	prof_top_sums(&sums, t, 0);
	for (size_t g = 0; g < sums.nframes; g++) {
		size_t len;
		const char *raw;
		double *w;

		if (sums.total[g] == 0)
			continue;
		raw = prof_stacks_frame_name(t, (uint32_t)g, &len);
		w = row_weights(f, prof_intern(&f->names, raw, len));
		w[2 * run] += (double)sums.self[g];
		w[2 * run + 1] += (double)sums.total[g];
	}
	f->wholes[run] = (double)sums.grand;
	prof_top_sums_release(&sums);
	prof_stacks_release(t);
	return f->wholes[run];
}

/* Profiles of different units (samples and bytes) do not compare. */
int prof_functions_units_match(const char *const path[2], const struct prof_meta m[2])
{
	const char *u0 = prof_meta_get(&m[0], "unit"), *u1 = prof_meta_get(&m[1], "unit");

	if (u0 && u1 && strcmp(u0, u1)) {
		prof_warn("%s is in %s, %s in %s: profiles of different units do not compare",
			  prof_input_display_name(path[0]), u0, prof_input_display_name(path[1]), u1);
		return 0;
	}
	return 1;
}

/*
 * Read every run of both sides into f, one profile at a time. Returns 0;
 * 1 when an input had bad lines or could not be read to its end (named:
 * the rest is compared, the exit status is 1); -1 when one holds nothing
 * to compare (empty, only metadata, only zero counts, unreadable) or the
 * units differ: a gate cannot judge that, and nothing is written.
 */
int prof_functions_read(struct prof_functions *f, const char *const *paths[2], const size_t n[2],
			const char *event, struct prof_meta *out)
{
	struct prof_meta first[2] = { PROF_META_INIT, PROF_META_INIT };
	const char *first_path[2] = { NULL, NULL };
	int rval = 0, unusable = 0;

	prof_functions_init(f, n[0], n[1]);
	for (int side = 0; side < 2; side++)
		for (size_t i = 0; i < n[side]; i++) {
			const char *path = paths[side][i];
			struct prof_profile_opts o;
			struct prof_stacks t;
			struct prof_meta m = PROF_META_INIT;

			prof_profile_opts_init(&o);
			o.event = event;
			prof_stacks_init(&t, 1);
			if (prof_profile_read(path, &o, &t, &m, NULL) < 0)
				rval = 1;
			if (!first_path[side]) {
				first_path[side] = path;
				prof_meta_merge(&first[side], &m);
			} else if (!prof_functions_units_match((const char *const[]){ first_path[side], path },
						(const struct prof_meta[]){ first[side], m })) {
				unusable = 1;
			}
			if (prof_functions_add(f, side, &t, &m) <= 0) {
				prof_input_warn(prof_input_display_name(path), 0, "no samples%s: nothing to compare",
						prof_meta_get(&m, "unit") ? " (only metadata or zero weights)"
									  : " (empty, or only zero weights)");
				unusable = 1;
			}
			prof_meta_release(&m);
		}
	if (!prof_functions_units_match(first_path, first))
		unusable = 1;
	if (prof_meta_get(&first[0], "unit") || prof_meta_get(&first[1], "unit"))
		prof_meta_set(out, "unit", prof_meta_get(&first[prof_meta_get(&first[0], "unit") ? 0 : 1], "unit"));
	prof_meta_release(&first[0]);
	prof_meta_release(&first[1]);
	return unusable ? -1 : rval;
}

/* ---- judging ---- */

/* Median of a side's runs of v[run * stride]. */
static double side_median(const struct prof_functions *f, int side, const double *v, size_t stride,
			  double *tmp)
{
	size_t from = side ? f->run_base : 0, n = f->side[side].runs;

	for (size_t r = 0; r < n; r++)
		tmp[r] = v[(from + r) * stride];
	return n ? prof_median(tmp, n) : 0;
}

/*
 * Judge one measure: v[run * stride] is its raw value in each run (base
 * runs first). Shares, when normalized, are of each run's whole. One run
 * a side: the counting error decides; several: the rank test and the
 * interval (compare/stats.h).
 */
static void judge_measure(const struct prof_functions *f, const double *v, size_t stride,
			  int normalize, double bar, struct prof_function_change *c, double *x, double *y)
{
	const struct prof_functions_side *sb = &f->side[0], *sn = &f->side[1];
	size_t nb = sb->runs, nn = sn->runs;
	int same = nb == nn, beyond;
	double ab, an;

	for (size_t r = 0; r < nb + nn; r++) {
		double raw = v[r * stride];

		if (r < nb)
			x[r] = normalize ? (f->wholes[r] > 0 ? raw / f->wholes[r] * 100 : 0) : raw;
		else
			y[r - nb] = normalize ? (f->wholes[r] > 0 ? raw / f->wholes[r] * 100 : 0) : raw;
	}
	/* identical amounts: the same values on both sides, run for run once sorted */
	for (size_t r = 0; same && r < nb; r++) {
		x[nb + r] = v[r * stride];	/* x has room for every run */
		y[nn + r] = v[(nb + r) * stride];
	}
	if (same) {
		prof_median(x + nb, nb);	/* sorts */
		prof_median(y + nn, nn);
		same = !memcmp(x + nb, y + nn, nb * sizeof(*x));
	}
	c->sigmas = c->p_value = c->ratio_lo = c->ratio_hi = NAN;
	if (nb == 1 && nn == 1) {
		double scale = normalize && f->wholes[1] > 0 ? f->wholes[0] / f->wholes[1] : 1;

		ab = v[0];
		an = v[stride];
		c->base = x[0];
		c->new = y[0];
		/* the base's amount against the new one scaled to the base's run */
		c->sigmas = prof_counts_sigmas(ab, sb->per_sample, an * scale, sn->per_sample * scale);
		beyond = c->sigmas > bar;
	} else {
		int ranks = prof_rank_test_can_decide(nb, nn);
		double spread, mb = 0, mn = 0, scale;

		/* the means' counting error: a mean of k counts is known k times better */
		for (size_t r = 0; r < nb + nn; r++)
			*(r < nb ? &mb : &mn) += v[r * stride] / (double)(r < nb ? nb : nn);
		scale = normalize && sn->whole > 0 ? sb->whole / sn->whole : 1;
		c->sigmas = prof_counts_sigmas(mb, sb->per_sample / (double)nb, mn * scale,
					       sn->per_sample * scale / (double)nn);
		/* the rank test only where the counting noise leaves room for a change */
		if (c->sigmas > bar)
			c->p_value = prof_mann_whitney(x, nb, y, nn);
		c->base = prof_median(x, nb);	/* sorts x and y */
		c->new = prof_median(y, nn);
		spread = fmax(x[nb - 1] - x[0], y[nn - 1] - y[0]);
		/* beyond the counting noise and beyond the run-to-run spread */
		beyond = c->sigmas > bar &&
			 (ranks ? c->p_value < PROF_ALPHA : fabs(c->new - c->base) > spread);
		/* the interval where the tests find a change (a profile has many functions) */
		if (beyond)
			prof_bootstrap_ratio(x, nb, y, nn, &c->ratio_lo, &c->ratio_hi);
		beyond = beyond && (isnan(c->ratio_lo) || c->ratio_lo > 1 || c->ratio_hi < 1);
		ab = side_median(f, 0, v, stride, x);	/* x and y are free again */
		an = side_median(f, 1, v, stride, y);
	}
	c->base_share = sb->whole > 0 ? ab / sb->whole * 100 : 0;
	c->new_share = sn->whole > 0 ? an / sn->whole * 100 : 0;
	c->delta = c->new - c->base;
	c->ratio = c->base != 0 ? c->new / c->base : NAN;
	c->delta_pct = c->base != 0 ? c->delta / c->base * 100 : NAN;
	c->delta_points = normalize ? fabs(c->delta)
				    : sb->whole > 0 ? fabs(an - ab) / sb->whole * 100 : 0;
	if (same)
		c->verdict = PROF_CHANGE_SAME;		/* identical amounts never get a verdict */
	else if (!beyond || c->delta == 0)
		c->verdict = PROF_CHANGE_NOISE;
	else if (c->base == 0)
		c->verdict = PROF_CHANGE_ADDED;
	else if (c->new == 0)
		c->verdict = PROF_CHANGE_REMOVED;
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

void prof_functions_judge(struct prof_functions *f, const struct prof_functions_opts *o)
{
	size_t n = prof_intern_count(&f->names), kept = 0, stride = 2;	/* self, total per run */
	double *x = xcalloc(f->nruns + 1, sizeof(*x)), *y = xcalloc(f->nruns + 1, sizeof(*y));
	size_t *offs = xcalloc(n + 1, sizeof(*offs));
	struct prof_buf text = PROF_BUF_INIT;
	int by_total = o->by_total != 0;

	/* A side without metadata (a bare folded file) is taken to be what the other says. */
	for (int side = 0; side < 2; side++)
		if (!f->side[side].said && f->side[!side].said) {
			size_t runs = f->side[side].runs;

			f->side[side] = f->side[!side];
			f->side[side].runs = runs;
		}
	/* Runs of different lengths (attached windows) compare by shares, and say so. */
	f->normalized = o->normalize > 0 ||
			(o->normalize == 0 && f->side[0].window && f->side[1].window);
	for (int side = 0; side < 2; side++)
		f->side[side].whole = side_median(f, side, f->wholes, 1, x);
	memset(&f->whole, 0, sizeof(f->whole));
	f->whole.function = "(all)";
	judge_measure(f, f->wholes, 1, 0, PROF_SIGMAS, &f->whole, x, y);
	f->whole.base_self = f->whole.base_total = side_median(f, 0, f->wholes, 1, x);
	f->whole.new_self = f->whole.new_total = side_median(f, 1, f->wholes, 1, x);
	/* The bar rises with the functions compared (compare/stats.h). */
	f->compared = 0;
	for (size_t id = 0; id < n; id++) {
		const double *w = row_weights(f, (uint32_t)id);

		for (size_t r = 0; r < f->nruns; r++)
			if (w[2 * r + (size_t)by_total] != 0) {
				f->compared++;
				break;
			}
	}
	f->bar = prof_sigmas_bar(f->compared);
	f->rows = xcalloc(n + 1, sizeof(*f->rows));
	for (size_t id = 0; id < n; id++) {
		struct prof_function_change *c = &f->rows[kept];
		const double *w = row_weights(f, (uint32_t)id);
		int any = 0;

		for (size_t r = 0; r < f->nruns; r++)
			any |= w[2 * r + (size_t)by_total] != 0;
		if (!any)
			continue;	/* a caller only: nothing of its own to compare */
		c->function = (const char *)(uintptr_t)id;	/* a name once the text is complete (below) */
		c->base_self = side_median(f, 0, w, stride, x);
		c->new_self = side_median(f, 1, w, stride, x);
		c->base_total = side_median(f, 0, w + 1, stride, x);
		c->new_total = side_median(f, 1, w + 1, stride, x);
		judge_measure(f, w + by_total, stride, f->normalized, f->bar, c, x, y);
		if (o->min_delta > 0 && c->delta_points < o->min_delta)
			continue;	/* noise the caller asked to drop */
		kept++;
	}
	f->n = kept;
	free(x);
	free(y);
	/* The names as proffold --top prints them: control bytes become spaces. */
	for (size_t i = 0; i < f->n; i++) {
		size_t len, id = (size_t)(uintptr_t)f->rows[i].function;
		const char *raw = prof_intern_str(&f->names, (uint32_t)id, &len);

		offs[i] = text.len;
		prof_tsv_text(&text, raw, len);
		prof_buf_addch(&text, '\0');
	}
	f->text = prof_buf_detach(&text, NULL);
	for (size_t i = 0; i < f->n; i++)
		f->rows[i].function = f->text + offs[i];
	free(offs);
	qsort(f->rows, f->n, sizeof(*f->rows), cmp_magnitude);
}

void prof_functions_compare(struct prof_stacks *base, struct prof_stacks *new,
			    const struct prof_functions_opts *o, struct prof_functions *out)
{
	prof_functions_init(out, 1, 1);
	prof_functions_add(out, 0, base, NULL);
	prof_functions_add(out, 1, new, NULL);
	prof_functions_judge(out, o);
}

void prof_functions_free(struct prof_functions *f)
{
	free(f->rows);
	free(f->text);
	free(f->w);
	free(f->wholes);
	prof_intern_release(&f->names);
	memset(f, 0, sizeof(*f));
}

/* ---- writing ---- */

char *prof_functions_amount(char *buf, size_t n, const struct prof_functions_side *s, double v)
{
	if (v == 0) {
		snprintf(buf, n, "0");
		return buf;
	}
	if (s->ns_per_unit > 0)
		return prof_fmt_duration(buf, n, v * s->ns_per_unit / 1e9);
	if (!strcmp(s->unit, "bytes"))
		return prof_fmt_bytes(buf, n, v);
	return prof_fmt_number(buf, n, v, 4);
}

/* An amount shown without a unit of its own (samples, allocations, events). */
static int shown_as_number(const struct prof_functions_side *s)
{
	return s->ns_per_unit == 0 && strcmp(s->unit, "bytes");
}

static const char *number(char *buf, size_t n, double v, const char *absent)
{
	return isnan(v) ? absent : prof_fmt_number(buf, n, v, 6);
}

static void write_tsv_row(const struct prof_function_change *c, struct prof_output *o)
{
	char w[4][48], v[9][48];

	prof_output_printf(o, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			   c->function,
			   number(w[0], 48, c->base_self, ""), number(w[1], 48, c->new_self, ""),
			   number(w[2], 48, c->base_total, ""), number(w[3], 48, c->new_total, ""),
			   number(v[0], 48, c->delta, ""),
			   number(v[1], 48, isnan(c->delta_pct) ? NAN : round(c->delta_pct * 100) / 100, ""),
			   number(v[2], 48, c->ratio, ""), prof_change_verdict_name(c->verdict),
			   number(v[3], 48, round(c->base_share * 1000) / 1000, ""),
			   number(v[4], 48, round(c->new_share * 1000) / 1000, ""),
			   isinf(c->sigmas) ? "inf" : number(v[5], 48, round(c->sigmas * 100) / 100, ""),
			   number(v[6], 48, c->p_value, ""), number(v[7], 48, c->ratio_lo, ""),
			   number(v[8], 48, c->ratio_hi, ""));
}

/* What a verdict rests on, for a person. */
static const char *evidence(char *buf, size_t n, const struct prof_function_change *c)
{
	if (c->verdict == PROF_CHANGE_SAME)
		snprintf(buf, n, "-");	/* nothing to weigh */
	else if (!isnan(c->ratio_lo))
		snprintf(buf, n, "x%.3g..%.3g p=%.2g", c->ratio_lo, c->ratio_hi, c->p_value);
	else if (!isnan(c->p_value))
		snprintf(buf, n, "p=%.2g", c->p_value);
	else if (isinf(c->sigmas))
		snprintf(buf, n, "exact");
	else if (!isnan(c->sigmas))
		snprintf(buf, n, "%.1f se", c->sigmas);
	else
		snprintf(buf, n, "-");
	return buf;
}

/* The change of a row: an amount (or points of share) and its percentage. */
static void change_text(char *buf, size_t n, const struct prof_functions *f,
			const struct prof_function_change *c)
{
	char d[48], p[48];

	if (c->verdict == PROF_CHANGE_SAME) {
		snprintf(buf, n, "0");	/* identical amounts */
		return;
	} else if (f->normalized)
		snprintf(d, sizeof(d), "%+.2f pts", c->delta);
	else {
		prof_functions_amount(d + 1, sizeof(d) - 1, &f->side[0], fabs(c->delta));
		d[0] = c->delta < 0 ? '-' : '+';
	}
	if (isnan(c->delta_pct))
		snprintf(p, sizeof(p), c->base == 0 && c->new != 0 ? "new" : "");
	else
		snprintf(p, sizeof(p), "%+.1f%%", c->delta_pct);
	snprintf(buf, n, "%s %s", d, p);
}

enum { C_BASE, C_NEW, C_CHANGE, C_SHARE, C_EVIDENCE, NCELLS };

/* The cells of a row after its name, for a person. */
static void human_cells(const struct prof_functions *f, const struct prof_function_change *c,
			int by_total, char cell[NCELLS][64])
{
	prof_functions_amount(cell[C_BASE], 64, &f->side[0], by_total ? c->base_total : c->base_self);
	prof_functions_amount(cell[C_NEW], 64, &f->side[1], by_total ? c->new_total : c->new_self);
	change_text(cell[C_CHANGE], 64, f, c);
	snprintf(cell[C_SHARE], 64, "%.1f%% -> %.1f%%", c->base_share, c->new_share);
	evidence(cell[C_EVIDENCE], 64, c);
}

/* "CPU (cpu-clock): 486 ms -> 1.02 s, +110.0%, worse (21.3 se)": the whole of each side. */
static void write_totals(const struct prof_functions *f, const struct prof_compare_style *st,
			 struct prof_output *o)
{
	const struct prof_function_change *w = &f->whole;
	char b[48], n[48], ch[96], ev[64];

	prof_functions_amount(b, sizeof(b), &f->side[0], w->base_self);
	prof_functions_amount(n, sizeof(n), &f->side[1], w->new_self);
	change_text(ch, sizeof(ch), f, w);
	if (f->normalized)	/* the whole's change is in amounts even then */
		snprintf(ch, sizeof(ch), "%+.1f%%", w->delta_pct);
	prof_output_printf(o, "%s: %s -> %s%s%s, %s (%zu run%s -> %zu run%s, %s) ", f->side[0].label, b,
			   n, shown_as_number(&f->side[0]) ? " " : "",
			   shown_as_number(&f->side[0]) ? f->side[0].unit : "", ch, f->side[0].runs, f->side[0].runs == 1 ? "" : "s", f->side[1].runs,
			   f->side[1].runs == 1 ? "" : "s", evidence(ev, sizeof(ev), w));
	prof_compare_verdict(o, st, w->verdict);
	prof_output_puts(o, "\n");
	if (f->normalized)
		prof_output_printf(o, "functions judged by their share of each run%s\n",
				   f->side[0].window && f->side[1].window ?
				   " (both recordings are windows of a running program: their lengths "
				   "are the recorder's)" : " (--normalize)");
	else
		prof_output_puts(o, "functions judged by their amounts (--normalize: by shares)\n");
	if (f->side[0].per_sample == 0 && f->side[0].runs == 1 && f->side[1].runs == 1)
		prof_output_puts(o, "an exact measure (not sampled): every difference is judged\n\n");
	else if (f->side[0].per_sample == 0)
		prof_output_printf(o, "a verdict needs Mann-Whitney p < %g (or, with 3 runs a side or "
				   "fewer, a change beyond the spread) and the %g%% interval of the "
				   "ratio of medians to exclude 1\n\n", PROF_ALPHA, PROF_CONFIDENCE * 100);
	else
		prof_output_printf(o, "a verdict needs the difference beyond %.1f standard errors of "
				   "the sample counts (%g for one function, raised for the %zu "
				   "compared)%s\n\n", f->bar, PROF_SIGMAS, f->compared,
				   f->side[0].runs == 1 && f->side[1].runs == 1 ? "" :
				   ", Mann-Whitney p < 0.05 (or, with 3 runs a side or fewer, a change "
				   "beyond the spread) and the 95% interval of the ratio of medians "
				   "excluding 1");
}

int prof_functions_write(const struct prof_functions *f, const struct prof_functions_opts *opts,
			 size_t limit, int human, const struct prof_compare_style *st,
			 const struct prof_meta *meta, struct prof_output *o)
{
	const char *heads[NCELLS] = { opts->by_total ? "base total" : "base self",
				      opts->by_total ? "new total" : "new self", "change", "share",
				      "evidence" };
	size_t n = limit && limit < f->n ? limit : f->n, name_w = 8, w[NCELLS], rest = 0;
	char (*cells)[NCELLS][64];
	int show_share = 1;

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
	/* Each column as wide as its widest cell. */
	cells = xcalloc(n + 1, sizeof(*cells));
	for (size_t k = 0; k < NCELLS; k++)
		w[k] = strlen(heads[k]);
	for (size_t i = 0; i < n; i++) {
		human_cells(f, &f->rows[i], opts->by_total, cells[i]);
		for (size_t k = 0; k < NCELLS; k++)
			if (strlen(cells[i][k]) > w[k])
				w[k] = strlen(cells[i][k]);
		if (strlen(f->rows[i].function) > name_w)
			name_w = strlen(f->rows[i].function);
	}
	for (size_t k = 0; k < NCELLS; k++)
		rest += 2 + w[k];
	rest += 2 + 7;	/* the verdict */
	/*
	 * On a terminal a row fits its width: the names give way (cut with
	 * "~") down to 16 columns, then the shares (the second view) go.
	 */
	if (st && st->width && name_w + rest > st->width && 16 + rest > st->width) {
		show_share = 0;
		rest -= 2 + w[C_SHARE];
	}
	if (st && st->width && name_w + rest > st->width)
		name_w = st->width > rest + 16 ? st->width - rest : 16;
	if (name_w > 1000)
		name_w = 1000;
	write_totals(f, st, o);
	prof_output_printf(o, "%-*s", (int)name_w, "function");
	for (size_t k = 0; k < NCELLS; k++)
		if (k != C_SHARE || show_share)
			prof_output_printf(o, k == C_EVIDENCE ? "  %-*s" : "  %*s", (int)w[k], heads[k]);
	prof_output_puts(o, "  verdict\n");
	/* Regressions first, each group in order of size. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			const struct prof_function_change *c = &f->rows[i];
			int regressed = c->verdict == PROF_CHANGE_WORSE || c->verdict == PROF_CHANGE_ADDED;
			char name[1024];

			if (regressed != (pass == 0))
				continue;
			prof_compare_cut(name, sizeof(name), c->function, name_w);
			prof_output_printf(o, "%-*s", (int)name_w, name);
			for (size_t k = 0; k < NCELLS; k++)
				if (k != C_SHARE || show_share)
					prof_output_printf(o, k == C_EVIDENCE ? "  %-*s" : "  %*s", (int)w[k],
							   cells[i][k]);
			prof_output_puts(o, "  ");
			prof_compare_verdict(o, st, c->verdict);
			prof_output_puts(o, "\n");
		}
	free(cells);
	return 0;
}

/* ---- the gate ---- */

/* "120 ms -> 360 ms" of a row's judged measure. */
static void amounts_text(char *buf, size_t n, const struct prof_functions *f,
		    const struct prof_function_change *r, int by_total)
{
	char b[48], a[48];

	prof_functions_amount(b, sizeof(b), &f->side[0], by_total ? r->base_total : r->base_self);
	prof_functions_amount(a, sizeof(a), &f->side[1], by_total ? r->new_total : r->new_self);
	snprintf(buf, n, "%s -> %s", b, a);
}

unsigned long prof_functions_gate(const struct prof_functions *f, int by_total, double limit,
				  const char *function, double min_delta)
{
	unsigned long failed = 0;
	int seen = 0;

	for (size_t i = 0; i < f->n; i++) {
		const struct prof_function_change *r = &f->rows[i];
		char amt[128], why[96];

		if (function && strcmp(function, r->function))
			continue;
		seen = 1;
		/* An added function's change is without bound: above any limit. */
		if (r->verdict != PROF_CHANGE_ADDED &&
		    !(r->verdict == PROF_CHANGE_WORSE && r->delta_pct > limit))
			continue;
		failed++;
		amounts_text(amt, sizeof(amt), f, r, by_total);
		if (!isnan(r->ratio_lo))
			snprintf(why, sizeof(why), "ratio %.3g..%.3g, p=%.2g", r->ratio_lo, r->ratio_hi,
				 r->p_value);
		else if (isinf(r->sigmas) || isnan(r->sigmas))
			snprintf(why, sizeof(why), "p=%.2g", r->p_value);
		else
			snprintf(why, sizeof(why), "%.1f standard errors", r->sigmas);
		if (isinf(r->sigmas))
			snprintf(why, sizeof(why), "an exact measure");
		if (r->verdict == PROF_CHANGE_ADDED)
			prof_warn("regression: %s is new: %s (%s)", r->function, amt, why);
		else
			prof_warn("regression: %s %s %s, %+.1f%% (%s; limit %g%%)", r->function,
				  by_total ? "total" : "self", amt, r->delta_pct, why,
				  limit);
	}
	if (function && !seen)
		prof_warn("--function: no function '%s' in either profile%s", function,
			  min_delta > 0 ? " (or its change is under --min-delta)" : "");
	return failed + (function && !seen);
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
