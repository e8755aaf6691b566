/*
 * The compression benchmark engine (benchmark.h): the blocks of an input,
 * the timed compression and decompression of every cell, verification,
 * the progress line, the inputs and their metadata.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>

#include "codec/benchmark.h"
#include "codec/report.h"
#include "base/error.h"
#include "base/sha256.h"
#include "base/sysfile.h"
#include "base/term.h"
#include "base/xalloc.h"
#include "core/meta.h"
#include "io/input.h"

/*
 * The progress line on stderr when it is a terminal and not -q
 * (base/term.h): "cell n/N: input: codec:level". Nothing otherwise.
 */
struct progress {
	struct prof_progress line;
	size_t done, total;	/* cells started (or skipped), cells in all */
};

/* One benchmark run: the options, the cells, where rows go. */
struct run {
	const struct prof_codec_bench_opts *o;
	const struct prof_codec_cells *cells;
	struct prof_codec_rows *rows;
	struct progress progress;
	int warned_threads;	/* "only N blocks for T threads" said once */
};

static void progress_init(struct progress *p, size_t total)
{
	prof_progress_init(&p->line);
	p->done = 0;
	p->total = total;
}

/* Blank out the progress line (before a message, and at the end). */
static void progress_clear(struct progress *p)
{
	prof_progress_clear(&p->line);
}

/* Draw the current cell's line again after a message. */
static void progress_show(struct progress *p)
{
	prof_progress_redraw(&p->line);
}

/* The next cell starts: show it. */
static void progress_cell(struct progress *p, const char *input, const struct prof_codec *c,
			  int level)
{
	char cell[64];

	p->done++;
	if (!p->line.on)
		return;
	prof_codec_cell_name(c, level, cell, sizeof(cell));
	prof_progress_show(&p->line, "%s: cell %zu/%zu: %s: %s", prof_progname, p->done, p->total,
			   input, cell);
}

/* ---- one input's blocks and buffers ---- */

/* The blocks of the input and their places in the compressed buffer. */
struct work {
	struct run *run;
	const char *src;		/* original (or, decode-only, compressed) */
	size_t len;
	size_t nblocks;
	size_t *off, *blen;		/* original blocks */
	size_t *coff, *ccap, *clen;	/* compressed blocks */
	char *cbuf;
	size_t cbuf_cap;
	char *dbuf;			/* decompressed output */
	/* the cell being timed */
	struct prof_codec_ctx **ctx;	/* one per thread */
	unsigned threads;
	char (*err)[320];		/* per thread */
};

static void cell_failed(struct work *w, const char *input, const struct prof_codec_cell *cs,
			const char *what, const char *why)
{
	char cell[64];

	progress_clear(&w->run->progress);
	prof_codec_cell_name(cs->codec, cs->level, cell, sizeof(cell));
	prof_warn("%s: %s: %s failed: %s", input, cell, what, why);
}

/* -vv: how one side of a cell was timed. */
static void timing_info(struct work *w, const char *input, const struct prof_codec_cell *cs,
			const char *what, const struct prof_bench_result *res)
{
	char cell[64];

	if (prof_verbosity < 2)
		return;
	progress_clear(&w->run->progress);
	prof_codec_cell_name(cs->codec, cs->level, cell, sizeof(cell));
	prof_info(2, "%s: %s: %s: %llu batch%s, %llu iteration%s, %.3g s per iteration",
		  input, cell, what, (unsigned long long)res->batches,
		  res->batches == 1 ? "" : "es", (unsigned long long)res->iterations,
		  res->iterations == 1 ? "" : "s", res->wall_s);
	progress_show(&w->run->progress);
}

static void block_range(const struct work *w, unsigned t, size_t *b0, size_t *b1)
{
	*b0 = w->nblocks * t / w->threads;
	*b1 = w->nblocks * (t + 1) / w->threads;
}

static int compress_iteration(void *arg, unsigned t)
{
	struct work *w = arg;
	size_t b0, b1;

	block_range(w, t, &b0, &b1);
	for (size_t b = b0; b < b1; b++) {
		size_t r = prof_codec_compress(w->ctx[t], w->cbuf + w->coff[b], w->ccap[b],
					       w->src + w->off[b], w->blen[b]);

		if (r == (size_t)-1) {
			snprintf(w->err[t], sizeof(w->err[t]), "block %zu: %s", b,
				 prof_codec_ctx_error(w->ctx[t]));
			return -1;
		}
		w->clen[b] = r;
	}
	return 0;
}

static int decompress_iteration(void *arg, unsigned t)
{
	struct work *w = arg;
	size_t b0, b1;

	block_range(w, t, &b0, &b1);
	for (size_t b = b0; b < b1; b++) {
		size_t r = prof_codec_decompress(w->ctx[t], w->dbuf + w->off[b], w->blen[b],
						 w->cbuf + w->coff[b], w->clen[b]);

		if (r == (size_t)-1) {
			snprintf(w->err[t], sizeof(w->err[t]), "block %zu: %s", b,
				 prof_codec_ctx_error(w->ctx[t]));
			return -1;
		}
		if (r != w->blen[b]) {
			snprintf(w->err[t], sizeof(w->err[t]),
				 "block %zu: decoded %zu bytes, expected %zu", b, r, w->blen[b]);
			return -1;
		}
	}
	return 0;
}

static const char *first_error(const struct work *w)
{
	for (unsigned t = 0; t < w->threads; t++)
		if (w->err[t][0])
			return w->err[t];
	return "unknown error";
}

/* Poison the output so that a decoder that writes nothing cannot pass. */
static void poison(char *dst, const char *ref, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = (char)~ref[i];
}

static uLong crc_of(const char *p, size_t n)
{
	uLong crc = crc32(0L, Z_NULL, 0);

	for (size_t off = 0; off < n; off += UINT_MAX)
		crc = crc32(crc, (const Bytef *)p + off,
			    (uInt)(n - off > UINT_MAX ? UINT_MAX : n - off));
	return crc;
}

/* Byte-for-byte and checksum comparison of the output with ref. */
static int verify(const struct work *w, const char *ref, uLong ref_crc, char *why, size_t n)
{
	if (memcmp(w->dbuf, ref, w->len) != 0) {
		size_t i = 0;

		while (w->dbuf[i] == ref[i])
			i++;
		snprintf(why, n, "decoded data differs from the original at byte %zu", i);
		return -1;
	}
	if (crc_of(w->dbuf, w->len) != ref_crc) {
		snprintf(why, n, "checksum of the decoded data differs");
		return -1;
	}
	return 0;
}

static double mb_per_s(uint64_t bytes, double s)
{
	return s > 0 ? (double)bytes / s / 1e6 : -1;
}

/* Make sure the compressed buffer can hold every block at this codec's bound. */
static void layout_compressed(struct work *w, const struct prof_codec *c, int level)
{
	size_t total = 0;

	for (size_t b = 0; b < w->nblocks; b++) {
		w->coff[b] = total;
		w->ccap[b] = prof_codec_bound(c, level, w->blen[b]);
		total += w->ccap[b];
		total = (total + 63) & ~(size_t)63;
	}
	if (total > w->cbuf_cap || !w->cbuf) {
		free(w->cbuf);
		w->cbuf = xmalloc(total ? total : 1);
		memset(w->cbuf, 0xE5, total);	/* pre-touch */
		w->cbuf_cap = total;
	}
}

static void contexts_free(struct work *w)
{
	for (unsigned t = 0; t < w->threads; t++)
		prof_codec_ctx_free(w->ctx[t]);
}

static int contexts_new(struct work *w, const struct prof_codec_cell *cs, const char *input)
{
	const struct prof_codec_bench_opts *o = w->run->o;
	char err[256];

	memset(w->ctx, 0, w->threads * sizeof(*w->ctx));
	for (unsigned t = 0; t < w->threads; t++) {
		w->ctx[t] = prof_codec_ctx_new(cs->codec, cs->level, o->dict, o->dictlen,
					       err, sizeof(err));
		if (!w->ctx[t]) {
			cell_failed(w, input, cs, "setup", err);
			contexts_free(w);
			return -1;
		}
		w->err[t][0] = '\0';
	}
	return 0;
}

/* A row for the cell, nothing measured yet. */
static void row_init(struct prof_codec_row *r, const char *input, const struct prof_codec_cell *cs,
		     enum prof_codec_status status)
{
	memset(r, 0, sizeof(*r));
	r->input = xstrdup(input);
	r->codec = cs->codec;
	r->level = cs->level;
	r->cspeed = r->dspeed = r->ccpu = r->dcpu = -1;
	r->cmem = r->dmem = -1;
	r->status = status;
}

/* Decompress once untimed, then timed; verify both. Fills r's decompression side. */
static void bench_decompression(struct work *w, const struct prof_codec_cell *cs,
				const char *input, uLong ref_crc, struct prof_codec_row *r)
{
	const struct prof_codec_bench_opts *o = w->run->o;
	struct prof_bench_opts bo = { o->seconds, o->batch, o->stat, w->threads };
	struct prof_bench_result res;
	char why[400];

	r->status = PROF_CODEC_DECOMP_ERROR;
	poison(w->dbuf, w->src, w->len);
	for (unsigned t = 0; t < w->threads; t++) {
		if (decompress_iteration(w, t) != 0) {
			cell_failed(w, input, cs, "decompression", w->err[t]);
			return;
		}
	}
	if (verify(w, w->src, ref_crc, why, sizeof(why))) {
		r->status = PROF_CODEC_MISMATCH;
		cell_failed(w, input, cs, "verification", why);
		return;
	}
	if (prof_bench_run(&bo, decompress_iteration, w, &res) != 0) {
		cell_failed(w, input, cs, "decompression", first_error(w));
		return;
	}
	if (verify(w, w->src, ref_crc, why, sizeof(why))) {
		r->status = PROF_CODEC_MISMATCH;
		cell_failed(w, input, cs, "verification", why);
		return;
	}
	r->dspeed = mb_per_s(w->len, res.wall_s);
	r->dcpu = mb_per_s(w->len, res.cpu_s);
	r->suspect_d = res.suspect;
	r->status = PROF_CODEC_OK;
	timing_info(w, input, cs, "decompression", &res);
}

static void bench_cell(struct work *w, const struct prof_codec_cell *cs, const char *input,
		       uLong ref_crc, struct prof_codec_row *r)
{
	const struct prof_codec_bench_opts *o = w->run->o;
	struct prof_bench_opts bo = { o->seconds, o->batch, o->stat, w->threads };
	struct prof_bench_result res;

	row_init(r, input, cs, PROF_CODEC_COMP_ERROR);
	r->block_bytes = o->block;
	r->orig = w->len;
	progress_cell(&w->run->progress, input, cs->codec, cs->level);
	layout_compressed(w, cs->codec, cs->level);
	if (contexts_new(w, cs, input))
		return;
	if (prof_bench_run(&bo, compress_iteration, w, &res) != 0) {
		cell_failed(w, input, cs, "compression", first_error(w));
	} else {
		r->comp = 0;
		for (size_t b = 0; b < w->nblocks; b++)
			r->comp += w->clen[b];
		r->have_comp = 1;
		r->cspeed = mb_per_s(w->len, res.wall_s);
		r->ccpu = mb_per_s(w->len, res.cpu_s);
		r->suspect_c = res.suspect;
		timing_info(w, input, cs, "compression", &res);
		bench_decompression(w, cs, input, ref_crc, r);
	}
	r->cmem = prof_codec_comp_mem(w->ctx[0]);
	r->dmem = r->status == PROF_CODEC_COMP_ERROR ? -1 : prof_codec_decomp_mem(w->ctx[0]);
	contexts_free(w);
}

/*
 * Decode-only: decode the stream into a growing buffer; returns it
 * (*got bytes), or NULL after reporting the failure.
 */
static char *decode_reference(struct work *w, const struct prof_codec_cell *cs,
			      const char *input, size_t *got)
{
	size_t cap = w->len * 4 + 65536;
	char *ref = NULL;

	for (;;) {
		ref = xrealloc(ref, cap);
		*got = prof_codec_decompress(w->ctx[0], ref, cap, w->src, w->len);
		if (*got != (size_t)-1 || !prof_codec_ctx_too_small(w->ctx[0]))
			break;
		if (cap > ((size_t)1 << 40)) {
			cell_failed(w, input, cs, "decompression", "decompressed size over 1 TiB");
			free(ref);
			return NULL;
		}
		cap *= 2;
	}
	if (*got == (size_t)-1) {
		cell_failed(w, input, cs, "decompression", prof_codec_ctx_error(w->ctx[0]));
		free(ref);
		return NULL;
	}
	return ref;
}

/*
 * --decode-only: src is one compressed stream of the codec. Find its
 * decompressed size by decoding into a growing buffer, keep that first
 * result as the reference, then time decompression and compare each time.
 */
static void bench_decode_only(struct work *w, const struct prof_codec_cell *cell,
			      const char *input, struct prof_codec_row *r)
{
	const struct prof_codec_bench_opts *o = w->run->o;
	struct prof_bench_opts bo = { o->seconds, o->batch, o->stat, 1 };
	const struct prof_codec_cell cs = { cell->codec, PROF_CODEC_NOLEVEL };
	struct prof_bench_result res;
	const char *saved = w->src;
	size_t saved_len = w->len, got;
	char why[400];
	char *ref;
	uLong ref_crc;

	row_init(r, input, &cs, PROF_CODEC_DECOMP_ERROR);
	r->comp = w->len;
	r->have_comp = 1;
	w->threads = 1;
	progress_cell(&w->run->progress, input, cs.codec, cs.level);
	if (contexts_new(w, &cs, input))
		return;
	ref = decode_reference(w, &cs, input, &got);
	if (!ref) {
		contexts_free(w);
		return;
	}
	/* one block: the whole stream, decoded into a buffer of its exact size */
	r->orig = got;
	w->nblocks = 1;
	w->off[0] = 0;
	w->blen[0] = got;
	w->coff[0] = 0;
	w->clen[0] = w->len;
	free(w->cbuf);
	w->cbuf = xmemdup(w->src, w->len);
	w->cbuf_cap = w->len;
	free(w->dbuf);
	w->dbuf = xmalloc(got ? got : 1);
	ref_crc = crc_of(ref, got);
	poison(w->dbuf, ref, got);
	w->len = got;
	if (prof_bench_run(&bo, decompress_iteration, w, &res) != 0) {
		cell_failed(w, input, &cs, "decompression", first_error(w));
	} else if (verify(w, ref, ref_crc, why, sizeof(why))) {
		r->status = PROF_CODEC_MISMATCH;
		cell_failed(w, input, &cs, "verification", why);
	} else {
		r->dspeed = mb_per_s(got, res.wall_s);
		r->dcpu = mb_per_s(got, res.cpu_s);
		r->suspect_d = res.suspect;
		r->status = PROF_CODEC_OK;
		timing_info(w, input, &cs, "decompression", &res);
	}
	w->src = saved;
	w->len = saved_len;
	r->dmem = prof_codec_decomp_mem(w->ctx[0]);
	free(ref);
	contexts_free(w);
}

/* Split the input into its blocks (one without -b or when decoding). */
static void work_init(struct work *w, struct run *run, const char *data, size_t len)
{
	const struct prof_codec_bench_opts *o = run->o;
	uint64_t block = o->decode_only ? 0 : o->block;
	size_t nb = block && len ? (size_t)((len + block - 1) / block) : 1;

	memset(w, 0, sizeof(*w));
	w->run = run;
	w->src = data;
	w->len = len;
	w->nblocks = nb;
	w->off = xcalloc(nb, sizeof(size_t));
	w->blen = xcalloc(nb, sizeof(size_t));
	w->coff = xcalloc(nb, sizeof(size_t));
	w->ccap = xcalloc(nb, sizeof(size_t));
	w->clen = xcalloc(nb, sizeof(size_t));
	for (size_t b = 0; b < nb; b++) {
		w->off[b] = block ? b * block : 0;
		w->blen[b] = block ? (len - w->off[b] < block ? len - w->off[b] : block) : len;
	}
	w->ctx = xcalloc(o->threads, sizeof(*w->ctx));
	w->err = xcalloc(o->threads, sizeof(*w->err));
	if (!o->decode_only) {
		w->dbuf = xmalloc(len ? len : 1);
		memset(w->dbuf, 0, len);	/* pre-touch */
	}
}

static void work_release(struct work *w)
{
	free(w->off);
	free(w->blen);
	free(w->coff);
	free(w->ccap);
	free(w->clen);
	free(w->cbuf);
	free(w->dbuf);
	free(w->ctx);
	free(w->err);
}

/* Benchmark every cell on one input held in memory. */
static void bench_input(struct run *run, const char *name, const char *data, size_t len)
{
	const struct prof_codec_bench_opts *o = run->o;
	struct prof_codec_rows *rows = run->rows;
	size_t first = rows->n;
	uLong ref_crc = crc_of(data, len);
	struct work w;

	work_init(&w, run, data, len);
	w.threads = o->threads;
	if (w.threads > w.nblocks) {
		if (!run->warned_threads++ && !o->decode_only) {
			progress_clear(&run->progress);
			prof_warn("%s: only %zu block%s for %u threads: use -b to split the input",
				  name, w.nblocks, w.nblocks == 1 ? "" : "s", o->threads);
		}
		w.threads = (unsigned)w.nblocks;
	}
	for (size_t i = 0; i < run->cells->n; i++) {
		PROF_GROW(rows->v, rows->n + 1, rows->cap);
		if (o->decode_only)
			bench_decode_only(&w, &run->cells->v[i], name, &rows->v[rows->n]);
		else
			bench_cell(&w, &run->cells->v[i], name, ref_crc, &rows->v[rows->n]);
		rows->n++;
	}
	work_release(&w);
	if (o->pareto)
		prof_codec_rows_mark_pareto(rows, first, rows->n);
}

void prof_codec_bench_memory(const struct prof_codec_bench_opts *o,
			     const struct prof_codec_cells *cells, const char *name,
			     const char *data, size_t len, struct prof_codec_rows *rows)
{
	struct run run = { .o = o, .cells = cells, .rows = rows };

	bench_input(&run, name, data, len);
}

void prof_codec_rows_release(struct prof_codec_rows *rows)
{
	for (size_t i = 0; i < rows->n; i++)
		free(rows->v[i].input);
	free(rows->v);
	memset(rows, 0, sizeof(*rows));
}

/* ---- inputs and metadata ---- */

char *prof_codec_read_raw(const char *path, size_t *len)
{
	int fd = (!path || strcmp(path, "-") == 0) ? STDIN_FILENO : open(path, O_RDONLY);
	const char *name = fd == STDIN_FILENO ? "<stdin>" : path;
	struct prof_buf b = PROF_BUF_INIT;

	if (fd < 0) {
		prof_warn_errno("%s", path);
		return NULL;
	}
	for (;;) {
		ssize_t r;

		prof_buf_grow(&b, 1 << 20);
		r = read(fd, b.data + b.len, b.cap - b.len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			prof_warn_errno("%s", name);
			if (fd != STDIN_FILENO)
				close(fd);
			prof_buf_release(&b);
			return NULL;
		}
		if (r == 0)
			break;
		b.len += (size_t)r;
		b.data[b.len] = '\0';
	}
	if (fd != STDIN_FILENO)
		close(fd);
	return prof_buf_detach(&b, len);
}

/* The machine and the options, as the first metadata line says them. */
static void machine_meta(struct prof_meta *m, const struct prof_codec_bench_opts *o)
{
	char buf[512];
	struct utsname u;
	double la[3];

	prof_meta_set(m, "source", "profcompress");
	if (prof_read_file_key("/proc/cpuinfo", "model name", buf, sizeof(buf)) != 0)
		snprintf(buf, sizeof(buf), "unknown");
	prof_meta_set(m, "cpu", buf);
	prof_meta_setf(m, "cores", "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	if (uname(&u) == 0)
		prof_meta_setf(m, "kernel", "%s %s %s", u.sysname, u.release, u.machine);
	if (getloadavg(la, 3) == 3)
		prof_meta_setf(m, "loadavg", "%.2f,%.2f,%.2f", la[0], la[1], la[2]);
	prof_meta_set(m, "ratio", "orig/comp");
	prof_meta_set(m, "mb", "1000000");
	prof_meta_set(m, "stat", prof_bench_stat_name(o->stat));
	prof_meta_setf(m, "time_s", "%g", o->seconds);
	if (o->batch > 0)
		prof_meta_setf(m, "batch_s", "%g", o->batch);
	prof_meta_setf(m, "threads", "%u", o->threads);
	prof_meta_setf(m, "block_bytes", "%llu", (unsigned long long)o->block);
	if (o->decode_only)
		prof_meta_set(m, "mode", "decode-only");
	if (o->dict_path) {
		char hex[65];

		prof_meta_set(m, "dict", o->dict_path);
		prof_sha256_hex(o->dict, o->dictlen, hex);
		prof_meta_set(m, "dict_sha256", hex);
	}
}

/* The version of each codec library (lib.NAME) and the codecs not built. */
static void library_meta(struct prof_meta *m)
{
	struct prof_buf missing = PROF_BUF_INIT;

	for (size_t i = 0; prof_codecs[i]; i++) {
		char key[64];

		snprintf(key, sizeof(key), "lib.%s", prof_codecs[i]->library);
		if (!prof_meta_get(m, key))
			prof_meta_set(m, key, prof_codec_version(prof_codecs[i]));
	}
	for (size_t i = 0; prof_codecs_not_built[i]; i++)
		prof_buf_addf(&missing, "%s%s", i ? "," : "", prof_codecs_not_built[i]);
	if (missing.len)
		prof_meta_set(m, "not_built", prof_buf_cstr(&missing));
	prof_buf_release(&missing);
}

/* One metadata line: PREFIX=name (unless NULL), PREFIX.bytes, PREFIX.sha256. */
static void input_meta(struct prof_buf *meta, const char *prefix, const char *name,
		       const char *data, size_t len)
{
	struct prof_meta m = PROF_META_INIT;
	char hex[65], key[64];

	prof_sha256_hex(data, len, hex);
	if (name)
		prof_meta_set(&m, prefix, name);
	snprintf(key, sizeof(key), "%s.bytes", prefix);
	prof_meta_setf(&m, key, "%zu", len);
	snprintf(key, sizeof(key), "%s.sha256", prefix);
	prof_meta_set(&m, key, hex);
	prof_meta_format(&m, meta);
	prof_meta_release(&m);
}

/* Input names go into TSV fields: no tabs or newlines. */
static char *field_safe(const char *s)
{
	char *c = xstrdup(s);

	for (char *p = c; *p; p++)
		if (*p == '\t' || *p == '\n' || *p == '\r')
			*p = ' ';
	return c;
}

/* Read one input whole (decompressed unless decoding); NULL, reported, when unreadable or empty. */
static char *read_input(struct run *run, const char *path, const char *name, size_t *len)
{
	char *data;

	progress_clear(&run->progress);	/* read errors are on a line of their own */
	data = run->o->decode_only ? prof_codec_read_raw(path, len) : prof_read_file(path, len);
	if (data && *len == 0) {
		/* Nothing to time: ratios and speeds would be meaningless. */
		prof_warn("%s: empty input", name);
		free(data);
		data = NULL;
	}
	return data;
}

/* With -v, one note for the rows whose timings look disturbed. */
static void note_suspects(const struct prof_codec_rows *rows, size_t first)
{
	size_t nsus = 0;

	if (prof_verbosity <= 0)
		return;
	for (size_t i = first; i < rows->n; i++)
		nsus += rows->v[i].suspect_c || rows->v[i].suspect_d;
	if (nsus)
		prof_warn("%zu row%s flagged suspect: CPU time and wall time disagree "
			  "(a busy or throttled machine); rerun on an idle one",
			  nsus, nsus == 1 ? "" : "s");
}

int prof_codec_bench_files(const struct prof_codec_bench_opts *o,
			   const struct prof_codec_cells *cells,
			   char *const *files, size_t nfiles,
			   struct prof_codec_rows *rows, struct prof_buf *meta)
{
	struct run run = { .o = o, .cells = cells, .rows = rows };
	struct prof_meta machine = PROF_META_INIT, libs = PROF_META_INIT;
	struct prof_buf joined = PROF_BUF_INIT;
	size_t first = rows->n;
	int rval = PROF_EXIT_OK;

	machine_meta(&machine, o);
	library_meta(&libs);
	prof_meta_format(&machine, meta);
	prof_meta_format(&libs, meta);
	prof_meta_release(&machine);
	prof_meta_release(&libs);
	progress_init(&run.progress, (o->join ? 1 : nfiles) * cells->n);
	for (size_t i = 0; i < nfiles; i++) {
		const char *name = strcmp(files[i], "-") == 0 ? "<stdin>" : files[i];
		char key[32], *data, *safe;
		size_t len;

		data = read_input(&run, files[i], name, &len);
		if (!data) {
			rval = PROF_EXIT_FAIL;
			if (!o->join)
				run.progress.done += cells->n;
			continue;
		}
		snprintf(key, sizeof(key), "input.%zu", i + 1);
		input_meta(meta, key, name, data, len);
		if (o->join) {
			prof_buf_add(&joined, data, len);
		} else {
			safe = field_safe(name);
			bench_input(&run, safe, data, len);
			free(safe);
		}
		free(data);
	}
	if (o->join && nfiles > 0) {
		char name[64];

		snprintf(name, sizeof(name), "joined:%zu", nfiles);
		input_meta(meta, "joined", NULL, joined.data ? joined.data : "", joined.len);
		if (rval == PROF_EXIT_OK)
			bench_input(&run, name, joined.data ? joined.data : "", joined.len);
	}
	prof_buf_release(&joined);
	prof_progress_end(&run.progress.line);
	for (size_t i = first; i < rows->n; i++)
		if (rows->v[i].status != PROF_CODEC_OK)
			rval = PROF_EXIT_FAIL;
	note_suspects(rows, first);
	return rval;
}
