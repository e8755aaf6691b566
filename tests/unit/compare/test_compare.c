/* lib/compare: tables matched on keys, runs summarized, functions judged. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../unit.h"
#include "base/units.h"
#include "compare/functions.h"
#include "compare/stats.h"
#include "compare/table.h"
#include "core/stack.h"
#include "io/input.h"

static char path_buf[2][64];

static const char *put(int i, const char *text)
{
	FILE *f;

	snprintf(path_buf[i], sizeof(path_buf[i]), "/tmp/test_compare.%d.%d", (int)getpid(), i);
	f = fopen(path_buf[i], "w");
	fputs(text, f);
	fclose(f);
	return path_buf[i];
}

static const struct prof_table_change *find(const struct prof_table_change *c, size_t n,
					    const char *key, const char *metric)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(c[i].key, key) && !strcmp(c[i].metric, metric))
			return &c[i];
	return NULL;
}

static void add(struct prof_stacks *t, const char *a, const char *b, prof_weight w)
{
	uint32_t f[2] = { prof_stacks_frame(t, a, strlen(a)), 0 };
	size_t depth = 1;

	if (b) {
		f[1] = prof_stacks_frame(t, b, strlen(b));
		depth = 2;
	}
	prof_stacks_add(t, f, depth, &w);
}

/* base: main;a 300, main;b 100; new: main;a 600, main;c 200 (counts beyond their noise) */
static void two_profiles(struct prof_stacks *b, struct prof_stacks *nw)
{
	prof_stacks_init(b, 1);
	prof_stacks_init(nw, 1);
	add(b, "main", "a", 300);
	add(b, "main", "b", 100);
	add(nw, "main", "a", 600);
	add(nw, "main", "c", 200);
}

int main(void)
{
	struct prof_table base, new;
	struct prof_table_compare_opts opts = { 0 };
	struct prof_table_change *c;
	unsigned long bad;
	size_t n;
	char buf[64];

	TEST("numbers print without exponents") {
		CHECK_STR(prof_fmt_number(buf, sizeof(buf), 1e17, 6), "100000000000000000");
		CHECK_STR(prof_fmt_number(buf, sizeof(buf), 1039.6, 6), "1039.6");
		CHECK_STR(prof_fmt_number(buf, sizeof(buf), 0.000123456789, 6), "0.000123457");
		CHECK_STR(prof_fmt_number(buf, sizeof(buf), -2.5, 6), "-2.5");
		CHECK_STR(prof_fmt_number(buf, sizeof(buf), NAN, 6), "nan");
	}
	TEST("stats: Mann-Whitney exact and approximate, bootstrap interval, counting error") {
		double x[5] = { 100, 101, 102, 103, 104 }, y[5] = { 120, 121, 122, 123, 124 };
		double y2[5] = { 103.5, 121, 122, 123, 124 }, lo, hi;

		CHECK(fabs(prof_mann_whitney(x, 5, y, 5) - 2.0 / 252) < 1e-12);
		CHECK(fabs(prof_mann_whitney(y, 5, x, 5) - 2.0 / 252) < 1e-12);
		/* new larger in 24 of 25 pairs: p = 2 * 2/252 */
		CHECK(fabs(prof_mann_whitney(x, 5, y2, 5) - 4.0 / 252) < 1e-12);
		CHECK(prof_mann_whitney(x, 5, x, 5) > 0.5);
		CHECK(prof_mann_whitney(x, 3, y, 3) >= 0.1);	/* 3 runs a side can never say */
		prof_bootstrap_ratio(x, 5, y, 5, &lo, &hi);
		CHECK(lo > 1.1 && hi < 1.25 && lo <= hi);
		prof_bootstrap_ratio(x, 5, x, 5, &lo, &hi);
		CHECK(lo < 1 && hi > 1);
		CHECK(prof_counts_sigmas(100, 1, 100, 1) == 0);
		CHECK(fabs(prof_counts_sigmas(100, 1, 300, 1) - 10) < 1e-12);	/* 200 / sqrt(400) */
		CHECK(isinf(prof_counts_sigmas(5, 0, 6, 0)));
	}
	TEST("metric direction by name") {
		CHECK(prof_metric_higher_better("comp_mb_per_s"));
		CHECK(prof_metric_higher_better("ratio"));
		CHECK(!prof_metric_higher_better("time_ns"));
		CHECK(!prof_metric_higher_better("comp_mem_bytes"));
		CHECK(!prof_metric_higher_better("value"));
	}
	TEST("tables: header, metadata, a bad row counted and skipped") {
		CHECK(prof_table_read(put(0, "# source=x\nname\tv\na\t1\nb\t2\t3\nc\t4\n"), &base, &bad) == 0);
		CHECK(bad == 1);
		CHECK(base.nrows == 2 && base.ncols == 2);
		CHECK_STR(base.cols[1], "v");
		CHECK_STR(base.cells[1 * 2 + 0], "c");
		CHECK(base.lines[1] == 5);
		CHECK_STR(prof_meta_get(&base.meta, "source"), "x");
		prof_table_release(&base);
	}
	TEST("tables: no header (a number in the first line), blank-separated") {
		CHECK(prof_table_read(put(0, "parse 100\nrender  300\n"), &base, &bad) == 0);
		CHECK(bad == 0 && base.nrows == 2);
		CHECK_STR(base.cols[0], "1");
		CHECK_STR(base.cells[3], "300");
		prof_table_release(&base);
	}
	TEST("tables: a line over the cap counted, ends the reading, the rows before it kept") {
		char text[256];

		snprintf(text, sizeof(text), "name\tv\na\t1\nb\t2\n%0100d\t2\nc\t3\n", 0);
		prof_set_max_line(64);
		CHECK(prof_table_read(put(0, text), &base, &bad) == 0);
		prof_set_max_line(0);
		CHECK(bad == 1 && base.nrows == 2);
		if (base.nrows == 2) {
			CHECK_STR(base.cells[0], "a");
			CHECK_STR(base.cells[1 * 2 + 1], "2");
			CHECK(base.lines[1] == 3);
		}
		prof_table_release(&base);
	}
	TEST("tables: empty fields (more fields than half the line) and a row longer than the first") {
		CHECK(prof_table_read(put(0, "a\tb\tc\td\n\t\t\t\nw\tx\ty\tzzzzzzzzzzzzzzzzzzzzzz\n"), &base,
				      &bad) == 0);
		CHECK(bad == 0 && base.nrows == 2 && base.ncols == 4);
		CHECK_STR(base.cells[3], "");
		CHECK_STR(base.cells[7], "zzzzzzzzzzzzzzzzzzzzzz");
		prof_table_release(&base);
	}
	TEST("tables: runs summarized, spread decides noise, direction decides worse") {
		prof_table_read(put(0, "codec\tlevel\tmb_per_s\ttime_ns\tstatus\n"
				       "z\t1\t100\t10\tok\nz\t1\t110\t10\tok\nz\t1\t105\t10\tok\n"
				       "z\t3\t50\t20\tok\n"), &base, &bad);
		prof_table_read(put(1, "codec\tlevel\tmb_per_s\ttime_ns\tstatus\n"
				       "z\t1\t108\t10\tok\nz\t1\t101\t10\tok\n"
				       "z\t3\t40\t25\tok\nq\t1\t1\t1\tok\n"), &new, &bad);
		CHECK(prof_table_compare(&base, &new, &opts, &c, &n) == 0);
		{
			const struct prof_table_change *z1 = find(c, n, "z,1", "mb_per_s");
			const struct prof_table_change *z3 = find(c, n, "z,3", "mb_per_s");
			const struct prof_table_change *t3 = find(c, n, "z,3", "time_ns");
			const struct prof_table_change *q = find(c, n, "q,1", "time_ns");

			CHECK(z1 && z1->base_runs == 3 && z1->new_runs == 2);
			CHECK(z1 && z1->base_median == 105 && z1->base_min == 100 && z1->new_median == 104.5);
			CHECK(z1 && z1->verdict == PROF_CHANGE_NOISE);
			CHECK(z3 && z3->verdict == PROF_CHANGE_WORSE && z3->change_pct == -20);
			CHECK(t3 && t3->verdict == PROF_CHANGE_WORSE && t3->change_pct == 25);
			CHECK(q && q->verdict == PROF_CHANGE_ADDED);
			CHECK(!find(c, n, "z,1", "status") && !find(c, n, "z,1", "level"));
			CHECK(fabs(c[0].change_pct) >= fabs(c[n - 1].change_pct) || isnan(c[n - 1].change_pct));
		}
		prof_table_changes_free(c, n);
		opts.lower_better = "mb_per_s";
		CHECK(prof_table_compare(&base, &new, &opts, &c, &n) == 0);
		CHECK(find(c, n, "z,3", "mb_per_s")->verdict == PROF_CHANGE_BETTER);
		prof_table_changes_free(c, n);
		opts.lower_better = NULL;
		opts.keys = "nosuch";
		CHECK(prof_table_compare(&base, &new, &opts, &c, &n) == -1);
		prof_table_release(&base);
		prof_table_release(&new);
	}
	TEST("tables and profiles told apart") {
		CHECK(prof_table_looks_like(put(0, "# source=x\ncodec\tmb_per_s\nz\t1\n")));
		CHECK(prof_table_looks_like(put(0, "parse\t100\n")));
		CHECK(!prof_table_looks_like(put(0, "a;b;c 10\na;b 5\n")));
		CHECK(!prof_table_looks_like(put(0, "# unit=ns\nmain;f 1\n")));
		CHECK(!prof_table_looks_like(put(0, "time_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack\n"
						    "1\t1\t1\ta\t0\tcpu-clock\t1\t0\tmain\n")));
		CHECK(!prof_table_looks_like("/nonexistent/x"));
	}
	TEST("functions: shares, raw weights, verdicts, callers left out") {
		struct prof_stacks b, nw;
		struct prof_functions f;
		struct prof_functions_opts fo = { .normalize = 1 };

		two_profiles(&b, &nw);
		prof_functions_compare(&b, &nw, &fo, &f);
		CHECK(prof_stacks_count(&b) == 0 && prof_stacks_count(&nw) == 0);	/* released */
		CHECK(f.n == 3);	/* a, b, c; main has no self weight */
		CHECK_STR(f.rows[0].function, "b");	/* 25% -> 0%: the largest move */
		CHECK(f.rows[0].verdict == PROF_CHANGE_REMOVED);
		for (size_t i = 0; i < f.n; i++) {
			if (!strcmp(f.rows[i].function, "a"))	/* 30 -> 60, the same share */
				CHECK(f.rows[i].base == 75 && f.rows[i].verdict == PROF_CHANGE_NOISE);
			if (!strcmp(f.rows[i].function, "c"))
				CHECK(f.rows[i].verdict == PROF_CHANGE_ADDED && isnan(f.rows[i].ratio));
		}
		prof_functions_free(&f);
		fo.normalize = 0;	/* amounts */
		two_profiles(&b, &nw);
		prof_functions_compare(&b, &nw, &fo, &f);
		CHECK_STR(f.rows[0].function, "a");	/* +300 samples: 10 standard errors */
		CHECK(f.rows[0].ratio == 2 && f.rows[0].delta_pct == 100 &&
		      f.rows[0].verdict == PROF_CHANGE_WORSE);
		prof_functions_free(&f);
		fo.normalize = 1;
		fo.min_delta = 30;
		two_profiles(&b, &nw);
		prof_functions_compare(&b, &nw, &fo, &f);
		CHECK(f.n == 0);	/* b moved 25 points, c 25 */
		prof_functions_free(&f);
		prof_stacks_release(&b);
		prof_stacks_release(&nw);
	}
	TEST("functions: matched by name across the tables; a name base holds without weight") {
		struct prof_stacks b, nw;
		struct prof_functions f;
		struct prof_functions_opts fo = { 0 };
		size_t seen = 0;

		prof_stacks_init(&b, 1);
		prof_stacks_init(&nw, 1);
		add(&b, "main", "z", 0);	/* z interned in base, no weight */
		add(&b, "main", "a\033b", 5);	/* shown as "a b", its own row */
		add(&b, "main", "a b", 3);
		add(&nw, "x", NULL, 1);		/* frame ids differ between the tables */
		add(&nw, "main", "a b", 7);
		add(&nw, "main", "z", 4);
		prof_functions_compare(&b, &nw, &fo, &f);
		CHECK(f.n == 4);
		for (size_t i = 0; i < f.n; i++) {
			const struct prof_function_change *r = &f.rows[i];

			if (!strcmp(r->function, "z"))
				/* 0 -> 4 samples: 2 standard errors, noise */
				seen += r->base_self == 0 && r->new_self == 4 && r->verdict == PROF_CHANGE_NOISE;
			else if (!strcmp(r->function, "x"))
				seen += r->new_self == 1 && r->base_total == 0;
			else if (!strcmp(r->function, "a b") && r->base_self == 5)
				seen += r->new_self == 0 && r->verdict == PROF_CHANGE_NOISE;
			else if (!strcmp(r->function, "a b"))
				seen += r->base_self == 3 && r->new_self == 7 && r->new_total == 7;
		}
		CHECK(seen == 4);
		CHECK(f.side[0].whole == 8 && f.side[1].whole == 12);
		prof_functions_free(&f);
	}
	unlink(path_buf[0]);
	unlink(path_buf[1]);
	return UNIT_RESULT();
}
