#ifndef PROF_EUSTACK_H
#define PROF_EUSTACK_H
/*
 * eu-stack (elfutils) output (formats/import.h), one or several runs
 * concatenated (a poor man's profiler taking a snapshot now and then):
 *
 *   PID 4242 - process
 *   TID 4242:
 *   #0  0x00007f2e1563b545 clock_nanosleep@GLIBC_2.2.5
 *   #1  0x00005643f30db2ae - 1 main - /opt/app
 *       /src/app.c:60:2                       (-s: source, -b: build-id lines)
 *
 * Each "TID N:" block is one sample (weight 1) of that thread's stack,
 * frames leaf first. A frame is the symbol after the address (and after
 * -a's "- 1"), without -m's " - MODULE"; a frame without a symbol is
 * "[MODULE]" (its file name) when -m named it, else "[unknown]". Indented
 * lines (-s, -b) and eu-stack's own "eu-stack: ..." messages are skipped.
 * eu-stack names no command, so there is no process-name root frame (as
 * FlameGraph's stackcollapse-elfutils.pl); include_pid adds a root frame
 * "PID=N", include_tid "PID=N;TID=N", as that script's --pid --tid.
 *
 * Metadata: unit=samples source=eu-stack.
 */
#include <stddef.h>

struct prof_import;

/* Nonzero if buf[0..len) looks like eu-stack output ("TID N:", then "#0  0x..."). */
int prof_eustack_detect(const char *buf, size_t len, int complete);

/*
 * Fold the whole input buf[0..len) (NUL-terminated, modified) into imp.
 * Returns 0, or -1 if a line was not eu-stack's (reported).
 */
int prof_eustack_read(struct prof_import *imp, char *buf, size_t len);

#endif
