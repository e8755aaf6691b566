/*
 * The heat map's cells (heatmap.h), drawn for a fast page: one <path> per
 * colour (a rectangle per run of same-coloured cells down a column; white
 * cells are the grid's background), not an element per cell, and no
 * <title> per cell. A hovered cell's tooltip is built by the script
 * written here from a compact table (samples and weight text per cell,
 * the time text per row, formatted here as printf formats them), so the
 * text is the same as one <title> per cell said. The script also defines
 * profHeatmap, the cell geometry the HTML page's range selection uses
 * (heatmap_page.c). 30,000 cells were 60,000 elements and 5 MB of markup.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "base/escape.h"
#include "base/xalloc.h"
#include "flame/heatmap.h"
#include "flame/internal.h"
#include "io/output.h"

/*
 * The tooltip script: HMC (the table) is defined before it. A cell is
 * found from the pointer's position, so one listener on the grid serves
 * every cell; the tooltip (an outline of the cell and a text box) is one
 * group, made on the first hover. profHeatmap is what other scripts use:
 * at(x, y), the cell under client coordinates (-1: none); text(c), its
 * tooltip; rect(c), its box; client(c), its centre in client coordinates.
 */
static const char cells_script[] =
"var profHeatmap = (function (D) {\n"
"\"use strict\";\n"
"var doc = document, NS = \"http://www.w3.org/2000/svg\", grid = doc.getElementById(\"cells\");\n"
"var svg = grid.ownerSVGElement, w = null, tip = null, hov, bg, txt;\n"
"function pt(x, y, m) { var p = svg.createSVGPoint(); p.x = x; p.y = y; return p.matrixTransform(m); }\n"
"function at(x, y) {\n"
"  var p = pt(x, y, grid.getScreenCTM().inverse());\n"
"  var s = Math.floor((p.x - D.left) / D.cw), b = Math.floor((p.y - D.top) / D.ch);\n"
"  return s >= 0 && s < D.seconds && b >= 0 && b < D.per ? s * D.per + b : -1;\n"
"}\n"
"function rect(c) {\n"
"  return { x: D.left + Math.floor(c / D.per) * D.cw, y: D.top + c % D.per * D.ch, width: D.cw, height: D.ch };\n"
"}\n"
"function client(c) { var r = rect(c); return pt(r.x + r.width / 2, r.y + r.height / 2, grid.getScreenCTM()); }\n"
"function text(c) {\n"
"  if (!w) w = D.w.split(\" \");\n"
"  var s = Math.floor(c / D.per), r = D.rows[c % D.per], n = D.n[c];\n"
"  return s + \".\" + r[0] + \" s - \" + (s + r[2]) + \".\" + r[1] + \" s (second \" + s + \", \" + r[3] +\n"
"    \" ms): \" + n + \" sample\" + (n === 1 ? \"\" : \"s\") + \", \" + w[c] + D.unit;\n"
"}\n"
"function el(name, attrs) {\n"
"  var e = doc.createElementNS(NS, name);\n"
"  for (var k in attrs) e.setAttribute(k, attrs[k]);\n"
"  return e;\n"
"}\n"
"function show(ev) {\n"
"  var c = at(ev.clientX, ev.clientY);\n"
"  if (c < 0) { hide(); return; }\n"
"  if (!tip) {\n"
"    tip = svg.appendChild(el(\"g\", { id: \"tooltip\", \"pointer-events\": \"none\" }));\n"
"    hov = tip.appendChild(el(\"rect\", { fill: \"none\", stroke: \"#000\", \"stroke-width\": 1 }));\n"
"    bg = tip.appendChild(el(\"rect\", { fill: \"#ffffe0\", stroke: \"#888\", \"stroke-width\": 0.5 }));\n"
"    txt = tip.appendChild(el(\"text\", {}));\n"
"  }\n"
"  var r = rect(c), p = pt(ev.clientX, ev.clientY, grid.getScreenCTM().inverse()), k;\n"
"  for (k in r) hov.setAttribute(k, r[k]);\n"
"  txt.textContent = text(c);\n"
"  var tw = txt.getComputedTextLength(), x = Math.max(2, Math.min(p.x + 12, D.width - tw - 8));\n"
"  var y = p.y + 2 * D.fs + 4 > D.height ? p.y - D.fs : p.y + 2 * D.fs;\n"
"  txt.setAttribute(\"x\", x + 3); txt.setAttribute(\"y\", y);\n"
"  bg.setAttribute(\"x\", x); bg.setAttribute(\"y\", y - D.fs);\n"
"  bg.setAttribute(\"width\", tw + 6); bg.setAttribute(\"height\", D.fs + 5);\n"
"  tip.setAttribute(\"visibility\", \"visible\");\n"
"}\n"
"function hide() { if (tip) tip.setAttribute(\"visibility\", \"hidden\"); }\n"
"grid.addEventListener(\"mousemove\", show, false);\n"
"grid.addEventListener(\"mouseover\", show, false);\n"
"grid.addEventListener(\"mouseleave\", hide, false);\n"
"return { at: at, rect: rect, client: client, text: text, D: D };\n"
"})(HMC);\n";

uint32_t prof_flame_heatmap_color(double f)
{
	static const double stops[3][3] = { { 255, 255, 255 }, { 255, 170, 60 }, { 180, 20, 0 } };
	const double *a, *z;
	double t;
	int i, c[3];

	f = f < 0 ? 0 : f > 1 ? 1 : f;
	a = f < 0.5 ? stops[0] : stops[1];
	z = f < 0.5 ? stops[1] : stops[2];
	t = f < 0.5 ? f * 2 : (f - 0.5) * 2;
	for (i = 0; i < 3; i++)
		c[i] = (int)lround(a[i] + (z[i] - a[i]) * t);
	return PROF_RGB(c[0], c[1], c[2]);
}

/* A weight's number as the tooltip says it: ms (2 decimals) for ns, else the count. */
static void add_weight_num(struct prof_buf *b, double v, const char *unit)
{
	if (unit && !strcmp(unit, "ns"))
		prof_buf_addf(b, "%.2f", v / 1e6);
	else
		prof_flame_add_count(b, v);
}

static const char *weight_unit(const char *unit)
{
	return unit && !strcmp(unit, "ns") ? "ms" : unit ? unit : "samples";
}

void prof_flame_heatmap_add_weight(struct prof_buf *b, double v, const char *unit)
{
	const char *u = weight_unit(unit);

	add_weight_num(b, v, unit);
	prof_buf_addch(b, ' ');
	prof_xml_escape(b, u, strlen(u));
}

struct cells {
	const struct prof_heatmap *hm;
	const struct prof_flame_heatmap_grid *g;
	struct prof_output *out;
	struct prof_buf b;
	uint32_t *color;	/* per cell */
	int r;
};

static void flush_some(struct cells *w, int force)
{
	if (w->r == 0 && (force || w->b.len >= 1 << 16)) {
		w->r = prof_output_write(w->out, w->b.data, w->b.len);
		prof_buf_reset(&w->b);
	}
}

/* qsort_r() order of cell indices: by colour, then time. */
static int by_color(const void *a, const void *b, void *ctx)
{
	const uint32_t *color = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (color[x] != color[y])
		return color[x] < color[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * The grid: a white rectangle under it all (the empty cells, and what the
 * pointer hits between paths), then a path per colour other than white,
 * a rectangle per run of consecutive cells of one column.
 */
static void write_paths(struct cells *w)
{
	const struct prof_heatmap *hm = w->hm;
	const struct prof_flame_heatmap_grid *g = w->g;
	struct prof_buf *b = &w->b;
	uint32_t *ix = xmalloc((hm->ncells ? hm->ncells : 1) * sizeof(*ix));
	size_t i, n = 0, run;

	for (i = 0; i < hm->ncells; i++) {
		w->color[i] = prof_flame_heatmap_color((double)hm->cells[i].weight / g->maxw);
		if (w->color[i] != PROF_RGB(255, 255, 255))
			ix[n++] = (uint32_t)i;
	}
	qsort_r(ix, n, sizeof(*ix), by_color, w->color);
	prof_buf_addstr(b, "<g id=\"cells\">\n<rect x=\"");
	prof_flame_add_num(b, g->left);
	prof_buf_addstr(b, "\" y=\"");
	prof_flame_add_num(b, g->top);
	prof_buf_addstr(b, "\" width=\"");
	prof_flame_add_num(b, (double)hm->seconds * g->cw);
	prof_buf_addstr(b, "\" height=\"");
	prof_flame_add_num(b, (double)hm->per_second * g->ch);
	prof_buf_addstr(b, "\" fill=\"#ffffff\"/>");
	for (i = 0; i < n; i += run) {
		size_t s = ix[i] / hm->per_second, row = ix[i] % hm->per_second;

		if (i == 0 || w->color[ix[i]] != w->color[ix[i - 1]]) {
			prof_buf_addstr(b, i ? "\"/>\n<path fill=\"" : "\n<path fill=\"");
			prof_flame_add_hex(b, w->color[ix[i]]);
			prof_buf_addstr(b, "\" d=\"");
		}
		/* the run: the next cells down the same column, of the same colour */
		for (run = 1; i + run < n && ix[i + run] == ix[i] + run &&
			      w->color[ix[i + run]] == w->color[ix[i]] && row + run < hm->per_second; run++)
			;
		prof_buf_addch(b, 'M');
		prof_flame_add_num(b, g->left + (double)s * g->cw);
		prof_buf_addch(b, ' ');
		prof_flame_add_num(b, g->top + (double)row * g->ch);
		prof_buf_addch(b, 'h');
		prof_flame_add_num(b, g->cw);
		prof_buf_addch(b, 'v');
		prof_flame_add_num(b, (double)run * g->ch);
		prof_buf_addstr(b, "h-");
		prof_flame_add_num(b, g->cw);
		prof_buf_addch(b, 'z');
		flush_some(w, 0);
	}
	prof_buf_addstr(b, n ? "\"/>\n</g>\n" : "\n</g>\n");
	free(ix);
}

/*
 * HMC: the geometry, per row its time texts (start and end milliseconds
 * as "%03.0f", whether the end is in the next second, "%g-%g" of the
 * row's milliseconds), per cell its samples and its weight's number (one
 * string, split on the first hover), and the weight's unit.
 */
static void write_table(struct cells *w, const struct prof_flame_heatmap_opts *o)
{
	const struct prof_heatmap *hm = w->hm;
	const struct prof_flame_heatmap_grid *g = w->g;
	struct prof_buf *b = &w->b, u = PROF_BUF_INIT;
	size_t i;

	prof_buf_addf(b, "<script type=\"text/ecmascript\"><![CDATA[\nvar HMC = {seconds: %zu, "
		      "per: %zu, left: %.17g, top: %.17g, cw: %.17g, ch: %.17g, width: %.17g, "
		      "height: %.17g, fs: %.17g, unit: ", hm->seconds, hm->per_second, g->left,
		      g->top, g->cw, g->ch, g->width, g->height, o->fontsize);
	prof_buf_addch(&u, ' ');
	prof_buf_addstr(&u, weight_unit(o->unit));
	prof_flame_add_js_string(b, u.data);
	prof_buf_release(&u);
	prof_buf_addstr(b, ",\nrows: [");
	for (i = 0; i < hm->per_second; i++) {
		double ms0 = (double)(i * hm->bucket_ns) / 1e6, ms1 = ms0 + (double)hm->bucket_ns / 1e6;

		prof_buf_addf(b, "%s[\"%03.0f\",\"%03.0f\",%d,\"%g-%g\"]", i ? "," : "", ms0,
			      fmod(ms1, 1000), ms1 >= 1000, ms0, ms1);
	}
	prof_buf_addstr(b, "],\nn: [");
	for (i = 0; i < hm->ncells; i++) {
		prof_buf_addf(b, "%s%lu", i ? "," : "", hm->cells[i].samples);
		if (i % 256 == 255)
			prof_buf_addch(b, '\n');
		flush_some(w, 0);
	}
	prof_buf_addstr(b, "],\nw: \"");
	for (i = 0; i < hm->ncells; i++) {
		if (i)
			prof_buf_addch(b, ' ');
		add_weight_num(b, (double)hm->cells[i].weight, o->unit);
		flush_some(w, 0);
	}
	prof_buf_addstr(b, "\"};\n");
	prof_buf_addstr(b, cells_script);
	prof_buf_addstr(b, "]]></script>\n");
}

int prof_flame_heatmap_write_cells(const struct prof_heatmap *hm,
				   const struct prof_flame_heatmap_opts *o,
				   const struct prof_flame_heatmap_grid *g, struct prof_output *out)
{
	struct cells w;

	memset(&w, 0, sizeof(w));
	w.hm = hm;
	w.g = g;
	w.out = out;
	w.color = xmalloc((hm->ncells ? hm->ncells : 1) * sizeof(*w.color));
	write_paths(&w);
	write_table(&w, o);
	flush_some(&w, 1);
	prof_buf_release(&w.b);
	free(w.color);
	return w.r;
}
