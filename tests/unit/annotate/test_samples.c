/*
 * annotate/samples: a recording's sampled addresses counted per (file,
 * offset): mappings defined on first use, hits at one offset merged,
 * other events, rows without an ip and kernel rows counted apart; a
 * recording without the ip column refused. perf script text: the pc of
 * each sample placed in its file by sym+offset, by a mapping of
 * --show-mmap-events, or as is; call chains count their first frame;
 * build-ids from perf buildid-list lines; text without ip or dso refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "annotate/samples.h"
#include "symbolize/elfcode.h"
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

/* The file offset of main + 4 in this program (PIE or not); 0 if unknown. */
static uint64_t main_off(uint64_t *main_addr)
{
	char err[128];
	struct prof_elfcode *c = prof_elfcode_open("/proc/self/exe", err, sizeof(err));
	const struct prof_elfcode_func *fn = c ? prof_elfcode_find(c, "main") : NULL;
	uint64_t off = 0;

	if (fn && prof_elfcode_vaddr_to_off(c, fn->addr + 4, &off) != 0)
		off = 0;
	*main_addr = fn ? fn->addr : 0;
	prof_elfcode_close(c);
	return off;
}

static void put(const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void perf_tests(void)
{
	struct prof_ann_samples s;
	uint64_t addr, off = main_off(&addr);
	char text[2048];

	if (!off) {
		printf("SKIP perf script tests: main not found in /proc/self/exe\n");
		return;
	}
	TEST("perf script: sample lines placed by sym+offset, other events and the kernel apart") {
		snprintf(text, sizeof(text),
			 "# header\n"
			 "app 7 1.000001:      1 cycles:  5555deadbeef main+0x4 (/proc/self/exe)\n"
			 "app 7/7 [001] 1.000002: 250000 cycles: 7777 main+0x4 (/proc/self/exe)\n"
			 "app 7 1.000003: 1 instructions:  5555deadbeef main+0x4 (/proc/self/exe)\n"
			 "app 7 1.000004: 1 cycles:  ffffffff81000000 do_idle+0x10 ([kernel.kallsyms])\n");
		put(text);
		CHECK(prof_ann_samples_read(path, &s) == 0);
		CHECK(s.nfiles == 1 && s.nhits == 1 && s.rows == 4 && s.other_events == 1 &&
		      s.outside_files == 1);
		if (s.nhits == 1)
			CHECK(s.hits[0].off == off && s.hits[0].count == 2 && s.files[0].samples == 2);
		CHECK(s.event && strcmp(s.event, "cycles") == 0);
	}
	prof_ann_samples_release(&s);
	TEST("perf script -F ip,sym,symoff,dso of call chains: the first frame of each sample") {
		snprintf(text, sizeof(text),
			 "\n\t    5555deadbeef main+0x4 (/proc/self/exe)\n\t    7f0000001000 __libc_start_main+0x80 (/usr/lib/libc.so.6)\n\n"
			 "\n\t    5555deadbeef main+0x4 (/proc/self/exe)\n\t    5555deadbe00 _start+0x20 (/proc/self/exe)\n\n");
		put(text);
		CHECK(prof_ann_samples_read(path, &s) == 0);
		CHECK(s.nhits == 1 && s.rows == 2 && s.counted == 2);
	}
	prof_ann_samples_release(&s);
	TEST("perf script without symoff: mappings (--show-mmap-events) place the pc; build-ids") {
		snprintf(text, sizeof(text),
			 "0123456789abcdef0123456789abcdef01234567 /proc/self/exe\n"
			 "PERF_RECORD_MMAP2 7/7: [0x700000000000(0x1000000) @ 0 fe:00 1 2]: r-xp /proc/self/exe\n"
			 " %llx main (/proc/self/exe)\n"
			 " %llx main (/proc/self/exe)\n"
			 " 5555deadbeef main (/proc/self/exe)\n",
			 0x700000000000ull + (unsigned long long)off, 0x700000000000ull + (unsigned long long)off);
		put(text);
		CHECK(prof_ann_samples_read(path, &s) == 0);
		CHECK(s.nhits == 1 && s.counted == 3);
		if (s.nhits == 1)
			CHECK(s.hits[0].off == off && s.hits[0].count == 2);
		CHECK(s.nfiles == 1 && s.files[0].build_id &&
		      strcmp(s.files[0].build_id, "0123456789abcdef0123456789abcdef01234567") == 0);
	}
	prof_ann_samples_release(&s);
	TEST("perf script: a pc inside the file's own addresses is taken as is (non-PIE)") {
		snprintf(text, sizeof(text), "  %llx [unknown] (/proc/self/exe)\n", (unsigned long long)addr + 4);
		put(text);
		CHECK(prof_ann_samples_read(path, &s) == 0 && s.nhits == 1);
		if (s.nhits == 1)
			CHECK(s.hits[0].off == off);
	}
	prof_ann_samples_release(&s);
	TEST("perf script text without the ip field, without the dso field, not perf: refused") {
		put("app 7 1.000001: 1 cycles: main+0x4 (/proc/self/exe)\n");
		CHECK(prof_ann_samples_read(path, &s) == -1);
		prof_ann_samples_release(&s);
		put("             app  7 \n             app  7 \n");	/* -F comm,tid */
		CHECK(prof_ann_samples_read(path, &s) == -1);
		prof_ann_samples_release(&s);
		put(" 5555deadbeef main+0x4\n");
		CHECK(prof_ann_samples_read(path, &s) == -1);
		prof_ann_samples_release(&s);
		put("main;f 12\n");
		CHECK(prof_ann_samples_read(path, &s) == -1);
	}
	prof_ann_samples_release(&s);
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
	TEST("a mapping defined with an id past the next one is malformed (no huge table)") {
		put(HEAD "\tip\tmap_id\tmap\n1\t7\t7\tapp\t0\tcpu-clock\t1\t0\tmain\t1136\t"
		    "3333333333333330\t0x1000 0x0 - /bin/app\n");
		CHECK(prof_ann_samples_read(path, &s) == -1 && s.counted == 0);
	}
	prof_ann_samples_release(&s);
	perf_tests();
	unlink(path);
	return UNIT_RESULT();
}
