/* Unit tests of lib/gpu*.c: number and throttle formatting, the summary
 * arithmetic, alert expressions and the tegrastats line parser. */
#include <math.h>
#include <unistd.h>
#include "base/buf.h"
#include "gpu/gpu.h"
#include "gpu/sampler.h"
#include "../unit.h"

static struct prof_gpu_sample at(uint64_t ms, double power_w)
{
	struct prof_gpu_sample s;

	memset(&s, 0, sizeof(s));
	s.time_ns = ms * 1000000ull;
	s.power_w = power_w;
	s.have = PROF_GPU_HAVE_POWER;
	return s;
}

static void test_format_numbers(void)
{
	char buf[256];

	TEST("format numbers") {
		prof_gpu_format_num(buf, sizeof(buf), 60.5, 3);
		CHECK_STR(buf, "60.5");
		prof_gpu_format_num(buf, sizeof(buf), 70.0, 3);
		CHECK_STR(buf, "70");
		prof_gpu_format_num(buf, sizeof(buf), 0.125, 3);
		CHECK_STR(buf, "0.125");
		prof_gpu_format_num(buf, sizeof(buf), -0.0001, 3);
		CHECK_STR(buf, "0");
		prof_gpu_format_num(buf, sizeof(buf), 10.5249999999, 3);
		CHECK_STR(buf, "10.525");
		prof_gpu_format_num(buf, sizeof(buf), 100, 0);
		CHECK_STR(buf, "100");
	}
}

static void test_throttle_names(void)
{
	char buf[256];

	TEST("throttle names") {
		prof_gpu_format_throttle(buf, sizeof(buf), 0);
		CHECK_STR(buf, "none");
		prof_gpu_format_throttle(buf, sizeof(buf), 0x44);
		CHECK_STR(buf, "sw_power_cap,hw_thermal");
		prof_gpu_format_throttle(buf, sizeof(buf), 0x101);
		CHECK_STR(buf, "gpu_idle,display_clocks");
		prof_gpu_format_throttle(buf, sizeof(buf), 0x1000 | 0x8);
		CHECK_STR(buf, "hw_slowdown,other_0x1000");
	}
}

static void test_energy_from_power(void)
{
		TEST("energy: trapezoid over power") {
		struct prof_gpu_stats st;
		struct prof_gpu_sample s;

		memset(&st, 0, sizeof(st));
		s = at(0, 100);
		prof_gpu_stats_add(&st, &s);
		CHECK(s.have & PROF_GPU_HAVE_ENERGY);
		CHECK(s.energy_j == 0);
		s = at(500, 200);	/* (100+200)/2 * 0.5 = 75 */
		prof_gpu_stats_add(&st, &s);
		CHECK(fabs(s.energy_j - 75) < 1e-9);
		s = at(1000, 0);
		s.have = 0;		/* power unknown: no energy cell, nothing added */
		prof_gpu_stats_add(&st, &s);
		CHECK(!(s.have & PROF_GPU_HAVE_ENERGY));
		s = at(1500, 100);	/* the interval after a gap adds nothing */
		prof_gpu_stats_add(&st, &s);
		CHECK(fabs(s.energy_j - 75) < 1e-9);
		s = at(2500, 300);	/* (100+300)/2 * 1 = 200 */
		prof_gpu_stats_add(&st, &s);
		CHECK(fabs(s.energy_j - 275) < 1e-9);
		CHECK(st.energy_source == PROF_GPU_ENERGY_POWER);
		CHECK(st.power_n == 4);
		CHECK(fabs(st.power_sum / st.power_n - 175) < 1e-9);
		CHECK(st.power_max == 300);
		CHECK(st.samples == 5);
	}
}

static void test_energy_counter(void)
{
		TEST("energy: counter wins, never goes back") {
		struct prof_gpu_stats st;
		struct prof_gpu_sample s;

		memset(&st, 0, sizeof(st));
		s = at(0, 100);
		s.energy_j = 5000;
		s.have |= PROF_GPU_HAVE_ENERGY;
		prof_gpu_stats_add(&st, &s);
		CHECK(s.energy_j == 0);
		s = at(100, 100);
		s.energy_j = 5012.5;
		s.have |= PROF_GPU_HAVE_ENERGY;
		prof_gpu_stats_add(&st, &s);
		CHECK(fabs(s.energy_j - 12.5) < 1e-9);
		s = at(200, 100);
		s.energy_j = 3;		/* a reset counter */
		s.have |= PROF_GPU_HAVE_ENERGY;
		prof_gpu_stats_add(&st, &s);
		CHECK(fabs(s.energy_j - 12.5) < 1e-9);
		CHECK(st.energy_source == PROF_GPU_ENERGY_COUNTER);
	}
}

static void test_throttled_time(void)
{
	char buf[256];

	TEST("throttled time and reasons") {
		struct prof_gpu_stats st;
		struct prof_gpu_sample s;
		struct prof_gpu_dev d;
		static const uint64_t mask[] = { 0x4, 0x4, 0x1, 0x44, 0x2 };

		memset(&st, 0, sizeof(st));
		memset(&d, 0, sizeof(d));
		snprintf(d.name, sizeof(d.name), "G");
		for (int i = 0; i < 5; i++) {
			memset(&s, 0, sizeof(s));
			s.time_ns = (uint64_t)i * 250000000ull;
			s.throttle = mask[i];
			s.have = PROF_GPU_HAVE_THROTTLE | PROF_GPU_HAVE_UTIL;
			s.util_pct = i * 10;
			prof_gpu_stats_add(&st, &s);
		}
		/* Intervals ending at samples 1 (power cap) and 3 (cap + thermal). */
		CHECK(fabs(st.throttled_s - 0.5) < 1e-9);
		prof_gpu_format_summary(buf, sizeof(buf), &d, &st);
		CHECK_STR(buf, "0\tG\t5\t1\t20\t40\t\t\t\t\t\t\t0.5\tsw_power_cap:0.5,hw_thermal:0.25\n");
	}
}

static void test_alerts(void)
{
		TEST("alerts") {
		struct prof_gpu_alert a;
		struct prof_gpu_sample s;
		char err[128];
		double v;

		memset(&s, 0, sizeof(s));
		s.have = PROF_GPU_HAVE_TEMP | PROF_GPU_HAVE_MEM_USED | PROF_GPU_HAVE_MEM_TOTAL;
		s.temp_c = 86;
		s.mem_used = 96;
		s.mem_total = 100;
		CHECK(prof_gpu_alert_parse("temp>85", &a, err, sizeof(err)) == 0);
		CHECK(prof_gpu_alert_eval(&a, &s, &v) == 1 && v == 86);
		CHECK(prof_gpu_alert_parse(" temp >= 86C ", &a, err, sizeof(err)) == 0);
		CHECK(a.op == 'G' && prof_gpu_alert_eval(&a, &s, &v) == 1);
		CHECK(prof_gpu_alert_parse("mem>95%", &a, err, sizeof(err)) == 0);
		CHECK(a.percent && prof_gpu_alert_eval(&a, &s, &v) == 1 && v == 96);
		CHECK(prof_gpu_alert_parse("mem<1K", &a, err, sizeof(err)) == 0);
		CHECK(a.value == 1024 && prof_gpu_alert_eval(&a, &s, &v) == 1);
		CHECK(prof_gpu_alert_parse("util<10%", &a, err, sizeof(err)) == 0);
		CHECK(prof_gpu_alert_eval(&a, &s, &v) == -1);	/* no util in the sample */
		CHECK(prof_gpu_alert_parse("power<=250W", &a, err, sizeof(err)) == 0);
		CHECK(a.op == 'L' && a.value == 250);
		CHECK(prof_gpu_alert_parse("fan>3", &a, err, sizeof(err)) < 0);
		CHECK(strstr(err, "unknown metric 'fan'") != NULL);
		CHECK(prof_gpu_alert_parse("temp", &a, err, sizeof(err)) < 0);
		CHECK(prof_gpu_alert_parse("temp>", &a, err, sizeof(err)) < 0);
		CHECK(prof_gpu_alert_parse("temp>hot", &a, err, sizeof(err)) < 0);
		CHECK(prof_gpu_alert_parse("mem>1.5G", &a, err, sizeof(err)) < 0);
	}
}

static void test_tegrastats_lines(void)
{
		TEST("tegrastats lines") {
		static const char orin[] =
			"11-22-2026 03:48:48 RAM 3000/30536MB (lfb 6100x4MB) CPU [35%@1728,off] "
			"EMC_FREQ 10%@3199 GR3D_FREQ 45%@[1300,1300] CV0@-256C GPU@43C "
			"VDD_GPU_SOC 6000mW/4400mW VDD_CPU_CV 1200mW/800mW";
		static const char nano[] =
			"RAM 2000/3964MB (lfb 150x4MB) IRAM 0/252kB(lfb 252kB) EMC_FREQ 21%@1600 "
			"GR3D_FREQ 60%@921 GPU@-256C POM_5V_IN 4800/3673 POM_5V_GPU 1500/750";
		struct prof_gpu_sample s;
		int64_t stamp;
		int hs;

		memset(&s, 0, sizeof(s));
		CHECK(prof_gpu_tegra_parse(orin, sizeof(orin) - 1, &s, &stamp, &hs) == 0);
		CHECK(hs && stamp == 1795319328);
		CHECK(s.util_pct == 45 && s.sm_clock_mhz == 1300);
		CHECK(s.mem_util_pct == 10 && s.mem_clock_mhz == 3199);
		CHECK(s.mem_used == 3000ull << 20 && s.mem_total == 30536ull << 20);
		CHECK(s.temp_c == 43 && s.power_w == 6);
		memset(&s, 0, sizeof(s));
		CHECK(prof_gpu_tegra_parse(nano, sizeof(nano) - 1, &s, &stamp, &hs) == 0);
		CHECK(!hs && s.util_pct == 60 && s.sm_clock_mhz == 921);
		CHECK(!(s.have & PROF_GPU_HAVE_TEMP));	/* -256C: sensor off */
		CHECK(s.power_w == 1.5);
		memset(&s, 0, sizeof(s));
		CHECK(prof_gpu_tegra_parse("hello world", 11, &s, &stamp, &hs) < 0);
		CHECK(prof_gpu_tegra_parse("GR3D_FREQ", 9, &s, &stamp, &hs) < 0);
		/* found by fuzz_tegra: a clock or size out of range is no value (was
		 * converted to an unsigned integer: undefined) */
		memset(&s, 0, sizeof(s));
		CHECK(prof_gpu_tegra_parse("GR3D_FREQ 4%@-22 EMC_FREQ 5%@1e30", 33, &s, &stamp,
					   &hs) == 0);
		CHECK(s.util_pct == 4 && s.mem_util_pct == 5);
		CHECK(!(s.have & (PROF_GPU_HAVE_SM_CLOCK | PROF_GPU_HAVE_MEM_CLOCK)));
		CHECK(prof_gpu_tegra_parse("RAM 1e300/2e300MB", 17, &s, &stamp, &hs) < 0);
		CHECK(prof_gpu_tegra_parse("GR3D_FREQ -nan%", 15, &s, &stamp, &hs) < 0);
	}
}

static void test_timeline_row(void)
{
	char buf[256];

	TEST("timeline row") {
		struct prof_gpu_dev d;
		struct prof_gpu_sample s;

		memset(&d, 0, sizeof(d));
		d.index = 2;
		snprintf(d.name, sizeof(d.name), "X");
		memset(&s, 0, sizeof(s));
		s.time_ns = 7;
		s.have = PROF_GPU_HAVE_UTIL | PROF_GPU_HAVE_PCIE_TX | PROF_GPU_HAVE_THROTTLE;
		s.util_pct = 3;
		s.pcie_tx = 1024;
		prof_gpu_format_row(buf, sizeof(buf), &d, &s);
		CHECK_STR(buf, "7\t2\tX\t\t3\t\t\t\t\t\t\t\t\t\t1024\tnone\n");
	}
}

static void test_pid_tree(void)
{
		TEST("pid tree") {
		CHECK(prof_gpu_pid_in_tree(getpid(), getpid(), 0));
		CHECK(prof_gpu_pid_in_tree(getpid(), getppid(), 0));
		CHECK(!prof_gpu_pid_in_tree(1, getpid(), getpid()));
	}
}

int main(void)
{
	test_format_numbers();
	test_throttle_names();
	test_energy_from_power();
	test_energy_counter();
	test_throttled_time();
	test_alerts();
	test_tegrastats_lines();
	test_timeline_row();
	test_pid_tree();
	return UNIT_RESULT();
}
