/*
 * formats/profile.h, the one "read any profile" entry point: the same
 * profile written as folded stacks, profrec TSV and perf script text
 * (with and without call chains), plain and gzip-compressed, must be
 * detected and read into identical stacks and metadata; errors carry
 * file:line.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "base/buf.h"
#include "base/error.h"
#include "core/meta.h"
#include "core/stack.h"
#include "formats/folded.h"
#include "formats/profile.h"
#include "../unit.h"

static char dir[] = "/tmp/test_profile.XXXXXX";

/* Write text to dir/name (gzip-compressed when gz); returns the path (static). */
static const char *put(const char *name, const char *text, int gz)
{
	static char path[8][256];
	static int k;
	char *p = path[k++ % 8];
	FILE *f;

	snprintf(p, 256, "%s/%s", dir, name);
	if (gz) {
		gzFile z = gzopen(p, "wb");

		gzwrite(z, text, (unsigned)strlen(text));
		gzclose(z);
	} else {
		f = fopen(p, "w");
		fputs(text, f);
		fclose(f);
	}
	return p;
}

/* The table as sorted folded lines "stack w[ w2]" (caller frees). */
static char *folded_text(const struct prof_stacks *t, int ncols)
{
	struct prof_buf b = PROF_BUF_INIT;
	size_t n, i;
	uint32_t *ids = prof_stacks_sorted(t, &n);
	int c;

	for (i = 0; i < n; i++) {
		prof_stacks_format(t, ids[i], &b);
		for (c = 0; c < ncols; c++) {
			char num[64];

			prof_format_count(num, prof_stacks_weights(t, ids[i])[c]);
			prof_buf_addf(&b, " %s", num);
		}
		prof_buf_addch(&b, '\n');
	}
	free(ids);
	return prof_buf_detach(&b, NULL);
}

struct result {
	int rv;
	char *stacks;		/* folded_text() of column 0 (and 1 if differential) */
	struct prof_meta meta;
	struct prof_profile_summary sum;
};

static void read_paths(const char *const *paths, size_t n, const struct prof_profile_opts *o,
		       struct result *r)
{
	struct prof_stacks t;

	prof_stacks_init(&t, 2);
	memset(&r->meta, 0, sizeof(r->meta));
	r->rv = prof_profile_read_all(paths, n, o, &t, &r->meta, &r->sum);
	r->stacks = folded_text(&t, r->sum.ncounts);
	prof_stacks_release(&t);
}

static void read_one(const char *path, const struct prof_profile_opts *o, struct result *r)
{
	read_paths(&path, 1, o, r);
}

static void result_release(struct result *r)
{
	free(r->stacks);
	prof_meta_release(&r->meta);
}

/* Send stderr to a file until capture_end(), which returns what was written (caller frees). */
static int saved_stderr = -1;

static void capture_begin(void)
{
	char path[300];
	int fd;

	snprintf(path, sizeof(path), "%s/stderr", dir);
	fflush(stderr);
	saved_stderr = dup(2);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	close(fd);
}

static char *capture_end(void)
{
	char path[300], *text = calloc(1, 4096);
	size_t len;
	FILE *f;

	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	snprintf(path, sizeof(path), "%s/stderr", dir);
	f = fopen(path, "r");
	len = fread(text, 1, 4095, f);
	text[len] = '\0';
	fclose(f);
	return text;
}

/* One profile, four ways. Two events in the sources that have events. */
static const char want[] =
	"app;main;compute;hot 5\n"
	"app;main;wait 2\n";

static const char folded_src[] =
	"# unit=ns event=cpu-clock source=perf-script\n"
	"app;main;compute;hot 3\n"
	"app;main;wait 2\n"
	"app;main;compute;hot 2\n";

static const char tsv_src[] =
	"# source=profrec event=cpu-clock,offcpu-time unit=ns,ns\n"
	"time_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack\n"
	"1000\t7\t7\tapp\t0\tcpu-clock\t3\t1\tmain;compute;hot\n"
	"2000\t7\t7\tapp\t0\toffcpu-time\t50\t2\tmain;sleep\n"
	"3000\t7\t7\tapp\t0\tcpu-clock\t2\t3\tmain;wait\n"
	"4000\t7\t7\tapp\t0\tcpu-clock\t2\t1\t\n";

static const char perf_src[] =
	"app 7/7 [000] 1.000001: 3 cpu-clock:\n"
	"\t    401000 hot+0x10 (/opt/app)\n"
	"\t    401100 compute+0x20 (/opt/app)\n"
	"\t    401200 main+0x5 (/opt/app)\n"
	"\n"
	"app 7/7 [000] 1.000002: 9 page-faults:\n"
	"\t    401000 hot+0x10 (/opt/app)\n"
	"\n"
	"app 7/7 [000] 1.000003: 2 cpu-clock:\n"
	"\t    401300 wait+0x1 (/opt/app)\n"
	"\t    401200 main+0x5 (/opt/app)\n"
	"\n"
	"app 7/7 [000] 1.000004: 2 cpu-clock:\n"
	"\t    401000 hot+0x10 (/opt/app)\n"
	"\t    401100 compute+0x20 (/opt/app)\n"
	"\t    401200 main+0x5 (/opt/app)\n"
	"\n";

/* perf script without -g: one line per sample, its leaf frame. */
static const char perf_flat_src[] =
	"app 7/7 [000] 1.000001: 3 cpu-clock: 401000 hot+0x10 (/opt/app)\n"
	"app 7/7 [000] 1.000003: 2 cpu-clock: 401300 wait+0x1 (/opt/app)\n"
	"app 7/7 [000] 1.000004: 2 cpu-clock: 401000 hot+0x10 (/opt/app)\n";

/* on_stack: the stack ids and weights in input order, as text. */
static void on_stack(void *ctx, uint32_t id, const prof_weight *w, int nw)
{
	prof_buf_addf(ctx, "%u:%.0Lf%s", id, w[0], nw == 2 ? "+" : " ");
}

int main(int argc, char **argv)
{
	struct prof_profile_opts o;
	struct result r;
	(void)argc;

	prof_set_progname(argv[0]);
	prof_verbosity = 0;	/* no notes on skipped events */
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	prof_profile_opts_init(&o);

	TEST("detect each format") {
		CHECK(prof_profile_detect(folded_src, strlen(folded_src), 1) == PROF_PROFILE_FOLDED);
		CHECK(prof_profile_detect(tsv_src, strlen(tsv_src), 1) == PROF_PROFILE_PROFREC);
		CHECK(prof_profile_detect(perf_src, strlen(perf_src), 1) == PROF_PROFILE_PERF_SCRIPT);
		CHECK(prof_profile_detect(perf_flat_src, strlen(perf_flat_src), 1) ==
		      PROF_PROFILE_PERF_SCRIPT);
		CHECK(prof_profile_detect("a;b 1 2\n", 8, 1) == PROF_PROFILE_FOLDED);
		CHECK(prof_profile_detect("", 0, 1) == PROF_PROFILE_FOLDED);
	}

	TEST("format names") {
		CHECK(prof_profile_format_parse("auto") == PROF_PROFILE_AUTO);
		CHECK(prof_profile_format_parse("perf") == PROF_PROFILE_PERF_SCRIPT);
		CHECK(prof_profile_format_parse("perf-script") == PROF_PROFILE_PERF_SCRIPT);
		CHECK(prof_profile_format_parse("profrec") == PROF_PROFILE_PROFREC);
		CHECK(prof_profile_format_parse("folded") == PROF_PROFILE_FOLDED);
		CHECK(prof_profile_format_parse("svg") == -1);
		CHECK_STR(prof_profile_format_name(PROF_PROFILE_PERF_SCRIPT), "perf");
	}

	TEST("folded stacks") {
		read_one(put("a.folded", folded_src, 0), &o, &r);
		CHECK(r.rv == 0);
		CHECK_STR(r.stacks, want);
		CHECK(r.sum.format == PROF_PROFILE_FOLDED && r.sum.ncounts == 1 && r.sum.inputs == 1);
		CHECK_STR(prof_meta_get(&r.meta, "unit"), "ns");
		CHECK_STR(prof_meta_get(&r.meta, "source"), "perf-script");
		result_release(&r);
	}

	TEST("profrec TSV: first event of the metadata, its unit") {
		read_one(put("a.tsv", tsv_src, 0), &o, &r);
		CHECK(r.rv == 0);
		CHECK_STR(r.stacks, want);
		CHECK(r.sum.format == PROF_PROFILE_PROFREC);
		CHECK_STR(prof_meta_get(&r.meta, "unit"), "ns");
		CHECK_STR(prof_meta_get(&r.meta, "event"), "cpu-clock");
		CHECK_STR(prof_meta_get(&r.meta, "source"), "profrec");
		result_release(&r);
	}

	TEST("perf script with call chains") {
		read_one(put("a.perf", perf_src, 0), &o, &r);
		CHECK(r.rv == 0);
		CHECK_STR(r.stacks, want);
		CHECK(r.sum.format == PROF_PROFILE_PERF_SCRIPT);
		CHECK_STR(prof_meta_get(&r.meta, "unit"), "ns");
		CHECK_STR(prof_meta_get(&r.meta, "event"), "cpu-clock");
		CHECK_STR(prof_meta_get(&r.meta, "source"), "perf-script");
		result_release(&r);
	}

	TEST("perf script without call chains") {
		read_one(put("flat.perf", perf_flat_src, 0), &o, &r);
		CHECK(r.rv == 0);
		CHECK_STR(r.stacks, "app;hot 5\napp;wait 2\n");
		CHECK(r.sum.format == PROF_PROFILE_PERF_SCRIPT);
		result_release(&r);
	}

	TEST("gzip-compressed inputs read the same") {
		read_one(put("a.folded.gz", folded_src, 1), &o, &r);
		CHECK(r.rv == 0 && r.sum.format == PROF_PROFILE_FOLDED);
		CHECK_STR(r.stacks, want);
		result_release(&r);
		read_one(put("a.tsv.gz", tsv_src, 1), &o, &r);
		CHECK(r.rv == 0 && r.sum.format == PROF_PROFILE_PROFREC);
		CHECK_STR(r.stacks, want);
		result_release(&r);
		/* no suffix: compression is found by its magic number */
		read_one(put("perf-gz", perf_src, 1), &o, &r);
		CHECK(r.rv == 0 && r.sum.format == PROF_PROFILE_PERF_SCRIPT);
		CHECK_STR(r.stacks, want);
		result_release(&r);
	}

	TEST("event selection") {
		struct prof_profile_opts e = o;

		e.event = "offcpu-time";
		read_one(put("a.tsv", tsv_src, 0), &e, &r);
		CHECK(r.rv == 0);
		CHECK_STR(r.stacks, "app;main;sleep 50\n");
		CHECK_STR(prof_meta_get(&r.meta, "event"), "offcpu-time");
		result_release(&r);
		e.event = "page-faults";
		read_one(put("a.perf", perf_src, 0), &e, &r);
		CHECK(r.rv == 0);
		CHECK_STR(r.stacks, "app;hot 9\n");
		CHECK_STR(prof_meta_get(&r.meta, "unit"), "page-faults");
		result_release(&r);
	}

	TEST("options: counts, pid, time window") {
		struct prof_profile_opts e = o;
		char *err;

		e.counts = 1;
		e.include_pid = 1;
		read_one(put("a.tsv", tsv_src, 0), &e, &r);
		CHECK_STR(r.stacks, "app-7;main;compute;hot 2\napp-7;main;wait 1\n");
		CHECK_STR(prof_meta_get(&r.meta, "unit"), "samples");
		result_release(&r);
		e = o;
		e.time_window = 1;
		e.time_from_ns = 2500;
		read_one(put("a.tsv", tsv_src, 0), &e, &r);
		CHECK(r.rv == 0);
		CHECK_STR(r.stacks, "app;main;compute;hot 2\napp;main;wait 2\n");
		result_release(&r);
		e.time_from_ns = 10000;
		capture_begin();
		read_one(put("a.tsv", tsv_src, 0), &e, &r);
		err = capture_end();
		CHECK(r.rv == -1 && r.sum.window_empty);
		CHECK_STR(r.stacks, "");
		CHECK(strstr(err, "no samples in the window 0.00001s..end; the profile spans "
			      "0.000001s..0.000004s") != NULL);
		free(err);
		result_release(&r);
	}

	TEST("forced format") {
		struct prof_profile_opts e = o;

		e.format = PROF_PROFILE_FOLDED;
		read_one(put("a.folded", folded_src, 0), &e, &r);
		CHECK(r.rv == 0 && r.sum.format == PROF_PROFILE_FOLDED);
		CHECK_STR(r.stacks, want);
		result_release(&r);
	}

	TEST("differential folded input: two columns") {
		read_one(put("d.folded", "# unit=bytes\na;b 1 4\na;c 3 0\n", 0), &o, &r);
		CHECK(r.rv == 0 && r.sum.ncounts == 2);
		CHECK_STR(r.stacks, "a;b 1 4\na;c 3 0\n");
		result_release(&r);
	}

	TEST("several inputs of every format add up") {
		const char *paths[3];

		paths[0] = put("a.perf", perf_src, 0);
		paths[1] = put("a.folded.gz", folded_src, 1);
		paths[2] = put("a.tsv", tsv_src, 0);
		read_paths(paths, 3, &o, &r);
		CHECK(r.rv == 0 && r.sum.inputs == 3);
		/* profrec input among them: perf's kernel frames would get "_[k]" */
		CHECK_STR(r.stacks, "app;main;compute;hot 15\napp;main;wait 6\n");
		CHECK_STR(prof_meta_get(&r.meta, "source"), "merged");
		CHECK_STR(prof_meta_get(&r.meta, "unit"), "ns");
		CHECK_STR(prof_meta_get(&r.meta, "event"), "cpu-clock");
		result_release(&r);
	}

	TEST("profheap folded output keeps its unit") {
		const char *paths[2];
		char *err;

		paths[0] = put("1.alloc.folded", "# tool=profheap report=alloc unit=bytes pid=1\n"
			       "app;main;malloc 4096\n", 0);
		paths[1] = put("1.count.folded", "# tool=profheap report=count unit=allocations pid=1\n"
			       "app;main;malloc 2\n", 0);
		read_one(paths[0], &o, &r);
		CHECK_STR(r.stacks, "app;main;malloc 4096\n");
		CHECK_STR(prof_meta_get(&r.meta, "unit"), "bytes");
		result_release(&r);
		/* different units are added, said, and the unit is then unknown */
		capture_begin();
		read_paths(paths, 2, &o, &r);
		err = capture_end();
		CHECK(strstr(err, "inputs in different units (bytes, allocations)") != NULL);
		free(err);
		CHECK(prof_meta_get(&r.meta, "unit") == NULL);
		CHECK_STR(prof_meta_get(&r.meta, "tool"), "profheap");
		result_release(&r);
	}

	TEST("on_stack sees every line in input order") {
		struct prof_profile_opts e = o;
		struct prof_buf seen = PROF_BUF_INIT;

		e.on_stack = on_stack;
		e.on_stack_ctx = &seen;
		read_one(put("a.folded", folded_src, 0), &e, &r);
		CHECK_STR(prof_buf_cstr(&seen), "0:3 1:2 0:2 ");
		result_release(&r);
		prof_buf_reset(&seen);
		read_one(put("a.tsv", tsv_src, 0), &e, &r);
		CHECK_STR(prof_buf_cstr(&seen), "0:3 1:2 0:2 ");
		result_release(&r);
		prof_buf_reset(&seen);
		e.jobs = 4;
		read_one(put("a.perf", perf_src, 0), &e, &r);
		CHECK_STR(prof_buf_cstr(&seen), "0:3 1:2 0:2 ");
		result_release(&r);
		prof_buf_release(&seen);
	}

	TEST("malformed lines: file:line, the rest kept") {
		char *err, where[320];
		const char *path;

		path = put("bad.folded", "# unit=ns\na;b 1\nno count here\na;c 2\n", 0);
		capture_begin();
		read_one(path, &o, &r);
		err = capture_end();
		CHECK(r.rv == -1);
		CHECK_STR(r.stacks, "a;b 1\na;c 2\n");
		snprintf(where, sizeof(where), "%s:3: missing count", path);
		CHECK(strstr(err, where) != NULL);
		free(err);
		result_release(&r);

		path = put("bad.tsv", "time_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack\n"
			       "1\t2\t2\tx\t0\tcpu-clock\t1\t1\ta;b\n"
			       "1\t2\t2\tx\t0\tcpu-clock\t1\t9\t\n", 0);
		capture_begin();
		read_one(path, &o, &r);
		err = capture_end();
		CHECK(r.rv == -1);
		CHECK_STR(r.stacks, "x;a;b 1\n");
		snprintf(where, sizeof(where), "%s:3: stack_id not defined", path);
		CHECK(strstr(err, where) != NULL);
		free(err);
		result_release(&r);

		path = put("bad.perf", "app 7/7 [000] 1.0: 3 cpu-clock:\n"
			       "\t    401000 hot+0x10 (/opt/app)\n"
			       "what is this\n"
			       "\n", 0);
		capture_begin();
		read_one(path, &o, &r);
		err = capture_end();
		CHECK(r.rv == -1);
		snprintf(where, sizeof(where), "%s:3: unrecognized line: what is this", path);
		CHECK(strstr(err, where) != NULL);
		free(err);
		result_release(&r);

		path = "/nonexistent/profile";
		capture_begin();
		read_one(path, &o, &r);
		err = capture_end();
		CHECK(r.rv == -1 && r.sum.inputs == 0 && r.sum.unreadable == 1);
		CHECK(strstr(err, "/nonexistent/profile: No such file or directory") != NULL);
		free(err);
		result_release(&r);
	}

	TEST("unreadable inputs are counted apart from malformed lines") {
		const char *paths[3];
		char *err;

		paths[0] = dir;		/* a directory opens, but is not read */
		paths[1] = put("cut.folded.gz", "", 0);
		paths[2] = put("a.folded", folded_src, 0);
		{
			/* a gzip stream cut short */
			FILE *f = fopen(paths[1], "wb");

			fwrite("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 1, 10, f);
			fclose(f);
		}
		capture_begin();
		read_paths(paths, 3, &o, &r);
		err = capture_end();
		CHECK(r.rv == -1 && r.sum.inputs == 3 && r.sum.unreadable == 2);
		CHECK_STR(r.stacks, want);
		CHECK(strstr(err, "Is a directory") != NULL);
		free(err);
		result_release(&r);
		read_one(put("a.folded", folded_src, 0), &o, &r);
		CHECK(r.rv == 0 && r.sum.unreadable == 0);
		result_release(&r);
	}

	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", dir);
	}
	return UNIT_RESULT();
}
