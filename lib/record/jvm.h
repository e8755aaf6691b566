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

#endif
