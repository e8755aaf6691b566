/*
 * The stack table: a call stack's return addresses -> its id, the stack
 * records living in the record file (heap/format.h). Lookups take no
 * lock: the index is probed with acquire loads, and a grown index
 * replaces the old one, which stays mapped for readers still probing it;
 * a spin lock is taken only to add a new stack (internal.h).
 */
#include <string.h>

#include "heap/shim/internal.h"

struct sindex {
	uint64_t mask, count;
	uint32_t slots[];		/* stack id + 1, 0 empty */
};
static struct sindex *sidx;
static int stack_lock;

static inline struct ph_stack *stack_rec(uint32_t id)
{
	const uint64_t *dir = (const uint64_t *)(ph_base + H->stack_dir[id / PH_DIR_CHUNK]);

	return (struct ph_stack *)(ph_base + dir[id % PH_DIR_CHUNK]);
}

static inline uint64_t stack_hash(const uint64_t *pcs, unsigned n)
{
	uint64_t h = 0x243F6A8885A308D3ULL ^ n;
	unsigned i;

	for (i = 0; i < n; i++) {
		h ^= pcs[i];
		h *= 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	return h;
}

static uint32_t sidx_probe(const struct sindex *ix, uint64_t h, const uint64_t *pcs, unsigned n)
{
	uint64_t i = h & ix->mask;

	for (;;) {
		uint32_t v = __atomic_load_n(&ix->slots[i], ACQUIRE);
		const struct ph_stack *r;

		if (!v)
			return UINT32_MAX;
		r = stack_rec(v - 1);
		if (r->hash == h && r->depth == n) {
			unsigned k = 0;

			while (k < n && r->pcs[k] == pcs[k])
				k++;
			if (k == n)
				return v - 1;
		}
		i = (i + 1) & ix->mask;
	}
}

static struct sindex *sidx_new(uint64_t cap)
{
	struct sindex *ix = ph_map_anon(sizeof(*ix) + cap * sizeof(uint32_t));

	if (ix)
		ix->mask = cap - 1;
	return ix;
}

int ph_stacks_init(void)
{
	sidx = sidx_new(4096);
	return sidx ? 0 : -1;
}

void ph_stacks_after_fork(void)
{
	stack_lock = 0;
}

static void sidx_put(struct sindex *ix, uint64_t h, uint32_t id)
{
	uint64_t i = h & ix->mask;

	while (ix->slots[i])
		i = (i + 1) & ix->mask;
	__atomic_store_n(&ix->slots[i], id + 1, RELEASE);
	ix->count++;
}

/* Add a stack (stack_lock held); returns its id, or 0 when full. */
static uint32_t stack_add(uint64_t h, const uint64_t *pcs, unsigned n)
{
	uint64_t id = H->nstacks, off, doff;
	struct ph_stack *r;
	uint64_t *dir;

	if (id >= PH_MAX_STACKS)
		goto full;
	if (!H->stack_dir[id / PH_DIR_CHUNK]) {
		if (!ph_arena_alloc(PH_DIR_CHUNK * sizeof(uint64_t), &doff))
			goto full;
		__atomic_store_n(&H->stack_dir[id / PH_DIR_CHUNK], doff, RELEASE);
	}
	r = ph_arena_alloc(sizeof(*r) + n * sizeof(*pcs), &off);
	if (!r)
		goto full;
	r->hash = h;
	r->depth = n;
	memcpy(r->pcs, pcs, n * sizeof(*pcs));
	dir = ph_at(H->stack_dir[id / PH_DIR_CHUNK]);
	__atomic_store_n(&dir[id % PH_DIR_CHUNK], off, RELEASE);
	__atomic_store_n(&H->nstacks, id + 1, RELEASE);
	if ((sidx->count + 1) * 2 > sidx->mask + 1) {
		struct sindex *nx = sidx_new((sidx->mask + 1) * 2);
		uint64_t k;

		if (nx) {
			for (k = 0; k < id; k++)
				sidx_put(nx, stack_rec((uint32_t)k)->hash, (uint32_t)k);
			/* The old index stays mapped: readers may still probe it. */
			__atomic_store_n(&sidx, nx, RELEASE);
		}
	}
	sidx_put(sidx, h, (uint32_t)id);
	return (uint32_t)id;
full:
	__atomic_fetch_or(&H->flags, PH_FLAG_FULL, RELAXED);
	return 0;
}

uint32_t ph_stack_id(const uint64_t *pcs, unsigned n)
{
	uint64_t h = stack_hash(pcs, n);
	uint32_t id = sidx_probe(__atomic_load_n(&sidx, ACQUIRE), h, pcs, n);

	if (likely(id != UINT32_MAX))
		return id;
	ph_spin_lock(&stack_lock);
	id = sidx_probe(sidx, h, pcs, n);
	if (id == UINT32_MAX)
		id = stack_add(h, pcs, n);
	ph_spin_unlock(&stack_lock);
	return id;
}
