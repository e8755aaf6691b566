/*
 * formats/import.h and its importers (dtrace, eustack, gdbbt, perfreport,
 * speedscope_read): detection is unambiguous with the formats read before
 * (folded, perf script, profrec TSV) and between importers, also on a
 * window cut mid-line; each importer's stacks are root first, with the
 * metadata its header says.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "base/xalloc.h"
#include "core/stack.h"
#include "formats/folded.h"
#include "formats/import.h"
#include "formats/profile.h"
#include "../unit.h"

static const char dtrace_text[] =
	"CPU     ID                    FUNCTION:NAME\n  0  64091        :tick-60s \n\n\n"
	"              libc.so.1`__write+0x15\n              app`main+0x53\n               12\n\n";
static const char bpf_text[] = "Attaching 1 probe...\n@[\n    vfs_read+5\n    ksys_read+103\n]: 4\n";
static const char eu_text[] = "PID 7 - process\nTID 7:\n#0  0x00007f0000001000 read\n"
			      "#1  0x0000555500001000 main\nTID 8:\n#0  0x00007f0000001000 read\n"
			      "#1  0x0000555500001000 main\n";
static const char gdb_text[] = "Thread 1 (Thread 0x7f00 (LWP 7) \"app\"):\n"
			       "#0  0x00007f0000001000 in read (fd=3) at read.c:2\n"
			       "#1  0x0000555500001000 in main () at m.c:1\n";
static const char report_text[] = "# Samples: 3  of event 'cpu-clock'\n# Event count (approx.): 3\n#\n"
				  "# Overhead  Command  Shared Object  Symbol\n#\n"
				  "    100.00%  app  app  [.] read\n2 main;read\n1 read;g;main\n";
static const char ss_text[] = "{\"$schema\": \"https://www.speedscope.app/file-format-schema.json\","
			      "\"shared\": {\"frames\": [{\"name\": \"main\"}, {\"name\": \"read\"}]},"
			      "\"profiles\": [{\"type\": \"sampled\", \"name\": \"t\", \"unit\": \"none\","
			      "\"startValue\": 0, \"endValue\": 2, \"samples\": [[0, 1], [0]], \"weights\": [3, 1]}]}";

static enum prof_profile_format detect(const char *s)
{
	return prof_profile_detect(s, strlen(s), 1);
}

/*
 * Fold text in format f: the sorted folded lines, then "| source=S" and
 * the return code (a static buffer).
 */
static const char *fold(enum prof_profile_format f, const char *text)
{
	static char out[1024];
	struct prof_stacks t;
	struct prof_import imp;
	struct prof_buf b = PROF_BUF_INIT;
	size_t len = strlen(text), n, i;
	char *buf = xmemdup(text, len + 1);
	uint32_t *ids;
	int rc;

	prof_stacks_init(&t, 1);
	prof_import_init(&imp, "in", &t);
	rc = prof_import_read_text(&imp, f, buf, len);
	ids = prof_stacks_sorted(&t, &n);
	for (i = 0; i < n; i++) {
		char num[64];

		prof_stacks_format(&t, ids[i], &b);
		prof_format_count(num, prof_stacks_weights(&t, ids[i])[0]);
		prof_buf_addf(&b, " %s\n", num);
	}
	prof_buf_addf(&b, "| source=%s rc=%d", prof_meta_get(&imp.meta, "source"), rc);
	snprintf(out, sizeof(out), "%s", prof_buf_cstr(&b));
	prof_import_release(&imp);
	prof_buf_release(&b);
	free(ids);
	free(buf);
	prof_stacks_release(&t);
	return out;
}

int main(void)
{
	TEST("each format detected as itself") {
		CHECK(detect(dtrace_text) == PROF_PROFILE_DTRACE);
		CHECK(detect(bpf_text) == PROF_PROFILE_DTRACE);
		CHECK(detect(eu_text) == PROF_PROFILE_EUSTACK);
		CHECK(detect(gdb_text) == PROF_PROFILE_GDB);
		CHECK(detect(report_text) == PROF_PROFILE_PERF_REPORT);
		CHECK(detect(ss_text) == PROF_PROFILE_SPEEDSCOPE);
	}
	TEST("the formats read before keep their inputs") {
		/* folded lines that look a little like the imported formats */
		CHECK(detect("main;work 5\n  main;work 3\n7\n") == PROF_PROFILE_FOLDED);
		CHECK(detect("@[x];main 5\n") == PROF_PROFILE_FOLDED);
		CHECK(detect("#0 main 5\n") == PROF_PROFILE_FOLDED);
		CHECK(detect("{lambda};main 5\n") == PROF_PROFILE_FOLDED);
		CHECK(detect("# unit=ns\nTID 7:;main 3\n") == PROF_PROFILE_FOLDED);
		CHECK(detect("app 42/42 1.0: 1000 cpu-clock: \n\t11cc main+0x2b (/opt/app)\n\n") ==
		      PROF_PROFILE_PERF_SCRIPT);
		CHECK(detect("time_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack\n") ==
		      PROF_PROFILE_PROFREC);
	}
	TEST("a window cut mid-line decides nothing from the cut line") {
		/* "  5" would end a DTrace stack; cut, it may be "  5xyz" */
		CHECK(prof_profile_detect("  frame\n  5", 11, 0) == PROF_PROFILE_FOLDED);
		CHECK(prof_profile_detect("  frame\n  5", 11, 1) == PROF_PROFILE_DTRACE);
	}
	TEST("dtrace: leaf-first lines folded root first, header skipped") {
		CHECK_STR(fold(PROF_PROFILE_DTRACE, dtrace_text),
			  "app`main;libc.so.1`__write 12\n| source=dtrace rc=0");
	}
	TEST("bpftrace: offsets cut, source bpftrace") {
		CHECK_STR(fold(PROF_PROFILE_DTRACE, bpf_text), "ksys_read;vfs_read 4\n| source=bpftrace rc=0");
	}
	TEST("eu-stack: a sample per thread") {
		CHECK_STR(fold(PROF_PROFILE_EUSTACK, eu_text), "main;read 2\n| source=eu-stack rc=0");
	}
	TEST("gdb: the thread name as root") {
		CHECK_STR(fold(PROF_PROFILE_GDB, gdb_text), "app;main;read 1\n| source=gdb rc=0");
	}
	TEST("perf report: caller and callee chains both root first") {
		CHECK_STR(fold(PROF_PROFILE_PERF_REPORT, report_text),
			  "main;g;read 1\nmain;read 2\n| source=perf-report rc=0");
	}
	TEST("speedscope: stacks root first, weights") {
		CHECK_STR(fold(PROF_PROFILE_SPEEDSCOPE, ss_text), "main 1\nmain;read 3\n| source=speedscope rc=0");
	}
	TEST("frame names that folded text cannot hold") {
		char *buf = xstrdup("  a;b\n  c\n  1\n");
		struct prof_stacks t;
		struct prof_import imp;
		struct prof_buf b = PROF_BUF_INIT;

		prof_stacks_init(&t, 1);
		prof_import_init(&imp, "in", &t);
		prof_import_frame(&imp, "x;y\nz", 5);
		prof_import_commit(&imp, 1, 0);
		prof_stacks_format(&t, 0, &b);
		CHECK_STR(prof_buf_cstr(&b), "x:y z");
		CHECK(prof_import_commit(&imp, 1, 0) == UINT32_MAX);	/* empty: nothing added */
		prof_buf_release(&b);
		prof_import_release(&imp);
		prof_stacks_release(&t);
		free(buf);
	}
	return UNIT_RESULT();
}
