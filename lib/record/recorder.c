/*
 * The recorder: events opened for a target, records turned into samples
 * (recorder.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/proc.h"
#include "base/sysfile.h"
#include "base/units.h"
#include "base/xalloc.h"
#include "core/meta.h"
#include "io/output.h"
#include "record/recorder.h"
#include "symbolize/dwarf_unwind.h"
#include "symbolize/symbolize.h"

/* ---- events ---- */

static const struct prof_event_def event_defs[] = {
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

const struct prof_event_def prof_event_offcpu = {
	"offcpu-time", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "ns"
};

const struct prof_event_def *prof_event_find(const char *name)
{
	for (size_t i = 0; i < sizeof(event_aliases) / sizeof(event_aliases[0]); i++)
		if (strcmp(name, event_aliases[i].alias) == 0)
			name = event_aliases[i].name;
	for (size_t i = 0; i < sizeof(event_defs) / sizeof(event_defs[0]); i++)
		if (strcmp(name, event_defs[i].name) == 0)
			return &event_defs[i];
	return NULL;
}

int prof_recorder_add_events(struct prof_recorder_options *o, const char *list,
			     const char **bad, int *bad_len)
{
	char name[64];

	while (*list) {
		size_t len = strcspn(list, ",");
		const struct prof_event_def *d = NULL;

		if (len && len < sizeof(name)) {
			memcpy(name, list, len);
			name[len] = '\0';
			d = prof_event_find(name);
		}
		if (len && !d) {
			*bad = list;
			*bad_len = (int)len;
			return -1;
		}
		for (int i = 0; d && i < o->nevents; i++)
			if (o->events[i] == d)
				d = NULL;
		if (d && o->nevents >= PROF_RECORDER_MAX_EVENTS - 1)
			return -2;
		if (d)
			o->events[o->nevents++] = d;
		list += len + (list[len] == ',');
	}
	return 0;
}

int prof_call_graph_parse(const char *arg, enum prof_call_graph *mode, unsigned *stack_bytes)
{
	uint64_t v;

	if (strcmp(arg, "fp") == 0) {
		*mode = PROF_CALL_GRAPH_FP;
	} else if (strcmp(arg, "none") == 0) {
		*mode = PROF_CALL_GRAPH_NONE;
	} else if (strncmp(arg, "dwarf", 5) == 0 && (arg[5] == 0 || arg[5] == ',')) {
		if (arg[5] == ',') {
			if (prof_parse_size(arg + 6, &v) != 0 || v < 8 || v > 65528)
				return -2;
			*stack_bytes = (unsigned)(v & ~7ULL);
		}
		*mode = PROF_CALL_GRAPH_DWARF;
	} else {
		return -1;
	}
	return 0;
}

void prof_recorder_options_init(struct prof_recorder_options *o)
{
	memset(o, 0, sizeof(*o));
	o->offcpu_event = -1;
	o->call_graph = PROF_CALL_GRAPH_FP;
	o->stack_bytes = 8192;
	o->freq = 999;
	o->inherit = 1;
	o->mmap_pages = 128;
}

/* ---- life cycle ---- */

/*
 * Empty rings, and the layout of the records every event will write
 * (IDENTIFIER tells the events apart in a shared ring, TIME orders the
 * rings), known before any event is opened so that records can be
 * decoded without one.
 */
static void perf_setup(struct prof_recorder *r)
{
	struct prof_record_layout *l = &r->perf.layout;

	prof_perf_init(&r->perf, r->opt.mmap_pages);
	l->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	if (r->opt.call_graph != PROF_CALL_GRAPH_NONE)
		l->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (r->opt.call_graph == PROF_CALL_GRAPH_DWARF) {
		l->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		l->regs_mask = prof_unwind_regs_mask();
	}
	l->sample_id_all = 1;
}

void prof_recorder_init(struct prof_recorder *r, const struct prof_recorder_options *o,
			const struct prof_record_target *target, struct prof_output *out)
{
	struct prof_sym_options so;

	memset(r, 0, sizeof(*r));
	r->opt = *o;
	r->target = *target;
	prof_sym_options_init(&so);
	so.inlines = !o->no_inline;
	so.lines = o->lines;
	so.debuginfod = o->debuginfod;
	r->sym = prof_symbolizer_new(&so);
	if (o->call_graph == PROF_CALL_GRAPH_DWARF)
		r->unw = prof_unwinder_new();
	prof_stacks_init(&r->stacks, 1);
	prof_callchain_init(&r->chain, r->sym, r->unw, &r->stacks, o->call_graph, o->lines,
			    prof_perf_max_stack());
	prof_threads_init(&r->threads, r->sym, r->unw);
	prof_sample_writer_init(&r->writer, out, &r->stacks, o->folded);
	perf_setup(r);
}

void prof_recorder_release(struct prof_recorder *r)
{
	prof_perf_release(&r->perf);
	prof_sample_writer_release(&r->writer);
	prof_threads_release(&r->threads);	/* before the unwinder and symbolizer */
	prof_callchain_release(&r->chain);
	prof_stacks_release(&r->stacks);
	prof_unwinder_free(r->unw);
	prof_symbolizer_free(r->sym);
	memset(r, 0, sizeof(*r));
}

/* ---- opening the events ---- */

static void make_attr(const struct prof_recorder *r, int e, struct perf_event_attr *a)
{
	const struct prof_event_def *d = r->opt.events[e];
	int child = r->target.child > 0;

	memset(a, 0, sizeof(*a));
	a->type = d->type;
	a->config = d->config;
	if (e == r->opt.offcpu_event) {
		a->sample_period = 1;
		a->context_switch = 1;
	} else if (r->opt.period) {
		a->sample_period = r->opt.period;
	} else {
		a->freq = 1;
		a->sample_freq = r->opt.freq;
	}
	a->sample_type = r->perf.layout.sample_type;
	a->sample_regs_user = r->perf.layout.regs_mask;
	if (r->opt.call_graph == PROF_CALL_GRAPH_DWARF) {
		a->sample_stack_user = r->opt.stack_bytes;
		a->exclude_callchain_user = 1;
	}
	a->disabled = child;
	a->enable_on_exec = child;
	a->inherit = r->opt.inherit && !r->target.all_cpus;
	a->exclude_kernel = r->user_only;
	a->exclude_hv = 1;
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(r->perf.ring_pages * (size_t)sysconf(_SC_PAGESIZE) / 2);
	if (e == 0) {
		/* The side-band records, once. */
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

/* Open every event on every CPU for pid (-1: all). Returns 0 or errno. */
static int open_target(struct prof_recorder *r, int pid, int ncpus, int quiet_esrch)
{
	for (int e = 0; e < r->opt.nevents; e++) {
		struct perf_event_attr a;

		make_attr(r, e, &a);
		for (int cpu = 0; cpu < ncpus; cpu++) {
			if (prof_perf_open(&r->perf, &a, pid, cpu, e) == 0)
				continue;
			if (errno == ENODEV && r->opt.events[e]->type == PERF_TYPE_SOFTWARE)
				continue;	/* offline CPU */
			if (errno == ESRCH && quiet_esrch)
				return 0;	/* a thread that just exited */
			return errno;
		}
	}
	return 0;
}

/* Every thread of process pid. Returns 0 or errno. */
static int open_process(struct prof_recorder *r, int pid, int ncpus)
{
	int *tids = NULL, err = 0;
	size_t n = list_tasks(pid, &tids);

	if (!n)
		err = ESRCH;
	for (size_t k = 0; k < n && !err; k++)
		err = open_target(r, tids[k], ncpus, tids[k] != pid);
	free(tids);
	return err;
}

static int open_all(struct prof_recorder *r, int *failed)
{
	int ncpus = prof_perf_ncpus(), err = 0;

	if (r->target.child > 0) {
		*failed = r->target.child;
		return open_target(r, r->target.child, ncpus, 0);
	}
	if (r->target.all_cpus) {
		*failed = -1;
		return open_target(r, -1, ncpus, 0);
	}
	for (size_t i = 0; i < r->target.npids && !err; i++) {
		*failed = r->target.pids[i];
		err = r->target.tid_only ? open_target(r, r->target.pids[i], ncpus, 0) :
					   open_process(r, r->target.pids[i], ncpus);
	}
	return err;
}

/* The event that explains an open failure err, if a hardware one does. */
static const char *unsupported_hardware_event(const struct prof_recorder *r, int err)
{
	const char *hw = NULL;

	for (int e = 0; e < r->opt.nevents; e++)
		if (r->opt.events[e]->type == PERF_TYPE_HARDWARE)
			hw = r->opt.events[e]->name;
	if (err != ENOENT && err != EOPNOTSUPP && err != ENODEV && err != EINVAL)
		return NULL;
	return hw;
}

/* Why opening failed, and what to do about it. */
static void open_error(const struct prof_recorder *r, int err, int failed)
{
	const char *hw = unsupported_hardware_event(r, err);
	int paranoid = prof_perf_paranoid(), denied = err == EACCES || err == EPERM;

	if (hw)
		prof_warn("event '%s' is not supported on this machine (no hardware counters, as in most virtual machines): use -e cpu-clock",
			  hw);
	else if (err == ESRCH)
		prof_warn("%s %d: no such process", r->target.tid_only ? "thread" : "pid", failed);
	else if (denied && r->target.all_cpus)
		prof_warn("-a: not permitted to profile every CPU: %s (needs root or CAP_PERFMON, or perf_event_paranoid <= 0; it is %d)",
			  strerror(err), paranoid);
	else if (denied && r->target.child > 0)
		prof_warn("not permitted to profile %s: %s (perf_event_paranoid is %d)",
			  r->target.argv[0], strerror(err), paranoid);
	else if (denied)
		prof_warn("pid %d: not permitted to profile it: %s (it belongs to another user; needs root or CAP_PERFMON)",
			  failed, strerror(err));
	else if (err == EMFILE)
		prof_warn("perf_event_open: %s (raise the open-files limit, ulimit -n)", strerror(err));
	else
		prof_warn("perf_event_open: %s", strerror(err));
}

int prof_recorder_open(struct prof_recorder *r, int quiet)
{
	int err, failed = 0;

	/* Kernel frames when permitted; otherwise user space only, said once. */
	r->user_only = geteuid() != 0 && prof_perf_paranoid() > 1;
	err = open_all(r, &failed);
	if ((err == EACCES || err == EPERM) && !r->user_only && !r->target.all_cpus) {
		prof_perf_release(&r->perf);
		perf_setup(r);
		r->user_only = 1;
		err = open_all(r, &failed);
	}
	if (err)
		open_error(r, err, failed);
	else if (r->user_only && !quiet)
		prof_info(1, "kernel frames not recorded: perf_event_paranoid is %d (needs root or CAP_PERFMON)",
			  prof_perf_paranoid());
	return err;
}

/* ---- metadata ---- */

/* "command": the command line, or how the targets were given. */
static void command_meta(const struct prof_recorder *r, struct prof_meta *m)
{
	const struct prof_record_target *t = &r->target;
	struct prof_buf b = PROF_BUF_INIT;

	if (t->argv) {
		for (char **a = t->argv; *a; a++) {
			if (a != t->argv)
				prof_buf_addch(&b, ' ');
			prof_buf_addstr(&b, *a);
		}
	} else if (t->all_cpus) {
		prof_buf_addstr(&b, "-a");
	} else {
		prof_buf_addstr(&b, t->tid_only ? "-t " : "-p ");
		for (size_t i = 0; i < t->npids; i++)
			prof_buf_addf(&b, "%s%d", i ? "," : "", t->pids[i]);
	}
	prof_meta_set(m, "command", prof_buf_cstr(&b));
	prof_buf_release(&b);
}

void prof_recorder_meta(const struct prof_recorder *r, struct prof_meta *m)
{
	const struct prof_recorder_options *o = &r->opt;
	struct prof_buf ev = PROF_BUF_INIT, unit = PROF_BUF_INIT;
	struct utsname un;
	char host[256], when[64];
	time_t now = time(NULL);
	struct tm tm;

	prof_meta_set(m, "source", "profrec");
	for (int i = 0; i < o->nevents; i++) {
		if (i) {
			prof_buf_addch(&ev, ',');
			prof_buf_addch(&unit, ',');
		}
		prof_buf_addstr(&ev, o->events[i]->name);
		prof_buf_addstr(&unit, o->folded && i != o->offcpu_event ? "samples" : o->events[i]->unit);
	}
	prof_meta_set(m, "event", prof_buf_cstr(&ev));
	prof_meta_set(m, "unit", prof_buf_cstr(&unit));
	if (o->nevents == 1 && o->offcpu_event == 0)
		prof_meta_set(m, "period", "1");
	else if (o->period)
		prof_meta_setf(m, "period", "%llu", (unsigned long long)o->period);
	else
		prof_meta_setf(m, "freq", "%llu", (unsigned long long)o->freq);
	prof_meta_set(m, "call_graph", o->call_graph == PROF_CALL_GRAPH_FP ? "fp" :
		      o->call_graph == PROF_CALL_GRAPH_DWARF ? "dwarf" : "none");
	command_meta(r, m);
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	prof_meta_set(m, "start_time", when);
	if (gethostname(host, sizeof(host)) == 0) {
		host[sizeof(host) - 1] = 0;
		prof_meta_set(m, "host", host);
	}
	if (uname(&un) == 0)
		prof_meta_set(m, "kernel", un.release);
	prof_buf_release(&ev);
	prof_buf_release(&unit);
}

int prof_recorder_begin(struct prof_recorder *r, const struct prof_meta *meta)
{
	int rc = prof_sample_writer_begin(&r->writer, meta);

	/* Attached processes: their mappings now, while they are there. */
	for (size_t i = 0; i < r->target.npids; i++) {
		int pid = r->target.pids[i];

		if (r->target.tid_only) {
			char path[64], tgid[32];

			snprintf(path, sizeof(path), "/proc/%d/status", pid);
			if (prof_read_file_key(path, "Tgid", tgid, sizeof(tgid)) == 0)
				pid = atoi(tgid);
		}
		prof_threads_addrspace(&r->threads, pid);
	}
	r->start_ns = prof_now_ns();
	r->writer.start_ns = r->start_ns;
	return rc;
}

/* ---- records ---- */

static void write_sample(struct prof_recorder *r, uint64_t time, const struct prof_thread *t,
			 int pid, int cpu, int event, uint64_t weight, uint32_t stack)
{
	struct prof_sample_row row;

	r->stats.samples[event]++;
	row.time = time;
	row.pid = pid;
	row.tid = t->tid;
	row.comm = t->comm;
	row.cpu = cpu;
	row.event = r->opt.events[event]->name;
	/* Folded: sampling events count samples; offcpu-time counts ns. */
	row.weight = r->opt.folded && event != r->opt.offcpu_event ? 1 : weight;
	row.stack = stack;
	prof_sample_writer_add(&r->writer, &row);
}

static void on_sample(struct prof_recorder *r, const struct perf_event_header *hdr)
{
	struct prof_sample s;
	struct prof_thread *t;
	uint32_t stack;
	int event;

	if (prof_decode_sample(&r->perf.layout, hdr, &s) != 0 ||
	    (event = prof_perf_event_of(&r->perf, s.id)) < 0) {
		r->stats.bad++;
		return;
	}
	if ((int)s.pid <= 0 && (int)s.tid <= 0 && !r->target.all_cpus)
		return;
	t = prof_threads_get(&r->threads, (int)s.pid, (int)s.tid);
	if (!t->seen) {
		t->seen = 1;
		r->stats.threads_seen++;
	}
	stack = prof_callchain_stack(&r->chain, prof_threads_addrspace(&r->threads, (int)s.pid),
				     &s, r->opt.folded ? t->comm : NULL);
	if (event == r->opt.offcpu_event)	/* weighted at the switch in */
		prof_offcpu_switch_out(&t->offcpu, stack, s.time, (int)s.cpu);
	else
		write_sample(r, s.time, t, (int)s.pid, (int)s.cpu, event, s.period, stack);
}

static void on_switch(struct prof_recorder *r, const struct perf_event_header *hdr)
{
	struct prof_sample_id sid;
	struct prof_offcpu_span span;
	struct prof_thread *t;

	if (prof_decode_sample_id(&r->perf.layout, hdr, &sid) != 0 || (int)sid.tid <= 0)
		return;
	t = prof_threads_find(&r->threads, (int)sid.tid);
	if (t && prof_offcpu_switch(&t->offcpu, &r->stacks, hdr->misc, sid.time, &span))
		write_sample(r, span.start, t, t->pid, span.cpu, r->opt.offcpu_event, span.ns,
			     span.stack);
}

void prof_recorder_record(void *arg, const struct perf_event_header *hdr, uint64_t time)
{
	struct prof_recorder *r = arg;
	struct prof_mmap2 mmap2;
	struct prof_comm comm;
	struct prof_rec_task task;

	(void)time;
	switch (hdr->type) {
	case PERF_RECORD_SAMPLE:
		on_sample(r, hdr);
		break;
	case PERF_RECORD_MMAP2:
		if (prof_decode_mmap2(hdr, &mmap2) == 0)
			prof_threads_mmap(&r->threads, &mmap2);
		break;
	case PERF_RECORD_COMM:
		if (prof_decode_comm(hdr, &comm) == 0)
			prof_threads_comm(&r->threads, &comm);
		break;
	case PERF_RECORD_FORK:
		if (prof_decode_task(hdr, &task) == 0)
			prof_threads_fork(&r->threads, &task);
		break;
	case PERF_RECORD_LOST:
		r->stats.lost += prof_decode_lost(hdr);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		r->stats.lost_samples += prof_decode_lost(hdr);
		break;
	case PERF_RECORD_THROTTLE:
		r->stats.throttled++;
		break;
	case PERF_RECORD_SWITCH:
		if (r->opt.offcpu_event >= 0)
			on_switch(r, hdr);
		break;
	default:
		break;
	}
}

/* ---- the loop ---- */

static int any_alive(const struct prof_recorder *r)
{
	for (size_t i = 0; i < r->target.npids; i++)
		if (kill(r->target.pids[i], 0) == 0 || errno == EPERM)
			return 1;
	return 0;
}

/*
 * Stopped by a signal or the duration: pass it on to the command and wait
 * for it. A command started with that signal ignored (SIGINT in a shell's
 * background job) gets SIGTERM instead, one that ignores that too
 * SIGKILL; another stop signal kills it.
 */
static int stop_child(pid_t child, const struct prof_recorder_stop *stop)
{
	int ws, seen = *stop->count, sig = *stop->signal ? *stop->signal : SIGTERM;

	if (prof_signal_ignored_at_start(sig))
		sig = SIGTERM;
	if (prof_signal_ignored_at_start(sig))
		sig = SIGKILL;
	kill(child, sig);
	while (waitpid(child, &ws, 0) < 0 && errno == EINTR) {
		if (*stop->count != seen) {
			seen = *stop->count;
			kill(child, SIGKILL);
		}
	}
	return prof_exit_status(ws);
}

int prof_recorder_run(struct prof_recorder *r, double duration,
		      const struct prof_recorder_stop *stop)
{
	pid_t child = r->target.child;
	int status = -1, pidfd = -1, ws;
	uint64_t t_end, last_flush = r->start_ns, now;

	/* Readable when the command exits: no wait for the poll timeout. */
	if (child > 0)
		pidfd = (int)syscall(SYS_pidfd_open, child, 0);
	t_end = duration > 0 ? r->start_ns + (uint64_t)(duration * 1e9) : UINT64_MAX;
	while (!*stop->signal) {
		if (child > 0 && waitpid(child, &ws, WNOHANG) == child) {
			status = prof_exit_status(ws);
			break;
		}
		prof_perf_poll(&r->perf, 100, pidfd);
		prof_perf_drain(&r->perf, 0, prof_recorder_record, r);
		now = prof_now_ns();
		if (now >= t_end)
			break;
		if (child <= 0 && !r->target.all_cpus && !any_alive(r))
			break;
		if (now - last_flush >= 1000000000ULL && !r->opt.folded) {
			prof_output_flush(r->writer.out);
			last_flush = now;
		}
	}
	prof_perf_disable(&r->perf);
	prof_perf_drain(&r->perf, 1, prof_recorder_record, r);
	if (pidfd >= 0)
		close(pidfd);
	if (child > 0 && status < 0)
		status = stop_child(child, stop);
	return child > 0 ? status : 0;
}

void prof_recorder_report(const struct prof_recorder *r, int quiet, double secs,
			  const char *name, unsigned long long bytes, int out_failed)
{
	const struct prof_recorder_stats *st = &r->stats;
	unsigned long long total = 0, lost = st->lost + st->lost_samples;
	unsigned long long user = r->chain.fp_user_stacks, shallow = r->chain.fp_shallow_stacks;
	struct prof_buf b = PROF_BUF_INIT;
	char dur[32], size[32];

	for (int e = 0; e < r->opt.nevents; e++) {
		total += st->samples[e];
		prof_buf_addf(&b, "%s%s %llu", e ? ", " : "", r->opt.events[e]->name, st->samples[e]);
	}
	if (!quiet) {
		fprintf(stderr, "%s: %s, %llu sample%s (%s), %llu lost, %.1f samples/s, %llu thread%s, ",
			prof_progname, prof_fmt_duration(dur, sizeof(dur), secs), total,
			total == 1 ? "" : "s", prof_buf_cstr(&b), lost,
			secs > 0 ? (double)total / secs : 0.0, st->threads_seen,
			st->threads_seen == 1 ? "" : "s");
		if (bytes)
			fprintf(stderr, "%s (%.1f B/sample) to %s\n",
				prof_fmt_bytes(size, sizeof(size), (double)bytes),
				total ? (double)bytes / (double)total : 0.0, name);
		else
			fprintf(stderr, "output to %s%s\n", name, out_failed ? " failed" : "");
	}
	prof_buf_release(&b);
	if (lost)
		prof_warn("%llu record%s lost: the ring buffer overflowed (raise -m or lower -F)",
			  lost, lost == 1 ? "" : "s");
	if (st->bad)
		prof_warn("%llu malformed records skipped", st->bad);
	/*
	 * Without frame pointers the walk stops after the sampled function
	 * and maybe one more (a leaf's caller), short of the thread's entry
	 * frame.
	 */
	if (!quiet && user >= 20 && 2 * shallow > user)
		prof_warn("%llu%% of the user stacks stop after one or two frames: the program seems to be built without frame pointers (try --call-graph dwarf)",
			  100 * shallow / user);
}

int prof_recorder_finish(struct prof_recorder *r, const struct prof_meta *meta)
{
	return prof_sample_writer_finish(&r->writer, meta);
}
