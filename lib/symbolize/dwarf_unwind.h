#ifndef PROF_DWARF_UNWIND_H
#define PROF_DWARF_UNWIND_H
/*
 * DWARF unwinding of copied user stacks (perf's PERF_SAMPLE_REGS_USER +
 * PERF_SAMPLE_STACK_USER), with libdwfl and the CFI of the mapped files
 * (.eh_frame, .debug_frame of the file or its separate debug file).
 *
 * elfutils 0.188 has no call that unwinds a copied sample directly, so
 * each process image gets its own Dwfl with the file mappings of its
 * address space reported as modules (dwfl_report_elf), attached with
 * dwfl_attach_state() to our own Dwfl_Thread_Callbacks:
 * set_initial_registers maps the sampled PERF_REG_X86_* registers to
 * DWARF numbering, memory_read serves the copied stack and falls back to
 * the mapped files. The Dwfl is reused across samples and rebuilt when
 * the address space changes (exec, new mappings). x86-64 only.
 */
#include <stddef.h>
#include <stdint.h>

struct prof_addrspace;
struct prof_unwinder;

/* The sample_regs_user mask to request (AX..R15, IP, SP, BP). */
uint64_t prof_unwind_regs_mask(void);

/* A new unwinder (no process images yet). */
struct prof_unwinder *prof_unwinder_new(void);

/* Free it, its Dwfl sessions and open files (NULL ignored). */
void prof_unwinder_free(struct prof_unwinder *u);

/*
 * Forget the Dwfl of as (call before prof_addrspace_free(as) or when it
 * was reset by exec; a change of mappings is also noticed by itself).
 */
void prof_unwinder_forget(struct prof_unwinder *u, const struct prof_addrspace *as);

/*
 * Unwind one sample of thread tid in address space as: regs are the
 * sampled user registers in the order of prof_unwind_regs_mask()'s bits,
 * stack the copied bytes starting at the sampled SP. Writes up to max
 * program counters into ips, innermost first: ips[0] is the sampled IP,
 * every later entry a return address (look up with PROF_SYM_RETURN).
 * Returns the number written (0 if even the first frame failed).
 *
 * Where the walk stops in JIT code named by the process's perf map
 * (which has no CFI), a known rule steps over it and the walk goes on
 * from its caller: CPython 3.12+'s perf trampolines (PYTHONPERFSUPPORT),
 * so that a stack runs from _start through every Python function.
 */
size_t prof_unwind(struct prof_unwinder *u, struct prof_addrspace *as, int tid,
		   const uint64_t *regs, const unsigned char *stack, size_t stack_len,
		   uint64_t *ips, size_t max);

#endif
