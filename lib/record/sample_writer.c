/*
 * Samples to profrec-samples TSV or folded stacks (sample_writer.h).
 */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "core/meta.h"
#include "core/stack.h"
#include "formats/folded.h"
#include "formats/tsv.h"
#include "io/output.h"
#include "record/sample_writer.h"
#include "symbolize/symbolize.h"

void prof_sample_writer_init(struct prof_sample_writer *w, struct prof_output *out,
			     struct prof_stacks *stacks, int folded)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->stacks = stacks;
	w->folded = folded;
	prof_intern_init(&w->maps);
}

void prof_sample_writer_release(struct prof_sample_writer *w)
{
	prof_buf_release(&w->line);
	prof_buf_release(&w->map_text);
	prof_intern_release(&w->maps);
	free(w->rename);
	w->rename = NULL;
	w->nrename = 0;
	free(w->written);
	w->written = NULL;
	w->written_words = 0;
}

int prof_sample_writer_begin(struct prof_sample_writer *w, const struct prof_meta *meta)
{
	struct prof_buf b = PROF_BUF_INIT;
	int rc = 0;

	if (!w->folded) {
		prof_meta_format(meta, &b);
		prof_buf_addstr(&b, prof_tsv_header(prof_tsv_schema_find("profrec-samples")));
		rc = prof_output_write(w->out, b.data, b.len);
		if (prof_output_flush(w->out) != 0)
			rc = -1;
	}
	prof_buf_release(&b);
	return rc;
}

void prof_sample_writer_restart(struct prof_sample_writer *w, struct prof_output *out,
				uint64_t start_ns)
{
	w->out = out;
	w->start_ns = start_ns;
	if (w->written)
		memset(w->written, 0, w->written_words * sizeof(*w->written));
	prof_intern_release(&w->maps);
	prof_intern_init(&w->maps);
	if (w->folded)
		for (size_t id = 0; id < prof_stacks_count(w->stacks); id++)
			memset(prof_stacks_weights(w->stacks, (uint32_t)id), 0,
			       w->stacks->nweights * sizeof(prof_weight));
}

/* Whether stack id's text was written already; marks it written. */
static int written_before(struct prof_sample_writer *w, uint32_t id)
{
	uint32_t bit = 1u << (id % 32);

	if (id / 32 >= w->written_words) {
		size_t old = w->written_words;

		w->written_words = (id / 32 + 1) * 2;
		w->written = xreallocarray(w->written, w->written_words, sizeof(*w->written));
		memset(w->written + old, 0, (w->written_words - old) * sizeof(*w->written));
	}
	if (w->written[id / 32] & bit)
		return 1;
	w->written[id / 32] |= bit;
	return 0;
}

/*
 * Append the ip, map_id and map fields: the mapping's text
 * ("0xSTART 0xPGOFF BUILD_ID PATH", build-id "-" when unknown) only on
 * the first row naming it, as stacks are.
 */
static void add_ip(struct prof_sample_writer *w, const struct prof_sample_row *row,
		   struct prof_buf *b)
{
	const struct prof_map *m = row->map;
	struct prof_buf *t = &w->map_text;
	size_t before = prof_intern_count(&w->maps);
	uint32_t id;

	if (!row->has_ip) {
		prof_buf_add(b, "\t\t\t", 3);
		return;
	}
	prof_buf_addf(b, "\t%llx\t", (unsigned long long)row->ip);
	if (!m || !m->path || !m->path[0]) {
		prof_buf_addch(b, '\t');
		return;
	}
	prof_buf_reset(t);
	prof_buf_addf(t, "0x%llx 0x%llx ", (unsigned long long)m->start,
		      (unsigned long long)m->pgoff);
	for (unsigned i = 0; i < m->build_id_len; i++)
		prof_buf_addf(t, "%02x", m->build_id[i]);
	if (!m->build_id_len)
		prof_buf_addch(t, '-');
	prof_buf_addch(t, ' ');
	for (const char *c = m->path; *c; c++)
		prof_buf_addch(t, *c == '\t' || *c == '\n' || *c == '\r' ? ' ' : *c);
	id = prof_intern(&w->maps, t->data, t->len);
	prof_buf_addf(b, "%u\t", id);
	if (id >= before)
		prof_buf_add(b, t->data, t->len);
}

void prof_sample_writer_add(struct prof_sample_writer *w, const struct prof_sample_row *row)
{
	struct prof_buf *b = &w->line;

	if (w->folded) {
		if (prof_weight_add(prof_stacks_weights(w->stacks, row->stack), (prof_weight)row->weight))
			prof_weight_saturated(NULL);
		return;
	}
	prof_buf_reset(b);
	prof_buf_addf(b, "%llu\t%d\t%d\t",
		      (unsigned long long)(row->time > w->start_ns ? row->time - w->start_ns : 0),
		      row->pid, row->tid);
	for (const char *c = row->comm; *c; c++)
		prof_buf_addch(b, *c == '\t' || *c == '\n' || *c == '\r' ? ' ' : *c);
	prof_buf_addf(b, "\t%d\t%s\t%llu\t%u\t", row->cpu, row->event,
		      (unsigned long long)row->weight, row->stack);
	if (!written_before(w, row->stack))
		prof_stacks_format(w->stacks, row->stack, b);
	add_ip(w, row, b);
	prof_buf_addch(b, '\n');
	prof_output_write(w->out, b->data, b->len);
}

/* The frame id frame is written as (w->rename). */
static uint32_t renamed(const struct prof_sample_writer *w, uint32_t frame)
{
	return frame < w->nrename ? w->rename[frame] : frame;
}

/*
 * Append stack text text (len bytes, "a;b;c") with each renamed frame's
 * new name: by the frames' names, whatever the file's stack ids are.
 */
static void add_renamed(const struct prof_sample_writer *w, const char *text, size_t len,
			struct prof_buf *b)
{
	const char *end = text + len, *f = text;

	while (f <= end) {
		const char *semi = memchr(f, ';', (size_t)(end - f));
		size_t flen = (size_t)((semi ? semi : end) - f);
		uint32_t id = prof_intern_find(&w->stacks->frames, f, flen);
		const char *name = f;

		if (f != text)
			prof_buf_addch(b, ';');
		if (id != UINT32_MAX && renamed(w, id) != id)
			name = prof_stacks_frame_name(w->stacks, renamed(w, id), &flen);
		prof_buf_add(b, name, flen);
		if (!semi)
			break;
		f = semi + 1;
	}
}

/* The index of column name in profrec-samples. */
static size_t column(const char *name)
{
	const struct prof_tsv_schema *s = prof_tsv_schema_find("profrec-samples");
	size_t i = 0;

	while (i < s->ncolumns && strcmp(s->columns[i].name, name) != 0)
		i++;
	return i;
}

int prof_sample_writer_rename_file(struct prof_sample_writer *w, const char *path)
{
	size_t c_stack = column("stack"), len;
	struct prof_lines *in;
	struct prof_output *out;
	struct prof_buf *b = &w->line;
	char *line;
	int header = 1;

	if (w->folded || !w->rename)
		return 0;
	if (!(in = prof_lines_open(path)))
		return -1;
	if (!(out = prof_output_open(path, PROF_OUT_ATOMIC, prof_compression_from_suffix(path)))) {
		prof_lines_close(in);
		return -1;
	}
	while ((line = prof_lines_next(in, &len))) {
		const char *end = line + len, *stack = line, *stack_end;
		size_t col = 0;

		/* the metadata and the column header as they are */
		if (header || line[0] == '#') {
			header = line[0] == '#';
			prof_output_write(out, line, len);
			prof_output_write(out, "\n", 1);
			continue;
		}
		while (col < c_stack && stack && stack < end) {
			stack = memchr(stack, '\t', (size_t)(end - stack));
			stack = stack ? stack + 1 : NULL;
			col++;
		}
		stack_end = stack && stack < end ? memchr(stack, '\t', (size_t)(end - stack)) : NULL;
		if (!stack_end)
			stack_end = end;
		prof_buf_reset(b);
		if (stack && col == c_stack && stack < stack_end) {
			prof_buf_add(b, line, (size_t)(stack - line));
			add_renamed(w, stack, (size_t)(stack_end - stack), b);
			prof_buf_add(b, stack_end, (size_t)(end - stack_end));
		} else {
			prof_buf_add(b, line, len);
		}
		prof_buf_addch(b, '\n');
		prof_output_write(out, b->data, b->len);
	}
	if (prof_lines_failed(in) || prof_lines_too_long(in)) {
		prof_lines_close(in);
		prof_output_abort(out);
		return -1;
	}
	prof_lines_close(in);
	return prof_output_close(out);
}

int prof_sample_writer_finish(struct prof_sample_writer *w, const struct prof_meta *meta)
{
	struct prof_stacks used;
	uint32_t *f = NULL;
	size_t depth, cap = 0;
	int rc;

	if (!w->folded)
		return 0;
	/* The stacks of weight 0 left out: the table copied without them. */
	prof_stacks_init(&used, 1);
	for (size_t id = 0; id < prof_stacks_count(w->stacks); id++) {
		const prof_weight *wt = prof_stacks_weights(w->stacks, (uint32_t)id);
		const uint32_t *src = prof_stacks_frames(w->stacks, (uint32_t)id, &depth);

		if (*wt == 0)
			continue;
		if (depth > cap)
			f = xreallocarray(f, cap = depth, sizeof(*f));
		for (size_t i = 0; i < depth; i++) {
			size_t len;
			const char *name = prof_stacks_frame_name(w->stacks, renamed(w, src[i]), &len);

			f[i] = prof_stacks_frame(&used, name, len);
		}
		prof_stacks_add(&used, f, depth, wt);
	}
	rc = prof_folded_write(&used, meta, 1, w->out);
	free(f);
	prof_stacks_release(&used);
	return rc;
}
