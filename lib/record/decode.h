#ifndef PROF_RECORD_DECODE_H
#define PROF_RECORD_DECODE_H
/*
 * Decoding the records of a perf_event ring buffer (perf_event_open(2),
 * include/uapi/linux/perf_event.h) into C structs. Pure functions of the
 * bytes: no file descriptor, no kernel needed, so they are unit-tested
 * on records built in memory.
 *
 * The fixed parts of the records are the prof_rec_* structs below, laid
 * out as the kernel writes them (checked by static assertions); they are
 * copied out of the record with memcpy, so a record needs no particular
 * alignment. The variable parts (a sample's fields, which depend on
 * sample_type; the sample_id trailer of the other records) are walked
 * field by field in the kernel's order.
 *
 * Every decoder checks hdr->size before reading and returns -1 for a
 * record too short for what its type and the layout say it holds;
 * nothing is read beyond hdr->size. Pointers in the decoded structs point
 * into the record: they are valid as long as it is.
 */
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

/* What every record of one recording shares (all its events' attrs agree). */
struct prof_record_layout {
	uint64_t sample_type;	/* perf_event_attr.sample_type (PERF_SAMPLE_*) */
	uint64_t regs_mask;	/* perf_event_attr.sample_regs_user */
	int sample_id_all;	/* perf_event_attr.sample_id_all: non-sample records carry a trailer */
};

/* ---- the kernel's fixed record bodies (after struct perf_event_header) ---- */

/* PERF_RECORD_MMAP2, then the file name (NUL-padded to 8 bytes), then the trailer. */
struct prof_rec_mmap2 {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	union {
		struct {
			uint32_t maj, min;
			uint64_t ino, ino_generation;
		} file;
		struct {	/* with PERF_RECORD_MISC_MMAP_BUILD_ID in misc */
			uint8_t build_id_size;
			uint8_t reserved_1;
			uint16_t reserved_2;
			uint8_t build_id[20];
		} build;
	} id;
	uint32_t prot, flags;
};

/* PERF_RECORD_COMM, then the name (NUL-terminated, padded), then the trailer. */
struct prof_rec_comm {
	uint32_t pid, tid;
};

/* PERF_RECORD_FORK and PERF_RECORD_EXIT, then the trailer. */
struct prof_rec_task {
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

/* PERF_RECORD_LOST, then the trailer. */
struct prof_rec_lost {
	uint64_t id, lost;
};

/* PERF_RECORD_LOST_SAMPLES, then the trailer. */
struct prof_rec_lost_samples {
	uint64_t lost;
};

/* PERF_RECORD_THROTTLE and PERF_RECORD_UNTHROTTLE, then the trailer. */
struct prof_rec_throttle {
	uint64_t time, id, stream_id;
};

/* The { u32 pid, tid; } and { u32 cpu, res; } fields of samples and trailers. */
struct prof_rec_pid_tid {
	uint32_t pid, tid;
};

struct prof_rec_cpu {
	uint32_t cpu, res;
};

/* ---- decoded records ---- */

/* A PERF_RECORD_SAMPLE. Fields its sample_type lacks are 0 / NULL. */
struct prof_sample {
	uint64_t id;		/* PERF_SAMPLE_IDENTIFIER or PERF_SAMPLE_ID */
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu;
	uint64_t period;
	uint64_t nr;		/* call chain length (PERF_CONTEXT_* markers included) */
	const uint64_t *ips;	/* into the record: may be unaligned only if the record is */
	uint64_t regs_abi;	/* PERF_SAMPLE_REGS_ABI_*; 0: no user registers */
	const uint64_t *regs;	/* one per bit of regs_mask, in bit order */
	uint64_t stack_size;	/* bytes valid in stack (dyn_size, at most the copied size) */
	const unsigned char *stack;
	uint16_t misc;		/* hdr->misc (PERF_RECORD_MISC_*) */
};

/* The sample_id trailer of a non-sample record (sample_id_all). */
struct prof_sample_id {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu;
	uint64_t id;
};

/* A PERF_RECORD_MMAP2. */
struct prof_mmap2 {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t prot, flags;
	const unsigned char *build_id;	/* NULL when the record has none or a size over 20 */
	unsigned build_id_len;
	const char *path;	/* into the record, not NUL-terminated when cut: see path_len */
	size_t path_len;	/* bytes up to the first NUL (or the record's end) */
};

/* A PERF_RECORD_COMM. */
struct prof_comm {
	uint32_t pid, tid;
	const char *comm;	/* not NUL-terminated when cut: see comm_len */
	size_t comm_len;
	int exec;		/* PERF_RECORD_MISC_COMM_EXEC: the name changed at exec */
};

/*
 * Decode a PERF_RECORD_SAMPLE. Returns 0, or -1 when the record is not
 * a sample or is shorter than its fields (a call chain over 65536
 * entries counts as malformed).
 */
int prof_decode_sample(const struct prof_record_layout *l, const struct perf_event_header *hdr,
		       struct prof_sample *s);

/*
 * Decode the sample_id trailer of a non-sample record (the fields of
 * PERF_SAMPLE_TID, TIME, ID, STREAM_ID, CPU and IDENTIFIER that
 * sample_type holds, in that order, at the end of the record). Returns
 * 0, or -1 when sample_id_all is off, hdr is a sample or too short.
 */
int prof_decode_sample_id(const struct prof_record_layout *l, const struct perf_event_header *hdr,
			  struct prof_sample_id *sid);

/*
 * The timestamp of any record (a sample's PERF_SAMPLE_TIME, another
 * record's trailer), 0 when it has none.
 */
uint64_t prof_decode_time(const struct prof_record_layout *l, const struct perf_event_header *hdr);

/* Decode a PERF_RECORD_MMAP2. Returns 0, or -1 (another type, too short). */
int prof_decode_mmap2(const struct perf_event_header *hdr, struct prof_mmap2 *m);

/*
 * Decode a PERF_RECORD_COMM. Returns 0, or -1 (another type, too short:
 * a name needs at least one byte).
 */
int prof_decode_comm(const struct perf_event_header *hdr, struct prof_comm *c);

/* Decode a PERF_RECORD_FORK or PERF_RECORD_EXIT. Returns 0 or -1. */
int prof_decode_task(const struct perf_event_header *hdr, struct prof_rec_task *t);

/*
 * Records lost: the count of a PERF_RECORD_LOST or
 * PERF_RECORD_LOST_SAMPLES, 0 for another type or a short record.
 */
uint64_t prof_decode_lost(const struct perf_event_header *hdr);

#endif
