/* lib/base/term.c: the terminal's width and whether to colour. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include "../unit.h"
#include "base/term.h"

int main(void)
{
	int p[2], master, tty = -1;
	struct winsize ws = { .ws_row = 24, .ws_col = 123 };

	if (pipe(p) < 0)
		return 2;
	unsetenv("COLUMNS");
	unsetenv("NO_COLOR");
	setenv("TERM", "xterm", 1);
	/* a pseudo-terminal stands for the user's, where the system has one */
	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master >= 0 && grantpt(master) == 0 && unlockpt(master) == 0)
		tty = open(ptsname(master), O_RDWR | O_NOCTTY);
	if (tty >= 0)
		ioctl(tty, TIOCSWINSZ, &ws);
	TEST("--color words") {
		CHECK(prof_color_parse("auto") == PROF_COLOR_AUTO);
		CHECK(prof_color_parse("always") == PROF_COLOR_ALWAYS);
		CHECK(prof_color_parse("never") == PROF_COLOR_NEVER);
		CHECK(prof_color_parse("yes") == PROF_COLOR_ALWAYS && prof_color_parse("no") == PROF_COLOR_NEVER);
		CHECK(prof_color_parse("blue") == -1);
	}
	TEST("a pipe: no width, no colour unless always") {
		CHECK(prof_term_width(p[1]) == 0);
		CHECK(!prof_color_on(PROF_COLOR_AUTO, p[1]));
		CHECK(prof_color_on(PROF_COLOR_ALWAYS, p[1]));
		CHECK(!prof_color_on(PROF_COLOR_NEVER, p[1]));
	}
	if (tty >= 0) {
		TEST("a terminal: its width, COLUMNS first; colour unless NO_COLOR or TERM=dumb") {
			CHECK(prof_term_width(tty) == 123);
			setenv("COLUMNS", "80", 1);
			CHECK(prof_term_width(tty) == 80);
			setenv("COLUMNS", "wide", 1);
			CHECK(prof_term_width(tty) == 123);
			unsetenv("COLUMNS");
			CHECK(prof_color_on(PROF_COLOR_AUTO, tty));
			setenv("NO_COLOR", "", 1);	/* empty: as unset (no-color.org) */
			CHECK(prof_color_on(PROF_COLOR_AUTO, tty));
			setenv("NO_COLOR", "1", 1);
			CHECK(!prof_color_on(PROF_COLOR_AUTO, tty));
			CHECK(prof_color_on(PROF_COLOR_ALWAYS, tty));
			unsetenv("NO_COLOR");
			setenv("TERM", "dumb", 1);
			CHECK(!prof_color_on(PROF_COLOR_AUTO, tty));
		}
		close(tty);
	}
	if (master >= 0)
		close(master);
	close(p[0]);
	close(p[1]);
	return UNIT_RESULT();
}
