/*
 * The GPU device set, sample dispatch, and TSV row formatting (gpu.h):
 * the generic layer, which reaches backends only through their
 * struct prof_gpu_backend.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu/gpu.h"
#include "base/xalloc.h"

const char *const prof_gpu_throttle_names[PROF_GPU_THROTTLE_NREASONS] = {
	"gpu_idle", "app_clocks", "sw_power_cap", "hw_slowdown", "sync_boost",
	"sw_thermal", "hw_thermal", "hw_power_brake", "display_clocks",
};

static void copy_str(char *dst, size_t n, const char *src)
{
	size_t len = src ? strlen(src) : 0;

	if (len >= n)
		len = n - 1;
	memcpy(dst, src ? src : "", len);
	dst[len] = '\0';
	/* Tabs and newlines would break a TSV cell. */
	for (size_t i = 0; i < len; i++)
		if (dst[i] == '\t' || dst[i] == '\n' || dst[i] == '\r')
			dst[i] = ' ';
}

struct prof_gpu_dev *prof_gpu_set_add(struct prof_gpu_set *set,
				      const struct prof_gpu_backend *be,
				      const char *name, const char *uuid, void *priv)
{
	struct prof_gpu_dev *d;

	PROF_GROW(set->devs, set->ndevs + 1, set->cap);
	d = &set->devs[set->ndevs];
	memset(d, 0, sizeof(*d));
	d->index = (unsigned)set->ndevs++;
	d->backend = be;
	copy_str(d->name, sizeof(d->name), name);
	copy_str(d->uuid, sizeof(d->uuid), uuid);
	d->priv = priv;
	return d;
}

void prof_gpu_set_release(struct prof_gpu_set *set)
{
	for (size_t i = 0; i < set->ndevs; i++)
		if (set->devs[i].backend->release)
			set->devs[i].backend->release(&set->devs[i]);
	free(set->devs);
	memset(set, 0, sizeof(*set));
}

int prof_gpu_set_reaped(struct prof_gpu_set *set, pid_t pid)
{
	for (size_t i = 0; i < set->ndevs; i++) {
		if (set->devs[i].helper_pid == pid) {
			set->devs[i].helper_pid = 0;
			return 1;
		}
	}
	return 0;
}

const char *prof_gpu_sysfs_root(void)
{
	const char *r = getenv("PROFGPU_SYSFS_ROOT");

	return r && *r ? r : "/sys";
}

int prof_gpu_sample(struct prof_gpu_dev *d, uint64_t time_ns, struct prof_gpu_sample *s)
{
	memset(s, 0, sizeof(*s));
	s->time_ns = time_ns;
	return d->backend->sample(d, s);
}

int prof_gpu_push_fd(const struct prof_gpu_dev *d)
{
	return d->backend->wait_fd(d);
}

long prof_gpu_push_read(struct prof_gpu_dev *d)
{
	return d->backend->read(d);
}

int prof_gpu_push_next(struct prof_gpu_dev *d, struct prof_gpu_sample *s, int64_t *stamp_s,
		       int *have_stamp)
{
	memset(s, 0, sizeof(*s));
	*have_stamp = 0;
	return d->backend->next(d, s, stamp_s, have_stamp);
}

unsigned long prof_gpu_bad_input(const struct prof_gpu_dev *d)
{
	return d->backend->bad_input ? d->backend->bad_input(d) : 0;
}

size_t prof_gpu_format_num(char *buf, size_t n, double v, int decimals)
{
	int len = snprintf(buf, n, "%.*f", decimals, v);

	if (len < 0 || (size_t)len >= n)
		return n ? strlen(buf) : 0;
	if (decimals > 0) {
		while (len > 0 && buf[len - 1] == '0')
			len--;
		if (len > 0 && buf[len - 1] == '.')
			len--;
		buf[len] = '\0';
	}
	if (strcmp(buf, "-0") == 0)
		memcpy(buf, "0", 2), len = 1;
	return (size_t)len;
}

size_t prof_gpu_format_throttle(char *buf, size_t n, uint64_t mask)
{
	size_t len = 0;

	if (!n)
		return 0;
	buf[0] = '\0';
	if (mask == 0) {
		copy_str(buf, n, "none");
		return strlen(buf);
	}
	for (int i = 0; i < PROF_GPU_THROTTLE_NREASONS; i++) {
		if (!(mask & (1ull << i)))
			continue;
		len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? "," : "",
					prof_gpu_throttle_names[i]);
		if (len >= n)
			return n - 1;
	}
	if (mask >> PROF_GPU_THROTTLE_NREASONS && len < n)
		len += (size_t)snprintf(buf + len, n - len, "%sother_0x%llx", len ? "," : "",
					(unsigned long long)(mask >> PROF_GPU_THROTTLE_NREASONS
							     << PROF_GPU_THROTTLE_NREASONS));
	return len < n ? len : n - 1;
}

/* A small append-only writer into a fixed buffer. */
struct row {
	char *p;
	size_t n, len;
};

static void row_add(struct row *r, const char *s, size_t len)
{
	if (r->len + len >= r->n)
		len = r->len < r->n - 1 ? r->n - 1 - r->len : 0;
	memcpy(r->p + r->len, s, len);
	r->len += len;
	r->p[r->len] = '\0';
}

static void row_str(struct row *r, const char *s)
{
	row_add(r, s, strlen(s));
}

static void row_tab(struct row *r)
{
	row_add(r, "\t", 1);
}

static void row_u64(struct row *r, int have, uint64_t v)
{
	char tmp[32];

	if (have)
		row_add(r, tmp, (size_t)snprintf(tmp, sizeof(tmp), "%llu",
						 (unsigned long long)v));
}

static void row_num(struct row *r, int have, double v, int decimals)
{
	char tmp[64];

	if (have)
		row_add(r, tmp, prof_gpu_format_num(tmp, sizeof(tmp), v, decimals));
}

size_t prof_gpu_format_row(char *buf, size_t n, const struct prof_gpu_dev *d,
			   const struct prof_gpu_sample *s)
{
	struct row r = { buf, n, 0 };
	unsigned h = s->have;
	char tmp[256];

	row_u64(&r, 1, s->time_ns), row_tab(&r);
	row_u64(&r, 1, d->index), row_tab(&r);
	row_str(&r, d->name), row_tab(&r);
	row_str(&r, d->uuid), row_tab(&r);
	row_num(&r, h & PROF_GPU_HAVE_UTIL, s->util_pct, 3), row_tab(&r);
	row_num(&r, h & PROF_GPU_HAVE_MEM_UTIL, s->mem_util_pct, 3), row_tab(&r);
	row_u64(&r, h & PROF_GPU_HAVE_MEM_USED, s->mem_used), row_tab(&r);
	row_u64(&r, h & PROF_GPU_HAVE_MEM_TOTAL, s->mem_total), row_tab(&r);
	row_num(&r, h & PROF_GPU_HAVE_TEMP, s->temp_c, 3), row_tab(&r);
	row_num(&r, h & PROF_GPU_HAVE_POWER, s->power_w, 3), row_tab(&r);
	row_num(&r, h & PROF_GPU_HAVE_ENERGY, s->energy_j, 3), row_tab(&r);
	row_u64(&r, h & PROF_GPU_HAVE_SM_CLOCK, s->sm_clock_mhz), row_tab(&r);
	row_u64(&r, h & PROF_GPU_HAVE_MEM_CLOCK, s->mem_clock_mhz), row_tab(&r);
	row_u64(&r, h & PROF_GPU_HAVE_PCIE_RX, s->pcie_rx), row_tab(&r);
	row_u64(&r, h & PROF_GPU_HAVE_PCIE_TX, s->pcie_tx), row_tab(&r);
	if (h & PROF_GPU_HAVE_THROTTLE)
		row_add(&r, tmp, prof_gpu_format_throttle(tmp, sizeof(tmp), s->throttle));
	row_add(&r, "\n", 1);
	return r.len;
}

size_t prof_gpu_format_proc_row(char *buf, size_t n, uint64_t time_ns, unsigned gpu,
				const struct prof_gpu_proc *p, const char *comm)
{
	struct row r = { buf, n, 0 };
	char name[64];

	copy_str(name, sizeof(name), comm);
	row_u64(&r, 1, time_ns), row_tab(&r);
	row_u64(&r, 1, gpu), row_tab(&r);
	row_u64(&r, 1, p->pid), row_tab(&r);
	row_str(&r, name), row_tab(&r);
	row_u64(&r, p->have & PROF_GPU_HAVE_MEM_USED, p->mem_used), row_tab(&r);
	row_num(&r, p->have & PROF_GPU_HAVE_UTIL, p->sm_util_pct, 3), row_tab(&r);
	row_num(&r, p->have & PROF_GPU_HAVE_MEM_UTIL, p->mem_util_pct, 3);
	row_add(&r, "\n", 1);
	return r.len;
}
