/*
 * The timeline (TAG.timeline.tsv, schema profheap-timeline): a row every
 * interval from a timer thread of the shim's own, which records nothing
 * and takes no signal, and a last row at exit or exec (internal.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "heap/shim/internal.h"

static int timeline_ok;
/* One row at a time; after the exit's row, none (ph_timeline_row()). */
static int tick_busy, timeline_done;
static int timer_running;

static uint64_t rss_bytes(int *ok)
{
	char buf[128], *p;
	ssize_t n;
	uint64_t pages = 0;
	int fd;

	*ok = 0;
	fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strchr(buf, ' ');
	if (!p)
		return 0;
	for (p++; *p >= '0' && *p <= '9'; p++)
		pages = pages * 10 + (uint64_t)(*p - '0');
	*ok = 1;
	return pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* One timeline row. */
static void tick(void)
{
	char line[256];
	uint64_t t = ph_now_ns() - H->start_ns, alloc_b = 0, alloc_n = 0, rss;
	int64_t blocks = 0, live;
	uint32_t i, n = __atomic_load_n(&H->nthreads, ACQUIRE);
	size_t len = 0;
	int ok;
	const char *f[6];
	char nums[6][32];
	int k;

	for (i = 0; i < n; i++) {
		uint64_t o = __atomic_load_n(&H->threads[i], ACQUIRE);
		const struct ph_thread *th;

		if (!o)
			continue;
		th = ph_at(o);
		alloc_b += __atomic_load_n(&th->alloc_bytes, RELAXED);
		alloc_n += __atomic_load_n(&th->alloc_count, RELAXED);
		blocks += __atomic_load_n(&th->live_blocks, RELAXED);
	}
	live = (int64_t)__atomic_load_n(&H->live_bytes, RELAXED);
	if (ph_sample_mean)
		blocks = (int64_t)llround((double)blocks / (double)H->count_unit);
	rss = rss_bytes(&ok);
	f[0] = ph_utoa(nums[0] + 32, t);
	f[1] = ph_itoa64(nums[1] + 32, live < 0 ? 0 : live);
	f[2] = ph_itoa64(nums[2] + 32, blocks < 0 ? 0 : blocks);
	f[3] = ph_utoa(nums[3] + 32, alloc_b);
	f[4] = ph_utoa(nums[4] + 32, alloc_n);
	f[5] = ok ? ph_utoa(nums[5] + 32, rss) : "";
	for (k = 0; k < 6; k++) {
		size_t l = strlen(f[k]);

		memcpy(line + len, f[k], l);
		len += l;
		line[len++] = k == 5 ? '\n' : '\t';
	}
	if (timeline_ok)
		ph_append_file(".timeline.tsv", line, len, 0);
	ph_maps_refresh();
}

/*
 * A timeline row, from the timer thread or at exit (final): serialized,
 * so that a timer row read before the program's last frees cannot land
 * after the exit's row, which must stay last (it matches the totals).
 */
void ph_timeline_row(int final)
{
	ph_spin_lock(&tick_busy);
	if (!timeline_done) {
		tick();
		timeline_done = final;
	}
	ph_spin_unlock(&tick_busy);
}

static void *timer_main(void *arg)
{
	sigset_t all;
	struct timespec ts;
	uint64_t next;

	(void)arg;
	T.guard = 1;		/* this thread never records */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	next = ph_now_ns();
	for (;;) {
		next += ph_interval_ns;
		ts.tv_sec = (time_t)(next / 1000000000u);
		ts.tv_nsec = (long)(next % 1000000000u);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		if (!ph_active)
			continue;
		ph_timeline_row(0);
	}
	return NULL;
}

static void start_timer(void)
{
	pthread_t t;
	pthread_attr_t a;

	T.guard++;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&a, 256 * 1024);
	if (pthread_create(&t, &a, timer_main, NULL) == 0)
		timer_running = 1;
	pthread_attr_destroy(&a);
	T.guard--;
}

int ph_open_timeline(void)
{
	char hdr[512], n1[32], n2[32], n3[32];

	ph_cat(hdr, sizeof(hdr), "# tool=profheap format=profheap-timeline pid=",
	       ph_utoa(n1 + 32, (uint64_t)getpid()), " interval_ns=");
	ph_cat(hdr + strlen(hdr), sizeof(hdr) - strlen(hdr), ph_utoa(n2 + 32, ph_interval_ns),
	       ph_sample_mean ? " sample_bytes=" : "",
	       ph_sample_mean ? ph_utoa(n3 + 32, ph_sample_mean) : "");
	ph_cat(hdr + strlen(hdr), sizeof(hdr) - strlen(hdr),
	       ph_sample_mean ? " estimated=live_bytes,live_blocks" : "",
	       "\ntime_ns\tlive_bytes\tlive_blocks\talloc_bytes\talloc_count\trss_bytes\n", "");
	timeline_ok = ph_append_file(".timeline.tsv", hdr, strlen(hdr), 1) == 0;
	return timeline_ok ? 0 : -1;
}

void ph_timer_start(void)
{
	if (!timer_running)
		start_timer();
}

void ph_timer_after_fork(void)
{
	/* the parent's timer thread may have been inside a row when fork()
	 * copied the lock: it is gone, and would never release it */
	tick_busy = 0;
	timeline_done = 0;
	timer_running = 0;
	start_timer();
}
