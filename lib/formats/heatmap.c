/*
 * The subsecond heat map: samples per cell and per cell's stacks
 * (heatmap.h).
 */
#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "base/error.h"
#include "base/units.h"
#include "base/xalloc.h"
#include "core/meta.h"
#include "formats/folded.h"
#include "formats/heatmap.h"
#include "formats/profile.h"
#include "io/output.h"

#define NS_PER_S 1000000000ULL
#define MIN_BUCKET_NS 1000000ULL
/* Cell stacks are merged whenever they double past this many, so memory
 * follows the distinct (cell, stack) pairs, not the samples. */
#define COMPACT_MIN 65536

int prof_heatmap_bucket_ok(uint64_t bucket_ns)
{
	return bucket_ns >= MIN_BUCKET_NS && bucket_ns <= NS_PER_S &&
	       NS_PER_S % bucket_ns == 0 ? 0 : -1;
}

int prof_heatmap_bucket_parse(const char *arg, uint64_t *bucket_ns)
{
	double s;
	uint64_t ns;

	if (prof_parse_duration(arg, 1.0, &s) || !(s > 0) || s > 1)
		return -1;
	ns = (uint64_t)(s * 1e9 + 0.5);
	if (prof_heatmap_bucket_ok(ns))
		return -1;
	*bucket_ns = ns;
	return 0;
}

void prof_heatmap_init(struct prof_heatmap *hm, uint64_t bucket_ns)
{
	memset(hm, 0, sizeof(*hm));
	hm->bucket_ns = bucket_ns;
	hm->per_second = (size_t)(NS_PER_S / bucket_ns);
}

static int cmp_stack(const void *a, const void *b)
{
	const struct prof_heatmap_stack *x = a, *y = b;

	if (x->cell != y->cell)
		return x->cell < y->cell ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Sort the cell stacks by (cell, id) and merge equal pairs. */
static void compact(struct prof_heatmap *hm)
{
	size_t i, n = 0;

	if (!hm->nstacks)
		return;		/* qsort of a NULL array is undefined */
	qsort(hm->stacks, hm->nstacks, sizeof(*hm->stacks), cmp_stack);
	for (i = 0; i < hm->nstacks; i++) {
		struct prof_heatmap_stack *s = &hm->stacks[i];

		if (n && hm->stacks[n - 1].cell == s->cell && hm->stacks[n - 1].id == s->id) {
			hm->stacks[n - 1].samples += s->samples;
			hm->stacks[n - 1].weight += s->weight;
		} else {
			hm->stacks[n++] = *s;
		}
	}
	hm->nstacks = n;
}

void prof_heatmap_on_sample(void *ctx, uint32_t id, prof_weight w, int64_t time_ns)
{
	struct prof_heatmap *hm = ctx;
	struct prof_heatmap_stack *last;
	size_t cell;

	if (time_ns < 0) {
		hm->untimed++;
		return;
	}
	if ((uint64_t)time_ns / hm->bucket_ns >= PROF_HEATMAP_MAX_CELLS) {
		hm->too_late++;
		return;
	}
	cell = (size_t)((uint64_t)time_ns / hm->bucket_ns);
	if (cell >= hm->ncells) {
		size_t n = (cell / hm->per_second + 1) * hm->per_second;

		PROF_GROW(hm->cells, n, hm->cells_cap);
		memset(hm->cells + hm->ncells, 0, (n - hm->ncells) * sizeof(*hm->cells));
		hm->ncells = n;
		hm->seconds = n / hm->per_second;
	}
	hm->cells[cell].samples++;
	hm->cells[cell].weight += w;
	last = hm->nstacks ? &hm->stacks[hm->nstacks - 1] : NULL;
	if (last && last->cell == cell && last->id == id) {
		last->samples++;
		last->weight += w;
		return;
	}
	if (hm->nstacks == hm->stacks_cap && hm->nstacks >= COMPACT_MIN) {
		compact(hm);
		if (hm->nstacks * 2 > hm->stacks_cap)
			PROF_GROW(hm->stacks, hm->stacks_cap + 1, hm->stacks_cap);
	}
	PROF_GROW(hm->stacks, hm->nstacks + 1, hm->stacks_cap);
	hm->stacks[hm->nstacks++] = (struct prof_heatmap_stack){ cell, id, 1, w };
}

void prof_heatmap_finish(struct prof_heatmap *hm)
{
	size_t c, i = 0;

	compact(hm);
	free(hm->start);
	hm->start = xcalloc(hm->ncells + 1, sizeof(*hm->start));
	for (c = 0; c <= hm->ncells; c++) {
		while (i < hm->nstacks && hm->stacks[i].cell < c)
			i++;
		hm->start[c] = i;
	}
}

int prof_heatmap_read(const char *const *paths, size_t n, struct prof_profile_opts *opts,
		      struct prof_heatmap *hm, struct prof_stacks *t, struct prof_meta *meta)
{
	struct prof_profile_summary sum;
	int rval = 0;

	opts->on_sample = prof_heatmap_on_sample;
	opts->on_sample_ctx = hm;
	if (prof_profile_read_all(paths, n, opts, t, meta, &sum))
		rval = -1;
	prof_heatmap_finish(hm);
	if (hm->untimed)
		prof_warn("%lu sample%s without a time left out of the heat map", hm->untimed,
			  hm->untimed == 1 ? "" : "s");
	if (hm->too_late)
		prof_warn("%lu sample%s too late for the heat map (after %u cells) left out",
			  hm->too_late, hm->too_late == 1 ? "" : "s", PROF_HEATMAP_MAX_CELLS);
	if (!hm->ncells && prof_stacks_count(t)) {
		prof_warn("no sample times to place in the heat map (folded stacks have none: "
			  "use profrec TSV or perf script text with its time field)");
		rval = -1;
	}
	return rval;
}

unsigned long prof_heatmap_range_stacks(const struct prof_heatmap *hm,
					const struct prof_stacks *src, uint64_t from_ns,
					uint64_t to_ns, struct prof_stacks *dst)
{
	unsigned long n = 0;
	uint64_t first = (from_ns + hm->bucket_ns - 1) / hm->bucket_ns;
	size_t c, i;

	if (!hm->start)
		return 0;
	for (c = first < hm->ncells ? (size_t)first : hm->ncells; c < hm->ncells; c++) {
		if (to_ns != UINT64_MAX && (uint64_t)c * hm->bucket_ns >= to_ns)
			break;
		for (i = hm->start[c]; i < hm->start[c + 1]; i++) {
			const struct prof_heatmap_stack *s = &hm->stacks[i];
			size_t depth, k;
			const uint32_t *f = prof_stacks_frames(src, s->id, &depth);
			uint32_t *ids = xreallocarray(NULL, depth ? depth : 1, sizeof(*ids));

			for (k = 0; k < depth; k++) {
				size_t len;
				const char *name = prof_stacks_frame_name(src, f[k], &len);

				ids[k] = prof_stacks_frame(dst, name, len);
			}
			prof_stacks_add_columns(dst, ids, depth, &s->weight, 1);
			free(ids);
			n += s->samples;
		}
	}
	return n;
}

int prof_heatmap_write(const struct prof_heatmap *hm, const struct prof_meta *meta,
		       int meta_line, struct prof_output *o)
{
	const char *event = prof_meta_get(meta, "event");
	struct prof_buf b = PROF_BUF_INIT;
	size_t s, bucket;
	char num[64];
	int w;

	if (meta_line) {
		struct prof_meta m = PROF_META_INIT;

		prof_meta_merge(&m, meta);
		prof_meta_setf(&m, "bucket_ms", "%g", (double)hm->bucket_ns / 1e6);
		prof_meta_format(&m, &b);
		prof_meta_release(&m);
	}
	prof_buf_addstr(&b, "second\toffset_ms\tevent\tsamples\tweight\n");
	w = prof_output_write(o, b.data, b.len);
	prof_buf_release(&b);
	for (s = 0; s < hm->seconds && !w; s++) {
		for (bucket = 0; bucket < hm->per_second && !w; bucket++) {
			const struct prof_heatmap_cell *cell = &hm->cells[s * hm->per_second + bucket];

			prof_format_count(num, cell->weight);
			w = prof_output_printf(o, "%zu\t%g\t%s\t%lu\t%s\n", s,
					       (double)(bucket * hm->bucket_ns) / 1e6,
					       event ? event : "", cell->samples, num);
		}
	}
	return w ? -1 : 0;
}

void prof_heatmap_release(struct prof_heatmap *hm)
{
	free(hm->cells);
	free(hm->stacks);
	free(hm->start);
	memset(hm, 0, sizeof(*hm));
}

int prof_heatmap_fold_file(const char *const *paths, size_t n, struct prof_profile_opts *opts,
			   uint64_t bucket_ns, const char *output, int no_header)
{
	struct prof_heatmap hm;
	struct prof_stacks t;
	struct prof_meta meta = PROF_META_INIT;
	struct prof_output *o;
	int rval = 0;

	prof_heatmap_init(&hm, bucket_ns);
	prof_stacks_init(&t, 1);
	if (prof_heatmap_read(paths, n, opts, &hm, &t, &meta))
		rval = 1;
	o = prof_output_open(output, PROF_OUT_ATOMIC,
			     output ? prof_compression_from_suffix(output) : PROF_COMP_NONE);
	if (!o || prof_heatmap_write(&hm, &meta, !no_header, o)) {
		if (o)
			prof_output_abort(o);
		rval = 1;
	} else if (prof_output_close(o)) {
		rval = 1;
	}
	prof_heatmap_release(&hm);
	prof_stacks_release(&t);
	prof_meta_release(&meta);
	return rval;
}
