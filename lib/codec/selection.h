#ifndef PROF_CODEC_SELECTION_H
#define PROF_CODEC_SELECTION_H
/*
 * Which codecs and levels a benchmark runs (profcompress -e): a spec is
 * items separated by '/', each a codec name, "codec:LEVELS" (levels and
 * ranges separated by ',': "zstd:-3--1,3,19") or an alias of the table
 * below ("fast", "default", "all"). The result is a list of cells, each
 * (codec, level) once, in the order first named. Inside an alias, codecs
 * this build left out are skipped; named directly they are an error.
 */
#include <stddef.h>

#include "codec/codec.h"

/* One (codec, level) pair; level PROF_CODEC_NOLEVEL for codecs without. */
struct prof_codec_cell {
	const struct prof_codec *codec;
	int level;
};

/* A growing list of cells; { 0 } is empty. Release with prof_codec_cells_release(). */
struct prof_codec_cells {
	struct prof_codec_cell *v;
	size_t n, cap;
};

struct prof_codec_alias {
	const char *name, *spec;
};

/* The aliases, exactly as profcompress(1) defines them; ends with a NULL name. */
extern const struct prof_codec_alias prof_codec_aliases[];

/*
 * Add the cells of spec to cells (those already there are not repeated).
 * Returns 0, or -1 with a message in err ("unknown codec 'nope' in
 * 'nope/lz4' (see profcompress -l)", "zstd: level 23 out of range
 * -131072..22", "zstd: -41141-1 makes more than 1000 codec levels in
 * 'zstd:-41141-1'": a selection holds at most PROF_CODEC_CELLS_MAX cells,
 * each one a benchmark); cells may then hold part of the spec.
 */
#define PROF_CODEC_CELLS_MAX 1000
int prof_codec_cells_parse(struct prof_codec_cells *cells, const char *spec,
			   char *err, size_t errlen);

/* Keep the first cell of each codec, in order (decoding has no level). */
void prof_codec_cells_one_per_codec(struct prof_codec_cells *cells);

/* Free the list; it is empty again. */
void prof_codec_cells_release(struct prof_codec_cells *cells);

/* "codec" or "codec:level", as a spec names a cell, into buf. */
void prof_codec_cell_name(const struct prof_codec *c, int level, char *buf, size_t n);

#endif
