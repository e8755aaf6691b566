/*
 * sigstate: run a command with some signals blocked, some ignored and
 * some at their default action, the way a parent (a shell, nohup, a job
 * runner) may start it (tests only; -d undoes the SIGINT a shell ignores
 * in its background jobs).
 *   sigstate [-b SIG[,SIG...]] [-d SIG[,SIG...]] [-i SIG[,SIG...]] command [arg ...]
 * SIG is a signal number. Exits 127 if the command cannot be executed,
 * 2 on usage errors.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/error.h"

#define USAGE "sigstate [-b SIG[,SIG...]] [-d SIG[,SIG...]] [-i SIG[,SIG...]] command [arg ...]"

static void add_signals(sigset_t *set, char *list)
{
	for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long sig = strtol(tok, &end, 10);

		if (*end || sig < 1 || sig >= NSIG || sigaddset(set, (int)sig) < 0)
			prof_usage_error(USAGE, "bad signal '%s'", tok);
	}
}

int main(int argc, char **argv)
{
	sigset_t block, dfl, ignore;
	struct sigaction sa;
	int c;

	prof_set_progname(argv[0]);
	sigemptyset(&block);
	sigemptyset(&dfl);
	sigemptyset(&ignore);
	while ((c = getopt(argc, argv, "+b:d:i:")) != -1) {
		if (c == 'b')
			add_signals(&block, optarg);
		else if (c == 'd')
			add_signals(&dfl, optarg);
		else if (c == 'i')
			add_signals(&ignore, optarg);
		else
			prof_usage_error(USAGE, NULL);
	}
	if (optind >= argc)
		prof_usage_error(USAGE, "no command");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigemptyset(&sa.sa_mask);
	for (int sig = 1; sig < NSIG; sig++) {
		if (sigismember(&dfl, sig) != 1 && sigismember(&ignore, sig) != 1)
			continue;
		sa.sa_handler = sigismember(&ignore, sig) == 1 ? SIG_IGN : SIG_DFL;
		if (sigaction(sig, &sa, NULL) < 0)
			prof_die_errno("sigaction %d", sig);
	}
	if (sigprocmask(SIG_BLOCK, &block, NULL) < 0)
		prof_die_errno("sigprocmask");
	execvp(argv[optind], argv + optind);
	prof_warn_errno("%s", argv[optind]);
	return 127;
}
