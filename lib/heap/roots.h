#ifndef PROF_HEAP_ROOTS_H
#define PROF_HEAP_ROOTS_H
/*
 * The roots of profiled processes that saw another file tree than
 * profheap (unshare -m, a container, a chroot). profheap names their
 * mappings after they are gone, and their paths name files it cannot
 * reach in its own namespace (nothing, or another file, at that path;
 * the namespace's mounts go with its last process). So each such
 * process's shim hands over descriptors of its root directory and mount
 * namespace (lib/heap/shim/startup.c, hand_root()) through a datagram
 * socket made here, whose other end the command inherits; they are
 * collected after it exits, one pair per tree, and its files are opened
 * through them (prof_addrspace_saw(), symbolize.h). Messages queue in
 * the socket while the command runs: a few hundred images in other
 * trees fit; later ones' roots may be lost (their files are then not
 * opened, and the naming report says why).
 */
#include <stddef.h>

#include "base/procns.h"

struct prof_heap_root {
	struct prof_procns id;		/* the tree (nspid: the pid that handed it) */
	int dirfd, nsfd;		/* its root directory (O_PATH), its mount namespace */
};

struct prof_heap_roots {
	int rx, tx;			/* profheap's end; the command's (inherited) */
	char env[128];			/* PROFHEAP_ROOTS's value */
	struct prof_heap_root *v;
	size_t n, cap;
};

/*
 * Make the socket and r->env. Returns 0, or -1 after warning (profheap
 * then runs without: processes of other trees stay unnamed).
 */
int prof_heap_roots_open(struct prof_heap_roots *r);

/* Take the roots handed over (the command has exited). */
void prof_heap_roots_collect(struct prof_heap_roots *r);

/*
 * The descriptors of tree id, handed over: 0 with *dirfd and *nsfd, or
 * -1 (none). r may be NULL.
 */
int prof_heap_roots_find(const struct prof_heap_roots *r, const struct prof_procns *id, int *dirfd,
			 int *nsfd);

/* Close everything (after prof_heap_roots_open(), failed or not). */
void prof_heap_roots_close(struct prof_heap_roots *r);

#endif
