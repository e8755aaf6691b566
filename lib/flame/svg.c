/*
 * The flame graph document (flame.h's prof_flame_write()): the SVG (or an
 * HTML page around it) with flamegraph.pl's geometry, one <g> per frame
 * holding its tooltip, rectangle and label, then the script. Output is
 * buffered and written in 64 KiB pieces.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "base/escape.h"
#include "base/xalloc.h"
#include "flame/flame.h"
#include "flame/internal.h"
#include "io/output.h"

static void flush_some(struct prof_flame_writer *w, int force)
{
	if (w->r == 0 && (force || w->b.len >= 1 << 16)) {
		w->r = prof_output_write(w->out, w->b.data, w->b.len);
		prof_buf_reset(&w->b);
	}
}

static uint32_t frame_color(struct prof_flame_writer *w, const struct prof_flame_node *n,
			    const char *name, size_t len)
{
	const struct prof_flame_opts *o = w->o;
	uint32_t c;

	if (len == 2 && name[0] == '-' && name[1] == '-')
		return PROF_RGB(160, 160, 160);
	if (len == 1 && name[0] == '-')
		return PROF_RGB(200, 200, 200);
	if (w->g->diff)
		return prof_flame_diff_color(o->negate ? -n->delta : n->delta, w->g->maxdelta);
	if (w->g->hotcold)
		return prof_flame_hotcold_color(n, name, len);
	if (o->palmap) {
		if (prof_flame_palmap_get(o->palmap, name, len, &c) == 0)
			return c;
		if (o->random && !o->hash)
			c = prof_flame_color_random(o->palette, name, len, &w->rng);
		else
			c = prof_flame_color(o->palette, o->hash, name, len);
		prof_flame_palmap_set(o->palmap, name, len, c);
		return c;
	}
	if (o->random && !o->hash)	/* every frame its own colour, as flamegraph.pl */
		return prof_flame_color_random(o->palette, name, len, &w->rng);
	if (n->frame == UINT32_MAX)
		return prof_flame_color(o->palette, o->hash, "", 0);
	if (w->colors[n->frame] == UINT32_MAX)
		w->colors[n->frame] = prof_flame_color(o->palette, o->hash, name, len);
	return w->colors[n->frame];
}

static void write_info(struct prof_flame_writer *w, const struct prof_flame_node *n,
		       const char *name, size_t len)
{
	const struct prof_flame_opts *o = w->o;
	struct prof_buf *b = &w->b;
	double width = n->depth == 0 ? w->g->timemax : n->width;
	double samples = nearbyint(width * o->factor);
	char tmp[64];

	if (n->depth == 0) {
		prof_buf_addstr(b, "all (");
		prof_flame_add_count(b, samples);
		prof_buf_addch(b, ' ');
		prof_xml_escape(b, o->countname, strlen(o->countname));
		prof_buf_addstr(b, ", 100%");
		if (w->g->hotcold)
			prof_flame_add_hotcold_split(b, n, o);
		prof_buf_addch(b, ')');
		return;
	}
	prof_xml_escape(b, name, prof_flame_deannotate(name, len));
	prof_buf_addstr(b, " (");
	prof_flame_add_count(b, samples);
	prof_buf_addch(b, ' ');
	prof_xml_escape(b, o->countname, strlen(o->countname));
	snprintf(tmp, sizeof(tmp), ", %.2f%%", 100 * samples / (w->g->timemax * o->factor));
	prof_buf_addstr(b, tmp);
	if (w->g->diff) {
		double d = o->negate ? -n->delta : n->delta;

		if (d == 0)
			d = 0;	/* no "-0.00%" */
		snprintf(tmp, sizeof(tmp), "; %s%.2f%%", d > 0 ? "+" : "",
			 100 * d / (w->g->timemax * o->factor));
		prof_buf_addstr(b, tmp);
	}
	if (w->g->hotcold)
		prof_flame_add_hotcold_split(b, n, o);
	prof_buf_addch(b, ')');
}

/* The label of a frame x1..x2 wide at y1 (none if under 3 characters fit). */
static void write_label(struct prof_flame_writer *w, const struct prof_flame_node *n,
			const char *name, size_t len, long long h1, double width, double y1)
{
	const struct prof_flame_opts *o = w->o;
	struct prof_buf *b = &w->b;
	int chars = (int)(width / (o->fontsize * o->fontwidth));
	const char *label = n->depth ? name : "all";
	size_t ll = n->depth ? prof_flame_deannotate(name, len) : 3;

	if (chars < 3)
		return;
	prof_buf_addstr(b, "<text x=\"");
	prof_flame_add_hundredths(b, h1 + 300);
	prof_buf_addstr(b, "\" y=\"");
	prof_flame_add_num(b, y1 + 3 + (o->frameheight - PROF_FLAME_FRAMEPAD) / 2);
	prof_buf_addstr(b, "\">");
	if ((size_t)chars < prof_utf8_chars(label, ll)) {
		prof_xml_escape(b, label, prof_utf8_char_prefix(label, ll, (size_t)chars - 2));
		prof_buf_addstr(b, "..");
	} else {
		prof_xml_escape(b, label, ll);
	}
	prof_buf_addstr(b, "</text>");
}

/*
 * A frame's opening: "<g" or, with a --nameattr link, "<a ...", its
 * attributes, and its tooltip. Returns the attributes used (or NULL).
 */
static const struct prof_flame_attrs *write_frame_open(struct prof_flame_writer *w,
							const struct prof_flame_node *n,
							const char *name, size_t len)
{
	const struct prof_flame_attrs *a = NULL;
	struct prof_buf *b = &w->b;

	if (w->o->nameattr && n->depth)
		a = prof_flame_nameattr_find(w->o->nameattr, name, len);
	if (a && a->href) {
		prof_buf_addstr(b, "<a xlink:href=\"");
		prof_buf_addstr(b, a->href);
		prof_buf_addstr(b, "\" target=\"");
		prof_buf_addstr(b, a->target ? a->target : "_top");
		prof_buf_addch(b, '"');
	} else {
		prof_buf_addstr(b, "<g");
	}
	if (a && a->gattrs)
		prof_buf_addstr(b, a->gattrs);
	prof_buf_addstr(b, "><title>");
	if (a && a->title)
		prof_xml_escape(b, a->title, strlen(a->title));
	else
		write_info(w, n, name, len);
	prof_buf_addstr(b, "</title>");
	return a;
}

static void write_frame(struct prof_flame_writer *w, const struct prof_flame_node *n)
{
	const struct prof_flame_opts *o = w->o;
	const struct prof_flame_attrs *a;
	struct prof_buf *b = &w->b;
	const char *name = "";
	size_t len = 0;
	double x1, x2, y1, etime;
	long long h1, h2;
	uint32_t fill;

	if (n->frame != UINT32_MAX)
		name = prof_stacks_frame_name(w->t, n->frame, &len);
	etime = n->depth == 0 ? w->g->timemax : n->start + n->width;
	x1 = PROF_FLAME_XPAD + n->start * w->wpt;
	x2 = PROF_FLAME_XPAD + etime * w->wpt;
	h1 = llround(x1 * 100);
	h2 = llround(x2 * 100);
	if (o->inverted)
		y1 = w->ypad1 + w->ypad3 + n->depth * o->frameheight;
	else
		y1 = w->height - w->ylegend - w->ypad2 - (n->depth + 1) * o->frameheight +
		     PROF_FLAME_FRAMEPAD;
	fill = frame_color(w, n, name, len);
	if (prof_flame_compact_wanted(w, n, x2 - x1, name, len)) {
		prof_flame_compact_add(w, n, h1, h2, fill);
		return;
	}
	a = write_frame_open(w, n, name, len);
	prof_buf_addstr(b, "<rect x=\"");
	prof_flame_add_hundredths(b, h1);
	prof_buf_addstr(b, "\" y=\"");
	prof_flame_add_num(b, y1);
	prof_buf_addstr(b, "\" width=\"");
	prof_flame_add_hundredths(b, h2 - h1);
	prof_buf_addstr(b, "\" height=\"");
	prof_flame_add_num(b, o->frameheight - PROF_FLAME_FRAMEPAD);
	prof_buf_addstr(b, "\" fill=\"");
	prof_flame_add_hex(b, fill);
	/* labels white on dark fills (the class after fill: tests parse x..fill) */
	prof_buf_addstr(b, prof_flame_dark(fill) ? "\" class=\"dk\"/>" : "\"/>");
	write_label(w, n, name, len, h1, x2 - x1, y1);
	prof_buf_addstr(b, a && a->href ? "</a>\n" : "</g>\n");
	flush_some(w, 0);
}

static const char *graph_title(const struct prof_flame_writer *w)
{
	const struct prof_flame_opts *o = w->o;

	if (o->title)
		return o->title;
	if (w->g->diff)
		return o->inverted ? "Differential Icicle Graph" : "Differential Flame Graph";
	if (w->g->hotcold)
		return o->inverted ? "Hot/Cold Icicle Graph" : "Hot/Cold Flame Graph";
	return o->flamechart ? "Flame Chart" : o->inverted ? "Icicle Graph" : "Flame Graph";
}

/* The document up to the SVG's style sheet. */
static void write_prologue(struct prof_flame_writer *w, const char *title)
{
	const struct prof_flame_opts *o = w->o;
	struct prof_buf *b = &w->b;

	/* A fluid graph's script switches it to the window's width when it runs. */
	prof_flame_add_document_start(b, o->html, title, w->width, w->height);
	prof_buf_addstr(b, " xmlns=\"http://www.w3.org/2000/svg\" "
		       "xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n");
	prof_buf_addstr(b, "<!-- Flame graph drawn by profflame (proftools). Click a frame to zoom, "
		       "Ctrl-F to search. -->\n");
	if (o->notes) {
		prof_buf_addstr(b, "<!-- NOTES: ");
		prof_flame_add_comment_text(b, o->notes);
		prof_buf_addstr(b, " -->\n");
	}
	prof_buf_addf(b, "<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
		      "<stop stop-color=\"%s\" offset=\"5%%\"/><stop stop-color=\"%s\" "
		      "offset=\"95%%\"/></linearGradient></defs>\n", o->bg1, o->bg2);
	prof_flame_add_style(b, o);
}

void prof_flame_add_style(struct prof_buf *b, const struct prof_flame_opts *o)
{
	double fs = o->fontsize;

	prof_buf_addstr(b, "<style type=\"text/css\">\ntext{font-family:");
	prof_xml_escape(b, o->fonttype, strlen(o->fonttype));
	prof_buf_addstr(b, ";font-size:");
	prof_flame_add_num(b, fs);
	prof_buf_addstr(b, "px;fill:#000}\n"
		       "#search,#ignorecase{opacity:0.1;cursor:pointer}\n"
		       "#search:hover,#search.show,#ignorecase:hover,#ignorecase.show{opacity:1}\n"
		       "#searchbox input{box-sizing:border-box;width:100%;height:100%;margin:0;"
		       "padding:1px 4px;border:1px solid #aaa;border-radius:3px;background:#fff;"
		       "font-family:");
	prof_xml_escape(b, o->fonttype, strlen(o->fonttype));
	prof_buf_addstr(b, ";font-size:");
	prof_flame_add_num(b, fs);
	prof_buf_addstr(b, "px}\n#searchbox input.bad{background:#fdd}\n"
		       "#subtitle{text-anchor:middle;fill:#a0a0a0}\n#title{text-anchor:middle;font-size:");
	prof_flame_add_num(b, fs + 5);
	prof_buf_addstr(b, "px}\n#unzoom{cursor:pointer}\n"
		       "#frames>*:hover{stroke:#000;stroke-width:0.5;cursor:pointer}\n"
		       "#frames rect{rx:2px;ry:2px}\n#frames text{pointer-events:none}\n"
		       "#frames rect.dk~text{fill:#fff}\n"
		       ".hide{display:none}\n.parent{opacity:0.5}\n</style>\n");
}

/* Background, titles, legend, the details line and the buttons; opens the frames. */
static void write_head(struct prof_flame_writer *w)
{
	const struct prof_flame_opts *o = w->o;
	struct prof_buf *b = &w->b;
	const char *title = graph_title(w);
	double fs = o->fontsize;

	write_prologue(w, title);
	prof_buf_addstr(b, "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" "
		       "fill=\"url(#background)\"/>\n<text id=\"title\" x=\"50%\" y=\"");
	prof_flame_add_num(b, fs * 2);
	prof_buf_addstr(b, "\">");
	prof_xml_escape(b, title, strlen(title));
	prof_buf_addstr(b, "</text>\n");
	if (o->subtitle && *o->subtitle) {
		prof_buf_addstr(b, "<text id=\"subtitle\" x=\"50%\" y=\"");
		prof_flame_add_num(b, fs * 4);
		prof_buf_addstr(b, "\">");
		prof_xml_escape(b, o->subtitle, strlen(o->subtitle));
		prof_buf_addstr(b, "</text>\n");
	}
	if (w->g->diff)
		prof_flame_write_legend(w, w->height - w->ylegend / 2 + fs / 3);
	else if (w->g->hotcold)
		prof_flame_write_hotcold_legend(w, w->height - w->ylegend / 2 + fs / 3);
	prof_buf_addstr(b, "<text id=\"details\" x=\"10\" y=\"");
	prof_flame_add_num(b, w->height - w->ylegend - w->ypad2 / 2);
	prof_buf_addstr(b, "\"> </text>\n<text id=\"unzoom\" class=\"hide\" x=\"10\" y=\"");
	prof_flame_add_num(b, fs * 2);
	prof_buf_addstr(b, "\">Reset Zoom</text>\n<text id=\"search\" x=\"100%\" dx=\"-110\" y=\"");
	prof_flame_add_num(b, fs * 2);
	prof_buf_addstr(b, "\">Search</text>\n<text id=\"ignorecase\" x=\"100%\" dx=\"-26\" y=\"");
	prof_flame_add_num(b, fs * 2);
	prof_buf_addstr(b, "\">ic</text>\n<text id=\"matched\" class=\"hide\" x=\"100%\" dx=\"-110\" y=\"");
	prof_flame_add_num(b, w->height - w->ylegend - w->ypad2 / 2);
	prof_buf_addstr(b, "\"> </text>\n<g id=\"frames\">\n");
}

static void write_tail(struct prof_flame_writer *w)
{
	const struct prof_flame_opts *o = w->o;
	struct prof_buf *b = &w->b;
	double fh = o->frameheight;

	prof_buf_addstr(b, "</g>\n<script type=\"text/ecmascript\"><![CDATA[\nvar C = {pad: 10, refw: ");
	prof_flame_add_num(b, w->width);
	prof_buf_addf(b, ", fluid: %s, inv: %s, base: ", o->width > 0 ? "false" : "true",
		      o->inverted ? "true" : "false");
	if (o->inverted)
		prof_flame_add_num(b, w->ypad1 + w->ypad3);
	else
		prof_flame_add_num(b, w->height - w->ylegend - w->ypad2 - fh + PROF_FLAME_FRAMEPAD);
	prof_buf_addstr(b, ", step: ");
	prof_flame_add_num(b, o->inverted ? fh : -fh);
	prof_buf_addstr(b, ", ty: ");
	prof_flame_add_num(b, 3 + (fh - PROF_FLAME_FRAMEPAD) / 2);
	prof_buf_addstr(b, ", fs: ");
	prof_flame_add_num(b, o->fontsize);
	prof_buf_addf(b, ", fw: %.6g, sc: \"rgb(230,0,230)\", nametype: ", o->fontwidth);
	prof_flame_add_js_string(b, o->nametype);
	prof_buf_addstr(b, ", unit: ");
	prof_flame_add_js_string(b, o->countname);
	prof_flame_compact_write(w);
	prof_buf_addstr(b, "};\n");
	prof_buf_addstr(b, prof_flame_script);
	prof_buf_addstr(b, "profFlame(document.getElementById(\"frames\"), C);\n]]></script>\n</svg>\n");
	if (o->html)
		prof_buf_addstr(b, "</body>\n</html>\n");
}

int prof_flame_write(const struct prof_flame_graph *g, const struct prof_stacks *t,
		     const struct prof_flame_opts *o, struct prof_output *out)
{
	struct prof_flame_writer w;
	size_t nf = prof_intern_count(&t->frames), i;

	memset(&w, 0, sizeof(w));
	w.g = g;
	w.t = t;
	w.o = o;
	w.out = out;
	w.colors = xmalloc((nf ? nf : 1) * sizeof(*w.colors));
	if (o->random) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		w.rng = ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)ts.tv_nsec ^
			((uint64_t)getpid() << 48);
	}
	memset(w.colors, 0xff, (nf ? nf : 1) * sizeof(*w.colors));
	w.width = o->width > 0 ? o->width : PROF_FLAME_FLUID_WIDTH;
	w.ypad1 = o->fontsize * 3;
	w.ypad2 = o->fontsize * 2 + 10;
	w.ypad3 = o->subtitle && *o->subtitle ? o->fontsize * 2 : 0;
	w.ylegend = g->diff || g->hotcold ? o->fontsize * 2 : 0;
	w.height = (g->depthmax + 1) * o->frameheight + w.ypad1 + w.ypad2 + w.ypad3 + w.ylegend;
	w.wpt = (w.width - 2 * PROF_FLAME_XPAD) / g->timemax;
	write_head(&w);
	for (i = 0; i < g->n && w.r == 0; i++)
		write_frame(&w, &g->nodes[i]);
	write_tail(&w);
	flush_some(&w, 1);
	prof_buf_release(&w.b);
	free(w.colors);
	free(w.compact);
	return w.r;
}

int prof_flame_write_file(const struct prof_flame_graph *g, const struct prof_stacks *t,
			  struct prof_flame_opts *o, const char *path, const char *palfile,
			  const char *nameattr_file)
{
	struct prof_flame_palmap palmap;
	struct prof_flame_nameattr nameattr;
	struct prof_output *out;
	int rval = 0;

	prof_flame_palmap_init(&palmap);
	if (palfile) {
		if (prof_flame_palmap_load(&palmap, palfile))
			rval = -1;
		o->palmap = &palmap;
	}
	if (nameattr_file) {
		if (prof_flame_nameattr_load(&nameattr, nameattr_file))
			rval = -1;
		o->nameattr = &nameattr;
	}
	out = prof_output_open(path, PROF_OUT_ATOMIC,
			       path ? prof_compression_from_suffix(path) : PROF_COMP_NONE);
	if (!out) {
		rval = -1;
	} else if (prof_flame_write(g, t, o, out)) {
		prof_output_abort(out);
		rval = -1;
	} else if (prof_output_close(out)) {
		rval = -1;
	} else if (palfile && prof_flame_palmap_save(&palmap, palfile)) {
		rval = -1;
	}
	if (nameattr_file)
		prof_flame_nameattr_release(&nameattr);
	prof_flame_palmap_release(&palmap);
	o->palmap = NULL;
	o->nameattr = NULL;
	return rval;
}

int prof_flame_font_ok(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      strchr(" ,-_.'", c) || c >= 0x80))
			return 0;
	}
	return 1;
}
