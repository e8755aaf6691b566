#ifndef PROF_HEAP_SHIM_STACKWALK_H
#define PROF_HEAP_SHIM_STACKWALK_H
/*
 * In-process stack walking for the heap shim (lib/heap/shim/record.c).
 *
 * Two walkers, both async with respect to the tracked heap (they allocate
 * nothing through it):
 *  - frame pointers (default): follows the rbp chain, checking every frame
 *    pointer against the thread's stack bounds (given by the caller, from
 *    /proc/self/maps read with raw system calls, cached per thread), alignment and monotonic
 *    growth, so a broken chain ends the walk instead of faulting;
 *  - libunwind's unw_backtrace (DWARF CFI), loaded with dlopen on demand
 *    so the shim does not depend on libunwind unless --unwind dwarf is
 *    asked for.
 * Both skip the leading frames whose address lies in [skip_lo, skip_hi)
 * (the shim's own code) and return return addresses, innermost first.
 */
#include <stdint.h>
#include "heap/format.h"

/* An executable segment of a loaded object; runtime: the C library or the loader. */
struct ph_code_range {
	uintptr_t lo, hi;
	int runtime;
};

/*
 * Walk frame pointers from the caller's frame; returns the number of pcs
 * stored. code[0..ncode) are the executable segments, sorted by lo: a
 * return address outside them ends the walk (no chain of garbage), and
 * so does a frame pointer outside [stack_lo, stack_hi), misaligned or not
 * growing, or a zero frame pointer. Such an end right after a frame of the C runtime (libc, the
 * loader: where every process and thread starts, and which keeps no frame
 * pointers) is the end of the stack; anywhere else, and at max frames,
 * the last pc stored is PH_PC_TRUNCATED.
 */
unsigned ph_unwind_fp(uint64_t *pcs, unsigned max, uintptr_t stack_lo, uintptr_t stack_hi,
		      uintptr_t skip_lo, uintptr_t skip_hi, const struct ph_code_range *code,
		      unsigned ncode);

/*
 * Load libunwind (libunwind.so.8) and switch it to per-thread caching.
 * Returns 0, or -1 when it is not available (nothing printed).
 */
int ph_unwind_dwarf_init(void);

/*
 * Walk with libunwind; same contract as ph_unwind_fp. Before a successful
 * ph_unwind_dwarf_init() it stores nothing and returns 0.
 */
unsigned ph_unwind_dwarf(uint64_t *pcs, unsigned max, uintptr_t skip_lo, uintptr_t skip_hi);

#endif
