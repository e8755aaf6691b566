/* lib/gpu/host.c: the host monitor on a fake /proc and /sys. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../unit.h"
#include "gpu/gpu.h"
#include "gpu/host.h"

static char root[] = "/tmp/test_host.XXXXXX";

static void put(const char *rel, const char *text)
{
	char path[512], dir[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	for (slash = strchr(dir + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(dir, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

/* A process: utime/stime ticks, threads, major faults, parent. */
static void proc(int pid, int ppid, const char *comm, int ticks, int threads, int majflt,
		 int rss_kb, int ctx)
{
	char rel[64], text[512];

	snprintf(rel, sizeof(rel), "proc/%d/stat", pid);
	snprintf(text, sizeof(text),
		 "%d (%s) S %d 1 1 0 -1 4194304 100 0 %d 0 %d 0 0 0 20 0 %d 0 1 2 3\n", pid, comm,
		 ppid, majflt, ticks, threads);
	put(rel, text);
	snprintf(rel, sizeof(rel), "proc/%d/status", pid);
	snprintf(text, sizeof(text), "Name:\t%s\nVmRSS:\t%d kB\nVmSwap:\t4 kB\n"
		 "voluntary_ctxt_switches:\t%d\nnonvoluntary_ctxt_switches:\t0\n", comm, rss_kb, ctx);
	put(rel, text);
	snprintf(rel, sizeof(rel), "proc/%d/io", pid);
	snprintf(text, sizeof(text), "rchar: 1\nwchar: 1\nread_bytes: %d\nwrite_bytes: %d\n",
		 ticks * 1000, ticks * 10);
	put(rel, text);
}

static void host(unsigned long busy, unsigned long idle, unsigned long rx, int temp_milli)
{
	char text[512];

	snprintf(text, sizeof(text), "cpu  %lu 0 0 %lu 0 0 0 0 0 0\ncpu0 1 2 3 4\n", busy, idle);
	put("proc/stat", text);
	snprintf(text, sizeof(text),
		 "Inter-|   Receive\n face |bytes packets\n    lo: 999999 1 0 0 0 0 0 0 999999 1 0 0 0 0 0 0\n"
		 "  eth0: %lu 5 0 0 0 0 0 0 %lu 5 0 0 0 0 0 0\n", rx, rx / 2);
	put("proc/net/dev", text);
	snprintf(text, sizeof(text), "%d\n", temp_milli);
	put("sys/class/thermal/thermal_zone0/temp", text);
	put("sys/class/thermal/thermal_zone1/temp", "20000\n");
}

int main(void)
{
	struct prof_host h;
	struct prof_host_sample s;
	struct prof_gpu_alert a;
	char env[600], row[512], err[128];
	double v;

	if (!mkdtemp(root))
		return 2;
	snprintf(env, sizeof(env), "%s/proc", root);
	setenv("PROFGPU_PROC_ROOT", env, 1);
	snprintf(env, sizeof(env), "%s/sys", root);
	setenv("PROFGPU_SYSFS_ROOT", env, 1);
	proc(100, 1, "app (x)", 100, 2, 5, 1000, 10);
	proc(101, 100, "child", 50, 1, 0, 500, 0);
	proc(102, 101, "grandchild", 10, 3, 0, 100, 0);
	proc(200, 1, "other", 999, 9, 99, 99999, 0);
	host(1000, 1000, 10000, 55000);
	prof_host_init(&h, 100);

	TEST("first sample: the tree's sums, no rates yet, the hottest zone") {
		prof_host_sample(&h, 0, &s);
		CHECK(s.procs == 3 && s.threads == 6);
		CHECK(s.rss == 1600 * 1024 && s.swap == 3 * 4096);
		CHECK(!(s.have & PROF_HOST_HAVE_TREE_RATES) && !(s.have & PROF_HOST_HAVE_HOST_CPU));
		CHECK((s.have & PROF_HOST_HAVE_TEMP) && s.temp_c == 55);
		prof_host_row(&s, row, sizeof(row));
		CHECK_STR(row, "0\t3\t6\t\t\t1638400\t12288\t\t\t\t\t\t\t55\n");
	}
	TEST("second sample: rates over the interval") {
		proc(100, 1, "app (x)", 150, 2, 25, 2000, 30);	/* +50 ticks, +20 faults */
		host(1500, 1500, 20000, 60000);
		prof_host_sample(&h, 500000000, &s);		/* 0.5 s later */
		CHECK((s.have & PROF_HOST_HAVE_TREE_RATES) && s.cpu_pct > 99.9 && s.cpu_pct < 100.1);
		CHECK(s.major_faults_per_s == 40 && s.ctx_switches_per_s == 40);
		CHECK((s.have & PROF_HOST_HAVE_HOST_CPU) && s.host_cpu_pct == 50);
		CHECK((s.have & PROF_HOST_HAVE_NET) && s.net_rx_per_s == 20000 && s.net_tx_per_s == 10000);
		CHECK((s.have & PROF_HOST_HAVE_IO) && s.read_per_s == 100000);
	}
	TEST("alerts on host metrics; GPU metrics are not the host's") {
		CHECK(prof_gpu_alert_parse("rss>1M", &a, err, sizeof(err)) == 0);
		CHECK(prof_host_alert_eval(&a, &s, &v) == 1 && v == 2600 * 1024);
		CHECK(prof_gpu_alert_parse("cpu>=150%", &a, err, sizeof(err)) == 0);
		CHECK(prof_host_alert_eval(&a, &s, &v) == 0);
		CHECK(prof_gpu_alert_parse("temp>58", &a, err, sizeof(err)) == 0);
		CHECK(prof_host_alert_eval(&a, &s, &v) == 1 && v == 60);
		CHECK(prof_gpu_alert_parse("util>5", &a, err, sizeof(err)) == 0);
		CHECK(prof_host_alert_eval(&a, &s, &v) == -1);
		CHECK(prof_gpu_alert_parse("rss>lots", &a, err, sizeof(err)) == -1);
		CHECK(strstr(err, "bad size") != NULL);
	}
	TEST("no command: host columns only") {
		prof_host_set_root(&h, 0);
		prof_host_sample(&h, 600000000, &s);
		CHECK(!(s.have & PROF_HOST_HAVE_TREE) && (s.have & PROF_HOST_HAVE_TEMP));
		CHECK(h.peak_rss == 2600 * 1024 && h.samples == 3);
	}
	TEST("the tree of a real process: this test") {
		struct prof_host real;

		unsetenv("PROFGPU_PROC_ROOT");
		unsetenv("PROFGPU_SYSFS_ROOT");
		prof_host_init(&real, getpid());
		prof_host_sample(&real, 0, &s);
		CHECK(s.procs >= 1 && s.threads >= 1 && s.rss > 0);
		prof_host_release(&real);
	}
	prof_host_release(&h);
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd) != 0)
			return 2;
	}
	return UNIT_RESULT();
}
