/*
 * profcompress: an in-memory benchmark of the compression libraries
 * installed on this system. Reads each input into memory, then for each
 * selected codec and level compresses and decompresses it (whole, or in
 * independent blocks with -b), verifies every decompression, and writes
 * one TSV row (prof-formats.5, schema "profcompress") per input, codec
 * and level. The engine is lib/codec (benchmark.h, report.h); this file
 * is the options and the wiring.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/bench.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/options.h"
#include "base/term.h"
#include "base/units.h"
#include "codec/benchmark.h"
#include "codec/codec.h"
#include "codec/report.h"
#include "codec/selection.h"
#include "io/output.h"

#define SYNOPSIS "profcompress [-lqv] [-b size] [-D dict] [-e spec] [-o file] [-T threads]\n" \
	"                    [-t seconds] [--batch seconds] [--decode-only] [--human] [--join]\n" \
	"                    [--pareto] [--recommend constraints] [--stat min|median|mean]\n" \
	"                    [file ...]"

static const char help_text[] =
	"usage: " SYNOPSIS "\n"
	"\n"
	"Benchmark the system's compression libraries in memory on each input:\n"
	"compressed size, ratio, speed (MB/s = 10^6 bytes of original data per\n"
	"second) and memory, every decompression verified. TSV on stdout.\n"
	"\n"
	"  -b, --block SIZE        compress in independent blocks of SIZE (512K, 4M)\n"
	"      --batch SECONDS     target length of one timed batch (default 2ms)\n"
	"  -D, --dict FILE         dictionary for zstd and zlib\n"
	"      --decode-only       inputs are compressed data: time decompression only\n"
	"  -e, --codecs SPEC       codecs and levels: zstd:1,3,19/lz4/zlib:1-9/fast\n"
	"      --human             an aligned table instead of TSV (cut to a terminal)\n"
	"      --join              benchmark all inputs as one concatenated input\n"
	"  -l, --list              list the codecs of this build with versions\n"
	"  -o, --output FILE       write to FILE (atomically) instead of stdout\n"
	"      --pareto            flag rows on the ratio/speed Pareto frontier\n"
	"  -q, --quiet             no warnings about suspect timings, no progress\n"
	"      --recommend EXPR    print the best-ratio codec meeting EXPR,\n"
	"                          e.g. 'cspeed>=200,dspeed>=1000'\n"
	"      --stat STAT         min (default), median or mean of the batches\n"
	"  -T, --threads N         N threads share the blocks (default 1)\n"
	"  -t, --time SECONDS      timed work per cell and direction (default 1)\n"
	"  -v, --verbose           how each cell was timed, on stderr\n"
	"  -h, --help              this help\n"
	"\n"
	"Aliases: fast, default (used without -e), all; see profcompress(1).\n"
	"Compressed inputs (gzip, zstd, lz4) are decompressed first: the\n"
	"benchmark runs on their content (except with --decode-only).\n"
	"Exit status: 0 ok, 1 a codec failed or an input was unreadable or empty,\n"
	"2 usage error.\n";

enum {
	OPT_BATCH = 0x100,
	OPT_DECODE_ONLY,
	OPT_HUMAN,
	OPT_JOIN,
	OPT_PARETO,
	OPT_RECOMMEND,
	OPT_STAT,
};

static const struct option long_options[] = {
	{ "batch", required_argument, NULL, OPT_BATCH },
	{ "block", required_argument, NULL, 'b' },
	{ "codecs", required_argument, NULL, 'e' },
	{ "decode-only", no_argument, NULL, OPT_DECODE_ONLY },
	{ "dict", required_argument, NULL, 'D' },
	{ "help", no_argument, NULL, 'h' },
	{ "human", no_argument, NULL, OPT_HUMAN },
	{ "join", no_argument, NULL, OPT_JOIN },
	{ "list", no_argument, NULL, 'l' },
	{ "list-options", no_argument, NULL, PROF_OPT_LIST_OPTIONS },
	{ "output", required_argument, NULL, 'o' },
	{ "pareto", no_argument, NULL, OPT_PARETO },
	{ "quiet", no_argument, NULL, 'q' },
	{ "recommend", required_argument, NULL, OPT_RECOMMEND },
	{ "stat", required_argument, NULL, OPT_STAT },
	{ "threads", required_argument, NULL, 'T' },
	{ "time", required_argument, NULL, 't' },
	{ "verbose", no_argument, NULL, 'v' },
	{ NULL, 0, NULL, 0 },
};

struct options {
	struct prof_codec_bench_opts bench;
	struct prof_buf spec;		/* the -e specs, joined by '/' */
	const char *outpath;
	const char *recommend;
	int human, list;
};

static void parse_options(int argc, char **argv, struct options *o)
{
	int opt;

	while ((opt = prof_getopt_long(argc, argv, "b:D:e:hlo:qT:t:v", long_options, NULL)) != -1) {
		switch (opt) {
		case 'b':
			if (prof_parse_size(optarg, &o->bench.block) || o->bench.block == 0)
				prof_usage_error(SYNOPSIS, "-b: bad block size '%s'", optarg);
			break;
		case 'D':
			o->bench.dict_path = optarg;
			break;
		case 'e':
			if (o->spec.len)
				prof_buf_addch(&o->spec, '/');
			prof_buf_addstr(&o->spec, optarg);
			break;
		case 'h':
			prof_help(help_text);
		case 'l':
			o->list = 1;
			break;
		case 'o':
			o->outpath = optarg;
			break;
		case 'q':
			prof_verbosity = 0;
			break;
		case 'T': {
			uint64_t n;

			if (prof_parse_u64(optarg, &n) || n < 1 || n > 1024)
				prof_usage_error(SYNOPSIS, "-T: bad thread count '%s' (1..1024)", optarg);
			o->bench.threads = (unsigned)n;
			break;
		}
		case 't':
			if (prof_parse_duration(optarg, 1, &o->bench.seconds) || o->bench.seconds <= 0 ||
			    o->bench.seconds > 86400)
				prof_usage_error(SYNOPSIS, "-t: bad duration '%s'", optarg);
			break;
		case 'v':
			prof_verbosity++;
			break;
		case OPT_BATCH:
			if (prof_parse_duration(optarg, 1, &o->bench.batch) || o->bench.batch <= 0 ||
			    o->bench.batch > 3600)
				prof_usage_error(SYNOPSIS, "--batch: bad duration '%s'", optarg);
			break;
		case OPT_DECODE_ONLY:
			o->bench.decode_only = 1;
			break;
		case OPT_HUMAN:
			o->human = 1;
			break;
		case OPT_JOIN:
			o->bench.join = 1;
			break;
		case OPT_PARETO:
			o->bench.pareto = 1;
			break;
		case OPT_RECOMMEND:
			o->recommend = optarg;
			break;
		case OPT_STAT:
			if (prof_bench_stat_parse(optarg, &o->bench.stat))
				prof_usage_error(SYNOPSIS, "--stat: expected min, median or mean, not '%s'",
						 optarg);
			break;
		case PROF_OPT_LIST_OPTIONS:
			prof_list_option_values(long_options, (const struct prof_option_values[]){
				{ "stat", "min,median,mean" }, { NULL, NULL } });
		default:
			prof_usage_error(SYNOPSIS, NULL);
		}
	}
}

/* The cells of -e (or the default alias), checked against the other options. */
static void select_cells(const struct options *o, struct prof_codec_cells *cells)
{
	char err[512];

	if (o->bench.decode_only && !o->spec.len)
		prof_usage_error(SYNOPSIS, "--decode-only needs -e with the codec of the input");
	if (prof_codec_cells_parse(cells, o->spec.len ? prof_buf_cstr(&o->spec) : "default",
				   err, sizeof(err)))
		prof_usage_error(SYNOPSIS, "-e: %s", err);
	if (cells->n == 0)
		prof_usage_error(SYNOPSIS, "-e: no codec selected");
	if (o->bench.decode_only) {
		for (size_t i = 0; i < cells->n; i++) {
			if (!(cells->v[i].codec->flags & PROF_CODEC_F_SIZED))
				prof_usage_error(SYNOPSIS, "--decode-only: %s records no decompressed "
						 "size; use its framed variant", cells->v[i].codec->name);
		}
		/* one row per codec: the level does not matter for decoding */
		prof_codec_cells_one_per_codec(cells);
		if (o->bench.block)
			prof_usage_error(SYNOPSIS, "--decode-only and -b exclude each other");
	}
	for (size_t i = 0; o->bench.dict_path && i < cells->n; i++) {
		if (!(cells->v[i].codec->flags & PROF_CODEC_F_DICT))
			prof_usage_error(SYNOPSIS, "-D: %s does not support dictionaries "
					 "(zstd and zlib do)", cells->v[i].codec->name);
	}
}

/* Write the table to -o or stdout: 0, 1 if writing failed, -1 if it could not be opened. */
static int write_table(const struct options *o, const struct prof_buf *meta,
		       const struct prof_codec_rows *rows)
{
	struct prof_output *out = prof_output_open(o->outpath, PROF_OUT_ATOMIC, PROF_COMP_NONE);

	if (!out)
		return -1;
	if (o->human)
		prof_codec_rows_write_human(out, rows, !o->outpath || !strcmp(o->outpath, "-") ?
					    prof_term_width(STDOUT_FILENO) : 0);
	else
		prof_codec_rows_write_tsv(out, meta, rows);
	return prof_output_close(out) ? PROF_EXIT_FAIL : PROF_EXIT_OK;
}

int main(int argc, char **argv)
{
	static char *stdin_only[] = { (char *)"-", NULL };
	struct options o = { .bench = { .seconds = 1, .stat = PROF_BENCH_MIN, .threads = 1 } };
	struct prof_codec_cells cells = { 0 };
	struct prof_codec_rows rows = { 0 };
	struct prof_buf meta = PROF_BUF_INIT;
	struct prof_codec_constraint *cons = NULL;
	size_t ncons = 0;
	char *dict = NULL, **files = stdin_only;
	size_t nfiles = 1;
	int rval;

	prof_set_progname(argv[0]);
	parse_options(argc, argv, &o);
	if (o.list) {
		prof_codec_list_write(stdout);
		return prof_close_stdout();
	}
	select_cells(&o, &cells);
	if (o.bench.dict_path) {
		dict = prof_codec_read_raw(o.bench.dict_path, &o.bench.dictlen);
		if (!dict)
			return PROF_EXIT_FAIL;
		o.bench.dict = dict;
	}
	if (o.recommend) {
		char err[512];

		ncons = prof_codec_constraints_parse(o.recommend, &cons, err, sizeof(err));
		if (ncons == 0)
			prof_usage_error(SYNOPSIS, "--recommend: %s", err);
	}
	if (optind < argc) {
		files = argv + optind;
		nfiles = (size_t)(argc - optind);
	}

	rval = prof_codec_bench_files(&o.bench, &cells, files, nfiles, &rows, &meta);
	/*
	 * The table goes to -o, or to stdout unless --recommend owns stdout;
	 * none when no input could be benchmarked (-o's file is left alone).
	 */
	if ((!o.recommend || o.outpath) && (rows.n || rval == PROF_EXIT_OK)) {
		int w = write_table(&o, &meta, &rows);

		if (w < 0) {
			rval = PROF_EXIT_FAIL;
			goto out;
		}
		rval |= w;
	}
	if (o.recommend && prof_codec_recommend_print(stdout, &rows, cons, ncons, o.recommend))
		rval = PROF_EXIT_FAIL;
	rval |= prof_close_stdout();
out:
	prof_codec_rows_release(&rows);
	prof_codec_cells_release(&cells);
	free(cons);
	free(dict);
	prof_buf_release(&o.spec);
	prof_buf_release(&meta);
	return rval;
}
