/*
 * Demangling: Rust names by our own code (demangle.h), C++ names through
 * libstdc++'s __cxa_demangle, and the symbolizer's choice between them
 * (prof_sym_demangle, internal.h).
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/demangle.h"
#include "symbolize/internal.h"

struct out {
	char *p;
	size_t len, cap;
	int bad;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->bad || o->len + n >= o->cap) {
		o->bad = 1;
		return;
	}
	memcpy(o->p + o->len, s, n);
	o->len += n;
	o->p[o->len] = 0;
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void put_u64(struct out *o, uint64_t v)
{
	char b[24];
	int i = (int)sizeof(b);

	do
		b[--i] = (char)('0' + v % 10);
	while ((v /= 10) && i > 0);
	put(o, b + i, sizeof(b) - (size_t)i);
}

static int is_hex(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static int hexval(int c)
{
	return c <= '9' ? c - '0' : c - 'a' + 10;
}

/* ---- legacy: _ZN <len><ident>... 17h<16 hex> E ---- */

/* One identifier of a legacy path, with its $..$ escapes decoded. */
static int legacy_ident(struct out *o, const char *s, size_t n)
{
	static const struct { const char *esc; const char *to; } tab[] = {
		{ "$SP$", "@" }, { "$BP$", "*" }, { "$RF$", "&" }, { "$LT$", "<" },
		{ "$GT$", ">" }, { "$LP$", "(" }, { "$RP$", ")" }, { "$C$", "," },
	};
	size_t i = 0;

	if (n >= 2 && s[0] == '_' && s[1] == '$')
		i = 1;
	while (i < n) {
		if (s[i] == '$') {
			size_t k, j = i + 1;

			while (j < n && s[j] != '$')
				j++;
			if (j >= n)
				return -1;
			for (k = 0; k < sizeof(tab) / sizeof(tab[0]); k++)
				if (strlen(tab[k].esc) == j + 1 - i && !memcmp(s + i, tab[k].esc, j + 1 - i))
					break;
			if (k < sizeof(tab) / sizeof(tab[0])) {
				puts_(o, tab[k].to);
			} else if (s[i + 1] == 'u' && j - i >= 3 && j - i <= 4) {
				unsigned v = 0;
				char c;

				for (size_t q = i + 2; q < j; q++) {
					if (!is_hex(s[q]))
						return -1;
					v = v * 16 + (unsigned)hexval(s[q]);
				}
				if (v < 0x20 || v > 0x7e)
					return -1;
				c = (char)v;
				put(o, &c, 1);
			} else {
				return -1;
			}
			i = j + 1;
		} else if (s[i] == '.' && i + 1 < n && s[i + 1] == '.') {
			puts_(o, "::");
			i += 2;
		} else {
			put(o, s + i, 1);
			i++;
		}
	}
	return 0;
}

static int legacy(const char *name, struct out *o)
{
	const char *p = name + 3, *segs[64];
	size_t lens[64], n = 0;

	while (*p != 'E') {
		size_t len = 0;

		if (*p < '0' || *p > '9' || n == 64)
			return 0;
		while (*p >= '0' && *p <= '9') {
			len = len * 10 + (size_t)(*p++ - '0');
			if (len > 4096)
				return 0;
		}
		if (strnlen(p, len) < len)
			return 0;
		segs[n] = p;
		lens[n++] = len;
		p += len;
	}
	/* The last segment is the hash: h and 16 hex digits. */
	if (n < 2 || lens[n - 1] != 17 || segs[n - 1][0] != 'h')
		return 0;
	for (int i = 1; i < 17; i++)
		if (!is_hex(segs[n - 1][i]))
			return 0;
	for (size_t i = 0; i + 1 < n; i++) {
		if (i)
			puts_(o, "::");
		if (legacy_ident(o, segs[i], lens[i]) < 0)
			return 0;
	}
	/* A suffix (.llvm.NNN from LTO is noise; keep others, e.g. .cold). */
	p++;
	if (*p == '.' && strncmp(p, ".llvm.", 6) != 0)
		puts_(o, p);
	return !o->bad;
}

/* ---- v0: _R <path> [<instantiating crate>] ---- */

struct v0 {
	const char *s;		/* after "_R" */
	size_t n, pos;
	int depth;
	unsigned steps;		/* backrefs can repeat work: bounded */
	int skip;		/* parsing without printing */
	struct out *o;
	int bad;
};

#define MAXDEPTH 200
#define MAXSTEPS 100000

static int peek(struct v0 *v)
{
	return v->pos < v->n ? v->s[v->pos] : 0;
}

static int eat(struct v0 *v, int c)
{
	if (peek(v) == c) {
		v->pos++;
		return 1;
	}
	return 0;
}

static void emit(struct v0 *v, const char *s, size_t n)
{
	if (!v->skip)
		put(v->o, s, n);
}

static void emits(struct v0 *v, const char *s)
{
	emit(v, s, strlen(s));
}

/* base-62-number: "_" is 0, else digits then "_" is value + 1. */
static uint64_t base62(struct v0 *v)
{
	uint64_t x = 0;

	if (eat(v, '_'))
		return 0;
	for (;;) {
		int c = peek(v), d;

		if (c == '_') {
			v->pos++;
			return x + 1;
		}
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'z')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'Z')
			d = c - 'A' + 36;
		else {
			v->bad = 1;
			return 0;
		}
		if (x > (UINT64_MAX - 62) / 62) {
			v->bad = 1;
			return 0;
		}
		x = x * 62 + (uint64_t)d;
		v->pos++;
	}
}

static uint64_t opt_disamb(struct v0 *v, int tag)
{
	return eat(v, tag) ? base62(v) + 1 : 0;
}

static uint64_t decimal(struct v0 *v)
{
	uint64_t x = 0;
	int c = peek(v);

	if (c < '0' || c > '9') {
		v->bad = 1;
		return 0;
	}
	if (c == '0') {
		v->pos++;
		return 0;
	}
	while ((c = peek(v)) >= '0' && c <= '9') {
		if (x > 100000) {
			v->bad = 1;
			return 0;
		}
		x = x * 10 + (uint64_t)(c - '0');
		v->pos++;
	}
	return x;
}

/* undisambiguated-identifier; punycode ("u") is not decoded: refused. */
static void ident(struct v0 *v, const char **s, size_t *len)
{
	uint64_t n;

	if (peek(v) == 'u') {
		v->bad = 1;
		return;
	}
	n = decimal(v);
	eat(v, '_');
	if (v->bad || n > v->n - v->pos) {
		v->bad = 1;
		return;
	}
	*s = v->s + v->pos;
	*len = (size_t)n;
	v->pos += (size_t)n;
}

static void path(struct v0 *v, int in_value);
static void type(struct v0 *v);
static void constant(struct v0 *v);

/* Run fn at the position a backref names (earlier than here), then come back. */
static void backref(struct v0 *v, void (*fn)(struct v0 *, int), int arg)
{
	size_t here, bpos = v->pos - 1;	/* the 'B' */
	uint64_t at = base62(v);

	if (v->bad || at >= bpos) {
		v->bad = 1;
		return;
	}
	here = v->pos;
	v->pos = (size_t)at;
	fn(v, arg);
	v->pos = here;
}

static void type_arg(struct v0 *v, int unused)
{
	(void)unused;
	type(v);
}

static void const_arg(struct v0 *v, int unused)
{
	(void)unused;
	constant(v);
}

static void lifetime(struct v0 *v)
{
	base62(v);
	emits(v, "'_");
}

/* "<" and the generic arguments up to 'E', the ">" left to the caller. */
static void generic_args_open(struct v0 *v)
{
	int first = 1;

	emits(v, "<");
	while (!v->bad && !eat(v, 'E')) {
		if (!first)
			emits(v, ", ");
		first = 0;
		if (eat(v, 'L'))
			lifetime(v);
		else if (eat(v, 'K'))
			constant(v);
		else
			type(v);
		if (v->pos >= v->n)
			v->bad = 1;
	}
}

static void generic_args(struct v0 *v)
{
	generic_args_open(v);
	emits(v, ">");
}

static void path(struct v0 *v, int in_value)
{
	int c;

	if (++v->depth > MAXDEPTH || ++v->steps > MAXSTEPS || v->bad) {
		v->bad = 1;
		return;
	}
	c = peek(v);
	v->pos++;
	switch (c) {
	case 'C': {	/* crate root */
		const char *s = NULL;
		size_t n = 0;

		opt_disamb(v, 's');
		ident(v, &s, &n);
		if (!v->bad)
			emit(v, s, n);
		break;
	}
	case 'N': {	/* nested: namespace, parent path, identifier */
		int ns = peek(v);
		uint64_t dis;
		const char *s = NULL;
		size_t n = 0;

		if (!((ns >= 'a' && ns <= 'z') || (ns >= 'A' && ns <= 'Z'))) {
			v->bad = 1;
			break;
		}
		v->pos++;
		path(v, in_value);
		dis = opt_disamb(v, 's');
		ident(v, &s, &n);
		if (v->bad)
			break;
		if (ns >= 'A' && ns <= 'Z') {
			emits(v, "::{");
			emits(v, ns == 'C' ? "closure" : ns == 'S' ? "shim" : "");
			if (ns != 'C' && ns != 'S')
				emit(v, (const char *)&ns, 1);
			if (n) {
				emits(v, ":");
				emit(v, s, n);
			}
			emits(v, "#");
			if (!v->skip)
				put_u64(v->o, dis);
			emits(v, "}");
		} else if (n) {
			emits(v, "::");
			emit(v, s, n);
		}
		break;
	}
	case 'M':	/* <T> (inherent impl): the impl path is not printed */
	case 'X': {	/* <T as Trait> */
		int skip = v->skip;

		opt_disamb(v, 's');
		v->skip = 1;
		path(v, 0);
		v->skip = skip;
		emits(v, "<");
		type(v);
		if (c == 'X') {
			emits(v, " as ");
			path(v, 0);
		}
		emits(v, ">");
		break;
	}
	case 'Y':	/* <T as Trait> (trait definition) */
		emits(v, "<");
		type(v);
		emits(v, " as ");
		path(v, 0);
		emits(v, ">");
		break;
	case 'I':	/* generic arguments */
		path(v, in_value);
		if (in_value)
			emits(v, "::");
		generic_args(v);
		break;
	case 'B':
		backref(v, path, in_value);
		break;
	default:
		v->bad = 1;
	}
	v->depth--;
}

static const char *basic_type(int c)
{
	switch (c) {
	case 'a': return "i8";
	case 'b': return "bool";
	case 'c': return "char";
	case 'd': return "f64";
	case 'e': return "str";
	case 'f': return "f32";
	case 'h': return "u8";
	case 'i': return "isize";
	case 'j': return "usize";
	case 'l': return "i32";
	case 'm': return "u32";
	case 'n': return "i128";
	case 'o': return "u128";
	case 's': return "i16";
	case 't': return "u16";
	case 'u': return "()";
	case 'v': return "...";
	case 'x': return "i64";
	case 'y': return "u64";
	case 'z': return "!";
	case 'p': return "_";
	default: return NULL;
	}
}

static void fn_sig(struct v0 *v)
{
	int first = 1;

	opt_disamb(v, 'G');
	if (eat(v, 'U'))
		emits(v, "unsafe ");
	if (eat(v, 'K')) {
		emits(v, "extern \"");
		if (eat(v, 'C')) {
			emits(v, "C");
		} else {
			const char *s = NULL;
			size_t n = 0;

			ident(v, &s, &n);
			for (size_t i = 0; i < n && !v->bad; i++)
				emit(v, s[i] == '_' ? "-" : s + i, 1);
		}
		emits(v, "\" ");
	}
	emits(v, "fn(");
	while (!v->bad && !eat(v, 'E')) {
		if (!first)
			emits(v, ", ");
		first = 0;
		type(v);
		if (v->pos >= v->n)
			v->bad = 1;
	}
	emits(v, ")");
	if (peek(v) == 'u') {
		v->pos++;
	} else {
		emits(v, " -> ");
		type(v);
	}
}

/*
 * A dyn trait's path, printed with its generic arguments' "<" left open
 * (returns 1) so that associated type bindings join them: Fn<(), Output = T>.
 */
static int path_open(struct v0 *v)
{
	size_t here = 0, bpos = v->pos;
	int open = 0;

	if (peek(v) == 'B') {
		uint64_t at;

		v->pos++;
		at = base62(v);
		if (v->bad || at >= bpos || ++v->steps > MAXSTEPS) {
			v->bad = 1;
			return 0;
		}
		here = v->pos;
		v->pos = (size_t)at;
	}
	if (eat(v, 'I')) {
		path(v, 0);
		generic_args_open(v);
		open = 1;
	} else {
		path(v, 0);
	}
	if (here)
		v->pos = here;
	return open;
}

static void dyn_bounds(struct v0 *v)
{
	int first = 1;

	opt_disamb(v, 'G');
	emits(v, "dyn ");
	while (!v->bad && !eat(v, 'E')) {
		int open = 0;

		if (!first)
			emits(v, " + ");
		first = 0;
		/* the trait path, its generic args left open for the bindings */
		open = path_open(v);
		while (!v->bad && eat(v, 'p')) {
			const char *s = NULL;
			size_t n = 0;

			emits(v, open ? ", " : "<");
			open = 1;
			ident(v, &s, &n);
			if (!v->bad)
				emit(v, s, n);
			emits(v, " = ");
			type(v);
		}
		if (open)
			emits(v, ">");
		if (v->pos >= v->n)
			v->bad = 1;
	}
	/* the object lifetime */
	if (!eat(v, 'L'))
		v->bad = 1;
	base62(v);
}

static void type(struct v0 *v)
{
	int c;
	const char *b;

	if (++v->depth > MAXDEPTH || ++v->steps > MAXSTEPS || v->bad) {
		v->bad = 1;
		return;
	}
	c = peek(v);
	if ((b = basic_type(c))) {
		v->pos++;
		emits(v, b);
		v->depth--;
		return;
	}
	switch (c) {
	case 'A':
	case 'S':
		v->pos++;
		emits(v, "[");
		type(v);
		if (c == 'A') {
			emits(v, "; ");
			constant(v);
		}
		emits(v, "]");
		break;
	case 'T': {
		int n = 0;

		v->pos++;
		emits(v, "(");
		while (!v->bad && !eat(v, 'E')) {
			if (n++)
				emits(v, ", ");
			type(v);
			if (v->pos >= v->n)
				v->bad = 1;
		}
		if (n == 1)
			emits(v, ",");
		emits(v, ")");
		break;
	}
	case 'R':
	case 'Q':
		v->pos++;
		emits(v, c == 'R' ? "&" : "&mut ");
		if (eat(v, 'L')) {
			if (base62(v))
				emits(v, "'_ ");
		}
		type(v);
		break;
	case 'P':
	case 'O':
		v->pos++;
		emits(v, c == 'P' ? "*const " : "*mut ");
		type(v);
		break;
	case 'F':
		v->pos++;
		fn_sig(v);
		break;
	case 'D':
		v->pos++;
		dyn_bounds(v);
		break;
	case 'B':
		v->pos++;
		backref(v, type_arg, 0);
		break;
	default:
		path(v, 0);
	}
	v->depth--;
}

static void constant(struct v0 *v)
{
	int t, neg = 0;
	uint64_t x = 0;
	size_t nd = 0;

	if (++v->depth > MAXDEPTH || ++v->steps > MAXSTEPS || v->bad) {
		v->bad = 1;
		return;
	}
	if (eat(v, 'B')) {
		backref(v, const_arg, 0);
		v->depth--;
		return;
	}
	t = peek(v);
	v->pos++;
	if (t == 'p') {
		emits(v, "_");
		v->depth--;
		return;
	}
	if (!strchr("ahijlmnostxybc", t) || !t) {
		v->bad = 1;
		return;
	}
	neg = eat(v, 'n');
	while (is_hex(peek(v))) {
		if (++nd > 16) {
			v->bad = 1;
			return;
		}
		x = x * 16 + (uint64_t)hexval(v->s[v->pos++]);
	}
	if (!eat(v, '_')) {
		v->bad = 1;
		return;
	}
	if (t == 'b') {
		emits(v, x ? "true" : "false");
	} else if (t == 'c') {
		char ch = (char)x;

		if (x < 0x20 || x > 0x7e) {
			v->bad = 1;
			return;
		}
		emits(v, "'");
		emit(v, &ch, 1);
		emits(v, "'");
	} else {
		if (neg)
			emits(v, "-");
		if (!v->skip)
			put_u64(v->o, x);
	}
	v->depth--;
}

static int v0(const char *name, struct out *o)
{
	struct v0 v = { .s = name + 2, .o = o };
	const char *dot = strchr(name + 2, '.');

	v.n = dot ? (size_t)(dot - v.s) : strlen(v.s);
	/* an encoding version: only 0 (absent) is known */
	if (peek(&v) >= '0' && peek(&v) <= '9')
		return 0;
	path(&v, 1);
	/* the instantiating crate, not printed */
	if (!v.bad && v.pos < v.n) {
		v.skip = 1;
		path(&v, 0);
	}
	if (v.bad || v.pos != v.n)
		return 0;
	if (dot && strncmp(dot, ".llvm.", 6) != 0)
		puts_(o, dot);
	return !o->bad;
}

int prof_demangle_rust(const char *name, char *out, size_t cap)
{
	struct out o = { out, 0, cap, 0 };

	if (!cap)
		return 0;
	out[0] = 0;
	if (!strncmp(name, "_ZN", 3))
		return legacy(name, &o);
	if (!strncmp(name, "_R", 2) && name[2] >= 'A' && name[2] <= 'Z')
		return v0(name, &o);
	return 0;
}

/*
 * libstdc++'s __cxa_demangle, looked up with dlopen at the first C++
 * name: a C program cannot link libstdc++ portably. NULL without it.
 */
static prof_cxa_demangle_fn *cxa_demangler(struct prof_symbolizer *s)
{
	if (!s->dem_tried) {
		void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);

		s->dem_tried = 1;
		if (h)
			*(void **)&s->cxa_demangle = dlsym(h, "__cxa_demangle");
	}
	return s->cxa_demangle;
}

const char *prof_sym_demangle(struct prof_symbolizer *s, const char *name)
{
	char rust[4096];
	prof_cxa_demangle_fn *cxa;

	if (!s->opt.demangle || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return prof_sym_cstr(s, name);
	/* Rust first: __cxa_demangle leaves legacy Rust names half done. */
	if (prof_demangle_rust(name, rust, sizeof(rust)))
		return prof_sym_cstr(s, rust);
	if (name[1] == 'Z' && (cxa = cxa_demangler(s))) {
		int status = 0;
		char *d = cxa(name, NULL, NULL, &status);

		if (d && status == 0) {
			const char *r = prof_sym_cstr(s, d);

			free(d);
			return r;
		}
		free(d);
	}
	return prof_sym_cstr(s, name);
}
