#ifndef PROF_HEAP_LAUNCH_H
#define PROF_HEAP_LAUNCH_H
/*
 * Starting a command under the heap shim: finding libprofheap.so, the
 * environment that configures it (the PROFHEAP_* variables the shim
 * reads, lib/heap/shim/startup.c), the file where a shim says it could not
 * record, why a program exec'd under the shim may have run without it,
 * and the private output directory's removal.
 */
#include <stddef.h>
#include <stdint.h>

/* How the shim is to record (the PROFHEAP_* variables). */
struct prof_heap_launch {
	const char *shim;		/* path of libprofheap.so, preloaded first */
	const char *dir;		/* PROFHEAP_DIR: where record files go (absolute) */
	const char *failed;		/* PROFHEAP_FAILED: see prof_heap_failed_create() */
	uint64_t run_id;		/* PROFHEAP_RUN: written into every record file */
	uint64_t interval_ns;		/* PROFHEAP_INTERVAL: timeline interval */
	uint64_t sample;		/* PROFHEAP_SAMPLE: mean bytes per sample, 0 exact */
	int dwarf;			/* PROFHEAP_UNWIND: dwarf (1) or fp (0) */
	int follow_fork;		/* PROFHEAP_FOLLOW_FORK: profile children of fork */
	int python;			/* PROFHEAP_PYTHON: a CPython's frames into its stacks */
	const char *roots;		/* PROFHEAP_ROOTS: prof_heap_roots_env() (heap/roots.h), or NULL */
};

/*
 * libprofheap.so beside the running executable, or in ../lib/proftools
 * from it (the installed layout). Returns a malloc'ed path, or NULL when
 * neither is readable.
 */
char *prof_heap_shim_find(void);

/*
 * The environment for the command: env (NULL-terminated) without its
 * PROFHEAP_* and LD_PRELOAD entries, plus LD_PRELOAD with the shim first
 * (then the old LD_PRELOAD, if any) and the PROFHEAP_* variables of l;
 * with l->python, PYTHONMALLOC=malloc too unless env sets PYTHONMALLOC
 * (pymalloc serves objects of up to 512 bytes from arenas it maps
 * itself: malloc makes the shim see them).
 * Returns a malloc'ed array to free with prof_heap_env_free(); its other
 * strings are env's own.
 */
char **prof_heap_env(const struct prof_heap_launch *l, char *const *env);

/* 1 if env (NULL-terminated) sets PYTHONMALLOC. */
int prof_heap_env_has_pythonmalloc(char *const *env);

/* Free what prof_heap_env() allocated (NULL ignored). */
void prof_heap_env_free(char **env);

/*
 * Create the file a shim marks when it cannot record: one byte '0', which
 * the shim overwrites in place with '1' (so marking needs no free space).
 * Returns 0, or -1 after reporting.
 */
int prof_heap_failed_create(const char *path);

/* 1 if a shim marked path (or it is gone), else 0. */
int prof_heap_failed_marked(const char *path);

/*
 * Why path, the program a profiled process exec'd (flags: the PH_FLAG_EXEC*
 * flags of its record file, heap/format.h), left no record file of its
 * own, as far as the file tells now: --no-follow-fork, its environment
 * dropped the shim,
 * set-user-ID or set-group-ID (the loader then ignores LD_PRELOAD), a
 * statically linked executable or script interpreter, another ELF class
 * or machine than profheap's, not an ELF file, or unknown. Writes a
 * phrase without a final period into buf (n bytes) and returns buf.
 */
char *prof_heap_unfollowed_reason(const char *path, uint32_t flags, char *buf, size_t n);

/*
 * Remove dir and the files in it (a private directory: there are no
 * subdirectories). Failures are warned about.
 */
void prof_heap_dir_remove(const char *dir);

#endif
