#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "base/buf.h"
#include "base/error.h"
#include "base/units.h"
#include "base/xalloc.h"
#include "compare/table.h"
#include "core/meta.h"
#include "io/input.h"
#include "io/output.h"
#include "report/html.h"
#include "report/summary.h"

static const char *const modes[4] = { "cpu", "offcpu", "memory", "gpu" };

/* The rules' thresholds (proftools-profile(1), FINDINGS). */
#define LOCK_SHARE 0.10
#define LOCK_MIN_NS 10e6
#define GPU_IDLE_PCT 5.0
#define GPU_USED_PCT 20.0
#define CPU_BUSY_PCT 50.0
#define GPU_IDLE_SHARE 0.20
#define GPU_MIN_S 0.5
#define THROTTLE_SHARE 0.05
#define TEMP_SHARE 0.20
#define TEMP_MIN 1000

static char *path_of(const char *dir, const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

/*
 * 1 if dir/name is a regular file (a FIFO or device is reported and left
 * out by the page's directory listing: never opened here, as its open
 * or read could block).
 */
static int exists(const char *dir, const char *name)
{
	char *p = path_of(dir, name);
	struct stat st;
	int r = stat(p, &st) == 0 && S_ISREG(st.st_mode);

	free(p);
	return r;
}

/*
 * Is this frame a lock? A name holding mutex, futex-based locks
 * (lll_lock), rwlock or spin lock, or the word "lock" on its own
 * between separators (std::unique_lock, lock_slow; not clock_nanosleep).
 * Condition variables and joins wait for work, not for a lock.
 */
static int lock_frame(const char *s, size_t len)
{
	char low[256];
	size_t n = len < sizeof(low) - 1 ? len : sizeof(low) - 1;

	for (size_t i = 0; i < n; i++)
		low[i] = (char)tolower((unsigned char)s[i]);
	low[n] = 0;
	if (strstr(low, "cond_") || strstr(low, "join"))
		return 0;
	if (strstr(low, "mutex") || strstr(low, "lll_lock") || strstr(low, "rwlock") ||
	    strstr(low, "spin_lock") || strstr(low, "spinlock"))
		return 1;
	for (const char *p = low; (p = strstr(p, "lock")); p += 4)
		if ((p == low || !isalnum((unsigned char)p[-1])) && !isalnum((unsigned char)p[4]))
			return 1;
	return 0;
}

/*
 * The sum of the counts of folded stacks in dir/name and its unit (the
 * header's unit=, else "samples"). With lock_ns, also the weight of
 * stacks through a lock frame and the frame of the heaviest. Returns 0,
 * 1 when the file is absent, -1 when it could not be read (reported).
 */
static int folded_sum(const char *dir, const char *name, double *total, char **unit,
		      double *lock_ns, char **lock_name)
{
	char *p, *line;
	struct prof_lines *lr;
	double best = 0;
	size_t len;
	int rc;

	if (!exists(dir, name))
		return 1;
	p = path_of(dir, name);
	lr = prof_lines_open(p);
	free(p);
	if (!lr)
		return -1;
	*total = 0;
	while ((line = prof_lines_next(lr, &len))) {
		char *sp = memrchr(line, ' ', len);
		double v;

		if (line[0] == '#') {
			char *u = strstr(line, " unit=");

			if (u && unit && !*unit)
				*unit = xstrndup(u + 6, strcspn(u + 6, " "));
			continue;
		}
		if (!sp || prof_parse_double(sp + 1, &v) < 0 || !(v >= 0))
			continue;	/* the folding tools judge malformed lines */
		*total += v;
		if (!lock_ns)
			continue;
		for (char *fr = line; fr < sp;) {
			char *end = memchr(fr, ';', (size_t)(sp - fr));

			if (!end)
				end = sp;
			if (lock_frame(fr, (size_t)(end - fr))) {
				*lock_ns += v;
				if (v > best) {
					best = v;
					free(*lock_name);
					*lock_name = xstrndup(fr, (size_t)(end - fr));
				}
				break;
			}
			fr = end + 1;
		}
	}
	rc = prof_lines_failed(lr) || prof_lines_too_long(lr) ? -1 : 0;
	prof_lines_close(lr);
	return rc;
}

static double cell_num(const struct prof_table *t, size_t r, int c)
{
	double v;

	if (c < 0 || prof_parse_double(t->cells[r * t->ncols + (size_t)c], &v) < 0)
		return NAN;
	return v;
}

/*
 * Read dir/name as a table; 1 when absent, -1 when unreadable. Quietly:
 * these tables are shown by the page's sections, which read them again
 * and report their problems once.
 */
static int table_of(const char *dir, const char *name, struct prof_table *t)
{
	char *p;
	unsigned long skipped = 0;
	int rc;

	memset(t, 0, sizeof(*t));
	if (!exists(dir, name))
		return 1;
	p = path_of(dir, name);
	prof_warn_muted++;
	rc = prof_table_read(p, t, &skipped);
	prof_warn_muted--;
	free(p);
	if (rc < 0 && !t->cols) {
		prof_table_release(t);
		return -1;
	}
	return 0;
}

/* The hottest functions by self time: cpu.top.tsv's first rows. */
static void read_top(struct prof_report_facts *f, const char *dir)
{
	struct prof_table t;
	int fc, sc, pc;
	const char *u, *tot;

	if (table_of(dir, "cpu.top.tsv", &t))
		return;
	fc = prof_table_column(&t, "function");
	sc = prof_table_column(&t, "self");
	pc = prof_table_column(&t, "self_pct");
	for (size_t r = 0; fc >= 0 && r < t.nrows && f->nhot < 3; r++) {
		double self = cell_num(&t, r, sc), pct = cell_num(&t, r, pc);

		/* the first, and the others holding 5% or more */
		if (!(self > 0) || (f->nhot && !(pct >= 5)))
			continue;
		f->hot[f->nhot].name = xstrdup(t.cells[r * t.ncols + (size_t)fc]);
		f->hot[f->nhot].self = self;
		f->hot[f->nhot++].self_pct = pct;
	}
	u = prof_meta_get(&t.meta, "unit");
	tot = prof_meta_get(&t.meta, "total");
	if (isnan(f->cpu_total) && tot && prof_parse_double(tot, &f->cpu_total) < 0)
		f->cpu_total = NAN;
	if (!f->cpu_unit && u)
		f->cpu_unit = xstrdup(u);
	prof_table_release(&t);
}

/* The largest value of column name in t, and the span of its time_ns column. */
static double column_max(const struct prof_table *t, const char *name)
{
	int c = prof_table_column(t, name);
	double m = NAN;

	for (size_t r = 0; c >= 0 && r < t->nrows; r++) {
		double v = cell_num(t, r, c);

		if (!isnan(v) && (isnan(m) || v > m))
			m = v;
	}
	return m;
}

static double time_span_s(const struct prof_table *t)
{
	double m = column_max(t, "time_ns");

	return isnan(m) ? NAN : m / 1e9;
}

/* Throttle reasons that are not throttling (profgpu(1), Summary). */
static int throttling(const char *reason, size_t len)
{
	static const char *const benign[] = { "gpu_idle", "app_clocks", "display_clocks", "none", NULL };

	for (size_t i = 0; benign[i]; i++)
		if (len == strlen(benign[i]) && !memcmp(reason, benign[i], len))
			return 0;
	return len > 0;
}

struct reason { char name[32]; double s; };

/* Add dt to each throttling reason of cell; 1 if it holds one. */
static int add_reasons(struct reason *rs, size_t *nr, const char *cell, double dt)
{
	int any = 0;

	for (const char *p = cell; *p;) {
		size_t len = strcspn(p, ",");

		if (throttling(p, len)) {
			size_t i;

			any = 1;
			for (i = 0; i < *nr; i++)
				if (strlen(rs[i].name) == len && !memcmp(rs[i].name, p, len))
					break;
			if (i == *nr && *nr < 16) {
				snprintf(rs[i].name, sizeof(rs[i].name), "%.*s", (int)len, p);
				rs[(*nr)++].s = 0;
			}
			if (i < *nr)
				rs[i].s += dt;
		}
		p += len + (p[len] == ',');
	}
	return any;
}

/*
 * gpu.tsv: utilisation, idle time, throttling, per GPU summed over its
 * samples (a sample covers the time since that GPU's previous one);
 * with host.tsv (same clock), the time the GPU idled while the command
 * kept a core busy.
 */
static void read_gpu(struct prof_report_facts *f, const char *dir)
{
	struct prof_table g, h;
	int tc, gc, uc, thc, hc, htc;
	double sum = 0, n = 0, prev[64];
	struct reason rs[16];
	size_t nr = 0;

	f->gpu_rows = -1;
	if (table_of(dir, "gpu.tsv", &g))
		return;
	f->gpu_rows = (int)(g.nrows > 1000000 ? 1000000 : g.nrows);
	tc = prof_table_column(&g, "time_ns");
	gc = prof_table_column(&g, "gpu");
	uc = prof_table_column(&g, "util_pct");
	thc = prof_table_column(&g, "throttle");
	for (size_t i = 0; i < 64; i++)
		prev[i] = NAN;
	f->gpu_span_s = time_span_s(&g);
	f->gpu_util_max = column_max(&g, "util_pct");
	f->gpu_mem_max = column_max(&g, "mem_used_bytes");
	if (!isnan(f->gpu_util_max))
		f->gpu_idle_s = 0;
	/* throttling measured only where the device reports reasons (an empty cell: not) */
	for (size_t r = 0; thc >= 0 && r < g.nrows && isnan(f->throttled_s); r++)
		if (*g.cells[r * g.ncols + (size_t)thc])
			f->throttled_s = 0;
	for (size_t r = 0; r < g.nrows; r++) {
		double t = cell_num(&g, r, tc) / 1e9, u = cell_num(&g, r, uc), id = cell_num(&g, r, gc);
		size_t k = isnan(id) || id < 0 || id >= 64 ? 0 : (size_t)id;
		double dt = isnan(prev[k]) || isnan(t) ? 0 : t - prev[k];

		if (isnan(prev[k]))
			f->gpus++;
		prev[k] = t;
		if (isnan(u))
			continue;
		sum += u;
		n++;
		if (u < GPU_IDLE_PCT)
			f->gpu_idle_s += dt;
		if (thc >= 0 && add_reasons(rs, &nr, g.cells[r * g.ncols + (size_t)thc], dt))
			f->throttled_s += dt;
	}
	if (n)
		f->gpu_util_avg = sum / n;
	if (nr) {
		struct prof_buf b = PROF_BUF_INIT;
		char d[32];

		for (size_t i = 0; i < nr; i++)
			prof_buf_addf(&b, "%s%s %s", i ? ", " : "", rs[i].name,
				      prof_fmt_duration(d, sizeof(d), rs[i].s));
		f->throttle_reasons = xstrdup(b.data);
		prof_buf_release(&b);
	}
	if (!table_of(dir, "host.tsv", &h)) {
		double last = NAN, run_from = NAN;
		size_t gk = 0;

		hc = prof_table_column(&h, "cpu_pct");
		htc = prof_table_column(&h, "time_ns");
		f->rss_host = column_max(&h, "rss_bytes");
		f->cmd_span_s = 0;
		f->idle_busy_s = 0;
		for (size_t r = 0; r < h.nrows; r++) {
			double t = cell_num(&h, r, htc), cpu = cell_num(&h, r, hc), util = NAN;
			double dt = isnan(last) ? 0 : (t - last) / 1e9;

			last = t;
			if (isnan(cpu))
				continue;
			f->cmd_span_s += dt;
			/*
			 * the busiest GPU at that time: profgpu samples the host and
			 * the GPUs at once and writes both in time order
			 */
			while (gk < g.nrows && cell_num(&g, gk, tc) < t)
				gk++;
			for (size_t k = gk; k < g.nrows && cell_num(&g, k, tc) == t; k++) {
				double u = cell_num(&g, k, uc);

				if (!isnan(u) && (isnan(util) || u > util))
					util = u;
			}
			if (!isnan(util) && util < GPU_IDLE_PCT && cpu >= CPU_BUSY_PCT) {
				f->idle_busy_s += dt;
				if (isnan(run_from))
					run_from = (t - dt * 1e9) / 1e9;
				if (t / 1e9 - run_from > f->idle_busy_to - f->idle_busy_from) {
					f->idle_busy_from = run_from;
					f->idle_busy_to = t / 1e9;
				}
			} else {
				run_from = NAN;
			}
		}
		prof_table_release(&h);
	}
	prof_table_release(&g);
}

/*
 * A time as prof_fmt_duration() writes it ("850 ns", "3.20 ms", "1.25 s",
 * "2m05s"), in seconds; NAN if it is not one.
 */
static double parse_fmt_duration(const char *s)
{
	char *end;
	double v = strtod(s, &end), scale = NAN;

	if (end == s)
		return NAN;
	if (*end == 'm' && isdigit((unsigned char)end[1])) {
		double sec = strtod(end + 1, &end);

		return *end == 's' ? v * 60 + sec : NAN;
	}
	while (*end == ' ')
		end++;
	if (!strncmp(end, "ns", 2))
		scale = 1e-9;
	else if (!strncmp(end, "us", 2))
		scale = 1e-6;
	else if (!strncmp(end, "ms", 2))
		scale = 1e-3;
	else if (*end == 's')
		scale = 1;
	return v * scale;
}

/*
 * Lines of the logs: the recorders' "stacks cut short" and profgpu's
 * alerts. Quietly, as the tables above: the page shows the logs.
 */
static void read_logs(struct prof_report_facts *f, const char *dir)
{
	static const char *const logs[] = { "cpu.log", "offcpu.log", "memory.log", "gpu.log", NULL };

	for (size_t i = 0; logs[i]; i++) {
		struct prof_lines *lr;
		char *p, *line;
		size_t len;

		if (!exists(dir, logs[i]))
			continue;
		if (i == 3)
			f->gpu_log = 1;
		p = path_of(dir, logs[i]);
		prof_warn_muted++;
		lr = prof_lines_open(p);
		free(p);
		while (lr && (line = prof_lines_next(lr, &len))) {
			char *a = strstr(line, ": alert: "), *at;
			struct prof_report_note *n;

			if (strstr(line, "without frame pointers")) {
				f->cut = xreallocarray(f->cut, f->ncut + 1, sizeof(*f->cut));
				n = &f->cut[f->ncut++];
			} else if (a) {
				f->alerts = xreallocarray(f->alerts, f->nalerts + 1, sizeof(*f->alerts));
				n = &f->alerts[f->nalerts++];
			} else {
				if (i == 3 && (a = strstr(line, "no GPU found")) && !f->no_gpu)
					f->no_gpu = xstrdup(a);
				continue;
			}
			n->file = xstrdup(logs[i]);
			n->text = xstrdup(line);
			n->at_s = NAN;
			if (a && (at = strstr(a, " at ")))
				n->at_s = parse_fmt_duration(at + 4);
		}
		prof_lines_close(lr);
		prof_warn_muted--;
	}
}

/* The number of key= in the metadata line of the folded file name, or NaN. */
static double folded_meta_number(const char *dir, const char *name, const char *key)
{
	struct prof_lines *lr;
	char *p, *line;
	size_t len;
	double v = NAN;

	if (!exists(dir, name))
		return NAN;
	p = path_of(dir, name);
	lr = prof_lines_open(p);
	free(p);
	if (!lr)
		return NAN;
	if ((line = prof_lines_next(lr, &len)) && line[0] == '#') {
		struct prof_meta m = PROF_META_INIT;
		const char *s;

		prof_meta_parse_line(&m, line, len);
		if (!(s = prof_meta_get(&m, key)) || prof_parse_double(s, &v) < 0)
			v = NAN;
		prof_meta_release(&m);
	}
	prof_lines_close(lr);
	return v;
}

static void fold(const char *dir, const char *name, double *v, unsigned long *bad)
{
	if (folded_sum(dir, name, v, NULL, NULL, NULL) < 0) {
		*v = NAN;
		++*bad;
	}
}

void prof_report_facts_read(struct prof_report_facts *f, const char *dir,
			    const struct prof_meta *meta, unsigned long *bad)
{
	struct prof_table t;
	const char *fr = prof_meta_get(meta, "freq");

	memset(f, 0, sizeof(*f));
	for (size_t m = 0; m < 4; m++) {
		char key[32];
		const char *v;

		snprintf(key, sizeof(key), "%s_wall_s", modes[m]);
		v = prof_meta_get(meta, key);
		if (!v || prof_parse_double(v, &f->wall_s[m]) < 0)
			f->wall_s[m] = NAN;
	}
	f->cpu_total = f->on_ns = f->off_ns = f->lock_ns = NAN;
	f->heap_peak = f->leaked = f->allocs = f->temps = f->rss_memory = f->rss_host = NAN;
	f->gpu_span_s = f->gpu_util_avg = f->gpu_util_max = f->gpu_idle_s = f->gpu_mem_max = NAN;
	f->throttled_s = f->idle_busy_s = f->cmd_span_s = f->timeline_s = NAN;
	if (!fr || prof_parse_double(fr, &f->cpu_freq) < 0)
		f->cpu_freq = NAN;

	if (folded_sum(dir, "cpu.folded", &f->cpu_total, &f->cpu_unit, NULL, NULL) < 0)
		++*bad;
	if (folded_sum(dir, "cpu.folded.zst", &f->cpu_total, &f->cpu_unit, NULL, NULL) < 0)
		++*bad;
	read_top(f, dir);
	fold(dir, "offcpu-oncpu.folded", &f->on_ns, bad);
	if (exists(dir, "offcpu.folded")) {
		f->lock_ns = 0;
		if (folded_sum(dir, "offcpu.folded", &f->off_ns, NULL, &f->lock_ns, &f->lock_frame) < 0)
			++*bad;
	}
	fold(dir, "memory-peak.folded", &f->heap_peak, bad);
	f->heap_peak_at_s = folded_meta_number(dir, "memory-peak.folded", "peak_ns") / 1e9;
	fold(dir, "memory-leak.folded", &f->leaked, bad);
	fold(dir, "memory-count.folded", &f->allocs, bad);
	fold(dir, "memory-temp.folded", &f->temps, bad);
	if (!table_of(dir, "memory.timeline.tsv", &t)) {
		f->rss_memory = column_max(&t, "rss_bytes");
		f->timeline_s = time_span_s(&t);
		if (isnan(f->wall_s[2]))
			f->wall_s[2] = f->timeline_s;
		prof_table_release(&t);
	}
	read_gpu(f, dir);
	if (isnan(f->wall_s[3]) && f->gpu_rows > 0)
		f->wall_s[3] = f->gpu_span_s;
	if (!isnan(f->gpu_span_s) && (isnan(f->timeline_s) || f->gpu_span_s > f->timeline_s))
		f->timeline_s = f->gpu_span_s;
	read_logs(f, dir);
}

void prof_report_facts_release(struct prof_report_facts *f)
{
	for (size_t i = 0; i < f->nhot; i++)
		free(f->hot[i].name);
	for (size_t i = 0; i < f->ncut; i++) {
		free(f->cut[i].file);
		free(f->cut[i].text);
	}
	for (size_t i = 0; i < f->nalerts; i++) {
		free(f->alerts[i].file);
		free(f->alerts[i].text);
	}
	free(f->cut);
	free(f->alerts);
	free(f->cpu_unit);
	free(f->lock_frame);
	free(f->throttle_reasons);
	free(f->no_gpu);
	memset(f, 0, sizeof(*f));
}

/* ---- writing ------------------------------------------------------------------- */

static char *dur(char *b, size_t n, double s)
{
	return prof_fmt_duration(b, n, s);
}

/* CPU amounts in seconds: ns weights as they are, samples through the frequency. */
static double cpu_seconds(const struct prof_report_facts *f, double v)
{
	if (f->cpu_unit && !strcmp(f->cpu_unit, "ns"))
		return v / 1e9;
	if (f->cpu_freq > 0)
		return v / f->cpu_freq;
	return NAN;
}

static void row_begin(struct prof_output *o, const char *key)
{
	prof_output_puts(o, "<tr><th>");
	prof_html_text(o, key, strlen(key));
	prof_output_puts(o, "</th><td>");
}

static void row(struct prof_output *o, const char *key, const char *value)
{
	row_begin(o, key);
	prof_html_text(o, value, strlen(value));
	prof_output_puts(o, "</td></tr>\n");
}

static const char not_recorded[] = "not recorded";

static void summary_table(struct prof_output *o, const struct prof_report_facts *f)
{
	char v[512], a[48], b[48];
	size_t k = 0;

	v[0] = 0;
	for (size_t m = 0; m < 4; m++)
		if (!isnan(f->wall_s[m]))
			k += (size_t)snprintf(v + k, sizeof(v) - k, "%s%s run %s", k ? "; " : "", modes[m],
					      dur(a, sizeof(a), f->wall_s[m]));
	row(o, "Wall time", k ? v : not_recorded);

	if (!isnan(f->cpu_total) && !isnan(cpu_seconds(f, f->cpu_total))) {
		double s = cpu_seconds(f, f->cpu_total);

		if (!isnan(f->wall_s[0]) && f->wall_s[0] > 0)
			snprintf(v, sizeof(v), "%s (%.0f%% of one core over the cpu run)", dur(a, sizeof(a), s),
				 100 * s / f->wall_s[0]);
		else
			snprintf(v, sizeof(v), "%s", dur(a, sizeof(a), s));
		row(o, "CPU time", v);
	} else if (!isnan(f->cpu_total)) {
		snprintf(v, sizeof(v), "%.0f %s", f->cpu_total, f->cpu_unit ? f->cpu_unit : "samples");
		row(o, "CPU time", v);
	} else {
		row(o, "CPU time", not_recorded);
	}

	if (!isnan(f->off_ns) && !isnan(f->on_ns) && f->on_ns + f->off_ns > 0) {
		snprintf(v, sizeof(v), "%.1f%% of the threads' time (%s off-CPU, %s on-CPU)",
			 100 * f->off_ns / (f->on_ns + f->off_ns), dur(a, sizeof(a), f->off_ns / 1e9),
			 dur(b, sizeof(b), f->on_ns / 1e9));
		row(o, "Off-CPU share", v);
	} else {
		row(o, "Off-CPU share", not_recorded);
	}

	row(o, "Peak heap", isnan(f->heap_peak) ? not_recorded : prof_fmt_bytes(v, sizeof(v), f->heap_peak));
	k = 0;
	if (!isnan(f->rss_memory))
		k += (size_t)snprintf(v + k, sizeof(v) - k, "%s (memory run)",
				      prof_fmt_bytes(a, sizeof(a), f->rss_memory));
	if (!isnan(f->rss_host))
		k += (size_t)snprintf(v + k, sizeof(v) - k, "%s%s (gpu run, the command's tree)",
				      k ? "; " : "", prof_fmt_bytes(a, sizeof(a), f->rss_host));
	row(o, "Peak RSS", k ? v : not_recorded);
	row(o, "Leaked", isnan(f->leaked) ? not_recorded : prof_fmt_bytes(v, sizeof(v), f->leaked));
	if (!isnan(f->allocs)) {
		prof_fmt_number(a, sizeof(a), f->allocs, 12);
		if (!isnan(f->temps) && f->allocs > 0)
			snprintf(v, sizeof(v), "%s, %s temporary (%.1f%% of all)", a,
				 prof_fmt_number(b, sizeof(b), f->temps, 12), 100 * f->temps / f->allocs);
		else
			snprintf(v, sizeof(v), "%s", a);
		row(o, "Allocations", v);
	} else {
		row(o, "Allocations", not_recorded);
	}

	if (f->gpu_rows > 0 && !isnan(f->gpu_util_avg)) {
		snprintf(v, sizeof(v), "%.1f%% on average (peak %.0f%%) over %s, %zu GPU%s",
			 f->gpu_util_avg, f->gpu_util_max, dur(a, sizeof(a), f->gpu_span_s), f->gpus,
			 f->gpus == 1 ? "" : "s");
		row(o, "GPU utilisation", v);
		snprintf(v, sizeof(v), "%.1f%% of the sampled time (%s below %.0f%%)",
			 f->gpu_span_s > 0 ? 100 * f->gpu_idle_s / (f->gpu_span_s * (double)f->gpus) : 0,
			 dur(a, sizeof(a), f->gpu_idle_s), GPU_IDLE_PCT);
		row(o, "GPU idle", v);
		if (isnan(f->throttled_s))
			row(o, "GPU throttled", "not reported by the device");
		else {
			snprintf(v, sizeof(v), "%s%s%s%s", dur(a, sizeof(a), f->throttled_s),
				 f->throttle_reasons ? " (" : "", f->throttle_reasons ? f->throttle_reasons : "",
				 f->throttle_reasons ? ")" : "");
			row(o, "GPU throttled", v);
		}
	} else {
		const char *why = f->gpu_rows == 0 ? (f->no_gpu ? f->no_gpu : "no GPU sample")
				  : f->gpu_rows > 0 ? "no utilisation reported" : not_recorded;

		row(o, "GPU utilisation", why);
	}
	if (f->nalerts) {
		row_begin(o, "Alerts");
		for (size_t i = 0; i < f->nalerts; i++) {
			if (i)
				prof_output_puts(o, "<br>");
			prof_html_text(o, f->alerts[i].text, strlen(f->alerts[i].text));
		}
		prof_output_puts(o, "</td></tr>\n");
	} else {
		row(o, "Alerts", f->gpu_log ? "none fired" : not_recorded);
	}
}

struct finding_ctx {
	struct prof_output *o;
	int (*has)(const void *, const char *);
	const void *ctx;
	int n;
};

/* One finding: its rule, its class (warn, info), headline, evidence, section. */
static void finding(struct finding_ctx *c, const char *rule, const char *cls, const char *head,
		    const char *evidence, const char *section, const char *section_title)
{
	prof_output_printf(c->o, "<li class=\"%s\" data-rule=\"%s\"><b>", cls, rule);
	prof_html_text(c->o, head, strlen(head));
	prof_output_puts(c->o, "</b> ");
	prof_html_text(c->o, evidence, strlen(evidence));
	if (section && c->has(c->ctx, section)) {
		prof_output_printf(c->o, " <a href=\"#%s\">", section);
		prof_html_text(c->o, section_title, strlen(section_title));
		prof_output_puts(c->o, " &#8595;</a>");
	}
	prof_output_puts(c->o, "</li>\n");
	c->n++;
}

static void findings(struct prof_output *o, const struct prof_report_facts *f,
		     const struct prof_meta *meta, int (*has)(const void *, const char *), const void *ctx)
{
	struct finding_ctx c = { o, has, ctx, 0 };
	char h[512], e[1024], a[48], b[48];
	const char *cg = prof_meta_get(meta, "call_graph"), *uw = prof_meta_get(meta, "unwind");

	prof_output_puts(o, "<ol class=\"findings\">\n");
	if (f->nhot) {
		size_t k = 0;

		for (size_t i = 0; i < f->nhot; i++) {
			double s = cpu_seconds(f, f->hot[i].self);

			k += (size_t)snprintf(e + k, sizeof(e) - k, "%s%s %s (%.1f%% of the CPU time)",
					      i ? "; " : "", f->hot[i].name,
					      isnan(s) ? prof_fmt_number(a, sizeof(a), f->hot[i].self, 6)
						       : dur(a, sizeof(a), s), f->hot[i].self_pct);
			if (k >= sizeof(e))
				break;
		}
		snprintf(h, sizeof(h), "The hottest function%s by self time:", f->nhot > 1 ? "s" : "");
		finding(&c, "hot", "info", h, e, "cpu", "Where the CPU time goes");
	}
	if (f->ncut && !(cg && !strcmp(cg, "dwarf") && (!uw || !strcmp(uw, "dwarf")))) {
		snprintf(h, sizeof(h), "Stacks cut short: the program lacks frame pointers.");
		snprintf(e, sizeof(e), "%s: \"%s\". Run again with proftools-profile --dwarf (or "
			 "--unwind=dwarf), or build with -fno-omit-frame-pointer.", f->cut[0].file, f->cut[0].text);
		finding(&c, "cut-short", "warn", h, e,
			!strncmp(f->cut[0].file, "memory", 6) ? "memory" :
			!strncmp(f->cut[0].file, "offcpu", 6) ? "offcpu" : "cpu", "the profile");
	}
	if (!isnan(f->lock_ns) && f->off_ns > 0 && f->lock_ns >= LOCK_SHARE * f->off_ns &&
	    f->lock_ns >= LOCK_MIN_NS) {
		snprintf(h, sizeof(h), "Threads wait in locks:");
		snprintf(e, sizeof(e), "%s off-CPU in stacks through a lock (%.1f%% of the off-CPU time), "
			 "most under %s.", dur(a, sizeof(a), f->lock_ns / 1e9), 100 * f->lock_ns / f->off_ns,
			 f->lock_frame ? f->lock_frame : "?");
		finding(&c, "lock-wait", "warn", h, e, "offcpu", "Where it waits");
	}
	if (f->gpu_util_max >= GPU_USED_PCT && f->cmd_span_s > 0 &&
	    f->idle_busy_s >= GPU_IDLE_SHARE * f->cmd_span_s && f->idle_busy_s >= GPU_MIN_S) {
		char from[48], to[48];

		snprintf(h, sizeof(h), "The GPU waits for the CPU (start-up, data loading, input pipeline):");
		snprintf(e, sizeof(e), "the GPU was idle (below %.0f%%) for %s, %.0f%% of the %s the command ran, "
			 "while the command used %.0f%% or more of a core; the longest stretch from %s to %s.",
			 GPU_IDLE_PCT, dur(a, sizeof(a), f->idle_busy_s), 100 * f->idle_busy_s / f->cmd_span_s,
			 dur(b, sizeof(b), f->cmd_span_s), CPU_BUSY_PCT,
			 dur(from, sizeof(from), f->idle_busy_from), dur(to, sizeof(to), f->idle_busy_to));
		finding(&c, "gpu-idle", "warn", h, e, "timeline", "Over time");
	}
	if (f->throttled_s >= GPU_MIN_S && f->gpu_span_s > 0 &&
	    f->throttled_s >= THROTTLE_SHARE * f->gpu_span_s * (double)(f->gpus ? f->gpus : 1)) {
		snprintf(h, sizeof(h), "The GPU was throttled:");
		snprintf(e, sizeof(e), "%s of %s sampled (%s).", dur(a, sizeof(a), f->throttled_s),
			 dur(b, sizeof(b), f->gpu_span_s), f->throttle_reasons ? f->throttle_reasons : "");
		finding(&c, "throttle", "warn", h, e, "timeline", "Over time");
	}
	if (f->temps >= TEMP_MIN && f->allocs > 0 && f->temps >= TEMP_SHARE * f->allocs) {
		snprintf(h, sizeof(h), "Many temporary allocations:");
		snprintf(e, sizeof(e), "%s of %s allocations (%.1f%%) were freed by their thread before it "
			 "allocated anything else.", prof_fmt_number(a, sizeof(a), f->temps, 12),
			 prof_fmt_number(b, sizeof(b), f->allocs, 12), 100 * f->temps / f->allocs);
		finding(&c, "temp-alloc", "warn", h, e, "memory", "Where the memory goes");
	}
	if (f->leaked > 0) {
		snprintf(h, sizeof(h), "Memory leaked:");
		snprintf(e, sizeof(e), "%s still allocated when the program exited.",
			 prof_fmt_bytes(a, sizeof(a), f->leaked));
		finding(&c, "leak", "warn", h, e, "memory", "Where the memory goes");
	}
	for (size_t i = 0; i < f->nalerts; i++)
		finding(&c, "alert", "warn", "Alert:", f->alerts[i].text, "timeline", "Over time");
	prof_output_puts(o, "</ol>\n");
	if (!c.n)
		prof_html_para(o, "note", "No finding: no rule of proftools-profile(1) applies to what this "
					  "directory holds.");
}

void prof_report_summary_write(struct prof_output *o, const struct prof_report_facts *f,
			       const struct prof_meta *meta,
			       int (*has_section)(const void *ctx, const char *id), const void *ctx)
{
	prof_html_section(o, "summary", 2, "Summary");
	prof_output_puts(o, "<table class=\"summary\">\n");
	summary_table(o, f);
	prof_output_puts(o, "</table>\n");
	prof_html_section_end(o);
	prof_html_section(o, "findings", 2, "Findings");
	findings(o, f, meta, has_section, ctx);
	prof_html_section_end(o);
}
