/*
 * libprofgpu-cupti.so: the injection library of profgpu --kernels.
 *
 * The CUDA driver loads the file named by CUDA_INJECTION64_PATH when the
 * process initialises CUDA (cuInit) and calls its InitializeInjection():
 * the documented way Nsight Systems attaches. There we load CUPTI (at
 * run time: no CUDA at build time), check its version, subscribe to the
 * kernel launch APIs (runtime and driver) and enable the activity
 * records of kernels (concurrent mode), memcpy and memset.
 *
 * What is written (gpu/kernels_format.h), to $PROFGPU_KERNELS_DIR/PID.rec:
 *  - at each launch (on the launching thread, inside the API call), its
 *    correlation id, thread and CPU stack (stacks deduplicated: each
 *    distinct one written once);
 *  - the activity records, as CUPTI completes buffers on its own thread;
 *  - at exit (atexit: before the CUDA runtime's own teardown, registered
 *    earlier), a forced flush, the dropped-record count, and PID.maps
 *    (PID.N.rec and PID.N.maps for the Nth image after an exec).
 * One mutex orders the writers; records are buffered and written in
 * large pieces.
 *
 * Stacks: the launch callback runs inside NVIDIA's libraries, which keep
 * no frame pointers, so a frame-pointer walk from here would stop (or
 * wander) at their first frame. The default walker is libunwind's
 * unw_backtrace (DWARF CFI, with its per-thread cache: the fast path);
 * PROFGPU_KERNELS_UNWIND=fp asks for frame pointers (the heap shim's
 * walker, lib/heap/shim/stackwalk.c), which is what is used when
 * libunwind is missing.
 *
 * Nothing here may exit or print into the command's output: an error is
 * one PGK_ERROR record (profgpu prints it) and a return without tracing.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "gpu/cupti/cupti_api.h"
#include "gpu/kernels_format.h"
#include "heap/format.h"
#include "heap/shim/stackwalk.h"

#define EXPORT __attribute__((visibility("default")))

_Static_assert(offsetof(PGK_ActivityKernel, correlationId) == 92, "Kernel9 layout");
_Static_assert(offsetof(PGK_ActivityKernel, name) == 104, "Kernel9 layout");
_Static_assert(offsetof(PGK_ActivityMemcpy, correlationId) == 44, "Memcpy5 layout");
_Static_assert(offsetof(PGK_ActivityMemset, correlationId) == 44, "Memset4 layout");

/* The CUPTI entry points used, resolved from the library loaded. */
static struct {
	CUptiResult (*get_version)(uint32_t *);
	CUptiResult (*result_string)(CUptiResult, const char **);
	CUptiResult (*subscribe)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *);
	CUptiResult (*enable_callback)(uint32_t, CUpti_SubscriberHandle, int, uint32_t);
	CUptiResult (*activity_enable)(int);
	CUptiResult (*register_callbacks)(CUpti_BuffersCallbackRequestFunc,
					  CUpti_BuffersCallbackCompleteFunc);
	CUptiResult (*flush_all)(uint32_t);
	CUptiResult (*next_record)(uint8_t *, size_t, CUpti_Activity **);
	CUptiResult (*dropped)(CUcontext, uint32_t, size_t *);
	CUptiResult (*timestamp)(uint64_t *);
} cu;

#define BUF_BYTES (1u << 20)	/* the activity buffers given to CUPTI */
#define OUT_FLUSH (256u << 10)	/* our write buffer is written out past this */
#define STACK_SLOTS (1u << 16)	/* stack table: open addressing, a power of two */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int out_fd = -1;
static char *out_buf;
static size_t out_len, out_cap;
static int tracing;		/* set once InitializeInjection succeeded */
static int use_dwarf;
static char dir[4096];
static char base[32];		/* our files' name: PID, or PID.N after an exec */
static struct pgk_header header;

/* The stack table: hash -> (id, stack), stacks kept to compare. */
struct stack_slot {
	uint64_t hash;
	uint32_t id, n;
	uint64_t *pcs;
};
static struct stack_slot *stacks;
static uint32_t nstacks;

/* The code ranges of the loaded objects, for the frame-pointer walker. */
static struct ph_code_range *ranges;
static unsigned nranges;
static unsigned long long ranges_adds = ~0ull;

static __thread int in_runtime_launch;	/* a runtime launch API is on this thread's stack */
static __thread uint32_t runtime_stack, runtime_api;

/* Append a record to the write buffer (the lock held). */
static void put(uint32_t type, const void *a, size_t alen, const void *b, size_t blen)
{
	struct pgk_rec r = { type, (uint32_t)((alen + blen + 7) & ~(size_t)7) };
	size_t need = sizeof(r) + r.len;

	if (out_fd < 0)
		return;
	if (out_len + need > out_cap) {
		size_t cap = out_cap ? out_cap : OUT_FLUSH * 2;
		char *p;

		while (cap < out_len + need)
			cap *= 2;
		if (!(p = realloc(out_buf, cap)))
			return;	/* a record lost rather than the command killed */
		out_buf = p;
		out_cap = cap;
	}
	memcpy(out_buf + out_len, &r, sizeof(r));
	memcpy(out_buf + out_len + sizeof(r), a, alen);
	if (blen)
		memcpy(out_buf + out_len + sizeof(r) + alen, b, blen);
	memset(out_buf + out_len + sizeof(r) + alen + blen, 0, r.len - alen - blen);
	out_len += need;
}

/* Write the buffer out (the lock held). */
static void drain(void)
{
	size_t off = 0;

	while (out_fd >= 0 && off < out_len) {
		ssize_t w = write(out_fd, out_buf + off, out_len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	out_len = 0;
}

/* An error record: profgpu prints it as the reason nothing was traced. */
static void fail(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&lock);
	put(PGK_ERROR, msg, strlen(msg) + 1, NULL, 0);
	drain();
	pthread_mutex_unlock(&lock);
}

static const char *result_name(CUptiResult r)
{
	const char *s = NULL;

	if (cu.result_string && cu.result_string(r, &s) == CUPTI_SUCCESS && s)
		return s;
	return "CUPTI error";
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- stacks ---- */

static int range_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	const char *name = info->dlpi_name;
	int runtime = strstr(name, "/libc.so") || strstr(name, "/ld-linux") || strstr(name, "/libc-");

	(void)size;
	if (data) {
		*(unsigned long long *)data = info->dlpi_adds;
		return 1;
	}
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		struct ph_code_range *p;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (!(p = realloc(ranges, (nranges + 1) * sizeof(*ranges))))
			return 1;
		ranges = p;
		ranges[nranges].lo = info->dlpi_addr + ph->p_vaddr;
		ranges[nranges].hi = ranges[nranges].lo + ph->p_memsz;
		ranges[nranges].runtime = runtime;
		nranges++;
	}
	return 0;
}

static int range_cmp(const void *a, const void *b)
{
	const struct ph_code_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Re-read the code ranges when objects were loaded since (the lock held). */
static void refresh_ranges(void)
{
	unsigned long long adds = 0;

	dl_iterate_phdr(range_cb, &adds);
	if (adds == ranges_adds)
		return;
	nranges = 0;
	dl_iterate_phdr(range_cb, NULL);
	qsort(ranges, nranges, sizeof(*ranges), range_cmp);
	ranges_adds = adds;
}

static __thread uintptr_t stack_lo, stack_hi;
static uintptr_t self_lo, self_hi;	/* this library's code: its own frames are skipped */

/* Find this library's code once (dladdr takes the loader's lock). */
static void find_self(void)
{
	Dl_info self;

	if (dladdr((void *)find_self, &self) && self.dli_fbase) {
		self_lo = (uintptr_t)self.dli_fbase;
		self_hi = self_lo + (64u << 10);	/* its text is well under 64 KiB */
	}
}

static unsigned walk(uint64_t *pcs, unsigned max)
{
	uintptr_t lo = self_lo, hi = self_hi;

	if (use_dwarf)
		return ph_unwind_dwarf(pcs, max, lo, hi);
	if (!stack_hi) {
		pthread_attr_t attr;
		void *addr;
		size_t size;

		if (pthread_getattr_np(pthread_self(), &attr) == 0) {
			if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
				stack_lo = (uintptr_t)addr;
				stack_hi = (uintptr_t)addr + size;
			}
			pthread_attr_destroy(&attr);
		}
	}
	return ph_unwind_fp(pcs, max, stack_lo, stack_hi, lo, hi, ranges, nranges);
}

/* The id of this stack, written the first time it is seen (the lock held). */
static uint32_t stack_id(const uint64_t *pcs, uint32_t n)
{
	uint64_t h = 1469598103934665603ull;
	uint32_t i;

	for (i = 0; i < n; i++)
		h = (h ^ pcs[i]) * 1099511628211ull;
	if (!stacks && !(stacks = calloc(STACK_SLOTS, sizeof(*stacks))))
		return 0;
	for (i = (uint32_t)h & (STACK_SLOTS - 1);; i = (i + 1) & (STACK_SLOTS - 1)) {
		struct stack_slot *s = &stacks[i];

		if (!s->id)
			break;
		if (s->hash == h && s->n == n && memcmp(s->pcs, pcs, n * sizeof(*pcs)) == 0)
			return s->id;
	}
	if (nstacks >= STACK_SLOTS / 2 || !(stacks[i].pcs = malloc(n * sizeof(*pcs) + 1)))
		return 0;	/* table full: the launch is kept, its stack unknown */
	memcpy(stacks[i].pcs, pcs, n * sizeof(*pcs));
	stacks[i].hash = h;
	stacks[i].n = n;
	stacks[i].id = ++nstacks;
	put(PGK_STACK, &(struct pgk_stack){ stacks[i].id, n }, sizeof(struct pgk_stack),
	    pcs, n * sizeof(*pcs));
	return stacks[i].id;
}

/* ---- callbacks ---- */

/* Our index of a launch API (pgk_api_names), or -1; *runtime for the runtime's. */
static int api_of(int domain, uint32_t cbid)
{
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
		switch (cbid) {
		case CBID_cudaLaunchKernel: case CBID_cudaLaunchKernel_ptsz: return 0;
		case CBID_cudaLaunchCooperativeKernel: case CBID_cudaLaunchCooperativeKernel_ptsz: return 1;
		case CBID_cudaLaunchKernelExC: case CBID_cudaLaunchKernelExC_ptsz: return 2;
		case CBID_cudaGraphLaunch: case CBID_cudaGraphLaunch_ptsz: return 3;
		}
		return -1;
	}
	switch (cbid) {
	case CBID_cuLaunchKernel: case CBID_cuLaunchKernel_ptsz: return 4;
	case CBID_cuLaunchCooperativeKernel: case CBID_cuLaunchCooperativeKernel_ptsz: return 5;
	case CBID_cuLaunchKernelEx: case CBID_cuLaunchKernelEx_ptsz: return 6;
	case CBID_cuGraphLaunch: case CBID_cuGraphLaunch_ptsz: return 7;
	}
	return -1;
}

static const uint32_t traced_cbids[2][8] = {
	{ CBID_cuLaunchKernel, CBID_cuLaunchKernel_ptsz, CBID_cuLaunchCooperativeKernel,
	  CBID_cuLaunchCooperativeKernel_ptsz, CBID_cuLaunchKernelEx, CBID_cuLaunchKernelEx_ptsz,
	  CBID_cuGraphLaunch, CBID_cuGraphLaunch_ptsz },
	{ CBID_cudaLaunchKernel, CBID_cudaLaunchKernel_ptsz, CBID_cudaLaunchCooperativeKernel,
	  CBID_cudaLaunchCooperativeKernel_ptsz, CBID_cudaLaunchKernelExC,
	  CBID_cudaLaunchKernelExC_ptsz, CBID_cudaGraphLaunch, CBID_cudaGraphLaunch_ptsz },
};

/*
 * A launch API entered (or left). The runtime's launch calls the
 * driver's: the kernel record may carry either's correlation id, so the
 * driver call inside a runtime launch is recorded too, with the runtime
 * call's stack and name (what the program called).
 */
static void on_api(void *userdata, int domain, uint32_t cbid, const void *cbdata)
{
	const CUpti_CallbackData *cd = cbdata;
	uint64_t pcs[PGK_MAX_PCS];
	int api = api_of(domain, cbid);
	uint32_t tid, id, n;

	(void)userdata;
	if (api < 0 || !tracing)
		return;
	if (cd->callbackSite == CUPTI_API_EXIT) {
		if (domain == CUPTI_CB_DOMAIN_RUNTIME_API)
			in_runtime_launch = 0;
		return;
	}
	tid = (uint32_t)syscall(SYS_gettid);
	if (domain == CUPTI_CB_DOMAIN_DRIVER_API && in_runtime_launch) {
		pthread_mutex_lock(&lock);
		put(PGK_LAUNCH, &(struct pgk_launch){ cd->correlationId, tid, runtime_stack, runtime_api },
		    sizeof(struct pgk_launch), NULL, 0);
		pthread_mutex_unlock(&lock);
		return;
	}
	if (!use_dwarf) {
		pthread_mutex_lock(&lock);
		refresh_ranges();
		pthread_mutex_unlock(&lock);
	}
	n = walk(pcs, PGK_MAX_PCS);
	pthread_mutex_lock(&lock);
	id = n ? stack_id(pcs, n) : 0;
	put(PGK_LAUNCH, &(struct pgk_launch){ cd->correlationId, tid, id, (uint32_t)api },
	    sizeof(struct pgk_launch), NULL, 0);
	if (out_len >= OUT_FLUSH)
		drain();
	pthread_mutex_unlock(&lock);
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
		in_runtime_launch = 1;
		runtime_stack = id;
		runtime_api = (uint32_t)api;
	}
}

static void buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	*buffer = aligned_alloc(8, BUF_BYTES);
	*size = *buffer ? BUF_BYTES : 0;
	*max_records = 0;
}

static void put_activity(const CUpti_Activity *a)
{
	if (a->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
		const PGK_ActivityKernel *k = (const void *)a;
		const char *name = k->name ? k->name : "";
		size_t len = strnlen(name, PGK_MAX_NAME);
		struct pgk_kernel r = {
			k->start, k->end, k->deviceId, k->contextId, k->streamId, k->correlationId,
			{ k->gridX, k->gridY, k->gridZ }, { k->blockX, k->blockY, k->blockZ },
			k->registersPerThread, (uint32_t)k->staticSharedMemory,
			(uint32_t)k->dynamicSharedMemory, (uint32_t)len,
		};

		put(PGK_KERNEL, &r, sizeof(r), name, len);
	} else if (a->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
		const PGK_ActivityMemcpy *m = (const void *)a;

		put(PGK_COPY, &(struct pgk_copy){ m->start, m->end, m->bytes, m->deviceId,
			m->contextId, m->streamId, m->correlationId, 0, m->copyKind },
		    sizeof(struct pgk_copy), NULL, 0);
	} else if (a->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
		const PGK_ActivityMemset *m = (const void *)a;

		put(PGK_COPY, &(struct pgk_copy){ m->start, m->end, m->bytes, m->deviceId,
			m->contextId, m->streamId, m->correlationId, 1, m->value },
		    sizeof(struct pgk_copy), NULL, 0);
	}
}

/* CUPTI's thread (or a flushing one) hands back a buffer. */
static void buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
			     size_t valid)
{
	CUpti_Activity *rec = NULL;
	size_t dropped = 0;

	(void)size;
	pthread_mutex_lock(&lock);
	while (valid && cu.next_record(buffer, valid, &rec) == CUPTI_SUCCESS)
		put_activity(rec);
	if (cu.dropped(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped) {
		uint64_t d = dropped;

		put(PGK_DROPPED, &d, sizeof(d), NULL, 0);
	}
	drain();
	pthread_mutex_unlock(&lock);
	free(buffer);
}

/* ---- start and end ---- */

/* Copy /proc/self/maps to DIR/PID.maps, for profgpu to symbolize with. */
static void save_maps(void)
{
	char path[4200], tmp[4200], buf[65536];
	int in = open("/proc/self/maps", O_RDONLY | O_CLOEXEC), out;
	ssize_t r;

	snprintf(path, sizeof(path), "%s/%s.maps", dir, base);
	snprintf(tmp, sizeof(tmp), "%s/%s.maps.tmp", dir, base);
	if (in < 0)
		return;
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	while (out >= 0 && (r = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)r) != r)
			break;
	close(in);
	if (out >= 0 && close(out) == 0)
		rename(tmp, path);
	else
		unlink(tmp);
}

static void at_exit(void)
{
	if (!tracing)
		return;
	cu.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	tracing = 0;
	save_maps();
	pthread_mutex_lock(&lock);
	put(PGK_END, "", 0, NULL, 0);
	drain();
	close(out_fd);
	out_fd = -1;
	pthread_mutex_unlock(&lock);
}

/* A forked child has its parent's CUDA state, which it cannot use: it writes nothing. */
static void in_child(void)
{
	tracing = 0;
	out_len = 0;
	if (out_fd >= 0)
		close(out_fd);
	out_fd = -1;
}

/* Try path; 0 when it was loaded. */
static void *try_load(const char *path, int flags)
{
	return path && *path ? dlopen(path, RTLD_NOW | RTLD_GLOBAL | flags) : NULL;
}

static int wheel_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	static const char *const subs[] = { "cuda_cupti/lib/libcupti.so.12", "cu13/lib/libcupti.so.13",
					    "cuda_cupti/lib/libcupti.so.13" };
	const char *p = strstr(info->dlpi_name, "-packages/nvidia/");
	char path[4096];

	(void)size;
	if (!p)
		return 0;
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		snprintf(path, sizeof(path), "%.*s%s", (int)(p - info->dlpi_name) + 17, info->dlpi_name,
			 subs[i]);
		if ((*(void **)data = try_load(path, 0)))
			return 1;
	}
	return 0;
}

/*
 * libcupti: $PROFGPU_CUPTI; one already loaded (PyTorch loads its own);
 * the loader's path; the pip wheel beside a loaded nvidia/ package; the
 * toolkit's extras/CUPTI/lib64 under $CUDA_HOME, $CUDA_PATH, /usr/local/cuda.
 */
static void *load_cupti(char *tried, size_t cap)
{
	static const char *const sonames[] = { "libcupti.so.13", "libcupti.so.12", "libcupti.so" };
	const char *env = getenv("PROFGPU_CUPTI");
	const char *roots[] = { getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda" };
	char path[4096];
	void *h = NULL;
	size_t i, j;

	if (env && *env) {
		snprintf(tried, cap, "PROFGPU_CUPTI=%s", env);
		return try_load(env, 0);
	}
	for (i = 0; i < 3 && !h; i++)
		h = try_load(sonames[i], RTLD_NOLOAD);
	for (i = 0; i < 3 && !h; i++)
		h = try_load(sonames[i], 0);
	if (!h)
		dl_iterate_phdr(wheel_cb, &h);
	for (i = 0; i < 3 && !h; i++)
		for (j = 0; j < 3 && !h && roots[i]; j++) {
			snprintf(path, sizeof(path), "%s/extras/CUPTI/lib64/%s", roots[i], sonames[j]);
			h = try_load(path, 0);
		}
	snprintf(tried, cap, "the loader's path, the pip nvidia-cuda-cupti wheel, "
		 "$CUDA_HOME/extras/CUPTI/lib64, /usr/local/cuda/extras/CUPTI/lib64");
	return h;
}

static int resolve(void *h)
{
#define SYM(field, name) if (!(*(void **)&cu.field = dlsym(h, name))) { \
		fail("libcupti has no %s: not a CUPTI library this profgpu knows", name); return -1; }
	SYM(get_version, "cuptiGetVersion");
	SYM(subscribe, "cuptiSubscribe");
	SYM(enable_callback, "cuptiEnableCallback");
	SYM(activity_enable, "cuptiActivityEnable");
	SYM(register_callbacks, "cuptiActivityRegisterCallbacks");
	SYM(flush_all, "cuptiActivityFlushAll");
	SYM(next_record, "cuptiActivityGetNextRecord");
	SYM(dropped, "cuptiActivityGetNumDroppedRecords");
	SYM(timestamp, "cuptiGetTimestamp");
#undef SYM
	*(void **)&cu.result_string = dlsym(h, "cuptiGetResultString");
	return 0;
}

static int open_output(void)
{
	const char *d = getenv("PROFGPU_KERNELS_DIR");
	char path[4200];
	struct pgk_header *hd = &header;
	int fd;

	if (!d || !*d || strlen(d) >= sizeof(dir))
		return -1;	/* not started by profgpu: nowhere to say anything */
	snprintf(dir, sizeof(dir), "%s", d);
	/* an earlier image of this process (before an exec) may have written PID.rec */
	for (int n = 0; n < 100; n++) {
		if (n)
			snprintf(base, sizeof(base), "%d.%d", (int)getpid(), n);
		else
			snprintf(base, sizeof(base), "%d", (int)getpid());
		snprintf(path, sizeof(path), "%s/%s.rec", dir, base);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_APPEND, 0600);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0)
		return -1;
	memset(hd, 0, sizeof(*hd));
	memcpy(hd->magic, PGK_MAGIC, 8);
	hd->pid = (uint32_t)getpid();
	{
		int c = open("/proc/self/comm", O_RDONLY | O_CLOEXEC);
		ssize_t r = c >= 0 ? read(c, hd->comm, sizeof(hd->comm) - 1) : -1;

		if (r > 0 && hd->comm[r - 1] == '\n')
			hd->comm[r - 1] = 0;
		if (c >= 0)
			close(c);
	}
	if (write(fd, hd, sizeof(*hd)) != (ssize_t)sizeof(*hd)) {
		close(fd);
		return -1;
	}
	out_fd = fd;
	return 0;
}

/* Rewrite the header's version and clock offset once CUPTI answered. */
static void finish_header(uint32_t version)
{
	char path[4200];
	uint64_t a, c, b;
	int fd;

	a = mono_ns();
	cu.timestamp(&c);
	b = mono_ns();
	header.cupti_version = version;
	header.clock_offset = (int64_t)(a + (b - a) / 2) - (int64_t)c;
	/* out_fd appends (O_APPEND ignores pwrite's offset): the header through another */
	snprintf(path, sizeof(path), "%s/%s.rec", dir, base);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0 ||
	    pwrite(fd, &header, sizeof(header), 0) != (ssize_t)sizeof(header))
		fail("cannot write %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
}

static int start(void)
{
	char tried[4200];
	const char *u = getenv("PROFGPU_KERNELS_UNWIND");
	CUpti_SubscriberHandle sub;
	uint32_t version = 0;
	CUptiResult r;
	void *h;

	if (!(h = load_cupti(tried, sizeof(tried)))) {
		fail("CUPTI not found (tried %s): install the CUDA toolkit's CUPTI or "
		     "pip install nvidia-cuda-cupti-cu12, or set PROFGPU_CUPTI to libcupti.so", tried);
		return -1;
	}
	if (resolve(h) < 0)
		return -1;
	if ((r = cu.get_version(&version)) != CUPTI_SUCCESS) {
		fail("cuptiGetVersion failed: %s", result_name(r));
		return -1;
	}
	if (version < PGK_CUPTI_MIN ||
	    (version > PGK_CUPTI_MAX && !getenv("PROFGPU_CUPTI_ANY_VERSION"))) {
		fail("CUPTI API version %u is %s (this profgpu reads versions %d to %d, CUDA 12); "
		     "PROFGPU_CUPTI_ANY_VERSION=1 tries anyway", version,
		     version < PGK_CUPTI_MIN ? "too old" : "newer than profgpu knows",
		     PGK_CUPTI_MIN, PGK_CUPTI_MAX);
		return -1;
	}
	if ((r = cu.subscribe(&sub, on_api, NULL)) != CUPTI_SUCCESS) {
		fail(r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ?
		     "CUPTI is already in use by another profiler (nsys, ncu, a profiler in the program): %s" :
		     "cuptiSubscribe failed: %s", result_name(r));
		return -1;
	}
	for (int d = 0; d < 2; d++)
		for (int i = 0; i < 8; i++)
			cu.enable_callback(1, sub, d ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API,
					   traced_cbids[d][i]);
	if ((r = cu.register_callbacks(buffer_requested, buffer_completed)) != CUPTI_SUCCESS ||
	    (r = cu.activity_enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)) != CUPTI_SUCCESS ||
	    (r = cu.activity_enable(CUPTI_ACTIVITY_KIND_MEMCPY)) != CUPTI_SUCCESS ||
	    (r = cu.activity_enable(CUPTI_ACTIVITY_KIND_MEMSET)) != CUPTI_SUCCESS) {
		fail(r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ?
		     "CUPTI: %s (the driver restricts GPU profiling to root: NVreg_RestrictProfilingToAdminUsers=0)" :
		     "CUPTI activity tracing failed: %s", result_name(r));
		return -1;
	}
	use_dwarf = !(u && strcmp(u, "fp") == 0) && ph_unwind_dwarf_init() == 0;
	find_self();
	finish_header(version);
	return 0;
}

/* Called by the CUDA driver (CUDA_INJECTION64_PATH): 1 on success. */
EXPORT int InitializeInjection(void);
EXPORT int InitializeInjection(void)
{
	static int done;

	if (__atomic_exchange_n(&done, 1, __ATOMIC_SEQ_CST))
		return 1;
	if (open_output() < 0)
		return 0;
	if (start() < 0)
		return 0;
	pthread_atfork(NULL, NULL, in_child);
	atexit(at_exit);
	tracing = 1;
	return 1;
}
