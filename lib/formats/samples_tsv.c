#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "io/chunk.h"
#include "base/error.h"
#include "formats/block_line.h"
#include "core/intern.h"
#include "formats/samples_tsv.h"
#include "formats/tsv.h"
#include "base/units.h"
#include "base/xalloc.h"

#define MAX_REPORTED 10
#define NCOLS 9
#define BLOCK (1u << 20)

static const char header[] = "time_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack";

int prof_samples_detect(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);

		if (n && p[0] != '#')
			return n >= sizeof(header) - 1 && memcmp(p, header, sizeof(header) - 1) == 0;
		p = nl ? nl + 1 : end;
	}
	return 0;
}

struct reader {
	const char *name;
	unsigned long malformed;
};

static void bad(struct reader *rd, unsigned long line, const char *what)
{
	if (++rd->malformed <= MAX_REPORTED)
		prof_input_warn(rd->name, line, "%s", what);
}

static void finish_reports(struct reader *rd)
{
	if (rd->malformed > MAX_REPORTED)
		prof_input_warn(rd->name, 0, "%lu malformed lines in all", rd->malformed);
}

/* The stacks defined so far in one id namespace. */
struct defs {
	struct prof_intern ids;		/* stack_id text -> index */
	size_t *off;			/* index -> start in pool */
	uint32_t *depth;
	size_t cap;
	uint32_t *pool;			/* frame ids of t */
	size_t pool_len, pool_cap;
};

static void defs_reset(struct defs *d)
{
	prof_intern_release(&d->ids);
	d->pool_len = 0;
}

static void add_other(struct prof_samples_stats *st, const char *ev)
{
	struct prof_buf b = PROF_BUF_INIT;
	const char *p = st->others;
	size_t n = strlen(ev);

	while (p) {
		const char *comma = strstr(p, ", ");
		size_t l = comma ? (size_t)(comma - p) : strlen(p);

		if (l == n && memcmp(p, ev, n) == 0)
			return;
		p = comma ? comma + 2 : NULL;
	}
	if (st->others) {
		prof_buf_addstr(&b, st->others);
		prof_buf_add(&b, ", ", 2);
		free(st->others);
	}
	prof_buf_addstr(&b, ev);
	st->others = prof_buf_detach(&b, NULL);
}

int prof_samples_read(struct prof_chunks *r, struct prof_stacks *t,
		      const struct prof_samples_opts *opts, struct prof_meta *meta,
		      struct prof_samples_stats *st)
{
	struct reader rd = { prof_chunks_name(r), 0 };
	struct prof_meta hdr = PROF_META_INIT;	/* this input's metadata */
	struct defs d;
	struct prof_buf root = PROF_BUF_INIT;
	uint32_t *frames = NULL;
	size_t frames_cap = 0, len;
	unsigned long lineno = 0;
	int last = 0, in_rows = 0, have_header = 0;
	char *block;

	memset(&d, 0, sizeof(d));
	prof_intern_init(&d.ids);
	if (opts->event_filter && *opts->event_filter && !st->event)
		st->event = xstrdup(opts->event_filter);
	while ((block = prof_chunks_next(r, PROF_CHUNK_LINE, &len, &last)) != NULL) {
		char *p = block, *end = block + len, *line;
		size_t n;

		while ((line = prof_block_next_line(&p, end, &n)) != NULL) {
			char *f[NCOLS + 1];
			size_t nf, idx, depth, i;
			int64_t tns, pid, tid, cpu, sid;
			double w;
			uint32_t id;

			lineno++;
			if (n == 0)
				continue;
			if (line[0] == '#') {
				if (meta)
					prof_meta_parse_line(meta, line, n);
				prof_meta_parse_line(&hdr, line, n);
				continue;
			}
			if (n == sizeof(header) - 1 && memcmp(line, header, n) == 0) {
				if (in_rows)
					defs_reset(&d);	/* a concatenated file: new ids */
				in_rows = 0;
				have_header = 1;
				continue;
			}
			if (!have_header) {
				bad(&rd, lineno, "missing profrec-samples header line");
				have_header = 1;	/* say it once */
				continue;
			}
			in_rows = 1;
			nf = prof_tsv_split(line, n, f, NCOLS + 1);
			if (nf != NCOLS) {
				bad(&rd, lineno, nf < NCOLS ? "too few fields" : "too many fields");
				continue;
			}
			if (prof_parse_i64(f[0], &tns) || prof_parse_i64(f[1], &pid) ||
			    prof_parse_i64(f[2], &tid) || prof_parse_i64(f[4], &cpu) ||
			    prof_parse_double(f[6], &w) || prof_parse_i64(f[7], &sid)) {
				bad(&rd, lineno, "bad number in time_ns, pid, tid, cpu, weight or stack_id");
				continue;
			}
			(void)cpu;
			st->rows++;
			/* Define or look up the stack (before filtering: later rows use it). */
			if (f[8][0]) {
				size_t before = prof_intern_count(&d.ids);
				const char *s = f[8], *e = f[8] + strlen(f[8]);

				idx = prof_intern(&d.ids, f[7], strlen(f[7]));
				if (idx < before) {
					bad(&rd, lineno, "stack_id defined twice");
					continue;
				}
				PROF_GROW(d.off, idx + 1, d.cap);
				d.depth = xreallocarray(d.depth, d.cap, sizeof(*d.depth));
				d.off[idx] = d.pool_len;
				depth = 0;
				for (;;) {
					const char *semi = memchr(s, ';', (size_t)(e - s));
					const char *fe = semi ? semi : e;

					PROF_GROW(d.pool, d.pool_len + 1, d.pool_cap);
					d.pool[d.pool_len++] = prof_stacks_frame(t, s, (size_t)(fe - s));
					depth++;
					if (!semi)
						break;
					s = semi + 1;
				}
				d.depth[idx] = (uint32_t)depth;
			} else {
				idx = prof_intern_find(&d.ids, f[7], strlen(f[7]));
				if (idx == UINT32_MAX) {
					bad(&rd, lineno, "stack_id not defined by an earlier row");
					continue;
				}
			}
			/*
			 * Event filter: the one given, else the first of the
			 * header's list (rows of several events come in any
			 * order), else the first row's.
			 */
			if (!st->event) {
				st->event = prof_meta_list_item(prof_meta_get(&hdr, "event"), 0);
				if (st->event && !*st->event) {
					free(st->event);
					st->event = NULL;
				}
			}
			if (!st->event) {
				st->event = xstrdup(f[5]);
			} else if (strcmp(st->event, f[5]) != 0) {
				st->other_samples++;
				add_other(st, f[5]);
				continue;
			}
			if (tns >= 0) {
				if (!st->have_times || (uint64_t)tns < st->time_min_ns)
					st->time_min_ns = (uint64_t)tns;
				if (!st->have_times || (uint64_t)tns > st->time_max_ns)
					st->time_max_ns = (uint64_t)tns;
				st->have_times = 1;
			}
			if (opts->time_window &&
			    (tns < 0 || (uint64_t)tns < opts->time_from_ns ||
			     (opts->time_to_ns != UINT64_MAX && (uint64_t)tns >= opts->time_to_ns))) {
				st->outside_time++;
				continue;
			}
			/* Root frame(s): comm[-pid[/tid]], spaces -> '_', split at ';'. */
			prof_buf_reset(&root);
			prof_buf_addstr(&root, f[3]);
			if (opts->include_tid)
				prof_buf_addf(&root, "-%lld/%lld", (long long)pid, (long long)tid);
			else if (opts->include_pid)
				prof_buf_addf(&root, "-%lld", (long long)pid);
			for (i = 0; i < root.len; i++)
				if (root.data[i] == ' ')
					root.data[i] = '_';
			depth = 0;
			{
				const char *s = root.data ? root.data : "", *e = s + root.len;

				for (;;) {
					const char *semi = memchr(s, ';', (size_t)(e - s));
					const char *fe = semi ? semi : e;

					PROF_GROW(frames, depth + 1, frames_cap);
					frames[depth++] = prof_stacks_frame(t, s, (size_t)(fe - s));
					if (!semi)
						break;
					s = semi + 1;
				}
			}
			PROF_GROW(frames, depth + d.depth[idx], frames_cap);
			memcpy(frames + depth, d.pool + d.off[idx], d.depth[idx] * sizeof(*frames));
			depth += d.depth[idx];
			if (opts->counts)
				w = 1;
			{
				prof_weight wr[PROF_STACKS_MAX_WEIGHTS] = { 0 };

				wr[0] = w;
				id = prof_stacks_add(t, frames, depth, wr);
				if (opts->on_stack)
					opts->on_stack(opts->on_stack_ctx, id, wr, 1);
			}
			st->samples++;
		}
		prof_chunks_recycle(r, block);
	}
	finish_reports(&rd);
	prof_meta_release(&hdr);
	prof_intern_release(&d.ids);
	free(d.off);
	free(d.depth);
	free(d.pool);
	free(frames);
	prof_buf_release(&root);
	return rd.malformed || prof_chunks_failed(r) ? -1 : 0;
}

void prof_samples_stats_release(struct prof_samples_stats *st)
{
	free(st->event);
	free(st->others);
	memset(st, 0, sizeof(*st));
}
