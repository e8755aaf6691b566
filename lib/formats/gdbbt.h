#ifndef PROF_GDBBT_H
#define PROF_GDBBT_H
/*
 * gdb backtraces (formats/import.h): the poor man's profiler, snapshots of
 * `gdb -batch -ex "thread apply all bt" -p PID` concatenated:
 *
 *   Thread 2 (Thread 0x7f2e155686c0 (LWP 11206) "worker"):
 *   #0  0x00005643f30db17a in fib (n=n@entry=0) at work.c:13
 *   #1  __GI___libc_read (fd=3, ...) at read.c:24       (inlined: no address)
 *   #2  0x00007f2e156758ec in clone3 () from /lib/x86_64-linux-gnu/libc.so.6
 *   #3  <signal handler called>
 *
 * Each run of "#N" frame lines (leaf first) is one sample, weight 1; a
 * "#0" line, or any other line, ends the one before. A frame is the
 * function name before its " (args)" (C++ template arguments with
 * blanks kept, where stackcollapse-gdb.pl keeps the first word only);
 * "??" is "[FILE]" when gdb said "from FILE", else "[unknown]". The thread
 * name of the "Thread N (...) "NAME"):" line before the frames, when gdb
 * prints one, is the root frame (the thread's comm, as perf script's).
 * Other lines (gdb's notes, "bt full" locals) are skipped.
 *
 * Metadata: unit=samples source=gdb.
 */
#include <stddef.h>

struct prof_import;

/* Nonzero if buf[0..len) looks like gdb backtraces ("#0  ... (...)"). */
int prof_gdbbt_detect(const char *buf, size_t len, int complete);

/*
 * Fold the whole input buf[0..len) (NUL-terminated, modified) into imp.
 * Returns 0 (every line is either a frame or skipped).
 */
int prof_gdbbt_read(struct prof_import *imp, char *buf, size_t len);

#endif
