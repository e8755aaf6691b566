#ifndef PROF_PPROF_H
#define PROF_PPROF_H
/*
 * pprof's profile.proto (github.com/google/pprof, proto/profile.proto):
 * a stack table written as a Profile message, and Profile messages
 * folded into a stack table. The wire format is formats/protobuf.h; the
 * gzip around it is io/output.h's and io/input.h's (pprof files are
 * gzip-compressed protobuf; raw protobuf is read too).
 *
 * Writing. Each frame name of the table becomes one Location with one
 * Line, and a Function (name = system_name = the frame as folded,
 * annotations such as "_[k]" kept, so a round trip gives the same folded
 * stacks). A frame that carries its source position, as profrec --lines
 * writes it ("NAME FILE:LINE", an annotation after it), is instead the
 * Line LINE of Function NAME (the annotation kept on it) in FILE, one
 * Function for all the lines of NAME in FILE, so that pprof -list shows
 * the samples per source line; the profile's comment
 * PROF_PPROF_LINES_COMMENT says so, and reading such a profile gives the
 * frames back as they were. A stack becomes one Sample whose location_ids
 * run leaf first, as pprof wants, and whose values are the table's
 * columns named by the sample types; with the addresses of a counter
 * (below), one Sample per set of addresses sampled, whose frames with an
 * address are Locations at it in its Mapping (a function and the calls
 * inlined into it at one address one Location of several Lines; a
 * caller at its return address less 1, inside its call, as Go writes
 * them). Functions, locations and strings are deduplicated (one per
 * frame name, or per address and frames). Strings are written as valid UTF-8 (proto3's rule):
 * a byte that starts no valid sequence becomes U+FFFD. Weights are rounded to integers (int64); a weight
 * above 2^63-1 is kept at 2^63-1. Stacks whose written values are all
 * zero are left out.
 *
 * Reading. Every Sample becomes a stack, root first: its locations from
 * the last (the root) to the first (the leaf), and within a location its
 * Lines from the last (the caller) to the first (the inlined callee). A
 * frame is its function's name (system_name when name is empty,
 * "[unknown]" when both are; ';' made ':' and line breaks blanks, as
 * formats/import.h interns every imported name, so that the folded text
 * written from it reads back the same); a location without lines is its address,
 * "0x1f2e". One sample type is folded: the one named (its type, or the
 * proftools event it was made from: cpu-clock and task-clock for "cpu",
 * offcpu-time for "off_cpu"), else the profile's default_sample_type,
 * else, as pprof itself does, the last one. Negative values (pprof diff
 * profiles) are left out and counted.
 *
 * Errors name the byte offset, counted in the decompressed protobuf:
 * "prog: file: byte 1234: truncated varint". A profile with a structural
 * error (a truncated field, an undefined function or location id, a
 * string index out of range) adds nothing.
 */
#include <stddef.h>
#include <stdint.h>
#include "base/buf.h"
#include "core/meta.h"
#include "core/stack.h"

struct prof_output;

#define PROF_PPROF_MAX_TYPES 4

/* One sample type: its name and unit, and the table column holding it. */
struct prof_pprof_type {
	const char *type;	/* "cpu", "samples", "alloc_space" */
	const char *unit;	/* "nanoseconds", "count", "bytes" */
	size_t column;
};

/* What prof_pprof_write() writes. Strings are borrowed. */
struct prof_pprof_profile {
	const struct prof_stacks *t;
	struct prof_pprof_type types[PROF_PPROF_MAX_TYPES];
	size_t ntypes;
	int default_type;		/* index into types, or -1: none */
	const char *period_type;	/* NULL: no period_type */
	const char *period_unit;
	int64_t period;
	int64_t time_nanos;		/* 0: not known */
	int64_t duration_nanos;		/* 0: not known */
	/* NULL, or the leaf mappings a counter collected (by frame name) */
	const struct prof_pprof_counter *addrs;
	/* NULL, or where Functions' start_line come from (else 0: unknown) */
	const struct prof_pprof_lines_source *start_lines;
};

struct prof_pprof_mapping;

/*
 * The first source lines of the functions at a Location: decl_lines()
 * fills lines[0..max) for the frames at address (pprof's, a caller's
 * inside its call) of the counter's mapping m, innermost first as a
 * Location's Lines, 0 where unknown, and returns how many (0: none
 * known); a Location whose count differs from its Lines' is left out. A
 * Function's start_line is the first nonzero one met.
 */
struct prof_pprof_lines_source {
	size_t (*decl_lines)(void *ctx, const struct prof_pprof_mapping *m, uint64_t address,
			     unsigned *lines, size_t max);
	void *ctx;
};

/*
 * Describe t for writing from a profile's metadata (meta.h keys unit,
 * event, period, freq, start_time, report):
 *  - unit ns: "cpu" nanoseconds, or "off_cpu" for event offcpu-time;
 *  - unit samples: "samples" count;
 *  - unit bytes: "REPORT_space" bytes ("space" without report);
 *    unit allocations: "alloc_objects" (report count) or
 *    "REPORT_objects" count;
 *  - another unit (a hardware event's "cycles", "events"): the event's
 *    name (else the unit) in unit "count".
 * The value is column; when samples_column >= 0 and the unit is not
 * samples, ("samples", count) in that column comes first and the value
 * is the default type, as in Go's CPU profiles. period_type is the
 * value's type, period the metadata's period (1e9/freq nanoseconds for
 * a cpu-clock profile recorded at a frequency); time_nanos is
 * start_time (UTC "YYYY-MM-DDTHH:MM:SSZ"). duration_nanos is left 0.
 */
void prof_pprof_describe(struct prof_pprof_profile *p, const struct prof_stacks *t,
			 const struct prof_meta *meta, size_t column, long samples_column);

/*
 * Write p as a Profile message (uncompressed protobuf: open out with
 * PROF_COMP_GZIP for a .pb.gz). Does not close out. Returns 0, or -1 on
 * a write error (reported by out).
 */
int prof_pprof_write(const struct prof_pprof_profile *p, struct prof_output *out);

/*
 * Counting samples while a profile is read (profile.h's on_sample, ctx a
 * struct prof_pprof_counter): adds 1 to column of t for each sample's
 * stack, counts them, keeps the latest sample time (what duration_nanos
 * can be).
 */
struct prof_pprof_counter {
	struct prof_stacks *t;
	size_t column;
	int64_t last_ns;
	unsigned long samples;
	/*
	 * Filled by prof_pprof_on_address() (profile.h's on_address: profrec
	 * TSV's ip, map and addrs columns): the file mappings of the
	 * addresses met, which become pprof's Mappings, and per frame name
	 * sampled as a leaf one address sampled in it (the Location of that
	 * frame when the table written is not t: a transformed copy). Set up
	 * when first called; release with prof_pprof_counter_release().
	 */
	struct prof_intern map_keys;		/* "START PGOFF BUILD_ID PATH" -> index */
	struct prof_pprof_mapping *maps;
	size_t maps_cap;
	struct prof_intern leaf_names;		/* frame name -> index into leaves */
	struct prof_pprof_leaf { uint32_t map; uint64_t address; } *leaves;
	size_t leaves_cap;
	/*
	 * Every (stack, addresses of its frames) sampled, with its samples
	 * and weight: a Sample of its own whose Locations are those
	 * addresses, so that pprof -disasm puts samples on instructions and
	 * a caller's samples on its call. Used only while t is the table
	 * written (a transformed copy has other stack ids).
	 */
	uint32_t last_id;			/* the last on_sample's stack and weight */
	prof_weight last_w;
	struct prof_intern at_keys;		/* (stack, addresses) -> index into at */
	struct prof_pprof_at {
		uint32_t stack;
		size_t off;			/* its frames' addresses: addrs[off..off+depth) */
		prof_weight w;
		unsigned long n;
	} *at;
	size_t at_cap;
	/*
	 * Per frame, root first, the address of its Location (pprof's: a
	 * caller's return address less 1, inside its call instruction, as
	 * profile.proto and Go's profiles have it; the sampled ip as is) in
	 * mapping map (index into maps; UINT32_MAX: no address).
	 */
	struct prof_pprof_addr { uint64_t address; uint32_t map; } *addrs;
	size_t addrs_len, addrs_cap;
	struct prof_buf key;
};
struct prof_pprof_mapping {
	uint64_t start, limit, pgoff;	/* limit: past the highest address sampled */
	char *build_id, *path;
};
struct prof_samples_addrs;
void prof_pprof_on_sample(void *ctx, uint32_t id, prof_weight w, int64_t time_ns);
void prof_pprof_on_address(void *ctx, uint32_t id, const struct prof_samples_addrs *a);
void prof_pprof_counter_release(struct prof_pprof_counter *c);

/* The comment of a profile whose frames carried "FILE:LINE" (see Writing). */
#define PROF_PPROF_LINES_COMMENT "proftools: frame names NAME FILE:LINE (profrec --lines)"

/* Whether path names a pprof file ("*.pb.gz"); path may be NULL. */
int prof_pprof_name(const char *path);

/*
 * profrec -o NAME.pb.gz: the recording is written as profrec TSV to a
 * temporary file beside path, then converted. prof_pprof_temp() creates
 * that file ("NAME.pb.gz.XXXXXX.tsv" in path's directory) and returns its
 * malloc'ed name, or NULL after reporting. prof_pprof_convert() reads
 * the profile at in (formats/profile.h: the first event of a profrec
 * recording) and writes it to out as gzip'd pprof, atomically, with the
 * samples per stack, the metadata's types, period and start time and the
 * last sample's time as duration. Returns 0, or -1 after reporting.
 */
char *prof_pprof_temp(const char *path);
int prof_pprof_convert(const char *in, const char *out);

/* prof_pprof_convert() with Functions' start_line from src (NULL: none). */
int prof_pprof_convert_lines(const char *in, const char *out,
			     const struct prof_pprof_lines_source *src);

/*
 * Nonzero if buf[0..len) (the decompressed start of an input; complete:
 * the whole input) parses as a Profile message: every top-level field a
 * profile.proto field of its wire type (a field cut by the end of an
 * incomplete window allowed, and in a whole input after two good fields:
 * a truncated profile, reported by the reader), and binary (a control
 * byte other than tab, newline and carriage return), so that no text
 * input is taken for one.
 */
int prof_pprof_detect(const char *buf, size_t len, int complete);

/* How to fold a profile. */
struct prof_pprof_read_opts {
	const char *type;	/* sample type or event to fold; NULL or "": default */
	int counts;		/* fold the "samples" type if there is one, else 1 per sample */
	/* called for every sample added, as profile.h's on_stack */
	void (*on_stack)(void *ctx, uint32_t id, const prof_weight *w, int nw);
	void *on_stack_ctx;
};

/*
 * Fold the Profile message data[0..len) (name: the input's, for
 * messages) into column 0 of t; meta receives source=pprof, event (the
 * sample type folded), unit (ns for nanoseconds, samples for a
 * "samples" count, allocations for an "*_objects" count, the type's name
 * for another count, else the pprof unit), start_time when the profile
 * has time_nanos, and from and until (Unix seconds, three decimals) when
 * it also has duration_nanos. Returns 0, or -1 after reporting (see above);
 * samples with negative values are reported once and skipped (-1 too).
 */
int prof_pprof_read(const void *data, size_t len, const char *name,
		    const struct prof_pprof_read_opts *opts, struct prof_stacks *t,
		    struct prof_meta *meta);

#endif
