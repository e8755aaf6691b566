#ifndef PROF_HEAP_FORMAT_H
#define PROF_HEAP_FORMAT_H
/*
 * The profheap record file ("TAG.heap"), shared by the preloaded shim
 * (lib/heap/shim/, the writer) and the post-processor (lib/heap/records.c).
 *
 * The shim maps the whole file MAP_SHARED and updates it in place, so
 * everything recorded is in the page cache the moment it happens and
 * survives _exit, abort, SIGSEGV and SIGKILL of the process. The file is
 * created sparse with its full reserved size (PH_RESERVE) and trimmed to
 * the bytes used at a normal exit. Space inside it is handed out by an
 * atomic bump pointer (header.used); nothing is ever freed or moved, so
 * an offset, once published, stays valid.
 *
 * All integers are native-endian (the file is read on the machine that
 * wrote it). Offsets are from the start of the file; 0 means "none".
 *
 * Objects:
 *  - the header (struct ph_header), at offset 0;
 *  - stack records (struct ph_stack followed by depth return addresses,
 *    innermost first: pcs[0] is the return address into the caller of
 *    the allocation function), found through the stack directory: chunk
 *    i of PH_DIR_CHUNK offsets lives at header.stack_dir[i]; stack id s
 *    is entry s % PH_DIR_CHUNK of chunk s / PH_DIR_CHUNK. Stack id 0 is
 *    the empty stack (allocations whose stack could not be recorded);
 *  - thread records (struct ph_thread), one per live thread (records of
 *    exited threads are reused), listed in header.threads[];
 *  - per-thread counter arrays (struct ph_counters, indexed by stack id),
 *    each thread writing only its own. The value of a stack is the sum of
 *    its entries in every thread's array: a block allocated in thread A
 *    and freed in thread B adds in A's array and subtracts in B's.
 *
 * Peak: header.live_bytes is the global live total; header.peak_bytes its
 * maximum. When the total first drops after a new maximum, header.peak_gen
 * is incremented ("committed"); a counter entry whose gen differs from
 * peak_gen when it is next updated first copies live_bytes into
 * peak_bytes. So the live bytes of a stack at the last committed peak are
 * entry.peak_bytes if entry.gen == peak_gen, else entry.live_bytes. When
 * peak_pending is set (a maximum not yet followed by a drop), the peak is
 * the current state: every entry's live_bytes.
 *
 * Sampling (header.sample_mean != 0): byte counts are unbiased estimates
 * (each sampled block weighs size / p, p = 1 - exp(-size / mean)) and
 * counts are in units of 1 / header.count_unit allocations.
 */
#include <stdint.h>

#define PH_MAGIC "PRFHEAP1"
#define PH_VERSION 4
#define PH_RESERVE (64ULL << 30)	/* sparse size of the file while running */
#define PH_DIR_CHUNK 65536u
#define PH_DIR_CHUNKS 256u		/* up to 16M stacks */
#define PH_MAX_STACKS (PH_DIR_CHUNK * PH_DIR_CHUNKS)
#define PH_MAX_THREADS 16384u
#define PH_MAX_DEPTH 128u
/* A stack's last (outermost) pc when the walk was cut short: shown as [truncated]. */
#define PH_PC_TRUNCATED 1u
/*
 * The same, for a walk cut short while the loader was still running the
 * initialisers of the libraries it started before the shim (libstdc++'s
 * allocates its emergency exception pool there): shown as [start-up].
 * Its blocks are not leaks, as those of a stack that reaches the loader;
 * a stack of runtime frames that ends in [truncated] may have been called
 * by the program, and its blocks are.
 */
#define PH_PC_STARTUP 2u
/*
 * A Python frame (profheap --python): the offset in the file of its
 * struct ph_pyframe, with this bit set (no user-space code address has
 * it on x86-64). The shim puts a thread's Python frames above the native
 * frames of the innermost eval call (lib/heap/shim/python.c).
 */
#define PH_PC_PYTHON (1ULL << 63)

/* header.flags */
#define PH_FLAG_EXITED 1u	/* the process reached its exit handlers */
#define PH_FLAG_SAMPLED 2u	/* --sample: estimates */
#define PH_FLAG_DWARF 4u	/* stacks unwound with libunwind */
#define PH_FLAG_FORKED 8u	/* a child of a profiled process (after fork) */
#define PH_FLAG_EXECED 16u	/* a later image of an earlier process (after exec) */
#define PH_FLAG_FULL 32u	/* the stack table filled up: some stacks went to id 0 */
/*
 * The image called exec (header.exec_path: the program, absolute), set
 * just before the call and cleared when it returned (failed). With no
 * record file of a later image, the new program ran unprofiled.
 */
#define PH_FLAG_EXEC 64u
#define PH_FLAG_EXEC_NO_SHIM 128u	/* ... with an environment that drops the shim */
#define PH_FLAG_EXEC_NO_FOLLOW 256u	/* ... under --no-follow-fork (the shim dropped itself) */
#define PH_FLAG_PYTHON 512u	/* --python: a CPython was found, its frames recorded (header.python) */
#define PH_FLAG_PYTHONMALLOC 1024u	/* a CPython ran with PYTHONMALLOC=malloc: pymalloc's objects seen */
#define PH_FLAG_PYTHON_UNSUPPORTED 2048u	/* --python: a CPython of a version not supported (header.python) */

struct ph_header {
	char magic[8];
	uint32_t version;
	uint32_t header_size;		/* sizeof(struct ph_header) */
	uint64_t reserve;		/* mapped size */
	uint64_t used;			/* bump pointer (atomic) */
	uint64_t run_id;		/* the launcher's run (PROFHEAP_RUN) */
	int32_t pid, ppid;
	uint32_t flags;			/* PH_FLAG_* (atomic or) */
	uint32_t nthreads;		/* entries used in threads[] */
	uint64_t start_ns, end_ns;	/* CLOCK_MONOTONIC; end 0 if it did not exit */
	uint64_t sample_mean;		/* 0: exact */
	uint64_t count_unit;		/* 1, or the fixed-point unit of sampled counts */
	uint64_t nstacks;		/* stack ids in use (published) */
	/* Written by every allocation: a cache line of their own. */
	uint64_t live_bytes __attribute__((aligned(64)));	/* global live total (atomic) */
	uint64_t peak_bytes;		/* its maximum */
	uint64_t peak_pending;		/* a maximum not yet committed */
	/* Read by every allocation and free, written rarely. */
	uint64_t peak_gen __attribute__((aligned(64)));	/* committed peaks */
	uint64_t peak_ns;		/* when the last one was committed (the heap left it), since start_ns */
	uint64_t unknown_frees __attribute__((aligned(64)));	/* frees of unknown blocks */
	/*
	 * The file tree the process saw (dev and inode of /proc/self/ns/mnt
	 * and of "/"; 0 if unknown): another one than profheap's (unshare -m,
	 * a container, chroot) has its files opened through the root it
	 * handed over (PROFHEAP_ROOTS, lib/heap/roots.h).
	 */
	uint64_t mnt_dev, mnt_ino, root_dev, root_ino;
	char exe[512];			/* /proc/self/exe at start */
	char exec_path[512];		/* with PH_FLAG_EXEC: the program exec'd */
	char python[32];		/* with PH_FLAG_PYTHON: its version, "3.12.1" */
	uint64_t stack_dir[PH_DIR_CHUNKS];
	uint64_t threads[PH_MAX_THREADS];	/* offsets of struct ph_thread */
};

struct ph_stack {
	uint64_t hash;
	uint32_t depth;
	uint32_t pad;
	uint64_t pcs[];			/* depth return addresses, innermost first */
};

/* A Python frame's name (PH_PC_PYTHON), in the arena: "py::QUALNAME (FILE:LINE)". */
struct ph_pyframe {
	uint32_t len;			/* of name, without its NUL */
	uint32_t pad;
	char name[];			/* len bytes and a NUL */
};

/* One stack's counters in one thread's array (64 bytes). */
struct ph_counters {
	uint64_t alloc_bytes;
	uint64_t alloc_count;
	int64_t live_bytes;
	int64_t live_blocks;
	uint64_t temp_bytes;
	uint64_t temp_count;
	int64_t peak_bytes;		/* live_bytes at committed peak gen */
	uint64_t gen;
};

struct ph_thread {
	int32_t tid;
	uint32_t in_use;		/* 1 while a thread owns it */
	uint64_t counters;		/* offset of its struct ph_counters array */
	uint64_t cap;			/* entries in it */
	/* Totals of this thread (for the timeline; written by the owner only). */
	uint64_t alloc_bytes;
	uint64_t alloc_count;
	int64_t live_blocks;
	uint64_t pad[2];
};

#endif
