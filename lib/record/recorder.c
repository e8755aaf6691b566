/*
 * The recorder: its life cycle, the records turned into samples, the loop
 * and the summary (recorder.h; the events are in events.c).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
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
#include "core/intern.h"
#include "core/meta.h"
#include "formats/pprof.h"
#include "io/output.h"
#include "record/jvm.h"
#include "record/proclog.h"
#include "record/recorder.h"
#include "record/rotate.h"
#include "record/runtimes.h"
#include "symbolize/dwarf_unwind.h"
#include "symbolize/symbolize.h"

/*
 * How long asking the JVMs for their maps may take in all (jvm.h; each
 * gets at most PROF_JVM_TIMEOUT_MS): one that answers takes 5 to 50 ms,
 * one whose attach mechanism is off all the time it is given.
 */
#define JVM_ASK_MS 5000

/* ---- life cycle ---- */

void prof_recorder_init(struct prof_recorder *r, const struct prof_recorder_options *o,
			const struct prof_record_target *target, struct prof_output *out)
{
	struct prof_sym_options so;

	memset(r, 0, sizeof(*r));
	r->opt = *o;
	r->target = *target;
	prof_sym_options_init(&so);
	so.inlines = !o->no_inline;
	so.demangle = !o->no_demangle;
	so.lines = o->lines;
	so.debuginfod = o->debuginfod;
	r->sym = prof_symbolizer_new(&so);
	if (o->call_graph == PROF_CALL_GRAPH_DWARF)
		r->unw = prof_unwinder_new();
	prof_stacks_init(&r->stacks, 1);
	prof_callchain_init(&r->chain, r->sym, r->unw, &r->stacks, o->call_graph, o->lines,
			    prof_perf_max_stack());
	prof_threads_init(&r->threads, r->sym, r->unw);
	prof_hashmap_init(&r->pids, 1);
	prof_sample_writer_init(&r->writer, out, &r->stacks, o->folded);
	/*
	 * JIT frames named at the end where the output can still change
	 * then: the folded table, a TSV file rewritten after its close.
	 */
	r->chain.defer_jit = o->folded || (out && prof_output_replaces(out));
	prof_perf_init(&r->perf, o->mmap_pages);
	r->perf.layout = prof_recorder_layout(o);
	if (o->processes) {
		r->proclog = xmalloc(sizeof(*r->proclog));
		prof_proclog_init(r->proclog);
	}
}

/* The first lines of functions in a recording's mappings (pprof.h's prof_pprof_lines_source). */
struct decl_lines {
	struct prof_symbolizer *sym;
	struct prof_intern keys;		/* mapping pointer -> index into as */
	struct prof_addrspace **as;		/* one per mapping: those of processes may overlap */
	size_t cap;
};

static size_t decl_lines(void *ctx, const struct prof_pprof_mapping *m, uint64_t address,
			 unsigned *lines, size_t max)
{
	struct decl_lines *d = ctx;
	size_t before = prof_intern_count(&d->keys);
	uint32_t k = prof_intern(&d->keys, (const char *)&m, sizeof(m));

	if (k == before) {
		struct prof_map pm;
		const char *h = m->build_id;

		memset(&pm, 0, sizeof(pm));
		pm.start = m->start;
		pm.end = m->limit;
		pm.pgoff = m->pgoff;
		pm.path = m->path;
		pm.prot = PROT_READ | PROT_EXEC;
		while (pm.build_id_len < sizeof(pm.build_id) && isxdigit((unsigned char)h[0]) &&
		       isxdigit((unsigned char)h[1])) {
			char byte[3] = { h[0], h[1], 0 };

			pm.build_id[pm.build_id_len++] = (unsigned char)strtoul(byte, NULL, 16);
			h += 2;
		}
		PROF_GROW(d->as, (size_t)k + 1, d->cap);
		d->as[k] = prof_addrspace_new(d->sym, 0);
		prof_addrspace_add_map(d->as[k], &pm);
	}
	return prof_symbolize_decl_lines(d->sym, d->as[k], address, lines, max);
}

int prof_recorder_convert(struct prof_recorder *r, int (*convert)(const char *, const char *),
			  const char *in, const char *out)
{
	struct decl_lines d = { .sym = r->sym };
	struct prof_pprof_lines_source src = { decl_lines, &d };
	int rc;

	if (convert != prof_pprof_convert || !r->opt.lines || !r->sym)
		return convert(in, out);
	prof_intern_init(&d.keys);
	rc = prof_pprof_convert_lines(in, out, &src);
	for (size_t i = 0; i < prof_intern_count(&d.keys); i++)
		prof_addrspace_free(d.as[i]);
	prof_intern_release(&d.keys);
	free(d.as);
	return rc;
}

void prof_recorder_release(struct prof_recorder *r)
{
	prof_perf_release(&r->perf);
	prof_rotation_free(r->rot);
	prof_sample_writer_release(&r->writer);
	prof_threads_release(&r->threads);	/* before the unwinder and symbolizer */
	prof_hashmap_release(&r->pids);
	prof_jvm_asks_release(&r->jvm);
	prof_callchain_release(&r->chain);
	prof_stacks_release(&r->stacks);
	prof_unwinder_free(r->unw);
	prof_symbolizer_free(r->sym);
	if (r->proclog)
		prof_proclog_release(r->proclog);
	free(r->proclog);
	memset(r, 0, sizeof(*r));
}

int prof_recorder_rotate(struct prof_recorder *r, const struct prof_rotate_options *o)
{
	r->rot = prof_rotation_new(o, r->opt.folded);
	r->chain.defer_jit = 0;	/* each file is complete at its interval's end */
	return r->rot ? 0 : -1;
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
	if (o->runtime_perf)
		prof_meta_set(m, "runtime_perf", o->runtime_perf);
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
	int rc = r->rot ? 0 : prof_sample_writer_begin(&r->writer, meta);

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
	if (r->rot && prof_rotation_begin(r->rot, &r->writer, meta, r->start_ns) != 0)
		rc = -1;
	return rc;
}

/* ---- records ---- */

static void write_sample(struct prof_recorder *r, uint64_t time, const struct prof_thread *t,
			 int pid, int cpu, int event, uint64_t weight, uint32_t stack,
			 const uint64_t *ip, const struct prof_map *map, struct prof_addrspace *as)
{
	struct prof_sample_row row;
	const struct prof_callchain *cc = &r->chain;

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
	row.has_ip = ip != NULL;
	row.ip = ip ? *ip : 0;
	row.map = map;
	/* the addresses of the stack's frames, from the sample just walked */
	row.addrs = ip ? cc->addrs : NULL;
	row.naddrs = ip ? cc->n - cc->leaf_frames : 0;
	row.as = as;
	prof_sample_writer_add(&r->writer, &row);
}

static void on_sample(struct prof_recorder *r, const struct perf_event_header *hdr)
{
	struct prof_addrspace *as;
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
	as = prof_threads_addrspace(&r->threads, (int)s.pid);
	stack = prof_callchain_stack(&r->chain, as, &s, r->opt.folded ? t->comm : NULL);
	if (event == r->opt.offcpu_event)	/* weighted at the switch in */
		prof_offcpu_switch_out(&t->offcpu, stack, s.time, (int)s.cpu);
	else
		write_sample(r, s.time, t, (int)s.pid, (int)s.cpu, event, s.period, stack, &s.ip,
			     as && !prof_is_kernel_addr(s.ip) ? prof_addrspace_find(as, s.ip) : NULL, as);
	if (as && event != r->opt.offcpu_event && !prof_is_kernel_addr(s.ip))
		prof_symbolizer_account(r->sym, as, s.ip, 0, 1);	/* the summary's naming line */
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
			     span.stack, NULL, NULL, NULL);
}

/* A record's time on the samples' clock (their time_ns column). */
static uint64_t since_start(const struct prof_recorder *r, uint64_t time)
{
	return time > r->start_ns ? time - r->start_ns : 0;
}

void prof_recorder_record(void *arg, const struct perf_event_header *hdr, uint64_t time)
{
	struct prof_recorder *r = arg;
	struct prof_mmap2 mmap2;
	struct prof_comm comm;
	struct prof_rec_task task;

	/* A rotation's interval ends with the first record after it. */
	if (r->rot && time >= r->rot->until_ns)
		prof_rotation_advance(r->rot, &r->writer, time);
	switch (hdr->type) {
	case PERF_RECORD_SAMPLE:
		on_sample(r, hdr);
		break;
	case PERF_RECORD_MMAP2:
		if (prof_decode_mmap2(hdr, &mmap2) == 0)
			prof_threads_mmap(&r->threads, &mmap2);
		break;
	case PERF_RECORD_COMM:
		if (prof_decode_comm(hdr, &comm) == 0) {
			prof_threads_comm(&r->threads, &comm);
			prof_hashmap_put(&r->pids, comm.pid, NULL);
			if (r->proclog && comm.exec)
				prof_proclog_exec(r->proclog, since_start(r, time), (int)comm.pid,
						  comm.comm, comm.comm_len);
		}
		break;
	case PERF_RECORD_FORK:
		if (prof_decode_task(hdr, &task) == 0) {
			prof_threads_fork(&r->threads, &task);
			prof_hashmap_put(&r->pids, task.pid, NULL);
			if (r->proclog && task.pid != task.ppid) {
				const struct prof_thread *th = prof_threads_find(&r->threads, (int)task.tid);

				prof_proclog_fork(r->proclog, since_start(r, time), (int)task.pid,
						  (int)task.ppid, th ? th->comm : "");
			}
		}
		break;
	case PERF_RECORD_EXIT:
		if (prof_decode_task(hdr, &task) == 0)
			prof_threads_exit(&r->threads, &task);
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

/*
 * Objects that resolved nothing new for SHED_IDLE_NS have their files
 * closed (symbolize.h), checked every SHED_EVERY_NS: a system-wide
 * recording on a host that builds and runs new programs all day keeps
 * its memory to the programs in use.
 */
#define SHED_IDLE_NS (30 * 1000000000ULL)
#define SHED_EVERY_NS (5 * 1000000000ULL)

/* Records come at most this late after their time (perfevent.h's margin, and more). */
#define ROTATE_SLACK_NS 10000000ULL

int prof_recorder_run(struct prof_recorder *r, double duration,
		      const struct prof_recorder_stop *stop)
{
	pid_t child = r->target.child;
	int status = -1, pidfd = -1, ws;
	uint64_t t_end, last_flush = r->start_ns, last_shed = r->start_ns, now, drained;

	/* Readable when the command exits: no wait for the poll timeout. */
	if (child > 0)
		pidfd = prof_child_pidfd(child);
	t_end = duration > 0 ? r->start_ns + (uint64_t)(duration * 1e9) : UINT64_MAX;
	while (!*stop->signal) {
		if (child > 0 && waitpid(child, &ws, WNOHANG) == child) {
			status = prof_exit_status(ws);
			break;
		}
		prof_perf_poll(&r->perf, 100, pidfd);
		drained = prof_now_ns();
		prof_perf_drain(&r->perf, 0, prof_recorder_record, r);
		/*
		 * Every record older than the drain's start (less its 1 ms
		 * margin) has come: an interval that ended before then is
		 * complete even when no record after it has come yet.
		 */
		if (r->rot)
			prof_rotation_advance(r->rot, &r->writer, drained - ROTATE_SLACK_NS);
		now = prof_now_ns();
		if (now >= t_end)
			break;
		if (child <= 0 && !r->target.all_cpus && !any_alive(r))
			break;
		if (now - last_flush >= 1000000000ULL && !r->opt.folded) {
			prof_output_flush(r->writer.out);
			last_flush = now;
		}
		if (now - last_shed >= SHED_EVERY_NS) {
			prof_symbolizer_shed_idle(r->sym, SHED_IDLE_NS);
			last_shed = now;
		}
		/* Nobody reads any more ("| head"): stop as perf record does. */
		if (prof_output_broken_pipe(r->writer.out))
			break;
	}
	prof_perf_disable(&r->perf);
	r->end_ns = prof_now_ns();
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

	if (r->rot) {
		bytes = r->rot->bytes;
		name = prof_rotation_describe(r->rot);
		out_failed = r->rot->failed > 0;
	}
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
		if (r->opt.runtime_perf)
			prof_info(1, PROF_RUNTIME_PERF_NOTE, r->opt.runtime_perf);
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
	if (!quiet)
		prof_symbolizer_naming_report(r->sym, "samples");
}

static int by_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/*
 * Each process with JIT frames left unnamed, if a running JVM, asked to
 * write its perf map now (jvm.h): a JVM writes none of itself before it
 * exits, and at its exit only when told to (JAVA_TOOL_OPTIONS, which a
 * JVM of -a or one whose launcher cleared it did not get).
 */
static void ask_jvms(struct prof_recorder *r)
{
	size_t nd = prof_hashmap_count(&r->chain.deferred), n = 0;
	int *pids = xreallocarray(NULL, nd ? nd : 1, sizeof(*pids));

	for (size_t i = 0; i < nd; i++)
		pids[i] = ((const struct prof_deferred_frame *)prof_hashmap_at(&r->chain.deferred, i, NULL))->pid;
	qsort(pids, nd, sizeof(*pids), by_int);
	for (size_t i = 0; i < nd; i++)	/* each process once */
		if (!n || pids[n - 1] != pids[i])
			pids[n++] = pids[i];
	prof_jvm_ask_all(&r->jvm, pids, n, r->target.pids, r->target.npids, JVM_ASK_MS);
	free(pids);
}

/* The JVMs asked (jvm_perfmaps, jvm_perfmaps_failed) into m. */
static void jvm_meta(const struct prof_recorder *r, struct prof_meta *m)
{
	prof_meta_setf(m, "jvm_perfmaps", "%u", r->jvm.wrote);
	prof_meta_setf(m, "jvm_perfmaps_failed", "%u", r->jvm.failed);
}

/*
 * The frames of deferred naming (callchain.h) named from the perf maps as
 * they are now, for the writer: the JVM has written its map at exit, or
 * when asked just before.
 */
static void name_deferred(struct prof_recorder *r)
{
	unsigned long long named;

	if (r->writer.rename || !r->chain.defer_jit)
		return;
	if (r->opt.ask_jvm)
		ask_jvms(r);
	r->writer.rename = prof_callchain_resolve(&r->chain, &r->writer.nrename, &named);
	prof_symbolizer_account_named_late(r->sym, named);
	prof_jvm_remove_made(&r->jvm);	/* read: what the asking made goes */
	if (r->jvm.wrote || r->jvm.failed) {
		struct prof_meta m = PROF_META_INIT;

		jvm_meta(r, &m);
		prof_meta_format(&m, &r->writer.late_meta);
		prof_meta_release(&m);
	}
}

int prof_recorder_finish(struct prof_recorder *r, const struct prof_meta *meta)
{
	struct prof_meta late = PROF_META_INIT;
	int rc = 0;

	name_deferred(r);
	if (r->proclog && prof_proclog_write(r->proclog, r->opt.processes, meta) != 0)
		rc = -1;
	if (r->rot)
		return prof_rotation_finish(r->rot, &r->writer, r->end_ns ? r->end_ns : prof_now_ns()) ? -1 : rc;
	if (meta && r->writer.late_meta.len) {	/* folded: the JVMs asked */
		prof_meta_merge(&late, meta);
		jvm_meta(r, &late);
		meta = &late;
	}
	if (prof_sample_writer_finish(&r->writer, meta) != 0)
		rc = -1;
	prof_meta_release(&late);
	return rc;
}

int prof_recorder_complete(struct prof_recorder *r, double duration,
			   const struct prof_recorder_stop *stop, struct prof_output *out,
			   const char *name, int quiet, const struct prof_meta *meta)
{
	int status, rval = PROF_EXIT_OK, out_failed, named = name && strcmp(name, "-") != 0;
	unsigned long long bytes = 0;
	struct stat st;
	double secs, started;

	status = prof_recorder_run(r, duration, stop);
	started = (double)time(NULL) - (double)(prof_now_ns() - r->start_ns) / 1e9;
	prof_runtime_perf_cleanup(r->opt.runtime_perf, started);
	if (out && prof_output_broken_pipe(out)) {
		/* "profrec ... | head": end as a writer does when its reader left. */
		prof_output_abort(out);
		signal(SIGPIPE, SIG_DFL);
		raise(SIGPIPE);
	}
	if (prof_recorder_finish(r, meta) != 0)
		rval = PROF_EXIT_FAIL;
	/* named now: the maps the runtimes wrote because of us can go */
	prof_runtime_perf_remove_maps(r->opt.runtime_perf, started, &r->pids);
	secs = (double)(prof_now_ns() - r->start_ns) / 1e9;
	/* A failed write leaves no file (or the old one): claim no bytes. */
	out_failed = out && prof_output_close(out) != 0;
	/* A streamed TSV file gets the names found at the end. */
	if (!out_failed && named && prof_sample_writer_rename_file(&r->writer, name) != 0)
		out_failed = 1;
	if (out_failed)
		rval = PROF_EXIT_FAIL;
	else if (named && stat(name, &st) == 0)
		bytes = (unsigned long long)st.st_size;
	prof_recorder_report(r, quiet, secs, named ? name : "<stdout>", bytes, out_failed);
	if (rval != PROF_EXIT_OK && (!r->target.child || status == 0))
		return rval;
	return status;
}
