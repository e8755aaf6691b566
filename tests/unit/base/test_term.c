/* lib/base/term.c: the terminal's width, whether to colour, cutting, the progress line. */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include "../unit.h"
#include "base/error.h"
#include "base/term.h"

/*
 * What the terminal shows, up to the last line written ("after").  A
 * pseudo-terminal hands its output over in pieces: one read() can return
 * part of it when the machine is busy, so read until the line is there or
 * nothing more comes for two seconds.
 */
static size_t read_terminal(int master, char *buf, size_t size)
{
	struct pollfd pfd = { .fd = master, .events = POLLIN };
	size_t len = 0;
	ssize_t n;
	char *last;

	buf[0] = 0;
	while (len + 1 < size && poll(&pfd, 1, 2000) > 0) {
		n = read(master, buf + len, size - 1 - len);
		if (n <= 0)
			break;
		len += n;
		buf[len] = 0;
		if ((last = strstr(buf, "after")) != NULL && strchr(last, '\n') != NULL)
			break;
	}
	return len;
}

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
		TEST("the progress line: on a terminal's stderr, cut to its width; blanked out by messages") {
			int saved = dup(STDERR_FILENO);
			struct prof_progress pr;
			char buf[4096];

			unsetenv("COLUMNS");
			ws.ws_col = 20;
			ioctl(tty, TIOCSWINSZ, &ws);
			fflush(stderr);
			dup2(tty, STDERR_FILENO);
			prof_progress_init(&pr);
			prof_progress_show(&pr, "work %d/%d: %s", 1, 3, "a-long-input-name");
			prof_warn("a message");
			prof_progress_show(&pr, "work %d/%d", 2, 3);
			prof_progress_end(&pr);
			prof_warn("after");
			fflush(stderr);
			dup2(saved, STDERR_FILENO);
			close(saved);
			read_terminal(master, buf, sizeof(buf));
			CHECK(pr.on && pr.width == 20);
			/* 19 columns: "\r" must get back to the line's start */
			CHECK(strstr(buf, "\rwork 1/3: a-long-i~") != NULL);
			/* the message starts on a blanked line, the end leaves none */
			CHECK(strstr(buf, "\r                   \r" "test_term: a message") != NULL ||
			      strstr(buf, "\r                   \r" "proftools: a message") != NULL);
			CHECK(strstr(buf, "\rwork 2/3") != NULL);
			CHECK(strstr(buf, "after") != NULL && !strstr(strstr(buf, "after"), "work"));
			CHECK(prof_before_message == NULL);
		}
		close(tty);
	}
	TEST("no progress line on a pipe, nor with -q") {
		int saved = dup(STDERR_FILENO), q[2];
		struct prof_progress pr;
		char buf[256];
		ssize_t n;

		if (pipe(q) < 0)
			return 2;
		fflush(stderr);
		dup2(q[1], STDERR_FILENO);
		prof_progress_init(&pr);
		prof_progress_show(&pr, "work %d/%d", 1, 3);
		prof_progress_end(&pr);
		fflush(stderr);
		dup2(saved, STDERR_FILENO);
		close(saved);
		close(q[1]);
		n = read(q[0], buf, sizeof(buf));
		CHECK(!pr.on && n == 0);
		close(q[0]);
		prof_verbosity = 0;
		if (tty >= 0) {
			saved = dup(STDERR_FILENO);
			dup2(tty, STDERR_FILENO);
			prof_progress_init(&pr);
			dup2(saved, STDERR_FILENO);
			close(saved);
			CHECK(!pr.on);
		}
		prof_verbosity = 1;
	}
	TEST("cutting: characters, not bytes; '~' marks the cut; 0 is no limit") {
		char b[64];

		CHECK(!strcmp(prof_term_cut(b, sizeof(b), "function", 8), "function"));
		CHECK(!strcmp(prof_term_cut(b, sizeof(b), "function", 5), "func~"));
		CHECK(!strcmp(prof_term_cut(b, sizeof(b), "caf\xc3\xa9_au_lait", 5), "caf\xc3\xa9~"));
		CHECK(!strcmp(prof_term_cut(b, sizeof(b), "caf\xc3\xa9", 4), "caf\xc3\xa9"));
		CHECK(!strcmp(prof_term_cut(b, sizeof(b), "a long name", 0), "a long name"));
		CHECK(!strcmp(prof_term_cut(b, 6, "a long name", 0), "a lo~"));
		CHECK(!strcmp(prof_term_cut_start(b, sizeof(b), "/tmp/dir/input.txt", 10), "~input.txt"));
		CHECK(!strcmp(prof_term_cut_start(b, sizeof(b), "/x/caf\xc3\xa9.txt", 9), "~caf\xc3\xa9.txt"));
		CHECK(!strcmp(prof_term_cut_start(b, sizeof(b), "input.txt", 10), "input.txt"));
	}
	if (master >= 0)
		close(master);
	close(p[0]);
	close(p[1]);
	return UNIT_RESULT();
}
