/*
 * Differential flame graphs (flame.h): two-count input, BEFORE in weight
 * column 0 and AFTER in column 1, drawn with AFTER's widths and the
 * colour of the change (palette.h's prof_flame_diff_color()); here what
 * only they need: reading two profiles into one table, --normalize and
 * the legend.
 */
#include <string.h>
#include "base/error.h"
#include "base/escape.h"
#include "flame/flame.h"
#include "flame/internal.h"

static double column_sum(const struct prof_stacks *t, size_t col)
{
	size_t i, n = prof_stacks_count(t);
	double s = 0;

	for (i = 0; i < n; i++)
		s += prof_stacks_weights(t, (uint32_t)i)[col];
	return s;
}

int prof_flame_read_diff(const char *before, const char *after, struct prof_stacks *t,
			 struct prof_meta *meta)
{
	const char *paths[2] = { before, after }, *unit[2];
	struct prof_meta side_meta[2] = { PROF_META_INIT, PROF_META_INIT };
	int i, rval = 0;

	for (i = 0; i < 2; i++) {
		struct prof_stacks side;
		int r, ncounts;

		prof_stacks_init(&side, 2);
		r = prof_flame_read_profiles(&paths[i], 1, &side, &side_meta[i], NULL, &ncounts);
		if (r < rval)
			rval = r;
		if (ncounts == 2) {
			prof_warn("%s: already differential (two counts per line); "
				  "--diff takes two ordinary folded files", paths[i]);
			rval = -2;
		}
		prof_stacks_merge_column(t, (size_t)i, &side, 0);
		prof_stacks_release(&side);
	}
	/* Widths of nanoseconds against widths of bytes mean nothing. */
	unit[0] = prof_meta_get(&side_meta[0], "unit");
	unit[1] = prof_meta_get(&side_meta[1], "unit");
	if (unit[0] && unit[1] && strcmp(unit[0], unit[1])) {
		prof_warn("%s is in %s, %s in %s: a differential of different units means nothing",
			  before, unit[0], after, unit[1]);
		rval = -2;
	}
	prof_meta_merge(meta, &side_meta[0]);
	prof_meta_merge(meta, &side_meta[1]);
	prof_meta_release(&side_meta[0]);
	prof_meta_release(&side_meta[1]);
	return rval;
}

int prof_flame_normalize(struct prof_stacks *t, struct prof_flame_seq *seq)
{
	double before = column_sum(t, 0), after = column_sum(t, 1);
	size_t k, n = prof_stacks_count(t);

	if (!(before > 0 && after > 0 && before != after))
		return 0;
	for (k = 0; k < n; k++)
		prof_stacks_weights(t, (uint32_t)k)[0] *= after / before;
	for (k = 0; seq && k < seq->n; k++)
		seq->w[k * 2] *= after / before;
	return 1;
}

void prof_flame_legend_item(struct prof_buf *b, double *x, double y, double fs, uint32_t fill,
			    const char *text)
{
	prof_buf_addstr(b, "<rect x=\"");
	prof_flame_add_num(b, *x);
	prof_buf_addstr(b, "\" y=\"");
	prof_flame_add_num(b, y - fs + 2);
	prof_buf_addstr(b, "\" width=\"");
	prof_flame_add_num(b, fs);
	prof_buf_addstr(b, "\" height=\"");
	prof_flame_add_num(b, fs);
	prof_buf_addstr(b, "\" fill=\"");
	prof_flame_add_hex(b, fill);
	prof_buf_addstr(b, "\" stroke=\"#808080\" stroke-width=\"0.5\"/><text x=\"");
	prof_flame_add_num(b, *x + fs + 4);
	prof_buf_addstr(b, "\" y=\"");
	prof_flame_add_num(b, y);
	prof_buf_addstr(b, "\">");
	prof_xml_escape(b, text, strlen(text));
	prof_buf_addstr(b, "</text>");
	*x += fs + 4 + (double)strlen(text) * fs * 0.55 + fs;
}

/*
 * The legend says what red, blue and white mean, what the widths are, and
 * which file (or column) is BEFORE and AFTER.
 */
void prof_flame_write_legend(struct prof_flame_writer *w, double y)
{
	const struct prof_flame_opts *o = w->o;
	struct prof_buf *b = &w->b;
	double x = PROF_FLAME_XPAD, fs = o->fontsize;

	prof_buf_addstr(b, "<g id=\"legend\">");
	prof_flame_legend_item(b, &x, y, fs, PROF_RGB(255, 0, 0),
			       o->negate ? "shrank (AFTER < BEFORE)" : "grew (AFTER > BEFORE)");
	prof_flame_legend_item(b, &x, y, fs, PROF_RGB(0, 0, 255),
			       o->negate ? "grew (AFTER > BEFORE)" : "shrank (AFTER < BEFORE)");
	prof_flame_legend_item(b, &x, y, fs, PROF_RGB(255, 255, 255), "unchanged");
	prof_buf_addstr(b, "<text x=\"");
	prof_flame_add_num(b, x);
	prof_buf_addstr(b, "\" y=\"");
	prof_flame_add_num(b, y);
	prof_buf_addstr(b, "\">widths: AFTER; ");
	if (o->diff_before && o->diff_after) {
		prof_buf_addstr(b, "BEFORE: ");
		prof_xml_escape(b, o->diff_before, strlen(o->diff_before));
		prof_buf_addstr(b, ", AFTER: ");
		prof_xml_escape(b, o->diff_after, strlen(o->diff_after));
	} else {
		prof_buf_addstr(b, "BEFORE, AFTER: the first and second count of each stack");
	}
	prof_buf_addstr(b, "</text></g>\n");
}
