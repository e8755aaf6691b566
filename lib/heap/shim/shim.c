/*
 * libprofheap.so: the heap profiler's preloaded shim (profheap(1)).
 *
 * Interposes the malloc family and C++ operator new/delete (and the exec
 * family, to note what replaces the image: see "exec" below), and records
 * per call stack: bytes and blocks allocated, live (leaked at exit), live
 * at the global peak, and temporary allocations, into a file mapped
 * MAP_SHARED (lib/heap/format.h) so that whatever happened is on disk
 * even when the process dies abnormally. A timer thread writes the
 * timeline. Configuration comes from the environment set by profheap:
 *   PROFHEAP_DIR        output directory (absent: the shim does nothing)
 *   PROFHEAP_RUN        run id written into every record file
 *   PROFHEAP_INTERVAL   timeline interval in ns (default 10 ms)
 *   PROFHEAP_SAMPLE     mean sampling interval in bytes (0/absent: exact)
 *   PROFHEAP_UNWIND     "fp" (default) or "dwarf"
 *   PROFHEAP_FOLLOW_FORK  "0": children of fork are not profiled
 *
 * Rules of the hot path: no allocation through the tracked heap, no
 * global lock. Stack ids come from a table read without locks (a spin
 * lock is taken only to add a new stack); counters are per thread; the
 * block table (address -> stack id, size) is split into 1024 shards with
 * one spin lock each; only the global live-bytes total is a shared
 * atomic. Anything the shim itself causes to be allocated (dlsym,
 * libunwind, pthread_create) runs with the thread's
 * guard set and goes straight to the real allocator, untracked.
 */
#include <alloca.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "heap/format.h"
#include "heap/shim/exec.h"
#include "heap/shim/stackwalk.h"

#define EXPORT __attribute__((visibility("default")))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define RELAXED __ATOMIC_RELAXED
#define ACQUIRE __ATOMIC_ACQUIRE
#define RELEASE __ATOMIC_RELEASE

extern char **environ;

/* ---- the real allocator ------------------------------------------------- */

static void *(*real_malloc)(size_t);
static void (*real_free)(void *);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void *(*real_memalign)(size_t, size_t);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_valloc)(size_t);
static void *(*real_pvalloc)(size_t);
/* Resolved with the allocator, not at the first exec: a child of vfork must not run dlsym. */
static int (*real_execve)(const char *, char *const[], char *const[]);
static int (*real_execvpe)(const char *, char *const[], char *const[]);
static int (*real_fexecve)(int, char *const[], char *const[]);

/* Served while dlsym resolves the functions above (it may call calloc). */
static char boot_arena[65536] __attribute__((aligned(64)));
static size_t boot_used;
static int resolving;

static int is_boot(const void *p)
{
	return (const char *)p >= boot_arena && (const char *)p < boot_arena + sizeof(boot_arena);
}

static void *boot_alloc(size_t n)
{
	size_t off = (__atomic_load_n(&boot_used, RELAXED) + 15) & ~(size_t)15;

	if (n > sizeof(boot_arena) - 16 || off + 16 + n > sizeof(boot_arena))
		return NULL;
	boot_used = off + 16 + n;
	*(size_t *)(boot_arena + off) = n;
	return boot_arena + off + 16;	/* zeroed: the arena is never reused */
}

static void resolve(void)
{
	if (resolving)
		return;
	resolving = 1;
	real_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
	real_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
	real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	real_memalign = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "memalign");
	real_posix_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
	real_aligned_alloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "aligned_alloc");
	real_valloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "valloc");
	real_pvalloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "pvalloc");
	real_execve = (int (*)(const char *, char *const[], char *const[]))dlsym(RTLD_NEXT, "execve");
	real_execvpe = (int (*)(const char *, char *const[], char *const[]))dlsym(RTLD_NEXT, "execvpe");
	real_fexecve = (int (*)(int, char *const[], char *const[]))dlsym(RTLD_NEXT, "fexecve");
	resolving = 0;
	if (!real_malloc || !real_free || !real_calloc || !real_realloc || !real_memalign) {
		static const char msg[] = "libprofheap: cannot find the real malloc\n";

		if (write(2, msg, sizeof(msg) - 1) < 0)
			_exit(127);
		_exit(127);
	}
}

/* ---- state -------------------------------------------------------------- */

struct tls {
	int guard;			/* >0: inside the shim, pass through */
	int pad;
	struct ph_thread *th;
	struct ph_counters *ctr;
	uint64_t cap;
	uintptr_t stack_lo, stack_hi;
	void *last_alloc;		/* for temporary allocations */
	int64_t sample_left;
	uint64_t rng;
};
static __thread struct tls T __attribute__((tls_model("initial-exec")));

static int active;			/* tracking on */
static int configured;			/* configure() ran (successfully or not) */
static char *base;			/* the mapped record file */
static struct ph_header *H;
static uint64_t reserve;
/*
 * Files are opened for each use and closed at once: a program may close
 * every descriptor it did not open, or reuse their numbers.
 */
static int timeline_ok;
/* One row at a time; after the exit's row, none (timeline_row()). */
static int tick_busy, timeline_done;
static char out_dir[4096];
static char failed_path[4200];		/* PROFHEAP_FAILED: marked when recording fails */
static char tag[64];
static uint64_t run_id;
static uint64_t interval_ns = 10000000;
static uint64_t sample_mean;
static double sample_mean_d;
/*
 * --unwind dwarf: want_dwarf is what was asked (configure()); use_dwarf
 * turns on only once libunwind is loaded (the constructor). Allocations
 * before it, such as libstdc++'s static initialiser's, are walked with
 * frame pointers: the first malloc may come before our constructor.
 */
static int want_dwarf, use_dwarf;
/*
 * 0 until our constructor ran: the loader is still running the
 * initialisers of the libraries it started before us (the C++ runtime's
 * emergency exception pool is allocated there). A frame-pointer walk cut
 * short then ends in PH_PC_STARTUP rather than PH_PC_TRUNCATED.
 */
static int started;
static int follow_fork = 1;
static uintptr_t self_lo, self_hi;	/* the shim's code */
static pthread_key_t thread_key;
static int key_ok;
static int timer_running;
static int boot_lock, maps_lock, stack_lock;
static unsigned long long dl_adds_seen;

/*
 * The executable segments of the loaded objects, for the frame-pointer
 * walk (a return address elsewhere is garbage). Two tables: the walk
 * reads the published one without a lock while code_rebuild() fills the
 * other: at start, and when a walk meets an unknown return address while
 * the loader's list of objects has changed (dlopen).
 */
#define CODE_MAX 1024
static struct ph_code_range code_tab[2][CODE_MAX];
static unsigned code_n[2];
static int code_cur;
static int code_lock;
static unsigned code_objects;		/* objects on the loader's list at the last build */
static int map_readers, map_closing;	/* the loader's list is read; dlclose waits */
static int code_refresh(void);

static __attribute__((noinline)) void spin_wait(int *l)
{
	unsigned spins = 0;

	while (__atomic_exchange_n(l, 1, ACQUIRE)) {
		while (__atomic_load_n(l, RELAXED)) {
			if (++spins > 200) {
				sched_yield();
				spins = 0;
			} else {
				__builtin_ia32_pause();
			}
		}
	}
}

static inline void spin_lock(int *l)
{
	if (unlikely(__atomic_exchange_n(l, 1, ACQUIRE)))
		spin_wait(l);
}

static inline void spin_unlock(int *l)
{
	__atomic_store_n(l, 0, RELEASE);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void say(const char *a, const char *b)
{
	char buf[512];
	size_t n = 0, l;

	l = strlen("libprofheap: ");
	memcpy(buf, "libprofheap: ", l);
	n = l;
	l = strlen(a);
	if (l > 200)
		l = 200;
	memcpy(buf + n, a, l), n += l;
	if (b) {
		l = strlen(b);
		if (l > 250)
			l = 250;
		memcpy(buf + n, ": ", 2), n += 2;
		memcpy(buf + n, b, l), n += l;
	}
	buf[n++] = '\n';
	if (write(2, buf, n) < 0)
		return;
}

/* ---- arena in the record file ------------------------------------------- */

static char *file_path(char *buf, size_t n, const char *suffix);
static uint64_t backed;			/* bytes of the record file given disk blocks */
static int backed_lock;

/*
 * Reserve disk blocks for the record file up to end (in 1 MiB steps), so
 * that a full disk makes the shim stop recording instead of killing the
 * program with SIGBUS on its next store into the mapping. Returns 0 or -1.
 */
/*
 * Say that this process could not record everything: profheap then exits
 * 1. The file exists with one byte, overwritten in place (no free space
 * needed); raw system calls, as on the malloc path.
 */
static void mark_failed(void)
{
	int fd;

	if (!failed_path[0])
		return;
	fd = (int)syscall(SYS_openat, AT_FDCWD, failed_path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		syscall(SYS_pwrite64, fd, "1", 1, 0);
		syscall(SYS_close, fd);
	}
}

static int back_file(uint64_t end)
{
	char path[4200];
	int fd, r = 0;

	if (__atomic_load_n(&backed, ACQUIRE) >= end)
		return 0;
	spin_lock(&backed_lock);
	if (backed < end) {
		uint64_t want = (end + (1u << 20) - 1) & ~(uint64_t)((1u << 20) - 1);

		if (want > reserve)
			want = reserve;
		if (!file_path(path, sizeof(path), ".heap") ||
		    (fd = open(path, O_WRONLY | O_CLOEXEC)) < 0) {
			r = -1;
		} else {
			if (fallocate(fd, 0, (off_t)backed, (off_t)(want - backed)) == 0)
				__atomic_store_n(&backed, want, RELEASE);
			else if (errno == EOPNOTSUPP || errno == ENOSYS)
				__atomic_store_n(&backed, reserve, RELEASE);	/* cannot tell: go on */
			else
				r = -1;
			close(fd);
		}
	}
	spin_unlock(&backed_lock);
	if (r < 0)
		mark_failed();
	return r;
}

static void *arena_alloc(size_t n, uint64_t *off_out)
{
	uint64_t off = __atomic_fetch_add(&H->used, (n + 63) & ~(size_t)63, RELAXED);

	if (off + n > reserve || back_file(off + n) < 0)
		return NULL;
	*off_out = off;
	return base + off;
}

static void *at(uint64_t off)
{
	return base + off;
}

/* ---- block table: address -> (stack id, size) ---------------------------- */

#define NSHARD 1024
#define TOMB ((uintptr_t)1)

struct pent {
	uintptr_t key;
	uint64_t info;			/* size << 24 | stack id */
};

struct pshard {
	int lock;
	int pad;
	struct pent *e;
	uint64_t mask, used, count;
	char pad2[24];
};

static struct pshard *shards;
static struct pent *shard_slab;		/* the first SHARD_INIT entries of every shard */
#define SHARD_INIT 16
static unsigned char *filter;		/* sampled mode: counting filter of sampled blocks */
#define FILTER_BITS 15	/* 32 KiB: stays in the L1/L2 cache */

static inline uint64_t addr_hash(const void *p)
{
	return ((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ULL;
}

static void *map_anon(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static int shard_grow(struct pshard *s)
{
	uint64_t cap = 256, i, j;
	struct pent *e;

	if (!s->e) {
		/* First use: a slot of the shared slab, no system call. */
		s->e = shard_slab + (uint64_t)(s - shards) * SHARD_INIT;
		s->mask = SHARD_INIT - 1;
		return 0;
	}
	while (cap < s->count * 4)
		cap *= 2;
	e = map_anon(cap * sizeof(*e));
	if (!e)
		return -1;
	for (i = 0; s->e && i <= s->mask; i++) {
		uintptr_t k = s->e[i].key;

		if (k <= TOMB)
			continue;
		j = (addr_hash((void *)k) >> 20) & (cap - 1);
		while (e[j].key)
			j = (j + 1) & (cap - 1);
		e[j] = s->e[i];
	}
	if (s->mask + 1 > SHARD_INIT)
		munmap(s->e, (s->mask + 1) * sizeof(*e));
	s->e = e;
	s->mask = cap - 1;
	s->used = s->count;
	return 0;
}

static int table_insert(const void *p, uint64_t info)
{
	uint64_t h = addr_hash(p), i;
	struct pshard *s = &shards[h >> (64 - 10)];

	spin_lock(&s->lock);
	if (!s->e || (s->used + 1) * 4 > (s->mask + 1) * 3) {
		if (shard_grow(s) < 0) {
			spin_unlock(&s->lock);
			return -1;
		}
	}
	i = (h >> 20) & s->mask;
	while (s->e[i].key > TOMB)
		i = (i + 1) & s->mask;
	if (!s->e[i].key)
		s->used++;
	s->e[i].key = (uintptr_t)p;
	s->e[i].info = info;
	s->count++;
	spin_unlock(&s->lock);
	return 0;
}

static int table_remove(const void *p, uint64_t *info)
{
	uint64_t h = addr_hash(p), i;
	struct pshard *s = &shards[h >> (64 - 10)];
	int found = 0;

	spin_lock(&s->lock);
	if (s->e) {
		i = (h >> 20) & s->mask;
		for (;;) {
			uintptr_t k = s->e[i].key;

			if (!k)
				break;
			if (k == (uintptr_t)p) {
				*info = s->e[i].info;
				s->e[i].key = TOMB;
				s->count--;
				found = 1;
				break;
			}
			i = (i + 1) & s->mask;
		}
	}
	spin_unlock(&s->lock);
	return found;
}

static void tables_reset(void)
{
	unsigned i;

	for (i = 0; i < NSHARD; i++) {
		if (shards[i].e && shards[i].mask + 1 > SHARD_INIT)
			munmap(shards[i].e, (shards[i].mask + 1) * sizeof(struct pent));
		memset(&shards[i], 0, sizeof(shards[i]));
	}
	memset(shard_slab, 0, NSHARD * SHARD_INIT * sizeof(struct pent));
	if (filter)
		madvise(filter, 1u << FILTER_BITS, MADV_DONTNEED);
}

/* ---- stack table ---------------------------------------------------------- */

struct sindex {
	uint64_t mask, count;
	uint32_t slots[];		/* stack id + 1, 0 empty */
};
static struct sindex *sidx;

static inline struct ph_stack *stack_rec(uint32_t id)
{
	const uint64_t *dir = (const uint64_t *)(base + H->stack_dir[id / PH_DIR_CHUNK]);

	return (struct ph_stack *)(base + dir[id % PH_DIR_CHUNK]);
}

static inline uint64_t stack_hash(const uint64_t *pcs, unsigned n)
{
	uint64_t h = 0x243F6A8885A308D3ULL ^ n;
	unsigned i;

	for (i = 0; i < n; i++) {
		h ^= pcs[i];
		h *= 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	return h;
}

static uint32_t sidx_probe(const struct sindex *ix, uint64_t h, const uint64_t *pcs, unsigned n)
{
	uint64_t i = h & ix->mask;

	for (;;) {
		uint32_t v = __atomic_load_n(&ix->slots[i], ACQUIRE);
		const struct ph_stack *r;

		if (!v)
			return UINT32_MAX;
		r = stack_rec(v - 1);
		if (r->hash == h && r->depth == n) {
			unsigned k = 0;

			while (k < n && r->pcs[k] == pcs[k])
				k++;
			if (k == n)
				return v - 1;
		}
		i = (i + 1) & ix->mask;
	}
}

static struct sindex *sidx_new(uint64_t cap)
{
	struct sindex *ix = map_anon(sizeof(*ix) + cap * sizeof(uint32_t));

	if (ix)
		ix->mask = cap - 1;
	return ix;
}

static void sidx_put(struct sindex *ix, uint64_t h, uint32_t id)
{
	uint64_t i = h & ix->mask;

	while (ix->slots[i])
		i = (i + 1) & ix->mask;
	__atomic_store_n(&ix->slots[i], id + 1, RELEASE);
	ix->count++;
}

/* Add a stack (stack_lock held); returns its id, or 0 when full. */
static uint32_t stack_add(uint64_t h, const uint64_t *pcs, unsigned n)
{
	uint64_t id = H->nstacks, off, doff;
	struct ph_stack *r;
	uint64_t *dir;

	if (id >= PH_MAX_STACKS)
		goto full;
	if (!H->stack_dir[id / PH_DIR_CHUNK]) {
		if (!arena_alloc(PH_DIR_CHUNK * sizeof(uint64_t), &doff))
			goto full;
		__atomic_store_n(&H->stack_dir[id / PH_DIR_CHUNK], doff, RELEASE);
	}
	r = arena_alloc(sizeof(*r) + n * sizeof(*pcs), &off);
	if (!r)
		goto full;
	r->hash = h;
	r->depth = n;
	memcpy(r->pcs, pcs, n * sizeof(*pcs));
	dir = at(H->stack_dir[id / PH_DIR_CHUNK]);
	__atomic_store_n(&dir[id % PH_DIR_CHUNK], off, RELEASE);
	__atomic_store_n(&H->nstacks, id + 1, RELEASE);
	if ((sidx->count + 1) * 2 > sidx->mask + 1) {
		struct sindex *nx = sidx_new((sidx->mask + 1) * 2);
		uint64_t k;

		if (nx) {
			for (k = 0; k < id; k++)
				sidx_put(nx, stack_rec((uint32_t)k)->hash, (uint32_t)k);
			/* The old index stays mapped: readers may still probe it. */
			__atomic_store_n(&sidx, nx, RELEASE);
		}
	}
	sidx_put(sidx, h, (uint32_t)id);
	return (uint32_t)id;
full:
	__atomic_fetch_or(&H->flags, PH_FLAG_FULL, RELAXED);
	return 0;
}

static uint32_t stack_id(const uint64_t *pcs, unsigned n)
{
	uint64_t h = stack_hash(pcs, n);
	uint32_t id = sidx_probe(__atomic_load_n(&sidx, ACQUIRE), h, pcs, n);

	if (likely(id != UINT32_MAX))
		return id;
	spin_lock(&stack_lock);
	id = sidx_probe(sidx, h, pcs, n);
	if (id == UINT32_MAX)
		id = stack_add(h, pcs, n);
	spin_unlock(&stack_lock);
	return id;
}

/* ---- threads -------------------------------------------------------------- */

static void thread_release(void *arg)
{
	struct ph_thread *th = arg;

	if (th && th == T.th) {
		T.th = NULL;
		T.ctr = NULL;
		T.cap = 0;
		__atomic_store_n(&th->in_use, 0, RELEASE);
	}
}

static void draw_sample(void)
{
	double u;

	T.rng ^= T.rng << 13;
	T.rng ^= T.rng >> 7;
	T.rng ^= T.rng << 17;
	u = ((T.rng >> 11) + 0.5) * (1.0 / 9007199254740992.0);
	T.sample_left += (int64_t)(-log(u) * sample_mean_d) + 1;
}

/* Raw system calls: the malloc path calls nothing in glibc that may lock or allocate. */
static long raw_open(const char *path)
{
	return syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
}

static long raw_read(int fd, char *buf, size_t n)
{
	long r;

	do
		r = syscall(SYS_read, fd, buf, n);
	while (r < 0 && errno == EINTR);
	return r;
}

static uintptr_t hex_field(const char **p, const char *end)
{
	uintptr_t v = 0;

	for (; *p < end; (*p)++) {
		char c = **p;

		if (c >= '0' && c <= '9')
			v = v << 4 | (uintptr_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v << 4 | (uintptr_t)(c - 'a' + 10);
		else
			break;
	}
	return v;
}

/*
 * Call fn for each line of /proc/self/maps (lo, hi, the rest of the line
 * from the permissions on) until it returns nonzero, reading with raw
 * system calls into a stack buffer: usable on the malloc path, where
 * nothing in glibc that may lock or allocate can be called. Returns -1
 * when /proc cannot be read, else fn's last value.
 */
static int maps_each(int (*fn)(uintptr_t lo, uintptr_t hi, const char *rest, size_t len, void *arg),
		     void *arg)
{
	char buf[4096];
	size_t have = 0;
	int fd = (int)raw_open("/proc/self/maps"), r = 0;

	if (fd < 0)
		return -1;
	while (!r) {
		long got = raw_read(fd, buf + have, sizeof(buf) - have);
		const char *p = buf, *end, *nl;

		if (got <= 0)
			break;
		end = buf + have + (size_t)got;
		while (!r && (nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
			uintptr_t lo = hex_field(&p, nl), hi;

			if (p < nl && *p == '-')
				p++;
			hi = hex_field(&p, nl);
			if (p < nl && *p == ' ')
				p++;
			r = fn(lo, hi, p, (size_t)(nl - p), arg);
			p = nl + 1;
		}
		have = (size_t)(end - p);
		if (have == sizeof(buf))
			have = 0;	/* a line longer than the buffer: drop it */
		memmove(buf, p, have);
	}
	syscall(SYS_close, fd);
	return r;
}

struct stack_find {
	uintptr_t sp, lo, hi;
};

static int stack_line(uintptr_t lo, uintptr_t hi, const char *rest, size_t len, void *arg)
{
	struct stack_find *sf = arg;

	if (sf->sp < lo || sf->sp >= hi)
		return 0;
	if (len >= 7 && !memcmp(rest + len - 7, "[stack]", 7)) {
		/* The main thread's stack grows down to the stack limit. */
		struct rlimit rl;
		uintptr_t max = 64u << 20;

		if (syscall(SYS_getrlimit, RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
		    rl.rlim_cur < max)
			max = (uintptr_t)rl.rlim_cur;
		lo = hi - max < hi ? hi - max : 0;
		if (lo > sf->sp)
			lo = sf->sp & ~(uintptr_t)4095;
	}
	sf->lo = lo;
	sf->hi = hi;
	return 1;
}

/*
 * The bounds of the stack holding address sp: the mapping that contains
 * it (pthread_getattr_np takes a glibc lock and calls malloc: a program
 * calling it, as Rust's runtime does at start-up, would deadlock the
 * shim). Returns 0, or -1 (no /proc).
 */
static int stack_bounds(uintptr_t sp, uintptr_t *lo_out, uintptr_t *hi_out)
{
	struct stack_find sf = { sp, 0, 0 };

	if (maps_each(stack_line, &sf) != 1)
		return -1;
	*lo_out = sf.lo;
	*hi_out = sf.hi;
	return 0;
}

static int thread_attach(void)
{
	struct ph_thread *th = NULL;
	uint32_t i, n;
	uint64_t off;

	T.guard++;
	if (!T.stack_hi)
		stack_bounds((uintptr_t)__builtin_frame_address(0), &T.stack_lo, &T.stack_hi);
	n = __atomic_load_n(&H->nthreads, ACQUIRE);
	for (i = 0; i < n && !th; i++) {
		uint64_t o = __atomic_load_n(&H->threads[i], ACQUIRE);
		struct ph_thread *t;
		uint32_t zero = 0;

		if (!o)
			continue;
		t = at(o);
		if (!__atomic_load_n(&t->in_use, RELAXED) &&
		    __atomic_compare_exchange_n(&t->in_use, &zero, 1, 0, ACQUIRE, RELAXED))
			th = t;
	}
	if (!th) {
		i = __atomic_fetch_add(&H->nthreads, 1, RELAXED);
		if (i >= PH_MAX_THREADS || !(th = arena_alloc(sizeof(*th), &off))) {
			T.guard--;
			return -1;
		}
		th->in_use = 1;
		__atomic_store_n(&H->threads[i], off, RELEASE);
	}
	th->tid = (int32_t)syscall(SYS_gettid);
	T.th = th;
	T.cap = __atomic_load_n(&th->cap, ACQUIRE);
	T.ctr = T.cap ? at(th->counters) : NULL;
	if (key_ok)
		pthread_setspecific(thread_key, th);
	if (sample_mean) {
		T.rng = now_ns() ^ ((uint64_t)th->tid << 32) ^ (uintptr_t)&T;
		if (!T.rng)
			T.rng = 1;
		T.sample_left = 0;
		draw_sample();
	}
	T.guard--;
	return 0;
}

static struct ph_counters *counters_grow(uint32_t id)
{
	uint64_t cap = T.cap ? T.cap * 2 : 1024, off;
	struct ph_counters *c;

	while (cap <= id)
		cap *= 2;
	c = arena_alloc(cap * sizeof(*c), &off);
	if (!c)
		return NULL;
	if (T.cap)
		memcpy(c, T.ctr, T.cap * sizeof(*c));
	T.th->counters = off;
	__atomic_store_n(&T.th->cap, cap, RELEASE);
	T.ctr = c;
	T.cap = cap;
	return c + id;
}

static inline struct ph_counters *counters(uint32_t id)
{
	if (likely(id < T.cap))
		return T.ctr + id;
	return counters_grow(id);
}

/* Apply a change of live bytes/blocks to one entry, snapshotting at a committed peak. */
static inline void entry_live(struct ph_counters *c, int64_t bytes, int64_t blocks)
{
	uint64_t g = __atomic_load_n(&H->peak_gen, ACQUIRE);

	if (unlikely(c->gen != g)) {
		c->peak_bytes = c->live_bytes;
		c->gen = g;
	}
	c->live_bytes += bytes;
	c->live_blocks += blocks;
}

/* ---- recording -------------------------------------------------------------- */

/* Estimated weight of a sampled block of n bytes: bytes and count units. */
static void sample_weight(uint64_t n, int64_t *bytes, int64_t *units)
{
	double p = -expm1(-(double)n / sample_mean_d);

	if (p <= 0)
		p = 1e-300;
	*bytes = (int64_t)llround((double)n / p);
	*units = (int64_t)llround((double)H->count_unit / p);
}

/*
 * Count a sampled block in (delta 1) or out (-1) of the filter. A counter
 * that reached 255 stays there for good (it only costs table lookups).
 */
static void filter_add(const void *p, int delta)
{
	unsigned char *f = &filter[addr_hash(p) >> (64 - FILTER_BITS)];
	unsigned char v = __atomic_load_n(f, RELAXED);

	do {
		if (v == 255 || (delta < 0 && v == 0))
			return;
	} while (!__atomic_compare_exchange_n(f, &v, (unsigned char)(v + delta), 1, RELAXED, RELAXED));
}

static __attribute__((noinline)) void record_alloc(void *p, size_t n)
{
	uint64_t pcs[PH_MAX_DEPTH];
	unsigned depth;
	uint32_t id;
	struct ph_counters *c;
	int64_t wb = (int64_t)n, wn = 1;
	uint64_t live, peak;

	if (unlikely(!T.th) && thread_attach() < 0)
		return;
	if (__atomic_load_n(&use_dwarf, ACQUIRE))
		depth = ph_unwind_dwarf(pcs, PH_MAX_DEPTH, self_lo, self_hi);
	else {
		int cur = __atomic_load_n(&code_cur, ACQUIRE);

		depth = ph_unwind_fp(pcs, PH_MAX_DEPTH, T.stack_lo, T.stack_hi, self_lo, self_hi,
				     code_tab[cur], code_n[cur]);
		if ((!depth || pcs[depth - 1] == PH_PC_TRUNCATED) && code_refresh()) {
			cur = __atomic_load_n(&code_cur, ACQUIRE);
			depth = ph_unwind_fp(pcs, PH_MAX_DEPTH, T.stack_lo, T.stack_hi, self_lo,
					     self_hi, code_tab[cur], code_n[cur]);
		}
		if (unlikely(!__atomic_load_n(&started, RELAXED)) && depth &&
		    pcs[depth - 1] == PH_PC_TRUNCATED)
			pcs[depth - 1] = PH_PC_STARTUP;
	}
	id = stack_id(pcs, depth);
	c = counters(id);
	if (unlikely(!c))
		return;
	if (sample_mean)
		sample_weight(n, &wb, &wn);
	else
		T.th->alloc_bytes += n, T.th->alloc_count++;
	if (table_insert(p, (uint64_t)n << 24 | id) < 0)
		return;
	c->alloc_bytes += (uint64_t)wb;
	c->alloc_count += (uint64_t)wn;
	entry_live(c, wb, wn);
	T.th->live_blocks += wn;
	if (sample_mean)
		filter_add(p, 1);
	T.last_alloc = p;
	live = __atomic_add_fetch(&H->live_bytes, (uint64_t)wb, RELAXED);
	peak = __atomic_load_n(&H->peak_bytes, RELAXED);
	while ((int64_t)live > (int64_t)peak) {
		if (__atomic_compare_exchange_n(&H->peak_bytes, &peak, live, 1, RELAXED, RELAXED)) {
			if (!__atomic_load_n(&H->peak_pending, RELAXED))
				__atomic_store_n(&H->peak_pending, 1, RELAXED);
			break;
		}
	}
}

static void account_free(uint64_t info, int temp)
{
	uint32_t id = (uint32_t)(info & 0xffffff);
	uint64_t n = info >> 24;
	struct ph_counters *c;
	int64_t wb = (int64_t)n, wn = 1;

	if (unlikely(!T.th) && thread_attach() < 0)
		return;
	c = counters(id);
	if (unlikely(!c))
		return;
	if (sample_mean)
		sample_weight(n, &wb, &wn);
	/* The first drop after a new maximum commits the peak (before this free). */
	if (unlikely(__atomic_load_n(&H->peak_pending, RELAXED)) &&
	    __atomic_exchange_n(&H->peak_pending, 0, RELAXED))
		__atomic_add_fetch(&H->peak_gen, 1, RELEASE);
	entry_live(c, -wb, -wn);
	if (temp) {
		c->temp_bytes += (uint64_t)wb;
		c->temp_count += (uint64_t)wn;
	}
	T.th->live_blocks -= wn;
	__atomic_sub_fetch(&H->live_bytes, (uint64_t)wb, RELAXED);
}

/* Remove p from the block table if we know it; returns 1 and its info. */
static inline int forget(void *p, uint64_t *info)
{
	if (sample_mean) {
		unsigned char *f = &filter[addr_hash(p) >> (64 - FILTER_BITS)];
		unsigned char v = __atomic_load_n(f, RELAXED);

		if (likely(!v))
			return 0;
		if (!table_remove(p, info))
			return 0;
		filter_add(p, -1);
		return 1;
	}
	if (table_remove(p, info))
		return 1;
	__atomic_fetch_add(&H->unknown_frees, 1, RELAXED);
	return 0;
}

static void configure(void);

/* Decide whether an allocation of n bytes is recorded (sampling) and count it. */
static inline int wanted(size_t n)
{
	if (T.guard)
		return 0;
	if (unlikely(!configured))
		configure();
	if (!active)
		return 0;
	if (!sample_mean)
		return 1;
	if (unlikely(!T.th) && thread_attach() < 0)
		return 0;
	T.th->alloc_bytes += n;
	T.th->alloc_count++;
	T.sample_left -= (int64_t)n;
	if (likely(T.sample_left > 0)) {
		T.last_alloc = NULL;	/* an allocation came between: not temporary */
		return 0;
	}
	while (T.sample_left <= 0)
		draw_sample();
	return 1;
}

static inline void *track(void *p, size_t n)
{
	if (p) {
		T.guard++;
		record_alloc(p, n);
		T.guard--;
	}
	return p;
}

static void free_impl(void *p)
{
	uint64_t info;

	if (!p || unlikely(is_boot(p)))
		return;
	if (!real_free)
		resolve();
	if (!active || T.guard) {
		real_free(p);
		return;
	}
	/* Sampling: most blocks were not sampled, and the filter says so. */
	if (sample_mean && likely(!__atomic_load_n(&filter[addr_hash(p) >> (64 - FILTER_BITS)], RELAXED))) {
		real_free(p);
		return;
	}
	T.guard++;
	if (forget(p, &info)) {
		account_free(info, p == T.last_alloc);
		T.last_alloc = NULL;
	}
	real_free(p);
	T.guard--;
}

/* ---- the interposed functions ----------------------------------------------- */

EXPORT void *malloc(size_t n)
{
	if (unlikely(!real_malloc)) {
		if (resolving)
			return boot_alloc(n);
		resolve();
	}
	if (!wanted(n))
		return real_malloc(n);
	return track(real_malloc(n), n);
}

EXPORT void free(void *p)
{
	free_impl(p);
}

EXPORT void *calloc(size_t a, size_t b)
{
	size_t n;

	if (__builtin_mul_overflow(a, b, &n)) {
		errno = ENOMEM;
		return NULL;
	}
	if (unlikely(!real_calloc)) {
		if (resolving)
			return boot_alloc(n);
		resolve();
	}
	if (!wanted(n))
		return real_calloc(a, b);
	return track(real_calloc(a, b), n);
}

static void *realloc_impl(void *p, size_t n)
{
	uint64_t info = 0;
	int known;
	void *q;

	if (unlikely(is_boot(p))) {
		size_t old = *(size_t *)((char *)p - 16);

		q = malloc(n);
		if (q)
			memcpy(q, p, old < n ? old : n);
		return q;
	}
	if (!p)
		return malloc(n);
	if (unlikely(!real_realloc))
		resolve();
	if (!configured)
		configure();
	if (!active || T.guard)
		return real_realloc(p, n);
	T.guard++;
	known = forget(p, &info);
	q = real_realloc(p, n);
	if (!q && n) {
		/* Failed: p is still allocated. */
		if (known)
			table_insert(p, info);
		T.guard--;
		return NULL;
	}
	if (known)
		account_free(info, 0);
	T.guard--;
	if (q && wanted(n))
		track(q, n);
	return q;
}

EXPORT void *realloc(void *p, size_t n)
{
	return realloc_impl(p, n);
}

EXPORT void *reallocarray(void *p, size_t a, size_t b)
{
	size_t n;

	if (__builtin_mul_overflow(a, b, &n)) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc_impl(p, n);
}

static void *aligned_impl(size_t align, size_t n)
{
	if (unlikely(!real_memalign))
		resolve();
	if (!wanted(n))
		return real_memalign(align, n);
	return track(real_memalign(align, n), n);
}

EXPORT void *memalign(size_t align, size_t n)
{
	return aligned_impl(align, n);
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	void *p;
	int r;

	if (unlikely(!real_posix_memalign))
		resolve();
	if (!wanted(n))
		return real_posix_memalign(out, align, n);
	r = real_posix_memalign(&p, align, n);
	if (r == 0) {
		track(p, n);
		*out = p;
	}
	return r;
}

EXPORT void *aligned_alloc(size_t align, size_t n)
{
	if (unlikely(!real_aligned_alloc))
		resolve();
	if (!wanted(n))
		return real_aligned_alloc(align, n);
	return track(real_aligned_alloc(align, n), n);
}

EXPORT void *valloc(size_t n)
{
	if (unlikely(!real_valloc))
		resolve();
	if (!wanted(n))
		return real_valloc(n);
	return track(real_valloc(n), n);
}

EXPORT void *pvalloc(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), r;

	if (unlikely(!real_pvalloc))
		resolve();
	r = n ? (n + page - 1) & ~(page - 1) : page;
	if (r < n) {
		errno = ENOMEM;
		return NULL;
	}
	if (!wanted(r))
		return real_pvalloc(n);
	return track(real_pvalloc(n), r);
}

/* ---- dlclose: keep the mappings of a library about to go ----------------- */

static void save_maps(void);

EXPORT int dlclose(void *handle)
{
	static int (*real_dlclose)(void *);
	int r;

	if (!real_dlclose)
		real_dlclose = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
	if (active && !T.guard) {
		/* Its code may be on recorded stacks: save where it was mapped. */
		T.guard++;
		save_maps();
		T.guard--;
	}
	/* No walk of the loader's list while nodes may be freed. */
	__atomic_add_fetch(&map_closing, 1, ACQUIRE);
	while (__atomic_load_n(&map_readers, ACQUIRE))
		sched_yield();
	r = real_dlclose ? real_dlclose(handle) : -1;
	__atomic_sub_fetch(&map_closing, 1, RELEASE);
	return r;
}

/* ---- C++ operator new / delete (Itanium mangled names) ------------------- */

void *_Znwm(size_t);
void *_Znam(size_t);
void *_ZnwmRKSt9nothrow_t(size_t, const void *);
void *_ZnamRKSt9nothrow_t(size_t, const void *);
void *_ZnwmSt11align_val_t(size_t, size_t);
void *_ZnamSt11align_val_t(size_t, size_t);
void *_ZnwmSt11align_val_tRKSt9nothrow_t(size_t, size_t, const void *);
void *_ZnamSt11align_val_tRKSt9nothrow_t(size_t, size_t, const void *);
void _ZdlPv(void *);
void _ZdaPv(void *);
void _ZdlPvm(void *, size_t);
void _ZdaPvm(void *, size_t);
void _ZdlPvRKSt9nothrow_t(void *, const void *);
void _ZdaPvRKSt9nothrow_t(void *, const void *);
void _ZdlPvSt11align_val_t(void *, size_t);
void _ZdaPvSt11align_val_t(void *, size_t);
void _ZdlPvmSt11align_val_t(void *, size_t, size_t);
void _ZdaPvmSt11align_val_t(void *, size_t, size_t);
void _ZdlPvSt11align_val_tRKSt9nothrow_t(void *, size_t, const void *);
void _ZdaPvSt11align_val_tRKSt9nothrow_t(void *, size_t, const void *);

typedef void (*new_handler_fn)(void);

static __attribute__((noreturn)) void throw_bad_alloc(void)
{
	void (*thr)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "_ZSt17__throw_bad_allocv");

	if (thr)
		thr();
	say("out of memory in operator new", NULL);
	abort();
}

static void *new_impl(size_t n, size_t align, int nothrow)
{
	static new_handler_fn (*get_handler)(void);
	void *p;

	if (!n)
		n = 1;
	for (;;) {
		p = align ? aligned_impl(align, n) : malloc(n);
		if (p)
			return p;
		if (!get_handler)
			get_handler = (new_handler_fn (*)(void))dlsym(RTLD_DEFAULT,
								   "_ZSt15get_new_handlerv");
		if (!get_handler || !get_handler()) {
			if (nothrow)
				return NULL;
			throw_bad_alloc();
		}
		get_handler()();
	}
}

EXPORT void *_Znwm(size_t n) { return new_impl(n, 0, 0); }
EXPORT void *_Znam(size_t n) { return new_impl(n, 0, 0); }
EXPORT void *_ZnwmRKSt9nothrow_t(size_t n, const void *t) { (void)t; return new_impl(n, 0, 1); }
EXPORT void *_ZnamRKSt9nothrow_t(size_t n, const void *t) { (void)t; return new_impl(n, 0, 1); }
EXPORT void *_ZnwmSt11align_val_t(size_t n, size_t al) { return new_impl(n, al, 0); }
EXPORT void *_ZnamSt11align_val_t(size_t n, size_t al) { return new_impl(n, al, 0); }
EXPORT void *_ZnwmSt11align_val_tRKSt9nothrow_t(size_t n, size_t al, const void *t)
{
	(void)t;
	return new_impl(n, al, 1);
}
EXPORT void *_ZnamSt11align_val_tRKSt9nothrow_t(size_t n, size_t al, const void *t)
{
	(void)t;
	return new_impl(n, al, 1);
}
EXPORT void _ZdlPv(void *p) { free_impl(p); }
EXPORT void _ZdaPv(void *p) { free_impl(p); }
EXPORT void _ZdlPvm(void *p, size_t n) { (void)n; free_impl(p); }
EXPORT void _ZdaPvm(void *p, size_t n) { (void)n; free_impl(p); }
EXPORT void _ZdlPvRKSt9nothrow_t(void *p, const void *t) { (void)t; free_impl(p); }
EXPORT void _ZdaPvRKSt9nothrow_t(void *p, const void *t) { (void)t; free_impl(p); }
EXPORT void _ZdlPvSt11align_val_t(void *p, size_t al) { (void)al; free_impl(p); }
EXPORT void _ZdaPvSt11align_val_t(void *p, size_t al) { (void)al; free_impl(p); }
EXPORT void _ZdlPvmSt11align_val_t(void *p, size_t n, size_t al)
{
	(void)n, (void)al;
	free_impl(p);
}
EXPORT void _ZdaPvmSt11align_val_t(void *p, size_t n, size_t al)
{
	(void)n, (void)al;
	free_impl(p);
}
EXPORT void _ZdlPvSt11align_val_tRKSt9nothrow_t(void *p, size_t al, const void *t)
{
	(void)al, (void)t;
	free_impl(p);
}
EXPORT void _ZdaPvSt11align_val_tRKSt9nothrow_t(void *p, size_t al, const void *t)
{
	(void)al, (void)t;
	free_impl(p);
}

/* ---- files ------------------------------------------------------------------ */

static size_t cat(char *dst, size_t n, const char *a, const char *b, const char *c)
{
	size_t la = strlen(a), lb = strlen(b), lc = strlen(c);

	if (la + lb + lc + 1 > n)
		return 0;
	memcpy(dst, a, la);
	memcpy(dst + la, b, lb);
	memcpy(dst + la + lb, c, lc + 1);
	return la + lb + lc;
}

static char *utoa(char *end, uint64_t v)
{
	*--end = 0;
	do
		*--end = (char)('0' + v % 10);
	while (v /= 10);
	return end;
}

static char *itoa64(char *end, int64_t v)
{
	char *p;

	if (v >= 0)
		return utoa(end, (uint64_t)v);
	p = utoa(end, (uint64_t)-v);
	*--p = '-';
	return p;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w, n -= (size_t)w;
	}
	return 0;
}

static char *file_path(char *buf, size_t n, const char *suffix)
{
	char t[128];

	if (!cat(t, sizeof(t), "/", tag, suffix) || !cat(buf, n, out_dir, t, ""))
		return NULL;
	return buf;
}

/* Append (or with trunc, write) data to DIR/TAG.suffix. */
static int append_file(const char *suffix, const char *data, size_t len, int trunc)
{
	char path[4200];
	int fd, r;

	if (!file_path(path, sizeof(path), suffix))
		return -1;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (trunc ? O_TRUNC : 0), 0644);
	if (fd < 0) {
		if (trunc)
			say(path, strerror(errno));
		mark_failed();
		return -1;
	}
	r = write_all(fd, data, len);
	if (close(fd) < 0)
		r = -1;
	if (r < 0)
		mark_failed();
	return r;
}

/* Saved lines of /proc/self/maps (file mappings), the union of every look. */
static char *maps_buf;
static size_t maps_len, maps_cap;
static char *maps_read;
static size_t maps_read_cap;

static int maps_grow(char **b, size_t *cap, size_t need)
{
	size_t ncap = *cap ? *cap : 65536;
	char *nb;

	while (ncap < need)
		ncap *= 2;
	if (ncap == *cap)
		return 0;
	nb = map_anon(ncap);
	if (!nb)
		return -1;
	if (*b) {
		memcpy(nb, *b, *cap);
		munmap(*b, *cap);
	}
	*b = nb;
	*cap = ncap;
	return 0;
}

static int maps_has(const char *line, size_t len)
{
	const char *p = maps_buf, *end = maps_buf + maps_len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = (size_t)(nl - p);

		if (l == len && !memcmp(p, line, len))
			return 1;
		p = nl + 1;
	}
	return 0;
}

static void save_maps(void)
{
	char path[4200], tmp[4200];
	size_t len = 0;
	int fd;
	char *p, *end;

	spin_lock(&maps_lock);
	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto out;
	for (;;) {
		ssize_t r;

		if (len + 65536 > maps_read_cap && maps_grow(&maps_read, &maps_read_cap, len + 65536) < 0)
			break;
		r = read(fd, maps_read + len, maps_read_cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	for (p = maps_read, end = maps_read + len; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *slash = memchr(p, '/', l), *vdso = memchr(p, '[', l);

		if ((slash || (vdso && l - (size_t)(vdso - p) >= 6 && !memcmp(vdso, "[vdso]", 6))) &&
		    !maps_has(p, l) && maps_grow(&maps_buf, &maps_cap, maps_len + l + 1) == 0) {
			memcpy(maps_buf + maps_len, p, l);
			maps_len += l;
			maps_buf[maps_len++] = '\n';
		}
		p += l + 1;
	}
	if (!file_path(path, sizeof(path), ".maps") || !file_path(tmp, sizeof(tmp), ".maps.tmp"))
		goto out;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		mark_failed();
		goto out;
	}
	if ((write_all(fd, maps_buf, maps_len) == 0) + (close(fd) == 0) == 2) {
		rename(tmp, path);
	} else {
		unlink(tmp);
		mark_failed();
	}
out:
	spin_unlock(&maps_lock);
}

static int count_adds(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(unsigned long long *)data = info->dlpi_adds;
	return 1;
}

static int find_self(struct dl_phdr_info *info, size_t size, void *data)
{
	uintptr_t me = (uintptr_t)data;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && me >= lo && me < lo + ph->p_memsz) {
			self_lo = lo;
			self_hi = lo + ph->p_memsz;
			return 1;
		}
	}
	return 0;
}

static int is_runtime(const char *path)
{
	const char *b = strrchr(path, '/');

	b = b ? b + 1 : path;
	return !strncmp(b, "libc.so", 7) || !strncmp(b, "ld-linux", 8) || !strncmp(b, "ld64.so", 7) ||
	       !strncmp(b, "libpthread.so", 13);
}

static int code_line(uintptr_t lo, uintptr_t hi, const char *rest, size_t len, void *arg)
{
	int next = *(int *)arg;
	const char *p = memchr(rest, '/', len), *b = p, *e = rest + len;
	char name[64];
	size_t n = 0;

	if (len < 4 || rest[2] != 'x' || code_n[next] >= CODE_MAX)
		return 0;
	if (p) {
		for (; p < e; p++)
			if (*p == '/')
				b = p + 1;
		n = (size_t)(e - b) < sizeof(name) - 1 ? (size_t)(e - b) : sizeof(name) - 1;
		memcpy(name, b, n);
	}
	name[n] = 0;
	code_tab[next][code_n[next]].lo = lo;
	code_tab[next][code_n[next]].hi = hi;
	code_tab[next][code_n[next]].runtime = n && is_runtime(name);
	code_n[next]++;
	return 0;
}

/* Objects loaded, counted on the loader's list (nodes go only in dlclose, which waits for us). */
static unsigned objects_loaded(void)
{
	const struct link_map *l;
	unsigned n = 0;

	__atomic_add_fetch(&map_readers, 1, ACQUIRE);
	if (!__atomic_load_n(&map_closing, ACQUIRE))
		for (l = _r_debug.r_map; l && n < 1u << 20; l = l->l_next)
			n++;
	__atomic_sub_fetch(&map_readers, 1, RELEASE);
	return n;
}

/*
 * Refill the table of executable mappings from /proc/self/maps (raw
 * system calls: callable from the malloc path) into the unpublished
 * table, then publish it. /proc/self/maps is sorted by address.
 */
static void code_rebuild(void)
{
	int next;
	unsigned objs = objects_loaded();

	spin_lock(&code_lock);
	next = !__atomic_load_n(&code_cur, ACQUIRE);
	code_n[next] = 0;
	if (maps_each(code_line, &next) == 0) {
		__atomic_store_n(&code_objects, objs, RELAXED);
		__atomic_store_n(&code_cur, next, RELEASE);
	}
	spin_unlock(&code_lock);
}

/*
 * The frame-pointer walk met a return address outside every known code
 * mapping: garbage, or code loaded since the table was built (dlopen).
 * Rebuild when the loader's list changed; returns 1 if it did.
 */
static int code_refresh(void)
{
	if (objects_loaded() == __atomic_load_n(&code_objects, RELAXED))
		return 0;
	code_rebuild();
	return 1;
}

static uint64_t rss_bytes(int *ok)
{
	char buf[128], *p;
	ssize_t n;
	uint64_t pages = 0;
	int fd;

	*ok = 0;
	fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strchr(buf, ' ');
	if (!p)
		return 0;
	for (p++; *p >= '0' && *p <= '9'; p++)
		pages = pages * 10 + (uint64_t)(*p - '0');
	*ok = 1;
	return pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* One timeline row. */
static void tick(void)
{
	char line[256], num[32];
	uint64_t t = now_ns() - H->start_ns, alloc_b = 0, alloc_n = 0, rss;
	int64_t blocks = 0, live;
	uint32_t i, n = __atomic_load_n(&H->nthreads, ACQUIRE);
	size_t len = 0;
	int ok;
	unsigned long long adds = 0;
	const char *f[6];
	char nums[6][32];
	int k;

	for (i = 0; i < n; i++) {
		uint64_t o = __atomic_load_n(&H->threads[i], ACQUIRE);
		const struct ph_thread *th;

		if (!o)
			continue;
		th = at(o);
		alloc_b += __atomic_load_n(&th->alloc_bytes, RELAXED);
		alloc_n += __atomic_load_n(&th->alloc_count, RELAXED);
		blocks += __atomic_load_n(&th->live_blocks, RELAXED);
	}
	live = (int64_t)__atomic_load_n(&H->live_bytes, RELAXED);
	if (sample_mean)
		blocks = (int64_t)llround((double)blocks / (double)H->count_unit);
	rss = rss_bytes(&ok);
	f[0] = utoa(nums[0] + 32, t);
	f[1] = itoa64(nums[1] + 32, live < 0 ? 0 : live);
	f[2] = itoa64(nums[2] + 32, blocks < 0 ? 0 : blocks);
	f[3] = utoa(nums[3] + 32, alloc_b);
	f[4] = utoa(nums[4] + 32, alloc_n);
	f[5] = ok ? utoa(nums[5] + 32, rss) : "";
	for (k = 0; k < 6; k++) {
		size_t l = strlen(f[k]);

		memcpy(line + len, f[k], l);
		len += l;
		line[len++] = k == 5 ? '\n' : '\t';
	}
	(void)num;
	if (timeline_ok)
		append_file(".timeline.tsv", line, len, 0);
	dl_iterate_phdr(count_adds, &adds);
	if (adds != dl_adds_seen) {
		dl_adds_seen = adds;
		save_maps();
	}
}

/*
 * A timeline row, from the timer thread or at exit (final): serialized,
 * so that a timer row read before the program's last frees cannot land
 * after the exit's row, which must stay last (it matches the totals).
 */
static void timeline_row(int final)
{
	spin_lock(&tick_busy);
	if (!timeline_done) {
		tick();
		timeline_done = final;
	}
	spin_unlock(&tick_busy);
}

static void *timer_main(void *arg)
{
	sigset_t all;
	struct timespec ts;
	uint64_t next;

	(void)arg;
	T.guard = 1;		/* this thread never records */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	next = now_ns();
	for (;;) {
		next += interval_ns;
		ts.tv_sec = (time_t)(next / 1000000000u);
		ts.tv_nsec = (long)(next % 1000000000u);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		if (!active)
			continue;
		timeline_row(0);
	}
	return NULL;
}

static void start_timer(void)
{
	pthread_t t;
	pthread_attr_t a;

	T.guard++;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&a, 256 * 1024);
	if (pthread_create(&t, &a, timer_main, NULL) == 0)
		timer_running = 1;
	pthread_attr_destroy(&a);
	T.guard--;
}

static int open_timeline(void)
{
	char hdr[512], n1[32], n2[32], n3[32];
	cat(hdr, sizeof(hdr), "# tool=profheap format=profheap-timeline pid=",
	    utoa(n1 + 32, (uint64_t)getpid()), " interval_ns=");
	cat(hdr + strlen(hdr), sizeof(hdr) - strlen(hdr), utoa(n2 + 32, interval_ns),
	    sample_mean ? " sample_bytes=" : "", sample_mean ? utoa(n3 + 32, sample_mean) : "");
	cat(hdr + strlen(hdr), sizeof(hdr) - strlen(hdr),
	    sample_mean ? " estimated=live_bytes,live_blocks" : "",
	    "\ntime_ns\tlive_bytes\tlive_blocks\talloc_bytes\talloc_count\trss_bytes\n", "");
	timeline_ok = append_file(".timeline.tsv", hdr, strlen(hdr), 1) == 0;
	return timeline_ok ? 0 : -1;
}

/* Create TAG.heap (TAG = pid, or pid.N after exec) and map it. */
static int open_data(int after_fork)
{
	char path[4200], num[32], num2[32];
	static const uint64_t sizes[] = { PH_RESERVE, 8ULL << 30, 1ULL << 30, 256ULL << 20 };
	unsigned k, seq;
	int fd = -1;
	void *m = MAP_FAILED;
	char *pidstr = utoa(num + 32, (uint64_t)getpid());

	for (seq = 0; seq < 1000; seq++) {
		if (seq == 0)
			cat(tag, sizeof(tag), pidstr, "", "");
		else
			cat(tag, sizeof(tag), pidstr, ".", utoa(num2 + 32, seq));
		if (!file_path(path, sizeof(path), ".heap"))
			return -1;
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0) {
		say(path, strerror(errno));
		return -1;
	}
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		if (ftruncate(fd, (off_t)sizes[k]) < 0)
			continue;
		if (after_fork) {
			/* Same address and size, new file: the child's pointers stay valid. */
			if (ftruncate(fd, (off_t)reserve) < 0 || write_all(fd, base, H->used) < 0)
				break;
			m = mmap(base, reserve, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_FIXED | MAP_NORESERVE, fd, 0);
			break;
		}
		m = mmap(NULL, sizes[k], PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
		if (m != MAP_FAILED) {
			reserve = sizes[k];
			break;
		}
	}
	if (m == MAP_FAILED) {
		say(path, "cannot map the record file");
		close(fd);
		unlink(path);
		return -1;
	}
	close(fd);		/* the mapping stays */
	base = m;
	H = m;
	if (seq > 0 && !after_fork)
		H->flags |= PH_FLAG_EXECED;
	return 0;
}

static void disable_env(void)
{
	char **e;

	/* Hide PROFHEAP_DIR from programs this process executes. */
	for (e = environ; e && *e; e++)
		if (!strncmp(*e, "PROFHEAP_DIR=", 13))
			memcpy(*e, "PROFHEAP_OFF", 12);
}

static void atfork_child(void)
{
	uint32_t i;

	if (!active)
		return;
	if (!follow_fork) {
		active = 0;
		disable_env();
		return;
	}
	T.guard++;
	boot_lock = maps_lock = stack_lock = code_lock = 0;
	map_readers = map_closing = 0;	/* other threads' walks and dlcloses are gone */
	if (open_data(1) < 0) {
		mark_failed();
		active = 0;
		T.guard--;
		return;
	}
	backed = H->used;		/* written out by open_data */
	backed_lock = 0;
	H->pid = (int32_t)getpid();
	H->ppid = (int32_t)getppid();
	H->flags = (H->flags & (PH_FLAG_SAMPLED | PH_FLAG_DWARF | PH_FLAG_FULL)) | PH_FLAG_FORKED;
	H->start_ns = now_ns();
	H->end_ns = 0;
	H->live_bytes = H->peak_bytes = H->peak_gen = H->peak_pending = 0;
	H->unknown_frees = 0;
	for (i = 0; i < H->nthreads && i < PH_MAX_THREADS; i++) {
		struct ph_thread *th;

		if (!H->threads[i])
			continue;
		th = at(H->threads[i]);
		if (th->cap)
			memset(at(th->counters), 0, th->cap * sizeof(struct ph_counters));
		th->alloc_bytes = th->alloc_count = 0;
		th->live_blocks = 0;
		th->in_use = th == T.th;
	}
	if (T.th)
		T.th->tid = (int32_t)syscall(SYS_gettid);
	T.last_alloc = NULL;
	tables_reset();
	open_timeline();
	maps_len = 0;
	save_maps();
	timer_running = 0;
	start_timer();
	T.guard--;
}

/* ---- exec: say what replaces the image ------------------------------------ */

/*
 * A process that calls exec leaves no exit behind: its record would read
 * as a death, its live blocks as leaks. So the exec family notes the
 * program in the header first (exec.h), with the timeline and the
 * mappings brought up to date as at exit; a new image that loads the shim
 * starts PID.N.heap, one that cannot (static, set-user-ID, a scrubbed
 * environment) is then named by the report. posix_spawn and system()
 * exec in a new process, through the C library's internal calls: nothing
 * to note there.
 */
/* Returns 1 if the note was taken (exec_failed() must undo it if exec returns). */
static int exec_note(const char *file, int search, char *const envp[])
{
	uint32_t flags = PH_FLAG_EXEC;

	/* Not ours to note: a child of vfork shares our memory, record file included. */
	if (!__atomic_load_n(&active, ACQUIRE) || T.guard || H->pid != (int32_t)getpid())
		return 0;
	T.guard++;
	ph_exec_path(file, search, H->exec_path, sizeof(H->exec_path));
	if (!follow_fork)
		flags |= PH_FLAG_EXEC_NO_FOLLOW;	/* disable_env() dropped the shim */
	else if (!ph_exec_env_keeps_shim(envp))
		flags |= PH_FLAG_EXEC_NO_SHIM;
	timeline_row(0);
	save_maps();
	H->end_ns = now_ns();
	__atomic_fetch_or(&H->flags, flags, RELAXED);
	T.guard--;
	return 1;
}

/* exec returned: the image goes on. */
static void exec_failed(int noted)
{
	if (!noted)
		return;
	__atomic_fetch_and(&H->flags, ~(PH_FLAG_EXEC | PH_FLAG_EXEC_NO_SHIM | PH_FLAG_EXEC_NO_FOLLOW),
			   RELAXED);
	H->end_ns = 0;
}

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	int noted, r, e;

	noted = exec_note(path, 0, envp);
	r = real_execve ? real_execve(path, argv, envp) : (errno = ENOSYS, -1);
	e = errno;
	exec_failed(noted);
	errno = e;
	return r;
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	int noted, r, e;

	noted = exec_note(file, 1, envp);
	r = real_execvpe ? real_execvpe(file, argv, envp) : (errno = ENOSYS, -1);
	e = errno;
	exec_failed(noted);
	errno = e;
	return r;
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	char link[64], num[32], path[4096];
	ssize_t l;
	int noted, r, e;

	cat(link, sizeof(link), "/proc/self/fd/", utoa(num + 32, (uint64_t)(fd < 0 ? 0 : fd)), "");
	l = readlink(link, path, sizeof(path) - 1);
	path[l > 0 ? l : 0] = 0;
	noted = exec_note(path, 0, envp);
	r = real_fexecve ? real_fexecve(fd, argv, envp) : (errno = ENOSYS, -1);
	e = errno;
	exec_failed(noted);
	errno = e;
	return r;
}

/* The C library's own execv, execvp and execl* call its internal execve: wrap them too. */
EXPORT int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

EXPORT int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

/* The arguments of an execl* call, arg0 included, up to the NULL. */
static size_t count_args(va_list *ap)
{
	size_t n = 1;

	while (va_arg(*ap, const char *))
		n++;
	return n;
}

/* argv[0..n] from arg0 and the n - 1 arguments and the NULL that follow in *ap. */
static void fill_args(char **argv, size_t n, const char *arg0, va_list *ap)
{
	size_t i;

	argv[0] = (char *)arg0;
	for (i = 1; i <= n; i++)
		argv[i] = va_arg(*ap, char *);
}

/*
 * argv on the stack, as the C library builds it (exec must not allocate
 * after vfork); arg0 is never NULL, as the C library assumes.
 */
#define EXECL_ARGV(argv, arg0, ap) do {					\
		va_list c_;						\
		size_t n_;						\
		va_copy(c_, ap);					\
		n_ = count_args(&c_);					\
		va_end(c_);						\
		argv = alloca((n_ + 1) * sizeof(char *));		\
		fill_args(argv, n_, arg0, &ap);				\
	} while (0)

EXPORT int execl(const char *path, const char *arg0, ...)
{
	va_list ap;
	char **argv;

	va_start(ap, arg0);
	EXECL_ARGV(argv, arg0, ap);
	va_end(ap);
	return execve(path, argv, environ);
}

EXPORT int execlp(const char *file, const char *arg0, ...)
{
	va_list ap;
	char **argv;

	va_start(ap, arg0);
	EXECL_ARGV(argv, arg0, ap);
	va_end(ap);
	return execvpe(file, argv, environ);
}

EXPORT int execle(const char *path, const char *arg0, ...)
{
	va_list ap;
	char **argv, *const *envp;

	va_start(ap, arg0);
	EXECL_ARGV(argv, arg0, ap);
	envp = va_arg(ap, char *const *);	/* after the NULL */
	va_end(ap);
	return execve(path, argv, envp);
}

static uint64_t env_u64(const char *name, uint64_t dflt)
{
	const char *s = getenv(name);
	uint64_t v = 0;

	if (!s || !*s)
		return dflt;
	for (; *s >= '0' && *s <= '9'; s++)
		v = v * 10 + (uint64_t)(*s - '0');
	return v;
}

static void configure(void)
{
	const char *dir, *s;
	char n1[32];
	ssize_t l;
	if (!environ)
		return;		/* too early: libc is not initialised yet */
	spin_lock(&boot_lock);
	if (configured) {
		spin_unlock(&boot_lock);
		return;
	}
	T.guard++;
	/*
	 * A secure-execution program (set-user-ID, set-group-ID, file
	 * capabilities) takes nothing from its environment: glibc already
	 * refuses to preload us there from a non-system path; this holds
	 * when we are installed in one.
	 */
	if (getauxval(AT_SECURE))
		goto done;
	dir = getenv("PROFHEAP_DIR");
	if (!dir || !*dir || strlen(dir) >= sizeof(out_dir))
		goto done;
	memcpy(out_dir, dir, strlen(dir) + 1);
	s = getenv("PROFHEAP_FAILED");
	if (s && strlen(s) < sizeof(failed_path))
		memcpy(failed_path, s, strlen(s) + 1);
	run_id = env_u64("PROFHEAP_RUN", 0);
	interval_ns = env_u64("PROFHEAP_INTERVAL", 10000000);
	if (interval_ns < 100000)
		interval_ns = 100000;
	sample_mean = env_u64("PROFHEAP_SAMPLE", 0);
	sample_mean_d = (double)sample_mean;
	s = getenv("PROFHEAP_UNWIND");
	want_dwarf = s && !strcmp(s, "dwarf");
	s = getenv("PROFHEAP_FOLLOW_FORK");
	follow_fork = !(s && !strcmp(s, "0"));
	if (!follow_fork)
		disable_env();	/* no process created from here on is profiled */
	if (open_data(0) < 0) {
		mark_failed();
		goto done;
	}
	shards = map_anon(NSHARD * sizeof(struct pshard));
	shard_slab = map_anon(NSHARD * SHARD_INIT * sizeof(struct pent));
	sidx = sidx_new(4096);
	if (sample_mean)
		filter = map_anon(1u << FILTER_BITS);
	if (!shards || !shard_slab || !sidx || (sample_mean && !filter)) {
		mark_failed();
		goto done;
	}
	backed = 0;
	if (back_file(sizeof(*H)) < 0) {
		char path[4200];

		say(out_dir, "no space for the record file");
		if (file_path(path, sizeof(path), ".heap"))
			unlink(path);
		goto done;
	}
	memcpy(H->magic, PH_MAGIC, 8);
	H->version = PH_VERSION;
	H->header_size = sizeof(*H);
	H->reserve = reserve;
	H->used = (sizeof(*H) + 63) & ~(uint64_t)63;
	H->run_id = run_id;
	H->pid = (int32_t)getpid();
	H->ppid = (int32_t)getppid();
	H->start_ns = now_ns();
	H->sample_mean = sample_mean;
	H->count_unit = sample_mean ? 65536 : 1;
	H->flags |= (sample_mean ? PH_FLAG_SAMPLED : 0);
	l = readlink("/proc/self/exe", H->exe, sizeof(H->exe) - 1);
	if (l > 0)
		H->exe[l] = 0;
	/* Stack id 0: the empty stack. */
	stack_id(NULL, 0);
	dl_iterate_phdr(find_self, (void *)(uintptr_t)&configure);
	code_rebuild();
	open_timeline();
	dl_iterate_phdr(count_adds, &dl_adds_seen);
	save_maps();
	if (pthread_key_create(&thread_key, thread_release) == 0)
		key_ok = 1;
	pthread_atfork(NULL, NULL, atfork_child);
	(void)n1;
	__atomic_store_n(&active, 1, RELEASE);
done:
	configured = 1;
	T.guard--;
	spin_unlock(&boot_lock);
}

__attribute__((constructor)) static void profheap_init(void)
{
	if (!real_malloc)
		resolve();
	configure();
	if (!active)
		return;
	if (want_dwarf) {
		T.guard++;
		if (ph_unwind_dwarf_init() == 0) {
			__atomic_fetch_or(&H->flags, PH_FLAG_DWARF, RELAXED);
			__atomic_store_n(&use_dwarf, 1, RELEASE);
		} else {
			say("--unwind dwarf: libunwind.so.8 not found; using frame pointers", NULL);
		}
		T.guard--;
	}
	if (!timer_running)
		start_timer();
	__atomic_store_n(&started, 1, RELEASE);
}

__attribute__((destructor)) static void profheap_fini(void)
{
	if (!active)
		return;
	T.guard++;
	timeline_row(1);
	save_maps();
	H->end_ns = now_ns();
	__atomic_fetch_or(&H->flags, PH_FLAG_EXITED, RELAXED);
	T.guard--;
}
