/*
 * profgpu: sample GPUs while a command runs (or until interrupted) and
 * write a TSV timeline, a per-process table and a summary.
 *
 * The loop: one timerfd with absolute deadlines (t0 + k * interval) for
 * the polled backends (NVML, amdgpu), a signalfd for SIGCHLD/SIGINT/
 * SIGTERM/SIGHUP, and the tegrastats pipe or file; poll() waits on all
 * three. Nothing is allocated per sample.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>
#include "base/buf.h"
#include "base/error.h"
#include "gpu/gpu.h"
#include "base/options.h"
#include "io/output.h"
#include "base/proc.h"
#include "formats/tsv.h"
#include "base/units.h"
#include "base/xalloc.h"

extern char **environ;

#define SYNOPSIS                                                               \
	"profgpu [-lqv] [-b backend[,backend]] [-c count] [-d duration]\n"      \
	"               [-g index[,index]] [-i interval] [-o file] [--alert expr]\n" \
	"               [--fail-on-alert] [--processes file] [--summary]\n"      \
	"               [--tegrastats file] [--] [command [arg ...]]"

static const char help_text[] =
	"usage: " SYNOPSIS "\n"
	"Sample GPUs while command runs (or until interrupted) and write a TSV\n"
	"timeline (prof-formats(5), schema profgpu-timeline).\n"
	"\n"
	"  -b, --backend=list     nvml, amdgpu, tegrastats (default: all found)\n"
	"  -c, --count=count      stop after count samples\n"
	"  -d, --duration=duration  stop after duration (default unit s)\n"
	"  -g, --gpu=index[,index]  sample only these GPUs (see -l)\n"
	"  -i, --interval=interval  sampling interval (default 100ms; bare number: ms)\n"
	"  -l, --list             list GPUs and backends, then exit\n"
	"  -o, --output=file      write the TSV to file (.gz/.zst/.lz4 compress)\n"
	"  -q, --quiet            no summary on stderr\n"
	"  -v, --verbose          more messages\n"
	"      --alert=expr       warn when expr (temp>85, mem>95%, util<10,\n"
	"                         power>250W ...) becomes true; repeatable\n"
	"      --fail-on-alert    exit 1 if an alert fired and command succeeded\n"
	"      --processes=file   per-process GPU use of command's process tree\n"
	"                         (schema profgpu-processes) to file\n"
	"      --summary          write only the per-GPU summary as TSV\n"
	"      --tegrastats=file  read tegrastats output from file ('-': stdin)\n"
	"  -h, --help             this text\n"
	"\n"
	"Exit status: command's (126 cannot execute, 127 not found, 128+N killed\n"
	"by signal N); without command 0; 1 on failure; 2 on usage error.\n";

enum {
	OPT_ALERT = 0x100,
	OPT_FAIL_ON_ALERT,
	OPT_PROCESSES,
	OPT_SUMMARY,
	OPT_TEGRASTATS,
};

static const struct option long_options[] = {
	{ "alert", required_argument, NULL, OPT_ALERT },
	{ "backend", required_argument, NULL, 'b' },
	{ "count", required_argument, NULL, 'c' },
	{ "duration", required_argument, NULL, 'd' },
	{ "fail-on-alert", no_argument, NULL, OPT_FAIL_ON_ALERT },
	{ "gpu", required_argument, NULL, 'g' },
	{ "help", no_argument, NULL, 'h' },
	{ "interval", required_argument, NULL, 'i' },
	{ "list", no_argument, NULL, 'l' },
	{ "list-options", no_argument, NULL, PROF_OPT_LIST_OPTIONS },
	{ "output", required_argument, NULL, 'o' },
	{ "processes", required_argument, NULL, OPT_PROCESSES },
	{ "quiet", no_argument, NULL, 'q' },
	{ "summary", no_argument, NULL, OPT_SUMMARY },
	{ "tegrastats", required_argument, NULL, OPT_TEGRASTATS },
	{ "verbose", no_argument, NULL, 'v' },
	{ NULL, 0, NULL, 0 },
};

enum { BE_NVML = 1, BE_AMDGPU = 2, BE_TEGRA = 4, BE_ALL = 7 };

#define MAX_PROCS 256

/* One GPU being sampled. */
struct active {
	struct prof_gpu_dev *dev;
	struct prof_gpu_stats st;
	unsigned char *alert_on;	/* per alert: condition currently true */
	int tegra;			/* fed by tegrastats lines */
	int done;			/* lost, or its input ended */
	unsigned long lines;		/* tegrastats samples read */
	int64_t first_stamp;
	int have_first_stamp;
};

struct profgpu {
	/* options */
	unsigned backends;
	uint64_t count;			/* 0: unlimited */
	uint64_t duration_ns;		/* 0: unlimited */
	uint64_t interval_ns;
	const char *gpu_list;
	const char *output;
	const char *procs_path;
	const char *tegra_path;
	int summary_only;
	int fail_on_alert;
	int list;
	struct prof_gpu_alert *alerts;
	size_t nalerts, alerts_cap;

	struct prof_gpu_set set;
	struct active *act;
	size_t nact;
	struct prof_output *out;	/* timeline or summary */
	struct prof_output *procs_out;
	struct prof_gpu_proc procs[MAX_PROCS];

	pid_t child;			/* the command, or 0 */
	pid_t tegra_pid;		/* our tegrastats child, or 0 */
	int tegra_from_file;
	uint64_t t0;
	uint64_t rounds;		/* sampling rounds done */
	uint64_t ticks;			/* deadlines passed (rounds + missed) */
	uint64_t last_flush;
	int alerts_fired;
	int out_failed;
	int epipe;			/* a reader of our output went away */
	int virtual_time;
};

#define usage_error(...) prof_usage_error(SYNOPSIS, __VA_ARGS__)

static unsigned parse_backends(const char *s)
{
	unsigned mask = 0;
	char *copy = xstrdup(s), *save = NULL;

	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (strcmp(t, "nvml") == 0)
			mask |= BE_NVML;
		else if (strcmp(t, "amdgpu") == 0)
			mask |= BE_AMDGPU;
		else if (strcmp(t, "tegrastats") == 0)
			mask |= BE_TEGRA;
		else if (strcmp(t, "all") == 0 || strcmp(t, "auto") == 0)
			mask |= BE_ALL;
		else
			usage_error("-b: unknown backend '%s' (nvml, amdgpu, tegrastats)", t);
	}
	free(copy);
	if (!mask)
		usage_error("-b: no backend in '%s'", s);
	return mask;
}

/* Start "tegrastats --interval MS" with its stdout on a pipe; returns the fd or -1. */
static int spawn_tegrastats(struct profgpu *pg)
{
	char ms[32];
	char *argv[] = { (char *)"tegrastats", (char *)"--interval", ms, NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none;
	int pfd[2], err;

	snprintf(ms, sizeof(ms), "%llu",
		 (unsigned long long)(pg->interval_ns / 1000000 ? pg->interval_ns / 1000000 : 1));
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		prof_warn_errno("pipe");
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], STDOUT_FILENO);
	posix_spawnattr_init(&attr);
	sigemptyset(&none);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
	err = posix_spawnp(&pg->tegra_pid, "tegrastats", &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	close(pfd[1]);
	if (err) {
		errno = err;
		prof_warn_errno("cannot run tegrastats");
		pg->tegra_pid = 0;
		close(pfd[0]);
		return -1;
	}
	return pfd[0];
}

/*
 * Find the GPUs. What each backend found, or why not, is appended to
 * status ("nvml: 2 GPUs (driver 550.54.14); amdgpu: no ...").
 */
static void discover(struct profgpu *pg, struct prof_buf *status, int spawn)
{
	int n, nvml = 0;
	char model[256];

	if (pg->tegra_path) {
		int fd = strcmp(pg->tegra_path, "-") == 0 ? dup(STDIN_FILENO)
							  : open(pg->tegra_path, O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			prof_die_errno("%s", pg->tegra_path);
		if (!prof_gpu_tegra_detect(NULL, model, sizeof(model)))
			snprintf(model, sizeof(model), "NVIDIA Tegra");
		prof_gpu_tegra_open(&pg->set, fd, model,
				    strcmp(pg->tegra_path, "-") == 0 ? "<stdin>" : pg->tegra_path);
		pg->tegra_from_file = 1;
		prof_buf_addf(status, "tegrastats: reading %s", pg->tegra_path);
		return;
	}
	if (pg->backends & BE_NVML) {
		prof_buf_addstr(status, "nvml: ");
		nvml = prof_gpu_nvml_open(&pg->set, NULL, status);
		if (nvml)
			prof_buf_addf(status, "%d GPU%s (driver %s)", nvml, nvml == 1 ? "" : "s",
				      pg->set.nvml_driver[0] ? pg->set.nvml_driver : "unknown");
	}
	if (pg->backends & BE_AMDGPU) {
		if (status->len)
			prof_buf_addstr(status, "; ");
		prof_buf_addstr(status, "amdgpu: ");
		n = prof_gpu_amdgpu_open(&pg->set, NULL, status);
		if (n)
			prof_buf_addf(status, "%d GPU%s", n, n == 1 ? "" : "s");
	}
	if (pg->backends & BE_TEGRA) {
		if (status->len)
			prof_buf_addstr(status, "; ");
		prof_buf_addstr(status, "tegrastats: ");
		if (nvml) {
			/* A Jetson with NVML already listed its GPU there. */
			prof_buf_addstr(status, "not used (NVML present)");
		} else if (!prof_gpu_tegra_detect(NULL, model, sizeof(model))) {
			prof_buf_addstr(status, "not a Jetson");
		} else if (spawn) {
			int fd = spawn_tegrastats(pg);

			if (fd >= 0) {
				prof_gpu_tegra_open(&pg->set, fd, model, "tegrastats");
				prof_buf_addstr(status, "1 GPU");
			} else {
				prof_buf_addstr(status, "cannot run tegrastats");
			}
		} else {
			prof_gpu_tegra_open(&pg->set, -1, model, "tegrastats");
			prof_buf_addstr(status, "1 GPU");
		}
	}
}

static int do_list(struct profgpu *pg)
{
	struct prof_buf why = PROF_BUF_INIT;
	int rval;

	discover(pg, &why, 0);
	for (size_t i = 0; i < pg->set.ndevs; i++) {
		struct prof_gpu_dev *d = &pg->set.devs[i];

		printf("%u\t%s\t%s\t%s\n", d->index, d->backend->name, d->name, d->uuid);
	}
	if (!pg->set.ndevs)
		prof_warn("no GPU found (%s)", why.data);
	else
		prof_info(1, "%s", why.data);
	rval = pg->set.ndevs ? PROF_EXIT_OK : PROF_EXIT_FAIL;
	prof_buf_release(&why);
	prof_gpu_set_release(&pg->set);
	return rval | prof_close_stdout();
}

/* Keep the devices named by -g (in the order of the set). */
static void select_gpus(struct profgpu *pg)
{
	pg->act = xcalloc(pg->set.ndevs ? pg->set.ndevs : 1, sizeof(*pg->act));
	for (size_t i = 0; i < pg->set.ndevs; i++) {
		int want = !pg->gpu_list;

		if (pg->gpu_list) {
			char *copy = xstrdup(pg->gpu_list), *save = NULL;

			for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
				uint64_t n;

				if (prof_parse_u64(t, &n) == 0 && n == i)
					want = 1;
			}
			free(copy);
		}
		if (!want)
			continue;
		pg->act[pg->nact].dev = &pg->set.devs[i];
		pg->act[pg->nact].tegra = strcmp(pg->set.devs[i].backend->name, "tegrastats") == 0;
		pg->act[pg->nact].alert_on = xcalloc(pg->nalerts ? pg->nalerts : 1, 1);
		pg->nact++;
	}
}

static void check_gpu_list(const struct profgpu *pg)
{
	char *copy = xstrdup(pg->gpu_list), *save = NULL;

	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		uint64_t n;

		if (prof_parse_u64(t, &n) < 0)
			usage_error("-g: bad GPU index '%s'", t);
		if (pg->set.ndevs && n >= pg->set.ndevs) {
			prof_warn("-g: no GPU %s (%zu found; see profgpu -l)", t, pg->set.ndevs);
			exit(PROF_EXIT_FAIL);
		}
	}
	free(copy);
}

/*
 * An output failed (output.h reported it); a reader that went away
 * ("| head") is normal use, not a failure.
 */
static void out_error(struct profgpu *pg)
{
	if (errno == EPIPE)
		pg->epipe = 1;
	else if (!pg->epipe)
		pg->out_failed = 1;
}

static void out_write(struct profgpu *pg, struct prof_output *o, const char *p, size_t n)
{
	if (o && prof_output_write(o, p, n) < 0)
		out_error(pg);
}

static const char *alert_value(char *buf, size_t n, const struct prof_gpu_alert *a, double v)
{
	size_t len;

	if (a->metric == PROF_GPU_M_MEM && !a->percent)
		return prof_fmt_bytes(buf, n, v);
	len = prof_gpu_format_num(buf, n, v, 3);
	switch (a->metric) {
	case PROF_GPU_M_UTIL:
	case PROF_GPU_M_MEM_UTIL:
	case PROF_GPU_M_MEM:
		snprintf(buf + len, n - len, "%%");
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

static void check_alerts(struct profgpu *pg, struct active *a, const struct prof_gpu_sample *s)
{
	for (size_t i = 0; i < pg->nalerts; i++) {
		double v;
		int r = prof_gpu_alert_eval(&pg->alerts[i], s, &v);
		char val[64], t[32];

		if (r < 0)
			continue;	/* metric unknown in this sample: no change */
		if (r && !a->alert_on[i]) {
			prof_warn("alert: gpu %u (%s): %s: %s at %s", a->dev->index, a->dev->name,
				  pg->alerts[i].text, alert_value(val, sizeof(val), &pg->alerts[i], v),
				  prof_fmt_duration(t, sizeof(t), (double)s->time_ns / 1e9));
			pg->alerts_fired = 1;
		}
		a->alert_on[i] = (unsigned char)r;
	}
}

/* /proc/PID/comm into buf; -1 if the process is gone. */
static int read_comm(pid_t pid, char *buf, size_t n)
{
	char path[64];
	ssize_t len;
	int fd;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = read(fd, buf, n - 1);
	close(fd);
	if (len < 0)
		len = 0;
	while (len > 0 && buf[len - 1] == '\n')
		len--;
	buf[len] = '\0';
	return 0;
}

static void mark_lost(struct active *a, uint64_t time_ns)
{
	char t[32];

	a->dev->lost = 1;
	a->done = 1;
	prof_warn("gpu %u (%s): GPU is lost (fell off the bus or was removed) at %s; "
		  "no more samples from it", a->dev->index, a->dev->name,
		  prof_fmt_duration(t, sizeof(t), (double)time_ns / 1e9));
}

static void sample_processes(struct profgpu *pg, struct active *a, uint64_t time_ns)
{
	char row[512], comm[64];
	int n;

	if (!pg->procs_out || !a->dev->backend->processes)
		return;
	n = a->dev->backend->processes(a->dev, pg->procs, MAX_PROCS);
	if (n == PROF_GPU_LOST) {
		mark_lost(a, time_ns);
		return;
	}
	for (int i = 0; i < n; i++) {
		const struct prof_gpu_proc *p = &pg->procs[i];

		if (pg->child && !prof_gpu_pid_in_tree((pid_t)p->pid, pg->child, getpid()))
			continue;
		if (read_comm((pid_t)p->pid, comm, sizeof(comm)) < 0)
			continue;	/* gone since the driver listed it */
		out_write(pg, pg->procs_out, row,
			  prof_gpu_format_proc_row(row, sizeof(row), time_ns, a->dev->index, p, comm));
	}
}

/* Account one sample of a and write its row. */
static void emit(struct profgpu *pg, struct active *a, struct prof_gpu_sample *s)
{
	char row[1024];

	prof_gpu_stats_add(&a->st, s);
	check_alerts(pg, a, s);
	if (!pg->summary_only)
		out_write(pg, pg->out, row, prof_gpu_format_row(row, sizeof(row), a->dev, s));
}

/* Push the output out when 100 ms have passed since the last time (or always with force). */
static void maybe_flush(struct profgpu *pg, uint64_t now, int force)
{
	if (!force && now - pg->last_flush < 100000000ull)
		return;
	pg->last_flush = now;
	if (pg->out && !pg->summary_only && prof_output_flush(pg->out) < 0)
		out_error(pg);
	if (pg->procs_out && prof_output_flush(pg->procs_out) < 0)
		out_error(pg);
}

/* Sample every polled GPU once at time_ns. */
static void round_polled(struct profgpu *pg, uint64_t time_ns)
{
	struct prof_gpu_sample s;

	for (size_t i = 0; i < pg->nact; i++) {
		struct active *a = &pg->act[i];

		if (a->tegra || a->done)
			continue;
		if (prof_gpu_sample(a->dev, time_ns, &s) == PROF_GPU_LOST) {
			mark_lost(a, time_ns);
			continue;
		}
		emit(pg, a, &s);
		sample_processes(pg, a, time_ns);
	}
}

/* Samples from tegrastats lines now buffered for a. */
static void drain_tegra(struct profgpu *pg, struct active *a, uint64_t now_rel)
{
	struct prof_gpu_sample s;
	int64_t stamp;
	int have_stamp;

	while (prof_gpu_tegra_next(a->dev, &s, &stamp, &have_stamp) == 1) {
		if (!pg->tegra_from_file) {
			s.time_ns = now_rel;	/* a live child: arrival time */
		} else if (have_stamp) {
			if (!a->have_first_stamp) {
				a->first_stamp = stamp;
				a->have_first_stamp = 1;
			}
			s.time_ns = stamp >= a->first_stamp
					    ? (uint64_t)(stamp - a->first_stamp) * 1000000000ull
					    : 0;
		} else {
			s.time_ns = a->lines * pg->interval_ns;
		}
		a->lines++;
		emit(pg, a, &s);
		if (pg->count && a->lines >= pg->count) {
			a->done = 1;
			return;
		}
		if (pg->duration_ns && s.time_ns >= pg->duration_ns) {
			a->done = 1;
			return;
		}
	}
}

static int polled_left(const struct profgpu *pg)
{
	for (size_t i = 0; i < pg->nact; i++)
		if (!pg->act[i].tegra && !pg->act[i].done)
			return 1;
	return 0;
}

static struct active *tegra_active(struct profgpu *pg)
{
	for (size_t i = 0; i < pg->nact; i++)
		if (pg->act[i].tegra && !pg->act[i].done)
			return &pg->act[i];
	return NULL;
}

/* Reap children; returns 1 when the command has exited (*status set). */
static int reap(struct profgpu *pg, int *status)
{
	int done = 0, st;
	pid_t pid;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		if (pid == pg->child) {
			*status = prof_exit_status(st);
			done = 1;
		} else if (pid == pg->tegra_pid) {
			pg->tegra_pid = 0;
		}
	}
	return done;
}

/* The test hook: no waiting, sample k stamped k * interval (no command). */
static void run_virtual(struct profgpu *pg, int sigfd)
{
	for (;;) {
		uint64_t t = pg->rounds * pg->interval_ns;

		round_polled(pg, t);
		pg->rounds++;
		pg->ticks = pg->rounds;
		if ((pg->count && pg->rounds >= pg->count) ||
		    (pg->duration_ns && t >= pg->duration_ns) || !polled_left(pg))
			return;
		if ((pg->rounds & 1023) == 0) {
			struct pollfd p = { sigfd, POLLIN, 0 };

			if (poll(&p, 1, 0) > 0)
				return;
			/* Every 1024 samples: memory use independent of speed. */
			maybe_flush(pg, prof_now_ns(), 1);
		}
	}
}

/*
 * The sampling loop. Returns the command's exit status (0 without a
 * command).
 */
static int run_loop(struct profgpu *pg, struct prof_child *cmd, const char *cmdname)
{
	struct itimerspec its;
	sigset_t mask;
	int sigfd, tfd = -1, status = 0, child_done = 0, stop = 0;
	uint64_t deadline;

	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	/* A closed output pipe is an EPIPE error, not death: the command goes on. */
	sigaddset(&mask, SIGPIPE);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
		prof_die_errno("sigprocmask");
	sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sigfd < 0)
		prof_die_errno("signalfd");
	pg->t0 = prof_now_ns();
	pg->last_flush = pg->t0;

	if (pg->virtual_time && !pg->child && !tegra_active(pg)) {
		run_virtual(pg, sigfd);
		close(sigfd);
		return 0;
	}

	/* The first sample just before the command starts. */
	if (polled_left(pg)) {
		round_polled(pg, 0);
		pg->rounds = 1;
		pg->ticks = 0;
		tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
		if (tfd < 0)
			prof_die_errno("timerfd_create");
		deadline = pg->t0 + pg->interval_ns;
		its.it_value.tv_sec = (time_t)(deadline / 1000000000ull);
		its.it_value.tv_nsec = (long)(deadline % 1000000000ull);
		its.it_interval.tv_sec = (time_t)(pg->interval_ns / 1000000000ull);
		its.it_interval.tv_nsec = (long)(pg->interval_ns % 1000000000ull);
		if (timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
			prof_die_errno("timerfd_settime");
	}
	if (pg->child) {
		status = prof_child_start(cmd, cmdname);
		if (status) {
			/* Could not execute: it was reaped; nothing more to sample. */
			pg->child = 0;
			child_done = 1;
		}
	}

	while (!stop && !child_done) {
		struct pollfd pfd[3];
		struct active *teg = tegra_active(pg);
		int nfd = 0, ti = -1, gi = -1;

		if (!pg->child && !polled_left(pg) && !teg)
			break;
		pfd[nfd++] = (struct pollfd){ sigfd, POLLIN, 0 };
		if (tfd >= 0 && polled_left(pg)) {
			ti = nfd;
			pfd[nfd++] = (struct pollfd){ tfd, POLLIN, 0 };
		}
		if (teg) {
			gi = nfd;
			pfd[nfd++] = (struct pollfd){ prof_gpu_tegra_fd(teg->dev), POLLIN, 0 };
		}
		if (poll(pfd, (nfds_t)nfd, -1) < 0) {
			if (errno == EINTR)
				continue;
			prof_die_errno("poll");
		}
		if (pfd[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
				if (si.ssi_signo == SIGPIPE) {
					stop = !pg->child;	/* "| head" ends a free run */
				} else if (si.ssi_signo == SIGCHLD) {
					if (pg->child && reap(pg, &status))
						child_done = 1;
					else if (!pg->child)
						reap(pg, &status);
				} else if (!pg->child) {
					stop = 1;	/* SIGINT/TERM/HUP end a free run */
				} else if (si.ssi_signo != SIGINT) {
					/* SIGINT reaches the command from the terminal. */
					kill(pg->child, (int)si.ssi_signo);
				}
			}
		}
		if (ti >= 0 && (pfd[ti].revents & POLLIN)) {
			uint64_t exp = 0;

			if (read(tfd, &exp, sizeof(exp)) == (ssize_t)sizeof(exp) && exp) {
				uint64_t now = prof_now_ns();

				/* Missed deadlines are skipped, not caught up. */
				round_polled(pg, now - pg->t0);
				pg->rounds++;
				pg->ticks += exp;
				if ((pg->count && pg->rounds >= pg->count) ||
				    (pg->duration_ns &&
				     pg->ticks * pg->interval_ns >= pg->duration_ns)) {
					if (!pg->child)
						stop = 1;
					/* Sampling is over; the command goes on. */
					close(tfd);
					tfd = -1;
					for (size_t i = 0; i < pg->nact; i++)
						if (!pg->act[i].tegra)
							pg->act[i].done = 1;
				}
				maybe_flush(pg, now, 0);
			}
		}
		if (gi >= 0 && (pfd[gi].revents & (POLLIN | POLLHUP | POLLERR))) {
			long n = prof_gpu_tegra_fill(teg->dev);

			drain_tegra(pg, teg, prof_now_ns() - pg->t0);
			if (n == 0 && !teg->done) {
				drain_tegra(pg, teg, prof_now_ns() - pg->t0);
				teg->done = 1;
			}
			maybe_flush(pg, prof_now_ns(), 0);
		}
	}
	/* The last sample: the state the command left the GPUs in. */
	if (child_done && pg->child && polled_left(pg))
		round_polled(pg, prof_now_ns() - pg->t0);
	if (tfd >= 0)
		close(tfd);
	close(sigfd);
	return status;
}

static void stop_tegrastats(struct profgpu *pg)
{
	int st;

	if (!pg->tegra_pid)
		return;
	kill(pg->tegra_pid, SIGTERM);
	while (waitpid(pg->tegra_pid, &st, 0) < 0 && errno == EINTR)
		;
	pg->tegra_pid = 0;
}

static void add_alert(struct profgpu *pg, const char *text)
{
	char err[256];

	PROF_GROW(pg->alerts, pg->nalerts + 1, pg->alerts_cap);
	if (prof_gpu_alert_parse(text, &pg->alerts[pg->nalerts], err, sizeof(err)) < 0)
		prof_usage_error(SYNOPSIS, "--alert '%s': %s", text, err);
	pg->nalerts++;
}

int main(int argc, char **argv)
{
	struct profgpu pg;
	struct prof_child cmd;
	struct prof_buf why = PROF_BUF_INIT;
	const char *env;
	double secs;
	int c, status = 0, rval = PROF_EXIT_OK;
	char row[1024];

	prof_set_progname(argv[0]);
	memset(&pg, 0, sizeof(pg));
	pg.backends = BE_ALL;
	pg.interval_ns = 100000000ull;

	while ((c = prof_getopt_long(argc, argv, "+b:c:d:g:hi:lo:qv", long_options, NULL)) != -1) {
		switch (c) {
		case 'b':
			pg.backends = parse_backends(optarg);
			break;
		case 'c':
			if (prof_parse_u64(optarg, &pg.count) < 0 || pg.count == 0)
				usage_error("-c: bad count '%s'", optarg);
			break;
		case 'd':
			if (prof_parse_duration(optarg, 1.0, &secs) < 0 || secs <= 0)
				usage_error("-d: bad duration '%s'", optarg);
			pg.duration_ns = (uint64_t)(secs * 1e9 + 0.5);
			break;
		case 'g':
			pg.gpu_list = optarg;
			break;
		case 'h':
			prof_help(help_text);
		case 'i':
			if (prof_parse_duration(optarg, 1e-3, &secs) < 0 || secs < 1e-3 ||
			    secs > 86400)
				usage_error("-i: bad interval '%s' (1ms to 24h)", optarg);
			pg.interval_ns = (uint64_t)(secs * 1e9 + 0.5);
			break;
		case 'l':
			pg.list = 1;
			break;
		case 'o':
			pg.output = optarg;
			break;
		case 'q':
			prof_verbosity = 0;
			break;
		case 'v':
			prof_verbosity++;
			break;
		case OPT_ALERT:
			add_alert(&pg, optarg);
			break;
		case OPT_FAIL_ON_ALERT:
			pg.fail_on_alert = 1;
			break;
		case OPT_PROCESSES:
			pg.procs_path = optarg;
			break;
		case OPT_SUMMARY:
			pg.summary_only = 1;
			break;
		case OPT_TEGRASTATS:
			pg.tegra_path = optarg;
			break;
		case PROF_OPT_LIST_OPTIONS:
			prof_list_option_values(long_options, (const struct prof_option_values[]){
				{ "backend", "nvml,amdgpu,tegrastats" }, { NULL, NULL } });
		default:
			prof_usage_error(SYNOPSIS, NULL);
		}
	}
	argc -= optind;
	argv += optind;
	if (pg.gpu_list)
		check_gpu_list(&pg);	/* syntax only; ranges after discovery */
	if (pg.list) {
		if (argc)
			usage_error("-l takes no command%s", "");
		return do_list(&pg);
	}
	if (pg.procs_path && (!pg.output || strcmp(pg.output, "-") == 0) &&
	    strcmp(pg.procs_path, "-") == 0)
		usage_error("--processes %s: the timeline already goes to stdout (use -o)",
			    pg.procs_path);
	env = getenv("PROFGPU_TEST_VIRTUAL_TIME");
	pg.virtual_time = env && *env && strcmp(env, "0") != 0;
	if (pg.virtual_time && argc)
		usage_error("PROFGPU_TEST_VIRTUAL_TIME needs no command%s", "");

	discover(&pg, &why, 1);
	if (pg.gpu_list)
		check_gpu_list(&pg);
	select_gpus(&pg);

	pg.out = prof_output_open(pg.output, PROF_OUT_STREAM,
				  prof_compression_from_suffix(pg.output ? pg.output : ""));
	if (!pg.out)
		return PROF_EXIT_FAIL;
	if (pg.procs_path) {
		pg.procs_out = prof_output_open(pg.procs_path, PROF_OUT_STREAM,
						prof_compression_from_suffix(pg.procs_path));
		if (!pg.procs_out) {
			prof_output_abort(pg.out);
			return PROF_EXIT_FAIL;
		}
		prof_output_puts(pg.procs_out,
				 prof_tsv_header(prof_tsv_schema_find("profgpu-processes")));
	}
	if (!pg.summary_only)
		prof_output_puts(pg.out, prof_tsv_header(prof_tsv_schema_find("profgpu-timeline")));
	if (prof_output_flush(pg.out) < 0)
		out_error(&pg);

	if (pg.nact == 0)
		prof_warn("no GPU found (%s); %s", why.data,
			  argc ? "running the command without GPU samples" : "nothing to sample");
	else
		prof_info(2, "%s", why.data);
	if (pg.nact && pg.procs_out)
		for (size_t i = 0; i < pg.nact; i++)
			if (!pg.act[i].dev->backend->processes)
				prof_info(1, "gpu %u (%s): no per-process information from %s",
					  pg.act[i].dev->index, pg.act[i].dev->name,
					  pg.act[i].dev->backend->name);
	prof_buf_release(&why);

	if (argc) {
		/* A table on stdout: the command's stdout goes to stderr. */
		int to_stdout = !pg.output || strcmp(pg.output, "-") == 0 ||
				(pg.procs_path && strcmp(pg.procs_path, "-") == 0);

		/* Orphaned grandchildren stay in the tree --processes follows. */
		if (pg.procs_out)
			prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
		if (prof_child_spawn_flags(&cmd, argv, NULL,
					   to_stdout ? PROF_CHILD_STDOUT_TO_STDERR : 0) < 0) {
			status = PROF_EXIT_FAIL;
			goto out;
		}
		pg.child = cmd.pid;
		status = run_loop(&pg, &cmd, argv[0]);
	} else if (pg.nact) {
		run_loop(&pg, NULL, NULL);
	} else {
		rval = PROF_EXIT_FAIL;
	}
	stop_tegrastats(&pg);

out:
	for (size_t i = 0; i < pg.nact; i++) {
		struct active *a = &pg.act[i];

		if (a->tegra && prof_gpu_tegra_bad_lines(a->dev)) {
			prof_warn("%s: %lu malformed line%s skipped",
				  pg.tegra_path ? pg.tegra_path : "tegrastats",
				  prof_gpu_tegra_bad_lines(a->dev),
				  prof_gpu_tegra_bad_lines(a->dev) == 1 ? "" : "s");
			if (!argc)
				rval = PROF_EXIT_FAIL;	/* with a command, its status */
		}
	}
	if (pg.summary_only) {
		prof_output_puts(pg.out, prof_tsv_header(prof_tsv_schema_find("profgpu-summary")));
		for (size_t i = 0; i < pg.nact; i++)
			out_write(&pg, pg.out, row,
				  prof_gpu_format_summary(row, sizeof(row), pg.act[i].dev,
							  &pg.act[i].st));
	} else if (prof_verbosity > 0 && pg.nact) {
		struct prof_buf text = PROF_BUF_INIT;

		for (size_t i = 0; i < pg.nact; i++) {
			prof_buf_reset(&text);
			prof_gpu_summary_text(&text, pg.act[i].dev, &pg.act[i].st);
			fprintf(stderr, "%s: %s", prof_progname, text.data);
		}
		prof_buf_release(&text);
	}
	if (prof_output_close(pg.out) < 0)
		out_error(&pg);
	if (pg.procs_out && prof_output_close(pg.procs_out) < 0)
		out_error(&pg);
	for (size_t i = 0; i < pg.nact; i++)
		free(pg.act[i].alert_on);
	free(pg.act);
	free(pg.alerts);
	prof_gpu_set_release(&pg.set);

	if (pg.out_failed || (pg.alerts_fired && pg.fail_on_alert))
		rval = PROF_EXIT_FAIL;
	if (argc)
		/* The command's status wins; our failures only turn a 0 into 1. */
		return status ? status : rval;
	return rval;
}
