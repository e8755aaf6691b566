/*
 * A fake libnvidia-ml.so.1 for the profgpu tests: it exports only the
 * NVML entry points profgpu uses, with the layouts of the public nvml.h,
 * and plays back a timeline scripted by environment variables.
 *
 * Build:  cc -shared -fPIC -o DIR/libnvidia-ml.so.1 fake_nvml.c
 *   -DOLD_DRIVER  an old driver: unversioned nvmlInit/GetCount/
 *                 GetHandleByIndex/GetMemoryInfo, ...ClocksThrottleReasons,
 *                 16-byte process entries, no energy counter, no PCIe
 *                 throughput, no process utilisation
 *   -DPROCS_V2    _v2 process lists (24-byte entries) instead of _v3
 *   default       a current driver: _v2 init/count/handle/memory,
 *                 ...ClocksEventReasons, _v3 process lists (24 bytes, or
 *                 32 when FAKE_NVML_DRIVER is 535.43 to 535.86, like the
 *                 real drivers of that range)
 *
 * Environment:
 *   FAKE_NVML_INIT=N       nvmlInit returns error N (9: driver not loaded)
 *   FAKE_NVML_GPUS=N       number of GPUs (default 1, at most 8)
 *   FAKE_NVML_DRIVER=V     driver version (default 550.54.14)
 *   FAKE_NVML_NAME=A;B     names per GPU (default "Fake GPU N")
 *   FAKE_NVML_MEMV2=mismatch  nvmlDeviceGetMemoryInfo_v2 answers
 *                          ARGUMENT_VERSION_MISMATCH
 *   FAKE_NVML_<METRIC>=LIST[;LIST...]  one LIST per GPU (the last LIST
 *     serves the GPUs after it); a LIST is comma-separated values, the
 *     k-th call for a GPU answering the k-th value (the last repeats).
 *     A value is a number, "ns" (NOT_SUPPORTED), "perm" (NO_PERMISSION)
 *     or "lost" (GPU_IS_LOST, and every later call on that GPU too).
 *     METRIC: UTIL MEMUTIL (percent), MEMUSED MEMTOTAL (bytes), TEMP (C),
 *     POWER (mW), ENERGY (mJ; default ns), SMCLK MEMCLK (MHz), PCIERX
 *     PCIETX (KB/s), THROTTLE (reason bits).
 *   FAKE_NVML_PROCS_FILE=F  compute processes, read at each call from
 *     lines "GPU PID MEM_BYTES [SM_UTIL MEM_UTIL]".
 *   FAKE_NVML_THREAD_MASK=inherit  the driver thread keeps the signal
 *     mask it inherits from the thread calling nvmlInit (default: it
 *     empties its mask, the worst case)
 *   FAKE_NVML_LATENCY=0    calls answer at once (default: as slow as on
 *     the device, below)
 *   FAKE_NVML_PUTIL_PERIOD_MS=N  the driver's per-process utilisation
 *     refresh period (default 200)
 *
 * What the real library does that matters to a caller, modelled here:
 *  - nvmlInit starts a thread (named like the driver's, "cuda00001800007")
 *    that stays alive until nvmlShutdown and wakes every 10 ms, with an
 *    empty signal mask: a signal sent to the process can be taken by it
 *    (a SIGCHLD with the default action is then lost, a SIGTERM kills).
 *  - Some calls are slow. Figures from profrec on profgpu sampling a real
 *    H100 at 10 Hz (driver 580.159.04, ../shared/corpus/real-h100-torch,
 *    profgpu-self.folded), CPU time per call, spent in the kernel driver:
 *    nvmlDeviceGetTotalEnergyConsumption 3.6 ms (a GSP RPC each call),
 *    nvmlDeviceGetPcieThroughput 1 ms of CPU per direction, and it blocks
 *    20 ms (NVML documents the counter as sampled over 20 ms),
 *    nvmlDeviceGetUtilizationRates 0.14 ms, nvmlDeviceGetMemoryInfo 0.12
 *    ms, power, temperature, clocks and throttle reasons 0.02 ms. The
 *    fake burns that CPU time (and sleeps the rest of PCIe's 20 ms).
 *  - nvmlDeviceGetProcessUtilization returns only the samples newer than
 *    the time stamp passed in (microseconds, CLOCK_REALTIME), and
 *    NVML_ERROR_NOT_FOUND when there is none; the driver takes a sample
 *    every 200 ms, so a caller polling faster finds none every other call.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#define MAXGPU 8
#define MAXVAL 256

enum { M_UTIL, M_MEMUTIL, M_MEMUSED, M_MEMTOTAL, M_TEMP, M_POWER, M_ENERGY, M_SMCLK,
       M_MEMCLK, M_PCIERX, M_PCIETX, M_THROTTLE, M_N };

static const char *const metric_env[M_N] = {
	"FAKE_NVML_UTIL", "FAKE_NVML_MEMUTIL", "FAKE_NVML_MEMUSED", "FAKE_NVML_MEMTOTAL",
	"FAKE_NVML_TEMP", "FAKE_NVML_POWER", "FAKE_NVML_ENERGY", "FAKE_NVML_SMCLK",
	"FAKE_NVML_MEMCLK", "FAKE_NVML_PCIERX", "FAKE_NVML_PCIETX", "FAKE_NVML_THROTTLE",
};

static const char *const metric_default[M_N] = {
	"0", "0", "0", "17179869184", "40", "50000", "ns", "1500", "5000", "0", "0", "0",
};

enum { V_NUM, V_NS, V_PERM, V_LOST };

struct series {
	int n;
	unsigned char kind[MAXVAL];
	unsigned long long val[MAXVAL];
};

struct gpu {
	int index;
	int lost;
	unsigned calls[M_N];
	struct series s[M_N];
	char name[96];
};

static struct gpu gpus[MAXGPU];
static int ngpus;
static int initialised;
static int latency = 1;

/* ---- the driver's thread, its slow calls ---- */

static pthread_t driver_thread;
static volatile int driver_running;

static void *driver_main(void *arg)
{
	const char *m = getenv("FAKE_NVML_THREAD_MASK");
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	(void)arg;
	prctl(PR_SET_NAME, "cuda00001800007", 0, 0, 0);
	if (!m || strcmp(m, "inherit") != 0) {
		sigset_t none;

		sigemptyset(&none);
		pthread_sigmask(SIG_SETMASK, &none, NULL);
	}
	while (driver_running)
		nanosleep(&ts, NULL);
	return NULL;
}

static void driver_start(void)
{
	driver_running = 1;
	if (pthread_create(&driver_thread, NULL, driver_main, NULL) != 0)
		driver_running = 0;
}

static void driver_stop(void)
{
	if (!driver_running)
		return;
	driver_running = 0;
	pthread_join(driver_thread, NULL);
}

static long long now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* A call that costs us CPU microseconds (the driver's work in the kernel). */
static void burn(long us)
{
	long long end;

	if (!latency)
		return;
	end = now_ns(CLOCK_THREAD_CPUTIME_ID) + us * 1000LL;
	while (now_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		;
}

/* A call that takes total_us of wall time, cpu_us of it on the CPU. */
static void slow(long cpu_us, long total_us)
{
	long long start = now_ns(CLOCK_MONOTONIC);
	long long left;

	if (!latency)
		return;
	burn(cpu_us);
	left = total_us * 1000LL - (now_ns(CLOCK_MONOTONIC) - start);
	if (left > 0) {
		struct timespec ts = { (time_t)(left / 1000000000LL), (long)(left % 1000000000LL) };

		nanosleep(&ts, NULL);
	}
}

static void parse_list(struct series *s, const char *p, size_t len)
{
	char tok[64];

	s->n = 0;
	while (len > 0 && s->n < MAXVAL) {
		const char *comma = memchr(p, ',', len);
		size_t n = comma ? (size_t)(comma - p) : len;

		if (n >= sizeof(tok))
			n = sizeof(tok) - 1;
		memcpy(tok, p, n);
		tok[n] = '\0';
		if (strcmp(tok, "ns") == 0)
			s->kind[s->n] = V_NS;
		else if (strcmp(tok, "perm") == 0)
			s->kind[s->n] = V_PERM;
		else if (strcmp(tok, "lost") == 0)
			s->kind[s->n] = V_LOST;
		else {
			s->kind[s->n] = V_NUM;
			s->val[s->n] = strtoull(tok, NULL, 0);
		}
		s->n++;
		if (!comma)
			break;
		len -= n + 1;
		p = comma + 1;
	}
}

/* The LIST for GPU i out of "L0;L1;...". */
static void parse_metric(int m)
{
	const char *v = getenv(metric_env[m]);

	if (!v)
		v = metric_default[m];
	for (int i = 0; i < MAXGPU; i++) {
		const char *p = v, *semi;
		int k = 0;

		while (k < i && (semi = strchr(p, ';'))) {
			p = semi + 1;
			k++;
		}
		semi = strchr(p, ';');
		parse_list(&gpus[i].s[m], p, semi ? (size_t)(semi - p) : strlen(p));
	}
}

static void setup(void)
{
	const char *v = getenv("FAKE_NVML_GPUS"), *names = getenv("FAKE_NVML_NAME");

	ngpus = v ? atoi(v) : 1;
	if (ngpus < 0)
		ngpus = 0;
	if (ngpus > MAXGPU)
		ngpus = MAXGPU;
	memset(gpus, 0, sizeof(gpus));
	for (int i = 0; i < MAXGPU; i++) {
		gpus[i].index = i;
		snprintf(gpus[i].name, sizeof(gpus[i].name), "Fake GPU %d", i);
	}
	for (int i = 0; names && i < MAXGPU; i++) {
		const char *semi = strchr(names, ';');
		size_t n = semi ? (size_t)(semi - names) : strlen(names);

		if (n >= sizeof(gpus[i].name))
			n = sizeof(gpus[i].name) - 1;
		memcpy(gpus[i].name, names, n);
		gpus[i].name[n] = '\0';
		names = semi ? semi + 1 : NULL;
	}
	for (int m = 0; m < M_N; m++)
		parse_metric(m);
}

/* nvmlReturn_t values. */
#define OK 0
#define E_UNINIT 1
#define E_INVALID 2
#define E_NOT_SUPPORTED 3
#define E_NO_PERMISSION 4
#define E_NOT_FOUND 6
#define E_INSUFFICIENT 7
#define E_LOST 15
#define E_VERSION 25

typedef struct gpu *dev_t_;

static int get(dev_t_ d, int m, unsigned long long *out)
{
	struct series *s;
	unsigned k;

	if (!initialised)
		return E_UNINIT;
	if (!d)
		return E_INVALID;
	if (d->lost)
		return E_LOST;
	s = &d->s[m];
	k = d->calls[m]++;
	if (s->n == 0)
		return E_NOT_SUPPORTED;
	if (k >= (unsigned)s->n)
		k = (unsigned)s->n - 1;
	switch (s->kind[k]) {
	case V_NS: return E_NOT_SUPPORTED;
	case V_PERM: return E_NO_PERMISSION;
	case V_LOST: d->lost = 1; return E_LOST;
	default: *out = s->val[k]; return OK;
	}
}

static int init_common(void)
{
	const char *v = getenv("FAKE_NVML_INIT");

	if (v && atoi(v))
		return atoi(v);
	v = getenv("FAKE_NVML_LATENCY");
	latency = !v || strcmp(v, "0") != 0;
	setup();
	initialised = 1;
	driver_start();
	return OK;
}

int nvmlShutdown(void);
int nvmlShutdown(void)
{
	driver_stop();
	initialised = 0;
	return OK;
}

const char *nvmlErrorString(int r);
const char *nvmlErrorString(int r)
{
	switch (r) {
	case OK: return "Success";
	case E_UNINIT: return "Uninitialized";
	case E_INVALID: return "Invalid Argument";
	case E_NOT_SUPPORTED: return "Not Supported";
	case E_NO_PERMISSION: return "Insufficient Permissions";
	case 9: return "Driver Not Loaded";
	case E_LOST: return "GPU is lost";
	case E_VERSION: return "Argument version mismatch";
	default: return "Unknown Error";
	}
}

int nvmlSystemGetDriverVersion(char *buf, unsigned int len);
int nvmlSystemGetDriverVersion(char *buf, unsigned int len)
{
	const char *v = getenv("FAKE_NVML_DRIVER");

	snprintf(buf, len, "%s", v ? v : "550.54.14");
	return OK;
}

static int count_common(unsigned int *n)
{
	if (!initialised)
		return E_UNINIT;
	*n = (unsigned int)ngpus;
	return OK;
}

static int handle_common(unsigned int i, dev_t_ *h)
{
	if (!initialised)
		return E_UNINIT;
	if (i >= (unsigned int)ngpus)
		return E_INVALID;
	*h = &gpus[i];
	return OK;
}

#ifdef OLD_DRIVER
int nvmlInit(void);
int nvmlInit(void) { return init_common(); }
int nvmlDeviceGetCount(unsigned int *n);
int nvmlDeviceGetCount(unsigned int *n) { return count_common(n); }
int nvmlDeviceGetHandleByIndex(unsigned int i, dev_t_ *h);
int nvmlDeviceGetHandleByIndex(unsigned int i, dev_t_ *h) { return handle_common(i, h); }
#else
int nvmlInit_v2(void);
int nvmlInit_v2(void) { return init_common(); }
int nvmlDeviceGetCount_v2(unsigned int *n);
int nvmlDeviceGetCount_v2(unsigned int *n) { return count_common(n); }
int nvmlDeviceGetHandleByIndex_v2(unsigned int i, dev_t_ *h);
int nvmlDeviceGetHandleByIndex_v2(unsigned int i, dev_t_ *h) { return handle_common(i, h); }
#endif

int nvmlDeviceGetName(dev_t_ d, char *buf, unsigned int len);
int nvmlDeviceGetName(dev_t_ d, char *buf, unsigned int len)
{
	if (!d)
		return E_INVALID;
	snprintf(buf, len, "%s", d->name);
	return OK;
}

int nvmlDeviceGetUUID(dev_t_ d, char *buf, unsigned int len);
int nvmlDeviceGetUUID(dev_t_ d, char *buf, unsigned int len)
{
	if (!d)
		return E_INVALID;
	snprintf(buf, len, "GPU-fa4e0000-0000-0000-0000-%012d", d->index);
	return OK;
}

struct utilization { unsigned int gpu, memory; };

int nvmlDeviceGetUtilizationRates(dev_t_ d, struct utilization *u);
int nvmlDeviceGetUtilizationRates(dev_t_ d, struct utilization *u)
{
	unsigned long long a, b;
	int r;

	burn(140);
	r = get(d, M_UTIL, &a);

	if (r)
		return r;
	r = get(d, M_MEMUTIL, &b);
	if (r)
		return r;
	u->gpu = (unsigned int)a;
	u->memory = (unsigned int)b;
	return OK;
}

struct memory_v1 { unsigned long long total, free, used; };
struct memory_v2 { unsigned int version; unsigned long long total, reserved, free, used; };

static int memory(dev_t_ d, unsigned long long *total, unsigned long long *used)
{
	int r;

	burn(120);
	r = get(d, M_MEMUSED, used);

	if (r)
		return r;
	return get(d, M_MEMTOTAL, total);
}

int nvmlDeviceGetMemoryInfo(dev_t_ d, struct memory_v1 *m);
int nvmlDeviceGetMemoryInfo(dev_t_ d, struct memory_v1 *m)
{
	unsigned long long t, u;
	int r = memory(d, &t, &u);

	if (r)
		return r;
	m->total = t;
	m->used = u;
	m->free = t - u;
	return OK;
}

#ifndef OLD_DRIVER
int nvmlDeviceGetMemoryInfo_v2(dev_t_ d, struct memory_v2 *m);
int nvmlDeviceGetMemoryInfo_v2(dev_t_ d, struct memory_v2 *m)
{
	const char *mm = getenv("FAKE_NVML_MEMV2");
	unsigned long long t, u;
	int r;

	if ((mm && strcmp(mm, "mismatch") == 0) ||
	    m->version != (unsigned int)(sizeof(struct memory_v2) | (2u << 24)))
		return E_VERSION;
	r = memory(d, &t, &u);
	if (r)
		return r;
	m->total = t;
	m->reserved = 0;
	m->used = u;
	m->free = t - u;
	return OK;
}
#endif

int nvmlDeviceGetTemperature(dev_t_ d, int sensor, unsigned int *t);
int nvmlDeviceGetTemperature(dev_t_ d, int sensor, unsigned int *t)
{
	unsigned long long v;
	int r;

	if (sensor != 0)
		return E_INVALID;
	burn(20);
	r = get(d, M_TEMP, &v);
	if (!r)
		*t = (unsigned int)v;
	return r;
}

int nvmlDeviceGetPowerUsage(dev_t_ d, unsigned int *mw);
int nvmlDeviceGetPowerUsage(dev_t_ d, unsigned int *mw)
{
	unsigned long long v;
	int r;

	burn(20);
	r = get(d, M_POWER, &v);

	if (!r)
		*mw = (unsigned int)v;
	return r;
}

int nvmlDeviceGetClockInfo(dev_t_ d, int type, unsigned int *mhz);
int nvmlDeviceGetClockInfo(dev_t_ d, int type, unsigned int *mhz)
{
	unsigned long long v;
	int r;

	if (type != 1 && type != 2)
		return E_INVALID;
	burn(20);
	r = get(d, type == 1 ? M_SMCLK : M_MEMCLK, &v);
	if (!r)
		*mhz = (unsigned int)v;
	return r;
}

static int throttle(dev_t_ d, unsigned long long *mask)
{
	burn(20);
	return get(d, M_THROTTLE, mask);
}

#ifdef OLD_DRIVER
int nvmlDeviceGetCurrentClocksThrottleReasons(dev_t_ d, unsigned long long *mask);
int nvmlDeviceGetCurrentClocksThrottleReasons(dev_t_ d, unsigned long long *mask)
{
	return throttle(d, mask);
}
#else
int nvmlDeviceGetCurrentClocksEventReasons(dev_t_ d, unsigned long long *mask);
int nvmlDeviceGetCurrentClocksEventReasons(dev_t_ d, unsigned long long *mask)
{
	return throttle(d, mask);
}

int nvmlDeviceGetTotalEnergyConsumption(dev_t_ d, unsigned long long *mj);
int nvmlDeviceGetTotalEnergyConsumption(dev_t_ d, unsigned long long *mj)
{
	burn(3600);
	return get(d, M_ENERGY, mj);
}

int nvmlDeviceGetPcieThroughput(dev_t_ d, int counter, unsigned int *kbs);
int nvmlDeviceGetPcieThroughput(dev_t_ d, int counter, unsigned int *kbs)
{
	unsigned long long v;
	int r;

	if (counter != 0 && counter != 1)
		return E_INVALID;
	slow(1000, 20000);
	r = get(d, counter == 1 ? M_PCIERX : M_PCIETX, &v);
	if (!r)
		*kbs = (unsigned int)v;
	return r;
}
#endif

/* Processes of GPU d from the file: up to max into the arrays. */
struct fproc { unsigned int pid; unsigned long long mem; int has_util; unsigned int sm, mu; };

static int read_procs(dev_t_ d, struct fproc *out, int max)
{
	const char *path = getenv("FAKE_NVML_PROCS_FILE");
	char line[256];
	FILE *f;
	int n = 0;

	if (!path || !(f = fopen(path, "r")))
		return 0;
	while (n < max && fgets(line, sizeof(line), f)) {
		int gpu, k;
		struct fproc p;

		memset(&p, 0, sizeof(p));
		k = sscanf(line, "%d %u %llu %u %u", &gpu, &p.pid, &p.mem, &p.sm, &p.mu);
		if (k < 3 || gpu != d->index)
			continue;
		p.has_util = k == 5;
		out[n++] = p;
	}
	fclose(f);
	return n;
}

static size_t entry_size(int api)
{
	const char *v = getenv("FAKE_NVML_DRIVER");
	unsigned major = 0, minor = 0;

	if (api == 1)
		return 16;
	if (api == 3 && v && sscanf(v, "%u.%u", &major, &minor) == 2 && major == 535 &&
	    minor >= 43 && minor <= 86)
		return 32;
	return 24;
}

static int procs(dev_t_ d, unsigned int *count, void *infos, int api, int graphics)
{
	struct fproc p[64];
	size_t es = entry_size(api);
	int n;

	if (!initialised)
		return E_UNINIT;
	if (!d || !count)
		return E_INVALID;
	if (d->lost)
		return E_LOST;
	n = graphics ? 0 : read_procs(d, p, 64);
	if (*count < (unsigned int)n || (!infos && n)) {
		*count = (unsigned int)n;
		return E_INSUFFICIENT;
	}
	for (int i = 0; i < n; i++) {
		unsigned char *e = (unsigned char *)infos + (size_t)i * es;
		unsigned int gi = 0xffffffffu, ci = 0xffffffffu;
		unsigned long long cc = 4096;

		memset(e, 0, es);
		memcpy(e, &p[i].pid, 4);
		memcpy(e + 8, &p[i].mem, 8);
		if (es >= 24) {
			memcpy(e + 16, &gi, 4);
			memcpy(e + 20, &ci, 4);
		}
		if (es == 32)
			memcpy(e + 24, &cc, 8);
	}
	*count = (unsigned int)n;
	return OK;
}

#if defined(OLD_DRIVER)
int nvmlDeviceGetComputeRunningProcesses(dev_t_ d, unsigned int *count, void *infos);
int nvmlDeviceGetComputeRunningProcesses(dev_t_ d, unsigned int *count, void *infos)
{
	return procs(d, count, infos, 1, 0);
}
int nvmlDeviceGetGraphicsRunningProcesses(dev_t_ d, unsigned int *count, void *infos);
int nvmlDeviceGetGraphicsRunningProcesses(dev_t_ d, unsigned int *count, void *infos)
{
	return procs(d, count, infos, 1, 1);
}
#elif defined(PROCS_V2)
int nvmlDeviceGetComputeRunningProcesses_v2(dev_t_ d, unsigned int *count, void *infos);
int nvmlDeviceGetComputeRunningProcesses_v2(dev_t_ d, unsigned int *count, void *infos)
{
	return procs(d, count, infos, 2, 0);
}
int nvmlDeviceGetGraphicsRunningProcesses_v2(dev_t_ d, unsigned int *count, void *infos);
int nvmlDeviceGetGraphicsRunningProcesses_v2(dev_t_ d, unsigned int *count, void *infos)
{
	return procs(d, count, infos, 2, 1);
}
#else
int nvmlDeviceGetComputeRunningProcesses_v3(dev_t_ d, unsigned int *count, void *infos);
int nvmlDeviceGetComputeRunningProcesses_v3(dev_t_ d, unsigned int *count, void *infos)
{
	return procs(d, count, infos, 3, 0);
}
int nvmlDeviceGetGraphicsRunningProcesses_v3(dev_t_ d, unsigned int *count, void *infos);
int nvmlDeviceGetGraphicsRunningProcesses_v3(dev_t_ d, unsigned int *count, void *infos)
{
	return procs(d, count, infos, 3, 1);
}
#endif

#ifndef OLD_DRIVER
struct process_util {
	unsigned int pid;
	unsigned long long time_stamp;
	unsigned int sm, mem, enc, dec;
};

int nvmlDeviceGetProcessUtilization(dev_t_ d, struct process_util *u, unsigned int *count,
				    unsigned long long last_seen);
int nvmlDeviceGetProcessUtilization(dev_t_ d, struct process_util *u, unsigned int *count,
				    unsigned long long last_seen)
{
	const char *pv = getenv("FAKE_NVML_PUTIL_PERIOD_MS");
	unsigned long long period = (pv && atoi(pv) > 0 ? (unsigned long long)atoi(pv) : 200) * 1000;
	/* The driver's last refresh, in microseconds of CLOCK_REALTIME. */
	unsigned long long stamp = (unsigned long long)now_ns(CLOCK_REALTIME) / 1000 / period * period;
	struct fproc p[64];
	int n, k = 0;

	if (!initialised)
		return E_UNINIT;
	if (!d || !count)
		return E_INVALID;
	if (d->lost)
		return E_LOST;
	n = read_procs(d, p, 64);
	for (int i = 0; i < n; i++)
		k += p[i].has_util;
	/* Only samples newer than the caller's last one. */
	if (k == 0 || stamp <= last_seen)
		return E_NOT_FOUND;
	if (!u || *count < (unsigned int)k) {
		*count = (unsigned int)k;
		return E_INSUFFICIENT;
	}
	k = 0;
	for (int i = 0; i < n; i++) {
		if (!p[i].has_util)
			continue;
		memset(&u[k], 0, sizeof(u[k]));
		u[k].pid = p[i].pid;
		u[k].time_stamp = stamp;
		u[k].sm = p[i].sm;
		u[k].mem = p[i].mu;
		k++;
	}
	*count = (unsigned int)k;
	return OK;
}
#endif
