/*
 * Stack walking inside the profiled process (unwind.h).
 */
#include <dlfcn.h>
#include <stddef.h>
#include "heap/shim/stackwalk.h"

#define HIDDEN __attribute__((visibility("hidden")))

/*
 * 0: not code, 1: code, 2: code of the C runtime. *last is the range the
 * previous frame was found in (n: none), tried first: most frames of a
 * walk lie in the same object as their callee, and the search for every
 * frame was most of the walk's cost.
 */
static inline int code_kind(uintptr_t pc, const struct ph_code_range *code, unsigned n, unsigned *last)
{
	unsigned lo = 0, hi = n;

	if (*last < n && pc >= code[*last].lo && pc < code[*last].hi)
		return code[*last].runtime ? 2 : 1;
	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (pc < code[mid].lo) {
			hi = mid;
		} else if (pc >= code[mid].hi) {
			lo = mid + 1;
		} else {
			*last = mid;
			return code[mid].runtime ? 2 : 1;
		}
	}
	return 0;
}

HIDDEN __attribute__((noinline)) unsigned
ph_unwind_fp(uint64_t *pcs, unsigned max, uintptr_t stack_lo, uintptr_t stack_hi,
	     uintptr_t skip_lo, uintptr_t skip_hi, const struct ph_code_range *code, unsigned ncode)
{
	const uintptr_t *fp = __builtin_frame_address(0);
	unsigned n = 0, last = ncode;
	int skipping = 1, at_runtime = 0, truncated = 0;

	if (max < 2)
		return 0;
	for (;;) {
		uintptr_t f = (uintptr_t)fp, ret;
		const uintptr_t *next;
		int kind;

		if (f < stack_lo || f > stack_hi - 2 * sizeof(uintptr_t) || (f & 7)) {
			truncated = !at_runtime;
			break;
		}
		ret = fp[1];
		next = (const uintptr_t *)fp[0];
		if (skipping && ret >= skip_lo && ret < skip_hi) {
			/* still inside the shim, whose code this is */
		} else if (!(kind = code_kind(ret, code, ncode, &last))) {
			truncated = !at_runtime;
			break;
		} else {
			if (n == max - 1) {
				truncated = 1;
				break;
			}
			skipping = 0;
			pcs[n++] = ret;
			at_runtime = kind == 2;
		}
		if (!next) {
			/* the outermost frame, unless code without frame pointers zeroed it */
			truncated = !at_runtime;
			break;
		}
		if ((uintptr_t)next <= f) {
			truncated = !at_runtime;
			break;
		}
		fp = next;
	}
	if (truncated && n)
		pcs[n++] = PH_PC_TRUNCATED;
	return n;
}

typedef int (*unw_backtrace_fn)(void **, int);
static unw_backtrace_fn unw_backtrace_ptr;

HIDDEN int ph_unwind_dwarf_init(void)
{
	void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
	int (*set_policy)(void *, int);
	void **as;

	if (!h)
		return -1;
	unw_backtrace_ptr = (unw_backtrace_fn)dlsym(h, "unw_backtrace");
	if (!unw_backtrace_ptr)
		return -1;
	/* unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD) */
	set_policy = (int (*)(void *, int))dlsym(h, "_ULx86_64_set_caching_policy");
	as = (void **)dlsym(h, "_ULx86_64_local_addr_space");
	if (set_policy && as)
		set_policy(*as, 2);
	return 0;
}

HIDDEN __attribute__((noinline)) unsigned
ph_unwind_dwarf(uint64_t *pcs, unsigned max, uintptr_t skip_lo, uintptr_t skip_hi)
{
	void *buf[160];
	int n, i = 0;
	unsigned out = 0;

	if (!unw_backtrace_ptr)
		return 0;	/* not loaded: the caller checks, this is the last defence */
	n = unw_backtrace_ptr(buf, (int)(max + 16 < 160 ? max + 16 : 160));
	/* buf[0] is our own pc (not a return address): skip the shim's frames. */
	while (i < n && (uintptr_t)buf[i] >= skip_lo && (uintptr_t)buf[i] < skip_hi)
		i++;
	for (; i < n && out < max; i++)
		pcs[out++] = (uint64_t)(uintptr_t)buf[i];
	return out;
}
