/*
 * Off-CPU intervals from switch-out samples and switch records (offcpu.h).
 */
#include <string.h>
#include <linux/perf_event.h>

#include "core/stack.h"
#include "record/callchain.h"
#include "record/offcpu.h"

void prof_offcpu_switch_out(struct prof_offcpu *o, uint32_t stack, uint64_t time, int cpu)
{
	o->out_stack = stack;
	o->out_time = time;
	o->out_cpu = cpu;
	o->pending = 1;
	o->preempted = 0;
}

/* stack with a "[preempted]" leaf; stack itself when that would be too deep. */
static uint32_t preempted_stack(struct prof_stacks *stacks, uint32_t stack)
{
	uint32_t frames[PROF_CALLCHAIN_MAX_FRAMES];
	size_t depth;
	const uint32_t *fr = prof_stacks_frames(stacks, stack, &depth);

	if (depth >= PROF_CALLCHAIN_MAX_FRAMES - 1)
		return stack;
	memcpy(frames, fr, depth * sizeof(*fr));
	frames[depth] = prof_stacks_frame(stacks, "[preempted]", 11);
	return prof_stacks_intern(stacks, frames, depth + 1);
}

int prof_offcpu_switch(struct prof_offcpu *o, struct prof_stacks *stacks, uint16_t misc,
		       uint64_t time, struct prof_offcpu_span *span)
{
	int done = 0;

	if (!o->pending)
		return 0;
	if (misc & PERF_RECORD_MISC_SWITCH_OUT) {
		if (misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)
			o->preempted = 1;
		return 0;
	}
	if (time > o->out_time) {
		span->start = o->out_time;
		span->ns = time - o->out_time;
		span->cpu = o->out_cpu;
		span->stack = o->preempted ? preempted_stack(stacks, o->out_stack) : o->out_stack;
		done = 1;
	}
	o->pending = 0;
	return done;
}
