/*
 * Unit tests of the files of processes in other file trees
 * (symbolize/procroot.c, prof_addrspace_live()): a process seen in
 * another namespace but gone before its root was held is named only
 * from a file a build-id confirms, one never seen from its path here (as
 * perf); a file missing here is reported as not found, not as "no
 * symbols".
 * A root handed over by its process (profheap: prof_addrspace_saw()).
 * (A real other mount namespace is in tests/profrec.sh and
 * tests/profheap.sh: unshare -m.)
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "base/error.h"
#include "symbolize/symbolize.h"
#include "symbolize/internal.h"
#include "../unit.h"

__attribute__((noinline)) int unit_procroot_target(int x);
__attribute__((noinline)) int unit_procroot_target(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 5 + 1;
}

/* The pid of a process that was, and is gone. */
static pid_t gone_pid(void)
{
	pid_t p = fork();

	if (p == 0)
		_exit(0);
	waitpid(p, NULL, 0);
	return p;
}

/* What prof_symbolizer_naming_report() writes, into buf. */
static void report_text(struct prof_symbolizer *s, char *buf, size_t n)
{
	char path[] = "/tmp/test_procroot.XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	ssize_t got;

	fflush(stderr);
	dup2(fd, 2);
	prof_symbolizer_naming_report(s, "samples");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	got = pread(fd, buf, n - 1, 0);
	buf[got > 0 ? got : 0] = 0;
	close(fd);
	unlink(path);
}

/* The name of addr in a mapping like m (this program's code) at path, with or without its build-id. */
static const char *name_in(struct prof_symbolizer *s, pid_t pid, int live, const struct prof_map *m,
			   const char *path, int with_bid, uint64_t addr, unsigned *flags)
{
	struct prof_addrspace *as = prof_addrspace_new(s, pid);
	struct prof_map c = *m;
	struct prof_frame f[4];

	if (live)
		prof_addrspace_live(as);
	c.path = path;
	if (!with_bid)
		c.build_id_len = 0;
	prof_addrspace_add_map(as, &c);
	prof_symbolize(s, as, addr, 0, f, 4);
	prof_symbolizer_account(s, as, addr, 0, 1);
	*flags = f[0].flags;
	prof_addrspace_free(as);
	return f[0].name;
}

int main(void)
{
	struct prof_symbolizer *s;
	struct prof_addrspace *self;
	struct prof_map m;
	const struct prof_map *pm;
	uint64_t addr = (uint64_t)(uintptr_t)&unit_procroot_target;
	char exe[4096], text[8192];
	const char *name;
	unsigned flags;
	ssize_t k;

	setenv("PROFTOOLS_NO_CACHE", "1", 1);
	prof_set_progname("test_procroot");
	k = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[k > 0 ? k : 0] = 0;

	/* this program's code mapping, with its build-id (as an MMAP2 record gives it) */
	s = prof_symbolizer_new(NULL);
	self = prof_addrspace_new(s, getpid());
	prof_addrspace_load_maps(self, "/proc/self/maps");
	pm = prof_addrspace_find(self, addr);
	TEST("this program's mapping and build-id") {
		struct prof_frame f[4];

		CHECK(pm != NULL);
		if (!pm)
			break;
		prof_symbolize(s, self, addr, 0, f, 4);
		CHECK_STR(f[0].name, "unit_procroot_target");
		m = *pm;
		m.build_id_len = s->objs[self->objs[prof_sym_map_index(self, addr)]]->bid_len;
		memcpy(m.build_id, s->objs[self->objs[prof_sym_map_index(self, addr)]]->bid, m.build_id_len);
		CHECK(m.build_id_len > 0);
	}
	prof_addrspace_free(self);
	prof_symbolizer_free(s);
	if (!pm)
		return UNIT_RESULT();

	TEST("a live process of this namespace: named as before") {
		s = prof_symbolizer_new(NULL);
		name = name_in(s, getpid(), 1, &m, exe, 0, addr, &flags);
		CHECK_STR(name, "unit_procroot_target");
		prof_symbolizer_free(s);
	}

	TEST("gone before its namespace was seen: a build-id confirms the file here") {
		s = prof_symbolizer_new(NULL);
		name = name_in(s, gone_pid(), 1, &m, exe, 1, addr, &flags);
		CHECK_STR(name, "unit_procroot_target");
		prof_symbolizer_free(s);
	}

	TEST("gone before its namespace was seen, nothing known: its path here, as perf") {
		s = prof_symbolizer_new(NULL);
		name = name_in(s, gone_pid(), 1, &m, exe, 0, addr, &flags);
		CHECK_STR(name, "unit_procroot_target");
		prof_symbolizer_free(s);
	}

	TEST("seen in another namespace, gone before its root was held, no build-id: unnamed") {
		struct prof_addrspace *as;
		struct prof_frame f[4];

		s = prof_symbolizer_new(NULL);
		as = prof_addrspace_new(s, gone_pid());
		prof_addrspace_live(as);
		as->root = PROF_SYM_ROOT_GONE;	/* what prof_sym_root_of() gives then */
		m.path = exe;
		k = m.build_id_len;
		m.build_id_len = 0;
		prof_addrspace_add_map(as, &m);
		m.build_id_len = (unsigned)k;
		prof_symbolize(s, as, addr, 0, f, 4);
		prof_symbolizer_account(s, as, addr, 0, 1);
		CHECK(f[0].flags & PROF_FRAME_UNKNOWN);
		CHECK(strstr(f[0].name, "+0x") != NULL);
		report_text(s, text, sizeof(text));
		CHECK(strstr(text, "ran in another mount namespace whose root test_procroot could "
				   "not keep open") != NULL);
		CHECK(strstr(text, "no symbols") == NULL);
		/* with the mapping's build-id, the file here is confirmed */
		prof_addrspace_reset(as);
		as->root = PROF_SYM_ROOT_GONE;
		prof_addrspace_add_map(as, &m);
		prof_symbolize(s, as, addr, 0, f, 4);
		CHECK_STR(f[0].name, "unit_procroot_target");
		prof_addrspace_free(as);
		prof_symbolizer_free(s);
	}

	TEST("a saved maps file (not live): paths opened as they are") {
		s = prof_symbolizer_new(NULL);
		name = name_in(s, gone_pid(), 0, &m, exe, 0, addr, &flags);
		CHECK_STR(name, "unit_procroot_target");
		prof_symbolizer_free(s);
	}

	TEST("a file missing here: reported as not found, not as lacking symbols") {
		s = prof_symbolizer_new(NULL);
		name = name_in(s, getpid(), 1, &m, "/nonexistent-procroot-test/app", 1, addr, &flags);
		CHECK(flags & PROF_FRAME_UNKNOWN);
		report_text(s, text, sizeof(text));
		CHECK(strstr(text, "/nonexistent-procroot-test/app: not named: the file was not found "
				   "in test_procroot's mount namespace") != NULL);
		CHECK(strstr(text, "no symbols") == NULL);
		prof_symbolizer_free(s);
	}

	TEST("another file at the path (build-id differs): said so") {
		s = prof_symbolizer_new(NULL);
		m.build_id[0] ^= 0xff;
		name = name_in(s, getpid(), 1, &m, exe, 1, addr, &flags);
		m.build_id[0] ^= 0xff;
		CHECK(flags & PROF_FRAME_UNKNOWN);
		report_text(s, text, sizeof(text));
		CHECK(strstr(text, "is another one (its build-id is not the mapping's)") != NULL);
		prof_symbolizer_free(s);
	}

	TEST("roots: none held for processes of this namespace") {
		s = prof_symbolizer_new(NULL);
		name_in(s, getpid(), 1, &m, exe, 0, addr, &flags);
		CHECK(s->nroots == 0);
		prof_symbolizer_free(s);
	}
	TEST("a handed-over root (profheap): opened inside it; descriptors of another tree refused") {
		char dir[] = "/tmp/test_procroot.XXXXXX", path[64], err[128], buf[8] = { 0 };
		struct prof_procns own, tree;
		struct stat st;
		struct prof_addrspace *as;
		int dirfd, nsfd, fd, root;

		CHECK(mkdtemp(dir) != NULL);
		snprintf(path, sizeof(path), "%s/f", dir);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		CHECK(fd >= 0 && write(fd, "inside", 6) == 6);
		close(fd);
		/* a chroot into dir: this mount namespace, another root */
		CHECK(prof_procns_self(&own) == 0 && stat(dir, &st) == 0);
		tree = own;
		tree.root_dev = (uint64_t)st.st_dev;
		tree.root_ino = (uint64_t)st.st_ino;
		dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		nsfd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
		CHECK(dirfd >= 0 && nsfd >= 0);
		s = prof_symbolizer_new(NULL);
		as = prof_addrspace_new(s, 1);
		prof_addrspace_saw(as, &tree, dirfd, nsfd);
		/* "/f" and "/../f" are dir/f, as the chrooted process saw them */
		fd = prof_addrspace_open(as, "/../f", err, sizeof(err));
		CHECK(fd >= 0 && read(fd, buf, 6) == 6 && !strcmp(buf, "inside"));
		if (fd >= 0)
			close(fd);
		CHECK(s->nroots == 1);
		/* the descriptors are not the tree the process said it saw: never used */
		tree.root_ino ^= 1;
		root = prof_sym_root_adopt(s, &tree, 1, dirfd, nsfd);
		CHECK(root == PROF_SYM_ROOT_GONE);
		/* not handed over */
		CHECK(prof_sym_root_adopt(s, &tree, 1, -1, -1) == PROF_SYM_ROOT_GONE);
		/* this process's own tree: paths as they are */
		CHECK(prof_sym_root_adopt(s, &own, 1, -1, -1) == PROF_SYM_ROOT_OURS);
		prof_addrspace_free(as);
		prof_symbolizer_free(s);
		close(dirfd);
		close(nsfd);
		unlink(path);
		rmdir(dir);
	}
	return UNIT_RESULT();
}
