/*
 * The GPU sampling loop (sampler.h).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>
#include "base/buf.h"
#include "base/error.h"
#include "base/proc.h"
#include "base/sysfile.h"
#include "base/units.h"
#include "base/xalloc.h"
#include "formats/tsv.h"
#include "gpu/sampler.h"
#include "io/output.h"

#define NSEC_PER_SEC 1000000000ull
/* Outputs are pushed out at most this often during a run. */
#define FLUSH_NS 100000000ull

/* The state of one run's loop. */
struct loop {
	struct prof_sigwatch *sw;
	int tfd;			/* the polled devices' timer, or -1 */
	int pidfd;			/* the command's pidfd, or -1 */
	int status;			/* the command's exit status */
	int child_done;
	int stop;
	struct pollfd *pfd;		/* signals (2), timer, pidfd, then push devices */
	struct prof_gpu_active **pushing; /* the push device of pfd[NFIXED + i] */
};

enum { PFD_SIGFD, PFD_SIGPIPE, PFD_TIMER, PFD_CHILD, NFIXED };

/* Without a pidfd (kernels before 5.3): look for the command's end this often. */
#define CHILD_CHECK_MS 100

void prof_gpu_sampler_init(struct prof_gpu_sampler *s, struct prof_gpu_set *set,
			   const struct prof_gpu_sampler_config *cfg)
{
	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	s->set = set;
	if (cfg->host)
		s->host_alert_on = xcalloc(cfg->nalerts + 1, 1);
}

void prof_gpu_sampler_add(struct prof_gpu_sampler *s, struct prof_gpu_dev *d)
{
	struct prof_gpu_active *a;

	PROF_GROW(s->act, s->nact + 1, s->act_cap);
	a = &s->act[s->nact++];
	memset(a, 0, sizeof(*a));
	a->dev = d;
	a->alert_on = xcalloc(s->cfg.nalerts ? s->cfg.nalerts : 1, 1);
	/* A push device without input (one only listed) has nothing to give. */
	a->done = prof_gpu_is_push(d) && prof_gpu_push_fd(d) < 0;
}

void prof_gpu_sampler_release(struct prof_gpu_sampler *s)
{
	for (size_t i = 0; i < s->nact; i++)
		free(s->act[i].alert_on);
	free(s->act);
	free(s->host_alert_on);
	s->host_alert_on = NULL;
	s->act = NULL;
	s->nact = s->act_cap = 0;
}

void prof_gpu_sampler_output_error(struct prof_gpu_sampler *s)
{
	if (errno == EPIPE)
		s->epipe = 1;
	else if (!s->epipe)
		s->out_failed = 1;
}

int prof_gpu_sampler_bad_input(const struct prof_gpu_sampler *s, const char *input,
			       int command)
{
	int rval = PROF_EXIT_OK;

	for (size_t i = 0; i < s->nact; i++) {
		const struct prof_gpu_dev *d = s->act[i].dev;
		unsigned long bad = prof_gpu_bad_input(d);

		if (!bad)
			continue;
		prof_warn("%s: %lu malformed line%s skipped", input ? input : d->backend->name,
			  bad, bad == 1 ? "" : "s");
		if (!command)
			rval = PROF_EXIT_FAIL;	/* with a command, its status */
	}
	return rval;
}

void prof_gpu_sampler_close(struct prof_gpu_sampler *s, struct prof_output *o, const char *path)
{
	char line[64];

	if (!o)
		return;
	if (prof_output_close(o) < 0) {
		prof_gpu_sampler_output_error(s);
		return;
	}
	if (!s->stopped_by || !path || strcmp(path, "-") == 0)
		return;
	snprintf(line, sizeof(line), "# stopped_by=SIG%s\n", sigabbrev_np(s->stopped_by));
	if (prof_output_prepend(path, line) < 0)
		s->out_failed = 1;
}

static void out_write(struct prof_gpu_sampler *s, struct prof_output *o, const char *p, size_t n)
{
	if (o && prof_output_write(o, p, n) < 0)
		prof_gpu_sampler_output_error(s);
}

void prof_gpu_sampler_write_headers(struct prof_gpu_sampler *s)
{
	if (s->cfg.procs_out)
		prof_output_puts(s->cfg.procs_out,
				 prof_tsv_header(prof_tsv_schema_find("profgpu-processes")));
	if (!s->cfg.summary_only && !s->cfg.host_only)
		prof_output_puts(s->cfg.out,
				 prof_tsv_header(prof_tsv_schema_find("profgpu-timeline")));
	if (s->cfg.host_out)
		prof_output_puts(s->cfg.host_out,
				 prof_tsv_header(prof_tsv_schema_find("profgpu-host")));
	if (prof_output_flush(s->cfg.out) < 0)
		prof_gpu_sampler_output_error(s);
	if (s->cfg.host_out && s->cfg.host_out != s->cfg.out && prof_output_flush(s->cfg.host_out) < 0)
		prof_gpu_sampler_output_error(s);
}

void prof_gpu_sampler_write_summary(struct prof_gpu_sampler *s)
{
	char row[1024];

	if (s->cfg.summary_only) {
		prof_output_puts(s->cfg.out,
				 prof_tsv_header(prof_tsv_schema_find("profgpu-summary")));
		for (size_t i = 0; i < s->nact; i++)
			out_write(s, s->cfg.out, row,
				  prof_gpu_format_summary(row, sizeof(row), s->act[i].dev,
							  &s->act[i].st));
	} else if (prof_verbosity > 0 && s->nact) {
		struct prof_buf text = PROF_BUF_INIT;

		for (size_t i = 0; i < s->nact; i++) {
			prof_buf_reset(&text);
			prof_gpu_summary_text(&text, s->act[i].dev, &s->act[i].st);
			fprintf(stderr, "%s: %s", prof_progname, text.data);
		}
		prof_buf_release(&text);
	}
}

/* ---- per-process attribution ---- */

static void mark_lost(struct prof_gpu_active *a, uint64_t time_ns)
{
	char t[32];

	a->dev->lost = 1;
	a->done = 1;
	prof_warn("gpu %u (%s): GPU is lost (fell off the bus or was removed) at %s; "
		  "no more samples from it", a->dev->index, a->dev->name,
		  prof_fmt_duration(t, sizeof(t), (double)time_ns / 1e9));
}

/* The processes on a's device (of the command's tree, if any) as rows. */
static void sample_processes(struct prof_gpu_sampler *s, struct prof_gpu_active *a,
			     uint64_t time_ns)
{
	char row[512], comm[64], path[64];
	int n;

	if (!s->cfg.procs_out || !a->dev->backend->processes)
		return;
	n = a->dev->backend->processes(a->dev, s->procs, PROF_GPU_MAX_PROCS);
	if (n == PROF_GPU_LOST) {
		mark_lost(a, time_ns);
		return;
	}
	for (int i = 0; i < n; i++) {
		const struct prof_gpu_proc *p = &s->procs[i];

		if (s->child && !prof_gpu_pid_in_tree((pid_t)p->pid, s->child, getpid()))
			continue;
		snprintf(path, sizeof(path), "/proc/%u/comm", p->pid);
		if (prof_read_file_line(path, comm, sizeof(comm)) < 0)
			continue;	/* gone since the driver listed it */
		out_write(s, s->cfg.procs_out, row,
			  prof_gpu_format_proc_row(row, sizeof(row), time_ns, a->dev->index, p, comm));
	}
}

/* ---- samples, alerts, rows ---- */

/* v as the alert's metric is written: "96%", "90 C", "8.00 GiB". */
static const char *alert_value(char *buf, size_t n, const struct prof_gpu_alert *a, double v)
{
	size_t len;

	if ((a->metric == PROF_GPU_M_MEM && !a->percent) || a->metric == PROF_GPU_M_RSS ||
	    a->metric == PROF_GPU_M_SWAP)
		return prof_fmt_bytes(buf, n, v);
	len = prof_gpu_format_num(buf, n, v, 3);
	switch (a->metric) {
	case PROF_GPU_M_UTIL:
	case PROF_GPU_M_MEM_UTIL:
	case PROF_GPU_M_MEM:
	case PROF_GPU_M_CPU:
	case PROF_GPU_M_HOST_CPU:
		snprintf(buf + len, n - len, "%%");
		break;
	case PROF_GPU_M_THREADS:
		break;
	case PROF_GPU_M_TEMP:
		snprintf(buf + len, n - len, " C");
		break;
	case PROF_GPU_M_POWER:
		snprintf(buf + len, n - len, " W");
		break;
	case PROF_GPU_M_ENERGY:
		snprintf(buf + len, n - len, " J");
		break;
	default:
		snprintf(buf + len, n - len, " MHz");
		break;
	}
	return buf;
}

/* Warn about each alert that became true with this sample (once per crossing). */
static void check_alerts(struct prof_gpu_sampler *s, struct prof_gpu_active *a,
			 const struct prof_gpu_sample *sm)
{
	for (size_t i = 0; i < s->cfg.nalerts; i++) {
		const struct prof_gpu_alert *al = &s->cfg.alerts[i];
		char val[64], t[32];
		double v;
		int r = prof_gpu_alert_eval(al, sm, &v);

		if (r < 0)
			continue;	/* metric unknown in this sample: no change */
		if (r && !a->alert_on[i]) {
			prof_warn("alert: gpu %u (%s): %s: %s at %s", a->dev->index, a->dev->name,
				  al->text, alert_value(val, sizeof(val), al, v),
				  prof_fmt_duration(t, sizeof(t), (double)sm->time_ns / 1e9));
			s->alerts_fired = 1;
		}
		a->alert_on[i] = (unsigned char)r;
	}
}

/* Account one sample of a and write its row. */
static void emit(struct prof_gpu_sampler *s, struct prof_gpu_active *a,
		 struct prof_gpu_sample *sm)
{
	char row[1024];

	prof_gpu_stats_add(&a->st, sm);
	check_alerts(s, a, sm);
	if (!s->cfg.summary_only)
		out_write(s, s->cfg.out, row, prof_gpu_format_row(row, sizeof(row), a->dev, sm));
}

/* Push the outputs out when 100 ms have passed since the last time (or always with force). */
static void maybe_flush(struct prof_gpu_sampler *s, uint64_t now, int force)
{
	if (!force && now - s->last_flush < FLUSH_NS)
		return;
	s->last_flush = now;
	if (!s->cfg.summary_only && prof_output_flush(s->cfg.out) < 0)
		prof_gpu_sampler_output_error(s);
	if (s->cfg.procs_out && prof_output_flush(s->cfg.procs_out) < 0)
		prof_gpu_sampler_output_error(s);
	if (s->cfg.host_out && s->cfg.host_out != s->cfg.out &&
	    prof_output_flush(s->cfg.host_out) < 0)
		prof_gpu_sampler_output_error(s);
}

/* The host monitor's row and alerts at time_ns. */
static void round_host(struct prof_gpu_sampler *s, uint64_t time_ns)
{
	struct prof_host_sample hs;
	char row[512], val[64], t[32];

	prof_host_sample(s->cfg.host, time_ns, &hs);
	out_write(s, s->cfg.host_out, row, prof_host_row(&hs, row, sizeof(row)));
	for (size_t i = 0; i < s->cfg.nalerts; i++) {
		const struct prof_gpu_alert *al = &s->cfg.alerts[i];
		double v;
		int r = prof_host_alert_eval(al, &hs, &v);

		if (r < 0)
			continue;	/* a GPU metric, or none in this sample */
		if (r && !s->host_alert_on[i]) {
			prof_warn("alert: host: %s: %s at %s", al->text, alert_value(val, sizeof(val), al, v),
				  prof_fmt_duration(t, sizeof(t), (double)time_ns / 1e9));
			s->alerts_fired = 1;
		}
		s->host_alert_on[i] = (unsigned char)r;
	}
}

/* Sample every polled device (and the host) once at time_ns. */
static void round_polled(struct prof_gpu_sampler *s, uint64_t time_ns)
{
	struct prof_gpu_sample sm;

	if (s->cfg.host && !s->host_done)
		round_host(s, time_ns);

	for (size_t i = 0; i < s->nact; i++) {
		struct prof_gpu_active *a = &s->act[i];

		if (prof_gpu_is_push(a->dev) || a->done)
			continue;
		if (prof_gpu_sample(a->dev, time_ns, &sm) == PROF_GPU_LOST) {
			mark_lost(a, time_ns);
			continue;
		}
		emit(s, a, &sm);
		sample_processes(s, a, time_ns);
	}
}

/* The time of a push device's sample (see sampler.h). */
static uint64_t push_time(const struct prof_gpu_sampler *s, struct prof_gpu_active *a,
			  uint64_t now_rel, int64_t stamp, int have_stamp)
{
	if (a->dev->live)
		return now_rel;
	if (!have_stamp)
		return a->lines * s->cfg.interval_ns;
	if (!a->have_first_stamp) {
		a->first_stamp = stamp;
		a->have_first_stamp = 1;
	}
	return stamp >= a->first_stamp ? (uint64_t)(stamp - a->first_stamp) * NSEC_PER_SEC : 0;
}

/* The samples a push device has buffered, until its count or duration. */
static void drain_push(struct prof_gpu_sampler *s, struct prof_gpu_active *a, uint64_t now_rel)
{
	struct prof_gpu_sample sm;
	int64_t stamp = 0;
	int have_stamp;

	while (!a->done && prof_gpu_push_next(a->dev, &sm, &stamp, &have_stamp) == 1) {
		sm.time_ns = push_time(s, a, now_rel, stamp, have_stamp);
		a->lines++;
		emit(s, a, &sm);
		if ((s->cfg.count && a->lines >= s->cfg.count) ||
		    (s->cfg.duration_ns && sm.time_ns >= s->cfg.duration_ns))
			a->done = 1;
	}
}

static int polled_left(const struct prof_gpu_sampler *s)
{
	if (s->cfg.host && !s->host_done)
		return 1;
	for (size_t i = 0; i < s->nact; i++)
		if (!prof_gpu_is_push(s->act[i].dev) && !s->act[i].done)
			return 1;
	return 0;
}

static int push_left(const struct prof_gpu_sampler *s)
{
	for (size_t i = 0; i < s->nact; i++)
		if (prof_gpu_is_push(s->act[i].dev) && !s->act[i].done)
			return 1;
	return 0;
}

/* ---- the loop ---- */

/* The test clock: no waiting, sample k stamped k * interval (no command). */
static void run_virtual(struct prof_gpu_sampler *s, struct loop *l)
{
	for (;;) {
		uint64_t t = s->rounds * s->cfg.interval_ns;

		round_polled(s, t);
		s->rounds++;
		s->ticks = s->rounds;
		if ((s->cfg.count && s->rounds >= s->cfg.count) ||
		    (s->cfg.duration_ns && t >= s->cfg.duration_ns) || !polled_left(s))
			return;
		if ((s->rounds & 1023) == 0) {
			struct pollfd p[2] = { { l->sw->sigfd, POLLIN, 0 },
					       { l->sw->pipe_rd, POLLIN, 0 } };

			if (poll(p, 2, 0) > 0)
				return;
			/* Every 1024 samples: memory use independent of speed. */
			maybe_flush(s, prof_now_ns(), 1);
		}
	}
}

/* A timerfd firing at t0 + k * interval, k = 1, 2, ... */
static int start_timer(const struct prof_gpu_sampler *s)
{
	struct itimerspec its;
	uint64_t deadline = s->t0 + s->cfg.interval_ns;
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);

	if (fd < 0)
		prof_die_errno("timerfd_create");
	its.it_value.tv_sec = (time_t)(deadline / NSEC_PER_SEC);
	its.it_value.tv_nsec = (long)(deadline % NSEC_PER_SEC);
	its.it_interval.tv_sec = (time_t)(s->cfg.interval_ns / NSEC_PER_SEC);
	its.it_interval.tv_nsec = (long)(s->cfg.interval_ns % NSEC_PER_SEC);
	if (timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		prof_die_errno("timerfd_settime");
	return fd;
}

/* Reap children; returns 1 when the command has exited (*status set). */
static int reap(struct prof_gpu_sampler *s, int *status)
{
	struct rusage ru;
	int done = 0, st;
	pid_t pid;

	while ((pid = wait4(-1, &st, WNOHANG, &ru)) > 0) {
		if (s->child && pid == s->child) {
			*status = prof_exit_status(st);
			done = 1;
			/* Its peak, even one between two samples just before it ended. */
			if (s->cfg.host)
				prof_host_note_peak(s->cfg.host, (uint64_t)ru.ru_maxrss * 1024);
		} else {
			prof_gpu_set_reaped(s->set, pid);
		}
	}
	return done;
}

static void on_signals(struct prof_gpu_sampler *s, struct loop *l)
{
	int sig, user;

	while ((sig = prof_sigwatch_next(l->sw, &user)) != 0) {
		if (sig == SIGPIPE) {
			l->stop = !s->child;	/* "| head" ends a free run */
		} else if (sig == SIGCHLD) {
			if (reap(s, &l->status) && s->child)
				l->child_done = 1;
		} else {
			/* SIGINT/TERM/HUP end a free run, or are passed on. */
			s->stopped_by = sig;
			if (!s->child)
				l->stop = 1;
			else if (sig != SIGINT || user)
				/* ^C (not kill) reached the command from the terminal. */
				kill(s->child, prof_signal_ignored_at_start(sig) ? SIGTERM : sig);
		}
	}
}

/* A deadline passed: one round of the polled devices (missed ones are skipped). */
static void on_tick(struct prof_gpu_sampler *s, struct loop *l)
{
	uint64_t exp = 0, now;

	if (read(l->tfd, &exp, sizeof(exp)) != (ssize_t)sizeof(exp) || !exp)
		return;
	now = prof_now_ns();
	round_polled(s, now - s->t0);
	s->rounds++;
	s->ticks += exp;
	if ((s->cfg.count && s->rounds >= s->cfg.count) ||
	    (s->cfg.duration_ns && s->ticks * s->cfg.interval_ns >= s->cfg.duration_ns)) {
		if (!s->child)
			l->stop = 1;
		/* Sampling is over; the command goes on. */
		close(l->tfd);
		l->tfd = -1;
		for (size_t i = 0; i < s->nact; i++)
			if (!prof_gpu_is_push(s->act[i].dev))
				s->act[i].done = 1;
		s->host_done = 1;
	}
	maybe_flush(s, now, 0);
}

/* A push device's input is readable (or ended). */
static void on_push_input(struct prof_gpu_sampler *s, struct prof_gpu_active *a)
{
	long n = prof_gpu_push_read(a->dev);

	drain_push(s, a, prof_now_ns() - s->t0);
	if (n == 0 && !a->done) {
		drain_push(s, a, prof_now_ns() - s->t0);
		a->done = 1;
	}
	maybe_flush(s, prof_now_ns(), 0);
}

/* Wait for the next event and handle it. */
static void wait_once(struct prof_gpu_sampler *s, struct loop *l)
{
	nfds_t npush = 0;
	int timed = l->tfd >= 0 && polled_left(s);
	/* No pidfd: the command's end is looked for on a timeout too, not only on SIGCHLD. */
	int timeout = s->child && l->pidfd < 0 ? CHILD_CHECK_MS : -1;

	l->pfd[PFD_SIGFD] = (struct pollfd){ l->sw->sigfd, POLLIN, 0 };
	l->pfd[PFD_SIGPIPE] = (struct pollfd){ l->sw->pipe_rd, POLLIN, 0 };
	l->pfd[PFD_TIMER] = (struct pollfd){ timed ? l->tfd : -1, POLLIN, 0 };
	l->pfd[PFD_CHILD] = (struct pollfd){ s->child ? l->pidfd : -1, POLLIN, 0 };
	for (size_t i = 0; i < s->nact; i++) {
		if (!prof_gpu_is_push(s->act[i].dev) || s->act[i].done)
			continue;
		l->pushing[npush] = &s->act[i];
		l->pfd[NFIXED + npush++] =
			(struct pollfd){ prof_gpu_push_fd(s->act[i].dev), POLLIN, 0 };
	}
	if (poll(l->pfd, NFIXED + npush, timeout) < 0) {
		if (errno == EINTR)
			return;
		prof_die_errno("poll");
	}
	if ((l->pfd[PFD_SIGFD].revents | l->pfd[PFD_SIGPIPE].revents) & POLLIN)
		on_signals(s, l);
	if (s->child && !l->child_done &&
	    (l->pidfd < 0 || (l->pfd[PFD_CHILD].revents & (POLLIN | POLLHUP))) &&
	    reap(s, &l->status))
		l->child_done = 1;
	if (timed && (l->pfd[PFD_TIMER].revents & POLLIN))
		on_tick(s, l);
	for (nfds_t i = 0; i < npush; i++)
		if (l->pfd[NFIXED + i].revents & (POLLIN | POLLHUP | POLLERR))
			on_push_input(s, l->pushing[i]);
}

int prof_gpu_sampler_run(struct prof_gpu_sampler *s, struct prof_child *cmd, const char *name)
{
	struct loop l = { .sw = s->cfg.signals, .tfd = -1, .pidfd = -1 };

	s->child = cmd ? cmd->pid : 0;
	if (s->cfg.host)
		prof_host_set_root(s->cfg.host, s->child);
	if (s->child)
		l.pidfd = prof_child_pidfd(s->child);
	s->t0 = prof_now_ns();
	s->last_flush = s->t0;
	if (s->cfg.virtual_time && !s->child && !push_left(s)) {
		run_virtual(s, &l);
		return 0;
	}
	/* The first sample just before the command starts. */
	if (polled_left(s)) {
		round_polled(s, 0);
		s->rounds = 1;
		s->ticks = 0;
		l.tfd = start_timer(s);
	}
	if (s->child) {
		l.status = prof_child_start(cmd, name);
		if (l.status) {
			/* Could not execute: it was reaped; nothing more to sample. */
			s->child = 0;
			l.child_done = 1;
		}
	}
	l.pfd = xcalloc(NFIXED + s->nact, sizeof(*l.pfd));
	l.pushing = xcalloc(s->nact ? s->nact : 1, sizeof(*l.pushing));
	while (!l.stop && !l.child_done && (s->child || polled_left(s) || push_left(s)))
		wait_once(s, &l);
	/* The last sample: the state the command left the GPUs in. */
	if (l.child_done && s->child && polled_left(s))
		round_polled(s, prof_now_ns() - s->t0);
	free(l.pfd);
	free(l.pushing);
	if (l.tfd >= 0)
		close(l.tfd);
	if (l.pidfd >= 0)
		close(l.pidfd);
	s->child = 0;
	return l.status;
}
