/* Unit tests of lib/gpu/sampler.c with fake backends (no GPU needed): the
 * rows a run writes, the test clock, lost devices, alerts, the summary,
 * per-process rows of a command's tree, and push devices (recorded and
 * live input, stamps, counts, malformed records, end of input). */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include "base/proc.h"
#include "gpu/gpu.h"
#include "gpu/sampler.h"
#include "io/output.h"
#include "../unit.h"

#define MS 1000000ull

/* ---- a polled fake: util = 10 * k, temp from a script, lost at a sample ---- */

struct fake_polled {
	const double *temp;	/* per sample; the last one repeats */
	size_t ntemp;
	size_t k;		/* samples taken */
	size_t lost_at;		/* sample number that reports the GPU lost (0: never) */
	pid_t procs[4];		/* processes reported (0 ends the list) */
};

static int fake_sample(struct prof_gpu_dev *d, struct prof_gpu_sample *s)
{
	struct fake_polled *f = d->priv;
	size_t k = f->k++;

	if (f->lost_at && k + 1 >= f->lost_at)
		return PROF_GPU_LOST;
	s->util_pct = 10.0 * (double)k;
	s->have |= PROF_GPU_HAVE_UTIL;
	if (f->ntemp) {
		s->temp_c = f->temp[k < f->ntemp ? k : f->ntemp - 1];
		s->have |= PROF_GPU_HAVE_TEMP;
	}
	return 0;
}

static int fake_processes(struct prof_gpu_dev *d, struct prof_gpu_proc *out, size_t max)
{
	struct fake_polled *f = d->priv;
	int n = 0;

	for (size_t i = 0; i < 4 && f->procs[i] && (size_t)n < max; i++, n++) {
		memset(&out[n], 0, sizeof(out[n]));
		out[n].pid = (uint32_t)f->procs[i];
		out[n].mem_used = 4096 * (i + 1);
		out[n].have = PROF_GPU_HAVE_MEM_USED;
	}
	return n;
}

static const struct prof_gpu_backend fake_polled_backend = {
	.name = "fake",
	.sample = fake_sample,
	.processes = fake_processes,
};

/* ---- a push fake: "STAMP UTIL" or "UTIL" lines from a descriptor ---- */

struct fake_push {
	int fd;
	int eof;
	char buf[4096];
	size_t start, end;
	unsigned long bad;
};

static int push_fd(const struct prof_gpu_dev *d)
{
	return ((const struct fake_push *)d->priv)->fd;
}

static long push_read(struct prof_gpu_dev *d)
{
	struct fake_push *p = d->priv;
	ssize_t n;

	if (p->eof)
		return 0;
	memmove(p->buf, p->buf + p->start, p->end - p->start);
	p->end -= p->start;
	p->start = 0;
	n = read(p->fd, p->buf + p->end, sizeof(p->buf) - p->end);
	if (n <= 0) {
		p->eof = 1;
		return n < 0 ? -1 : 0;
	}
	p->end += (size_t)n;
	return n;
}

static int push_next(struct prof_gpu_dev *d, struct prof_gpu_sample *s, int64_t *stamp_s,
		     int *have_stamp)
{
	struct fake_push *p = d->priv;

	for (;;) {
		char line[128], *nl = memchr(p->buf + p->start, '\n', p->end - p->start);
		size_t len;
		long long a, b;

		if (!nl)
			return 0;
		len = (size_t)(nl - (p->buf + p->start));
		if (len >= sizeof(line))
			len = sizeof(line) - 1;
		memcpy(line, p->buf + p->start, len);
		line[len] = '\0';
		p->start = (size_t)(nl + 1 - p->buf);
		if (sscanf(line, "%lld %lld", &a, &b) == 2) {
			*stamp_s = a;
			*have_stamp = 1;
			s->util_pct = (double)b;
		} else if (sscanf(line, "%lld", &a) == 1) {
			s->util_pct = (double)a;
		} else {
			p->bad++;
			continue;
		}
		s->have |= PROF_GPU_HAVE_UTIL;
		return 1;
	}
}

static unsigned long push_bad(const struct prof_gpu_dev *d)
{
	return ((const struct fake_push *)d->priv)->bad;
}

static void push_release(struct prof_gpu_dev *d)
{
	struct fake_push *p = d->priv;

	if (p->fd >= 0)
		close(p->fd);
	free(p);
}

static const struct prof_gpu_backend fake_push_backend = {
	.name = "fakepush",
	.wait_fd = push_fd,
	.read = push_read,
	.next = push_next,
	.bad_input = push_bad,
	.release = push_release,
};

/* A push device fed text (written to a pipe, then closed: a recording). */
static struct prof_gpu_dev *add_push(struct prof_gpu_set *set, const char *name, const char *text)
{
	struct fake_push *p = calloc(1, sizeof(*p));
	int pfd[2];

	if (pipe(pfd) < 0)
		abort();
	if (write(pfd[1], text, strlen(text)) != (ssize_t)strlen(text))
		abort();
	close(pfd[1]);
	p->fd = pfd[0];
	return prof_gpu_set_add(set, &fake_push_backend, name, "", p);
}

/* ---- harness ---- */

static char tmpdir[] = "/tmp/test_sampler.XXXXXX";

/* The whole of a small file, in a static buffer. */
static const char *slurp(const char *path)
{
	static char buf[16384];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static void remove_tmpdir(void)
{
	static const char *const names[] = { "out.tsv", "procs.tsv", "stderr" };
	char path[256];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", tmpdir, names[i]);
		unlink(path);
	}
	rmdir(tmpdir);
}

/* One sampler run; what it wrote is read back from files. */
struct run {
	struct prof_gpu_set set;
	struct prof_gpu_sampler smp;
	struct prof_gpu_sampler_config cfg;
	char out_path[256], procs_path[256], err_path[256];
	int saved_stderr;
};

/* The run's signals, as profgpu watches them (sampler.h: never NULL). */
static struct prof_sigwatch signals;

static void run_begin(struct run *r)
{
	memset(r, 0, sizeof(*r));
	r->cfg.signals = &signals;
	snprintf(r->out_path, sizeof(r->out_path), "%s/out.tsv", tmpdir);
	snprintf(r->procs_path, sizeof(r->procs_path), "%s/procs.tsv", tmpdir);
	snprintf(r->err_path, sizeof(r->err_path), "%s/stderr", tmpdir);
	r->cfg.interval_ns = 100 * MS;
	r->cfg.out = prof_output_open(r->out_path, PROF_OUT_STREAM, PROF_COMP_NONE);
}

/* Start sampling every device of the set, stderr into a file. */
static void run_devices(struct run *r)
{
	int fd = open(r->err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	prof_gpu_sampler_init(&r->smp, &r->set, &r->cfg);
	for (size_t i = 0; i < r->set.ndevs; i++)
		prof_gpu_sampler_add(&r->smp, &r->set.devs[i]);
	prof_gpu_sampler_write_headers(&r->smp);
	fflush(stderr);
	r->saved_stderr = dup(STDERR_FILENO);
	dup2(fd, STDERR_FILENO);
	close(fd);
}

/* Stop: summary, close outputs, stderr back. Returns the timeline (header skipped). */
static const char *run_end(struct run *r)
{
	const char *text, *nl;

	prof_gpu_sampler_write_summary(&r->smp);
	fflush(stderr);
	dup2(r->saved_stderr, STDERR_FILENO);
	close(r->saved_stderr);
	prof_output_close(r->cfg.out);
	if (r->cfg.procs_out)
		prof_output_close(r->cfg.procs_out);
	text = slurp(r->out_path);
	nl = strchr(text, '\n');
	return nl && !r->cfg.summary_only ? nl + 1 : text;
}

static void run_release(struct run *r)
{
	prof_gpu_sampler_release(&r->smp);
	prof_gpu_set_release(&r->set);
}

static struct prof_gpu_dev *add_polled(struct prof_gpu_set *set, struct fake_polled *f,
				       const char *name)
{
	return prof_gpu_set_add(set, &fake_polled_backend, name, "U", f);
}

/* A run of fake GPU a, named "A", on the test clock for count samples. */
static void run_clock(struct run *r, struct fake_polled *a, uint64_t count)
{
	r->cfg.count = count;
	r->cfg.virtual_time = 1;
	add_polled(&r->set, a, "A");
	run_devices(r);
	CHECK(prof_gpu_sampler_run(&r->smp, NULL, NULL) == 0);
}

static void test_virtual_clock_rows(void)
{
	TEST("test clock: the header, rows of two polled GPUs, k * interval, count") {
		struct run r;
		struct fake_polled a = { 0 }, b = { 0 };
		static const double temps[] = { 40, 41.5 };

		a.temp = temps, a.ntemp = 2;
		run_begin(&r);
		r.cfg.count = 3;
		r.cfg.virtual_time = 1;
		add_polled(&r.set, &a, "A");
		add_polled(&r.set, &b, "B");
		run_devices(&r);
		CHECK(prof_gpu_sampler_run(&r.smp, NULL, NULL) == 0);
		CHECK_STR(run_end(&r),
			  "0\t0\tA\tU\t0\t\t\t\t40\t\t\t\t\t\t\t\n"
			  "0\t1\tB\tU\t0\t\t\t\t\t\t\t\t\t\t\t\n"
			  "100000000\t0\tA\tU\t10\t\t\t\t41.5\t\t\t\t\t\t\t\n"
			  "100000000\t1\tB\tU\t10\t\t\t\t\t\t\t\t\t\t\t\n"
			  "200000000\t0\tA\tU\t20\t\t\t\t41.5\t\t\t\t\t\t\t\n"
			  "200000000\t1\tB\tU\t20\t\t\t\t\t\t\t\t\t\t\t\n");
		CHECK(strncmp(slurp(r.out_path), "time_ns\tgpu\tname\tuuid\tutil_pct\t", 30) == 0);
		CHECK(r.smp.act[0].st.samples == 3 && r.smp.act[0].st.util_max == 20);
		CHECK(!r.smp.alerts_fired && !r.smp.out_failed);
		CHECK_STR(slurp(r.err_path), "");
		run_release(&r);
	}
}

static void test_virtual_clock_duration(void)
{
	TEST("test clock: duration bounds the samples") {
		struct run r;
		struct fake_polled a = { 0 };

		run_begin(&r);
		r.cfg.duration_ns = 250 * MS;
		run_clock(&r, &a, 0);
		run_end(&r);
		/* 0, 100, 200, 300 ms: the first sample at or past the duration ends it. */
		CHECK(a.k == 4);
		run_release(&r);
	}
}

static void test_lost_gpu(void)
{
	TEST("a lost GPU: reported once, its rows stop, the other goes on") {
		struct run r;
		struct fake_polled a = { 0 }, b = { 0 };

		b.lost_at = 2;
		run_begin(&r);
		r.cfg.count = 3;
		r.cfg.virtual_time = 1;
		add_polled(&r.set, &a, "A");
		add_polled(&r.set, &b, "B");
		run_devices(&r);
		prof_gpu_sampler_run(&r.smp, NULL, NULL);
		CHECK_STR(run_end(&r),
			  "0\t0\tA\tU\t0\t\t\t\t\t\t\t\t\t\t\t\n"
			  "0\t1\tB\tU\t0\t\t\t\t\t\t\t\t\t\t\t\n"
			  "100000000\t0\tA\tU\t10\t\t\t\t\t\t\t\t\t\t\t\n"
			  "200000000\t0\tA\tU\t20\t\t\t\t\t\t\t\t\t\t\t\n");
		CHECK_STR(slurp(r.err_path),
			  "profgpu: gpu 1 (B): GPU is lost (fell off the bus or was removed) at "
			  "100 ms; no more samples from it\n");
		CHECK(r.set.devs[1].lost && r.smp.act[1].done && b.k == 2);
		run_release(&r);
	}
}

static void test_alerts(void)
{
	TEST("alerts: one warning per crossing, alerts_fired") {
		struct run r;
		struct fake_polled a = { 0 };
		static const double temps[] = { 80, 90, 95, 80, 90 };
		struct prof_gpu_alert al[2];
		char err[128];

		a.temp = temps, a.ntemp = 5;
		CHECK(prof_gpu_alert_parse("temp>85", &al[0], err, sizeof(err)) == 0);
		CHECK(prof_gpu_alert_parse("util>=100", &al[1], err, sizeof(err)) == 0);
		run_begin(&r);
		r.cfg.alerts = al;
		r.cfg.nalerts = 2;
		run_clock(&r, &a, 5);
		run_end(&r);
		CHECK_STR(slurp(r.err_path),
			  "profgpu: alert: gpu 0 (A): temp>85: 90 C at 100 ms\n"
			  "profgpu: alert: gpu 0 (A): temp>85: 90 C at 400 ms\n");
		CHECK(r.smp.alerts_fired);
		CHECK(r.smp.act[0].alert_on[0] == 1 && r.smp.act[0].alert_on[1] == 0);
		run_release(&r);
	}
}

static void test_summary_tsv(void)
{
	TEST("summary only: no timeline rows, the summary TSV") {
		struct run r;
		struct fake_polled a = { 0 };

		run_begin(&r);
		r.cfg.summary_only = 1;
		run_clock(&r, &a, 2);
		CHECK_STR(run_end(&r),
			  "gpu\tname\tsamples\tduration_s\tutil_avg_pct\tutil_max_pct\t"
			  "mem_max_bytes\tpower_avg_w\tpower_max_w\tenergy_j\tenergy_source\t"
			  "temp_max_c\tthrottled_s\tthrottle_reasons\n"
			  "0\tA\t2\t0.1\t5\t10\t\t\t\t\t\t\t\t\n");
		run_release(&r);
	}
}

static void test_summary_text(void)
{
	TEST("the human summary on stderr at verbosity 1") {
		struct run r;
		struct fake_polled a = { 0 };

		run_begin(&r);
		run_clock(&r, &a, 2);
		prof_verbosity = 1;
		run_end(&r);
		prof_verbosity = 0;
		CHECK_STR(slurp(r.err_path),
			  "profgpu: gpu 0 A (fake): 2 samples over 100 ms\n"
			  "  utilization  avg 5%  peak 10%\n"
			  "  memory       peak n/a\n"
			  "  power        avg n/a  peak n/a  energy n/a\n"
			  "  temperature  max n/a\n"
			  "  throttled    n/a\n");
		run_release(&r);
	}
}

static void test_processes_all(void)
{
	TEST("processes without a command: every one listed, with its comm") {
		struct run r;
		struct fake_polled a = { 0 };
		char expect[512], comm[64] = "";
		FILE *f = fopen("/proc/self/comm", "r");

		if (f && fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		if (f)
			fclose(f);
		a.procs[0] = getpid();
		a.procs[1] = 999999999;	/* gone: left out */
		run_begin(&r);
		r.cfg.procs_out = prof_output_open(r.procs_path, PROF_OUT_STREAM, PROF_COMP_NONE);
		run_clock(&r, &a, 1);
		run_end(&r);
		snprintf(expect, sizeof(expect),
			 "time_ns\tgpu\tpid\tcomm\tmem_used_bytes\tsm_util_pct\tmem_util_pct\n"
			 "0\t0\t%d\t%s\t4096\t\t\n", (int)getpid(), comm);
		CHECK_STR(slurp(r.procs_path), expect);
		run_release(&r);
	}
}

static void test_command_tree(void)
{
	TEST("with a command: its tree only, its status, first and last rounds") {
		struct run r;
		struct fake_polled a = { 0 };
		struct prof_child cmd;
		char *argv[] = { (char *)"sh", (char *)"-c", (char *)"sleep 0.15; exit 3", NULL };
		const char *procs, *tl;
		char expect[64];
		int status, rows = 0;

		run_begin(&r);
		r.cfg.interval_ns = 20 * MS;
		r.cfg.procs_out = prof_output_open(r.procs_path, PROF_OUT_STREAM, PROF_COMP_NONE);
		add_polled(&r.set, &a, "A");
		run_devices(&r);
		CHECK(prof_child_spawn(&cmd, argv, NULL) == 0);
		a.procs[0] = 1;		/* not in the tree: left out */
		a.procs[1] = cmd.pid;
		status = prof_gpu_sampler_run(&r.smp, &cmd, "sh");
		tl = run_end(&r);
		CHECK(status == 3);
		for (const char *p = tl; (p = strchr(p, '\n')); p++)
			rows++;
		/* 150 ms at 20 ms: the first and last rounds and about 7 between. */
		CHECK(rows >= 4 && rows <= 12);
		CHECK(strncmp(tl, "0\t0\tA\t", 6) == 0);
		procs = slurp(r.procs_path);
		snprintf(expect, sizeof(expect), "\t0\t%d\tsh\t8192\t\t\n", (int)cmd.pid);
		CHECK(strstr(procs, expect) != NULL);
		CHECK(strstr(procs, "\t0\t1\t") == NULL);
		run_release(&r);
	}
}

static void test_push_recorded_stamps(void)
{
	TEST("push device, recorded with stamps: times from the first stamp") {
		struct run r;

		run_begin(&r);
		add_push(&r.set, "P", "1000 5\n1002 7\n\nbad line\n1003 9\n");
		run_devices(&r);
		CHECK(prof_gpu_sampler_run(&r.smp, NULL, NULL) == 0);
		CHECK_STR(run_end(&r),
			  "0\t0\tP\t\t5\t\t\t\t\t\t\t\t\t\t\t\n"
			  "2000000000\t0\tP\t\t7\t\t\t\t\t\t\t\t\t\t\t\n"
			  "3000000000\t0\tP\t\t9\t\t\t\t\t\t\t\t\t\t\t\n");
		CHECK(prof_gpu_bad_input(&r.set.devs[0]) == 2);
		CHECK(r.smp.act[0].done && r.smp.act[0].lines == 3);
		run_release(&r);
	}
}

static void test_push_without_stamps(void)
{
	TEST("push device without stamps: k * interval; count stops it") {
		struct run r;

		run_begin(&r);
		r.cfg.interval_ns = 250 * MS;
		r.cfg.count = 3;
		r.cfg.virtual_time = 1;	/* a push device always uses the real loop */
		add_push(&r.set, "P", "1\n2\n3\n4\n5\n");
		run_devices(&r);
		prof_gpu_sampler_run(&r.smp, NULL, NULL);
		CHECK_STR(run_end(&r),
			  "0\t0\tP\t\t1\t\t\t\t\t\t\t\t\t\t\t\n"
			  "250000000\t0\tP\t\t2\t\t\t\t\t\t\t\t\t\t\t\n"
			  "500000000\t0\tP\t\t3\t\t\t\t\t\t\t\t\t\t\t\n");
		run_release(&r);
	}
}

static void test_push_duration(void)
{
	TEST("push device: duration stops it at the first sample past it") {
		struct run r;

		run_begin(&r);
		r.cfg.duration_ns = 1500 * MS;
		add_push(&r.set, "P", "10 1\n11 2\n12 3\n13 4\n");
		run_devices(&r);
		prof_gpu_sampler_run(&r.smp, NULL, NULL);
		run_end(&r);
		CHECK(r.smp.act[0].lines == 3 && r.smp.act[0].st.util_max == 3);
		run_release(&r);
	}
}

static void test_push_live(void)
{
	TEST("live push device: arrival times, beside a polled GPU, during a command") {
		struct run r;
		struct fake_polled a = { 0 };
		struct prof_gpu_dev *p;
		struct prof_child cmd;
		char *argv[] = { (char *)"sleep", (char *)"0.1", NULL };
		const char *tl;
		unsigned long long t;
		unsigned gpu, util;
		int polled = 0, pushed = 0, bad = 0;

		run_begin(&r);
		r.cfg.interval_ns = 20 * MS;
		add_polled(&r.set, &a, "A");
		p = add_push(&r.set, "P", "1000 5\n1000 6\n");
		p->live = 1;
		run_devices(&r);
		CHECK(prof_child_spawn(&cmd, argv, NULL) == 0);
		CHECK(prof_gpu_sampler_run(&r.smp, &cmd, "sleep") == 0);
		tl = run_end(&r);
		for (const char *q = tl; *q; q = strchr(q, '\n') + 1) {
			if (sscanf(q, "%llu\t%u\t%*s\t%*[^\t]\t%u", &t, &gpu, &util) < 2)
				bad++;
			else if (gpu == 0)
				polled++;
			/* Stamped on arrival: after the start, not from the stamps. */
			else if (t == 0 || t > 1000 * MS)
				bad++;
			else
				pushed++;
		}
		CHECK(bad == 0 && pushed == 2 && polled >= 3);
		CHECK(r.smp.act[1].done);	/* its input ended */
		run_release(&r);
	}
}

static void test_tegrastats_device(void)
{
	TEST("the tegrastats backend as a push device: lines, a bad one, no stamps") {
		struct run r;
		const char *lines = "RAM 1000/4000MB GR3D_FREQ 60%@921\nnonsense\n"
				    "RAM 1100/4000MB GR3D_FREQ 70%@921";	/* last one unterminated */
		int pfd[2];

		CHECK(pipe(pfd) == 0);
		CHECK(write(pfd[1], lines, strlen(lines)) == (ssize_t)strlen(lines));
		close(pfd[1]);
		run_begin(&r);
		r.cfg.interval_ns = 200 * MS;
		prof_gpu_tegra_open(&r.set, pfd[0], "Jetson", "in.txt");
		run_devices(&r);
		CHECK(prof_gpu_sampler_run(&r.smp, NULL, NULL) == 0);
		CHECK_STR(run_end(&r),
			  "0\t0\tJetson\t\t60\t\t1048576000\t4194304000\t\t\t\t921\t\t\t\t\n"
			  "200000000\t0\tJetson\t\t70\t\t1153433600\t4194304000\t\t\t\t921\t\t\t\t\n");
		CHECK_STR(slurp(r.err_path),
			  "profgpu: in.txt:2: not a tegrastats line (no RAM or GR3D_FREQ)\n");
		CHECK(prof_gpu_bad_input(&r.set.devs[0]) == 1);
		CHECK(!r.set.devs[0].live && r.set.devs[0].helper_pid == 0);
		run_release(&r);
	}
}

static void test_helper_reaped(void)
{
	TEST("a helper process reaped by someone else is forgotten") {
		struct prof_gpu_set set = PROF_GPU_SET_INIT;
		struct prof_gpu_dev *d = prof_gpu_set_add(&set, &fake_polled_backend, "A", "", NULL);

		d->helper_pid = 12345;
		CHECK(prof_gpu_set_reaped(&set, 999) == 0 && d->helper_pid == 12345);
		CHECK(prof_gpu_set_reaped(&set, 12345) == 1 && d->helper_pid == 0);
		prof_gpu_set_release(&set);
	}
}

int main(void)
{
	if (!mkdtemp(tmpdir))
		return 1;
	prof_set_progname("profgpu");
	prof_verbosity = 0;	/* no human summary unless a test asks */
	prof_sigwatch_start(&signals, (const int[]){ SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGPIPE, 0 });

	test_virtual_clock_rows();
	test_virtual_clock_duration();
	test_lost_gpu();
	test_alerts();
	test_summary_tsv();
	test_summary_text();
	test_processes_all();
	test_command_tree();
	test_push_recorded_stamps();
	test_push_without_stamps();
	test_push_duration();
	test_push_live();
	test_tegrastats_device();
	test_helper_reaped();

	remove_tmpdir();
	return UNIT_RESULT();
}
