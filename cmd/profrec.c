/*
 * profrec: a sampling CPU profiler on perf_event_open(2).
 *
 * Runs a command (or attaches to processes, or watches every CPU), samples
 * call stacks, symbolizes them while recording and streams the sample TSV
 * (prof-formats.5, schema profrec-samples) or, with --folded, writes the
 * aggregated folded stacks at the end.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/error.h"
#include "formats/folded.h"
#include "core/meta.h"
#include "base/options.h"
#include "io/output.h"
#include "record/perfevent.h"
#include "base/proc.h"
#include "core/stack.h"
#include "symbolize/symbolize.h"
#include "formats/tsv.h"
#include "base/units.h"
#include "symbolize/dwarf_unwind.h"
#include "base/xalloc.h"

#define SYNOPSIS \
	"profrec [-agqv] [-c period] [-d seconds] [-e event[,event...]] [-F hz] [-m pages]\n" \
	"               [-o file] [-p pid[,pid...]] [-t tid] [--call-graph fp|dwarf[,bytes]|none]\n" \
	"               [--folded] [--no-header] [--off-cpu] [--lines] [--no-inline] [--no-inherit]\n" \
	"               [--debuginfod] [--] [command [argument ...]]"

static const char help_text[] =
	"usage: " SYNOPSIS "\n"
	"\n"
	"Sample call stacks of a command, processes (-p), a thread (-t) or every CPU (-a)\n"
	"and write them as profrec-samples TSV (default) or folded stacks (--folded).\n"
	"\n"
	"  -a, --all-cpus           profile every process on every CPU\n"
	"  -c, --count=PERIOD       sample every PERIOD events (ns for clocks) instead of -F\n"
	"  -d, --duration=SECONDS   stop after this long (units: ms, s, m)\n"
	"  -e, --event=EVENT[,...]  cpu-clock (default), task-clock, page-faults,\n"
	"                           context-switches, cycles, instructions, cache-misses,\n"
	"                           branch-misses\n"
	"  -F, --freq=HZ            samples per second of CPU time (default 999)\n"
	"  -g                       same as --call-graph fp\n"
	"  -m, --mmap-pages=PAGES   ring buffer pages per CPU (default 128; dwarf 1024)\n"
	"  -o, --output=FILE        write to FILE (.gz .zst .lz4 compress); default stdout\n"
	"  -p, --pid=PID[,PID...]   attach to running processes (all their threads)\n"
	"  -q, --quiet              no summary on stderr\n"
	"  -t, --tid=TID            attach to one thread\n"
	"  -v, --verbose            more detail on stderr\n"
	"      --call-graph=MODE    fp (default), dwarf[,STACK_BYTES] (default 8192), none\n"
	"      --debuginfod         let the symbolizer ask debuginfod servers (network)\n"
	"      --folded             write aggregated folded stacks (root = command name)\n"
	"      --lines              add file:line to frame names\n"
	"      --no-header          with --folded: no leading \"# key=value\" metadata line\n"
	"      --no-inherit         do not follow children and new threads\n"
	"      --no-inline          no inlined frames\n"
	"      --off-cpu            record where threads block (event offcpu-time, ns)\n"
	"  -h, --help               this help\n"
	"\n"
	"Exit status: the command's status (126 cannot execute, 127 not found,\n"
	"128+N killed by signal N); without a command 0; 1 on failure; 2 usage.\n";

enum { OPT_CALL_GRAPH = 0x100, OPT_DEBUGINFOD, OPT_FOLDED, OPT_LINES, OPT_NO_HEADER,
       OPT_NO_INHERIT, OPT_NO_INLINE, OPT_OFF_CPU };

static const struct option longopts[] = {
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
	{ "count", required_argument, NULL, 'c' },
	{ "debuginfod", no_argument, NULL, OPT_DEBUGINFOD },
	{ "duration", required_argument, NULL, 'd' },
	{ "event", required_argument, NULL, 'e' },
	{ "folded", no_argument, NULL, OPT_FOLDED },
	{ "freq", required_argument, NULL, 'F' },
	{ "help", no_argument, NULL, 'h' },
	{ "lines", no_argument, NULL, OPT_LINES },
	{ "mmap-pages", required_argument, NULL, 'm' },
	{ "no-header", no_argument, NULL, OPT_NO_HEADER },
	{ "no-inherit", no_argument, NULL, OPT_NO_INHERIT },
	{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
	{ "off-cpu", no_argument, NULL, OPT_OFF_CPU },
	{ "output", required_argument, NULL, 'o' },
	{ "pid", required_argument, NULL, 'p' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "tid", required_argument, NULL, 't' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "list-options", no_argument, NULL, PROF_OPT_LIST_OPTIONS },
	{ NULL, 0, NULL, 0 },
};

/* ---- events ---- */

struct event_def {
	const char *name;
	unsigned type;
	unsigned long long config;
	const char *unit;
};

static const struct event_def event_defs[] = {
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "ns" },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "ns" },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "count" },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "count" },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "count" },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "count" },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "count" },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "count" },
};

static const struct { const char *alias, *name; } event_aliases[] = {
	{ "cpu-cycles", "cycles" }, { "faults", "page-faults" }, { "cs", "context-switches" },
	{ "cpu_clock", "cpu-clock" },
};

static const struct event_def offcpu_def = {
	"offcpu-time", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "ns"
};

#define MAX_EVENTS 9

enum cg_mode { CG_FP, CG_DWARF, CG_NONE };

/* ---- threads and processes ---- */

struct thread {
	int tid;		/* 0: empty slot */
	int pid;
	char comm[16];
	int seen;		/* had a sample */
	/* off-cpu: the stack at the last switch-out, waiting for the switch-in */
	uint64_t out_time;
	uint32_t out_stack;
	int out_cpu;
	int out_pending;
	int out_preempt;
};

struct process {
	int pid;		/* 0: empty slot */
	struct prof_addrspace *as;
};

struct rec {
	/* options */
	const struct event_def *events[MAX_EVENTS];
	int nevents;
	int offcpu_event;	/* index of the offcpu-time event or -1 */
	enum cg_mode cg;
	unsigned stack_bytes;
	uint64_t freq, period;
	int all_cpus, inherit, folded, no_header, lines, no_inline, debuginfod;
	double duration;
	const char *output;
	size_t mmap_pages;
	/* targets */
	int *pids;
	size_t npids;
	int tid_only;
	struct prof_child child;
	int have_child;
	char **argv;
	/* state */
	struct prof_perf perf;
	int user_only;		/* exclude_kernel: kernel frames not permitted */
	struct prof_symbolizer *sym;
	struct prof_unwinder *unw;
	struct thread *threads;
	size_t nthreads, thread_slots;
	struct process *procs;
	size_t nprocs, proc_slots;
	struct thread idle;
	struct prof_stacks stacks;
	uint32_t *written;	/* TSV: stack ids defined so far (bitmap) */
	size_t written_words;
	struct prof_output *out;
	struct prof_buf line, text;
	struct prof_frame *fbuf;
	uint32_t frame_ids[1024];
	uint64_t start_ns;
	unsigned max_stack;	/* kernel.perf_event_max_stack: frames per call chain */
	/* counts */
	unsigned long long samples[MAX_EVENTS], lost, lost_samples, bad, throttled;
	unsigned long long threads_seen;
	/* fp call chains with user frames, and those 1 or 2 deep that reach no entry frame */
	unsigned long long fp_user_stacks, fp_shallow_stacks;
};

static volatile sig_atomic_t stop_signal, stop_count;
static volatile sig_atomic_t child_exited;

static void on_stop(int sig)
{
	stop_signal = sig;
	stop_count = stop_count + 1;
}

static void on_chld(int sig)
{
	(void)sig;
	child_exited = 1;
}

static uint64_t hash_int(int k)
{
	uint64_t h = (uint64_t)(unsigned)k * 0x9e3779b97f4a7c15ULL;

	return h ^ (h >> 31);
}

static struct thread *thread_get(struct rec *r, int tid, int create)
{
	size_t mask, i;

	if (create && (r->nthreads + 1) * 2 > r->thread_slots) {
		struct thread *old = r->threads;
		size_t n = r->thread_slots;

		r->thread_slots = n ? n * 2 : 256;
		r->threads = xcalloc(r->thread_slots, sizeof(*r->threads));
		mask = r->thread_slots - 1;
		for (size_t k = 0; k < n; k++) {
			if (!old[k].tid)
				continue;
			for (i = hash_int(old[k].tid) & mask; r->threads[i].tid; i = (i + 1) & mask)
				;
			r->threads[i] = old[k];
		}
		free(old);
	}
	if (!r->thread_slots)
		return NULL;
	mask = r->thread_slots - 1;
	for (i = hash_int(tid) & mask; r->threads[i].tid; i = (i + 1) & mask)
		if (r->threads[i].tid == tid)
			return &r->threads[i];
	if (!create)
		return NULL;
	r->threads[i].tid = tid;
	r->threads[i].pid = -1;
	r->nthreads++;
	return &r->threads[i];
}

static struct process *proc_get(struct rec *r, int pid, int create)
{
	size_t mask, i;

	if (create && (r->nprocs + 1) * 2 > r->proc_slots) {
		struct process *old = r->procs;
		size_t n = r->proc_slots;

		r->proc_slots = n ? n * 2 : 64;
		r->procs = xcalloc(r->proc_slots, sizeof(*r->procs));
		mask = r->proc_slots - 1;
		for (size_t k = 0; k < n; k++) {
			if (!old[k].pid)
				continue;
			for (i = hash_int(old[k].pid) & mask; r->procs[i].pid; i = (i + 1) & mask)
				;
			r->procs[i] = old[k];
		}
		free(old);
	}
	if (!r->proc_slots)
		return NULL;
	mask = r->proc_slots - 1;
	for (i = hash_int(pid) & mask; r->procs[i].pid; i = (i + 1) & mask)
		if (r->procs[i].pid == pid)
			return &r->procs[i];
	if (!create)
		return NULL;
	r->procs[i].pid = pid;
	r->procs[i].as = prof_addrspace_new(r->sym, pid);
	r->nprocs++;
	return &r->procs[i];
}

/* The address space of pid; a process we have not seen is read from /proc. */
static struct prof_addrspace *addrspace_of(struct rec *r, int pid)
{
	struct process *p;
	char path[64];

	if (pid <= 0)
		return NULL;	/* the idle task (-a): kernel frames only */
	p = proc_get(r, pid, 0);
	if (p)
		return p->as;
	p = proc_get(r, pid, 1);
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	if (access(path, R_OK) == 0) {
		int v = prof_verbosity;

		prof_verbosity = 0;
		prof_addrspace_load_maps(p->as, path);
		prof_verbosity = v;
	}
	return p->as;
}

static void read_comm(int pid, int tid, char *comm)
{
	char path[96];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, comm, 15);
	close(fd);
	if (n <= 0)
		return;
	comm[n] = 0;
	comm[strcspn(comm, "\n")] = 0;
}

static struct thread *thread_of(struct rec *r, int pid, int tid)
{
	struct thread *t;

	if (tid <= 0) {
		/* The idle task, one per CPU, all tid 0 (slot 0 means empty). */
		if (!r->idle.comm[0]) {
			r->idle.pid = 0;
			snprintf(r->idle.comm, sizeof(r->idle.comm), "swapper");
		}
		return &r->idle;
	}
	t = thread_get(r, tid, 1);
	if (t->pid < 0) {
		t->pid = pid;
		if (!t->comm[0])
			read_comm(pid, tid, t->comm);
		if (!t->comm[0])
			snprintf(t->comm, sizeof(t->comm), "%d", tid);
	}
	return t;
}

/* ---- stacks ---- */

/* Intern a frame name with the sanitising and suffixes of prof-formats.5. */
static uint32_t frame_id(struct rec *r, const struct prof_frame *f)
{
	struct prof_buf *b = &r->text;
	size_t start;

	prof_buf_reset(b);
	prof_buf_addstr(b, f->name);
	if (f->file && r->lines) {
		const char *base = strrchr(f->file, '/');

		prof_buf_addf(b, " %s:%u", base ? base + 1 : f->file, f->line);
	}
	for (start = 0; start < b->len; start++) {
		char c = b->data[start];

		if (c == ';')
			b->data[start] = ':';
		else if (c == '\t' || c == '\n' || c == '\r')
			b->data[start] = ' ';
	}
	if (f->flags & PROF_FRAME_KERNEL)
		prof_buf_addstr(b, "_[k]");
	else if (f->flags & PROF_FRAME_INLINED)
		prof_buf_addstr(b, "_[i]");
	return prof_stacks_frame(&r->stacks, b->data, b->len);
}

/*
 * Frames collected leaf first in r->frame_ids[*n...]; sym one address and
 * append its frames (innermost first). Returns how many r->fbuf holds
 * (the last one is the real function), 0 when the stack is full.
 */
static size_t add_addr(struct rec *r, struct prof_addrspace *as, uint64_t addr, unsigned flags,
		       size_t *n)
{
	size_t k, cap = sizeof(r->frame_ids) / sizeof(r->frame_ids[0]);

	if (*n >= cap)
		return 0;
	k = prof_symbolize(r->sym, as, addr, flags, r->fbuf, 16);
	for (size_t i = 0; i < k && *n < cap; i++)
		r->frame_ids[(*n)++] = frame_id(r, &r->fbuf[i]);
	return k;
}

/*
 * The outermost frame of a thread: nothing real calls it, so what a frame
 * pointer walk finds beyond it is garbage (glibc's clone3 and start_thread
 * keep data pointers in %rbp, sometimes a self-referencing list head that
 * the kernel follows until its depth limit).
 */
static int is_entry_frame(const char *name)
{
	static const char *const entry[] = {
		"_start", "__libc_start_main", "__libc_start_main_impl", "__libc_start_call_main",
		"start_thread", "clone", "__clone", "clone3", "__clone3", "thread_start",
	};

	for (size_t i = 0; i < sizeof(entry) / sizeof(entry[0]); i++)
		if (strcmp(name, entry[i]) == 0)
			return 1;
	return 0;
}

/*
 * Whether a return address from a frame pointer walk can be real: it lies
 * in executable memory. Without known mappings (a process gone before
 * they were read) there is nothing to judge by.
 */
static int is_code(struct prof_addrspace *as, uint64_t addr)
{
	const struct prof_map *m;
	size_t nmaps;

	if (!as)
		return 1;
	prof_addrspace_maps(as, &nmaps);
	if (!nmaps)
		return 1;
	m = prof_addrspace_find(as, addr);
	return m && (m->prot & PROT_EXEC);
}

static int is_kernel_addr(uint64_t a)
{
	return a >= 0xffff800000000000ULL;
}

/* Build the stack of a sample; returns its stack id. */
static uint32_t sample_stack(struct rec *r, const struct prof_perf_sample *s, struct thread *t,
			     int extra_leaf)
{
	struct prof_addrspace *as = addrspace_of(r, (int)s->pid);
	size_t n = 0, depth;
	uint32_t tmp;

	if (extra_leaf)
		r->frame_ids[n++] = prof_stacks_frame(&r->stacks, "[preempted]", 11);
	if (r->cg == CG_NONE || !s->ips) {
		add_addr(r, as, s->ip, is_kernel_addr(s->ip) ? PROF_SYM_KERNEL : 0, &n);
	} else {
		unsigned ctx = 0;	/* 0 unknown, 1 kernel, 2 user */
		int first = 1, user_end = 0, truncated = 0;
		uint64_t frames = 0;
		size_t nuser = 0, nf;

		for (uint64_t i = 0; i < s->nr; i++) {
			uint64_t a = s->ips[i];

			if (a >= (uint64_t)PERF_CONTEXT_MAX) {
				ctx = a == (uint64_t)PERF_CONTEXT_KERNEL ? 1 :
				      a == (uint64_t)PERF_CONTEXT_USER ? 2 : 3;
				first = 1;
				continue;
			}
			frames++;
			if (ctx == 3)
				continue;
			if (ctx == 1 || (ctx == 0 && is_kernel_addr(a))) {
				add_addr(r, NULL, a, PROF_SYM_KERNEL | (first ? 0 : PROF_SYM_RETURN), &n);
			} else if (r->cg == CG_FP && !user_end) {
				/*
				 * The walk ends at the thread's entry frame; a return
				 * address outside code means it left the stack: the
				 * rest is garbage, the stack is truncated there.
				 */
				if (nuser && !is_code(as, a)) {
					user_end = truncated = 1;
					continue;
				}
				nf = add_addr(r, as, a, first ? 0 : PROF_SYM_RETURN, &n);
				nuser++;
				if (nf && is_entry_frame(r->fbuf[nf - 1].name))
					user_end = 2;
			}
			first = 0;
		}
		/* The kernel stopped at its depth limit before the entry frame. */
		if (r->cg == CG_FP && frames >= r->max_stack && user_end != 2)
			truncated = 1;
		if (truncated && n < sizeof(r->frame_ids) / sizeof(r->frame_ids[0]))
			r->frame_ids[n++] = prof_stacks_frame(&r->stacks, "[truncated]", 11);
		if (nuser) {
			r->fp_user_stacks++;
			if (nuser <= 2 && user_end != 2)
				r->fp_shallow_stacks++;
		}
		if (r->cg == CG_DWARF && s->regs && s->stack_size) {
			uint64_t ips[256];
			size_t k = prof_unwind(r->unw, as, (int)s->tid, s->regs, s->stack,
					       (size_t)s->stack_size, ips, 256);

			for (size_t i = 0; i < k; i++)
				add_addr(r, as, ips[i], i ? PROF_SYM_RETURN : 0, &n);
		} else if (r->cg == CG_DWARF && !is_kernel_addr(s->ip) && s->ip) {
			add_addr(r, as, s->ip, 0, &n);
		}
	}
	(void)t;
	/* Root first: reverse. */
	for (size_t i = 0, j = n ? n - 1 : 0; i < j; i++, j--) {
		tmp = r->frame_ids[i];
		r->frame_ids[i] = r->frame_ids[j];
		r->frame_ids[j] = tmp;
	}
	depth = n;
	if (r->folded) {
		/* Root = the command name, as proffold does. */
		memmove(r->frame_ids + 1, r->frame_ids,
			(depth < 1023 ? depth : 1023) * sizeof(uint32_t));
		r->frame_ids[0] = prof_stacks_frame(&r->stacks, t->comm, strlen(t->comm));
		depth = depth < 1023 ? depth + 1 : 1024;
	}
	return prof_stacks_intern(&r->stacks, r->frame_ids, depth);
}

static void emit(struct rec *r, uint64_t time, const struct thread *t, int pid, int cpu,
		 int event, const char *ename, uint64_t weight, uint32_t id)
{
	struct prof_buf *b = &r->line;
	double w = (double)weight;

	if (r->folded) {
		/* Sampling events count samples; offcpu-time counts ns. */
		if (event != r->offcpu_event)
			w = 1;
		prof_stacks_weights(&r->stacks, id)[0] += w;
		return;
	}
	prof_buf_reset(b);
	prof_buf_addf(b, "%llu\t%d\t%d\t", (unsigned long long)(time > r->start_ns ? time - r->start_ns : 0),
		      pid, t->tid);
	for (const char *c = t->comm; *c; c++)
		prof_buf_addch(b, *c == '\t' || *c == '\n' || *c == '\r' ? ' ' : *c);
	prof_buf_addf(b, "\t%d\t%s\t%llu\t%u\t", cpu, ename, (unsigned long long)weight, id);
	if (id / 32 >= r->written_words) {
		size_t old = r->written_words;

		r->written_words = (id / 32 + 1) * 2;
		r->written = xreallocarray(r->written, r->written_words, sizeof(*r->written));
		memset(r->written + old, 0, (r->written_words - old) * sizeof(*r->written));
	}
	if (!(r->written[id / 32] & (1u << (id % 32)))) {
		r->written[id / 32] |= 1u << (id % 32);
		prof_stacks_format(&r->stacks, id, b);
	}
	prof_buf_addch(b, '\n');
	prof_output_write(r->out, b->data, b->len);
}

/* ---- records ---- */

static void on_sample(struct rec *r, const struct perf_event_header *hdr)
{
	struct prof_perf_sample s;
	struct thread *t;
	uint32_t id;

	if (prof_perf_parse_sample(&r->perf, hdr, &s) != 0) {
		r->bad++;
		return;
	}
	if ((int)s.pid <= 0 && (int)s.tid <= 0 && !r->all_cpus)
		return;
	t = thread_of(r, (int)s.pid, (int)s.tid);
	if (!t->seen) {
		t->seen = 1;
		r->threads_seen++;
	}
	if (s.event == r->offcpu_event) {
		/* The stack at switch-out; weighted at the switch-in. */
		t->out_stack = sample_stack(r, &s, t, 0);
		t->out_time = s.time;
		t->out_cpu = (int)s.cpu;
		t->out_pending = 1;
		t->out_preempt = 0;
		return;
	}
	r->samples[s.event]++;
	id = sample_stack(r, &s, t, 0);
	emit(r, s.time, t, (int)s.pid, (int)s.cpu, s.event, r->events[s.event]->name, s.period, id);
}

static void on_switch(struct rec *r, const struct perf_event_header *hdr)
{
	struct prof_perf_sid sid;
	struct thread *t;

	if (prof_perf_parse_sid(&r->perf, hdr, &sid) != 0 || (int)sid.tid <= 0)
		return;
	t = thread_get(r, (int)sid.tid, 0);
	if (!t || !t->out_pending)
		return;
	if (hdr->misc & PERF_RECORD_MISC_SWITCH_OUT) {
		if ((hdr->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) && !t->out_preempt) {
			/* Preempted, not blocked: kept apart under a "[preempted]" leaf. */
			t->out_preempt = 1;
		}
		return;
	}
	/* Switched in: the thread was off-CPU since its switch-out sample. */
	if (sid.time > t->out_time) {
		uint32_t id = t->out_stack;

		if (t->out_preempt) {
			size_t depth;
			const uint32_t *fr = prof_stacks_frames(&r->stacks, id, &depth);

			if (depth < 1023) {
				memcpy(r->frame_ids, fr, depth * sizeof(*fr));
				r->frame_ids[depth] = prof_stacks_frame(&r->stacks, "[preempted]", 11);
				id = prof_stacks_intern(&r->stacks, r->frame_ids, depth + 1);
			}
		}
		r->samples[r->offcpu_event]++;
		emit(r, t->out_time, t, t->pid, t->out_cpu, r->offcpu_event, "offcpu-time",
		     sid.time - t->out_time, id);
	}
	t->out_pending = 0;
}

static void on_record(void *arg, const struct perf_event_header *hdr, uint64_t time)
{
	struct rec *r = arg;
	const unsigned char *body = (const unsigned char *)(hdr + 1);
	struct process *p, *pp;
	struct thread *t, *pt;

	(void)time;
	switch (hdr->type) {
	case PERF_RECORD_SAMPLE:
		on_sample(r, hdr);
		break;
	case PERF_RECORD_MMAP2: {
		struct prof_map m;
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
		const unsigned char *q = body;
		size_t maxlen;

		if (hdr->size < sizeof(*hdr) + 8 + 24 + 24 + 8)
			break;
		memcpy(&pid, q, 4);
		memcpy(&tid, q + 4, 4);
		memcpy(&addr, q + 8, 8);
		memcpy(&len, q + 16, 8);
		memcpy(&pgoff, q + 24, 8);
		memset(&m, 0, sizeof(m));
		if (hdr->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			unsigned bl = q[32];

			if (bl <= 20) {
				memcpy(m.build_id, q + 36, bl);
				m.build_id_len = bl;
			}
		}
		memcpy(&m.prot, q + 56, 4);
		maxlen = hdr->size - sizeof(*hdr) - 64;
		m.path = xstrndup((const char *)q + 64, maxlen);
		m.start = addr;
		m.end = addr + len;
		m.pgoff = pgoff;
		if ((int)pid > 0 && !is_kernel_addr(addr)) {
			p = proc_get(r, (int)pid, 1);
			prof_addrspace_add_map(p->as, &m);
		}
		free((char *)m.path);
		break;
	}
	case PERF_RECORD_COMM: {
		uint32_t pid, tid;

		if (hdr->size < sizeof(*hdr) + 9)
			break;
		memcpy(&pid, body, 4);
		memcpy(&tid, body + 4, 4);
		if ((int)tid <= 0 || (int)pid <= 0)
			break;
		t = thread_get(r, (int)tid, 1);
		t->pid = (int)pid;
		snprintf(t->comm, sizeof(t->comm), "%.*s", (int)(hdr->size - sizeof(*hdr) - 8),
			 (const char *)body + 8);
		if (hdr->misc & PERF_RECORD_MISC_COMM_EXEC) {
			p = proc_get(r, (int)pid, 1);
			if (r->unw)
				prof_unwinder_forget(r->unw, p->as);
			prof_addrspace_reset(p->as);
		}
		break;
	}
	case PERF_RECORD_FORK: {
		uint32_t pid, ppid, tid, ptid;

		if (hdr->size < sizeof(*hdr) + 24)
			break;
		memcpy(&pid, body, 4);
		memcpy(&ppid, body + 4, 4);
		memcpy(&tid, body + 8, 4);
		memcpy(&ptid, body + 12, 4);
		if ((int)tid <= 0 || (int)pid <= 0)
			break;
		/* Creating t may grow the table: look the parent up after. */
		t = thread_get(r, (int)tid, 1);
		pt = (int)ptid > 0 && ptid != tid ? thread_get(r, (int)ptid, 0) : NULL;
		t->pid = (int)pid;
		if (pt)
			memcpy(t->comm, pt->comm, sizeof(t->comm));
		else
			read_comm((int)pid, (int)tid, t->comm);
		if (pid != ppid && !proc_get(r, (int)pid, 0) && (int)ppid > 0 &&
		    (pp = proc_get(r, (int)ppid, 0))) {
			struct prof_addrspace *as = prof_addrspace_clone(pp->as, (int)pid);

			p = proc_get(r, (int)pid, 1);
			prof_addrspace_free(p->as);
			p->as = as;
		}
		break;
	}
	case PERF_RECORD_LOST: {
		uint64_t n;

		if (hdr->size >= sizeof(*hdr) + 16) {
			memcpy(&n, body + 8, 8);
			r->lost += n;
		}
		break;
	}
	case PERF_RECORD_LOST_SAMPLES: {
		uint64_t n;

		if (hdr->size >= sizeof(*hdr) + 8) {
			memcpy(&n, body, 8);
			r->lost_samples += n;
		}
		break;
	}
	case PERF_RECORD_THROTTLE:
		r->throttled++;
		break;
	case PERF_RECORD_SWITCH:
		if (r->offcpu_event >= 0)
			on_switch(r, hdr);
		break;
	default:
		break;
	}
}

/* ---- opening the events ---- */

static void make_attr(struct rec *r, int e, struct perf_event_attr *a)
{
	const struct event_def *d = r->events[e];

	memset(a, 0, sizeof(*a));
	a->type = d->type;
	a->config = d->config;
	if (e == r->offcpu_event) {
		a->sample_period = 1;
		a->context_switch = 1;
	} else if (r->period) {
		a->sample_period = r->period;
	} else {
		a->freq = 1;
		a->sample_freq = r->freq;
	}
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	if (r->cg != CG_NONE)
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (r->cg == CG_DWARF) {
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = prof_unwind_regs_mask();
		a->sample_stack_user = r->stack_bytes;
		a->exclude_callchain_user = 1;
	}
	a->disabled = r->have_child;
	a->enable_on_exec = r->have_child;
	a->inherit = r->inherit && !r->all_cpus;
	a->exclude_kernel = r->user_only;
	a->exclude_hv = 1;
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(r->perf.ring_pages * (size_t)sysconf(_SC_PAGESIZE) / 2);
	if (e == 0) {
		a->mmap = 1;
		a->mmap2 = 1;
		a->comm = 1;
		a->comm_exec = 1;
		a->task = 1;
		a->build_id = 1;
	}
}

/* Threads of pid from /proc/PID/task; returns count, tids malloc'ed. */
static size_t list_tasks(int pid, int **tids)
{
	char path[64];
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;

	*tids = NULL;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		int tid = atoi(de->d_name);

		if (tid <= 0)
			continue;
		PROF_GROW(*tids, n + 1, cap);
		(*tids)[n++] = tid;
	}
	closedir(d);
	return n;
}

static const char *open_error_hint(struct rec *r, int err, const struct event_def *d)
{
	(void)r;
	if ((err == ENOENT || err == EOPNOTSUPP || err == ENODEV || err == EINVAL) &&
	    d->type == PERF_TYPE_HARDWARE)
		return "not supported on this machine (no hardware counters, as in most virtual machines): use -e cpu-clock";
	return NULL;
}

/* Open every event on every CPU for target pid (-1: all). Returns 0 or errno. */
static int open_target(struct rec *r, int pid, int ncpus, int quiet_esrch)
{
	for (int e = 0; e < r->nevents; e++) {
		struct perf_event_attr a;

		make_attr(r, e, &a);
		for (int cpu = 0; cpu < ncpus; cpu++) {
			if (prof_perf_open(&r->perf, &a, pid, cpu, e) == 0)
				continue;
			if (errno == ENODEV && r->events[e]->type == PERF_TYPE_SOFTWARE)
				continue;	/* offline CPU */
			if (errno == ESRCH && quiet_esrch)
				return 0;	/* a thread that just exited */
			return errno;
		}
	}
	return 0;
}

static int open_all(struct rec *r, char **why_target, int *target_out)
{
	int ncpus = prof_perf_ncpus(), err = 0;

	*why_target = NULL;
	if (r->have_child) {
		*target_out = r->child.pid;
		return open_target(r, r->child.pid, ncpus, 0);
	}
	if (r->all_cpus) {
		*target_out = -1;
		return open_target(r, -1, ncpus, 0);
	}
	for (size_t i = 0; i < r->npids; i++) {
		int *tids = NULL;
		size_t n;

		*target_out = r->pids[i];
		if (r->tid_only) {
			err = open_target(r, r->pids[i], ncpus, 0);
			if (err)
				return err;
			continue;
		}
		n = list_tasks(r->pids[i], &tids);
		if (!n) {
			free(tids);
			return ESRCH;
		}
		for (size_t k = 0; k < n && !err; k++)
			err = open_target(r, tids[k], ncpus, tids[k] != r->pids[i]);
		free(tids);
		if (err)
			return err;
	}
	return 0;
}

/* The integer in a /proc/sys file, or dflt. */
static int sysctl_int(const char *path, int dflt)
{
	FILE *f = fopen(path, "re");
	int v = dflt;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = dflt;
		fclose(f);
	}
	return v;
}

static int paranoid_level(void)
{
	return sysctl_int("/proc/sys/kernel/perf_event_paranoid", 2);
}

/* ---- main ---- */

static int parse_events(struct rec *r, const char *arg)
{
	char *copy = xstrdup(arg), *save = NULL;

	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct event_def *d = NULL;
		const char *name = tok;

		for (size_t i = 0; i < sizeof(event_aliases) / sizeof(event_aliases[0]); i++)
			if (strcmp(tok, event_aliases[i].alias) == 0)
				name = event_aliases[i].name;
		for (size_t i = 0; i < sizeof(event_defs) / sizeof(event_defs[0]); i++)
			if (strcmp(name, event_defs[i].name) == 0)
				d = &event_defs[i];
		if (!d) {
			prof_usage_error(SYNOPSIS,
				"unknown event '%s' (known: cpu-clock, task-clock, page-faults, context-switches, cycles, instructions, cache-misses, branch-misses)",
				tok);
		}
		for (int i = 0; i < r->nevents; i++)
			if (r->events[i] == d)
				d = NULL;
		if (d) {
			if (r->nevents >= MAX_EVENTS - 1)
				prof_usage_error(SYNOPSIS, "too many events");
			r->events[r->nevents++] = d;
		}
	}
	free(copy);
	return 0;
}

static void parse_pids(struct rec *r, const char *arg, const char *opt)
{
	char *copy = xstrdup(arg), *save = NULL;

	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t v;

		if (prof_parse_u64(tok, &v) != 0 || v == 0 || v > INT_MAX)
			prof_usage_error(SYNOPSIS, "%s: invalid process id '%s'", opt, tok);
		r->pids = xreallocarray(r->pids, r->npids + 1, sizeof(*r->pids));
		r->pids[r->npids++] = (int)v;
	}
	free(copy);
	if (!r->npids)
		prof_usage_error(SYNOPSIS, "%s: no process id", opt);
}

static void build_meta(struct rec *r, struct prof_meta *m)
{
	struct prof_buf b = PROF_BUF_INIT, u = PROF_BUF_INIT;
	struct utsname un;
	char host[256], when[64];
	time_t now = time(NULL);
	struct tm tm;

	prof_meta_set(m, "source", "profrec");
	for (int i = 0; i < r->nevents; i++) {
		if (i) {
			prof_buf_addch(&b, ',');
			prof_buf_addch(&u, ',');
		}
		prof_buf_addstr(&b, r->events[i]->name);
		prof_buf_addstr(&u, r->folded && i != r->offcpu_event ? "samples" : r->events[i]->unit);
	}
	prof_meta_set(m, "event", prof_buf_cstr(&b));
	prof_meta_set(m, "unit", prof_buf_cstr(&u));
	if (r->nevents == 1 && r->offcpu_event == 0)
		prof_meta_set(m, "period", "1");
	else if (r->period)
		prof_meta_setf(m, "period", "%llu", (unsigned long long)r->period);
	else
		prof_meta_setf(m, "freq", "%llu", (unsigned long long)r->freq);
	prof_meta_set(m, "call_graph", r->cg == CG_FP ? "fp" : r->cg == CG_DWARF ? "dwarf" : "none");
	prof_buf_reset(&b);
	if (r->argv) {
		for (char **a = r->argv; *a; a++) {
			if (a != r->argv)
				prof_buf_addch(&b, ' ');
			prof_buf_addstr(&b, *a);
		}
		prof_meta_set(m, "command", prof_buf_cstr(&b));
	} else if (r->all_cpus) {
		prof_meta_set(m, "command", "-a");
	} else {
		prof_buf_addstr(&b, r->tid_only ? "-t " : "-p ");
		for (size_t i = 0; i < r->npids; i++)
			prof_buf_addf(&b, "%s%d", i ? "," : "", r->pids[i]);
		prof_meta_set(m, "command", prof_buf_cstr(&b));
	}
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	prof_meta_set(m, "start_time", when);
	if (gethostname(host, sizeof(host)) == 0) {
		host[sizeof(host) - 1] = 0;
		prof_meta_set(m, "host", host);
	}
	if (uname(&un) == 0)
		prof_meta_set(m, "kernel", un.release);
	prof_buf_release(&b);
	prof_buf_release(&u);
}

static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* Free everything main() set up (the output is closed by the caller). */
static void rec_release(struct rec *r)
{
	prof_perf_release(&r->perf);
	prof_stacks_release(&r->stacks);
	for (size_t i = 0; i < r->proc_slots; i++)
		if (r->procs[i].pid) {
			if (r->unw)
				prof_unwinder_forget(r->unw, r->procs[i].as);
			prof_addrspace_free(r->procs[i].as);
		}
	prof_unwinder_free(r->unw);
	prof_symbolizer_free(r->sym);
	free(r->procs);
	free(r->threads);
	free(r->written);
	free(r->fbuf);
	free(r->pids);
	prof_buf_release(&r->line);
	prof_buf_release(&r->text);
}

static int any_alive(struct rec *r)
{
	for (size_t i = 0; i < r->npids; i++)
		if (kill(r->pids[i], 0) == 0 || errno == EPERM)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	struct rec rr, *r = &rr;
	struct prof_sym_options so;
	struct prof_meta meta = PROF_META_INIT;
	struct sigaction sa;
	int c, rval = PROF_EXIT_OK, status = -1, err, target = 0, quiet = 0, offcpu = 0;
	char *why = NULL;
	uint64_t v, t_end, last_flush;
	double d;
	int cg_set = 0, m_set = 0, pidfd = -1;

	prof_set_progname(argv[0]);
	memset(r, 0, sizeof(*r));
	r->offcpu_event = -1;
	r->freq = 999;
	r->inherit = 1;
	r->stack_bytes = 8192;
	r->mmap_pages = 128;
	while ((c = prof_getopt_long(argc, argv, "+ac:d:e:F:ghm:o:p:qt:v", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			r->all_cpus = 1;
			break;
		case 'c':
			if (prof_parse_u64(optarg, &v) != 0 || v == 0)
				prof_usage_error(SYNOPSIS, "-c: invalid period '%s'", optarg);
			r->period = v;
			break;
		case 'd':
			if (prof_parse_duration(optarg, 1, &d) != 0 || d <= 0)
				prof_usage_error(SYNOPSIS, "-d: invalid duration '%s'", optarg);
			r->duration = d;
			break;
		case 'e':
			parse_events(r, optarg);
			break;
		case 'F':
			if (prof_parse_u64(optarg, &v) != 0 || v == 0 || v > 1000000)
				prof_usage_error(SYNOPSIS, "-F: invalid frequency '%s'", optarg);
			r->freq = v;
			break;
		case 'g':
			r->cg = CG_FP;
			cg_set = 1;
			break;
		case 'h':
			prof_help(help_text);
		case 'm':
			if (prof_parse_u64(optarg, &v) != 0 || v == 0 || v > (1u << 20))
				prof_usage_error(SYNOPSIS, "-m: invalid page count '%s'", optarg);
			r->mmap_pages = (size_t)v;
			m_set = 1;
			break;
		case 'o':
			r->output = optarg;
			break;
		case 'p':
			parse_pids(r, optarg, "-p");
			break;
		case 'q':
			quiet = 1;
			prof_verbosity = 0;
			break;
		case 't':
			parse_pids(r, optarg, "-t");
			if (r->npids != 1)
				prof_usage_error(SYNOPSIS, "-t takes one thread id");
			r->tid_only = 1;
			break;
		case 'v':
			prof_verbosity++;
			break;
		case OPT_CALL_GRAPH:
			cg_set = 1;
			if (strcmp(optarg, "fp") == 0) {
				r->cg = CG_FP;
			} else if (strcmp(optarg, "none") == 0) {
				r->cg = CG_NONE;
			} else if (strncmp(optarg, "dwarf", 5) == 0 && (optarg[5] == 0 || optarg[5] == ',')) {
				r->cg = CG_DWARF;
				if (optarg[5] == ',') {
					if (prof_parse_size(optarg + 6, &v) != 0 || v < 8 || v > 65528)
						prof_usage_error(SYNOPSIS,
							"--call-graph: stack size '%s' not in 8..65528", optarg + 6);
					r->stack_bytes = (unsigned)(v & ~7ULL);
				}
			} else {
				prof_usage_error(SYNOPSIS, "--call-graph: unknown mode '%s' (fp, dwarf, none)", optarg);
			}
			break;
		case OPT_DEBUGINFOD:
			r->debuginfod = 1;
			break;
		case OPT_FOLDED:
			r->folded = 1;
			break;
		case OPT_LINES:
			r->lines = 1;
			break;
		case OPT_NO_HEADER:
			r->no_header = 1;
			break;
		case OPT_NO_INHERIT:
			r->inherit = 0;
			break;
		case OPT_NO_INLINE:
			r->no_inline = 1;
			break;
		case OPT_OFF_CPU:
			offcpu = 1;
			break;
		case PROF_OPT_LIST_OPTIONS:
			prof_list_option_values(longopts, (const struct prof_option_values[]){
				{ "call-graph", "fp,dwarf,none" },
				{ "event", "cpu-clock,task-clock,page-faults,context-switches,cycles,"
					   "instructions,cache-misses,branch-misses" },
				{ NULL, NULL } });
		default:
			prof_usage_error(SYNOPSIS, NULL);
		}
	}
	(void)cg_set;
	argc -= optind;
	argv += optind;
	if ((argc > 0) + (r->npids > 0) + r->all_cpus > 1)
		prof_usage_error(SYNOPSIS, "give one of a command, -p, -t or -a");
	if (argc == 0 && !r->npids && !r->all_cpus)
		prof_usage_error(SYNOPSIS, "nothing to profile: give a command, -p, -t or -a");
	if (offcpu) {
		if (r->nevents >= MAX_EVENTS)
			prof_usage_error(SYNOPSIS, "too many events");
		r->offcpu_event = r->nevents;
		r->events[r->nevents++] = &offcpu_def;
	} else if (!r->nevents) {
		r->events[r->nevents++] = &event_defs[0];
	}
	if (r->no_header && !r->folded)
		prof_usage_error(SYNOPSIS, "--no-header needs --folded");
	if (r->folded && r->nevents > 1)
		prof_usage_error(SYNOPSIS, "--folded takes one event (several events: write the TSV and fold it with proffold)");
	if (r->cg == CG_DWARF && !m_set)
		r->mmap_pages = 1024;
	if (argc > 0) {
		r->argv = argv;
		r->have_child = 1;
	}

	raise_nofile();
	c = sysctl_int("/proc/sys/kernel/perf_event_max_stack", 127);
	r->max_stack = c > 0 ? (unsigned)c : 127;
	prof_sym_options_init(&so);
	so.inlines = !r->no_inline;
	so.lines = r->lines;
	so.debuginfod = r->debuginfod;
	if (!r->debuginfod)
		unsetenv("DEBUGINFOD_URLS");
	r->sym = prof_symbolizer_new(&so);
	if (r->cg == CG_DWARF)
		r->unw = prof_unwinder_new();
	r->fbuf = xcalloc(16, sizeof(*r->fbuf));
	prof_stacks_init(&r->stacks, 1);

	/* Open the output first: an unwritable file fails before any work. */
	r->out = prof_output_open(r->output, PROF_OUT_STREAM,
				  r->output ? prof_compression_from_suffix(r->output) : PROF_COMP_NONE);
	if (!r->out) {
		rec_release(r);
		return PROF_EXIT_FAIL;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_chld;
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (r->have_child) {
		/*
		 * When the profile goes to our standard output, the command's
		 * standard output goes to the standard error, so that
		 * "profrec -- app | proffold" never mixes the two.
		 */
		int to_stdout = !r->output || strcmp(r->output, "-") == 0;
		int saved = to_stdout ? fcntl(1, F_DUPFD_CLOEXEC, 3) : -1;

		if (saved >= 0)
			dup2(2, 1);
		err = prof_child_spawn(&r->child, argv, NULL);
		if (saved >= 0) {
			dup2(saved, 1);
			close(saved);
		}
		if (err != 0) {
			prof_output_abort(r->out);
			rec_release(r);
			return PROF_EXIT_FAIL;
		}
	}

	/* Kernel frames when permitted; otherwise user space only, said once. */
	r->user_only = geteuid() != 0 && paranoid_level() > 1;
	prof_perf_init(&r->perf, r->mmap_pages);
	err = open_all(r, &why, &target);
	if ((err == EACCES || err == EPERM) && !r->user_only && !r->all_cpus) {
		prof_perf_release(&r->perf);
		prof_perf_init(&r->perf, r->mmap_pages);
		r->user_only = 1;
		err = open_all(r, &why, &target);
	}
	if (err) {
		const char *hint = NULL;

		for (int e = 0; e < r->nevents && !hint; e++)
			hint = open_error_hint(r, err, r->events[e]);
		if (hint) {
			const char *hw = "";

			for (int e = 0; e < r->nevents; e++)
				if (r->events[e]->type == PERF_TYPE_HARDWARE)
					hw = r->events[e]->name;
			prof_warn("event '%s' is %s", hw, hint);
		} else if (err == ESRCH) {
			prof_warn("%s %d: no such process", r->tid_only ? "thread" : "pid", target);
		} else if (err == EACCES || err == EPERM) {
			if (r->all_cpus)
				prof_warn("-a: not permitted to profile every CPU: %s (needs root or CAP_PERFMON, or perf_event_paranoid <= 0; it is %d)",
					  strerror(err), paranoid_level());
			else if (r->have_child)
				prof_warn("not permitted to profile %s: %s (perf_event_paranoid is %d)",
					  r->argv[0], strerror(err), paranoid_level());
			else
				prof_warn("pid %d: not permitted to profile it: %s (it belongs to another user; needs root or CAP_PERFMON)",
					  target, strerror(err));
		} else if (err == EMFILE) {
			prof_warn("perf_event_open: %s (raise the open-files limit, ulimit -n)", strerror(err));
		} else {
			prof_warn("perf_event_open: %s", strerror(err));
		}
		if (r->have_child) {
			kill(r->child.pid, SIGKILL);
			while (waitpid(r->child.pid, NULL, 0) < 0 && errno == EINTR)
				;
		}
		/* Nothing recorded: an old file at the name stays. */
		prof_output_abort(r->out);
		rec_release(r);
		return PROF_EXIT_FAIL;
	}
	free(why);
	if (r->user_only && !quiet)
		prof_info(1, "kernel frames not recorded: perf_event_paranoid is %d (needs root or CAP_PERFMON)",
			  paranoid_level());

	/* Metadata and header now, so even an empty run is a valid file. */
	build_meta(r, &meta);
	{
		struct prof_buf b = PROF_BUF_INIT;

		prof_meta_format(&meta, &b);
		if (!r->folded) {
			prof_buf_addstr(&b, prof_tsv_header(prof_tsv_schema_find("profrec-samples")));
			prof_output_write(r->out, b.data, b.len);
			prof_output_flush(r->out);
		}
		prof_buf_release(&b);
	}

	/* Attached processes: their mappings and thread names now. */
	for (size_t i = 0; i < r->npids; i++) {
		int pid = r->pids[i];

		if (r->tid_only) {
			char path[64], line[256];
			FILE *f;

			snprintf(path, sizeof(path), "/proc/%d/status", pid);
			f = fopen(path, "re");
			if (f) {
				while (fgets(line, sizeof(line), f))
					if (sscanf(line, "Tgid: %d", &pid) == 1)
						break;
				fclose(f);
			}
		}
		addrspace_of(r, pid);
	}

	r->start_ns = prof_now_ns();
	if (r->have_child) {
		status = prof_child_start(&r->child, argv[0]);
		if (status != 0) {
			/* Could not execute: nothing was recorded, the old file stays. */
			prof_output_abort(r->out);
			prof_meta_release(&meta);
			rec_release(r);
			return status;
		}
		status = -1;
		/* Readable when the command exits: no wait for the poll timeout. */
		pidfd = (int)syscall(SYS_pidfd_open, r->child.pid, 0);
	}
	t_end = r->duration > 0 ? r->start_ns + (uint64_t)(r->duration * 1e9) : UINT64_MAX;
	last_flush = r->start_ns;
	for (;;) {
		uint64_t now;

		if (stop_signal)
			break;
		if (r->have_child && (child_exited || status < 0)) {
			int ws;
			pid_t w = waitpid(r->child.pid, &ws, WNOHANG);

			child_exited = 0;
			if (w == r->child.pid) {
				status = prof_exit_status(ws);
				break;
			}
		}
		prof_perf_poll(&r->perf, 100, pidfd);
		prof_perf_drain(&r->perf, 0, on_record, r);
		now = prof_now_ns();
		if (now >= t_end)
			break;
		if (!r->have_child && !r->all_cpus && !any_alive(r))
			break;
		if (now - last_flush >= 1000000000ULL && !r->folded) {
			prof_output_flush(r->out);
			last_flush = now;
		}
	}
	prof_perf_disable(&r->perf);
	prof_perf_drain(&r->perf, 1, on_record, r);
	if (pidfd >= 0)
		close(pidfd);
	if (r->have_child && status < 0) {
		/*
		 * Stopped by a signal or -d: pass it on and wait for the
		 * command. A command started with that signal ignored (SIGINT
		 * in a shell's background job) gets SIGTERM instead, one that
		 * ignores that too SIGKILL; another stop signal kills it.
		 */
		int ws, seen = stop_count, sig = stop_signal ? stop_signal : SIGTERM;

		if (prof_signal_ignored_at_start(sig))
			sig = SIGTERM;
		if (prof_signal_ignored_at_start(sig))
			sig = SIGKILL;
		kill(r->child.pid, sig);
		while (waitpid(r->child.pid, &ws, 0) < 0 && errno == EINTR) {
			if (stop_count != seen) {
				seen = stop_count;
				kill(r->child.pid, SIGKILL);
			}
		}
		status = prof_exit_status(ws);
	}

	if (r->folded) {
		if (prof_folded_write(&r->stacks, r->no_header ? NULL : &meta, 1, r->out) != 0)
			rval = PROF_EXIT_FAIL;
	}
	{
		double secs = (double)(prof_now_ns() - r->start_ns) / 1e9;
		unsigned long long total = 0, bytes;
		int out_failed;
		char dur[32], size[32];
		struct prof_buf b = PROF_BUF_INIT;
		const char *name = r->output && strcmp(r->output, "-") ? r->output : "<stdout>";

		/* A failed write leaves no file (or the old one): claim no bytes. */
		out_failed = prof_output_close(r->out) != 0;
		if (out_failed)
			rval = PROF_EXIT_FAIL;
		bytes = 0;
		if (!out_failed && r->output && strcmp(r->output, "-") != 0) {
			struct stat st;

			if (stat(r->output, &st) == 0)
				bytes = (unsigned long long)st.st_size;
		}
		for (int e = 0; e < r->nevents; e++) {
			total += r->samples[e];
			prof_buf_addf(&b, "%s%s %llu", e ? ", " : "", r->events[e]->name, r->samples[e]);
		}
		if (!quiet) {
			fprintf(stderr, "%s: %s, %llu sample%s (%s), %llu lost, %.1f samples/s, %llu thread%s, ",
				prof_progname, prof_fmt_duration(dur, sizeof(dur), secs), total,
				total == 1 ? "" : "s", b.data, r->lost + r->lost_samples,
				secs > 0 ? (double)total / secs : 0.0, r->threads_seen,
				r->threads_seen == 1 ? "" : "s");
			if (bytes)
				fprintf(stderr, "%s (%.1f B/sample) to %s\n",
					prof_fmt_bytes(size, sizeof(size), (double)bytes),
					total ? (double)bytes / (double)total : 0.0, name);
			else
				fprintf(stderr, "output to %s%s\n", name, out_failed ? " failed" : "");
		}
		if (r->lost + r->lost_samples)
			prof_warn("%llu record%s lost: the ring buffer overflowed (raise -m or lower -F)",
				  r->lost + r->lost_samples, r->lost + r->lost_samples == 1 ? "" : "s");
		if (r->bad)
			prof_warn("%llu malformed records skipped", r->bad);
		/*
		 * Without frame pointers the walk stops after the sampled
		 * function and maybe one more (a leaf's caller), short of
		 * the thread's entry frame.
		 */
		if (!quiet && r->fp_user_stacks >= 20 && 2 * r->fp_shallow_stacks > r->fp_user_stacks)
			prof_warn("%llu%% of the user stacks stop after one or two frames: the program seems to be built without frame pointers (try --call-graph dwarf)",
				  100 * r->fp_shallow_stacks / r->fp_user_stacks);
		prof_buf_release(&b);
	}
	prof_meta_release(&meta);
	rec_release(r);
	if (rval != PROF_EXIT_OK && (!r->have_child || status == 0))
		return rval;
	return r->have_child ? status : rval;
}
