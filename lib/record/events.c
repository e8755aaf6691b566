/*
 * The events of a recording: their names, the perf_event_attr of each,
 * opening them for the target, and why that failed (recorder.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/units.h"
#include "base/xalloc.h"
#include "record/recorder.h"
#include "symbolize/dwarf_unwind.h"

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

struct prof_record_layout prof_recorder_layout(const struct prof_recorder_options *o)
{
	struct prof_record_layout l;

	memset(&l, 0, sizeof(l));
	/* IDENTIFIER tells the events apart in a shared ring, TIME orders the rings. */
	l.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	if (o->call_graph != PROF_CALL_GRAPH_NONE)
		l.sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (o->call_graph == PROF_CALL_GRAPH_DWARF) {
		l.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		l.regs_mask = prof_unwind_regs_mask();
	} else if (o->call_graph == PROF_CALL_GRAPH_FP && prof_callchain_leaf_regs_mask()) {
		/* a frameless leaf's caller (callchain.h) */
		l.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		l.regs_mask = prof_callchain_leaf_regs_mask();
	}
	l.sample_id_all = 1;
	return l;
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
	} else if (a->sample_type & PERF_SAMPLE_STACK_USER) {
		a->sample_stack_user = PROF_CALLCHAIN_LEAF_STACK_BYTES;
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
		prof_perf_init(&r->perf, r->opt.mmap_pages);
		r->perf.layout = prof_recorder_layout(&r->opt);
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
