#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "base/error.h"
#include "base/xalloc.h"
#include "heap/suppressions.h"
#include "io/input.h"

static const char *const builtin_patterns[] = {
	"_IO_file_doallocate", "^__new_exitfn", "^__cxa_thread_atexit", "^_nl_", "^__tz",
	"^tzset", "^__nss_", "^nss_", "^__gconv", "^__libc_dlopen", "^_dl_", "/ld-linux",
	"^__strerror", "^strerror", "^_dlerror_run", "^dlerror", "^__libc_early_init",
	"(anonymous namespace)::pool::pool", "^__cxa_get_globals", "^__libc_setlocale",
	"^setlocale", "^_IO_vfscanf", "^__printf_fp",
};

void prof_heap_supp_release(struct prof_heap_supp *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->pats[i]);
	free(s->pats);
	s->pats = NULL;
	s->n = s->cap = 0;
}

void prof_heap_supp_add(struct prof_heap_supp *s, const char *pat, size_t len)
{
	PROF_GROW(s->pats, s->n + 1, s->cap);
	s->pats[s->n++] = xstrndup(pat, len);
}

void prof_heap_supp_add_builtin(struct prof_heap_supp *s)
{
	size_t i;

	for (i = 0; i < sizeof(builtin_patterns) / sizeof(builtin_patterns[0]); i++)
		prof_heap_supp_add(s, builtin_patterns[i], strlen(builtin_patterns[i]));
}

unsigned long prof_heap_supp_load(struct prof_heap_supp *s, const char *path)
{
	struct prof_lines *lr = prof_lines_open(path);
	unsigned long bad = 0;
	size_t len;
	char *line;

	if (!lr)
		return 1;
	while ((line = prof_lines_next(lr, &len)) != NULL) {
		char *p = line, *e = line + len;

		while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
			*--e = 0;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			continue;
		if (!strncmp(p, "leak:", 5) && p[5]) {
			prof_heap_supp_add(s, p + 5, strlen(p + 5));
		} else if (strchr(p, ':')) {
			prof_input_warn(path, prof_lines_lineno(lr),
					"unsupported suppression type (only leak: applies)");
		} else {
			prof_input_warn(path, prof_lines_lineno(lr),
					"malformed suppression (expected leak:PATTERN)");
			bad++;
		}
	}
	if (prof_lines_failed(lr))
		bad++;
	bad += prof_lines_too_long(lr);
	prof_lines_close(lr);
	return bad;
}

/*
 * Glob p[0..pe) with '*' against s[0..se): the whole of s, or when
 * open_start (open_end) a part of it that need not start at its start
 * (end at its end). One backtracking point, the last '*' (open_start is
 * one before the pattern): a failed match moves it one byte on, so
 * "a*b*c*..." against a long name costs at most len(p) * len(s) steps,
 * never an exponential search (found by fuzz_suppressions).
 */
static int glob_match(const char *p, const char *pe, const char *s, const char *se,
		      int open_start, int open_end)
{
	const char *star = open_start ? p : NULL, *star_s = s;

	for (;;) {
		if (p < pe && *p == '*') {
			while (p < pe && *p == '*')
				p++;
			if (p == pe)
				return 1;
			star = p;
			star_s = s;
			continue;
		}
		if (p == pe) {
			if (open_end || s == se)
				return 1;
		} else if (s < se && *p == *s) {
			p++, s++;
			continue;
		}
		/* a mismatch: the last '*' takes one more byte, if there is one */
		if (!star || star_s == se)
			return 0;
		p = star;
		s = ++star_s;
	}
}

int prof_heap_supp_template_match(const char *pattern, const char *str)
{
	const char *pe = pattern + strlen(pattern), *se = str + strlen(str);
	int anchored_start = pattern[0] == '^', anchored_end;

	if (anchored_start)
		pattern++;
	anchored_end = pe > pattern && pe[-1] == '$';
	if (anchored_end)
		pe--;
	return glob_match(pattern, pe, str, se, !anchored_start, !anchored_end);
}

int prof_heap_supp_match(const struct prof_heap_supp *s, const char *str)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (prof_heap_supp_template_match(s->pats[i], str))
			return 1;
	return 0;
}

int prof_heap_runtime_object(const char *path)
{
	static const char *const names[] = {
		"libc.so", "ld-linux", "ld64.so", "libstdc++.so", "libgcc_s.so", "libm.so",
		"libpthread.so", "libdl.so",
	};
	const char *b = strrchr(path, '/');
	size_t i;

	b = b ? b + 1 : path;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strncmp(b, names[i], strlen(names[i])))
			return 1;
	return 0;
}
