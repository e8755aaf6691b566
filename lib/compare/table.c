#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "base/buf.h"
#include "base/error.h"
#include "base/escape.h"
#include "base/term.h"
#include "base/units.h"
#include "base/xalloc.h"
#include "core/intern.h"
#include "compare/stats.h"
#include "compare/table.h"
#include "formats/profile.h"
#include "formats/tsv.h"
#include "io/input.h"
#include "io/output.h"

/* ---- reading ---- */

/* Room for n field pointers in *fields (capacity *cap). */
static void fields_room(char ***fields, size_t *cap, size_t n)
{
	if (n > *cap) {
		*cap = n > 2 * *cap ? n : 2 * *cap;
		*cap = *cap < 16 ? 16 : *cap;
		*fields = xreallocarray(*fields, *cap, sizeof(**fields));
	}
}

/*
 * Split a line at tabs, or at runs of blanks when it has no tab, into
 * *fields (grown as needed: a line has as many fields as it likes).
 */
static size_t split_fields(char *line, size_t len, char ***fields, size_t *cap)
{
	size_t n = 0;
	char *p = line, *end = line + len;

	if (memchr(line, '\t', len)) {
		/* counted first: prof_tsv_split() turns the tabs it passes into NULs */
		for (const char *q = line; (q = memchr(q, '\t', (size_t)(end - q))); q++)
			n++;
		fields_room(fields, cap, n + 1);
		return prof_tsv_split(line, len, *fields, *cap);
	}
	while (p < end) {
		while (p < end && isblank((unsigned char)*p))
			p++;
		if (p == end)
			break;
		fields_room(fields, cap, n + 1);
		(*fields)[n++] = p;
		while (p < end && !isblank((unsigned char)*p))
			p++;
		if (p < end)
			*p++ = '\0';
	}
	return n;
}

static int cell_is_number(const char *s)
{
	double v;

	return *s && prof_parse_double(s, &v) == 0;
}

/*
 * A cell that stands where a number should but holds none that can be
 * judged: "nan", "inf", "n/a", "null", a number beyond a double (1e400).
 * In a column of numbers it is an error, not a missing value: a gate
 * cannot say the value did not regress.
 */
static int cell_is_unjudgeable(const char *s)
{
	static const char *const words[] = {
		"nan", "-nan", "+nan", "inf", "-inf", "+inf", "infinity", "-infinity", "n/a", "na",
		"null", "none", "undefined", NULL
	};
	char *end;

	for (size_t i = 0; words[i]; i++)
		if (!strcasecmp(s, words[i]))
			return 1;
	if (!*s)
		return 0;
	(void)strtod(s, &end);
	return *end == '\0' && !cell_is_number(s);
}

/* "-" or empty: a value the table says it does not have. */
static int cell_is_absent(const char *s)
{
	return !*s || !strcmp(s, "-");
}

/* Take the first line's fields as the header, or name the columns 1..n. */
static void set_header(struct prof_table *t, char **fields, size_t n, int *header_is_row)
{
	size_t i;

	*header_is_row = 0;
	for (i = 0; i < n; i++)
		if (cell_is_number(fields[i]))
			*header_is_row = 1;
	t->ncols = n;
	t->cols = xcalloc(n, sizeof(*t->cols));
	for (i = 0; i < n; i++) {
		if (*header_is_row)
			t->cols[i] = xasprintf("%zu", i + 1);
		else
			t->cols[i] = xstrdup(fields[i]);
	}
}

/*
 * Keep a row: its line (split in place) is copied to the end of text,
 * its cells noted as offsets there (text moves as it grows; the offsets
 * become pointers once it is complete).
 */
static void add_row(struct prof_table *t, struct prof_buf *text, size_t **offs,
		    const char *line, size_t line_len, char **fields, unsigned long lineno,
		    size_t *cap)
{
	size_t at = text->len;

	if (t->nrows == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*offs = xreallocarray(*offs, *cap * t->ncols, sizeof(**offs));
		t->lines = xreallocarray(t->lines, *cap, sizeof(*t->lines));
		t->row_file = xreallocarray(t->row_file, *cap, sizeof(*t->row_file));
	}
	prof_buf_add(text, line, line_len + 1);
	for (size_t c = 0; c < t->ncols; c++)
		(*offs)[t->nrows * t->ncols + c] = at + (size_t)(fields[c] - line);
	t->lines[t->nrows++] = lineno;
}

/* A table being read from one or several files. */
struct reading {
	struct prof_buf text;
	size_t cap, *offs;
	char **fields;
	size_t nfields;
};

/*
 * Add the rows of path to t. The first file's header names the columns;
 * a later file must have the same ones (its metadata is not kept).
 * Returns 0, or -1 after reporting.
 */
static int read_file(const char *path, struct prof_table *t, struct reading *rd, unsigned long *bad)
{
	struct prof_lines *lr;
	const char *name = prof_input_display_name(path);
	size_t line_len, nf;
	char *line;
	int rval = 0, first = t->nfiles == 0, header = 0;
	unsigned file = (unsigned)t->nfiles;

	t->files = xreallocarray(t->files, t->nfiles + 1, sizeof(*t->files));
	t->files[t->nfiles++] = xstrdup(name);
	/* the shared line reader: a line over the cap is reported, skipped, counted */
	lr = prof_lines_open(path);
	if (!lr)
		return -1;
	while ((line = prof_lines_next(lr, &line_len))) {
		unsigned long lineno = prof_lines_lineno(lr);

		if (!header && prof_meta_is_line(line, line_len)) {
			if (first)
				prof_meta_parse_line(&t->meta, line, line_len);
			continue;
		}
		if (!line_len && !header)
			continue;
		nf = split_fields(line, line_len, &rd->fields, &rd->nfields);
		if (!header) {
			int header_is_row = 0;

			header = 1;
			if (first) {
				set_header(t, rd->fields, nf, &header_is_row);
			} else {
				for (size_t i = 0; i < nf; i++)
					header_is_row |= cell_is_number(rd->fields[i]);
				for (size_t i = 0; !header_is_row && i < nf; i++)
					if (nf != t->ncols || strcmp(rd->fields[i], t->cols[i])) {
						prof_input_warn(name, lineno, "not the columns of %s",
								t->files[0]);
						rval = -1;
						goto out;
					}
			}
			if (!header_is_row)
				continue;
		}
		if (nf != t->ncols) {
			prof_input_warn(name, lineno, "%zu field%s, expected %zu", nf,
					nf == 1 ? "" : "s", t->ncols);
			++*bad;
			continue;
		}
		add_row(t, &rd->text, &rd->offs, line, line_len, rd->fields, lineno, &rd->cap);
		t->row_file[t->nrows - 1] = file;
	}
	*bad += prof_lines_too_long(lr);
	if (prof_lines_failed(lr))
		rval = -1;
	else if (!header) {
		prof_input_warn(name, 0, "empty: no header, no row");
		rval = -1;
	}
out:
	prof_lines_close(lr);
	return rval;
}

int prof_table_read_runs(const char *const *paths, size_t n, struct prof_table *t,
			 unsigned long *bad)
{
	struct reading rd = { .text = PROF_BUF_INIT };
	int rval = 0;

	memset(t, 0, sizeof(*t));
	*bad = 0;
	t->name = xstrdup(prof_input_display_name(paths[0]));
	for (size_t i = 0; i < n; i++)
		if (read_file(paths[i], t, &rd, bad) < 0)
			rval = -1;
	free(rd.fields);
	t->text = prof_buf_detach(&rd.text, NULL);
	t->cells = xreallocarray(NULL, t->nrows * t->ncols + 1, sizeof(*t->cells));
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		t->cells[i] = t->text + rd.offs[i];
	free(rd.offs);
	return rval;
}

int prof_table_read(const char *path, struct prof_table *t, unsigned long *bad)
{
	return prof_table_read_runs(&path, 1, t, bad);
}

int prof_table_looks_like(const char *path)
{
	struct prof_input *in = prof_input_open(path);
	char buf[65536];
	ssize_t len = 0, n;
	const char *line;

	if (!in)
		return 0;
	while (len < (ssize_t)sizeof(buf) - 1 &&
	       (n = prof_input_read(in, buf + len, sizeof(buf) - 1 - (size_t)len)) > 0)
		len += n;
	prof_input_close(in);
	buf[len] = '\0';
	if (prof_profile_detect(buf, (size_t)len, len < (ssize_t)sizeof(buf) - 1) !=
	    PROF_PROFILE_FOLDED)
		return 0;
	for (line = buf; *line == '#';) {
		const char *nl = strchr(line, '\n');

		if (!nl)
			return 0;
		line = nl + 1;
	}
	return strcspn(line, "\t\n") < strcspn(line, "\n");
}

void prof_table_release(struct prof_table *t)
{
	for (size_t i = 0; i < t->ncols; i++)
		free(t->cols[i]);
	free(t->cols);
	free(t->cells);
	free(t->lines);
	free(t->row_file);
	for (size_t i = 0; i < t->nfiles; i++)
		free(t->files[i]);
	free(t->files);
	free(t->text);
	free(t->name);
	prof_meta_release(&t->meta);
	memset(t, 0, sizeof(*t));
}

int prof_table_column(const struct prof_table *t, const char *name)
{
	for (size_t i = 0; i < t->ncols; i++)
		if (!strcmp(t->cols[i], name))
			return (int)i;
	return -1;
}

/* ---- which column is what ---- */

int prof_metric_higher_better(const char *name)
{
	static const char *const better[] = {
		"per_s", "ratio", "speed", "throughput", "ops", "score", "hits",
		"util", "bandwidth", "iops", NULL
	};

	for (size_t i = 0; better[i]; i++)
		if (strstr(name, better[i]))
			return 1;
	return 0;
}

static int name_in(const char *name, const char *const *list)
{
	for (size_t i = 0; list[i]; i++)
		if (!strcmp(name, list[i]))
			return 1;
	return 0;
}

/* Columns that are neither keys nor measurements. */
static int column_ignored(const char *name)
{
	static const char *const ignored[] = {
		"status", "flags", "flag", "verdict", "rank", "run", "pid", "tid", NULL
	};

	return name_in(name, ignored);
}

/* Numeric columns that name a configuration, not a measurement. */
static int column_configures(const char *name)
{
	static const char *const config[] = {
		"level", "block_bytes", "threads", "jobs", "gpu", "cpu", NULL
	};

	return name_in(name, config);
}

/* A column of numbers: no text but absent and unjudgeable cells (reported later). */
static int column_numeric(const struct prof_table *t, int c)
{
	int any = 0;

	for (size_t r = 0; r < t->nrows; r++) {
		const char *s = t->cells[r * t->ncols + (size_t)c];

		if (cell_is_absent(s))
			continue;	/* not available */
		if (!cell_is_number(s) && !cell_is_unjudgeable(s))
			return 0;
		any = 1;
	}
	return any;
}

/* Every cell of the metric columns a number, absent, or reported as file:line. */
static int check_metric_cells(const struct prof_table *t, char **metrics, size_t nmetrics)
{
	int rc = 0;

	for (size_t m = 0; m < nmetrics; m++) {
		size_t c = (size_t)prof_table_column(t, metrics[m]);

		for (size_t r = 0; r < t->nrows; r++) {
			const char *s = t->cells[r * t->ncols + c];

			if (cell_is_absent(s) || cell_is_number(s))
				continue;
			prof_input_warn(t->files[t->row_file[r]], t->lines[r],
					"column '%s': '%s' is not a finite number%s",
					metrics[m], s, cell_is_unjudgeable(s) ? ": nothing to judge" : "");
			rc = -1;
		}
	}
	return rc;
}

/* A comma-separated list of column names, each a column of both tables. */
static int names_from_list(const struct prof_table *base, const struct prof_table *new,
			   const char *list, char ***names, size_t *n)
{
	size_t i = 0;
	char *item;

	while ((item = prof_meta_list_item(list, i++))) {
		const struct prof_table *missing = prof_table_column(base, item) < 0 ? base :
						   prof_table_column(new, item) < 0 ? new : NULL;

		if (missing) {
			prof_warn("no column '%s' in %s", item, missing->name);
			free(item);
			return -1;
		}
		*names = xreallocarray(*names, *n + 1, sizeof(**names));
		(*names)[(*n)++] = item;
	}
	return 0;
}

/* The default keys (want_keys) or metrics: columns of both tables. */
static void default_names(const struct prof_table *base, const struct prof_table *new,
			  int want_keys, char ***names, size_t *n)
{
	for (size_t c = 0; c < base->ncols; c++) {
		const char *name = base->cols[c];
		int cn = prof_table_column(new, name), is_key;

		if (cn < 0 || column_ignored(name))
			continue;
		is_key = column_configures(name) || !column_numeric(base, (int)c) ||
			 !column_numeric(new, cn);
		if (is_key != want_keys)
			continue;
		*names = xreallocarray(*names, *n + 1, sizeof(**names));
		(*names)[(*n)++] = xstrdup(name);
	}
}

static int name_listed(const char *list, const char *name)
{
	return list && prof_meta_list_index(list, name) >= 0;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* ---- grouping rows by key ---- */

/* The key of row r: its key cells joined by ','. */
static char *row_key(const struct prof_table *t, size_t r, const int *key_cols, size_t nkeys)
{
	struct prof_buf b = PROF_BUF_INIT;

	for (size_t k = 0; k < nkeys; k++) {
		if (k)
			prof_buf_addch(&b, ',');
		prof_buf_addstr(&b, t->cells[r * t->ncols + (size_t)key_cols[k]]);
	}
	return prof_buf_detach(&b, NULL);
}

/* One side's values of one metric for one key. */
struct runs {
	double *v;
	size_t n;
};

struct group {
	char *key;
	struct runs *base, *new;	/* one per metric */
};

struct grouping {
	struct prof_intern keys;	/* key text -> group index */
	struct group *g;
	size_t n, cap;
	size_t nmetrics;
};

static struct group *group_for(struct grouping *gr, char *key)
{
	uint32_t id = prof_intern(&gr->keys, key, strlen(key));

	if (id < gr->n) {
		free(key);
		return &gr->g[id];
	}
	if (gr->n == gr->cap) {
		gr->cap = gr->cap ? gr->cap * 2 : 32;
		gr->g = xreallocarray(gr->g, gr->cap, sizeof(*gr->g));
	}
	gr->g[gr->n].key = key;
	gr->g[gr->n].base = xcalloc(gr->nmetrics, sizeof(struct runs));
	gr->g[gr->n].new = xcalloc(gr->nmetrics, sizeof(struct runs));
	return &gr->g[gr->n++];
}

static void runs_add(struct runs *r, const char *cell)
{
	double v;

	if (prof_parse_double(cell, &v) < 0)
		return;		/* "-" or empty: not available */
	r->v = xreallocarray(r->v, r->n + 1, sizeof(*r->v));
	r->v[r->n++] = v;
}

/* Add every row of t to the grouping (new_side: the new table's runs). */
static int group_rows(struct grouping *gr, const struct prof_table *t, char **keys, size_t nkeys,
		      char **metrics, int new_side)
{
	int *kc = xcalloc(nkeys ? nkeys : 1, sizeof(*kc)), *mc = xcalloc(gr->nmetrics, sizeof(*mc));

	for (size_t k = 0; k < nkeys; k++)
		kc[k] = prof_table_column(t, keys[k]);
	for (size_t m = 0; m < gr->nmetrics; m++)
		mc[m] = prof_table_column(t, metrics[m]);
	for (size_t r = 0; r < t->nrows; r++) {
		struct group *g = group_for(gr, row_key(t, r, kc, nkeys));

		for (size_t m = 0; m < gr->nmetrics; m++)
			runs_add(new_side ? &g->new[m] : &g->base[m], t->cells[r * t->ncols + (size_t)mc[m]]);
	}
	free(kc);
	free(mc);
	return 0;
}

/* Minimum, median and maximum of r (r->n > 0). */
static void summarize(struct runs *r, double *min, double *median, double *max)
{
	*median = prof_median(r->v, r->n);	/* sorts */
	*min = r->v[0];
	*max = r->v[r->n - 1];
}

/* The same values on both sides (both sorted by summarize()). */
static int same_runs(const struct runs *a, const struct runs *b)
{
	if (a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++)
		if (a->v[i] != b->v[i])
			return 0;
	return 1;
}

/*
 * Several runs on both sides: the rank test (or with too few runs for
 * it, the spread) and the interval of the ratio decide
 * (compare/stats.h). A single run on a side has no spread of its own: a
 * change beyond the other side's spread counts.
 */
static void judge(struct prof_table_change *c, const struct runs *b, const struct runs *n)
{
	double delta = c->new_median - c->base_median;
	double spread = fmax(c->base_max - c->base_min, c->new_max - c->new_min);
	int beyond;

	c->change_pct = c->base_median != 0 ? delta / fabs(c->base_median) * 100
					    : delta != 0 ? copysign(INFINITY, delta) : 0;
	c->spread_pct = c->base_median != 0 ? spread / fabs(c->base_median) * 100 : 0;
	c->p_value = c->ratio_lo = c->ratio_hi = NAN;
	if (b->n >= 2 && n->n >= 2) {
		c->p_value = prof_mann_whitney(b->v, b->n, n->v, n->n);
		prof_bootstrap_ratio(b->v, b->n, n->v, n->n, &c->ratio_lo, &c->ratio_hi);
		beyond = (prof_rank_test_can_decide(b->n, n->n) ? c->p_value < PROF_ALPHA
								 : fabs(delta) > spread) &&
			 (isnan(c->ratio_lo) || c->ratio_lo > 1 || c->ratio_hi < 1);
	} else {
		beyond = fabs(delta) > spread;
	}
	if (same_runs(b, n))
		c->verdict = PROF_CHANGE_SAME;		/* identical values never get a verdict */
	else if (!beyond || delta == 0)
		c->verdict = PROF_CHANGE_NOISE;
	else
		c->verdict = (delta > 0) == (c->higher_better != 0) ? PROF_CHANGE_BETTER
								   : PROF_CHANGE_WORSE;
}

static void fill_change(struct prof_table_change *c, const struct group *g, size_t m,
			const char *metric, int higher_better)
{
	memset(c, 0, sizeof(*c));
	c->key = xstrdup(g->key);
	c->metric = metric;
	c->higher_better = higher_better;
	c->base_runs = g->base[m].n;
	c->new_runs = g->new[m].n;
	c->base_min = c->base_median = c->base_max = NAN;
	c->new_min = c->new_median = c->new_max = NAN;
	c->change_pct = c->p_value = c->ratio_lo = c->ratio_hi = NAN;
	if (c->base_runs)
		summarize(&g->base[m], &c->base_min, &c->base_median, &c->base_max);
	if (c->new_runs)
		summarize(&g->new[m], &c->new_min, &c->new_median, &c->new_max);
	if (!c->base_runs)
		c->verdict = PROF_CHANGE_ADDED;
	else if (!c->new_runs)
		c->verdict = PROF_CHANGE_REMOVED;
	else
		judge(c, &g->base[m], &g->new[m]);
}

/* The largest changes first; ties by key, then metric. */
static int cmp_change(const void *a, const void *b)
{
	const struct prof_table_change *x = a, *y = b;
	double mx = isnan(x->change_pct) ? -1 : fabs(x->change_pct);
	double my = isnan(y->change_pct) ? -1 : fabs(y->change_pct);	/* inf: first */
	int c;

	if (mx != my)
		return mx > my ? -1 : 1;
	c = strcmp(x->key, y->key);
	return c ? c : strcmp(x->metric, y->metric);
}

static void grouping_free(struct grouping *gr)
{
	for (size_t i = 0; i < gr->n; i++) {
		for (size_t m = 0; m < gr->nmetrics; m++) {
			free(gr->g[i].base[m].v);
			free(gr->g[i].new[m].v);
		}
		free(gr->g[i].base);
		free(gr->g[i].new);
		free(gr->g[i].key);
	}
	free(gr->g);
	prof_intern_release(&gr->keys);
}

/* The metric names as the base table spells them (they outlive the call). */
static const char *base_column_name(const struct prof_table *base, const char *name)
{
	return base->cols[prof_table_column(base, name)];
}

static int choose_columns(const struct prof_table *base, const struct prof_table *new,
			  const struct prof_table_compare_opts *o, char ***keys, size_t *nkeys,
			  char ***metrics, size_t *nmetrics)
{
	if (o->keys ? names_from_list(base, new, o->keys, keys, nkeys) < 0
		    : (default_names(base, new, 1, keys, nkeys), 0))
		return -1;
	if (o->metrics) {
		if (names_from_list(base, new, o->metrics, metrics, nmetrics) < 0)
			return -1;
	} else {
		char **all = NULL;
		size_t nall = 0;

		default_names(base, new, 0, &all, &nall);
		for (size_t i = 0; i < nall; i++) {
			if (o->keys && prof_meta_list_index(o->keys, all[i]) >= 0) {
				free(all[i]);
				continue;
			}
			*metrics = xreallocarray(*metrics, *nmetrics + 1, sizeof(**metrics));
			(*metrics)[(*nmetrics)++] = all[i];
		}
		free(all);
	}
	if (!*nmetrics) {
		prof_warn("%s: no numeric column to compare (name them with --metric)", base->name);
		return -1;
	}
	return 0;
}

int prof_table_compare(const struct prof_table *base, const struct prof_table *new,
		       const struct prof_table_compare_opts *o,
		       struct prof_table_change **out, size_t *n)
{
	char **keys = NULL, **metrics = NULL;
	size_t nkeys = 0, nmetrics = 0, count = 0;
	struct grouping gr = { .nmetrics = 0 };
	struct prof_table_change *c;
	int rc = -1;

	*out = NULL;
	*n = 0;
	if (choose_columns(base, new, o, &keys, &nkeys, &metrics, &nmetrics) < 0)
		goto out;
	if (check_metric_cells(base, metrics, nmetrics) | check_metric_cells(new, metrics, nmetrics))
		goto out;
	gr.nmetrics = nmetrics;
	prof_intern_init(&gr.keys);
	group_rows(&gr, base, keys, nkeys, metrics, 0);
	group_rows(&gr, new, keys, nkeys, metrics, 1);
	c = xcalloc(gr.n * nmetrics + 1, sizeof(*c));
	for (size_t i = 0; i < gr.n; i++)
		for (size_t m = 0; m < nmetrics; m++) {
			const char *name = base_column_name(base, metrics[m]);
			int higher = name_listed(o->higher_better, name) ? 1 :
				     name_listed(o->lower_better, name) ? 0 :
				     prof_metric_higher_better(name);

			if (!gr.g[i].base[m].n && !gr.g[i].new[m].n)
				continue;	/* "-" on both sides */
			fill_change(&c[count], &gr.g[i], m, name, higher);
			if (!isnan(c[count].change_pct) &&
			    fabs(c[count].change_pct) < o->min_delta_pct) {
				free(c[count].key);
				continue;
			}
			count++;
		}
	qsort(c, count, sizeof(*c), cmp_change);
	*out = c;
	*n = count;
	rc = 0;
out:
	grouping_free(&gr);
	free_names(keys, nkeys);
	free_names(metrics, nmetrics);
	return rc;
}

void prof_table_changes_free(struct prof_table_change *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(c[i].key);
	free(c);
}

unsigned long prof_table_gate(const struct prof_table_change *ch, size_t n, double limit)
{
	unsigned long failed = 0;

	/* From a base of 0 the change is infinite: above any limit. */
	for (size_t i = 0; i < n; i++)
		if (ch[i].verdict == PROF_CHANGE_WORSE && fabs(ch[i].change_pct) > limit) {
			char b[48], a[48];

			failed++;
			prof_warn("regression: %s %s %s -> %s, %+.1f%% (limit %g%%, %s is better)",
				  ch[i].key, ch[i].metric, prof_fmt_number(b, sizeof(b), ch[i].base_median, 6),
				  prof_fmt_number(a, sizeof(a), ch[i].new_median, 6), ch[i].change_pct,
				  limit, ch[i].higher_better ? "higher" : "lower");
		}
	return failed;
}

const char *prof_change_verdict_name(enum prof_change_verdict v)
{
	static const char *const names[] = { "worse", "better", "noise", "same", "added", "removed" };

	return (size_t)v < sizeof(names) / sizeof(*names) ? names[v] : "?";
}

/* ---- writing ---- */

void prof_compare_cut(char *buf, size_t n, const char *s, size_t width)
{
	size_t len = strlen(s), keep;

	if (width >= n)
		width = n - 1;
	if (len <= width) {
		memcpy(buf, s, len + 1);
		return;
	}
	keep = prof_utf8_prefix(s, len, width ? width - 1 : 0);
	memcpy(buf, s, keep);
	buf[keep] = '~';
	buf[keep + 1] = '\0';
}

void prof_compare_verdict(struct prof_output *o, const struct prof_compare_style *st,
			  enum prof_change_verdict v)
{
	const char *name = prof_change_verdict_name(v), *sgr = NULL;

	if (st && st->color)
		sgr = v == PROF_CHANGE_WORSE || v == PROF_CHANGE_ADDED ? PROF_SGR_BOLD_RED :
		      v == PROF_CHANGE_BETTER || v == PROF_CHANGE_REMOVED ? PROF_SGR_GREEN :
		      PROF_SGR_DIM;
	if (sgr)
		prof_output_printf(o, "%s%s%s", sgr, name, PROF_SGR_RESET);
	else
		prof_output_puts(o, name);
}

/* A value, or "" when absent (TSV) / "-" (human). */
static const char *num(char *buf, size_t n, double v, const char *absent)
{
	if (isnan(v))
		return absent;
	return prof_fmt_number(buf, n, v, 6);
}

static const char *pct(char *buf, size_t n, double v, const char *absent)
{
	if (isnan(v))
		return absent;
	if (isinf(v))
		return v > 0 ? "from 0" : "to -inf";
	snprintf(buf, n, "%+.1f%%", v);
	return buf;
}

/* What the verdict rests on: the interval of the ratio, or the spread. */
static const char *evidence(char *buf, size_t n, const struct prof_table_change *c)
{
	if (!isnan(c->ratio_lo))
		snprintf(buf, n, "x%.3g..%.3g p=%.2g", c->ratio_lo, c->ratio_hi, c->p_value);
	else if (!isnan(c->p_value))
		snprintf(buf, n, "p=%.2g", c->p_value);
	else if (c->spread_pct > 0)
		snprintf(buf, n, "spread %.1f%%", c->spread_pct);
	else
		return "-";
	return buf;
}

static int write_tsv(const struct prof_table_change *c, size_t n, const struct prof_meta *meta,
		     struct prof_output *o)
{
	const struct prof_tsv_schema *s = prof_tsv_schema_find("profcmp-table");
	struct prof_buf b = PROF_BUF_INIT;
	char v[10][48];

	if (meta && meta->count) {
		prof_meta_format(meta, &b);
		prof_output_write(o, b.data, b.len);
	}
	prof_buf_release(&b);
	prof_output_puts(o, prof_tsv_header(s));
	for (size_t i = 0; i < n; i++) {
		double ratio = c[i].base_median != 0 ? c[i].new_median / c[i].base_median : NAN;
		double change = isnan(c[i].change_pct) || isinf(c[i].change_pct) ? NAN
			      : round(c[i].change_pct * 100) / 100;

		prof_output_printf(o, "%s\t%s\t%s\t%s\t%s\t%zu\t%s\t%s\t%zu\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
				   c[i].key, c[i].metric, c[i].higher_better ? "higher" : "lower",
				   num(v[0], 48, c[i].base_median, ""), num(v[1], 48, c[i].base_min, ""),
				   c[i].base_runs,
				   num(v[2], 48, c[i].new_median, ""), num(v[3], 48, c[i].new_min, ""),
				   c[i].new_runs,
				   num(v[4], 48, ratio, ""), num(v[5], 48, change, ""),
				   num(v[6], 48, round(c[i].spread_pct * 100) / 100, ""),
				   prof_change_verdict_name(c[i].verdict),
				   num(v[7], 48, c[i].p_value, ""), num(v[8], 48, c[i].ratio_lo, ""),
				   num(v[9], 48, c[i].ratio_hi, ""));
	}
	return 0;
}

static int write_human(const struct prof_table_change *c, size_t n,
		       const struct prof_compare_style *st, struct prof_output *o)
{
	size_t kw = 3, mw = 6, fixed = 2 + 14 + 2 + 14 + 2 + 9 + 2 + 24 + 2 + 7;
	char v[4][64];

	for (size_t i = 0; i < n; i++) {
		if (strlen(c[i].key) > kw)
			kw = strlen(c[i].key);
		if (strlen(c[i].metric) > mw)
			mw = strlen(c[i].metric);
	}
	/* On a terminal the key column gives way (cut with "~") so that a row fits. */
	if (st && st->width && kw + mw + fixed > st->width)
		kw = st->width > mw + fixed + 8 ? st->width - mw - fixed : 8;
	prof_output_printf(o, "%-*s  %-*s  %14s  %14s  %9s  %-24s  %s\n", (int)kw, "key", (int)mw,
			   "metric", "base", "new", "change", "evidence", "verdict");
	/* Regressions first, each group in order of size. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < n; i++) {
			char key[256];

			if ((c[i].verdict == PROF_CHANGE_WORSE) != (pass == 0))
				continue;
			prof_compare_cut(key, sizeof(key), c[i].key, kw);
			prof_output_printf(o, "%-*s  %-*s  %14s  %14s  %9s  %-24s  ", (int)kw,
					   key, (int)mw, c[i].metric,
					   num(v[0], 48, c[i].base_median, "-"),
					   num(v[1], 48, c[i].new_median, "-"),
					   pct(v[2], 48, c[i].change_pct, "-"),
					   evidence(v[3], 64, &c[i]));
			prof_compare_verdict(o, st, c[i].verdict);
			prof_output_puts(o, "\n");
		}
	}
	return 0;
}

int prof_table_changes_write(const struct prof_table_change *c, size_t n, int human,
			     const struct prof_compare_style *st, const struct prof_meta *meta,
			     struct prof_output *o)
{
	return human ? write_human(c, n, st, o) : write_tsv(c, n, meta, o);
}
