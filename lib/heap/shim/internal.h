#ifndef PROF_HEAP_SHIM_INTERNAL_H
#define PROF_HEAP_SHIM_INTERNAL_H
/*
 * What the files of libprofheap.so share (private to lib/heap/shim/).
 *
 * The shim's files, in the order an allocation meets them:
 *   hooks.c       the interposed malloc family and operator new/delete
 *   record.c      an allocation or a free into the counters (the hot path)
 *   blocks.c      the block table: address -> (stack id, size)
 *   stacktable.c  the stack table: return addresses -> stack id
 *   threads.c     per-thread records, stack bounds
 *   recfile.c     the record file: creation, mapping, its arena
 *   maps.c        /proc/self/maps: the code the walk trusts, the saved
 *                 mappings, dlclose
 *   timeline.c    the timer thread and the timeline rows
 *   exec_hooks.c  the interposed exec family
 *   real.c        the next malloc and exec (dlsym), the boot arena
 *   python.c      --python: the thread's Python frames into its stacks
 *   text.c        messages and numbers written without malloc
 *   startup.c     configuration, the start-up order, fork, exit
 *
 * Rules of the hot path: no allocation through the tracked heap, no
 * global lock (see startup.c). Everything here is hidden: the only
 * symbols the shim exports are the interposed functions (EXPORT).
 */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>

#include "heap/format.h"
#include "heap/shim/stackwalk.h"

extern char **environ;		/* the C library's: outside the hidden block */

#pragma GCC visibility push(hidden)

#define EXPORT __attribute__((visibility("default")))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define RELAXED __ATOMIC_RELAXED
#define ACQUIRE __ATOMIC_ACQUIRE
#define RELEASE __ATOMIC_RELEASE

/* ---- real.c: the functions we interpose, as the next object defines them */

struct ph_real {
	void *(*malloc)(size_t);
	void (*free)(void *);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	void *(*memalign)(size_t, size_t);
	int (*posix_memalign)(void **, size_t, size_t);
	void *(*aligned_alloc)(size_t, size_t);
	void *(*valloc)(size_t);
	void *(*pvalloc)(size_t);
	/* Resolved with the allocator, not at the first exec: a child of vfork must not run dlsym. */
	int (*execve)(const char *, char *const[], char *const[]);
	int (*execvpe)(const char *, char *const[], char *const[]);
	int (*fexecve)(int, char *const[], char *const[]);
};
extern struct ph_real ph_real;

/* Nonzero while ph_resolve() runs: allocations are then served by ph_boot_alloc(). */
extern int ph_resolving;
extern char ph_boot_arena[65536];

/* Fill ph_real (dlsym RTLD_NEXT); exits 127 when there is no malloc to call. */
void ph_resolve(void);

/* n zeroed bytes of the boot arena (never freed), or NULL when it is full. */
void *ph_boot_alloc(size_t n);

/* 1 if p came from the boot arena (free ignores it, realloc copies it out). */
static inline int ph_is_boot(const void *p)
{
	const char *c = p;

	return c >= ph_boot_arena && c < ph_boot_arena + sizeof(ph_boot_arena);
}

/* ---- startup.c: configuration and state (T: record.c) --------------------- */

/*
 * The calling thread's state. guard > 0: inside the shim, so that what
 * the shim itself causes to be allocated (dlsym, libunwind,
 * pthread_create) goes straight to the real allocator, untracked.
 */
struct ph_tls {
	int guard;
	int pad;
	struct ph_thread *th;		/* its record in the file (threads.c) */
	struct ph_counters *ctr;	/* its counters, cap entries */
	uint64_t cap;
	uintptr_t stack_lo, stack_hi;
	void *last_alloc;		/* for temporary allocations */
	int64_t sample_left;
	uint64_t rng;
};
extern __thread struct ph_tls T __attribute__((tls_model("initial-exec")));

extern int ph_active;			/* tracking on */
extern int ph_configured;		/* ph_configure() ran (successfully or not) */
extern int ph_started;			/* our constructor ran: see startup.c */
extern int ph_use_dwarf;		/* libunwind loaded: walk with it */
extern int ph_follow_fork;		/* children of fork are profiled */
extern uint64_t ph_interval_ns;		/* timeline interval */
extern uint64_t ph_sample_mean;		/* 0: exact; else the mean sampling interval */
extern double ph_sample_mean_d;

/* Read the environment and set everything up (once; the first malloc may call it). */
void ph_configure(void);

/* ---- text.c ---------------------------------------------------------------- */

/* "libprofheap: a: b" on stderr (b may be NULL), one write. */
void ph_say(const char *a, const char *b);

/* dst = a b c when it fits in n bytes: returns its length, else 0. */
size_t ph_cat(char *dst, size_t n, const char *a, const char *b, const char *c);

/* The decimal digits of v, written backwards from end (end[-1] = NUL); returns the first. */
char *ph_utoa(char *end, uint64_t v);
char *ph_itoa64(char *end, int64_t v);

/* Write all of p[0..n) to fd; 0, or -1. */
int ph_write_all(int fd, const char *p, size_t n);

static inline uint64_t ph_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- spin locks (the only locks of the shim) ---------------------------------- */

void ph_spin_wait(int *l);

static inline void ph_spin_lock(int *l)
{
	if (unlikely(__atomic_exchange_n(l, 1, ACQUIRE)))
		ph_spin_wait(l);
}

static inline void ph_spin_unlock(int *l)
{
	__atomic_store_n(l, 0, RELEASE);
}

static inline void *ph_map_anon(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* ---- recfile.c: the record file (heap/format.h) ---------------------------------- */

extern char *ph_base;			/* the mapped record file */
extern struct ph_header *H;		/* its header, at ph_base */
extern uint64_t ph_reserve;		/* its mapped size */
extern char ph_out_dir[4096];
extern char ph_failed_path[4200];	/* PROFHEAP_FAILED: marked when recording fails */

static inline void *ph_at(uint64_t off)
{
	return ph_base + off;
}

/*
 * Create TAG.heap (TAG = pid, or pid.N after exec) and map it; after a
 * fork, a copy of the parent's at the same address. 0, or -1 (said).
 */
int ph_open_data(int after_fork);

/* Give the file disk blocks up to end (a full disk stops recording, not the program). 0, or -1. */
int ph_back_file(uint64_t end);

/* n bytes of the file's arena (offset in *off_out), or NULL when the file is full. */
void *ph_arena_alloc(size_t n, uint64_t *off_out);

/* Say that this process could not record everything: profheap then exits 1. */
void ph_mark_failed(void);

/* DIR/TAG.suffix into buf, or NULL when it does not fit. */
char *ph_file_path(char *buf, size_t n, const char *suffix);

/* Append (or with trunc, write) data to DIR/TAG.suffix: 0, or -1 (marked failed). */
int ph_append_file(const char *suffix, const char *data, size_t len, int trunc);

/* ---- blocks.c: address -> (stack id, size) ---------------------------------- */

#define PH_FILTER_BITS 15	/* 32 KiB: stays in the L1/L2 cache */
extern unsigned char *ph_filter;	/* sampled mode: counting filter of sampled blocks */

static inline uint64_t ph_addr_hash(const void *p)
{
	return ((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ULL;
}

/* 1 when the filter says p may be a sampled block (sampled mode). */
static inline int ph_filter_maybe(const void *p)
{
	return __atomic_load_n(&ph_filter[ph_addr_hash(p) >> (64 - PH_FILTER_BITS)], RELAXED) != 0;
}

/* Map the tables (and the filter when sampled): 0, or -1. */
int ph_blocks_init(int sampled);
/* A child of fork: every table emptied (its blocks are its parent's). */
void ph_blocks_reset(void);
/* Insert p with info (size << 24 | stack id): 0, or -1 (no memory). */
int ph_block_insert(const void *p, uint64_t info);
/* 1 if p is a recorded block. */
int ph_block_known(const void *p);
/* Remove p: 1 and its info, or 0 if unknown. */
int ph_block_remove(const void *p, uint64_t *info);
/* Count a sampled block in (delta 1) or out (-1) of the filter. */
void ph_filter_add(const void *p, int delta);

/* ---- stacktable.c ---------------------------------------------------------------- */

/* Map the stack index: 0, or -1. */
int ph_stacks_init(void);
/* The stack lock is free in a child of fork. */
void ph_stacks_after_fork(void);
/* The id of stack pcs[0..n) (added when new); 0 when the table is full. */
uint32_t ph_stack_id(const uint64_t *pcs, unsigned n);

/* ---- threads.c ---------------------------------------------------------------- */

/* The pthread key that gives a thread's record back when it exits. */
void ph_threads_init(void);
/* Take a thread record for the calling thread: 0, or -1 (none left). */
int ph_thread_attach(void);
/* A child of fork: the counters start from zero, only the calling thread's record in use. */
void ph_threads_after_fork(void);
/* The bounds of the stack holding sp, from /proc/self/maps: 0, or -1. */
int ph_stack_bounds(uintptr_t sp, uintptr_t *lo_out, uintptr_t *hi_out);

/* ---- record.c: the hot path ---------------------------------------------------------- */

void ph_draw_sample(void);
void ph_record_alloc(void *p, size_t n);
void ph_free(void *p);
void *ph_realloc(void *p, size_t n);

/* Decide whether an allocation of n bytes is recorded (sampling) and count it. */
static inline int ph_wanted(size_t n)
{
	if (T.guard)
		return 0;
	if (unlikely(!ph_configured))
		ph_configure();
	if (!ph_active)
		return 0;
	if (!ph_sample_mean)
		return 1;
	if (unlikely(!T.th) && ph_thread_attach() < 0)
		return 0;
	T.th->alloc_bytes += n;
	T.th->alloc_count++;
	T.sample_left -= (int64_t)n;
	if (likely(T.sample_left > 0)) {
		T.last_alloc = NULL;	/* an allocation came between: not temporary */
		return 0;
	}
	while (T.sample_left <= 0)
		ph_draw_sample();
	return 1;
}

static inline void *ph_track(void *p, size_t n)
{
	if (p) {
		T.guard++;
		ph_record_alloc(p, n);
		T.guard--;
	}
	return p;
}

/* ---- maps.c ---------------------------------------------------------------- */

extern uintptr_t ph_self_lo, ph_self_hi;	/* the shim's code */

/*
 * Call fn for each line of /proc/self/maps (lo, hi, the rest of the line
 * from the permissions on) until it returns nonzero, with raw system
 * calls (usable on the malloc path). -1 without /proc, else fn's last value.
 */
int ph_maps_each(int (*fn)(uintptr_t lo, uintptr_t hi, const char *rest, size_t len, void *arg),
		 void *arg);
/* Find our own code, build the table of executable mappings. */
void ph_code_init(void);
/* The published table of executable mappings, *n entries, sorted. */
const struct ph_code_range *ph_code_table(unsigned *n);
/* Rebuild the table if the loader's list of objects changed: 1 if it did. */
int ph_code_refresh(void);
/* Save the mappings (TAG.maps) and note the loader's count of objects added. */
void ph_maps_init(void);
/* Save the mappings again if objects were loaded since. */
void ph_maps_refresh(void);
/* Write TAG.maps: every file mapping seen so far. */
void ph_save_maps(void);
/* A child of fork: no other thread holds a lock or reads the loader's list. */
void ph_maps_after_fork(void);
/* A child of fork with its own files: its mappings from scratch. */
void ph_maps_restart(void);

/* ---- python.c: --python ---------------------------------------------------------- */

extern int ph_python;			/* a supported CPython was found: its frames recorded */
/* Look for a CPython in the process (our constructor; PROFHEAP_PYTHON=1). */
void ph_python_init(void);
/* A child of fork: its pid, no lock held. */
void ph_python_after_fork(void);
/* p is freed (or moved): a code object's name cached as trusted at p is no longer. */
void ph_python_forget(const void *p);
/*
 * The walked native stack pcs[0..depth) with the calling thread's
 * Python frames put above the innermost eval call (PH_PC_PYTHON), up
 * to PH_MAX_DEPTH; returns the new depth (depth: no Python frames).
 */
unsigned ph_python_stack(uint64_t *pcs, unsigned depth);

/* ---- timeline.c ---------------------------------------------------------------- */

/* Write the header of TAG.timeline.tsv: 0, or -1. */
int ph_open_timeline(void);
/* One row, from the timer or at exit (final: no row after it). */
void ph_timeline_row(int final);
/* Start the timer thread unless it runs. */
void ph_timer_start(void);
/* A child of fork: the parent's timer thread is not ours; start one. */
void ph_timer_after_fork(void);

#pragma GCC visibility pop

#endif
