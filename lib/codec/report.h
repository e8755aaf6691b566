#ifndef PROF_CODEC_REPORT_H
#define PROF_CODEC_REPORT_H
/*
 * What profcompress(1) computes from and writes of the benchmark's rows
 * (benchmark.h): the ratio/speed Pareto frontier, the best-ratio cell
 * meeting constraints (--recommend), the TSV table (prof-formats.5,
 * schema "profcompress"), the aligned table (--human) and the codec list
 * (-l). Only rows that succeeded and whose codec compresses (not the
 * memcpy baseline) take part in the frontier and in recommendations.
 */
#include <stddef.h>
#include <stdio.h>

#include "codec/benchmark.h"
#include "base/buf.h"
#include "io/output.h"

/* Original / compressed size, or -1 when the compressed size is 0 (unknown). */
double prof_codec_row_ratio(const struct prof_codec_row *r);

/*
 * Flag the rows of rows->v[lo..hi) that no other row of the range
 * dominates (pareto_c: none has a ratio and a compression speed both at
 * least as high, one of them higher; pareto_d: the same with the
 * decompression speed). Rows that do not take part are left alone.
 */
void prof_codec_rows_mark_pareto(struct prof_codec_rows *rows, size_t lo, size_t hi);

/* What a --recommend constraint bounds (in the order of their names). */
enum prof_codec_metric {
	PROF_CODEC_CSPEED, PROF_CODEC_DSPEED, PROF_CODEC_RATIO, PROF_CODEC_CMEM, PROF_CODEC_DMEM,
};

enum prof_codec_cmp { PROF_CODEC_GE, PROF_CODEC_LE, PROF_CODEC_GT, PROF_CODEC_LT, PROF_CODEC_EQ };

/* One constraint of --recommend: "cspeed>=200". */
struct prof_codec_constraint {
	enum prof_codec_metric metric;
	enum prof_codec_cmp op;
	double value;			/* MB/s, a ratio, or bytes */
};

/*
 * Parse "metric OP value" items separated by ',' (metrics cspeed, dspeed,
 * ratio, cmem, dmem; OP >=, <=, >, <, =; memory values take size
 * suffixes: 64M). Returns the number of constraints (at least 1) with
 * *out a malloc'ed array, or 0 with a message in err.
 */
size_t prof_codec_constraints_parse(const char *expr, struct prof_codec_constraint **out,
				    char *err, size_t errlen);

/* Nonzero if r meets every constraint (an unknown value meets none). */
int prof_codec_row_meets(const struct prof_codec_row *r, const struct prof_codec_constraint *c,
			 size_t n);

/*
 * The best ratio among rows->v[lo..hi) that take part and meet the
 * constraints (the first of equals): its index, or (size_t)-1 if none.
 */
size_t prof_codec_recommend(const struct prof_codec_rows *rows, size_t lo, size_t hi,
			    const struct prof_codec_constraint *c, size_t n);

/*
 * For each input (a run of rows with the same input name), print the
 * recommended cell to f: "input<TAB>codec:level<TAB>ratio=R<TAB>cspeed=C
 * <TAB>dspeed=D". An input with none is reported on stderr ("no codec and
 * level meets 'expr'"). Returns the number of such inputs.
 */
size_t prof_codec_recommend_print(FILE *f, const struct prof_codec_rows *rows,
				  const struct prof_codec_constraint *c, size_t n,
				  const char *expr);

/* The metadata lines meta, the header and one TSV line per row, to out. */
void prof_codec_rows_write_tsv(struct prof_output *out, const struct prof_buf *meta,
			       const struct prof_codec_rows *rows);

/*
 * An aligned table of the main columns (sizes human-readable), to out.
 * width: the terminal's columns (0: no limit): when a line would be wider,
 * the input names give way (cut with '~', down to 8 columns).
 */
void prof_codec_rows_write_human(struct prof_output *out, const struct prof_codec_rows *rows,
				 unsigned width);

/* The codecs of this build (levels, default, version, description), those not built and the aliases. */
void prof_codec_list_write(FILE *f);

#endif
