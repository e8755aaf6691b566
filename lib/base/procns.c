/*
 * Another process's mount namespace, root and pid (procns.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/procns.h"
#include "base/sysfile.h"

/* dev and inode of path (followed), 0 or -1 with errno. */
static int file_id(const char *path, uint64_t *dev, uint64_t *ino)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return -1;
	*dev = (uint64_t)st.st_dev;
	*ino = (uint64_t)st.st_ino;
	return 0;
}

pid_t prof_procns_nspid(pid_t pid)
{
	char path[64], ns[128];
	const char *last;
	long v;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (prof_read_file_key(path, "NSpid", ns, sizeof(ns)) != 0 || !ns[0])
		return pid;
	last = strrchr(ns, '\t');
	if (!last)
		last = strrchr(ns, ' ');
	v = strtol(last ? last + 1 : ns, NULL, 10);
	return v > 0 ? (pid_t)v : pid;
}

int prof_procns_self(struct prof_procns *ns)
{
	/* this process's own view: read once (it does not change its namespace) */
	static struct prof_procns self;
	static int self_read;

	if (!self_read) {
		if (file_id("/proc/self/ns/mnt", &self.mnt_dev, &self.mnt_ino) != 0 ||
		    file_id("/", &self.root_dev, &self.root_ino) != 0)
			return -1;
		self.nspid = getpid();
		self_read = 1;
	}
	*ns = self;
	return 0;
}

int prof_procns_same(const struct prof_procns *a, const struct prof_procns *b)
{
	return a->mnt_dev == b->mnt_dev && a->mnt_ino == b->mnt_ino &&
	       a->root_dev == b->root_dev && a->root_ino == b->root_ino;
}

int prof_procns_probe(pid_t pid, struct prof_procns *ns)
{
	struct prof_procns self;
	char path[64];

	if (prof_procns_self(&self) < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	if (file_id(path, &ns->mnt_dev, &ns->mnt_ino) != 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/root", (int)pid);
	if (file_id(path, &ns->root_dev, &ns->root_ino) != 0)
		return -1;
	ns->nspid = prof_procns_nspid(pid);
	return !prof_procns_same(ns, &self);
}

int prof_procns_path(pid_t pid, const char *path, char *buf, size_t n)
{
	struct prof_procns ns;
	int other = prof_procns_probe(pid, &ns), k, saved = errno;

	if (other == 1)
		k = snprintf(buf, n, "/proc/%d/root%s", (int)pid, path);
	else
		k = snprintf(buf, n, "%s", path);
	if (k < 0 || (size_t)k >= n) {
		errno = ENAMETOOLONG;
		return -1;
	}
	errno = saved;
	return other < 0 ? -1 : 0;
}
