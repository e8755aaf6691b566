#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "base/error.h"
#include "base/term.h"
#include "base/units.h"
#include "base/xalloc.h"
#include "compare/table.h"
#include "core/meta.h"
#include "io/input.h"
#include "io/output.h"
#include "report/chart.h"
#include "report/html.h"
#include "report/report.h"
#include "report/summary.h"

/*
 * The sections, in page order, titled by the question they answer;
 * files are matched on their name's prefix. The timelines (timelines[])
 * go to "Over time", ahead of them, on one time axis.
 */
static const struct section {
	const char *prefix, *title;
} sections[] = {
	{ "cpu", "Where the CPU time goes" },
	{ "offcpu", "Where it waits (off-CPU time)" },
	{ "memory", "Where the memory goes" },
	{ "gpu", "The GPU" },
	{ "host", "The host and the command's processes" },
	{ "compare", "What changed (comparison)" },
	{ NULL, "Other files" },
};

/* The timeline files, drawn in "Over time" in this order. */
static const char *const timelines[] = { "host.tsv", "gpu.tsv", "gpu-kernels.timeline.tsv",
					 "memory.timeline.tsv", NULL };
#define NTIMELINES 4

/* What a file of the run holds, in words (its name is shown beside). */
static const struct { const char *name, *words; } file_words[] = {
	{ "cpu.heatmap.html", "CPU time over the run: select a range of cells to draw its flame graph" },
	{ "cpu.svg", "Flame graph of the CPU time" },
	{ "cpu.top.tsv", "The hottest functions (self time)" },
	{ "cpu.log", "What the recorder said" },
	{ "offcpu.svg", "Flame graph of the off-CPU time (where threads wait)" },
	{ "offcpu-oncpu.svg", "Flame graph of the on-CPU time of the same run" },
	{ "offcpu.top.tsv", "Where threads wait most" },
	{ "offcpu-oncpu.top.tsv", "The hottest functions of the same run (on-CPU)" },
	{ "offcpu.shares.tsv", "On-CPU and off-CPU time" },
	{ "offcpu.log", "What the recorder said" },
	{ "memory-alloc.svg", "Bytes allocated, by call stack" },
	{ "memory-leak.svg", "Bytes leaked (still allocated at exit), by call stack" },
	{ "memory-peak.svg", "Bytes live at the peak of the heap, by call stack" },
	{ "memory-count.svg", "Allocations (how many, whatever their size), by call stack" },
	{ "memory-temp.svg", "Temporary allocations (freed before their thread allocated anything "
	  "else), by call stack" },
	{ "memory.log", "What profheap said" },
	{ "gpu-kernels.svg", "Flame graph of the GPU time: CUDA kernels under their CPU call stacks" },
	{ "gpu-kernels.top.tsv", "The GPU kernels that took the most time" },
	{ "gpu.log", "What profgpu said" },
	{ "gpu-processes.tsv", "GPU memory and utilisation per process" },
	{ "gpu-kernels.svg", "GPU time by CUDA kernel, under the CPU code that launched it" },
	{ "gpu-kernels.top.tsv", "The CUDA kernels taking the most GPU time (self: the kernel's own)" },
	{ NULL, NULL },
};

/*
 * Timeline columns in words (host.tsv, gpu.tsv, gpu-kernels.timeline.tsv,
 * memory.timeline.tsv);
 * the first NFIRST are shown open, the rest under "More over time".
 */
#define NFIRST 7
static const struct { const char *file, *column, *words; } column_words[] = {
	{ "host.tsv", "cpu_pct", "CPU use of the command (% of one core)" },
	{ "host.tsv", "rss_bytes", "Resident memory (RSS) of the command" },
	{ "gpu.tsv", "util_pct", "GPU utilisation" },
	{ "gpu.tsv", "mem_used_bytes", "GPU memory used" },
	{ "gpu.tsv", "power_w", "GPU power" },
	{ "gpu-kernels.timeline.tsv", "kernel_pct", "CUDA kernels running (% of each interval, all streams)" },
	{ "memory.timeline.tsv", "live_bytes", "Heap: bytes live (memory run)" },
	{ "host.tsv", "host_cpu_pct", "CPU use of the host (% of all cores)" },
	{ "host.tsv", "procs", "Processes of the command" },
	{ "host.tsv", "threads", "Threads of the command" },
	{ "host.tsv", "swap_bytes", "Swap used by the command" },
	{ "host.tsv", "major_faults_per_s", "Major page faults" },
	{ "host.tsv", "ctx_switches_per_s", "Context switches" },
	{ "host.tsv", "read_bytes_per_s", "Disk reads" },
	{ "host.tsv", "write_bytes_per_s", "Disk writes" },
	{ "host.tsv", "net_rx_bytes_per_s", "Network received (host)" },
	{ "host.tsv", "net_tx_bytes_per_s", "Network sent (host)" },
	{ "host.tsv", "temp_c", "Hottest thermal zone" },
	{ "gpu.tsv", "mem_util_pct", "GPU memory bandwidth use" },
	{ "gpu.tsv", "temp_c", "GPU temperature" },
	{ "gpu.tsv", "energy_j", "GPU energy since the start" },
	{ "gpu.tsv", "sm_clock_mhz", "GPU SM clock" },
	{ "gpu.tsv", "mem_clock_mhz", "GPU memory clock" },
	{ "gpu.tsv", "pcie_rx_bytes_per_s", "PCIe received" },
	{ "gpu.tsv", "pcie_tx_bytes_per_s", "PCIe sent" },
	{ "memory.timeline.tsv", "live_blocks", "Heap: blocks live" },
	{ "memory.timeline.tsv", "alloc_bytes", "Heap: bytes allocated since the start" },
	{ "memory.timeline.tsv", "alloc_count", "Heap: allocations since the start" },
	{ "memory.timeline.tsv", "rss_bytes", "Resident memory (RSS) of the memory run" },
	{ NULL, NULL, NULL },
};

/* run.meta keys shown first, in this order; the rest follow. */
static const char *const meta_first[] = {
	"command", "mode", "status", "date", "duration_s", "host", "kernel", "cpu", "cores",
	"event", "freq", "call_graph", "unwind", "runs", "cpu_wall_s", "offcpu_wall_s", "memory_wall_s",
	"gpu_wall_s", "base", "new", "version", NULL,
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

/* A file's subsection: what it holds in words, its name beside. */
static void subsection(struct prof_output *o, const char *name)
{
	const char *words = name;

	for (size_t i = 0; file_words[i].name; i++)
		if (!strcmp(file_words[i].name, name))
			words = file_words[i].words;
	prof_html_section(o, name, 3, words);
	if (words != name) {
		prof_output_puts(o, "<p class=\"file\">");
		prof_html_text(o, name, strlen(name));
		prof_output_puts(o, "</p>\n");
	}
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
	subsection(o, name);
	prof_html_svg_frame(o, name, svg, len);
	prof_html_section_end(o);
	free(svg);
	return 0;
}

/*
 * A heat map page (profflame --heatmap --format html) in the page, its
 * script working; one over PROF_REPORT_MAX_HEATMAP (a long run's) is
 * linked, beside the page, so that the report stays quick to open.
 */
static int show_heatmap(struct prof_output *o, const char *dir, const char *name)
{
	char *p = path_of(dir, name), *html;
	struct stat st;
	size_t len;

	if (stat(p, &st) == 0 && (size_t)st.st_size > PROF_REPORT_MAX_HEATMAP) {
		char size[32];

		free(p);
		subsection(o, name);
		prof_output_puts(o, "<p class=\"note\">Too large to embed (");
		prof_html_text(o, size, strlen(prof_fmt_bytes(size, sizeof(size), (double)st.st_size)));
		prof_output_puts(o, "): <a href=\"");
		prof_html_text(o, name, strlen(name));
		prof_output_puts(o, "\">open it beside this page</a>.</p>\n");
		prof_html_section_end(o);
		return 0;
	}
	html = prof_read_file_max(p, PROF_REPORT_MAX_HEATMAP, &len);
	free(p);
	if (!html)
		return -1;
	subsection(o, name);
	prof_html_page_frame(o, name, html, len, 520);
	prof_html_section_end(o);
	free(html);
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

	subsection(o, name);
	for (size_t c = 0; c < t->ncols; c++) {
		if (chart_worthy(t, c) != 2)
			continue;
		any |= prof_chart_timeline(o, t, t->cols[c], series ? "gpu" : NULL, t->cols[c], NULL) == 0;
	}
	if (!any)
		prof_html_para(o, "note", t->nrows ? "Nothing varied over the run."
						   : "No samples (header only).");
	prof_html_section_end(o);
}

/*
 * A hotspot table (proffold --top) in words: amounts in the input's unit
 * (ns as time, bytes as sizes) beside their share of the total.
 */
static int show_top(struct prof_output *o, const struct prof_table *t, size_t max_rows)
{
	static const char *const want[] = { "rank", "function", "self", "self_pct", "total", "total_pct" };
	static const char *const head[] = { "#", "Function", "Self", "% of total", "With callees",
					    "% of total" };
	const char *unit = prof_meta_get(&t->meta, "unit");
	int col[6];
	size_t rows = t->nrows < max_rows ? t->nrows : max_rows;

	for (size_t i = 0; i < 6; i++)
		if ((col[i] = prof_table_column(t, want[i])) < 0)
			return -1;
	prof_output_puts(o, "<table class=\"top\">\n<tr>");
	for (size_t i = 0; i < 6; i++)
		prof_output_printf(o, "<th>%s</th>", head[i]);
	prof_output_puts(o, "</tr>\n");
	for (size_t r = 0; r < rows; r++) {
		prof_output_puts(o, "<tr>");
		for (size_t i = 0; i < 6; i++) {
			const char *cell = t->cells[r * t->ncols + (size_t)col[i]];
			char buf[64];
			double v;

			if (i != 1 && prof_parse_double(cell, &v) == 0) {
				if ((i == 2 || i == 4) && unit && !strcmp(unit, "ns"))
					cell = prof_fmt_duration(buf, sizeof(buf), v / 1e9);
				else if ((i == 2 || i == 4) && unit && !strcmp(unit, "bytes"))
					cell = prof_fmt_bytes(buf, sizeof(buf), v);
				else if (i == 3 || i == 5)
					snprintf(buf, sizeof(buf), "%.1f%%", v), cell = buf;
				prof_output_puts(o, "<td class=\"n\">");
			} else {
				prof_output_puts(o, "<td>");
			}
			prof_html_text(o, cell, strlen(cell));
			prof_output_puts(o, "</td>");
		}
		prof_output_puts(o, "</tr>\n");
	}
	prof_output_puts(o, "</table>\n");
	if (rows < t->nrows)
		prof_output_printf(o, "<p class=\"note\">%zu more row%s in the TSV file.</p>\n",
				   t->nrows - rows, t->nrows - rows == 1 ? "" : "s");
	return 0;
}

/* offcpu.shares.tsv in words: each state's time and its share of the total. */
static int show_shares(struct prof_output *o, const struct prof_table *t)
{
	int sc = prof_table_column(t, "state"), tc = prof_table_column(t, "time_ms");
	int pc = prof_table_column(t, "share_pct");

	if (sc < 0 || tc < 0 || pc < 0)
		return -1;
	prof_output_puts(o, "<table class=\"shares\">\n<tr><th>State</th><th>Time</th><th>% of total</th></tr>\n");
	for (size_t r = 0; r < t->nrows; r++) {
		const char *state = t->cells[r * t->ncols + (size_t)sc];
		double ms, pct;
		char d[48];

		if (prof_parse_double(t->cells[r * t->ncols + (size_t)tc], &ms) < 0 ||
		    prof_parse_double(t->cells[r * t->ncols + (size_t)pc], &pct) < 0)
			continue;
		prof_output_puts(o, "<tr><td>");
		prof_html_text(o, state, strlen(state));
		prof_output_printf(o, "</td><td class=\"n\">%s</td><td class=\"n\">%.1f%%</td></tr>\n",
				   prof_fmt_duration(d, sizeof(d), ms / 1e3), pct);
	}
	prof_output_puts(o, "</table>\n");
	return 0;
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
		subsection(o, name);
		if (!strcmp(name, "offcpu.shares.tsv") && show_shares(o, &t) == 0)
			;
		else if (!ends_with(name, ".top.tsv") || show_top(o, &t, 25) < 0)
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
	subsection(o, name);
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
/* The progress line of a report (base/term.h): the file being read, "3/17". */
static struct prof_progress progress;

/* The next file goes into the page: say which, of how many. */
static void progress_file(const struct files *f, const char *name)
{
	size_t done = 0;

	if (!progress.on)
		return;
	for (size_t i = 0; i < f->n; i++)
		done += f->used[i] != 0;
	prof_progress_show(&progress, "%s: file %zu/%zu: %s", prof_progname, done, f->n, name);
}

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
			progress_file(f, name);
			rc = !strcmp(suffix, ".svg") ? show_svg(o, dir, name) :
			     !strcmp(suffix, ".tsv") ? show_tsv(o, dir, name) :
			     !strcmp(suffix, ".heatmap.html") ? show_heatmap(o, dir, name) :
			     show_text(o, dir, name);
			if (rc < 0)
				++*bad;
		}
}

/* Why a section shows little: what the run did not record, in words. */
static void section_note(struct prof_output *o, const struct section *s,
			 const struct prof_report_facts *facts)
{
	if (!s->prefix)
		return;
	if (!strcmp(s->prefix, "cpu") && facts->cpu_total == 0)
		prof_html_para(o, "note", "No CPU sample was recorded: the command used no measurable "
					  "CPU time (see what the recorder said below).");
	if (!strcmp(s->prefix, "memory") && facts->allocs == 0)
		prof_html_para(o, "note", "No allocation: the program made no heap allocation that "
					  "profheap saw (malloc, calloc, realloc, new...).");
	if (!strcmp(s->prefix, "memory") && facts->leaked == 0)
		prof_html_para(o, "note", "No leak: every block was freed before the program exited.");
	if (!strcmp(s->prefix, "gpu") && facts->gpu_rows == 0) {
		char *why = xasprintf("No GPU sample was recorded: %s.",
				      facts->no_gpu ? facts->no_gpu : "profgpu wrote none (see what it said below)");

		prof_html_para(o, "note", why);
		free(why);
	}
}

/* One section: heat maps and graphs first, then tables and charts, then text. */
static int show_section(struct prof_output *o, const char *dir, struct files *f,
			const struct section *s, const struct prof_report_facts *facts,
			unsigned long *bad)
{
	static const char *const order[] = { ".heatmap.html", ".svg", ".tsv", ".log", ".txt", NULL };
	const char **kept;
	size_t nkept = 0, shown = 0;

	for (size_t i = 0; i < f->n; i++)
		if (!f->used[i] && in_section(f->names[i], s->prefix))
			shown++;
	if (!shown)
		return 0;
	prof_html_section(o, s->prefix ? s->prefix : "other", 2, s->title);
	section_note(o, s, facts);
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

static int file_index(const struct files *f, const char *name)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->names[i], name))
			return (int)i;
	return -1;
}

/* The sections the page will hold (links in the findings point only there). */
static int has_section(const void *ctx, const char *id)
{
	const struct files *f = ctx;

	if (!strcmp(id, "timeline")) {
		for (size_t k = 0; timelines[k]; k++)
			if (file_index(f, timelines[k]) >= 0)
				return 1;
		return 0;
	}
	for (size_t i = 0; i < f->n; i++)
		if (in_section(f->names[i], id))
			return 1;
	return 0;
}

static const char *column_title(const char *file, const char *column)
{
	for (size_t i = 0; column_words[i].file; i++)
		if (!strcmp(column_words[i].file, file) && !strcmp(column_words[i].column, column))
			return column_words[i].words;
	return NULL;
}

/*
 * "Over time": the host monitor's, profgpu's and profheap's timelines
 * on one time axis (the longest run's), the alerts marked on each;
 * the charts the issue asks to line up first (CPU, RSS, GPU
 * utilisation, memory and power, the heap), then every other varying
 * column.
 */
/* The axis of timeline k: the heap's (axes[1]) marks its peak, the others axes[0]. */
static const struct prof_chart_axis *axis_of(const struct prof_chart_axis *axes, size_t k)
{
	return !strcmp(timelines[k], "memory.timeline.tsv") ? &axes[1] : &axes[0];
}

/*
 * The charts of column_words[w] in each timeline that has that column and
 * whose values vary, not drawn yet (done: 64 columns a timeline); with
 * opened (the rest, folded away), the first one opens the <details>.
 * Returns how many were drawn.
 */
static int chart_column_words(struct prof_output *o, struct prof_table *t, const int *have,
			      char *done, size_t w, const struct prof_chart_axis *axes, int *opened)
{
	int drawn = 0;

	for (size_t k = 0; timelines[k]; k++) {
		int c;

		if (!have[k] || strcmp(column_words[w].file, timelines[k]) ||
		    (c = prof_table_column(&t[k], column_words[w].column)) < 0 || c >= 64 ||
		    done[k * 64 + (size_t)c] || chart_worthy(&t[k], (size_t)c) != 2)
			continue;
		if (opened && !(*opened)++)
			prof_output_puts(o, "<details><summary>More over time</summary>\n");
		done[k * 64 + (size_t)c] = 1;
		drawn += prof_chart_timeline(o, &t[k], column_words[w].column,
					     prof_table_column(&t[k], "gpu") >= 0 ? "gpu" : NULL,
					     column_words[w].words, axis_of(axes, k)) == 0;
	}
	return drawn;
}

static int show_timelines(struct prof_output *o, const char *dir, struct files *f,
			  const struct prof_report_facts *facts, unsigned long *bad)
{
	struct prof_table t[NTIMELINES];
	int have[NTIMELINES] = { 0 }, any = 0, drawn = 0, opened = 0;
	struct prof_chart_axis axis = { 0 }, axes[2];
	char peak_label[96];
	double *marks = NULL;
	const char **labels = NULL;
	char *done;

	for (size_t k = 0; timelines[k]; k++) {
		int i = file_index(f, timelines[k]);
		char *p;
		unsigned long skipped = 0;

		memset(&t[k], 0, sizeof(t[k]));
		if (i < 0)
			continue;
		f->used[i] = 1;
		any = 1;
		p = path_of(dir, timelines[k]);
		if (prof_table_read(p, &t[k], &skipped) < 0 && !t[k].cols)
			++*bad;
		else
			have[k] = 1;
		if (skipped)
			++*bad;
		free(p);
	}
	if (!any)
		return 0;
	marks = xcalloc(facts->nalerts + 1, sizeof(*marks));
	labels = xcalloc(facts->nalerts + 1, sizeof(*labels));
	for (size_t i = 0; i < facts->nalerts; i++)
		if (!isnan(facts->alerts[i].at_s)) {
			marks[axis.nmarks] = facts->alerts[i].at_s;
			labels[axis.nmarks++] = facts->alerts[i].text;
		}
	axis.marks = marks;
	axis.mark_labels = labels;
	axis.tmax_s = facts->timeline_s > 0 ? facts->timeline_s : 0;
	axis.height = 150;
	axes[0] = axes[1] = axis;
	if (!isnan(facts->heap_peak_at_s) && !isnan(facts->heap_peak)) {
		char b[32];

		snprintf(peak_label, sizeof(peak_label), "heap peak: %s, held until %.3f s",
			 prof_fmt_bytes(b, sizeof(b), facts->heap_peak), facts->heap_peak_at_s);
		axes[1].peak_s = facts->heap_peak_at_s;
		axes[1].peak_label = peak_label;
	}
	prof_html_section(o, "timeline", 2, "Over time");
	prof_output_puts(o, "<p class=\"note\">Every chart shares one time axis: seconds since the start of "
			    "its run's command (the host monitor and the GPU are sampled in the gpu run, the "
			    "heap in the memory run)");
	prof_output_puts(o, axis.nmarks ? "; red lines: alerts.</p>\n" : ".</p>\n");
	done = xcalloc(64 * NTIMELINES, 1);
	/* first the ones the eye compares (column_words' first NFIRST), then the rest */
	for (size_t w = 0; column_words[w].file; w++)
		drawn += chart_column_words(o, t, have, done, w, axes, w >= NFIRST ? &opened : NULL);
	for (size_t k = 0; timelines[k]; k++)
		for (size_t c = 0; have[k] && c < t[k].ncols; c++) {
			char *title;

			if ((c < 64 && done[k * 64 + c]) || chart_worthy(&t[k], c) != 2 ||
			    column_title(timelines[k], t[k].cols[c]))
				continue;
			if (!opened++)
				prof_output_puts(o, "<details><summary>More over time</summary>\n");
			title = xasprintf("%s (%s)", t[k].cols[c], timelines[k]);
			drawn += prof_chart_timeline(o, &t[k], t[k].cols[c],
						     prof_table_column(&t[k], "gpu") >= 0 ? "gpu" : NULL,
						     title, axis_of(axes, k)) == 0;
			free(title);
		}
	if (opened)
		prof_output_puts(o, "</details>\n");
	if (!drawn)
		prof_html_para(o, "note", facts->gpu_rows == 0 && facts->no_gpu ?
				"Nothing varied over the run, and no GPU was sampled." :
				"Nothing varied over the run (or the timelines hold no sample).");
	for (size_t k = 0; timelines[k]; k++)
		if (have[k] && !t[k].nrows) {
			char *why = xasprintf("%s: no samples (header only)%s%s.", timelines[k],
					      !strcmp(timelines[k], "gpu.tsv") && facts->no_gpu ? ": " : "",
					      !strcmp(timelines[k], "gpu.tsv") && facts->no_gpu ? facts->no_gpu : "");

			prof_html_para(o, "note", why);
			free(why);
		}
	prof_output_puts(o, "<p class=\"note\">From ");
	for (size_t k = 0, n = 0; timelines[k]; k++)
		if (file_index(f, timelines[k]) >= 0) {
			prof_output_puts(o, n++ ? ", " : "");
			prof_html_text(o, timelines[k], strlen(timelines[k]));
		}
	prof_output_puts(o, ".</p>\n");
	prof_html_section_end(o);
	for (size_t k = 0; timelines[k]; k++)
		prof_table_release(&t[k]);
	free(done);
	free(marks);
	free(labels);
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
	prof_output_puts(o, "</h1>\n<nav><a href=\"#summary\">Summary</a><a href=\"#findings\">Findings</a>");
	if (has_section(f, "timeline"))
		prof_output_puts(o, "<a href=\"#timeline\">Over time</a>");
	for (size_t s = 0; sections[s].prefix; s++)
		for (size_t i = 0; i < f->n; i++)
			if (in_section(f->names[i], sections[s].prefix) &&
			    (!strcmp(sections[s].prefix, "host") ? strcmp(f->names[i], "host.tsv") :
			     !strcmp(sections[s].prefix, "gpu") ? strcmp(f->names[i], "gpu.tsv") : 1)) {
				prof_output_printf(o, "<a href=\"#%s\">", sections[s].prefix);
				prof_html_text(o, sections[s].title, strlen(sections[s].title));
				prof_output_puts(o, "</a>");
				break;
			}
	if (meta->count)
		prof_output_puts(o, "<a href=\"#run\">The run</a>");
	prof_output_puts(o, "</nav>\n");
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
	struct prof_report_facts facts;
	struct files f;
	int shown = 0;

	*bad = 0;
	if (list_dir(dir, &f, bad) < 0)
		return -1;
	prof_progress_init(&progress);
	read_run_meta(dir, &f, &meta, bad);
	prof_report_facts_read(&facts, dir, &meta, bad);
	header(o, dir, &meta, &f);
	prof_report_summary_write(o, &facts, &meta, has_section, &f);
	shown += show_timelines(o, dir, &f, &facts, bad);
	for (size_t s = 0; s < sizeof(sections) / sizeof(*sections); s++)
		shown += show_section(o, dir, &f, &sections[s], &facts, bad);
	if (!shown)
		prof_html_para(o, "note", "This directory holds no profile to show.");
	if (meta.count) {
		prof_html_section(o, "run", 2, "The run");
		prof_html_meta(o, &meta, meta_first);
		prof_html_section_end(o);
	}
	prof_output_puts(o, "<p class=\"note\">Made by profreport (proftools) from the files of this "
			    "directory; each picture keeps its text form beside it.</p>\n");
	prof_html_end(o);
	prof_progress_end(&progress);
	for (size_t i = 0; i < f.n; i++)
		free(f.names[i]);
	free(f.names);
	free(f.used);
	prof_meta_release(&meta);
	prof_report_facts_release(&facts);
	if (!shown) {
		prof_warn("%s: nothing to report (no .svg, .tsv, .log or .txt file)", dir);
		return -1;
	}
	return 0;
}
