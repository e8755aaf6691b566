/*
 * Flame graph layout and SVG/HTML writer (flame.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "base/buf.h"
#include "base/error.h"
#include "base/escape.h"
#include "flame/flame.h"
#include "formats/folded.h"
#include "io/input.h"
#include "io/output.h"
#include "base/xalloc.h"

/* Report at most this many malformed lines of one input individually. */

/* Geometry constants of flamegraph.pl. */
#define XPAD 10.0
#define FRAMEPAD 1.0
#define FLUID_WIDTH 1200.0

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

static int is_hex_color(const char *s)
{
	size_t i;

	if (s[0] != '#' || strlen(s) != 7)
		return 0;
	for (i = 1; i < 7; i++) {
		char c = s[i];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
			return 0;
	}
	return 1;
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
	size_t i;

	for (i = 0; i < sizeof(bg) / sizeof(bg[0]); i++) {
		if (strcmp(name, bg[i][0]) == 0) {
			memcpy(c1, bg[i][1], 8);
			memcpy(c2, bg[i][2], 8);
			return 0;
		}
	}
	if (!is_hex_color(name))
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

static uint32_t rgb(int r, int g, int b)
{
	return ((uint32_t)r << 16) | ((uint32_t)g << 8) | (uint32_t)b;
}

static uint32_t palette_rgb(enum prof_flame_palette p, const char *name, size_t len, double v1,
			    double v2, double v3);

uint32_t prof_flame_color(enum prof_flame_palette p, int hash, const char *name, size_t len)
{
	unsigned small[64] = { 0 }, *cps = small;
	size_t n = 0, i = 0;
	double v1, v2, v3;

	if (hash) {
		size_t cap = sizeof(small) / sizeof(small[0]);

		while (i < len) {
			if (n == cap) {
				unsigned *bigger = xreallocarray(NULL, cap * 2, sizeof(*bigger));

				memcpy(bigger, cps, n * sizeof(*cps));
				if (cps != small)
					free(cps);
				cps = bigger;
				cap *= 2;
			}
			cps[n++] = next_cp(name, len, &i);
		}
		v1 = namehash_cps(cps, n);
		for (i = 0; i < n / 2; i++) {
			unsigned t = cps[i];

			cps[i] = cps[n - 1 - i];
			cps[n - 1 - i] = t;
		}
		v2 = v3 = namehash_cps(cps, n);
		if (cps != small)
			free(cps);
	} else {
		uint32_t sum = 0;

		while (i < len)
			sum += next_cp(name, len, &i);
		v1 = v2 = v3 = perl_seeded_rand(sum);
	}
	return palette_rgb(p, name, len, v1, v2, v3);
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

/* The colour of palette p (multi palettes resolved by name) for v1..v3. */
static uint32_t palette_rgb(enum prof_flame_palette p, const char *name, size_t len, double v1,
			    double v2, double v3)
{
	p = resolve_multi(p, name, len);
	switch (p) {
	case PROF_PAL_HOT:
		return rgb(205 + (int)(50 * v3), (int)(230 * v1), (int)(55 * v2));
	case PROF_PAL_MEM:
		return rgb(0, 190 + (int)(50 * v2), (int)(210 * v1));
	case PROF_PAL_IO: {
		int r = 80 + (int)(60 * v1);

		return rgb(r, r, 190 + (int)(55 * v2));
	}
	case PROF_PAL_RED: {
		int x = 50 + (int)(80 * v1);

		return rgb(200 + (int)(55 * v1), x, x);
	}
	case PROF_PAL_GREEN: {
		int x = 50 + (int)(60 * v1);

		return rgb(x, 200 + (int)(55 * v1), x);
	}
	case PROF_PAL_BLUE: {
		int x = 80 + (int)(60 * v1);

		return rgb(x, x, 205 + (int)(50 * v1));
	}
	case PROF_PAL_YELLOW: {
		int x = 175 + (int)(55 * v1);

		return rgb(x, x, 50 + (int)(20 * v1));
	}
	case PROF_PAL_PURPLE: {
		int x = 190 + (int)(65 * v1);

		return rgb(x, 80 + (int)(60 * v1), x);
	}
	case PROF_PAL_AQUA:
		return rgb(50 + (int)(60 * v1), 165 + (int)(55 * v1), 165 + (int)(55 * v1));
	case PROF_PAL_ORANGE:
		return rgb(190 + (int)(65 * v1), 90 + (int)(65 * v1), 0);
	default:
		return 0;
	}
}

/* flamegraph.pl's color_scale(): white to red (grew) or blue (shrank). */
static uint32_t diff_color(double delta, double max)
{
	int r = 255, g = 255, b = 255;

	if (delta > 0) {
		double v = 210 * (max - delta) / max;

		g = b = v < 0 ? 0 : (int)v;
	} else if (delta < 0) {
		double v = 210 * (max + delta) / max;

		r = g = v < 0 ? 0 : (int)v;
	}
	return rgb(r, g, b);
}

size_t prof_flame_deannotate(const char *name, size_t len)
{
	if (len >= 4 && name[len - 4] == '_' && name[len - 3] == '[' && name[len - 1] == ']' &&
	    strchr("kwij", name[len - 2]) && name[len - 2])
		return len - 4;
	return len;
}

/* ---- consistent palette ------------------------------------------------ */

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

static void palmap_set(struct prof_flame_palmap *m, const char *name, size_t len, uint32_t c)
{
	uint32_t id = prof_intern(&m->names, name, len);

	PROF_GROW(m->rgb, (size_t)id + 1, m->cap);
	m->rgb[id] = c;
}

/* Parse "rgb(r,g,b)" or "#rrggbb". Returns 0 or -1. */
static int parse_color(const char *s, uint32_t *out)
{
	unsigned r, g, b;
	int n = 0;

	if (is_hex_color(s)) {
		*out = (uint32_t)strtoul(s + 1, NULL, 16);
		return 0;
	}
	if (sscanf(s, "rgb(%3u,%3u,%3u)%n", &r, &g, &b, &n) == 3 && s[n] == '\0' &&
	    r < 256 && g < 256 && b < 256) {
		*out = rgb((int)r, (int)g, (int)b);
		return 0;
	}
	return -1;
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
		if (!arrow || parse_color(arrow + 2, &c)) {
			prof_input_warn(path, prof_lines_lineno(lr),
					"expected NAME->rgb(R,G,B) in palette file");
			rval = -1;
			continue;
		}
		palmap_set(m, line, (size_t)(arrow - line), c);
	}
	if (prof_lines_failed(lr))
		rval = -1;
	prof_lines_close(lr);
	return rval;
}

static int compare_names(const void *a, const void *b, void *ctx)
{
	const struct prof_intern *names = ctx;
	size_t la, lb;
	const char *sa = prof_intern_str(names, *(const uint32_t *)a, &la);
	const char *sb = prof_intern_str(names, *(const uint32_t *)b, &lb);
	int c = memcmp(sa, sb, la < lb ? la : lb);

	return c ? c : (la > lb) - (la < lb);
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
	qsort_r(ids, n, sizeof(*ids), compare_names, (void *)&m->names);
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

/* ---- name attributes --------------------------------------------------- */

static int is_xml_name(const char *s, size_t len)
{
	size_t i;

	if (len == 0)
		return 0;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		int alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';

		if (!alpha && (i == 0 || !((c >= '0' && c <= '9') || c == '-' || c == '.')))
			return 0;
	}
	return 1;
}

static char *escaped_copy(const char *s, size_t len)
{
	struct prof_buf b = PROF_BUF_INIT;

	prof_xml_escape(&b, s, len);
	return prof_buf_detach(&b, NULL);
}

int prof_flame_nameattr_load(struct prof_flame_nameattr *a, const char *path)
{
	struct prof_lines *lr = prof_lines_open(path);
	size_t len;
	char *line;
	int rval = 0;

	memset(a, 0, sizeof(*a));
	prof_intern_init(&a->names);
	if (!lr)
		return -1;
	while ((line = prof_lines_next(lr, &len)) != NULL) {
		char *tab = memchr(line, '\t', len), *p, *end = line + len;
		struct prof_buf g = PROF_BUF_INIT;
		uint32_t id;
		size_t old;

		if (len == 0)
			continue;
		if (!tab) {
			prof_input_warn(path, prof_lines_lineno(lr),
					"expected NAME<TAB>key=value... in name attribute file");
			rval = -1;
			continue;
		}
		id = prof_intern(&a->names, line, (size_t)(tab - line));
		old = a->cap;
		if ((size_t)id >= a->cap) {
			PROF_GROW(a->title, (size_t)id + 1, a->cap);
			a->href = xreallocarray(a->href, a->cap, sizeof(*a->href));
			a->target = xreallocarray(a->target, a->cap, sizeof(*a->target));
			a->gattrs = xreallocarray(a->gattrs, a->cap, sizeof(*a->gattrs));
			for (; old < a->cap; old++)
				a->title[old] = a->href[old] = a->target[old] = a->gattrs[old] = NULL;
		}
		for (p = tab + 1; p < end;) {
			char *next = memchr(p, '\t', (size_t)(end - p)), *fe = next ? next : end;
			char *eq = memchr(p, '=', (size_t)(fe - p));
			char **slot = NULL;

			if (!eq || !is_xml_name(p, (size_t)(eq - p))) {
				prof_input_warn(path, prof_lines_lineno(lr),
						"bad attribute \"%.*s\" (expected key=value)",
						(int)(fe - p), p);
				rval = -1;
			} else if (eq - p == 5 && memcmp(p, "title", 5) == 0) {
				slot = &a->title[id];
			} else if (eq - p == 4 && memcmp(p, "href", 4) == 0) {
				slot = &a->href[id];
			} else if (eq - p == 6 && memcmp(p, "target", 6) == 0) {
				slot = &a->target[id];
			} else {
				prof_buf_addch(&g, ' ');
				prof_buf_add(&g, p, (size_t)(eq - p));
				prof_buf_addstr(&g, "=\"");
				prof_xml_escape(&g, eq + 1, (size_t)(fe - eq - 1));
				prof_buf_addch(&g, '"');
			}
			if (slot) {
				free(*slot);
				/* the title is escaped when written, like any name */
				*slot = slot == &a->title[id] ? xmemdup(eq + 1, (size_t)(fe - eq - 1))
							       : escaped_copy(eq + 1, (size_t)(fe - eq - 1));
			}
			p = next ? next + 1 : end;
		}
		if (g.len) {
			free(a->gattrs[id]);
			a->gattrs[id] = prof_buf_detach(&g, NULL);
		}
		prof_buf_release(&g);
	}
	if (prof_lines_failed(lr))
		rval = -1;
	prof_lines_close(lr);
	return rval;
}

void prof_flame_nameattr_release(struct prof_flame_nameattr *a)
{
	size_t i, n = prof_intern_count(&a->names);

	for (i = 0; i < n && i < a->cap; i++) {
		free(a->title[i]);
		free(a->href[i]);
		free(a->target[i]);
		free(a->gattrs[i]);
	}
	free(a->title);
	free(a->href);
	free(a->target);
	free(a->gattrs);
	prof_intern_release(&a->names);
	memset(a, 0, sizeof(*a));
}

/* ---- reading ----------------------------------------------------------- */

void prof_flame_seq_release(struct prof_flame_seq *s)
{
	free(s->ids);
	free(s->w);
	memset(s, 0, sizeof(*s));
}

static void seq_add(struct prof_flame_seq *s, uint32_t id, const double *w)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1024;
		s->ids = xreallocarray(s->ids, s->cap, sizeof(*s->ids));
		s->w = xreallocarray(s->w, s->cap * 2, sizeof(*s->w));
	}
	s->ids[s->n] = id;
	s->w[s->n * 2] = w[0];
	s->w[s->n * 2 + 1] = w[1];
	s->n++;
}

static void on_stack(void *ctx, uint32_t id, const prof_weight *counts, int ncounts)
{
	double w[2];

	w[0] = counts[0];
	w[1] = ncounts == 2 ? counts[1] : 0;
	seq_add(ctx, id, w);
}

int prof_flame_read(struct prof_lines *lr, struct prof_stacks *t, struct prof_meta *meta,
		    struct prof_flame_seq *seq, struct prof_folded_stats *stats)
{
	struct prof_folded_reader fr;

	prof_folded_reader_init(&fr, t, meta, stats, prof_lines_name(lr));
	if (seq) {
		fr.on_stack = on_stack;
		fr.ctx = seq;
	}
	return prof_folded_reader_run(&fr, lr);
}

/* ---- transformations --------------------------------------------------- */

size_t prof_flame_transform(struct prof_stacks *dst, const struct prof_stacks *src,
			    prof_flame_rewrite_fn fn, void *ctx, struct prof_flame_seq *seq)
{
	size_t n = prof_stacks_count(src), id, kept = 0, cap = 0;
	uint32_t *map = xmalloc((n ? n : 1) * sizeof(*map)), *out = NULL;

	for (id = 0; id < n; id++) {
		size_t depth;
		const uint32_t *f = prof_stacks_frames(src, (uint32_t)id, &depth);
		long nd;

		PROF_GROW(out, depth * 2 + 1, cap);
		nd = fn(dst, src, f, depth, out, ctx);
		if (nd < 0) {
			map[id] = UINT32_MAX;
			continue;
		}
		map[id] = prof_stacks_add(dst, out, (size_t)nd, prof_stacks_weights(src, (uint32_t)id));
		kept++;
	}
	if (seq) {
		size_t i, j = 0;

		for (i = 0; i < seq->n; i++) {
			uint32_t m = map[seq->ids[i]];

			if (m == UINT32_MAX)
				continue;
			seq->ids[j] = m;
			seq->w[j * 2] = seq->w[i * 2];
			seq->w[j * 2 + 1] = seq->w[i * 2 + 1];
			j++;
		}
		seq->n = j;
		/* the weights were added to dst by id; a chart uses seq's */
	}
	free(out);
	free(map);
	return kept;
}

/* Frame id of src's frame f in dst (re-interned). */
static uint32_t reintern(struct prof_stacks *dst, const struct prof_stacks *src, uint32_t f)
{
	size_t len;
	const char *s = prof_stacks_frame_name(src, f, &len);

	return prof_stacks_frame(dst, s, len);
}

long prof_flame_rewrite_reverse(struct prof_stacks *dst, const struct prof_stacks *src,
				const uint32_t *frames, size_t depth, uint32_t *out, void *ctx)
{
	size_t i;

	(void)ctx;
	for (i = 0; i < depth; i++)
		out[i] = reintern(dst, src, frames[depth - 1 - i]);
	return (long)depth;
}

long prof_flame_rewrite_base(struct prof_stacks *dst, const struct prof_stacks *src,
			     const uint32_t *frames, size_t depth, uint32_t *out, void *ctx)
{
	const struct prof_flame_base *b = ctx;
	size_t i, j, k;

	for (i = 0; i < depth; i++) {
		size_t len;
		const char *s = prof_stacks_frame_name(src, frames[i], &len);

		for (k = 0; k < b->n; k++) {
			if (strlen(b->names[k]) == len && memcmp(b->names[k], s, len) == 0)
				break;
		}
		if (k < b->n)
			break;
	}
	if (i == depth)
		return -1;
	for (j = i; j < depth; j++)
		out[j - i] = reintern(dst, src, frames[j]);
	return (long)(depth - i);
}

long prof_flame_rewrite_chain(struct prof_stacks *dst, const struct prof_stacks *src,
			      const uint32_t *frames, size_t depth, uint32_t *out, void *ctx)
{
	struct prof_buf b = PROF_BUF_INIT;
	int waker = 0;
	size_t i;

	(void)ctx;
	for (i = 0; i < depth; i++) {
		size_t len;
		const char *s = prof_stacks_frame_name(src, frames[i], &len);

		if (len == 2 && s[0] == '-' && s[1] == '-') {
			waker = 1;
			out[i] = prof_stacks_frame(dst, s, len);
		} else if (waker && !ends_with(s, len, "_[w]")) {
			prof_buf_reset(&b);
			prof_buf_add(&b, s, len);
			prof_buf_addstr(&b, "_[w]");
			out[i] = prof_stacks_frame(dst, b.data, b.len);
		} else {
			out[i] = prof_stacks_frame(dst, s, len);
		}
	}
	prof_buf_release(&b);
	return (long)depth;
}

/* ---- layout ------------------------------------------------------------ */

void prof_flame_opts_init(struct prof_flame_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->width = 1200;
	o->frameheight = 16;
	o->fontsize = 12;
	o->fontwidth = 0.59;
	o->fonttype = "Verdana";
	o->minwidth = 0.1;
	o->countname = "samples";
	o->nametype = "Function:";
	o->palette = PROF_PAL_HOT;
	memcpy(o->bg1, "#eeeeee", 8);
	memcpy(o->bg2, "#eeeeb0", 8);
	o->factor = 1;
	o->maxdepth = 2000;
}

void prof_flame_graph_release(struct prof_flame_graph *g)
{
	free(g->nodes);
	memset(g, 0, sizeof(*g));
}

struct sort_ctx {
	const struct prof_stacks *t;
	const uint32_t *rank;
};

/* Order of stacks as frame sequences, frames by name rank; prefixes first. */
static int compare_stacks(const void *a, const void *b, void *p)
{
	const struct sort_ctx *c = p;
	size_t da, db, i, n;
	const uint32_t *fa = prof_stacks_frames(c->t, *(const uint32_t *)a, &da);
	const uint32_t *fb = prof_stacks_frames(c->t, *(const uint32_t *)b, &db);

	n = da < db ? da : db;
	for (i = 0; i < n; i++) {
		if (fa[i] != fb[i]) {
			uint32_t ra = c->rank[fa[i]], rb = c->rank[fb[i]];

			return ra < rb ? -1 : 1;
		}
	}
	return (da > db) - (da < db);
}

/* Stack ids with weight, sorted for the flow merge. */
static uint32_t *sorted_stacks(const struct prof_stacks *t, size_t wcol, int diff, size_t *n)
{
	size_t count = prof_stacks_count(t), nf = prof_intern_count(&t->frames), i, k = 0;
	uint32_t *ids = xmalloc((count ? count : 1) * sizeof(*ids));
	uint32_t *byname = xmalloc((nf ? nf : 1) * sizeof(*byname));
	uint32_t *rank = xmalloc((nf ? nf : 1) * sizeof(*rank));
	struct sort_ctx c = { t, rank };
	int sorted = 1;

	for (i = 0; i < nf; i++)
		byname[i] = (uint32_t)i;
	qsort_r(byname, nf, sizeof(*byname), compare_names, (void *)&t->frames);
	for (i = 0; i < nf; i++)
		rank[byname[i]] = (uint32_t)i;
	free(byname);
	for (i = 0; i < count; i++) {
		const prof_weight *w = prof_stacks_weights(t, (uint32_t)i);

		if (w[wcol] == 0 && (!diff || w[0] == 0))
			continue;
		ids[k] = (uint32_t)i;
		if (sorted && k && compare_stacks(&ids[k - 1], &ids[k], &c) > 0)
			sorted = 0;
		k++;
	}
	/* sorted input (proffold writes it) needs no sort */
	if (!sorted)
		qsort_r(ids, k, sizeof(*ids), compare_stacks, &c);
	free(rank);
	*n = k;
	return ids;
}

struct open_frame {
	uint32_t frame;
	double start;
	double delta;
};

struct flow {
	struct prof_flame_graph *g;
	struct open_frame *path;	/* path[0] is the root */
	size_t depth, cap;		/* frames open above the root */
	double time, minw;
	unsigned maxdepth;
};

static void emit(struct flow *f, size_t depth)
{
	struct prof_flame_graph *g = f->g;
	const struct open_frame *o = &f->path[depth];
	double w = f->time - o->start;

	if (depth && (w <= 0 || w < f->minw)) {	/* the root is always drawn */
		g->pruned++;
		return;
	}
	if (depth > f->maxdepth) {
		g->too_deep++;
		return;
	}
	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 4096;
		g->nodes = xreallocarray(g->nodes, g->cap, sizeof(*g->nodes));
	}
	g->nodes[g->n].frame = depth ? o->frame : UINT32_MAX;
	g->nodes[g->n].depth = (uint32_t)depth;
	g->nodes[g->n].start = o->start;
	g->nodes[g->n].width = w;
	g->nodes[g->n].delta = o->delta;
	g->n++;
	if (depth > g->depthmax)
		g->depthmax = (unsigned)depth;
}

/* Merge one stack into the open path (flamegraph.pl's flow()). */
static void flow_stack(struct flow *f, const uint32_t *frames, size_t n, double w, double delta)
{
	size_t same = 0, i;

	while (same < f->depth && same < n && f->path[same + 1].frame == frames[same])
		same++;
	for (i = f->depth; i > same; i--)
		emit(f, i);
	PROF_GROW(f->path, n + 1, f->cap);
	for (i = same; i < n; i++) {
		f->path[i + 1].frame = frames[i];
		f->path[i + 1].start = f->time;
		f->path[i + 1].delta = 0;
	}
	f->depth = n;
	f->path[n].delta += delta;
	f->time += w;
}

int prof_flame_layout(struct prof_flame_graph *g, const struct prof_stacks *t,
		      const struct prof_flame_seq *seq, int diff,
		      const struct prof_flame_opts *o)
{
	size_t wcol = diff ? 1 : 0, n, i;
	double width = o->width > 0 ? o->width : FLUID_WIDTH, wpt;
	uint32_t *ids = NULL;
	struct flow f;

	memset(g, 0, sizeof(*g));
	g->diff = diff;
	g->maxdelta = 1;
	if (seq) {
		n = seq->n;
		for (i = 0; i < n; i++)
			g->sum += seq->w[i * 2 + wcol];
	} else {
		ids = sorted_stacks(t, wcol, diff, &n);
		for (i = 0; i < n; i++)
			g->sum += prof_stacks_weights(t, ids[i])[wcol];
	}
	if (!(g->sum > 0)) {
		free(ids);
		return -1;
	}
	g->timemax = o->total > g->sum ? o->total : g->sum;
	wpt = (width - 2 * XPAD) / g->timemax;
	memset(&f, 0, sizeof(f));
	f.g = g;
	f.minw = o->minwidth_pct ? g->timemax * o->minwidth / 100 : o->minwidth / wpt;
	f.maxdepth = o->maxdepth;
	f.cap = 64;
	f.path = xcalloc(f.cap, sizeof(*f.path));
	f.path[0].frame = UINT32_MAX;
	for (i = 0; i < n; i++) {
		uint32_t id = seq ? seq->ids[i] : ids[i];
		const prof_weight *tw = seq ? NULL : prof_stacks_weights(t, id);
		/* Drawing needs no more than double precision. */
		double w[2] = { seq ? seq->w[i * 2] : (double)tw[0],
				seq ? seq->w[i * 2 + 1] : t->nweights > 1 ? (double)tw[1] : 0 };
		size_t depth;
		const uint32_t *frames = prof_stacks_frames(t, id, &depth);
		double delta = diff ? w[1] - w[0] : 0;

		if (fabs(delta) > g->maxdelta)
			g->maxdelta = fabs(delta);
		flow_stack(&f, frames, depth, w[wcol], delta);
	}
	for (i = f.depth; i > 0; i--)
		emit(&f, i);
	f.path[0].start = 0;
	emit(&f, 0);
	free(f.path);
	free(ids);
	return 0;
}

/* ---- writing ----------------------------------------------------------- */

/* Append v rounded to hundredths, without trailing zeros ("12.5", "3"). */
static void add_num(struct prof_buf *b, double v)
{
	long long h = llround(v * 100);
	char tmp[32], *p = tmp + sizeof(tmp);
	int neg = h < 0;
	unsigned long long u = neg ? (unsigned long long)-h : (unsigned long long)h;
	unsigned frac = (unsigned)(u % 100);

	u /= 100;
	if (frac) {
		if (frac % 10) {
			*--p = (char)('0' + frac % 10);
			*--p = (char)('0' + frac / 10);
		} else {
			*--p = (char)('0' + frac / 10);
		}
		*--p = '.';
	}
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (neg)
		*--p = '-';
	prof_buf_add(b, p, (size_t)(tmp + sizeof(tmp) - p));
}

/* Append hundredths h as a number (exact: h is an integer count of 0.01). */
static void add_hundredths(struct prof_buf *b, long long h)
{
	add_num(b, (double)h / 100);
}

/* "%.0f" of v with thousands separators (flamegraph.pl's samples_txt). */
static void add_count(struct prof_buf *b, double v)
{
	char tmp[64];
	int n = snprintf(tmp, sizeof(tmp), "%.0f", v), i, lead;

	if (n <= 0 || n >= (int)sizeof(tmp) || !(tmp[0] >= '0' && tmp[0] <= '9')) {
		prof_buf_addstr(b, tmp);
		return;
	}
	lead = n % 3 ? n % 3 : 3;
	prof_buf_add(b, tmp, (size_t)lead);
	for (i = lead; i < n; i += 3) {
		prof_buf_addch(b, ',');
		prof_buf_add(b, tmp + i, 3);
	}
}

static void add_hex(struct prof_buf *b, uint32_t c)
{
	static const char hex[] = "0123456789abcdef";
	char s[7];
	int i;

	s[0] = '#';
	for (i = 0; i < 6; i++)
		s[1 + i] = hex[(c >> (20 - 4 * i)) & 0xf];
	prof_buf_add(b, s, 7);
}

/* A JSON string literal safe inside <script> and CDATA (no <, >, &). */
static void add_js_string(struct prof_buf *b, const char *s)
{
	struct prof_buf tmp = PROF_BUF_INIT;
	size_t i;

	prof_json_escape(&tmp, s, strlen(s));
	prof_buf_addch(b, '"');
	for (i = 0; i < tmp.len; i++) {
		char c = tmp.data[i];

		if (c == '<' || c == '>' || c == '&')
			prof_buf_addf(b, "\\u%04x", (unsigned)c);
		else
			prof_buf_addch(b, c);
	}
	prof_buf_addch(b, '"');
	prof_buf_release(&tmp);
}

/*
 * The embedded script (our own). It reads the frames back from the
 * markup (rect x/width/y, title text), so the SVG carries each frame
 * once; zooming, fluid width, search and labels are all one render().
 */
static const char flame_js[] =
"(function () {\n"
"\"use strict\";\n"
"var doc = document, fr = doc.getElementById(\"frames\");\n"
"if (!fr) return;\n"
"var svg = fr.ownerSVGElement, NS = \"http://www.w3.org/2000/svg\";\n"
"var details = doc.getElementById(\"details\"), matched = doc.getElementById(\"matched\");\n"
"var unzoomBtn = doc.getElementById(\"unzoom\"), searchBtn = doc.getElementById(\"search\");\n"
"var icBtn = doc.getElementById(\"ignorecase\");\n"
"var G = [], R = [], T = [], X = [], W = [], D = [], N = [], F = [], CP = [], HIT = [];\n"
"var zi = -1, term = null, ic = false, E = 1e-6, pending = false;\n"
"/* a tooltip is \"name (count unit, pct%...)\": the count has no spaces */\n"
"function nameOf(s) {\n"
"  var u = s.lastIndexOf(\" \" + C.unit + \", \"), p = u > 0 ? s.lastIndexOf(\" (\", u - 1) : -1;\n"
"  return p >= 0 ? s.substring(0, p) : s;\n"
"}\n"
"var kids = fr.children;\n"
"for (var i = 0; i < kids.length; i++) {\n"
"  var g = kids[i], r = g.getElementsByTagName(\"rect\")[0];\n"
"  if (!r) continue;\n"
"  var tt = g.getElementsByTagName(\"title\")[0];\n"
"  g._fi = G.length;\n"
"  G.push(g); R.push(r); T.push(g.getElementsByTagName(\"text\")[0] || null);\n"
"  X.push(parseFloat(r.getAttribute(\"x\"))); W.push(parseFloat(r.getAttribute(\"width\")));\n"
"  D.push(Math.round((parseFloat(r.getAttribute(\"y\")) - C.base) / C.step));\n"
"  N.push(tt ? nameOf(tt.textContent) : \"\");\n"
"  F.push(r.getAttribute(\"fill\")); CP.push(null); HIT.push(false);\n"
"}\n"
"function setText(e, s) { if (e && e.firstChild) e.firstChild.nodeValue = s; }\n"
"function fmt(v) { return String(Math.round(v * 100) / 100); }\n"
"function viewWidth() {\n"
"  if (!C.fluid) return C.refw;\n"
"  var w = svg.getBoundingClientRect().width;\n"
"  return w > 2 * C.pad + 10 ? w : C.refw;\n"
"}\n"
"function zoomBox() {\n"
"  if (zi < 0) return [C.pad, C.refw - 2 * C.pad, -1];\n"
"  return [X[zi], W[zi], D[zi]];\n"
"}\n"
"function label(i, x, w) {\n"
"  var n = Math.floor(w / (C.fs * C.fw)), s = \"\", t = T[i];\n"
"  if (n >= 3) {\n"
"    if (!CP[i]) CP[i] = Array.from(N[i]);\n"
"    s = CP[i].length > n ? CP[i].slice(0, n - 2).join(\"\") + \"..\" : N[i];\n"
"  }\n"
"  if (!t) {\n"
"    if (!s) return;\n"
"    t = T[i] = doc.createElementNS(NS, \"text\");\n"
"    t.setAttribute(\"y\", fmt(parseFloat(R[i].getAttribute(\"y\")) + C.ty));\n"
"    R[i].parentNode.appendChild(t);\n"
"  }\n"
"  t.setAttribute(\"x\", fmt(x + 3));\n"
"  if (t.textContent !== s) t.textContent = s;\n"
"}\n"
"function place(i, x, w) {\n"
"  R[i].setAttribute(\"x\", fmt(x)); R[i].setAttribute(\"width\", fmt(w));\n"
"  label(i, x, w);\n"
"}\n"
"function render() {\n"
"  var avail = viewWidth() - 2 * C.pad, z = zoomBox(), ratio = avail / z[1];\n"
"  for (var i = 0; i < G.length; i++) {\n"
"    var x = X[i], w = W[i], cl = G[i].classList;\n"
"    if (zi >= 0 && D[i] < z[2]) {\n"
"      if (x <= z[0] + E && x + w >= z[0] + z[1] - E) {\n"
"        cl.remove(\"hide\"); cl.add(\"parent\"); place(i, C.pad, avail);\n"
"      } else { cl.add(\"hide\"); cl.remove(\"parent\"); }\n"
"    } else if (x >= z[0] - E && x + w <= z[0] + z[1] + E) {\n"
"      cl.remove(\"hide\"); cl.remove(\"parent\");\n"
"      place(i, C.pad + (x - z[0]) * ratio, w * ratio);\n"
"    } else { cl.add(\"hide\"); cl.remove(\"parent\"); }\n"
"  }\n"
"  unzoomBtn.classList.toggle(\"hide\", zi < 0);\n"
"}\n"
"function save() {\n"
"  var p = [];\n"
"  if (zi >= 0) p.push(\"z=\" + zi);\n"
"  if (term !== null) p.push(\"s=\" + encodeURIComponent(term));\n"
"  if (ic) p.push(\"i=1\");\n"
"  try {\n"
"    history.replaceState(null, \"\", p.length ? \"#\" + p.join(\"&\") :\n"
"      location.pathname + location.search);\n"
"  } catch (e) { /* no history (sandboxed) */ }\n"
"}\n"
"function load() {\n"
"  var h = location.hash.replace(/^#/, \"\").split(\"&\");\n"
"  for (var j = 0; j < h.length; j++) {\n"
"    var k = h[j].split(\"=\"), v;\n"
"    try { v = decodeURIComponent(k.slice(1).join(\"=\")); } catch (e) { continue; }\n"
"    if (k[0] === \"z\") {\n"
"      var n = parseInt(v, 10);\n"
"      if (n >= 0 && n < G.length && D[n] > 0) zi = n;\n"
"    } else if (k[0] === \"s\" && v !== \"\") term = v;\n"
"    else if (k[0] === \"i\") ic = v === \"1\";\n"
"  }\n"
"}\n"
"function search() {\n"
"  var re = null, bad = false;\n"
"  if (term !== null) {\n"
"    try { re = new RegExp(term, ic ? \"i\" : \"\"); } catch (e) { bad = true; }\n"
"  }\n"
"  var z = zoomBox(), m = [], top = false;\n"
"  for (var i = 0; i < G.length; i++) {\n"
"    var hit = re !== null && re.test(N[i]);\n"
"    if (hit !== HIT[i]) { R[i].setAttribute(\"fill\", hit ? C.sc : F[i]); HIT[i] = hit; }\n"
"    if (!hit) continue;\n"
"    var x = X[i], w = W[i];\n"
"    if (zi >= 0 && D[i] < z[2]) {\n"
"      if (x <= z[0] + E && x + w >= z[0] + z[1] - E) top = true;\n"
"    } else if (x >= z[0] - E && x + w <= z[0] + z[1] + E) m.push(i);\n"
"  }\n"
"  searchBtn.classList.toggle(\"show\", term !== null);\n"
"  setText(searchBtn, term !== null ? \"Reset Search\" : \"Search\");\n"
"  if (term === null) { matched.classList.add(\"hide\"); return; }\n"
"  m.sort(function (a, b) { return X[a] - X[b] || W[b] - W[a]; });\n"
"  var sum = 0, end = -Infinity;\n"
"  for (var j = 0; j < m.length; j++) {\n"
"    var k = m[j];\n"
"    if (X[k] >= end - E) { sum += W[k]; end = X[k] + W[k]; }\n"
"  }\n"
"  var pct = top ? 100 : Math.min(100, 100 * sum / z[1]);\n"
"  matched.classList.remove(\"hide\");\n"
"  setText(matched, bad ? \"Invalid regex\" :\n"
"    \"Matched: \" + (pct === 100 ? \"100\" : pct.toFixed(1)) + \"%\");\n"
"}\n"
"function zoom(i) {\n"
"  zi = i >= 0 && D[i] > 0 ? i : -1;\n"
"  render(); search(); save();\n"
"}\n"
"function askSearch() {\n"
"  if (term !== null) { term = null; search(); save(); return; }\n"
"  var s = window.prompt(\"Enter a search term (regexp allowed, eg: ^ext4_)\" +\n"
"    (ic ? \", ignoring case\" : \"\") + \"\\nPress Ctrl-i to toggle case sensitivity\", \"\");\n"
"  if (s !== null && s !== \"\") { term = s; search(); save(); }\n"
"}\n"
"function toggleCase() {\n"
"  ic = !ic;\n"
"  icBtn.classList.toggle(\"show\", ic);\n"
"  search(); save();\n"
"}\n"
"function frameOf(e) {\n"
"  for (; e && e !== fr; e = e.parentNode) if (e.parentNode === fr) return e;\n"
"  return null;\n"
"}\n"
"svg.addEventListener(\"click\", function (ev) {\n"
"  var g = frameOf(ev.target);\n"
"  if (g && g._fi !== undefined) {\n"
"    if (g.nodeName === \"a\" && !ev.ctrlKey) return;\n"
"    ev.preventDefault();\n"
"    zoom(g._fi);\n"
"    return;\n"
"  }\n"
"  var id = ev.target.id || (ev.target.parentNode && ev.target.parentNode.id);\n"
"  if (id === \"unzoom\") zoom(-1);\n"
"  else if (id === \"search\") askSearch();\n"
"  else if (id === \"ignorecase\") toggleCase();\n"
"}, false);\n"
"svg.addEventListener(\"mouseover\", function (ev) {\n"
"  var g = frameOf(ev.target);\n"
"  if (g && g._fi !== undefined) {\n"
"    var tt = g.getElementsByTagName(\"title\")[0];\n"
"    setText(details, C.nametype + \" \" + (tt ? tt.textContent : N[g._fi]));\n"
"  }\n"
"}, false);\n"
"svg.addEventListener(\"mouseout\", function (ev) {\n"
"  if (frameOf(ev.target)) setText(details, \" \");\n"
"}, false);\n"
"window.addEventListener(\"keydown\", function (ev) {\n"
"  if (ev.key === \"F3\" || (ev.ctrlKey && (ev.key === \"f\" || ev.key === \"F\"))) {\n"
"    ev.preventDefault(); askSearch();\n"
"  } else if (ev.ctrlKey && (ev.key === \"i\" || ev.key === \"I\")) {\n"
"    ev.preventDefault(); toggleCase();\n"
"  }\n"
"}, false);\n"
"if (C.fluid) window.addEventListener(\"resize\", function () {\n"
"  if (pending) return;\n"
"  pending = true;\n"
"  window.requestAnimationFrame(function () { pending = false; render(); });\n"
"}, false);\n"
"load();\n"
"icBtn.classList.toggle(\"show\", ic);\n"
"/* fluid: the intrinsic size is for <img> (no script); here fill the window */\n"
"if (C.fluid) { svg.removeAttribute(\"viewBox\"); svg.setAttribute(\"width\", \"100%\"); }\n"
"/* the markup is already drawn for a fixed width: touch it only if needed */\n"
"if (C.fluid || zi >= 0) render();\n"
"if (term !== null) search();\n"
"/* a flame graph taller than the window: show its bottom, where the root is */\n"
"if (!C.inv && window.scrollY === 0) {\n"
"  var bb = svg.getBoundingClientRect();\n"
"  if (bb.bottom > window.innerHeight) window.scrollTo(0, bb.bottom - window.innerHeight);\n"
"}\n"
"})();\n";

struct writer {
	const struct prof_flame_graph *g;
	const struct prof_stacks *t;
	const struct prof_flame_opts *o;
	struct prof_output *out;
	struct prof_buf b;
	uint32_t *colors;	/* frame id -> colour, UINT32_MAX unknown */
	uint64_t rng;		/* --random's generator */
	/*
	 * ypad1: title rows; ypad3: subtitle row; ypad2: details row below
	 * the frames; ylegend: the differential legend's row at the very
	 * bottom (so frames sit where flamegraph.pl puts them); height: all.
	 */
	double width, height, wpt, ypad1, ypad2, ypad3, ylegend;
	int r;
};

static void flush_some(struct writer *w, int force)
{
	if (w->r == 0 && (force || w->b.len >= 1 << 16)) {
		w->r = prof_output_write(w->out, w->b.data, w->b.len);
		prof_buf_reset(&w->b);
	}
}

static uint32_t frame_color(struct writer *w, const struct prof_flame_node *n,
			    const char *name, size_t len)
{
	const struct prof_flame_opts *o = w->o;
	uint32_t c;

	if (len == 2 && name[0] == '-' && name[1] == '-')
		return rgb(160, 160, 160);
	if (len == 1 && name[0] == '-')
		return rgb(200, 200, 200);
	if (w->g->diff)
		return diff_color(o->negate ? -n->delta : n->delta, w->g->maxdelta);
	if (o->palmap) {
		uint32_t id = prof_intern_find(&o->palmap->names, name, len);

		if (id != UINT32_MAX && id < o->palmap->cap)
			return o->palmap->rgb[id];
		if (o->random && !o->hash)
			c = prof_flame_color_random(o->palette, name, len, &w->rng);
		else
			c = prof_flame_color(o->palette, o->hash, name, len);
		palmap_set(o->palmap, name, len, c);
		return c;
	}
	if (o->random && !o->hash)	/* every frame its own colour, as flamegraph.pl */
		return prof_flame_color_random(o->palette, name, len, &w->rng);
	if (n->frame == UINT32_MAX)
		return prof_flame_color(o->palette, o->hash, "", 0);
	if (w->colors[n->frame] == UINT32_MAX)
		w->colors[n->frame] = prof_flame_color(o->palette, o->hash, name, len);
	return w->colors[n->frame];
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
static int dark(uint32_t rgb)
{
	double l = 0.2126 * linear(rgb >> 16) + 0.7152 * linear((rgb >> 8) & 0xff) +
		   0.0722 * linear(rgb & 0xff);

	return l < 0.179;
}

static void write_info(struct writer *w, const struct prof_flame_node *n,
		       const char *name, size_t len)
{
	const struct prof_flame_opts *o = w->o;
	struct prof_buf *b = &w->b;
	double width = n->depth == 0 ? w->g->timemax : n->width;
	double samples = nearbyint(width * o->factor);
	char tmp[64];

	if (n->depth == 0) {
		prof_buf_addstr(b, "all (");
		add_count(b, samples);
		prof_buf_addch(b, ' ');
		prof_xml_escape(b, o->countname, strlen(o->countname));
		prof_buf_addstr(b, ", 100%)");
		return;
	}
	prof_xml_escape(b, name, prof_flame_deannotate(name, len));
	prof_buf_addstr(b, " (");
	add_count(b, samples);
	prof_buf_addch(b, ' ');
	prof_xml_escape(b, o->countname, strlen(o->countname));
	snprintf(tmp, sizeof(tmp), ", %.2f%%", 100 * samples / (w->g->timemax * o->factor));
	prof_buf_addstr(b, tmp);
	if (w->g->diff) {
		double d = o->negate ? -n->delta : n->delta;

		if (d == 0)
			d = 0;	/* no "-0.00%" */
		snprintf(tmp, sizeof(tmp), "; %s%.2f%%", d > 0 ? "+" : "",
			 100 * d / (w->g->timemax * o->factor));
		prof_buf_addstr(b, tmp);
	}
	prof_buf_addch(b, ')');
}

static void write_frame(struct writer *w, const struct prof_flame_node *n)
{
	const struct prof_flame_opts *o = w->o;
	const struct prof_flame_nameattr *na = o->nameattr;
	struct prof_buf *b = &w->b;
	const char *name = "";
	size_t len = 0;
	double x1, x2, y1, etime;
	long long h1, h2;
	uint32_t aid = UINT32_MAX, fill;
	int chars;

	if (n->frame != UINT32_MAX)
		name = prof_stacks_frame_name(w->t, n->frame, &len);
	etime = n->depth == 0 ? w->g->timemax : n->start + n->width;
	x1 = XPAD + n->start * w->wpt;
	x2 = XPAD + etime * w->wpt;
	h1 = llround(x1 * 100);
	h2 = llround(x2 * 100);
	if (o->inverted)
		y1 = w->ypad1 + w->ypad3 + n->depth * o->frameheight;
	else
		y1 = w->height - w->ylegend - w->ypad2 - (n->depth + 1) * o->frameheight + FRAMEPAD;
	if (na && n->depth)
		aid = prof_intern_find(&na->names, name, len);
	if (aid != UINT32_MAX && aid < na->cap && na->href[aid]) {
		prof_buf_addstr(b, "<a xlink:href=\"");
		prof_buf_addstr(b, na->href[aid]);
		prof_buf_addstr(b, "\" target=\"");
		prof_buf_addstr(b, na->target[aid] ? na->target[aid] : "_top");
		prof_buf_addch(b, '"');
	} else {
		prof_buf_addstr(b, "<g");
	}
	if (aid != UINT32_MAX && aid < na->cap && na->gattrs[aid])
		prof_buf_addstr(b, na->gattrs[aid]);
	prof_buf_addstr(b, "><title>");
	if (aid != UINT32_MAX && aid < na->cap && na->title[aid])
		prof_xml_escape(b, na->title[aid], strlen(na->title[aid]));
	else
		write_info(w, n, name, len);
	fill = frame_color(w, n, name, len);
	prof_buf_addstr(b, "</title><rect x=\"");
	add_hundredths(b, h1);
	prof_buf_addstr(b, "\" y=\"");
	add_num(b, y1);
	prof_buf_addstr(b, "\" width=\"");
	add_hundredths(b, h2 - h1);
	prof_buf_addstr(b, "\" height=\"");
	add_num(b, o->frameheight - FRAMEPAD);
	prof_buf_addstr(b, "\" fill=\"");
	add_hex(b, fill);
	/* labels white on dark fills (the class after fill: tests parse x..fill) */
	prof_buf_addstr(b, dark(fill) ? "\" class=\"dk\"/>" : "\"/>");
	chars = (int)((x2 - x1) / (o->fontsize * o->fontwidth));
	if (chars >= 3) {
		const char *label = n->depth ? name : "all";
		size_t ll = n->depth ? prof_flame_deannotate(name, len) : 3;
		size_t nch = prof_utf8_chars(label, ll);

		prof_buf_addstr(b, "<text x=\"");
		add_hundredths(b, h1 + 300);
		prof_buf_addstr(b, "\" y=\"");
		add_num(b, y1 + 3 + (o->frameheight - FRAMEPAD) / 2);
		prof_buf_addstr(b, "\">");
		if ((size_t)chars < nch) {
			prof_xml_escape(b, label, prof_utf8_char_prefix(label, ll, (size_t)chars - 2));
			prof_buf_addstr(b, "..");
		} else {
			prof_xml_escape(b, label, ll);
		}
		prof_buf_addstr(b, "</text>");
	}
	prof_buf_addstr(b, aid != UINT32_MAX && aid < na->cap && na->href[aid] ? "</a>\n" : "</g>\n");
	flush_some(w, 0);
}

/* Text for an XML comment: escaped, with no "--" and no trailing "-". */
static void add_comment_text(struct prof_buf *b, const char *s)
{
	struct prof_buf tmp = PROF_BUF_INIT;
	size_t i;

	prof_xml_escape(&tmp, s, strlen(s));
	for (i = 0; i < tmp.len; i++) {
		prof_buf_addch(b, tmp.data[i]);
		if (tmp.data[i] == '-' && (i + 1 == tmp.len || tmp.data[i + 1] == '-'))
			prof_buf_addch(b, ' ');
	}
	prof_buf_release(&tmp);
}

/* One swatch of the differential legend and its text; x advances. */
static void legend_item(struct prof_buf *b, double *x, double y, double fs, uint32_t fill,
			const char *text)
{
	prof_buf_addstr(b, "<rect x=\"");
	add_num(b, *x);
	prof_buf_addstr(b, "\" y=\"");
	add_num(b, y - fs + 2);
	prof_buf_addstr(b, "\" width=\"");
	add_num(b, fs);
	prof_buf_addstr(b, "\" height=\"");
	add_num(b, fs);
	prof_buf_addstr(b, "\" fill=\"");
	add_hex(b, fill);
	prof_buf_addstr(b, "\" stroke=\"#808080\" stroke-width=\"0.5\"/><text x=\"");
	add_num(b, *x + fs + 4);
	prof_buf_addstr(b, "\" y=\"");
	add_num(b, y);
	prof_buf_addstr(b, "\">");
	prof_xml_escape(b, text, strlen(text));
	prof_buf_addstr(b, "</text>");
	*x += fs + 4 + (double)strlen(text) * fs * 0.55 + fs;
}

/*
 * The differential legend at baseline y: what red, blue and white mean,
 * what the widths are, and which file (or column) is BEFORE and AFTER.
 */
static void write_legend(struct writer *w, double y)
{
	const struct prof_flame_opts *o = w->o;
	struct prof_buf *b = &w->b;
	double x = XPAD, fs = o->fontsize;

	prof_buf_addstr(b, "<g id=\"legend\">");
	legend_item(b, &x, y, fs, rgb(255, 0, 0), o->negate ? "shrank (AFTER < BEFORE)"
								 : "grew (AFTER > BEFORE)");
	legend_item(b, &x, y, fs, rgb(0, 0, 255), o->negate ? "grew (AFTER > BEFORE)"
								 : "shrank (AFTER < BEFORE)");
	legend_item(b, &x, y, fs, rgb(255, 255, 255), "unchanged");
	prof_buf_addstr(b, "<text x=\"");
	add_num(b, x);
	prof_buf_addstr(b, "\" y=\"");
	add_num(b, y);
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

static void write_head(struct writer *w)
{
	const struct prof_flame_opts *o = w->o;
	struct prof_buf *b = &w->b;
	const char *title = o->title;
	double fs = o->fontsize;

	if (!title && w->g->diff)
		title = o->inverted ? "Differential Icicle Graph" : "Differential Flame Graph";
	if (!title)
		title = o->flamechart ? "Flame Chart" : o->inverted ? "Icicle Graph" : "Flame Graph";
	if (o->html) {
		prof_buf_addstr(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
			       "<title>");
		prof_xml_escape(b, title, strlen(title));
		prof_buf_addstr(b, "</title>\n<style>html,body{margin:0;padding:0}"
			       "svg{display:block}</style>\n</head>\n<body>\n");
	} else {
		prof_buf_addstr(b, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
	}
	/*
	 * Always an intrinsic size and a viewBox, so that an <img> (where no
	 * script runs) shows the whole graph scaled; a fluid graph's script
	 * switches it to the window's width when it runs.
	 */
	prof_buf_addstr(b, "<svg version=\"1.1\" width=\"");
	add_num(b, w->width);
	prof_buf_addstr(b, "\" height=\"");
	add_num(b, w->height);
	prof_buf_addstr(b, "\" viewBox=\"0 0 ");
	add_num(b, w->width);
	prof_buf_addch(b, ' ');
	add_num(b, w->height);
	prof_buf_addstr(b, "\" xmlns=\"http://www.w3.org/2000/svg\" "
		       "xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n");
	prof_buf_addstr(b, "<!-- Flame graph drawn by profflame (proftools). Click a frame to zoom, "
		       "Ctrl-F to search. -->\n");
	if (o->notes) {
		prof_buf_addstr(b, "<!-- NOTES: ");
		add_comment_text(b, o->notes);
		prof_buf_addstr(b, " -->\n");
	}
	prof_buf_addf(b, "<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
		      "<stop stop-color=\"%s\" offset=\"5%%\"/><stop stop-color=\"%s\" "
		      "offset=\"95%%\"/></linearGradient></defs>\n", o->bg1, o->bg2);
	prof_buf_addstr(b, "<style type=\"text/css\">\ntext{font-family:");
	prof_xml_escape(b, o->fonttype, strlen(o->fonttype));
	prof_buf_addstr(b, ";font-size:");
	add_num(b, fs);
	prof_buf_addstr(b, "px;fill:#000}\n"
		       "#search,#ignorecase{opacity:0.1;cursor:pointer}\n"
		       "#search:hover,#search.show,#ignorecase:hover,#ignorecase.show{opacity:1}\n"
		       "#subtitle{text-anchor:middle;fill:#a0a0a0}\n#title{text-anchor:middle;font-size:");
	add_num(b, fs + 5);
	prof_buf_addstr(b, "px}\n#unzoom{cursor:pointer}\n"
		       "#frames>*:hover{stroke:#000;stroke-width:0.5;cursor:pointer}\n"
		       "#frames rect{rx:2px;ry:2px}\n#frames text{pointer-events:none}\n"
		       "#frames rect.dk~text{fill:#fff}\n"
		       ".hide{display:none}\n.parent{opacity:0.5}\n</style>\n");
	prof_buf_addstr(b, "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" "
		       "fill=\"url(#background)\"/>\n<text id=\"title\" x=\"50%\" y=\"");
	add_num(b, fs * 2);
	prof_buf_addstr(b, "\">");
	prof_xml_escape(b, title, strlen(title));
	prof_buf_addstr(b, "</text>\n");
	if (o->subtitle && *o->subtitle) {
		prof_buf_addstr(b, "<text id=\"subtitle\" x=\"50%\" y=\"");
		add_num(b, fs * 4);
		prof_buf_addstr(b, "\">");
		prof_xml_escape(b, o->subtitle, strlen(o->subtitle));
		prof_buf_addstr(b, "</text>\n");
	}
	if (w->g->diff)
		write_legend(w, w->height - w->ylegend / 2 + fs / 3);
	prof_buf_addstr(b, "<text id=\"details\" x=\"10\" y=\"");
	add_num(b, w->height - w->ylegend - w->ypad2 / 2);
	prof_buf_addstr(b, "\"> </text>\n<text id=\"unzoom\" class=\"hide\" x=\"10\" y=\"");
	add_num(b, fs * 2);
	prof_buf_addstr(b, "\">Reset Zoom</text>\n<text id=\"search\" x=\"100%\" dx=\"-110\" y=\"");
	add_num(b, fs * 2);
	prof_buf_addstr(b, "\">Search</text>\n<text id=\"ignorecase\" x=\"100%\" dx=\"-26\" y=\"");
	add_num(b, fs * 2);
	prof_buf_addstr(b, "\">ic</text>\n<text id=\"matched\" class=\"hide\" x=\"100%\" dx=\"-110\" y=\"");
	add_num(b, w->height - w->ylegend - w->ypad2 / 2);
	prof_buf_addstr(b, "\"> </text>\n<g id=\"frames\">\n");
}

static void write_tail(struct writer *w)
{
	const struct prof_flame_opts *o = w->o;
	struct prof_buf *b = &w->b;
	double fh = o->frameheight;

	prof_buf_addstr(b, "</g>\n<script type=\"text/ecmascript\"><![CDATA[\nvar C = {pad: 10, refw: ");
	add_num(b, w->width);
	prof_buf_addf(b, ", fluid: %s, inv: %s, base: ", o->width > 0 ? "false" : "true",
		      o->inverted ? "true" : "false");
	if (o->inverted)
		add_num(b, w->ypad1 + w->ypad3);
	else
		add_num(b, w->height - w->ylegend - w->ypad2 - fh + FRAMEPAD);
	prof_buf_addstr(b, ", step: ");
	add_num(b, o->inverted ? fh : -fh);
	prof_buf_addstr(b, ", ty: ");
	add_num(b, 3 + (fh - FRAMEPAD) / 2);
	prof_buf_addstr(b, ", fs: ");
	add_num(b, o->fontsize);
	prof_buf_addf(b, ", fw: %.6g, sc: \"rgb(230,0,230)\", nametype: ", o->fontwidth);
	add_js_string(b, o->nametype);
	prof_buf_addstr(b, ", unit: ");
	add_js_string(b, o->countname);
	prof_buf_addstr(b, "};\n");
	prof_buf_addstr(b, flame_js);
	prof_buf_addstr(b, "]]></script>\n</svg>\n");
	if (o->html)
		prof_buf_addstr(b, "</body>\n</html>\n");
}

int prof_flame_write(const struct prof_flame_graph *g, const struct prof_stacks *t,
		     const struct prof_flame_opts *o, struct prof_output *out)
{
	struct writer w;
	size_t nf = prof_intern_count(&t->frames), i;

	memset(&w, 0, sizeof(w));
	w.g = g;
	w.t = t;
	w.o = o;
	w.out = out;
	w.colors = xmalloc((nf ? nf : 1) * sizeof(*w.colors));
	if (o->random) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		w.rng = ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)ts.tv_nsec ^
			((uint64_t)getpid() << 48);
	}
	memset(w.colors, 0xff, (nf ? nf : 1) * sizeof(*w.colors));
	w.width = o->width > 0 ? o->width : FLUID_WIDTH;
	w.ypad1 = o->fontsize * 3;
	w.ypad2 = o->fontsize * 2 + 10;
	w.ypad3 = o->subtitle && *o->subtitle ? o->fontsize * 2 : 0;
	w.ylegend = g->diff ? o->fontsize * 2 : 0;
	w.height = (g->depthmax + 1) * o->frameheight + w.ypad1 + w.ypad2 + w.ypad3 + w.ylegend;
	w.wpt = (w.width - 2 * XPAD) / g->timemax;
	write_head(&w);
	for (i = 0; i < g->n && w.r == 0; i++)
		write_frame(&w, &g->nodes[i]);
	write_tail(&w);
	flush_some(&w, 1);
	prof_buf_release(&w.b);
	free(w.colors);
	return w.r;
}
