#include <string.h>
#include "formats/block_line.h"
#include "formats/dtrace.h"
#include "formats/import.h"

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Cut blanks on both sides of s[0..*len); returns the new start. */
static const char *trim(const char *s, size_t *len)
{
	size_t n = *len;

	while (n && is_blank(*s))
		s++, n--;
	while (n && is_blank(s[n - 1]))
		n--;
	*len = n;
	return s;
}

/*
 * A line holding only a count (blanks around it): its digits and their
 * number in *n, else NULL.
 */
static const char *count_only(const char *line, size_t len, size_t *n)
{
	const char *s = trim(line, &len);
	size_t i = len && s[0] == '-' ? 1 : 0;	/* "-5": a count, refused by the caller */

	for (; i < len; i++)
		if (!is_digit(s[i]))
			return NULL;
	*n = len;
	return len ? s : NULL;
}

/* "@" NAME "[" at the start of a line (bpftrace's map entry): the key's start. */
static const char *bpf_entry(const char *line, size_t len)
{
	size_t i = 1;

	if (!len || line[0] != '@')
		return NULL;
	while (i < len && (line[i] == '_' || (line[i] >= 'a' && line[i] <= 'z') ||
			   (line[i] >= 'A' && line[i] <= 'Z') || is_digit(line[i])))
		i++;
	return i < len && line[i] == '[' ? line + i + 1 : NULL;
}

/* "]: COUNT" ending a line: where its "]" is, the count's digits in *count, *n. */
static const char *bpf_close(const char *line, size_t len, const char **count, size_t *n)
{
	size_t e = len, d;

	while (e && is_blank(line[e - 1]))
		e--;
	d = e;
	while (d && is_digit(line[d - 1]))
		d--;
	if (d == e || d < 3 || line[d - 1] != ' ' || line[d - 2] != ':' || line[d - 3] != ']')
		return NULL;
	*count = line + d;
	*n = e - d;
	return line + d - 3;
}

/* s[0..n) ends in a blank and digits, as a folded line's count. */
static int ends_in_count(const char *s, size_t n)
{
	size_t d = n;

	while (d && is_digit(s[d - 1]))
		d--;
	return d < n && d && is_blank(s[d - 1]);
}

int prof_dtrace_detect(const char *buf, size_t len, int complete)
{
	const char *p = buf, *end = buf + len, *c;
	int prev_frame = 0, bpf_open = 0, lines = 0;
	size_t n, cn;

	while (p < end && lines++ < 4000) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		int counted;

		n = (size_t)((nl ? nl : end) - p);
		if (!nl && !complete)
			break;		/* possibly cut by the peek window */
		if (n && p[n - 1] == '\r')
			n--;
		if (bpf_entry(p, n))
			bpf_open = 1;
		if (bpf_open && bpf_close(p, n, &c, &cn))
			return 1;
		/* DTrace: an indented frame line, then a line of a count alone */
		counted = count_only(p, n, &cn) != NULL;
		if (prev_frame && counted)
			return 1;
		/* indented, not blank, and not ending in a folded line's " COUNT" */
		prev_frame = n && is_blank(p[0]) && !counted && strspn(p, " \t") < n &&
			     !ends_in_count(p, n);
		p = nl ? nl + 1 : end;
	}
	return 0;
}

/*
 * Append the frame(s) of one DTrace line, cleaned as stackcollapse.pl
 * does (dtrace.h), in leaf-first order: for "a->b" (b inlined into a),
 * b_[i] then a.
 */
static void dtrace_frame(struct prof_import *imp, char *s, size_t n)
{
	char *cut, *piece[64], tmp[8192];
	size_t np = 0, i, plen[64];

	s = (char *)trim(s, &n);
	s[n] = '\0';
	if ((cut = strrchr(s, '+')) != NULL)
		n = (size_t)(cut - s);
	s[n] = '\0';
	if ((cut = strstr(s, "::")) != NULL) {	/* the last ( or < after "::" */
		char *q = s + n;

		while (q > cut + 2 && q[-1] != '(' && q[-1] != '<')
			q--;
		if (q > cut + 2)
			n = (size_t)(q - 1 - s);
	}
	if (n == 0 || n >= sizeof(tmp)) {
		prof_import_frame(imp, n ? s : "-", n ? n : 1);
		return;
	}
	memcpy(tmp, s, n);	/* ';' becomes ':' in prof_import_intern() */
	tmp[n] = '\0';
	piece[np] = tmp;
	for (i = 0; i + 1 < n && np < 63; i++) {
		if (tmp[i] == '-' && tmp[i + 1] == '>') {
			plen[np] = (size_t)(tmp + i - piece[np]);
			piece[++np] = tmp + i + 2;
		}
	}
	plen[np] = (size_t)(tmp + n - piece[np]);
	np++;
	for (i = np; i-- > 0;) {
		char *f = piece[i];
		size_t fl = plen[i];
		char named[8200];

		/* a Java class descriptor "Ljava/lang/Thread;" */
		if (fl > 1 && f[0] == 'L' && memchr(f, '/', fl))
			f++, fl--;
		if (i > 0) {
			memcpy(named, f, fl);
			memcpy(named + fl, "_[i]", 4);
			prof_import_frame(imp, named, fl + 4);
		} else {
			prof_import_frame(imp, f, fl);
		}
	}
}

/*
 * One bpftrace frame line: "sym+off", "ADDR sym+off (dso)" (ustack(perf)),
 * "0xADDR" (unresolved): the symbol without offset, "[dso]" or the address
 * when there is no symbol.
 */
static void bpf_frame(struct prof_import *imp, const char *s, size_t n)
{
	const char *dso = NULL, *q;
	size_t i = 0, dlen = 0;

	s = trim(s, &n);
	while (i < n && ((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
		i++;
	if (i > 0 && i < n && s[i] == ' ')	/* "7f0b2a5c8e4b func+12 (/lib/x.so)" */
		s += i + 1, n -= i + 1;
	if (n && s[n - 1] == ')') {
		for (q = s + n - 1; q > s && q[-1] != '('; q--)
			;
		if (q == s + 1 || (q > s + 1 && q[-2] == ' ')) {	/* "sym (dso)", "(dso)" */
			dso = q;
			dlen = (size_t)(s + n - 1 - q);
			n = q == s + 1 ? 0 : (size_t)(q - 2 - s);
		}
	}
	for (i = n; i > 0 && s[i - 1] != '+'; i--)
		;
	if (i > 1 && strspn(s + i, "0123456789abcdefx") == n - i && n > i)
		n = i - 1;
	if (n)
		prof_import_frame(imp, s, n);
	else if (dso && dlen && dso[0] == '[')	/* "([unknown])" */
		prof_import_frame(imp, dso, dlen);
	else
		prof_import_dso_frame(imp, dso, dso ? dlen : 0);
}

/*
 * The key elements of text[0..n) other than stacks ("comm, pid" of
 * "@[comm, pid, kstack]"), appended as frames last to first (they are
 * root frames, appended leaf first).
 */
static void bpf_elements(struct prof_import *imp, const char *text, size_t n)
{
	const char *e = text + n;

	while (e > text) {
		const char *b = e, *s;
		size_t len;

		while (b > text && b[-1] != ',')
			b--;
		s = b;
		len = (size_t)(e - b);
		s = trim(s, &len);
		if (len)
			prof_import_frame(imp, s, len);
		e = b > text ? b - 1 : text;
	}
}

/* What reading has reached (the state between lines). */
struct dtrace_state {
	int in_bpf;			/* inside a multi-line bpftrace entry */
	const char *prefix;		/* its key elements before the stack */
	size_t prefix_len;
	const char *suffix;		/* "comm" of a ", comm" line inside it */
	size_t suffix_len;
	unsigned long group_line;	/* first line of the DTrace frames pending */
	int group_is_header;		/* ... and they are dtrace's or bpftrace's header */
	int bpftrace;			/* a bpftrace entry was seen */
};

/* DTrace frames that no count ended: dtrace's header, else malformed. */
static void dtrace_unended(struct prof_import *imp, struct dtrace_state *st)
{
	if (prof_import_depth(imp) && !st->group_is_header)
		prof_import_bad(imp, st->group_line, 0, "stack without a count line after its frames");
	prof_import_drop(imp);
}

/* A line inside a multi-line bpftrace entry. */
static void bpf_line(struct prof_import *imp, struct dtrace_state *st, const char *line,
		     size_t n, unsigned long lineno)
{
	const char *count, *close = NULL;
	size_t cn;
	prof_weight w;

	if (n && line[0] == ',') {		/* ", comm]: 5", or "," between two stacks */
		close = bpf_close(line, n, &count, &cn);
		if (!close) {
			st->suffix = line + 1;
			st->suffix_len = n - 1;
			return;
		}
		bpf_elements(imp, line + 1, (size_t)(close - line - 1));
	} else if ((close = bpf_close(line, n, &count, &cn)) == NULL ||
		   strspn(line, " \t") != (size_t)(close - line)) {
		bpf_frame(imp, line, n);
		return;
	}
	if (st->suffix)
		bpf_elements(imp, st->suffix, st->suffix_len);
	bpf_elements(imp, st->prefix, st->prefix_len);
	if (prof_import_count(count, cn, &w))
		prof_import_bad(imp, lineno, 0, "count above 2^64-1");
	else if (prof_import_commit(imp, w, 1) == UINT32_MAX)
		prof_import_bad(imp, lineno, 0, "bpftrace entry without a key");
	st->in_bpf = 0;
	st->suffix = NULL;
}

/*
 * A line starting a bpftrace entry, "@name[" KEY; key is past the "[".
 * "@[x, y]: 5" is the stack x;y; "@[" or "@[comm, " starts a multi-line one.
 */
static void bpf_start(struct prof_import *imp, struct dtrace_state *st, const char *line,
		      size_t n, const char *key, unsigned long lineno)
{
	const char *count, *close = bpf_close(line, n, &count, &n);
	prof_weight w;

	st->bpftrace = 1;
	if (!close) {
		st->in_bpf = 1;
		st->prefix = key;
		st->prefix_len = strlen(key);
		return;
	}
	bpf_elements(imp, key, (size_t)(close - key));
	if (prof_import_count(count, n, &w))
		prof_import_bad(imp, lineno, 0, "count above 2^64-1");
	else if (prof_import_commit(imp, w, 1) == UINT32_MAX)
		prof_import_bad(imp, lineno, 0, "bpftrace entry without a key");
}

/* A line of DTrace output (outside bpftrace entries). */
static void dtrace_line(struct prof_import *imp, struct dtrace_state *st, char *line, size_t n,
			unsigned long lineno)
{
	const char *count;
	size_t cn;
	prof_weight w;

	if (strspn(line, " \t") == n) {
		dtrace_unended(imp, st);
		return;
	}
	if ((count = count_only(line, n, &cn)) == NULL) {
		if (!prof_import_depth(imp)) {
			st->group_line = lineno;
			/*
			 * dtrace's "CPU     ID                    FUNCTION:NAME" and
			 * the probe's line; bpftrace's "Attaching 1 probe..."
			 */
			st->group_is_header = !imp->stacks &&
				((strncmp(line, "CPU ", 4) == 0 && memmem(line, n, "FUNCTION:NAME", 13)) ||
				 (strncmp(line, "Attaching ", 10) == 0 && memmem(line, n, " probe", 6)));
		}
		dtrace_frame(imp, line, n);
		return;
	}
	if (count[0] == '-')
		prof_import_bad(imp, lineno, 0, "negative count %.*s", (int)cn, count);
	else if (prof_import_count(count, cn, &w))
		prof_import_bad(imp, lineno, 0, "count above 2^64-1");
	else if (prof_import_commit(imp, w, 1) == UINT32_MAX)
		prof_import_bad(imp, lineno, 0, "count without a stack above it");
	prof_import_drop(imp);
}

int prof_dtrace_read(struct prof_import *imp, char *buf, size_t len)
{
	struct dtrace_state st;
	char *pos = buf, *line;
	unsigned long lineno = 0;
	size_t n;
	const char *key;

	memset(&st, 0, sizeof(st));
	while ((line = prof_block_next_line(&pos, buf + len, &n)) != NULL) {
		lineno++;
		if (st.in_bpf) {
			bpf_line(imp, &st, line, n, lineno);
		} else if ((key = bpf_entry(line, n)) != NULL) {
			dtrace_unended(imp, &st);
			bpf_start(imp, &st, line, n, key, lineno);
		} else {
			dtrace_line(imp, &st, line, n, lineno);
		}
	}
	if (st.in_bpf) {
		prof_import_bad(imp, lineno, 0, "input cut short inside a bpftrace entry (no \"]: count\")");
		prof_import_drop(imp);
	}
	dtrace_unended(imp, &st);
	if (!imp->stacks && !imp->malformed)	/* garbage read as frames, or nothing */
		prof_import_bad(imp, 0, 0, "no stack in the input (frames, then a line holding their count)");
	prof_meta_set(&imp->meta, "source", st.bpftrace ? "bpftrace" : "dtrace");
	return imp->malformed ? -1 : 0;
}
