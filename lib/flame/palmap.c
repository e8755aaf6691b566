/* The consistent palette file (palmap.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/error.h"
#include "base/xalloc.h"
#include "flame/internal.h"
#include "flame/palette.h"
#include "flame/palmap.h"
#include "io/input.h"
#include "io/output.h"

void prof_flame_palmap_init(struct prof_flame_palmap *m)
{
	memset(m, 0, sizeof(*m));
	prof_intern_init(&m->names);
}

void prof_flame_palmap_release(struct prof_flame_palmap *m)
{
	prof_intern_release(&m->names);
	free(m->rgb);
	memset(m, 0, sizeof(*m));
}

void prof_flame_palmap_set(struct prof_flame_palmap *m, const char *name, size_t len,
			   uint32_t rgb)
{
	uint32_t id = prof_intern(&m->names, name, len);

	PROF_GROW(m->rgb, (size_t)id + 1, m->cap);
	m->rgb[id] = rgb;
}

int prof_flame_palmap_get(const struct prof_flame_palmap *m, const char *name, size_t len,
			  uint32_t *rgb)
{
	uint32_t id = prof_intern_find(&m->names, name, len);

	if (id == UINT32_MAX || id >= m->cap)
		return -1;
	*rgb = m->rgb[id];
	return 0;
}

int prof_flame_palmap_load(struct prof_flame_palmap *m, const char *path)
{
	struct prof_input *in;
	struct prof_lines *lr;
	size_t len;
	char *line;
	int rval = 0;
	FILE *probe = fopen(path, "r");

	if (!probe)
		return 0;	/* no map yet: flamegraph.pl starts an empty one */
	fclose(probe);
	if (!(in = prof_input_open(path)))
		return -1;
	lr = prof_lines_from_input(in);
	while ((line = prof_lines_next(lr, &len)) != NULL) {
		char *arrow = NULL, *p;
		uint32_t c;

		for (p = line; p + 1 < line + len; p++) {
			if (p[0] == '-' && p[1] == '>')
				arrow = p;
		}
		if (len == 0)
			continue;
		if (!arrow || prof_flame_parse_color(arrow + 2, &c)) {
			prof_input_warn(path, prof_lines_lineno(lr),
					"expected NAME->rgb(R,G,B) in palette file");
			rval = -1;
			continue;
		}
		prof_flame_palmap_set(m, line, (size_t)(arrow - line), c);
	}
	if (prof_lines_failed(lr) || prof_lines_too_long(lr))
		rval = -1;
	prof_lines_close(lr);
	return rval;
}

int prof_flame_palmap_save(const struct prof_flame_palmap *m, const char *path)
{
	size_t n = prof_intern_count(&m->names), i;
	uint32_t *ids = xmalloc((n ? n : 1) * sizeof(*ids));
	struct prof_output *o = prof_output_open(path, PROF_OUT_ATOMIC, PROF_COMP_NONE);
	int r = 0;

	if (!o) {
		free(ids);
		return -1;
	}
	for (i = 0; i < n; i++)
		ids[i] = (uint32_t)i;
	qsort_r(ids, n, sizeof(*ids), prof_flame_compare_names, (void *)&m->names);
	for (i = 0; i < n && r == 0; i++) {
		size_t len;
		const char *s = prof_intern_str(&m->names, ids[i], &len);
		uint32_t c = m->rgb[ids[i]];

		r = prof_output_write(o, s, len);
		if (r == 0)
			r = prof_output_printf(o, "->rgb(%u,%u,%u)\n", c >> 16, (c >> 8) & 0xff,
					       c & 0xff);
	}
	free(ids);
	if (r) {
		prof_output_abort(o);
		return -1;
	}
	return prof_output_close(o);
}
