/*
 * NVIDIA Jetson through tegrastats(1) output (gpu.h). Jetson boards have
 * no NVML; tegrastats prints one line per interval such as
 *
 *   RAM 2235/30536MB (lfb 6370x4MB) ... EMC_FREQ 0%@2133 GR3D_FREQ 45%@[1300,1300]
 *   ... GPU@29.5C ... VDD_GPU_SOC 2666mW/2666mW VDD_CPU_CV 400mW/400mW
 *
 * (older boards: "POM_5V_GPU 1200/1150" in mW without the unit, newer
 * releases: a leading "11-22-2026 03:48:47" timestamp). A line is one
 * sample of the Jetson's one GPU.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "base/error.h"
#include "base/sysfile.h"
#include "gpu/gpu.h"
#include "base/xalloc.h"

extern char **environ;

#define TEGRA_BUF 8192

struct tegra_dev {
	int fd;
	int eof;
	int skipping;		/* dropping the rest of an overlong line */
	size_t start, end;	/* unconsumed bytes buf[start..end) */
	unsigned long lineno, bad;
	char label[256];
	char buf[TEGRA_BUF];
};

/* Parse a decimal number at p (length n); 0 on success. */
static int num(const char *p, size_t n, double *v)
{
	char tmp[48], *end;

	if (n == 0 || n >= sizeof(tmp))
		return -1;
	memcpy(tmp, p, n);
	tmp[n] = '\0';
	if (!((tmp[0] >= '0' && tmp[0] <= '9') || tmp[0] == '-'))
		return -1;
	*v = strtod(tmp, &end);
	/* "-inf", "-nan" start like numbers: no value of a sample */
	return end == tmp || !isfinite(*v) ? -1 : (int)(end - tmp);
}

/*
 * v as an unsigned count; 0 on success, -1 when it is negative or beyond
 * 64 bits (converting those is undefined behaviour, and no clock or
 * memory size is either).
 */
static int to_u64(double v, uint64_t *out)
{
	if (!(v >= 0 && v < 18446744073709551616.0))
		return -1;
	*out = (uint64_t)v;
	return 0;
}

/* "45%", "45%@1300", "45%@[1300,1300]": percent and optional clock. */
static int pct_at(const char *p, size_t n, double *pct, double *mhz, int *have_mhz)
{
	int used = num(p, n, pct);
	size_t i;

	*have_mhz = 0;
	if (used <= 0 || (size_t)used >= n || p[used] != '%')
		return -1;
	i = (size_t)used + 1;
	if (i < n && p[i] == '@') {
		i++;
		if (i < n && p[i] == '[')
			i++;
		if (num(p + i, n - i, mhz) > 0)
			*have_mhz = 1;
	}
	return 0;
}

/* Scale for a size unit letter as tegrastats prints it (kB, MB, GB). */
static double unit_scale(char c)
{
	switch (c) {
	case 'k': case 'K': return 1024.0;
	case 'M': return 1048576.0;
	case 'G': return 1073741824.0;
	default: return 0;
	}
}

/* "2235/30536MB": used and total in bytes. */
static int ram(const char *p, size_t n, uint64_t *used, uint64_t *total)
{
	double u, t, scale;
	const char *slash = memchr(p, '/', n);
	int k;

	if (!slash || num(p, (size_t)(slash - p), &u) != slash - p)
		return -1;
	k = num(slash + 1, n - (size_t)(slash + 1 - p), &t);
	if (k <= 0 || slash + 1 + k >= p + n)
		return -1;
	scale = unit_scale(slash[1 + k]);
	if (scale == 0 || to_u64(u * scale, used) != 0 || to_u64(t * scale, total) != 0)
		return -1;
	return 0;
}

/* Nonzero if the token is an upper-case rail name holding "GPU". */
static int gpu_rail(const char *p, size_t n)
{
	int has = 0;

	if (n < 3)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((p[i] >= 'A' && p[i] <= 'Z') || (p[i] >= '0' && p[i] <= '9') || p[i] == '_'))
			return 0;
	for (size_t i = 0; i + 3 <= n; i++)
		if (memcmp(p + i, "GPU", 3) == 0)
			has = 1;
	return has && !(n == 9 && memcmp(p, "GR3D_FREQ", 9) == 0);
}

/* "2666mW/2666mW" or "1200/1150": the current reading in watts. */
static int rail_power(const char *p, size_t n, double *w)
{
	double mw;
	int k = num(p, n, &mw);

	if (k <= 0 || mw < 0)
		return -1;
	if ((size_t)k + 2 <= n && memcmp(p + k, "mW", 2) == 0)
		k += 2;
	if ((size_t)k >= n || p[k] != '/')
		return -1;
	*w = mw / 1000.0;
	return 0;
}

/* "11-22-2026" "03:48:47" -> seconds since the epoch (UTC). */
static int stamp(const char *d, size_t dn, const char *t, size_t tn, int64_t *out)
{
	struct tm tm;
	int mon, day, year, h, m, s;
	char buf[32];

	if (dn != 10 || tn != 8 || d[2] != '-' || d[5] != '-' || t[2] != ':' || t[5] != ':')
		return -1;
	memcpy(buf, d, 10);
	buf[10] = ' ';
	memcpy(buf + 11, t, 8);
	buf[19] = '\0';
	if (sscanf(buf, "%2d-%2d-%4d %2d:%2d:%2d", &mon, &day, &year, &h, &m, &s) != 6)
		return -1;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = year - 1900;
	tm.tm_mon = mon - 1;
	tm.tm_mday = day;
	tm.tm_hour = h;
	tm.tm_min = m;
	tm.tm_sec = s;
	*out = (int64_t)timegm(&tm);
	return 0;
}

int prof_gpu_tegra_parse(const char *line, size_t len, struct prof_gpu_sample *s,
			 int64_t *stamp_s, int *have_stamp)
{
	const char *tok[256];
	size_t toklen[256], ntok = 0, i = 0;
	int have_ram = 0, have_gr3d = 0, have_rail = 0;

	*have_stamp = 0;
	while (i < len && ntok < 256) {
		while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
			i++;
		if (i == len)
			break;
		tok[ntok] = line + i;
		while (i < len && line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
			i++;
		toklen[ntok] = (size_t)(line + i - tok[ntok]);
		ntok++;
	}
	if (ntok >= 2 && stamp(tok[0], toklen[0], tok[1], toklen[1], stamp_s) == 0)
		*have_stamp = 1;
	for (i = 0; i < ntok; i++) {
		const char *t = tok[i];
		size_t n = toklen[i];
		const char *next = i + 1 < ntok ? tok[i + 1] : NULL;
		size_t nn = next ? toklen[i + 1] : 0;
		double a, b;
		int hb;

		if (n == 3 && memcmp(t, "RAM", 3) == 0 && next &&
		    ram(next, nn, &s->mem_used, &s->mem_total) == 0) {
			s->have |= PROF_GPU_HAVE_MEM_USED | PROF_GPU_HAVE_MEM_TOTAL;
			have_ram = 1;
			i++;
		} else if (n == 9 && memcmp(t, "GR3D_FREQ", 9) == 0 && next &&
			   pct_at(next, nn, &a, &b, &hb) == 0) {
			s->util_pct = a;
			s->have |= PROF_GPU_HAVE_UTIL;
			if (hb && to_u64(b + 0.5, &s->sm_clock_mhz) == 0)
				s->have |= PROF_GPU_HAVE_SM_CLOCK;
			have_gr3d = 1;
			i++;
		} else if (n == 8 && memcmp(t, "EMC_FREQ", 8) == 0 && next &&
			   pct_at(next, nn, &a, &b, &hb) == 0) {
			s->mem_util_pct = a;
			s->have |= PROF_GPU_HAVE_MEM_UTIL;
			if (hb && to_u64(b + 0.5, &s->mem_clock_mhz) == 0)
				s->have |= PROF_GPU_HAVE_MEM_CLOCK;
			i++;
		} else if (n > 5 && strncasecmp(t, "GPU@", 4) == 0 && t[n - 1] == 'C' &&
			   num(t + 4, n - 5, &a) == (int)(n - 5)) {
			/* -256C marks a sensor that is off. */
			if (a > -200) {
				s->temp_c = a;
				s->have |= PROF_GPU_HAVE_TEMP;
			}
		} else if (!have_rail && gpu_rail(t, n) && next && rail_power(next, nn, &a) == 0) {
			s->power_w = a;
			s->have |= PROF_GPU_HAVE_POWER;
			have_rail = 1;
			i++;
		}
	}
	return have_ram || have_gr3d ? 0 : -1;
}

int prof_gpu_tegra_detect(const char *root, char *model, size_t n)
{
	char path[4096], buf[1024];
	ssize_t len;

	if (!root)
		root = prof_gpu_sysfs_root();
	snprintf(path, sizeof(path), "%s/firmware/devicetree/base/compatible", root);
	len = prof_read_small_file(path, buf, sizeof(buf));
	/* A NUL-separated list of strings. */
	if (len <= 0 || !memmem(buf, (size_t)len, "nvidia,tegra", 12))
		return 0;
	snprintf(path, sizeof(path), "%s/firmware/devicetree/base/model", root);
	len = prof_read_small_file(path, buf, sizeof(buf));
	while (len > 0 && (buf[len - 1] == '\0' || buf[len - 1] == '\n'))
		buf[--len] = '\0';
	snprintf(model, n, "%s", len > 0 ? buf : "NVIDIA Tegra");
	return 1;
}

/* Stop the tegrastats child unless the caller reaped it already. */
static void stop_helper(struct prof_gpu_dev *d)
{
	int st;

	if (!d->helper_pid)
		return;
	kill(d->helper_pid, SIGTERM);
	while (waitpid(d->helper_pid, &st, 0) < 0 && errno == EINTR)
		;
	d->helper_pid = 0;
}

static void tegra_release(struct prof_gpu_dev *d)
{
	struct tegra_dev *td = d->priv;

	stop_helper(d);
	if (!td)
		return;
	if (td->fd >= 0)
		close(td->fd);
	free(td);
	d->priv = NULL;
}

static int tegra_fd(const struct prof_gpu_dev *d)
{
	return ((const struct tegra_dev *)d->priv)->fd;
}

static long tegra_read(struct prof_gpu_dev *d)
{
	struct tegra_dev *td = d->priv;
	ssize_t n;

	if (td->eof)
		return 0;
	if (td->start > 0) {
		memmove(td->buf, td->buf + td->start, td->end - td->start);
		td->end -= td->start;
		td->start = 0;
	}
	if (td->end == sizeof(td->buf)) {
		/* No newline in a whole buffer: drop the line's start. */
		td->lineno++;
		td->bad++;
		prof_input_warn(td->label, td->lineno, "line longer than %d bytes skipped",
				TEGRA_BUF);
		td->end = 0;
		td->start = 0;
		td->skipping = 1;
		return -1;
	}
	do
		n = read(td->fd, td->buf + td->end, sizeof(td->buf) - td->end);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return -1;
		prof_warn_errno("%s: read", td->label);
		td->eof = 1;
		return -1;
	}
	if (n == 0)
		td->eof = 1;
	td->end += (size_t)n;
	return (long)n;
}

static int tegra_next(struct prof_gpu_dev *d, struct prof_gpu_sample *s, int64_t *stamp_s,
		      int *have_stamp)
{
	struct tegra_dev *td = d->priv;

	for (;;) {
		char *line = td->buf + td->start;
		size_t avail = td->end - td->start, len;
		char *nl = memchr(line, '\n', avail);

		if (td->skipping) {
			td->start = nl ? (size_t)(nl + 1 - td->buf) : td->end;
			td->skipping = !nl;
			if (!nl)
				return 0;
			continue;
		}
		if (nl) {
			len = (size_t)(nl - line);
			td->start += len + 1;
		} else if (td->eof && avail > 0) {
			len = avail;
			td->start = td->end;
		} else {
			return 0;
		}
		td->lineno++;
		while (len > 0 && line[len - 1] == '\r')
			len--;
		if (len == 0)
			continue;	/* blank lines are not samples */
		memset(s, 0, sizeof(*s));
		if (prof_gpu_tegra_parse(line, len, s, stamp_s, have_stamp) == 0)
			return 1;
		td->bad++;
		prof_input_warn(td->label, td->lineno, "not a tegrastats line (no RAM or GR3D_FREQ)");
	}
}

static unsigned long tegra_bad_input(const struct prof_gpu_dev *d)
{
	return ((const struct tegra_dev *)d->priv)->bad;
}

/* A push device: samples come from lines, nothing is polled. */
static const struct prof_gpu_backend tegra_backend = {
	.name = "tegrastats",
	.wait_fd = tegra_fd,
	.read = tegra_read,
	.next = tegra_next,
	.bad_input = tegra_bad_input,
	.release = tegra_release,
};

struct prof_gpu_dev *prof_gpu_tegra_open(struct prof_gpu_set *set, int fd, const char *name,
					 const char *label)
{
	struct tegra_dev *td = xcalloc(1, sizeof(*td));

	td->fd = fd;
	snprintf(td->label, sizeof(td->label), "%s", label);
	return prof_gpu_set_add(set, &tegra_backend, name, "", td);
}

/* Start "tegrastats --interval MS" with its stdout on a pipe; returns the fd or -1. */
static int spawn_tegrastats(uint64_t interval_ns, pid_t *pid)
{
	char ms[32];
	char *argv[] = { (char *)"tegrastats", (char *)"--interval", ms, NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none;
	int pfd[2], err;

	snprintf(ms, sizeof(ms), "%llu",
		 (unsigned long long)(interval_ns / 1000000 ? interval_ns / 1000000 : 1));
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		prof_warn_errno("pipe");
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], STDOUT_FILENO);
	posix_spawnattr_init(&attr);
	sigemptyset(&none);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
	err = posix_spawnp(pid, "tegrastats", &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	close(pfd[1]);
	if (err) {
		errno = err;
		prof_warn_errno("cannot run tegrastats");
		close(pfd[0]);
		return -1;
	}
	return pfd[0];
}

struct prof_gpu_dev *prof_gpu_tegra_spawn(struct prof_gpu_set *set, uint64_t interval_ns,
					  const char *name)
{
	struct prof_gpu_dev *d;
	pid_t pid = 0;
	int fd = spawn_tegrastats(interval_ns, &pid);

	if (fd < 0)
		return NULL;
	d = prof_gpu_tegra_open(set, fd, name, "tegrastats");
	d->live = 1;
	d->helper_pid = pid;
	return d;
}
