#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "base/error.h"
#include "formats/block_line.h"
#include "formats/folded.h"
#include "io/chunk.h"
#include "io/input.h"
#include "io/output.h"
#include "base/xalloc.h"

/* Report at most this many malformed lines individually, then a count. */
#define MAX_REPORTED 10

static int is_space(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * Parse a trailing count ending at line[end) : -?digits[.digits].
 * Integers are read exactly (digit by digit, up to 2^64-1), decimals with
 * strtold. Returns the start index of the count, -1 when there is none,
 * -2 when it is above PROF_WEIGHT_MAX.
 */
static long trailing_count(const char *line, size_t end, prof_weight *v)
{
	size_t i = end, digits = 0, k;
	int decimal = 0;
	char tmp[64];

	while (i > 0 && line[i - 1] >= '0' && line[i - 1] <= '9')
		i--, digits++;
	if (digits && i > 0 && line[i - 1] == '.') {	/* "5." is no count: digits after the point */
		size_t j = i - 1, d2 = 0;

		while (j > 0 && line[j - 1] >= '0' && line[j - 1] <= '9')
			j--, d2++;
		if (d2) {
			i = j;
			digits += d2;
			decimal = 1;
		}
	}
	if (!digits)
		return -1;
	if (!decimal) {
		uint64_t u = 0;

		for (k = i; k < end; k++) {
			unsigned d = (unsigned)(line[k] - '0');

			if (u > (UINT64_MAX - d) / 10)
				return -2;
			u = u * 10 + d;
		}
		*v = (prof_weight)u;
	}
	if (i > 0 && line[i - 1] == '-')
		i--;
	if (decimal) {
		if (end - i >= sizeof(tmp))
			return -1;
		memcpy(tmp, line + i, end - i);
		tmp[end - i] = '\0';
		*v = strtold(tmp, NULL);
		if (!isfinite(*v))
			return -1;
		if (fabsl(*v) > PROF_WEIGHT_MAX)
			return -2;
	} else if (line[i] == '-') {
		*v = -*v;
	}
	return (long)i;
}

/* Parse with a required number of counts (1 or 2). */
static int parse_n(char *line, size_t len, struct prof_folded_line *out, int want,
		   const char **why)
{
	size_t end = len;
	int k;

	while (end > 0 && is_space(line[end - 1]))
		end--;
	for (k = want - 1; k >= 0; k--) {
		long start = trailing_count(line, end, &out->counts[k]);

		if (start == -2) {
			*why = "count above 18446744073709551615 (2^64-1)";
			return -1;
		}
		if (start < 0) {
			*why = end == 0 ? "empty line" : "missing count";
			return -1;
		}
		if (start == 0 || !is_space(line[start - 1])) {
			*why = start == 0 ? "missing stack" : "missing count";
			return -1;
		}
		/*
		 * One blank separates a count from what precedes it: a frame
		 * may itself end in a space ("<bool "), as flamegraph.pl's
		 * /^(.*)\s+?(\d+)$/ keeps it.
		 */
		end = (size_t)start - 1;
	}
	if (end == 0) {
		*why = "empty stack";
		return -1;
	}
	out->stack = line;
	out->stack_len = end;
	out->ncounts = want;
	return 0;
}

int prof_folded_parse(char *line, size_t len, struct prof_folded_line *out, const char **why)
{
	/* Two counts when the field before the last is numeric too (difffolded). */
	if (parse_n(line, len, out, 2, why) == 0 || parse_n(line, len, out, 1, why) == 0) {
		*why = NULL;
		return 0;
	}
	return -1;
}

uint32_t prof_folded_add(struct prof_stacks *t, const char *stack, size_t len,
			 const prof_weight *counts, int ncounts)
{
	uint32_t small[128], *frames = small;
	size_t cap = sizeof(small) / sizeof(small[0]), depth = 0;
	const char *p = stack, *end = stack + len;
	uint32_t id;

	for (;;) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		const char *fe = semi ? semi : end;

		if (depth == cap) {
			uint32_t *bigger = xreallocarray(NULL, cap * 2, sizeof(*bigger));

			memcpy(bigger, frames, depth * sizeof(*frames));
			if (frames != small)
				free(frames);
			frames = bigger;
			cap *= 2;
		}
		frames[depth++] = prof_stacks_frame(t, p, (size_t)(fe - p));
		if (!semi)
			break;
		p = semi + 1;
	}
	/* Only the columns the line has: the table may have more, or fewer. */
	id = prof_stacks_add_columns(t, frames, depth, counts, ncounts > 0 ? (size_t)ncounts : 0);
	if (frames != small)
		free(frames);
	return id;
}

void prof_folded_reader_init(struct prof_folded_reader *fr, struct prof_stacks *t,
			     struct prof_meta *meta, struct prof_folded_stats *stats,
			     const char *name)
{
	memset(fr, 0, sizeof(*fr));
	fr->t = t;
	fr->meta = meta;
	fr->stats = stats;
	fr->name = name;
}

/*
 * difffolded.pl turns a "# ..." metadata line into " 0 0": no stack and
 * nothing counted. True for a line of blanks and zero counts that starts
 * with a blank.
 */
static int mangled_meta_line(const char *line, size_t len)
{
	size_t i;
	int zero = 0;

	if (!is_space(line[0]))
		return 0;
	for (i = 0; i < len; i++) {
		if (line[i] == '0')
			zero = 1;
		else if (!is_space(line[i]) && line[i] != '.')
			return 0;
	}
	return zero;
}

int prof_folded_reader_line(struct prof_folded_reader *fr, char *line, size_t len,
			    unsigned long lineno)
{
	struct prof_folded_stats *st = fr->stats;
	struct prof_folded_line fl;
	const char *why = NULL;
	uint32_t id;

	if (len == 0)
		return 0;
	if (line[0] == '#') {
		if (fr->meta && !fr->seen_data)
			prof_meta_parse_line(fr->meta, line, len);
		return 0;
	}
	if (mangled_meta_line(line, len))
		return 0;
	fr->seen_data = 1;
	if (!st->ncounts) {
		if (prof_folded_parse(line, len, &fl, &why) == 0)
			st->ncounts = fl.ncounts;
	} else if (parse_n(line, len, &fl, st->ncounts, &why) != 0 && st->ncounts == 2) {
		const char *one_count_why;

		if (parse_n(line, len, &fl, 1, &one_count_why) == 0)
			why = "expected two counts (differential input)";
	}
	if (!why && (fl.counts[0] < 0 || (fl.ncounts == 2 && fl.counts[1] < 0)))
		why = "negative count";
	if (why) {
		if (++fr->bad <= MAX_REPORTED)
			prof_input_warn(fr->name, lineno, "%s", why);
		st->malformed++;
		return -1;
	}
	id = prof_folded_add(fr->t, fl.stack, fl.stack_len, fl.counts, fl.ncounts);
	if (fr->on_stack)
		fr->on_stack(fr->ctx, id, fl.counts, fl.ncounts);
	st->lines++;
	return 0;
}

int prof_folded_reader_finish(struct prof_folded_reader *fr)
{
	if (fr->bad > MAX_REPORTED)
		prof_input_warn(fr->name, 0, "%lu malformed lines in all", fr->bad);
	return fr->bad ? -1 : 0;
}

int prof_folded_reader_run(struct prof_folded_reader *fr, struct prof_lines *lr)
{
	size_t len;
	char *line;
	int r;

	while ((line = prof_lines_next(lr, &len)) != NULL)
		prof_folded_reader_line(fr, line, len, prof_lines_lineno(lr));
	r = prof_folded_reader_finish(fr);
	return r || prof_lines_failed(lr) || prof_lines_too_long(lr) ? -1 : 0;
}

int prof_folded_reader_run_chunks(struct prof_folded_reader *fr, struct prof_chunks *r)
{
	unsigned long lineno = 0;
	int last = 0, rv;
	size_t len;
	char *block;

	while ((block = prof_chunks_next(r, PROF_CHUNK_LINE, &len, &last)) != NULL) {
		char *pos = block, *line;
		size_t n;

		while ((line = prof_block_next_line(&pos, block + len, &n)) != NULL)
			prof_folded_reader_line(fr, line, n, ++lineno);
		prof_chunks_recycle(r, block);
	}
	rv = prof_folded_reader_finish(fr);
	return rv || prof_chunks_failed(r) || prof_chunks_too_long(r) ? -1 : 0;
}

int prof_folded_read(struct prof_lines *lr, struct prof_stacks *t,
		     struct prof_meta *meta, struct prof_folded_stats *stats)
{
	struct prof_folded_stats local = { 0, 0, 0 };
	struct prof_folded_reader fr;

	prof_folded_reader_init(&fr, t, meta, stats ? stats : &local, prof_lines_name(lr));
	return prof_folded_reader_run(&fr, lr);
}

size_t prof_format_count(char *buf, prof_weight v)
{
	int n, prec, e;

	if (v > PROF_WEIGHT_MAX)
		v = PROF_WEIGHT_MAX;
	else if (v < -PROF_WEIGHT_MAX)
		v = -PROF_WEIGHT_MAX;
	if (v == floorl(v)) {
		/* Integers, the common case, exactly and without printf. */
		uint64_t u = (uint64_t)fabsl(v);
		char tmp[24];
		size_t len = 0, i = 0;

		do
			tmp[len++] = (char)('0' + u % 10);
		while ((u /= 10) != 0);
		if (v < 0)
			buf[i++] = '-';
		while (len)
			buf[i++] = tmp[--len];
		buf[i] = '\0';
		return i;
	}
	/*
	 * Plain decimal, 15 significant digits (what a sum of decimal counts
	 * is good for), trailing zeros dropped; at most 28 decimals, so the
	 * text fits in 32 bytes. Non-integers are below 2^63 here.
	 */
	e = (int)floorl(log10l(fabsl(v)));
	prec = 14 - e;
	if (prec < 0)
		prec = 0;
	if (prec > 28)
		prec = 28;
	n = snprintf(buf, 32, "%.*Lf", prec, v);
	if (n < 0)
		return 0;
	if (memchr(buf, '.', (size_t)n)) {
		while (n > 0 && buf[n - 1] == '0')
			n--;
		if (n > 0 && buf[n - 1] == '.')
			n--;
		buf[n] = '\0';
	}
	if (strcmp(buf, "-0") == 0)
		n = (int)strlen(strcpy(buf, "0"));
	return (size_t)n;
}

int prof_folded_write(const struct prof_stacks *t, const struct prof_meta *meta,
		      size_t ncolumns, struct prof_output *o)
{
	struct prof_buf b = PROF_BUF_INIT;
	size_t n, i, c;
	uint32_t *ids = prof_stacks_sorted(t, &n);
	int r = 0;

	if (ncolumns < 1)
		ncolumns = 1;
	if (ncolumns > t->nweights)
		ncolumns = t->nweights;
	prof_meta_format(meta, &b);
	for (i = 0; i < n && r == 0; i++) {
		const prof_weight *w = prof_stacks_weights(t, ids[i]);

		prof_stacks_format(t, ids[i], &b);
		for (c = 0; c < ncolumns; c++) {
			prof_buf_grow(&b, 34);
			b.data[b.len++] = ' ';
			b.len += prof_format_count(b.data + b.len, w[c]);
		}
		prof_buf_addch(&b, '\n');
		if (b.len >= 1 << 16) {
			r = prof_output_write(o, b.data, b.len);
			prof_buf_reset(&b);
		}
	}
	if (r == 0 && b.len)
		r = prof_output_write(o, b.data, b.len);
	prof_buf_release(&b);
	free(ids);
	return r;
}

int prof_folded_name(const char *path)
{
	static const char *const suffixes[] = { ".folded", ".folded.gz", ".folded.zst", ".folded.lz4" };
	size_t n = path ? strlen(path) : 0, i, k;

	for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		k = strlen(suffixes[i]);
		if (n > k && strcmp(path + n - k, suffixes[i]) == 0)
			return 1;
	}
	return 0;
}
