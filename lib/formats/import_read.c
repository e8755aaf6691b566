/*
 * Which importer reads an input, and the dispatch to it (import.h). Apart
 * from import.c, which the importers build on, so that nothing depends
 * on itself.
 */
#include <stdlib.h>
#include "base/buf.h"
#include "formats/dtrace.h"
#include "formats/eustack.h"
#include "formats/gdbbt.h"
#include "formats/import.h"
#include "formats/perfreport.h"
#include "formats/speedscope_read.h"
#include "io/chunk.h"

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

/*
 * The lines of r, gathered: the line cap applies (a longer line is
 * reported and handed over empty, so line numbers stay right).
 */
static char *read_lines(struct prof_chunks *r, size_t *len)
{
	struct prof_buf all = PROF_BUF_INIT;
	size_t n;
	int last;
	char *block;

	while ((block = prof_chunks_next(r, PROF_CHUNK_LINE, &n, &last)) != NULL) {
		prof_buf_add(&all, block, n);
		prof_chunks_recycle(r, block);
	}
	return prof_buf_detach(&all, len);
}

int prof_import_read(struct prof_import *imp, enum prof_profile_format f,
		     struct prof_chunks *r)
{
	size_t len;
	/* JSON is one document, often on one line; the text formats are lines */
	char *buf = f == PROF_PROFILE_SPEEDSCOPE ? prof_chunks_read_all(r, PROF_MAX_DOCUMENT, &len) :
		    read_lines(r, &len);
	int rval;

	if (!buf)
		return -1;
	rval = prof_import_read_text(imp, f, buf, len);
	free(buf);
	return prof_chunks_failed(r) || prof_chunks_too_long(r) ? -1 : rval;
}
