/*
 * AMD GPUs through the amdgpu driver's sysfs files (gpu.h).
 *
 * ROOT/class/drm/cardN/device (ROOT = $PROFGPU_SYSFS_ROOT or /sys) is an
 * amdgpu device when its vendor file reads 0x1002 and gpu_busy_percent
 * exists. Per sample, each attribute is opened relative to the device
 * directory and read: a device that disappears (its directory gone,
 * ENODEV) is lost; a missing attribute is an empty cell.
 *
 *   gpu_busy_percent        util_pct
 *   mem_busy_percent        mem_util_pct
 *   mem_info_vram_used      mem_used_bytes
 *   mem_info_vram_total     mem_total_bytes
 *   hwmon/hwmonN/temp1_input     temp_c (millidegrees)
 *   hwmon/hwmonN/power1_average  power_w (microwatts), else power1_input
 *   hwmon/hwmonN/freq1_input     sm_clock_mhz (Hz; sclk)
 *   hwmon/hwmonN/freq2_input     mem_clock_mhz (Hz; mclk)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/buf.h"
#include "gpu/gpu.h"
#include "base/xalloc.h"

struct amd_dev {
	int dirfd;		/* the device directory */
	int hwmonfd;		/* its first hwmon directory, or -1 */
};

/*
 * Read a small attribute relative to dirfd into buf. Returns the length,
 * -1 if it is absent or unreadable, PROF_GPU_LOST if the device is gone.
 */
static int read_attr(int dirfd, const char *name, char *buf, size_t n)
{
	ssize_t len;
	int fd;

	if (dirfd < 0)
		return -1;
	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENODEV ? PROF_GPU_LOST : -1;
	len = read(fd, buf, n - 1);
	if (len < 0 && errno == ENODEV) {
		close(fd);
		return PROF_GPU_LOST;
	}
	close(fd);
	if (len < 0)
		return -1;
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' ' || buf[len - 1] == '\0'))
		len--;
	buf[len] = '\0';
	return (int)len;
}

/* An unsigned integer attribute; 1 if read, 0 if not, PROF_GPU_LOST. */
static int read_u64(int dirfd, const char *name, uint64_t *v)
{
	char buf[64], *end;
	unsigned long long x;
	int len = read_attr(dirfd, name, buf, sizeof(buf));

	if (len == PROF_GPU_LOST)
		return PROF_GPU_LOST;
	if (len <= 0 || buf[0] == '-')
		return 0;
	errno = 0;
	x = strtoull(buf, &end, 10);
	if (errno || *end)
		return 0;
	*v = x;
	return 1;
}

static int amd_sample(struct prof_gpu_dev *d, struct prof_gpu_sample *s)
{
	struct amd_dev *ad = d->priv;
	uint64_t v;
	int r;

	/*
	 * The busy file decides whether the device is still there: it existed
	 * when the device was found, so its absence means the device is gone.
	 */
	r = read_u64(ad->dirfd, "gpu_busy_percent", &v);
	if (r == PROF_GPU_LOST || (r == 0 && faccessat(ad->dirfd, "gpu_busy_percent", F_OK, 0) < 0 &&
				   (errno == ENOENT || errno == ENODEV)))
		return PROF_GPU_LOST;
	if (r > 0) {
		s->util_pct = (double)v;
		s->have |= PROF_GPU_HAVE_UTIL;
	}
	if (read_u64(ad->dirfd, "mem_busy_percent", &v) > 0) {
		s->mem_util_pct = (double)v;
		s->have |= PROF_GPU_HAVE_MEM_UTIL;
	}
	if (read_u64(ad->dirfd, "mem_info_vram_used", &v) > 0) {
		s->mem_used = v;
		s->have |= PROF_GPU_HAVE_MEM_USED;
	}
	if (read_u64(ad->dirfd, "mem_info_vram_total", &v) > 0) {
		s->mem_total = v;
		s->have |= PROF_GPU_HAVE_MEM_TOTAL;
	}
	if (read_u64(ad->hwmonfd, "temp1_input", &v) > 0) {
		s->temp_c = v / 1000.0;
		s->have |= PROF_GPU_HAVE_TEMP;
	}
	if (read_u64(ad->hwmonfd, "power1_average", &v) > 0 ||
	    read_u64(ad->hwmonfd, "power1_input", &v) > 0) {
		s->power_w = v / 1e6;
		s->have |= PROF_GPU_HAVE_POWER;
	}
	if (read_u64(ad->hwmonfd, "freq1_input", &v) > 0) {
		s->sm_clock_mhz = (v + 500000) / 1000000;
		s->have |= PROF_GPU_HAVE_SM_CLOCK;
	}
	if (read_u64(ad->hwmonfd, "freq2_input", &v) > 0) {
		s->mem_clock_mhz = (v + 500000) / 1000000;
		s->have |= PROF_GPU_HAVE_MEM_CLOCK;
	}
	return 0;
}

static void amd_release(struct prof_gpu_dev *d)
{
	struct amd_dev *ad = d->priv;

	if (!ad)
		return;
	if (ad->dirfd >= 0)
		close(ad->dirfd);
	if (ad->hwmonfd >= 0)
		close(ad->hwmonfd);
	free(ad);
	d->priv = NULL;
}

static const struct prof_gpu_backend amdgpu_backend = {
	.name = "amdgpu",
	.sample = amd_sample,
	.processes = NULL,
	.release = amd_release,
};

/* The lowest-numbered hwmon directory under the device, or -1. */
static int open_hwmon(int devfd)
{
	int fd = openat(devfd, "hwmon", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir;
	struct dirent *e;
	long best = -1;
	char name[64];

	if (fd < 0)
		return -1;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return -1;
	}
	while ((e = readdir(dir))) {
		char *end;
		long n;

		if (strncmp(e->d_name, "hwmon", 5) != 0)
			continue;
		n = strtol(e->d_name + 5, &end, 10);
		if (end != e->d_name + 5 && !*end && (best < 0 || n < best))
			best = n;
	}
	if (best < 0) {
		closedir(dir);
		return -1;
	}
	snprintf(name, sizeof(name), "hwmon%ld", best);
	fd = openat(dirfd(dir), name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	closedir(dir);
	return fd;
}

static int card_cmp(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

int prof_gpu_amdgpu_open(struct prof_gpu_set *set, const char *root, struct prof_buf *why)
{
	char path[4096];
	long *cards = NULL;
	size_t ncards = 0, cap = 0;
	struct dirent *e;
	DIR *dir;
	int added = 0;

	if (!root)
		root = prof_gpu_sysfs_root();
	snprintf(path, sizeof(path), "%s/class/drm", root);
	dir = opendir(path);
	if (!dir) {
		prof_buf_addf(why, "no amdgpu card under %s", path);
		return 0;
	}
	while ((e = readdir(dir))) {
		char *end;
		long n;

		/* "card0", not connectors such as "card0-DP-1". */
		if (strncmp(e->d_name, "card", 4) != 0)
			continue;
		n = strtol(e->d_name + 4, &end, 10);
		if (end == e->d_name + 4 || *end)
			continue;
		PROF_GROW(cards, ncards + 1, cap);
		cards[ncards++] = n;
	}
	closedir(dir);
	qsort(cards, ncards, sizeof(*cards), card_cmp);
	for (size_t i = 0; i < ncards; i++) {
		char vendor[32], name[128], uuid[128], id[32];
		struct amd_dev *ad;
		int fd;

		snprintf(path, sizeof(path), "%s/class/drm/card%ld/device", root, cards[i]);
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (read_attr(fd, "vendor", vendor, sizeof(vendor)) <= 0 ||
		    strcmp(vendor, "0x1002") != 0 || faccessat(fd, "gpu_busy_percent", R_OK, 0) < 0) {
			close(fd);
			continue;
		}
		if (read_attr(fd, "product_name", name, sizeof(name)) <= 0) {
			if (read_attr(fd, "device", id, sizeof(id)) <= 0)
				snprintf(id, sizeof(id), "card%ld", cards[i]);
			snprintf(name, sizeof(name), "AMD GPU %s", id);
		}
		if (read_attr(fd, "unique_id", uuid, sizeof(uuid)) <= 0) {
			/* The PCI address the device link points at, if any. */
			char link[4096];
			ssize_t len = readlink(path, link, sizeof(link) - 1);

			uuid[0] = '\0';
			if (len > 0) {
				const char *slash;

				link[len] = '\0';
				slash = strrchr(link, '/');
				slash = slash ? slash + 1 : link;
				snprintf(uuid, sizeof(uuid), "%.127s", slash);
			}
		}
		ad = xcalloc(1, sizeof(*ad));
		ad->dirfd = fd;
		ad->hwmonfd = open_hwmon(fd);
		prof_gpu_set_add(set, &amdgpu_backend, name, uuid, ad);
		added++;
	}
	free(cards);
	if (!added)
		prof_buf_addf(why, "no amdgpu card under %s/class/drm", root);
	return added;
}
