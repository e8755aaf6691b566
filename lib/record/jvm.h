#ifndef PROF_RECORD_JVM_H
#define PROF_RECORD_JVM_H
/*
 * A running HotSpot JVM asked to write its perf map, /tmp/perf-PID.map,
 * now: what "jcmd PID Compiler.perfmap" (JDK 17 and later) does, through
 * the JVM's attach mechanism itself, so that no second JVM (jcmd's own,
 * a second or more of CPU) starts and a JRE without jcmd serves too.
 *
 * The attach mechanism, as jcmd uses it on Linux: the JVM listens on the
 * UNIX socket /tmp/.java_pidNSPID (NSPID: its pid in its own namespace,
 * the socket found through /proc/PID/root) once its attach listener
 * runs; it starts that listener when it gets SIGQUIT while a file
 * .attach_pidNSPID is in its working directory (or /tmp). A request is
 * "1" (the protocol version), the command ("jcmd") and three arguments,
 * each NUL-terminated; the answer, the JVM's result code on a line, then
 * the command's output, ends when the JVM closes the connection. The JVM
 * takes requests only from its own effective user or root, and heeds a
 * trigger file only of its own user (root's is given to it).
 *
 * SIGQUIT kills a process that does not catch it (and a JVM started with
 * -XX:+ReduceSignalUsage does not): it is sent only to a process that maps
 * libjvm.so and catches SIGQUIT (SigCgt of /proc/PID/status). A JVM whose
 * attach mechanism is off (-XX:+DisableAttachMechanism) never opens the
 * socket: the wait ends at its timeout.
 */
#include <stddef.h>

/*
 * Ask the JVM of process pid to write its perf map, waiting at most
 * timeout_ms for it to start listening and to answer. Returns 0 when it
 * answered that it wrote the map; -1 otherwise, with why (of whylen
 * bytes) saying why in a few words ("not a HotSpot JVM", "it does not
 * catch SIGQUIT (-XX:+ReduceSignalUsage)", "no attach listener after
 * N ms", "Compiler.perfmap failed: TEXT", a failed call with its
 * strerror). Nothing is said on stderr.
 */
int prof_jvm_perfmap(int pid, int timeout_ms, char *why, size_t whylen);

/* The longest one JVM is waited for (prof_jvm_ask_all()). */
#define PROF_JVM_TIMEOUT_MS 3000

/*
 * The JVMs of a recording asked for their perf maps at its end, so that
 * the JIT frames they left unnamed (callchain.h's deferred naming) get
 * names whoever started them: a JVM profrec started without the
 * JAVA_TOOL_OPTIONS it adds (a script that cleared it), one of -a, one
 * of -p. What they wrote because they were asked is removed once read.
 */
struct prof_jvm_asks {
	unsigned wrote;		/* JVMs that wrote their perf map when asked */
	unsigned failed;	/* JVMs that wrote none (see prof_jvm_ask_all()) */
	int *made;		/* pids whose /tmp/perf-PID.map the asking created */
	size_t nmade, cap;
};

#define PROF_JVM_ASKS_INIT { 0, 0, NULL, 0, 0 }

/*
 * Ask each process of pids (n; a pid listed twice is asked once) that is
 * running and maps libjvm.so for its perf map (prof_jvm_perfmap()), one
 * after the other, all within total_ms: each waits at most
 * PROF_JVM_TIMEOUT_MS, or what is left of total_ms. Counted in a->failed,
 * never waited for: another user's JVM when we are not root (the JVM
 * would refuse us; its map is its user's), and every JVM still to ask
 * once total_ms is spent (or less than 20 ms is left). A process that is
 * not a JVM, or gone, is not counted. Why a JVM wrote no map is said on
 * stderr (prof_warn) when its pid is one of loud (nloud: the processes
 * the user named, -p), else only with -v (prof_info level 2). A map that
 * did not exist before its JVM was asked is listed in a->made.
 */
void prof_jvm_ask_all(struct prof_jvm_asks *a, const int *pids, size_t n, const int *loud,
		      size_t nloud, int total_ms);

/*
 * Remove the /tmp/perf-PID.map files of a->made (the maps the asking
 * made, read by now): a recording leaves behind no file it caused.
 * Returns how many were removed; a->made is emptied.
 */
int prof_jvm_remove_made(struct prof_jvm_asks *a);

/* Free a's list. */
void prof_jvm_asks_release(struct prof_jvm_asks *a);

#endif
