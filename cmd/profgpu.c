/*
 * profgpu: sample GPUs while a command runs (or until interrupted) and
 * write a TSV timeline, a per-process table and a summary.
 *
 * Glue: options, discovery (lib/gpu/discover.c), then the sampling loop
 * of lib/gpu/sampler.h, and the exit status.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include "base/buf.h"
#include "base/error.h"
#include "base/options.h"
#include "base/proc.h"
#include "base/units.h"
#include "base/xalloc.h"
#include "gpu/gpu.h"
#include "gpu/host.h"
#include "gpu/kernels.h"
#include "gpu/sampler.h"
#include "io/output.h"

#define SYNOPSIS                                                               \
	"profgpu [-lqv] [-b backend[,backend]] [-c count] [-d duration]\n"      \
	"               [-g index[,index]] [-i interval] [-o file] [--alert expr]\n" \
	"               [--fail-on-alert] [--host] [--host-output file] [--no-gpu-ok]\n" \
	"               [--kernels file] [--kernel-stacks file] [--kernel-unwind how]\n" \
	"               [--no-demangle] [--processes file] [--summary] [--tegrastats file]\n" \
	"               [--] [command [arg ...]]"

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
	"      --fail-on-alert    exit 1 if an alert fired and command succeeded,\n"
	"                         or if no GPU was found to judge a GPU alert\n"
	"      --host             sample the host and command's process tree, not\n"
	"                         GPUs: CPU, RSS, threads, faults, I/O, network,\n"
	"                         temperature (schema profgpu-host); alerts rss>2G,\n"
	"                         cpu>90%, host_cpu, swap, threads, temp\n"
	"      --host-output=file  the host timeline too, beside the GPUs'\n"
	"      --no-gpu-ok        --fail-on-alert passes when no GPU is found\n"
	PROF_GPU_KERNELS_HELP
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
	OPT_HOST,
	OPT_HOST_OUTPUT,
	OPT_NO_GPU_OK,
	OPT_PROCESSES,
	OPT_SUMMARY,
	OPT_TEGRASTATS,
	OPT_KERNELS,	/* and 3 more: PROF_GPU_KERNELS_OPT_* count from here */
};

static const struct option long_options[] = {
	{ "alert", required_argument, NULL, OPT_ALERT },
	{ "backend", required_argument, NULL, 'b' },
	{ "count", required_argument, NULL, 'c' },
	{ "duration", required_argument, NULL, 'd' },
	{ "fail-on-alert", no_argument, NULL, OPT_FAIL_ON_ALERT },
	{ "gpu", required_argument, NULL, 'g' },
	{ "help", no_argument, NULL, 'h' },
	{ "host", no_argument, NULL, OPT_HOST },
	{ "host-output", required_argument, NULL, OPT_HOST_OUTPUT },
	{ "interval", required_argument, NULL, 'i' },
	PROF_GPU_KERNELS_OPTIONS(OPT_KERNELS),
	{ "list", no_argument, NULL, 'l' },
	{ "list-options", no_argument, NULL, PROF_OPT_LIST_OPTIONS },
	{ "no-gpu-ok", no_argument, NULL, OPT_NO_GPU_OK },
	{ "output", required_argument, NULL, 'o' },
	{ "processes", required_argument, NULL, OPT_PROCESSES },
	{ "quiet", no_argument, NULL, 'q' },
	{ "summary", no_argument, NULL, OPT_SUMMARY },
	{ "tegrastats", required_argument, NULL, OPT_TEGRASTATS },
	{ "verbose", no_argument, NULL, 'v' },
	{ NULL, 0, NULL, 0 },
};

struct profgpu {
	/* options */
	struct prof_gpu_discovery find;	/* backends, --tegrastats, interval */
	uint64_t count;			/* 0: unlimited */
	uint64_t duration_ns;		/* 0: unlimited */
	const char *gpu_list;
	const char *output;
	const char *procs_path;
	const char *host_path;		/* --host-output */
	int host_only;			/* --host */
	int summary_only;
	int fail_on_alert;
	int no_gpu_ok;
	int list;
	struct prof_gpu_alert *alerts;
	size_t nalerts, alerts_cap;

	struct prof_gpu_set set;
	struct prof_gpu_sampler smp;
	struct prof_output *out;	/* timeline or summary */
	struct prof_output *procs_out;
	struct prof_output *host_out;	/* --host-output */
	struct prof_host host;
	struct prof_sigwatch signals;
	struct prof_gpu_kernels kern;	/* --kernels, --kernel-stacks (gpu/kernels.h) */
};

#define usage_error(...) prof_usage_error(SYNOPSIS, __VA_ARGS__)

/* Find the GPUs; status gets what each backend found, or why not. */
static void discover(struct profgpu *pg, struct prof_buf *status, int spawn)
{
	pg->find.spawn = spawn;
	if (prof_gpu_discover(&pg->set, &pg->find, status) < 0)
		prof_die_errno("%s", pg->find.tegrastats_input);
}

/*
 * Check -g: syntax always; with devices found (nonzero ndevs), that each
 * index exists. With want, set want[i] for each GPU named.
 */
static void check_gpu_list(const struct profgpu *pg, unsigned char *want)
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
		if (want && n < pg->set.ndevs)
			want[n] = 1;
	}
	free(copy);
}

/* Sample the GPUs named by -g (all without), in the order of the set. */
static void select_gpus(struct profgpu *pg)
{
	unsigned char *want = xcalloc(pg->set.ndevs + 1, 1);

	if (pg->gpu_list)
		check_gpu_list(pg, want);
	for (size_t i = 0; i < pg->set.ndevs; i++)
		if (!pg->gpu_list || want[i])
			prof_gpu_sampler_add(&pg->smp, &pg->set.devs[i]);
	free(want);
}

static void add_alert(struct profgpu *pg, const char *text)
{
	char err[256];

	PROF_GROW(pg->alerts, pg->nalerts + 1, pg->alerts_cap);
	if (prof_gpu_alert_parse(text, &pg->alerts[pg->nalerts], err, sizeof(err)) < 0)
		prof_usage_error(SYNOPSIS, "--alert '%s': %s", text, err);
	pg->nalerts++;
}

/* Parse the options into pg; returns optind. */
static int parse_options(struct profgpu *pg, int argc, char **argv)
{
	char bad[256];
	double secs;
	int c;

	while ((c = prof_getopt_long(argc, argv, "+b:c:d:g:hi:lo:qv", long_options, NULL)) != -1) {
		switch (c) {
		case 'b':
			switch (prof_gpu_backends_parse(optarg, &pg->find.backends, bad, sizeof(bad))) {
			case -1:
				usage_error("-b: unknown backend '%s' (nvml, amdgpu, tegrastats)", bad);
			case -2:
				usage_error("-b: no backend in '%s'", optarg);
			}
			break;
		case 'c':
			if (prof_parse_u64(optarg, &pg->count) < 0 || pg->count == 0)
				usage_error("-c: bad count '%s'", optarg);
			break;
		case 'd':
			if (prof_parse_duration(optarg, 1.0, &secs) < 0 || secs <= 0)
				usage_error("-d: bad duration '%s'", optarg);
			pg->duration_ns = (uint64_t)(secs * 1e9 + 0.5);
			break;
		case 'g':
			pg->gpu_list = optarg;
			break;
		case 'h':
			prof_help(help_text);
		case 'i':
			if (prof_parse_duration(optarg, 1e-3, &secs) < 0 || secs < 1e-3 ||
			    secs > 86400)
				usage_error("-i: bad interval '%s' (1ms to 24h)", optarg);
			pg->find.interval_ns = (uint64_t)(secs * 1e9 + 0.5);
			break;
		case 'l':
			pg->list = 1;
			break;
		case 'o':
			pg->output = optarg;
			break;
		case 'q':
			prof_verbosity = 0;
			break;
		case 'v':
			prof_verbosity++;
			break;
		case OPT_ALERT:
			add_alert(pg, optarg);
			break;
		case OPT_FAIL_ON_ALERT:
			pg->fail_on_alert = 1;
			break;
		case OPT_NO_GPU_OK:
			pg->no_gpu_ok = 1;
			break;
		case OPT_PROCESSES:
			pg->procs_path = optarg;
			break;
		case OPT_SUMMARY:
			pg->summary_only = 1;
			break;
		case OPT_HOST:
			pg->host_only = 1;
			break;
		case OPT_HOST_OUTPUT:
			pg->host_path = optarg;
			break;
		case OPT_TEGRASTATS:
			pg->find.tegrastats_input = optarg;
			break;
		case PROF_OPT_LIST_OPTIONS:
			prof_list_option_values(long_options, (const struct prof_option_values[]){
				{ "backend", "nvml,amdgpu,tegrastats" }, { "kernel-unwind", "dwarf,fp" },
				{ NULL, NULL } });
		default:
			if (c < OPT_KERNELS || prof_gpu_kernels_option(&pg->kern, c - OPT_KERNELS, optarg) < 0)
				prof_usage_error(SYNOPSIS, NULL);
		}
	}
	return optind;
}

/* Open the timeline (or summary) and the processes output; 0 or -1 (reported). */
static int open_outputs(struct profgpu *pg)
{
	pg->out = prof_output_open(pg->output, PROF_OUT_STREAM,
				   prof_compression_from_suffix(pg->output ? pg->output : ""));
	if (!pg->out)
		return -1;
	if (pg->procs_path) {
		pg->procs_out = prof_output_open(pg->procs_path, PROF_OUT_STREAM,
						 prof_compression_from_suffix(pg->procs_path));
		if (!pg->procs_out) {
			prof_output_abort(pg->out);
			return -1;
		}
	}
	if (pg->host_path) {
		pg->host_out = prof_output_open(pg->host_path, PROF_OUT_STREAM,
						prof_compression_from_suffix(pg->host_path));
		if (!pg->host_out) {
			prof_output_abort(pg->out);
			if (pg->procs_out)
				prof_output_abort(pg->procs_out);
			return -1;
		}
	}
	return 0;
}

/* Say what was found, or that nothing was. */
static void report_devices(const struct profgpu *pg, const struct prof_buf *why, int argc)
{
	if (pg->host_only)
		return;
	if (pg->smp.nact == 0)
		prof_warn("no GPU found (%s); %s", why->data,
			  argc ? "running the command without GPU samples" : "nothing to sample");
	else
		prof_info(2, "%s", why->data);
	for (size_t i = 0; pg->procs_out && i < pg->smp.nact; i++) {
		const struct prof_gpu_dev *d = pg->smp.act[i].dev;

		if (!d->backend->processes)
			prof_info(1, "gpu %u (%s): no per-process information from %s", d->index,
				  d->name, d->backend->name);
	}
}

/*
 * Run the command (argv, argc > 0) or sample without one. Returns the
 * command's status; *rval becomes 1 when there was nothing to do.
 */
static int run(struct profgpu *pg, int argc, char **argv, int *rval)
{
	struct prof_child cmd;
	int status;
	/* A table on stdout: the command's stdout goes to stderr. */
	int to_stdout = !pg->output || strcmp(pg->output, "-") == 0 ||
			(pg->procs_path && strcmp(pg->procs_path, "-") == 0) ||
			prof_gpu_kernels_stdout(&pg->kern);

	if (!argc) {
		if (pg->smp.nact || pg->smp.cfg.host)
			prof_gpu_sampler_run(&pg->smp, NULL, NULL);
		else
			*rval = PROF_EXIT_FAIL;
		return 0;
	}
	/* Orphaned grandchildren stay in the tree --processes follows. */
	if (pg->procs_out)
		prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	/* with --kernels, the environment that has CUDA load our tracer */
	if ((pg->kern.on && prof_gpu_kernels_setup(&pg->kern) < 0) ||
	    prof_child_spawn_flags(&cmd, argv, pg->kern.envp, to_stdout ? PROF_CHILD_STDOUT_TO_STDERR : 0) < 0)
		return PROF_EXIT_FAIL;
	status = prof_gpu_sampler_run(&pg->smp, &cmd, argv[0]);
	if (pg->kern.on && prof_gpu_kernels_finish(&pg->kern, pg->smp.t0) < 0)
		*rval = PROF_EXIT_FAIL;
	return status;
}

/* An alert only a GPU can judge while none is sampled, or NULL. */
static const struct prof_gpu_alert *gpu_alerts_unjudged(const struct profgpu *pg)
{
	if (pg->host_only || pg->smp.nact)
		return NULL;
	for (size_t i = 0; i < pg->nalerts; i++)
		if (prof_gpu_alert_needs_gpu(&pg->alerts[i], pg->host_path != NULL))
			return &pg->alerts[i];
	return NULL;
}

int main(int argc, char **argv)
{
	struct profgpu pg;
	struct prof_buf why = PROF_BUF_INIT;
	const char *env;
	int status, rval = PROF_EXIT_OK;

	prof_set_progname(argv[0]);
	memset(&pg, 0, sizeof(pg));
	pg.find.backends = PROF_GPU_BE_ALL;
	pg.find.interval_ns = 100000000ull;
	optind = parse_options(&pg, argc, argv);
	argc -= optind;
	argv += optind;
	if (pg.gpu_list)
		check_gpu_list(&pg, NULL);	/* syntax only; ranges after discovery */
	if (pg.list) {
		if (argc)
			usage_error("-l takes no command%s", "");
		return prof_gpu_list(&pg.find);
	}
	if (pg.host_only && (pg.summary_only || pg.procs_path || pg.find.tegrastats_input || pg.gpu_list))
		usage_error("--host samples no GPU: not with --%s", pg.summary_only ? "summary" :
			    pg.procs_path ? "processes" : pg.gpu_list ? "gpu" : "tegrastats");
	if (pg.procs_path && (!pg.output || strcmp(pg.output, "-") == 0) &&
	    strcmp(pg.procs_path, "-") == 0)
		usage_error("--processes %s: the timeline already goes to stdout (use -o)",
			    pg.procs_path);
	if (pg.kern.on && !argc)
		usage_error("--kernels and --kernel-stacks trace a command: give one%s", "");
	env = getenv("PROFGPU_TEST_VIRTUAL_TIME");
	if (env && *env && strcmp(env, "0") != 0 && argc)
		usage_error("PROFGPU_TEST_VIRTUAL_TIME needs no command%s", "");

	/* Before any GPU library is loaded: its threads inherit the block (proc.h). */
	prof_sigwatch_start(&pg.signals, (const int[]){ SIGCHLD, SIGINT, SIGTERM, SIGHUP,
							SIGPIPE, 0 });
	if (!pg.host_only)
		discover(&pg, &why, 1);
	prof_host_init(&pg.host, 0);
	if (pg.gpu_list)
		check_gpu_list(&pg, NULL);	/* the ranges, before any output exists */
	if (open_outputs(&pg) < 0) {
		prof_gpu_set_release(&pg.set);
		return PROF_EXIT_FAIL;
	}
	prof_gpu_sampler_init(&pg.smp, &pg.set, &(const struct prof_gpu_sampler_config){
		.interval_ns = pg.find.interval_ns, .count = pg.count,
		.duration_ns = pg.duration_ns, .alerts = pg.alerts, .nalerts = pg.nalerts,
		.out = pg.out, .procs_out = pg.procs_out, .summary_only = pg.summary_only,
		.host = pg.host_only || pg.host_path ? &pg.host : NULL,
		.host_out = pg.host_only ? pg.out : pg.host_out, .host_only = pg.host_only,
		.signals = &pg.signals, .virtual_time = env && *env && strcmp(env, "0") != 0 });
	select_gpus(&pg);
	prof_gpu_sampler_write_headers(&pg.smp);
	report_devices(&pg, &why, argc);
	prof_buf_release(&why);

	status = run(&pg, argc, argv, &rval);
	rval |= prof_gpu_sampler_bad_input(&pg.smp, pg.find.tegrastats_input, argc > 0);
	prof_gpu_sampler_write_summary(&pg.smp);
	if (pg.smp.cfg.host)
		prof_host_report(&pg.host);
	prof_gpu_sampler_close(&pg.smp, pg.out, pg.output);
	prof_gpu_sampler_close(&pg.smp, pg.host_out, pg.host_path);
	prof_gpu_sampler_close(&pg.smp, pg.procs_out, pg.procs_path);
	if (pg.smp.out_failed || (pg.smp.alerts_fired && pg.fail_on_alert))
		rval = PROF_EXIT_FAIL;
	if (pg.fail_on_alert && !pg.no_gpu_ok && gpu_alerts_unjudged(&pg)) {
		prof_warn("--fail-on-alert: no GPU found to judge %s (--no-gpu-ok lets this pass)",
			  gpu_alerts_unjudged(&pg)->text);
		rval = PROF_EXIT_FAIL;
	}
	prof_sigwatch_close(&pg.signals);
	prof_gpu_sampler_release(&pg.smp);
	prof_host_release(&pg.host);
	prof_gpu_set_release(&pg.set);
	free(pg.alerts);
	if (argc)
		/* The command's status wins; our failures only turn a 0 into 1. */
		return status ? status : rval;
	return rval;
}
