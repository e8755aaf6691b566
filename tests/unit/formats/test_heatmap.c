/*
 * formats/heatmap.h: a profrec recording alternating 100 ms busy and
 * 100 ms asleep for 3 s gives the stripes with exact counts; every cell
 * exists; a range's stacks equal what the --time-from/--time-to window
 * folds; perf script times count from the first sample; buckets are
 * validated; cell stacks stay exact across compactions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/buf.h"
#include "base/error.h"
#include "core/meta.h"
#include "core/stack.h"
#include "formats/folded.h"
#include "formats/heatmap.h"
#include "formats/profile.h"
#include "../unit.h"

#define MS 1000000ULL

static char dir[] = "/tmp/test_heatmap.XXXXXX";

/* Busy rows every ms of even 100 ms phases, one "wait" row at 150 ms of each odd one. */
static const char *write_stripes(void)
{
	static char path[300];
	FILE *f;
	int ms, busy_defined = 0, wait_defined = 0;

	snprintf(path, sizeof(path), "%s/stripes.tsv", dir);
	f = fopen(path, "w");
	fputs("# source=profrec event=cpu-clock,offcpu-time unit=ns,ns\n"
	      "time_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack\n", f);
	for (ms = 0; ms < 3000; ms++) {
		if ((ms / 100) % 2 == 0) {
			fprintf(f, "%llu\t7\t7\tapp\t0\tcpu-clock\t1000000\t1\t%s\n",
				(unsigned long long)ms * MS, busy_defined++ ? "" : "main;work");
		} else if (ms % 100 == 50) {
			fprintf(f, "%llu\t7\t7\tapp\t0\tcpu-clock\t1000000\t2\t%s\n",
				(unsigned long long)ms * MS, wait_defined++ ? "" : "main;wait");
			/* another event, not counted */
			fprintf(f, "%llu\t7\t7\tapp\t0\toffcpu-time\t99000000\t2\t\n",
				(unsigned long long)ms * MS);
		}
	}
	fclose(f);
	return path;
}

/* The table as sorted folded lines (caller frees). */
static char *folded_text(const struct prof_stacks *t)
{
	struct prof_buf b = PROF_BUF_INIT;
	size_t n, i;
	uint32_t *ids = prof_stacks_sorted(t, &n);
	char num[64];

	for (i = 0; i < n; i++) {
		prof_stacks_format(t, ids[i], &b);
		prof_format_count(num, prof_stacks_weights(t, ids[i])[0]);
		prof_buf_addf(&b, " %s\n", num);
	}
	free(ids);
	return prof_buf_detach(&b, NULL);
}

/* Read path into hm (buckets of bucket_ns) and t. Returns the read's result. */
static int read_heatmap(const char *path, uint64_t bucket_ns, struct prof_heatmap *hm,
			struct prof_stacks *t, struct prof_meta *meta)
{
	struct prof_profile_opts o;
	int rv;

	prof_profile_opts_init(&o);
	prof_heatmap_init(hm, bucket_ns);
	o.on_sample = prof_heatmap_on_sample;
	o.on_sample_ctx = hm;
	prof_stacks_init(t, 1);
	rv = prof_profile_read(path, &o, t, meta, NULL);
	prof_heatmap_finish(hm);
	return rv;
}

/* What `proffold --time-from from --time-to to` folds, as text (caller frees). */
static char *window_text(const char *path, uint64_t from, uint64_t to)
{
	struct prof_profile_opts o;
	struct prof_stacks t;
	struct prof_meta meta = PROF_META_INIT;
	char *text;

	prof_profile_opts_init(&o);
	o.time_window = 1;
	o.time_from_ns = from;
	o.time_to_ns = to;
	prof_stacks_init(&t, 1);
	prof_profile_read(path, &o, &t, &meta, NULL);
	text = folded_text(&t);
	prof_stacks_release(&t);
	prof_meta_release(&meta);
	return text;
}

static char *range_text(const struct prof_heatmap *hm, const struct prof_stacks *t,
			uint64_t from, uint64_t to, unsigned long *samples)
{
	struct prof_stacks r;
	char *text;

	prof_stacks_init(&r, 1);
	*samples = prof_heatmap_range_stacks(hm, t, from, to, &r);
	text = folded_text(&r);
	prof_stacks_release(&r);
	return text;
}

static void test_stripes(const char *path)
{
	struct prof_heatmap hm;
	struct prof_stacks t;
	struct prof_meta meta = PROF_META_INIT;
	int rv = read_heatmap(path, 20 * MS, &hm, &t, &meta);

	TEST("stripes: 3 s of 50 buckets, every cell, exact counts") {
		size_t c, busy = 0, one = 0, zero = 0;

		CHECK(rv == 0);
		CHECK(hm.per_second == 50);
		CHECK(hm.seconds == 3);
		CHECK(hm.ncells == 150);
		CHECK(hm.untimed == 0);
		for (c = 0; c < hm.ncells; c++) {
			size_t bucket = c % 50;
			int is_busy = (bucket / 5) % 2 == 0;	/* 5 buckets of 20 ms per 100 ms */

			if (is_busy) {
				CHECK(hm.cells[c].samples == 20);
				CHECK(hm.cells[c].weight == 20 * (prof_weight)MS);
				busy++;
			} else if (bucket % 10 == 7) {	/* 140..160 ms of the phase */
				CHECK(hm.cells[c].samples == 1);
				one++;
			} else {
				CHECK(hm.cells[c].samples == 0 && hm.cells[c].weight == 0);
				zero++;
			}
		}
		CHECK(busy == 75 && one == 15 && zero == 60);
		CHECK_STR(prof_meta_get(&meta, "event"), "cpu-clock");
	}
	TEST("range stacks equal the --time-from/--time-to window") {
		static const uint64_t ranges[][2] = {
			{ 0, 3000 * MS }, { 200 * MS, 700 * MS }, { 140 * MS, 160 * MS },
			{ 980 * MS, 2020 * MS }, { 2500 * MS, UINT64_MAX }, { 2940 * MS, 2960 * MS },
		};
		size_t i;

		for (i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++) {
			unsigned long n;
			char *want = window_text(path, ranges[i][0], ranges[i][1]);
			char *got = range_text(&hm, &t, ranges[i][0], ranges[i][1], &n);

			CHECK_STR(got, want);
			free(want);
			free(got);
		}
	}
	TEST("range stacks: exact content of one busy and one idle 100 ms") {
		unsigned long n;
		char *got = range_text(&hm, &t, 1100 * MS, 1300 * MS, &n);

		CHECK_STR(got, "app;main;wait 1000000\napp;main;work 100000000\n");
		CHECK(n == 101);
		free(got);
	}
	prof_heatmap_release(&hm);
	prof_stacks_release(&t);
	prof_meta_release(&meta);
}

static void test_perf_script(void)
{
	static const char text[] =
		"app 7 100.500000: 1000 cpu-clock:\n\tffff main (/app)\n\n"
		"app 7 100.510000: 1000 cpu-clock:\n\tffff main (/app)\n\n"
		"app 7 101.750000: 1000 cpu-clock:\n\tffff f (/app)\n\tffff main (/app)\n\n"
		"app 7 102.600000: 1000 cpu-clock:\n\tffff main (/app)\n\n";
	char path[300];
	FILE *f;
	struct prof_heatmap hm;
	struct prof_stacks t;
	struct prof_meta meta = PROF_META_INIT;
	int rv;

	snprintf(path, sizeof(path), "%s/perf.txt", dir);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	rv = read_heatmap(path, 100 * MS, &hm, &t, &meta);
	TEST("perf script: seconds from the first sample") {
		CHECK(rv == 0);
		CHECK(hm.seconds == 3);
		CHECK(hm.cells[0].samples == 2);	/* 0 s + 0 and 10 ms */
		CHECK(hm.cells[12].samples == 1);	/* 1.25 s */
		CHECK(hm.cells[21].samples == 1);	/* 2.1 s */
		CHECK(hm.cells[0].weight == 2000);
		CHECK(hm.untimed == 0);
	}
	prof_heatmap_release(&hm);
	prof_stacks_release(&t);
	prof_meta_release(&meta);
}

static void test_buckets_and_compaction(void)
{
	TEST("buckets: at least 1 ms, dividing 1 s") {
		CHECK(prof_heatmap_bucket_ok(20 * MS) == 0);
		CHECK(prof_heatmap_bucket_ok(1 * MS) == 0);
		CHECK(prof_heatmap_bucket_ok(1000 * MS) == 0);
		CHECK(prof_heatmap_bucket_ok(125 * MS) == 0);
		CHECK(prof_heatmap_bucket_ok(7 * MS) == -1);
		CHECK(prof_heatmap_bucket_ok(MS / 2) == -1);
		CHECK(prof_heatmap_bucket_ok(2000 * MS) == -1);
		CHECK(prof_heatmap_bucket_ok(0) == -1);
	}
	TEST("cell stacks exact across compactions; untimed and too late counted") {
		struct prof_heatmap hm;
		struct prof_stacks src, dst;
		uint32_t fr[2];
		uint32_t ids[3];
		unsigned long i, n;

		prof_stacks_init(&src, 1);
		fr[0] = prof_stacks_frame(&src, "a", 1);
		fr[1] = prof_stacks_frame(&src, "b", 1);
		ids[0] = prof_stacks_intern(&src, fr, 1);
		ids[1] = prof_stacks_intern(&src, fr, 2);
		ids[2] = prof_stacks_intern(&src, fr + 1, 1);
		prof_heatmap_init(&hm, 10 * MS);
		/* 300000 samples alternating stacks over 2 s: many compactions */
		for (i = 0; i < 300000; i++)
			prof_heatmap_on_sample(&hm, ids[i % 3], 2, (int64_t)(i * 2000000000ULL / 300000));
		prof_heatmap_on_sample(&hm, ids[0], 5, -1);
		prof_heatmap_on_sample(&hm, ids[0], 5, INT64_MAX);
		prof_heatmap_finish(&hm);
		CHECK(hm.untimed == 1);
		CHECK(hm.too_late == 1);
		CHECK(hm.seconds == 2 && hm.ncells == 200);
		CHECK(hm.nstacks == 600);
		prof_stacks_init(&dst, 1);
		n = prof_heatmap_range_stacks(&hm, &src, 0, UINT64_MAX, &dst);
		CHECK(n == 300000);
		CHECK(prof_stacks_count(&dst) == 3);
		for (i = 0; i < prof_stacks_count(&dst); i++)
			CHECK(prof_stacks_weights(&dst, (uint32_t)i)[0] == 200000);
		prof_stacks_release(&dst);
		prof_stacks_release(&src);
		prof_heatmap_release(&hm);
	}
}

int main(int argc, char **argv)
{
	char cmd[400];
	(void)argc;

	prof_set_progname(argv[0]);
	prof_verbosity = 0;
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_stripes(write_stripes());
	test_perf_script();
	test_buckets_and_compaction();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		return 1;
	return UNIT_RESULT();
}
