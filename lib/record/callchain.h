#ifndef PROF_RECORD_CALLCHAIN_H
#define PROF_RECORD_CALLCHAIN_H
/*
 * From a sample to a stack of the stack table: the addresses of its call
 * chain (frame pointers, walked by the kernel), of its DWARF unwinding
 * (copied user registers and stack, unwound with dwarf_unwind.h), or its
 * IP alone are symbolized (symbolize.h) and their frames interned, root
 * first, with the frame names of prof-formats.5: ';' becomes ':', tabs
 * and newlines blanks, "_[k]" marks kernel frames, "_[i]" inlined ones,
 * " FILE:LINE" follows the name with lines on.
 *
 * Frame pointer walks are judged, because they end in garbage when a
 * frame holds no frame pointer: a walk ends at a thread's entry frame
 * (_start, start_thread, clone3 ...); a return address outside the
 * process's executable mappings ends it, with a "[truncated]" frame at
 * its root, and so does a chain cut at kernel.perf_event_max_stack.
 * The callchain counts user stacks and those that stop after one or two
 * frames short of an entry frame, a sign of code built without frame
 * pointers.
 *
 * A frame pointer walk misses the caller of a function that has not set
 * up its frame pointer (a frameless leaf: strcmp, memcmp, a syscall
 * wrapper; a function's prologue): the walk starts from the caller's
 * frame pointer, whose return address is the caller's caller's. So in fp
 * mode the sample also holds the user stack pointer and the top
 * PROF_CALLCHAIN_LEAF_STACK_BYTES of the user stack; where the innermost
 * user function's CFI says its CFA is SP + N, the return address at
 * SP + N - 8 is its caller, put back after it unless the walk has it
 * (x86-64; perf -g loses that frame).
 *
 * Deferred naming (defer_jit): a user address that nothing names when
 * sampled, in anonymous executable memory (JIT code whose perf map entry
 * is not written yet: the JVM writes its map only at exit or when asked),
 * becomes a frame of its own, "[unknown 0xADDR pid PID]", kept with its
 * process and address (the looked-up one: a return address less one);
 * prof_callchain_resolve() names those frames at the end of the
 * recording from the perf map as it is then, which is how perf report
 * names them (it reads the map when it reports); a process in a
 * container has it read in its file tree, under the pid it sees
 * (symbolize.h's prof_addrspace_view()). Off (the default),
 * they are "[unknown]" at once, as a writer that cannot go back needs.
 * The map at the end names only code alive then; a JVM is not asked for
 * maps during the run as well, because the one at the end left 0.0% of
 * a 4-second run of JDK sort, hash map and regex code (tiered
 * recompilation) [unknown] (perf report: 0.1%), while each request
 * costs the JVM 5 ms (31 ms the first, which starts its attach thread).
 */
#include <stdint.h>

#include "base/buf.h"
#include "base/hashmap.h"
#include "record/decode.h"
#include "symbolize/symbolize.h"

struct prof_stacks;
struct prof_unwinder;

/*
 * The user stack bytes an fp-mode sample copies (PERF_SAMPLE_STACK_USER)
 * to find a frameless function's return address: enough for a CFA of
 * SP + 64 (a leaf's is SP + 8, a PLT stub's SP + 8 or 16; a function that
 * saved six registers and keeps 8 bytes of locals). With the three
 * registers, a sample record grows by 112 bytes (about 100 before, with a
 * short call chain): the ring buffers fill twice as fast. The recorder's
 * CPU time per sample did not change measurably.
 */
#define PROF_CALLCHAIN_LEAF_STACK_BYTES 64

/*
 * The sample_regs_user an fp-mode sample asks for (BP, SP, IP), 0 where
 * the leaf's caller is not recovered (not x86-64).
 */
uint64_t prof_callchain_leaf_regs_mask(void);

/* The most frames a stack gets (deeper call chains are cut at the root). */
#define PROF_CALLCHAIN_MAX_FRAMES 1024

enum prof_call_graph {
	PROF_CALL_GRAPH_FP,	/* PERF_SAMPLE_CALLCHAIN: the kernel follows frame pointers */
	PROF_CALL_GRAPH_DWARF,	/* PERF_SAMPLE_REGS_USER + STACK_USER, unwound here */
	PROF_CALL_GRAPH_NONE,	/* the sampled IP only */
};

struct prof_callchain {
	/* set by prof_callchain_init */
	struct prof_symbolizer *sym;	/* not owned */
	struct prof_unwinder *unw;	/* not owned; needed for PROF_CALL_GRAPH_DWARF */
	struct prof_stacks *stacks;	/* not owned: where frames and stacks are interned */
	enum prof_call_graph mode;
	int lines;			/* add " FILE:LINE" to frame names */
	unsigned max_stack;		/* kernel.perf_event_max_stack */
	int defer_jit;			/* deferred naming (above); set by the caller */
	/* counts, for the caller's report */
	unsigned long long fp_user_stacks;	/* fp call chains with user frames */
	unsigned long long fp_shallow_stacks;	/* those 1 or 2 deep, reaching no entry frame */
	unsigned long long fp_leaf_callers;	/* frameless functions' callers put back */
	/* private */
	struct prof_buf text;
	struct prof_frame frames[16];
	uint32_t ids[PROF_CALLCHAIN_MAX_FRAMES];
	size_t n;
	struct prof_hashmap deferred;	/* frame id -> struct prof_deferred_frame */
	/* pid -> struct prof_addrspace *: where a process with deferred frames has its map */
	struct prof_hashmap views;
	/*
	 * After prof_callchain_stack(): the address each of the stack's
	 * frames was named from, root first (the inlined frames of one
	 * address share it; 0 for the root given and a "[truncated]"
	 * marker), as the kernel or the unwinder gave it: a caller's is its
	 * return address, as perf script prints it. The last leaf_frames
	 * frames are the sampled ip's (0 when the chain did not start at it).
	 */
	uint64_t addrs[PROF_CALLCHAIN_MAX_FRAMES];
	size_t leaf_frames;
};

/* A frame of deferred naming. */
struct prof_deferred_frame {
	uint32_t frame;			/* its id in the stack table */
	int pid;
	uint64_t addr;			/* the address looked up */
	uint64_t leaf;			/* samples with this frame innermost */
};

/*
 * The name frame f has in a stack (prof-formats.5), into b (reset
 * first): its function, " FILE:LINE" when lines is set and it has one,
 * ';' made ':', tabs and newlines blanks, "_[k]" after a kernel frame,
 * "_[i]" after an inlined one.
 */
void prof_callchain_frame_text(struct prof_buf *b, const struct prof_frame *f, int lines);

/* Initialise; the pointers are borrowed for the callchain's lifetime. */
void prof_callchain_init(struct prof_callchain *cc, struct prof_symbolizer *sym,
			 struct prof_unwinder *unw, struct prof_stacks *stacks,
			 enum prof_call_graph mode, int lines, unsigned max_stack);

/* Free its buffers. */
void prof_callchain_release(struct prof_callchain *cc);

/*
 * The stack id of sample s of a thread of address space as (NULL: the
 * idle task, kernel frames only), interned in cc->stacks with zero
 * weights if new. root, when not NULL, becomes the outermost frame (the
 * command name of folded output).
 */
uint32_t prof_callchain_stack(struct prof_callchain *cc, struct prof_addrspace *as,
			      const struct prof_sample *s, const char *root);

/*
 * Name the frames of deferred naming now, from the perf map of each
 * one's process (symbolize.h's prof_addrspace_jit_name()): "[unknown]"
 * where it names nothing (code freed before the map was written, or no
 * map). Returns, for each frame id below *nframes (the table's frame
 * count before this call), the id of its name: itself, or the interned
 * name of a deferred frame; NULL (and *nframes 0) when there is no
 * deferred frame. Samples whose innermost frame got a name are counted
 * in *named_leaves. Caller frees.
 */
uint32_t *prof_callchain_resolve(struct prof_callchain *cc, size_t *nframes,
				 unsigned long long *named_leaves);

#endif
