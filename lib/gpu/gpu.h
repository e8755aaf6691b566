#ifndef PROF_GPU_H
#define PROF_GPU_H
/*
 * GPU sampling for profgpu: one device interface over three backends,
 * the arithmetic done on the samples (summary, energy, throttle time),
 * the --alert expressions, and the sampling loop (sampler.h).
 *
 * Files, and which way they depend on each other (never back):
 *   gpu.c        the device set, sample dispatch, TSV rows: the generic
 *                layer; it knows backends only through struct
 *                prof_gpu_backend.
 *   stats.c      summary arithmetic and alerts (uses gpu.c's formatting).
 *   nvml.c       NVIDIA through NVML, dlopen()ed at run time
 *                (libnvidia-ml.so.1, or $PROFGPU_NVML_LIB); no build-time
 *                dependency: the few structs used are declared there.
 *   amdgpu.c     AMD through the amdgpu sysfs files under
 *                $PROFGPU_SYSFS_ROOT (default /sys).
 *   tegra.c      NVIDIA Jetson through tegrastats(1) output lines, read
 *                from a tegrastats child or from a file.
 *   discover.c   finds the devices: calls the three backends above.
 *   sampler.c    the sampling loop (sampler.h): drives any device
 *                through its backend's operations, writes rows.
 * The backends call gpu.c (prof_gpu_set_add, prof_gpu_sysfs_root);
 * discover.c and sampler.c sit on top; gpu.c and stats.c call no
 * backend.
 *
 * A struct prof_gpu_set owns every device found; devices are numbered in
 * the order found (NVML first, then amdgpu cards by card number, then the
 * Jetson GPU). Polled devices (NVML, amdgpu) are read on demand with
 * prof_gpu_sample(); push devices (tegrastats) deliver samples when their
 * input has some: the caller waits on the backend's wait_fd, then calls
 * read and next (prof_gpu_push_*).
 *
 * Nothing here allocates per sample: samples are plain structs and rows
 * are formatted into caller buffers. Per-process buffers are allocated
 * when a device is opened and grown only when the driver reports more
 * processes than ever before.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct prof_buf;

/* Which fields of a sample hold a value (a clear bit: empty TSV cell). */
enum {
	PROF_GPU_HAVE_UTIL = 1u << 0,
	PROF_GPU_HAVE_MEM_UTIL = 1u << 1,
	PROF_GPU_HAVE_MEM_USED = 1u << 2,
	PROF_GPU_HAVE_MEM_TOTAL = 1u << 3,
	PROF_GPU_HAVE_TEMP = 1u << 4,
	PROF_GPU_HAVE_POWER = 1u << 5,
	PROF_GPU_HAVE_ENERGY = 1u << 6,
	PROF_GPU_HAVE_SM_CLOCK = 1u << 7,
	PROF_GPU_HAVE_MEM_CLOCK = 1u << 8,
	PROF_GPU_HAVE_PCIE_RX = 1u << 9,
	PROF_GPU_HAVE_PCIE_TX = 1u << 10,
	PROF_GPU_HAVE_THROTTLE = 1u << 11,
};

/*
 * Throttle (NVML: "clocks event") reasons, with NVML's bit values; the
 * TSV names them (prof_gpu_throttle_names). "Throttled" time counts the
 * reasons in PROF_GPU_THROTTLE_LIMITING: an idle GPU or clocks pinned by
 * the application or display settings are not throttling.
 */
enum {
	PROF_GPU_THR_GPU_IDLE = 0x1,
	PROF_GPU_THR_APP_CLOCKS = 0x2,
	PROF_GPU_THR_SW_POWER_CAP = 0x4,
	PROF_GPU_THR_HW_SLOWDOWN = 0x8,
	PROF_GPU_THR_SYNC_BOOST = 0x10,
	PROF_GPU_THR_SW_THERMAL = 0x20,
	PROF_GPU_THR_HW_THERMAL = 0x40,
	PROF_GPU_THR_HW_POWER_BRAKE = 0x80,
	PROF_GPU_THR_DISPLAY_CLOCKS = 0x100,
};
#define PROF_GPU_THROTTLE_NREASONS 9
#define PROF_GPU_THROTTLE_LIMITING                                             \
	(PROF_GPU_THR_SW_POWER_CAP | PROF_GPU_THR_HW_SLOWDOWN |                \
	 PROF_GPU_THR_SYNC_BOOST | PROF_GPU_THR_SW_THERMAL |                   \
	 PROF_GPU_THR_HW_THERMAL | PROF_GPU_THR_HW_POWER_BRAKE)

/* The name of throttle bit 1 << i ("gpu_idle", "sw_power_cap", ...). */
extern const char *const prof_gpu_throttle_names[PROF_GPU_THROTTLE_NREASONS];

/* One reading of one GPU. */
struct prof_gpu_sample {
	uint64_t time_ns;	/* since sampling started */
	unsigned have;		/* PROF_GPU_HAVE_* */
	double util_pct;	/* GPU busy */
	double mem_util_pct;	/* memory controller busy */
	uint64_t mem_used;	/* bytes */
	uint64_t mem_total;	/* bytes */
	double temp_c;
	double power_w;
	/*
	 * From a backend: an energy counter reading in joules (any origin).
	 * After prof_gpu_stats_add(): joules since the first sample.
	 */
	double energy_j;
	uint64_t sm_clock_mhz;
	uint64_t mem_clock_mhz;
	uint64_t pcie_rx;	/* bytes per second */
	uint64_t pcie_tx;
	uint64_t throttle;	/* PROF_GPU_THR_* */
};

/* One process using a GPU. */
struct prof_gpu_proc {
	uint32_t pid;
	unsigned have;		/* PROF_GPU_HAVE_MEM_USED, _UTIL, _MEM_UTIL */
	uint64_t mem_used;	/* bytes */
	double sm_util_pct;
	double mem_util_pct;
};

struct prof_gpu_dev;

/*
 * What a backend provides for each of its devices. A polled backend
 * has sample (and maybe processes); a push backend has wait_fd, read
 * and next instead, and sample NULL.
 */
struct prof_gpu_backend {
	const char *name;	/* "nvml", "amdgpu", "tegrastats" */
	/*
	 * Polled devices: read the device into s (time_ns is the
	 * caller's). Returns 0, or PROF_GPU_LOST when the device is gone
	 * (the caller reports it once and stops sampling it).
	 */
	int (*sample)(struct prof_gpu_dev *d, struct prof_gpu_sample *s);
	/*
	 * The processes using the device, at most max into out; returns the
	 * number stored, -1 when the backend cannot list processes, or
	 * PROF_GPU_LOST. May be NULL (no process information).
	 */
	int (*processes)(struct prof_gpu_dev *d, struct prof_gpu_proc *out, size_t max);
	/* Push devices: the descriptor to poll for input (-1: none). */
	int (*wait_fd)(const struct prof_gpu_dev *d);
	/*
	 * Push devices: read what the input has once (blocking only if the
	 * descriptor blocks). Returns the bytes read, 0 at end of input,
	 * -1 on a read error (reported) or when the input was unusable
	 * (an overlong line, reported and dropped).
	 */
	long (*read)(struct prof_gpu_dev *d);
	/*
	 * Push devices: the next sample already read into s, with s->time_ns
	 * 0. When the input stamps its samples, *stamp_s gets the stamp
	 * (seconds since the epoch) and *have_stamp is set, else
	 * *have_stamp is 0. At end of input a last unterminated record
	 * counts. Malformed input is reported ("prog: label:line: ...") and
	 * skipped. Returns 1 for a sample, 0 when none is buffered.
	 */
	int (*next)(struct prof_gpu_dev *d, struct prof_gpu_sample *s, int64_t *stamp_s,
		    int *have_stamp);
	/* Push devices: input records skipped as malformed so far (may be NULL). */
	unsigned long (*bad_input)(const struct prof_gpu_dev *d);
	/* Release the device's private state (may be NULL). */
	void (*release)(struct prof_gpu_dev *d);
};

#define PROF_GPU_LOST (-2)

struct prof_gpu_dev {
	unsigned index;			/* position in the set */
	const struct prof_gpu_backend *backend;
	char name[128];			/* "NVIDIA A100-SXM4-40GB" */
	char uuid[128];			/* may be empty */
	int lost;			/* set by the caller after PROF_GPU_LOST */
	/*
	 * Push devices: 1 when fed live (a child's pipe), so a sample's time
	 * is its arrival; 0 for a recording (a file), whose samples are
	 * timed by their stamps, else one interval apart.
	 */
	int live;
	/*
	 * A helper process the backend runs for the device (the tegrastats
	 * child), 0 if none. Whoever reaps it sets 0
	 * (prof_gpu_set_reaped); the backend's release stops it if still set.
	 */
	pid_t helper_pid;
	void *priv;			/* the backend's */
};

struct prof_gpu_set {
	struct prof_gpu_dev *devs;
	size_t ndevs, cap;
};

#define PROF_GPU_SET_INIT { 0 }

/* Append a device (name and uuid copied, truncated to fit); returns it. */
struct prof_gpu_dev *prof_gpu_set_add(struct prof_gpu_set *set,
				      const struct prof_gpu_backend *be,
				      const char *name, const char *uuid, void *priv);

/* Release every device (its backend's release); set is empty and reusable. */
void prof_gpu_set_release(struct prof_gpu_set *set);

/*
 * pid, just reaped by the caller, was a device's helper process: forget
 * it (so that release does not signal a pid that may be reused).
 * Returns 1 if it was one, else 0.
 */
int prof_gpu_set_reaped(struct prof_gpu_set *set, pid_t pid);

/* The sysfs root in use: $PROFGPU_SYSFS_ROOT or "/sys". */
const char *prof_gpu_sysfs_root(void);

/* Nonzero for a push device (its backend has next), 0 for a polled one. */
static inline int prof_gpu_is_push(const struct prof_gpu_dev *d)
{
	return d->backend->next != NULL;
}

/*
 * Sample one polled device; stamps s->time_ns = time_ns. Returns 0 or
 * PROF_GPU_LOST (see struct prof_gpu_backend). Never call it for a push
 * device or a lost one.
 */
int prof_gpu_sample(struct prof_gpu_dev *d, uint64_t time_ns, struct prof_gpu_sample *s);

/* The push operations of d's backend (d must be a push device). */
int prof_gpu_push_fd(const struct prof_gpu_dev *d);
long prof_gpu_push_read(struct prof_gpu_dev *d);
int prof_gpu_push_next(struct prof_gpu_dev *d, struct prof_gpu_sample *s, int64_t *stamp_s,
		       int *have_stamp);

/* Malformed input records d skipped (0 for a backend that never skips). */
unsigned long prof_gpu_bad_input(const struct prof_gpu_dev *d);

/* ---- backends ---- */

/*
 * Load NVML from libpath (NULL: $PROFGPU_NVML_LIB, else
 * "libnvidia-ml.so.1"), initialise it and add its GPUs; the library
 * stays loaded until the last of them is released. The driver version
 * is copied into driver (size n; "" if NVML does not say). Returns the
 * number added; 0 with a short reason appended to why ("cannot load
 * libnvidia-ml.so.1", "nvmlInit: Driver Not Loaded", "no devices").
 */
int prof_gpu_nvml_open(struct prof_gpu_set *set, const char *libpath, char *driver, size_t n,
		       struct prof_buf *why);

/*
 * Add the amdgpu cards found under root/class/drm (root NULL:
 * $PROFGPU_SYSFS_ROOT, else "/sys"). Returns the number added; 0 with a
 * reason appended to why.
 */
int prof_gpu_amdgpu_open(struct prof_gpu_set *set, const char *root, struct prof_buf *why);

/*
 * Parse one tegrastats line into s (time_ns untouched): GR3D_FREQ N%[@MHz
 * or @[MHz,...]] -> util and SM clock, EMC_FREQ N%[@MHz] -> memory
 * controller util and memory clock, RAM USED/TOTALMB -> memory (MiB; the
 * GPU shares system memory), GPU@T C or gpu@TC -> temperature, the first
 * power rail whose name contains "GPU" (VDD_GPU_SOC, VDD_CPU_GPU_CV,
 * POM_5V_GPU, VDD_SYS_GPU) "NOW/AVG" in mW -> power. A leading
 * "MM-DD-YYYY HH:MM:SS" timestamp is stored in *stamp_s (seconds since
 * the epoch, UTC) and *have_stamp set; otherwise *have_stamp is 0.
 * Returns 0, or -1 when the line holds neither RAM nor GR3D_FREQ.
 */
int prof_gpu_tegra_parse(const char *line, size_t len, struct prof_gpu_sample *s,
			 int64_t *stamp_s, int *have_stamp);

/*
 * Nonzero when the device tree under root says this is a Jetson
 * (root/firmware/devicetree/base/compatible holds "nvidia,tegra"); copies
 * the board model into model (or "NVIDIA Tegra").
 */
int prof_gpu_tegra_detect(const char *root, char *model, size_t n);

/*
 * Add the Jetson GPU as a push device fed from fd (a recording of
 * tegrastats lines: a file or a pipe; -1 for a device only listed),
 * named name; label is the input's name for diagnostics ("<stdin>", a
 * path). The set owns fd and closes it. Returns the device.
 */
struct prof_gpu_dev *prof_gpu_tegra_open(struct prof_gpu_set *set, int fd, const char *name,
					 const char *label);

/*
 * Start "tegrastats --interval MS" (interval_ns rounded down to ms, at
 * least 1) and add the Jetson GPU, named name, fed live from its
 * stdout. The device owns the child (helper_pid) and stops it when
 * released. Returns the device, or NULL after reporting why.
 */
struct prof_gpu_dev *prof_gpu_tegra_spawn(struct prof_gpu_set *set, uint64_t interval_ns,
					  const char *name);

/* ---- discovery (discover.c) ---- */

/* Backends, as a mask. */
enum {
	PROF_GPU_BE_NVML = 1,
	PROF_GPU_BE_AMDGPU = 2,
	PROF_GPU_BE_TEGRA = 4,
	PROF_GPU_BE_ALL = 7,
};

/*
 * The backend mask of a comma-separated list of nvml, amdgpu,
 * tegrastats, all (or auto). Returns 0; -1 with the unknown name
 * copied into bad (size n); -2 when the list names no backend.
 */
int prof_gpu_backends_parse(const char *list, unsigned *mask, char *bad, size_t n);

struct prof_gpu_discovery {
	unsigned backends;		/* PROF_GPU_BE_* to try */
	/*
	 * A file of tegrastats lines ("-": stdin) replayed as the only
	 * device: no other backend is tried. NULL: none.
	 */
	const char *tegrastats_input;
	uint64_t interval_ns;		/* for a tegrastats child */
	int spawn;			/* start tegrastats (0: list it only) */
};

/*
 * Add the devices of the backends in o to set. What each backend found,
 * or why not, is appended to status ("nvml: 2 GPUs (driver 550.54.14);
 * amdgpu: no amdgpu card under /sys/class/drm; tegrastats: not a
 * Jetson"). On a Jetson with NVML, tegrastats is not used (NVML lists
 * its GPU). Returns 0, or -1 with errno set when tegrastats_input cannot
 * be opened (nothing is reported).
 */
int prof_gpu_discover(struct prof_gpu_set *set, const struct prof_gpu_discovery *o,
		      struct prof_buf *status);

/*
 * profgpu -l: discover with o (no tegrastats started) and print each
 * GPU as "index TAB backend TAB name TAB uuid"; none found is said with
 * why. Returns the exit status: 0, or 1 when no GPU was found or
 * standard output failed.
 */
int prof_gpu_list(struct prof_gpu_discovery *o);

/* ---- rows (gpu.c) ---- */

/*
 * Format a "profgpu-timeline" row (prof-formats.5) for d and s into buf
 * (size n), newline included; missing metrics are empty cells. Returns
 * the length (truncated rows are cut at n - 1; 1024 bytes always fit).
 */
size_t prof_gpu_format_row(char *buf, size_t n, const struct prof_gpu_dev *d,
			   const struct prof_gpu_sample *s);

/*
 * Format a "profgpu-processes" row: time, gpu index, pid, comm, memory,
 * SM and memory utilisation. Returns the length.
 */
size_t prof_gpu_format_proc_row(char *buf, size_t n, uint64_t time_ns, unsigned gpu,
				const struct prof_gpu_proc *p, const char *comm);

/*
 * Format the throttle reasons of mask as "name,name" into buf ("none"
 * for 0). Returns the length.
 */
size_t prof_gpu_format_throttle(char *buf, size_t n, uint64_t mask);

/*
 * Format v with at most decimals digits after the point, trailing zeros
 * and point removed ("60.5", "70", "-0" printed as "0"). Returns length.
 */
size_t prof_gpu_format_num(char *buf, size_t n, double v, int decimals);

/* ---- summary arithmetic (gpu_stats.c) ---- */

enum prof_gpu_energy_source {
	PROF_GPU_ENERGY_NONE,		/* not decided or nothing to go on */
	PROF_GPU_ENERGY_COUNTER,	/* the driver's energy counter */
	PROF_GPU_ENERGY_POWER,		/* trapezoid integral of power */
};

/* Running totals over the samples of one GPU. Zeroed = empty. */
struct prof_gpu_stats {
	unsigned long samples;
	uint64_t first_ns, last_ns;
	double util_sum, util_max;
	unsigned long util_n;
	uint64_t mem_max;
	uint64_t mem_total;		/* the last one reported */
	int have_mem;
	double power_sum, power_max;
	unsigned long power_n;
	double temp_max;
	int have_temp;
	enum prof_gpu_energy_source energy_source;
	double energy_base;		/* counter at the first sample */
	double energy_j;		/* since the first sample */
	double counter_j;		/* energy_j at the last counter reading */
	int have_energy;
	double prev_power;
	int prev_have_power;
	int have_throttle;
	double throttled_s;
	double reason_s[PROF_GPU_THROTTLE_NREASONS];
};

/*
 * Add sample s (in time order) to st and rewrite s->energy_j as energy
 * since the first sample: counter difference when the first sample
 * carried an energy counter, else the trapezoid integral of power (an
 * interval with power unknown at either end adds nothing; the energy
 * cell is empty while power is unknown). A backend may read a costly
 * counter less often than it samples: a sample without it then adds
 * the power integral to the last counter reading, and the next reading
 * sets the total right again. The throttle state of a sample
 * covers the interval since the previous sample.
 */
void prof_gpu_stats_add(struct prof_gpu_stats *st, struct prof_gpu_sample *s);

/* Format a "profgpu-summary" row for device d. Returns the length. */
size_t prof_gpu_format_summary(char *buf, size_t n, const struct prof_gpu_dev *d,
			       const struct prof_gpu_stats *st);

/* The human summary of one GPU, a few lines appended to out. */
void prof_gpu_summary_text(struct prof_buf *out, const struct prof_gpu_dev *d,
			   const struct prof_gpu_stats *st);

/* ---- alerts (gpu_stats.c) ---- */

enum prof_gpu_metric {
	PROF_GPU_M_UTIL, PROF_GPU_M_MEM_UTIL, PROF_GPU_M_MEM, PROF_GPU_M_TEMP,
	PROF_GPU_M_POWER, PROF_GPU_M_ENERGY, PROF_GPU_M_SM_CLOCK,
	PROF_GPU_M_MEM_CLOCK,
	/* The host monitor's (host.h); temp is also the hottest thermal zone. */
	PROF_GPU_M_RSS, PROF_GPU_M_SWAP, PROF_GPU_M_CPU, PROF_GPU_M_HOST_CPU,
	PROF_GPU_M_THREADS,
};

/* "temp>85", "mem>95%", "mem>=20GiB", "util<10", "power>250W". */
struct prof_gpu_alert {
	char text[64];		/* the expression as given (truncated) */
	enum prof_gpu_metric metric;
	int op;			/* '>', '<', 'G' (>=), 'L' (<=) */
	double value;
	int percent;		/* mem only: value is % of total memory */
};

/*
 * Whether only a GPU can judge alert a: a GPU metric, temp included
 * unless the host monitor runs (host nonzero: its hottest zone is temp).
 */
int prof_gpu_alert_needs_gpu(const struct prof_gpu_alert *a, int host);

/*
 * Parse an alert expression METRIC OP VALUE[UNIT]: GPU metrics util,
 * mem_util, mem, temp, power, energy, sm_clock, mem_clock; host monitor
 * metrics (host.h) rss, swap (the command's tree), cpu (the tree, % of
 * one core), host_cpu (% of all cores), threads, and temp (the hottest
 * thermal zone). OP one of > >= < <=; units: % (util, mem_util, cpu,
 * host_cpu; for mem: percent of total), a size suffix for mem, rss and
 * swap (K, M, G, KiB ...: bytes), C for temp, W for power, J for energy,
 * MHz for clocks. Returns 0, or -1 with the reason written into err
 * (size n).
 */
int prof_gpu_alert_parse(const char *text, struct prof_gpu_alert *a, char *err, size_t n);

/* a's comparison applied to v: 1 when it holds, else 0. */
int prof_gpu_alert_compare(const struct prof_gpu_alert *a, double v);

/*
 * Evaluate a on s: 1 when the condition holds, 0 when not, -1 when the
 * sample lacks the metric. *value gets the compared value.
 */
int prof_gpu_alert_eval(const struct prof_gpu_alert *a, const struct prof_gpu_sample *s,
			double *value);

#endif
