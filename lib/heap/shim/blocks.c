/*
 * The block table: the address of every recorded block -> its stack id
 * and size, so that free knows what to subtract (internal.h). 1024
 * shards, each an open-addressing table with its own spin lock; sampled
 * mode adds a counting filter that lets free skip the table for the
 * blocks that were not sampled (most of them).
 */
#include <string.h>
#include <sys/mman.h>

#include "heap/shim/internal.h"

#define NSHARD 1024
#define TOMB ((uintptr_t)1)
#define SHARD_INIT 16

struct pent {
	uintptr_t key;
	uint64_t info;			/* size << 24 | stack id */
};

struct pshard {
	int lock;
	int pad;
	struct pent *e;
	uint64_t mask, used, count;
	char pad2[24];
};

static struct pshard *shards;
static struct pent *shard_slab;		/* the first SHARD_INIT entries of every shard */
unsigned char *ph_filter;

int ph_blocks_init(int sampled)
{
	shards = ph_map_anon(NSHARD * sizeof(struct pshard));
	shard_slab = ph_map_anon(NSHARD * SHARD_INIT * sizeof(struct pent));
	if (sampled)
		ph_filter = ph_map_anon(1u << PH_FILTER_BITS);
	return shards && shard_slab && (!sampled || ph_filter) ? 0 : -1;
}

static int shard_grow(struct pshard *s)
{
	uint64_t cap = 256, i, j;
	struct pent *e;

	if (!s->e) {
		/* First use: a slot of the shared slab, no system call. */
		s->e = shard_slab + (uint64_t)(s - shards) * SHARD_INIT;
		s->mask = SHARD_INIT - 1;
		return 0;
	}
	while (cap < s->count * 4)
		cap *= 2;
	e = ph_map_anon(cap * sizeof(*e));
	if (!e)
		return -1;
	for (i = 0; s->e && i <= s->mask; i++) {
		uintptr_t k = s->e[i].key;

		if (k <= TOMB)
			continue;
		j = (ph_addr_hash((void *)k) >> 20) & (cap - 1);
		while (e[j].key)
			j = (j + 1) & (cap - 1);
		e[j] = s->e[i];
	}
	if (s->mask + 1 > SHARD_INIT)
		munmap(s->e, (s->mask + 1) * sizeof(*e));
	s->e = e;
	s->mask = cap - 1;
	s->used = s->count;
	return 0;
}

int ph_block_insert(const void *p, uint64_t info)
{
	uint64_t h = ph_addr_hash(p), i;
	struct pshard *s = &shards[h >> (64 - 10)];

	ph_spin_lock(&s->lock);
	if (!s->e || (s->used + 1) * 4 > (s->mask + 1) * 3) {
		if (shard_grow(s) < 0) {
			ph_spin_unlock(&s->lock);
			return -1;
		}
	}
	i = (h >> 20) & s->mask;
	while (s->e[i].key > TOMB)
		i = (i + 1) & s->mask;
	if (!s->e[i].key)
		s->used++;
	s->e[i].key = (uintptr_t)p;
	s->e[i].info = info;
	s->count++;
	ph_spin_unlock(&s->lock);
	return 0;
}

int ph_block_known(const void *p)
{
	uint64_t h = ph_addr_hash(p), i;
	struct pshard *s = &shards[h >> (64 - 10)];
	int found = 0;

	ph_spin_lock(&s->lock);
	if (s->e) {
		for (i = (h >> 20) & s->mask; s->e[i].key; i = (i + 1) & s->mask) {
			if (s->e[i].key == (uintptr_t)p) {
				found = 1;
				break;
			}
		}
	}
	ph_spin_unlock(&s->lock);
	return found;
}

int ph_block_remove(const void *p, uint64_t *info)
{
	uint64_t h = ph_addr_hash(p), i;
	struct pshard *s = &shards[h >> (64 - 10)];
	int found = 0;

	ph_spin_lock(&s->lock);
	if (s->e) {
		i = (h >> 20) & s->mask;
		for (;;) {
			uintptr_t k = s->e[i].key;

			if (!k)
				break;
			if (k == (uintptr_t)p) {
				*info = s->e[i].info;
				s->e[i].key = TOMB;
				s->count--;
				found = 1;
				break;
			}
			i = (i + 1) & s->mask;
		}
	}
	ph_spin_unlock(&s->lock);
	return found;
}

void ph_blocks_reset(void)
{
	unsigned i;

	for (i = 0; i < NSHARD; i++) {
		if (shards[i].e && shards[i].mask + 1 > SHARD_INIT)
			munmap(shards[i].e, (shards[i].mask + 1) * sizeof(struct pent));
		memset(&shards[i], 0, sizeof(shards[i]));
	}
	memset(shard_slab, 0, NSHARD * SHARD_INIT * sizeof(struct pent));
	if (ph_filter)
		madvise(ph_filter, 1u << PH_FILTER_BITS, MADV_DONTNEED);
}

/* A counter that reached 255 stays there for good (it only costs table lookups). */
void ph_filter_add(const void *p, int delta)
{
	unsigned char *f = &ph_filter[ph_addr_hash(p) >> (64 - PH_FILTER_BITS)];
	unsigned char v = __atomic_load_n(f, RELAXED);

	do {
		if (v == 255 || (delta < 0 && v == 0))
			return;
	} while (!__atomic_compare_exchange_n(f, &v, (unsigned char)(v + delta), 1, RELAXED, RELAXED));
}
