#ifndef PROF_FLAME_INTERNAL_H
#define PROF_FLAME_INTERNAL_H
/*
 * Private to lib/flame: what its files share and no caller needs.
 * Include flame/flame.h, never this, from outside the folder.
 */
#include <stddef.h>
#include <stdint.h>
#include "base/buf.h"
#include "flame/flame.h"

/* A colour 0xRRGGBB from components 0..255. */
#define PROF_RGB(r, g, b) (((uint32_t)(r) << 16) | ((uint32_t)(g) << 8) | (uint32_t)(b))

/* flamegraph.pl's geometry: side margin, gap under a frame, fluid width. */
#define PROF_FLAME_XPAD 10.0
#define PROF_FLAME_FRAMEPAD 1.0
#define PROF_FLAME_FLUID_WIDTH 1200.0

/*
 * qsort_r() comparator of uint32_t ids of the strings of ctx (a struct
 * prof_intern *): byte order, a prefix first.
 */
int prof_flame_compare_names(const void *a, const void *b, void *ctx);

/* A frame written in the compact table (compact.c), not as an element. */
struct prof_flame_compact {
	size_t node;		/* index in g->nodes */
	long long h1, h2;	/* x and x + width in hundredths of a pixel */
	uint32_t fill;
};

/* The state of one prof_flame_write() (svg.c), shared with the legend. */
struct prof_flame_writer {
	const struct prof_flame_graph *g;
	const struct prof_stacks *t;
	const struct prof_flame_opts *o;
	struct prof_output *out;
	struct prof_buf b;	/* pending output, flushed every 64 KiB */
	uint32_t *colors;	/* frame id -> colour, UINT32_MAX unknown */
	uint64_t rng;		/* --random's generator */
	/*
	 * ypad1: title rows; ypad3: subtitle row; ypad2: details row below
	 * the frames; ylegend: the differential legend's row at the very
	 * bottom (so frames sit where flamegraph.pl puts them); height: all.
	 */
	double width, height, wpt, ypad1, ypad2, ypad3, ylegend;
	int r;			/* 0, or -1 after a write error */
	struct prof_flame_compact *compact;	/* frames in the compact table */
	size_t ncompact, capcompact;
};

/*
 * The compact table (compact.c): whether frame n, pxwidth pixels wide
 * (at the reference width), named name, goes in it rather than being an
 * element (narrower than o->compactwidth, not the root, not in a hot/cold
 * graph, no --nameattr attributes); adding it with its x range in
 * hundredths of a pixel and its colour; and writing the table as the
 * script's constants (", kw: ..., k: {...}"; nothing if it is empty).
 */
int prof_flame_compact_wanted(const struct prof_flame_writer *w, const struct prof_flame_node *n,
			      double pxwidth, const char *name, size_t len);
void prof_flame_compact_add(struct prof_flame_writer *w, const struct prof_flame_node *n,
			    long long h1, long long h2, uint32_t fill);
void prof_flame_compact_write(struct prof_flame_writer *w);

/* The differential legend at baseline y (differential.c). */
void prof_flame_write_legend(struct prof_flame_writer *w, double y);

/*
 * One swatch of a legend, fs square, filled with fill, and its text
 * (escaped) at baseline y, from *x, which advances past it (differential.c).
 */
void prof_flame_legend_item(struct prof_buf *b, double *x, double y, double fs, uint32_t fill,
			    const char *text);

/* Hot/cold (hotcold.c): the legend at baseline y, ... */
void prof_flame_write_hotcold_legend(struct prof_flame_writer *w, double y);
/* ... frame n's colour: warm when mostly on-CPU, cool when mostly off-CPU, ... */
uint32_t prof_flame_hotcold_color(const struct prof_flame_node *n, const char *name, size_t len);
/* ... and its tooltip's split: "; on-CPU A ms, off-CPU B ms" (or in countname). */
void prof_flame_add_hotcold_split(struct prof_buf *b, const struct prof_flame_node *n,
				  const struct prof_flame_opts *o);

/* Numbers and strings as the SVG writes them (svg_format.c). */
/* v rounded to hundredths, without trailing zeros ("12.5", "3"). */
void prof_flame_add_num(struct prof_buf *b, double v);
/* h hundredths (an exact integer count of 0.01) as prof_flame_add_num() writes them. */
void prof_flame_add_hundredths(struct prof_buf *b, long long h);
/* "%.0f" of v with thousands separators (flamegraph.pl's samples_txt). */
void prof_flame_add_count(struct prof_buf *b, double v);
/*
 * The document's start: for html, the HTML head titled title (escaped),
 * else the XML declaration; then the root element's opening tag up to
 * its size, `<svg version="1.1" width="W" height="H" viewBox="0 0 W H"`,
 * left open for the caller's namespaces. Always an intrinsic size and a
 * viewBox, so that an <img> (where no script runs) shows it all, scaled.
 */
void prof_flame_add_document_start(struct prof_buf *b, int html, const char *title, double width,
				   double height);
/* "#rrggbb" of colour c. */
void prof_flame_add_hex(struct prof_buf *b, uint32_t c);
/* A JSON string literal safe inside <script> and CDATA (no <, >, &). */
void prof_flame_add_js_string(struct prof_buf *b, const char *s);
/* The same of the len bytes at s. */
void prof_flame_add_js_string_len(struct prof_buf *b, const char *s, size_t len);
/* Text for an XML comment: escaped, with no "--" and no trailing "-". */
void prof_flame_add_comment_text(struct prof_buf *b, const char *s);

/*
 * The heat map page's range selection (heatmap_page.c), written after the
 * heat map's </svg> in its HTML form: with o->stacks, the cells' stacks
 * and the script drawing a selected range's flame graph; without, a note
 * that a heat map TSV has no stacks. Returns 0, or -1 on a write error.
 */
struct prof_heatmap;
struct prof_flame_heatmap_opts;
int prof_flame_heatmap_write_page(const struct prof_heatmap *hm,
				  const struct prof_flame_heatmap_opts *o, struct prof_output *out);

/*
 * The heat map's cells (heatmap_cells.c): the grid's top left corner,
 * a cell's size, the document's size and the heaviest cell's weight (> 0).
 */
struct prof_flame_heatmap_grid {
	double left, top, cw, ch, width, height, maxw;
};
/*
 * Write hm's cells (a path per colour in <g id="cells">), the table of
 * their tooltips and the script that shows a hovered cell's tooltip and
 * defines profHeatmap. Returns 0, or -1 on a write error.
 */
int prof_flame_heatmap_write_cells(const struct prof_heatmap *hm,
				   const struct prof_flame_heatmap_opts *o,
				   const struct prof_flame_heatmap_grid *g, struct prof_output *out);
/* The colour of a cell of weight fraction f in [0, 1]: white to dark red. */
uint32_t prof_flame_heatmap_color(double f);
/* A weight as a tooltip says it: "%.2f ms" for unit ns, else the count and unit (escaped). */
void prof_flame_heatmap_add_weight(struct prof_buf *b, double v, const char *unit);

/* Whether white labels read better than black ones on fill 0xRRGGBB (palette.c). */
int prof_flame_dark(uint32_t rgb);

/*
 * The style sheet of a flame graph (svg.c): <style> with fonts, buttons,
 * frames, hidden and faded frames (the heat map page's range graph too).
 */
void prof_flame_add_style(struct prof_buf *b, const struct prof_flame_opts *o);

/*
 * The script (script.c): the definition of profFlame(fr, C), which makes
 * the flame graph of frames group fr interactive with constants C.
 */
extern const char prof_flame_script[];

#endif
