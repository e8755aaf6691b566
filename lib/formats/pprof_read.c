/*
 * Folding a pprof Profile message into a stack table (pprof.h): a first
 * walk over the message collects the string table, sample types,
 * functions, locations and mappings wherever they are (protobuf fields
 * come in any order), every location is turned once into its frames, and
 * a second walk folds the samples.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "base/buf.h"
#include "base/error.h"
#include "base/hashmap.h"
#include "base/xalloc.h"
#include "formats/import.h"
#include "formats/pprof.h"
#include "formats/protobuf.h"

enum {
	P_SAMPLE_TYPE = 1, P_SAMPLE = 2, P_MAPPING = 3, P_LOCATION = 4, P_FUNCTION = 5,
	P_STRING_TABLE = 6, P_TIME_NANOS = 9, P_DURATION_NANOS = 10, P_COMMENT = 13,
	P_DEFAULT_SAMPLE_TYPE = 14,
	VT_TYPE = 1, VT_UNIT = 2,
	S_LOCATION_ID = 1, S_VALUE = 2,
	L_ID = 1, L_ADDRESS = 3, L_LINE = 4,
	LN_FUNCTION_ID = 1, LN_LINE = 2,
	F_ID = 1, F_NAME = 2, F_SYSTEM_NAME = 3, F_FILENAME = 4,
};

struct str {
	const char *p;
	size_t len;
};

struct value_type {
	uint64_t type, unit;
	size_t at;
};

struct function {
	uint64_t name, system_name, filename;
	size_t at;			/* offset, for errors */
};

/* A location: its lines' function ids, then (resolved) its frames in t. */
struct location {
	uint64_t address;
	size_t first_line, nlines;	/* in lines[] */
	size_t first_frame, nframes;	/* in frames[] */
	size_t at;
};

/* One prof_pprof_read(). */
struct pread {
	const char *name;
	const struct prof_pprof_read_opts *opts;
	struct prof_stacks *t;
	struct prof_pb_reader top;
	struct str *strs;
	size_t nstrs, strs_cap;
	struct value_type *types;
	size_t ntypes, types_cap;
	struct prof_hashmap functions;	/* id -> struct function */
	struct prof_hashmap locations;	/* id -> struct location */
	struct line { uint64_t function; int64_t line; } *lines;	/* every location's lines */
	size_t nlines, lines_cap;
	uint64_t *comments;		/* string indices */
	size_t ncomments, comments_cap;
	int name_lines;			/* frames are "NAME FILE:LINE" (PROF_PPROF_LINES_COMMENT) */
	struct prof_buf frame;		/* one such frame being made */
	uint32_t *frames;		/* frame ids of every location, root first */
	size_t nframes, frames_cap;
	uint64_t default_type;
	int64_t time_nanos, duration_nanos;
	/* a sample being read */
	uint64_t *ids, *values;
	size_t nids, ids_cap, nvalues, values_cap;
	uint32_t *stack;
	size_t stack_cap;
	unsigned long negative;
	unsigned long cut;		/* stacks cut to PROF_STACKS_MAX_EXPANDED_DEPTH */
};

static int error_at(struct pread *rd, size_t at, const char *what)
{
	prof_warn("%s: byte %zu: %s", rd->name, at, what);
	return -1;
}

static int pb_error(struct pread *rd, const struct prof_pb_reader *r)
{
	return error_at(rd, r->error_at, r->error);
}

/* Field f of message kind what must be length-delimited. */
static int need_len(struct pread *rd, const struct prof_pb_field *f, const char *what)
{
	char msg[96];

	if (f->wire == PROF_PB_LEN)
		return 0;
	snprintf(msg, sizeof(msg), "%s (field %" PRIu32 ") is not length-delimited", what, f->number);
	return error_at(rd, f->offset, msg);
}

/*
 * Read the varint fields of a small message into vals[number] (numbers
 * below n; others skipped); len_field (if nonzero) is handed to on_len.
 */
static int read_small(struct pread *rd, const struct prof_pb_field *m, uint64_t *vals, size_t n,
		      uint32_t len_field, int (*on_len)(struct pread *, const struct prof_pb_field *))
{
	struct prof_pb_reader r;
	struct prof_pb_field f;
	int k;

	memset(vals, 0, n * sizeof(*vals));
	prof_pb_reader_sub(m, &r);
	while ((k = prof_pb_next(&r, &f)) > 0) {
		if (len_field && f.number == len_field && f.wire == PROF_PB_LEN) {
			if (on_len(rd, &f) < 0)
				return -1;
		} else if (f.number < n && f.wire == PROF_PB_VARINT) {
			vals[f.number] = f.value;
		}
	}
	return k < 0 ? pb_error(rd, &r) : 0;
}

static int add_line(struct pread *rd, const struct prof_pb_field *f)
{
	uint64_t v[LN_LINE + 1];

	if (read_small(rd, f, v, LN_LINE + 1, 0, NULL) < 0)
		return -1;
	PROF_GROW(rd->lines, rd->nlines + 1, rd->lines_cap);
	rd->lines[rd->nlines].function = v[LN_FUNCTION_ID];
	rd->lines[rd->nlines++].line = (int64_t)v[LN_LINE];
	return 0;
}

static void push_comment(void *ctx, uint64_t v)
{
	struct pread *rd = ctx;

	PROF_GROW(rd->comments, rd->ncomments + 1, rd->comments_cap);
	rd->comments[rd->ncomments++] = v;
}

/* One top-level field of the first walk. */
static int collect(struct pread *rd, const struct prof_pb_field *f)
{
	uint64_t v[F_FILENAME + 1];
	int added;

	switch (f->number) {
	case P_SAMPLE_TYPE:
		if (need_len(rd, f, "sample_type") || read_small(rd, f, v, VT_UNIT + 1, 0, NULL))
			return -1;
		PROF_GROW(rd->types, rd->ntypes + 1, rd->types_cap);
		rd->types[rd->ntypes].at = f->offset;
		rd->types[rd->ntypes].type = v[VT_TYPE];
		rd->types[rd->ntypes++].unit = v[VT_UNIT];
		return 0;
	case P_FUNCTION: {
		struct function *fn;

		if (need_len(rd, f, "function") || read_small(rd, f, v, F_FILENAME + 1, 0, NULL))
			return -1;
		fn = prof_hashmap_put(&rd->functions, v[F_ID], &added);
		fn->name = v[F_NAME];
		fn->system_name = v[F_SYSTEM_NAME];
		fn->filename = v[F_FILENAME];
		fn->at = f->offset;
		return 0;
	}
	case P_LOCATION: {
		struct location *loc;
		size_t first = rd->nlines;

		if (need_len(rd, f, "location") ||
		    read_small(rd, f, v, L_ADDRESS + 1, L_LINE, add_line))
			return -1;
		loc = prof_hashmap_put(&rd->locations, v[L_ID], &added);
		if (!added)
			return error_at(rd, f->offset, "location id defined twice");
		loc->address = v[L_ADDRESS];
		loc->first_line = first;
		loc->nlines = rd->nlines - first;
		loc->at = f->offset;
		return 0;
	}
	case P_STRING_TABLE:
		if (need_len(rd, f, "string_table"))
			return -1;
		PROF_GROW(rd->strs, rd->nstrs + 1, rd->strs_cap);
		rd->strs[rd->nstrs].p = (const char *)f->bytes;
		rd->strs[rd->nstrs++].len = f->len;
		return 0;
	case P_DEFAULT_SAMPLE_TYPE:
		rd->default_type = f->value;
		return 0;
	case P_TIME_NANOS:
		rd->time_nanos = (int64_t)f->value;
		return 0;
	case P_DURATION_NANOS:
		rd->duration_nanos = (int64_t)f->value;
		return 0;
	case P_COMMENT: {	/* repeated int64: one varint, or packed */
		struct prof_pb_reader r;

		prof_pb_reader_sub(f, &r);	/* errors only: f is top-level */
		return prof_pb_repeated(&r, f, push_comment, rd) < 0 ? pb_error(rd, &r) : 0;
	}
	default:	/* samples come in the second walk; the rest is not needed */
		return 0;
	}
}

/* String s of the table, or NULL (reported at offset at) when out of range. */
static const struct str *string_at(struct pread *rd, uint64_t s, size_t at)
{
	if (s < rd->nstrs)
		return &rd->strs[s];
	error_at(rd, at, "string index out of range of the string table");
	return NULL;
}

/*
 * The frame of one Line: its function's name; in a profile written from
 * profrec --lines frames, "NAME FILE:LINE" as they were (an annotation
 * "_[x]" of the function's name after it).
 */
static int line_frame(struct pread *rd, const struct line *ln, size_t at, uint32_t *frame)
{
	const struct function *fn = prof_hashmap_get(&rd->functions, ln->function);
	const struct str *name, *sys, *file;

	if (!fn)
		return error_at(rd, at, "location line names an undefined function id");
	name = &rd->strs[fn->name];	/* in range: check_strings() */
	sys = &rd->strs[fn->system_name];
	file = &rd->strs[fn->filename];
	if (!name->len)
		name = sys;
	if (rd->name_lines && ln->line > 0 && file->len && name->len) {
		size_t ann = name->len > 4 && name->p[name->len - 4] == '_' && name->p[name->len - 3] == '[' &&
			     name->p[name->len - 1] == ']' ? 4 : 0;

		prof_buf_reset(&rd->frame);
		prof_buf_add(&rd->frame, name->p, name->len - ann);
		prof_buf_addch(&rd->frame, ' ');
		prof_buf_add(&rd->frame, file->p, file->len);
		prof_buf_addf(&rd->frame, ":%" PRId64, ln->line);
		prof_buf_add(&rd->frame, name->p + name->len - ann, ann);
		*frame = prof_import_frame_in(rd->t, rd->frame.data, rd->frame.len);
		return 0;
	}
	*frame = name->len ? prof_import_frame_in(rd->t, name->p, name->len)
			   : prof_stacks_frame(rd->t, "[unknown]", 9);
	return 0;
}

/* Every location's frames, root first: lines from the last (the caller). */
static int resolve_locations(struct pread *rd)
{
	size_t i, j;
	char addr[24];

	for (i = 0; i < prof_hashmap_count(&rd->locations); i++) {
		struct location *loc = prof_hashmap_at(&rd->locations, i, NULL);

		loc->first_frame = rd->nframes;
		PROF_GROW(rd->frames, rd->nframes + loc->nlines + 1, rd->frames_cap);
		for (j = loc->nlines; j-- > 0;)
			if (line_frame(rd, &rd->lines[loc->first_line + j], loc->at,
				       &rd->frames[rd->nframes++]) < 0)
				return -1;
		if (!loc->nlines) {
			int n = snprintf(addr, sizeof(addr), "0x%" PRIx64, loc->address);

			rd->frames[rd->nframes++] = loc->address ? prof_stacks_frame(rd->t, addr, (size_t)n)
								: prof_stacks_frame(rd->t, "[unknown]", 9);
		}
		loc->nframes = rd->nframes - loc->first_frame;
	}
	return 0;
}

static int str_is(const struct pread *rd, uint64_t s, const char *want)
{
	return s < rd->nstrs && rd->strs[s].len == strlen(want) &&
	       memcmp(rd->strs[s].p, want, rd->strs[s].len) == 0;
}

/* The sample type named name, or its proftools event alias; -1 if none. */
static long type_named(const struct pread *rd, const char *name)
{
	const char *alias = strcmp(name, "cpu-clock") == 0 || strcmp(name, "task-clock") == 0 ? "cpu"
			    : strcmp(name, "offcpu-time") == 0 ? "off_cpu" : NULL;
	size_t i;

	for (i = 0; i < rd->ntypes; i++)
		if (str_is(rd, rd->types[i].type, name))
			return (long)i;
	for (i = 0; alias && i < rd->ntypes; i++)
		if (str_is(rd, rd->types[i].type, alias))
			return (long)i;
	return -1;
}

/* The index of the sample type folded (pprof.h), or -1 after reporting. */
static long choose_type(struct pread *rd)
{
	const char *want = rd->opts->type;
	struct prof_buf names = PROF_BUF_INIT;
	size_t i;
	long k;

	if (!rd->ntypes) {
		prof_warn("%s: the profile has no sample type", rd->name);
		return -1;
	}
	if (rd->opts->counts && (k = type_named(rd, "samples")) >= 0)
		return k;
	if (!want || !*want) {
		for (i = 0; rd->default_type && i < rd->ntypes; i++)
			if (rd->types[i].type == rd->default_type)
				return (long)i;
		return (long)rd->ntypes - 1;
	}
	if ((k = type_named(rd, want)) >= 0)
		return k;
	for (i = 0; i < rd->ntypes; i++) {
		const struct str *s = rd->types[i].type < rd->nstrs ? &rd->strs[rd->types[i].type] : NULL;

		prof_buf_addf(&names, "%s%.*s", i ? ", " : "", s ? (int)s->len : 1, s ? s->p : "?");
	}
	prof_warn("%s: no sample type '%s' in the profile (it has: %s)", rd->name, want,
		  prof_buf_cstr(&names));
	prof_buf_release(&names);
	return -1;
}

static void push_id(void *ctx, uint64_t v)
{
	struct pread *rd = ctx;

	PROF_GROW(rd->ids, rd->nids + 1, rd->ids_cap);
	rd->ids[rd->nids++] = v;
}

static void push_value(void *ctx, uint64_t v)
{
	struct pread *rd = ctx;

	PROF_GROW(rd->values, rd->nvalues + 1, rd->values_cap);
	rd->values[rd->nvalues++] = v;
}

/* Fold one Sample message (value vi, or 1 when vi < 0). */
static int fold_sample(struct pread *rd, const struct prof_pb_field *m, long vi)
{
	struct prof_pb_reader r;
	struct prof_pb_field f;
	size_t depth = 0, i;
	int cut = 0;
	prof_weight w;
	uint32_t id;
	int k;

	rd->nids = rd->nvalues = 0;
	prof_pb_reader_sub(m, &r);
	while ((k = prof_pb_next(&r, &f)) > 0) {
		if ((f.number == S_LOCATION_ID && prof_pb_repeated(&r, &f, push_id, rd) < 0) ||
		    (f.number == S_VALUE && prof_pb_repeated(&r, &f, push_value, rd) < 0))
			return pb_error(rd, &r);
	}
	if (k < 0)
		return pb_error(rd, &r);
	if (rd->nvalues != rd->ntypes)
		return error_at(rd, m->offset, "sample has not one value per sample type");
	if (vi >= 0 && (int64_t)rd->values[vi] < 0) {
		rd->negative++;
		return 0;
	}
	/*
	 * Built from the leaf (the first location) towards the root, at the
	 * end of the buffer, so that a stack deeper than the cap keeps its
	 * innermost frames without ever being built whole (core/stack.h).
	 */
	PROF_GROW(rd->stack, PROF_STACKS_MAX_EXPANDED_DEPTH, rd->stack_cap);
	for (i = 0; i < rd->nids; i++) {
		const struct location *loc = prof_hashmap_get(&rd->locations, rd->ids[i]);
		size_t n;

		if (!loc)
			return error_at(rd, m->offset, "sample names an undefined location id");
		n = loc->nframes;
		if (depth + n > PROF_STACKS_MAX_EXPANDED_DEPTH) {
			n = PROF_STACKS_MAX_EXPANDED_DEPTH - depth;
			cut = 1;
		}
		memcpy(rd->stack + PROF_STACKS_MAX_EXPANDED_DEPTH - depth - n,
		       rd->frames + loc->first_frame + loc->nframes - n, n * sizeof(*rd->stack));
		depth += n;
	}
	rd->cut += (unsigned long)cut;
	w = vi >= 0 ? (prof_weight)(int64_t)rd->values[vi] : 1;
	id = prof_stacks_add_columns(rd->t, rd->stack + PROF_STACKS_MAX_EXPANDED_DEPTH - depth, depth,
				     &w, 1);
	if (rd->opts->on_stack)
		rd->opts->on_stack(rd->opts->on_stack_ctx, id, &w, 1);
	return 0;
}

/* One walk over the top-level fields, handing each to fn (NULL: samples). */
static int walk(struct pread *rd, long vi, int (*fn)(struct pread *, const struct prof_pb_field *))
{
	struct prof_pb_reader r = rd->top;
	struct prof_pb_field f;
	int k;

	while ((k = prof_pb_next(&r, &f)) > 0) {
		if (fn ? fn(rd, &f) < 0
		       : f.number == P_SAMPLE && (need_len(rd, &f, "sample") || fold_sample(rd, &f, vi) < 0))
			return -1;
	}
	return k < 0 ? pb_error(rd, &r) : 0;
}

/* The proftools unit of sample type k (pprof.h). */
static void set_meta(struct pread *rd, long k, struct prof_meta *meta)
{
	const struct str *type = &rd->strs[rd->types[k].type], *unit = &rd->strs[rd->types[k].unit];
	char *t = xstrndup(type->p, type->len), *u = xstrndup(unit->p, unit->len);
	size_t n = strlen(t);

	prof_meta_set(meta, "source", "pprof");
	prof_meta_set(meta, "event", t);
	if (rd->opts->counts || strcmp(t, "samples") == 0)
		prof_meta_set(meta, "unit", "samples");
	else if (strcmp(u, "nanoseconds") == 0)
		prof_meta_set(meta, "unit", "ns");
	else if (strcmp(u, "count") == 0)
		prof_meta_set(meta, "unit", n > 8 && strcmp(t + n - 8, "_objects") == 0 ? "allocations" : t);
	else
		prof_meta_set(meta, "unit", u);
	if (rd->time_nanos > 0) {
		time_t secs = (time_t)(rd->time_nanos / 1000000000);
		struct tm tm;
		char when[64];

		gmtime_r(&secs, &tm);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
		prof_meta_set(meta, "start_time", when);
		/* The profile's interval, as profrec --rotate's files give
		 * theirs (what proftools-push sends as from and until). */
		if (rd->duration_nanos > 0 && rd->duration_nanos <= INT64_MAX - rd->time_nanos) {
			prof_meta_setf(meta, "from", "%" PRId64 ".%03d", rd->time_nanos / 1000000000,
				       (int)(rd->time_nanos % 1000000000 / 1000000));
			prof_meta_setf(meta, "until", "%" PRId64 ".%03d",
				       (rd->time_nanos + rd->duration_nanos) / 1000000000,
				       (int)((rd->time_nanos + rd->duration_nanos) % 1000000000 / 1000000));
		}
	}
	free(t);
	free(u);
}

static void pread_release(struct pread *rd)
{
	free(rd->strs);
	free(rd->types);
	prof_hashmap_release(&rd->functions);
	prof_hashmap_release(&rd->locations);
	free(rd->lines);
	free(rd->comments);
	prof_buf_release(&rd->frame);
	free(rd->frames);
	free(rd->ids);
	free(rd->values);
	free(rd->stack);
}

/* The string indices of the sample types and functions must be in the table. */
static int check_strings(struct pread *rd)
{
	size_t i;

	for (i = 0; i < rd->ntypes; i++)
		if (!string_at(rd, rd->types[i].type, rd->types[i].at) ||
		    !string_at(rd, rd->types[i].unit, rd->types[i].at))
			return -1;
	for (i = 0; i < prof_hashmap_count(&rd->functions); i++) {
		const struct function *fn = prof_hashmap_at(&rd->functions, i, NULL);

		if (!string_at(rd, fn->name, fn->at) || !string_at(rd, fn->system_name, fn->at) ||
		    !string_at(rd, fn->filename, fn->at))
			return -1;
	}
	for (i = 0; i < rd->ncomments; i++)
		if (rd->comments[i] < rd->nstrs &&
		    rd->strs[rd->comments[i]].len == strlen(PROF_PPROF_LINES_COMMENT) &&
		    !memcmp(rd->strs[rd->comments[i]].p, PROF_PPROF_LINES_COMMENT, strlen(PROF_PPROF_LINES_COMMENT)))
			rd->name_lines = 1;
	return 0;
}

int prof_pprof_read(const void *data, size_t len, const char *name,
		    const struct prof_pprof_read_opts *opts, struct prof_stacks *t,
		    struct prof_meta *meta)
{
	struct pread rd;
	long k;
	int rc = -1;

	memset(&rd, 0, sizeof(rd));
	rd.name = name;
	rd.opts = opts;
	rd.t = t;
	prof_pb_reader_init(&rd.top, data, len);
	prof_hashmap_init(&rd.functions, sizeof(struct function));
	prof_hashmap_init(&rd.locations, sizeof(struct location));
	if (walk(&rd, -1, collect) < 0 || check_strings(&rd) < 0 || resolve_locations(&rd) < 0 ||
	    (k = choose_type(&rd)) < 0)
		goto out;
	/* --counts: the "samples" type if there is one (choose_type), else 1 per sample */
	rc = walk(&rd, opts->counts && !str_is(&rd, rd.types[k].type, "samples") ? -1 : k, NULL);
	if (rd.cut)
		prof_warn("%s: %lu stack%s deeper than %d frames cut to %s innermost %d", name,
			  rd.cut, rd.cut == 1 ? "" : "s", PROF_STACKS_MAX_EXPANDED_DEPTH,
			  rd.cut == 1 ? "its" : "their", PROF_STACKS_MAX_EXPANDED_DEPTH);
	if (rd.negative) {
		prof_warn("%s: %lu sample%s with a negative value left out", name, rd.negative,
			  rd.negative == 1 ? "" : "s");
		rc = -1;
	}
	set_meta(&rd, k, meta);
out:
	pread_release(&rd);
	return rc;
}

/* The wire type each Profile field has (profile.proto); -1: not a field of it. */
static int profile_wire(uint32_t number)
{
	switch (number) {
	case P_SAMPLE_TYPE: case P_SAMPLE: case P_MAPPING: case P_LOCATION: case P_FUNCTION:
	case P_STRING_TABLE: case 11:	/* period_type */
		return PROF_PB_LEN;
	case 7: case 8: case P_TIME_NANOS: case P_DURATION_NANOS: case 12: case P_DEFAULT_SAMPLE_TYPE: case 15:
		return PROF_PB_VARINT;
	case 13:	/* comment: repeated int64, packed or not */
		return -2;
	default:
		return -1;
	}
}

int prof_pprof_detect(const char *buf, size_t len, int complete)
{
	struct prof_pb_reader r;
	struct prof_pb_field f;
	size_t i, nfields = 0;
	int k, binary = 0;

	for (i = 0; i < len && !binary; i++) {
		unsigned char c = (unsigned char)buf[i];

		binary = c < 0x20 && c != '\t' && c != '\n' && c != '\r';
	}
	if (!binary)
		return 0;
	prof_pb_reader_init(&r, buf, len);
	while ((k = prof_pb_next(&r, &f)) > 0) {
		int want = profile_wire(f.number);

		if (want == -1 || (want >= 0 && (int)f.wire != want) ||
		    (want == -2 && f.wire != PROF_PB_LEN && f.wire != PROF_PB_VARINT))
			return 0;
		nfields++;
	}
	/*
	 * A field cut by the end of the window is fine when there is more;
	 * a whole input cut short after two good fields is a truncated
	 * profile (its reader says where), not text.
	 */
	if (k < 0 && strncmp(r.error, "truncated", 9) != 0)
		return 0;
	return k < 0 && complete ? nfields >= 2 : nfields > 0;
}
