#include <ctype.h>
#include <stdio.h>
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
#define NCOLS 9		/* files of profrec before 0.4 */
#define NCOLS_IP 12		/* then ip, map_id, map (0.4) */
#define NCOLS_ADDRS 13		/* then addrs (0.5) */

static const char header[] = "time_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack";
static const char header_ip[] = "\tip\tmap_id\tmap";
static const char header_addrs[] = "\tip\tmap_id\tmap\taddrs";

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

/* The stacks defined so far in one id namespace. */
struct defs {
	struct prof_intern ids;		/* stack_id text -> index */
	size_t *off;			/* index -> start in pool */
	uint32_t *depth;
	size_t cap;
	uint32_t *pool;			/* frame ids of t */
	size_t pool_len, pool_cap;
	/* the addrs column of each (on_address only): naddr[index] addresses
	 * from aoff[index] in apool, their mappings (index into maps, or
	 * UINT32_MAX) in mpool */
	size_t *aoff;
	uint32_t *naddr;
	uint64_t *apool;
	uint32_t *mpool;
	size_t apool_len, apool_cap, mpool_cap;
};

/* The mappings defined so far in one id namespace (map_id -> index). */
struct maps {
	struct prof_intern ids;
	struct prof_samples_map *map;	/* strings owned (malloc'ed) */
	size_t cap;
};

/* One prof_samples_read(). */
struct reader {
	struct prof_stacks *t;
	const struct prof_samples_opts *opts;
	struct prof_samples_stats *st;
	struct prof_meta *meta;		/* the caller's (may be NULL) */
	struct prof_meta own_meta;	/* this input's, for its event list */
	struct defs defs;
	struct maps maps;		/* the map column's */
	struct maps amaps;		/* the addrs column's (ids of its own) */
	struct prof_buf root;		/* the root frame text of a row */
	uint32_t *frames;		/* the stack of a row */
	size_t frames_cap;
	const char *name;
	unsigned long malformed;
	int have_header, in_rows;
	size_t ncols;			/* of the last header: NCOLS, NCOLS_IP or NCOLS_ADDRS */
	size_t root_depth;		/* the root frames of the last row folded */
	const struct prof_samples_map **row_maps;	/* on_address's maps */
	size_t row_maps_cap;
};

/* The fields of one row. */
struct row {
	int64_t time_ns, pid, tid;
	const char *comm, *event, *stack_id, *stack;
	double weight;
};

static void bad(struct reader *rd, unsigned long line, const char *what)
{
	if (++rd->malformed <= MAX_REPORTED)
		prof_input_warn(rd->name, line, "%s", what);
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

/* Intern the frames of s[0..len) ("a;b;c") into t, appended to *pool. */
static void append_frames(struct prof_stacks *t, const char *s, size_t len, uint32_t **pool,
			  size_t *pool_len, size_t *pool_cap)
{
	const char *e = s + len;

	for (;;) {
		const char *semi = memchr(s, ';', (size_t)(e - s));
		const char *fe = semi ? semi : e;

		PROF_GROW(*pool, *pool_len + 1, *pool_cap);
		(*pool)[(*pool_len)++] = prof_stacks_frame(t, s, (size_t)(fe - s));
		if (!semi)
			return;
		s = semi + 1;
	}
}

static long map_define(struct reader *rd, struct maps *m, const char *id, size_t idlen,
		       const char *def, unsigned long lineno);

/* Decode %XX in s (a path of the addrs column) in place. */
static void percent_decode(char *s)
{
	char *o = s, hex[3] = { 0 };

	for (; *s; s++) {
		if (*s == '%' && isxdigit((unsigned char)s[1]) && isxdigit((unsigned char)s[2])) {
			hex[0] = s[1];
			hex[1] = s[2];
			*o++ = (char)strtoul(hex, NULL, 16);
			s += 2;
		} else {
			*o++ = *s;
		}
	}
	*o = 0;
}

/*
 * The addrs column of a stack defined at index idx, depth frames:
 * entries "-", "HEX", "HEX@MAP_ID" or "HEX@MAP_ID=MAP" (prof-formats.5),
 * ';'-separated. 0, or -1 after reporting.
 */
static int row_addrs(struct reader *rd, size_t idx, uint32_t depth, char *s,
		     unsigned long lineno)
{
	struct defs *d = &rd->defs;
	uint32_t n = 0;

	d->aoff[idx] = d->apool_len;
	d->naddr[idx] = 0;
	while (*s) {
		char *semi = strchr(s, ';'), *e, *at, *eq;
		uint64_t a = 0;
		long m = -1;

		if (semi)
			*semi = 0;
		if (strcmp(s, "-") != 0) {
			a = strtoull(s, &e, 16);
			if (e == s || !isxdigit((unsigned char)*s) || (*e && *e != '@'))
				goto bad;
			if (*e == '@') {
				at = e + 1;
				eq = strchr(at, '=');
				if (eq)
					*eq = 0;
				if (!*at || at[strspn(at, "0123456789")])
					goto bad;
				if (eq) {
					percent_decode(eq + 1);
					m = map_define(rd, &rd->amaps, at, strlen(at), eq + 1, lineno);
					if (m < 0)
						return -1;
				} else if ((m = (long)prof_intern_find(&rd->amaps.ids, at, strlen(at))) ==
					   UINT32_MAX) {
					bad(rd, lineno, "addrs: map id not named by an earlier entry");
					return -1;
				}
			}
		}
		if (++n > depth) {
			bad(rd, lineno, "addrs: more addresses than frames");
			return -1;
		}
		PROF_GROW(d->apool, d->apool_len + 1, d->apool_cap);
		PROF_GROW(d->mpool, d->apool_len + 1, d->mpool_cap);
		d->apool[d->apool_len] = a;
		d->mpool[d->apool_len++] = m < 0 ? UINT32_MAX : (uint32_t)m;
		if (!semi)
			break;
		s = semi + 1;
	}
	d->naddr[idx] = n;
	return 0;
bad:
	bad(rd, lineno, "bad addrs entry (-, HEX, HEX@MAP_ID or HEX@MAP_ID=MAP)");
	return -1;
}

/*
 * The index of the row's stack: defined here when the row carries the
 * stack text (and its addresses, addrs not NULL), else one an earlier
 * row defined. -1 after reporting.
 */
static long row_stack(struct reader *rd, const struct row *row, char *addrs,
		      unsigned long lineno)
{
	struct defs *d = &rd->defs;
	size_t idx, before = prof_intern_count(&d->ids), start = d->pool_len;

	if (!row->stack[0]) {
		idx = prof_intern_find(&d->ids, row->stack_id, strlen(row->stack_id));
		if (idx == UINT32_MAX) {
			bad(rd, lineno, "stack_id not defined by an earlier row");
			return -1;
		}
		return (long)idx;
	}
	idx = prof_intern(&d->ids, row->stack_id, strlen(row->stack_id));
	if (idx < before) {
		bad(rd, lineno, "stack_id defined twice");
		return -1;
	}
	PROF_GROW(d->off, idx + 1, d->cap);
	d->depth = xreallocarray(d->depth, d->cap, sizeof(*d->depth));
	d->aoff = xreallocarray(d->aoff, d->cap, sizeof(*d->aoff));
	d->naddr = xreallocarray(d->naddr, d->cap, sizeof(*d->naddr));
	append_frames(rd->t, row->stack, strlen(row->stack), &d->pool, &d->pool_len, &d->pool_cap);
	d->off[idx] = start;
	d->depth[idx] = (uint32_t)(d->pool_len - start);
	d->aoff[idx] = d->apool_len;
	d->naddr[idx] = 0;
	if (addrs && row_addrs(rd, idx, d->depth[idx], addrs, lineno) != 0)
		return -1;
	return (long)idx;
}

/*
 * Whether the row is of the event folded: the one given, else the first
 * of the metadata's list (rows of several events come in any order),
 * else the first row's. Rows of other events are counted.
 */
static int row_event_folded(struct reader *rd, const char *event)
{
	struct prof_samples_stats *st = rd->st;

	if (!st->event) {
		st->event = prof_meta_list_item(prof_meta_get(&rd->own_meta, "event"), 0);
		if (st->event && !*st->event) {
			free(st->event);
			st->event = NULL;
		}
	}
	if (!st->event) {
		st->event = xstrdup(event);
	} else if (strcmp(st->event, event) != 0) {
		st->other_samples++;
		add_other(st, event);
		return 0;
	}
	return 1;
}

/* Note the row's time in the span; whether it is in the time window. */
static int row_in_window(struct reader *rd, int64_t tns)
{
	const struct prof_samples_opts *o = rd->opts;
	struct prof_samples_stats *st = rd->st;

	if (tns >= 0) {
		if (!st->have_times || (uint64_t)tns < st->time_min_ns)
			st->time_min_ns = (uint64_t)tns;
		if (!st->have_times || (uint64_t)tns > st->time_max_ns)
			st->time_max_ns = (uint64_t)tns;
		st->have_times = 1;
	}
	if (o->time_window &&
	    (tns < 0 || (uint64_t)tns < o->time_from_ns ||
	     (o->time_to_ns != UINT64_MAX && (uint64_t)tns >= o->time_to_ns))) {
		st->outside_time++;
		return 0;
	}
	return 1;
}

/* Fold the row: root frame(s) comm[-pid[/tid]] (spaces -> '_'), then the stack; its id. */
static uint32_t fold_row(struct reader *rd, const struct row *row, size_t idx)
{
	const struct prof_samples_opts *o = rd->opts;
	struct defs *d = &rd->defs;
	struct prof_buf *root = &rd->root;
	prof_weight w[1];
	size_t depth = 0, i;
	uint32_t id;

	prof_buf_reset(root);
	prof_buf_addstr(root, row->comm);
	if (o->include_tid)
		prof_buf_addf(root, "-%lld/%lld", (long long)row->pid, (long long)row->tid);
	else if (o->include_pid)
		prof_buf_addf(root, "-%lld", (long long)row->pid);
	for (i = 0; i < root->len; i++)
		if (root->data[i] == ' ')
			root->data[i] = '_';
	append_frames(rd->t, prof_buf_cstr(root), root->len, &rd->frames, &depth, &rd->frames_cap);
	rd->root_depth = depth;
	PROF_GROW(rd->frames, depth + d->depth[idx], rd->frames_cap);
	memcpy(rd->frames + depth, d->pool + d->off[idx], d->depth[idx] * sizeof(*rd->frames));
	depth += d->depth[idx];
	w[0] = o->counts ? 1 : row->weight;
	id = prof_stacks_add_columns(rd->t, rd->frames, depth, w, 1);
	if (o->on_stack)
		o->on_stack(o->on_stack_ctx, id, w, 1);
	if (o->on_sample)
		o->on_sample(o->on_sample_ctx, id, w[0], row->time_ns < 0 ? -1 : row->time_ns);
	rd->st->samples++;
	return id;
}

static void maps_release(struct maps *m)
{
	size_t i;

	for (i = 0; i < prof_intern_count(&m->ids); i++) {
		free((char *)m->map[i].build_id);
		free((char *)m->map[i].path);
	}
	prof_intern_release(&m->ids);
	prof_intern_init(&m->ids);
}

/*
 * Define mapping id[0..idlen) of table m by its text def ("0xSTART 0xPGOFF
 * BUILD_ID PATH"); an id defined before keeps its first definition.
 * Its index in rd->maps, or -1 after reporting a malformed text.
 */
static long map_define(struct reader *rd, struct maps *m, const char *id, size_t idlen,
		       const char *def, unsigned long lineno)
{
	size_t idx, before = prof_intern_count(&m->ids);
	uint64_t start, pgoff;
	char *end, bid[256];
	int n = 0;

	start = strtoull(def, &end, 16);
	if (end == def || sscanf(end, " %" "llx %255s %n", (unsigned long long *)&pgoff, bid, &n) < 2 ||
	    !n || !end[n]) {
		bad(rd, lineno, "bad map (0xSTART 0xPGOFF BUILD_ID PATH)");
		return -1;
	}
	idx = prof_intern(&m->ids, id, idlen);
	if (idx < before)
		return (long)idx;	/* defined twice: the first stands */
	PROF_GROW(m->map, idx + 1, m->cap);
	m->map[idx].start = start;
	m->map[idx].pgoff = pgoff;
	m->map[idx].build_id = xstrdup(strcmp(bid, "-") ? bid : "");
	m->map[idx].path = xstrdup(end + n);
	return (long)idx;
}

/*
 * The mapping of the row's ip (f: ip, map_id, map), defined here when the
 * map column is set; NULL when the row has none or after reporting a
 * malformed one (*bad set).
 */
static const struct prof_samples_map *row_map(struct reader *rd, char **f, unsigned long lineno,
					      int *bad_map)
{
	struct maps *m = &rd->maps;
	size_t idx;
	long d;

	*bad_map = 0;
	if (!f[1][0])
		return NULL;
	if (!f[2][0]) {
		idx = prof_intern_find(&m->ids, f[1], strlen(f[1]));
		return idx == UINT32_MAX ? NULL : &m->map[idx];
	}
	if ((d = map_define(rd, m, f[1], strlen(f[1]), f[2], lineno)) < 0) {
		*bad_map = 1;
		return NULL;
	}
	return &m->map[d];
}

/* Call on_address with the row's addresses, if it has any. */
static void row_addresses(struct reader *rd, uint32_t id, size_t idx, char *ip,
			  const struct prof_samples_map *map)
{
	struct defs *d = &rd->defs;
	struct prof_samples_addrs a;
	size_t i;

	a.has_ip = ip && ip[0];
	a.ip = a.has_ip ? strtoull(ip, NULL, 16) : 0;
	a.map = map;
	/* without the addrs column (before 0.5): the leaf alone is the ip's */
	a.first = rd->ncols == NCOLS_ADDRS ? rd->root_depth : rd->root_depth + d->depth[idx] - 1;
	a.n = rd->ncols == NCOLS_ADDRS ? d->naddr[idx] : 0;
	if (!map && !a.n)
		return;
	a.addr = a.n ? d->apool + d->aoff[idx] : NULL;
	PROF_GROW(rd->row_maps, a.n + 1, rd->row_maps_cap);
	for (i = 0; i < a.n; i++) {
		uint32_t m = d->mpool[d->aoff[idx] + i];

		rd->row_maps[i] = m == UINT32_MAX ? NULL : &rd->amaps.map[m];
	}
	a.maps = rd->row_maps;
	rd->opts->on_address(rd->opts->on_address_ctx, id, &a);
}

/* A sample row: split, check, fold if of the event and in the window. */
static void read_row(struct reader *rd, char *line, size_t n, unsigned long lineno)
{
	char *f[NCOLS_ADDRS + 1];
	size_t nf = prof_tsv_split(line, n, f, NCOLS_ADDRS + 1);
	struct row row;
	int64_t cpu, stack_number;	/* checked, not used */
	const struct prof_samples_map *map = NULL;
	int bad_map = 0;
	uint32_t id;
	long idx;

	if (nf != rd->ncols) {
		bad(rd, lineno, nf < rd->ncols ? "too few fields" : "too many fields");
		return;
	}
	if (nf >= NCOLS_IP && (f[9][strspn(f[9], "0123456789abcdef")] ||
			       !prof_tsv_valid_value(PROF_TSV_OPTINT, f[10]))) {
		bad(rd, lineno, "bad ip (hex) or map_id");
		return;
	}
	if (prof_parse_i64(f[0], &row.time_ns) || prof_parse_i64(f[1], &row.pid) ||
	    prof_parse_i64(f[2], &row.tid) || prof_parse_i64(f[4], &cpu) ||
	    prof_parse_double(f[6], &row.weight) || prof_parse_i64(f[7], &stack_number)) {
		bad(rd, lineno, "bad number in time_ns, pid, tid, cpu, weight or stack_id");
		return;
	}
	if (nf >= NCOLS_IP && rd->opts->on_address && !(map = row_map(rd, f + 9, lineno, &bad_map)) &&
	    bad_map)
		return;
	row.comm = f[3];
	row.event = f[5];
	row.stack_id = f[7];
	row.stack = f[8];
	rd->st->rows++;
	/* Define the stack before filtering: later rows use it. */
	idx = row_stack(rd, &row, nf == NCOLS_ADDRS && rd->opts->on_address ? f[12] : NULL, lineno);
	if (idx >= 0 && f[6][0] == '-') {	/* "-0" too: profrec never writes a sign */
		bad(rd, lineno, "negative weight");
		return;
	}
	if (idx < 0 || !row_event_folded(rd, row.event) || !row_in_window(rd, row.time_ns))
		return;
	id = fold_row(rd, &row, (size_t)idx);
	if (rd->opts->on_address)
		row_addresses(rd, id, (size_t)idx, nf >= NCOLS_IP ? f[9] : NULL, map);
}

/* Whether line is a header of either form; its number of columns in *ncols. */
static int is_header(const char *line, size_t n, size_t *ncols)
{
	size_t h = sizeof(header) - 1;

	if (n < h || memcmp(line, header, h) != 0)
		return 0;
	if (n == h) {
		*ncols = NCOLS;
		return 1;
	}
	if (n == h + sizeof(header_ip) - 1 && memcmp(line + h, header_ip, n - h) == 0) {
		*ncols = NCOLS_IP;
		return 1;
	}
	if (n == h + sizeof(header_addrs) - 1 && memcmp(line + h, header_addrs, n - h) == 0) {
		*ncols = NCOLS_ADDRS;
		return 1;
	}
	return 0;
}

static void read_line(struct reader *rd, char *line, size_t n, unsigned long lineno)
{
	if (n == 0)
		return;
	if (line[0] == '#') {
		if (rd->meta)
			prof_meta_parse_line(rd->meta, line, n);
		prof_meta_parse_line(&rd->own_meta, line, n);
		return;
	}
	if (is_header(line, n, &rd->ncols)) {
		if (rd->in_rows) {
			/* a concatenated file: new ids */
			prof_intern_release(&rd->defs.ids);
			rd->defs.pool_len = 0;
			rd->defs.apool_len = 0;
			maps_release(&rd->maps);
			maps_release(&rd->amaps);
		}
		rd->in_rows = 0;
		rd->have_header = 1;
		return;
	}
	if (!rd->have_header) {
		bad(rd, lineno, "missing profrec-samples header line");
		rd->have_header = 1;	/* say it once */
		return;
	}
	rd->in_rows = 1;
	read_row(rd, line, n, lineno);
}

int prof_samples_read(struct prof_chunks *r, struct prof_stacks *t,
		      const struct prof_samples_opts *opts, struct prof_meta *meta,
		      struct prof_samples_stats *st)
{
	struct reader rd;
	unsigned long lineno = 0;
	int last = 0;
	size_t len;
	char *block;

	memset(&rd, 0, sizeof(rd));
	rd.t = t;
	rd.opts = opts;
	rd.st = st;
	rd.meta = meta;
	rd.name = prof_chunks_name(r);
	prof_intern_init(&rd.defs.ids);
	prof_intern_init(&rd.maps.ids);
	prof_intern_init(&rd.amaps.ids);
	if (opts->event_filter && *opts->event_filter && !st->event)
		st->event = xstrdup(opts->event_filter);
	while ((block = prof_chunks_next(r, PROF_CHUNK_LINE, &len, &last)) != NULL) {
		char *pos = block, *line;
		size_t n;

		while ((line = prof_block_next_line(&pos, block + len, &n)) != NULL)
			read_line(&rd, line, n, ++lineno);
		prof_chunks_recycle(r, block);
	}
	if (rd.malformed > MAX_REPORTED)
		prof_input_warn(rd.name, 0, "%lu malformed lines in all", rd.malformed);
	prof_meta_release(&rd.own_meta);
	prof_intern_release(&rd.defs.ids);
	maps_release(&rd.maps);
	prof_intern_release(&rd.maps.ids);
	free(rd.maps.map);
	maps_release(&rd.amaps);
	prof_intern_release(&rd.amaps.ids);
	free(rd.amaps.map);
	free(rd.defs.off);
	free(rd.defs.depth);
	free(rd.defs.pool);
	free(rd.defs.aoff);
	free(rd.defs.naddr);
	free(rd.defs.apool);
	free(rd.defs.mpool);
	free(rd.row_maps);
	free(rd.frames);
	prof_buf_release(&rd.root);
	return rd.malformed || prof_chunks_failed(r) || prof_chunks_too_long(r) ? -1 : 0;
}

void prof_samples_stats_release(struct prof_samples_stats *st)
{
	free(st->event);
	free(st->others);
	memset(st, 0, sizeof(*st));
}
