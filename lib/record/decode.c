/*
 * perf_event record decoding (decode.h).
 */
#include <stddef.h>
#include <string.h>

#include "record/decode.h"

/* The kernel's layouts (include/uapi/linux/perf_event.h): no padding anywhere. */
_Static_assert(sizeof(struct perf_event_header) == 8, "perf_event_header");
_Static_assert(offsetof(struct prof_rec_mmap2, id) == 32 &&
	       offsetof(struct prof_rec_mmap2, id.build.build_id) == 36 &&
	       offsetof(struct prof_rec_mmap2, prot) == 56 && sizeof(struct prof_rec_mmap2) == 64,
	       "PERF_RECORD_MMAP2 layout");
_Static_assert(sizeof(struct prof_rec_comm) == 8, "PERF_RECORD_COMM layout");
_Static_assert(sizeof(struct prof_rec_task) == 24, "PERF_RECORD_FORK layout");
_Static_assert(sizeof(struct prof_rec_lost) == 16, "PERF_RECORD_LOST layout");
_Static_assert(sizeof(struct prof_rec_throttle) == 24, "PERF_RECORD_THROTTLE layout");

/* A read position in a record that refuses to pass its end. */
struct cursor {
	const unsigned char *p, *end;
};

static int take(struct cursor *c, void *out, size_t n)
{
	if ((size_t)(c->end - c->p) < n)
		return -1;
	if (out)
		memcpy(out, c->p, n);
	c->p += n;
	return 0;
}

/* Point *out at the next n bytes and step over them. */
static int take_ref(struct cursor *c, const void **out, size_t n)
{
	if ((size_t)(c->end - c->p) < n)
		return -1;
	*out = c->p;
	c->p += n;
	return 0;
}

static struct cursor body_of(const struct perf_event_header *hdr)
{
	struct cursor c;

	c.p = (const unsigned char *)(hdr + 1);
	c.end = (const unsigned char *)hdr + (hdr->size > sizeof(*hdr) ? hdr->size : sizeof(*hdr));
	return c;
}

/* The fields up to the call chain, in the kernel's order. */
static int sample_head(const struct prof_record_layout *l, struct cursor *c, struct prof_sample *s)
{
	uint64_t st = l->sample_type;
	struct prof_rec_pid_tid pt;
	struct prof_rec_cpu cpu;

	if ((st & PERF_SAMPLE_IDENTIFIER) && take(c, &s->id, 8))
		return -1;
	if ((st & PERF_SAMPLE_IP) && take(c, &s->ip, 8))
		return -1;
	if (st & PERF_SAMPLE_TID) {
		if (take(c, &pt, sizeof(pt)))
			return -1;
		s->pid = pt.pid;
		s->tid = pt.tid;
	}
	if ((st & PERF_SAMPLE_TIME) && take(c, &s->time, 8))
		return -1;
	if ((st & PERF_SAMPLE_ADDR) && take(c, NULL, 8))
		return -1;
	if ((st & PERF_SAMPLE_ID) && take(c, &s->id, 8))
		return -1;
	if ((st & PERF_SAMPLE_STREAM_ID) && take(c, NULL, 8))
		return -1;
	if (st & PERF_SAMPLE_CPU) {
		if (take(c, &cpu, sizeof(cpu)))
			return -1;
		s->cpu = cpu.cpu;
	}
	if ((st & PERF_SAMPLE_PERIOD) && take(c, &s->period, 8))
		return -1;
	return 0;
}

/* The call chain, user registers and user stack. */
static int sample_tail(const struct prof_record_layout *l, struct cursor *c, struct prof_sample *s)
{
	uint64_t st = l->sample_type, size;
	const void *ref;

	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (take(c, &s->nr, 8) || s->nr > 65536 || take_ref(c, &ref, s->nr * 8))
			return -1;
		s->ips = ref;
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		if (take(c, &s->regs_abi, 8))
			return -1;
		if (s->regs_abi) {
			if (take_ref(c, &ref, (size_t)__builtin_popcountll(l->regs_mask) * 8))
				return -1;
			s->regs = ref;
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		/* u64 size; char data[size]; u64 dyn_size (present only when size != 0) */
		if (take(c, &size, 8))
			return -1;
		if (size) {
			if (size > (uint64_t)(c->end - c->p) || take_ref(c, &ref, size) ||
			    take(c, &s->stack_size, 8))
				return -1;
			s->stack = ref;
			if (s->stack_size > size)
				s->stack_size = size;
		}
	}
	return 0;
}

int prof_decode_sample(const struct prof_record_layout *l, const struct perf_event_header *hdr,
		       struct prof_sample *s)
{
	struct cursor c = body_of(hdr);

	memset(s, 0, sizeof(*s));
	s->misc = hdr->misc;
	if (hdr->type != PERF_RECORD_SAMPLE)
		return -1;
	return sample_head(l, &c, s) || sample_tail(l, &c, s) ? -1 : 0;
}

/* Bytes of the sample_id trailer. */
static size_t sample_id_size(uint64_t st)
{
	static const uint64_t fields[] = {
		PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID,
		PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER,
	};
	size_t n = 0;

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (st & fields[i])
			n += 8;
	return n;
}

int prof_decode_sample_id(const struct prof_record_layout *l, const struct perf_event_header *hdr,
			  struct prof_sample_id *sid)
{
	uint64_t st = l->sample_type;
	size_t n = sample_id_size(st);
	struct prof_rec_pid_tid pt;
	struct prof_rec_cpu cpu;
	struct cursor c;

	memset(sid, 0, sizeof(*sid));
	if (!l->sample_id_all || hdr->type == PERF_RECORD_SAMPLE || hdr->size < sizeof(*hdr) + n)
		return -1;
	c.p = (const unsigned char *)hdr + hdr->size - n;
	c.end = (const unsigned char *)hdr + hdr->size;
	if (st & PERF_SAMPLE_TID) {
		take(&c, &pt, sizeof(pt));
		sid->pid = pt.pid;
		sid->tid = pt.tid;
	}
	if (st & PERF_SAMPLE_TIME)
		take(&c, &sid->time, 8);
	if (st & PERF_SAMPLE_ID)
		take(&c, &sid->id, 8);
	if (st & PERF_SAMPLE_STREAM_ID)
		take(&c, NULL, 8);
	if (st & PERF_SAMPLE_CPU) {
		take(&c, &cpu, sizeof(cpu));
		sid->cpu = cpu.cpu;
	}
	if (st & PERF_SAMPLE_IDENTIFIER)
		take(&c, &sid->id, 8);
	return 0;
}

uint64_t prof_decode_time(const struct prof_record_layout *l, const struct perf_event_header *hdr)
{
	if (hdr->type == PERF_RECORD_SAMPLE) {
		struct prof_sample s;
		struct cursor c = body_of(hdr);

		/* Only the head: the time comes before the variable parts. */
		memset(&s, 0, sizeof(s));
		sample_head(l, &c, &s);
		return s.time;
	} else {
		struct prof_sample_id sid;

		return prof_decode_sample_id(l, hdr, &sid) == 0 ? sid.time : 0;
	}
}

int prof_decode_mmap2(const struct perf_event_header *hdr, struct prof_mmap2 *m)
{
	struct cursor c = body_of(hdr);
	struct prof_rec_mmap2 r;
	const void *path;
	size_t left;

	memset(m, 0, sizeof(*m));
	if (hdr->type != PERF_RECORD_MMAP2 || take(&c, &r, sizeof(r)))
		return -1;
	m->pid = r.pid;
	m->tid = r.tid;
	m->addr = r.addr;
	m->len = r.len;
	m->pgoff = r.pgoff;
	m->prot = r.prot;
	m->flags = r.flags;
	if ((hdr->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && r.id.build.build_id_size <= 20) {
		m->build_id = (const unsigned char *)(hdr + 1) + offsetof(struct prof_rec_mmap2, id.build.build_id);
		m->build_id_len = r.id.build.build_id_size;
	}
	left = (size_t)(c.end - c.p);
	take_ref(&c, &path, left);
	m->path = path;
	m->path_len = strnlen(m->path, left);
	return 0;
}

int prof_decode_comm(const struct perf_event_header *hdr, struct prof_comm *cm)
{
	struct cursor c = body_of(hdr);
	struct prof_rec_comm r;
	size_t left;

	memset(cm, 0, sizeof(*cm));
	if (hdr->type != PERF_RECORD_COMM || take(&c, &r, sizeof(r)) || c.p == c.end)
		return -1;
	cm->pid = r.pid;
	cm->tid = r.tid;
	left = (size_t)(c.end - c.p);
	cm->comm = (const char *)c.p;
	cm->comm_len = strnlen(cm->comm, left);
	cm->exec = (hdr->misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
	return 0;
}

int prof_decode_task(const struct perf_event_header *hdr, struct prof_rec_task *t)
{
	struct cursor c = body_of(hdr);

	memset(t, 0, sizeof(*t));
	if (hdr->type != PERF_RECORD_FORK && hdr->type != PERF_RECORD_EXIT)
		return -1;
	return take(&c, t, sizeof(*t));
}

uint64_t prof_decode_lost(const struct perf_event_header *hdr)
{
	struct cursor c = body_of(hdr);

	if (hdr->type == PERF_RECORD_LOST) {
		struct prof_rec_lost r;

		return take(&c, &r, sizeof(r)) ? 0 : r.lost;
	}
	if (hdr->type == PERF_RECORD_LOST_SAMPLES) {
		struct prof_rec_lost_samples r;

		return take(&c, &r, sizeof(r)) ? 0 : r.lost;
	}
	return 0;
}
