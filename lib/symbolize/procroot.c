/*
 * The file trees of processes in another mount namespace or root
 * (internal.h): a container's, unshare -m's, a chroot's. The paths of
 * their mappings (MMAP2 records, /proc/PID/maps) are the paths they see;
 * here another file, or none, may live at that path. As perf does (its
 * nsinfo), a process whose /proc/PID/ns/mnt or root differs from this
 * process's has its files opened under /proc/PID/root; unlike perf, the
 * root directory and the namespace are held open (one pair of
 * descriptors per namespace and root, shared by its processes) while an
 * address space uses them, so that a process gone before its samples
 * were named still has its files opened where it saw them.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/xalloc.h"
#include "io/input.h"
#include "symbolize/internal.h"

int prof_sym_root_held(const struct prof_symbolizer *s, int root)
{
	return root >= 0 && (size_t)root < s->nroots && s->roots[root].dirfd >= 0;
}

void prof_sym_root_ref(struct prof_symbolizer *s, int root)
{
	if (prof_sym_root_held(s, root))
		s->roots[root].refs++;
}

static void root_close(struct prof_sym_root *r)
{
	if (r->dirfd >= 0)
		close(r->dirfd);
	if (r->nsfd >= 0)
		close(r->nsfd);
	r->dirfd = r->nsfd = -1;
}

void prof_sym_root_unref(struct prof_symbolizer *s, int root)
{
	if (!prof_sym_root_held(s, root) || --s->roots[root].refs)
		return;
	/* nobody uses this namespace now: let it go (a stopped container's mounts) */
	root_close(&s->roots[root]);
}

void prof_sym_root_release_all(struct prof_symbolizer *s)
{
	for (size_t i = 0; i < s->nroots; i++)
		root_close(&s->roots[i]);
	free(s->roots);
	s->roots = NULL;
	s->nroots = s->caproots = 0;
}

/* The root of pid, which probe says is id: an entry held already, or a new one. */
static int root_entry(struct prof_symbolizer *s, pid_t pid, const struct prof_procns *id)
{
	char path[64];
	struct prof_procns now;
	struct prof_sym_root *r;

	for (size_t i = 0; i < s->nroots; i++)
		if (s->roots[i].dirfd >= 0 && prof_procns_same(&s->roots[i].id, id)) {
			s->roots[i].refs++;
			return (int)i;
		}
	PROF_GROW(s->roots, s->nroots + 1, s->caproots);
	r = &s->roots[s->nroots];
	memset(r, 0, sizeof(*r));
	r->id = *id;
	r->pid = pid;
	snprintf(path, sizeof(path), "/proc/%d/root", (int)pid);
	r->dirfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	r->nsfd = open(path, O_RDONLY | O_CLOEXEC);
	/* the pid may have exited and been reused between the probe and the opens */
	if (r->dirfd < 0 || r->nsfd < 0 || prof_procns_probe(pid, &now) < 0 ||
	    !prof_procns_same(&now, id)) {
		root_close(r);
		return PROF_SYM_ROOT_GONE;
	}
	r->refs = 1;
	return (int)s->nroots++;
}

int prof_sym_root_of(struct prof_symbolizer *s, pid_t pid, int prev, pid_t *nspid)
{
	struct prof_procns id;
	int other, root;

	if (pid <= 0)
		return prev;
	other = prof_procns_probe(pid, &id);
	if (other < 0)
		return prev;
	*nspid = id.nspid;
	root = other ? root_entry(s, pid, &id) : PROF_SYM_ROOT_OURS;
	prof_sym_root_unref(s, prev);
	return root;
}

int prof_sym_root_adopt(struct prof_symbolizer *s, const struct prof_procns *id, pid_t pid,
			int dirfd, int nsfd)
{
	struct prof_procns self;
	struct stat sd, sn;
	struct prof_sym_root *r;

	if (prof_procns_self(&self) == 0 && prof_procns_same(&self, id))
		return PROF_SYM_ROOT_OURS;
	for (size_t i = 0; i < s->nroots; i++)
		if (s->roots[i].dirfd >= 0 && prof_procns_same(&s->roots[i].id, id)) {
			s->roots[i].refs++;
			return (int)i;
		}
	/* the descriptors must be the very tree the process said it saw */
	if (dirfd < 0 || nsfd < 0 || fstat(dirfd, &sd) != 0 || fstat(nsfd, &sn) != 0 ||
	    (uint64_t)sd.st_dev != id->root_dev || (uint64_t)sd.st_ino != id->root_ino ||
	    (uint64_t)sn.st_dev != id->mnt_dev || (uint64_t)sn.st_ino != id->mnt_ino)
		return PROF_SYM_ROOT_GONE;
	PROF_GROW(s->roots, s->nroots + 1, s->caproots);
	r = &s->roots[s->nroots];
	memset(r, 0, sizeof(*r));
	r->id = *id;
	r->pid = pid;
	r->dirfd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	r->nsfd = fcntl(nsfd, F_DUPFD_CLOEXEC, 0);
	if (r->dirfd < 0 || r->nsfd < 0) {
		root_close(r);
		return PROF_SYM_ROOT_GONE;
	}
	r->refs = 1;
	return (int)s->nroots++;
}

int prof_sym_root_open(const struct prof_symbolizer *s, int root, const char *path, char *err,
		       size_t errlen)
{
	struct open_how how;
	int fd;

	if (root == PROF_SYM_ROOT_OURS || root == PROF_SYM_ROOT_GONE)
		return prof_open_regular(path, err, errlen);
	if (!prof_sym_root_held(s, root)) {
		errno = ENOENT;
		snprintf(err, errlen, "its process's root is no longer held");
		return -1;
	}
	memset(&how, 0, sizeof(how));
	how.flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK;	/* O_NONBLOCK: a FIFO never blocks */
	/* "/" and ".." at the root and absolute symbolic links resolve inside it */
	how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
	fd = (int)syscall(SYS_openat2, s->roots[root].dirfd, path, &how, sizeof(how));
	if (fd < 0 && errno == ENOSYS)	/* before Linux 5.6: absolute links escape */
		fd = openat(s->roots[root].dirfd, path + strspn(path, "/"), (int)how.flags);
	if (fd < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	return prof_regular_fd(fd, err, errlen);
}

const char *prof_sym_root_display(const struct prof_symbolizer *s, int root, const char *path,
				  char *buf, size_t n)
{
	if (root < 0 || (size_t)root >= s->nroots)
		return path;
	snprintf(buf, n, "/proc/%d/root%s", (int)s->roots[root].pid, path);
	return buf;
}
