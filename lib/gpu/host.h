#ifndef PROF_GPU_HOST_H
#define PROF_GPU_HOST_H
/*
 * The host monitor: the machine and the command's process tree sampled
 * from /proc and /sys, in the loop that samples the GPUs (sampler.h,
 * profgpu --host and --host-output), into the profgpu-host timeline
 * (prof-formats.5):
 *
 *   the tree (the command and its descendants, found through the
 *   parents in /proc/PID/stat): CPU use in % of one core (each process's
 *   CPU clock, to the nanosecond, and its reaped children's ticks),
 *   resident and swapped memory, processes, threads, major faults and
 *   context switches per second (of every thread), bytes read and
 *   written per second (/proc/PID/io, where readable); the peak RSS of
 *   the summary also from the kernel's high-water marks (VmHWM);
 *   the host: CPU use in % of all cores (/proc/stat), network bytes
 *   received and sent per second (/proc/net/dev, loopback left out),
 *   the hottest thermal zone (/sys/class/thermal/thermal_zone[N]/temp).
 *
 * Rates are differences between two samples, so the first row has none.
 * Without a command there is no tree: its cells are empty. The tree is
 * walked down from the command through /proc/PID/task/TID/children (a
 * scan of /proc where the kernel lacks those files); orphans reparented
 * out of the tree leave it. Processes of the tree that exit between two
 * samples take their CPU time with them unless a member of the tree
 * reaped them (their time is then in its cutime/cstime, which count). $PROFGPU_PROC_ROOT and
 * $PROFGPU_SYSFS_ROOT (tests) replace /proc and /sys.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Which fields of a host sample hold a value (clear: empty cell). */
enum {
	PROF_HOST_HAVE_TREE = 1u << 0,		/* procs, threads, rss */
	PROF_HOST_HAVE_SWAP = 1u << 1,
	PROF_HOST_HAVE_TREE_RATES = 1u << 2,	/* cpu_pct, faults, switches */
	PROF_HOST_HAVE_IO = 1u << 3,		/* read/write bytes per second */
	PROF_HOST_HAVE_HOST_CPU = 1u << 4,
	PROF_HOST_HAVE_NET = 1u << 5,
	PROF_HOST_HAVE_TEMP = 1u << 6,
};

struct prof_host_sample {
	uint64_t time_ns;
	unsigned have;			/* PROF_HOST_HAVE_* */
	uint64_t procs, threads;
	uint64_t rss, swap;		/* bytes */
	double cpu_pct;			/* the tree, % of one core */
	double major_faults_per_s, ctx_switches_per_s;
	double read_per_s, write_per_s;	/* bytes */
	double host_cpu_pct;		/* % of all cores */
	double net_rx_per_s, net_tx_per_s;	/* bytes */
	double temp_c;
};

/* Counters of the previous sample (rates are their differences). */
struct prof_host_counters {
	uint64_t time_ns;
	double tree_cpu_s;
	uint64_t major_faults, ctx_switches, read_bytes, write_bytes;
	uint64_t host_busy, host_total;
	uint64_t net_rx, net_tx;
	unsigned have;
};

struct prof_host {
	pid_t root;			/* the command, or 0: no tree */
	char proc[256], sys[256];	/* /proc and /sys, or the test roots */
	long ticks_per_s;
	int real_proc;			/* proc is /proc: CPU clocks of its pids work */
	int children_files;		/* /proc/PID/task/TID/children exist */
	struct prof_host_counters prev;
	int have_prev;
	/*
	 * Summary. peak_rss: the highest of the samples' RSS, of the
	 * kernel's high-water mark (VmHWM) of each process of the tree,
	 * and of prof_host_note_peak() (the command's at its exit).
	 */
	uint64_t samples, peak_rss;
	double max_cpu_pct, sum_cpu_pct, max_temp_c;
	uint64_t cpu_samples;
	/* Scratch: the processes of one sample. */
	struct prof_host_proc *procs;
	size_t nprocs, procs_cap;
	uint64_t root_clock_ns;		/* when root's CPU clock was read, or 0 */
};

/* Start a monitor of the tree of root (0: none). */
void prof_host_init(struct prof_host *h, pid_t root);

/* The tree to watch from now on (the command, once spawned). */
void prof_host_set_root(struct prof_host *h, pid_t root);

/*
 * A peak RSS in bytes learnt otherwise (the command's ru_maxrss when it
 * was reaped: it held that much, maybe between two samples).
 */
void prof_host_note_peak(struct prof_host *h, uint64_t rss);

/* Read the host and the tree at time_ns into s, and count it for the summary. */
void prof_host_sample(struct prof_host *h, uint64_t time_ns, struct prof_host_sample *s);

/* The profgpu-host row of s ("time_ns\t...\n") into buf; returns its length. */
size_t prof_host_row(const struct prof_host_sample *s, char *buf, size_t n);

/*
 * Evaluate alert a (gpu.h) on a host sample: 1 when it holds, 0 when
 * not, -1 for a GPU metric or a value the sample lacks. *value gets the
 * compared value.
 */
struct prof_gpu_alert;
int prof_host_alert_eval(const struct prof_gpu_alert *a, const struct prof_host_sample *s,
			 double *value);

/* The summary on stderr: samples, peak RSS, CPU mean and maximum, hottest zone. */
void prof_host_report(const struct prof_host *h);

void prof_host_release(struct prof_host *h);

/*
 * Nonzero if pid is root, self or a descendant of root or of self
 * (following parents in /proc). Orphans of the command are reparented
 * to self when profgpu is a child subreaper.
 */
int prof_gpu_pid_in_tree(pid_t pid, pid_t root, pid_t self);

#endif
