/*
 * Unit tests of profcompress's engine in lib/codec: codec selections
 * (selection.h), the Pareto frontier and recommendations on synthetic
 * rows, constraints, the TSV writer (report.h) and benchmark runs on
 * small inputs in memory (benchmark.h).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>

#include "codec/benchmark.h"
#include "codec/report.h"
#include "codec/selection.h"
#include "io/output.h"
#include "../unit.h"

/* Silence stderr (the expected warnings of failure tests), or restore it. */
static void quiet(int on)
{
	static int saved = -1;

	fflush(stderr);
	if (on && saved < 0) {
		int null = open("/dev/null", O_WRONLY);

		saved = dup(STDERR_FILENO);
		if (null >= 0) {
			dup2(null, STDERR_FILENO);
			close(null);
		}
	} else if (!on && saved >= 0) {
		dup2(saved, STDERR_FILENO);
		close(saved);
		saved = -1;
	}
}

/* The cells as "codec:level" words, space-separated, into buf. */
static const char *cells_text(const struct prof_codec_cells *cells, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < cells->n && len < n; i++) {
		char cell[64];

		prof_codec_cell_name(cells->v[i].codec, cells->v[i].level, cell, sizeof(cell));
		len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? " " : "", cell);
	}
	return buf;
}

/* Parse spec into fresh cells: their text, or "ERR: message". */
static const char *parse(const char *spec, char *buf, size_t n)
{
	struct prof_codec_cells cells = { 0 };
	char err[256];

	if (prof_codec_cells_parse(&cells, spec, err, sizeof(err)) != 0)
		snprintf(buf, n, "ERR: %s", err);
	else
		cells_text(&cells, buf, n);
	prof_codec_cells_release(&cells);
	return buf;
}

static void test_selection(void)
{
	char buf[4096];

	TEST("selection: levels, ranges, negative ranges, duplicates once") {
		CHECK_STR(parse("zstd:-3--1,3/zlib:1-3,2", buf, sizeof(buf)),
			  "zstd:-3 zstd:-2 zstd:-1 zstd:3 zlib:1 zlib:2 zlib:3");
		CHECK_STR(parse("lz4/memcpy/lz4:1", buf, sizeof(buf)), "lz4:1 memcpy");
		/* zstd's level 0 is its default: not a level of its own in a range */
		CHECK_STR(parse("zstd:0-2/zstd:0", buf, sizeof(buf)), "zstd:1 zstd:2 zstd:0");
		CHECK_STR(parse("zlib:0-1", buf, sizeof(buf)), "zlib:0 zlib:1");
	}
	TEST("selection: aliases expand, codecs not built are skipped inside them") {
		struct prof_codec_cells cells = { 0 };
		char err[256];

		CHECK(prof_codec_cells_parse(&cells, "fast", err, sizeof(err)) == 0);
		CHECK(cells.n > 3);
		CHECK_STR(cells.v[0].codec->name, "memcpy");
		for (size_t i = 0; i < cells.n; i++)
			CHECK(prof_codec_find(cells.v[i].codec->name) == cells.v[i].codec);
		prof_codec_cells_release(&cells);
		CHECK(cells.n == 0 && cells.v == NULL);
		CHECK_STR(prof_codec_aliases[0].name, "fast");
	}
	TEST("selection: errors say what is wrong") {
		char want[256];

		CHECK_STR(parse("nope", buf, sizeof(buf)),
			  "ERR: unknown codec 'nope' in 'nope' (see profcompress -l)");
		CHECK_STR(parse("zstd:1,x", buf, sizeof(buf)), "ERR: zstd: bad level 'x' in 'zstd:1,x'");
		snprintf(want, sizeof(want), "ERR: zstd: level 23 out of range %d..%d",
			 ZSTD_minCLevel(), ZSTD_maxCLevel());
		CHECK_STR(parse("zstd:23", buf, sizeof(buf)), want);
		CHECK_STR(parse("zlib:1-10", buf, sizeof(buf)), "ERR: zlib: level 10 out of range 0..9");
		CHECK_STR(parse("zstd:9-1", buf, sizeof(buf)), "ERR: zstd: empty range 9-1 in 'zstd:9-1'");
		/* found by fuzz_selection: 41143 cells took 22 s to deduplicate */
		CHECK_STR(parse("zstd:-41141-1", buf, sizeof(buf)),
			  "ERR: zstd: -41141-1 makes more than 1000 codec levels in 'zstd:-41141-1'");
		CHECK(strncmp(parse("zstd:-999-0/lz4:1-2", buf, sizeof(buf)),
			      "ERR: lz4: 1-2 makes", 19) == 0);
		CHECK(strncmp(parse("all", buf, sizeof(buf)), "ERR", 3) != 0);
		CHECK_STR(parse("zstd:", buf, sizeof(buf)),
			  "ERR: zstd: missing level after ':' in 'zstd:'");
		CHECK_STR(parse("memcpy:1", buf, sizeof(buf)),
			  "ERR: memcpy has no levels (write just 'memcpy')");
		CHECK_STR(parse("zstd//lz4", buf, sizeof(buf)), "ERR: empty item in 'zstd//lz4'");
		CHECK_STR(parse("lz4:1;2", buf, sizeof(buf)), "ERR: lz4: unexpected ';2' in 'lz4:1;2'");
		CHECK_STR(parse("fast:1", buf, sizeof(buf)),
			  "ERR: unknown codec 'fast' in 'fast:1' (see profcompress -l)");
		for (size_t i = 0; prof_codecs_not_built[i]; i++) {
			snprintf(want, sizeof(want), "ERR: codec '%s' is not available: this build "
				 "did not find its library", prof_codecs_not_built[i]);
			CHECK_STR(parse(prof_codecs_not_built[i], buf, sizeof(buf)), want);
		}
	}
	TEST("selection: one cell per codec keeps the first, in order") {
		struct prof_codec_cells cells = { 0 };
		char err[256];

		CHECK(prof_codec_cells_parse(&cells, "zstd:1,3/gzip:1/zstd:9/gzip:2/zlib", err,
					     sizeof(err)) == 0);
		prof_codec_cells_one_per_codec(&cells);
		CHECK_STR(cells_text(&cells, buf, sizeof(buf)), "zstd:1 gzip:1 zlib:6");
		prof_codec_cells_release(&cells);
	}
}

/* A synthetic ok row of input "in": orig 1000 bytes, the ratio and speeds given. */
static struct prof_codec_row row(const char *codec, int level, double ratio, double cspeed,
				 double dspeed)
{
	struct prof_codec_row r;

	memset(&r, 0, sizeof(r));
	r.input = (char *)"in";
	r.codec = prof_codec_find(codec);
	r.level = level;
	r.orig = 1000;
	r.comp = (uint64_t)(1000 / ratio);
	r.have_comp = 1;
	r.cspeed = cspeed;
	r.dspeed = dspeed;
	r.ccpu = cspeed;
	r.dcpu = dspeed;
	r.cmem = 1000;
	r.dmem = -1;
	r.status = PROF_CODEC_OK;
	return r;
}

static void test_pareto_recommend(void)
{
	struct prof_codec_row v[] = {
		row("memcpy", PROF_CODEC_NOLEVEL, 1, 10000, 10000),	/* 0: baseline, left out */
		row("lz4", 1, 2, 500, 2000),		/* 1: fastest compressor */
		row("zstd", 1, 4, 300, 1000),		/* 2: on both frontiers */
		row("zstd", 3, 4, 200, 950),		/* 3: dominated by zstd:1 */
		row("zstd", 19, 10, 5, 900),		/* 4: best ratio */
		row("zlib", 6, 3, 100, 300),		/* 5: dominated */
		row("xz", 6, 20, 1, 50),		/* 6: failed: left out */
	};
	struct prof_codec_rows rows = { v, sizeof(v) / sizeof(v[0]), 0 };

	if (!v[6].codec)
		v[6].codec = v[5].codec;	/* a build without liblzma */
	v[6].status = PROF_CODEC_DECOMP_ERROR;

	TEST("pareto: the rows no other row dominates, per direction") {
		prof_codec_rows_mark_pareto(&rows, 0, rows.n);
		CHECK(!v[0].pareto_c && !v[0].pareto_d);
		CHECK(v[1].pareto_c && v[1].pareto_d);
		CHECK(v[2].pareto_c && v[2].pareto_d);
		CHECK(!v[3].pareto_c && !v[3].pareto_d);
		CHECK(v[4].pareto_c && v[4].pareto_d);
		CHECK(!v[5].pareto_c && !v[5].pareto_d);
		CHECK(!v[6].pareto_c && !v[6].pareto_d);
		CHECK(prof_codec_row_ratio(&v[4]) == 10);
	}
	TEST("pareto: a range is judged alone") {
		for (size_t i = 0; i < rows.n; i++)
			v[i].pareto_c = v[i].pareto_d = 0;
		prof_codec_rows_mark_pareto(&rows, 3, 4);
		CHECK(v[3].pareto_c && v[3].pareto_d);
		CHECK(!v[2].pareto_c && !v[4].pareto_c);
	}
	TEST("constraints: metrics, operators, sizes; errors") {
		struct prof_codec_constraint *c = NULL;
		char err[256];
		size_t n = prof_codec_constraints_parse("cspeed>=200, dmem<=64K,ratio>2,cmem<1M,dspeed=5",
							&c, err, sizeof(err));

		CHECK(n == 5);
		CHECK(c[0].metric == PROF_CODEC_CSPEED && c[0].op == PROF_CODEC_GE && c[0].value == 200);
		CHECK(c[1].metric == PROF_CODEC_DMEM && c[1].op == PROF_CODEC_LE && c[1].value == 65536);
		CHECK(c[2].metric == PROF_CODEC_RATIO && c[2].op == PROF_CODEC_GT && c[2].value == 2);
		CHECK(c[3].metric == PROF_CODEC_CMEM && c[3].op == PROF_CODEC_LT && c[3].value == 1048576);
		CHECK(c[4].metric == PROF_CODEC_DSPEED && c[4].op == PROF_CODEC_EQ && c[4].value == 5);
		free(c);
		CHECK(prof_codec_constraints_parse("speed>1", &c, err, sizeof(err)) == 0 && !c);
		CHECK_STR(err, "unknown metric in 'speed>1' (cspeed, dspeed, ratio, cmem, dmem)");
		CHECK(prof_codec_constraints_parse("ratio", &c, err, sizeof(err)) == 0);
		CHECK_STR(err, "missing operator in 'ratio'");
		CHECK(prof_codec_constraints_parse("cmem<1Q", &c, err, sizeof(err)) == 0);
		CHECK_STR(err, "bad size '1Q' in 'cmem<1Q'");
		CHECK(prof_codec_constraints_parse("ratio>x", &c, err, sizeof(err)) == 0);
		CHECK_STR(err, "bad number 'x' in 'ratio>x'");
		CHECK(prof_codec_constraints_parse(",", &c, err, sizeof(err)) == 0);
		CHECK_STR(err, "empty constraint");
	}
	TEST("recommend: the best ratio meeting every constraint") {
		struct prof_codec_constraint *c = NULL;
		char err[256];

		CHECK(prof_codec_constraints_parse("ratio>=1", &c, err, sizeof(err)) == 1);
		CHECK(prof_codec_recommend(&rows, 0, rows.n, c, 1) == 4);	/* xz failed */
		free(c);
		CHECK(prof_codec_constraints_parse("cspeed>=200", &c, err, sizeof(err)) == 1);
		CHECK(prof_codec_recommend(&rows, 0, rows.n, c, 1) == 2);	/* first of equals */
		free(c);
		CHECK(prof_codec_constraints_parse("dspeed>1500", &c, err, sizeof(err)) == 1);
		CHECK(prof_codec_recommend(&rows, 0, rows.n, c, 1) == 1);	/* memcpy left out */
		free(c);
		/* an unknown value (dmem -1) never meets a constraint */
		CHECK(prof_codec_constraints_parse("dmem>=0", &c, err, sizeof(err)) == 1);
		CHECK(prof_codec_recommend(&rows, 0, rows.n, c, 1) == (size_t)-1);
		free(c);
		CHECK(prof_codec_constraints_parse("cmem<=1000,ratio>5", &c, err, sizeof(err)) == 2);
		CHECK(prof_codec_row_meets(&v[4], c, 2) && !prof_codec_row_meets(&v[2], c, 2));
		free(c);
	}
	TEST("recommend: one line per input, inputs with none counted") {
		struct prof_codec_constraint *c = NULL;
		char err[256], line[256] = "";
		FILE *f = tmpfile();

		CHECK(f != NULL);
		CHECK(prof_codec_constraints_parse("ratio>=3", &c, err, sizeof(err)) == 1);
		CHECK(f && prof_codec_recommend_print(f, &rows, c, 1, "ratio>=3") == 0);
		if (f) {
			rewind(f);
			CHECK(fgets(line, sizeof(line), f) != NULL);
			CHECK_STR(line, "in\tzstd:19\tratio=10.000\tcspeed=5.0\tdspeed=900.0\n");
			fclose(f);
		}
		free(c);
		CHECK(prof_codec_constraints_parse("ratio>=100", &c, err, sizeof(err)) == 1);
		quiet(1);
		CHECK(prof_codec_recommend_print(stdout, &rows, c, 1, "ratio>=100") == 1);
		quiet(0);
		free(c);
	}
}

static struct prof_codec_bench_opts quick_opts(void)
{
	struct prof_codec_bench_opts o;

	memset(&o, 0, sizeof(o));
	o.seconds = 0.001;
	o.stat = PROF_BENCH_MIN;
	o.threads = 1;
	return o;
}

/* A text-like input of n bytes (malloc'ed). */
static char *text(size_t n)
{
	static const char words[] = "the quick brown fox jumps over a lazy dog\n";
	char *p = malloc(n);

	for (size_t i = 0; i < n; i++)
		p[i] = words[(i * 7 + i / 13) % (sizeof(words) - 1)];
	return p;
}

static void test_bench(void)
{
	const size_t len = 20000;
	char *data = text(len);
	char err[256];

	TEST("bench: every cell round-trips and is measured") {
		struct prof_codec_bench_opts o = quick_opts();
		struct prof_codec_cells cells = { 0 };
		struct prof_codec_rows rows = { 0 };

		CHECK(prof_codec_cells_parse(&cells, "memcpy/lz4:1/zstd:1/zlib:6", err, sizeof(err)) == 0);
		o.pareto = 1;
		prof_codec_bench_memory(&o, &cells, "text", data, len, &rows);
		CHECK(rows.n == 4);
		for (size_t i = 0; i < rows.n; i++) {
			const struct prof_codec_row *r = &rows.v[i];

			CHECK_STR(r->input, "text");
			CHECK(r->codec == cells.v[i].codec && r->level == cells.v[i].level);
			CHECK(r->status == PROF_CODEC_OK);
			CHECK(r->orig == len && r->have_comp && r->comp > 0);
			CHECK(r->cspeed > 0 && r->dspeed > 0 && r->ccpu > 0 && r->dcpu > 0);
			CHECK(r->block_bytes == 0);
		}
		CHECK(rows.v[0].comp == len && prof_codec_row_ratio(&rows.v[0]) == 1);
		CHECK(rows.v[0].cmem == 0 && !rows.v[0].pareto_c);
		CHECK(rows.v[1].cmem == 16416 && rows.v[1].dmem == 0);
		CHECK(rows.v[2].comp < len / 4 && rows.v[2].cmem > 0);
		CHECK(rows.v[3].cmem > 100000);
		CHECK(rows.v[1].pareto_c);	/* the fastest real compressor */
		prof_codec_rows_release(&rows);
		CHECK(rows.n == 0 && rows.v == NULL);
		prof_codec_cells_release(&cells);
	}
	TEST("bench: blocks shared by threads, a partial last block") {
		struct prof_codec_bench_opts o = quick_opts();
		struct prof_codec_cells cells = { 0 };
		struct prof_codec_rows rows = { 0 };

		o.block = 3000;
		o.threads = 2;
		CHECK(prof_codec_cells_parse(&cells, "lz4:1/zstd:3", err, sizeof(err)) == 0);
		prof_codec_bench_memory(&o, &cells, "blocks", data, len, &rows);
		CHECK(rows.n == 2);
		for (size_t i = 0; i < rows.n; i++) {
			CHECK(rows.v[i].status == PROF_CODEC_OK);
			CHECK(rows.v[i].block_bytes == 3000 && rows.v[i].orig == len);
		}
		prof_codec_rows_release(&rows);
		prof_codec_cells_release(&cells);
	}
	TEST("bench: decode-only finds the size of a zstd stream") {
		struct prof_codec_bench_opts o = quick_opts();
		struct prof_codec_cells cells = { 0 };
		struct prof_codec_rows rows = { 0 };
		size_t cap = ZSTD_compressBound(len);
		char *z = malloc(cap);
		size_t zlen = ZSTD_compress(z, cap, data, len, 3);

		o.decode_only = 1;
		CHECK(!ZSTD_isError(zlen));
		CHECK(prof_codec_cells_parse(&cells, "zstd", err, sizeof(err)) == 0);
		prof_codec_bench_memory(&o, &cells, "z", z, zlen, &rows);
		CHECK(rows.n == 1 && rows.v[0].status == PROF_CODEC_OK);
		CHECK(rows.v[0].orig == len && rows.v[0].comp == zlen);
		CHECK(rows.v[0].level == PROF_CODEC_NOLEVEL);
		CHECK(rows.v[0].cspeed < 0 && rows.v[0].dspeed > 0);
		/* a truncated stream fails cleanly */
		quiet(1);
		prof_codec_bench_memory(&o, &cells, "cut", z, zlen / 2, &rows);
		quiet(0);
		CHECK(rows.n == 2 && rows.v[1].status == PROF_CODEC_DECOMP_ERROR);
		prof_codec_rows_release(&rows);
		prof_codec_cells_release(&cells);
		free(z);
	}
	free(data);
}

static void test_tsv(void)
{
	TEST("tsv: metadata, header and 15 fields per row") {
		struct prof_codec_row v[] = {
			row("lz4", 1, 2, 500, 2000),
			row("memcpy", PROF_CODEC_NOLEVEL, 1, 10000, 10000),
		};
		struct prof_codec_rows rows = { v, 2, 0 };
		struct prof_buf meta = PROF_BUF_INIT;
		char path[] = "/tmp/test_benchmark.XXXXXX", line[1024];
		int fd = mkstemp(path);
		struct prof_output *out;
		FILE *f;

		v[0].suspect_c = 1;
		v[0].pareto_d = 1;
		v[1].status = PROF_CODEC_MISMATCH;
		prof_buf_addstr(&meta, "# source=test\n");
		CHECK(fd >= 0);
		if (fd >= 0)
			close(fd);
		out = prof_output_open(path, PROF_OUT_ATOMIC, PROF_COMP_NONE);
		CHECK(out != NULL);
		prof_codec_rows_write_tsv(out, &meta, &rows);
		CHECK(prof_output_close(out) == 0);
		f = fopen(path, "r");
		CHECK(f != NULL);
		if (f) {
			CHECK(fgets(line, sizeof(line), f) && strcmp(line, "# source=test\n") == 0);
			CHECK(fgets(line, sizeof(line), f) && strncmp(line, "input\tcodec\tlevel\t", 18) == 0);
			CHECK(fgets(line, sizeof(line), f) != NULL);
			CHECK_STR(line, "in\tlz4\t1\t0\t1000\t500\t2.000\t500.0\t2000.0\t500.0\t2000.0"
				  "\t1000\t\tok\tsuspect-comp,pareto-decomp\n");
			CHECK(fgets(line, sizeof(line), f) != NULL);
			CHECK_STR(line, "in\tmemcpy\t-\t0\t1000\t1000\t1.000\t10000.0\t10000.0\t10000.0"
				  "\t10000.0\t1000\t\tfailed\tmismatch\n");
			CHECK(fgets(line, sizeof(line), f) == NULL);
			fclose(f);
		}
		unlink(path);
		prof_buf_release(&meta);
	}
}

int main(void)
{
	test_selection();
	test_pareto_recommend();
	test_bench();
	test_tsv();
	return UNIT_RESULT();
}
