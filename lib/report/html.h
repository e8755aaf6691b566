#ifndef PROF_REPORT_HTML_H
#define PROF_REPORT_HTML_H
/*
 * The pieces of proftools' HTML report (profreport(1)): one
 * self-contained page, no network, no external file, that opens
 * straight from disk. Every text that comes from data (function names,
 * commands, file contents) goes through base/escape.h, so a name such as
 * "<script>" is shown, never run.
 *
 * Flame graphs are embedded as iframes whose data: URL holds the whole SVG:
 * each keeps its own script (zoom, search) in its own document, so
 * several graphs on one page do not share names.
 */
#include <stddef.h>

struct prof_lines;
struct prof_output;
struct prof_meta;
struct prof_table;

/* The document head (title escaped), the page's style and script, <body>. */
void prof_html_begin(struct prof_output *o, const char *title);

/* </body></html>. */
void prof_html_end(struct prof_output *o);

/* s[0..len) escaped for HTML text. */
void prof_html_text(struct prof_output *o, const char *s, size_t len);

/* <section id=ID><hN>TITLE</hN>; closed by prof_html_section_end(). */
void prof_html_section(struct prof_output *o, const char *id, int level, const char *title);
void prof_html_section_end(struct prof_output *o);

/* A paragraph of escaped text, with a class (may be NULL). */
void prof_html_para(struct prof_output *o, const char *cls, const char *text);

/*
 * The lines of lr as preformatted escaped text (a leak summary, a log),
 * streamed: one line held at a time (io/input.h caps it). Writes nothing
 * and returns 0 when lr has no line; returns 1 otherwise.
 */
int prof_html_pre(struct prof_output *o, struct prof_lines *lr);

/*
 * The pairs of meta as a two-column table (key, decoded value); keys in
 * the order given by keys (NULL-terminated; NULL: every key in meta's
 * order). Absent keys are skipped.
 */
void prof_html_meta(struct prof_output *o, const struct prof_meta *m, const char *const *keys);

/*
 * A table of t's columns and its first max_rows rows (0: all), numbers
 * right-aligned; when rows are left out, a last line says how many.
 */
void prof_html_table(struct prof_output *o, const struct prof_table *t, size_t max_rows);

/*
 * An SVG document (svg[0..len), as profflame writes it) in an iframe (srcdoc) as
 * tall as the SVG says it is; title names the frame for screen readers.
 */
void prof_html_svg_frame(struct prof_output *o, const char *title, const char *svg, size_t len);

/*
 * An HTML page (html[0..len), such as profflame's heat map page) in an
 * iframe as its srcdoc, as tall as the page's first <svg> plus height
 * (what its script draws below; just height without an <svg>): its script runs in its own
 * document (sandbox allow-scripts), under this page's policy (no
 * network). title names the frame for screen readers.
 */
void prof_html_page_frame(struct prof_output *o, const char *title, const char *html, size_t len,
			  int height);

#endif
