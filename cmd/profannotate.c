/*
 * profannotate: instruction-level hotspots of a profrec recording, and
 * the SIMD check of a build (which vector instructions its functions use).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "annotate/annotate.h"
#include "annotate/simd.h"
#include "base/error.h"
#include "base/options.h"
#include "base/units.h"
#include "io/output.h"

#define SYNOPSIS "profannotate [-hq] [-s symbol] [-n count] [--human] [--no-demangle] [-o file] samples\n" \
	"       profannotate --simd [--require isa] [--human] [--no-demangle] [-o file] binary\n" \
	"                    [symbol ...]"

static const char help_text[] =
"usage: " SYNOPSIS "\n"
"Annotate: each instruction of the hottest functions of a profrec recording\n"
"(TSV with the ip column) or of perf script text (-F ip,sym,symoff,dso; '-':\n"
"standard input) with its share of the function's samples and its source\n"
"file:line. The binaries are found by the paths the recording names and must\n"
"have the build-id it recorded (perf: --buildid-mmap mmap events, or perf\n"
"buildid-list lines before the samples).\n"
"  -s, --symbol=NAME       annotate this function only\n"
"  -n, --top=N             annotate the N hottest functions (default 1)\n"
"SIMD check (--simd): per function of BINARY (or the symbols named, by their\n"
"mangled or demangled names), the instructions that are scalar, SSE, AVX,\n"
"AVX2, AVX-512 (x86) or NEON, SVE (Arm), the widest vector width used, and\n"
"the bytes capstone could not decode (SVE under capstone 4), said on stderr.\n"
"      --simd              check BINARY instead of annotating a recording\n"
"      --require=ISA       exit 1 when a function has no vector instruction as\n"
"                          wide as ISA needs: sse, neon, sve (128 bits), avx,\n"
"                          avx2 (256), avx512 (512)\n"
"Both:\n"
"      --human             aligned text for a person instead of TSV\n"
"      --no-demangle       show C++ and Rust functions by their mangled names\n"
"  -o, --output=FILE       write FILE (atomically; .gz/.zst/.lz4 compress)\n"
"  -q, --quiet             no notes on stderr\n"
"  -h, --help              this help\n"
"\n"
PROF_MAX_LINE_HELP
"Exit status: 0 success, 1 a function below --require, unreadable or\n"
"mismatched input (not ELF, unknown symbol, build-id mismatch), 2 usage error.\n";

enum { OPT_HUMAN = 0x100, OPT_NO_DEMANGLE, OPT_REQUIRE, OPT_SIMD };

static const struct option long_opts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "human", no_argument, NULL, OPT_HUMAN },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "output", required_argument, NULL, 'o' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "require", required_argument, NULL, OPT_REQUIRE },
	{ "simd", no_argument, NULL, OPT_SIMD },
	{ "symbol", required_argument, NULL, 's' },
	{ "top", required_argument, NULL, 'n' },
	{ "list-options", no_argument, NULL, PROF_OPT_LIST_OPTIONS },
	{ NULL, 0, NULL, 0 },
};

static const struct prof_option_values option_values[] = {
	{ "require", "sse,avx,avx2,avx512,neon,sve" },
	{ NULL, NULL },
};

struct config {
	const char *symbol, *output;
	size_t top;
	int human, no_demangle, simd, required_bits;
};

static void parse_options(int argc, char **argv, struct config *c)
{
	int ch;
	uint64_t n;

	c->top = 1;
	while ((ch = prof_getopt_long(argc, argv, "hn:o:qs:", long_opts, NULL)) != -1) {
		switch (ch) {
		case 'h': prof_help(help_text);
		case 'n':
			if (prof_parse_u64(optarg, &n) < 0 || n == 0)
				prof_usage_error(SYNOPSIS, "bad --top '%s' (a count, 1 or more)", optarg);
			c->top = (size_t)n;
			break;
		case 'o': c->output = optarg; break;
		case 'q': prof_verbosity = 0; break;
		case 's': c->symbol = optarg; break;
		case OPT_HUMAN: c->human = 1; break;
		case OPT_NO_DEMANGLE: c->no_demangle = 1; break;
		case OPT_REQUIRE:
			c->required_bits = prof_simd_required_bits(optarg);
			if (c->required_bits < 0)
				prof_usage_error(SYNOPSIS, "bad --require '%s' (sse, avx, avx2, avx512, "
						 "neon or sve)", optarg);
			break;
		case OPT_SIMD: c->simd = 1; break;
		case PROF_OPT_LIST_OPTIONS: prof_list_option_values(long_opts, option_values);
		default: prof_usage_error(SYNOPSIS, NULL);
		}
	}
	if (c->simd && optind >= argc)
		prof_usage_error(SYNOPSIS, "--simd needs a binary");
	if (!c->simd && (c->required_bits || argc - optind != 1))
		prof_usage_error(SYNOPSIS, c->required_bits ? "--require goes with --simd"
				 : "one samples file expected");
	if (c->simd && c->symbol)
		prof_usage_error(SYNOPSIS, "--symbol is for annotating; --simd takes symbols as arguments");
}

int main(int argc, char **argv)
{
	struct config c;
	struct prof_output *out;
	int rc;

	memset(&c, 0, sizeof(c));
	prof_set_progname(argv[0]);
	parse_options(argc, argv, &c);
	out = prof_output_open(c.output, PROF_OUT_ATOMIC, prof_compression_from_suffix(c.output));
	if (!out)
		return PROF_EXIT_FAIL;
	if (c.simd)
		rc = prof_simd_report(argv[optind], (const char *const *)argv + optind + 1,
				      (size_t)(argc - optind - 1), c.human, c.no_demangle,
				      c.required_bits, out);
	else
		rc = prof_annotate_report(argv[optind], c.symbol, c.top, c.human, c.no_demangle, out);
	if (rc < 0) {
		prof_output_abort(out);
		return PROF_EXIT_FAIL;
	}
	if (prof_output_close(out) != 0)
		return PROF_EXIT_FAIL;
	return rc ? PROF_EXIT_FAIL : PROF_EXIT_OK;
}
