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
#include "record/threads.h"
#include "symbolize/symbolize.h"

void prof_sample_writer_init(struct prof_sample_writer *w, struct prof_output *out,
			     struct prof_stacks *stacks, int folded)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->stacks = stacks;
	w->folded = folded;
	prof_intern_init(&w->ids);
	prof_intern_init(&w->maps);
}

void prof_sample_writer_release(struct prof_sample_writer *w)
{
	prof_buf_release(&w->line);
	prof_buf_release(&w->key);
	prof_buf_release(&w->late_meta);
	prof_intern_release(&w->ids);
	prof_intern_release(&w->maps);
	free(w->rename);
	w->rename = NULL;
	w->nrename = 0;
	free(w->map_col_id);
	free(w->addrs_col_id);
	w->map_col_id = w->addrs_col_id = NULL;
	w->map_ids_cap = 0;
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
	prof_intern_release(&w->ids);
	prof_intern_init(&w->ids);
	prof_intern_release(&w->maps);
	prof_intern_init(&w->maps);
	w->map_col_next = w->addrs_col_next = 0;
	if (w->folded)
		for (size_t id = 0; id < prof_stacks_count(w->stacks); id++)
			memset(prof_stacks_weights(w->stacks, (uint32_t)id), 0,
			       w->stacks->nweights * sizeof(prof_weight));
}

/*
 * The index of file mapping m (NULL, anonymous: UINT32_MAX). A mapping
 * is known by what its text says (start, offset, build-id, path), the
 * path by its pointer: the symbolizer keeps one copy of each path for
 * its lifetime, so that no text is formatted per sample.
 */
static uint32_t map_index(struct prof_sample_writer *w, const struct prof_map *m)
{
	struct { uint64_t start, pgoff; const char *path; unsigned len; unsigned char bid[20]; } k;
	size_t before = prof_intern_count(&w->maps);
	uint32_t id;

	if (!m || !m->path || !m->path[0])
		return UINT32_MAX;
	memset(&k, 0, sizeof(k));
	k.start = m->start;
	k.pgoff = m->pgoff;
	k.path = m->path;
	k.len = m->build_id_len <= sizeof(k.bid) ? m->build_id_len : sizeof(k.bid);
	memcpy(k.bid, m->build_id, k.len);
	id = prof_intern(&w->maps, (const char *)&k, sizeof(k));
	if (id >= before) {
		if (id >= w->map_ids_cap) {
			w->map_ids_cap = (size_t)id * 2 + 16;
			w->map_col_id = xreallocarray(w->map_col_id, w->map_ids_cap, sizeof(uint32_t));
			w->addrs_col_id = xreallocarray(w->addrs_col_id, w->map_ids_cap, sizeof(uint32_t));
		}
		w->map_col_id[id] = w->addrs_col_id[id] = UINT32_MAX;
	}
	return id;
}

/*
 * The id a column (*col: map_col_id or addrs_col_id, *next its next id)
 * gives the mapping of index i; *is_new when first named there.
 */
static uint32_t column_map_id(uint32_t *col, uint32_t *next, uint32_t i, int *is_new)
{
	*is_new = col[i] == UINT32_MAX;
	if (*is_new)
		col[i] = (*next)++;
	return col[i];
}

/*
 * Append mapping m's text "0xSTART 0xPGOFF BUILD_ID PATH" (build-id "-"
 * when unknown; tabs and line breaks of the path blanks). In the addrs
 * column (escape set), '%' and ';' of the path are written %25 and %3b.
 */
static void add_map_text(struct prof_buf *b, const struct prof_map *m, int escape)
{
	prof_buf_addf(b, "0x%llx 0x%llx ", (unsigned long long)m->start,
		      (unsigned long long)m->pgoff);
	for (unsigned i = 0; i < m->build_id_len; i++)
		prof_buf_addf(b, "%02x", m->build_id[i]);
	if (!m->build_id_len)
		prof_buf_addch(b, '-');
	prof_buf_addch(b, ' ');
	for (const char *c = m->path; *c; c++) {
		if (*c == '\t' || *c == '\n' || *c == '\r')
			prof_buf_addch(b, ' ');
		else if (escape && (*c == '%' || *c == ';'))
			prof_buf_addstr(b, *c == '%' ? "%25" : "%3b");
		else
			prof_buf_addch(b, *c);
	}
}

/* Append the ip, map_id and map fields: the mapping's text only on the first row naming it there. */
static void add_ip(struct prof_sample_writer *w, const struct prof_sample_row *row,
		   struct prof_buf *b)
{
	uint32_t i;
	int is_new;

	if (!row->has_ip) {
		prof_buf_add(b, "\t\t\t", 3);
		return;
	}
	prof_buf_addf(b, "\t%llx\t", (unsigned long long)row->ip);
	if ((i = map_index(w, row->map)) == UINT32_MAX) {
		prof_buf_addch(b, '\t');
		return;
	}
	prof_buf_addf(b, "%u\t", column_map_id(w->map_col_id, &w->map_col_next, i, &is_new));
	if (is_new)
		add_map_text(b, row->map, 0);
}

/* The mapping of address a of as, or NULL (kernel, anonymous, unknown). */
static const struct prof_map *addr_map(struct prof_addrspace *as, uint64_t a)
{
	return as && a && !prof_is_kernel_addr(a) ? prof_addrspace_find(as, a) : NULL;
}

/*
 * The TSV's stack_id of the row: its stack with the addresses (and
 * mappings) of its frames above the sampled ip's, in w->ids; *is_new
 * when first met. Consecutive frames mostly share a mapping: looked up
 * once.
 */
static uint32_t tsv_stack_id(struct prof_sample_writer *w, const struct prof_sample_row *row,
			     int *is_new)
{
	struct prof_buf *k = &w->key;
	const struct prof_map *last = NULL;
	uint32_t id, m = UINT32_MAX;
	size_t before = prof_intern_count(&w->ids);

	prof_buf_reset(k);
	prof_buf_add(k, (const char *)&row->stack, sizeof(row->stack));
	for (size_t i = 0; row->addrs && i < row->naddrs; i++) {
		const struct prof_map *map = addr_map(row->as, row->addrs[i]);

		if (map != last)
			m = map_index(w, last = map);
		prof_buf_add(k, (const char *)&row->addrs[i], sizeof(row->addrs[i]));
		prof_buf_add(k, (const char *)&m, sizeof(m));
	}
	id = prof_intern(&w->ids, k->data, k->len);
	*is_new = id >= before;
	return id;
}

/*
 * The addrs field of a new TSV stack id: per frame above the sampled
 * ip's, root first, ';'-separated, "-" (none), "HEX" (no file mapping),
 * "HEX@MAP_ID", with "=MAP TEXT" after the first in this column to name
 * that mapping (prof-formats.5). The column numbers its mappings itself,
 * so that the map column's ids stay those of profrec 0.4.
 */
static void add_addrs(struct prof_sample_writer *w, const struct prof_sample_row *row,
		      struct prof_buf *b)
{
	for (size_t i = 0; row->addrs && i < row->naddrs; i++) {
		const struct prof_map *map = addr_map(row->as, row->addrs[i]);
		uint32_t m;
		int is_new;

		if (i)
			prof_buf_addch(b, ';');
		if (!row->addrs[i]) {
			prof_buf_addch(b, '-');
			continue;
		}
		prof_buf_addf(b, "%llx", (unsigned long long)row->addrs[i]);
		if ((m = map_index(w, map)) == UINT32_MAX)
			continue;
		prof_buf_addf(b, "@%u", column_map_id(w->addrs_col_id, &w->addrs_col_next, m, &is_new));
		if (is_new) {
			prof_buf_addch(b, '=');
			add_map_text(b, map, 1);
		}
	}
}

void prof_sample_writer_add(struct prof_sample_writer *w, const struct prof_sample_row *row)
{
	struct prof_buf *b = &w->line;
	uint32_t id;
	int is_new;

	if (w->folded) {
		if (prof_weight_add(prof_stacks_weights(w->stacks, row->stack), (prof_weight)row->weight))
			prof_weight_saturated(NULL);
		return;
	}
	id = tsv_stack_id(w, row, &is_new);
	prof_buf_reset(b);
	prof_buf_addf(b, "%llu\t%d\t%d\t",
		      (unsigned long long)(row->time > w->start_ns ? row->time - w->start_ns : 0),
		      row->pid, row->tid);
	for (const char *c = row->comm; *c; c++)
		prof_buf_addch(b, *c == '\t' || *c == '\n' || *c == '\r' ? ' ' : *c);
	prof_buf_addf(b, "\t%d\t%s\t%llu\t%u\t", row->cpu, row->event,
		      (unsigned long long)row->weight, id);
	if (is_new)
		prof_stacks_format(w->stacks, row->stack, b);
	add_ip(w, row, b);
	prof_buf_addch(b, '\t');
	if (is_new)
		add_addrs(w, row, b);
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
			/* the column header: the late metadata first */
			if (header && line[0] != '#' && w->late_meta.len)
				prof_output_write(out, w->late_meta.data, w->late_meta.len);
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
