#ifndef PROF_RECORD_RUNTIMES_H
#define PROF_RECORD_RUNTIMES_H
/*
 * The perf support of language runtimes, turned on for a command profrec
 * runs (issue 26): without it a profile of a Python, Node or Java
 * program shows the interpreter or anonymous JIT code, not the
 * program's functions.
 *
 *   python  PYTHONPERFSUPPORT=1: CPython 3.12+ names each Python function
 *           in /tmp/perf-PID.map (py::NAME:FILE; symbolize/jitmap.c
 *           reads it); older versions ignore it
 *   node    --perf-basic-prof --interpreted-frames-native-stack appended
 *           to NODE_OPTIONS: V8 names its JIT code in /tmp/perf-PID.map,
 *           gives each interpreted function a trampoline of its own (else
 *           all are Builtins_InterpreterEntryTrampoline), and its frames
 *           keep frame pointers, so fp stacks are whole, script to leaf
 *   java    PROF_RUNTIME_JAVA_OPTIONS appended to JAVA_TOOL_OPTIONS: JIT
 *           frames keep frame pointers (PreserveFramePointer), and the JVM
 *           writes /tmp/perf-PID.map when it exits (DumpPerfMapAtExit, a
 *           diagnostic option of JDK 17+; recorders name the JIT frames
 *           they could not name while recording from it: callchain.h's
 *           deferred naming). The JVM writes no map while it runs; older
 *           JVMs do not know DumpPerfMapAtExit and would refuse to start,
 *           hence IgnoreUnrecognizedVMOptions (which also lets a mistyped
 *           -XX option of the command pass unnoticed)
 *
 * What the user already set wins: PYTHONPERFSUPPORT set to anything,
 * NODE_OPTIONS already naming a --perf-* option, JAVA_TOOL_OPTIONS
 * already naming PreserveFramePointer leave that runtime alone. The
 * runtimes write /tmp/perf-PID.map as they do under perf; the maps that
 * profrec caused are removed once the recording is named
 * (prof_runtime_perf_remove_maps()).
 */

struct prof_hashmap;

/*
 * Change this process's environment (inherited by the command started
 * next) for each runtime. Returns the names of the runtimes turned on,
 * "python,node,java" (a static string), or NULL when the user's
 * environment already decided for all of them.
 */
const char *prof_runtime_perf_enable(void);

/*
 * Node's perf options also make V8 write its log, isolate-0xADDR-PID-v8.log,
 * into the working directory (Node allows no --logfile in NODE_OPTIONS).
 * After a recording that turned node's support on (names holds "node"),
 * remove those logs of the working directory that appeared since
 * started (CLOCK_REALTIME seconds) and whose process is gone: the ones the
 * command's node processes wrote because of profrec. Returns how many.
 */
int prof_runtime_perf_cleanup(const char *names, double started);

/*
 * Every profiled Python 3.12+, Node or Java process would leave a
 * /tmp/perf-PID.map behind, hundreds a day on a machine that profiles
 * often, and the recording needs none of them once its frames are named.
 * When profrec turned on all three runtimes (names is "python,node,java":
 * the user's environment asked for none of the maps), remove the maps of
 * the recording's processes (pids, a set of process ids) that appeared
 * since started (CLOCK_REALTIME seconds) and whose process is gone. A
 * process still running keeps its map (it may still be writing it).
 * Returns how many were removed.
 */
int prof_runtime_perf_remove_maps(const char *names, double started,
				  const struct prof_hashmap *pids);

/* What JAVA_TOOL_OPTIONS gets (see above). */
#define PROF_RUNTIME_JAVA_OPTIONS \
	"-XX:+IgnoreUnrecognizedVMOptions -XX:+PreserveFramePointer " \
	"-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit"

/* The one line saying what was turned on and how to keep it off. */
#define PROF_RUNTIME_PERF_NOTE \
	"perf support of %s turned on in the command's environment (--no-runtime-perf: off)"

#endif
