#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "base/error.h"
#include "io/chunk.h"
#include "io/input.h"
#include "base/xalloc.h"

/* Each block carries its capacity just before the data. */
struct block_head {
	size_t cap;
	struct block_head *next_free;
	max_align_t align[];
};

#define HEAD(p) ((struct block_head *)((char *)(p) - offsetof(struct block_head, align)))

struct prof_chunks {
	struct prof_input *in;
	size_t target;
	size_t max;		/* prof_max_line() when opened */
	unsigned long lines, too_long;	/* newlines handed over; lines dropped */
	char *carry;		/* bytes read past the last boundary */
	size_t carry_len, carry_cap;
	int eof;
	pthread_mutex_t lock;
	struct block_head *free_list;
};

struct prof_chunks *prof_chunks_open(struct prof_input *in, size_t target)
{
	struct prof_chunks *r = xcalloc(1, sizeof(*r));

	r->in = in;
	r->target = target < 4096 ? 4096 : target;
	r->max = prof_max_line();
	pthread_mutex_init(&r->lock, NULL);
	return r;
}

static char *block_alloc(struct prof_chunks *r, size_t cap)
{
	struct block_head *h;

	pthread_mutex_lock(&r->lock);
	h = r->free_list;
	if (h && h->cap >= cap)
		r->free_list = h->next_free;
	else
		h = NULL;
	pthread_mutex_unlock(&r->lock);
	if (!h) {
		h = xmalloc(sizeof(*h) + cap + 1);
		h->cap = cap;
	}
	return (char *)h->align;
}

static char *block_grow(char *p, size_t cap)
{
	struct block_head *h = xrealloc(HEAD(p), sizeof(*h) + cap + 1);

	h->cap = cap;
	return (char *)h->align;
}

void prof_chunks_recycle(struct prof_chunks *r, char *block)
{
	struct block_head *h;

	if (!block)
		return;
	h = HEAD(block);
	pthread_mutex_lock(&r->lock);
	h->next_free = r->free_list;
	r->free_list = h;
	pthread_mutex_unlock(&r->lock);
}

/* Read into p[*len..cap) until *len >= want or end of input. */
static void fill(struct prof_chunks *r, char *p, size_t *len, size_t cap, size_t want)
{
	while (*len < want && *len < cap && !r->eof) {
		ssize_t n = prof_input_read(r->in, p + *len, cap - *len);

		if (n <= 0)
			r->eof = 1;
		else
			*len += (size_t)n;
	}
}

char *prof_chunks_read_all(struct prof_chunks *r, size_t max, size_t *len)
{
	size_t n = r->carry_len, cap = n + ((size_t)1 << 16);
	char *buf = xmalloc(cap + 1);

	if (n)
		memcpy(buf, r->carry, n);
	r->carry_len = 0;
	/* a plain file's size is known: refuse it before holding any of it */
	if (!r->eof && n <= max && prof_input_size_left(r->in) > (long long)(max - n))
		n = max + 1;
	while (!r->eof && n <= max) {
		if (n == cap) {
			/* one byte past max tells an input of exactly max from a larger one */
			cap = cap > max / 2 ? max + 1 : cap * 2;
			buf = xrealloc(buf, cap + 1);
		}
		fill(r, buf, &n, cap, cap);
	}
	if (n > max) {
		prof_warn("%s: larger than %zu bytes", prof_chunks_name(r), max);
		r->eof = 1;
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

const char *prof_chunks_peek(struct prof_chunks *r, size_t want, size_t *len)
{
	if (r->carry_len < want && !r->eof) {
		PROF_GROW(r->carry, want + 1, r->carry_cap);
		fill(r, r->carry, &r->carry_len, want, want);
	}
	*len = r->carry_len;
	return r->carry ? r->carry : "";
}

/*
 * End of the last boundary whose newline lies in p[from..len), or 0 if
 * there is none. p[0] starts a line.
 */
static size_t last_boundary(const char *p, size_t from, size_t len,
			    enum prof_chunk_boundary kind)
{
	const char *nl;
	size_t n = len;

	while (n > from && (nl = memrchr(p + from, '\n', n - from)) != NULL) {
		size_t i = (size_t)(nl - p);

		if (kind == PROF_CHUNK_LINE)
			return i + 1;
		/* An empty line: "\n" at a line start, or "\r\n" there. */
		if (i == 0 || p[i - 1] == '\n')
			return i + 1;
		if (p[i - 1] == '\r' && (i == 1 || p[i - 2] == '\n'))
			return i + 1;
		n = i;
	}
	return 0;
}

/*
 * The input broke off (a cut compressed stream, a read error): its last
 * line is incomplete, and a count cut short ("12345" of "123456789")
 * would be folded as if whole. Leave it out, said once; returns the
 * length that ends at the last complete line.
 */
static size_t drop_cut_line(struct prof_chunks *r, const char *p, size_t n)
{
	const char *nl = memrchr(p, '\n', n);

	prof_warn("%s: the input is cut short: its incomplete last line is left out",
		  prof_input_name(r->in));
	return nl ? (size_t)(nl - p) + 1 : 0;
}

/*
 * Line lineno is over the cap: report it and stop reading, the line and
 * what follows it dropped (reading on to its newline never ended on an
 * input without one, /dev/zero).
 */
static void too_long(struct prof_chunks *r, unsigned long lineno)
{
	r->too_long++;
	prof_input_warn(prof_input_name(r->in), lineno,
			"line longer than %zu bytes (PROFTOOLS_MAX_LINE raises the cap)", r->max);
	r->eof = 1;
	r->carry_len = 0;
}

/*
 * The block p[0..n) is handed over: count its lines (for the numbers in
 * messages) and cut it before the first line over the cap, which ends
 * the reading. Returns the new length.
 */
static size_t check_lines(struct prof_chunks *r, char *p, size_t n)
{
	size_t start = 0;

	while (start < n) {
		char *nl = memchr(p + start, '\n', n - start);
		size_t end = nl ? (size_t)(nl - p) : n;

		if (end - start > r->max) {
			too_long(r, r->lines + 1);
			return start;
		}
		if (!nl)
			break;
		r->lines++;
		start = end + 1;
	}
	return n;
}

char *prof_chunks_next(struct prof_chunks *r, enum prof_chunk_boundary kind, size_t *len,
		       int *last)
{
	size_t cap = r->target + r->target / 2, n, b, scanned = 0, line = 0;
	char *p;

	if (r->eof && r->carry_len == 0)
		return NULL;
	if (cap < r->carry_len * 2)
		cap = r->carry_len * 2;
	p = block_alloc(r, cap);
	cap = HEAD(p)->cap;
	if (r->carry_len)
		memcpy(p, r->carry, r->carry_len);
	n = r->carry_len;
	r->carry_len = 0;
	for (;;) {
		const char *nl;

		fill(r, p, &n, cap, scanned + r->target);
		if (r->eof && n && p[n - 1] != '\n' && prof_input_failed(r->in))
			n = drop_cut_line(r, p, n);
		/* p[line..n): the line still open; over the cap, it goes */
		if (n > scanned && (nl = memrchr(p + scanned, '\n', n - scanned)) != NULL)
			line = (size_t)(nl - p) + 1;
		if (r->eof || n - line > r->max) {
			/* the open line over the cap: the lines before it go, then nothing */
			int open_too_long = !r->eof;

			*len = check_lines(r, p, open_too_long ? line : n);
			if (open_too_long && !r->eof)
				too_long(r, r->lines + 1);
			if (*len == 0) {
				prof_chunks_recycle(r, p);
				return NULL;
			}
			*last = 1;
			p[*len] = '\0';
			return p;
		}
		b = last_boundary(p, scanned, n, kind);
		if (b) {
			PROF_GROW(r->carry, n - b + 1, r->carry_cap);
			memcpy(r->carry, p + b, n - b);
			r->carry_len = n - b;
			*len = check_lines(r, p, b);
			*last = r->eof && r->carry_len == 0;	/* a long line stopped it */
			p[*len] = '\0';
			return p;
		}
		/* No boundary yet: one long line or sample; read on. */
		scanned = n;
		if (n + r->target > cap) {
			cap = cap * 2 > n + r->target ? cap * 2 : n + r->target;
			p = block_grow(p, cap);
		}
	}
}

const char *prof_chunks_name(const struct prof_chunks *r)
{
	return prof_input_name(r->in);
}

int prof_chunks_failed(const struct prof_chunks *r)
{
	return prof_input_failed(r->in);
}

unsigned long prof_chunks_too_long(const struct prof_chunks *r)
{
	return r->too_long;
}

void prof_chunks_close(struct prof_chunks *r)
{
	struct block_head *h, *next;

	if (!r)
		return;
	prof_input_close(r->in);
	for (h = r->free_list; h; h = next) {
		next = h->next_free;
		free(h);
	}
	free(r->carry);
	pthread_mutex_destroy(&r->lock);
	free(r);
}
