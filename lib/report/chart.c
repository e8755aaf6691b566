#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "base/escape.h"
#include "base/units.h"
#include "base/xalloc.h"
#include "compare/table.h"
#include "io/output.h"
#include "report/chart.h"
#include "report/html.h"

enum { WIDTH = 1000, DEFAULT_HEIGHT = 220, LEFT = 80, RIGHT = 16, TOP = 22, BOTTOM = 28, MAX_POINTS = 1000 };

/* The chart being drawn's height (prof_chart_axis.height or the default). */
static int HEIGHT = DEFAULT_HEIGHT;

static const char *const colours[] = {
	"#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
};

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

char *prof_chart_format(char *buf, size_t n, const char *column, double v)
{
	char num[48];

	if (ends_with(column, "_bytes"))
		return prof_fmt_bytes(buf, n, v);
	if (ends_with(column, "_ns"))
		return prof_fmt_duration(buf, n, v / 1e9);
	prof_fmt_number(num, sizeof(num), fabs(v) >= 100 ? round(v) : round(v * 100) / 100, 6);
	if (ends_with(column, "_pct"))
		snprintf(buf, n, "%s%%", num);
	else if (ends_with(column, "_c"))
		snprintf(buf, n, "%s \xc2\xb0" "C", num);
	else if (ends_with(column, "_w"))
		snprintf(buf, n, "%s W", num);
	else if (ends_with(column, "_j"))
		snprintf(buf, n, "%s J", num);
	else if (ends_with(column, "_mhz"))
		snprintf(buf, n, "%s MHz", num);
	else if (ends_with(column, "_per_s"))
		snprintf(buf, n, "%s/s", num);
	else
		snprintf(buf, n, "%s", num);
	return buf;
}

/* One line: its name and its points (seconds, value). */
struct series {
	const char *name;
	double *t, *v;
	size_t n;
};

static struct series *series_for(struct series **s, size_t *ns, const char *name)
{
	for (size_t i = 0; i < *ns; i++)
		if (!strcmp((*s)[i].name, name))
			return &(*s)[i];
	*s = xreallocarray(*s, *ns + 1, sizeof(**s));
	memset(&(*s)[*ns], 0, sizeof(**s));
	(*s)[*ns].name = name;
	return &(*s)[(*ns)++];
}

/* The rows of t as series; returns their number (0: nothing to draw). */
static size_t collect(const struct prof_table *t, int tc, int vc, int sc, int from_zero,
		      struct series **out)
{
	size_t ns = 0;
	double t0 = NAN;

	*out = NULL;
	for (size_t r = 0; r < t->nrows; r++) {
		double tv, v;
		struct series *s;

		if (prof_parse_double(t->cells[r * t->ncols + (size_t)tc], &tv) < 0 ||
		    prof_parse_double(t->cells[r * t->ncols + (size_t)vc], &v) < 0)
			continue;
		if (isnan(t0) || tv < t0)
			t0 = tv;
		s = series_for(out, &ns, sc >= 0 ? t->cells[r * t->ncols + (size_t)sc] : "");
		s->t = xreallocarray(s->t, s->n + 1, sizeof(*s->t));
		s->v = xreallocarray(s->v, s->n + 1, sizeof(*s->v));
		s->t[s->n] = tv;
		s->v[s->n++] = v;
	}
	if (from_zero)
		t0 = 0;
	for (size_t i = 0; i < ns; i++)
		for (size_t k = 0; k < (*out)[i].n; k++)
			(*out)[i].t[k] = ((*out)[i].t[k] - t0) / 1e9;	/* seconds from the start */
	return ns;
}

/* A round step for about five ticks over [0, max]. */
static double tick_step(double max)
{
	double raw = max / 5, mag = pow(10, floor(log10(raw))), f = raw / mag;

	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

static void axes(struct prof_output *o, const char *column, double tmax, double vmax)
{
	double ts = tick_step(tmax), vs = tick_step(vmax);
	char label[64];

	prof_output_printf(o, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n",
			   LEFT, HEIGHT - BOTTOM, WIDTH - RIGHT, HEIGHT - BOTTOM);
	prof_output_printf(o, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n",
			   LEFT, TOP, LEFT, HEIGHT - BOTTOM);
	for (double v = 0; v <= vmax * 1.0001; v += vs) {
		double y = HEIGHT - BOTTOM - v / vmax * (HEIGHT - TOP - BOTTOM);

		prof_output_printf(o, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>"
				   "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", LEFT, y,
				   WIDTH - RIGHT, y, LEFT - 4, y + 4);
		prof_html_text(o, label, strlen(prof_chart_format(label, sizeof(label), column, v)));
		prof_output_puts(o, "</text>\n");
	}
	for (double t = 0; t <= tmax * 1.0001; t += ts) {
		double x = LEFT + t / tmax * (WIDTH - LEFT - RIGHT);

		prof_fmt_number(label, sizeof(label), t, 4);
		prof_output_printf(o, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s s</text>\n", x,
				   HEIGHT - BOTTOM + 16, label);
	}
}

/* JSON string content (the attribute it goes into is escaped again). */
static void json_string(struct prof_buf *b, const char *s)
{
	prof_json_escape(b, s, strlen(s));
}

/*
 * The line of one series, thinned to MAX_POINTS (the largest value of
 * each bucket), and its points for the hover script appended to json.
 */
static void draw_series(struct prof_output *o, struct prof_buf *json, const struct series *s,
			const char *column, const char *colour, double tmax, double vmax)
{
	size_t step = (s->n + MAX_POINTS - 1) / MAX_POINTS;
	char v[64], t[48];

	prof_output_printf(o, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
			   colour);
	json_string(json, s->name);
	prof_buf_addstr(json, "\",\"p\":[");
	for (size_t i = 0; i < s->n; i += step) {
		size_t best = i;
		double x, y;

		for (size_t k = i; k < i + step && k < s->n; k++)
			if (s->v[k] > s->v[best])
				best = k;
		x = LEFT + (tmax > 0 ? s->t[best] / tmax : 0) * (WIDTH - LEFT - RIGHT);
		y = HEIGHT - BOTTOM - (vmax > 0 ? s->v[best] / vmax : 0) * (HEIGHT - TOP - BOTTOM);
		prof_output_printf(o, "%.1f,%.1f ", x, y);
		prof_chart_format(v, sizeof(v), column, s->v[best]);
		prof_fmt_number(t, sizeof(t), round(s->t[best] * 1000) / 1000, 6);
		prof_buf_addstr(json, i ? ",[" : "[");
		snprintf(t + strlen(t), sizeof(t) - strlen(t), " s");
		{
			char head[64];

			snprintf(head, sizeof(head), "%.1f,%.1f,\"", x, y);
			prof_buf_addstr(json, head);
		}
		json_string(json, v);
		prof_buf_addstr(json, "\",\"");
		json_string(json, t);
		prof_buf_addstr(json, "\"]");
	}
	prof_output_puts(o, "\"/>\n");
	prof_buf_addstr(json, "]}");
}

static void free_series(struct series *s, size_t ns)
{
	for (size_t i = 0; i < ns; i++) {
		free(s[i].t);
		free(s[i].v);
	}
	free(s);
}

int prof_chart_timeline(struct prof_output *o, const struct prof_table *t, const char *column,
			const char *series_column, const char *title,
			const struct prof_chart_axis *axis)
{
	int tc = prof_table_column(t, "time_ns"), vc = prof_table_column(t, column);
	int sc = series_column ? prof_table_column(t, series_column) : -1;
	struct prof_buf json = PROF_BUF_INIT;
	struct series *s;
	double tmax = 0, vmax = 0;
	size_t ns;

	HEIGHT = axis && axis->height > 0 ? axis->height : DEFAULT_HEIGHT;
	if (tc < 0 || vc < 0 || !(ns = collect(t, tc, vc, sc, axis && axis->tmax_s > 0, &s)))
		return -1;
	for (size_t i = 0; i < ns; i++)
		for (size_t k = 0; k < s[i].n; k++) {
			tmax = fmax(tmax, s[i].t[k]);
			vmax = fmax(vmax, s[i].v[k]);
		}
	if (axis && axis->tmax_s > tmax)
		tmax = axis->tmax_s;
	if (tmax <= 0)
		tmax = 1;
	if (vmax <= 0)
		vmax = 1;
	vmax = ceil(vmax / tick_step(vmax)) * tick_step(vmax);
	prof_output_printf(o, "<svg class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
			   "role=\"img\"><text x=\"%d\" y=\"14\" font-weight=\"bold\">", WIDTH, HEIGHT,
			   WIDTH, HEIGHT, LEFT);
	prof_html_text(o, title, strlen(title));
	prof_output_printf(o, "</text><text class=\"hover\" x=\"%d\" y=\"14\" text-anchor=\"end\"></text>\n",
			   WIDTH - RIGHT);
	axes(o, column, tmax, vmax);
	prof_buf_addf(&json, "{\"w\":%d,\"series\":[", WIDTH);
	for (size_t i = 0; i < ns; i++) {
		prof_buf_addstr(&json, i ? ",{\"name\":\"" : "{\"name\":\"");
		draw_series(o, &json, &s[i], column, colours[i % (sizeof(colours) / sizeof(*colours))],
			    tmax, vmax);
	}
	prof_buf_addstr(&json, "]}");
	for (size_t i = 0; axis && i < axis->nmarks; i++) {
		double x = LEFT + axis->marks[i] / tmax * (WIDTH - LEFT - RIGHT);

		if (!(axis->marks[i] >= 0 && axis->marks[i] <= tmax))
			continue;
		prof_output_printf(o, "<line class=\"alert\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
				   "stroke=\"#b00\" stroke-width=\"2\"><title>", x, TOP, x, HEIGHT - BOTTOM);
		prof_html_text(o, axis->mark_labels[i], strlen(axis->mark_labels[i]));
		prof_output_puts(o, "</title></line>\n");
	}
	if (axis && axis->peak_label && axis->peak_s >= 0 && axis->peak_s <= tmax) {
		double x = LEFT + axis->peak_s / tmax * (WIDTH - LEFT - RIGHT);

		prof_output_printf(o, "<line class=\"peak\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
				   "stroke=\"#06c\" stroke-width=\"2\" stroke-dasharray=\"6,3\"><title>",
				   x, TOP, x, HEIGHT - BOTTOM);
		prof_html_text(o, axis->peak_label, strlen(axis->peak_label));
		prof_output_printf(o, "</title></line><text class=\"peak\" x=\"%.1f\" y=\"%d\" "
				   "font-size=\"11\" fill=\"#06c\">peak</text>\n", x + 3, TOP + 11);
	}
	prof_output_printf(o, "<line class=\"mark\" x1=\"0\" y1=\"%d\" x2=\"0\" y2=\"%d\" stroke=\"#000\" "
			   "stroke-dasharray=\"3,3\" style=\"display:none\"/>\n", TOP, HEIGHT - BOTTOM);
	/* The points for the hover script, as data in an attribute. */
	prof_output_puts(o, "<g class=\"data\" data-chart=\"");
	prof_html_text(o, json.data, json.len);
	prof_output_puts(o, "\"></g></svg>\n");
	prof_buf_release(&json);
	free_series(s, ns);
	return 0;
}
