#ifndef PROF_PERFREPORT_H
#define PROF_PERFREPORT_H
/*
 * `perf report --stdio --no-children -g folded[,0,caller|callee,count|period|percent]`
 * (formats/import.h):
 *
 *   # Samples: 74  of event 'cpu-clock:ppp'
 *   # Event count (approx.): 148296592
 *   # Overhead  Command  Shared Object  Symbol
 *       93.24%  work     work           [.] fib
 *   19 start_thread;busy;fib;fib
 *   25.68% fib;fib;busy;start_thread            (callee order, percent)
 *
 * Under each entry (its self overhead), one line per call chain ending in
 * the entry's symbol: a value, then the chain. Every sample is under one
 * entry exactly, so the chains added up are the profile. The order of a
 * chain (caller: root first; callee: leaf first, perf's default without
 * children) is read from where the entry's symbol is: at its end or at
 * its start (a chain where both or neither are keeps the order before).
 * With children (perf's default with -g, "# Children" in the header) a
 * sample is under every function of its chain: refused, with the option
 * that makes it right. perf's own kernel and inline markers are not in
 * this output; there is no process-name root frame.
 *
 * Several events: the one named by imp->event, else the first; the others'
 * sections are skipped with a note. Metadata: event, source=perf-report,
 * unit: "percent" for percentages (perf's default), "samples" when the
 * values add up to nearer the header's sample count than its event count
 * (count), else (periods) "ns" for cpu-clock and task-clock, the event name
 * otherwise.
 */
#include <stddef.h>

struct prof_import;

/* Nonzero if buf[0..len) is perf report --stdio text ("# Samples:", "# Overhead"). */
int prof_perfreport_detect(const char *buf, size_t len);

/*
 * Fold the whole input buf[0..len) (NUL-terminated, modified) into imp.
 * Returns 0, or -1 if anything was malformed or the report has children
 * (reported).
 */
int prof_perfreport_read(struct prof_import *imp, char *buf, size_t len);

#endif
