#ifndef PROF_SPEEDSCOPE_H
#define PROF_SPEEDSCOPE_H
/*
 * speedscope's JSON file format (https://www.speedscope.app/
 * file-format-schema.json): a stack table written as "sampled" profiles
 * over one shared frame list.
 *
 *     {"$schema":"https://www.speedscope.app/file-format-schema.json",
 *      "shared":{"frames":[{"name":"main"},...]},
 *      "profiles":[{"type":"sampled","name":"app-12/12","unit":"nanoseconds",
 *        "startValue":0,"endValue":TOTAL,"samples":[[0,1],...],"weights":[W,...]}],
 *      "name":"...","activeProfileIndex":0,"exporter":"proftools VERSION"}
 *
 * Each frame name of the table is one shared frame; each stack with a
 * weight is one sample (frame indices root first) with its weight, in
 * the order of the folded text. With split_roots, every distinct root
 * frame (the thread, "comm-PID/TID") is one profile named after it,
 * without the root frame in its samples, the profiles in the order their
 * first stacks come in. endValue is the profile's total weight.
 */
#include <stddef.h>
#include "core/stack.h"

struct prof_output;

struct prof_speedscope_opts {
	const char *name;	/* the document's name (NULL: "proftools") */
	const char *unit;	/* proftools unit: ns -> "nanoseconds", bytes -> "bytes", else "none" */
	size_t column;		/* the weight column written */
	int split_roots;	/* one profile per root frame */
};

/* Whether path names a speedscope file ("*.speedscope.json"); may be NULL. */
int prof_speedscope_name(const char *path);

/*
 * Write t as a speedscope document to out (does not close it). Returns
 * 0, or -1 on a write error (reported by out).
 */
int prof_speedscope_write(const struct prof_stacks *t, const struct prof_speedscope_opts *o,
			  struct prof_output *out);

/*
 * profrec -o NAME.speedscope.json: read the recording at in (profrec TSV,
 * written beside out by prof_pprof_temp(); formats/profile.h reads its
 * first event) and write it to out as proffold --output-format
 * speedscope does, a profile per thread, atomically. Returns 0, or -1
 * after reporting.
 */
int prof_speedscope_convert(const char *in, const char *out);

#endif
