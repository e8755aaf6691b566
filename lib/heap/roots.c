/*
 * The roots profiled processes of other file trees hand over (roots.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/xalloc.h"
#include "heap/roots.h"

int prof_heap_roots_open(struct prof_heap_roots *r)
{
	struct prof_procns self;
	struct stat st;
	int sv[2];

	memset(r, 0, sizeof(*r));
	r->rx = r->tx = -1;
	if (prof_procns_self(&self) < 0) {
		prof_warn_errno("/proc/self/ns/mnt");
		return -1;
	}
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0) {
		prof_warn_errno("socketpair");
		return -1;
	}
	r->rx = sv[0];
	/* the command's end: inherited across exec, and never at 0..2 */
	r->tx = fcntl(sv[1], F_DUPFD, 3);
	close(sv[1]);
	if (r->tx < 0 || fstat(r->tx, &st) < 0) {
		prof_warn_errno("socketpair");
		prof_heap_roots_close(r);
		return -1;
	}
	snprintf(r->env, sizeof(r->env), "%d:%llu:%llu:%llu:%llu:%llu", r->tx,
		 (unsigned long long)st.st_ino, (unsigned long long)self.mnt_dev,
		 (unsigned long long)self.mnt_ino, (unsigned long long)self.root_dev,
		 (unsigned long long)self.root_ino);
	return 0;
}

/* One message's descriptors (a root and a namespace) into r, or closed. */
static void take(struct prof_heap_roots *r, const int *fds, int32_t pid)
{
	struct stat sd, sn;
	struct prof_procns id = { 0 };

	if (fstat(fds[0], &sd) == 0 && S_ISDIR(sd.st_mode) && fstat(fds[1], &sn) == 0) {
		id.root_dev = (uint64_t)sd.st_dev;
		id.root_ino = (uint64_t)sd.st_ino;
		id.mnt_dev = (uint64_t)sn.st_dev;
		id.mnt_ino = (uint64_t)sn.st_ino;
		id.nspid = pid;
		if (prof_heap_roots_find(r, &id, &(int){ 0 }, &(int){ 0 }) < 0) {
			PROF_GROW(r->v, r->n + 1, r->cap);
			r->v[r->n++] = (struct prof_heap_root){ .id = id, .dirfd = fds[0], .nsfd = fds[1] };
			return;
		}
	}
	close(fds[0]);
	close(fds[1]);
}

void prof_heap_roots_collect(struct prof_heap_roots *r)
{
	if (r->rx < 0)
		return;
	for (;;) {
		int32_t pid = 0;
		int fds[2];
		char cbuf[CMSG_SPACE(sizeof(fds))];
		struct iovec iov = { .iov_base = &pid, .iov_len = sizeof(pid) };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
				      .msg_controllen = sizeof(cbuf) };
		struct cmsghdr *c;
		ssize_t got = recvmsg(r->rx, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			break;
		for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
			size_t k;

			if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
				continue;
			k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			memcpy(fds, CMSG_DATA(c), (k < 2 ? k : 2) * sizeof(int));
			if (k == 2 && got == (ssize_t)sizeof(pid) && !(msg.msg_flags & MSG_CTRUNC))
				take(r, fds, pid);
			else
				for (size_t i = 0; i < k && i < 2; i++)
					close(fds[i]);
		}
	}
}

int prof_heap_roots_find(const struct prof_heap_roots *r, const struct prof_procns *id, int *dirfd,
			 int *nsfd)
{
	for (size_t i = 0; r && i < r->n; i++)
		if (prof_procns_same(&r->v[i].id, id)) {
			*dirfd = r->v[i].dirfd;
			*nsfd = r->v[i].nsfd;
			return 0;
		}
	return -1;
}

void prof_heap_roots_close(struct prof_heap_roots *r)
{
	if (r->rx >= 0)
		close(r->rx);
	if (r->tx >= 0)
		close(r->tx);
	r->rx = r->tx = -1;
	for (size_t i = 0; i < r->n; i++) {
		close(r->v[i].dirfd);
		close(r->v[i].nsfd);
	}
	free(r->v);
	r->v = NULL;
	r->n = r->cap = 0;
}
