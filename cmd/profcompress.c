/*
 * profcompress: an in-memory benchmark of the compression libraries
 * installed on this system. Reads each input into memory, then for each
 * selected codec and level compresses and decompresses it (whole, or in
 * independent blocks with -b), verifies every decompression, and writes
 * one TSV row (prof-formats.5, schema "profcompress") per input, codec
 * and level.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>

#include "base/bench.h"
#include "base/buf.h"
#include "codec/codec.h"
#include "base/error.h"
#include "io/input.h"
#include "core/meta.h"
#include "base/options.h"
#include "io/output.h"
#include "base/sha256.h"
#include "formats/tsv.h"
#include "base/units.h"
#include "base/xalloc.h"

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
	"      --human             an aligned table instead of TSV\n"
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

/* The aliases of -e, exactly as profcompress(1) defines them. */
static const struct {
	const char *name, *spec;
} aliases[] = {
	{ "fast", "memcpy/lz4:1/lz4f:1/snappy/zstd:-5,1/libdeflate:1/zlib:1/brotli:1" },
	{ "default", "memcpy/lz4:1/lz4hc:9/lz4f:1/snappy/zstd:-5,1,3,9/libdeflate:1,6/"
		     "zlib:1,6/gzip:6/brotli:1,6/bzip2:9/xz:1" },
	{ "all", "memcpy/lz4:1-9,16,32,64/lz4hc:1-12/lz4f:1-12/snappy/zstd:-7--1,1-22/"
		 "libdeflate:0-12/zlib:0-9/gzip:0-9/brotli:0-11/bzip2:1-9/xz:0-9" },
};

/* ---- options ---- */

struct options {
	double seconds;
	double batch;			/* 0: prof_bench's default */
	enum prof_bench_stat stat;
	unsigned threads;
	uint64_t block;
	int decode_only, human, join, pareto;
	const char *recommend;
	const char *dict_path;
	char *dict;
	size_t dictlen;
};

/* ---- codec selection (-e) ---- */

struct cell_spec {
	const struct prof_codec *codec;
	int level;
};

struct selection {
	struct cell_spec *v;
	size_t n, cap;
};

static void select_add(struct selection *s, const struct prof_codec *c, int level)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].codec == c && s->v[i].level == level)
			return;
	PROF_GROW(s->v, s->n + 1, s->cap);
	s->v[s->n].codec = c;
	s->v[s->n].level = level;
	s->n++;
}

static int is_optional_codec(const char *name)
{
	static const char *const optional[] = {
		"brotli", "xz", "bzip2", "snappy", "libdeflate",
	};

	for (size_t i = 0; i < sizeof(optional) / sizeof(optional[0]); i++)
		if (strcmp(name, optional[i]) == 0)
			return 1;
	return 0;
}

PROF_NORETURN static void spec_error(const char *fmt, ...) PROF_PRINTF(1, 2);

static void spec_error(const char *fmt, ...)
{
	va_list ap;
	struct prof_buf b = PROF_BUF_INIT;

	va_start(ap, fmt);
	prof_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	prof_usage_error(SYNOPSIS, "-e: %s", prof_buf_cstr(&b));
}

/* Parse one signed level at *p; advances *p. */
static int parse_level(const char **p, int *out)
{
	const char *s = *p;
	long v;
	char *end;

	if (!(isdigit((unsigned char)s[0]) || (s[0] == '-' && isdigit((unsigned char)s[1]))))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || v < INT_MIN + 1 || v > INT_MAX)
		return -1;
	*out = (int)v;
	*p = end;
	return 0;
}

static void check_level(const struct prof_codec *c, int level)
{
	char err[160];
	struct prof_codec_ctx *x;

	if (level >= c->min_level && level <= c->max_level)
		return;
	/* let the codec word it (zstd asks its library for the range) */
	x = prof_codec_ctx_new(c, level, NULL, 0, err, sizeof(err));
	if (!x)
		spec_error("%s", err);
	prof_codec_ctx_free(x);
}

static void parse_spec(struct selection *sel, const char *spec, int depth);

static void parse_item(struct selection *sel, const char *item, size_t len, const char *spec,
		       int depth)
{
	char *name = xstrndup(item, len);
	char *colon = strchr(name, ':');
	const struct prof_codec *c;
	const char *p;

	if (len == 0)
		spec_error("empty item in '%s'", spec);
	if (colon)
		*colon = '\0';
	if (!colon) {
		for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++) {
			if (strcmp(name, aliases[i].name) == 0) {
				if (depth == 0)
					parse_spec(sel, aliases[i].spec, depth + 1);
				free(name);
				return;
			}
		}
	}
	c = prof_codec_find(name);
	if (!c) {
		/* inside an alias, codecs this build lacks are skipped */
		if (depth > 0 && is_optional_codec(name)) {
			free(name);
			return;
		}
		if (is_optional_codec(name))
			spec_error("codec '%s' is not available: this build did not find its library",
				   name);
		spec_error("unknown codec '%s' in '%s' (see profcompress -l)", name, spec);
	}
	if (!colon) {
		select_add(sel, c, prof_codec_has_levels(c) ? c->default_level : PROF_CODEC_NOLEVEL);
		free(name);
		return;
	}
	if (!prof_codec_has_levels(c))
		spec_error("%s has no levels (write just '%s')", c->name, c->name);
	p = colon + 1;
	if (!*p)
		spec_error("%s: missing level after ':' in '%s'", c->name, spec);
	for (;;) {
		int lo, hi;

		if (parse_level(&p, &lo))
			spec_error("%s: bad level '%s' in '%s'", c->name, p, spec);
		hi = lo;
		if (*p == '-') {
			p++;
			if (parse_level(&p, &hi))
				spec_error("%s: bad range end '%s' in '%s'", c->name, p, spec);
			if (hi < lo)
				spec_error("%s: empty range %d-%d in '%s'", c->name, lo, hi, spec);
		}
		check_level(c, lo);
		check_level(c, hi);
		for (long l = lo; l <= hi; l++) {
			/* zstd level 0 means "default" (3): not a level of its own */
			if (l == 0 && strcmp(c->name, "zstd") == 0 && lo != hi)
				continue;
			select_add(sel, c, (int)l);
		}
		if (*p == '\0')
			break;
		if (*p != ',')
			spec_error("%s: unexpected '%s' in '%s'", c->name, p, spec);
		p++;
	}
	free(name);
}

static void parse_spec(struct selection *sel, const char *spec, int depth)
{
	const char *p = spec;

	for (;;) {
		const char *slash = strchr(p, '/');
		size_t len = slash ? (size_t)(slash - p) : strlen(p);

		parse_item(sel, p, len, spec, depth);
		if (!slash)
			break;
		p = slash + 1;
	}
}

/* ---- machine description for the metadata ---- */

static void read_first_line(const char *path, const char *prefix, char *out, size_t n)
{
	FILE *f = fopen(path, "r");
	char line[512];

	snprintf(out, n, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (prefix && strncmp(line, prefix, strlen(prefix)) != 0)
			continue;
		char *v = prefix ? strchr(line, ':') : line;

		if (!v)
			continue;
		if (prefix)
			v++;
		while (*v == ' ' || *v == '\t')
			v++;
		v[strcspn(v, "\n")] = '\0';
		snprintf(out, n, "%s", v);
		break;
	}
	fclose(f);
}

static void machine_meta(struct prof_meta *m, const struct options *o)
{
	char buf[512];
	struct utsname u;
	double la[3];

	prof_meta_set(m, "source", "profcompress");
	read_first_line("/proc/cpuinfo", "model name", buf, sizeof(buf));
	prof_meta_set(m, "cpu", buf);
	prof_meta_setf(m, "cores", "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	if (uname(&u) == 0)
		prof_meta_setf(m, "kernel", "%s %s %s", u.sysname, u.release, u.machine);
	if (getloadavg(la, 3) == 3)
		prof_meta_setf(m, "loadavg", "%.2f,%.2f,%.2f", la[0], la[1], la[2]);
	prof_meta_set(m, "ratio", "orig/comp");
	prof_meta_set(m, "mb", "1000000");
	prof_meta_set(m, "stat", prof_bench_stat_name(o->stat));
	prof_meta_setf(m, "time_s", "%g", o->seconds);
	if (o->batch > 0)
		prof_meta_setf(m, "batch_s", "%g", o->batch);
	prof_meta_setf(m, "threads", "%u", o->threads);
	prof_meta_setf(m, "block_bytes", "%llu", (unsigned long long)o->block);
	if (o->decode_only)
		prof_meta_set(m, "mode", "decode-only");
	if (o->dict_path) {
		char hex[65];

		prof_meta_set(m, "dict", o->dict_path);
		prof_sha256_hex(o->dict, o->dictlen, hex);
		prof_meta_set(m, "dict_sha256", hex);
	}
}

static void library_meta(struct prof_meta *m)
{
	for (size_t i = 0; prof_codecs[i]; i++) {
		const char *name = prof_codecs[i]->name;
		const char *key = strcmp(name, "memcpy") == 0 ? "glibc"
			: strcmp(name, "gzip") == 0 ? NULL
			: strcmp(name, "lz4hc") == 0 || strcmp(name, "lz4f") == 0 ? NULL
			: strcmp(name, "xz") == 0 ? "liblzma" : name;
		char k[64];

		if (!key)
			continue;
		snprintf(k, sizeof(k), "lib.%s", key);
		prof_meta_set(m, k, prof_codec_version(prof_codecs[i]));
	}
	if (*prof_codec_missing()) {
		char missing[128];

		snprintf(missing, sizeof(missing), "%s", prof_codec_missing() + 1);
		for (char *s = missing; *s; s++)
			if (*s == ' ')
				*s = ',';
		prof_meta_set(m, "not_built", missing);
	}
}

/* ---- one benchmark cell ---- */

enum { ST_OK, ST_COMP_ERROR, ST_DECOMP_ERROR, ST_MISMATCH };

struct row {
	char *input;
	const struct prof_codec *codec;
	int level;
	uint64_t block_bytes, orig, comp;
	int have_comp;			/* comp size known */
	double cspeed, dspeed, ccpu, dcpu;	/* MB/s; < 0 = none */
	long long cmem, dmem;		/* < 0 = unknown */
	int status;
	int suspect_c, suspect_d, pareto_c, pareto_d;
};

struct rows {
	struct row *v;
	size_t n, cap;
};

/* The blocks of the input and their places in the compressed buffer. */
struct work {
	const struct options *o;
	const char *src;		/* original (or, decode-only, compressed) */
	size_t len;
	size_t nblocks;
	size_t *off, *blen;		/* original blocks */
	size_t *coff, *ccap, *clen;	/* compressed blocks */
	char *cbuf;
	size_t cbuf_cap;
	char *dbuf;			/* decompressed output */
	size_t dbuf_cap;
	/* the cell being timed */
	struct prof_codec_ctx **ctx;	/* one per thread */
	unsigned threads;
	char (*err)[320];		/* per thread */
};

static void block_range(const struct work *w, unsigned t, size_t *b0, size_t *b1)
{
	*b0 = w->nblocks * t / w->threads;
	*b1 = w->nblocks * (t + 1) / w->threads;
}

static int compress_iteration(void *arg, unsigned t)
{
	struct work *w = arg;
	size_t b0, b1;

	block_range(w, t, &b0, &b1);
	for (size_t b = b0; b < b1; b++) {
		size_t r = prof_codec_compress(w->ctx[t], w->cbuf + w->coff[b], w->ccap[b],
					       w->src + w->off[b], w->blen[b]);

		if (r == (size_t)-1) {
			snprintf(w->err[t], sizeof(w->err[t]), "block %zu: %s", b,
				 prof_codec_ctx_error(w->ctx[t]));
			return -1;
		}
		w->clen[b] = r;
	}
	return 0;
}

static int decompress_iteration(void *arg, unsigned t)
{
	struct work *w = arg;
	size_t b0, b1;

	block_range(w, t, &b0, &b1);
	for (size_t b = b0; b < b1; b++) {
		size_t r = prof_codec_decompress(w->ctx[t], w->dbuf + w->off[b], w->blen[b],
						 w->cbuf + w->coff[b], w->clen[b]);

		if (r == (size_t)-1) {
			snprintf(w->err[t], sizeof(w->err[t]), "block %zu: %s", b,
				 prof_codec_ctx_error(w->ctx[t]));
			return -1;
		}
		if (r != w->blen[b]) {
			snprintf(w->err[t], sizeof(w->err[t]),
				 "block %zu: decoded %zu bytes, expected %zu", b, r, w->blen[b]);
			return -1;
		}
	}
	return 0;
}

static const char *first_error(const struct work *w)
{
	for (unsigned t = 0; t < w->threads; t++)
		if (w->err[t][0])
			return w->err[t];
	return "unknown error";
}

/* Poison the output so that a decoder that writes nothing cannot pass. */
static void poison(char *dst, const char *ref, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = (char)~ref[i];
}

/* Byte-for-byte and checksum comparison of the output with ref. */
static int verify(const struct work *w, const char *ref, uLong ref_crc, char *why, size_t n)
{
	uLong crc = crc32(0L, Z_NULL, 0);

	if (memcmp(w->dbuf, ref, w->len) != 0) {
		size_t i = 0;

		while (w->dbuf[i] == ref[i])
			i++;
		snprintf(why, n, "decoded data differs from the original at byte %zu", i);
		return -1;
	}
	for (size_t off = 0; off < w->len; off += UINT_MAX)
		crc = crc32(crc, (const Bytef *)w->dbuf + off,
			    (uInt)(w->len - off > UINT_MAX ? UINT_MAX : w->len - off));
	if (crc != ref_crc) {
		snprintf(why, n, "checksum of the decoded data differs");
		return -1;
	}
	return 0;
}

static uLong crc_of(const char *p, size_t n)
{
	uLong crc = crc32(0L, Z_NULL, 0);

	for (size_t off = 0; off < n; off += UINT_MAX)
		crc = crc32(crc, (const Bytef *)p + off,
			    (uInt)(n - off > UINT_MAX ? UINT_MAX : n - off));
	return crc;
}

static double mb_per_s(uint64_t bytes, double s)
{
	return s > 0 ? (double)bytes / s / 1e6 : -1;
}

static void level_text(const struct row *r, char *buf, size_t n)
{
	if (r->level == PROF_CODEC_NOLEVEL)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%d", r->level);
}

/* "codec" or "codec:level", as -e spells a cell. */
static void cell_name(const struct prof_codec *c, int level, char *buf, size_t n)
{
	if (level == PROF_CODEC_NOLEVEL)
		snprintf(buf, n, "%s", c->name);
	else
		snprintf(buf, n, "%s:%d", c->name, level);
}

/*
 * Progress on stderr when it is a terminal (and not -q): one line, "cell
 * n/N: input: codec:level", rewritten in place with \r and blanked out
 * before any other message and at the end. Nothing otherwise.
 */
static struct {
	int on;
	size_t done, total;	/* cells started (or skipped), cells in all */
	size_t shown;		/* length of the line on the terminal, 0: none */
	size_t width;		/* the terminal's columns */
	char line[256];		/* the current cell's line */
	size_t len;
} progress;

static void progress_init(size_t total)
{
	struct winsize ws;

	progress.on = prof_verbosity > 0 && isatty(STDERR_FILENO);
	progress.total = total;
	progress.width = 80;
	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		progress.width = ws.ws_col;
}

/* Blank out the progress line (before a message, and at the end). */
static void progress_clear(void)
{
	if (!progress.shown)
		return;
	fprintf(stderr, "\r%*s\r", (int)progress.shown, "");
	progress.shown = 0;
}

/* (Re)draw the current cell's line over what is shown. */
static void progress_show(void)
{
	if (!progress.on || !progress.len)
		return;
	fprintf(stderr, "\r%.*s%*s", (int)progress.len, progress.line,
		(int)(progress.shown > progress.len ? progress.shown - progress.len : 0), "");
	progress.shown = progress.len;
}

/* The next cell starts: show it. */
static void progress_cell(const char *input, const struct prof_codec *c, int level)
{
	char cell[64];
	int n;

	progress.done++;
	if (!progress.on)
		return;
	cell_name(c, level, cell, sizeof(cell));
	n = snprintf(progress.line, sizeof(progress.line), "%s: cell %zu/%zu: %s: %s",
		     prof_progname, progress.done, progress.total, input, cell);
	progress.len = n < 0 ? 0 : (size_t)n >= sizeof(progress.line)
		? sizeof(progress.line) - 1 : (size_t)n;
	/* One terminal line, or \r would not get back to its start. */
	if (progress.len >= progress.width)
		progress.len = progress.width - 1;
	progress_show();
}

static void cell_failed(const char *input, const struct prof_codec *c, int level,
			const char *what, const char *why)
{
	progress_clear();
	if (level == PROF_CODEC_NOLEVEL)
		prof_warn("%s: %s: %s failed: %s", input, c->name, what, why);
	else
		prof_warn("%s: %s:%d: %s failed: %s", input, c->name, level, what, why);
}

/* -vv: how one side of a cell was timed. */
static void timing_info(const char *input, const struct prof_codec *c, int level,
			const char *what, const struct prof_bench_result *res)
{
	char cell[64];

	if (prof_verbosity < 2)
		return;
	progress_clear();
	cell_name(c, level, cell, sizeof(cell));
	prof_info(2, "%s: %s: %s: %llu batch%s, %llu iteration%s, %.3g s per iteration",
		  input, cell, what, (unsigned long long)res->batches,
		  res->batches == 1 ? "" : "es", (unsigned long long)res->iterations,
		  res->iterations == 1 ? "" : "s", res->wall_s);
	progress_show();
}

/* Make sure the compressed buffer can hold every block at this codec's bound. */
static void layout_compressed(struct work *w, const struct prof_codec *c, int level)
{
	size_t total = 0;

	for (size_t b = 0; b < w->nblocks; b++) {
		w->coff[b] = total;
		w->ccap[b] = prof_codec_bound(c, level, w->blen[b]);
		total += w->ccap[b];
		total = (total + 63) & ~(size_t)63;
	}
	if (total > w->cbuf_cap || !w->cbuf) {
		free(w->cbuf);
		w->cbuf = xmalloc(total ? total : 1);
		memset(w->cbuf, 0xE5, total);	/* pre-touch */
		w->cbuf_cap = total;
	}
}

static void contexts_free(struct work *w)
{
	for (unsigned t = 0; t < w->threads; t++)
		prof_codec_ctx_free(w->ctx[t]);
}

static int contexts_new(struct work *w, const struct prof_codec *c, int level, const char *input,
			const struct options *o)
{
	char err[256];

	memset(w->ctx, 0, w->threads * sizeof(*w->ctx));
	for (unsigned t = 0; t < w->threads; t++) {
		w->ctx[t] = prof_codec_ctx_new(c, level, o->dict, o->dictlen, err, sizeof(err));
		if (!w->ctx[t]) {
			cell_failed(input, c, level, "setup", err);
			contexts_free(w);
			return -1;
		}
		w->err[t][0] = '\0';
	}
	return 0;
}

static void bench_cell(struct work *w, const struct cell_spec *cs, const char *input,
		       uLong ref_crc, struct row *r)
{
	const struct options *o = w->o;
	struct prof_bench_opts bo = { o->seconds, o->batch, o->stat, w->threads };
	struct prof_bench_result res;
	char why[400];

	memset(r, 0, sizeof(*r));
	r->input = xstrdup(input);
	r->codec = cs->codec;
	r->level = cs->level;
	r->block_bytes = o->block;
	r->orig = w->len;
	r->cspeed = r->dspeed = r->ccpu = r->dcpu = -1;
	r->cmem = r->dmem = -1;
	r->status = ST_COMP_ERROR;

	progress_cell(input, cs->codec, cs->level);
	layout_compressed(w, cs->codec, cs->level);
	if (contexts_new(w, cs->codec, cs->level, input, o))
		return;

	/* compression */
	if (prof_bench_run(&bo, compress_iteration, w, &res) != 0) {
		cell_failed(input, cs->codec, cs->level, "compression", first_error(w));
		goto out;
	}
	r->comp = 0;
	for (size_t b = 0; b < w->nblocks; b++)
		r->comp += w->clen[b];
	r->have_comp = 1;
	r->cspeed = mb_per_s(w->len, res.wall_s);
	r->ccpu = mb_per_s(w->len, res.cpu_s);
	r->suspect_c = res.suspect;
	timing_info(input, cs->codec, cs->level, "compression", &res);

	/* decompression: verified once before and once after the timed runs */
	r->status = ST_DECOMP_ERROR;
	poison(w->dbuf, w->src, w->len);
	for (unsigned t = 0; t < w->threads; t++) {
		if (decompress_iteration(w, t) != 0) {
			cell_failed(input, cs->codec, cs->level, "decompression", w->err[t]);
			goto out;
		}
	}
	if (verify(w, w->src, ref_crc, why, sizeof(why))) {
		r->status = ST_MISMATCH;
		cell_failed(input, cs->codec, cs->level, "verification", why);
		goto out;
	}
	if (prof_bench_run(&bo, decompress_iteration, w, &res) != 0) {
		cell_failed(input, cs->codec, cs->level, "decompression", first_error(w));
		goto out;
	}
	if (verify(w, w->src, ref_crc, why, sizeof(why))) {
		r->status = ST_MISMATCH;
		cell_failed(input, cs->codec, cs->level, "verification", why);
		goto out;
	}
	r->dspeed = mb_per_s(w->len, res.wall_s);
	r->dcpu = mb_per_s(w->len, res.cpu_s);
	r->suspect_d = res.suspect;
	r->status = ST_OK;
	timing_info(input, cs->codec, cs->level, "decompression", &res);
out:
	r->cmem = prof_codec_comp_mem(w->ctx[0]);
	r->dmem = r->status == ST_COMP_ERROR ? -1 : prof_codec_decomp_mem(w->ctx[0]);
	contexts_free(w);
}

/*
 * --decode-only: src is one compressed stream of the codec. Find its
 * decompressed size by decoding into a growing buffer, keep that first
 * result as the reference, then time decompression and compare each time.
 */
static void bench_decode_only(struct work *w, const struct cell_spec *cs, const char *input,
			      struct row *r)
{
	const struct options *o = w->o;
	struct prof_bench_opts bo = { o->seconds, o->batch, o->stat, 1 };
	struct prof_bench_result res;
	char why[400];
	char *ref = NULL;
	size_t cap = w->len * 4 + 65536, got;
	uLong ref_crc;

	memset(r, 0, sizeof(*r));
	r->input = xstrdup(input);
	r->codec = cs->codec;
	r->level = PROF_CODEC_NOLEVEL;
	r->comp = w->len;
	r->have_comp = 1;
	r->cspeed = r->dspeed = r->ccpu = r->dcpu = -1;
	r->cmem = r->dmem = -1;
	r->status = ST_DECOMP_ERROR;

	w->threads = 1;
	progress_cell(input, cs->codec, PROF_CODEC_NOLEVEL);
	if (contexts_new(w, cs->codec, PROF_CODEC_NOLEVEL, input, o))
		return;
	for (;;) {
		ref = xrealloc(ref, cap);
		got = prof_codec_decompress(w->ctx[0], ref, cap, w->src, w->len);
		if (got != (size_t)-1 || !prof_codec_ctx_too_small(w->ctx[0]))
			break;
		if (cap > ((size_t)1 << 40)) {
			cell_failed(input, cs->codec, PROF_CODEC_NOLEVEL, "decompression",
				    "decompressed size over 1 TiB");
			goto out;
		}
		cap *= 2;
	}
	if (got == (size_t)-1) {
		cell_failed(input, cs->codec, PROF_CODEC_NOLEVEL, "decompression",
			    prof_codec_ctx_error(w->ctx[0]));
		goto out;
	}
	/* one block: the whole stream, decoded into a buffer of its exact size */
	r->orig = got;
	w->nblocks = 1;
	w->off[0] = 0;
	w->blen[0] = got;
	w->coff[0] = 0;
	w->clen[0] = w->len;
	free(w->cbuf);
	w->cbuf = xmemdup(w->src, w->len);
	w->cbuf_cap = w->len;
	free(w->dbuf);
	w->dbuf = xmalloc(got ? got : 1);
	w->dbuf_cap = got;
	{
		const char *saved = w->src;
		size_t saved_len = w->len;

		ref_crc = crc_of(ref, got);
		poison(w->dbuf, ref, got);
		w->len = got;
		if (prof_bench_run(&bo, decompress_iteration, w, &res) != 0) {
			cell_failed(input, cs->codec, PROF_CODEC_NOLEVEL, "decompression",
				    first_error(w));
		} else if (verify(w, ref, ref_crc, why, sizeof(why))) {
			r->status = ST_MISMATCH;
			cell_failed(input, cs->codec, PROF_CODEC_NOLEVEL, "verification", why);
		} else {
			r->dspeed = mb_per_s(got, res.wall_s);
			r->dcpu = mb_per_s(got, res.cpu_s);
			r->suspect_d = res.suspect;
			r->status = ST_OK;
			timing_info(input, cs->codec, PROF_CODEC_NOLEVEL, "decompression", &res);
		}
		w->src = saved;
		w->len = saved_len;
	}
	r->dmem = prof_codec_decomp_mem(w->ctx[0]);
out:
	free(ref);
	contexts_free(w);
}

/* Benchmark every selected cell on one input held in memory. */
static void bench_input(const struct options *o, const struct selection *sel,
			const char *name, const char *data, size_t len, struct rows *rows)
{
	struct work w;
	size_t nb;
	uLong ref_crc = crc_of(data, len);

	memset(&w, 0, sizeof(w));
	w.o = o;
	w.src = data;
	w.len = len;
	if (o->block && !o->decode_only)
		nb = len ? (size_t)((len + o->block - 1) / o->block) : 1;
	else
		nb = 1;
	w.nblocks = nb;
	w.off = xcalloc(nb, sizeof(size_t));
	w.blen = xcalloc(nb, sizeof(size_t));
	w.coff = xcalloc(nb, sizeof(size_t));
	w.ccap = xcalloc(nb, sizeof(size_t));
	w.clen = xcalloc(nb, sizeof(size_t));
	for (size_t b = 0; b < nb; b++) {
		w.off[b] = o->block && !o->decode_only ? b * o->block : 0;
		w.blen[b] = o->block && !o->decode_only
			? (len - w.off[b] < o->block ? len - w.off[b] : o->block) : len;
	}
	w.threads = o->threads;
	if (w.threads > nb) {
		static int warned;

		if (!warned++ && !o->decode_only) {
			progress_clear();
			prof_warn("%s: only %zu block%s for %u threads: use -b to split the input",
				  name, nb, nb == 1 ? "" : "s", o->threads);
		}
		w.threads = (unsigned)nb;
	}
	w.ctx = xcalloc(o->threads, sizeof(*w.ctx));
	w.err = xcalloc(o->threads, sizeof(*w.err));
	if (!o->decode_only) {
		w.dbuf = xmalloc(len ? len : 1);
		memset(w.dbuf, 0, len);	/* pre-touch */
		w.dbuf_cap = len;
	}
	for (size_t i = 0; i < sel->n; i++) {
		PROF_GROW(rows->v, rows->n + 1, rows->cap);
		if (o->decode_only)
			bench_decode_only(&w, &sel->v[i], name, &rows->v[rows->n]);
		else
			bench_cell(&w, &sel->v[i], name, ref_crc, &rows->v[rows->n]);
		rows->n++;
	}
	free(w.off);
	free(w.blen);
	free(w.coff);
	free(w.ccap);
	free(w.clen);
	free(w.cbuf);
	free(w.dbuf);
	free(w.ctx);
	free(w.err);
}

/* ---- Pareto frontier and recommendations ---- */

static int row_ok(const struct row *r)
{
	return r->status == ST_OK && strcmp(r->codec->name, "memcpy") != 0;
}

static double row_ratio(const struct row *r)
{
	return r->comp ? (double)r->orig / (double)r->comp : -1;
}

/* Flag rows of [lo, hi) not dominated in (ratio, speed). */
static void mark_pareto(struct rows *rows, size_t lo, size_t hi)
{
	for (size_t i = lo; i < hi; i++) {
		struct row *a = &rows->v[i];
		int dom_c = 0, dom_d = 0;

		if (!row_ok(a))
			continue;
		for (size_t j = lo; j < hi; j++) {
			const struct row *b = &rows->v[j];
			double ra = row_ratio(a), rb = row_ratio(b);

			if (j == i || !row_ok(b))
				continue;
			if (rb >= ra && b->cspeed >= a->cspeed && (rb > ra || b->cspeed > a->cspeed))
				dom_c = 1;
			if (rb >= ra && b->dspeed >= a->dspeed && (rb > ra || b->dspeed > a->dspeed))
				dom_d = 1;
		}
		a->pareto_c = !dom_c;
		a->pareto_d = !dom_d;
	}
}

struct constraint {
	int metric;	/* 0 cspeed, 1 dspeed, 2 ratio, 3 cmem, 4 dmem */
	int op;		/* 0 >=, 1 <=, 2 >, 3 <, 4 = */
	double value;
};

static const char *const metric_names[] = { "cspeed", "dspeed", "ratio", "cmem", "dmem" };

static size_t parse_constraints(const char *expr, struct constraint **out)
{
	struct constraint *v = NULL;
	size_t n = 0, cap = 0;
	char *copy = xstrdup(expr), *save = NULL;

	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct constraint c;
		size_t k = strcspn(tok, "<>=");
		char *val;
		size_t m;

		while (*tok == ' ')
			tok++, k--;
		for (m = 0; m < 5; m++)
			if (strlen(metric_names[m]) == k && strncmp(tok, metric_names[m], k) == 0)
				break;
		if (m == 5)
			prof_usage_error(SYNOPSIS, "--recommend: unknown metric in '%s' "
					 "(cspeed, dspeed, ratio, cmem, dmem)", tok);
		c.metric = (int)m;
		val = tok + k;
		if (strncmp(val, ">=", 2) == 0)
			c.op = 0, val += 2;
		else if (strncmp(val, "<=", 2) == 0)
			c.op = 1, val += 2;
		else if (*val == '>')
			c.op = 2, val++;
		else if (*val == '<')
			c.op = 3, val++;
		else if (*val == '=')
			c.op = 4, val++;
		else
			prof_usage_error(SYNOPSIS, "--recommend: missing operator in '%s'", tok);
		if (c.metric >= 3) {
			uint64_t sz;

			if (prof_parse_size(val, &sz))
				prof_usage_error(SYNOPSIS, "--recommend: bad size '%s' in '%s'", val, tok);
			c.value = (double)sz;
		} else if (prof_parse_double(val, &c.value)) {
			prof_usage_error(SYNOPSIS, "--recommend: bad number '%s' in '%s'", val, tok);
		}
		PROF_GROW(v, n + 1, cap);
		v[n++] = c;
	}
	free(copy);
	if (n == 0)
		prof_usage_error(SYNOPSIS, "--recommend: empty constraint");
	*out = v;
	return n;
}

static int meets(const struct row *r, const struct constraint *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		double v;

		switch (c[i].metric) {
		case 0: v = r->cspeed; break;
		case 1: v = r->dspeed; break;
		case 2: v = row_ratio(r); break;
		case 3: v = (double)r->cmem; break;
		default: v = (double)r->dmem; break;
		}
		if (v < 0)
			return 0;	/* unknown never meets a constraint */
		switch (c[i].op) {
		case 0: if (!(v >= c[i].value)) return 0; break;
		case 1: if (!(v <= c[i].value)) return 0; break;
		case 2: if (!(v > c[i].value)) return 0; break;
		case 3: if (!(v < c[i].value)) return 0; break;
		default: if (!(v == c[i].value)) return 0; break;
		}
	}
	return 1;
}

/* ---- output ---- */

static void fmt_speed(char *buf, size_t n, double v)
{
	if (v < 0)
		buf[0] = '\0';
	else
		snprintf(buf, n, v < 10 ? "%.3f" : "%.1f", v);
}

static void fmt_opt_int(char *buf, size_t n, long long v)
{
	if (v < 0)
		buf[0] = '\0';
	else
		snprintf(buf, n, "%lld", v);
}

static const char *status_text(const struct row *r)
{
	return r->status == ST_OK ? "ok" : "failed";
}

static void flags_text(const struct row *r, char *buf, size_t n)
{
	struct prof_buf b = PROF_BUF_INIT;

	if (r->status == ST_COMP_ERROR)
		prof_buf_addstr(&b, ",comp-error");
	else if (r->status == ST_DECOMP_ERROR)
		prof_buf_addstr(&b, ",decomp-error");
	else if (r->status == ST_MISMATCH)
		prof_buf_addstr(&b, ",mismatch");
	if (r->suspect_c)
		prof_buf_addstr(&b, ",suspect-comp");
	if (r->suspect_d)
		prof_buf_addstr(&b, ",suspect-decomp");
	if (r->pareto_c)
		prof_buf_addstr(&b, ",pareto-comp");
	if (r->pareto_d)
		prof_buf_addstr(&b, ",pareto-decomp");
	snprintf(buf, n, "%s", b.len ? b.data + 1 : "-");
	prof_buf_release(&b);
}

/*
 * The fields of one row as text, in schema order; field 0 (the input name,
 * of any length) is left empty: use field_of().
 */
#define NCOLS 15
static void row_fields(const struct row *r, char f[NCOLS][128])
{
	f[0][0] = '\0';
	snprintf(f[1], 128, "%s", r->codec->name);
	level_text(r, f[2], 128);
	snprintf(f[3], 128, "%llu", (unsigned long long)r->block_bytes);
	snprintf(f[4], 128, "%llu", (unsigned long long)r->orig);
	fmt_opt_int(f[5], 128, r->have_comp ? (long long)r->comp : -1);
	if (r->have_comp && r->comp)
		snprintf(f[6], 128, "%.3f", row_ratio(r));
	else
		f[6][0] = '\0';
	fmt_speed(f[7], 128, r->cspeed);
	fmt_speed(f[8], 128, r->dspeed);
	fmt_speed(f[9], 128, r->ccpu);
	fmt_speed(f[10], 128, r->dcpu);
	fmt_opt_int(f[11], 128, r->cmem);
	fmt_opt_int(f[12], 128, r->dmem);
	snprintf(f[13], 128, "%s", status_text(r));
	flags_text(r, f[14], 128);
}

static const char *field_of(const struct row *r, char f[NCOLS][128], int c)
{
	return c == 0 ? r->input : f[c];
}

/* Input names go into TSV fields: no tabs or newlines. */
static char *field_safe(const char *s)
{
	char *c = xstrdup(s);

	for (char *p = c; *p; p++)
		if (*p == '\t' || *p == '\n' || *p == '\r')
			*p = ' ';
	return c;
}

static void write_tsv(struct prof_output *out, const struct prof_buf *meta,
		      const struct rows *rows)
{
	const struct prof_tsv_schema *s = prof_tsv_schema_find("profcompress");
	char f[NCOLS][128];

	prof_output_write(out, meta->data, meta->len);
	prof_output_puts(out, prof_tsv_header(s));
	for (size_t i = 0; i < rows->n; i++) {
		row_fields(&rows->v[i], f);
		for (int c = 0; c < NCOLS; c++)
			prof_output_printf(out, "%s%s", field_of(&rows->v[i], f, c),
					   c + 1 < NCOLS ? "\t" : "\n");
	}
}

static void write_human(struct prof_output *out, const struct rows *rows)
{
	static const char *const head[] = {
		"input", "codec", "level", "ratio", "comp MB/s", "decomp MB/s",
		"comp bytes", "comp mem", "decomp mem", "status", "flags",
	};
	static const int map[] = { 0, 1, 2, 6, 7, 8, 5, 11, 12, 13, 14 };
	enum { NH = sizeof(head) / sizeof(head[0]) };
	int width[NH];
	char f[NCOLS][128];

	for (int c = 0; c < NH; c++)
		width[c] = (int)strlen(head[c]);
	for (size_t i = 0; i < rows->n; i++) {
		row_fields(&rows->v[i], f);
		for (int c = 0; c < NH; c++) {
			const char *v = field_of(&rows->v[i], f, map[c]);
			char hb[32];

			if ((c == 7 || c == 8) && *v) {
				prof_fmt_bytes(hb, sizeof(hb), strtod(v, NULL));
				v = hb;
			}
			if ((int)strlen(v) > width[c])
				width[c] = (int)strlen(v);
		}
	}
	for (int c = 0; c < NH; c++)
		prof_output_printf(out, c < 3 || c >= 9 ? "%-*s%s" : "%*s%s",
				   c + 1 < NH ? width[c] : 0, head[c], c + 1 < NH ? "  " : "\n");
	for (size_t i = 0; i < rows->n; i++) {
		row_fields(&rows->v[i], f);
		for (int c = 0; c < NH; c++) {
			const char *v = field_of(&rows->v[i], f, map[c]);
			char hb[32];

			if ((c == 7 || c == 8) && *v) {
				prof_fmt_bytes(hb, sizeof(hb), strtod(v, NULL));
				v = hb;
			}
			if (!*v)
				v = "-";
			prof_output_printf(out, c < 3 || c >= 9 ? "%-*s%s" : "%*s%s",
					   c + 1 < NH ? width[c] : 0, v, c + 1 < NH ? "  " : "\n");
		}
	}
}

/* ---- inputs ---- */

/* Read a file as it is (no transparent decompression). */
static char *read_raw(const char *path, size_t *len)
{
	int fd = (!path || strcmp(path, "-") == 0) ? STDIN_FILENO : open(path, O_RDONLY);
	const char *name = fd == STDIN_FILENO ? "<stdin>" : path;
	struct prof_buf b = PROF_BUF_INIT;

	if (fd < 0) {
		prof_warn_errno("%s", path);
		return NULL;
	}
	for (;;) {
		ssize_t r;

		prof_buf_grow(&b, 1 << 20);
		r = read(fd, b.data + b.len, b.cap - b.len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			prof_warn_errno("%s", name);
			if (fd != STDIN_FILENO)
				close(fd);
			prof_buf_release(&b);
			return NULL;
		}
		if (r == 0)
			break;
		b.len += (size_t)r;
		b.data[b.len] = '\0';
	}
	if (fd != STDIN_FILENO)
		close(fd);
	return prof_buf_detach(&b, len);
}

static void list_codecs(void)
{
	printf("%-11s %-14s %-7s %-9s %s\n", "codec", "levels", "default", "version",
	       "description");
	for (size_t i = 0; prof_codecs[i]; i++) {
		const struct prof_codec *c = prof_codecs[i];
		char levels[32], def[16];

		if (prof_codec_has_levels(c)) {
			snprintf(levels, sizeof(levels), "%d..%d", c->min_level, c->max_level);
			snprintf(def, sizeof(def), "%d", c->default_level);
		} else {
			snprintf(levels, sizeof(levels), "-");
			snprintf(def, sizeof(def), "-");
		}
		printf("%-11s %-14s %-7s %-9s %s%s\n", c->name, levels, def, prof_codec_version(c),
		       c->desc, (c->flags & PROF_CODEC_F_DICT) ? " [-D]" : "");
	}
	if (*prof_codec_missing())
		printf("not built (library not found):%s\n", prof_codec_missing());
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		printf("alias %s = %s\n", aliases[i].name, aliases[i].spec);
}

int main(int argc, char **argv)
{
	struct options o;
	struct selection sel = { 0 };
	struct prof_buf spec = PROF_BUF_INIT;
	struct prof_buf meta = PROF_BUF_INIT;
	struct prof_meta run = PROF_META_INIT, libs = PROF_META_INIT;
	struct rows rows = { 0 };
	struct constraint *cons = NULL;
	size_t ncons = 0;
	const char *outpath = NULL;
	struct prof_output *out;
	int opt, rval = PROF_EXIT_OK, list = 0;
	char **files;
	int nfiles;
	char *joined = NULL;
	size_t joined_len = 0;

	prof_set_progname(argv[0]);
	memset(&o, 0, sizeof(o));
	o.seconds = 1;
	o.stat = PROF_BENCH_MIN;
	o.threads = 1;
	while ((opt = prof_getopt_long(argc, argv, "b:D:e:hlo:qT:t:v", long_options, NULL)) != -1) {
		switch (opt) {
		case 'b':
			if (prof_parse_size(optarg, &o.block) || o.block == 0)
				prof_usage_error(SYNOPSIS, "-b: bad block size '%s'", optarg);
			break;
		case 'D':
			o.dict_path = optarg;
			break;
		case 'e':
			if (spec.len)
				prof_buf_addch(&spec, '/');
			prof_buf_addstr(&spec, optarg);
			break;
		case 'h':
			prof_help(help_text);
		case 'l':
			list = 1;
			break;
		case 'o':
			outpath = optarg;
			break;
		case 'q':
			prof_verbosity = 0;
			break;
		case 'T': {
			uint64_t n;

			if (prof_parse_u64(optarg, &n) || n < 1 || n > 1024)
				prof_usage_error(SYNOPSIS, "-T: bad thread count '%s' (1..1024)", optarg);
			o.threads = (unsigned)n;
			break;
		}
		case 't':
			if (prof_parse_duration(optarg, 1, &o.seconds) || o.seconds <= 0 ||
			    o.seconds > 86400)
				prof_usage_error(SYNOPSIS, "-t: bad duration '%s'", optarg);
			break;
		case 'v':
			prof_verbosity++;
			break;
		case OPT_BATCH:
			if (prof_parse_duration(optarg, 1, &o.batch) || o.batch <= 0 || o.batch > 3600)
				prof_usage_error(SYNOPSIS, "--batch: bad duration '%s'", optarg);
			break;
		case OPT_DECODE_ONLY:
			o.decode_only = 1;
			break;
		case OPT_HUMAN:
			o.human = 1;
			break;
		case OPT_JOIN:
			o.join = 1;
			break;
		case OPT_PARETO:
			o.pareto = 1;
			break;
		case OPT_RECOMMEND:
			o.recommend = optarg;
			break;
		case OPT_STAT:
			if (prof_bench_stat_parse(optarg, &o.stat))
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
	if (list) {
		list_codecs();
		return prof_close_stdout();
	}
	if (o.decode_only && !spec.len)
		prof_usage_error(SYNOPSIS, "--decode-only needs -e with the codec of the input");
	parse_spec(&sel, spec.len ? prof_buf_cstr(&spec) : "default", 0);
	if (sel.n == 0)
		prof_usage_error(SYNOPSIS, "-e: no codec selected");
	if (o.decode_only) {
		for (size_t i = 0; i < sel.n; i++) {
			if (!(sel.v[i].codec->flags & PROF_CODEC_F_SIZED))
				prof_usage_error(SYNOPSIS, "--decode-only: %s records no decompressed "
						 "size; use its framed variant", sel.v[i].codec->name);
		}
		/* one row per codec: the level does not matter for decoding */
		for (size_t i = 0, j = 0; i < sel.n; i++) {
			size_t k;

			for (k = 0; k < j; k++)
				if (sel.v[k].codec == sel.v[i].codec)
					break;
			if (k == j)
				sel.v[j++] = sel.v[i];
			if (i + 1 == sel.n)
				sel.n = j;
		}
		if (o.block)
			prof_usage_error(SYNOPSIS, "--decode-only and -b exclude each other");
	}
	if (o.dict_path) {
		for (size_t i = 0; i < sel.n; i++) {
			if (!(sel.v[i].codec->flags & PROF_CODEC_F_DICT))
				prof_usage_error(SYNOPSIS, "-D: %s does not support dictionaries "
						 "(zstd and zlib do)", sel.v[i].codec->name);
		}
		o.dict = read_raw(o.dict_path, &o.dictlen);
		if (!o.dict)
			return PROF_EXIT_FAIL;
	}
	if (o.recommend)
		ncons = parse_constraints(o.recommend, &cons);

	files = argv + optind;
	nfiles = argc - optind;
	if (nfiles == 0) {
		static char *stdin_only[] = { (char *)"-", NULL };

		files = stdin_only;
		nfiles = 1;
	}

	machine_meta(&run, &o);
	library_meta(&libs);
	prof_meta_format(&run, &meta);
	prof_meta_format(&libs, &meta);

	progress_init((o.join ? 1 : (size_t)nfiles) * sel.n);
	for (int i = 0; i < nfiles; i++) {
		const char *path = files[i];
		const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
		struct prof_meta im = PROF_META_INIT;
		char hex[65], key[64];
		size_t len;
		char *data;
		char *safe;

		progress_clear();	/* read errors are reported on a line of their own */
		data = o.decode_only ? read_raw(path, &len) : prof_read_file(path, &len);

		if (data && len == 0) {
			/* Nothing to time: ratios and speeds would be meaningless. */
			progress_clear();
			prof_warn("%s: empty input", name);
			free(data);
			data = NULL;
		}
		if (!data) {
			rval = PROF_EXIT_FAIL;
			if (!o.join)
				progress.done += sel.n;
			continue;
		}
		prof_sha256_hex(data, len, hex);
		snprintf(key, sizeof(key), "input.%d", i + 1);
		prof_meta_set(&im, key, name);
		snprintf(key, sizeof(key), "input.%d.bytes", i + 1);
		prof_meta_setf(&im, key, "%zu", len);
		snprintf(key, sizeof(key), "input.%d.sha256", i + 1);
		prof_meta_set(&im, key, hex);
		prof_meta_format(&im, &meta);
		prof_meta_release(&im);
		if (o.join) {
			joined = xrealloc(joined, joined_len + len + 1);
			memcpy(joined + joined_len, data, len);
			joined_len += len;
			free(data);
			continue;
		}
		safe = field_safe(name);
		{
			size_t first = rows.n;

			bench_input(&o, &sel, safe, data, len, &rows);
			if (o.pareto)
				mark_pareto(&rows, first, rows.n);
		}
		free(safe);
		free(data);
	}
	if (o.join && (joined || nfiles > 0)) {
		char name[64], hex[65];
		struct prof_meta jm = PROF_META_INIT;

		snprintf(name, sizeof(name), "joined:%d", nfiles);
		if (!joined)
			joined = xmalloc(1);
		prof_sha256_hex(joined, joined_len, hex);
		prof_meta_setf(&jm, "joined.bytes", "%zu", joined_len);
		prof_meta_set(&jm, "joined.sha256", hex);
		prof_meta_format(&jm, &meta);
		prof_meta_release(&jm);
		if (rval == PROF_EXIT_OK) {
			bench_input(&o, &sel, name, joined, joined_len, &rows);
			if (o.pareto)
				mark_pareto(&rows, 0, rows.n);
		}
		free(joined);
	}

	progress_clear();
	for (size_t i = 0; i < rows.n; i++)
		if (rows.v[i].status != ST_OK)
			rval = PROF_EXIT_FAIL;
	if (prof_verbosity > 0) {
		size_t nsus = 0;

		for (size_t i = 0; i < rows.n; i++)
			nsus += rows.v[i].suspect_c || rows.v[i].suspect_d;
		if (nsus)
			prof_warn("%zu row%s flagged suspect: CPU time and wall time disagree "
				  "(a busy or throttled machine); rerun on an idle one",
				  nsus, nsus == 1 ? "" : "s");
	}

	/*
	 * The table goes to -o, or to stdout unless --recommend owns stdout;
	 * none when no input could be benchmarked (-o's file is left alone).
	 */
	if ((!o.recommend || outpath) && (rows.n || rval == PROF_EXIT_OK)) {
		out = prof_output_open(outpath, PROF_OUT_ATOMIC, PROF_COMP_NONE);
		if (!out)
			return PROF_EXIT_FAIL;
		if (o.human)
			write_human(out, &rows);
		else
			write_tsv(out, &meta, &rows);
		if (prof_output_close(out))
			rval = PROF_EXIT_FAIL;
	}
	if (o.recommend) {
		size_t i = 0;

		while (i < rows.n) {
			size_t j = i, best = SIZE_MAX;

			while (j < rows.n && strcmp(rows.v[j].input, rows.v[i].input) == 0)
				j++;
			for (size_t k = i; k < j; k++) {
				if (!row_ok(&rows.v[k]) || !meets(&rows.v[k], cons, ncons))
					continue;
				if (best == SIZE_MAX || row_ratio(&rows.v[k]) > row_ratio(&rows.v[best]))
					best = k;
			}
			if (best == SIZE_MAX) {
				prof_warn("%s: no codec and level meets '%s'", rows.v[i].input, o.recommend);
				rval = PROF_EXIT_FAIL;
			} else {
				const struct row *r = &rows.v[best];
				char lv[16];

				level_text(r, lv, sizeof(lv));
				printf("%s\t%s%s%s\tratio=%.3f\tcspeed=%.1f\tdspeed=%.1f\n", r->input,
				       r->codec->name, r->level == PROF_CODEC_NOLEVEL ? "" : ":",
				       r->level == PROF_CODEC_NOLEVEL ? "" : lv, row_ratio(r),
				       r->cspeed, r->dspeed);
			}
			i = j;
		}
	}

	for (size_t i = 0; i < rows.n; i++)
		free(rows.v[i].input);
	free(rows.v);
	free(sel.v);
	free(cons);
	free(o.dict);
	prof_buf_release(&spec);
	prof_buf_release(&meta);
	prof_meta_release(&run);
	prof_meta_release(&libs);
	return rval | prof_close_stdout();
}
