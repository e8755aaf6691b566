#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "base/escape.h"
#include "base/xalloc.h"
#include "core/meta.h"
#include "formats/folded.h"
#include "formats/profile.h"
#include "formats/speedscope.h"
#include "io/output.h"

/* A stack of the document: its id and the profile it belongs to. */
struct entry {
	uint32_t id;
	uint32_t profile;	/* index of its root among the roots, or 0 */
	size_t order;		/* position in folded text order (keeps sorting stable) */
};

static int by_profile(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->profile != y->profile)
		return x->profile < y->profile ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

int prof_speedscope_name(const char *path)
{
	size_t n = path ? strlen(path) : 0;

	return n > 16 && strcmp(path + n - 16, ".speedscope.json") == 0;
}

static const char *value_unit(const char *unit)
{
	if (unit && strcmp(unit, "ns") == 0)
		return "nanoseconds";
	if (unit && strcmp(unit, "bytes") == 0)
		return "bytes";
	return "none";
}

static void add_string(struct prof_buf *b, const char *s, size_t len)
{
	prof_buf_addch(b, '"');
	prof_json_escape(b, s, len);
	prof_buf_addch(b, '"');
}

/*
 * The stacks written, grouped by profile; the root frame id of each
 * profile in *roots (split_roots) and their number in *nprofiles.
 */
static struct entry *entries(const struct prof_stacks *t, const struct prof_speedscope_opts *o,
			     size_t *n, uint32_t **roots, size_t *nprofiles)
{
	size_t nsorted, i, depth, nr = 0, cap = 0;
	uint32_t *ids = prof_stacks_sorted(t, &nsorted);
	uint32_t *root_index = xcalloc(prof_intern_count(&t->frames) + 1, sizeof(*root_index));
	struct entry *e = xcalloc(nsorted + 1, sizeof(*e));

	*roots = NULL;
	*n = 0;
	for (i = 0; i < nsorted; i++) {
		const uint32_t *frames = prof_stacks_frames(t, ids[i], &depth);

		if (!(prof_stacks_weights(t, ids[i])[o->column] > 0))
			continue;
		e[*n].id = ids[i];
		e[*n].order = i;
		if (o->split_roots && depth) {
			if (!root_index[frames[0]]) {
				PROF_GROW(*roots, nr + 1, cap);
				(*roots)[nr++] = frames[0];
				root_index[frames[0]] = (uint32_t)nr;
			}
			e[*n].profile = root_index[frames[0]] - 1;
		}
		(*n)++;
	}
	qsort(e, *n, sizeof(*e), by_profile);
	*nprofiles = o->split_roots ? nr : 1;
	free(root_index);
	free(ids);
	return e;
}

/* The shared frames: every frame used (from skip), numbered in *index (+1). */
static void put_frames(const struct prof_stacks *t, const struct entry *e, size_t n,
		       size_t skip, uint32_t *index, struct prof_buf *b)
{
	size_t i, k, depth, len, next = 0;

	prof_buf_addstr(b, "\"shared\":{\"frames\":[");
	for (i = 0; i < n; i++) {
		const uint32_t *frames = prof_stacks_frames(t, e[i].id, &depth);

		for (k = skip; k < depth; k++) {
			const char *name;

			if (index[frames[k]])
				continue;
			index[frames[k]] = (uint32_t)++next;
			name = prof_stacks_frame_name(t, frames[k], &len);
			prof_buf_addstr(b, next > 1 ? ",{\"name\":" : "{\"name\":");
			add_string(b, name, len);
			prof_buf_addch(b, '}');
		}
	}
	prof_buf_addstr(b, "]},");
}

/* One sampled profile: entries e[0..n), all of one profile. */
static void put_profile(const struct prof_stacks *t, const struct prof_speedscope_opts *o,
			const struct entry *e, size_t n, const uint32_t *index, const char *name,
			size_t name_len, struct prof_buf *b)
{
	size_t i, k, depth, skip = o->split_roots ? 1 : 0;
	prof_weight total = 0;
	char num[64];

	for (i = 0; i < n; i++)
		prof_weight_add(&total, prof_stacks_weights(t, e[i].id)[o->column]);
	prof_buf_addstr(b, "{\"type\":\"sampled\",\"name\":");
	add_string(b, name, name_len);
	prof_buf_addf(b, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":", value_unit(o->unit));
	prof_buf_add(b, num, prof_format_count(num, total));
	prof_buf_addstr(b, ",\"samples\":[");
	for (i = 0; i < n; i++) {
		const uint32_t *frames = prof_stacks_frames(t, e[i].id, &depth);

		prof_buf_addstr(b, i ? ",[" : "[");
		for (k = skip; k < depth; k++)
			prof_buf_addf(b, "%s%u", k > skip ? "," : "", index[frames[k]] - 1);
		prof_buf_addch(b, ']');
	}
	prof_buf_addstr(b, "],\"weights\":[");
	for (i = 0; i < n; i++) {
		if (i)
			prof_buf_addch(b, ',');
		prof_buf_add(b, num, prof_format_count(num, prof_stacks_weights(t, e[i].id)[o->column]));
	}
	prof_buf_addstr(b, "]}");
}

int prof_speedscope_write(const struct prof_stacks *t, const struct prof_speedscope_opts *o,
			  struct prof_output *out)
{
	struct prof_buf b = PROF_BUF_INIT;
	const char *doc = o->name ? o->name : "proftools";
	uint32_t *roots, *index = xcalloc(prof_intern_count(&t->frames) + 1, sizeof(*index));
	size_t n, nprofiles, p, i = 0, len;
	struct entry *e = entries(t, o, &n, &roots, &nprofiles);
	int rc;

	prof_buf_addstr(&b, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",");
	put_frames(t, e, n, o->split_roots ? 1 : 0, index, &b);
	prof_buf_addstr(&b, "\"profiles\":[");
	for (p = 0; p < nprofiles; p++) {
		size_t start = i;
		const char *name = doc;

		while (i < n && e[i].profile == p)
			i++;
		len = strlen(doc);
		if (o->split_roots)
			name = prof_stacks_frame_name(t, roots[p], &len);
		if (p)
			prof_buf_addch(&b, ',');
		put_profile(t, o, e + start, i - start, index, name, len, &b);
	}
	prof_buf_addstr(&b, "],\"name\":");
	add_string(&b, doc, strlen(doc));
	prof_buf_addf(&b, ",\"activeProfileIndex\":0,\"exporter\":\"proftools\"}\n");
	rc = prof_output_write(out, b.data, b.len);
	prof_buf_release(&b);
	free(e);
	free(roots);
	free(index);
	return rc < 0 ? -1 : 0;
}

int prof_speedscope_convert(const char *in, const char *out)
{
	struct prof_profile_opts o;
	struct prof_stacks t;
	struct prof_meta meta = PROF_META_INIT;
	struct prof_output *o_out;
	int rc;

	prof_profile_opts_init(&o);
	o.include_tid = 1;	/* roots "comm-PID/TID": a profile per thread */
	prof_stacks_init(&t, 1);
	rc = prof_profile_read(in, &o, &t, &meta, NULL);
	struct prof_speedscope_opts so = {
		.name = out, .unit = prof_meta_get(&meta, "unit"), .split_roots = 1,
	};
	o_out = prof_output_open(out, PROF_OUT_ATOMIC, PROF_COMP_NONE);
	if (!o_out || prof_speedscope_write(&t, &so, o_out)) {
		if (o_out)
			prof_output_abort(o_out);
		rc = -1;
	} else if (prof_output_close(o_out)) {
		rc = -1;
	}
	prof_stacks_release(&t);
	prof_meta_release(&meta);
	return rc;
}
