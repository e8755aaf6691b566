#ifndef PROF_PYTHON_RECORD_H
#define PROF_PYTHON_RECORD_H
/*
 * profrec --python: sampling a CPython process's Python stacks (python.h)
 * at a fixed rate into a recording's sample writer, the way py-spy
 * samples.
 *
 * Ticks come at random times, a period apart on average (so that a
 * loop of the program's own period cannot hide from them); each reads
 * every thread's Python stack; a thread counts only while
 * the kernel says it is running (state R in /proc/PID/task/TID/stat), as
 * py-spy's default leaves idle threads out, unless idle is set. A sample
 * weighs the CPU time its thread ran since its previous one, in ns of
 * event cpu-clock, read from a task-clock perf counter of the thread: a
 * thread that waits for a CPU on a loaded machine is in state R too, and
 * counting its ticks would pile them on wherever it was preempted (the
 * scheduler's own figures, read from outside, are up to date only at a
 * tick or when the thread reads its clock, which biased a loop that did).
 * Where no counter can be opened, and with idle, a sample weighs one tick
 * (1e9 / freq ns; folded: 1 sample). A folded recording's stacks start
 * with the thread's name, as profrec --folded's do; TSV rows carry it in
 * the comm column.
 *
 * The process is attached to when it has exec'd a CPython and initialised
 * it (a command started through a shell or pyenv's shim becomes one
 * later): until then each tick looks again.
 *
 * With native set, each thread sampled is stopped while its Python
 * frames are read and its registers and stack copied, and the sample's
 * stack is its native stack with the Python frames merged in (native.h);
 * a stack that cannot be merged is counted (unmergeable) and dropped, as
 * a torn one is.
 */
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

struct prof_child;
struct prof_output;
struct prof_recorder_options;
struct prof_sample_writer;
struct prof_stacks;

struct prof_python_recording {
	pid_t pid;		/* the process */
	int is_child;		/* set by prof_python_profile(): exit seen by waitid(WNOWAIT) */
	unsigned freq;		/* samples per second (0: 99) */
	double duration;	/* seconds; 0: until the process ends or *stop */
	int folded;		/* stacks rooted at the thread's name */
	int idle;		/* sample threads that are not running too */
	int cpu_weights;	/* set by prof_python_profile(): weights are the CPU clock's ns */
	/* --native (native.h): each thread stopped and its native stack merged
	 * with its Python frames, named with these symbolizer options; NULL:
	 * Python frames only */
	const struct prof_recorder_options *native;
	/* results */
	char version[32];	/* the interpreter's, once attached */
	uint64_t samples, ticks, torn;
	uint64_t unmergeable;	/* --native: stacks whose eval calls and Python frames differ */
	uint64_t stops, stop_wait_ns, stopped_ns, unwind_ns;	/* --native: costs (native.h) */
};

/*
 * Sample until the process exits, *stop becomes nonzero or the duration
 * is over. Returns 0, or -1 after reporting why the process cannot be
 * read (an unknown Python, memory reads refused); a process that ends
 * before it ever runs a Python is reported ("never ran CPython") and -1.
 */
int prof_python_record(struct prof_python_recording *rec, struct prof_sample_writer *w,
		       struct prof_stacks *stacks, volatile sig_atomic_t *stop);

/*
 * A whole recording onto out (closed here: committed, or aborted when
 * the recording failed): the metadata line (source=profrec, event
 * cpu-clock, unit ns or, folded, samples, freq, call_graph=python or,
 * native, python+native, command, python=VERSION, torn_stacks and,
 * native, unmergeable_stacks), the samples as TSV or, with
 * rec->folded, folded stacks (no metadata line if no_header), and a
 * summary on stderr (prof_info: not with -q).
 *
 * child: the command of argv, spawned and waiting (base/proc.h), or NULL
 * for rec->pid. The command is started, sampled until it exits, passed
 * the stop signal (or SIGTERM when the duration ends first) and waited
 * for. Returns the command's exit status (proc.h), or 1 when the
 * recording failed and the command did not; 0 or 1 without a command.
 */
int prof_python_profile(struct prof_python_recording *rec, struct prof_child *child,
			char *const argv[], struct prof_output *out, int no_header,
			volatile sig_atomic_t *stop);

#endif
