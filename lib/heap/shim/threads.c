/*
 * Threads: each thread takes a record of the file (heap/format.h) at its
 * first allocation, with its own counters, and gives it back when it
 * exits (a pthread key); the bounds of its stack for the frame-pointer
 * walk (internal.h).
 */
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "heap/shim/internal.h"

static pthread_key_t thread_key;
static int key_ok;

static void thread_release(void *arg)
{
	struct ph_thread *th = arg;

	if (th && th == T.th) {
		T.th = NULL;
		T.ctr = NULL;
		T.cap = 0;
		__atomic_store_n(&th->in_use, 0, RELEASE);
	}
}

void ph_threads_init(void)
{
	if (pthread_key_create(&thread_key, thread_release) == 0)
		key_ok = 1;
}

struct stack_find {
	uintptr_t sp, lo, hi;
};

static int stack_line(uintptr_t lo, uintptr_t hi, const char *rest, size_t len, void *arg)
{
	struct stack_find *sf = arg;

	if (sf->sp < lo || sf->sp >= hi)
		return 0;
	if (len >= 7 && !memcmp(rest + len - 7, "[stack]", 7)) {
		/* The main thread's stack grows down to the stack limit. */
		struct rlimit rl;
		uintptr_t max = 64u << 20;

		if (syscall(SYS_getrlimit, RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
		    rl.rlim_cur < max)
			max = (uintptr_t)rl.rlim_cur;
		lo = hi - max < hi ? hi - max : 0;
		if (lo > sf->sp)
			lo = sf->sp & ~(uintptr_t)4095;
	}
	sf->lo = lo;
	sf->hi = hi;
	return 1;
}

/*
 * The mapping that contains sp (pthread_getattr_np takes a glibc lock and
 * calls malloc: a program calling it, as Rust's runtime does at start-up,
 * would deadlock the shim).
 */
int ph_stack_bounds(uintptr_t sp, uintptr_t *lo_out, uintptr_t *hi_out)
{
	struct stack_find sf = { sp, 0, 0 };

	if (ph_maps_each(stack_line, &sf) != 1)
		return -1;
	*lo_out = sf.lo;
	*hi_out = sf.hi;
	return 0;
}

int ph_thread_attach(void)
{
	struct ph_thread *th = NULL;
	uint32_t i, n;
	uint64_t off;

	T.guard++;
	if (!T.stack_hi)
		ph_stack_bounds((uintptr_t)__builtin_frame_address(0), &T.stack_lo, &T.stack_hi);
	n = __atomic_load_n(&H->nthreads, ACQUIRE);
	for (i = 0; i < n && !th; i++) {
		uint64_t o = __atomic_load_n(&H->threads[i], ACQUIRE);
		struct ph_thread *t;
		uint32_t zero = 0;

		if (!o)
			continue;
		t = ph_at(o);
		if (!__atomic_load_n(&t->in_use, RELAXED) &&
		    __atomic_compare_exchange_n(&t->in_use, &zero, 1, 0, ACQUIRE, RELAXED))
			th = t;
	}
	if (!th) {
		i = __atomic_fetch_add(&H->nthreads, 1, RELAXED);
		if (i >= PH_MAX_THREADS || !(th = ph_arena_alloc(sizeof(*th), &off))) {
			T.guard--;
			return -1;
		}
		th->in_use = 1;
		__atomic_store_n(&H->threads[i], off, RELEASE);
	}
	th->tid = (int32_t)syscall(SYS_gettid);
	T.th = th;
	T.cap = __atomic_load_n(&th->cap, ACQUIRE);
	T.ctr = T.cap ? ph_at(th->counters) : NULL;
	if (key_ok)
		pthread_setspecific(thread_key, th);
	if (ph_sample_mean) {
		T.rng = ph_now_ns() ^ ((uint64_t)th->tid << 32) ^ (uintptr_t)&T;
		if (!T.rng)
			T.rng = 1;
		T.sample_left = 0;
		ph_draw_sample();
	}
	T.guard--;
	return 0;
}

void ph_threads_after_fork(void)
{
	uint32_t i;

	for (i = 0; i < H->nthreads && i < PH_MAX_THREADS; i++) {
		struct ph_thread *th;

		if (!H->threads[i])
			continue;
		th = ph_at(H->threads[i]);
		if (th->cap)
			memset(ph_at(th->counters), 0, th->cap * sizeof(struct ph_counters));
		th->alloc_bytes = th->alloc_count = 0;
		th->live_blocks = 0;
		th->in_use = th == T.th;
	}
	if (T.th)
		T.th->tid = (int32_t)syscall(SYS_gettid);
	T.last_alloc = NULL;
}
