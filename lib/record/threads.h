#ifndef PROF_RECORD_THREADS_H
#define PROF_RECORD_THREADS_H
/*
 * The processes and threads a recording meets, kept up to date from the
 * kernel's side-band records: PERF_RECORD_MMAP2 (a process maps a file),
 * PERF_RECORD_COMM (a thread is named, or its process execs) and
 * PERF_RECORD_FORK (a thread or process is born).
 *
 * A process is its address space (symbolize.h's prof_addrspace, what the
 * symbolizer and the DWARF unwinder resolve its addresses in). A process
 * met before any of its records (attached with -p, or born before the
 * recording started) has its mappings read from /proc/PID/maps when
 * first asked for, and a thread its name from /proc/PID/task/TID/comm.
 * A forked process starts with a copy of its parent's mappings, an exec
 * forgets them (new MMAP2 records follow).
 *
 * Both tables are prof_hashmap's (tid -> struct prof_thread, pid ->
 * address space): a struct prof_thread pointer stays valid until the
 * next call that may add a thread (prof_threads_get, prof_threads_comm,
 * prof_threads_fork, prof_threads_exit). An exited thread (and with its
 * process's last thread, the address space) is forgotten
 * PROF_THREADS_EXIT_GRACE_NS of record time after its exit, when a later
 * exit comes: a late sample from another CPU's ring still finds it, and
 * a long system-wide recording keeps memory constant however many
 * processes come and go. A pid reused before that starts afresh.
 */
#include <stdint.h>

#include "base/hashmap.h"
#include "record/decode.h"
#include "record/offcpu.h"

struct prof_symbolizer;
struct prof_unwinder;
struct prof_addrspace;

struct prof_thread {
	int tid;
	int pid;		/* its process; -1 until known */
	char comm[16];		/* the kernel's TASK_COMM_LEN */
	int seen;		/* had a sample (the caller sets it) */
	struct prof_offcpu offcpu;
};

struct prof_threads {
	struct prof_symbolizer *sym;	/* not owned */
	struct prof_unwinder *unw;	/* not owned; NULL without DWARF unwinding */
	/* private */
	struct prof_hashmap threads;	/* tid -> struct prof_thread */
	struct prof_hashmap procs;	/* pid -> struct prof_addrspace * */
	struct prof_hashmap exited;	/* tid -> struct prof_rec_task of its exit */
	struct prof_thread idle;	/* tid 0, every CPU's idle task */
};

/*
 * Initialise empty tables whose address spaces belong to sym; unw (may
 * be NULL) is told when an address space is reset or freed.
 */
void prof_threads_init(struct prof_threads *t, struct prof_symbolizer *sym,
		       struct prof_unwinder *unw);

/* Free every address space and both tables (not sym or unw). */
void prof_threads_release(struct prof_threads *t);

/*
 * The thread tid of process pid, added when new with its name from
 * /proc; when the thread is gone, its process's name (known, else from
 * /proc), else its tid in decimal. tid <= 0 is the idle
 * task ("swapper", pid 0), one for every CPU. Never NULL.
 */
struct prof_thread *prof_threads_get(struct prof_threads *t, int pid, int tid);

/* The thread tid if known, else NULL (nothing is added). */
struct prof_thread *prof_threads_find(struct prof_threads *t, int tid);

/*
 * The address space of process pid, read from /proc/PID/maps the first
 * time (quietly: the process may be gone, then it stays empty). NULL for
 * pid <= 0 (the idle task: kernel frames only).
 */
struct prof_addrspace *prof_threads_addrspace(struct prof_threads *t, int pid);

/* A PERF_RECORD_MMAP2: the mapping joins its process (kernel mappings are ignored). */
void prof_threads_mmap(struct prof_threads *t, const struct prof_mmap2 *m);

/* A PERF_RECORD_COMM: the thread's new name; on exec its process forgets its mappings. */
void prof_threads_comm(struct prof_threads *t, const struct prof_comm *c);

/*
 * A PERF_RECORD_FORK: the new thread inherits its parent thread's name;
 * a new process a copy of its parent's mappings.
 */
void prof_threads_fork(struct prof_threads *t, const struct prof_rec_task *f);

/* How long an exited thread is kept (record time, ns). */
#define PROF_THREADS_EXIT_GRACE_NS 2000000000ULL

/*
 * A PERF_RECORD_EXIT: the thread (and when it is its process's main
 * thread, the process) is forgotten after the grace time; threads that
 * exited longer than that before this one are forgotten now.
 */
void prof_threads_exit(struct prof_threads *t, const struct prof_rec_task *e);

/* Threads and address spaces known (tests, the verbose summary). */
size_t prof_threads_count(const struct prof_threads *t);
size_t prof_threads_process_count(const struct prof_threads *t);

/* Whether addr is in the kernel's half of the x86-64 address space. */
static inline int prof_is_kernel_addr(uint64_t addr)
{
	return addr >= 0xffff800000000000ULL;
}

#endif
