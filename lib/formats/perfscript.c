/*
 * `perf script` text -> stack table, following stackcollapse-perf.pl's
 * rules (see perfscript.h): the parser of one thread. Line grammar in
 * perfscript_lines.c, whole inputs and threads in perfscript_read.c.
 */
#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "base/demangle.h"
#include "base/xalloc.h"
#include "core/intern.h"
#include "formats/perfscript.h"
#include "formats/perfscript_lines.h"

struct line_cache {
	struct prof_intern lines;	/* raw frame lines */
	int32_t *count;			/* line id -> frames, -1: unrecognized */
	uint32_t *off;			/* line id -> start in pool */
	size_t cap;
	uint32_t *pool;			/* frame ids, in Perl's push order */
	size_t pool_len, pool_cap;
	size_t bytes;			/* rough memory held, to bound it */
};

#define CACHE_MAX_BYTES (24u << 20)

struct prof_perfscript {
	struct prof_stacks *t;
	const struct prof_perfscript_opts *o;
	struct line_cache cache[2];	/* [1]: comm starts with "java" */
	/* the sample being read */
	int in_sample;			/* an event line since the last empty line */
	int have_pname;
	int java;
	uint32_t *pname;		/* root frame ids (a comm with ';' gives several) */
	size_t npname, pname_cap;
	struct prof_buf pname_text;	/* text the ids were made from */
	struct prof_buf pname_raw;	/* comm, pid, tid they came from */
	double period;
	int64_t sample_time;	/* since the first sample; -1: none (on_sample) */
	uint32_t *rev;			/* frames, leaf first */
	size_t nrev, rev_cap;
	uint32_t *frames;		/* assembled root-first stack */
	size_t frames_cap;
	struct prof_buf scratch;
	/* (ext) a line that is an event line and a sample line, until the
	 * next line tells which: frames follow, or another sample */
	struct prof_buf pending;
	int has_pending;
	unsigned long pending_lineno;
	struct prof_perfscript_stats st;
};

struct prof_perfscript *prof_perfscript_new(struct prof_stacks *t,
					    const struct prof_perfscript_opts *opts)
{
	struct prof_perfscript *ps = xcalloc(1, sizeof(*ps));

	ps->t = t;
	ps->o = opts;
	prof_intern_init(&ps->cache[0].lines);
	prof_intern_init(&ps->cache[1].lines);
	return ps;
}

static void cache_release(struct line_cache *c)
{
	prof_intern_release(&c->lines);
	free(c->count);
	free(c->off);
	free(c->pool);
	memset(c, 0, sizeof(*c));
	prof_intern_init(&c->lines);
}

void prof_perfscript_free(struct prof_perfscript *ps)
{
	if (!ps)
		return;
	cache_release(&ps->cache[0]);
	cache_release(&ps->cache[1]);
	prof_intern_release(&ps->cache[0].lines);
	prof_intern_release(&ps->cache[1].lines);
	free(ps->pname);
	free(ps->rev);
	free(ps->frames);
	prof_buf_release(&ps->pname_text);
	prof_buf_release(&ps->pname_raw);
	prof_buf_release(&ps->scratch);
	prof_buf_release(&ps->pending);
	prof_perfscript_stats_release(&ps->st);
	free(ps);
}

const struct prof_perfscript_stats *prof_perfscript_stats(const struct prof_perfscript *ps)
{
	return &ps->st;
}

/* Perl's s/\((?!anonymous namespace\)).* // (no space): cut at the first other '('. */
static size_t cut_args_perl(const char *f, size_t n)
{
	const char *p = f, *end = f + n;

	while ((p = memchr(p, '(', (size_t)(end - p))) != NULL) {
		if (!starts_with(p + 1, (size_t)(end - p - 1), "anonymous namespace)"))
			return (size_t)(p - f);
		p++;
	}
	return n;
}

/*
 * The cpp_names rule: cut at the first '(' outside <...> and {...}, not
 * the "()" of operator(), not "(anonymous namespace)". Operator names
 * such as operator<< and operator-> do not count as brackets.
 */
static size_t cut_args_cpp(const char *f, size_t n)
{
	long depth = 0;
	size_t i = 0;

	while (i < n) {
		char c = f[i];

		if (c == 'o' && starts_with(f + i, n - i, "operator") &&
		    (i == 0 || !is_word((unsigned char)f[i - 1])) &&
		    (i + 8 >= n || !is_word((unsigned char)f[i + 8]))) {
			i += 8;
			if (starts_with(f + i, n - i, "()"))
				i += 2;
			else
				while (i < n && strchr("<>=!+-*/%^&|~[],", f[i]) && f[i] != '\0')
					i++;
			continue;
		}
		if (c == '<' || c == '{')
			depth++;
		else if ((c == '>' || c == '}') && depth > 0)
			depth--;
		else if (c == '(' && depth == 0 &&
			 !starts_with(f + i + 1, n - i - 1, "anonymous namespace)"))
			return i;
		i++;
	}
	return n;
}

/* /\.\(.*\)\./: a Go method name such as "net/http.(*Client).Do". */
static int is_go_method(const char *f, size_t n)
{
	const char *a = memmem(f, n, ".(", 2);
	size_t j;

	if (!a)
		return 0;
	for (j = n; j >= 2; j--) {
		if (f[j - 2] == ')' && f[j - 1] == '.')
			return j - 2 >= (size_t)(a - f) + 2;
	}
	return 0;
}

/* m:/tmp/perf-\d+\.map: */
static int is_jit_map(const char *m, size_t n)
{
	const char *p = m, *end = m + n;

	while ((p = memmem(p, (size_t)(end - p), "/tmp/perf-", 10)) != NULL) {
		const char *d = p + 10;

		while (d < end && is_digit((unsigned char)*d))
			d++;
		if (d > p + 10 && starts_with(d, (size_t)(end - d), ".map"))
			return 1;
		p++;
	}
	return 0;
}

/*
 * One frame piece through the Perl script's tidying and annotation into
 * ps->scratch, then interned.
 */
static uint32_t intern_frame_piece(struct prof_perfscript *ps, const char *f, size_t n,
			   const char *pc, size_t pc_len, const char *mod, size_t mod_len,
			   int java, int piece_index)
{
	const struct prof_perfscript_opts *o = ps->o;
	struct prof_buf *b = &ps->scratch;
	char *s, *d;
	size_t i, j, len;

	prof_buf_reset(b);
	if (n == 9 && memcmp(f, "[unknown]", 9) == 0) {
		const char *base = "unknown";
		size_t base_len = 7;

		if (!(mod_len == 9 && memcmp(mod, "[unknown]", 9) == 0)) {
			const char *slash = memrchr(mod, '/', mod_len);

			base = slash ? slash + 1 : mod;
			base_len = mod_len - (size_t)(base - mod);
		}
		prof_buf_addch(b, '[');
		prof_buf_add(b, base, base_len);
		if (o->include_addrs) {
			prof_buf_add(b, " <", 2);
			prof_buf_add(b, pc, pc_len);
			prof_buf_addch(b, '>');
		}
		prof_buf_addch(b, ']');
	} else if (!o->no_demangle && prof_demangle_candidate(f, n) && (d = prof_demangle(f, n))) {
		prof_buf_add(b, d, strlen(d));
		free(d);
	} else {
		prof_buf_add(b, f, n);
	}
	s = b->data;
	len = b->len;
	for (i = 0; i < len; i++)
		if (s[i] == ';')
			s[i] = ':';
	if (!is_go_method(s, len))
		len = o->cpp_names ? cut_args_cpp(s, len) : cut_args_perl(s, len);
	for (i = j = 0; i < len; i++)
		if (s[i] != '"' && s[i] != '\'')
			s[j++] = s[i];
	len = j;
	if (java && len > 0 && s[0] == 'L' && memchr(s, '/', len)) {
		memmove(s, s + 1, len - 1);
		len--;
	}
	b->len = len;
	if (piece_index > 0 || (o->mark_inlined && mod_len == 7 && memcmp(mod, "inlined", 7) == 0)) {
		if (!mem_contains(b->data, b->len, "_[i]"))
			prof_buf_add(b, "_[i]", 4);
	} else if (o->annotate_kernel && mod_len > 0 &&
		   (mod[0] == '[' || (mod_len >= 7 && memcmp(mod + mod_len - 7, "vmlinux", 7) == 0)) &&
		   !mem_contains(mod, mod_len, "unknown")) {
		prof_buf_add(b, "_[k]", 4);
	} else if (o->annotate_jit && is_jit_map(mod, mod_len)) {
		if (!mem_contains(b->data, b->len, "_[j]"))
			prof_buf_add(b, "_[j]", 4);
	}
	return prof_stacks_frame(ps->t, b->data, b->len);
}

/*
 * (ext) A frame line without a dso, "\s*HEX\s+symbol": perf script prints
 * these when -F leaves out dso. s0 is the first non-blank byte. Sets *sym
 * to the symbol's start and *end to its end (trailing blanks cut).
 */
static int match_frame_without_dso(const char *s, size_t n, size_t s0, size_t *sym, size_t *end)
{
	size_t i = s0;

	while (i < n && is_hex((unsigned char)s[i]))
		i++;
	if (i == s0 || i >= n || !is_ws((unsigned char)s[i]))
		return 0;
	while (i < n && is_ws((unsigned char)s[i]))
		i++;
	while (n > i && is_ws((unsigned char)s[n - 1]))
		n--;
	if (i >= n)
		return 0;
	*sym = i;
	*end = n;
	return 1;
}

/*
 * A frame line, /^\s*(\w+)\s*(.+) \((.*)\)/, into frame ids appended to
 * c->pool. Returns the number of frames (0: dropped), or -1 if the line
 * does not match.
 *
 * Matching: (.+) is greedy, so the dso starts after the last " (" that
 * has a ')' after it and ends at the last ')'. The pc is the maximal word
 * run unless the symbol would be empty, when (\s*) and then (\w+) give
 * back bytes: the symbol starts at min(end of blanks, " (" - 1).
 */
static int parse_frame_line(struct prof_perfscript *ps, struct line_cache *c,
			      const char *s, size_t n, int java)
{
	size_t s0 = 0, w_end, ws_end, L, J, p, x, f_end, h, start, i;
	const char *close, *pc, *mod;
	size_t pc_len, mod_len;
	int count = 0;

	while (s0 < n && is_ws((unsigned char)s[s0]))
		s0++;
	if (s0 >= n || !is_word((unsigned char)s[s0]))
		return -1;
	w_end = s0;
	while (w_end < n && is_word((unsigned char)s[w_end]))
		w_end++;
	ws_end = w_end;
	while (ws_end < n && is_ws((unsigned char)s[ws_end]))
		ws_end++;
	close = memrchr(s, ')', n);
	L = close ? (size_t)(close - s) : 0;
	J = SIZE_MAX;
	for (x = L; x-- > 1;) {
		if (s[x] == '(' && s[x - 1] == ' ') {
			J = x - 1;
			break;
		}
	}
	if (J == SIZE_MAX || J < s0 + 2) {
		/* (ext) "pc symbol" without " (dso)" (perf script -F ip,sym) */
		if (!match_frame_without_dso(s, n, s0, &p, &J))
			return -1;
		pc = s + s0;
		pc_len = w_end - s0;
		/* a kernel address tells a kernel frame without its dso */
		if (pc_len == 16 && starts_with(pc, pc_len, "ffff")) {
			mod = "[kernel.kallsyms]";
			mod_len = 17;
		} else {
			mod = "[unknown]";
			mod_len = 9;
		}
	} else {
		p = ws_end < J - 1 ? ws_end : J - 1;
		pc = s + s0;
		pc_len = (p < w_end ? p : w_end) - s0;
		mod = s + J + 2;
		mod_len = L - (J + 2);
	}

	/* s/\+0x[\da-f]+$// */
	f_end = J;
	h = f_end;
	while (h > p && (is_digit((unsigned char)s[h - 1]) || (s[h - 1] >= 'a' && s[h - 1] <= 'f')))
		h--;
	if (h < f_end && h >= p + 3 && s[h - 3] == '+' && s[h - 2] == '0' && s[h - 1] == 'x')
		f_end = h - 3;
	/* next if $rawfunc =~ /^\(/ (cpp_names keeps "(anonymous namespace)") */
	if (f_end > p && s[p] == '(' &&
	    !(ps->o->cpp_names && starts_with(s + p, f_end - p, "(anonymous namespace)")))
		return 0;
	/*
	 * split /->/: the pieces between "->"s, left to right; Perl's split
	 * drops trailing empty pieces, which is stripping trailing "->"s.
	 */
	while (f_end >= p + 2 && s[f_end - 2] == '-' && s[f_end - 1] == '>')
		f_end -= 2;
	start = p;
	for (i = 0; f_end > p; i++) {
		const char *arrow = memmem(s + start, f_end - start, "->", 2);
		size_t piece_end = arrow ? (size_t)(arrow - s) : f_end;
		uint32_t id = intern_frame_piece(ps, s + start, piece_end - start, pc, pc_len, mod, mod_len,
					 java, (int)i);

		PROF_GROW(c->pool, c->pool_len + 1, c->pool_cap);
		c->pool[c->pool_len++] = id;
		count++;
		if (!arrow)
			break;
		start = piece_end + 2;
	}
	return count;
}

static void cache_reserve(struct line_cache *c, size_t id)
{
	if (id >= c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 4096;

		while (cap <= id)
			cap *= 2;
		c->count = xreallocarray(c->count, cap, sizeof(*c->count));
		c->off = xreallocarray(c->off, cap, sizeof(*c->off));
		c->cap = cap;
	}
}

static void report_bad(struct prof_perfscript *ps, unsigned long lineno, const char *s, size_t n)
{
	struct prof_perfscript_stats *st = &ps->st;

	st->malformed++;
	if (st->nbad < sizeof(st->bad_line) / sizeof(st->bad_line[0])) {
		size_t k, m = n > 60 ? 60 : n;
		char *t = xmemdup(s, m);

		for (k = 0; k < m; k++)
			if ((unsigned char)t[k] < ' ' || t[k] == 0x7f)
				t[k] = ' ';
		st->bad_line[st->nbad] = lineno;
		st->bad_text[st->nbad++] = t;
	}
}

/*
 * A frame line of the open sample: its frames (parsed on first sight,
 * then taken from the cache) go in front of the frames so far, leaf first
 * as perf prints them. An unrecognised line is reported.
 */
static void add_frame_line(struct prof_perfscript *ps, const char *s, size_t n,
			   unsigned long lineno)
{
	struct line_cache *c = &ps->cache[ps->java];
	size_t before = prof_intern_count(&c->lines);
	uint32_t id = prof_intern(&c->lines, s, n);
	int32_t cnt;
	uint32_t off, k;

	if (id >= before) {
		cache_reserve(c, id);
		c->off[id] = (uint32_t)c->pool_len;
		c->count[id] = parse_frame_line(ps, c, s, n, ps->java);
		c->bytes += n + 48;
	}
	cnt = c->count[id];
	if (cnt < 0) {
		if (!prof_perfscript_is_srcline(s, n))
			report_bad(ps, lineno, s, n);
		return;
	}
	if (!ps->have_pname || cnt == 0)
		return;
	off = c->off[id];
	PROF_GROW(ps->rev, ps->nrev + (size_t)cnt, ps->rev_cap);
	for (k = (uint32_t)cnt; k-- > 0;)	/* unshift @stack, @inline */
		ps->rev[ps->nrev++] = c->pool[off + k];
	if (c->bytes + c->pool_len * 4 > CACHE_MAX_BYTES) {
		/* Bound memory on inputs with ever new lines: start over. */
		cache_release(c);
	}
}

/* End of a sample (an empty line): fold the stack. */
static void end_sample(struct prof_perfscript *ps)
{
	size_t depth = ps->npname + ps->nrev, i;
	prof_weight w[2] = { 0, 0 };
	uint32_t id;

	ps->in_sample = 0;
	if (!ps->have_pname)
		return;		/* next if not $pname */
	PROF_GROW(ps->frames, depth, ps->frames_cap);
	memcpy(ps->frames, ps->pname, ps->npname * sizeof(*ps->frames));
	for (i = 0; i < ps->nrev; i++)
		ps->frames[ps->npname + i] = ps->rev[ps->nrev - 1 - i];
	w[0] = ps->period;
	/* A period of "00" weighs 0 yet is printed by the Perl script: mark
	 * the stack in a second column so the sorted output keeps it. */
	if (w[0] == 0 && ps->t->nweights > 1)
		w[1] = 1;
	id = prof_stacks_add_columns(ps->t, ps->frames, depth, w, w[1] != 0 ? 2 : 1);
	if (ps->o->on_stack)
		ps->o->on_stack(ps->o->on_stack_ctx, id, w, 1);
	if (ps->o->on_sample)
		ps->o->on_sample(ps->o->on_sample_ctx, id, w[0], ps->sample_time);
	ps->st.samples++;
	ps->nrev = 0;
	ps->have_pname = 0;
}

static void count_other(struct prof_perfscript_stats *st, const char *name, size_t len,
			unsigned long n)
{
	size_t i;

	for (i = 0; i < st->nothers; i++) {
		if (strlen(st->others[i].name) == len && memcmp(st->others[i].name, name, len) == 0) {
			st->others[i].samples += n;
			return;
		}
	}
	st->others = xreallocarray(st->others, st->nothers + 1, sizeof(*st->others));
	st->others[st->nothers].name = xmemdup(name, len);
	st->others[st->nothers].samples = n;
	st->nothers++;
}

/* Widen the span of sample times seen to [lo, hi]. */
static void note_time(struct prof_perfscript_stats *st, uint64_t lo, uint64_t hi)
{
	if (!st->have_times || lo < st->time_min_ns)
		st->time_min_ns = lo;
	if (!st->have_times || hi > st->time_max_ns)
		st->time_max_ns = hi;
	st->have_times = 1;
}

static void set_event(struct prof_perfscript_ctx *ctx, const char *e, size_t n)
{
	ctx->event = xmemdup(e, n);
	ctx->event_len = n;
	ctx->event_defaulted = 1;
}

static double parse_period(const char *s, size_t n)
{
	double v = 0;
	size_t i;

	/* if (not $period) { $period = 1 }: "" and "0" are false in Perl */
	if (n == 0 || (n == 1 && s[0] == '0'))
		return 1;
	for (i = 0; i < n; i++)
		v = v * 10 + (s[i] - '0');
	return v;
}

/* The root frame(s): the comm with pid/tid, spaces -> '_', split at ';'. */
static void set_root_frames(struct prof_perfscript *ps, const struct prof_perf_event *ev)
{
	struct prof_buf *b = &ps->scratch, *raw = &ps->pname_raw;
	const char *pid = ev->pid, *tid = ev->tid;
	size_t pid_len = ev->pid_len, tid_len = ev->tid_len, i, start;

	/* Most samples come from the thread of the sample before. */
	if (ps->npname && raw->len == ev->comm_len + pid_len + tid_len + 2 &&
	    memcmp(raw->data, ev->comm, ev->comm_len) == 0 &&
	    memcmp(raw->data + ev->comm_len + 1, pid, pid_len) == 0 &&
	    memcmp(raw->data + ev->comm_len + 2 + pid_len, tid, tid_len) == 0 &&
	    raw->data[ev->comm_len] == '\n' && raw->data[ev->comm_len + 1 + pid_len] == '\n')
		return;
	prof_buf_reset(raw);
	prof_buf_add(raw, ev->comm, ev->comm_len);
	prof_buf_addch(raw, '\n');
	prof_buf_add(raw, pid, pid_len);
	prof_buf_addch(raw, '\n');
	prof_buf_add(raw, tid, tid_len);

	if (tid_len == 0 || (tid_len == 1 && tid[0] == '0')) {
		tid = pid;
		tid_len = pid_len;
		pid = "?";
		pid_len = 1;
	}
	prof_buf_reset(b);
	prof_buf_add(b, ev->comm, ev->comm_len);
	if (ps->o->include_tid || ps->o->include_pid) {
		prof_buf_addch(b, '-');
		prof_buf_add(b, pid, pid_len);
		if (ps->o->include_tid) {
			prof_buf_addch(b, '/');
			prof_buf_add(b, tid, tid_len);
		}
	}
	for (i = 0; i < b->len; i++)
		if (b->data[i] == ' ')
			b->data[i] = '_';
	ps->java = starts_with(b->data, b->len, "java");
	if (ps->pname_text.len == b->len && memcmp(ps->pname_text.data, b->data, b->len) == 0 &&
	    ps->npname)
		return;
	prof_buf_reset(&ps->pname_text);
	prof_buf_add(&ps->pname_text, b->data, b->len);
	ps->npname = 0;
	start = 0;
	for (i = 0; i <= b->len; i++) {
		if (i == b->len || b->data[i] == ';') {
			PROF_GROW(ps->pname, ps->npname + 1, ps->pname_cap);
			ps->pname[ps->npname++] = prof_stacks_frame(ps->t, b->data + start, i - start);
			start = i + 1;
		}
	}
}

/*
 * The event line of a sample: folded if of the event folded and in the
 * time window (else counted), with its period and root frames.
 */
static void apply_event_line(struct prof_perfscript *ps, struct prof_perfscript_ctx *ctx,
		       const struct prof_perf_event *ev)
{
	const struct prof_perfscript_opts *o = ps->o;

	if (ev->has_event) {
		if (!ctx->event) {
			set_event(ctx, ev->event, ev->event_len);
		} else if (ev->event_len != ctx->event_len ||
			   memcmp(ev->event, ctx->event, ev->event_len) != 0) {
			count_other(&ps->st, ev->event, ev->event_len, 1);
			return;		/* next: the sample is ignored */
		}
	}
	if (ev->period_len)
		ps->st.weighted = 1;	/* the unit does not depend on the window */
	if (o->time_window || o->on_sample) {
		uint64_t t = 0;
		int timed = ev->time_len && prof_perfscript_parse_time(ev->time, ev->time_len, &t);

		ps->sample_time = timed && ctx->time_known && t >= ctx->time_base_ns ?
				  (int64_t)(t - ctx->time_base_ns) : -1;
		if (o->time_window && timed)
			note_time(&ps->st, t, t);
		if (o->time_window &&
		    (!timed || !ctx->time_known || t < ctx->time_base_ns + o->time_from_ns ||
		     (o->time_to_ns != UINT64_MAX && t >= ctx->time_base_ns + o->time_to_ns))) {
			ps->st.outside_time++;
			return;
		}
	}
	ps->period = o->counts ? 1 : parse_period(ev->period, ev->period_len);
	set_root_frames(ps, ev);
	ps->have_pname = 1;
}

/* (ext) A sample line: its root and its one frame, folded at once. */
static void fold_sample_line(struct prof_perfscript *ps, struct prof_perfscript_ctx *ctx,
			  const struct prof_perf_event *ev, const char *frame, size_t n,
			  unsigned long lineno)
{
	end_sample(ps);
	apply_event_line(ps, ctx, ev);
	if (ps->have_pname)
		add_frame_line(ps, frame, n, lineno);
	end_sample(ps);
}

/* An event line (Perl's rules): a sample starts; one still open ends. */
static void start_sample(struct prof_perfscript *ps, struct prof_perfscript_ctx *ctx,
			 const struct prof_perf_event *ev)
{
	end_sample(ps);
	apply_event_line(ps, ctx, ev);
	ps->in_sample = 1;
}

/*
 * Settle the pending line: an event line if frame lines follow it
 * (next_is_frame), else a sample line.
 */
static void settle_pending(struct prof_perfscript *ps, struct prof_perfscript_ctx *ctx,
			   int next_is_frame)
{
	struct prof_perf_event ev;
	const char *l = ps->pending.data;
	size_t n = ps->pending.len, frame;

	if (!ps->has_pending)
		return;
	ps->has_pending = 0;
	if (next_is_frame) {
		if (prof_perfscript_event_line(l, n, &ev))
			start_sample(ps, ctx, &ev);
	} else if (prof_perfscript_sample_line(l, n, &ev, &frame)) {
		fold_sample_line(ps, ctx, &ev, l + frame, n - frame, ps->pending_lineno);
	}
}

void prof_perfscript_parse(struct prof_perfscript *ps, struct prof_perfscript_ctx *ctx,
			   const char *buf, size_t len, unsigned long line0, int last)
{
	const char *p = buf, *end = buf + len;
	unsigned long lineno = line0;
	struct prof_perf_event ev;
	size_t frame;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *next = nl ? nl + 1 : end;
		size_t n = (size_t)((nl ? nl : end) - p);
		int indented, is_event, is_sample;

		lineno++;
		if (n && p[n - 1] == '\r')
			n--;
		if (n == 0) {
			settle_pending(ps, ctx, 0);
			end_sample(ps);
			p = next;
			continue;
		}
		if (p[0] == '#') {
			p = next;
			continue;
		}
		indented = is_ws((unsigned char)p[0]);
		is_event = !indented && prof_perfscript_event_line(p, n, &ev);
		/* (ext) --show-*-events side-band records (never end in "event:") */
		if (is_event && !ev.has_event && memmem(p, n, ": PERF_RECORD_", 14)) {
			p = next;
			continue;
		}
		/*
		 * A sample line ends in its frame, not in "event:"; a frame of
		 * an open sample is never taken for one.
		 */
		if (is_event)
			is_sample = !ev.has_event && prof_perfscript_sample_line(p, n, &ev, &frame);
		else
			is_sample = (!indented || !ps->in_sample || ps->has_pending) &&
				    prof_perfscript_sample_line(p, n, &ev, &frame);
		if (ps->has_pending) {
			/* a -F +srcline line after it tells nothing */
			if (!is_event && !is_sample && prof_perfscript_is_srcline(p, n)) {
				p = next;
				continue;
			}
			settle_pending(ps, ctx, !is_event && !is_sample);
		}
		if (is_event && is_sample) {
			/* frames on the next lines make it an event line */
			end_sample(ps);
			prof_buf_reset(&ps->pending);
			prof_buf_add(&ps->pending, p, n);
			ps->has_pending = 1;
			ps->pending_lineno = lineno;
		} else if (is_sample) {
			fold_sample_line(ps, ctx, &ev, p + frame, n - frame, lineno);
		} else if (is_event) {
			prof_perfscript_event_line(p, n, &ev);
			start_sample(ps, ctx, &ev);
		} else {
			add_frame_line(ps, p, n, lineno);
		}
		p = next;
	}
	ps->st.lines += lineno - line0;
	if (last) {
		settle_pending(ps, ctx, 0);
		end_sample(ps);
	}
}

int prof_perfscript_prescan(struct prof_perfscript_ctx *ctx, const char *buf, size_t len,
			    int need_time)
{
	const char *p = buf, *end = buf + len;
	struct prof_perf_event ev;
	size_t frame;

	while (p < end && (!ctx->event || (need_time && !ctx->time_known))) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);

		if (n && p[n - 1] == '\r')
			n--;
		if (n && p[0] != '#' &&
		    ((!is_ws((unsigned char)p[0]) && prof_perfscript_event_line(p, n, &ev) &&
		      ev.has_event) || (prof_perfscript_sample_line(p, n, &ev, &frame) && ev.has_event))) {
			if (!ctx->event)
				set_event(ctx, ev.event, ev.event_len);
			if (!ctx->time_known && prof_perfscript_parse_time(ev.time, ev.time_len, &ctx->time_base_ns))
				ctx->time_known = 1;
		}
		p = nl ? nl + 1 : end;
	}
	return ctx->event && (!need_time || ctx->time_known);
}

void prof_perfscript_ctx_release(struct prof_perfscript_ctx *ctx)
{
	free(ctx->event);
	memset(ctx, 0, sizeof(*ctx));
}

void prof_perfscript_stats_merge(struct prof_perfscript_stats *dst,
				 const struct prof_perfscript_stats *src)
{
	size_t i, j;

	dst->lines += src->lines;
	dst->samples += src->samples;
	dst->malformed += src->malformed;
	dst->outside_time += src->outside_time;
	dst->weighted |= src->weighted;
	if (src->have_times)
		note_time(dst, src->time_min_ns, src->time_max_ns);
	for (i = 0; i < src->nothers; i++)
		count_other(dst, src->others[i].name, strlen(src->others[i].name),
			    src->others[i].samples);
	/* Keep the first reports by line number. */
	for (i = 0; i < src->nbad; i++) {
		size_t max = sizeof(dst->bad_line) / sizeof(dst->bad_line[0]);

		if (dst->nbad == max && src->bad_line[i] > dst->bad_line[max - 1])
			continue;
		if (dst->nbad == max) {
			free(dst->bad_text[max - 1]);
			dst->nbad--;
		}
		j = dst->nbad;
		while (j > 0 && dst->bad_line[j - 1] > src->bad_line[i]) {
			dst->bad_line[j] = dst->bad_line[j - 1];
			dst->bad_text[j] = dst->bad_text[j - 1];
			j--;
		}
		dst->bad_line[j] = src->bad_line[i];
		dst->bad_text[j] = xstrdup(src->bad_text[i]);
		dst->nbad++;
	}
}

void prof_perfscript_stats_release(struct prof_perfscript_stats *s)
{
	size_t i;

	for (i = 0; i < s->nothers; i++)
		free(s->others[i].name);
	free(s->others);
	for (i = 0; i < s->nbad; i++)
		free(s->bad_text[i]);
	memset(s, 0, sizeof(*s));
}
