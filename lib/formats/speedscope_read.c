#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "base/xalloc.h"
#include "formats/import.h"
#include "formats/json.h"
#include "formats/speedscope_read.h"

/* The kinds of unit a profile may be in (one per input). */
enum unit_kind { UNIT_UNSET, UNIT_TIME, UNIT_BYTES, UNIT_NONE };

/* One speedscope file being read. */
struct ss {
	struct prof_import *imp;
	struct prof_json j;
	const char *text;
	size_t len;
	uint32_t *frame_ids;		/* shared.frames[i] -> frame id */
	size_t nframes;
	enum unit_kind kind;		/* of the first profile read */
	const char *unit_text;		/* its "unit", for messages */
	int has_root;			/* the profile's name is the root frame */
	uint32_t root;			/* its frame id */
	uint32_t *open;			/* evented: the frames open, root first */
	size_t nopen, open_cap;
};

int prof_speedscope_detect(const char *buf, size_t len)
{
	size_t i = 0;

	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
		i++;
	if (i >= len || buf[i] != '{')
		return 0;
	return memmem(buf, len, "speedscope.app/file-format-schema.json", 38) != NULL ||
	       (memmem(buf, len, "\"profiles\"", 10) && memmem(buf, len, "\"shared\"", 8));
}

/* Report a problem at value v: "name:line:column: PATH: what". */
static void bad(struct ss *s, size_t v, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void bad(struct ss *s, size_t v, const char *fmt, ...)
{
	struct prof_buf b = PROF_BUF_INIT;
	unsigned long line, col;
	va_list ap;

	va_start(ap, fmt);
	prof_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	prof_json_position(s->text, s->len, v < s->j.n ? s->j.v[v].offset : s->len, &line, &col);
	prof_import_bad(s->imp, line, col, "%s", prof_buf_cstr(&b));
	prof_buf_release(&b);
}

/* Member key of object v of type t (a number type accepts any number): its index, or 0. */
static size_t member(struct ss *s, size_t v, const char *key, enum prof_json_type t,
		     const char *path, int required)
{
	size_t m = prof_json_member(&s->j, v, key);

	if (!m) {
		if (required)
			bad(s, v, "%s: no \"%s\" member", path, key);
		return 0;
	}
	if (s->j.v[m].type != t) {
		bad(s, m, "%s.%s: expected %s, found %s", path, key, prof_json_type_name(t),
		    prof_json_type_name(s->j.v[m].type));
		return 0;
	}
	return m;
}

/* shared.frames: every frame's name interned once. */
static int read_frames(struct ss *s)
{
	size_t shared = member(s, 0, "shared", PROF_JSON_OBJECT, "file", 1), frames, f, i;
	char path[64];

	if (!shared || !(frames = member(s, shared, "frames", PROF_JSON_ARRAY, "shared", 1)))
		return -1;
	s->nframes = s->j.v[frames].count;
	s->frame_ids = xcalloc(s->nframes ? s->nframes : 1, sizeof(*s->frame_ids));
	for (i = 0, f = prof_json_first(frames); i < s->nframes; i++, f = prof_json_after(&s->j, f)) {
		size_t name;

		snprintf(path, sizeof(path), "shared.frames[%zu]", i);
		if (s->j.v[f].type != PROF_JSON_OBJECT) {
			bad(s, f, "%s: expected an object, found %s", path,
			    prof_json_type_name(s->j.v[f].type));
			return -1;
		}
		if (!(name = member(s, f, "name", PROF_JSON_STRING, path, 1)))
			return -1;
		s->frame_ids[i] = prof_import_intern(s->imp, s->j.v[name].str, s->j.v[name].len);
	}
	return 0;
}

/*
 * The profile's "unit": its factor to the input's unit (ns for times), or
 * 0 after reporting a unit unknown or of another kind than the first
 * profile's.
 */
static long double unit_factor(struct ss *s, size_t prof, const char *path)
{
	static const struct { const char *name; enum unit_kind kind; long double f; } units[] = {
		{ "nanoseconds", UNIT_TIME, 1 }, { "microseconds", UNIT_TIME, 1e3L },
		{ "milliseconds", UNIT_TIME, 1e6L }, { "seconds", UNIT_TIME, 1e9L },
		{ "bytes", UNIT_BYTES, 1 }, { "none", UNIT_NONE, 1 },
	};
	size_t u = member(s, prof, "unit", PROF_JSON_STRING, path, 1), i;

	if (!u)
		return 0;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(s->j.v[u].str, units[i].name) != 0)
			continue;
		if (s->kind == UNIT_UNSET) {
			s->kind = units[i].kind;
			s->unit_text = units[i].name;
		} else if (s->kind != units[i].kind) {
			bad(s, u, "%s.unit: \"%s\" cannot be added to the first profile's \"%s\": "
			    "profile skipped", path, units[i].name, s->unit_text);
			return 0;
		}
		return units[i].f;
	}
	bad(s, u, "%s.unit: unknown unit \"%s\" (nanoseconds, microseconds, milliseconds, "
	    "seconds, bytes or none)", path, s->j.v[u].str);
	return 0;
}

/* A frame index at value v: its frame id in *id, or -1 (reported). */
static int frame_at(struct ss *s, size_t v, const char *path, uint32_t *id)
{
	const struct prof_json_value *x = &s->j.v[v];

	/* the range first: converting a number out of it to size_t is undefined */
	if (x->type != PROF_JSON_NUMBER || !(x->num >= 0 && x->num < 4294967296.0L) ||
	    x->num != (long double)(size_t)x->num) {
		bad(s, v, "%s: expected a frame index, found %s", path,
		    x->type == PROF_JSON_NUMBER ? "a number that is not one" : prof_json_type_name(x->type));
		return -1;
	}
	if ((size_t)x->num >= s->nframes) {
		bad(s, v, "%s: frame index %zu out of range (%zu frames)", path, (size_t)x->num,
		    s->nframes);
		return -1;
	}
	*id = s->frame_ids[(size_t)x->num];
	return 0;
}

/* A weight or time at value v (a number, >= 0 for weights), or -1 (reported). */
static int number_at(struct ss *s, size_t v, const char *path, int nonneg, long double *out)
{
	const struct prof_json_value *x = &s->j.v[v];

	if (x->type != PROF_JSON_NUMBER || (nonneg && x->num < 0) || !isfinite(x->num)) {
		bad(s, v, "%s: expected a %snumber, found %s", path, nonneg ? "non-negative " : "",
		    x->type != PROF_JSON_NUMBER ? prof_json_type_name(x->type) :
		    isfinite(x->num) ? "a negative one" : "one out of range");
		return -1;
	}
	*out = x->num;
	return 0;
}

/*
 * A sampled profile: checked (add 0) or added (add 1) with weights times
 * factor. Returns 0, or -1 at its first problem (reported).
 */
static int sampled(struct ss *s, size_t prof, const char *path, long double factor, int add)
{
	size_t samples = member(s, prof, "samples", PROF_JSON_ARRAY, path, 1);
	size_t weights = prof_json_member(&s->j, prof, "weights"), st, w = 0, i, k, f;
	char p[96];
	uint32_t id;
	long double wt = 1;

	if (!samples)
		return -1;
	if (weights && !member(s, prof, "weights", PROF_JSON_ARRAY, path, 1))
		return -1;
	if (weights && s->j.v[weights].count != s->j.v[samples].count) {
		bad(s, weights, "%s.weights: %zu weights for %zu samples", path,
		    (size_t)s->j.v[weights].count, (size_t)s->j.v[samples].count);
		return -1;
	}
	if (weights)
		w = prof_json_first(weights);
	for (i = 0, st = prof_json_first(samples); i < s->j.v[samples].count;
	     i++, st = prof_json_after(&s->j, st)) {
		snprintf(p, sizeof(p), "%s.samples[%zu]", path, i);
		if (s->j.v[st].type != PROF_JSON_ARRAY) {
			bad(s, st, "%s: expected an array of frame indices, found %s", p,
			    prof_json_type_name(s->j.v[st].type));
			return -1;
		}
		if (weights) {
			snprintf(p, sizeof(p), "%s.weights[%zu]", path, i);
			if (number_at(s, w, p, 1, &wt))
				return -1;
			w = prof_json_after(&s->j, w);
		}
		if (add && s->has_root)
			prof_import_frame_id(s->imp, s->root);
		for (k = 0, f = prof_json_first(st); k < s->j.v[st].count; k++, f = prof_json_after(&s->j, f)) {
			snprintf(p, sizeof(p), "%s.samples[%zu][%zu]", path, i, k);
			if (frame_at(s, f, p, &id))
				return -1;
			if (add)
				prof_import_frame_id(s->imp, id);
		}
		if (add)
			prof_import_commit(s->imp, wt * factor, 0);
	}
	return 0;
}

/*
 * Add the stack open now (root first) with weight w; of a stack deeper
 * than PROF_STACKS_MAX_EXPANDED_DEPTH, only the innermost frames are
 * copied (prof_import_commit() cuts and counts it): nested events cost
 * that many frames each at most, not their depth.
 */
static void add_open(struct ss *s, long double w)
{
	size_t i = s->nopen > PROF_STACKS_MAX_EXPANDED_DEPTH ?
		   s->nopen - PROF_STACKS_MAX_EXPANDED_DEPTH - 1 : 0;

	if (!s->nopen || w <= 0)
		return;
	if (s->has_root && i == 0)
		prof_import_frame_id(s->imp, s->root);
	for (; i < s->nopen; i++)
		prof_import_frame_id(s->imp, s->open[i]);
	prof_import_commit(s->imp, w, 0);
}

/* One event, parsed. */
struct ev {
	int open;		/* "O" (else "C") */
	uint32_t id;		/* its frame */
	long double at;
};

/* Event i at value e: checked (its time not before prev unless first) into *ev. */
static int event_parse(struct ss *s, size_t e, const char *path, int first, long double prev,
		       struct ev *ev)
{
	size_t type, frame, atv;

	if (s->j.v[e].type != PROF_JSON_OBJECT) {
		bad(s, e, "%s: expected an object, found %s", path, prof_json_type_name(s->j.v[e].type));
		return -1;
	}
	if (!(type = member(s, e, "type", PROF_JSON_STRING, path, 1)))
		return -1;
	if (!(frame = prof_json_member(&s->j, e, "frame")) || !(atv = prof_json_member(&s->j, e, "at"))) {
		bad(s, e, "%s: an event needs \"type\", \"frame\" and \"at\"", path);
		return -1;
	}
	if (frame_at(s, frame, path, &ev->id) || number_at(s, atv, path, 0, &ev->at))
		return -1;
	if (!first && ev->at < prev) {
		bad(s, atv, "%s.at: events out of order (%Lg after %Lg)", path, ev->at, prev);
		return -1;
	}
	ev->open = strcmp(s->j.v[type].str, "O") == 0;
	if (!ev->open && strcmp(s->j.v[type].str, "C") != 0) {
		bad(s, type, "%s.type: expected \"O\" or \"C\", found \"%s\"", path, s->j.v[type].str);
		return -1;
	}
	return 0;
}

/* Open or close the event's frame; closing must close the innermost one. */
static int event_apply(struct ss *s, size_t e, const char *path, const struct ev *ev)
{
	if (ev->open) {
		if (s->nopen == s->open_cap) {
			s->open_cap = s->open_cap ? s->open_cap * 2 : 64;
			s->open = xreallocarray(s->open, s->open_cap, sizeof(*s->open));
		}
		s->open[s->nopen++] = ev->id;
		return 0;
	}
	if (!s->nopen || s->open[s->nopen - 1] != ev->id) {
		bad(s, e, "%s: closes a frame that is not the innermost open one (events not nested)",
		    path);
		return -1;
	}
	s->nopen--;
	return 0;
}

/*
 * An evented profile, checked (add 0) or added (add 1): each interval
 * between events adds its length times factor to the stack open in it;
 * frames still open at the end are closed at endValue.
 */
static int evented(struct ss *s, size_t prof, const char *path, long double factor, int add)
{
	size_t events = member(s, prof, "events", PROF_JSON_ARRAY, path, 1), e, i;
	size_t endv = prof_json_member(&s->j, prof, "endValue");
	long double prev = 0;
	struct ev ev;
	char p[96];

	if (!events)
		return -1;
	s->nopen = 0;
	for (i = 0, e = prof_json_first(events); i < s->j.v[events].count;
	     i++, e = prof_json_after(&s->j, e)) {
		snprintf(p, sizeof(p), "%s.events[%zu]", path, i);
		if (event_parse(s, e, p, i == 0, prev, &ev))
			return -1;
		if (add)
			add_open(s, (ev.at - prev) * factor);
		if (event_apply(s, e, p, &ev))
			return -1;
		prev = ev.at;
	}
	if (add && s->nopen && endv && s->j.v[endv].type == PROF_JSON_NUMBER)
		add_open(s, (s->j.v[endv].num - prev) * factor);
	return 0;
}

/* Profile i at value prof: checked, then added if it is right. */
static void profile(struct ss *s, size_t prof, size_t i)
{
	char path[48];
	size_t type, name;
	long double factor;
	int sampled_type;

	snprintf(path, sizeof(path), "profiles[%zu]", i);
	if (s->j.v[prof].type != PROF_JSON_OBJECT) {
		bad(s, prof, "%s: expected an object, found %s", path,
		    prof_json_type_name(s->j.v[prof].type));
		return;
	}
	if (!(type = member(s, prof, "type", PROF_JSON_STRING, path, 1)))
		return;
	sampled_type = strcmp(s->j.v[type].str, "sampled") == 0;
	if (!sampled_type && strcmp(s->j.v[type].str, "evented") != 0) {
		bad(s, type, "%s.type: expected \"sampled\" or \"evented\", found \"%s\"", path,
		    s->j.v[type].str);
		return;
	}
	if ((factor = unit_factor(s, prof, path)) == 0)
		return;
	/* --pid/--tid: the profile's name (a thread's, as proffold writes them) is the root */
	s->has_root = 0;
	if ((s->imp->include_pid || s->imp->include_tid) &&
	    (name = member(s, prof, "name", PROF_JSON_STRING, path, 0)) != 0) {
		s->root = prof_import_intern(s->imp, s->j.v[name].str, s->j.v[name].len);
		s->has_root = 1;
	}
	if (sampled_type ? sampled(s, prof, path, factor, 0) : evented(s, prof, path, factor, 0))
		return;
	if (sampled_type)
		sampled(s, prof, path, factor, 1);
	else
		evented(s, prof, path, factor, 1);
}

int prof_speedscope_read(struct prof_import *imp, char *buf, size_t len)
{
	struct ss s;
	size_t profiles, p, i;
	unsigned long line, col;

	memset(&s, 0, sizeof(s));
	s.imp = imp;
	s.text = buf;
	s.len = len;
	if (prof_json_parse(&s.j, buf, len)) {
		prof_json_position(buf, len, s.j.error_offset, &line, &col);
		prof_import_bad(imp, line, col, "%s (byte offset %zu)", s.j.error, s.j.error_offset);
		goto out;
	}
	if (s.j.v[0].type != PROF_JSON_OBJECT) {
		bad(&s, 0, "expected a speedscope file (an object), found %s",
		    prof_json_type_name(s.j.v[0].type));
		goto out;
	}
	if (read_frames(&s) || !(profiles = member(&s, 0, "profiles", PROF_JSON_ARRAY, "file", 1)))
		goto out;
	for (i = 0, p = prof_json_first(profiles); i < s.j.v[profiles].count;
	     i++, p = prof_json_after(&s.j, p))
		profile(&s, p, i);
	if (s.kind != UNIT_UNSET)
		prof_meta_set(&imp->meta, "unit", imp->counts || s.kind == UNIT_NONE ? "samples" :
			      s.kind == UNIT_TIME ? "ns" : "bytes");
out:
	prof_meta_set(&imp->meta, "source", "speedscope");
	prof_json_release(&s.j);
	free(s.frame_ids);
	free(s.open);
	return imp->malformed ? -1 : 0;
}
