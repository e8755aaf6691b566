#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "base/error.h"
#include "base/units.h"
#include "base/xalloc.h"
#include "compare/table.h"
#include "core/meta.h"
#include "io/input.h"
#include "io/output.h"
#include "report/chart.h"
#include "report/html.h"
#include "report/report.h"

/* The sections, in page order; files are matched on their name's prefix. */
static const struct section {
	const char *prefix, *title;
} sections[] = {
	{ "cpu", "CPU" },
	{ "offcpu", "Off-CPU: where it waits" },
	{ "memory", "Memory" },
	{ "gpu", "GPU" },
	{ "host", "Host and process tree" },
	{ "compare", "Comparison" },
	{ NULL, "Other files" },
};

/* run.meta keys shown first, in this order; the rest follow. */
static const char *const meta_first[] = {
	"command", "mode", "status", "date", "duration_s", "host", "kernel", "cpu", "cores",
	"event", "freq", "call_graph", "base", "new", "version", NULL,
};

struct files {
	char **names;
	size_t n;
	int *used;
};

static char *path_of(const char *dir, const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The names of dir's files, sorted; a FIFO, device or socket among them is
 * reported and counted in *bad, never opened (its open or read would block
 * or never end). Subdirectories are listed as before (kept, not shown).
 */
static int list_dir(const char *dir, struct files *f, unsigned long *bad)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char err[128];

	memset(f, 0, sizeof(*f));
	if (!d) {
		prof_warn_errno("%s", dir);
		return -1;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "index.html"))
			continue;
		if (e->d_type != DT_REG && e->d_type != DT_DIR) {
			char *p = path_of(dir, e->d_name);
			struct stat st;

			if (prof_check_regular(p, err, sizeof(err)) < 0 &&
			    !(stat(p, &st) == 0 && S_ISDIR(st.st_mode))) {
				prof_warn("%s: %s: left out", p, err);
				++*bad;
				free(p);
				continue;
			}
			free(p);
		}
		f->names = xreallocarray(f->names, f->n + 1, sizeof(*f->names));
		f->names[f->n++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (f->n)
		qsort(f->names, f->n, sizeof(*f->names), cmp_name);
	f->used = xcalloc(f->n + 1, sizeof(*f->used));
	return 0;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* Does name belong to the section of prefix ("cpu" takes cpu.svg, cpu-x.tsv)? */
static int in_section(const char *name, const char *prefix)
{
	size_t n;

	if (!prefix)
		return 1;
	n = strlen(prefix);
	return !strncmp(name, prefix, n) && (name[n] == '.' || name[n] == '-');
}

static int show_svg(struct prof_output *o, const char *dir, const char *name)
{
	char *p = path_of(dir, name), *svg;
	size_t len;

	/* embedded whole, so held whole: capped (report.h) */
	svg = prof_read_file_max(p, PROF_REPORT_MAX_SVG, &len);
	free(p);
	if (!svg)
		return -1;
	prof_html_section(o, name, 3, name);
	prof_html_svg_frame(o, name, svg, len);
	prof_html_section_end(o);
	free(svg);
	return 0;
}

/* A column worth a chart: numeric, varying, not the time or an id. */
static int chart_worthy(const struct prof_table *t, size_t c)
{
	const char *name = t->cols[c], *first = NULL;
	int numeric = 0;

	if (!strcmp(name, "time_ns") || !strcmp(name, "gpu") || !strcmp(name, "pid"))
		return 0;
	for (size_t r = 0; r < t->nrows; r++) {
		const char *cell = t->cells[r * t->ncols + c];
		double v;

		if (!*cell)
			continue;
		if (prof_parse_double(cell, &v) < 0)
			return 0;
		numeric = 1;
		if (!first)
			first = cell;
		else if (strcmp(first, cell))
			return 2;	/* varies */
	}
	return numeric;		/* 1: constant */
}

static void show_timeline(struct prof_output *o, const struct prof_table *t, const char *name)
{
	int series = prof_table_column(t, "gpu") >= 0 ? 1 : 0, any = 0;

	prof_html_section(o, name, 3, name);
	for (size_t c = 0; c < t->ncols; c++) {
		if (chart_worthy(t, c) != 2)
			continue;
		any |= prof_chart_timeline(o, t, t->cols[c], series ? "gpu" : NULL, t->cols[c]) == 0;
	}
	if (!any)
		prof_html_para(o, "note", t->nrows ? "Nothing varied over the run."
						   : "No samples (header only).");
	prof_html_section_end(o);
}

static int show_tsv(struct prof_output *o, const char *dir, const char *name)
{
	char *p = path_of(dir, name);
	struct prof_table t;
	unsigned long bad;
	int rc = prof_table_read(p, &t, &bad);

	free(p);
	if (rc < 0 && !t.cols) {
		prof_table_release(&t);
		return -1;
	}
	/* rows left out (reported by the reader) fail the run; the rest is shown */
	if (bad)
		rc = -1;
	if (prof_table_column(&t, "time_ns") >= 0) {
		show_timeline(o, &t, name);
	} else {
		prof_html_section(o, name, 3, name);
		prof_html_table(o, &t, ends_with(name, ".top.tsv") ? 25 : 40);
		prof_html_section_end(o);
	}
	prof_table_release(&t);
	return rc < 0 ? -1 : 0;
}

static int show_text(struct prof_output *o, const char *dir, const char *name)
{
	char *p = path_of(dir, name);
	struct prof_lines *lr = prof_lines_open(p);
	int rc;

	free(p);
	if (!lr)
		return -1;
	prof_html_section(o, name, 3, name);
	if (!prof_html_pre(o, lr))
		prof_html_para(o, "note", "(empty)");
	prof_html_section_end(o);
	rc = prof_lines_failed(lr) || prof_lines_too_long(lr) ? -1 : 0;
	prof_lines_close(lr);
	return rc;
}

/* Files kept beside the page: named, not shown. */
static void list_kept(struct prof_output *o, const char *const *names, size_t n)
{
	if (!n)
		return;
	prof_output_puts(o, "<p class=\"note\">Beside this page: ");
	for (size_t i = 0; i < n; i++) {
		if (i)
			prof_output_puts(o, ", ");
		prof_html_text(o, names[i], strlen(names[i]));
	}
	prof_output_puts(o, "</p>\n");
}

/*
 * The files of a section ending in suffix: the section's own file
 * (cpu.svg) first, then its variants (cpu-x.svg), in name order.
 */
static void show_kind(struct prof_output *o, const char *dir, struct files *f, const char *prefix,
		      const char *suffix, unsigned long *bad)
{
	for (int own = 1; own >= 0; own--)
		for (size_t i = 0; i < f->n; i++) {
			const char *name = f->names[i];
			int rc;

			if (f->used[i] || !in_section(name, prefix) || !ends_with(name, suffix) ||
			    (prefix && (name[strlen(prefix)] == '.') != own))
				continue;
			f->used[i] = 1;
			rc = !strcmp(suffix, ".svg") ? show_svg(o, dir, name) :
			     !strcmp(suffix, ".tsv") ? show_tsv(o, dir, name) : show_text(o, dir, name);
			if (rc < 0)
				++*bad;
		}
}

/* One section: graphs first, then tables and charts, then text. */
static int show_section(struct prof_output *o, const char *dir, struct files *f,
			const struct section *s, unsigned long *bad)
{
	static const char *const order[] = { ".svg", ".tsv", ".log", ".txt", NULL };
	const char **kept;
	size_t nkept = 0, shown = 0;

	for (size_t i = 0; i < f->n; i++)
		if (!f->used[i] && in_section(f->names[i], s->prefix))
			shown++;
	if (!shown)
		return 0;
	prof_html_section(o, s->prefix ? s->prefix : "other", 2, s->title);
	for (size_t k = 0; order[k]; k++)
		show_kind(o, dir, f, s->prefix, order[k], bad);
	kept = xcalloc(f->n + 1, sizeof(*kept));
	for (size_t i = 0; i < f->n; i++)
		if (!f->used[i] && in_section(f->names[i], s->prefix)) {
			f->used[i] = 1;
			kept[nkept++] = f->names[i];
		}
	list_kept(o, kept, nkept);
	prof_html_section_end(o);
	free(kept);
	return 1;
}

static void header(struct prof_output *o, const char *dir, const struct prof_meta *meta,
		   const struct files *f)
{
	const char *cmd = prof_meta_get(meta, "command");
	char *title = xasprintf("proftools report: %s", cmd ? cmd : dir);

	prof_html_begin(o, title);
	prof_output_puts(o, "<h1>");
	prof_html_text(o, title, strlen(title));
	prof_output_puts(o, "</h1>\n<nav>");
	for (size_t s = 0; sections[s].prefix; s++)
		for (size_t i = 0; i < f->n; i++)
			if (in_section(f->names[i], sections[s].prefix)) {
				prof_output_printf(o, "<a href=\"#%s\">", sections[s].prefix);
				prof_html_text(o, sections[s].title, strlen(sections[s].title));
				prof_output_puts(o, "</a>");
				break;
			}
	prof_output_puts(o, "</nav>\n");
	if (meta->count) {
		prof_html_section(o, "run", 2, "Run");
		prof_html_meta(o, meta, meta_first);
		prof_html_section_end(o);
	}
	free(title);
}

static void read_run_meta(const char *dir, struct files *f, struct prof_meta *meta,
			  unsigned long *bad)
{
	for (size_t i = 0; i < f->n; i++) {
		struct prof_lines *lr;
		char *p, *line;
		size_t len;

		if (strcmp(f->names[i], "run.meta"))
			continue;
		f->used[i] = 1;
		p = path_of(dir, f->names[i]);
		lr = prof_lines_open(p);
		free(p);
		while (lr && (line = prof_lines_next(lr, &len)))
			if (prof_meta_is_line(line, len))
				prof_meta_parse_line(meta, line, len);
		if (!lr || prof_lines_failed(lr) || prof_lines_too_long(lr))
			++*bad;
		prof_lines_close(lr);
	}
}

int prof_report_write(const char *dir, struct prof_output *o, unsigned long *bad)
{
	struct prof_meta meta = PROF_META_INIT;
	struct files f;
	int shown = 0;

	*bad = 0;
	if (list_dir(dir, &f, bad) < 0)
		return -1;
	read_run_meta(dir, &f, &meta, bad);
	header(o, dir, &meta, &f);
	for (size_t s = 0; s < sizeof(sections) / sizeof(*sections); s++)
		shown += show_section(o, dir, &f, &sections[s], bad);
	if (!shown)
		prof_html_para(o, "note", "This directory holds no profile to show.");
	prof_output_puts(o, "<p class=\"note\">Made by profreport (proftools) from the files of this "
			    "directory; each picture keeps its text form beside it.</p>\n");
	prof_html_end(o);
	for (size_t i = 0; i < f.n; i++)
		free(f.names[i]);
	free(f.names);
	free(f.used);
	prof_meta_release(&meta);
	if (!shown) {
		prof_warn("%s: nothing to report (no .svg, .tsv, .log or .txt file)", dir);
		return -1;
	}
	return 0;
}
