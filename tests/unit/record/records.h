/*
 * Building perf_event records in memory for the record/ unit tests, field
 * by field in the kernel's order, as a ring buffer would hold them.
 */
#ifndef TEST_RECORDS_H
#define TEST_RECORDS_H
#include <stdint.h>
#include <string.h>
#include <linux/perf_event.h>

struct rec_buf {
	uint64_t words[1024];	/* 8-byte aligned, as records in a ring are */
	size_t len;		/* bytes */
};

static inline struct perf_event_header *rec_hdr(struct rec_buf *b)
{
	return (struct perf_event_header *)b->words;
}

/* Start a record of type with misc bits; the size is fixed by rec_end(). */
static inline void rec_begin(struct rec_buf *b, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { type, misc, 0 };

	memset(b->words, 0, sizeof(b->words));
	memcpy(b->words, &h, sizeof(h));
	b->len = sizeof(h);
}

static inline void rec_put(struct rec_buf *b, const void *p, size_t n)
{
	memcpy((unsigned char *)b->words + b->len, p, n);
	b->len += n;
}

static inline void rec_u64(struct rec_buf *b, uint64_t v)
{
	rec_put(b, &v, 8);
}

/* Two u32 in one u64 slot ({ pid, tid }, { cpu, res }). */
static inline void rec_u32x2(struct rec_buf *b, uint32_t x, uint32_t y)
{
	rec_put(b, &x, 4);
	rec_put(b, &y, 4);
}

/* A NUL-terminated string padded to 8 bytes, as names and paths are. */
static inline void rec_str(struct rec_buf *b, const char *s)
{
	size_t n = strlen(s) + 1;

	rec_put(b, s, n);
	b->len = (b->len + 7) & ~(size_t)7;
}

/* The sample_id trailer for sample_type TID|TIME|CPU|IDENTIFIER. */
static inline void rec_sample_id(struct rec_buf *b, uint32_t pid, uint32_t tid, uint64_t time,
				 uint32_t cpu, uint64_t id)
{
	rec_u32x2(b, pid, tid);
	rec_u64(b, time);
	rec_u32x2(b, cpu, 0);
	rec_u64(b, id);
}

static inline const struct perf_event_header *rec_end(struct rec_buf *b)
{
	rec_hdr(b)->size = (uint16_t)b->len;
	return rec_hdr(b);
}

#endif
