#ifndef PROF_SPEEDSCOPE_READ_H
#define PROF_SPEEDSCOPE_READ_H
/*
 * speedscope's JSON file format (formats/import.h; the schema is
 * https://www.speedscope.app/file-format-schema.json):
 *
 *   { "$schema": "https://www.speedscope.app/file-format-schema.json",
 *     "shared": { "frames": [ { "name": "main" }, { "name": "work", "file": ... } ] },
 *     "profiles": [
 *       { "type": "sampled", "name": "thread 7", "unit": "nanoseconds",
 *         "startValue": 0, "endValue": 30, "samples": [ [0, 1], [0] ], "weights": [20, 10] },
 *       { "type": "evented", "name": "main", "unit": "milliseconds",
 *         "startValue": 0, "endValue": 5, "events": [ { "type": "O", "frame": 0, "at": 0 },
 *                                                      { "type": "C", "frame": 0, "at": 5 } ] } ] }
 *
 * A sampled profile's stacks are frame indices, root first; each adds its
 * weight. An evented profile's open ("O") and close ("C") events nest; the
 * stack open between two events gets the time between them (its self
 * time), so the folded weights add up to the time spent in each stack.
 * Every profile is added into one table; with include_pid or include_tid
 * each profile's "name" is the root frame of its stacks (proffold's
 * speedscope export names a profile per thread "comm-PID/TID" and takes
 * that frame off its stacks), else there is no root per profile. A frame
 * is its "name", ';' made ':'. Units: the time units are converted
 * to nanoseconds (unit=ns), bytes stay bytes, "none" is unit=samples; a
 * profile whose unit is of another kind than the first's is skipped with
 * an error. With counts, a sample or an interval between events weighs 1.
 *
 * Errors say where, as "name:line:column: what": JSON syntax (a file cut
 * short included), and values of the wrong shape (a missing member, a
 * string where a number belongs, a frame index out of range, events out
 * of order or not nested). A profile with an error adds nothing.
 * Metadata: unit, source=speedscope.
 */
#include <stddef.h>

struct prof_import;

/* Nonzero if buf[0..len) starts a speedscope file ('{', its schema or members). */
int prof_speedscope_detect(const char *buf, size_t len);

/*
 * Fold the whole input buf[0..len) into imp. Returns 0, or -1 if the JSON
 * or a profile was bad (reported).
 */
int prof_speedscope_read(struct prof_import *imp, char *buf, size_t len);

#endif
