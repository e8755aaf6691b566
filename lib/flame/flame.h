#ifndef PROF_FLAME_H
#define PROF_FLAME_H
/*
 * Flame graphs: folded stacks (stack.h's table) laid out as frames and
 * written as one self-contained interactive SVG (or an HTML page holding
 * it), drawing what FlameGraph's flamegraph.pl draws.
 *
 * The pipeline is:
 *   prof_flame_read()       folded lines -> table (+ input order for charts)
 *   prof_flame_transform()  optional stack rewrites (reverse, rebase, chain)
 *   prof_flame_layout()     table -> frames (x = cumulative weight, depth)
 *   prof_flame_write()      frames -> SVG/HTML through a prof_output
 *
 * Layout. Stacks are visited in order (sorted by frame name, parents'
 * stacks before their children's, siblings by name in byte order; or
 * input order for a flame chart) and consecutive stacks sharing a prefix
 * share frames, exactly flamegraph.pl's "flow" merge. Frames narrower than
 * the minimum width are dropped as they close, so memory holds only the
 * frames that are drawn, never one node per input frame.
 *
 * Differential input (two counts: before, after): widths are the second
 * count; each frame carries delta = after - before of the stacks that end
 * in it (its self delta), coloured red (grew) or blue (shrank) on a scale
 * of the largest per-stack |delta|, as flamegraph.pl does.
 *
 * Output safety: every name goes through escape.h (XML-escaped, control
 * characters and invalid UTF-8 replaced), labels are cut on character
 * boundaries, and the embedded script only ever sets textContent.
 */
#include <stddef.h>
#include <stdint.h>
#include "core/intern.h"
#include "core/meta.h"
#include "formats/folded.h"
#include "core/stack.h"

struct prof_lines;
struct prof_output;

/* Colour palettes (flamegraph.pl --colors). */
enum prof_flame_palette {
	PROF_PAL_HOT, PROF_PAL_MEM, PROF_PAL_IO, PROF_PAL_WAKEUP, PROF_PAL_CHAIN,
	PROF_PAL_JAVA, PROF_PAL_JS, PROF_PAL_PERL, PROF_PAL_RED, PROF_PAL_GREEN,
	PROF_PAL_BLUE, PROF_PAL_AQUA, PROF_PAL_YELLOW, PROF_PAL_PURPLE,
	PROF_PAL_ORANGE,
};

/*
 * Palette by name ("hot", "mem", ...). Returns 0 and sets *p, or -1 if
 * the name is unknown.
 */
int prof_flame_palette_parse(const char *name, enum prof_flame_palette *p);

/* The name of palette i (0, 1, ...: every palette in turn), NULL past the last. */
const char *prof_flame_palette_name(size_t i);

/* The default background gradient name for a palette ("yellow", ...). */
const char *prof_flame_palette_bg(enum prof_flame_palette p);

/*
 * Background by name: "yellow", "blue", "green", "grey" (gradients) or a
 * flat "#rrggbb". Sets the two gradient stops (7-byte "#rrggbb" strings
 * in c1, c2, each at least 8 bytes). Returns 0, or -1 if invalid.
 */
int prof_flame_bg_parse(const char *name, char *c1, char *c2);

/*
 * A consistent palette (flamegraph.pl --cp): "name->rgb(r,g,b)" lines
 * mapping function names to colours, read before drawing and written back
 * (sorted by name, atomically) with the colours of every drawn frame.
 */
struct prof_flame_palmap {
	struct prof_intern names;
	uint32_t *rgb;		/* name id -> 0xRRGGBB */
	size_t cap;
};

/* Empty map. */
void prof_flame_palmap_init(struct prof_flame_palmap *m);

/*
 * Load path into m; a missing file is an empty map. Malformed lines are
 * reported as "prog: path:line: ..." and make it return -1 (valid lines
 * are kept). Returns 0 or -1.
 */
int prof_flame_palmap_load(struct prof_flame_palmap *m, const char *path);

/* Write m to path (atomic replace). Returns 0 or -1 (reported). */
int prof_flame_palmap_save(const struct prof_flame_palmap *m, const char *path);

void prof_flame_palmap_release(struct prof_flame_palmap *m);

/*
 * Per-function frame attributes (flamegraph.pl --nameattr): lines of
 * "NAME<TAB>key=value<TAB>key=value...". "title" replaces the tooltip,
 * "href" (and "target", default "_top") wraps the frame in a link, any
 * other key becomes an attribute of the frame's <g> (keys must be XML
 * names; values are escaped).
 */
struct prof_flame_nameattr {
	struct prof_intern names;
	char **title;		/* name id -> tooltip or NULL */
	char **href;		/* name id -> escaped link or NULL */
	char **target;		/* name id -> escaped target or NULL */
	char **gattrs;		/* name id -> ' k="v"...' or NULL */
	size_t cap;
};

/*
 * Load path. Returns 0, or -1 after reporting "prog: path:line: what" for
 * bad lines (the good ones are kept) or the open failure.
 */
int prof_flame_nameattr_load(struct prof_flame_nameattr *a, const char *path);

void prof_flame_nameattr_release(struct prof_flame_nameattr *a);

/* Input order of a flame chart: one entry per folded line. */
struct prof_flame_seq {
	uint32_t *ids;		/* stack id of each line */
	double *w;		/* 2 weights per line (before/after or count/0) */
	size_t n, cap;
};

void prof_flame_seq_release(struct prof_flame_seq *s);

/*
 * Read folded lines from lr into t, which must have 2 weight columns: a
 * single count goes to column 0, the differential form "stack A B" to
 * columns 0 and 1. The rules are lib's folded reader's (folded.h): the
 * first stack line over all calls sharing stats decides the form, bad
 * lines are reported and skipped, leading "#" metadata goes into meta
 * (may be NULL). When seq is not NULL every line is also appended to it
 * in input order. Returns 0, or -1 if a line was malformed or the input
 * failed.
 */
int prof_flame_read(struct prof_lines *lr, struct prof_stacks *t, struct prof_meta *meta,
		    struct prof_flame_seq *seq, struct prof_folded_stats *stats);

/*
 * A stack rewrite: given the frames of one stack, fill out (which has room
 * for depth * 2 + 1 frame ids) and return the new depth, or -1 to drop
 * the stack. It may intern new names into dst.
 */
typedef long (*prof_flame_rewrite_fn)(struct prof_stacks *dst, const struct prof_stacks *src,
				       const uint32_t *frames, size_t depth, uint32_t *out,
				       void *ctx);

/*
 * Rewrite every stack of src into dst (initialised empty by the caller,
 * same number of columns), adding weights where rewritten stacks
 * coincide. If seq is not NULL its stack ids are remapped to dst's and
 * lines whose stack was dropped are removed. Returns the number of stacks
 * kept.
 */
size_t prof_flame_transform(struct prof_stacks *dst, const struct prof_stacks *src,
			    prof_flame_rewrite_fn fn, void *ctx, struct prof_flame_seq *seq);

/* Rewrites for prof_flame_transform(). */
/* Leaf first instead of root first (--reverse). ctx unused. */
long prof_flame_rewrite_reverse(struct prof_stacks *dst, const struct prof_stacks *src,
				const uint32_t *frames, size_t depth, uint32_t *out, void *ctx);
/*
 * Keep only stacks containing one of the names in ctx (a struct
 * prof_flame_base), starting them at its first occurrence (--base).
 */
struct prof_flame_base {
	const char **names;
	size_t n;
};
long prof_flame_rewrite_base(struct prof_stacks *dst, const struct prof_stacks *src,
			     const uint32_t *frames, size_t depth, uint32_t *out, void *ctx);
/* Tag frames after a "--" frame with "_[w]" (waker stacks, --colors=chain). */
long prof_flame_rewrite_chain(struct prof_stacks *dst, const struct prof_stacks *src,
			      const uint32_t *frames, size_t depth, uint32_t *out, void *ctx);

/* Rendering options; prof_flame_opts_init() sets flamegraph.pl's defaults. */
struct prof_flame_opts {
	const char *title;	/* NULL: "Flame Graph", "Icicle Graph", "Flame Chart" */
	const char *subtitle;	/* NULL or "": none */
	double width;		/* image width in px; 0: fluid (fills the window) */
	double frameheight;	/* 16 */
	double fontsize;	/* 12 */
	double fontwidth;	/* 0.59, average glyph width / fontsize */
	const char *fonttype;	/* "Verdana" (checked by the caller: no CSS syntax) */
	double minwidth;	/* 0.1 */
	int minwidth_pct;	/* minwidth is a percentage of the total */
	const char *countname;	/* "samples" */
	const char *nametype;	/* "Function:" */
	enum prof_flame_palette palette;
	char bg1[8], bg2[8];	/* background gradient "#rrggbb" */
	int hash;		/* colours by name hash instead of name-seeded random */
	int inverted;		/* icicle graph: root at the top */
	int flamechart;		/* input order is time: title default only */
	int negate;		/* swap differential hues */
	const char *diff_before;	/* differential legend: BEFORE's and AFTER's */
	const char *diff_after;		/* file names, NULL: one two-count input */
	int random;		/* a random colour for each frame (not by name) */
	double factor;		/* counts shown multiplied by this (1) */
	double total;		/* > sum: the 100% width (0: the sum) */
	unsigned maxdepth;	/* frames deeper than this are not drawn */
	const char *notes;	/* NULL or text for an XML comment */
	int html;		/* write an HTML page around the SVG */
	struct prof_flame_palmap *palmap;	/* --cp map or NULL */
	struct prof_flame_nameattr *nameattr;	/* or NULL */
};

void prof_flame_opts_init(struct prof_flame_opts *o);

/* One drawn frame. depth 0 is the root "all" (frame UINT32_MAX). */
struct prof_flame_node {
	uint32_t frame;
	uint32_t depth;
	double start;		/* cumulative weight before it */
	double width;		/* its weight */
	double delta;		/* differential: self delta */
};

/* Laid-out frames: what prof_flame_layout() produced. */
struct prof_flame_graph {
	struct prof_flame_node *nodes;
	size_t n, cap;
	double sum;		/* total weight of the input */
	double timemax;		/* 100% width: max(sum, opts total) */
	double maxdelta;	/* largest |after - before| of one stack (>= 1) */
	int diff;		/* differential input */
	unsigned depthmax;	/* deepest frame drawn */
	unsigned long pruned;	/* frames narrower than minwidth */
	unsigned long too_deep;	/* frames deeper than maxdepth */
};

/*
 * Lay out t (2 weight columns; diff says whether column 0 is "before" and
 * column 1 "after", else column 0 is the weight). With seq (a flame chart)
 * the lines are taken in input order without merging non-adjacent
 * stacks; without, the unique stacks are sorted. Returns 0, or -1 when
 * the total weight is zero (nothing to draw; nothing reported).
 */
int prof_flame_layout(struct prof_flame_graph *g, const struct prof_stacks *t,
		      const struct prof_flame_seq *seq, int diff,
		      const struct prof_flame_opts *o);

void prof_flame_graph_release(struct prof_flame_graph *g);

/*
 * Write g as SVG (or HTML with o->html) to out. Colours drawn from the
 * consistent palette are added to o->palmap. Returns 0 or -1 (write error,
 * reported by output.h).
 */
int prof_flame_write(const struct prof_flame_graph *g, const struct prof_stacks *t,
		     const struct prof_flame_opts *o, struct prof_output *out);

/*
 * The colour flamegraph.pl gives name in palette p (0xRRGGBB): hot, mem
 * and io from the name-seeded random generator (or name hash with hash),
 * the multi palettes (java, js, perl, wakeup, chain) choosing a flat
 * palette from annotations and name patterns.
 */
uint32_t prof_flame_color(enum prof_flame_palette p, int hash, const char *name, size_t len);

/*
 * A random colour of palette p (flamegraph.pl --random): the multi
 * palettes still choose their flat palette by name, the shade is drawn
 * from the generator *state (any seed; advanced).
 */
uint32_t prof_flame_color_random(enum prof_flame_palette p, const char *name, size_t len,
				 uint64_t *state);

/*
 * Length of name without a trailing annotation _[k], _[i], _[j] or _[w]
 * (those only colour frames; labels and tooltips drop them).
 */
size_t prof_flame_deannotate(const char *name, size_t len);

#endif
