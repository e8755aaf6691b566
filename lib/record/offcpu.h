#ifndef PROF_RECORD_OFFCPU_H
#define PROF_RECORD_OFFCPU_H
/*
 * Off-CPU accounting: where threads wait, weighted by how long.
 *
 * Two sources per thread: the "offcpu-time" event samples every context
 * switch out of the thread (PERF_COUNT_SW_CONTEXT_SWITCHES, period 1), so
 * its stack is where the thread stopped running; the PERF_RECORD_SWITCH
 * records of attr.context_switch say when it runs again. The span between
 * the sample and the next switch in is one off-CPU interval, weighted by
 * its nanoseconds and attributed to the sample's stack. A thread switched
 * out while still runnable (PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) waited
 * for a CPU, not for something it asked for: its stack gets a
 * "[preempted]" leaf, so the two kinds of waiting stay apart.
 */
#include <stdint.h>

struct prof_stacks;

/* One thread's open interval; all zero: none. */
struct prof_offcpu {
	uint64_t out_time;	/* time of the switch-out sample */
	uint32_t out_stack;	/* its stack id */
	int out_cpu;
	int pending;		/* a switch-out sample waits for its switch in */
	int preempted;		/* a preempting switch-out was seen since */
};

/* A finished off-CPU interval. */
struct prof_offcpu_span {
	uint64_t start;		/* the switch-out time */
	uint64_t ns;		/* its length */
	uint32_t stack;		/* the stack at the switch-out ("[preempted]" leaf added) */
	int cpu;		/* the CPU it left */
};

/* The thread was switched out at time on cpu with stack id stack (the offcpu-time sample). */
void prof_offcpu_switch_out(struct prof_offcpu *o, uint32_t stack, uint64_t time, int cpu);

/*
 * A PERF_RECORD_SWITCH of the thread at time, with the record's misc
 * bits. A switch out only notes preemption. A switch in ends the pending
 * interval: returns 1 and fills *span when it lasted (time after the
 * switch-out), interning the "[preempted]" stack in stacks when needed;
 * otherwise returns 0. Either way the thread has no pending interval
 * after a switch in.
 */
int prof_offcpu_switch(struct prof_offcpu *o, struct prof_stacks *stacks, uint16_t misc,
		       uint64_t time, struct prof_offcpu_span *span);

#endif
