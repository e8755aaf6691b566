/*
 * profflame: a profile (folded stacks, profrec TSV, perf script text) ->
 * one self-contained interactive flame graph (SVG, or an HTML page
 * holding it). Reading, rewriting, layout and writing live in lib/flame
 * (flame.h); this file parses options and wires inputs to them.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "base/error.h"
#include "base/options.h"
#include "base/units.h"
#include "base/xalloc.h"
#include "core/meta.h"
#include "core/stack.h"
#include "core/transform.h"
#include "flame/flame.h"
#include "flame/heatmap.h"
#include "io/output.h"

static const char synopsis[] =
	"profflame [-hq] [-o file] [--format svg|html] [--title text]\n"
	"                 [--colors palette] [--width px] [--minwidth px|pct%]\n"
	"                 [--reverse] [--inverted] [--flamechart] [--diff] [options]\n"
	"                 [file ...]\n"
	"       profflame --hot-cold [options] RECORDING | ON-CPU OFF-CPU\n"
	"       profflame --heatmap [--bucket dur] [options] [RECORDING | HEATMAP.tsv]";

static const char help_text[] =
	"usage: profflame [-hq] [-o file] [--format svg|html] [--title text]\n"
	"                 [--colors palette] [--width px] [--minwidth px|pct%]\n"
	"                 [--reverse] [--inverted] [--flamechart] [--diff] [options]\n"
	"                 [file ...]\n"
	"       profflame --hot-cold [options] RECORDING | ON-CPU OFF-CPU\n"
	"       profflame --heatmap [--bucket dur] [options] [RECORDING | HEATMAP.tsv]\n"
	"\n"
	"Draw a profile as a self-contained interactive flame graph: folded stacks\n"
	"(\"a;b;c 42\", or \"a;b;c BEFORE AFTER\" for a differential), profrec TSV or\n"
	"perf script output. Reads the files, or stdin.\n"
	"\n"
	"Output:\n"
	"  -o, --output FILE      write FILE (replaced atomically; .gz/.zst/.lz4 compress),\n"
	"                         default stdout\n"
	"      --format FMT       svg (default) or html (default for -o *.html)\n"
	"  -q, --quiet            no notes on stderr\n"
	"Layout:\n"
	"      --title TEXT       title (default Flame Graph, Icicle Graph, Flame Chart)\n"
	"      --subtitle TEXT    second title line\n"
	"      --width PX         image width (default: fluid, fills the window)\n"
	"      --height PX        frame height (default 16)\n"
	"      --minwidth PX|PCT% omit frames narrower than PX pixels or PCT% of the\n"
	"                         total (default 0.1)\n"
	"      --max-depth N      draw at most N frames deep (default 2000)\n"
	"      --compact-width PX frames narrower than PX pixels (default 1) go in a\n"
	"                         compact table that the script draws, not in the markup;\n"
	"                         0: every frame an element, as flamegraph.pl\n"
	"      --fonttype FONT    font family (default Verdana)\n"
	"      --fontsize PX      font size (default 12)\n"
	"      --fontwidth R      average glyph width / font size (default 0.59)\n"
	"      --countname TEXT   what counts are (default: the input's unit, or samples)\n"
	"      --nametype TEXT    label of names in the details line (default Function:)\n"
	"      --factor F         multiply counts by F in tooltips\n"
	"      --total N          the 100% width, when larger than the sum of counts\n"
	"      --notes TEXT       embed TEXT in an XML comment\n"
	"      --encoding UTF-8   accepted for flamegraph.pl; the SVG is always UTF-8\n"
	"Colours:\n"
	"      --colors PALETTE   hot (default), mem, io, wakeup, chain, java, js, perl,\n"
	"                         red, green, blue, aqua, yellow, purple, orange\n"
	"      --bgcolors COLOR   yellow, blue, green, grey or #rrggbb\n"
	"      --hash             colour by a hash of the name\n"
	"      --random           a random colour for every frame\n"
	"      --cp               consistent palette: reuse and update palette.map\n"
	"      --palette-file F   consistent palette kept in F (implies --cp)\n"
	"      --nameattr FILE    per-function attributes (NAME<TAB>key=value...)\n"
	"Stacks:\n"
	"      --reverse          leaf first: merge stacks from their leaves\n"
	"      --inverted         icicle graph: root at the top\n"
	"      --flamechart       input order is time: no sorting, only adjacent merging\n"
	"      --base FUNC        root the graph at FUNC (stacks without it dropped)\n"
	"Differential (red grew, blue shrank; widths are AFTER):\n"
	"      --diff             two profiles BEFORE AFTER, or one two-count input\n"
	"  -n, --normalize        scale BEFORE to AFTER's total first\n"
	"      --negate           swap the hues\n"
	"Hot/cold (on-CPU warm, off-CPU cool; widths are on-CPU + off-CPU time):\n"
	"      --hot-cold         one recording of cpu-clock and offcpu-time (profrec\n"
	"                         -e cpu-clock --off-cpu), or two profiles ON-CPU OFF-CPU\n"
	"                         in the same unit\n"
	"Subsecond heat map (FlameScope: a column per second, a row per bucket):\n"
	"      --heatmap          draw a recording's heat map, or proffold --heatmap's TSV;\n"
	"                         as html, a selected range's flame graph below it\n"
	"      --bucket DUR       a recording's heat map bucket, dividing 1s (default 20ms)\n"
	"  -h, --help             this help\n"
	"\n"
	"In the graph: click to zoom, Reset Zoom to go back, the search field (Ctrl-F)\n"
	"takes a regular expression (\"ic\" toggles case), zoom and search are kept in\n"
	"the URL.\n"
	PROF_MAX_LINE_HELP
	"Exit status: 0 ok, 1 failure or bad input lines (the rest drawn), 2 usage error.\n";

enum {
	OPT_BASE = 0x100, OPT_BGCOLORS, OPT_BUCKET, OPT_COLORS, OPT_COMPACT, OPT_COUNTNAME, OPT_CP, OPT_DIFF,
	OPT_ENCODING, OPT_FACTOR, OPT_FLAMECHART, OPT_FONTSIZE, OPT_FONTTYPE, OPT_FONTWIDTH, OPT_FORMAT,
	OPT_HASH, OPT_HEATMAP, OPT_HEIGHT, OPT_HOTCOLD, OPT_INVERTED, OPT_MAXDEPTH, OPT_MINWIDTH, OPT_NAMEATTR,
	OPT_NAMETYPE, OPT_NEGATE, OPT_NOTES, OPT_PALFILE, OPT_RANDOM, OPT_REVERSE, OPT_SUBTITLE,
	OPT_TITLE, OPT_TOTAL, OPT_WIDTH,
};

static const struct option longopts[] = {
	{ "base", required_argument, NULL, OPT_BASE },
	{ "bgcolors", required_argument, NULL, OPT_BGCOLORS },
	{ "bucket", required_argument, NULL, OPT_BUCKET },
	{ "colors", required_argument, NULL, OPT_COLORS },
	{ "compact-width", required_argument, NULL, OPT_COMPACT },
	{ "countname", required_argument, NULL, OPT_COUNTNAME },
	{ "cp", no_argument, NULL, OPT_CP },
	{ "diff", no_argument, NULL, OPT_DIFF },
	{ "encoding", required_argument, NULL, OPT_ENCODING },
	{ "factor", required_argument, NULL, OPT_FACTOR },
	{ "flamechart", no_argument, NULL, OPT_FLAMECHART },
	{ "fontsize", required_argument, NULL, OPT_FONTSIZE },
	{ "fonttype", required_argument, NULL, OPT_FONTTYPE },
	{ "fontwidth", required_argument, NULL, OPT_FONTWIDTH },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "hash", no_argument, NULL, OPT_HASH },
	{ "heatmap", no_argument, NULL, OPT_HEATMAP },
	{ "height", required_argument, NULL, OPT_HEIGHT },
	{ "help", no_argument, NULL, 'h' },
	{ "hot-cold", no_argument, NULL, OPT_HOTCOLD },
	{ "inverted", no_argument, NULL, OPT_INVERTED },
	{ "list-options", no_argument, NULL, PROF_OPT_LIST_OPTIONS },
	{ "max-depth", required_argument, NULL, OPT_MAXDEPTH },
	{ "minwidth", required_argument, NULL, OPT_MINWIDTH },
	{ "nameattr", required_argument, NULL, OPT_NAMEATTR },
	{ "nametype", required_argument, NULL, OPT_NAMETYPE },
	{ "negate", no_argument, NULL, OPT_NEGATE },
	{ "normalize", no_argument, NULL, 'n' },
	{ "notes", required_argument, NULL, OPT_NOTES },
	{ "output", required_argument, NULL, 'o' },
	{ "palette-file", required_argument, NULL, OPT_PALFILE },
	{ "quiet", no_argument, NULL, 'q' },
	{ "random", no_argument, NULL, OPT_RANDOM },
	{ "reverse", no_argument, NULL, OPT_REVERSE },
	{ "subtitle", required_argument, NULL, OPT_SUBTITLE },
	{ "title", required_argument, NULL, OPT_TITLE },
	{ "total", required_argument, NULL, OPT_TOTAL },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ NULL, 0, NULL, 0 },
};

/* A positive finite number for option name, or a usage error. */
static double positive(const char *name, const char *arg)
{
	double v;

	if (prof_parse_double(arg, &v) || !(v > 0))
		prof_usage_error(synopsis, "--%s: expected a positive number, got \"%s\"", name, arg);
	return v;
}

static int ends_with_ci(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

int main(int argc, char **argv)
{
	struct prof_flame_opts o;
	struct prof_flame_seq seq = { 0 }, *seqp = NULL;
	struct prof_flame_graph g = { 0 };
	struct prof_transform xf = PROF_TRANSFORM_INIT;
	const char **base = NULL;
	struct prof_meta meta = PROF_META_INIT;
	struct prof_stacks t;
	const char *output = NULL, *format = NULL, *palfile = NULL, *nameattr_file = NULL;
	const char *bgcolors = NULL, *countname = NULL;
	int diff_files = 0, normalize = 0, use_cp = 0, rval = 0, diff = 0, heatmap = 0, c, r;
	uint64_t bucket_ns = 0;
	char c1[8], c2[8];

	prof_set_progname(argv[0]);
	prof_flame_opts_init(&o);
	o.width = 0;	/* fluid unless --width */
	while ((c = prof_getopt_long(argc, argv, "hno:q", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_BASE:
			base = xreallocarray(base, xf.nbase + 1, sizeof(*base));
			base[xf.nbase++] = optarg;
			xf.base = base;
			break;
		case OPT_BGCOLORS:
			if (prof_flame_bg_parse(optarg, c1, c2))
				prof_usage_error(synopsis, "--bgcolors: expected yellow, blue, green, "
						 "grey or #rrggbb, got \"%s\"", optarg);
			bgcolors = optarg;
			break;
		case OPT_BUCKET:
			if (prof_heatmap_bucket_parse(optarg, &bucket_ns))
				prof_usage_error(synopsis, "--bucket: expected a duration of at least "
						 "1ms dividing 1s evenly (10ms, 20ms), got \"%s\"", optarg);
			break;
		case OPT_COLORS:
			if (prof_flame_palette_parse(optarg, &o.palette)) {
				struct prof_buf names = PROF_BUF_INIT;

				prof_flame_palette_list(&names, ", ");
				prof_usage_error(synopsis, "--colors: unknown palette \"%s\" (one of %s)",
						 optarg, names.data);
			}
			break;
		case OPT_COUNTNAME:
			countname = optarg;
			break;
		case OPT_CP:
			use_cp = 1;
			break;
		case OPT_DIFF:
			diff_files = 1;
			break;
		case OPT_ENCODING:
			/* names are read and written as UTF-8, so no other label is true */
			if (strcasecmp(optarg, "UTF-8") && strcasecmp(optarg, "UTF8"))
				prof_usage_error(synopsis, "--encoding: the SVG is always UTF-8; convert "
						 "the input first: iconv -f %s -t UTF-8 FILE | profflame",
						 optarg);
			break;
		case OPT_FACTOR:
			o.factor = positive("factor", optarg);
			break;
		case OPT_COMPACT:
			if (prof_parse_double(optarg, &o.compactwidth) || !(o.compactwidth >= 0))
				prof_usage_error(synopsis, "--compact-width: expected pixels >= 0, got \"%s\"",
						 optarg);
			break;
		case OPT_FLAMECHART:
			o.flamechart = 1;
			break;
		case OPT_FONTSIZE:
			o.fontsize = positive("fontsize", optarg);
			break;
		case OPT_FONTTYPE:
			if (!prof_flame_font_ok(optarg))
				prof_usage_error(synopsis, "--fonttype: \"%s\" is not a font name", optarg);
			o.fonttype = optarg;
			break;
		case OPT_FONTWIDTH:
			o.fontwidth = positive("fontwidth", optarg);
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "svg") && strcmp(optarg, "html"))
				prof_usage_error(synopsis, "--format: expected svg or html, got \"%s\"",
						 optarg);
			format = optarg;
			break;
		case OPT_HASH:
			o.hash = 1;
			break;
		case OPT_HEIGHT:
			o.frameheight = positive("height", optarg);
			if (o.frameheight < 2)
				prof_usage_error(synopsis, "--height: at least 2 pixels");
			break;
		case OPT_HEATMAP:
			heatmap = 1;
			break;
		case OPT_HOTCOLD:
			o.hotcold = 1;
			break;
		case OPT_INVERTED:
			o.inverted = 1;
			break;
		case OPT_MAXDEPTH: {
			uint64_t v;

			if (prof_parse_u64(optarg, &v) || v < 1 || v > 1000000)
				prof_usage_error(synopsis, "--max-depth: expected 1..1000000, got \"%s\"",
						 optarg);
			o.maxdepth = (unsigned)v;
			break;
		}
		case OPT_MINWIDTH:
			if (prof_flame_minwidth_parse(&o, optarg))
				prof_usage_error(synopsis, "--minwidth: expected pixels or a percentage "
						 "like 0.5%%, got \"%s\"", optarg);
			break;
		case OPT_NAMEATTR:
			nameattr_file = optarg;
			break;
		case OPT_NAMETYPE:
			o.nametype = optarg;
			break;
		case OPT_NEGATE:
			o.negate = 1;
			break;
		case OPT_NOTES:
			o.notes = optarg;
			break;
		case OPT_PALFILE:
			palfile = optarg;
			break;
		case OPT_RANDOM:
			o.random = 1;
			break;
		case OPT_REVERSE:
			xf.reverse = 1;
			break;
		case OPT_SUBTITLE:
			o.subtitle = optarg;
			break;
		case OPT_TITLE:
			o.title = optarg;
			break;
		case OPT_TOTAL:
			if (prof_parse_double(optarg, &o.total) || o.total < 0)
				prof_usage_error(synopsis, "--total: expected a count, got \"%s\"", optarg);
			break;
		case OPT_WIDTH:
			o.width = positive("width", optarg);
			if (o.width <= 20)
				prof_usage_error(synopsis, "--width: more than 20 pixels, please");
			break;
		case 'h':
			prof_help(help_text);
		case 'n':
			normalize = 1;
			break;
		case 'o':
			output = optarg;
			break;
		case 'q':
			prof_verbosity = 0;
			break;
		case PROF_OPT_LIST_OPTIONS: {
			struct prof_buf pal = PROF_BUF_INIT;

			prof_flame_palette_list(&pal, ",");
			prof_list_option_values(longopts, (const struct prof_option_values[]){
				{ "colors", pal.data }, { "format", "svg,html" },
				{ "bgcolors", "yellow,blue,green,grey" }, { NULL, NULL } });
		}
		default:
			prof_usage_error(synopsis, NULL);
		}
	}
	argc -= optind;
	argv += optind;
	if (diff_files && argc > 2)
		prof_usage_error(synopsis, "--diff takes two files BEFORE AFTER, or one "
				 "differential input (\"stack BEFORE AFTER\" lines)");
	if (diff_files && argc == 2 && !strcmp(argv[0], "-") && !strcmp(argv[1], "-"))
		prof_usage_error(synopsis, "--diff: BEFORE and AFTER cannot both be the standard input");
	if (diff_files && o.flamechart)
		prof_usage_error(synopsis, "--diff and --flamechart cannot be combined");
	if (o.hotcold && (diff_files || o.flamechart || argc < 1 || argc > 2))
		prof_usage_error(synopsis, "--hot-cold takes one recording or two profiles ON-CPU "
				 "OFF-CPU, without --diff or --flamechart");
	if (format)
		o.html = strcmp(format, "html") == 0;
	else if (output)
		o.html = ends_with_ci(output, ".html") || ends_with_ci(output, ".htm");
	if (prof_flame_bg_parse(bgcolors ? bgcolors : prof_flame_palette_bg(o.palette),
				o.bg1, o.bg2))
		return PROF_EXIT_USAGE;	/* not reached: checked above */
	if ((heatmap && (argc > 1 || diff_files || o.hotcold || o.flamechart)) ||
	    (bucket_ns && !heatmap))
		prof_usage_error(synopsis, "--heatmap draws one recording or heat map TSV, without "
				 "--diff, --hot-cold or --flamechart; --bucket needs it");
	if (heatmap) {
		free(base);
		return (prof_flame_heatmap_file(argc ? argv[0] : NULL, &o, bucket_ns, output) ? 1 : 0) |
		       prof_close_stdout();
	}
	if (o.flamechart)
		seqp = &seq;
	if (use_cp && !palfile)
		palfile = "palette.map";

	prof_stacks_init(&t, 2);
	r = prof_flame_read_inputs((const char *const *)argv, (size_t)argc, diff_files, &t, &meta,
				   seqp, &o, &diff);
	if (r)
		rval = 1;
	/* an input missing: whatever the others hold would be a wrong picture */
	if (r == -2)
		goto done;
	if (prof_stacks_count(&t) == 0) {
		prof_warn("no stacks in the input: nothing to draw");
		rval = 1;
		goto done;
	}
	if (diff_files && !diff) {
		prof_warn("--diff with one input needs its differential form (\"stack BEFORE "
			  "AFTER\" lines); give two files BEFORE AFTER to compare them");
		rval = 1;
		goto done;
	}
	if (normalize && diff)
		prof_flame_normalize(&t, seqp);
	else if (normalize)
		prof_info(1, "--normalize: the input is not differential; ignored");
	xf.tag_wakers = o.palette == PROF_PAL_CHAIN;
	if (prof_transform_active(&xf))
		prof_flame_transform(&t, &xf, seqp);
	if (countname)
		o.countname = countname;
	else if (prof_meta_get(&meta, "unit") && *prof_meta_get(&meta, "unit"))
		o.countname = prof_meta_get(&meta, "unit");

	if (prof_flame_layout(&g, &t, seqp, diff, &o)) {
		prof_warn(xf.nbase ? "no stack contains the --base function(s): nothing to draw"
				   : "all counts are zero: nothing to draw");
		rval = 1;
		goto done;
	}
	if (o.total > 0 && o.total < g.sum)
		prof_info(1, "--total %g is less than the sum of counts %g; ignored", o.total, g.sum);
	if (g.too_deep)
		prof_info(1, "%lu frame%s deeper than %u not drawn (--max-depth)", g.too_deep,
			  g.too_deep == 1 ? "" : "s", o.maxdepth);
	if (prof_flame_write_file(&g, &t, &o, output, palfile, nameattr_file))
		rval = 1;
done:
	prof_flame_graph_release(&g);
	prof_flame_seq_release(&seq);
	prof_stacks_release(&t);
	prof_meta_release(&meta);
	free(base);
	return rval | prof_close_stdout();
}
