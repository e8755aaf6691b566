/*
 * profheap: run a command with the heap profiling shim preloaded, then turn
 * its record files into folded stacks (bytes allocated, allocations,
 * leaked bytes, bytes live at the peak, temporary allocations) and a leak
 * report. See profheap(1). The engine is lib/heap: launch.h (the shim's
 * environment), report.h (record files -> stack table -> reports),
 * suppressions.h; the record format is lib/heap/format.h.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/options.h"
#include "base/proc.h"
#include "base/units.h"
#include "base/xalloc.h"
#include "core/stack.h"
#include "heap/launch.h"
#include "heap/report.h"
#include "heap/roots.h"
#include "heap/suppressions.h"
#include "io/output.h"
#include "symbolize/binary_info.h"

#define SYNOPSIS "profheap [-fkqv] [-i interval] [-o dir] [-r report] [--output-format fmt] [-S file] " \
	"[-s bytes] [-u fp|dwarf] [--no-demangle] [--no-follow-fork] [--python] command [arg ...]"

static const char help_text[] =
	"usage: " SYNOPSIS "\n"
	"Run a command under the heap profiler and report where its memory goes.\n"
	"\n"
	"  -f, --fail-on-leak     exit 1 when the command exited 0 but leaked memory\n"
	"                         (every allocation counted: not with --sample)\n"
	"  -i, --interval TIME    timeline interval (default 10ms)\n"
	"  -k, --keep             keep the raw record files (PID.heap, PID.maps)\n"
	"      --no-demangle      keep C++ and Rust names mangled, as the binary has them\n"
	"      --no-follow-fork   profile only the command's own process, no children\n"
	"  -o, --output DIR       output directory (default profheap.PID)\n"
	"      --python           a CPython's Python frames in its stacks (3.9 to 3.13),\n"
	"                         with PYTHONMALLOC=malloc unless PYTHONMALLOC is set\n"
	"  -q, --quiet            no leak report or summary on stderr\n"
	"  -r, --report WHAT      write folded stacks of WHAT to stdout:\n"
	"                         alloc, count, leak, peak or temp\n"
	"      --output-format FMT  -r's format: folded (default) or pprof (gzip'd)\n"
	"  -s, --sample BYTES     Poisson sampling, one sample per BYTES allocated\n"
	"                         on average (512K is a good start): estimates\n"
	"  -S, --suppressions FILE  LSAN-format leak suppressions (repeatable)\n"
	"  -u, --unwind fp|dwarf  stack walking: frame pointers (default) or libunwind\n"
	"  -v, --verbose          more detail on stderr\n"
	"  -h, --help             this help\n"
	"\n"
	PROF_MAX_LINE_HELP
	"Writes PID.{alloc,count,leak,peak,temp}.folded and PID.timeline.tsv per\n"
	"process into DIR. Exit status: the command's (126 cannot execute, 127 not\n"
	"found, 128+N killed by signal N); 1 on failure or with --fail-on-leak;\n"
	"2 on usage errors.\n";

struct opts {
	int report;		/* enum prof_heap_column, or -1: none */
	int pprof;		/* --output-format pprof */
	int fail_on_leak, keep, dwarf, follow_fork, no_demangle, python;
	double interval_s;
	uint64_t sample;
	const char *dir;	/* -o, or NULL: a private directory */
	struct prof_heap_supp supp;
	unsigned long bad_supp;	/* malformed suppression lines */
};

/* The output directory. */
struct outdir {
	char *path;		/* absolute (realpath), malloc'ed */
	const char *asked;	/* as named or made, before realpath */
	int temp;		/* private: removed at the end unless kept */
	int created;		/* made by this run */
	char buf[PATH_MAX];
};

/* Parse the options; returns optind. */
static int parse_options(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "fail-on-leak", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "interval", required_argument, NULL, 'i' },
		{ "keep", no_argument, NULL, 'k' },
		{ "list-options", no_argument, NULL, PROF_OPT_LIST_OPTIONS },
		{ "no-demangle", no_argument, NULL, 'M' },
		{ "no-follow-fork", no_argument, NULL, 'F' },
		{ "output", required_argument, NULL, 'o' },
		{ "output-format", required_argument, NULL, 'P' },
		{ "python", no_argument, NULL, 'Y' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "report", required_argument, NULL, 'r' },
		{ "sample", required_argument, NULL, 's' },
		{ "suppressions", required_argument, NULL, 'S' },
		{ "unwind", required_argument, NULL, 'u' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = prof_getopt_long(argc, argv, "+fhi:ko:qr:s:S:u:v", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			o->fail_on_leak = 1;
			break;
		case 'F':
			o->follow_fork = 0;
			break;
		case 'h':
			prof_help(help_text);
		case 'M':
			o->no_demangle = 1;
			break;
		case 'i':
			if (prof_parse_duration(optarg, 1e-3, &o->interval_s) < 0 || o->interval_s < 1e-4 ||
			    o->interval_s > 3600)
				prof_usage_error(SYNOPSIS, "bad interval '%s' (from 100us to 1h; a bare number is ms)",
						 optarg);
			break;
		case 'k':
			o->keep = 1;
			break;
		case 'o':
			o->dir = optarg;
			break;
		case 'P':
			if (strcmp(optarg, "pprof") && strcmp(optarg, "folded"))
				prof_usage_error(SYNOPSIS, "bad output format '%s' (folded or pprof)", optarg);
			o->pprof = !strcmp(optarg, "pprof");
			break;
		case 'Y':
			o->python = 1;
			break;
		case 'q':
			prof_verbosity = 0;
			break;
		case 'r':
			o->report = prof_heap_report_parse(optarg);
			if (o->report < 0)
				prof_usage_error(SYNOPSIS, "bad report '%s' (alloc, count, leak, peak or temp)",
						 optarg);
			break;
		case 's':
			if (prof_parse_size(optarg, &o->sample) < 0 || o->sample == 0)
				prof_usage_error(SYNOPSIS, "bad sampling interval '%s' (--sample takes a size "
						 "in bytes, e.g. --sample 512K)", optarg);
			break;
		case 'S':
			o->bad_supp += prof_heap_supp_load(&o->supp, optarg);
			break;
		case 'u':
			if (!strcmp(optarg, "dwarf"))
				o->dwarf = 1;
			else if (!strcmp(optarg, "fp"))
				o->dwarf = 0;
			else
				prof_usage_error(SYNOPSIS, "bad unwinder '%s' (fp or dwarf)", optarg);
			break;
		case 'v':
			prof_verbosity++;
			break;
		case PROF_OPT_LIST_OPTIONS:
			prof_list_option_values(longopts, (const struct prof_option_values[]){
				{ "report", "alloc,count,leak,peak,temp" }, { "unwind", "fp,dwarf" },
				{ "output-format", "folded,pprof" },
				{ NULL, NULL } });
		default:
			prof_usage_error(SYNOPSIS, NULL);
		}
	}
	if (optind >= argc)
		prof_usage_error(SYNOPSIS, "no command given");
	if (o->pprof && o->report < 0)
		prof_usage_error(SYNOPSIS, "--output-format pprof needs -r report");
	/* A gate that cannot see every leak must not pass: sampling misses small ones. */
	if (o->fail_on_leak && o->sample)
		prof_usage_error(SYNOPSIS, "--fail-on-leak needs every allocation counted: "
				 "with --sample a leak can go unsampled");
	return optind;
}

/*
 * Make (or check) the output directory. Without -o it is private, in
 * $TMPDIR, removed at the end; with -k it is kept as ./profheap.PID, so
 * it is made in the current directory. Returns 0, or -1 after reporting.
 */
static int outdir_open(struct outdir *d, const struct opts *o)
{
	struct stat st;

	d->asked = o->dir;
	if (!o->dir) {
		const char *tmp = o->keep ? "." : getenv("TMPDIR");

		if (!tmp || !*tmp)
			tmp = "/tmp";
		if ((size_t)snprintf(d->buf, sizeof(d->buf), "%s/profheap.XXXXXX", tmp) >= sizeof(d->buf)) {
			prof_warn("TMPDIR '%s' is too long", tmp);
			return -1;
		}
		if (!mkdtemp(d->buf)) {
			prof_warn_errno("cannot create a directory in '%s'", tmp);
			return -1;
		}
		d->asked = d->buf;
		d->created = d->temp = 1;
	} else if (mkdir(o->dir, 0777) == 0) {
		d->created = 1;
	} else if (errno != EEXIST) {
		prof_warn_errno("cannot create output directory '%s'", o->dir);
		return -1;
	}
	if (stat(d->asked, &st) == 0 && !S_ISDIR(st.st_mode)) {
		prof_warn("output directory '%s' is not a directory", d->asked);
		return -1;
	}
	if (access(d->asked, W_OK | X_OK) < 0) {
		prof_warn_errno("output directory '%s' is not writable", d->asked);
		return -1;
	}
	d->path = realpath(d->asked, NULL);
	if (!d->path) {
		prof_warn_errno("%s", d->asked);
		return -1;
	}
	return 0;
}

/* A private directory kept with -k: named after the command's pid, as its files are. */
static int outdir_keep(struct outdir *d, pid_t pid)
{
	snprintf(d->buf, sizeof(d->buf), "profheap.%d", (int)pid);
	d->temp = 0;
	if (rename(d->path, d->buf) < 0) {
		prof_warn_errno("cannot rename '%s' to '%s'", d->path, d->buf);
		return 0;	/* kept where it is */
	}
	free(d->path);
	d->path = realpath(d->buf, NULL);
	if (!d->path) {
		prof_warn_errno("%s", d->buf);
		return -1;
	}
	return 0;
}

static volatile sig_atomic_t child_pid;

static void forward_signal(int sig)
{
	if (child_pid > 0)
		kill((pid_t)child_pid, sig);
}

/*
 * Run argv with env, its signals handled as env(1)'s: ^C and ^\ go to the
 * command only, SIGTERM and SIGHUP are passed on. Returns its exit status;
 * *started says whether it ran at all.
 */
static int run_command(char **argv, char **env, int report_on_stdout, pid_t *pid, int *started)
{
	struct prof_child child;
	struct sigaction sa;
	int status;

	/* With the report on our standard output, the command's goes to the standard error. */
	if (prof_child_spawn_flags(&child, argv, env, report_on_stdout ? PROF_CHILD_STDOUT_TO_STDERR : 0) < 0)
		return PROF_EXIT_FAIL;
	child_pid = child.pid;
	*pid = child.pid;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	sa.sa_handler = forward_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	status = prof_child_start(&child, argv[0]);
	if (status)
		return status;	/* nothing ran */
	*started = 1;
	status = prof_child_wait(child.pid, NULL);
	child_pid = 0;
	/* The command is gone: ^C may interrupt the post-processing again. */
	sa.sa_handler = SIG_DFL;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	return status;
}

/*
 * Everything after the command: the folded files, the leak reports, and
 * with -r the report of every process on stdout. Returns 0 or -1.
 */
static int report(const struct opts *o, const struct outdir *d, uint64_t run_id,
		  const struct prof_heap_roots *roots, struct prof_heap_totals *tot)
{
	struct prof_heap_run run = {
		.dir = d->path, .run_id = run_id, .keep = o->keep, .supp = &o->supp,
		.more_in = d->temp && !o->keep ? NULL : d->path, .no_demangle = o->no_demangle,
		.roots = roots,
	};
	struct prof_stacks merged;
	int rc;

	prof_stacks_init(&merged, PROF_HEAP_NCOLUMNS);
	rc = prof_heap_postprocess(&run, &merged, tot);
	if (o->report >= 0 && tot->files) {
		struct prof_output *out = prof_output_open(NULL, PROF_OUT_STREAM,
							   o->pprof ? PROF_COMP_GZIP : PROF_COMP_NONE);

		if (!out || (o->pprof ? prof_heap_write_pprof(&merged, (enum prof_heap_column)o->report, out)
			     : prof_heap_write_folded(&merged, (enum prof_heap_column)o->report, 0, out)) < 0)
			rc = -1;
		if (out && prof_output_close(out) < 0)
			rc = -1;
	}
	prof_stacks_release(&merged);
	return rc;
}

int main(int argc, char **argv)
{
	extern char **environ;
	struct opts o = { .report = -1, .interval_s = 0.01, .follow_fork = 1,
			  .supp = PROF_HEAP_SUPP_INIT };
	struct prof_heap_launch launch = { 0 };
	struct prof_heap_totals tot = { 0 };
	struct outdir d = { 0 };
	struct prof_heap_roots roots = { .rx = -1, .tx = -1 };
	char **env = NULL, *cmd = NULL, *shim = NULL, *failed = NULL;
	int started = 0, status = PROF_EXIT_FAIL, first, closed;
	pid_t pid = 0;

	prof_set_progname(argv[0]);
	first = parse_options(argc, argv, &o);
	if (o.bad_supp)
		goto out;
	prof_heap_supp_add_builtin(&o.supp);
	cmd = prof_path_search(argv[first], NULL);
	if (cmd && prof_binary_is_static_executable(cmd)) {
		prof_warn("%s: statically linked: the heap shim cannot be preloaded into it "
			  "(relink it dynamically)", argv[first]);
		goto out;
	}
	shim = prof_heap_shim_find();
	if (!shim) {
		prof_warn("libprofheap.so not found beside the profheap executable");
		goto out;
	}
	if (outdir_open(&d, &o) < 0)
		goto out;
	launch = (struct prof_heap_launch){
		.shim = shim, .dir = d.path, .run_id = prof_now_ns() ^ ((uint64_t)getpid() << 40),
		.interval_ns = (uint64_t)(o.interval_s * 1e9 + 0.5), .sample = o.sample,
		.dwarf = o.dwarf, .follow_fork = o.follow_fork, .python = o.python,
	};
	if (o.python && !prof_heap_env_has_pythonmalloc(environ))
		prof_info(1, "--python: PYTHONMALLOC=malloc, so that Python's small objects (pymalloc's "
			  "own arenas) are seen; set PYTHONMALLOC to keep another allocator");
	failed = xasprintf("%s/run-%llu.failed", d.path, (unsigned long long)launch.run_id);
	launch.failed = failed;
	if (prof_heap_failed_create(failed) < 0) {
		free(failed);
		failed = NULL;
		goto out;
	}
	/* processes in another mount namespace or root hand theirs over (heap/roots.h) */
	if (prof_heap_roots_open(&roots) == 0)
		launch.roots = roots.env;
	env = prof_heap_env(&launch, environ);
	status = run_command(argv + first, env, o.report >= 0, &pid, &started);
	if (!started)
		goto out;	/* nothing ran: the directory goes if we made it */

	prof_heap_roots_collect(&roots);
	if (report(&o, &d, launch.run_id, &roots, &tot) < 0 && status == 0)
		status = PROF_EXIT_FAIL;
	if (prof_heap_failed_marked(failed)) {
		prof_warn("a profiled process could not write its heap records: the figures are incomplete");
		if (status == 0)
			status = PROF_EXIT_FAIL;
	}
	unlink(failed);
	free(failed);
	failed = NULL;
	if (o.python && tot.python_unsupported) {
		prof_warn("--python: a CPython of a version it does not support ran (see above): "
			  "its stacks are native only");
		if (status == 0)
			status = PROF_EXIT_FAIL;
	} else if (o.python && !tot.python && tot.files) {
		prof_warn("--python: no CPython ran in the profiled processes: native stacks only");
	}
	prof_heap_totals_report(&tot);
	if (d.temp && o.keep && outdir_keep(&d, pid) < 0 && status == 0)
		status = PROF_EXIT_FAIL;
	if (prof_verbosity >= 1 && d.path && (!d.temp || o.keep))
		prof_warn("output in %s", d.path);
	if (o.fail_on_leak && tot.leak_bytes > 0 && status == 0) {
		char n1[40];

		prof_warn("--fail-on-leak: %s bytes leaked", prof_heap_fmt_count(n1, sizeof(n1), tot.leak_bytes));
		status = PROF_EXIT_FAIL;
	}
out:
	if (failed) {
		unlink(failed);
		free(failed);
	}
	if ((d.temp && !o.keep) || (d.created && !started))
		prof_heap_dir_remove(d.path ? d.path : d.asked);	/* ours, or nothing ran: leave nothing */
	prof_heap_supp_release(&o.supp);
	prof_heap_roots_close(&roots);
	prof_heap_env_free(env);
	free(cmd);
	free(shim);
	free(d.path);
	closed = prof_close_stdout();
	return status ? status : closed;
}
