/*
 * Reading a whole `perf script` input (perfscript.h): by this thread, or
 * split at sample boundaries between threads that each fold into their
 * own table, merged at the end.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "base/xalloc.h"
#include "formats/perfscript.h"
#include "io/chunk.h"

/*
 * Each thread takes the next block itself (reading it under the pool's
 * lock, so the bytes it parses are still in its own cache), parses it
 * into its own table, and goes back for more. Workers do not know where
 * their block starts in the input: they number lines (seq << SEQ_SHIFT)
 * + line within the block, which sorts reports in input order, and the
 * numbers are made absolute once every block's line count is known.
 */
#define SEQ_SHIFT 36

struct pool {
	pthread_mutex_t lock;
	struct prof_chunks *r;
	const struct prof_perfscript_opts *opts;
	struct prof_perfscript_ctx *ctx;
	int known, done;
	unsigned long *block_lines;	/* seq -> lines in the block */
	size_t nblocks, blocks_cap;
};

struct worker {
	pthread_t thread;
	struct pool *pool;
	struct prof_stacks table;
	struct prof_perfscript *ps;
};

static int need_time(const struct prof_perfscript_opts *o)
{
	return o->time_window || o->on_sample;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct pool *pl = w->pool;

	for (;;) {
		struct prof_perfscript_ctx ctx;
		unsigned long before;
		size_t len, seq;
		int last = 0;
		char *block;

		pthread_mutex_lock(&pl->lock);
		block = pl->done ? NULL : prof_chunks_next(pl->r, PROF_CHUNK_BLANK, &len, &last);
		if (!block) {
			pl->done = 1;
			pthread_mutex_unlock(&pl->lock);
			break;
		}
		if (!pl->known)
			pl->known = prof_perfscript_prescan(pl->ctx, block, len, need_time(pl->opts));
		ctx = *pl->ctx;		/* a snapshot: the event string is not owned */
		seq = pl->nblocks++;
		PROF_GROW(pl->block_lines, pl->nblocks, pl->blocks_cap);
		pthread_mutex_unlock(&pl->lock);

		before = prof_perfscript_stats(w->ps)->lines;
		prof_perfscript_parse(w->ps, &ctx, block, len, (unsigned long)seq << SEQ_SHIFT, last);
		prof_chunks_recycle(pl->r, block);
		pthread_mutex_lock(&pl->lock);
		pl->block_lines[seq] = prof_perfscript_stats(w->ps)->lines - before;
		pthread_mutex_unlock(&pl->lock);
	}
	return NULL;
}

static int read_serial(struct prof_chunks *r, struct prof_stacks *t,
		       const struct prof_perfscript_opts *opts,
		       struct prof_perfscript_ctx *ctx, struct prof_perfscript_stats *stats)
{
	struct prof_perfscript *ps = prof_perfscript_new(t, opts);
	unsigned long line0 = 0;
	int known = 0, last = 0;
	size_t len;
	char *block;

	/* One parser keeps its state from block to block: any line will do. */
	while ((block = prof_chunks_next(r, PROF_CHUNK_LINE, &len, &last)) != NULL) {
		if (!known)
			known = prof_perfscript_prescan(ctx, block, len, need_time(opts));
		prof_perfscript_parse(ps, ctx, block, len, line0, last);
		line0 = prof_perfscript_stats(ps)->lines;
		prof_chunks_recycle(r, block);
	}
	if (!last)	/* empty or failed input: fold the sample still open */
		prof_perfscript_parse(ps, ctx, "", 0, line0, 1);
	prof_perfscript_stats_merge(stats, prof_perfscript_stats(ps));
	prof_perfscript_free(ps);
	return prof_chunks_failed(r) || prof_chunks_too_long(r) ? -1 : 0;
}

int prof_perfscript_read(struct prof_chunks *r, struct prof_stacks *t,
			 const struct prof_perfscript_opts *opts, int jobs,
			 struct prof_perfscript_ctx *ctx, struct prof_perfscript_stats *stats)
{
	struct pool pl;
	struct worker *ws;
	size_t k;
	int i, started = 1;

	if (opts->event_filter && *opts->event_filter && !ctx->event) {
		ctx->event = xstrdup(opts->event_filter);
		ctx->event_len = strlen(opts->event_filter);
		ctx->event_defaulted = 0;
	}
	/*
	 * Threads take blocks that end at empty lines, the ends of samples.
	 * Samples without call chains have none between them: one thread.
	 */
	if (opts->on_stack || opts->on_sample)
		jobs = 1;	/* samples in input order */
	if (jobs > 1) {
		size_t plen;
		const char *peek = prof_chunks_peek(r, 1u << 20, &plen);

		if (!memmem(peek, plen, "\n\n", 2) && !memmem(peek, plen, "\n\r\n", 3))
			jobs = 1;
	}
	if (jobs <= 1)
		return read_serial(r, t, opts, ctx, stats);

	memset(&pl, 0, sizeof(pl));
	pthread_mutex_init(&pl.lock, NULL);
	pl.r = r;
	pl.opts = opts;
	pl.ctx = ctx;
	ws = xcalloc((size_t)jobs, sizeof(*ws));
	for (i = 0; i < jobs; i++) {
		ws[i].pool = &pl;
		prof_stacks_init(&ws[i].table, t->nweights);
		ws[i].ps = prof_perfscript_new(&ws[i].table, opts);
	}
	/* This thread is worker 0; a thread that cannot be had is no error. */
	for (i = 1; i < jobs; i++) {
		if (pthread_create(&ws[i].thread, NULL, worker_main, &ws[i]) != 0)
			break;
		started++;
	}
	worker_main(&ws[0]);
	for (i = 1; i < started; i++)
		pthread_join(ws[i].thread, NULL);
	for (i = 0; i < jobs; i++) {
		if (i < started) {
			prof_stacks_merge(t, &ws[i].table);
			prof_perfscript_stats_merge(stats, prof_perfscript_stats(ws[i].ps));
		}
		prof_perfscript_free(ws[i].ps);
		prof_stacks_release(&ws[i].table);
	}
	/* Block-relative line numbers -> input line numbers. */
	for (k = 1; k < pl.nblocks; k++)
		pl.block_lines[k] += pl.block_lines[k - 1];
	for (k = 0; k < stats->nbad; k++) {
		size_t b = stats->bad_line[k] >> SEQ_SHIFT;

		stats->bad_line[k] = (stats->bad_line[k] & ((1UL << SEQ_SHIFT) - 1)) +
				     (b ? pl.block_lines[b - 1] : 0);
	}
	free(pl.block_lines);
	free(ws);
	pthread_mutex_destroy(&pl.lock);
	return prof_chunks_failed(r) || prof_chunks_too_long(r) ? -1 : 0;
}
