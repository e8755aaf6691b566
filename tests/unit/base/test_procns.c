/*
 * Unit tests of base/procns.h: this process and a gone one (another
 * mount namespace is tested by tests/profrec.sh, under unshare -m).
 */
#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>
#include "base/procns.h"
#include "../unit.h"

int main(void)
{
	struct prof_procns ns;
	char buf[256];
	pid_t gone = fork();

	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	TEST("this process sees this file tree") {
		CHECK(prof_procns_probe(getpid(), &ns) == 0);
		CHECK(ns.nspid == getpid() || ns.nspid > 0);
		CHECK(prof_procns_path(getpid(), "/usr/bin/x", buf, sizeof(buf)) == 0);
		CHECK_STR(buf, "/usr/bin/x");
	}
	TEST("a gone process: -1, the path as it is") {
		CHECK(prof_procns_probe(gone, &ns) == -1);
		CHECK(prof_procns_nspid(gone) == gone);
		CHECK(prof_procns_path(gone, "/usr/bin/x", buf, sizeof(buf)) == -1);
		CHECK_STR(buf, "/usr/bin/x");
	}
	TEST("a path too long for the buffer") {
		errno = 0;
		CHECK(prof_procns_path(getpid(), "/usr/bin/a-long-name", buf, 8) == -1);
		CHECK(errno == ENAMETOOLONG);
	}
	return UNIT_RESULT();
}
