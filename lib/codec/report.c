/*
 * Computations on and writers of the benchmark's rows (report.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/report.h"
#include "base/escape.h"
#include "base/term.h"
#include "base/error.h"
#include "base/units.h"
#include "base/xalloc.h"
#include "formats/tsv.h"

/* ---- Pareto frontier and recommendations ---- */

/* Whether r takes part in the frontier and in recommendations. */
static int row_competes(const struct prof_codec_row *r)
{
	return r->status == PROF_CODEC_OK && !(r->codec->flags & PROF_CODEC_F_BASELINE);
}

double prof_codec_row_ratio(const struct prof_codec_row *r)
{
	return r->comp ? (double)r->orig / (double)r->comp : -1;
}

/* Nonzero if (rb, sb) dominates (ra, sa): no worse in both, better in one. */
static int dominates(double rb, double sb, double ra, double sa)
{
	return rb >= ra && sb >= sa && (rb > ra || sb > sa);
}

void prof_codec_rows_mark_pareto(struct prof_codec_rows *rows, size_t lo, size_t hi)
{
	for (size_t i = lo; i < hi; i++) {
		struct prof_codec_row *a = &rows->v[i];
		double ra = prof_codec_row_ratio(a);
		int dom_c = 0, dom_d = 0;

		if (!row_competes(a))
			continue;
		for (size_t j = lo; j < hi; j++) {
			const struct prof_codec_row *b = &rows->v[j];
			double rb = prof_codec_row_ratio(b);

			if (j == i || !row_competes(b))
				continue;
			dom_c |= dominates(rb, b->cspeed, ra, a->cspeed);
			dom_d |= dominates(rb, b->dspeed, ra, a->dspeed);
		}
		a->pareto_c = !dom_c;
		a->pareto_d = !dom_d;
	}
}

static const char *const metric_names[] = { "cspeed", "dspeed", "ratio", "cmem", "dmem" };
#define NMETRICS (sizeof(metric_names) / sizeof(metric_names[0]))

/* The operator at *s (advanced past it), or -1. */
static int parse_cmp(const char **s)
{
	static const struct {
		const char *text;
		enum prof_codec_cmp op;
	} ops[] = {	/* two-character operators first */
		{ ">=", PROF_CODEC_GE }, { "<=", PROF_CODEC_LE }, { ">", PROF_CODEC_GT },
		{ "<", PROF_CODEC_LT }, { "=", PROF_CODEC_EQ },
	};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t n = strlen(ops[i].text);

		if (strncmp(*s, ops[i].text, n) == 0) {
			*s += n;
			return (int)ops[i].op;
		}
	}
	return -1;
}

/* One "metric OP value" item into *c; 0, or -1 with a message in err. */
static int parse_constraint(char *tok, struct prof_codec_constraint *c, char *err, size_t errlen)
{
	size_t k = strcspn(tok, "<>="), m;
	const char *val;
	int op;

	while (*tok == ' ')
		tok++, k--;
	for (m = 0; m < NMETRICS; m++)
		if (strlen(metric_names[m]) == k && strncmp(tok, metric_names[m], k) == 0)
			break;
	if (m == NMETRICS) {
		snprintf(err, errlen, "unknown metric in '%s' (cspeed, dspeed, ratio, cmem, dmem)",
			 tok);
		return -1;
	}
	c->metric = (enum prof_codec_metric)m;
	val = tok + k;
	op = parse_cmp(&val);
	if (op < 0) {
		snprintf(err, errlen, "missing operator in '%s'", tok);
		return -1;
	}
	c->op = (enum prof_codec_cmp)op;
	if (c->metric == PROF_CODEC_CMEM || c->metric == PROF_CODEC_DMEM) {
		uint64_t sz;

		if (prof_parse_size(val, &sz)) {
			snprintf(err, errlen, "bad size '%s' in '%s'", val, tok);
			return -1;
		}
		c->value = (double)sz;
	} else if (prof_parse_double(val, &c->value)) {
		snprintf(err, errlen, "bad number '%s' in '%s'", val, tok);
		return -1;
	}
	return 0;
}

size_t prof_codec_constraints_parse(const char *expr, struct prof_codec_constraint **out,
				    char *err, size_t errlen)
{
	struct prof_codec_constraint *v = NULL;
	size_t n = 0, cap = 0;
	char *copy = xstrdup(expr), *save = NULL;

	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		PROF_GROW(v, n + 1, cap);
		if (parse_constraint(tok, &v[n], err, errlen)) {
			n = 0;
			goto out;
		}
		n++;
	}
	if (n == 0)
		snprintf(err, errlen, "empty constraint");
out:
	free(copy);
	if (n == 0) {
		free(v);
		v = NULL;
	}
	*out = v;
	return n;
}

static double metric_value(const struct prof_codec_row *r, enum prof_codec_metric m)
{
	switch (m) {
	case PROF_CODEC_CSPEED: return r->cspeed;
	case PROF_CODEC_DSPEED: return r->dspeed;
	case PROF_CODEC_RATIO: return prof_codec_row_ratio(r);
	case PROF_CODEC_CMEM: return (double)r->cmem;
	case PROF_CODEC_DMEM: return (double)r->dmem;
	}
	return -1;
}

static int compare(double v, enum prof_codec_cmp op, double bound)
{
	switch (op) {
	case PROF_CODEC_GE: return v >= bound;
	case PROF_CODEC_LE: return v <= bound;
	case PROF_CODEC_GT: return v > bound;
	case PROF_CODEC_LT: return v < bound;
	case PROF_CODEC_EQ: return v == bound;
	}
	return 0;
}

int prof_codec_row_meets(const struct prof_codec_row *r, const struct prof_codec_constraint *c,
			 size_t n)
{
	for (size_t i = 0; i < n; i++) {
		double v = metric_value(r, c[i].metric);

		if (v < 0 || !compare(v, c[i].op, c[i].value))
			return 0;	/* unknown never meets a constraint */
	}
	return 1;
}

size_t prof_codec_recommend(const struct prof_codec_rows *rows, size_t lo, size_t hi,
			    const struct prof_codec_constraint *c, size_t n)
{
	size_t best = (size_t)-1;

	for (size_t k = lo; k < hi; k++) {
		const struct prof_codec_row *r = &rows->v[k];

		if (!row_competes(r) || !prof_codec_row_meets(r, c, n))
			continue;
		if (best == (size_t)-1 || prof_codec_row_ratio(r) > prof_codec_row_ratio(&rows->v[best]))
			best = k;
	}
	return best;
}

size_t prof_codec_recommend_print(FILE *f, const struct prof_codec_rows *rows,
				  const struct prof_codec_constraint *c, size_t n,
				  const char *expr)
{
	size_t unmet = 0;

	for (size_t i = 0, j; i < rows->n; i = j) {
		size_t best;

		for (j = i; j < rows->n && strcmp(rows->v[j].input, rows->v[i].input) == 0; j++)
			;
		best = prof_codec_recommend(rows, i, j, c, n);
		if (best == (size_t)-1) {
			prof_warn("%s: no codec and level meets '%s'", rows->v[i].input, expr);
			unmet++;
		} else {
			const struct prof_codec_row *r = &rows->v[best];
			char cell[64];

			prof_codec_cell_name(r->codec, r->level, cell, sizeof(cell));
			fprintf(f, "%s\t%s\tratio=%.3f\tcspeed=%.1f\tdspeed=%.1f\n", r->input, cell,
				prof_codec_row_ratio(r), r->cspeed, r->dspeed);
		}
	}
	return unmet;
}

/* ---- the tables ---- */

static void fmt_speed(char *buf, size_t n, double v)
{
	if (v < 0)
		buf[0] = '\0';
	else
		snprintf(buf, n, v < 10 ? "%.3f" : "%.1f", v);
}

static void fmt_opt_int(char *buf, size_t n, long long v)
{
	if (v < 0)
		buf[0] = '\0';
	else
		snprintf(buf, n, "%lld", v);
}

static void flags_text(const struct prof_codec_row *r, char *buf, size_t n)
{
	struct prof_buf b = PROF_BUF_INIT;

	if (r->status == PROF_CODEC_COMP_ERROR)
		prof_buf_addstr(&b, ",comp-error");
	else if (r->status == PROF_CODEC_DECOMP_ERROR)
		prof_buf_addstr(&b, ",decomp-error");
	else if (r->status == PROF_CODEC_MISMATCH)
		prof_buf_addstr(&b, ",mismatch");
	if (r->suspect_c)
		prof_buf_addstr(&b, ",suspect-comp");
	if (r->suspect_d)
		prof_buf_addstr(&b, ",suspect-decomp");
	if (r->pareto_c)
		prof_buf_addstr(&b, ",pareto-comp");
	if (r->pareto_d)
		prof_buf_addstr(&b, ",pareto-decomp");
	snprintf(buf, n, "%s", b.len ? b.data + 1 : "-");
	prof_buf_release(&b);
}

/*
 * The fields of one row as text, in schema order; field 0 (the input name,
 * of any length) is left empty: use field_of().
 */
#define NCOLS 15
static void row_fields(const struct prof_codec_row *r, char f[NCOLS][128])
{
	f[0][0] = '\0';
	snprintf(f[1], 128, "%s", r->codec->name);
	if (r->level == PROF_CODEC_NOLEVEL)
		snprintf(f[2], 128, "-");
	else
		snprintf(f[2], 128, "%d", r->level);
	snprintf(f[3], 128, "%llu", (unsigned long long)r->block_bytes);
	snprintf(f[4], 128, "%llu", (unsigned long long)r->orig);
	fmt_opt_int(f[5], 128, r->have_comp ? (long long)r->comp : -1);
	if (r->have_comp && r->comp)
		snprintf(f[6], 128, "%.3f", prof_codec_row_ratio(r));
	else
		f[6][0] = '\0';
	fmt_speed(f[7], 128, r->cspeed);
	fmt_speed(f[8], 128, r->dspeed);
	fmt_speed(f[9], 128, r->ccpu);
	fmt_speed(f[10], 128, r->dcpu);
	fmt_opt_int(f[11], 128, r->cmem);
	fmt_opt_int(f[12], 128, r->dmem);
	snprintf(f[13], 128, "%s", r->status == PROF_CODEC_OK ? "ok" : "failed");
	flags_text(r, f[14], 128);
}

static const char *field_of(const struct prof_codec_row *r, char f[NCOLS][128], int c)
{
	return c == 0 ? r->input : f[c];
}

void prof_codec_rows_write_tsv(struct prof_output *out, const struct prof_buf *meta,
			       const struct prof_codec_rows *rows)
{
	const struct prof_tsv_schema *s = prof_tsv_schema_find("profcompress");
	char f[NCOLS][128];

	prof_output_write(out, meta->data, meta->len);
	prof_output_puts(out, prof_tsv_header(s));
	for (size_t i = 0; i < rows->n; i++) {
		row_fields(&rows->v[i], f);
		for (int c = 0; c < NCOLS; c++)
			prof_output_printf(out, "%s%s", field_of(&rows->v[i], f, c),
					   c + 1 < NCOLS ? "\t" : "\n");
	}
}

/* The --human columns: their headings and the schema fields they show. */
static const char *const human_head[] = {
	"input", "codec", "level", "ratio", "comp MB/s", "decomp MB/s",
	"comp bytes", "comp mem", "decomp mem", "status", "flags",
};
static const int human_field[] = { 0, 1, 2, 6, 7, 8, 5, 11, 12, 13, 14 };
#define NHUMAN (sizeof(human_head) / sizeof(human_head[0]))

/* Column c of a row as --human shows it (memory human-readable), in hb if needed. */
static const char *human_text(const struct prof_codec_row *r, char f[NCOLS][128], size_t c,
			      char *hb, size_t hblen)
{
	const char *v = field_of(r, f, human_field[c]);

	if ((c == 7 || c == 8) && *v) {
		prof_fmt_bytes(hb, hblen, strtod(v, NULL));
		v = hb;
	}
	return v;
}

/* One line of the table: text columns left-aligned, numbers right-aligned. */
static void human_line(struct prof_output *out, const int *width, const char *const *cols)
{
	for (size_t c = 0; c < NHUMAN; c++)
		prof_output_printf(out, c < 3 || c >= 9 ? "%-*s%s" : "%*s%s",
				   c + 1 < NHUMAN ? width[c] : 0, cols[c],
				   c + 1 < NHUMAN ? "  " : "\n");
}

void prof_codec_rows_write_human(struct prof_output *out, const struct prof_codec_rows *rows,
				 unsigned term_width)
{
	int width[NHUMAN], line = 0;
	char f[NCOLS][128], hb[NHUMAN][32], name[128];
	const char *cols[NHUMAN];

	for (size_t c = 0; c < NHUMAN; c++)
		width[c] = (int)strlen(human_head[c]);
	for (size_t i = 0; i < rows->n; i++) {
		row_fields(&rows->v[i], f);
		for (size_t c = 0; c < NHUMAN; c++) {
			const char *v = human_text(&rows->v[i], f, c, hb[c], sizeof(hb[c]));

			if ((int)strlen(v) > width[c])
				width[c] = (int)strlen(v);
		}
	}
	for (size_t c = 0; c < NHUMAN; c++)
		line += width[c] + (c + 1 < NHUMAN ? 2 : 0);
	/* On a terminal the input names give way, so that a row is one line. */
	if (term_width && line > (int)term_width)
		width[0] = width[0] - (line - (int)term_width) > 8 ? width[0] - (line - (int)term_width) : 8;
	human_line(out, width, human_head);
	for (size_t i = 0; i < rows->n; i++) {
		row_fields(&rows->v[i], f);
		for (size_t c = 0; c < NHUMAN; c++) {
			cols[c] = human_text(&rows->v[i], f, c, hb[c], sizeof(hb[c]));
			if (!*cols[c])
				cols[c] = "-";
		}
		cols[0] = prof_term_cut_start(name, sizeof(name), cols[0], (size_t)width[0]);
		human_line(out, width, cols);
	}
}

void prof_codec_list_write(FILE *f)
{
	fprintf(f, "%-11s %-14s %-7s %-9s %s\n", "codec", "levels", "default", "version",
		"description");
	for (size_t i = 0; prof_codecs[i]; i++) {
		const struct prof_codec *c = prof_codecs[i];
		char levels[32], def[16];

		if (prof_codec_has_levels(c)) {
			snprintf(levels, sizeof(levels), "%d..%d", c->min_level, c->max_level);
			snprintf(def, sizeof(def), "%d", c->default_level);
		} else {
			snprintf(levels, sizeof(levels), "-");
			snprintf(def, sizeof(def), "-");
		}
		fprintf(f, "%-11s %-14s %-7s %-9s %s%s\n", c->name, levels, def,
			prof_codec_version(c), c->desc, (c->flags & PROF_CODEC_F_DICT) ? " [-D]" : "");
	}
	if (prof_codecs_not_built[0]) {
		fprintf(f, "not built (library not found):");
		for (size_t i = 0; prof_codecs_not_built[i]; i++)
			fprintf(f, " %s", prof_codecs_not_built[i]);
		fprintf(f, "\n");
	}
	for (size_t i = 0; prof_codec_aliases[i].name; i++)
		fprintf(f, "alias %s = %s\n", prof_codec_aliases[i].name, prof_codec_aliases[i].spec);
}
