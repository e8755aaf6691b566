#ifndef PROF_PERFEVENT_H
#define PROF_PERFEVENT_H
/*
 * perf_event_open(2) plumbing for the recorder: opening events, one
 * memory-mapped ring buffer per CPU, draining the rings continuously and
 * handing records over in timestamp order, the perf_event sysctls.
 *
 * Every event of one struct prof_perf must use the same sample_type,
 * which must contain PERF_SAMPLE_IDENTIFIER, TID, TIME and CPU, with
 * sample_id_all set: records from several events share a CPU's ring
 * (PERF_EVENT_IOC_SET_OUTPUT) and are told apart by their id, and every
 * record carries the timestamp used to merge the rings. Records are
 * copied out of the ring before delivery, so the ring is freed at once.
 * Decoding them is decode.h's job, with p->layout.
 *
 * Ordering: a drain reads everything present in every ring, then delivers
 * the records older than the drain's start time minus a margin (1 ms) in
 * timestamp order; the others wait for the next drain (all of them at
 * the final drain). Record times are CLOCK_MONOTONIC (use_clockid is set
 * by prof_perf_open()).
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "base/hashmap.h"
#include "record/decode.h"

struct prof_perf_ring;

struct prof_perf {
	struct prof_record_layout layout;	/* of the events opened (decode.h) */
	size_t ring_pages;		/* data pages per ring (power of two) */
	struct prof_perf_ring *rings;	/* one per CPU that got an mmap'ed event */
	size_t nrings;
	int *fds;
	size_t nfds, capfds;
	struct prof_hashmap ids;		/* sample id -> event index (int) */
	/* the ordering queue */
	unsigned char *arena;
	size_t arena_len, arena_cap;
	struct prof_perf_qent *queue;
	size_t qlen, qcap;
	unsigned long long records, bytes;
};

/*
 * Initialise with the data pages per ring (rounded up to a power of two).
 */
void prof_perf_init(struct prof_perf *p, size_t ring_pages);

/* Close every event, unmap the rings, free everything. */
void prof_perf_release(struct prof_perf *p);

/*
 * Open one event (perf_event_open(attr, pid, cpu, -1, 0)) as event index
 * event. attr->sample_type etc. must match earlier events (see top).
 * The first event opened on a CPU gets that CPU's ring buffer (shrunk by
 * halves down to one page when mmap hits the locked-memory limit); later
 * ones are redirected to it. Returns 0, or -1 with errno set (nothing
 * reported: the caller knows what was meant).
 */
int prof_perf_open(struct prof_perf *p, struct perf_event_attr *attr, pid_t pid, int cpu,
		   int event);

/* Enable / disable every event. Returns 0 or -1 (errno). */
int prof_perf_enable(struct prof_perf *p);
int prof_perf_disable(struct prof_perf *p);

/*
 * Wait up to timeout_ms for a ring to pass its wakeup watermark (or an
 * event to hang up), or for extra_fd (when >= 0, for instance a pidfd) to
 * become readable. Returns the poll(2) result; EINTR is returned as 0.
 */
int prof_perf_poll(struct prof_perf *p, int timeout_ms, int extra_fd);

/* Called for each record, in timestamp order; hdr stays valid during the call. */
typedef void (*prof_perf_record_fn)(void *arg, const struct perf_event_header *hdr,
				    uint64_t time);

/*
 * Read every ring and deliver the records that are safe to order (all of
 * them when final is nonzero). Returns the number delivered.
 */
size_t prof_perf_drain(struct prof_perf *p, int final, prof_perf_record_fn fn, void *arg);

/*
 * The event index of a record's sample id (prof_sample.id,
 * prof_sample_id.id), or -1 when no event has that id.
 */
int prof_perf_event_of(const struct prof_perf *p, uint64_t id);

/*
 * Attribute sample id to event index event. prof_perf_open() does it for
 * the events it opens; records made elsewhere (unit tests feeding
 * synthetic records to the recorder) register their ids with it.
 */
void prof_perf_add_id(struct prof_perf *p, uint64_t id, int event);

/* kernel.perf_event_paranoid (2, the kernel's default, when unreadable). */
int prof_perf_paranoid(void);

/* kernel.perf_event_max_stack: frames in a call chain (127 when unreadable). */
unsigned prof_perf_max_stack(void);

/* Number of online-capable CPUs (possible CPUs, for per-CPU events). */
int prof_perf_ncpus(void);

#endif
