#ifndef PROF_HEAP_UNWIND_H
#define PROF_HEAP_UNWIND_H
/*
 * In-process stack walking for the heap shim (lib/heap/shim.c).
 *
 * Two walkers, both async with respect to the tracked heap (they allocate
 * nothing through it):
 *  - frame pointers (default): follows the rbp chain, checking every frame
 *    pointer against the thread's stack bounds (given by the caller, from
 *    pthread_getattr_np, cached per thread), alignment and monotonic
 *    growth, so a broken chain ends the walk instead of faulting;
 *  - libunwind's unw_backtrace (DWARF CFI), loaded with dlopen on demand
 *    so the shim does not depend on libunwind unless --unwind dwarf is
 *    asked for.
 * Both skip the leading frames whose address lies in [skip_lo, skip_hi)
 * (the shim's own code) and return return addresses, innermost first.
 */
#include <stdint.h>

/* Walk frame pointers from the caller's frame; returns the number of pcs stored. */
unsigned ph_unwind_fp(uint64_t *pcs, unsigned max, uintptr_t stack_lo, uintptr_t stack_hi,
		      uintptr_t skip_lo, uintptr_t skip_hi);

/*
 * Load libunwind (libunwind.so.8) and switch it to per-thread caching.
 * Returns 0, or -1 when it is not available (nothing printed).
 */
int ph_unwind_dwarf_init(void);

/* Walk with libunwind; same contract as ph_unwind_fp. Requires ph_unwind_dwarf_init(). */
unsigned ph_unwind_dwarf(uint64_t *pcs, unsigned max, uintptr_t skip_lo, uintptr_t skip_hi);

#endif
