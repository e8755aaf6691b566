/*
 * Frame colours (palette.h): flamegraph.pl's palettes, reproduced value
 * for value (its name-seeded Perl rand(), its namehash, its multi
 * palettes' name patterns), checked against its output by the tests.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "base/escape.h"
#include "base/xalloc.h"
#include "flame/internal.h"
#include "flame/palette.h"

/* ---- palettes ---------------------------------------------------------- */

static const char *const palette_names[] = {
	"hot", "mem", "io", "wakeup", "chain", "java", "js", "perl", "red",
	"green", "blue", "aqua", "yellow", "purple", "orange",
};

int prof_flame_palette_parse(const char *name, enum prof_flame_palette *p)
{
	size_t i;

	for (i = 0; i < sizeof(palette_names) / sizeof(palette_names[0]); i++) {
		if (strcmp(name, palette_names[i]) == 0) {
			*p = (enum prof_flame_palette)i;
			return 0;
		}
	}
	return -1;
}

const char *prof_flame_palette_name(size_t i)
{
	return i < sizeof(palette_names) / sizeof(palette_names[0]) ? palette_names[i] : NULL;
}

void prof_flame_palette_list(struct prof_buf *out, const char *sep)
{
	size_t i;

	for (i = 0; i < sizeof(palette_names) / sizeof(palette_names[0]); i++)
		prof_buf_addf(out, "%s%s", i ? sep : "", palette_names[i]);
}

const char *prof_flame_palette_bg(enum prof_flame_palette p)
{
	switch (p) {
	case PROF_PAL_MEM:
		return "green";
	case PROF_PAL_IO: case PROF_PAL_WAKEUP: case PROF_PAL_CHAIN:
		return "blue";
	case PROF_PAL_RED: case PROF_PAL_GREEN: case PROF_PAL_BLUE: case PROF_PAL_AQUA:
	case PROF_PAL_YELLOW: case PROF_PAL_PURPLE: case PROF_PAL_ORANGE:
		return "grey";
	default:
		return "yellow";
	}
}

int prof_flame_parse_color(const char *s, uint32_t *out)
{
	unsigned r, g, b;
	int n = 0;
	size_t i;

	if (s[0] == '#' && strlen(s) == 7) {
		for (i = 1; i < 7; i++)
			if (!strchr("0123456789abcdefABCDEF", s[i]))
				return -1;
		*out = (uint32_t)strtoul(s + 1, NULL, 16);
		return 0;
	}
	if (sscanf(s, "rgb(%3u,%3u,%3u)%n", &r, &g, &b, &n) == 3 && s[n] == '\0' &&
	    r < 256 && g < 256 && b < 256) {
		*out = PROF_RGB(r, g, b);
		return 0;
	}
	return -1;
}

int prof_flame_bg_parse(const char *name, char *c1, char *c2)
{
	static const char *const bg[][3] = {
		{ "yellow", "#eeeeee", "#eeeeb0" },
		{ "blue", "#eeeeee", "#e0e0ff" },
		{ "green", "#eef2ee", "#e0ffe0" },
		{ "grey", "#f8f8f8", "#e8e8e8" },
		{ "gray", "#f8f8f8", "#e8e8e8" },
	};
	uint32_t c;
	size_t i;

	for (i = 0; i < sizeof(bg) / sizeof(bg[0]); i++) {
		if (strcmp(name, bg[i][0]) == 0) {
			memcpy(c1, bg[i][1], 8);
			memcpy(c2, bg[i][2], 8);
			return 0;
		}
	}
	if (name[0] != '#' || prof_flame_parse_color(name, &c))
		return -1;
	memcpy(c1, name, 8);
	memcpy(c2, name, 8);
	return 0;
}
/* ---- colours ----------------------------------------------------------- */

/* Next code point of s[*i..len) (invalid bytes stand for themselves). */
static unsigned next_cp(const char *s, size_t len, size_t *i)
{
	const unsigned char *u = (const unsigned char *)s + *i;
	size_t n = prof_utf8_seqlen(u, len - *i);
	unsigned cp;
	size_t k;

	if (n <= 1) {
		(*i)++;
		return u[0];
	}
	cp = u[0] & (0xff >> (n + 1));
	for (k = 1; k < n; k++)
		cp = (cp << 6) | (u[k] & 0x3f);
	*i += n;
	return cp;
}

/*
 * flamegraph.pl's namehash() over code points cps[0..n): weights the
 * first three characters; "module`" prefixes are skipped first.
 */
static double namehash_cps(const unsigned *cps, size_t n)
{
	double vector = 0, weight = 1, max = 1;
	unsigned mod = 10;
	size_t i, start = 0;

	for (i = 1; i < n; i++) {
		if (cps[i] == '`') {
			start = i + 1;
			break;
		}
	}
	for (i = start; i < n; i++) {
		unsigned v = cps[i] % mod;

		vector += ((double)v / (mod++ - 1)) * weight;
		max += weight;
		weight *= 0.70;
		if (mod > 12)
			break;
	}
	return 1 - vector / max;
}

/*
 * Perl's rand(1) right after srand(seed): its drand48 (48-bit LCG seeded
 * with seed << 16 | 0x330e). flamegraph.pl seeds with the sum of the
 * name's code points, so a name always gets the same colour.
 */
static double perl_seeded_rand(uint32_t seed)
{
	uint64_t x = (((uint64_t)seed << 16) + 0x330e) & 0xffffffffffffULL;

	x = (x * 0x5deece66dULL + 0xb) & 0xffffffffffffULL;
	return ldexp((double)x, -48);
}

static int ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

static int contains(const char *s, size_t len, const char *needle)
{
	return memmem(s, len, needle, strlen(needle)) != NULL;
}

static int starts_java_package(const char *s, size_t len)
{
	static const char *const pkgs[] = { "java/", "javax/", "jdk/", "net/", "org/",
					    "com/", "io/", "sun/" };
	size_t i;

	if (len && s[0] == 'L')
		s++, len--;
	for (i = 0; i < sizeof(pkgs) / sizeof(pkgs[0]); i++) {
		size_t n = strlen(pkgs[i]);

		if (len >= n && memcmp(s, pkgs[i], n) == 0)
			return 1;
	}
	return 0;
}

/* The flat palette a multi palette (java, js, perl, wakeup, chain) picks. */
static enum prof_flame_palette resolve_multi(enum prof_flame_palette p, const char *s, size_t len)
{
	const char *slash;

	switch (p) {
	case PROF_PAL_JAVA:
		if (ends_with(s, len, "_[j]"))
			return PROF_PAL_GREEN;
		if (ends_with(s, len, "_[i]"))
			return PROF_PAL_AQUA;
		if (starts_java_package(s, len) || contains(s, len, ":::"))
			return PROF_PAL_GREEN;
		if (contains(s, len, "::"))
			return PROF_PAL_YELLOW;
		if (ends_with(s, len, "_[k]"))
			return PROF_PAL_ORANGE;
		return PROF_PAL_RED;
	case PROF_PAL_PERL:
		if (contains(s, len, "::"))
			return PROF_PAL_YELLOW;
		if (contains(s, len, "Perl") || contains(s, len, ".pl"))
			return PROF_PAL_GREEN;
		if (ends_with(s, len, "_[k]"))
			return PROF_PAL_ORANGE;
		return PROF_PAL_RED;
	case PROF_PAL_JS:
		if (ends_with(s, len, "_[j]"))
			return memchr(s, '/', len) ? PROF_PAL_GREEN : PROF_PAL_AQUA;
		if (contains(s, len, "::"))
			return PROF_PAL_YELLOW;
		slash = memchr(s, '/', len);
		if (slash && contains(slash + 1, len - (size_t)(slash + 1 - s), ".js"))
			return PROF_PAL_GREEN;
		if (memchr(s, ':', len))
			return PROF_PAL_AQUA;
		if (len == 1 && s[0] == ' ')
			return PROF_PAL_GREEN;
		if (contains(s, len, "_[k]"))
			return PROF_PAL_ORANGE;
		return PROF_PAL_RED;
	case PROF_PAL_WAKEUP:
		return PROF_PAL_AQUA;
	case PROF_PAL_CHAIN:
		return contains(s, len, "_[w]") ? PROF_PAL_AQUA : PROF_PAL_BLUE;
	default:
		return p;
	}
}

/* The colour of palette p (multi palettes resolved by name) for v1..v3. */
static uint32_t palette_rgb(enum prof_flame_palette p, const char *name, size_t len, double v1,
			    double v2, double v3)
{
	p = resolve_multi(p, name, len);
	switch (p) {
	case PROF_PAL_HOT:
		return PROF_RGB(205 + (int)(50 * v3), (int)(230 * v1), (int)(55 * v2));
	case PROF_PAL_MEM:
		return PROF_RGB(0, 190 + (int)(50 * v2), (int)(210 * v1));
	case PROF_PAL_IO: {
		int r = 80 + (int)(60 * v1);

		return PROF_RGB(r, r, 190 + (int)(55 * v2));
	}
	case PROF_PAL_RED: {
		int x = 50 + (int)(80 * v1);

		return PROF_RGB(200 + (int)(55 * v1), x, x);
	}
	case PROF_PAL_GREEN: {
		int x = 50 + (int)(60 * v1);

		return PROF_RGB(x, 200 + (int)(55 * v1), x);
	}
	case PROF_PAL_BLUE: {
		int x = 80 + (int)(60 * v1);

		return PROF_RGB(x, x, 205 + (int)(50 * v1));
	}
	case PROF_PAL_YELLOW: {
		int x = 175 + (int)(55 * v1);

		return PROF_RGB(x, x, 50 + (int)(20 * v1));
	}
	case PROF_PAL_PURPLE: {
		int x = 190 + (int)(65 * v1);

		return PROF_RGB(x, 80 + (int)(60 * v1), x);
	}
	case PROF_PAL_AQUA:
		return PROF_RGB(50 + (int)(60 * v1), 165 + (int)(55 * v1), 165 + (int)(55 * v1));
	case PROF_PAL_ORANGE:
		return PROF_RGB(190 + (int)(65 * v1), 90 + (int)(65 * v1), 0);
	default:
		return 0;
	}
}

/*
 * flamegraph.pl --hash: namehash() of the name and of the name reversed,
 * over its code points (cps is a scratch array of at least len entries).
 */
static void hash_values(const char *name, size_t len, unsigned *cps, double *v1, double *v2)
{
	size_t n = 0, i = 0;

	while (i < len)
		cps[n++] = next_cp(name, len, &i);
	*v1 = namehash_cps(cps, n);
	for (i = 0; i < n / 2; i++) {
		unsigned t = cps[i];

		cps[i] = cps[n - 1 - i];
		cps[n - 1 - i] = t;
	}
	*v2 = namehash_cps(cps, n);
}

uint32_t prof_flame_color(enum prof_flame_palette p, int hash, const char *name, size_t len)
{
	unsigned small[64] = { 0 }, *cps;
	uint32_t sum = 0;
	double v1, v2;
	size_t i = 0;

	if (hash) {
		cps = len <= sizeof(small) / sizeof(small[0]) ? small
			: xreallocarray(NULL, len, sizeof(*cps));
		hash_values(name, len, cps, &v1, &v2);
		if (cps != small)
			free(cps);
		return palette_rgb(p, name, len, v1, v2, v2);
	}
	while (i < len)
		sum += next_cp(name, len, &i);
	v1 = perl_seeded_rand(sum);
	return palette_rgb(p, name, len, v1, v1, v1);
}

uint32_t prof_flame_color_random(enum prof_flame_palette p, const char *name, size_t len,
				 uint64_t *state)
{
	double v[3];
	int k;

	for (k = 0; k < 3; k++) {
		/* splitmix64, top 53 bits as a double in [0, 1) */
		uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		z ^= z >> 31;
		v[k] = ldexp((double)(z >> 11), -53);
	}
	return palette_rgb(p, name, len, v[0], v[1], v[2]);
}

/* flamegraph.pl's color_scale(). */
uint32_t prof_flame_diff_color(double delta, double max)
{
	int r = 255, g = 255, b = 255;

	if (delta > 0) {
		double v = 210 * (max - delta) / max;

		g = b = v < 0 ? 0 : (int)v;
	} else if (delta < 0) {
		double v = 210 * (max + delta) / max;

		r = g = v < 0 ? 0 : (int)v;
	}
	return PROF_RGB(r, g, b);
}

size_t prof_flame_deannotate(const char *name, size_t len)
{
	if (len >= 4 && name[len - 4] == '_' && name[len - 3] == '[' && name[len - 1] == ']' &&
	    strchr("kwij", name[len - 2]) && name[len - 2])
		return len - 4;
	return len;
}

/* sRGB component c (0..255) in linear light. */
static double linear(uint32_t c)
{
	double v = c / 255.0;

	return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
}

/*
 * Whether white text reads better than black on fill 0xRRGGBB: the WCAG
 * contrast ratio against white beats the one against black when the
 * relative luminance is below 0.179.
 */
int prof_flame_dark(uint32_t rgb)
{
	double l = 0.2126 * linear(rgb >> 16) + 0.7152 * linear((rgb >> 8) & 0xff) +
		   0.0722 * linear(rgb & 0xff);

	return l < 0.179;
}
