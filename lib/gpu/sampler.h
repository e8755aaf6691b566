#ifndef PROF_GPU_SAMPLER_H
#define PROF_GPU_SAMPLER_H
/*
 * The GPU sampling loop (profgpu's engine): samples chosen devices of a
 * struct prof_gpu_set while a command runs (or until interrupted, or a
 * count or duration is reached), and writes the profgpu-timeline and
 * profgpu-processes rows (prof-formats.5), the summary, and the alerts.
 *
 * One poll() waits on: a timerfd with absolute deadlines (t0 + k *
 * interval) for the polled devices, so late wake-ups do not add up
 * (missed deadlines are skipped, not caught up); the caller's signal
 * watch (proc.h: SIGCHLD/SIGINT/SIGTERM/SIGHUP/SIGPIPE, started before
 * any GPU library was loaded, so that no library thread can take them);
 * a pidfd of the command, so that its end is seen even if its SIGCHLD
 * was taken elsewhere (without pidfds, a 100 ms timeout and waitpid);
 * and the wait_fd of every push device, whose samples are taken as
 * their input delivers them. Devices
 * are driven only through their backend's operations (gpu.h). Nothing
 * is allocated per sample.
 *
 * Times: a polled sample is stamped with the time since the loop
 * started (the first round at 0, just before the command starts, and a
 * last round when the command exits); a live push device's sample with
 * its arrival time; a recorded push device's sample with its stamp less
 * the first stamp, or k * interval when the input has no stamps.
 *
 * With cfg.host, the host monitor (host.h) is read in every polled round
 * too, watching the command's tree, its rows going to cfg.host_out.
 *
 * Lifecycle: prof_gpu_sampler_init, prof_gpu_sampler_add per device,
 * prof_gpu_sampler_write_headers, prof_gpu_sampler_run,
 * prof_gpu_sampler_write_summary, prof_gpu_sampler_close of each
 * output, then prof_gpu_sampler_release.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "gpu/gpu.h"
#include "gpu/host.h"

struct prof_output;
struct prof_child;
struct prof_sigwatch;

#define PROF_GPU_MAX_PROCS 256

struct prof_gpu_sampler_config {
	uint64_t interval_ns;		/* polled devices; recordings without stamps */
	uint64_t count;			/* stop after count samples (0: no limit) */
	uint64_t duration_ns;		/* stop after duration (0: no limit) */
	const struct prof_gpu_alert *alerts;	/* the caller's, kept during the run */
	size_t nalerts;
	/* The timeline, or (summary_only) the summary TSV; not NULL. */
	struct prof_output *out;
	struct prof_output *procs_out;	/* profgpu-processes rows, or NULL */
	int summary_only;		/* no timeline rows */
	/*
	 * The host monitor (host.h), sampled with the polled devices, its
	 * profgpu-host rows to host_out; or NULL. host_only: out is the
	 * host timeline (no GPU timeline header).
	 */
	struct prof_host *host;
	struct prof_output *host_out;
	int host_only;
	/* The signals of the run (prof_sigwatch_start'ed); not NULL. */
	struct prof_sigwatch *signals;
	/*
	 * The test clock: with no command and no push device, polled
	 * sample k is stamped k * interval and taken without waiting.
	 */
	int virtual_time;
};

/* One device being sampled. */
struct prof_gpu_active {
	struct prof_gpu_dev *dev;
	struct prof_gpu_stats st;	/* its summary so far */
	unsigned char *alert_on;	/* per alert: condition currently true */
	int done;			/* lost, its input ended, or its count reached */
	unsigned long lines;		/* push devices: samples read */
	int64_t first_stamp;		/* push devices: the input's first stamp */
	int have_first_stamp;
};

struct prof_gpu_sampler {
	struct prof_gpu_sampler_config cfg;
	struct prof_gpu_set *set;
	struct prof_gpu_active *act;
	size_t nact, act_cap;
	pid_t child;			/* the command during a run, or 0 */
	uint64_t t0;			/* the run's start (prof_now_ns) */
	uint64_t rounds;		/* polled rounds done */
	uint64_t ticks;			/* deadlines passed (rounds + missed) */
	uint64_t last_flush;
	struct prof_gpu_proc procs[PROF_GPU_MAX_PROCS];
	unsigned char *host_alert_on;	/* per alert: true on the last host sample */
	int host_done;			/* count or duration reached */
	/* Results. */
	int alerts_fired;		/* an alert became true at least once */
	int stopped_by;			/* SIGINT/TERM/HUP that ended the run (or was passed on), or 0 */
	int out_failed;			/* a write failed (not EPIPE) */
	int epipe;			/* a reader of an output went away */
};

/*
 * Start a sampler of devices of set (which must outlive it) with cfg
 * (copied; the alerts and outputs it points at are not). No device yet.
 */
void prof_gpu_sampler_init(struct prof_gpu_sampler *s, struct prof_gpu_set *set,
			   const struct prof_gpu_sampler_config *cfg);

/* Sample d (a device of the set) too; devices are sampled in the order added. */
void prof_gpu_sampler_add(struct prof_gpu_sampler *s, struct prof_gpu_dev *d);

/*
 * Write the TSV headers: processes (if procs_out), then the timeline
 * (unless summary_only), and flush the timeline so a reader sees it at
 * once. Errors are noted (prof_gpu_sampler_output_error).
 */
void prof_gpu_sampler_write_headers(struct prof_gpu_sampler *s);

/*
 * Sample until the command exits (cmd: spawned by prof_child_spawn and
 * not yet started; the run starts it after the first round, name is
 * for its exec error), or without a command (cmd NULL) until a signal,
 * the count, the duration, or until every device is done. With a
 * command, SIGTERM and SIGHUP are passed on to it, and SIGINT when a
 * process sent it (^C reaches the command from the terminal itself),
 * as SIGTERM if the command started with it ignored; the run then ends
 * when the command does. Sampling stops at the count
 * or duration while the command goes on. stopped_by is set to the
 * signal that stopped the run or was passed on. Children are reaped (profgpu may be a
 * subreaper); a device helper's exit is told to the set.
 *
 * SIGCHLD, SIGINT, SIGTERM, SIGHUP and SIGPIPE stay blocked on return,
 * so that a pending SIGPIPE does not kill the caller while it writes
 * its summary (a closed output is an EPIPE error instead). Returns the
 * command's exit status (proc.h), 0 without a command. Fatal errors of
 * poll, signalfd and timerfd exit.
 */
int prof_gpu_sampler_run(struct prof_gpu_sampler *s, struct prof_child *cmd, const char *name);

/*
 * With summary_only: the profgpu-summary header and a row per device to
 * out. Otherwise, at prof_verbosity > 0: the human summary of each
 * device on stderr.
 */
void prof_gpu_sampler_write_summary(struct prof_gpu_sampler *s);

/*
 * An output write failed (errno as the output left it): EPIPE, a
 * reader that went away ("| head"), is normal use; anything else sets
 * out_failed.
 */
void prof_gpu_sampler_output_error(struct prof_gpu_sampler *s);

/*
 * Warn about the malformed input lines the push devices skipped, naming
 * input (the --tegrastats file; NULL: the backend). Returns 1 when some
 * were skipped in a run without a command, else 0 (with a command, its
 * status is what counts).
 */
int prof_gpu_sampler_bad_input(const struct prof_gpu_sampler *s, const char *input,
			       int command);

/*
 * Close o (NULL: nothing), one of the outputs, written to path (NULL or
 * "-": standard output). After a run that a signal stopped (stopped_by),
 * the file gets the metadata line "# stopped_by=SIGTERM" on top: its
 * timeline was cut short. Errors are noted as output errors.
 */
void prof_gpu_sampler_close(struct prof_gpu_sampler *s, struct prof_output *o, const char *path);

/* Free what the sampler allocated (not the set, not the outputs). */
void prof_gpu_sampler_release(struct prof_gpu_sampler *s);


#endif
