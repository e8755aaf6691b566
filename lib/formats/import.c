#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "base/error.h"
#include "base/xalloc.h"
#include "formats/dtrace.h"
#include "formats/eustack.h"
#include "formats/gdbbt.h"
#include "formats/import.h"
#include "formats/perfreport.h"
#include "formats/speedscope_read.h"
#include "io/chunk.h"

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
	char *copy;
	uint32_t id;
	size_t i;

	if (!memchr(name, ';', len) && !memchr(name, '\n', len) && !memchr(name, '\r', len))
		return prof_stacks_frame(imp->t, name, len);
	copy = xmemdup(name, len);
	for (i = 0; i < len; i++) {
		if (copy[i] == ';')
			copy[i] = ':';
		else if (copy[i] == '\n' || copy[i] == '\r')
			copy[i] = ' ';
	}
	id = prof_stacks_frame(imp->t, copy, len);
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
	id = prof_stacks_add_columns(imp->t, imp->frames, n, row, 1);
	imp->depth = 0;
	imp->stacks++;
	if (imp->on_stack)
		imp->on_stack(imp->on_stack_ctx, id, row, 1);
	return id;
}

void prof_import_bad(struct prof_import *imp, unsigned long line, const char *fmt, ...)
{
	struct prof_buf b = PROF_BUF_INIT;
	va_list ap;

	if (imp->malformed++ >= MAX_REPORTED)
		return;
	va_start(ap, fmt);
	prof_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	prof_input_warn(imp->name, line, "%s", prof_buf_cstr(&b));
	prof_buf_release(&b);
}

void prof_import_bad_at(struct prof_import *imp, unsigned long line, unsigned long column,
			const char *fmt, ...)
{
	struct prof_buf b = PROF_BUF_INIT;
	va_list ap;

	if (imp->malformed++ >= MAX_REPORTED)
		return;
	va_start(ap, fmt);
	prof_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	prof_warn("%s:%lu:%lu: %s", imp->name, line, column, prof_buf_cstr(&b));
	prof_buf_release(&b);
}

int prof_import_finish(struct prof_import *imp)
{
	if (imp->malformed > MAX_REPORTED)
		prof_input_warn(imp->name, 0, "%lu problems in all", imp->malformed);
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

/*
 * The order matters only where two formats could claim one input: eu-stack
 * before gdb (both number frames "#N"; eu-stack's blocks start "TID N:").
 */
enum prof_profile_format prof_import_detect(const char *buf, size_t len, int complete)
{
	if (prof_speedscope_detect(buf, len))
		return PROF_PROFILE_SPEEDSCOPE;
	if (prof_perfreport_detect(buf, len))
		return PROF_PROFILE_PERF_REPORT;
	if (prof_eustack_detect(buf, len, complete))
		return PROF_PROFILE_EUSTACK;
	if (prof_gdbbt_detect(buf, len, complete))
		return PROF_PROFILE_GDB;
	if (prof_dtrace_detect(buf, len, complete))
		return PROF_PROFILE_DTRACE;
	return PROF_PROFILE_AUTO;
}

int prof_import_handles(enum prof_profile_format f)
{
	return f == PROF_PROFILE_DTRACE || f == PROF_PROFILE_EUSTACK || f == PROF_PROFILE_GDB ||
	       f == PROF_PROFILE_PERF_REPORT || f == PROF_PROFILE_SPEEDSCOPE;
}

int prof_import_read_text(struct prof_import *imp, enum prof_profile_format f, char *buf,
			  size_t len)
{
	int rval;

	switch (f) {
	case PROF_PROFILE_DTRACE:
		rval = prof_dtrace_read(imp, buf, len);
		break;
	case PROF_PROFILE_EUSTACK:
		rval = prof_eustack_read(imp, buf, len);
		break;
	case PROF_PROFILE_GDB:
		rval = prof_gdbbt_read(imp, buf, len);
		break;
	case PROF_PROFILE_PERF_REPORT:
		rval = prof_perfreport_read(imp, buf, len);
		break;
	case PROF_PROFILE_SPEEDSCOPE:
		rval = prof_speedscope_read(imp, buf, len);
		break;
	default:
		rval = -1;
		break;
	}
	if (prof_import_finish(imp))
		rval = -1;
	return rval;
}

int prof_import_read(struct prof_import *imp, enum prof_profile_format f,
		     struct prof_chunks *r)
{
	size_t len;
	char *buf = prof_chunks_read_all(r, &len);
	int rval = prof_import_read_text(imp, f, buf, len);

	free(buf);
	return prof_chunks_failed(r) ? -1 : rval;
}
