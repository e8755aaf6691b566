#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "base/error.h"
#include "base/xalloc.h"
#include "formats/import.h"

/* Report at most this many problems of an input one by one, then a count. */
#define MAX_REPORTED 10

void prof_import_init(struct prof_import *imp, const char *name, struct prof_stacks *t)
{
	memset(imp, 0, sizeof(*imp));
	imp->name = name;
	imp->t = t;
	imp->meta = (struct prof_meta)PROF_META_INIT;
}

void prof_import_release(struct prof_import *imp)
{
	prof_meta_release(&imp->meta);
	free(imp->frames);
	imp->frames = NULL;
	imp->depth = imp->cap = 0;
}

uint32_t prof_import_intern(struct prof_import *imp, const char *name, size_t len)
{
	return prof_import_frame_in(imp->t, name, len);
}

uint32_t prof_import_frame_in(struct prof_stacks *t, const char *name, size_t len)
{
	char *copy;
	uint32_t id;
	size_t i;

	if (!memchr(name, ';', len) && !memchr(name, '\n', len) && !memchr(name, '\r', len))
		return prof_stacks_frame(t, name, len);
	copy = xmemdup(name, len);
	for (i = 0; i < len; i++) {
		if (copy[i] == ';')
			copy[i] = ':';
		else if (copy[i] == '\n' || copy[i] == '\r')
			copy[i] = ' ';
	}
	id = prof_stacks_frame(t, copy, len);
	free(copy);
	return id;
}

void prof_import_frame_id(struct prof_import *imp, uint32_t id)
{
	if (imp->depth == imp->cap) {
		imp->cap = imp->cap ? imp->cap * 2 : 64;
		imp->frames = xreallocarray(imp->frames, imp->cap, sizeof(*imp->frames));
	}
	imp->frames[imp->depth++] = id;
}

void prof_import_frame(struct prof_import *imp, const char *name, size_t len)
{
	prof_import_frame_id(imp, prof_import_intern(imp, name, len));
}

void prof_import_dso_frame(struct prof_import *imp, const char *path, size_t len)
{
	const char *slash = len ? memrchr(path, '/', len) : NULL;
	char tmp[256];

	if (slash) {
		len -= (size_t)(slash + 1 - path);
		path = slash + 1;
	}
	if (!len || len + 2 > sizeof(tmp)) {
		prof_import_frame(imp, "[unknown]", 9);
		return;
	}
	tmp[0] = '[';
	memcpy(tmp + 1, path, len);
	tmp[len + 1] = ']';
	prof_import_frame(imp, tmp, len + 2);
}

uint32_t prof_import_commit(struct prof_import *imp, prof_weight w, int leaf_first)
{
	prof_weight row[PROF_STACKS_MAX_WEIGHTS] = { 0 };
	uint32_t id;
	size_t i, n = imp->depth;

	if (!n)
		return UINT32_MAX;
	if (leaf_first) {
		for (i = 0; i < n / 2; i++) {
			uint32_t f = imp->frames[i];

			imp->frames[i] = imp->frames[n - 1 - i];
			imp->frames[n - 1 - i] = f;
		}
	}
	row[0] = imp->counts ? 1 : w;
	if (n > PROF_STACKS_MAX_EXPANDED_DEPTH) {	/* the innermost frames: the end */
		imp->cut++;
		id = prof_stacks_add_columns(imp->t, imp->frames + n - PROF_STACKS_MAX_EXPANDED_DEPTH,
					     PROF_STACKS_MAX_EXPANDED_DEPTH, row, 1);
	} else {
		id = prof_stacks_add_columns(imp->t, imp->frames, n, row, 1);
	}
	imp->depth = 0;
	imp->stacks++;
	if (imp->on_stack)
		imp->on_stack(imp->on_stack_ctx, id, row, 1);
	return id;
}

void prof_import_bad(struct prof_import *imp, unsigned long line, unsigned long column,
		     const char *fmt, ...)
{
	struct prof_buf b = PROF_BUF_INIT;
	va_list ap;

	if (imp->malformed++ >= MAX_REPORTED)
		return;
	va_start(ap, fmt);
	prof_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	if (column)
		prof_warn("%s:%lu:%lu: %s", imp->name, line, column, prof_buf_cstr(&b));
	else
		prof_input_warn(imp->name, line, "%s", prof_buf_cstr(&b));
	prof_buf_release(&b);
}

int prof_import_finish(struct prof_import *imp)
{
	if (imp->malformed > MAX_REPORTED)
		prof_input_warn(imp->name, 0, "%lu problems in all", imp->malformed);
	if (imp->cut)
		prof_warn("%s: %lu stack%s deeper than %d frames cut to %s innermost %d",
			  imp->name, imp->cut, imp->cut == 1 ? "" : "s",
			  PROF_STACKS_MAX_EXPANDED_DEPTH, imp->cut == 1 ? "its" : "their",
			  PROF_STACKS_MAX_EXPANDED_DEPTH);
	return imp->malformed ? -1 : 0;
}

int prof_import_count(const char *s, size_t len, prof_weight *v)
{
	uint64_t u = 0;
	size_t i;

	if (!len)
		return -1;
	for (i = 0; i < len; i++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (d > 9 || u > (UINT64_MAX - d) / 10)
			return -1;
		u = u * 10 + d;
	}
	*v = (prof_weight)u;
	return 0;
}
