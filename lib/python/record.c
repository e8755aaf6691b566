/*
 * profrec --python's sampling loop (record.h).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/sched/types.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
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
	uint64_t now, weight, period, jitter;
	int cpu_weights;		/* weights from the threads' task-clock counters */
	int wall;			/* this pass is a wall-clock tick (not only overflows) */
	struct prof_hashmap clocks;	/* tid -> struct thread_clock */
	/* the threads' overflowing counters, polled (rebuilt when dirty) */
	struct pollfd *pfds;
	pid_t *ptids;
	size_t npfds, pfds_cap;
	int pfds_dirty;
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

/*
 * A thread's task-clock counter and what it read at its last sample.
 * Where it can, the counter also overflows every period of the thread's
 * CPU time (ring: its mapped ring buffer, whose wakeup profrec polls):
 * the thread is read then, as it has just run a period (due), so that
 * samples land where the CPU time went; a thread on a busy machine that
 * waits for a CPU, seen by a wall-clock tick, sits where the scheduler
 * took it off, most often at the return of a system call that read a
 * clock (which is when the kernel notices that its slice is over).
 */
struct thread_clock {
	int fd;			/* -1: could not be opened */
	void *ring;		/* NULL: counting only, sampled by wall-clock ticks */
	int due;		/* overflowed since it was last read */
	int late;		/* due, but read too long after its overflow */
	uint64_t last;		/* the count at its last sample */
	uint64_t now;		/* due: the count at its last overflow */
};

/*
 * A thread read more than this long (wall-clock time, so at most that
 * much of its CPU time) after its overflow is late: its sample is
 * dropped and its time goes to its next one. On a busy machine such a
 * thread has most often been off its CPU meanwhile, taken off where its
 * slice ended (at a system call that read a clock, in tests/data/split.py)
 * and put back there: read after it ran 0.2-1 ms past its overflow,
 * 75/25 came out 56/44. Here (2 vCPUs, a VM) a sampler that preempts the
 * thread reads it 10-20 us after its overflow, one on the other CPU
 * 50-100 us after.
 */
#define LATE_NS 100000u

/* The ring's size: its header page and one page of (unread) records. */
static size_t ring_size(void)
{
	return 2 * (size_t)sysconf(_SC_PAGESIZE);
}

/* The next overflow period: a period give or take half of one (see the loop). */
static uint64_t next_period(struct tick *k)
{
	k->jitter = k->jitter * 6364136223846793005ULL + 1442695040888963407ULL;
	return k->period / 2 + (k->jitter >> 33) % (k->period + 1);
}

/*
 * The clock of tid, its counter opened when the thread is new; NULL when
 * the thread is gone. The overflowing counter is mapped read-only (the
 * kernel overwrites its records: only the wakeups matter) and woken at
 * each overflow; where it cannot be had (perf_event_paranoid, the locked
 * memory limit), a counting one; where none, fd -1.
 */
static struct thread_clock *thread_clock(struct tick *k, pid_t tid)
{
	int added;
	struct thread_clock *c = prof_hashmap_put(&k->clocks, (uint64_t)tid, &added);
	struct perf_event_attr attr;

	if (!added)
		return c;
	memset(c, 0, sizeof(*c));
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.sample_period = next_period(k);
	attr.wakeup_events = 1;
	/* each overflow's record: when (CLOCK_MONOTONIC, as prof_now_ns()) and the count then */
	attr.sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_READ;
	attr.use_clockid = 1;
	attr.clockid = CLOCK_MONOTONIC;
	c->fd = (int)syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (c->fd >= 0) {
		c->ring = mmap(NULL, ring_size(), PROT_READ, MAP_SHARED, c->fd, 0);
		if (c->ring == MAP_FAILED) {
			c->ring = NULL;
			close(c->fd);
			c->fd = -1;
		} else {
			k->pfds_dirty = 1;
		}
	}
	if (c->fd < 0 && errno != ESRCH) {
		attr.sample_period = 0;
		attr.wakeup_events = 0;
		c->fd = (int)syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	}
	if (c->fd < 0 && errno == ESRCH) {	/* ended meanwhile */
		prof_hashmap_remove(&k->clocks, (uint64_t)tid);
		return NULL;
	}
	return c;
}

/* Forget the clock of a thread that ended. */
static void thread_clock_close(struct tick *k, pid_t tid)
{
	struct thread_clock *c = prof_hashmap_get(&k->clocks, (uint64_t)tid);

	if (!c)
		return;
	if (c->ring)
		munmap(c->ring, ring_size());
	if (c->fd >= 0)
		close(c->fd);
	prof_hashmap_remove(&k->clocks, (uint64_t)tid);
	k->pfds_dirty = 1;
}

/*
 * A thread just due: the time and count of its last overflow, from its
 * last record (header, time, count), and whether its stack, read next,
 * is still about where it overflowed (at a random point of its run, as
 * an overflow comes every period of its CPU time) or late. Nothing is
 * read from the counter itself: a read of a running thread's counter
 * interrupts its CPU.
 */
static void due_count(struct tick *k, struct thread_clock *c)
{
	const struct perf_event_mmap_page *m = c->ring;
	const unsigned char *data = (const unsigned char *)c->ring + m->data_offset;
	uint64_t head = __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE), rec[3];
	uint64_t size = m->data_size, next;
	unsigned char *b = (unsigned char *)rec;

	c->due = 0;
	c->late = 1;
	for (int tries = 0;; tries++) {
		if (head < sizeof(rec) || !size || tries == 3)
			return;
		for (size_t i = 0; i < sizeof(rec); i++)	/* the last record, maybe wrapped */
			b[i] = data[(head - sizeof(rec) + i) % size];
		/* the kernel writes over the ring as it goes: one overflow
		 * more while it was copied, and it is copied again */
		uint64_t again = __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE);

		if (again == head)
			break;
		head = again;
	}
	c->now = rec[2];
	c->late = prof_now_ns() > rec[1] + LATE_NS;
	if (c->late)
		return;
	next = next_period(k);
	/* the next overflow a varying period away: no loop of the
	 * program's own period of CPU time hides from them */
	ioctl(c->fd, PERF_EVENT_IOC_PERIOD, &next);
}

/*
 * The CPU time tid ran since its last sample, in ns, from its task-clock
 * counter (read(2) brings a running thread's count up to date, as perf
 * stat's does). Not a thread's se.sum_exec_runtime
 * (/proc/PID/task/TID/sched), nor the process's CPU clock read from
 * outside: both are brought up to date only at a scheduler tick or when
 * the thread reads its own clock, and a loop that read time.process_time()
 * moved a 75/25 split to 89/11. Returns -1 when the counter cannot be had
 * (perf_event_paranoid).
 */
static int64_t thread_cpu_delta(struct tick *k, pid_t tid)
{
	struct thread_clock *c = prof_hashmap_get(&k->clocks, (uint64_t)tid);
	uint64_t now, d;

	if (!c || c->fd < 0)
		return -1;
	if (c->ring)	/* due: the count at its overflow */
		now = c->now;
	else if (read(c->fd, &now, sizeof(now)) != (ssize_t)sizeof(now))
		return -1;
	d = now > c->last ? now - c->last : 0;
	c->last = now;
	return (int64_t)d;
}

/*
 * Wait for the next wall-clock tick at next (CLOCK_MONOTONIC ns) or, before
 * it, a thread's overflow (marked due). Returns 1 at the tick, 0 when
 * overflows woke it, -1 when nothing to sample did (a signal, a thread
 * that ended).
 */
static int wait_tick(struct tick *k, uint64_t next)
{
	uint64_t now = prof_now_ns();
	struct timespec ts;
	int n, any = 0;

	if (k->pfds_dirty) {
		size_t i = 0, count = prof_hashmap_count(&k->clocks);

		PROF_GROW(k->pfds, count + 1, k->pfds_cap);
		k->ptids = xreallocarray(k->ptids, k->pfds_cap, sizeof(*k->ptids));
		for (size_t j = 0; j < count; j++) {
			uint64_t tid;
			struct thread_clock *c = prof_hashmap_at(&k->clocks, j, &tid);

			if (!c->ring)
				continue;
			k->pfds[i].fd = c->fd;
			k->pfds[i].events = POLLIN;
			k->ptids[i++] = (pid_t)tid;
		}
		k->npfds = i;
		k->pfds_dirty = 0;
	}
	if (now >= next)
		return 1;
	ts.tv_sec = (time_t)((next - now) / 1000000000u);
	ts.tv_nsec = (long)((next - now) % 1000000000u);
	n = ppoll(k->npfds ? k->pfds : NULL, k->npfds, &ts, NULL);
	for (size_t i = 0; n > 0 && i < k->npfds; i++) {
		pid_t tid = k->ptids[i];

		if (k->pfds[i].revents & (POLLHUP | POLLERR | POLLNVAL)) {
			thread_clock_close(k, tid);	/* ended */
		} else if (k->pfds[i].revents & POLLIN) {
			struct thread_clock *c = prof_hashmap_get(&k->clocks, (uint64_t)tid);

			if (c) {
				c->due = 1;
				any = 1;
			}
		}
	}
	if (n == 0 || prof_now_ns() >= next)
		return 1;
	return any ? 0 : -1;
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
 * Before a thread's frames are read: whether it is sampled, its name and
 * CPU; with --native, stop it. A thread whose counter overflows is read
 * when it is due, whatever its state (it has just run); the others at
 * wall-clock ticks while running (state R), unless --idle.
 */
static int enter_thread(void *ctx, pid_t tid)
{
	struct tick *k = ctx;
	struct prof_python_recording *rec = k->rec;
	struct thread_clock *c = NULL;
	char state = 'R';

	if (k->cpu_weights && !(c = thread_clock(k, tid ? tid : rec->pid)))
		return 1;
	if (c && c->ring) {
		if (!c->due)
			return 1;
		due_count(k, c);
		if (c->late) {
			rec->late++;
			return 1;
		}
	} else if (!k->wall) {
		return 1;
	}
	snprintf(k->comm, sizeof(k->comm), "python");
	k->cpu = -1;
	if (tid)
		state = thread_state(rec->pid, tid, k->comm, sizeof(k->comm), &k->cpu);
	if (!state || (state != 'R' && !rec->idle && !(c && c->ring)))
		return 1;
	if (k->native) {
		if (!tid) {	/* 3.9, 3.10 where glibc's tid is not found: nothing to stop */
			rec->unmergeable++;
			return 1;
		}
		/* a thread in uninterruptible sleep would stop only once its
		 * wait ends, and the sampler with it */
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
	/* weighed by the CPU time it ran since its last sample */
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

/*
 * Ask the scheduler for a short slice (Linux 6.12+'s sched_setattr()
 * sched_runtime for SCHED_OTHER, unprivileged): a task with a shorter
 * slice than the one running preempts it when it wakes. Without it the
 * sampler, woken by a thread's overflow on that thread's CPU, would wait
 * there for the thread's slice to end, which is most often at the return
 * of a system call that read a clock, and read its stack there.
 */
static void short_slice(void)
{
	struct sched_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.sched_policy = SCHED_NORMAL;
	a.sched_nice = getpriority(PRIO_PROCESS, 0);
	a.sched_runtime = 100000;
	if (syscall(SYS_sched_setattr, 0, &a, 0) != 0)
		prof_info(2, "--python: no short scheduler slice: %s", strerror(errno));
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

	/* TSV: ns of CPU; folded: samples, unless CPU time weighs them (ns) */
	k.cpu_weights = rec->cpu_weights;
	k.period = period;
	k.weight = rec->folded && !rec->cpu_weights ? 1 : period;
	k.jitter = (uint64_t)rec->pid * 2654435761u + start;
	prof_hashmap_init(&k.clocks, sizeof(struct thread_clock));
	if (k.cpu_weights)
		short_slice();
	while (!*stop && !ended(rec) && (!end || prof_now_ns() < end)) {
		int retry = 0;

		if ((k.wall = wait_tick(&k, next)) < 0)
			continue;
		k.now = prof_now_ns();
		if (k.wall) {
			/*
			 * The next tick is a period away on average, give or
			 * take half of one: a fixed rate can beat with a loop in
			 * the program and see one phase of it only.
			 */
			next += next_period(&k);
			if (k.now > next + 10 * period)	/* fell behind (suspended): skip, never burst */
				next = k.now + period;
			rec->ticks++;
		}
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
	free(k.pfds);
	free(k.ptids);
	while (prof_hashmap_count(&k.clocks)) {
		uint64_t tid;

		prof_hashmap_at(&k.clocks, 0, &tid);
		thread_clock_close(&k, (pid_t)tid);
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
	prof_info(1, "Python %s, %.1f s, %llu samples, %llu torn stacks dropped, %llu late "
		  "(their CPU time to the next)",
		  rec->version[0] ? rec->version : "?", (double)(prof_now_ns() - start) / 1e9,
		  (unsigned long long)rec->samples, (unsigned long long)rec->torn,
		  (unsigned long long)rec->late);
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
