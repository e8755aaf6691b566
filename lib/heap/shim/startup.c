/*
 * libprofheap.so, the heap profiler's preloaded shim (profheap(1)): its
 * configuration and its start-up order, fork and exit (internal.h lists
 * the other files).
 *
 * The shim interposes the malloc family and C++ operator new/delete (and
 * the exec family, to note what replaces the image), and records per
 * call stack: bytes and blocks allocated, live (leaked at exit), live at
 * the global peak, and temporary allocations, into a file mapped
 * MAP_SHARED (heap/format.h) so that whatever happened is on disk even
 * when the process dies abnormally. A timer thread writes the timeline.
 * Configuration comes from the environment set by profheap:
 *   PROFHEAP_DIR        output directory (absent: the shim does nothing)
 *   PROFHEAP_FAILED     a file to mark when recording fails
 *   PROFHEAP_RUN        run id written into every record file
 *   PROFHEAP_INTERVAL   timeline interval in ns (default 10 ms)
 *   PROFHEAP_SAMPLE     mean sampling interval in bytes (0/absent: exact)
 *   PROFHEAP_UNWIND     "fp" (default) or "dwarf"
 *   PROFHEAP_FOLLOW_FORK  "0": children of fork are not profiled
 *   PROFHEAP_PYTHON     "1": a CPython's frames go into its stacks (python.c)
 *   PROFHEAP_ROOTS      where to hand this process's root when it sees
 *                       another file tree than profheap (hand_root())
 *
 * Start-up order. The loader runs the initialisers of the libraries it
 * starts before ours (libstdc++'s allocates its emergency exception pool:
 * malloc(72704)), so the first malloc may come before our constructor:
 *  1. the first malloc (or our constructor, if it comes first) resolves
 *     the real allocator (real.c), then ph_configure() sets up everything
 *     recording needs (record file, tables, code map, timeline, mappings)
 *     and turns tracking on: from here allocations are recorded, walked
 *     with frame pointers; a walk cut short ends in PH_PC_STARTUP;
 *  2. our constructor loads libunwind for --unwind dwarf (dlopen: not
 *     from inside malloc) and only then turns ph_use_dwarf on; starts the
 *     timer thread; sets ph_started: walks cut short are [truncated].
 * At exit, the destructor writes the last timeline row and the mappings.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "heap/shim/internal.h"

int ph_active;
int ph_configured;
int ph_started;
int ph_use_dwarf;
int ph_follow_fork = 1;
uint64_t ph_interval_ns = 10000000;
uint64_t ph_sample_mean;
double ph_sample_mean_d;
static int want_dwarf;			/* --unwind dwarf asked: ph_use_dwarf once loaded */
static int want_python;			/* --python asked: ph_python_init() in the constructor */
static uint64_t run_id;
static int boot_lock;

static uint64_t env_u64(const char *name, uint64_t dflt)
{
	const char *s = getenv(name);
	uint64_t v = 0;

	if (!s || !*s)
		return dflt;
	for (; *s >= '0' && *s <= '9'; s++)
		v = v * 10 + (uint64_t)(*s - '0');
	return v;
}

/* Hide PROFHEAP_DIR from programs this process executes. */
static void disable_env(void)
{
	char **e;

	for (e = environ; e && *e; e++)
		if (!strncmp(*e, "PROFHEAP_DIR=", 13))
			memcpy(*e, "PROFHEAP_OFF", 12);
}

/* The environment into the settings; 0, or -1: the shim stays off. */
static int read_env(void)
{
	const char *dir, *s;

	/*
	 * A secure-execution program (set-user-ID, set-group-ID, file
	 * capabilities) takes nothing from its environment: glibc already
	 * refuses to preload us there from a non-system path; this holds
	 * when we are installed in one.
	 */
	if (getauxval(AT_SECURE))
		return -1;
	dir = getenv("PROFHEAP_DIR");
	if (!dir || !*dir || strlen(dir) >= sizeof(ph_out_dir))
		return -1;
	memcpy(ph_out_dir, dir, strlen(dir) + 1);
	s = getenv("PROFHEAP_FAILED");
	if (s && strlen(s) < sizeof(ph_failed_path))
		memcpy(ph_failed_path, s, strlen(s) + 1);
	run_id = env_u64("PROFHEAP_RUN", 0);
	ph_interval_ns = env_u64("PROFHEAP_INTERVAL", 10000000);
	if (ph_interval_ns < 100000)
		ph_interval_ns = 100000;
	ph_sample_mean = env_u64("PROFHEAP_SAMPLE", 0);
	ph_sample_mean_d = (double)ph_sample_mean;
	s = getenv("PROFHEAP_UNWIND");
	want_dwarf = s && !strcmp(s, "dwarf");
	s = getenv("PROFHEAP_FOLLOW_FORK");
	ph_follow_fork = !(s && !strcmp(s, "0"));
	s = getenv("PROFHEAP_PYTHON");
	want_python = s && !strcmp(s, "1");
	return 0;
}

/* The file tree this process sees (heap/format.h): its mount namespace and root. */
static void note_tree(void)
{
	struct stat ns, root;

	if (stat("/proc/self/ns/mnt", &ns) == 0 && stat("/", &root) == 0) {
		H->mnt_dev = (uint64_t)ns.st_dev;
		H->mnt_ino = (uint64_t)ns.st_ino;
		H->root_dev = (uint64_t)root.st_dev;
		H->root_ino = (uint64_t)root.st_ino;
	}
}

/* The header of a new record file (backed by disk blocks): 0, or -1. */
static int init_header(void)
{
	ssize_t l;

	if (ph_back_file(sizeof(*H)) < 0) {
		char path[4200];

		ph_say(ph_out_dir, "no space for the record file");
		if (ph_file_path(path, sizeof(path), ".heap"))
			unlink(path);
		return -1;
	}
	memcpy(H->magic, PH_MAGIC, 8);
	H->version = PH_VERSION;
	H->header_size = sizeof(*H);
	H->reserve = ph_reserve;
	H->used = (sizeof(*H) + 63) & ~(uint64_t)63;
	H->run_id = run_id;
	H->pid = (int32_t)getpid();
	H->ppid = (int32_t)getppid();
	H->start_ns = ph_now_ns();
	H->sample_mean = ph_sample_mean;
	H->count_unit = ph_sample_mean ? 65536 : 1;
	H->flags |= (ph_sample_mean ? PH_FLAG_SAMPLED : 0);
	l = readlink("/proc/self/exe", H->exe, sizeof(H->exe) - 1);
	if (l > 0)
		H->exe[l] = 0;
	note_tree();
	return 0;
}

/*
 * This process's root, when it sees another file tree than profheap
 * (unshare -m, a container, a chroot: all before the exec of this
 * image): the paths of its mappings name files that profheap, naming
 * them after the process is gone, cannot reach, and whose mounts may go
 * with it. Hand profheap descriptors of our root directory and mount
 * namespace, which keep them reachable, over the datagram socket
 * PROFHEAP_ROOTS names ("FD:INODE:MNTDEV:MNTINO:ROOTDEV:ROOTINO": the
 * socket and profheap's own tree). Sent without blocking; lost, profheap
 * says that it could not open the root, and names nothing from a file
 * here at that path. Called from the constructor (not on the malloc path).
 */
static void hand_root(void)
{
	const char *env = getenv("PROFHEAP_ROOTS");
	unsigned long long v[6];
	struct stat st;
	int fds[2], fd;
	char cbuf[CMSG_SPACE(sizeof(fds))];
	int32_t pid = H->pid;
	struct iovec iov = { .iov_base = &pid, .iov_len = sizeof(pid) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;

	if (!env || sscanf(env, "%llu:%llu:%llu:%llu:%llu:%llu", &v[0], &v[1], &v[2], &v[3], &v[4],
			   &v[5]) != 6 || !H->mnt_ino || !H->root_ino)
		return;
	if (H->mnt_dev == v[2] && H->mnt_ino == v[3] && H->root_dev == v[4] && H->root_ino == v[5])
		return;		/* profheap's own tree */
	fd = (int)v[0];
	/* still profheap's socket (not a descriptor the program reused) */
	if (v[0] > 65535 || fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode) || (uint64_t)st.st_ino != v[1])
		return;
	fds[0] = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	fds[1] = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	if (fds[0] >= 0 && fds[1] >= 0) {
		memset(cbuf, 0, sizeof(cbuf));
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(fds));
		memcpy(CMSG_DATA(c), fds, sizeof(fds));
		sendmsg(fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
	}
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
}

static void atfork_child(void);

void ph_configure(void)
{
	if (!environ)
		return;		/* too early: libc is not initialised yet */
	ph_spin_lock(&boot_lock);
	if (ph_configured) {
		ph_spin_unlock(&boot_lock);
		return;
	}
	T.guard++;
	if (read_env() < 0)
		goto done;
	if (!ph_follow_fork)
		disable_env();	/* no process created from here on is profiled */
	if (ph_open_data(0) < 0) {
		ph_mark_failed();
		goto done;
	}
	if (ph_blocks_init(ph_sample_mean != 0) < 0 || ph_stacks_init() < 0) {
		ph_mark_failed();
		goto done;
	}
	if (init_header() < 0)
		goto done;
	ph_stack_id(NULL, 0);	/* stack id 0: the empty stack */
	ph_code_init();
	ph_open_timeline();
	ph_maps_init();
	ph_threads_init();
	pthread_atfork(NULL, NULL, atfork_child);
	__atomic_store_n(&ph_active, 1, RELEASE);
done:
	ph_configured = 1;
	T.guard--;
	ph_spin_unlock(&boot_lock);
}

/* A child of fork: its own record file (PID.heap), counters from zero, its own timer. */
static void atfork_child(void)
{
	if (!ph_active)
		return;
	if (!ph_follow_fork) {
		ph_active = 0;
		disable_env();
		return;
	}
	T.guard++;
	/* Other threads are gone: nothing they held is held. */
	boot_lock = 0;
	ph_stacks_after_fork();
	ph_maps_after_fork();
	if (ph_open_data(1) < 0) {
		ph_mark_failed();
		ph_active = 0;
		T.guard--;
		return;
	}
	H->pid = (int32_t)getpid();
	H->ppid = (int32_t)getppid();
	H->flags = (H->flags & (PH_FLAG_SAMPLED | PH_FLAG_DWARF | PH_FLAG_FULL | PH_FLAG_PYTHON |
				PH_FLAG_PYTHONMALLOC | PH_FLAG_PYTHON_UNSUPPORTED)) | PH_FLAG_FORKED;
	H->start_ns = ph_now_ns();
	H->end_ns = 0;
	H->live_bytes = H->peak_bytes = H->peak_gen = H->peak_pending = H->peak_ns = 0;
	H->unknown_frees = 0;
	ph_threads_after_fork();
	ph_blocks_reset();
	ph_python_after_fork();
	ph_open_timeline();
	ph_maps_restart();
	ph_timer_after_fork();
	T.guard--;
}

__attribute__((constructor)) static void profheap_init(void)
{
	if (!ph_real.malloc)
		ph_resolve();
	ph_configure();
	if (!ph_active)
		return;
	if (want_dwarf) {
		T.guard++;
		if (ph_unwind_dwarf_init() == 0) {
			__atomic_fetch_or(&H->flags, PH_FLAG_DWARF, RELAXED);
			__atomic_store_n(&ph_use_dwarf, 1, RELEASE);
		} else {
			ph_say("--unwind dwarf: libunwind.so.8 not found; using frame pointers", NULL);
		}
		T.guard--;
	}
	if (want_python) {
		/* the interpreter is mapped (not initialised): dlsym, not from inside malloc */
		T.guard++;
		ph_python_init();
		T.guard--;
	}
	T.guard++;
	hand_root();
	T.guard--;
	ph_timer_start();
	__atomic_store_n(&ph_started, 1, RELEASE);
}

__attribute__((destructor)) static void profheap_fini(void)
{
	if (!ph_active)
		return;
	T.guard++;
	ph_timeline_row(1);
	ph_save_maps();
	H->end_ns = ph_now_ns();
	__atomic_fetch_or(&H->flags, PH_FLAG_EXITED, RELAXED);
	T.guard--;
}
