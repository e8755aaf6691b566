#ifndef PROF_REPORT_SUMMARY_H
#define PROF_REPORT_SUMMARY_H
/*
 * The answers at the top of the HTML report (profreport(1)): what a run
 * directory of proftools-profile(1) measured, gathered from its files
 * (prof_report_facts_read), shown as a summary table and a list of
 * findings (prof_report_summary_write).
 *
 * Every figure is NAN (or 0 counts) where the directory does not hold
 * it, and the summary then says "not recorded", never 0. The findings
 * come from the rules of proftools-profile(1)'s FINDINGS section, each
 * with its evidence and a link to the section holding it:
 *
 *   hot        (information) the functions with the most self time
 *   cut-short  a recorder said most stacks stop after one or two
 *              frames and the run walked frame pointers: --dwarf
 *   lock-wait  off-CPU time in stacks through a lock (mutex, rwlock,
 *              spin lock) >= 10% of the off-CPU time and >= 10 ms
 *   gpu-idle   the GPU at < 5% while the command used >= 50% of a core,
 *              for >= 20% of the sampled time and >= 0.5 s, in a run
 *              where the GPU did work (peak utilisation >= 20%)
 *   throttle   GPU throttled (reasons other than gpu_idle, app_clocks,
 *              display_clocks) >= 5% of the sampled time and >= 0.5 s
 *   temp-alloc temporary allocations >= 20% of all and >= 1,000
 *   leak       bytes still allocated at exit
 *   alert      a profgpu alert fired
 *
 * A run with none of these problems gets the "hot" finding alone.
 */
#include <stddef.h>

struct prof_output;
struct prof_meta;

/* A line of evidence kept from a log: its file and its text. */
struct prof_report_note {
	char *file, *text;
	double at_s;		/* an alert's time in seconds (NAN: none) */
};

struct prof_report_hot {
	char *name;
	double self, self_pct;
};

struct prof_report_facts {
	/* wall time of each mode's run (cpu, offcpu, memory, gpu) */
	double wall_s[4];
	/* cpu.folded (or cpu.top.tsv): its total and unit ("ns": time) */
	double cpu_total;
	char *cpu_unit;
	double cpu_freq;		/* samples per second (run.meta freq), to turn samples into time */
	struct prof_report_hot hot[3];
	size_t nhot;
	/* offcpu.folded and offcpu-oncpu.folded, ns */
	double on_ns, off_ns, lock_ns;
	char *lock_frame;		/* the lock frame of the heaviest waiting stack */
	/* memory-*.folded */
	double heap_peak, leaked, allocs, temps;
	double heap_peak_at_s;		/* when the heap peaked (memory-peak.folded's peak_ns), or NaN */
	/* the largest rss_bytes of the memory run and of the host monitor (gpu run) */
	double rss_memory, rss_host;
	/* gpu.tsv and host.tsv */
	int gpu_rows;			/* -1: no gpu.tsv; 0: a header without samples */
	size_t gpus;
	double gpu_span_s, gpu_util_avg, gpu_util_max, gpu_idle_s, gpu_mem_max;
	double throttled_s;
	char *throttle_reasons;		/* "sw_power_cap 3.2 s, ..." */
	double idle_busy_s;		/* GPU idle while the command used a core */
	double idle_busy_from, idle_busy_to;	/* its longest stretch, seconds */
	double cmd_span_s;		/* time the host monitor saw the command */
	char *no_gpu;			/* profgpu's reason when it found no GPU */
	/* recorders' warnings: stacks cut short; profgpu's alerts */
	struct prof_report_note *cut;
	size_t ncut;
	struct prof_report_note *alerts;
	size_t nalerts;
	int gpu_log;			/* profgpu ran (gpu.log exists) */
	/* the longest timeline, seconds: the range every chart shares */
	double timeline_s;
};

/*
 * Read the facts of directory dir (its run.meta already in meta). Files
 * that are absent leave their figures unrecorded; one that cannot be
 * read is reported and counted in *bad.
 */
void prof_report_facts_read(struct prof_report_facts *f, const char *dir,
			    const struct prof_meta *meta, unsigned long *bad);

void prof_report_facts_release(struct prof_report_facts *f);

/*
 * The "Summary" and "Findings" sections of the page. has_section(ctx, id)
 * tells whether the page holds a section id ("cpu", "timeline"...), so
 * that links point only at sections that exist.
 */
void prof_report_summary_write(struct prof_output *o, const struct prof_report_facts *f,
			       const struct prof_meta *meta,
			       int (*has_section)(const void *ctx, const char *id), const void *ctx);

#endif
