#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/error.h"
#include "formats/block_line.h"
#include "formats/import.h"
#include "formats/perfreport.h"

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A line starting with prefix: what follows, else NULL. */
static const char *after(const char *line, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && memcmp(line, prefix, n) == 0 ? line + n : NULL;
}

int prof_perfreport_detect(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	int samples = 0, columns = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);

		if (!n || p[0] != '#')
			break;		/* the header is the first lines */
		samples |= after(p, n, "# Samples: ") != NULL;
		columns |= after(p, n, "# Overhead ") != NULL || after(p, n, "# Children ") != NULL;
		p = nl ? nl + 1 : end;
	}
	return samples && columns;
}

/* What reading has reached. */
struct report_state {
	int folding;			/* this event's section is the one folded */
	const char *event;		/* the event folded (in the buffer) */
	size_t event_len;
	prof_weight samples;		/* its "# Samples:" count ("2K": about 2000) */
	prof_weight events;		/* its "# Event count (approx.):" */
	prof_weight total;		/* the values of its chains added up */
	int percent, plain;		/* values seen with '%' and without */
	const char *sym;		/* the entry's symbol */
	size_t sym_len;
	int leaf_first;			/* the last chain's order */
	char skipped[256];		/* the other events' names, ", " between */
};

/* "# Samples: 74  of event 'cpu-clock:ppp'": a section starts. */
static void section(struct prof_import *imp, struct report_state *st, const char *s,
		    const char *end)
{
	const char *q = memmem(s, (size_t)(end - s), " of event '", 11), *e;
	prof_weight n = 0;
	size_t dn = strspn(s, "0123456789"), k;

	if (!q || (e = memchr(q + 11, '\'', (size_t)(end - q - 11))) == NULL)
		q = e = NULL;
	else
		q += 11;
	prof_import_count(s, dn, &n);
	if (s[dn] == 'K' || s[dn] == 'M')	/* perf rounds big counts: "2K" */
		n *= s[dn] == 'K' ? 1e3L : 1e6L;
	if (!st->event && q && (!imp->event || !*imp->event ||
				((size_t)(e - q) == strlen(imp->event) &&
				 memcmp(q, imp->event, (size_t)(e - q)) == 0))) {
		st->event = q;
		st->event_len = (size_t)(e - q);
		st->samples = n;
		st->folding = 1;
		return;
	}
	k = strlen(st->skipped);
	if (q && k + (size_t)(e - q) + 3 < sizeof(st->skipped))
		snprintf(st->skipped + k, sizeof(st->skipped) - k, "%s%.*s", k ? ", " : "",
			 (int)(e - q), q);
	st->folding = 0;
}

/* An entry line "    93.24%  work  work  [.] fib": its symbol. */
static void entry(struct report_state *st, const char *line, size_t n)
{
	const char *m = NULL, *p;

	for (p = line; p + 4 <= line + n; p++)
		if (p[0] == '[' && p[2] == ']' && p[3] == ' ')
			m = p + 4;
	if (!m) {
		for (m = line + n; m > line && m[-1] != ' '; m--)
			;
	}
	st->sym = m;
	st->sym_len = (size_t)(line + n - m);
}

/* Is sym[0..n) the first (last: the last) frame of the chain s[0..end)? */
static int same_frame(const char *s, const char *end, const char *sym, size_t n, int last)
{
	const char *f = last ? end - n : s;

	if ((size_t)(end - s) < n || memcmp(f, sym, n) != 0)
		return 0;
	return last ? f == s || f[-1] == ';' : f + n == end || f[n] == ';';
}

/* A chain line "VALUE a;b;c". */
static void chain(struct prof_import *imp, struct report_state *st, char *line, size_t n,
		  unsigned long lineno)
{
	char *sp = memchr(line, ' ', n), *f, *end = line + n, *semi;
	prof_weight w;
	int pct, starts, ends;

	if (!sp || sp + 1 >= end) {
		prof_import_bad(imp, lineno, 0, "a value without a call chain");
		return;
	}
	pct = sp[-1] == '%';
	*(pct ? sp - 1 : sp) = '\0';
	if (pct || memchr(line, '.', (size_t)(sp - line))) {
		char *e;

		w = strtold(line, &e);
		if (*e || !(w >= 0) || !isfinite(w)) {
			prof_import_bad(imp, lineno, 0, "bad value '%s'", line);
			return;
		}
	} else if (prof_import_count(line, (size_t)(sp - line), &w)) {
		prof_import_bad(imp, lineno, 0, "bad value '%s'", line);
		return;
	}
	if (!st->folding)
		return;
	st->percent |= pct;
	st->plain |= !pct;
	st->total += w;
	for (f = sp + 1; f < end; f = semi + 1) {
		semi = memchr(f, ';', (size_t)(end - f));
		if (!semi)
			semi = end;
		prof_import_frame(imp, f, (size_t)(semi - f));
	}
	starts = st->sym && same_frame(sp + 1, end, st->sym, st->sym_len, 0);
	ends = st->sym && same_frame(sp + 1, end, st->sym, st->sym_len, 1);
	if (starts != ends)
		st->leaf_first = starts;	/* callee order starts with the entry's symbol */
	prof_import_commit(imp, w, st->leaf_first);
}

/* The unit of the values folded (perfreport.h). */
static void set_unit(struct prof_import *imp, const struct report_state *st)
{
	char name[64];
	size_t n = strcspn(st->event, ":/'");

	/* counts add up to about the samples, periods to about the event count */
	if (imp->counts || (st->plain && fabsl(st->total - st->samples) <=
			    fabsl(st->total - st->events))) {
		prof_meta_set(&imp->meta, "unit", "samples");
	} else if (st->percent) {
		prof_meta_set(&imp->meta, "unit", "percent");
	} else if ((n == 9 && strncmp(st->event, "cpu-clock", 9) == 0) ||
		   (n == 10 && strncmp(st->event, "task-clock", 10) == 0)) {
		prof_meta_set(&imp->meta, "unit", "ns");
	} else if (n && n < sizeof(name)) {
		memcpy(name, st->event, n);
		name[n] = '\0';
		prof_meta_set(&imp->meta, "unit", name);
	}
}

int prof_perfreport_read(struct prof_import *imp, char *buf, size_t len)
{
	struct report_state st;
	char *pos = buf, *line, event[256];
	const char *s;
	unsigned long lineno = 0;
	size_t n;

	memset(&st, 0, sizeof(st));
	st.leaf_first = 1;	/* perf's default order without children */
	while ((line = prof_block_next_line(&pos, buf + len, &n)) != NULL) {
		lineno++;
		if ((s = after(line, n, "# Samples: ")) != NULL) {
			section(imp, &st, s, line + n);
		} else if ((s = after(line, n, "# Event count (approx.): ")) != NULL) {
			if (st.folding)
				prof_import_count(s, strspn(s, "0123456789"), &st.events);
		} else if (after(line, n, "# Children ")) {
			prof_import_bad(imp, lineno, 0, "perf report with children: every sample is "
					"under each function of its chain; run perf report --no-children");
			return -1;
		} else if (n == 0 || line[0] == '#') {
			continue;
		} else if (line[0] == ' ' || line[0] == '\t') {
			entry(&st, line, n);
		} else if (is_digit(line[0])) {
			chain(imp, &st, line, n, lineno);
		} else {
			prof_import_bad(imp, lineno, 0, "not a perf report line: %.80s", line);
		}
	}
	if (!st.event) {
		if (imp->event && *imp->event)
			prof_import_bad(imp, 0, 0, "no samples of event '%s'", imp->event);
		else
			prof_import_bad(imp, 0, 0, "no \"# Samples: N of event 'NAME'\" header line");
		return -1;
	}
	snprintf(event, sizeof(event), "%.*s", (int)st.event_len, st.event);
	if (st.skipped[0])
		prof_info(1, "note: folded only '%s' samples; skipped the samples of: %s%s", event,
			  st.skipped, imp->event && *imp->event ? "" : " (choose with --event-filter)");
	set_unit(imp, &st);
	prof_meta_set(&imp->meta, "event", event);
	prof_meta_set(&imp->meta, "source", "perf-report");
	return imp->malformed ? -1 : 0;
}
