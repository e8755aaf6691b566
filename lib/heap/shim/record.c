/*
 * The hot path: an allocation walked, given its stack id and counted in
 * the calling thread's counters; a free found in the block table and
 * subtracted; the global live total and its peak; Poisson sampling
 * (internal.h). No allocation through the tracked heap, no global lock:
 * counters are per thread, the block table is sharded, only the live
 * total is a shared atomic.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "heap/shim/internal.h"

__thread struct ph_tls T __attribute__((tls_model("initial-exec")));

void ph_draw_sample(void)
{
	double u;

	T.rng ^= T.rng << 13;
	T.rng ^= T.rng >> 7;
	T.rng ^= T.rng << 17;
	u = ((T.rng >> 11) + 0.5) * (1.0 / 9007199254740992.0);
	T.sample_left += (int64_t)(-log(u) * ph_sample_mean_d) + 1;
}

static struct ph_counters *counters_grow(uint32_t id)
{
	uint64_t cap = T.cap ? T.cap * 2 : 1024, off;
	struct ph_counters *c;

	while (cap <= id)
		cap *= 2;
	c = ph_arena_alloc(cap * sizeof(*c), &off);
	if (!c)
		return NULL;
	if (T.cap)
		memcpy(c, T.ctr, T.cap * sizeof(*c));
	T.th->counters = off;
	__atomic_store_n(&T.th->cap, cap, RELEASE);
	T.ctr = c;
	T.cap = cap;
	return c + id;
}

static inline struct ph_counters *counters(uint32_t id)
{
	if (likely(id < T.cap))
		return T.ctr + id;
	return counters_grow(id);
}

/* Apply a change of live bytes/blocks to one entry, snapshotting at a committed peak. */
static inline void entry_live(struct ph_counters *c, int64_t bytes, int64_t blocks)
{
	uint64_t g = __atomic_load_n(&H->peak_gen, ACQUIRE);

	if (unlikely(c->gen != g)) {
		c->peak_bytes = c->live_bytes;
		c->gen = g;
	}
	c->live_bytes += bytes;
	c->live_blocks += blocks;
}

/* Estimated weight of a sampled block of n bytes: bytes and count units. */
static void sample_weight(uint64_t n, int64_t *bytes, int64_t *units)
{
	double p = -expm1(-(double)n / ph_sample_mean_d);

	if (p <= 0)
		p = 1e-300;
	*bytes = (int64_t)llround((double)n / p);
	*units = (int64_t)llround((double)H->count_unit / p);
}

/*
 * The caller's stack into pcs: with libunwind once it is loaded (see
 * startup.c), else with frame pointers through the loaded code, the
 * table rebuilt once when the walk met code loaded since (dlopen). A
 * frame-pointer walk cut short before our constructor ran is cut in the
 * loader's start-up (PH_PC_STARTUP).
 */
static inline unsigned walk(uint64_t *pcs)
{
	const struct ph_code_range *code;
	unsigned depth, ncode;

	if (__atomic_load_n(&ph_use_dwarf, ACQUIRE))
		return ph_unwind_dwarf(pcs, PH_MAX_DEPTH, ph_self_lo, ph_self_hi);
	code = ph_code_table(&ncode);
	depth = ph_unwind_fp(pcs, PH_MAX_DEPTH, T.stack_lo, T.stack_hi, ph_self_lo, ph_self_hi,
			     code, ncode);
	if ((!depth || pcs[depth - 1] == PH_PC_TRUNCATED) && ph_code_refresh()) {
		code = ph_code_table(&ncode);
		depth = ph_unwind_fp(pcs, PH_MAX_DEPTH, T.stack_lo, T.stack_hi, ph_self_lo, ph_self_hi,
				     code, ncode);
	}
	if (unlikely(!__atomic_load_n(&ph_started, RELAXED)) && depth &&
	    pcs[depth - 1] == PH_PC_TRUNCATED)
		pcs[depth - 1] = PH_PC_STARTUP;
	return depth;
}

__attribute__((noinline)) void ph_record_alloc(void *p, size_t n)
{
	uint64_t pcs[PH_MAX_DEPTH];
	unsigned depth;
	uint32_t id;
	struct ph_counters *c;
	int64_t wb = (int64_t)n, wn = 1;
	uint64_t live, peak;

	if (unlikely(!T.th) && ph_thread_attach() < 0)
		return;
	depth = walk(pcs);
	if (ph_python)
		depth = ph_python_stack(pcs, depth);
	id = ph_stack_id(pcs, depth);
	c = counters(id);
	if (unlikely(!c))
		return;
	if (ph_sample_mean)
		sample_weight(n, &wb, &wn);
	else
		T.th->alloc_bytes += n, T.th->alloc_count++;
	if (ph_block_insert(p, (uint64_t)n << 24 | id) < 0)
		return;
	c->alloc_bytes += (uint64_t)wb;
	c->alloc_count += (uint64_t)wn;
	entry_live(c, wb, wn);
	T.th->live_blocks += wn;
	if (ph_sample_mean)
		ph_filter_add(p, 1);
	T.last_alloc = p;
	live = __atomic_add_fetch(&H->live_bytes, (uint64_t)wb, RELAXED);
	peak = __atomic_load_n(&H->peak_bytes, RELAXED);
	while ((int64_t)live > (int64_t)peak) {
		if (__atomic_compare_exchange_n(&H->peak_bytes, &peak, live, 1, RELAXED, RELAXED)) {
			if (!__atomic_load_n(&H->peak_pending, RELAXED))
				__atomic_store_n(&H->peak_pending, 1, RELAXED);
			break;
		}
	}
}

static void account_free(uint64_t info, int temp)
{
	uint32_t id = (uint32_t)(info & 0xffffff);
	uint64_t n = info >> 24;
	struct ph_counters *c;
	int64_t wb = (int64_t)n, wn = 1;

	if (unlikely(!T.th) && ph_thread_attach() < 0)
		return;
	c = counters(id);
	if (unlikely(!c))
		return;
	if (ph_sample_mean)
		sample_weight(n, &wb, &wn);
	/* The first drop after a new maximum commits the peak (before this free). */
	if (unlikely(__atomic_load_n(&H->peak_pending, RELAXED)) &&
	    __atomic_exchange_n(&H->peak_pending, 0, RELAXED)) {
		/* (rare: a peak is committed once, at the first drop after it) */
		__atomic_store_n(&H->peak_ns, ph_now_ns() - H->start_ns, RELAXED);
		__atomic_add_fetch(&H->peak_gen, 1, RELEASE);
	}
	entry_live(c, -wb, -wn);
	if (temp) {
		c->temp_bytes += (uint64_t)wb;
		c->temp_count += (uint64_t)wn;
	}
	T.th->live_blocks -= wn;
	__atomic_sub_fetch(&H->live_bytes, (uint64_t)wb, RELAXED);
}

/* Remove p from the block table if we know it; returns 1 and its info. */
static inline int forget(void *p, uint64_t *info)
{
	if (ph_sample_mean) {
		if (likely(!ph_filter_maybe(p)))
			return 0;
		if (!ph_block_remove(p, info))
			return 0;
		ph_filter_add(p, -1);
		return 1;
	}
	if (ph_block_remove(p, info))
		return 1;
	__atomic_fetch_add(&H->unknown_frees, 1, RELAXED);
	return 0;
}

void ph_free(void *p)
{
	uint64_t info;

	if (!p || unlikely(ph_is_boot(p)))
		return;
	if (ph_python && !T.guard)
		ph_python_forget(p);
	if (!ph_real.free)
		ph_resolve();
	if (!ph_active || T.guard) {
		ph_real.free(p);
		return;
	}
	/* Sampling: most blocks were not sampled, and the filter says so. */
	if (ph_sample_mean && likely(!ph_filter_maybe(p))) {
		ph_real.free(p);
		return;
	}
	T.guard++;
	if (forget(p, &info)) {
		account_free(info, p == T.last_alloc);
		T.last_alloc = NULL;
	}
	ph_real.free(p);
	T.guard--;
}

void *ph_realloc(void *p, size_t n)
{
	uint64_t info = 0;
	int known;
	void *q;

	if (unlikely(ph_is_boot(p))) {
		size_t old = *(size_t *)((char *)p - 16);

		q = malloc(n);
		if (q)
			memcpy(q, p, old < n ? old : n);
		return q;
	}
	if (!p)
		return malloc(n);
	if (ph_python && !T.guard)
		ph_python_forget(p);
	if (unlikely(!ph_real.realloc))
		ph_resolve();
	if (!ph_configured)
		ph_configure();
	if (!ph_active || T.guard)
		return ph_real.realloc(p, n);
	T.guard++;
	known = forget(p, &info);
	q = ph_real.realloc(p, n);
	if (!q && n) {
		/* Failed: p is still allocated. */
		if (known)
			ph_block_insert(p, info);
		T.guard--;
		return NULL;
	}
	if (known)
		account_free(info, 0);
	T.guard--;
	if (q && ph_wanted(n))
		ph_track(q, n);
	return q;
}
