#ifndef PROF_DTRACE_H
#define PROF_DTRACE_H
/*
 * DTrace and bpftrace aggregated stacks (formats/import.h), the input of
 * FlameGraph's stackcollapse.pl and stackcollapse-bpftrace.pl:
 *
 *   DTrace (@[ustack()] = count();)       bpftrace (@[kstack, comm] = count();)
 *            libc.so.1`_write+0x8          @[
 *            mysqld`main+0x53                  vfs_write+5
 *              42                              ksys_write+103
 *                                          , mysqld]: 42
 *
 * A DTrace stack is the frame lines (leaf first) above a line holding only
 * a count; lines before the first blank line that no count ends are
 * dtrace's header. Frames are cleaned as stackcollapse.pl does: the
 * "+offset" cut, C++ arguments after "::" cut, "a->b" inlined frames
 * split (b marked "_[i]"), ';' made ':', a Java "L" class prefix dropped
 * (only on names with a '/', where stackcollapse.pl drops any leading L).
 *
 * A bpftrace map entry is "@NAME[" KEY "]: COUNT", where the key's stack
 * elements span lines (one frame a line, leaf first; "ADDR sym+off (dso)"
 * with ustack(perf)); its other elements (comm, pid) become root frames,
 * outermost first. Offsets are cut as for DTrace (stackcollapse-bpftrace.pl
 * keeps them), "(dso)" dropped. A one-line entry "@[x]: N" is the stack "x".
 *
 * Metadata: source=dtrace or source=bpftrace; no unit (an aggregation
 * may be count() or sum()).
 */
#include <stddef.h>

struct prof_import;

/* Nonzero if buf[0..len) looks like DTrace or bpftrace stacks. */
int prof_dtrace_detect(const char *buf, size_t len, int complete);

/*
 * Fold the whole input buf[0..len) (NUL-terminated, modified) into imp.
 * Returns 0, or -1 if anything was malformed (reported).
 */
int prof_dtrace_read(struct prof_import *imp, char *buf, size_t len);

#endif
