#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "base/escape.h"
#include "base/units.h"
#include "compare/table.h"
#include "core/meta.h"
#include "io/input.h"
#include "io/output.h"
#include "report/html.h"

/*
 * The page's own style and script: charts show the value under the
 * pointer (report/chart.h puts each chart's points, as JSON, in a
 * data-chart attribute: data the script parses, never code).
 */
static const char page_style[] =
"body{font:14px/1.4 system-ui,sans-serif;margin:0 auto;max-width:1240px;padding:0 16px;color:#222}\n"
"h1{font-size:22px;margin:18px 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ccc}\n"
"h3{font-size:15px;margin:16px 0 6px}nav a{margin-right:14px}\n"
"table{border-collapse:collapse;margin:6px 0;font-size:13px}\n"
"td,th{border:1px solid #ddd;padding:2px 8px;text-align:left;vertical-align:top}\n"
"td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:#f3f3f3}\n"
"pre{background:#f7f7f7;padding:8px;overflow:auto;font-size:12px;max-height:400px}\n"
"iframe{width:100%;border:1px solid #ccc}.note{color:#666}.alert{color:#b00;font-weight:bold}\n"
"svg.chart{display:block;margin:4px 0}svg.chart text{font:11px sans-serif;fill:#444}\n"
"svg.chart .hover{font-weight:bold;fill:#000}\n"
"table.summary th{width:150px}p.file{margin:-4px 0 4px;font:12px monospace;color:#888}\n"
"ol.findings li{margin:4px 0}ol.findings li.warn b{color:#b00}ol.findings li.info b{color:#135}\n";

static const char page_script[] =
"document.querySelectorAll('svg.chart').forEach(function (svg) {\n"
"  var data = JSON.parse(svg.querySelector('g.data').getAttribute('data-chart'));\n"
"  var label = svg.querySelector('.hover'), mark = svg.querySelector('.mark');\n"
"  svg.addEventListener('mousemove', function (e) {\n"
"    var r = svg.getBoundingClientRect(), x = (e.clientX - r.left) * data.w / r.width;\n"
"    var best = null, bd = 1e9;\n"
"    data.series.forEach(function (s) {\n"
"      s.p.forEach(function (p) { var d = Math.abs(p[0] - x); if (d < bd) { bd = d; best = [s, p]; } });\n"
"    });\n"
"    if (!best) return;\n"
"    mark.setAttribute('x1', best[1][0]); mark.setAttribute('x2', best[1][0]);\n"
"    mark.style.display = '';\n"
"    label.textContent = (best[0].name ? best[0].name + ': ' : '') + best[1][2] + ' at ' + best[1][3];\n"
"  });\n"
"  svg.addEventListener('mouseleave', function () { mark.style.display = 'none'; label.textContent = ''; });\n"
"});\n";

void prof_html_text(struct prof_output *o, const char *s, size_t len)
{
	struct prof_buf b = PROF_BUF_INIT;

	prof_xml_escape(&b, s, len);
	if (b.len)
		prof_output_write(o, b.data, b.len);
	prof_buf_release(&b);
}

static void text(struct prof_output *o, const char *s)
{
	prof_html_text(o, s, strlen(s));
}

void prof_html_begin(struct prof_output *o, const char *title)
{
	prof_output_puts(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
			    "<meta name=\"viewport\" content=\"width=device-width\">\n"
			    /* nothing from the network, scripts only our own inline ones */
			    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
			    "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; "
			    "frame-src 'self' about: data:\">\n<title>");
	text(o, title);
	prof_output_printf(o, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", page_style);
}

void prof_html_end(struct prof_output *o)
{
	prof_output_printf(o, "<script>\n%s</script>\n</body>\n</html>\n", page_script);
}

void prof_html_section(struct prof_output *o, const char *id, int level, const char *title)
{
	prof_output_puts(o, "<section id=\"");
	text(o, id);
	prof_output_printf(o, "\">\n<h%d>", level);
	text(o, title);
	prof_output_printf(o, "</h%d>\n", level);
}

void prof_html_section_end(struct prof_output *o)
{
	prof_output_puts(o, "</section>\n");
}

void prof_html_para(struct prof_output *o, const char *cls, const char *s)
{
	if (cls) {
		prof_output_puts(o, "<p class=\"");
		text(o, cls);
		prof_output_puts(o, "\">");
	} else {
		prof_output_puts(o, "<p>");
	}
	text(o, s);
	prof_output_puts(o, "</p>\n");
}

int prof_html_pre(struct prof_output *o, struct prof_lines *lr)
{
	size_t len;
	char *line = prof_lines_next(lr, &len);

	if (!line)
		return 0;
	prof_output_puts(o, "<pre>");
	do {
		prof_html_text(o, line, len);
		if (!prof_lines_unterminated(lr))
			prof_output_puts(o, "\n");
	} while ((line = prof_lines_next(lr, &len)));
	prof_output_puts(o, "</pre>\n");
	return 1;
}

void prof_html_meta(struct prof_output *o, const struct prof_meta *m, const char *const *keys)
{
	prof_output_puts(o, "<table class=\"meta\">\n");
	for (size_t i = 0; keys ? keys[i] != NULL : i < m->count; i++) {
		const char *k = keys ? keys[i] : m->keys[i], *v = prof_meta_get(m, k);

		if (!v)
			continue;
		prof_output_puts(o, "<tr><th>");
		text(o, k);
		prof_output_puts(o, "</th><td>");
		text(o, v);
		prof_output_puts(o, "</td></tr>\n");
	}
	prof_output_puts(o, "</table>\n");
}

static int is_number(const char *s)
{
	double v;

	return prof_parse_double(s, &v) == 0;
}

void prof_html_table(struct prof_output *o, const struct prof_table *t, size_t max_rows)
{
	size_t rows = max_rows && max_rows < t->nrows ? max_rows : t->nrows;

	prof_output_puts(o, "<table>\n<tr>");
	for (size_t c = 0; c < t->ncols; c++) {
		prof_output_puts(o, "<th>");
		text(o, t->cols[c]);
		prof_output_puts(o, "</th>");
	}
	prof_output_puts(o, "</tr>\n");
	for (size_t r = 0; r < rows; r++) {
		prof_output_puts(o, "<tr>");
		for (size_t c = 0; c < t->ncols; c++) {
			const char *cell = t->cells[r * t->ncols + c];

			prof_output_puts(o, is_number(cell) ? "<td class=\"n\">" : "<td>");
			text(o, cell);
			prof_output_puts(o, "</td>");
		}
		prof_output_puts(o, "</tr>\n");
	}
	prof_output_puts(o, "</table>\n");
	if (rows < t->nrows)
		prof_output_printf(o, "<p class=\"note\">%zu more row%s in the TSV file.</p>\n",
				   t->nrows - rows, t->nrows - rows == 1 ? "" : "s");
}

/* The height attribute of the root <svg> element, or 0. */
static int svg_height(const char *svg, size_t len)
{
	const char *tag = memmem(svg, len, "<svg", 4), *end, *h;

	if (!tag)
		return 0;
	end = memchr(tag, '>', len - (size_t)(tag - svg));
	h = end ? memmem(tag, (size_t)(end - tag), " height=\"", 9) : NULL;
	return h ? atoi(h + 9) : 0;
}

/*
 * s[0..len) as the inside of a single-quoted attribute: only & and '
 * escaped (an SVG's attributes are in double quotes: they stay as they are).
 */
static void attr_raw(struct prof_output *o, const char *s, size_t len)
{
	size_t from = 0;

	for (size_t i = 0; i < len; i++) {
		if (s[i] != '&' && s[i] != '\'')
			continue;
		prof_output_write(o, s + from, i - from);
		prof_output_puts(o, s[i] == '&' ? "&amp;" : "&#39;");
		from = i + 1;
	}
	prof_output_write(o, s + from, len - from);
}

void prof_html_svg_frame(struct prof_output *o, const char *title, const char *svg, size_t len)
{
	int height = svg_height(svg, len);
	const char *root = memmem(svg, len, "<svg", 4);

	/*
	 * The SVG in an HTML document of its own (srcdoc), its script in its
	 * own, opaque, origin. Not a data: URL: Chromium loads none longer
	 * than 2 MiB (its URL length limit), and a deep profile's graph is
	 * more (issue 24: the CPU section of a PyTorch run was an empty box).
	 * profflame's graphs work parsed as HTML (its --format html is that).
	 */
	if (root) {
		len -= (size_t)(root - svg);	/* the <?xml ...?> prolog means nothing in HTML */
		svg = root;
	}
	prof_output_puts(o, "<iframe title=\"");
	text(o, title);
	prof_output_printf(o, "\" height=\"%d\" sandbox=\"allow-scripts\" srcdoc='", height > 0 ? height + 24 : 600);
	/* its own tags as entities: the page keeps one literal <body> */
	prof_output_puts(o, "&lt;!DOCTYPE html>&lt;html>&lt;head>&lt;meta charset=\"utf-8\">"
			    "&lt;style>html,body{margin:0}svg{display:block}&lt;/style>&lt;/head>&lt;body>");
	attr_raw(o, svg, len);
	prof_output_puts(o, "&lt;/body>&lt;/html>'></iframe>\n");
}

void prof_html_page_frame(struct prof_output *o, const char *title, const char *html, size_t len,
			  int height)
{
	prof_output_puts(o, "<iframe title=\"");
	text(o, title);
	/* room under the page's first picture for what its script draws there */
	if (svg_height(html, len) > 0)
		height = svg_height(html, len) + height;
	prof_output_printf(o, "\" height=\"%d\" sandbox=\"allow-scripts\" srcdoc=\"", height);
	/*
	 * The page byte for byte as the attribute's value: only & and " need
	 * escaping there (and < > for old parsers); newlines stay, as the
	 * page's script needs them (prof_html_text makes them U+FFFD).
	 */
	for (size_t i = 0, run = 0; i <= len; i++) {
		const char *rep = i == len ? "" : html[i] == '&' ? "&amp;" : html[i] == '"' ? "&quot;" :
				  html[i] == '<' ? "&lt;" : html[i] == '>' ? "&gt;" : NULL;

		if (!rep)
			continue;
		if (i > run)
			prof_output_write(o, html + run, i - run);
		prof_output_puts(o, rep);
		run = i + 1;
	}
	prof_output_puts(o, "\"></iframe>\n");
}
