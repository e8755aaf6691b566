#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "base/buf.h"
#include "base/error.h"
#include "base/escape.h"
#include "base/units.h"
#include "base/xalloc.h"
#include "core/intern.h"
#include "formats/pprof.h"
#include "formats/profile.h"
#include "formats/protobuf.h"
#include "formats/samples_tsv.h"
#include "io/output.h"

/* profile.proto's field numbers (Profile, ValueType, Sample, Location, Line, Function). */
enum {
	P_SAMPLE_TYPE = 1, P_SAMPLE = 2, P_MAPPING = 3, P_LOCATION = 4, P_FUNCTION = 5,
	P_STRING_TABLE = 6, P_DROP_FRAMES = 7, P_KEEP_FRAMES = 8, P_TIME_NANOS = 9,
	P_DURATION_NANOS = 10, P_PERIOD_TYPE = 11, P_PERIOD = 12, P_COMMENT = 13,
	P_DEFAULT_SAMPLE_TYPE = 14, P_DOC_URL = 15,
	VT_TYPE = 1, VT_UNIT = 2,
	S_LOCATION_ID = 1, S_VALUE = 2, S_LABEL = 3,
	M_ID = 1, M_MEMORY_START = 2, M_MEMORY_LIMIT = 3, M_FILE_OFFSET = 4, M_FILENAME = 5,
	M_BUILD_ID = 6, M_HAS_FUNCTIONS = 7,
	L_ID = 1, L_MAPPING_ID = 2, L_ADDRESS = 3, L_LINE = 4,
	LN_FUNCTION_ID = 1, LN_LINE = 2,
	F_ID = 1, F_NAME = 2, F_SYSTEM_NAME = 3, F_FILENAME = 4, F_START_LINE = 5,
};

/* ---- describing a table from its metadata ------------------------------------- */

static void add_type(struct prof_pprof_profile *p, const char *type, const char *unit, size_t col)
{
	if (p->ntypes < PROF_PPROF_MAX_TYPES) {
		p->types[p->ntypes].type = type;
		p->types[p->ntypes].unit = unit;
		p->types[p->ntypes].column = col;
		p->ntypes++;
	}
}

/* "2026-11-25T21:40:51Z" -> nanoseconds since the epoch, or 0. */
static int64_t parse_start_time(const char *s)
{
	struct tm tm;
	const char *end;

	if (!s)
		return 0;
	memset(&tm, 0, sizeof(tm));
	end = strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (!end || *end)
		return 0;
	return (int64_t)timegm(&tm) * 1000000000;
}

/* The value's type name for metadata unit and event (see pprof.h). */
static void value_type(const struct prof_meta *meta, const char **type, const char **unit)
{
	static _Thread_local char name[64];
	const char *u = prof_meta_get(meta, "unit"), *ev = prof_meta_get(meta, "event");
	const char *report = prof_meta_get(meta, "report");

	*unit = "count";
	if (u && strcmp(u, "ns") == 0) {
		*type = ev && strcmp(ev, "offcpu-time") == 0 ? "off_cpu" : "cpu";
		*unit = "nanoseconds";
	} else if (!u || strcmp(u, "samples") == 0) {
		*type = "samples";
	} else if (strcmp(u, "bytes") == 0) {
		snprintf(name, sizeof(name), "%s%sspace", report ? report : "", report ? "_" : "");
		*type = name;
		*unit = "bytes";
	} else if (strcmp(u, "allocations") == 0) {
		snprintf(name, sizeof(name), "%s_objects",
			 !report || strcmp(report, "count") == 0 ? "alloc" : report);
		*type = name;
	} else {
		*type = ev && *ev && !strchr(ev, ',') ? ev : u;
	}
}

void prof_pprof_describe(struct prof_pprof_profile *p, const struct prof_stacks *t,
			 const struct prof_meta *meta, size_t column, long samples_column)
{
	const char *type, *unit, *s;
	uint64_t v;

	memset(p, 0, sizeof(*p));
	p->t = t;
	p->default_type = -1;
	value_type(meta, &type, &unit);
	if (samples_column >= 0 && strcmp(type, "samples") != 0) {
		add_type(p, "samples", "count", (size_t)samples_column);
		p->default_type = 1;
	}
	add_type(p, type, unit, column);
	p->period_type = type;
	p->period_unit = unit;
	if ((s = prof_meta_get(meta, "period")) && !prof_parse_u64(s, &v) && v <= INT64_MAX)
		p->period = (int64_t)v;
	else if ((s = prof_meta_get(meta, "freq")) && !prof_parse_u64(s, &v) && v &&
		 strcmp(unit, "nanoseconds") == 0)
		p->period = (int64_t)(1000000000 / v);
	p->time_nanos = parse_start_time(prof_meta_get(meta, "start_time"));
}

void prof_pprof_on_sample(void *ctx, uint32_t id, prof_weight w, int64_t time_ns)
{
	struct prof_pprof_counter *c = ctx;

	c->last_id = id;	/* on_address of the same row comes next */
	c->last_w = w;
	prof_weight_add(&prof_stacks_weights(c->t, id)[c->column], 1);
	c->samples++;
	if (time_ns > c->last_ns)
		c->last_ns = time_ns;
}

/* The index in c->maps of a file mapping of the input, made when new. */
static uint32_t counter_map(struct prof_pprof_counter *c, const struct prof_samples_map *map)
{
	size_t n = prof_intern_count(&c->map_keys);
	uint32_t m;

	prof_buf_reset(&c->key);
	prof_buf_addf(&c->key, "%llx %llx %s %s", (unsigned long long)map->start,
		      (unsigned long long)map->pgoff, map->build_id, map->path);
	m = prof_intern(&c->map_keys, c->key.data, c->key.len);
	if (m == n) {
		PROF_GROW(c->maps, n + 1, c->maps_cap);
		c->maps[m].start = map->start;
		c->maps[m].limit = 0;
		c->maps[m].pgoff = map->pgoff;
		c->maps[m].build_id = xstrdup(map->build_id);
		c->maps[m].path = xstrdup(map->path);
	}
	return m;
}

/* Set e to address in mapping map (its index cached in *last, *last_m); the mapping's limit past it. */
static void counter_set(struct prof_pprof_counter *c, struct prof_pprof_addr *e, uint64_t address,
			const struct prof_samples_map *map, const struct prof_samples_map **last,
			uint32_t *last_m)
{
	if (map != *last)
		*last_m = counter_map(c, *last = map);
	e->address = address;
	e->map = *last_m;
	if (address >= c->maps[*last_m].limit)
		c->maps[*last_m].limit = address + 1;
}

void prof_pprof_on_address(void *ctx, uint32_t id, const struct prof_samples_addrs *a)
{
	struct prof_pprof_counter *c = ctx;
	size_t depth, n, len, i;
	const uint32_t *frames = prof_stacks_frames(c->t, id, &depth);
	const struct prof_samples_map *last = NULL;
	struct prof_pprof_addr *e;
	const char *leaf;
	uint32_t k, last_m = 0;
	int any = 0;

	if (!depth || a->first + a->n > depth)
		return;
	if (!c->maps_cap) {	/* first call */
		PROF_GROW(c->maps, 1, c->maps_cap);
		prof_intern_init(&c->map_keys);
		prof_intern_init(&c->leaf_names);
		prof_intern_init(&c->at_keys);
	}
	/* the frames' addresses, root first, after those of the entries */
	PROF_GROW(c->addrs, c->addrs_len + depth, c->addrs_cap);
	e = c->addrs + c->addrs_len;
	memset(e, 0, depth * sizeof(*e));	/* the padding too: e is a key */
	/* leaf first: the mappings numbered as before callers had addresses
	 * (pprof takes the first for the main binary) */
	for (i = depth; i-- > 0;) {
		const struct prof_samples_map *map = NULL;
		uint64_t address = 0;

		if (i >= a->first && i < a->first + a->n) {
			/* a caller's return address: pprof's is inside the call */
			map = a->addr[i - a->first] ? a->maps[i - a->first] : NULL;
			address = a->addr[i - a->first] - 1;
		} else if (i >= a->first + a->n && a->has_ip) {
			map = a->map;
			address = a->ip;
		}
		e[i].map = UINT32_MAX;
		if (map) {
			counter_set(c, &e[i], address, map, &last, &last_m);
			any = 1;
		}
	}
	if (!any)
		return;
	/* this (stack, addresses): one more sample of the row's weight */
	prof_buf_reset(&c->key);
	prof_buf_add(&c->key, (const char *)&id, sizeof(id));
	prof_buf_add(&c->key, (const char *)e, depth * sizeof(*e));
	n = prof_intern_count(&c->at_keys);
	k = prof_intern(&c->at_keys, c->key.data, c->key.len);
	if (k == n) {
		PROF_GROW(c->at, n + 1, c->at_cap);
		c->at[k] = (struct prof_pprof_at){ .stack = id, .off = c->addrs_len };
		c->addrs_len += depth;
	}
	c->at[k].n++;
	if (c->last_id == id)
		prof_weight_add(&c->at[k].w, c->last_w);
	if (e[depth - 1].map == UINT32_MAX)
		return;
	leaf = prof_stacks_frame_name(c->t, frames[depth - 1], &len);
	n = prof_intern_count(&c->leaf_names);
	k = prof_intern(&c->leaf_names, leaf, len);
	if (k == n) {	/* the first address sampled in the frame stands */
		PROF_GROW(c->leaves, n + 1, c->leaves_cap);
		c->leaves[k].map = e[depth - 1].map;
		c->leaves[k].address = e[depth - 1].address;
	}
}

void prof_pprof_counter_release(struct prof_pprof_counter *c)
{
	size_t i;

	if (!c->maps_cap)
		return;
	for (i = 0; i < prof_intern_count(&c->map_keys); i++) {
		free(c->maps[i].build_id);
		free(c->maps[i].path);
	}
	prof_intern_release(&c->map_keys);
	prof_intern_release(&c->leaf_names);
	prof_intern_release(&c->at_keys);
	free(c->maps);
	free(c->leaves);
	free(c->at);
	free(c->addrs);
	prof_buf_release(&c->key);
	c->maps = NULL;
	c->leaves = NULL;
	c->at = NULL;
	c->addrs = NULL;
	c->maps_cap = c->leaves_cap = c->at_cap = c->addrs_cap = c->addrs_len = 0;
}

int prof_pprof_name(const char *path)
{
	size_t n = path ? strlen(path) : 0;

	return n > 6 && strcmp(path + n - 6, ".pb.gz") == 0;
}

/* ---- writing ------------------------------------------------------------------ */

/* A weight as pprof's int64 value: rounded, at most 2^63-1. */
static int64_t pprof_value(prof_weight w)
{
	if (!(w > 0))
		return 0;
	if (w >= 9223372036854775807.0L)
		return INT64_MAX;
	return (int64_t)llroundl(w);
}

/* What one write builds: the strings, the locations and functions. */
struct writer {
	const struct prof_pprof_profile *p;
	struct prof_intern strings;	/* string table: index = id */
	uint32_t *loc_of_frame;		/* frame id -> location id, 0: unused yet */
	uint32_t *frame_of_loc;		/* location id - 1 -> frame id */
	size_t nlocs;
	/* the counter's (stack, address) samples when it counted p->t */
	const struct prof_pprof_counter *at;
	uint32_t *at_first, *at_next;	/* stack -> its first entry, entry -> next; UINT32_MAX ends */
	struct prof_intern at_locs;	/* (address, map, frames) -> index of at_loc */
	struct at_loc { uint32_t map, nframes; size_t off; uint64_t address; } *at_loc;
	size_t at_loc_cap;
	uint32_t *at_frames;		/* the frames of each at_loc, root first, from off */
	size_t at_frames_len, at_frames_cap;
	struct prof_intern funcs;	/* "NAME\nFILE" -> function id - 1 */
	unsigned *start_line;		/* function id - 1 -> its first line, 0: unknown */
	size_t start_line_cap;
	int lines;			/* a frame carried its FILE:LINE */
	struct prof_buf msg, sub, key;
};

static uint64_t str_id(struct writer *w, const char *s)
{
	return prof_intern(&w->strings, s, strlen(s));
}

/* The location of frame f (ids 1..nlocs), made when new. */
static uint64_t location_of(struct writer *w, uint32_t f)
{
	if (!w->loc_of_frame[f]) {
		w->frame_of_loc[w->nlocs++] = f;
		w->loc_of_frame[f] = (uint32_t)w->nlocs;
	}
	return w->loc_of_frame[f];
}

/* Whether frame f is an inlined call ("_[i]", as profrec names them). */
static int is_inlined(const struct prof_stacks *t, uint32_t f)
{
	size_t len;
	const char *name = prof_stacks_frame_name(t, f, &len);

	return len > 4 && memcmp(name + len - 4, "_[i]", 4) == 0;
}

/*
 * The Location of frames f[0..n) (root first: a function and the calls
 * inlined into it) at address in mapping map: ids after every frame's
 * (nframes + 1 + index), made when new.
 */
static uint64_t address_location_of(struct writer *w, const uint32_t *f, uint32_t n,
				    uint64_t address, uint32_t map)
{
	size_t before = prof_intern_count(&w->at_locs);
	uint32_t k;

	prof_buf_reset(&w->key);
	prof_buf_add(&w->key, (const char *)&address, sizeof(address));
	prof_buf_add(&w->key, (const char *)&map, sizeof(map));
	prof_buf_add(&w->key, (const char *)f, n * sizeof(*f));
	k = prof_intern(&w->at_locs, w->key.data, w->key.len);
	if (k == before) {
		PROF_GROW(w->at_loc, before + 1, w->at_loc_cap);
		PROF_GROW(w->at_frames, w->at_frames_len + n, w->at_frames_cap);
		memcpy(w->at_frames + w->at_frames_len, f, n * sizeof(*f));
		w->at_loc[k] = (struct at_loc){ .map = map, .nframes = n, .off = w->at_frames_len,
						.address = address };
		w->at_frames_len += n;
	}
	return prof_intern_count(&w->p->t->frames) + 1 + (uint64_t)k;
}

/*
 * The locations (leaf first, into locs; their number returned) of
 * frames[0..depth) (root first) at the addresses of counter entry a: a
 * frame with an address and the inlined calls after it at the same one
 * share a Location (pprof's Lines), a frame without one has its name's.
 */
static size_t address_locations(struct writer *w, const uint32_t *frames, size_t depth,
				const struct prof_pprof_at *a, uint64_t *locs)
{
	const struct prof_pprof_addr *e = w->at->addrs + a->off;
	size_t n = 0, i, j;

	for (i = 0; i < depth; i = j) {
		j = i + 1;
		if (e[i].map == UINT32_MAX) {
			locs[n++] = location_of(w, frames[i]);
			continue;
		}
		while (j < depth && e[j].map == e[i].map && e[j].address == e[i].address &&
		       is_inlined(w->p->t, frames[j]))
			j++;
		locs[n++] = address_location_of(w, frames + i, (uint32_t)(j - i), e[i].address, e[i].map);
	}
	for (i = 0, j = n ? n - 1 : 0; i < j; i++, j--) {	/* leaf first */
		uint64_t t = locs[i];

		locs[i] = locs[j];
		locs[j] = t;
	}
	return n;
}

static void put_value_type(struct writer *w, uint32_t field, const char *type, const char *unit)
{
	prof_buf_reset(&w->sub);
	prof_pb_put_int(&w->sub, VT_TYPE, (int64_t)str_id(w, type));
	prof_pb_put_int(&w->sub, VT_UNIT, (int64_t)str_id(w, unit));
	prof_pb_put_bytes(&w->msg, field, w->sub.data, w->sub.len);
}

static void put_sample(struct writer *w, const uint64_t *locs, size_t depth, const uint64_t *values)
{
	prof_buf_reset(&w->sub);
	prof_pb_put_packed(&w->sub, S_LOCATION_ID, locs, depth);
	prof_pb_put_packed(&w->sub, S_VALUE, values, w->p->ntypes);
	prof_pb_put_bytes(&w->msg, P_SAMPLE, w->sub.data, w->sub.len);
}

/* The name locations of frames[0..depth) (root first), leaf first into locs. */
static void name_locations(struct writer *w, const uint32_t *frames, size_t depth, uint64_t *locs)
{
	for (size_t k = 0; k < depth; k++)
		locs[k] = location_of(w, frames[depth - 1 - k]);
}

/*
 * The Samples of stack id: one per set of addresses the counter saw,
 * then one at its name locations for what no address accounts for
 * (samples without a mapping, weights of other columns).
 */
static void put_address_samples(struct writer *w, uint32_t id, uint64_t *locs)
{
	const struct prof_pprof_profile *p = w->p;
	const prof_weight *wt = prof_stacks_weights(p->t, id);
	size_t depth, k, n;
	const uint32_t *frames = prof_stacks_frames(p->t, id, &depth);
	prof_weight rest[PROF_PPROF_MAX_TYPES];
	uint64_t values[PROF_PPROF_MAX_TYPES];
	uint32_t e;
	int any = 0;

	for (k = 0; k < p->ntypes; k++)
		rest[k] = wt[p->types[k].column];
	for (e = w->at_first[id]; e != UINT32_MAX; e = w->at_next[e]) {
		const struct prof_pprof_at *a = &w->at->at[e];

		for (k = 0; k < p->ntypes; k++) {
			prof_weight v = p->types[k].column == 0 ? a->w
				      : p->types[k].column == w->at->column ? (prof_weight)a->n : 0;

			values[k] = (uint64_t)pprof_value(v);
			rest[k] -= v;
		}
		n = address_locations(w, frames, depth, a, locs);
		put_sample(w, locs, n, values);
	}
	for (k = 0; k < p->ntypes; k++) {
		values[k] = (uint64_t)pprof_value(rest[k]);
		any |= values[k] != 0;
	}
	if (any) {
		name_locations(w, frames, depth, locs);
		put_sample(w, locs, depth, values);
	}
}

/* Sample messages of every stack with a value, into w->msg. */
static void put_samples(struct writer *w)
{
	const struct prof_pprof_profile *p = w->p;
	uint64_t *locs = NULL, values[PROF_PPROF_MAX_TYPES];
	size_t n, i, k, depth, cap = 0;
	uint32_t *ids = prof_stacks_sorted(p->t, &n);

	for (i = 0; i < n; i++) {
		const uint32_t *frames = prof_stacks_frames(p->t, ids[i], &depth);
		const prof_weight *wt = prof_stacks_weights(p->t, ids[i]);
		int any = 0;

		for (k = 0; k < p->ntypes; k++) {
			values[k] = (uint64_t)pprof_value(wt[p->types[k].column]);
			any |= values[k] != 0;
		}
		if (!any || !depth)
			continue;
		PROF_GROW(locs, depth, cap);
		if (w->at && w->at_first[ids[i]] != UINT32_MAX) {
			put_address_samples(w, ids[i], locs);
		} else {
			name_locations(w, frames, depth, locs);
			put_sample(w, locs, depth, values);
		}
	}
	free(locs);
	free(ids);
}

/* The leaf mapping collected for frame name, or NULL. */
static const struct prof_pprof_leaf *leaf_of(const struct prof_pprof_counter *c, const char *name,
					     size_t len)
{
	uint32_t k;

	if (!c || !c->maps_cap)
		return NULL;
	k = prof_intern_find(&c->leaf_names, name, len);
	return k == UINT32_MAX ? NULL : &c->leaves[k];
}

/* The Mappings of the leaf frames (ids: index + 1). */
static void put_mappings(struct writer *w)
{
	const struct prof_pprof_counter *c = w->p->addrs;
	size_t i;

	for (i = 0; c && c->maps_cap && i < prof_intern_count(&c->map_keys); i++) {
		const struct prof_pprof_mapping *m = &c->maps[i];

		prof_buf_reset(&w->sub);
		prof_pb_put_uint(&w->sub, M_ID, i + 1);
		prof_pb_put_uint(&w->sub, M_MEMORY_START, m->start);
		prof_pb_put_uint(&w->sub, M_MEMORY_LIMIT, m->limit);
		prof_pb_put_uint(&w->sub, M_FILE_OFFSET, m->pgoff);
		prof_pb_put_int(&w->sub, M_FILENAME, (int64_t)str_id(w, m->path));
		prof_pb_put_int(&w->sub, M_BUILD_ID, (int64_t)str_id(w, m->build_id));
		prof_pb_put_uint(&w->sub, M_HAS_FUNCTIONS, 1);
		prof_pb_put_bytes(&w->msg, P_MAPPING, w->sub.data, w->sub.len);
	}
}

/*
 * The function and line of frame name[0..len): "NAME FILE:LINE", an
 * annotation "_[x]" after it (profrec --lines), is line LINE of the
 * function NAME_[x] in FILE; another frame is its own function, line 0.
 * Returns the function id (made when new).
 */
static uint64_t function_line(struct writer *w, const char *name, size_t len, int64_t *line)
{
	size_t end = len, ann = 0, i, colon, file;

	*line = 0;
	if (len > 4 && name[len - 4] == '_' && name[len - 3] == '[' && name[len - 1] == ']')
		end = len - (ann = 4);
	for (i = end; i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9'; i--)
		;
	colon = i - 1;
	if (i < end && end - i <= 9 && i > 1 && name[colon] == ':') {
		for (file = colon; file > 0 && name[file - 1] != ' '; file--)
			;
		if (file > 1 && file < colon) {	/* "NAME FILE:LINE": both not empty */
			*line = strtoll(name + i, NULL, 10);
			w->lines = 1;
			prof_buf_reset(&w->key);
			prof_buf_add(&w->key, name, file - 1);
			prof_buf_add(&w->key, name + end, ann);
			prof_buf_addch(&w->key, '\n');
			prof_buf_add(&w->key, name + file, colon - file);
			return prof_intern(&w->funcs, w->key.data, w->key.len) + 1;
		}
	}
	prof_buf_reset(&w->key);
	prof_buf_add(&w->key, name, len);
	prof_buf_addch(&w->key, '\n');
	return prof_intern(&w->funcs, w->key.data, w->key.len) + 1;
}

/*
 * A Location: id, its mapping and address when known, a Line per frame
 * of f[0..n) (root first: written innermost first, as pprof wants).
 */
static void put_location(struct writer *w, uint64_t id, const uint32_t *f, uint32_t n,
			 uint64_t map_id, uint64_t address)
{
	struct prof_buf line = PROF_BUF_INIT, lines = PROF_BUF_INIT;
	const struct prof_pprof_lines_source *src = w->p->start_lines;
	unsigned first[16];
	size_t len, nfirst = 0;

	if (src && map_id && n <= 16)
		nfirst = src->decl_lines(src->ctx, &w->p->addrs->maps[map_id - 1], address, first, n);
	for (uint32_t i = n; i-- > 0;) {
		const char *name = prof_stacks_frame_name(w->p->t, f[i], &len);
		int64_t ln;
		uint64_t fn = function_line(w, name, len, &ln);

		if (fn > w->start_line_cap) {
			size_t old = w->start_line_cap;

			w->start_line_cap = fn * 2;
			w->start_line = xreallocarray(w->start_line, w->start_line_cap, sizeof(unsigned));
			memset(w->start_line + old, 0, (w->start_line_cap - old) * sizeof(unsigned));
		}
		if (nfirst == n && !w->start_line[fn - 1])
			w->start_line[fn - 1] = first[n - 1 - i];
		prof_buf_reset(&line);
		prof_pb_put_uint(&line, LN_FUNCTION_ID, fn);
		if (ln)
			prof_pb_put_int(&line, LN_LINE, ln);
		prof_pb_put_bytes(&lines, L_LINE, line.data, line.len);
	}
	prof_buf_reset(&w->sub);
	prof_pb_put_uint(&w->sub, L_ID, id);
	if (map_id) {
		prof_pb_put_uint(&w->sub, L_MAPPING_ID, map_id);
		prof_pb_put_uint(&w->sub, L_ADDRESS, address);
	}
	prof_buf_add(&w->sub, lines.data, lines.len);
	prof_pb_put_bytes(&w->msg, P_LOCATION, w->sub.data, w->sub.len);
	prof_buf_release(&line);
	prof_buf_release(&lines);
}

/*
 * The Locations: one per frame used (ids 1..nlocs), one per leaf address
 * sampled; then the Functions they name. Without per-address samples (a
 * transformed table), a frame sampled as a leaf in a file mapping has its
 * Location at the first address sampled in it.
 */
static void put_locations(struct writer *w)
{
	size_t i, len;

	for (i = 0; i < w->nlocs; i++) {
		const char *name = prof_stacks_frame_name(w->p->t, w->frame_of_loc[i], &len);
		/* the first address sampled in the frame, unless every leaf
		 * address has its own Location (then a caller has none) */
		const struct prof_pprof_leaf *leaf = w->at ? NULL : leaf_of(w->p->addrs, name, len);

		put_location(w, i + 1, &w->frame_of_loc[i], 1, leaf ? leaf->map + 1 : 0,
			     leaf ? leaf->address : 0);
	}
	for (i = 0; i < prof_intern_count(&w->at_locs); i++)
		put_location(w, prof_intern_count(&w->p->t->frames) + 1 + i,
			     w->at_frames + w->at_loc[i].off, w->at_loc[i].nframes,
			     w->at_loc[i].map + 1, w->at_loc[i].address);
	for (i = 0; i < prof_intern_count(&w->funcs); i++) {
		const char *key = prof_intern_str(&w->funcs, (uint32_t)i, &len);
		const char *nl = memchr(key, '\n', len);
		uint64_t s = prof_intern(&w->strings, key, (size_t)(nl - key));

		prof_buf_reset(&w->sub);
		prof_pb_put_uint(&w->sub, F_ID, i + 1);
		prof_pb_put_int(&w->sub, F_NAME, (int64_t)s);
		prof_pb_put_int(&w->sub, F_SYSTEM_NAME, (int64_t)s);
		if (nl + 1 < key + len)
			prof_pb_put_int(&w->sub, F_FILENAME, (int64_t)prof_intern(&w->strings, nl + 1,
							 (size_t)(key + len - nl - 1)));
		if (i < w->start_line_cap && w->start_line[i])
			prof_pb_put_int(&w->sub, F_START_LINE, w->start_line[i]);
		prof_pb_put_bytes(&w->msg, P_FUNCTION, w->sub.data, w->sub.len);
	}
}

/*
 * One string of the table. profile.proto's strings are proto3 strings:
 * protoc and python-protobuf refuse a whole profile holding one byte of
 * invalid UTF-8 (go tool pprof takes it). Names are bytes here (symbols
 * of any encoding): each byte that starts no valid sequence is written as
 * U+FFFD, as a decoder replaces it.
 */
static void put_string(struct writer *w, const char *s, size_t len)
{
	size_t i, n;

	if (prof_utf8_valid(s, len)) {
		prof_pb_put_bytes(&w->msg, P_STRING_TABLE, s, len);
		return;
	}
	prof_buf_reset(&w->sub);
	for (i = 0; i < len; i += n) {
		n = prof_utf8_seqlen((const unsigned char *)s + i, len - i);
		if (n) {
			prof_buf_add(&w->sub, s + i, n);
		} else {
			prof_buf_add(&w->sub, "\xef\xbf\xbd", 3);
			n = 1;
		}
	}
	prof_pb_put_bytes(&w->msg, P_STRING_TABLE, w->sub.data, w->sub.len);
}

/* The counter's (stack, address) entries as a list per stack, if it counted p->t. */
static void link_addresses(struct writer *w)
{
	const struct prof_pprof_counter *c = w->p->addrs;
	size_t n, i;

	if (!c || !c->maps_cap || c->t != w->p->t || !(n = prof_intern_count(&c->at_keys)))
		return;
	w->at = c;
	w->at_first = xmalloc((prof_stacks_count(w->p->t) + 1) * sizeof(*w->at_first));
	memset(w->at_first, 0xff, (prof_stacks_count(w->p->t) + 1) * sizeof(*w->at_first));
	w->at_next = xmalloc(n * sizeof(*w->at_next));
	for (i = n; i-- > 0;) {		/* pushed from the last: lists in entry order */
		w->at_next[i] = w->at_first[c->at[i].stack];
		w->at_first[c->at[i].stack] = (uint32_t)i;
	}
}

int prof_pprof_write(const struct prof_pprof_profile *p, struct prof_output *out)
{
	size_t nframes = prof_intern_count(&p->t->frames), i, len;
	struct writer w;
	int rc;

	memset(&w, 0, sizeof(w));
	w.p = p;
	prof_intern_init(&w.strings);
	prof_intern_init(&w.at_locs);
	prof_intern_init(&w.funcs);
	str_id(&w, "");		/* string 0 is always "" */
	w.loc_of_frame = xcalloc(nframes + 1, sizeof(*w.loc_of_frame));
	w.frame_of_loc = xcalloc(nframes + 1, sizeof(*w.frame_of_loc));
	link_addresses(&w);
	for (i = 0; i < p->ntypes; i++)
		put_value_type(&w, P_SAMPLE_TYPE, p->types[i].type, p->types[i].unit);
	put_samples(&w);
	put_mappings(&w);
	put_locations(&w);
	if (w.lines)
		prof_pb_put_int(&w.msg, P_COMMENT, (int64_t)str_id(&w, PROF_PPROF_LINES_COMMENT));
	if (p->time_nanos)
		prof_pb_put_int(&w.msg, P_TIME_NANOS, p->time_nanos);
	if (p->duration_nanos)
		prof_pb_put_int(&w.msg, P_DURATION_NANOS, p->duration_nanos);
	if (p->period_type)
		put_value_type(&w, P_PERIOD_TYPE, p->period_type, p->period_unit);
	if (p->period)
		prof_pb_put_int(&w.msg, P_PERIOD, p->period);
	if (p->default_type >= 0 && (size_t)p->default_type < p->ntypes)
		prof_pb_put_int(&w.msg, P_DEFAULT_SAMPLE_TYPE,
				(int64_t)str_id(&w, p->types[p->default_type].type));
	/* last: every string is interned by now */
	for (i = 0; i < prof_intern_count(&w.strings); i++) {
		const char *s = prof_intern_str(&w.strings, (uint32_t)i, &len);

		put_string(&w, s, len);
	}
	rc = prof_output_write(out, w.msg.data, w.msg.len);
	prof_intern_release(&w.strings);
	prof_intern_release(&w.at_locs);
	prof_intern_release(&w.funcs);
	free(w.loc_of_frame);
	free(w.frame_of_loc);
	free(w.at_first);
	free(w.at_next);
	free(w.at_loc);
	free(w.at_frames);
	free(w.start_line);
	prof_buf_release(&w.msg);
	prof_buf_release(&w.sub);
	prof_buf_release(&w.key);
	return rc < 0 ? -1 : 0;
}

char *prof_pprof_temp(const char *path)
{
	struct prof_buf b = PROF_BUF_INIT;
	int fd;

	prof_buf_addf(&b, "%s.XXXXXX.tsv", path);
	fd = mkstemps(b.data, 4);
	if (fd < 0) {
		prof_warn_errno("%s", prof_buf_cstr(&b));
		prof_buf_release(&b);
		return NULL;
	}
	close(fd);
	return prof_buf_detach(&b, NULL);
}

int prof_pprof_convert(const char *in, const char *out)
{
	return prof_pprof_convert_lines(in, out, NULL);
}

int prof_pprof_convert_lines(const char *in, const char *out,
			     const struct prof_pprof_lines_source *src)
{
	struct prof_profile_opts o;
	struct prof_stacks t;
	struct prof_meta meta = PROF_META_INIT;
	struct prof_pprof_counter c = { .t = &t, .column = 1 };
	struct prof_pprof_profile p;
	struct prof_output *o_out;
	int rc;

	prof_profile_opts_init(&o);
	o.on_sample = prof_pprof_on_sample;
	o.on_sample_ctx = &c;
	o.on_address = prof_pprof_on_address;
	o.on_address_ctx = &c;
	prof_stacks_init(&t, 2);	/* the weights, the samples */
	rc = prof_profile_read(in, &o, &t, &meta, NULL);
	prof_pprof_describe(&p, &t, &meta, 0, c.samples ? 1 : -1);
	p.duration_nanos = c.last_ns;
	p.addrs = &c;
	p.start_lines = src;
	o_out = prof_output_open(out, PROF_OUT_ATOMIC, PROF_COMP_GZIP);
	if (!o_out || prof_pprof_write(&p, o_out)) {
		if (o_out)
			prof_output_abort(o_out);
		rc = -1;
	} else if (prof_output_close(o_out)) {
		rc = -1;
	}
	prof_pprof_counter_release(&c);
	prof_stacks_release(&t);
	prof_meta_release(&meta);
	return rc;
}
