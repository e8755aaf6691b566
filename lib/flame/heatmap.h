#ifndef PROF_FLAME_HEATMAP_H
#define PROF_FLAME_HEATMAP_H
/*
 * The subsecond heat map drawn (FlameScope's layout): one column per
 * second, one row per bucket of the second (offset 0 at the top), each
 * cell coloured by its weight on a white-to-red scale, with axis labels,
 * a colour scale and a tooltip per cell (its time range, samples and
 * weight), drawn by the document's script when the pointer is over it:
 * the cells are a path per colour, not an element each (heatmap_cells.c),
 * so that hours of cells make a small page. The cells are a struct
 * prof_heatmap (formats/heatmap.h): read back from proffold --heatmap's
 * TSV (schema proffold-heatmap) here, or computed from a recording by
 * formats/heatmap.h.
 *
 *     struct prof_heatmap hm;
 *     struct prof_meta meta = PROF_META_INIT;
 *     struct prof_flame_heatmap_opts o;
 *
 *     if (prof_flame_heatmap_read_tsv("hm.tsv", &hm, &meta) == 0) {
 *             prof_flame_heatmap_opts_init(&o);
 *             o.event = prof_meta_get(&meta, "event");
 *             o.unit = prof_meta_get(&meta, "unit");
 *             prof_flame_heatmap_write_file(&hm, &o, "hm.svg");
 *     }
 *     prof_heatmap_release(&hm); prof_meta_release(&meta);
 *
 * Every text (event, unit, titles) is XML-escaped.
 *
 * The HTML form of a heat map drawn from a recording (profrec TSV, perf
 * script text), not from a TSV, lets the user select a range of cells,
 * FlameScope's way (a first cell, then a last, in time order), and draws
 * the flame graph of exactly that time range in the page, stating the
 * equivalent `proffold --time-from A --time-to B FILE | profflame`: the
 * cells' stacks are written into the page once, aggregated per cell, and
 * its script sums a range's cells (heatmap_page.c).
 */
#include "core/meta.h"
#include "formats/heatmap.h"

struct prof_output;
struct prof_flame_opts;

struct prof_flame_heatmap_opts {
	const char *title;	/* NULL: "Subsecond Heat Map" */
	const char *subtitle;	/* NULL or "": none */
	const char *event;	/* shown under the title; NULL: none */
	const char *unit;	/* of the weights: "ns" shows ms; NULL: "samples" */
	double fontsize;	/* 12 */
	const char *fonttype;	/* "Verdana" (checked by prof_flame_font_ok()) */
	int html;		/* an HTML page around the SVG */
	/*
	 * The HTML page's range selection: the table the heat map's cell
	 * stacks refer to (NULL: cells without stacks, from a TSV; no
	 * selection), the range flame graph's options (colours, fonts,
	 * frame height, minimum width, countname), and the recording's name
	 * in the command line the page states (NULL: standard input).
	 */
	const struct prof_stacks *stacks;
	const struct prof_flame_opts *flame;
	const char *input;
};

void prof_flame_heatmap_opts_init(struct prof_flame_heatmap_opts *o);

/*
 * Read a proffold-heatmap TSV (path; NULL or "-": standard input) into hm
 * (initialised here, released by the caller with prof_heatmap_release()
 * whatever the result) and its "# key=value" metadata into meta: the
 * bucket is the metadata's bucket_ms, else the smallest offset_ms step.
 * Rows of an event other than the first row's are skipped (a note).
 * Returns 0; -1 if rows were malformed (reported as file:line, the
 * others kept); -2 if the input could not be read, has no
 * proffold-heatmap header or no row (reported): nothing to draw.
 */
int prof_flame_heatmap_read_tsv(const char *path, struct prof_heatmap *hm,
				struct prof_meta *meta);

/*
 * Write hm (bucket_ns, per_second, seconds, cells) as an SVG, or an HTML
 * page with o->html, to out. Returns 0, or -1 on a write error
 * (reported by io/output.h).
 */
int prof_flame_heatmap_write(const struct prof_heatmap *hm,
			     const struct prof_flame_heatmap_opts *o, struct prof_output *out);

/*
 * prof_flame_heatmap_write() to path (NULL: stdout; replaced atomically;
 * .gz, .zst and .lz4 compressed). Returns 0, or -1 (reported; an
 * existing path is left as it was).
 */
int prof_flame_heatmap_write_file(const struct prof_heatmap *hm,
				  const struct prof_flame_heatmap_opts *o, const char *path);

/*
 * profflame --heatmap: read input (NULL or "-": standard input): a
 * proffold-heatmap TSV (its header tells), else a recording that
 * formats/profile.h reads (profrec TSV, perf script text), placed in
 * buckets of bucket_ns (0: PROF_HEATMAP_DEFAULT_BUCKET_NS; a TSV keeps
 * its own); and write its heat map to output (as _write_file()), with
 * the title, subtitle, fonts and HTML choice of the flame graph options
 * fo, which also draw a recording's range flame graphs. Returns 0, or -1
 * if anything failed (reported; malformed rows or lines are reported and
 * the rest drawn).
 */
int prof_flame_heatmap_file(const char *input, const struct prof_flame_opts *fo,
			    uint64_t bucket_ns, const char *output);

#endif
