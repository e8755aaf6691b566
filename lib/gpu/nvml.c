/*
 * NVIDIA GPUs through NVML, loaded with dlopen() at run time (gpu.h).
 *
 * Nothing from the CUDA toolkit is needed to build: the handful of NVML
 * types used are declared below with the layouts of the public nvml.h.
 * Every function is looked up with dlsym(); the newest version of a
 * versioned entry point is preferred and older ones are the fallback. A
 * metric whose function is missing or returns NVML_ERROR_NOT_SUPPORTED
 * is an empty cell from then on; other errors leave the cell empty for
 * that sample and are reported once per metric; NVML_ERROR_GPU_IS_LOST
 * ends the device.
 *
 * Cost: most calls take a few tens of microseconds, but on a real H100
 * (driver 580) nvmlDeviceGetTotalEnergyConsumption took 3.6 ms of CPU a
 * call (a GSP RPC) and nvmlDeviceGetPcieThroughput 1 ms of CPU and 20 ms
 * of waiting per direction: asked every 100 ms they made profgpu cost
 * 18 times what nvidia-smi does. So the first call of each of those is
 * timed, and one that proves slow (NV_SLOW_CPU_NS of CPU or
 * NV_SLOW_WALL_NS of waiting) is asked again only after a period that
 * keeps it within a small share of one core (NV_CPU_SHARE) and of the
 * time (NV_WALL_SHARE): energy about every 18 s (the rows in between add
 * the power integral to the last reading, stats.c), PCIe throughput about
 * every 10 s (the cells in between are empty).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "base/buf.h"
#include "base/error.h"
#include "base/units.h"
#include "base/xalloc.h"
#include "gpu/gpu.h"

/* nvmlReturn_t values used here. */
enum {
	NV_SUCCESS = 0,
	NV_ERROR_NOT_SUPPORTED = 3,
	NV_ERROR_NOT_FOUND = 6,
	NV_ERROR_INSUFFICIENT_SIZE = 7,
	NV_ERROR_FUNCTION_NOT_FOUND = 13,
	NV_ERROR_GPU_IS_LOST = 15,
	NV_ERROR_NO_DATA = 21,
	NV_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
};

enum { NV_TEMPERATURE_GPU = 0 };
enum { NV_CLOCK_SM = 1, NV_CLOCK_MEM = 2 };
enum { NV_PCIE_TX_BYTES = 0, NV_PCIE_RX_BYTES = 1 };

typedef int nvret;
typedef void *nvdev;

struct nv_utilization {		/* nvmlUtilization_t */
	unsigned int gpu, memory;
};

struct nv_memory_v1 {		/* nvmlMemory_t */
	unsigned long long total, free, used;
};

struct nv_memory_v2 {		/* nvmlMemory_v2_t */
	unsigned int version;
	unsigned long long total, reserved, free, used;
};
#define NV_MEMORY_V2_VERSION ((unsigned int)(sizeof(struct nv_memory_v2) | (2u << 24)))

/*
 * Process entries. The entry size depends on the entry point and, for
 * _v3, on the driver: 535.43 to 535.86 shipped a 32-byte nvmlProcessInfo_t
 * (an extra usedGpuCcProtectedMemory); everything else uses 24 bytes
 * (_v2, _v3) or 16 (the unversioned call). All begin {pid, usedGpuMemory}.
 */
struct nv_process_head {
	unsigned int pid;
	unsigned long long used_gpu_memory;
};
#define NV_PROC_V1_SIZE 16
#define NV_PROC_V2_SIZE 24
#define NV_PROC_CC_SIZE 32
#define NV_VALUE_NOT_AVAILABLE 0xffffffffffffffffull

struct nv_process_util {	/* nvmlProcessUtilizationSample_t */
	unsigned int pid;
	unsigned long long time_stamp;
	unsigned int sm_util, mem_util, enc_util, dec_util;
};

typedef nvret (*nv_void_fn)(void);
typedef const char *(*nv_errstr_fn)(nvret);
typedef nvret (*nv_count_fn)(unsigned int *);
typedef nvret (*nv_handle_fn)(unsigned int, nvdev *);
typedef nvret (*nv_str_fn)(nvdev, char *, unsigned int);
typedef nvret (*nv_sysstr_fn)(char *, unsigned int);
typedef nvret (*nv_util_fn)(nvdev, struct nv_utilization *);
typedef nvret (*nv_mem_fn)(nvdev, void *);
typedef nvret (*nv_temp_fn)(nvdev, int, unsigned int *);
typedef nvret (*nv_uint_fn)(nvdev, unsigned int *);
typedef nvret (*nv_ull_fn)(nvdev, unsigned long long *);
typedef nvret (*nv_clock_fn)(nvdev, int, unsigned int *);
typedef nvret (*nv_procs_fn)(nvdev, unsigned int *, void *);
typedef nvret (*nv_putil_fn)(nvdev, struct nv_process_util *, unsigned int *,
			     unsigned long long);

/* The loaded library, shared by its devices; the last one released unloads it. */
struct nvml_lib {
	void *lib;
	unsigned refs;			/* devices using it */
	nv_void_fn shutdown;
	nv_errstr_fn error_string;
	nv_str_fn get_name, get_uuid;
	nv_util_fn get_utilization;
	nv_mem_fn get_memory_v2, get_memory_v1;
	nv_temp_fn get_temperature;
	nv_uint_fn get_power;
	nv_ull_fn get_energy;
	nv_clock_fn get_clock;
	nv_clock_fn get_pcie;
	nv_ull_fn get_throttle;
	const char *throttle_fn_name;
	nv_procs_fn compute_procs, graphics_procs;
	const char *compute_name, *graphics_name;
	size_t proc_size;
	nv_putil_fn get_process_util;
};

/* Private metric bits beyond the PROF_GPU_HAVE_* ones. */
enum {
	NVM_PROCS = 1u << 20,
	NVM_PROC_UTIL = 1u << 21,
	NVM_MEM_V2 = 1u << 22,
};

/*
 * A process's latest utilisation sample from the driver, held: the driver
 * takes one about every 200 ms and nvmlDeviceGetProcessUtilization gives
 * only those newer than the last time stamp seen, so a caller polling
 * every 100 ms gets nothing every other time while the process is busy.
 */
struct nv_held_util {
	unsigned int pid;
	unsigned int sm, mem;
	unsigned long long stamp;	/* the driver's */
	uint64_t got_ns;		/* prof_now_ns() when it came */
};
/* How long a held sample stands for the process (5 of the driver's periods). */
#define NV_HOLD_NS 1000000000ull

/* A call timed once, then asked at most every every_ns if it proved slow. */
struct nv_slow {
	int timed;
	uint64_t every_ns, next_ns;	/* in sample time (since the first sample) */
};
#define NV_SLOW_CPU_NS 500000ull	/* 0.5 ms of CPU a call is slow */
#define NV_SLOW_WALL_NS 5000000ull	/* and so is 5 ms of waiting */
#define NV_CPU_SHARE 5000		/* a slow call: 1/5000 of a core (0.02 %) */
#define NV_WALL_SHARE 500		/* and 1/500 of the time spent waiting */

struct nvml_dev {
	struct nvml_lib *nv;
	nvdev h;
	unsigned unsupported;	/* metrics never to ask for again */
	unsigned warned;	/* metrics whose error was reported */
	unsigned char *procbuf;	/* raw process entries */
	unsigned int proccap;	/* entries procbuf holds */
	struct nv_process_util *ubuf;
	unsigned int ucap;
	unsigned long long last_seen;
	struct nv_held_util *held;
	size_t nheld, held_cap;
	struct nv_slow energy, pcie_rx, pcie_tx;
	int said_no_util, said_no_mem;	/* told once on stderr */
};

static const char *nv_strerror(const struct nvml_lib *nv, nvret r)
{
	static char tmp[32];
	const char *s = nv->error_string ? nv->error_string(r) : NULL;

	if (s)
		return s;
	snprintf(tmp, sizeof(tmp), "NVML error %d", r);
	return tmp;
}

/*
 * Classify the result of one metric call: 1 value valid, 0 empty cell,
 * PROF_GPU_LOST the GPU is gone.
 */
static int nv_result(struct prof_gpu_dev *d, unsigned metric, const char *fn, nvret r)
{
	struct nvml_dev *nd = d->priv;

	if (r == NV_SUCCESS)
		return 1;
	if (r == NV_ERROR_GPU_IS_LOST)
		return PROF_GPU_LOST;
	if (r == NV_ERROR_NOT_SUPPORTED || r == NV_ERROR_FUNCTION_NOT_FOUND) {
		nd->unsupported |= metric;
		return 0;
	}
	if (r == NV_ERROR_NO_DATA || r == NV_ERROR_NOT_FOUND)
		return 0;
	if (!(nd->warned & metric)) {
		nd->warned |= metric;
		prof_warn("gpu %u: %s: %s", d->index, fn, nv_strerror(nd->nv, r));
	}
	return 0;
}

#define NV_WANT(nd, m) (!((nd)->unsupported & (m)))

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Whether a slow call is due at sample time t. */
static int nv_due(const struct nv_slow *w, uint64_t t)
{
	return !w->timed || t >= w->next_ns;
}

/* Before a call that may be slow: its start (CPU, wall) when it is to be timed. */
static void nv_slow_begin(const struct nv_slow *w, uint64_t start[2])
{
	if (!w->timed) {
		start[0] = thread_cpu_ns();
		start[1] = prof_now_ns();
	}
}

/* After it: the first time, its period from what it cost; then the next time due. */
static void nv_slow_end(struct nv_slow *w, const uint64_t start[2], uint64_t t)
{
	if (!w->timed) {
		uint64_t cpu = thread_cpu_ns() - start[0], wall = prof_now_ns() - start[1];

		w->timed = 1;
		if (cpu >= NV_SLOW_CPU_NS || wall >= NV_SLOW_WALL_NS)
			w->every_ns = cpu * NV_CPU_SHARE > wall * NV_WALL_SHARE ?
				      cpu * NV_CPU_SHARE : wall * NV_WALL_SHARE;
	}
	w->next_ns = t + w->every_ns;
}

#define NV_CHECK(d, m, fn, call)                                               \
	({                                                                     \
		int nv_ok_ = nv_result((d), (m), (fn), (call));                \
		if (nv_ok_ == PROF_GPU_LOST)                                   \
			return PROF_GPU_LOST;                                  \
		nv_ok_;                                                        \
	})

static int nv_sample(struct prof_gpu_dev *d, struct prof_gpu_sample *s)
{
	struct nvml_dev *nd = d->priv;
	struct nvml_lib *nv = nd->nv;
	unsigned int u;
	unsigned long long ull;
	uint64_t t[2] = { 0, 0 };
	nvret r;

	if (NV_WANT(nd, PROF_GPU_HAVE_UTIL)) {
		struct nv_utilization ut;

		if (NV_CHECK(d, PROF_GPU_HAVE_UTIL, "nvmlDeviceGetUtilizationRates",
			     nv->get_utilization(nd->h, &ut))) {
			s->util_pct = ut.gpu;
			s->mem_util_pct = ut.memory;
			s->have |= PROF_GPU_HAVE_UTIL | PROF_GPU_HAVE_MEM_UTIL;
		}
	}
	if (NV_WANT(nd, NVM_MEM_V2)) {
		struct nv_memory_v2 m2;

		memset(&m2, 0, sizeof(m2));
		m2.version = NV_MEMORY_V2_VERSION;
		r = nv->get_memory_v2(nd->h, &m2);
		if (r == NV_ERROR_ARGUMENT_VERSION_MISMATCH || r == NV_ERROR_FUNCTION_NOT_FOUND ||
		    r == NV_ERROR_NOT_SUPPORTED) {
			nd->unsupported |= NVM_MEM_V2;	/* the v1 call from now on */
		} else if (NV_CHECK(d, PROF_GPU_HAVE_MEM_USED, "nvmlDeviceGetMemoryInfo_v2", r)) {
			s->mem_used = m2.used;
			s->mem_total = m2.total;
			s->have |= PROF_GPU_HAVE_MEM_USED | PROF_GPU_HAVE_MEM_TOTAL;
		}
	}
	if (!NV_WANT(nd, NVM_MEM_V2) && NV_WANT(nd, PROF_GPU_HAVE_MEM_USED)) {
		struct nv_memory_v1 m1;

		if (NV_CHECK(d, PROF_GPU_HAVE_MEM_USED, "nvmlDeviceGetMemoryInfo",
			     nv->get_memory_v1(nd->h, &m1))) {
			s->mem_used = m1.used;
			s->mem_total = m1.total;
			s->have |= PROF_GPU_HAVE_MEM_USED | PROF_GPU_HAVE_MEM_TOTAL;
		}
	}
	if (NV_WANT(nd, PROF_GPU_HAVE_TEMP) &&
	    NV_CHECK(d, PROF_GPU_HAVE_TEMP, "nvmlDeviceGetTemperature",
		     nv->get_temperature(nd->h, NV_TEMPERATURE_GPU, &u))) {
		s->temp_c = u;
		s->have |= PROF_GPU_HAVE_TEMP;
	}
	if (NV_WANT(nd, PROF_GPU_HAVE_POWER) &&
	    NV_CHECK(d, PROF_GPU_HAVE_POWER, "nvmlDeviceGetPowerUsage",
		     nv->get_power(nd->h, &u))) {
		s->power_w = u / 1000.0;
		s->have |= PROF_GPU_HAVE_POWER;
	}
	if (NV_WANT(nd, PROF_GPU_HAVE_ENERGY) && nv_due(&nd->energy, s->time_ns)) {
		nv_slow_begin(&nd->energy, t);
		r = nv->get_energy(nd->h, &ull);
		nv_slow_end(&nd->energy, t, s->time_ns);
		if (NV_CHECK(d, PROF_GPU_HAVE_ENERGY, "nvmlDeviceGetTotalEnergyConsumption", r)) {
			s->energy_j = ull / 1000.0;
			s->have |= PROF_GPU_HAVE_ENERGY;
		}
	}
	if (NV_WANT(nd, PROF_GPU_HAVE_SM_CLOCK) &&
	    NV_CHECK(d, PROF_GPU_HAVE_SM_CLOCK, "nvmlDeviceGetClockInfo",
		     nv->get_clock(nd->h, NV_CLOCK_SM, &u))) {
		s->sm_clock_mhz = u;
		s->have |= PROF_GPU_HAVE_SM_CLOCK;
	}
	if (NV_WANT(nd, PROF_GPU_HAVE_MEM_CLOCK) &&
	    NV_CHECK(d, PROF_GPU_HAVE_MEM_CLOCK, "nvmlDeviceGetClockInfo",
		     nv->get_clock(nd->h, NV_CLOCK_MEM, &u))) {
		s->mem_clock_mhz = u;
		s->have |= PROF_GPU_HAVE_MEM_CLOCK;
	}
	/* KB/s, 1 KB = 1024 bytes. */
	if (NV_WANT(nd, PROF_GPU_HAVE_PCIE_RX) && nv_due(&nd->pcie_rx, s->time_ns)) {
		nv_slow_begin(&nd->pcie_rx, t);
		r = nv->get_pcie(nd->h, NV_PCIE_RX_BYTES, &u);
		nv_slow_end(&nd->pcie_rx, t, s->time_ns);
		if (NV_CHECK(d, PROF_GPU_HAVE_PCIE_RX, "nvmlDeviceGetPcieThroughput", r)) {
			s->pcie_rx = (uint64_t)u * 1024;
			s->have |= PROF_GPU_HAVE_PCIE_RX;
		}
	}
	if (NV_WANT(nd, PROF_GPU_HAVE_PCIE_TX) && nv_due(&nd->pcie_tx, s->time_ns)) {
		nv_slow_begin(&nd->pcie_tx, t);
		r = nv->get_pcie(nd->h, NV_PCIE_TX_BYTES, &u);
		nv_slow_end(&nd->pcie_tx, t, s->time_ns);
		if (NV_CHECK(d, PROF_GPU_HAVE_PCIE_TX, "nvmlDeviceGetPcieThroughput", r)) {
			s->pcie_tx = (uint64_t)u * 1024;
			s->have |= PROF_GPU_HAVE_PCIE_TX;
		}
	}
	if (NV_WANT(nd, PROF_GPU_HAVE_THROTTLE) &&
	    NV_CHECK(d, PROF_GPU_HAVE_THROTTLE, nv->throttle_fn_name,
		     nv->get_throttle(nd->h, &ull))) {
		s->throttle = ull;
		s->have |= PROF_GPU_HAVE_THROTTLE;
	}
	return 0;
}

/*
 * Append the entries of one process list to out[0..*n) (merging a pid
 * listed as both compute and graphics process). Returns 0, or
 * PROF_GPU_LOST.
 */
static int nv_proc_list(struct prof_gpu_dev *d, nv_procs_fn fn, const char *fname,
			struct prof_gpu_proc *out, size_t max, size_t *n)
{
	struct nvml_dev *nd = d->priv;
	size_t esize = nd->nv->proc_size;
	unsigned int count;
	nvret r;

	for (int tries = 0;; tries++) {
		count = nd->proccap;
		r = fn(nd->h, &count, nd->procbuf);
		if (r != NV_ERROR_INSUFFICIENT_SIZE || tries == 3)
			break;
		/* Rare: more processes than ever before; grow, with headroom. */
		nd->proccap = count + 16;
		nd->procbuf = xreallocarray(nd->procbuf, nd->proccap, esize);
	}
	if (r == NV_ERROR_GPU_IS_LOST)
		return PROF_GPU_LOST;
	if (r != NV_SUCCESS) {
		nv_result(d, NVM_PROCS, fname, r);
		return 0;
	}
	if (count > nd->proccap)
		count = nd->proccap;
	for (unsigned int i = 0; i < count; i++) {
		struct nv_process_head e;
		size_t j;

		memcpy(&e, nd->procbuf + (size_t)i * esize, sizeof(e));
		for (j = 0; j < *n; j++)
			if (out[j].pid == e.pid)
				break;
		if (j == *n) {
			if (*n == max)
				continue;
			memset(&out[j], 0, sizeof(out[j]));
			out[j].pid = e.pid;
			(*n)++;
		}
		if (e.used_gpu_memory != NV_VALUE_NOT_AVAILABLE) {
			if (!(out[j].have & PROF_GPU_HAVE_MEM_USED) ||
			    e.used_gpu_memory > out[j].mem_used)
				out[j].mem_used = e.used_gpu_memory;
			out[j].have |= PROF_GPU_HAVE_MEM_USED;
		}
	}
	return 0;
}

/* Keep u as pid's latest sample if it is newer than the one held. */
static void nv_hold(struct nvml_dev *nd, const struct nv_process_util *u, uint64_t now)
{
	size_t i;

	for (i = 0; i < nd->nheld; i++)
		if (nd->held[i].pid == u->pid)
			break;
	if (i == nd->nheld) {
		PROF_GROW(nd->held, nd->nheld + 1, nd->held_cap);
		nd->nheld++;
	} else if (nd->held[i].stamp >= u->time_stamp) {
		return;
	}
	nd->held[i] = (struct nv_held_util){ u->pid, u->sm_util, u->mem_util, u->time_stamp, now };
}

/* The newer samples from the driver into the held ones; PROF_GPU_LOST or 0. */
static int nv_fetch_util(struct prof_gpu_dev *d, uint64_t now)
{
	struct nvml_dev *nd = d->priv;
	struct nvml_lib *nv = nd->nv;
	unsigned int count = nd->ucap;
	nvret r = nv->get_process_util(nd->h, nd->ubuf, &count, nd->last_seen);

	if (r == NV_ERROR_INSUFFICIENT_SIZE && count > nd->ucap) {
		nd->ucap = count + 16;
		nd->ubuf = xreallocarray(nd->ubuf, nd->ucap, sizeof(*nd->ubuf));
		count = nd->ucap;
		r = nv->get_process_util(nd->h, nd->ubuf, &count, nd->last_seen);
	}
	if (r == NV_ERROR_GPU_IS_LOST)
		return PROF_GPU_LOST;
	if (r != NV_SUCCESS) {
		/* NOT_FOUND: no sample since the last one, the usual answer. */
		nv_result(d, NVM_PROC_UTIL, "nvmlDeviceGetProcessUtilization", r);
		return 0;
	}
	if (count > nd->ucap)
		count = nd->ucap;
	for (unsigned int i = 0; i < count; i++) {
		if (nd->ubuf[i].time_stamp > nd->last_seen)
			nd->last_seen = nd->ubuf[i].time_stamp;
		nv_hold(nd, &nd->ubuf[i], now);
	}
	return 0;
}

/* Say once when the driver cannot fill a column of the processes at all. */
static void nv_say_missing(struct prof_gpu_dev *d, const struct prof_gpu_proc *out, size_t n)
{
	struct nvml_dev *nd = d->priv;
	int mem = 0;

	if (!nd->said_no_util && (!nd->nv->get_process_util || !NV_WANT(nd, NVM_PROC_UTIL))) {
		nd->said_no_util = 1;
		prof_warn("gpu %u (%s): the driver gives no per-process utilisation "
			  "(nvmlDeviceGetProcessUtilization %s): sm_util_pct and mem_util_pct "
			  "stay empty", d->index, d->name,
			  nd->nv->get_process_util ? "not supported" : "missing");
	}
	for (size_t j = 0; j < n; j++)
		mem |= out[j].have & PROF_GPU_HAVE_MEM_USED;
	if (n && !mem && !nd->said_no_mem) {
		nd->said_no_mem = 1;
		prof_warn("gpu %u (%s): the driver gives no per-process memory (MIG, or no "
			  "permission): mem_used_bytes stays empty", d->index, d->name);
	}
}

static int nv_processes(struct prof_gpu_dev *d, struct prof_gpu_proc *out, size_t max)
{
	struct nvml_dev *nd = d->priv;
	struct nvml_lib *nv = nd->nv;
	uint64_t now = prof_now_ns();
	size_t n = 0, keep = 0;

	if ((!nv->compute_procs && !nv->graphics_procs) || !NV_WANT(nd, NVM_PROCS))
		return -1;
	if (nv->compute_procs &&
	    nv_proc_list(d, nv->compute_procs, nv->compute_name, out, max, &n) == PROF_GPU_LOST)
		return PROF_GPU_LOST;
	if (nv->graphics_procs &&
	    nv_proc_list(d, nv->graphics_procs, nv->graphics_name, out, max, &n) == PROF_GPU_LOST)
		return PROF_GPU_LOST;
	if (n && nv->get_process_util && NV_WANT(nd, NVM_PROC_UTIL) &&
	    nv_fetch_util(d, now) == PROF_GPU_LOST)
		return PROF_GPU_LOST;
	nv_say_missing(d, out, n);
	/* Each process's held sample while it is recent; older ones are dropped. */
	for (size_t i = 0; i < nd->nheld; i++) {
		const struct nv_held_util *h = &nd->held[i];

		if (now - h->got_ns > NV_HOLD_NS)
			continue;
		nd->held[keep++] = *h;
		for (size_t j = 0; j < n; j++) {
			if (out[j].pid != h->pid)
				continue;
			out[j].sm_util_pct = h->sm;
			out[j].mem_util_pct = h->mem;
			out[j].have |= PROF_GPU_HAVE_UTIL | PROF_GPU_HAVE_MEM_UTIL;
		}
	}
	nd->nheld = keep;
	return (int)n;
}

static void nv_unload(struct nvml_lib *nv)
{
	if (nv->shutdown)
		nv->shutdown();
	dlclose(nv->lib);
	free(nv);
}

static void nv_release_dev(struct prof_gpu_dev *d)
{
	struct nvml_dev *nd = d->priv;

	if (!nd)
		return;
	if (--nd->nv->refs == 0)
		nv_unload(nd->nv);
	free(nd->procbuf);
	free(nd->ubuf);
	free(nd->held);
	free(nd);
	d->priv = NULL;
}

static const struct prof_gpu_backend nvml_backend = {
	.name = "nvml",
	.sample = nv_sample,
	.processes = nv_processes,
	.release = nv_release_dev,
};

/* Stand-ins for missing entry points: the metric is "not supported". */
static nvret nv_missing_util(nvdev h, struct nv_utilization *u)
{
	(void)h, (void)u;
	return NV_ERROR_FUNCTION_NOT_FOUND;
}

static nvret nv_missing_mem(nvdev h, void *m)
{
	(void)h, (void)m;
	return NV_ERROR_FUNCTION_NOT_FOUND;
}

static nvret nv_missing_temp(nvdev h, int t, unsigned int *u)
{
	(void)h, (void)t, (void)u;
	return NV_ERROR_FUNCTION_NOT_FOUND;
}

static nvret nv_missing_uint(nvdev h, unsigned int *u)
{
	(void)h, (void)u;
	return NV_ERROR_FUNCTION_NOT_FOUND;
}

static nvret nv_missing_ull(nvdev h, unsigned long long *u)
{
	(void)h, (void)u;
	return NV_ERROR_FUNCTION_NOT_FOUND;
}

static nvret nv_missing_clock(nvdev h, int c, unsigned int *u)
{
	(void)h, (void)c, (void)u;
	return NV_ERROR_FUNCTION_NOT_FOUND;
}

static void *nv_sym(void *lib, const char *name)
{
	return dlsym(lib, name);
}

/* The first of names the library exports, or NULL; *which gets its name. */
static void *nv_sym_first(void *lib, const char *const *names, const char **which)
{
	for (; *names; names++) {
		void *f = dlsym(lib, *names);

		if (f) {
			if (which)
				*which = *names;
			return f;
		}
	}
	return NULL;
}

/* Driver versions 535.43 to 535.86 use 32-byte _v3 process entries. */
static size_t nv_proc_v3_size(const char *driver)
{
	unsigned major = 0, minor = 0;

	if (sscanf(driver, "%u.%u", &major, &minor) == 2 && major == 535 && minor >= 43 &&
	    minor <= 86)
		return NV_PROC_CC_SIZE;
	return NV_PROC_V2_SIZE;
}

#define NV_FN(type, lib, name) ((type)nv_sym((lib), (name)))

/*
 * Look up the metric and process entry points (the newest version of
 * each that the library has); a missing metric reads as NOT_SUPPORTED,
 * so that one path handles both.
 */
static void nv_bind(struct nvml_lib *nv, const char *driver)
{
	static const char *const throttle_names[] = {
		"nvmlDeviceGetCurrentClocksEventReasons",
		"nvmlDeviceGetCurrentClocksThrottleReasons", NULL };
	static const char *const compute3[] = { "nvmlDeviceGetComputeRunningProcesses_v3", NULL };
	static const char *const compute2[] = { "nvmlDeviceGetComputeRunningProcesses_v2", NULL };
	static const char *const compute1[] = { "nvmlDeviceGetComputeRunningProcesses", NULL };
	static const char *const graphics3[] = { "nvmlDeviceGetGraphicsRunningProcesses_v3", NULL };
	static const char *const graphics2[] = { "nvmlDeviceGetGraphicsRunningProcesses_v2", NULL };
	static const char *const graphics1[] = { "nvmlDeviceGetGraphicsRunningProcesses", NULL };
	void *lib = nv->lib;

	nv->get_name = NV_FN(nv_str_fn, lib, "nvmlDeviceGetName");
	nv->get_uuid = NV_FN(nv_str_fn, lib, "nvmlDeviceGetUUID");
	nv->get_utilization = NV_FN(nv_util_fn, lib, "nvmlDeviceGetUtilizationRates");
	nv->get_memory_v2 = NV_FN(nv_mem_fn, lib, "nvmlDeviceGetMemoryInfo_v2");
	nv->get_memory_v1 = NV_FN(nv_mem_fn, lib, "nvmlDeviceGetMemoryInfo");
	nv->get_temperature = NV_FN(nv_temp_fn, lib, "nvmlDeviceGetTemperature");
	nv->get_power = NV_FN(nv_uint_fn, lib, "nvmlDeviceGetPowerUsage");
	nv->get_energy = NV_FN(nv_ull_fn, lib, "nvmlDeviceGetTotalEnergyConsumption");
	nv->get_clock = NV_FN(nv_clock_fn, lib, "nvmlDeviceGetClockInfo");
	nv->get_pcie = NV_FN(nv_clock_fn, lib, "nvmlDeviceGetPcieThroughput");
	nv->throttle_fn_name = throttle_names[0];
	nv->get_throttle = nv_sym_first(lib, throttle_names, &nv->throttle_fn_name);
	nv->get_process_util = NV_FN(nv_putil_fn, lib, "nvmlDeviceGetProcessUtilization");
	if ((nv->compute_procs = nv_sym_first(lib, compute3, &nv->compute_name))) {
		nv->graphics_procs = nv_sym_first(lib, graphics3, &nv->graphics_name);
		nv->proc_size = nv_proc_v3_size(driver);
	} else if ((nv->compute_procs = nv_sym_first(lib, compute2, &nv->compute_name))) {
		nv->graphics_procs = nv_sym_first(lib, graphics2, &nv->graphics_name);
		nv->proc_size = NV_PROC_V2_SIZE;
	} else {
		nv->compute_procs = nv_sym_first(lib, compute1, &nv->compute_name);
		nv->graphics_procs = nv_sym_first(lib, graphics1, &nv->graphics_name);
		nv->proc_size = NV_PROC_V1_SIZE;
	}
	if (!nv->get_utilization)
		nv->get_utilization = nv_missing_util;
	if (!nv->get_memory_v2)
		nv->get_memory_v2 = nv_missing_mem;
	if (!nv->get_memory_v1)
		nv->get_memory_v1 = nv_missing_mem;
	if (!nv->get_temperature)
		nv->get_temperature = nv_missing_temp;
	if (!nv->get_power)
		nv->get_power = nv_missing_uint;
	if (!nv->get_energy)
		nv->get_energy = nv_missing_ull;
	if (!nv->get_clock)
		nv->get_clock = nv_missing_clock;
	if (!nv->get_pcie)
		nv->get_pcie = nv_missing_clock;
	if (!nv->get_throttle)
		nv->get_throttle = nv_missing_ull;
}

/* Add NVML's count GPUs to set, skipping unusable ones; returns the number added. */
static int nv_add_devices(struct prof_gpu_set *set, struct nvml_lib *nv, nv_handle_fn get_handle,
			  unsigned int count)
{
	int added = 0;

	for (unsigned int i = 0; i < count; i++) {
		char devname[128] = "", uuid[128] = "";
		struct nvml_dev *nd;
		nvdev h = NULL;
		nvret r = get_handle(i, &h);

		if (r != NV_SUCCESS) {
			/* Not usable (no permission, lost): say so, keep the rest. */
			prof_warn("nvml gpu %u: nvmlDeviceGetHandleByIndex: %s", i,
				  nv_strerror(nv, r));
			continue;
		}
		if (!nv->get_name || nv->get_name(h, devname, 96) != NV_SUCCESS)
			snprintf(devname, sizeof(devname), "NVIDIA GPU %u", i);
		if (!nv->get_uuid || nv->get_uuid(h, uuid, 96) != NV_SUCCESS)
			uuid[0] = '\0';
		devname[sizeof(devname) - 1] = uuid[sizeof(uuid) - 1] = '\0';
		nd = xcalloc(1, sizeof(*nd));
		nd->nv = nv;
		nd->h = h;
		nd->proccap = 64;
		nd->procbuf = xreallocarray(NULL, nd->proccap, nv->proc_size);
		nd->ucap = 64;
		nd->ubuf = xreallocarray(NULL, nd->ucap, sizeof(*nd->ubuf));
		nv->refs++;
		prof_gpu_set_add(set, &nvml_backend, devname, uuid, nd);
		added++;
	}
	return added;
}

int prof_gpu_nvml_open(struct prof_gpu_set *set, const char *libpath, char *driver, size_t n,
		       struct prof_buf *why)
{
	static const char *const init_names[] = { "nvmlInit_v2", "nvmlInit", NULL };
	static const char *const count_names[] = { "nvmlDeviceGetCount_v2",
						   "nvmlDeviceGetCount", NULL };
	static const char *const handle_names[] = { "nvmlDeviceGetHandleByIndex_v2",
						    "nvmlDeviceGetHandleByIndex", NULL };
	struct nvml_lib *nv;
	nv_void_fn init;
	nv_count_fn get_count;
	nv_handle_fn get_handle;
	nv_sysstr_fn get_driver;
	unsigned int count = 0;
	const char *name = "nvmlInit";
	char version[96] = "";
	void *lib;
	nvret r;
	int added;

	if (n)
		driver[0] = '\0';
	if (!libpath) {
		libpath = getenv("PROFGPU_NVML_LIB");
		if (!libpath || !*libpath)
			libpath = "libnvidia-ml.so.1";
	}
	lib = dlopen(libpath, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		prof_buf_addf(why, "cannot load %s", libpath);
		return 0;
	}
	nv = xcalloc(1, sizeof(*nv));
	nv->lib = lib;
	init = nv_sym_first(lib, init_names, &name);
	get_count = nv_sym_first(lib, count_names, NULL);
	get_handle = nv_sym_first(lib, handle_names, NULL);
	nv->shutdown = NV_FN(nv_void_fn, lib, "nvmlShutdown");
	nv->error_string = NV_FN(nv_errstr_fn, lib, "nvmlErrorString");
	if (!init || !get_count || !get_handle) {
		prof_buf_addf(why, "%s: not an NVML library", libpath);
		goto fail;
	}
	r = init();
	if (r != NV_SUCCESS) {
		prof_buf_addf(why, "%s: %s", name, nv_strerror(nv, r));
		nv->shutdown = NULL;
		goto fail;
	}
	r = get_count(&count);
	if (r != NV_SUCCESS) {
		prof_buf_addf(why, "nvmlDeviceGetCount: %s", nv_strerror(nv, r));
		goto fail;
	}
	if (count == 0) {
		prof_buf_addstr(why, "NVML found no GPU");
		goto fail;
	}
	get_driver = NV_FN(nv_sysstr_fn, lib, "nvmlSystemGetDriverVersion");
	if (!get_driver || get_driver(version, sizeof(version)) != NV_SUCCESS)
		version[0] = '\0';
	version[sizeof(version) - 1] = '\0';
	nv_bind(nv, version);
	added = nv_add_devices(set, nv, get_handle, count);
	if (!added) {
		prof_buf_addstr(why, "no usable NVML GPU");
		goto fail;
	}
	if (n)
		snprintf(driver, n, "%s", version);
	return added;
fail:
	nv_unload(nv);
	return 0;
}
