/*
 * profrec --python's sampling loop (record.h).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/hashmap.h"
#include "base/proc.h"
#include "base/units.h"
#include "base/xalloc.h"
#include "core/meta.h"
#include "core/stack.h"
#include "io/output.h"
#include "python/native.h"
#include "python/python.h"
#include "python/record.h"
#include "record/recorder.h"
#include "record/sample_writer.h"
#include "symbolize/symbolize.h"

struct tick {
	struct prof_python_recording *rec;
	struct prof_sample_writer *w;
	struct prof_stacks *stacks;
	uint64_t now, weight;
	int cpu_weights;		/* weights from the threads' task-clock counters */
	struct prof_hashmap clocks;	/* tid -> struct thread_clock */
	struct prof_py_native *native;	/* --native */
	int stop_errno;			/* --native: why a thread could not be stopped */
	/* the thread being read (enter_thread) */
	char comm[64];
	int cpu;
	/* this tick's samples, weighed once all are read */
	struct prof_sample_row *rows;
	char (*comms)[64];
	size_t nrows, rows_cap, comms_cap;
	uint32_t frames[1025];
};

/* A thread's task-clock counter and what it read at its last sample. */
struct thread_clock {
	int fd;			/* -1: could not be opened */
	uint64_t last;
};

/*
 * The CPU time tid ran since its last sample, in ns, from a task-clock
 * perf counter of its own (read(2) brings a running thread's count up to
 * date, as perf stat's does). Not a thread's se.sum_exec_runtime
 * (/proc/PID/task/TID/sched), nor the process's CPU clock read from
 * outside: both are brought up to date only at a scheduler tick or when
 * the thread reads its own clock, and a loop that read time.process_time()
 * moved a 75/25 split to 89/11. Returns 0 at the first sample of a
 * thread; -1 when the counter cannot be had (perf_event_paranoid).
 */
static int64_t thread_cpu_delta(struct tick *k, pid_t tid)
{
	int added;
	struct thread_clock *c = prof_hashmap_put(&k->clocks, (uint64_t)tid, &added);
	uint64_t now, d;

	if (added) {
		struct perf_event_attr attr;

		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = PERF_COUNT_SW_TASK_CLOCK;
		c->fd = (int)syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
		c->last = 0;
		if (c->fd >= 0 && read(c->fd, &c->last, sizeof(c->last)) != (ssize_t)sizeof(c->last))
			c->last = 0;
		return c->fd >= 0 ? 0 : -1;
	}
	if (c->fd < 0 || read(c->fd, &now, sizeof(now)) != (ssize_t)sizeof(now))
		return -1;
	d = now > c->last ? now - c->last : 0;
	c->last = now;
	return (int64_t)d;
}

/*
 * The thread's state letter, name and last CPU from /proc/PID/task/TID/stat;
 * 0 when it cannot be read (the thread is gone).
 */
static char thread_state(pid_t pid, pid_t tid, char *comm, size_t commlen, int *cpu)
{
	char path[64], buf[1024], *open_paren, *close_paren, *f;
	int fd, field = 3;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	if (!(open_paren = strchr(buf, '(')) || !(close_paren = strrchr(buf, ')')) ||
	    close_paren[1] != ' ')
		return 0;
	snprintf(comm, commlen, "%.*s", (int)(close_paren - open_paren - 1), open_paren + 1);
	*cpu = -1;
	/* field 39 is the CPU it last ran on */
	for (f = close_paren + 2; *f && field < 39; f++)
		if (*f == ' ')
			field++;
	if (field == 39)
		*cpu = atoi(f);
	return close_paren[2];
}

/* The thread's id (the process's when CPython does not know it). */
static pid_t row_tid(const struct prof_python_recording *rec, const struct prof_python_thread *t)
{
	return t->tid ? t->tid : rec->pid;
}

/*
 * Before a thread's frames are read: whether it is sampled (running,
 * unless --idle), its name and CPU; with --native, stop it.
 */
static int enter_thread(void *ctx, pid_t tid)
{
	struct tick *k = ctx;
	struct prof_python_recording *rec = k->rec;
	char state = 'R';

	snprintf(k->comm, sizeof(k->comm), "python");
	k->cpu = -1;
	if (tid)
		state = thread_state(rec->pid, tid, k->comm, sizeof(k->comm), &k->cpu);
	if (!state || (state != 'R' && !rec->idle))
		return 1;
	if (k->native) {
		if (!tid) {	/* 3.9, 3.10 where glibc's tid is not found: nothing to stop */
			rec->unmergeable++;
			return 1;
		}
		/* --idle: a thread in uninterruptible sleep would stop only once
		 * its wait ends, and the sampler with it */
		if (state == 'D')
			return 1;
		if (prof_py_native_stop(k->native, tid) != 0) {
			if (errno != ESRCH)
				k->stop_errno = errno;
			return 1;
		}
	}
	return 0;
}

/* Once its frames are read: let it go on. */
static void leave_thread(void *ctx, pid_t tid)
{
	struct tick *k = ctx;

	(void)tid;
	if (k->native)
		prof_py_native_resume(k->native);
}

static void one_thread(void *ctx, const struct prof_python_thread *t)
{
	struct tick *k = ctx;
	struct prof_python_recording *rec = k->rec;
	size_t depth = 0, max = sizeof(k->frames) / sizeof(k->frames[0]);
	struct prof_sample_row *row;
	int64_t ran = 0;

	if (rec->folded)
		k->frames[depth++] = prof_stacks_frame(k->stacks, k->comm, strlen(k->comm));
	if (k->native) {
		long n = prof_py_native_stack(k->native, t, k->stacks, k->frames + depth, max - depth);

		if (n <= 0)	/* unmergeable: counted, dropped */
			return;
		depth += (size_t)n;
	} else {
		for (size_t i = 0; i < t->depth && depth < max; i++)
			k->frames[depth++] = prof_stacks_frame(k->stacks, t->frames[i],
							       strlen(t->frames[i]));
	}
	/*
	 * Weighed by the CPU time it ran since its last sample: a thread
	 * that waits for a CPU on a loaded machine is in state R too, and
	 * counting its ticks would pile them on wherever it was preempted.
	 */
	if (k->cpu_weights && (ran = thread_cpu_delta(k, row_tid(rec, t))) <= 0) {
		if (ran < 0)	/* no counter for it: a tick's weight */
			ran = (int64_t)k->weight;
		else
			return;
	}
	PROF_GROW(k->rows, k->nrows + 1, k->rows_cap);
	PROF_GROW(k->comms, k->nrows + 1, k->comms_cap);
	memcpy(k->comms[k->nrows], k->comm, sizeof(k->comm));
	row = &k->rows[k->nrows++];
	memset(row, 0, sizeof(*row));
	row->time = k->now;
	row->pid = rec->pid;
	row->tid = row_tid(rec, t);
	row->cpu = k->cpu;
	row->event = "cpu-clock";
	row->weight = k->cpu_weights ? (uint64_t)ran : k->weight;
	row->stack = prof_stacks_intern(k->stacks, k->frames, depth);
}

/* Write this tick's samples (read first, written after: no stack reads wait on output). */
static void write_tick(struct tick *k)
{
	for (size_t i = 0; i < k->nrows; i++) {
		k->rows[i].comm = k->comms[i];
		prof_sample_writer_add(k->w, &k->rows[i]);
		k->rec->samples++;
	}
	k->nrows = 0;
}

/* Whether the process has ended (a child is left for its parent to reap). */
static int ended(const struct prof_python_recording *rec)
{
	if (rec->is_child) {
		siginfo_t si = { 0 };

		return waitid(P_PID, (id_t)rec->pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0 ||
		       si.si_pid == rec->pid;
	}
	return kill(rec->pid, 0) != 0 && errno == ESRCH;
}

/* The native side of --native, named as profrec's native stacks are. */
static struct prof_py_native *native_new(const struct prof_python_recording *rec,
					 const char *image)
{
	struct prof_sym_options so;

	prof_sym_options_init(&so);
	so.inlines = !rec->native->no_inline;
	so.demangle = !rec->native->no_demangle;
	so.lines = rec->native->lines;
	so.debuginfod = rec->native->debuginfod;
	return prof_py_native_new(rec->pid, rec->is_child, image, &so);
}

int prof_python_record(struct prof_python_recording *rec, struct prof_sample_writer *w,
		       struct prof_stacks *stacks, volatile sig_atomic_t *stop)
{
	struct prof_python *p = NULL;
	struct tick k = { .rec = rec, .w = w, .stacks = stacks };
	struct prof_python_visit visit = { enter_thread, leave_thread, one_thread, &k };
	uint64_t period = 1000000000u / (rec->freq ? rec->freq : 99), start = prof_now_ns();
	uint64_t next = start, end = rec->duration > 0 ? start + (uint64_t)(rec->duration * 1e9) : 0;
	char err[512] = "";
	int rc = 0, nread, read_errno;
	uint64_t jitter = (uint64_t)rec->pid * 2654435761u + start;

	/* TSV: ns of CPU; folded: samples, unless CPU time weighs them (ns) */
	k.cpu_weights = rec->cpu_weights;
	k.weight = rec->folded && !rec->cpu_weights ? 1 : period;
	prof_hashmap_init(&k.clocks, sizeof(struct thread_clock));
	while (!*stop && !ended(rec) && (!end || next < end)) {
		struct timespec ts = { (time_t)(next / 1000000000u), (long)(next % 1000000000u) };
		int retry = 0;

		if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			continue;
		/*
		 * The next tick is a period away on average, give or take half
		 * of one: a fixed rate can beat with a loop in the program and
		 * see one phase of it only.
		 */
		jitter = jitter * 6364136223846793005ULL + 1442695040888963407ULL;
		next += period / 2 + (jitter >> 33) % (period + 1);
		k.now = prof_now_ns();
		if (k.now > next + 10 * period)	/* fell behind (suspended): skip, never burst */
			next = k.now + period;
		rec->ticks++;
		if (!p) {
			p = prof_python_attach(rec->pid, &retry, err, sizeof(err));
			if (!p && !retry) {
				prof_warn("--python: process %d: %s", (int)rec->pid, err);
				rc = -1;
				break;
			}
			if (!p)
				continue;
			snprintf(rec->version, sizeof(rec->version), "%s", prof_python_version(p));
			if (rec->native)
				k.native = native_new(rec, prof_python_image(p));
		}
		nread = prof_python_sample(p, &visit);
		read_errno = errno;
		write_tick(&k);
		if (k.stop_errno) {
			prof_warn("--native: process %d: cannot stop its threads: %s%s", (int)rec->pid,
				  strerror(k.stop_errno), k.stop_errno == EPERM ? " (already traced, "
				  "or ptrace is refused: see kernel.yama.ptrace_scope)" : "");
			rc = -1;
			break;
		}
		if (nread < 0 && read_errno != ESRCH && read_errno != EFAULT && !ended(rec)) {
			errno = read_errno;
			prof_warn("--python: process %d: cannot read its memory: %s", (int)rec->pid,
				  strerror(errno));
			rc = -1;
			break;
		}
	}
	free(k.rows);
	free(k.comms);
	for (size_t i = 0; i < prof_hashmap_count(&k.clocks); i++) {
		struct thread_clock *c = prof_hashmap_at(&k.clocks, i, NULL);

		if (c->fd >= 0)
			close(c->fd);
	}
	prof_hashmap_release(&k.clocks);
	if (k.native) {
		rec->unmergeable += prof_py_native_unmergeable(k.native);
		struct prof_py_native_costs c;

		prof_py_native_costs(k.native, &c);
		rec->stops = c.stops;
		rec->stop_wait_ns = c.stop_wait_ns;
		rec->stopped_ns = c.stopped_ns;
		rec->unwind_ns = c.unwind_ns;
		prof_py_native_free(k.native);
	}
	if (p) {
		rec->torn = prof_python_torn(p);
		prof_python_detach(p);
	} else if (rc == 0 && !*stop) {
		prof_warn("--python: process %d never ran CPython 3.9-3.13%s%s", (int)rec->pid,
			  err[0] ? ": " : "", err);
		rc = -1;
	}
	return rc;
}

/* "command" metadata: the words of argv, as a shell would show them. */
static void command_meta(struct prof_meta *meta, char *const argv[])
{
	struct prof_buf b = PROF_BUF_INIT;

	for (char *const *w = argv; w && *w; w++)
		prof_buf_addf(&b, "%s%s", w == argv ? "" : " ", *w);
	if (argv)
		prof_meta_set(meta, "command", prof_buf_cstr(&b));
	prof_buf_release(&b);
}

/* us per thread stopped */
static double per_stop(const struct prof_python_recording *rec, uint64_t ns)
{
	return (double)ns / 1e3 / (double)rec->stops;
}

int prof_python_profile(struct prof_python_recording *rec, struct prof_child *child,
			char *const argv[], struct prof_output *out, int no_header,
			volatile sig_atomic_t *stop)
{
	struct prof_stacks stacks;
	struct prof_sample_writer w;
	struct prof_meta meta = PROF_META_INIT;
	uint64_t start = prof_now_ns();
	int rc, status = 0;

	if (child) {
		rec->pid = child->pid;
		rec->is_child = 1;
	}
	prof_stacks_init(&stacks, 1);
	prof_sample_writer_init(&w, out, &stacks, rec->folded);
	w.start_ns = start;
	prof_meta_set(&meta, "source", "profrec");
	prof_meta_set(&meta, "event", "cpu-clock");
	rec->cpu_weights = !rec->idle;
	prof_meta_set(&meta, "unit", rec->folded && !rec->cpu_weights ? "samples" : "ns");
	if (!rec->freq)
		rec->freq = 99;
	prof_meta_setf(&meta, "freq", "%u", rec->freq);
	prof_meta_set(&meta, "call_graph", rec->native ? "python+native" : "python");
	command_meta(&meta, argv);
	rc = prof_sample_writer_begin(&w, &meta);
	if (child && (status = prof_child_start(child, argv[0])) != 0) {
		prof_output_abort(out);
		goto out;
	}
	if (rc == 0)
		rc = prof_python_record(rec, &w, &stacks, stop);
	if (rec->version[0])
		prof_meta_set(&meta, "python", rec->version);
	prof_meta_setf(&meta, "torn_stacks", "%llu", (unsigned long long)rec->torn);
	if (rec->native)
		prof_meta_setf(&meta, "unmergeable_stacks", "%llu",
			       (unsigned long long)rec->unmergeable);
	if (rc == 0 && prof_sample_writer_finish(&w, no_header ? NULL : &meta) != 0)
		rc = -1;
	if (rc == 0)
		rc = prof_output_close(out);
	else
		prof_output_abort(out);
	prof_info(1, "Python %s, %.1f s, %llu samples, %llu torn stacks dropped",
		  rec->version[0] ? rec->version : "?", (double)(prof_now_ns() - start) / 1e9,
		  (unsigned long long)rec->samples, (unsigned long long)rec->torn);
	if (rec->native && rec->stops)
		prof_info(1, "--native: %llu stacks unmergeable (dropped); per sample: %.0f us to stop "
			  "a thread, %.0f us stopped, %.0f us to unwind and merge after",
			  (unsigned long long)rec->unmergeable, per_stop(rec, rec->stop_wait_ns),
			  per_stop(rec, rec->stopped_ns), per_stop(rec, rec->unwind_ns));
	if (child) {
		if (!ended(rec) && (*stop || rec->duration > 0))
			kill(child->pid, *stop ? *stop : SIGTERM);
		status = prof_child_wait(child->pid, NULL);
	}
out:
	prof_sample_writer_release(&w);
	prof_stacks_release(&stacks);
	prof_meta_release(&meta);
	return status ? status : rc ? 1 : 0;
}
