#ifndef PROF_FLAME_PALETTE_H
#define PROF_FLAME_PALETTE_H
/*
 * Frame colours, exactly flamegraph.pl's: its palettes (--colors), the
 * colour a name gets in each (seeded by the name, so a function keeps its
 * colour from graph to graph), its --hash and --random variants, the
 * differential white-to-red/blue scale, and the background gradients.
 *
 * Colours are 0xRRGGBB values. Frame names may end in an annotation
 * "_[k]" (kernel), "_[i]" (inlined), "_[j]" (JIT) or "_[w]" (waker): the
 * multi palettes (java, js, perl, wakeup, chain) choose a flat palette by
 * it and by name patterns; labels and tooltips drop it.
 */
#include <stddef.h>
#include <stdint.h>

/* Colour palettes (flamegraph.pl --colors), in the order of their names. */
enum prof_flame_palette {
	PROF_PAL_HOT, PROF_PAL_MEM, PROF_PAL_IO, PROF_PAL_WAKEUP, PROF_PAL_CHAIN,
	PROF_PAL_JAVA, PROF_PAL_JS, PROF_PAL_PERL, PROF_PAL_RED, PROF_PAL_GREEN,
	PROF_PAL_BLUE, PROF_PAL_AQUA, PROF_PAL_YELLOW, PROF_PAL_PURPLE,
	PROF_PAL_ORANGE,
};

/*
 * Palette by name ("hot", "mem", ...). Returns 0 and sets *p, or -1 if
 * the name is unknown.
 */
int prof_flame_palette_parse(const char *name, enum prof_flame_palette *p);

/* The name of palette i (0, 1, ...: every palette in turn), NULL past the last. */
const char *prof_flame_palette_name(size_t i);

/* Append every palette name to out, separated by sep ("hot, mem, ..."). */
struct prof_buf;
void prof_flame_palette_list(struct prof_buf *out, const char *sep);

/* The default background gradient name for a palette ("yellow", ...). */
const char *prof_flame_palette_bg(enum prof_flame_palette p);

/*
 * Background by name: "yellow", "blue", "green", "grey" (gradients) or a
 * flat "#rrggbb". Sets the two gradient stops (7-byte "#rrggbb" strings
 * in c1, c2, each at least 8 bytes). Returns 0, or -1 if invalid.
 */
int prof_flame_bg_parse(const char *name, char *c1, char *c2);

/*
 * A colour written "#rrggbb" or "rgb(r,g,b)" (components 0..255), as
 * palette files hold them. Returns 0 and sets *rgb, or -1.
 */
int prof_flame_parse_color(const char *s, uint32_t *rgb);

/*
 * The colour flamegraph.pl gives name[0..len) in palette p: hot, mem and
 * io from the name-seeded random generator (or the name hash with hash),
 * the multi palettes choosing a flat palette from annotations and name
 * patterns.
 */
uint32_t prof_flame_color(enum prof_flame_palette p, int hash, const char *name, size_t len);

/*
 * A random colour of palette p (flamegraph.pl --random): the multi
 * palettes still choose their flat palette by name, the shade is drawn
 * from the generator *state (any seed; advanced).
 */
uint32_t prof_flame_color_random(enum prof_flame_palette p, const char *name, size_t len,
				 uint64_t *state);

/*
 * flamegraph.pl's differential scale: white for delta 0, towards red for
 * delta > 0 (grew) and blue for delta < 0 (shrank), saturated at |delta|
 * == max (> 0).
 */
uint32_t prof_flame_diff_color(double delta, double max);

/*
 * Length of name without a trailing annotation _[k], _[i], _[j] or _[w]
 * (those only colour frames; labels and tooltips drop them).
 */
size_t prof_flame_deannotate(const char *name, size_t len);

#endif
