#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
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
