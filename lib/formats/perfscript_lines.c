/*
 * The grammar of `perf script` lines (see perfscript_lines.h): which
 * lines are event lines, sample lines and srcline lines, and whether a
 * text is perf script output at all.
 */
#include <stdint.h>
#include <string.h>
#include "formats/perfscript.h"
#include "formats/perfscript_lines.h"

/*
 * /:\s*(\d+)*\s+(\S+):\s*$/ on s[0..n). The ':' ending the line (after
 * trailing whitespace) closes the event token, the last whitespace-
 * separated token; before it whitespace, optional digits (the period),
 * optional whitespace and a ':' (the one ending the time). The leftmost
 * ':' that can start the match is the only one: the text between it and
 * the event token holds only whitespace and digits.
 */
static int match_period(const char *s, size_t n, struct prof_perf_event *ev)
{
	size_t c = n, a, b, d, w, t;

	while (c > 0 && is_ws((unsigned char)s[c - 1]))
		c--;
	if (c == 0 || s[c - 1] != ':')
		return 0;
	c--;			/* s[c] is the final ':' */
	a = c;
	while (a > 0 && !is_ws((unsigned char)s[a - 1]))
		a--;
	if (a == c || a == 0)
		return 0;	/* empty event name, or no \s+ before it */
	b = a;
	while (b > 0 && is_ws((unsigned char)s[b - 1]))
		b--;
	d = b;
	while (d > 0 && is_digit((unsigned char)s[d - 1]))
		d--;
	w = d;
	if (d < b)		/* digits: optional whitespace before them */
		while (w > 0 && is_ws((unsigned char)s[w - 1]))
			w--;
	if (w == 0 || s[w - 1] != ':')
		return 0;
	ev->has_event = 1;
	ev->event = s + a;
	ev->event_len = c - a;
	ev->period = s + d;
	ev->period_len = b - d;
	/* The time is the token the ':' ends. */
	t = w - 1;
	while (t > 0 && !is_ws((unsigned char)s[t - 1]))
		t--;
	ev->time = s + t;
	ev->time_len = w - 1 - t;
	return 1;
}

/* Where the numbers after a comm are: [pid, pid_end), [tid, tid_end). */
struct pid_tid {
	size_t pid, pid_end, tid, tid_end;
};

/*
 * \s+(\d+)[/]*(\d+)*\s after a comm candidate ending at *e (a blank):
 * 1 with the extents in m; tid_end is the blank after the numbers. 0 if
 * no match; when no digit follows the blank run, *e moves to its end,
 * since any comm ending inside the run fails the same way.
 */
static int match_pid_tid(const unsigned char *s, size_t n, size_t *e, struct pid_tid *m)
{
	size_t k = *e, q, r, x;

	while (k < n && is_ws(s[k]))
		k++;
	if (k >= n || !is_digit(s[k])) {
		*e = k;
		return 0;
	}
	q = k;
	while (q < n && is_digit(s[q]))
		q++;
	r = q;
	while (r < n && s[r] == '/')
		r++;
	x = r;
	while (x < n && is_digit(s[x]))
		x++;
	if (x >= n || !is_ws(s[x]))
		return 0;
	m->pid = k;
	m->pid_end = q;
	m->tid = r;
	m->tid_end = x;
	return 1;
}

static void set_pid_tid(struct prof_perf_event *ev, const char *line, const struct pid_tid *m)
{
	ev->pid = line + m->pid;
	ev->pid_len = m->pid_end - m->pid;
	ev->tid = line + m->tid;
	ev->tid_len = m->tid_end - m->tid;
}

/*
 * /^(\S.+?)\s+(\d+)[/]*(\d+)*\s+/: the lazy comm grows from two bytes
 * until it is followed by a whitespace run, a digit run, slashes, an
 * optional second digit run and whitespace. Backtracking cannot shorten
 * any of those runs to a different success (the next byte would be of
 * the wrong class), so the captures are the maximal runs.
 */
int prof_perfscript_event_line(const char *line, size_t n, struct prof_perf_event *ev)
{
	const unsigned char *s = (const unsigned char *)line;
	struct pid_tid m;
	size_t e;

	if (n < 2 || is_ws(s[0]))
		return 0;
	for (e = 2; e < n; e++) {
		if (!is_ws(s[e]) || !match_pid_tid(s, n, &e, &m))
			continue;
		memset(ev, 0, sizeof(*ev));
		ev->comm = line;
		ev->comm_len = e;
		set_pid_tid(ev, line, &m);
		match_period(line, n, ev);
		return 1;
	}
	return 0;
}

/*
 * (ext) The fields after "comm pid[/tid] " on a sample line that carries
 * its frame, as perf script prints samples without call chains:
 * "[cpu] time: period event: pc symbol (dso)", every field before the pc
 * optional (-F selections). The period is taken only before an event.
 * Fills the time, period and event of ev and *frame (offset of the pc).
 * Returns 1 if s[i..n) is such a tail.
 */
static int sample_tail(const char *s, size_t i, size_t n, struct prof_perf_event *ev,
		       size_t *frame)
{
	size_t d, j, k;

#define SKIP_WS() while (i < n && is_ws((unsigned char)s[i])) i++
	SKIP_WS();
	if (i < n && s[i] == '[') {	/* [cpu] */
		for (j = i + 1; j < n && is_digit((unsigned char)s[j]); j++)
			;
		if (j == i + 1 || j >= n || s[j] != ']')
			return 0;
		i = j + 1;
		SKIP_WS();
	}
	/* time: digits[.digits]: */
	for (j = i; j < n && is_digit((unsigned char)s[j]); j++)
		;
	if (j > i && j < n && s[j] == '.') {
		for (k = j + 1; k < n && is_digit((unsigned char)s[k]); k++)
			;
		if (k > j + 1 && k + 1 < n && s[k] == ':' && is_ws((unsigned char)s[k + 1])) {
			ev->time = s + i;
			ev->time_len = k - i;
			i = k + 1;
			SKIP_WS();
		}
	}
	/* [period] event: -- the event token ends with ':' before a blank */
	for (d = i; d < n && is_digit((unsigned char)s[d]); d++)
		;
	k = i;			/* where the event token would start */
	if (d > i && d < n && is_ws((unsigned char)s[d]))
		for (k = d; k < n && is_ws((unsigned char)s[k]); k++)
			;
	for (j = k; j < n && !is_ws((unsigned char)s[j]); j++)
		;
	if (j >= k + 2 && s[j - 1] == ':' && !is_digit((unsigned char)s[k])) {
		if (k > i) {
			ev->period = s + i;
			ev->period_len = d - i;
		}
		ev->event = s + k;
		ev->event_len = j - 1 - k;
		ev->has_event = 1;
		i = j;
		SKIP_WS();
	}
	/* pc symbol; -F period without event: "period pc symbol" */
	for (j = i; j < n && is_hex((unsigned char)s[j]); j++)
		;
	if (j == i || j >= n || !is_ws((unsigned char)s[j]))
		return 0;
	k = j;
	while (k < n && is_ws((unsigned char)s[k]))
		k++;
	if (k >= n)
		return 0;
	if (!ev->has_event && strspn(s + i, "0123456789") == j - i) {
		for (d = k; d < n && is_hex((unsigned char)s[d]); d++)
			;
		if (d > k && d < n && is_ws((unsigned char)s[d])) {
			while (d < n && is_ws((unsigned char)s[d]))
				d++;
			if (d < n) {
				ev->period = s + i;
				ev->period_len = j - i;
				i = k;
			}
		}
	}
	*frame = i;
	return 1;
#undef SKIP_WS
}

/*
 * (ext) A sample line with its frame on it (recorded without call chains,
 * or printed without them): optional leading blanks (perf right-aligns
 * the comm), "comm pid[/tid]", then sample_tail(). The comm is the
 * shortest prefix after which the rest parses, so "io worker 1 5197/5198
 * ..." has the comm "io worker 1". To tell it from other text, the line
 * must carry a time, an event or a " (dso)". Returns 1 and fills ev (the
 * period, event and time as prof_perfscript_event_line() does) and
 * *frame, the offset of the frame text ("pc symbol (dso)") in line.
 */
int prof_perfscript_sample_line(const char *line, size_t n, struct prof_perf_event *ev, size_t *frame)
{
	const unsigned char *s = (const unsigned char *)line;
	struct pid_tid m;
	size_t b = 0, e;

	while (b < n && is_ws(s[b]))
		b++;
	if (n - b < 2)
		return 0;
	for (e = b + 2; e < n; e++) {
		if (!is_ws(s[e]) || !match_pid_tid(s, n, &e, &m))
			continue;
		memset(ev, 0, sizeof(*ev));
		if (!sample_tail(line, m.tid_end, n, ev, frame))
			continue;
		if (!ev->time_len && !ev->has_event && line[n - 1] != ')')
			return 0;
		ev->comm = line + b;
		ev->comm_len = e - b;
		set_pid_tid(ev, line, &m);
		return 1;
	}
	return 0;
}

/* "248.704562" -> ns; 0 if not a time. */
int prof_perfscript_parse_time(const char *s, size_t n, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0;
	size_t i = 0, fd = 0;

	if (n == 0 || !is_digit((unsigned char)s[0]))
		return 0;
	while (i < n && is_digit((unsigned char)s[i]))
		sec = sec * 10 + (uint64_t)(s[i++] - '0');
	if (i < n && s[i] == '.') {
		i++;
		while (i < n && is_digit((unsigned char)s[i])) {
			if (fd < 9) {
				frac = frac * 10 + (uint64_t)(s[i] - '0');
				fd++;
			}
			i++;
		}
	}
	if (i != n)
		return 0;
	while (fd < 9) {
		frac *= 10;
		fd++;
	}
	*ns = sec * 1000000000ULL + frac;
	return 1;
}

int prof_perfscript_is_srcline(const char *s, size_t n)
{
	size_t i = 0, d, j;

	while (i < n && is_ws((unsigned char)s[i]))
		i++;
	for (j = i; j < n; j++)
		if (is_ws((unsigned char)s[j]))
			return 0;
	if (n - i >= 4 && s[n - 1] == ']') {
		for (d = n - 1; d > i && is_hex((unsigned char)s[d - 1]); d--)
			;
		return d < n - 1 && d > i + 1 && s[d - 1] == '[';
	}
	for (d = n; d > i && is_digit((unsigned char)s[d - 1]); d--)
		;
	return d < n && d > i + 1 && s[d - 1] == ':';
}

int prof_perfscript_detect(const char *buf, size_t len, int complete)
{
	const char *p = buf, *end = buf + len;
	struct prof_perf_event ev;
	int prev_event = 0, lines = 0;
	size_t frame;

	while (p < end && lines++ < 2000) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		int indented;

		if (!nl && !complete)
			break;		/* possibly cut by the peek window */
		if (n && p[n - 1] == '\r')
			n--;
		indented = n > 0 && is_ws((unsigned char)p[0]);
		/*
		 * An event line, then a frame line "pc symbol (dso)", indented
		 * or not (older perf): folded lines end in a count.
		 */
		if (prev_event && n > 0 && p[n - 1] == ')' && memmem(p, n, " (", 2) &&
		    (indented || !prof_perfscript_event_line(p, n, &ev)))
			return 1;
		prev_event = 0;
		if (n == 0 || p[0] == '#') {
			p = nl ? nl + 1 : end;
			continue;
		}
		if (!indented && prof_perfscript_event_line(p, n, &ev)) {
			/* "comm pid ... event:" -- no folded line ends so */
			if (ev.has_event)
				return 1;
			prev_event = 1;
		}
		/* a sample with its frame: " (dso)" at the end, or a time and an event */
		if (prof_perfscript_sample_line(p, n, &ev, &frame) &&
		    (p[n - 1] == ')' || (ev.time_len && ev.has_event)))
			return 1;
		p = nl ? nl + 1 : end;
	}
	return 0;
}
