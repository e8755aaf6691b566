#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include "base/error.h"
#include "base/escape.h"
#include "base/term.h"
#include "base/units.h"

int prof_color_parse(const char *arg)
{
	if (!strcmp(arg, "auto"))
		return PROF_COLOR_AUTO;
	if (!strcmp(arg, "always") || !strcmp(arg, "yes"))
		return PROF_COLOR_ALWAYS;
	if (!strcmp(arg, "never") || !strcmp(arg, "no"))
		return PROF_COLOR_NEVER;
	return -1;
}

int prof_color_on(enum prof_color_mode mode, int fd)
{
	const char *no = getenv("NO_COLOR"), *term = getenv("TERM");

	if (mode != PROF_COLOR_AUTO)
		return mode == PROF_COLOR_ALWAYS;
	return isatty(fd) && !(no && *no) && !(term && !strcmp(term, "dumb"));
}

unsigned prof_term_width(int fd)
{
	const char *env = getenv("COLUMNS");
	struct winsize ws;
	uint64_t n;

	if (!isatty(fd))
		return 0;
	if (env && prof_parse_u64(env, &n) == 0 && n > 0 && n < 100000)
		return (unsigned)n;
	if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 80;
}

char *prof_term_cut(char *buf, size_t n, const char *s, size_t width)
{
	size_t len = strlen(s), keep;

	if (!n)
		return buf;
	if (!width || width >= n)
		width = n - 1;
	if (prof_utf8_chars(s, len) <= width) {
		keep = len < n ? len : prof_utf8_prefix(s, len, n - 1);
		memcpy(buf, s, keep);
		buf[keep] = '\0';
		return buf;
	}
	keep = prof_utf8_char_prefix(s, len, width - 1);
	if (keep > n - 2)
		keep = prof_utf8_prefix(s, len, n - 2);
	memcpy(buf, s, keep);
	buf[keep] = '~';
	buf[keep + 1] = '\0';
	return buf;
}

/* The line shown, blanked out before messages (prof_before_message). */
static struct prof_progress *active;

static void clear_active(void)
{
	if (active)
		prof_progress_clear(active);
}

char *prof_term_cut_start(char *buf, size_t n, const char *s, size_t width)
{
	size_t len = strlen(s), chars = prof_utf8_chars(s, len), skip;

	if (!width || chars <= width || width < 2 || n < 2)
		return prof_term_cut(buf, n, s, width);
	skip = prof_utf8_char_prefix(s, len, chars - (width - 1));
	buf[0] = '~';
	return prof_term_cut(buf + 1, n - 1, s + skip, 0) - 1;
}

void prof_progress_init(struct prof_progress *p)
{
	memset(p, 0, sizeof(*p));
	p->on = prof_verbosity > 0 && isatty(STDERR_FILENO);
	p->width = p->on ? prof_term_width(STDERR_FILENO) : 0;
	if (p->on) {
		active = p;
		prof_before_message = clear_active;
	}
}

void prof_progress_end(struct prof_progress *p)
{
	prof_progress_clear(p);
	if (active == p) {
		active = NULL;
		prof_before_message = NULL;
	}
}

void prof_progress_redraw(struct prof_progress *p)
{
	size_t cols;

	if (!p->on || !*p->line)
		return;
	cols = prof_utf8_chars(p->line, strlen(p->line));
	/* the rest of a longer line blanked out */
	fprintf(stderr, "\r%s%*s", p->line, (int)(p->shown > cols ? p->shown - cols : 0), "");
	if (p->shown > cols)
		fprintf(stderr, "\r%s", p->line);
	fflush(stderr);
	p->shown = cols;
}

void prof_progress_show(struct prof_progress *p, const char *fmt, ...)
{
	char text[sizeof(p->line)];
	va_list ap;

	if (!p->on)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	/* one terminal line, or "\r" would not get back to its start */
	prof_term_cut(p->line, sizeof(p->line), text, p->width > 1 ? p->width - 1 : 1);
	prof_progress_redraw(p);
}

void prof_progress_clear(struct prof_progress *p)
{
	if (!p->shown)
		return;
	fprintf(stderr, "\r%*s\r", (int)p->shown, "");
	fflush(stderr);
	p->shown = 0;
}
