/*
 * profrec: a sampling CPU profiler on perf_event_open(2).
 *
 * Runs a command (or attaches to processes, or watches every CPU), samples
 * call stacks, symbolizes them while recording and streams the sample TSV
 * (prof-formats.5, schema profrec-samples) or, with --folded, writes the
 * aggregated folded stacks at the end.
 *
 * Glue: options, the command, the summary. The engine is lib/record/
 * (recorder.h first).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/options.h"
#include "base/proc.h"
#include "base/units.h"
#include "base/xalloc.h"
#include "core/meta.h"
#include "formats/folded.h"
#include "formats/pprof.h"
#include "formats/speedscope.h"
#include "io/output.h"
#include "python/record.h"
#include "record/recorder.h"
#include "record/rotate.h"
#include "record/runtimes.h"

#define SYNOPSIS \
	"profrec [-agqv] [-c period] [-d seconds] [-e event[,event...]] [-F hz] [-m pages]\n" \
	"               [-o file] [-p pid[,pid...]] [-t tid] [--call-graph fp|dwarf[,bytes]|none]\n" \
	"               [--folded] [--no-header] [--off-cpu] [--lines] [--no-inline] [--no-inherit]\n" \
	"               [--no-runtime-perf] [--processes file] [--python [--idle] [--native]]\n" \
	"               [--debuginfod] [--no-demangle] [--rotate interval [--keep n] [--max-bytes size]]\n" \
	"               [--] [command [argument ...]]"

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
	"  -o, --output=FILE        write to FILE (default stdout; .gz .zst .lz4 compress;\n"
	"                           .pb.gz: pprof, .speedscope.json: speedscope, .folded: --folded)\n"
	"  -p, --pid=PID[,PID...]   attach to running processes (all their threads)\n"
	"  -q, --quiet              no summary on stderr\n"
	"  -t, --tid=TID            attach to one thread\n"
	"  -v, --verbose            more detail on stderr\n"
	"      --call-graph=MODE    fp (default), dwarf[,STACK_BYTES] (default 8192), none\n"
	"      --debuginfod         let the symbolizer ask debuginfod servers (network)\n"
	"      --folded             write aggregated folded stacks (root = command name)\n"
	"      --idle               --python: also threads that are not running\n"
	"      --keep=N             --rotate: keep the newest N interval files of DIR\n"
	"      --lines              add file:line to frame names\n"
	"      --max-bytes=SIZE     --rotate: delete the oldest files beyond SIZE in all\n"
	"      --native             --python: native stacks, Python frames in the interpreter's\n"
	"      --no-demangle        keep C++ and Rust names mangled, as the binary has them\n"
	"      --no-header          with --folded: no leading \"# key=value\" metadata line\n"
	"      --no-inherit         do not follow children and new threads\n"
	"      --no-inline          no inlined frames\n"
	"      --no-runtime-perf    leave Python, Node and Java perf support off\n"
	"      --off-cpu            record where threads block (event offcpu-time, ns)\n"
	"      --processes=FILE     log processes started and images exec'd (TSV)\n"
	"      --python             sample the Python stacks of a CPython 3.9-3.13 (-F: 99)\n"
	"      --rotate=INTERVAL    -o DIR: a file per INTERVAL (whole seconds, on UTC\n"
	"                           multiples) DIR/profrec-YYYYMMDDTHHMMSSZ.tsv until stopped\n"
	"  -h, --help               this help\n"
	"\n"
	"Exit status: the command's status (126 cannot execute, 127 not found,\n"
	"128+N killed by signal N); without a command 0; 1 on failure; 2 usage.\n";

enum { OPT_CALL_GRAPH = 0x100, OPT_DEBUGINFOD, OPT_FOLDED, OPT_KEEP, OPT_LINES, OPT_MAX_BYTES,
       OPT_NO_DEMANGLE, OPT_NO_HEADER, OPT_NO_INHERIT, OPT_NO_INLINE, OPT_PROCESSES, OPT_ROTATE };

/* set by getopt_long itself (longopts) */
static int use_python, use_native, use_idle, use_offcpu, no_runtime_perf;

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
	{ "idle", no_argument, &use_idle, 1 },
	{ "keep", required_argument, NULL, OPT_KEEP },
	{ "lines", no_argument, NULL, OPT_LINES },
	{ "max-bytes", required_argument, NULL, OPT_MAX_BYTES },
	{ "mmap-pages", required_argument, NULL, 'm' },
	{ "native", no_argument, &use_native, 1 },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "no-header", no_argument, NULL, OPT_NO_HEADER },
	{ "no-inherit", no_argument, NULL, OPT_NO_INHERIT },
	{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
	{ "no-runtime-perf", no_argument, &no_runtime_perf, 1 },
	{ "off-cpu", no_argument, &use_offcpu, 1 },
	{ "output", required_argument, NULL, 'o' },
	{ "pid", required_argument, NULL, 'p' },
	{ "processes", required_argument, NULL, OPT_PROCESSES },
	{ "python", no_argument, &use_python, 1 },
	{ "quiet", no_argument, NULL, 'q' },
	{ "rotate", required_argument, NULL, OPT_ROTATE },
	{ "tid", required_argument, NULL, 't' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "list-options", no_argument, NULL, PROF_OPT_LIST_OPTIONS },
	{ NULL, 0, NULL, 0 },
};

struct args {
	struct prof_recorder_options opt;
	struct prof_record_target target;
	struct prof_child child;
	struct prof_rotate_options rotate;
	struct prof_python_recording python;
	int *pids;
	double duration;
	const char *output;
	int quiet, no_header;
};

static volatile sig_atomic_t stop_signal, stop_count;

static void on_stop(int sig)
{
	stop_signal = sig;
	stop_count = stop_count + 1;
}

/* Only to interrupt poll() when the command exits (SIG_IGN would reap it). */
static void on_chld(int sig)
{
	(void)sig;
}

static void parse_events(struct prof_recorder_options *o, const char *arg)
{
	const char *bad;
	int len, rc = prof_recorder_add_events(o, arg, &bad, &len);

	if (rc == -1)
		prof_usage_error(SYNOPSIS,
			"unknown event '%.*s' (known: cpu-clock, task-clock, page-faults, context-switches, cycles, instructions, cache-misses, branch-misses)",
			len, bad);
	if (rc == -2)
		prof_usage_error(SYNOPSIS, "too many events");
}

static void parse_pids(struct args *a, const char *arg, const char *opt)
{
	char *bad;

	if (prof_parse_id_list(arg, INT_MAX, &a->pids, &a->target.npids, &bad) != 0)
		prof_usage_error(SYNOPSIS, *bad ? "%s: invalid process id '%s'" : "%s: no process id%s",
				 opt, bad);
	a->target.pids = a->pids;
}

static void parse_call_graph(struct prof_recorder_options *o, const char *arg)
{
	int rc = prof_call_graph_parse(arg, &o->call_graph, &o->stack_bytes);

	if (rc == -2)
		prof_usage_error(SYNOPSIS, "--call-graph: stack size '%s' not in 8..65528", arg + 6);
	if (rc != 0)
		prof_usage_error(SYNOPSIS, "--call-graph: unknown mode '%s' (fp, dwarf, none)", arg);
}

/* Options into a; returns the index of the command's first word. */
static int parse_options(struct args *a, int argc, char **argv)
{
	struct prof_recorder_options *o = &a->opt;
	int c, m_set = 0;
	const char *why;
	uint64_t v;

	while ((c = prof_getopt_long(argc, argv, "+ac:d:e:F:ghm:o:p:qt:v", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			a->target.all_cpus = 1;
			break;
		case 'c':
			if (prof_parse_u64(optarg, &v) != 0 || v == 0)
				prof_usage_error(SYNOPSIS, "-c: invalid period '%s'", optarg);
			o->period = v;
			break;
		case 'd':
			if (prof_parse_duration(optarg, 1, &a->duration) != 0 || a->duration <= 0)
				prof_usage_error(SYNOPSIS, "-d: invalid duration '%s'", optarg);
			break;
		case 'e':
			parse_events(o, optarg);
			break;
		case 'F':
			if (prof_parse_u64(optarg, &v) != 0 || v == 0 || v > 1000000)
				prof_usage_error(SYNOPSIS, "-F: invalid frequency '%s'", optarg);
			o->freq = v;
			a->python.freq = (unsigned)v;
			break;
		case 'g':
			o->call_graph = PROF_CALL_GRAPH_FP;
			break;
		case 'h':
			prof_help(help_text);
		case 'm':
			if (prof_parse_u64(optarg, &v) != 0 || v == 0 || v > (1u << 20))
				prof_usage_error(SYNOPSIS, "-m: invalid page count '%s'", optarg);
			o->mmap_pages = (size_t)v;
			m_set = 1;
			break;
		case 'o':
			a->output = optarg;
			break;
		case 'p':
			parse_pids(a, optarg, "-p");
			break;
		case 'q':
			a->quiet = 1;
			prof_verbosity = 0;
			break;
		case 't':
			parse_pids(a, optarg, "-t");
			if (a->target.npids != 1)
				prof_usage_error(SYNOPSIS, "-t takes one thread id");
			a->target.tid_only = 1;
			break;
		case 'v':
			prof_verbosity++;
			break;
		case OPT_CALL_GRAPH:
			parse_call_graph(o, optarg);
			break;
		case OPT_DEBUGINFOD:
			o->debuginfod = 1;
			break;
		case OPT_FOLDED:
			o->folded = 1;
			break;
		case OPT_LINES:
			o->lines = 1;
			break;
		case OPT_NO_DEMANGLE:
			o->no_demangle = 1;
			break;
		case OPT_NO_HEADER:
			a->no_header = 1;
			break;
		case OPT_NO_INHERIT:
			o->inherit = 0;
			break;
		case OPT_NO_INLINE:
			o->no_inline = 1;
			break;
		case OPT_PROCESSES:
			o->processes = optarg;
			break;
		case 0:		/* a flag: use_python ... (longopts) */
			break;
		case OPT_KEEP:
		case OPT_MAX_BYTES:
		case OPT_ROTATE:
			why = prof_rotate_option(&a->rotate, c == OPT_KEEP ? "keep" :
						 c == OPT_ROTATE ? "rotate" : "max-bytes", optarg);
			if (why)
				prof_usage_error(SYNOPSIS, "%s", why);
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
	if (use_offcpu) {
		o->offcpu_event = o->nevents;
		o->events[o->nevents++] = &prof_event_offcpu;
	} else if (!o->nevents && !use_python) {
		o->events[o->nevents++] = prof_event_find("cpu-clock");
	}
	if (o->call_graph == PROF_CALL_GRAPH_DWARF && !m_set)
		o->mmap_pages = 1024;
	return optind;
}

/* The operands and the combinations of options that make no sense. */
static void validate(struct args *a, int argc, char **argv)
{
	const char *why = prof_rotate_check(&a->rotate, a->output, a->no_header);

	if (why)
		prof_usage_error(SYNOPSIS, "%s", why);
	if ((argc > 0) + (a->target.npids > 0) + a->target.all_cpus > 1)
		prof_usage_error(SYNOPSIS, "give one of a command, -p, -t or -a");
	if (argc == 0 && !a->target.npids && !a->target.all_cpus)
		prof_usage_error(SYNOPSIS, "nothing to profile: give a command, -p, -t or -a");
	/* The name says the format, as for proffold: NAME.folded is folded. */
	a->python.folded = (a->opt.folded |= !a->rotate.interval_s && prof_folded_name(a->output));
	if (a->no_header && !a->opt.folded)
		prof_usage_error(SYNOPSIS, "--no-header needs --folded");
	if (use_python && (a->target.all_cpus || a->target.tid_only || a->target.npids > 1 ||
			      a->opt.period || a->opt.nevents || a->rotate.interval_s || a->opt.processes))
		prof_usage_error(SYNOPSIS, "--python takes a command or one -p PID, and none of -a, -t, -c, -e, --off-cpu, --processes, --rotate");
	if ((use_native || use_idle) && !use_python)
		prof_usage_error(SYNOPSIS, "--%s needs --python", use_native ? "native" : "idle");
	a->python.native = use_native ? &a->opt : NULL;	/* its symbolizer options */
	a->python.idle = use_idle;
	a->python.pid = a->target.npids ? a->pids[0] : 0;
	a->python.duration = a->duration;
	if (a->opt.folded && a->opt.nevents > 1)
		prof_usage_error(SYNOPSIS, "--folded (or -o NAME.folded) takes one event (several events: write the TSV and fold it with proffold)");
	a->target.argv = argc > 0 ? argv : NULL;
	a->opt.ask_jvm = !no_runtime_perf;	/* running JVMs' perf maps at the end (recorder.h) */
	if (argc > 0 && !no_runtime_perf && !use_python)
		a->opt.runtime_perf = prof_runtime_perf_enable();	/* said by the summary */
}

static void setup_process(void)
{
	struct sigaction sa;
	struct rlimit rl;

	/* One descriptor per event per CPU (the command inherits the limit too). */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
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
}

int main(int argc, char **argv)
{
	struct args a;
	struct prof_recorder r;
	struct prof_meta meta = PROF_META_INIT;
	struct prof_output *out;
	int status = PROF_EXIT_FAIL, to_stdout, first;
	const char *converted = NULL;
	char *tsv = NULL;
	int (*convert)(const char *, const char *) = NULL;

	prof_set_progname(argv[0]);
	memset(&a, 0, sizeof(a));
	prof_recorder_options_init(&a.opt);
	first = parse_options(&a, argc, argv);
	validate(&a, argc - first, argv + first);

	/* -o NAME.pb.gz, NAME.speedscope.json: record TSV beside it, then convert it */
	if (!a.rotate.interval_s)
		convert = prof_pprof_name(a.output) ? prof_pprof_convert
			: prof_speedscope_name(a.output) ? prof_speedscope_convert : NULL;
	if (convert && !(a.output = tsv = prof_pprof_temp(converted = a.output)))
		return PROF_EXIT_FAIL;
	setup_process();
	/* No debuginfod behind the symbolizer's back (libdw asks when this is set). */
	if (!a.opt.debuginfod)
		unsetenv("DEBUGINFOD_URLS");
	/* Open the output first: an unwritable file fails before any work. */
	out = a.rotate.interval_s ? NULL : prof_output_open(a.output, PROF_OUT_STREAM,
			       a.output ? prof_compression_from_suffix(a.output) : PROF_COMP_NONE);
	if (!out && !a.rotate.interval_s) {
		free(a.pids);
		return PROF_EXIT_FAIL;
	}
	/*
	 * When the profile goes to our standard output, the command's goes
	 * to the standard error, so "profrec -- app | proffold" never mixes
	 * the two.
	 */
	to_stdout = !a.output || strcmp(a.output, "-") == 0;
	if (a.target.argv && prof_child_spawn_flags(&a.child, a.target.argv, NULL,
						     to_stdout ? PROF_CHILD_STDOUT_TO_STDERR : 0) != 0) {
		prof_output_abort(out);
		free(a.pids);
		return PROF_EXIT_FAIL;
	}
	a.target.child = a.child.pid;
	if (use_python) {	/* Python stacks read from its memory: no perf events */
		status = prof_python_profile(&a.python, a.target.argv ? &a.child : NULL,
					     a.target.argv, out, a.no_header, &stop_signal);
		if (convert && status == 0 && convert(tsv, converted) != 0)
			status = PROF_EXIT_FAIL;
		goto python_done;
	}
	prof_recorder_init(&r, &a.opt, &a.target, out);
	if ((a.rotate.interval_s && prof_recorder_rotate(&r, &a.rotate) != 0) ||
	    prof_recorder_open(&r, a.quiet) != 0) {
		if (a.target.child > 0) {
			kill(a.target.child, SIGKILL);
			while (waitpid(a.target.child, NULL, 0) < 0 && errno == EINTR)
				;
		}
		/* Nothing recorded: an old file at the name stays. */
		prof_output_abort(out);
		goto done;
	}
	/* Metadata and header now, so even an empty run is a valid file. */
	prof_recorder_meta(&r, &meta);
	prof_recorder_begin(&r, &meta);
	if (a.target.argv && (status = prof_child_start(&a.child, a.target.argv[0])) != 0) {
		/* Could not execute: nothing was recorded, the old file stays. */
		prof_output_abort(out);
		goto done;
	}
	status = prof_recorder_complete(&r, a.duration, &(struct prof_recorder_stop){ &stop_signal, &stop_count },
					out, a.output, a.quiet, a.no_header ? NULL : &meta);
	if (convert && prof_recorder_convert(&r, convert, tsv, converted) != 0 && status == 0)
		status = PROF_EXIT_FAIL;
done:
	prof_recorder_release(&r);
python_done:
	if (tsv)
		unlink(tsv);
	free(tsv);
	prof_meta_release(&meta);
	free(a.pids);
	return status;
}
