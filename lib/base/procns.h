#ifndef PROF_PROCNS_H
#define PROF_PROCNS_H
/*
 * What another process sees that this one does not: its mount namespace
 * and root directory (a container, unshare -m, a chroot), in which the
 * paths of its mappings and of the files its runtimes write
 * (/tmp/perf-PID.map) name other files than here; and the pid it sees
 * itself as in its own pid namespace (NSpid), the PID of those names.
 * perf answers the same questions (its nsinfo), from the same /proc
 * files: /proc/PID/ns/mnt compared with this process's, /proc/PID/root,
 * /proc/PID/status's NSpid.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A process's view of the file tree and of pids. */
struct prof_procns {
	uint64_t mnt_dev, mnt_ino;	/* its mount namespace (/proc/PID/ns/mnt) */
	uint64_t root_dev, root_ino;	/* its root directory (/proc/PID/root) */
	pid_t nspid;			/* the pid it sees itself as; pid in this namespace */
};

/*
 * Look at process pid: its mount namespace, root and NSpid into *ns.
 * Returns 1 when it sees another file tree than this process (another
 * mount namespace, or the same one with another root: chroot), 0 when
 * the same, -1 with errno set when it is gone (or a zombie, whose
 * namespaces are released at exit) or its /proc files are refused.
 */
int prof_procns_probe(pid_t pid, struct prof_procns *ns);

/*
 * This process's own mount namespace and root (nspid: getpid()), read
 * once. Returns 0, or -1 with errno set when /proc is not there.
 */
int prof_procns_self(struct prof_procns *ns);

/* 1 if a and b are the same file tree (mount namespace and root), else 0. */
int prof_procns_same(const struct prof_procns *a, const struct prof_procns *b);

/*
 * The pid process pid sees itself as (the last field of NSpid in
 * /proc/PID/status): pid itself when it shares this pid namespace, is
 * gone, or the kernel predates NSpid (4.1).
 */
pid_t prof_procns_nspid(pid_t pid);

/*
 * The path this process opens to reach path as process pid sees it:
 * "/proc/PID/root" followed by path when pid sees another file tree,
 * path itself when it sees the same one, into buf[0..n). Returns 0, or
 * -1 with errno set when pid is gone or refused (buf holds path then),
 * or ENAMETOOLONG. path is absolute.
 */
int prof_procns_path(pid_t pid, const char *path, char *buf, size_t n);

#endif
