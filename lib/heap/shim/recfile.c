/*
 * The record file, TAG.heap (heap/format.h): created, mapped MAP_SHARED,
 * given disk blocks ahead of use, and carved by a bump pointer; the
 * other files of DIR/TAG.* (internal.h).
 *
 * Files are opened for each use and closed at once: a program may close
 * every descriptor it did not open, or reuse their numbers.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "heap/shim/internal.h"

char *ph_base;
struct ph_header *H;
uint64_t ph_reserve;
char ph_out_dir[4096];
char ph_failed_path[4200];
static char tag[64];
static uint64_t backed;			/* bytes of the record file given disk blocks */
static int backed_lock;

/*
 * The file exists with one byte, overwritten in place (no free space
 * needed); raw system calls, as on the malloc path.
 */
void ph_mark_failed(void)
{
	int fd;

	if (!ph_failed_path[0])
		return;
	fd = (int)syscall(SYS_openat, AT_FDCWD, ph_failed_path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		syscall(SYS_pwrite64, fd, "1", 1, 0);
		syscall(SYS_close, fd);
	}
}

/*
 * Reserve disk blocks for the record file up to end (in 1 MiB steps), so
 * that a full disk makes the shim stop recording instead of killing the
 * program with SIGBUS on its next store into the mapping.
 */
int ph_back_file(uint64_t end)
{
	char path[4200];
	int fd, r = 0;

	if (__atomic_load_n(&backed, ACQUIRE) >= end)
		return 0;
	ph_spin_lock(&backed_lock);
	if (backed < end) {
		uint64_t want = (end + (1u << 20) - 1) & ~(uint64_t)((1u << 20) - 1);

		if (want > ph_reserve)
			want = ph_reserve;
		if (!ph_file_path(path, sizeof(path), ".heap") ||
		    (fd = open(path, O_WRONLY | O_CLOEXEC)) < 0) {
			r = -1;
		} else {
			if (fallocate(fd, 0, (off_t)backed, (off_t)(want - backed)) == 0)
				__atomic_store_n(&backed, want, RELEASE);
			else if (errno == EOPNOTSUPP || errno == ENOSYS)	/* cannot tell: go on */
				__atomic_store_n(&backed, ph_reserve, RELEASE);
			else
				r = -1;
			close(fd);
		}
	}
	ph_spin_unlock(&backed_lock);
	if (r < 0)
		ph_mark_failed();
	return r;
}

void *ph_arena_alloc(size_t n, uint64_t *off_out)
{
	uint64_t off = __atomic_fetch_add(&H->used, (n + 63) & ~(size_t)63, RELAXED);

	if (off + n > ph_reserve || ph_back_file(off + n) < 0)
		return NULL;
	*off_out = off;
	return ph_base + off;
}

char *ph_file_path(char *buf, size_t n, const char *suffix)
{
	char t[128];

	if (!ph_cat(t, sizeof(t), "/", tag, suffix) || !ph_cat(buf, n, ph_out_dir, t, ""))
		return NULL;
	return buf;
}

int ph_append_file(const char *suffix, const char *data, size_t len, int trunc)
{
	char path[4200];
	int fd, r;

	if (!ph_file_path(path, sizeof(path), suffix))
		return -1;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (trunc ? O_TRUNC : 0), 0644);
	if (fd < 0) {
		if (trunc)
			ph_say(path, strerror(errno));
		ph_mark_failed();
		return -1;
	}
	r = ph_write_all(fd, data, len);
	if (close(fd) < 0)
		r = -1;
	if (r < 0)
		ph_mark_failed();
	return r;
}

int ph_open_data(int after_fork)
{
	char path[4200], num[32], num2[32];
	static const uint64_t sizes[] = { PH_RESERVE, 8ULL << 30, 1ULL << 30, 256ULL << 20 };
	unsigned k, seq;
	int fd = -1;
	void *m = MAP_FAILED;
	char *pidstr = ph_utoa(num + 32, (uint64_t)getpid());

	for (seq = 0; seq < 1000; seq++) {
		if (seq == 0)
			ph_cat(tag, sizeof(tag), pidstr, "", "");
		else
			ph_cat(tag, sizeof(tag), pidstr, ".", ph_utoa(num2 + 32, seq));
		if (!ph_file_path(path, sizeof(path), ".heap"))
			return -1;
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0) {
		ph_say(path, strerror(errno));
		return -1;
	}
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		if (ftruncate(fd, (off_t)sizes[k]) < 0)
			continue;
		if (after_fork) {
			/* Same address and size, new file: the child's pointers stay valid. */
			if (ftruncate(fd, (off_t)ph_reserve) < 0 || ph_write_all(fd, ph_base, H->used) < 0)
				break;
			m = mmap(ph_base, ph_reserve, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_FIXED | MAP_NORESERVE, fd, 0);
			break;
		}
		m = mmap(NULL, sizes[k], PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
		if (m != MAP_FAILED) {
			ph_reserve = sizes[k];
			break;
		}
	}
	if (m == MAP_FAILED) {
		ph_say(path, "cannot map the record file");
		close(fd);
		unlink(path);
		return -1;
	}
	close(fd);		/* the mapping stays */
	ph_base = m;
	H = m;
	if (seq > 0 && !after_fork)
		H->flags |= PH_FLAG_EXECED;
	if (after_fork) {
		backed = H->used;	/* written out above */
		backed_lock = 0;
	}
	return 0;
}
