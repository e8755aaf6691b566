/*
 * Demangling through libiberty (demangle.h says why libiberty).
 */
#include <stdlib.h>
#include <string.h>
#include <libiberty/demangle.h>

#include "base/demangle.h"
#include "base/error.h"

char *prof_demangle(const char *name, size_t len)
{
	char stack[512], *copy = stack, *out;

	if (!prof_demangle_candidate(name, len))
		return NULL;
	/* libiberty wants a C string; a name is rarely longer than this */
	if (len >= sizeof(stack) && !(copy = malloc(len + 1)))
		return NULL;
	memcpy(copy, name, len);
	copy[len] = 0;
	out = rust_demangle(copy, DMGL_PARAMS | DMGL_ANSI);
	if (!out && copy[1] == 'Z')
		out = cplus_demangle_v3(copy, DMGL_PARAMS | DMGL_ANSI);
	if (copy != stack)
		free(copy);
	return out;
}

char *prof_demangle_shown(const char *raw, int keep_raw)
{
	char *d = keep_raw ? NULL : prof_demangle(raw, strlen(raw));

	/* not xstrdup(): base/xalloc.h's x* names clash with libiberty's */
	if (!d && !(d = strdup(raw)))
		prof_die("out of memory");
	return d;
}

int prof_demangle_matches(const char *raw, const char *want)
{
	char *d;
	int same;

	if (strcmp(raw, want) == 0)
		return 1;
	if (!(d = prof_demangle(raw, strlen(raw))))
		return 0;
	same = strcmp(d, want) == 0;
	free(d);
	return same;
}
