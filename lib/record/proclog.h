#ifndef PROF_RECORD_PROCLOG_H
#define PROF_RECORD_PROCLOG_H
/*
 * The process log of a recording (profrec --processes): every process it
 * saw start (a FORK record of a new process: its pid and parent) and every
 * image it saw replace another (a COMM record at exec: the pid and the new
 * name), as profrec-processes TSV (prof-formats(5)), times on the clock of
 * the samples' time_ns (from the start of the recording). With the
 * samples' pid and time it rebuilds the process tree and the exec chains
 * of a command: proftools-profile tells a launcher, such as a shell shim,
 * from the program it execs. Rows are kept in memory (some 40 bytes a
 * process or exec) and written at the end.
 */
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

struct prof_meta;

struct prof_proclog {
	struct prof_buf rows;	/* the TSV rows, without the header */
};

void prof_proclog_init(struct prof_proclog *l);

/* A new process pid, child of ppid, at time_ns; comm is its name (NUL-terminated). */
void prof_proclog_fork(struct prof_proclog *l, uint64_t time_ns, int pid, int ppid, const char *comm);

/* Process pid exec'd an image named comm (len bytes, not NUL-terminated) at time_ns. */
void prof_proclog_exec(struct prof_proclog *l, uint64_t time_ns, int pid, const char *comm, size_t len);

/*
 * Write the log to path (atomically): meta's line (if any), the column
 * line, the rows in the order they came. Returns 0, or -1 (reported).
 */
int prof_proclog_write(const struct prof_proclog *l, const char *path, const struct prof_meta *meta);

void prof_proclog_release(struct prof_proclog *l);

#endif
