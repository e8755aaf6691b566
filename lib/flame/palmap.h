#ifndef PROF_FLAME_PALMAP_H
#define PROF_FLAME_PALMAP_H
/*
 * A consistent palette (flamegraph.pl --cp): a file of "name->rgb(r,g,b)"
 * lines mapping function names to colours, read before drawing so that a
 * function keeps the colour it had in earlier graphs, and written back
 * (sorted by name, atomically) with the colours of every drawn frame.
 */
#include <stddef.h>
#include <stdint.h>
#include "core/intern.h"

struct prof_flame_palmap {
	struct prof_intern names;
	uint32_t *rgb;		/* name id -> 0xRRGGBB */
	size_t cap;
};

/* Empty map. */
void prof_flame_palmap_init(struct prof_flame_palmap *m);

/*
 * Load path into m; a missing file is an empty map. Malformed lines are
 * reported as "prog: path:line: ..." and make it return -1 (valid lines
 * are kept). Returns 0 or -1.
 */
int prof_flame_palmap_load(struct prof_flame_palmap *m, const char *path);

/* The colour of name[0..len): returns 0 and sets *rgb, or -1 if it has none. */
int prof_flame_palmap_get(const struct prof_flame_palmap *m, const char *name, size_t len,
			  uint32_t *rgb);

/* Give name[0..len) colour rgb (replacing the one it had). */
void prof_flame_palmap_set(struct prof_flame_palmap *m, const char *name, size_t len,
			   uint32_t rgb);

/* Write m to path (atomic replace). Returns 0 or -1 (reported). */
int prof_flame_palmap_save(const struct prof_flame_palmap *m, const char *path);

void prof_flame_palmap_release(struct prof_flame_palmap *m);

#endif
