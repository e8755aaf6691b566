/*
 * The subsecond heat map drawn (heatmap.h): proffold-heatmap TSV read
 * back into cells, and the SVG/HTML document of FlameScope's layout.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/error.h"
#include "base/escape.h"
#include "base/units.h"
#include "base/xalloc.h"
#include "flame/flame.h"
#include "flame/heatmap.h"
#include "flame/internal.h"
#include "formats/profile.h"
#include "formats/tsv.h"
#include "io/input.h"
#include "io/output.h"

void prof_flame_heatmap_opts_init(struct prof_flame_heatmap_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->fontsize = 12;
	o->fonttype = "Verdana";
}

/* ---- reading the TSV ------------------------------------------------------ */

struct hm_row {
	uint64_t second;
	double offset_ms;
	unsigned long samples;
	double weight;
};

struct hm_rows {
	struct hm_row *v;
	size_t n, cap;
	char *event;		/* the first row's */
	unsigned long other_event;	/* rows of another event, skipped */
	unsigned long bad;		/* malformed rows */
};

/* Parse one data row (fields split in place); 0, or -1 if malformed (reported). */
static int parse_row(struct hm_rows *r, struct prof_lines *lr, char *line, size_t len)
{
	char *f[6];
	struct hm_row row;
	uint64_t samples;

	if (prof_tsv_split(line, len, f, 6) != 5 || prof_parse_u64(f[0], &row.second) ||
	    prof_parse_double(f[1], &row.offset_ms) || !(row.offset_ms >= 0 && row.offset_ms < 1000) ||
	    prof_parse_u64(f[3], &samples) || prof_parse_double(f[4], &row.weight) ||
	    !(row.weight >= 0) || row.second >= PROF_HEATMAP_MAX_CELLS) {
		if (++r->bad <= 10)
			prof_warn("%s:%lu: not a proffold-heatmap row (second, offset_ms < 1000, "
				  "event, samples, weight)", prof_lines_name(lr), prof_lines_lineno(lr));
		return -1;
	}
	if (!r->event)
		r->event = xstrdup(f[2]);
	if (strcmp(r->event, f[2])) {
		r->other_event++;
		return 0;
	}
	row.samples = (unsigned long)samples;
	PROF_GROW(r->v, r->n + 1, r->cap);
	r->v[r->n++] = row;
	return 0;
}

/*
 * The bucket in ns: bucket_ms of the metadata, else the finest offset
 * step. A bucket_ms that is not a bucket proffold --bucket takes (one
 * dividing a second evenly: "300" leaves a third of a bucket over) is
 * reported and *bad set; the cells are then placed by the offset step.
 */
static uint64_t bucket_of(const struct hm_rows *r, const struct prof_meta *meta, const char *name,
			  int *bad)
{
	const char *b = prof_meta_get(meta, "bucket_ms");
	double ms, step = 1000;
	size_t i;

	if (b && !prof_parse_double(b, &ms) && ms > 0 &&
	    prof_heatmap_bucket_ok((uint64_t)llround(ms * 1e6)) == 0)
		return (uint64_t)llround(ms * 1e6);
	if (b) {
		prof_warn("%s: bucket_ms=%s: not a bucket of at least 1 ms dividing one second evenly "
			  "(1000 the largest)", name, b);
		*bad = 1;
	}
	for (i = 0; i < r->n; i++)
		if (r->v[i].offset_ms > 0 && r->v[i].offset_ms < step)
			step = r->v[i].offset_ms;
	while (prof_heatmap_bucket_ok((uint64_t)llround(step * 1e6)) && step > 1)
		step = step / 2 > 1 ? step / 2 : 1;	/* not dividing the second: finer */
	return (uint64_t)llround(step * 1e6);
}

/* Place the rows into hm's cells. */
static void fill_cells(struct prof_heatmap *hm, const struct hm_rows *r)
{
	size_t i, max_second = 0;

	for (i = 0; i < r->n; i++)
		if (r->v[i].second > max_second)
			max_second = (size_t)r->v[i].second;
	hm->seconds = max_second + 1;
	hm->ncells = hm->cells_cap = hm->seconds * hm->per_second;
	hm->cells = xcalloc(hm->ncells, sizeof(*hm->cells));
	for (i = 0; i < r->n; i++) {
		size_t b = (size_t)(r->v[i].offset_ms * 1e6 / (double)hm->bucket_ns + 1e-9);
		struct prof_heatmap_cell *c;

		if (b >= hm->per_second)
			b = hm->per_second - 1;
		c = &hm->cells[(size_t)r->v[i].second * hm->per_second + b];
		c->samples += r->v[i].samples;
		c->weight += (prof_weight)r->v[i].weight;
	}
}

int prof_flame_heatmap_read_tsv(const char *path, struct prof_heatmap *hm,
				struct prof_meta *meta)
{
	const char *header = prof_tsv_header(prof_tsv_schema_find("proffold-heatmap"));
	struct prof_lines *lr = prof_lines_open(path);
	struct hm_rows r = { 0 };
	int seen_header = 0, rval = 0;
	size_t len;
	char *line;

	prof_heatmap_init(hm, 1000000000);
	if (!lr)
		return -2;
	while ((line = prof_lines_next(lr, &len))) {
		if (!seen_header && prof_meta_is_line(line, len)) {
			prof_meta_parse_line(meta, line, len);
		} else if (!seen_header) {
			if (len + 1 != strlen(header) || memcmp(line, header, len)) {
				prof_warn("%s:%lu: not a proffold-heatmap TSV (expected the header "
					  "of proffold --heatmap)", prof_lines_name(lr),
					  prof_lines_lineno(lr));
				rval = -2;
				break;
			}
			seen_header = 1;
		} else if (len && parse_row(&r, lr, line, len)) {
			rval = -1;
		}
	}
	if (prof_lines_failed(lr))
		rval = -2;
	else if (prof_lines_too_long(lr) && rval == 0)
		rval = -1;	/* reported; the other rows are drawn */
	if (rval > -2 && !r.n) {
		prof_warn("%s: no heat map cells: nothing to draw", prof_lines_name(lr));
		rval = -2;
	}
	if (r.bad > 10)
		prof_warn("%s: %lu malformed rows in all", prof_lines_name(lr), r.bad);
	if (r.other_event)
		prof_info(1, "%s: drew event %s; skipped %lu cells of other events",
			  prof_lines_name(lr), r.event, r.other_event);
	if (rval > -2) {
		int bad = 0;

		prof_heatmap_init(hm, bucket_of(&r, meta, prof_lines_name(lr), &bad));
		if (bad)
			rval = -1;	/* reported; drawn by the offsets */
		fill_cells(hm, &r);
		if (!prof_meta_get(meta, "event"))
			prof_meta_set(meta, "event", r.event);
	}
	prof_lines_close(lr);
	free(r.v);
	free(r.event);
	return rval;
}

/* ---- drawing ---------------------------------------------------------------- */

struct hm_writer {
	const struct prof_heatmap *hm;
	const struct prof_flame_heatmap_opts *o;
	struct prof_output *out;
	struct prof_buf b;
	struct prof_flame_heatmap_grid g;	/* the cells' geometry, the heaviest's weight */
	int r;
};

static void hm_flush(struct hm_writer *w, int force)
{
	if (w->r == 0 && (force || w->b.len >= 1 << 16)) {
		w->r = prof_output_write(w->out, w->b.data, w->b.len);
		prof_buf_reset(&w->b);
	}
}

static void add_text(struct prof_buf *b, double x, double y, const char *attrs, const char *text)
{
	prof_buf_addstr(b, "<text x=\"");
	prof_flame_add_num(b, x);
	prof_buf_addstr(b, "\" y=\"");
	prof_flame_add_num(b, y);
	prof_buf_addf(b, "\"%s%s>", *attrs ? " " : "", attrs);
	prof_xml_escape(b, text, strlen(text));
	prof_buf_addstr(b, "</text>");
}

/* The step between labels: the smallest of steps[] at least min_px apart. */
static size_t label_step(const size_t *steps, size_t n, double px_per_unit, double min_px)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((double)steps[i] * px_per_unit >= min_px)
			return steps[i];
	return steps[n - 1];
}

static void write_axes(struct hm_writer *w)
{
	static const size_t sec_steps[] = { 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600 };
	static const size_t row_steps[] = { 1, 2, 4, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000 };
	const struct prof_heatmap *hm = w->hm;
	double fs = w->o->fontsize, gh = (double)hm->per_second * w->g.ch;
	size_t s, r, step;
	char tmp[64];

	prof_buf_addstr(&w->b, "<g id=\"xaxis\" text-anchor=\"middle\">");
	step = label_step(sec_steps, sizeof(sec_steps) / sizeof(*sec_steps), w->g.cw, fs * 3);
	for (s = 0; s < hm->seconds; s += step) {
		snprintf(tmp, sizeof(tmp), "%zu", s);
		add_text(&w->b, w->g.left + ((double)s + 0.5) * w->g.cw, w->g.top + gh + fs * 1.3, "", tmp);
	}
	add_text(&w->b, w->g.left + (double)hm->seconds * w->g.cw / 2, w->g.top + gh + fs * 2.8, "",
		 "time (seconds from the start)");
	prof_buf_addstr(&w->b, "</g>\n<g id=\"yaxis\" text-anchor=\"end\">");
	step = label_step(row_steps, sizeof(row_steps) / sizeof(*row_steps), w->g.ch, fs * 1.5);
	for (r = 0; r < hm->per_second; r += step) {
		snprintf(tmp, sizeof(tmp), "%g ms", (double)(r * hm->bucket_ns) / 1e6);
		add_text(&w->b, w->g.left - 4, w->g.top + ((double)r + 0.5) * w->g.ch + fs / 3, "", tmp);
	}
	snprintf(tmp, sizeof(tmp), "rotate(-90 %g %g)", fs, w->g.top + gh / 2);
	prof_buf_addstr(&w->b, "<text x=\"");
	prof_flame_add_num(&w->b, fs);
	prof_buf_addstr(&w->b, "\" y=\"");
	prof_flame_add_num(&w->b, w->g.top + gh / 2);
	prof_buf_addf(&w->b, "\" text-anchor=\"middle\" transform=\"%s\">offset in the second "
		      "(%g ms rows)</text></g>\n", tmp, (double)hm->bucket_ns / 1e6);
}

/* The colour scale: ten swatches from 0 to the largest cell's weight. */
static void write_scale(struct hm_writer *w)
{
	struct prof_buf *b = &w->b;
	double fs = w->o->fontsize, y = w->g.height - fs * 2.2, x = w->g.left;
	int i;

	prof_buf_addstr(b, "<g id=\"scale\">");
	add_text(b, x, y + fs - 1, "", "weight per cell: 0");
	x += fs * 10;
	for (i = 0; i <= 10; i++) {
		prof_buf_addstr(b, "<rect x=\"");
		prof_flame_add_num(b, x + i * fs * 1.5);
		prof_buf_addstr(b, "\" y=\"");
		prof_flame_add_num(b, y);
		prof_buf_addstr(b, "\" width=\"");
		prof_flame_add_num(b, fs * 1.5);
		prof_buf_addstr(b, "\" height=\"");
		prof_flame_add_num(b, fs);
		prof_buf_addstr(b, "\" fill=\"");
		prof_flame_add_hex(b, prof_flame_heatmap_color(i / 10.0));
		prof_buf_addstr(b, "\"/>");
	}
	prof_buf_addstr(b, "<text x=\"");
	prof_flame_add_num(b, x + 11 * fs * 1.5 + 4);
	prof_buf_addstr(b, "\" y=\"");
	prof_flame_add_num(b, y + fs - 1);
	prof_buf_addstr(b, "\" id=\"scalemax\">");
	prof_flame_heatmap_add_weight(b, w->g.maxw, w->o->unit);
	prof_buf_addstr(b, " (the heaviest cell)</text></g>\n");
}

static void write_head(struct hm_writer *w, const char *title)
{
	const struct prof_flame_heatmap_opts *o = w->o;
	struct prof_buf *b = &w->b;
	double fs = o->fontsize;

	prof_flame_add_document_start(b, o->html, title, w->g.width, w->g.height);
	prof_buf_addstr(b, " xmlns=\"http://www.w3.org/2000/svg\">\n<style type=\"text/css\">\ntext{font-family:");
	prof_xml_escape(b, o->fonttype, strlen(o->fonttype));
	prof_buf_addf(b, ";font-size:%gpx;fill:#000}\n#title{text-anchor:middle;font-size:%gpx}\n"
		      "</style>\n", fs, fs + 5);
	prof_buf_addstr(b, "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
	prof_buf_addstr(b, "<text id=\"title\" x=\"50%\" y=\"");
	prof_flame_add_num(b, fs * 2);
	prof_buf_addstr(b, "\">");
	prof_xml_escape(b, title, strlen(title));
	prof_buf_addstr(b, "</text>\n<text id=\"subtitle\" x=\"50%\" y=\"");
	prof_flame_add_num(b, fs * 3.6);
	prof_buf_addstr(b, "\" text-anchor=\"middle\">");
	if (o->subtitle && *o->subtitle)
		prof_xml_escape(b, o->subtitle, strlen(o->subtitle));
	else if (o->event && *o->event)
		prof_buf_addstr(b, "event: ");
	if (!(o->subtitle && *o->subtitle) && o->event && *o->event)
		prof_xml_escape(b, o->event, strlen(o->event));
	prof_buf_addstr(b, "</text>\n");
}

int prof_flame_heatmap_write(const struct prof_heatmap *hm,
			     const struct prof_flame_heatmap_opts *o, struct prof_output *out)
{
	struct hm_writer w;
	double fs = o->fontsize;
	size_t i;

	memset(&w, 0, sizeof(w));
	w.hm = hm;
	w.o = o;
	w.out = out;
	/* about 1100 px of columns and 500 of rows, within readable bounds */
	w.g.cw = hm->seconds ? fmin(40, fmax(2, floor(1100.0 / (double)hm->seconds))) : 40;
	w.g.ch = fmin(20, fmax(3, floor(500.0 / (double)hm->per_second)));
	w.g.left = fs * 7;
	w.g.top = fs * 5;
	w.g.width = fmax(w.g.left + (double)hm->seconds * w.g.cw + 20, fs * 55);
	w.g.height = w.g.top + (double)hm->per_second * w.g.ch + fs * 6.5;
	w.g.maxw = 0;
	for (i = 0; i < hm->ncells; i++)
		if ((double)hm->cells[i].weight > w.g.maxw)
			w.g.maxw = (double)hm->cells[i].weight;
	if (!(w.g.maxw > 0))
		w.g.maxw = 1;
	write_head(&w, o->title ? o->title : "Subsecond Heat Map");
	write_axes(&w);
	write_scale(&w);
	hm_flush(&w, 1);
	if (w.r == 0)
		w.r = prof_flame_heatmap_write_cells(hm, o, &w.g, out);
	prof_buf_addstr(&w.b, "</svg>\n");
	hm_flush(&w, 1);
	if (o->html && w.r == 0)
		w.r = prof_flame_heatmap_write_page(hm, o, out);
	if (o->html)
		prof_buf_addstr(&w.b, "</body>\n</html>\n");
	hm_flush(&w, 1);
	prof_buf_release(&w.b);
	return w.r;
}

int prof_flame_heatmap_write_file(const struct prof_heatmap *hm,
				  const struct prof_flame_heatmap_opts *o, const char *path)
{
	struct prof_output *out = prof_output_open(path, PROF_OUT_ATOMIC,
						   path ? prof_compression_from_suffix(path)
							: PROF_COMP_NONE);

	if (!out)
		return -1;
	if (prof_flame_heatmap_write(hm, o, out)) {
		prof_output_abort(out);
		return -1;
	}
	return prof_output_close(out) ? -1 : 0;
}

/*
 * Whether path starts, after its metadata lines, with the proffold-heatmap
 * header (else it is a recording). An unreadable path is not: the
 * recording's reader then reports it.
 */
static int is_heatmap_tsv(const char *path)
{
	const char *header = prof_tsv_header(prof_tsv_schema_find("proffold-heatmap"));
	struct prof_lines *lr = prof_lines_open(path);
	char *line;
	size_t len;
	int r = 0;

	while (lr && (line = prof_lines_next(lr, &len))) {
		if (prof_meta_is_line(line, len))
			continue;
		r = len + 1 == strlen(header) && memcmp(line, header, len) == 0;
		break;
	}
	prof_lines_close(lr);
	return r;
}

/* A recording's heat map and its cells' stacks, in t (1 column). */
static int read_recording(const char *path, uint64_t bucket_ns, struct prof_heatmap *hm,
			  struct prof_stacks *t, struct prof_meta *meta)
{
	struct prof_profile_opts po;
	int r;

	prof_profile_opts_init(&po);
	prof_heatmap_init(hm, bucket_ns ? bucket_ns : PROF_HEATMAP_DEFAULT_BUCKET_NS);
	r = prof_heatmap_read(&path, 1, &po, hm, t, meta);
	if (!hm->ncells) {
		if (!prof_stacks_count(t) && r == 0)
			prof_warn("%s: no samples: nothing to draw", path);
		return -2;
	}
	return r;
}

int prof_flame_heatmap_file(const char *input, const struct prof_flame_opts *fo,
			    uint64_t bucket_ns, const char *output)
{
	struct prof_flame_heatmap_opts o;
	struct prof_flame_opts flame = *fo;
	struct prof_heatmap hm;
	struct prof_meta meta = PROF_META_INIT;
	struct prof_stacks t;
	const char *path = input && strcmp(input, "-") ? input : prof_spool_stdin();
	int r;

	prof_flame_heatmap_opts_init(&o);
	o.title = fo->title;
	o.subtitle = fo->subtitle;
	o.fontsize = fo->fontsize;
	o.fonttype = fo->fonttype;
	o.html = fo->html;
	prof_stacks_init(&t, 1);
	if (is_heatmap_tsv(path)) {
		if (bucket_ns)
			prof_info(1, "%s: a heat map TSV keeps its buckets: --bucket ignored",
				  input ? input : "stdin");
		r = prof_flame_heatmap_read_tsv(path, &hm, &meta);
	} else {
		r = read_recording(path, bucket_ns, &hm, &t, &meta);
		o.stacks = &t;
		o.flame = &flame;
		o.input = input && strcmp(input, "-") ? input : NULL;
	}
	if (r > -2) {
		o.event = prof_meta_get(&meta, "event");
		o.unit = prof_meta_get(&meta, "unit");
		if (o.unit && *o.unit && !strcmp(flame.countname, "samples"))
			flame.countname = o.unit;
		if (prof_flame_heatmap_write_file(&hm, &o, output))
			r = -1;
	}
	prof_heatmap_release(&hm);
	prof_stacks_release(&t);
	prof_meta_release(&meta);
	return r ? -1 : 0;
}
