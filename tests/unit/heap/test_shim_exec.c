/*
 * lib/heap/shim/exec.c: what the shim notes at exec (the program, made
 * absolute as exec finds it; whether the environment keeps the shim).
 * The shim is not in libcommon.a: its helper file is compiled in here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../unit.h"
#include "heap/shim/exec.c"

static char dir[] = "/tmp/test_shim_exec.XXXXXX";

/* dir/name, mode (0: a directory). */
static void make(const char *name, mode_t mode)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!mode) {
		mkdir(path, 0755);
		return;
	}
	f = fopen(path, "w");
	if (f)
		fclose(f);
	chmod(path, mode);
}

int main(void)
{
	char buf[512], want[600], small[8], cwd[512], env[600];

	if (!mkdtemp(dir) || !getcwd(cwd, sizeof(cwd)))
		return 2;
	make("a", 0);
	make("b", 0);
	make("a/tool", 0644);		/* not executable: passed over */
	make("b/tool", 0755);
	make("a/sub", 0);
	make("b/sub", 0755);		/* a directory first in PATH is passed over */
	make("here", 0755);
	TEST("exec path: absolute as given, relative made absolute, ./ dropped") {
		ph_exec_path("/bin/sh", 0, buf, sizeof(buf));
		CHECK_STR(buf, "/bin/sh");
		ph_exec_path("x/y", 0, buf, sizeof(buf));
		snprintf(want, sizeof(want), "%s/x/y", cwd);
		CHECK_STR(buf, want);
		ph_exec_path("./y", 1, buf, sizeof(buf));	/* a '/': no search */
		snprintf(want, sizeof(want), "%s/y", cwd);
		CHECK_STR(buf, want);
	}
	TEST("exec path: PATH searched as execvp does") {
		snprintf(env, sizeof(env), "%s/a:%s/b", dir, dir);
		setenv("PATH", env, 1);
		ph_exec_path("tool", 1, buf, sizeof(buf));
		snprintf(want, sizeof(want), "%s/b/tool", dir);
		CHECK_STR(buf, want);
		ph_exec_path("sub", 1, buf, sizeof(buf));
		snprintf(want, sizeof(want), "%s/b/sub", dir);
		CHECK_STR(buf, want);
		ph_exec_path("tool", 0, buf, sizeof(buf));	/* execve does not search */
		snprintf(want, sizeof(want), "%s/tool", cwd);
		CHECK_STR(buf, want);
	}
	TEST("exec path: an empty PATH entry is the current directory; unset PATH") {
		CHECK(chdir(dir) == 0);
		setenv("PATH", "/nonexistent:", 1);
		ph_exec_path("here", 1, buf, sizeof(buf));
		snprintf(want, sizeof(want), "%s/here", dir);
		CHECK(strstr(buf, "/here") && !strcmp(strstr(buf, strrchr(dir, '/')), strstr(want, strrchr(dir, '/'))));
		CHECK(chdir(cwd) == 0);
		unsetenv("PATH");
		ph_exec_path("sh", 1, buf, sizeof(buf));
		CHECK_STR(buf, "/bin/sh");
	}
	TEST("exec path: cut to the buffer, always terminated") {
		ph_exec_path("/usr/bin/something-long", 0, small, sizeof(small));
		CHECK_STR(small, "/usr/bi");
		ph_exec_path(NULL, 0, small, sizeof(small));
		CHECK(strlen(small) < sizeof(small));
	}
	TEST("exec environment: the shim stays only with LD_PRELOAD and PROFHEAP_DIR") {
		char pre[] = "LD_PRELOAD=/x/libprofheap.so:/a.so", dirv[] = "PROFHEAP_DIR=/out";
		char other[] = "LD_PRELOAD=/a.so", empty[] = "PROFHEAP_DIR=", home[] = "HOME=/h";
		char *both[] = { home, pre, dirv, NULL }, *no_dir[] = { pre, NULL };
		char *no_pre[] = { other, dirv, NULL }, *empty_dir[] = { pre, empty, NULL };

		CHECK(ph_exec_env_keeps_shim(both) == 1);
		CHECK(ph_exec_env_keeps_shim(no_dir) == 0);
		CHECK(ph_exec_env_keeps_shim(no_pre) == 0);
		CHECK(ph_exec_env_keeps_shim(empty_dir) == 0);
		CHECK(ph_exec_env_keeps_shim(NULL) == 0);
	}
	snprintf(want, sizeof(want), "rm -rf '%s'", dir);
	if (system(want) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	return UNIT_RESULT();
}
