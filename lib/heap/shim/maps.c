/*
 * /proc/self/maps and the loader's list of objects (internal.h): the
 * executable mappings the frame-pointer walk trusts (a return address
 * elsewhere is garbage), the mappings saved for the post-processor
 * (TAG.maps: the union of every look, so that code unloaded since still
 * has a name), and dlclose, which saves them before a library goes.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "heap/shim/internal.h"

uintptr_t ph_self_lo, ph_self_hi;

/*
 * The executable segments of the loaded objects. Two tables: the walk
 * reads the published one without a lock while code_rebuild() fills the
 * other: at start, and when a walk meets an unknown return address while
 * the loader's list of objects has changed (dlopen).
 */
#define CODE_MAX 1024
static struct ph_code_range code_tab[2][CODE_MAX];
static unsigned code_n[2];
static int code_cur;
static int code_lock;
static unsigned code_objects;		/* objects on the loader's list at the last build */
static int map_readers, map_closing;	/* the loader's list is read; dlclose waits */
static int maps_lock;
static unsigned long long dl_adds_seen;


/* Raw system calls: the malloc path calls nothing in glibc that may lock or allocate. */
static long raw_open(const char *path)
{
	return syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
}

static long raw_read(int fd, char *buf, size_t n)
{
	long r;

	do
		r = syscall(SYS_read, fd, buf, n);
	while (r < 0 && errno == EINTR);
	return r;
}

static uintptr_t hex_field(const char **p, const char *end)
{
	uintptr_t v = 0;

	for (; *p < end; (*p)++) {
		char c = **p;

		if (c >= '0' && c <= '9')
			v = v << 4 | (uintptr_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v << 4 | (uintptr_t)(c - 'a' + 10);
		else
			break;
	}
	return v;
}

/*
 * Read with raw system calls into a stack buffer: usable on the malloc
 * path, where nothing in glibc that may lock or allocate can be called.
 */
int ph_maps_each(int (*fn)(uintptr_t lo, uintptr_t hi, const char *rest, size_t len, void *arg),
		 void *arg)
{
	char buf[4096];
	size_t have = 0;
	int fd = (int)raw_open("/proc/self/maps"), r = 0;

	if (fd < 0)
		return -1;
	while (!r) {
		long got = raw_read(fd, buf + have, sizeof(buf) - have);
		const char *p = buf, *end, *nl;

		if (got <= 0)
			break;
		end = buf + have + (size_t)got;
		while (!r && (nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
			uintptr_t lo = hex_field(&p, nl), hi;

			if (p < nl && *p == '-')
				p++;
			hi = hex_field(&p, nl);
			if (p < nl && *p == ' ')
				p++;
			r = fn(lo, hi, p, (size_t)(nl - p), arg);
			p = nl + 1;
		}
		have = (size_t)(end - p);
		if (have == sizeof(buf))
			have = 0;	/* a line longer than the buffer: drop it */
		memmove(buf, p, have);
	}
	syscall(SYS_close, fd);
	return r;
}


/* Saved lines of /proc/self/maps (file mappings), the union of every look. */
static char *maps_buf;
static size_t maps_len, maps_cap;
static char *maps_read;
static size_t maps_read_cap;

static int maps_grow(char **b, size_t *cap, size_t need)
{
	size_t ncap = *cap ? *cap : 65536;
	char *nb;

	while (ncap < need)
		ncap *= 2;
	if (ncap == *cap)
		return 0;
	nb = ph_map_anon(ncap);
	if (!nb)
		return -1;
	if (*b) {
		memcpy(nb, *b, *cap);
		munmap(*b, *cap);
	}
	*b = nb;
	*cap = ncap;
	return 0;
}

static int maps_has(const char *line, size_t len)
{
	const char *p = maps_buf, *end = maps_buf + maps_len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = (size_t)(nl - p);

		if (l == len && !memcmp(p, line, len))
			return 1;
		p = nl + 1;
	}
	return 0;
}

void ph_save_maps(void)
{
	char path[4200], tmp[4200];
	size_t len = 0;
	int fd;
	char *p, *end;

	ph_spin_lock(&maps_lock);
	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto out;
	for (;;) {
		ssize_t r;

		if (len + 65536 > maps_read_cap && maps_grow(&maps_read, &maps_read_cap, len + 65536) < 0)
			break;
		r = read(fd, maps_read + len, maps_read_cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	for (p = maps_read, end = maps_read + len; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *slash = memchr(p, '/', l), *vdso = memchr(p, '[', l);

		if ((slash || (vdso && l - (size_t)(vdso - p) >= 6 && !memcmp(vdso, "[vdso]", 6))) &&
		    !maps_has(p, l) && maps_grow(&maps_buf, &maps_cap, maps_len + l + 1) == 0) {
			memcpy(maps_buf + maps_len, p, l);
			maps_len += l;
			maps_buf[maps_len++] = '\n';
		}
		p += l + 1;
	}
	if (!ph_file_path(path, sizeof(path), ".maps") || !ph_file_path(tmp, sizeof(tmp), ".maps.tmp"))
		goto out;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		ph_mark_failed();
		goto out;
	}
	if ((ph_write_all(fd, maps_buf, maps_len) == 0) + (close(fd) == 0) == 2) {
		rename(tmp, path);
	} else {
		unlink(tmp);
		ph_mark_failed();
	}
out:
	ph_spin_unlock(&maps_lock);
}

static int count_adds(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(unsigned long long *)data = info->dlpi_adds;
	return 1;
}

static int find_self(struct dl_phdr_info *info, size_t size, void *data)
{
	uintptr_t me = (uintptr_t)data;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && me >= lo && me < lo + ph->p_memsz) {
			ph_self_lo = lo;
			ph_self_hi = lo + ph->p_memsz;
			return 1;
		}
	}
	return 0;
}

static int is_runtime(const char *path)
{
	const char *b = strrchr(path, '/');

	b = b ? b + 1 : path;
	return !strncmp(b, "libc.so", 7) || !strncmp(b, "ld-linux", 8) || !strncmp(b, "ld64.so", 7) ||
	       !strncmp(b, "libpthread.so", 13);
}

static int code_line(uintptr_t lo, uintptr_t hi, const char *rest, size_t len, void *arg)
{
	int next = *(int *)arg;
	const char *p = memchr(rest, '/', len), *b = p, *e = rest + len;
	char name[64];
	size_t n = 0;

	if (len < 4 || rest[2] != 'x' || code_n[next] >= CODE_MAX)
		return 0;
	if (p) {
		for (; p < e; p++)
			if (*p == '/')
				b = p + 1;
		n = (size_t)(e - b) < sizeof(name) - 1 ? (size_t)(e - b) : sizeof(name) - 1;
		memcpy(name, b, n);
	}
	name[n] = 0;
	code_tab[next][code_n[next]].lo = lo;
	code_tab[next][code_n[next]].hi = hi;
	code_tab[next][code_n[next]].runtime = n && is_runtime(name);
	code_n[next]++;
	return 0;
}

/* Objects loaded, counted on the loader's list (nodes go only in dlclose, which waits for us). */
static unsigned objects_loaded(void)
{
	const struct link_map *l;
	unsigned n = 0;

	__atomic_add_fetch(&map_readers, 1, ACQUIRE);
	if (!__atomic_load_n(&map_closing, ACQUIRE))
		for (l = _r_debug.r_map; l && n < 1u << 20; l = l->l_next)
			n++;
	__atomic_sub_fetch(&map_readers, 1, RELEASE);
	return n;
}

/*
 * Refill the table of executable mappings from /proc/self/maps (raw
 * system calls: callable from the malloc path) into the unpublished
 * table, then publish it. /proc/self/maps is sorted by address.
 */
static void code_rebuild(void)
{
	int next;
	unsigned objs = objects_loaded();

	ph_spin_lock(&code_lock);
	next = !__atomic_load_n(&code_cur, ACQUIRE);
	code_n[next] = 0;
	if (ph_maps_each(code_line, &next) == 0) {
		__atomic_store_n(&code_objects, objs, RELAXED);
		__atomic_store_n(&code_cur, next, RELEASE);
	}
	ph_spin_unlock(&code_lock);
}

/*
 * The frame-pointer walk met a return address outside every known code
 * mapping: garbage, or code loaded since the table was built (dlopen).
 * Rebuild when the loader's list changed; returns 1 if it did.
 */
int ph_code_refresh(void)
{
	if (objects_loaded() == __atomic_load_n(&code_objects, RELAXED))
		return 0;
	code_rebuild();
	return 1;
}

const struct ph_code_range *ph_code_table(unsigned *n)
{
	int cur = __atomic_load_n(&code_cur, ACQUIRE);

	*n = code_n[cur];
	return code_tab[cur];
}

void ph_code_init(void)
{
	dl_iterate_phdr(find_self, (void *)(uintptr_t)&ph_code_init);
	code_rebuild();
}

void ph_maps_init(void)
{
	dl_iterate_phdr(count_adds, &dl_adds_seen);
	ph_save_maps();
}

void ph_maps_refresh(void)
{
	unsigned long long adds = 0;

	dl_iterate_phdr(count_adds, &adds);
	if (adds != dl_adds_seen) {
		dl_adds_seen = adds;
		ph_save_maps();
	}
}

void ph_maps_after_fork(void)
{
	maps_lock = code_lock = 0;
	map_readers = map_closing = 0;	/* other threads' walks and dlcloses are gone */
}

void ph_maps_restart(void)
{
	maps_len = 0;
	ph_save_maps();
}

/* dlclose: save the mappings of a library about to go, and wait for walks of the list. */
EXPORT int dlclose(void *handle)
{
	static int (*real_dlclose)(void *);
	int r;

	if (!real_dlclose)
		real_dlclose = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
	if (ph_active && !T.guard) {
		/* Its code may be on recorded stacks: save where it was mapped. */
		T.guard++;
		ph_save_maps();
		T.guard--;
	}
	/* No walk of the loader's list while nodes may be freed. */
	__atomic_add_fetch(&map_closing, 1, ACQUIRE);
	while (__atomic_load_n(&map_readers, ACQUIRE))
		sched_yield();
	r = real_dlclose ? real_dlclose(handle) : -1;
	__atomic_sub_fetch(&map_closing, 1, RELEASE);
	return r;
}

