/*
 * perf_event_open plumbing (perfevent.h).
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/sysfile.h"
#include "record/perfevent.h"
#include "base/units.h"
#include "base/xalloc.h"

struct prof_perf_ring {
	int fd;
	int cpu;
	struct perf_event_mmap_page *meta;
	unsigned char *data;
	size_t size;		/* data bytes, power of two */
	size_t map_len;
};

struct prof_perf_qent {
	uint64_t time;
	size_t off;		/* in arena */
	uint64_t seq;		/* read order, to keep ties stable */
};

#define ORDER_MARGIN_NS 1000000ULL

void prof_perf_init(struct prof_perf *p, size_t ring_pages)
{
	size_t n = 1;

	memset(p, 0, sizeof(*p));
	while (n < ring_pages)
		n *= 2;
	p->ring_pages = n;
	prof_hashmap_init(&p->ids, sizeof(int));
}

void prof_perf_release(struct prof_perf *p)
{
	for (size_t i = 0; i < p->nrings; i++)
		munmap(p->rings[i].meta, p->rings[i].map_len);
	for (size_t i = 0; i < p->nfds; i++)
		close(p->fds[i]);
	free(p->rings);
	free(p->fds);
	prof_hashmap_release(&p->ids);
	free(p->arena);
	free(p->queue);
	memset(p, 0, sizeof(*p));
}

int prof_perf_ncpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n > 0 ? (int)n : 1;
}

int prof_perf_paranoid(void)
{
	return (int)prof_read_file_ll("/proc/sys/kernel/perf_event_paranoid", 2);
}

unsigned prof_perf_max_stack(void)
{
	long long v = prof_read_file_ll("/proc/sys/kernel/perf_event_max_stack", 127);

	return v > 0 && v <= 1000000 ? (unsigned)v : 127;
}

static int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group,
			       unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group, flags);
}

int prof_perf_open(struct prof_perf *p, struct perf_event_attr *attr, pid_t pid, int cpu,
		   int event)
{
	struct prof_perf_ring *r = NULL;
	uint64_t id;
	int fd;

	attr->size = sizeof(*attr);
	attr->sample_id_all = 1;
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
	p->layout.sample_type = attr->sample_type;
	p->layout.regs_mask = attr->sample_regs_user;
	p->layout.sample_id_all = 1;
	fd = sys_perf_event_open(attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &id) != 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	for (size_t i = 0; i < p->nrings; i++)
		if (p->rings[i].cpu == cpu)
			r = &p->rings[i];
	if (r) {
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) != 0) {
			int e = errno;

			close(fd);
			errno = e;
			return -1;
		}
	} else {
		size_t pages = p->ring_pages, pg = (size_t)sysconf(_SC_PAGESIZE);
		void *m = MAP_FAILED;

		for (;;) {
			m = mmap(NULL, (pages + 1) * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
			if (m != MAP_FAILED || (errno != EPERM && errno != ENOMEM) || pages == 1)
				break;
			pages /= 2;
		}
		if (m == MAP_FAILED) {
			int e = errno;

			close(fd);
			errno = e;
			return -1;
		}
		p->rings = xreallocarray(p->rings, p->nrings + 1, sizeof(*p->rings));
		r = &p->rings[p->nrings++];
		r->fd = fd;
		r->cpu = cpu;
		r->meta = m;
		r->data = (unsigned char *)m + pg;
		r->size = pages * pg;
		r->map_len = (pages + 1) * pg;
	}
	PROF_GROW(p->fds, p->nfds + 1, p->capfds);
	p->fds[p->nfds++] = fd;
	prof_perf_add_id(p, id, event);
	return 0;
}

void prof_perf_add_id(struct prof_perf *p, uint64_t id, int event)
{
	*(int *)prof_hashmap_put(&p->ids, id, NULL) = event;
}

static int for_all(struct prof_perf *p, unsigned long req)
{
	int rc = 0;

	for (size_t i = 0; i < p->nfds; i++)
		if (ioctl(p->fds[i], req, 0) != 0)
			rc = -1;
	return rc;
}

int prof_perf_enable(struct prof_perf *p)
{
	return for_all(p, PERF_EVENT_IOC_ENABLE);
}

int prof_perf_disable(struct prof_perf *p)
{
	return for_all(p, PERF_EVENT_IOC_DISABLE);
}

int prof_perf_poll(struct prof_perf *p, int timeout_ms, int extra_fd)
{
	struct pollfd pfd[257];
	size_t n = p->nrings < 256 ? p->nrings : 256;
	int rc;

	for (size_t i = 0; i < n; i++) {
		pfd[i].fd = p->rings[i].fd;
		pfd[i].events = POLLIN;
		pfd[i].revents = 0;
	}
	if (extra_fd >= 0) {
		pfd[n].fd = extra_fd;
		pfd[n].events = POLLIN;
		pfd[n].revents = 0;
		n++;
	}
	rc = poll(pfd, n, timeout_ms);
	if (rc < 0 && errno == EINTR)
		rc = 0;
	return rc;
}

int prof_perf_event_of(const struct prof_perf *p, uint64_t id)
{
	const int *event = prof_hashmap_get(&p->ids, id);

	return event ? *event : -1;
}

static int qent_cmp(const void *a, const void *b)
{
	const struct prof_perf_qent *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Copy the records present in ring r into the arena and queue. */
static void read_ring(struct prof_perf *p, struct prof_perf_ring *r, uint64_t *seq)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail;
	size_t mask = r->size - 1;

	while (tail < head) {
		struct perf_event_header h;
		size_t off = (size_t)(tail & mask), first;
		unsigned char *dst;

		/* The header may wrap too. */
		first = r->size - off;
		if (first >= sizeof(h)) {
			memcpy(&h, r->data + off, sizeof(h));
		} else {
			memcpy(&h, r->data + off, first);
			memcpy((unsigned char *)&h + first, r->data, sizeof(h) - first);
		}
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		PROF_GROW(p->arena, p->arena_len + h.size + 8, p->arena_cap);
		dst = p->arena + p->arena_len;
		if (first >= h.size) {
			memcpy(dst, r->data + off, h.size);
		} else {
			memcpy(dst, r->data + off, first);
			memcpy(dst + first, r->data, h.size - first);
		}
		PROF_GROW(p->queue, p->qlen + 1, p->qcap);
		p->queue[p->qlen].time = prof_decode_time(&p->layout, (struct perf_event_header *)dst);
		p->queue[p->qlen].off = p->arena_len;
		p->queue[p->qlen].seq = (*seq)++;
		p->qlen++;
		p->arena_len += (h.size + 7) & ~(size_t)7;
		p->records++;
		p->bytes += h.size;
		tail += h.size;
	}
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
}

size_t prof_perf_drain(struct prof_perf *p, int final, prof_perf_record_fn fn, void *arg)
{
	uint64_t now = prof_now_ns(), seq = 0, limit;
	size_t delivered = 0, keep;
	unsigned char *old_arena;
	size_t old_len;

	/* Previously held records keep their order ahead of new ties. */
	for (size_t i = 0; i < p->qlen; i++)
		p->queue[i].seq = seq++;
	for (size_t i = 0; i < p->nrings; i++)
		read_ring(p, &p->rings[i], &seq);
	if (!p->qlen)
		return 0;
	qsort(p->queue, p->qlen, sizeof(*p->queue), qent_cmp);
	limit = final ? UINT64_MAX : now - ORDER_MARGIN_NS;
	keep = p->qlen;
	for (size_t i = 0; i < p->qlen; i++) {
		if (p->queue[i].time > limit) {
			keep = i;
			break;
		}
		fn(arg, (const struct perf_event_header *)(p->arena + p->queue[i].off),
		   p->queue[i].time);
		delivered++;
	}
	if (keep == p->qlen) {
		p->qlen = 0;
		p->arena_len = 0;
		return delivered;
	}
	/* Compact the records held back into a fresh arena. */
	old_arena = p->arena;
	old_len = p->arena_len;
	p->arena = NULL;
	p->arena_cap = 0;
	p->arena_len = 0;
	for (size_t i = keep; i < p->qlen; i++) {
		const struct perf_event_header *h =
			(const struct perf_event_header *)(old_arena + p->queue[i].off);
		size_t sz = (h->size + 7) & ~(size_t)7;

		PROF_GROW(p->arena, p->arena_len + sz + 8, p->arena_cap);
		memcpy(p->arena + p->arena_len, h, h->size);
		p->queue[i - keep] = p->queue[i];
		p->queue[i - keep].off = p->arena_len;
		p->arena_len += sz;
	}
	(void)old_len;
	free(old_arena);
	p->qlen -= keep;
	return delivered;
}
