/*
 * annotate/samples: a recording's sampled addresses counted per (file,
 * offset): mappings defined on first use, hits at one offset merged,
 * other events, rows without an ip and kernel rows counted apart; a
 * recording without the ip column refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "annotate/samples.h"
#include "base/error.h"
#include "../unit.h"

#define HEAD "time_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack"

static const char rec[] =
	"# source=profrec event=cpu-clock\n" HEAD "\tip\tmap_id\tmap\n"
	"1\t7\t7\tapp\t0\tcpu-clock\t1\t0\tmain\t555500001136\t0\t0x555500001000 0x1000 abcd /bin/app\n"
	"2\t7\t7\tapp\t0\tcpu-clock\t1\t0\t\t555500001136\t0\t\n"
	"3\t7\t7\tapp\t0\tcpu-clock\t1\t1\tmain;f\t7f0000002010\t1\t0x7f0000002000 0x2000 - /lib/libx.so\n"
	"4\t7\t7\tapp\t0\tcpu-clock\t1\t0\t\t555500001100\t0\t\n"
	"5\t7\t7\tapp\t0\tcpu-clock\t1\t2\tk_[k]\tffffffff81000000\t\t\n"
	"6\t7\t7\tapp\t0\toffcpu-time\t9\t0\t\t\t\t\n"
	"7\t7\t7\tapp\t0\tcpu-clock\t1\t0\t\t\t\t\n";

static char path[] = "/tmp/test_samples.XXXXXX";

static void put(const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

int main(int argc, char **argv)
{
	struct prof_ann_samples s;
	int fd = mkstemp(path);

	(void)argc;
	prof_set_progname(argv[0]);
	if (fd >= 0)
		close(fd);
	put(rec);
	TEST("files, merged hits per offset, what is counted apart") {
		CHECK(prof_ann_samples_read(path, &s) == 0);
		CHECK(s.nfiles == 2 && s.nhits == 3);
		if (s.nfiles == 2 && s.nhits == 3) {
			CHECK_STR(s.files[0].path, "/bin/app");
			CHECK_STR(s.files[0].build_id, "abcd");
			CHECK(s.files[1].build_id == NULL && s.files[0].samples == 3 && s.files[1].samples == 1);
			CHECK(s.hits[0].file == 0 && s.hits[0].off == 0x1100 && s.hits[0].count == 1);
			CHECK(s.hits[1].file == 0 && s.hits[1].off == 0x1136 && s.hits[1].count == 2);
			CHECK(s.hits[2].file == 1 && s.hits[2].off == 0x2010 && s.hits[2].count == 1);
		}
		CHECK(s.rows == 7 && s.counted == 4 && s.outside_files == 1 && s.other_events == 1 &&
		      s.no_ip == 1);
		CHECK_STR(s.event, "cpu-clock");
	}
	prof_ann_samples_release(&s);
	TEST("a recording without the ip column is refused") {
		put(HEAD "\n1\t7\t7\tapp\t0\tcpu-clock\t1\t0\tmain\n");
		CHECK(prof_ann_samples_read(path, &s) == -1);
	}
	prof_ann_samples_release(&s);
	TEST("a row naming an undefined map_id is malformed") {
		put(HEAD "\tip\tmap_id\tmap\n1\t7\t7\tapp\t0\tcpu-clock\t1\t0\tmain\t1136\t3\t\n");
		CHECK(prof_ann_samples_read(path, &s) == -1 && s.counted == 0);
	}
	prof_ann_samples_release(&s);
	unlink(path);
	return UNIT_RESULT();
}
