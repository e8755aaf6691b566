/*
 * Parsing codec selections (selection.h).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/selection.h"
#include "base/error.h"
#include "base/xalloc.h"

const struct prof_codec_alias prof_codec_aliases[] = {
	{ "fast", "memcpy/lz4:1/lz4f:1/snappy/zstd:-5,1/libdeflate:1/zlib:1/brotli:1" },
	{ "default", "memcpy/lz4:1/lz4hc:9/lz4f:1/snappy/zstd:-5,1,3,9/libdeflate:1,6/"
		     "zlib:1,6/gzip:6/brotli:1,6/bzip2:9/xz:1" },
	{ "all", "memcpy/lz4:1-9,16,32,64/lz4hc:1-12/lz4f:1-12/snappy/zstd:-7--1,1-22/"
		 "libdeflate:0-12/zlib:0-9/gzip:0-9/brotli:0-11/bzip2:1-9/xz:0-9" },
	{ NULL, NULL },
};

/* What one parse needs to add cells and report an error. */
struct parse {
	struct prof_codec_cells *cells;
	const char *spec;		/* the spec being parsed, for messages */
	char *err;
	size_t errlen;
};

static int fail(struct parse *p, const char *fmt, ...) PROF_PRINTF(2, 3);

static int fail(struct parse *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->err, p->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* Add (codec, level) unless it is there already. */
static void cells_add(struct prof_codec_cells *cells, const struct prof_codec *c, int level)
{
	for (size_t i = 0; i < cells->n; i++)
		if (cells->v[i].codec == c && cells->v[i].level == level)
			return;
	PROF_GROW(cells->v, cells->n + 1, cells->cap);
	cells->v[cells->n].codec = c;
	cells->v[cells->n].level = level;
	cells->n++;
}

void prof_codec_cells_one_per_codec(struct prof_codec_cells *cells)
{
	size_t kept = 0;

	for (size_t i = 0; i < cells->n; i++) {
		size_t k = 0;

		while (k < kept && cells->v[k].codec != cells->v[i].codec)
			k++;
		if (k == kept)
			cells->v[kept++] = cells->v[i];
	}
	cells->n = kept;
}

void prof_codec_cells_release(struct prof_codec_cells *cells)
{
	free(cells->v);
	memset(cells, 0, sizeof(*cells));
}

void prof_codec_cell_name(const struct prof_codec *c, int level, char *buf, size_t n)
{
	if (level == PROF_CODEC_NOLEVEL)
		snprintf(buf, n, "%s", c->name);
	else
		snprintf(buf, n, "%s:%d", c->name, level);
}

/* Parse one signed level at *s; advances *s. */
static int parse_level(const char **s, int *out)
{
	const char *p = *s;
	long v;
	char *end;

	if (!(isdigit((unsigned char)p[0]) || (p[0] == '-' && isdigit((unsigned char)p[1]))))
		return -1;
	errno = 0;
	v = strtol(p, &end, 10);
	if (errno || v < INT_MIN + 1 || v > INT_MAX)
		return -1;
	*out = (int)v;
	*s = end;
	return 0;
}

/* A level outside the table's range: let the codec word it (zstd asks its library). */
static int check_level(struct parse *p, const struct prof_codec *c, int level)
{
	struct prof_codec_ctx *x;

	if (level >= c->min_level && level <= c->max_level)
		return 0;
	x = prof_codec_ctx_new(c, level, NULL, 0, p->err, p->errlen);
	if (!x)
		return -1;
	prof_codec_ctx_free(x);
	return 0;
}

/* The levels after "codec:", s: "1,3-5". */
static int parse_levels(struct parse *p, const struct prof_codec *c, const char *s)
{
	if (!*s)
		return fail(p, "%s: missing level after ':' in '%s'", c->name, p->spec);
	for (;;) {
		int lo, hi;

		if (parse_level(&s, &lo))
			return fail(p, "%s: bad level '%s' in '%s'", c->name, s, p->spec);
		hi = lo;
		if (*s == '-') {
			s++;
			if (parse_level(&s, &hi))
				return fail(p, "%s: bad range end '%s' in '%s'", c->name, s, p->spec);
			if (hi < lo)
				return fail(p, "%s: empty range %d-%d in '%s'", c->name, lo, hi, p->spec);
		}
		if (check_level(p, c, lo) || check_level(p, c, hi))
			return -1;
		/* each cell is a benchmark; a huge range (fuzz_selection: zstd's
		 * -131072..22) would also cost quadratic time to deduplicate */
		if ((long)hi - lo + 1 > PROF_CODEC_CELLS_MAX - (long)p->cells->n)
			return fail(p, "%s: %d-%d makes more than %d codec levels in '%s'", c->name,
				    lo, hi, PROF_CODEC_CELLS_MAX, p->spec);
		for (long l = lo; l <= hi; l++) {
			/* a level that means "the default" is not one of its own in a range */
			if (l == 0 && (c->flags & PROF_CODEC_F_ZERO_DEFAULT) && lo != hi)
				continue;
			cells_add(p->cells, c, (int)l);
		}
		if (*s == '\0')
			return 0;
		if (*s != ',')
			return fail(p, "%s: unexpected '%s' in '%s'", c->name, s, p->spec);
		s++;
	}
}

static int parse_spec(struct parse *p, const char *spec, int in_alias);

/* One item of a spec: name is "codec", "codec:levels" or an alias. */
static int parse_item(struct parse *p, char *name, int in_alias)
{
	char *colon = strchr(name, ':');
	const struct prof_codec *c;

	if (colon)
		*colon = '\0';
	for (size_t i = 0; !colon && prof_codec_aliases[i].name; i++)
		if (strcmp(name, prof_codec_aliases[i].name) == 0)
			return in_alias ? 0 : parse_spec(p, prof_codec_aliases[i].spec, 1);
	c = prof_codec_find(name);
	if (!c && prof_codec_is_not_built(name)) {
		if (in_alias)
			return 0;
		return fail(p, "codec '%s' is not available: this build did not find its library",
			    name);
	}
	if (!c)
		return fail(p, "unknown codec '%s' in '%s' (see profcompress -l)", name, p->spec);
	if (!colon) {
		cells_add(p->cells, c,
				     prof_codec_has_levels(c) ? c->default_level : PROF_CODEC_NOLEVEL);
		return 0;
	}
	if (!prof_codec_has_levels(c))
		return fail(p, "%s has no levels (write just '%s')", c->name, c->name);
	return parse_levels(p, c, colon + 1);
}

static int parse_spec(struct parse *p, const char *spec, int in_alias)
{
	const char *s = spec;
	const char *outer = p->spec;
	int rc = 0;

	p->spec = spec;
	while (rc == 0) {
		const char *slash = strchr(s, '/');
		size_t len = slash ? (size_t)(slash - s) : strlen(s);
		char *name;

		if (len == 0) {
			rc = fail(p, "empty item in '%s'", spec);
			break;
		}
		name = xstrndup(s, len);
		rc = parse_item(p, name, in_alias);
		free(name);
		if (!slash)
			break;
		s = slash + 1;
	}
	p->spec = outer;
	return rc;
}

int prof_codec_cells_parse(struct prof_codec_cells *cells, const char *spec,
			   char *err, size_t errlen)
{
	struct parse p = { cells, spec, err, errlen };

	return parse_spec(&p, spec, 0);
}
