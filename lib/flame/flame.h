#ifndef PROF_FLAME_H
#define PROF_FLAME_H
/*
 * Flame graphs: a stack table (core/stack.h) laid out as frames and
 * written as one self-contained interactive SVG (or an HTML page holding
 * it), drawing what FlameGraph's flamegraph.pl draws. The folder:
 *
 *   flame.h      this overview and the pipeline below
 *   stacks.c     the stacks drawn: reading them, a flame chart's input
 *                order (prof_flame_seq), rewrites through core/transform.h
 *   inputs.c     a tool's operands: profiles, a --diff or --hot-cold pair
 *   differential.c  two-count input: two profiles in one table,
 *                normalising, the legend
 *   hotcold.c    hot/cold input: on-CPU and off-CPU time in one table,
 *                their colours, tooltip split and legend
 *   heatmap.h    the subsecond heat map (FlameScope) drawn: heatmap.c
 *   layout.c     stacks -> frames (x = cumulative weight, depth)
 *   svg.c        frames -> SVG/HTML markup; svg_format.c its numbers
 *                and strings; script.c the embedded script; compact.c
 *                the frames narrower than --compact-width, a table in
 *                the script's constants rather than elements
 *   palette.h    colours (flamegraph.pl's palettes, value for value)
 *   palmap.h     the consistent palette file (--cp)
 *   nameattr.h   per-function attributes (--nameattr)
 *   internal.h   what those files share, private to the folder
 *
 * The pipeline:
 *   prof_flame_read_profiles()  any profile (formats/profile.h) -> a table
 *                   with 2 weight columns, and the input order for a
 *                   flame chart; prof_flame_read_diff(): two profiles
 *   prof_flame_transform()  optional rewrites (reverse, base, chain)
 *   prof_flame_layout()     table -> frames
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
 * Hot/cold input (on-CPU, off-CPU time: columns 0 and 1): widths are the
 * sum; each frame carries its on-CPU total (inclusive) in delta, so its
 * off-CPU total is width - delta. A frame mostly on-CPU is drawn in warm
 * colours, one mostly off-CPU in cool ones.
 *
 * Output safety: every name goes through escape.h (XML-escaped, control
 * characters and invalid UTF-8 replaced), labels are cut on character
 * boundaries, and the embedded script only ever sets textContent.
 */
#include <stddef.h>
#include <stdint.h>
#include "core/meta.h"
#include "core/stack.h"
#include "core/transform.h"
#include "flame/nameattr.h"
#include "flame/palette.h"
#include "flame/palmap.h"

struct prof_output;

/* ---- the stacks drawn (stacks.c) ------------------------------------- */

/* Input order of a flame chart: one entry per folded line or sample. */
struct prof_flame_seq {
	uint32_t *ids;		/* stack id of each line */
	double *w;		/* 2 weights per line (before/after or count/0) */
	size_t n, cap;
};

void prof_flame_seq_release(struct prof_flame_seq *s);

/*
 * Append one line to the sequence ctx (a struct prof_flame_seq *): its
 * stack id and its nw (1 or 2) weights. Shaped as the on_stack callback
 * of the readers (formats/profile.h, formats/folded.h).
 */
void prof_flame_seq_on_stack(void *ctx, uint32_t id, const prof_weight *w, int nw);

/*
 * Read paths[0..n) (n == 0: standard input), any format that
 * formats/profile.h reads (folded stacks, profrec TSV, perf script text),
 * into t, which must have 2 weight columns, and meta (empty; it receives
 * what the inputs' metadata agree on: unit, event, ...). *ncounts is set
 * to 2 if the input is differential ("stack BEFORE AFTER" lines, AFTER in
 * column 1), else 1: then column 1 means nothing (perf script marks its
 * zero-period samples there). With seq (a flame chart) every folded line
 * or sample is also appended to it in input order.
 * Returns 0; -1 if lines were malformed (reported and skipped, the rest
 * is in t); -2 if an input could not be opened or read (reported): a
 * graph of the others would be a wrong picture, draw nothing.
 */
int prof_flame_read_profiles(const char *const *paths, size_t n, struct prof_stacks *t,
			     struct prof_meta *meta, struct prof_flame_seq *seq, int *ncounts);

/*
 * Rewrite t in place through x (core/transform.h: --reverse is x->reverse,
 * --base x->base, --colors=chain x->tag_wakers). seq (NULL: none) follows:
 * its ids are remapped and lines whose stack was dropped are removed.
 * Returns the number of stacks kept.
 */
size_t prof_flame_transform(struct prof_stacks *t, const struct prof_transform *x,
			    struct prof_flame_seq *seq);

/* ---- differential input (differential.c) ------------------------------- */

/*
 * Read two profiles, BEFORE and AFTER, as prof_flame_read_profiles()
 * does, into t's weight columns 0 and 1 (t has 2 columns); meta receives
 * both inputs' metadata. An input that is already differential is
 * reported. Returns 0, -1 (malformed lines, the rest kept) or -2 (an
 * input unreadable or differential: draw nothing).
 */
int prof_flame_read_diff(const char *before, const char *after, struct prof_stacks *t,
			 struct prof_meta *meta);

/*
 * Scale the BEFORE column (0) of t, and of seq if not NULL, so that its
 * sum equals the AFTER column's (1) (--normalize). Nothing changes when
 * either sum is zero. Returns nonzero if it scaled.
 */
int prof_flame_normalize(struct prof_stacks *t, struct prof_flame_seq *seq);

/* ---- hot/cold input (hotcold.c) --------------------------------------- */

/* The events a hot/cold graph draws from one recording. */
#define PROF_FLAME_ON_CPU_EVENT "cpu-clock"
#define PROF_FLAME_OFF_CPU_EVENT "offcpu-time"

/*
 * Read on-CPU time into t's column 0 and off-CPU time into column 1 (t
 * has 2 columns): with n == 1, paths[0] is one recording holding both
 * events (profrec TSV or perf script text), folded twice, for
 * PROF_FLAME_ON_CPU_EVENT and PROF_FLAME_OFF_CPU_EVENT; with n == 2,
 * paths[0] is the on-CPU profile and paths[1] the off-CPU one (any
 * format, each its first event). meta receives what both sides agree on.
 * Refused (reported, -2): n not 1 or 2, standard input ("-": it cannot be
 * read twice), an input unreadable or differential, a side with no
 * stack, and sides whose units differ (time against bytes means nothing).
 * Returns 0, -1 (malformed lines reported, the rest kept) or -2.
 */
int prof_flame_read_hotcold(const char *const *paths, size_t n, struct prof_stacks *t,
			    struct prof_meta *meta);

struct prof_flame_opts;

/*
 * Read a tool's operands paths[0..n) into t as o asks: with o->hotcold
 * through prof_flame_read_hotcold(), with diff_files (--diff) and two
 * paths through prof_flame_read_diff() (then, and for a hot/cold pair,
 * o->diff_before and o->diff_after name them for the legend), else
 * through prof_flame_read_profiles() (seq as there). *diff says whether
 * t is differential. Returns as prof_flame_read_profiles() (inputs.c).
 */
int prof_flame_read_inputs(const char *const *paths, size_t n, int diff_files,
			   struct prof_stacks *t, struct prof_meta *meta, struct prof_flame_seq *seq,
			   struct prof_flame_opts *o, int *diff);

/* ---- layout (layout.c) -------------------------------------------------- */

/* Rendering options; prof_flame_opts_init() sets flamegraph.pl's defaults. */
struct prof_flame_opts {
	const char *title;	/* NULL: "Flame Graph", "Icicle Graph", "Flame Chart" */
	const char *subtitle;	/* NULL or "": none */
	double width;		/* image width in px; 0: fluid (fills the window) */
	double frameheight;	/* 16 */
	double fontsize;	/* 12 */
	double fontwidth;	/* 0.59, average glyph width / fontsize */
	const char *fonttype;	/* "Verdana" (prof_flame_font_ok() by the caller) */
	double minwidth;	/* 0.1 */
	double compactwidth;	/* 1: narrower frames in the compact table (0: none) */
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
	int hotcold;		/* columns on-CPU, off-CPU: widths their sum */
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

/*
 * Set o's minimum frame width from arg: pixels ("0.5") or a percentage of
 * the total ("0.5%"). Returns 0, or -1 if arg is neither (o unchanged).
 */
int prof_flame_minwidth_parse(struct prof_flame_opts *o, const char *arg);

/* One drawn frame. depth 0 is the root "all" (frame UINT32_MAX). */
struct prof_flame_node {
	uint32_t frame;
	uint32_t depth;
	double start;		/* cumulative weight before it */
	double width;		/* its weight */
	double delta;		/* differential: self delta; hot/cold: on-CPU total */
};

/* Laid-out frames: what prof_flame_layout() produced. */
struct prof_flame_graph {
	struct prof_flame_node *nodes;	/* in drawing order: children close first */
	size_t n, cap;
	double sum;		/* total weight of the input */
	double timemax;		/* 100% width: max(sum, opts total) */
	double maxdelta;	/* largest |after - before| of one stack (>= 1) */
	int diff;		/* differential input */
	int hotcold;		/* hot/cold input (o->hotcold) */
	unsigned depthmax;	/* deepest frame drawn */
	unsigned long pruned;	/* frames narrower than minwidth */
	unsigned long too_deep;	/* frames deeper than maxdepth */
};

/*
 * Lay out t (2 weight columns; diff says whether column 0 is "before" and
 * column 1 "after", else column 0 is the weight). With seq (a flame chart)
 * the lines are taken in input order without merging non-adjacent
 * stacks; without, the unique stacks are sorted. With o->hotcold (diff
 * 0, no seq) widths are the sum of both columns. Returns 0, or -1 when
 * the total weight is zero (nothing to draw; nothing reported). g is
 * filled either way and released with prof_flame_graph_release().
 */
int prof_flame_layout(struct prof_flame_graph *g, const struct prof_stacks *t,
		      const struct prof_flame_seq *seq, int diff,
		      const struct prof_flame_opts *o);

void prof_flame_graph_release(struct prof_flame_graph *g);

/* ---- writing (svg.c) ---------------------------------------------------- */

/*
 * Write g (laid out from t) as SVG, or HTML with o->html, to out. Colours
 * drawn from the consistent palette are added to o->palmap. Returns 0 or
 * -1 (write error, reported by output.h).
 */
int prof_flame_write(const struct prof_flame_graph *g, const struct prof_stacks *t,
		     const struct prof_flame_opts *o, struct prof_output *out);

/*
 * prof_flame_write() to path (NULL: stdout; replaced atomically, .gz,
 * .zst and .lz4 compressed), with the consistent palette palfile
 * (palmap.h; NULL: none) and the attributes of nameattr_file (nameattr.h;
 * NULL: none) read first and the palette written back after; o->palmap
 * and o->nameattr are used meanwhile and left NULL. Returns 0, or -1 if
 * anything failed (reported): a bad line in a file read first is
 * reported and the graph still written; a failed write leaves an
 * existing path as it was.
 */
int prof_flame_write_file(const struct prof_flame_graph *g, const struct prof_stacks *t,
			  struct prof_flame_opts *o, const char *path, const char *palfile,
			  const char *nameattr_file);

/*
 * Whether name can be the font family (it goes into CSS): letters,
 * digits, spaces, non-ASCII and , - _ . ' only, not empty.
 */
int prof_flame_font_ok(const char *name);

#endif
