#include <ctype.h>
#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "base/error.h"
#include "base/sysfile.h"
#include "base/units.h"
#include "base/xalloc.h"
#include "gpu/gpu.h"
#include "gpu/host.h"

/* One process of /proc, as one sample sees it. */
struct prof_host_proc {
	pid_t pid, ppid;
	double cpu_s;			/* utime + stime + cutime + cstime */
	double children_cpu_s;		/* cutime + cstime: its reaped children's */
	uint64_t threads, major_faults;
	int member;
};

/* ---- /proc/PID/stat ---- */

/*
 * Parse a /proc/PID/stat line: "pid (comm) S ppid ...": comm may hold
 * spaces and parentheses, so fields are counted after the last ')'.
 * Returns 0, or -1 when the line is not one.
 */
static int parse_stat(const char *buf, long ticks, struct prof_host_proc *p)
{
	const char *s = strrchr(buf, ')');
	unsigned long long v[20];
	long ppid;

	/* After ')': state(3) ppid(4) ... majflt(12) ... utime(14) stime(15)
	 * cutime(16) cstime(17) ... num_threads(20). */
	if (!s || sscanf(s + 1, " %*c %ld %*d %*d %*d %*d %*u %*u %*u %llu %*u %llu %llu %llu %llu "
			 "%*d %*d %llu", &ppid, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) != 7)
		return -1;
	p->ppid = (pid_t)ppid;
	p->major_faults = v[0];
	p->cpu_s = (double)(v[1] + v[2] + v[3] + v[4]) / (double)ticks;
	p->children_cpu_s = (double)(v[3] + v[4]) / (double)ticks;
	p->threads = v[5];
	return 0;
}

/* The parent of pid from /proc/PID/stat, or -1. */
static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512];
	struct prof_host_proc p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (prof_read_small_file(path, buf, sizeof(buf)) <= 0 || parse_stat(buf, 100, &p) < 0)
		return -1;
	return p.ppid;
}

int prof_gpu_pid_in_tree(pid_t pid, pid_t root, pid_t self)
{
	/* A bounded walk: pid chains are short, and a loop must not hang us. */
	for (int depth = 0; pid > 1 && depth < 4096; depth++) {
		if (pid == root || pid == self)
			return 1;
		pid = parent_of(pid);
	}
	return 0;
}

/* ---- the tree ---- */

/*
 * The CPU time of pid's threads, live and exited, in seconds to the
 * nanosecond (its process CPU clock), or -1. /proc/PID/stat counts in
 * clock ticks (10 ms): over a 100 ms interval that alone is 10 % of
 * error, a single thread shown at 110 %.
 */
static double process_cpu_s(pid_t pid)
{
	struct timespec ts;
	clockid_t clk;

	if (clock_getcpuclockid(pid, &clk) != 0 || clock_gettime(clk, &ts) != 0)
		return -1;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Add pid (its /proc/PID/stat) to the processes of this sample; 0 or -1 (gone). */
static int add_process(struct prof_host *h, pid_t pid)
{
	char path[1024], buf[1024];
	struct prof_host_proc p = { .pid = pid };
	double own;

	for (size_t i = 0; i < h->nprocs; i++)
		if (h->procs[i].pid == pid)
			return -1;	/* seen: a loop in a racing /proc */
	snprintf(path, sizeof(path), "%s/%d/stat", h->proc, (int)pid);
	if (prof_read_small_file(path, buf, sizeof(buf)) <= 0 || parse_stat(buf, h->ticks_per_s, &p) < 0)
		return -1;
	/* The real /proc (not a test root): its own time from its CPU clock. */
	if (h->real_proc && (own = process_cpu_s(pid)) >= 0) {
		p.cpu_s = own + p.children_cpu_s;
		if (pid == h->root)
			h->root_clock_ns = prof_now_ns();
	}
	PROF_GROW(h->procs, h->nprocs + 1, h->procs_cap);
	h->procs[h->nprocs++] = p;
	return 0;
}

/*
 * The tree of root, walked down through /proc/PID/task/TID/children (the
 * children each thread started): a few reads per process of the tree,
 * whatever else runs on the host.
 */
static void walk_tree(struct prof_host *h, pid_t root)
{
	size_t next = h->nprocs;

	if (add_process(h, root) < 0)
		return;
	for (; next < h->nprocs; next++) {
		char path[1024], buf[4096];
		struct dirent *e;
		DIR *d;

		snprintf(path, sizeof(path), "%s/%d/task", h->proc, (int)h->procs[next].pid);
		d = opendir(path);
		if (!d)
			continue;	/* exited meanwhile */
		while ((e = readdir(d))) {
			char *p, *end;

			if (!isdigit((unsigned char)e->d_name[0]))
				continue;
			snprintf(path, sizeof(path), "%s/%d/task/%s/children", h->proc,
				 (int)h->procs[next].pid, e->d_name);
			if (prof_read_small_file(path, buf, sizeof(buf)) < 0)
				continue;	/* the thread exited meanwhile */
			for (p = buf; *p; p = end) {
				long child = strtol(p, &end, 10);

				if (end == p)
					break;
				add_process(h, (pid_t)child);
			}
		}
		closedir(d);
	}
	for (size_t i = 0; i < h->nprocs; i++)
		h->procs[i].member = 1;
}

/* Without children files: every process of /proc, then the tree by parents. */
static void read_all_processes(struct prof_host *h)
{
	DIR *d = opendir(h->proc);
	struct dirent *e;
	int changed = 1;

	h->nprocs = 0;
	if (!d)
		return;
	while ((e = readdir(d)))
		if (isdigit((unsigned char)e->d_name[0]))
			add_process(h, (pid_t)atol(e->d_name));
	closedir(d);
	for (size_t i = 0; i < h->nprocs; i++)
		h->procs[i].member = h->procs[i].pid == h->root;
	while (changed) {
		changed = 0;
		for (size_t i = 0; i < h->nprocs; i++)
			for (size_t j = 0; !h->procs[i].member && j < h->nprocs; j++)
				if (h->procs[j].member && h->procs[j].pid == h->procs[i].ppid)
					h->procs[i].member = changed = 1;
	}
}

/* A "Key:  123 kB" value of /proc/PID/status in bytes, 0 when absent. */
static uint64_t status_kb(const char *status, const char *key)
{
	const char *p = strstr(status, key);

	return p ? strtoull(p + strlen(key), NULL, 10) * 1024 : 0;
}

static uint64_t status_count(const char *status, const char *key)
{
	const char *p = strstr(status, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

/*
 * The context switches of pid's threads: /proc/PID/status counts only
 * the main thread's, each thread's are in /proc/PID/task/TID/status.
 * Without a task directory (a test root, a process just gone): the main
 * thread's, from status (its text in buf).
 */
static uint64_t thread_switches(const struct prof_host *h, pid_t pid, const char *status)
{
	char path[1024], buf[4096];
	struct dirent *e;
	uint64_t n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%d/task", h->proc, (int)pid);
	if (!(d = opendir(path)))
		return status_count(status, "\nvoluntary_ctxt_switches:") +
		       status_count(status, "\nnonvoluntary_ctxt_switches:");
	while ((e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "%s/%d/task/%s/status", h->proc, (int)pid, e->d_name);
		if (prof_read_small_file(path, buf, sizeof(buf)) > 0)
			n += status_count(buf, "\nvoluntary_ctxt_switches:") +
			     status_count(buf, "\nnonvoluntary_ctxt_switches:");
	}
	closedir(d);
	return n;
}

/* The tree's sums into s and c (c: the counters rates come from). */
static void sample_tree(struct prof_host *h, struct prof_host_sample *s,
			struct prof_host_counters *c)
{
	char path[1024], buf[4096];
	int io_ok = 1, swap_seen = 0;

	h->nprocs = 0;
	if (h->children_files)
		walk_tree(h, h->root);
	else
		read_all_processes(h);
	for (size_t i = 0; i < h->nprocs; i++) {
		const struct prof_host_proc *p = &h->procs[i];

		if (!p->member)
			continue;
		s->procs++;
		s->threads += p->threads;
		c->tree_cpu_s += p->cpu_s;
		c->major_faults += p->major_faults;
		snprintf(path, sizeof(path), "%s/%d/status", h->proc, (int)p->pid);
		if (prof_read_small_file(path, buf, sizeof(buf)) > 0) {
			uint64_t hwm = status_kb(buf, "\nVmHWM:");

			s->rss += status_kb(buf, "\nVmRSS:");
			s->swap += status_kb(buf, "\nVmSwap:");
			swap_seen |= strstr(buf, "\nVmSwap:") != NULL;
			/* A peak between two samples: the kernel's high-water mark. */
			if (hwm > h->peak_rss)
				h->peak_rss = hwm;
			c->ctx_switches += p->threads > 1 ? thread_switches(h, p->pid, buf) :
				status_count(buf, "\nvoluntary_ctxt_switches:") +
				status_count(buf, "\nnonvoluntary_ctxt_switches:");
		}
		snprintf(path, sizeof(path), "%s/%d/io", h->proc, (int)p->pid);
		if (prof_read_small_file(path, buf, sizeof(buf)) > 0) {
			c->read_bytes += status_count(buf, "read_bytes:");
			c->write_bytes += status_count(buf, "\nwrite_bytes:");
		} else {
			io_ok = 0;	/* another user's process, or no I/O accounting */
		}
	}
	if (!s->procs)
		return;
	s->have |= PROF_HOST_HAVE_TREE | (swap_seen ? PROF_HOST_HAVE_SWAP : 0);
	c->have |= PROF_HOST_HAVE_TREE_RATES | (io_ok ? PROF_HOST_HAVE_IO : 0);
}

/* ---- the host ---- */

static void sample_host_cpu(const struct prof_host *h, struct prof_host_counters *c)
{
	char path[1024], buf[512];
	unsigned long long v[8] = { 0 };

	snprintf(path, sizeof(path), "%s/stat", h->proc);
	if (prof_read_small_file(path, buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]) < 4)
		return;
	c->host_total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
	c->host_busy = c->host_total - v[3] - v[4];	/* less idle and iowait */
	c->have |= PROF_HOST_HAVE_HOST_CPU;
}

static void sample_net(const struct prof_host *h, struct prof_host_counters *c)
{
	char path[1024], *buf = xmalloc(65536), *line, *next;

	snprintf(path, sizeof(path), "%s/net/dev", h->proc);
	if (prof_read_small_file(path, buf, 65536) > 0) {
		for (line = buf; line && *line; line = next) {
			char *colon;
			unsigned long long rx, tx;

			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			colon = strchr(line, ':');
			if (!colon)
				continue;	/* the two header lines */
			*colon = '\0';
			line += strspn(line, " ");
			if (!strcmp(line, "lo") ||
			    sscanf(colon + 1, "%llu %*u %*u %*u %*u %*u %*u %*u %llu", &rx, &tx) != 2)
				continue;
			c->net_rx += rx;
			c->net_tx += tx;
			c->have |= PROF_HOST_HAVE_NET;
		}
	}
	free(buf);
}

static void sample_temp(const struct prof_host *h, struct prof_host_sample *s)
{
	char path[1024];
	DIR *d;
	struct dirent *e;

	snprintf(path, sizeof(path), "%s/class/thermal", h->sys);
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d))) {
		long long milli;

		if (strncmp(e->d_name, "thermal_zone", 12))
			continue;
		snprintf(path, sizeof(path), "%s/class/thermal/%s/temp", h->sys, e->d_name);
		milli = prof_read_file_ll(path, INT64_MIN);
		if (milli == INT64_MIN)
			continue;
		if (!(s->have & PROF_HOST_HAVE_TEMP) || milli / 1000.0 > s->temp_c)
			s->temp_c = (double)milli / 1000.0;
		s->have |= PROF_HOST_HAVE_TEMP;
	}
	closedir(d);
}

/* ---- samples ---- */

void prof_host_init(struct prof_host *h, pid_t root)
{
	const char *p = getenv("PROFGPU_PROC_ROOT"), *s = getenv("PROFGPU_SYSFS_ROOT");
	char path[600];

	memset(h, 0, sizeof(*h));
	h->root = root;
	snprintf(h->proc, sizeof(h->proc), "%s", p && *p ? p : "/proc");
	snprintf(h->sys, sizeof(h->sys), "%s", s && *s ? s : "/sys");
	h->ticks_per_s = sysconf(_SC_CLK_TCK);
	h->real_proc = strcmp(h->proc, "/proc") == 0;
	/* Kernels without CONFIG_PROC_CHILDREN: the tree from a scan of /proc. */
	snprintf(path, sizeof(path), "%s/%d/task/%d/children", h->proc, (int)getpid(), (int)getpid());
	h->children_files = access(path, R_OK) == 0;
	if (h->ticks_per_s <= 0)
		h->ticks_per_s = 100;
}

void prof_host_set_root(struct prof_host *h, pid_t root)
{
	h->root = root;
	h->have_prev = 0;	/* another tree: no rate against the old one */
}

static double per_s(uint64_t now, uint64_t before, double dt)
{
	return now >= before ? (double)(now - before) / dt : 0;
}

/* Rates from the previous sample's counters. */
static void rates(struct prof_host *h, const struct prof_host_counters *c,
		  struct prof_host_sample *s)
{
	const struct prof_host_counters *p = &h->prev;
	double dt = (double)(c->time_ns - p->time_ns) / 1e9;

	if (!h->have_prev || dt <= 0)
		return;
	if (c->have & p->have & PROF_HOST_HAVE_TREE_RATES) {
		s->cpu_pct = c->tree_cpu_s > p->tree_cpu_s ? (c->tree_cpu_s - p->tree_cpu_s) / dt * 100 : 0;
		s->major_faults_per_s = per_s(c->major_faults, p->major_faults, dt);
		s->ctx_switches_per_s = per_s(c->ctx_switches, p->ctx_switches, dt);
		s->have |= PROF_HOST_HAVE_TREE_RATES;
	}
	if (c->have & p->have & PROF_HOST_HAVE_IO) {
		s->read_per_s = per_s(c->read_bytes, p->read_bytes, dt);
		s->write_per_s = per_s(c->write_bytes, p->write_bytes, dt);
		s->have |= PROF_HOST_HAVE_IO;
	}
	if ((c->have & p->have & PROF_HOST_HAVE_HOST_CPU) && c->host_total > p->host_total) {
		s->host_cpu_pct = (double)(c->host_busy - p->host_busy) /
				  (double)(c->host_total - p->host_total) * 100;
		s->have |= PROF_HOST_HAVE_HOST_CPU;
	}
	if (c->have & p->have & PROF_HOST_HAVE_NET) {
		s->net_rx_per_s = per_s(c->net_rx, p->net_rx, dt);
		s->net_tx_per_s = per_s(c->net_tx, p->net_tx, dt);
		s->have |= PROF_HOST_HAVE_NET;
	}
}

void prof_host_note_peak(struct prof_host *h, uint64_t rss)
{
	if (rss > h->peak_rss)
		h->peak_rss = rss;
}

void prof_host_sample(struct prof_host *h, uint64_t time_ns, struct prof_host_sample *s)
{
	/*
	 * Rates over the time between the reads, not between the rounds'
	 * stamps; a test root (PROFGPU_PROC_ROOT) holds files, not a clock:
	 * its rates are over the stamps given.
	 */
	struct prof_host_counters c = { .time_ns = h->real_proc ? prof_now_ns() : time_ns };

	memset(s, 0, sizeof(*s));
	s->time_ns = time_ns;
	h->root_clock_ns = 0;
	if (h->root > 0)
		sample_tree(h, s, &c);
	/*
	 * Stamped when the command's CPU clock was read: the files read
	 * before it take longer some rounds than others (a busy machine),
	 * and a thread spinning meanwhile read 101.8% against the round's
	 * earlier stamp.
	 */
	if (h->root_clock_ns)
		c.time_ns = h->root_clock_ns;
	sample_host_cpu(h, &c);
	sample_net(h, &c);
	sample_temp(h, s);
	rates(h, &c, s);
	h->prev = c;
	h->have_prev = 1;
	h->samples++;
	if (s->have & PROF_HOST_HAVE_TREE && s->rss > h->peak_rss)
		h->peak_rss = s->rss;
	if (s->have & PROF_HOST_HAVE_TREE_RATES) {
		h->cpu_samples++;
		h->sum_cpu_pct += s->cpu_pct;
		if (s->cpu_pct > h->max_cpu_pct)
			h->max_cpu_pct = s->cpu_pct;
	}
	if (s->have & PROF_HOST_HAVE_TEMP && s->temp_c > h->max_temp_c)
		h->max_temp_c = s->temp_c;
}

static void cell_u(char **p, char *end, int have, uint64_t v)
{
	*p += have ? snprintf(*p, (size_t)(end - *p), "\t%" PRIu64, v)
		   : snprintf(*p, (size_t)(end - *p), "\t");
}

static void cell_d(char **p, char *end, int have, double v)
{
	char num[48];

	*p += snprintf(*p, (size_t)(end - *p), "\t%s",
		       have ? prof_fmt_number(num, sizeof(num), round(v * 10) / 10, 6) : "");
}

size_t prof_host_row(const struct prof_host_sample *s, char *buf, size_t n)
{
	char *p = buf, *end = buf + n;
	unsigned h = s->have;

	p += snprintf(p, n, "%" PRIu64, s->time_ns);
	cell_u(&p, end, h & PROF_HOST_HAVE_TREE, s->procs);
	cell_u(&p, end, h & PROF_HOST_HAVE_TREE, s->threads);
	cell_d(&p, end, h & PROF_HOST_HAVE_TREE_RATES, s->cpu_pct);
	cell_d(&p, end, h & PROF_HOST_HAVE_HOST_CPU, s->host_cpu_pct);
	cell_u(&p, end, h & PROF_HOST_HAVE_TREE, s->rss);
	cell_u(&p, end, h & PROF_HOST_HAVE_SWAP, s->swap);
	cell_d(&p, end, h & PROF_HOST_HAVE_TREE_RATES, s->major_faults_per_s);
	cell_d(&p, end, h & PROF_HOST_HAVE_TREE_RATES, s->ctx_switches_per_s);
	cell_d(&p, end, h & PROF_HOST_HAVE_IO, s->read_per_s);
	cell_d(&p, end, h & PROF_HOST_HAVE_IO, s->write_per_s);
	cell_d(&p, end, h & PROF_HOST_HAVE_NET, s->net_rx_per_s);
	cell_d(&p, end, h & PROF_HOST_HAVE_NET, s->net_tx_per_s);
	cell_d(&p, end, h & PROF_HOST_HAVE_TEMP, s->temp_c);
	p += snprintf(p, (size_t)(end - p), "\n");
	return (size_t)(p - buf);
}

int prof_host_alert_eval(const struct prof_gpu_alert *a, const struct prof_host_sample *s,
			 double *value)
{
	unsigned h = s->have;

	switch (a->metric) {
	case PROF_GPU_M_RSS:
		if (!(h & PROF_HOST_HAVE_TREE))
			return -1;
		*value = (double)s->rss;
		break;
	case PROF_GPU_M_SWAP:
		if (!(h & PROF_HOST_HAVE_SWAP))
			return -1;
		*value = (double)s->swap;
		break;
	case PROF_GPU_M_CPU:
		if (!(h & PROF_HOST_HAVE_TREE_RATES))
			return -1;
		*value = s->cpu_pct;
		break;
	case PROF_GPU_M_HOST_CPU:
		if (!(h & PROF_HOST_HAVE_HOST_CPU))
			return -1;
		*value = s->host_cpu_pct;
		break;
	case PROF_GPU_M_THREADS:
		if (!(h & PROF_HOST_HAVE_TREE))
			return -1;
		*value = (double)s->threads;
		break;
	case PROF_GPU_M_TEMP:
		if (!(h & PROF_HOST_HAVE_TEMP))
			return -1;
		*value = s->temp_c;
		break;
	default:
		return -1;	/* a GPU metric */
	}
	return prof_gpu_alert_compare(a, *value);
}

void prof_host_report(const struct prof_host *h)
{
	char rss[32];

	if (!h->samples || prof_verbosity < 1)
		return;
	if (h->cpu_samples)
		fprintf(stderr, "%s: host: %" PRIu64 " samples; the command: peak RSS %s, CPU %.0f%% "
			"of a core on average, %.0f%% at most", prof_progname, h->samples,
			prof_fmt_bytes(rss, sizeof(rss), (double)h->peak_rss),
			h->sum_cpu_pct / (double)h->cpu_samples, h->max_cpu_pct);
	else
		fprintf(stderr, "%s: host: %" PRIu64 " samples", prof_progname, h->samples);
	if (h->max_temp_c > 0)
		fprintf(stderr, "; hottest thermal zone %.0f C", h->max_temp_c);
	fputc('\n', stderr);
}

void prof_host_release(struct prof_host *h)
{
	free(h->procs);
	h->procs = NULL;
	h->nprocs = h->procs_cap = 0;
}
