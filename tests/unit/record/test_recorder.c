/*
 * lib/record/recorder.c, threads.c, callchain.c, offcpu.c: records built
 * in memory fed to the recorder's record handler, no perf_event_open.
 * The "process" is this test's own executable, mapped by a synthetic
 * MMAP2 record, so its functions symbolize to their names.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "../unit.h"
#include "records.h"
#include "core/meta.h"
#include "io/output.h"
#include "record/recorder.h"

/* A pid and tids no live process has (above the largest pid_max). */
#define PID 4194400
#define TID 4194401
#define PID2 4194500
#define TID2 4194501
#define CPU_ID 1000	/* sample id of the cpu-clock event */
#define OFF_ID 2000	/* sample id of the offcpu-time event */

static volatile unsigned sink;

static __attribute__((noinline, used)) void unit_leaf(void)
{
	sink++;
}

static __attribute__((noinline, used)) void unit_mid(void)
{
	unit_leaf();
	sink++;
}

static __attribute__((noinline, used)) void unit_root(void)
{
	unit_mid();
	sink++;
}

static uint64_t addr_of(void (*fn)(void))
{
	return (uint64_t)(uintptr_t)fn;
}

/* The executable mapping of this test holding unit_leaf, from /proc/self/maps. */
static int self_text(uint64_t *start, uint64_t *end, uint64_t *pgoff, char *path, size_t n)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[PATH_MAX + 128], file[PATH_MAX], perms[8];
	unsigned long long s, e, off;
	int found = 0;

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f)) {
		file[0] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &s, &e, perms, &off, file) < 4)
			continue;
		if (perms[2] == 'x' && addr_of(unit_leaf) >= s && addr_of(unit_leaf) < e) {
			*start = s;
			*end = e;
			*pgoff = off;
			snprintf(path, n, "%s", file);
			found = 1;
		}
	}
	fclose(f);
	return found ? 0 : -1;
}

static void feed(struct prof_recorder *r, struct rec_buf *b)
{
	const struct perf_event_header *h = rec_end(b);

	prof_recorder_record(r, h, prof_decode_time(&r->perf.layout, h));
}

static void mmap_self(struct prof_recorder *r, uint32_t pid)
{
	struct rec_buf b;
	struct prof_rec_mmap2 m;
	uint64_t start, end, pgoff;
	char path[PATH_MAX];

	if (self_text(&start, &end, &pgoff, path, sizeof(path)) != 0)
		return;
	memset(&m, 0, sizeof(m));
	m.pid = m.tid = pid;
	m.addr = start;
	m.len = end - start;
	m.pgoff = pgoff;
	m.prot = PROT_READ | PROT_EXEC;
	rec_begin(&b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	rec_put(&b, &m, sizeof(m));
	rec_str(&b, path);
	rec_sample_id(&b, pid, pid, 1, 0, CPU_ID);
	feed(r, &b);
}

static void comm(struct prof_recorder *r, uint32_t pid, uint32_t tid, const char *name, int exec)
{
	struct rec_buf b;
	struct prof_rec_comm c = { pid, tid };

	rec_begin(&b, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0);
	rec_put(&b, &c, sizeof(c));
	rec_str(&b, name);
	rec_sample_id(&b, pid, tid, 2, 0, CPU_ID);
	feed(r, &b);
}

static void fork_rec(struct prof_recorder *r, uint32_t pid, uint32_t ppid, uint32_t tid,
		     uint32_t ptid)
{
	struct rec_buf b;
	struct prof_rec_task t = { pid, ppid, tid, ptid, 3 };

	rec_begin(&b, PERF_RECORD_FORK, 0);
	rec_put(&b, &t, sizeof(t));
	rec_sample_id(&b, ppid, ptid, 3, 0, CPU_ID);
	feed(r, &b);
}

/*
 * A frame pointer sample: the user call chain given, leaf first; with
 * the user registers (BP, SP, IP) and top of stack the layout asks for
 * (a frameless leaf's caller, callchain.h): the stack's first word is
 * top (0: none), the rest zero.
 */
static void sample_top(struct prof_recorder *r, uint64_t id, uint32_t pid, uint32_t tid,
		       uint64_t time, const uint64_t *ips, size_t n, uint64_t top)
{
	struct rec_buf b;

	rec_begin(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	rec_u64(&b, id);
	rec_u64(&b, ips[0]);
	rec_u32x2(&b, pid, tid);
	rec_u64(&b, time);
	rec_u32x2(&b, 2, 0);
	rec_u64(&b, 1000000);
	rec_u64(&b, n + 1);
	rec_u64(&b, (uint64_t)PERF_CONTEXT_USER);
	rec_put(&b, ips, n * 8);
	if (r->perf.layout.sample_type & PERF_SAMPLE_REGS_USER) {
		rec_u64(&b, PERF_SAMPLE_REGS_ABI_64);
		for (int i = 0; i < __builtin_popcountll(r->perf.layout.regs_mask); i++)
			rec_u64(&b, i == 2 ? ips[0] : i == 1 ? 0x7ffc0000 : 0);	/* BP, SP, IP */
	}
	if (r->perf.layout.sample_type & PERF_SAMPLE_STACK_USER) {
		rec_u64(&b, PROF_CALLCHAIN_LEAF_STACK_BYTES);
		rec_u64(&b, top);
		for (int i = 8; i < PROF_CALLCHAIN_LEAF_STACK_BYTES; i += 8)
			rec_u64(&b, 0);
		rec_u64(&b, PROF_CALLCHAIN_LEAF_STACK_BYTES);
	}
	feed(r, &b);
}

static void sample(struct prof_recorder *r, uint64_t id, uint32_t pid, uint32_t tid,
		   uint64_t time, const uint64_t *ips, size_t n)
{
	sample_top(r, id, pid, tid, time, ips, n, 0);
}

static void switch_rec(struct prof_recorder *r, uint32_t pid, uint32_t tid, uint64_t time,
		       uint16_t misc)
{
	struct rec_buf b;

	rec_begin(&b, PERF_RECORD_SWITCH, misc);
	rec_sample_id(&b, pid, tid, time, 2, OFF_ID);
	feed(r, &b);
}

/* The weight of the stack whose folded text is text, -1 when absent. */
static double weight_of(const struct prof_recorder *r, const char *text)
{
	struct prof_buf b = PROF_BUF_INIT;
	double w = -1;

	for (uint32_t id = 0; id < prof_stacks_count(&r->stacks); id++) {
		prof_buf_reset(&b);
		prof_stacks_format(&r->stacks, id, &b);
		if (strcmp(prof_buf_cstr(&b), text) == 0)
			w = (double)prof_stacks_weights(&r->stacks, id)[0];
	}
	prof_buf_release(&b);
	return w;
}

static void start_as(struct prof_recorder *r, struct prof_recorder_options *o, int offcpu,
		     struct prof_output *out, int folded)
{
	struct prof_record_target t;

	memset(&t, 0, sizeof(t));
	t.all_cpus = 1;		/* no process to look for in /proc */
	prof_recorder_options_init(o);
	o->folded = folded;
	if (offcpu) {
		o->offcpu_event = 0;
		o->events[o->nevents++] = &prof_event_offcpu;
	} else {
		o->events[o->nevents++] = prof_event_find("cpu-clock");
	}
	prof_recorder_init(r, o, &t, out);
	prof_perf_add_id(&r->perf, offcpu ? OFF_ID : CPU_ID, 0);
}

/* Folded stacks kept in the table when out is NULL, else TSV to out. */
static void start(struct prof_recorder *r, struct prof_recorder_options *o, int offcpu,
		  struct prof_output *out)
{
	start_as(r, o, offcpu, out, out == NULL);
}

/* fp mode: the caller of a frameless function, which the walk skips (callchain.h). */
static void test_leaf_caller(void)
{
	struct prof_recorder r;
	struct prof_recorder_options o;
	const uint64_t chain[] = { addr_of(unit_leaf), addr_of(unit_mid) + 1, addr_of(unit_root) + 1 };

	start(&r, &o, 0, NULL);
	mmap_self(&r, PID);
	comm(&r, PID, TID, "worker", 0);
	if (!prof_callchain_leaf_regs_mask()) {
		printf("SKIP test_recorder.c: fp leaf callers: not x86-64\n");
	} else {
		TEST("fp: a frameless leaf's caller, skipped by the walk, read from the sampled stack") {
			/* At unit_leaf's first instruction the CFA is rsp + 8: the return address at rsp. */
			const uint64_t skipped[] = { addr_of(unit_leaf), addr_of(unit_root) + 1 };
			uint64_t off = 0;
			struct prof_addrspace *as = prof_threads_addrspace(&r.threads, PID);

			CHECK(as && prof_symbolizer_cfa_sp_offset(r.sym, as, addr_of(unit_leaf), &off) == 0 &&
			      off == 8);
			sample_top(&r, CPU_ID, PID, TID, 12, skipped, 2, addr_of(unit_mid) + 1);
			CHECK(weight_of(&r, "worker;unit_root;unit_mid;unit_leaf") == 1);
			CHECK(r.chain.fp_leaf_callers == 1);
			/* the walk has it already: not twice */
			sample_top(&r, CPU_ID, PID, TID, 12, chain, 3, addr_of(unit_mid) + 1);
			CHECK(weight_of(&r, "worker;unit_root;unit_mid;unit_leaf") == 2);
			CHECK(r.chain.fp_leaf_callers == 1);
			/* nothing that is code at the return address's place: nothing added */
			sample_top(&r, CPU_ID, PID, TID, 12, skipped, 2, 0x1000);
			CHECK(weight_of(&r, "worker;unit_root;unit_leaf") == 1);
		}
	}
	prof_recorder_release(&r);
}

static void test_folded(void)
{
	struct prof_recorder r;
	struct prof_recorder_options o;
	const uint64_t chain[] = { addr_of(unit_leaf), addr_of(unit_mid) + 1, addr_of(unit_root) + 1 };
	const uint64_t cut[] = { addr_of(unit_leaf), addr_of(unit_mid) + 1, 0x1000, addr_of(unit_root) + 1 };
	const struct prof_thread *t;

	start(&r, &o, 0, NULL);
	mmap_self(&r, PID);
	comm(&r, PID, TID, "worker", 0);
	TEST("samples of a mapped process: symbolized stacks under the thread's name") {
		sample(&r, CPU_ID, PID, TID, 10, chain, 3);
		sample(&r, CPU_ID, PID, TID, 11, chain, 3);
		CHECK(weight_of(&r, "worker;unit_root;unit_mid;unit_leaf") == 2);
		CHECK(r.stats.samples[0] == 2 && r.stats.threads_seen == 1 && r.stats.bad == 0);
		t = prof_threads_find(&r.threads, TID);
		CHECK(t && t->pid == PID && strcmp(t->comm, "worker") == 0 && t->seen);
		CHECK(r.chain.fp_user_stacks == 2 && r.chain.fp_shallow_stacks == 0);
	}
	TEST("a return address outside code ends the walk with [truncated] at the root") {
		sample(&r, CPU_ID, PID, TID, 12, cut, 4);
		CHECK(weight_of(&r, "worker;[truncated];unit_mid;unit_leaf") == 1);
		CHECK(r.chain.fp_shallow_stacks == 1);
	}
	TEST("fork: the child thread keeps the name, the child process the mappings") {
		fork_rec(&r, PID2, PID, TID2, TID);
		sample(&r, CPU_ID, PID2, TID2, 13, chain, 3);
		CHECK(weight_of(&r, "worker;unit_root;unit_mid;unit_leaf") == 3);
		t = prof_threads_find(&r.threads, TID2);
		CHECK(t && t->pid == PID2 && strcmp(t->comm, "worker") == 0);
		CHECK(r.stats.threads_seen == 2);
	}
	TEST("exec: a new name, the old mappings forgotten") {
		comm(&r, PID2, TID2, "newprog", 1);
		sample(&r, CPU_ID, PID2, TID2, 14, chain, 3);
		CHECK(weight_of(&r, "newprog;[unknown];[unknown];[unknown]") == 1);
	}
	TEST("an unknown sample id and a cut record are counted as malformed") {
		struct rec_buf b;

		sample(&r, 999, PID, TID, 15, chain, 3);
		rec_begin(&b, PERF_RECORD_SAMPLE, 0);
		rec_u64(&b, CPU_ID);
		feed(&r, &b);
		CHECK(r.stats.bad == 2 && r.stats.samples[0] == 5);
	}
	TEST("lost records and throttling are counted") {
		struct rec_buf b;

		rec_begin(&b, PERF_RECORD_LOST, 0);
		rec_u64(&b, CPU_ID);
		rec_u64(&b, 17);
		rec_sample_id(&b, PID, TID, 16, 0, CPU_ID);
		feed(&r, &b);
		rec_begin(&b, PERF_RECORD_LOST_SAMPLES, 0);
		rec_u64(&b, 4);
		rec_sample_id(&b, PID, TID, 17, 0, CPU_ID);
		feed(&r, &b);
		rec_begin(&b, PERF_RECORD_THROTTLE, 0);
		rec_u64(&b, 18);
		rec_u64(&b, CPU_ID);
		rec_u64(&b, CPU_ID);
		rec_sample_id(&b, PID, TID, 18, 0, CPU_ID);
		feed(&r, &b);
		CHECK(r.stats.lost == 17 && r.stats.lost_samples == 4 && r.stats.throttled == 1);
	}
	TEST("a gone thread sampled before its FORK record: its process's name, not its tid") {
		comm(&r, PID, PID, "mainprog", 0);
		sample(&r, CPU_ID, PID, TID + 1, 19, chain, 3);
		CHECK(weight_of(&r, "mainprog;unit_root;unit_mid;unit_leaf") == 1);
		t = prof_threads_find(&r.threads, TID + 1);
		CHECK(t && t->pid == PID && strcmp(t->comm, "mainprog") == 0);
	}
	prof_recorder_release(&r);
}

static void test_offcpu(void)
{
	struct prof_recorder r;
	struct prof_recorder_options o;
	const uint64_t chain[] = { addr_of(unit_leaf), addr_of(unit_mid) + 1 };

	start(&r, &o, 1, NULL);
	mmap_self(&r, PID);
	comm(&r, PID, TID, "sleeper", 0);
	TEST("off-CPU: switch-out sample to switch in, weighted in ns") {
		sample(&r, OFF_ID, PID, TID, 1000, chain, 2);
		switch_rec(&r, PID, TID, 1000, PERF_RECORD_MISC_SWITCH_OUT);
		CHECK(r.stats.samples[0] == 0);
		switch_rec(&r, PID, TID, 1500, 0);
		CHECK(weight_of(&r, "sleeper;unit_mid;unit_leaf") == 500);
		CHECK(r.stats.samples[0] == 1);
		/* a second switch in without a switch out: nothing */
		switch_rec(&r, PID, TID, 2000, 0);
		CHECK(weight_of(&r, "sleeper;unit_mid;unit_leaf") == 500 && r.stats.samples[0] == 1);
	}
	TEST("off-CPU: a preempted thread gets a [preempted] leaf") {
		sample(&r, OFF_ID, PID, TID, 3000, chain, 2);
		switch_rec(&r, PID, TID, 3000,
			   PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
		switch_rec(&r, PID, TID, 7000, 0);
		CHECK(weight_of(&r, "sleeper;unit_mid;unit_leaf;[preempted]") == 4000);
		CHECK(weight_of(&r, "sleeper;unit_mid;unit_leaf") == 500);
	}
	TEST("off-CPU: a switch of an unknown thread is ignored") {
		switch_rec(&r, PID, TID + 7, 8000, 0);
		CHECK(r.stats.samples[0] == 2);
	}
	prof_recorder_release(&r);
}

static void test_tsv(void)
{
	char path[] = "/tmp/test_recorder.XXXXXX";
	struct prof_recorder r;
	struct prof_recorder_options o;
	struct prof_meta meta = PROF_META_INIT;
	struct prof_output *out;
	const uint64_t chain[] = { addr_of(unit_leaf), addr_of(unit_mid) + 1, addr_of(unit_root) + 1 };
	const char *header = "# source=profrec\n"
			     "time_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack\tip\tmap_id\tmap\taddrs\n";
	char text[4096];
	size_t n = 0;
	FILE *f;
	int fd = mkstemp(path);

	if (fd >= 0)
		close(fd);
	out = prof_output_open(path, PROF_OUT_STREAM, PROF_COMP_NONE);
	start(&r, &o, 0, out);
	prof_meta_set(&meta, "source", "profrec");
	TEST("TSV: a header, then one row per sample, a stack's text on its first row") {
		CHECK(prof_recorder_begin(&r, &meta) == 0);
		mmap_self(&r, PID);
		comm(&r, PID, TID, "tab\tname", 0);
		sample(&r, CPU_ID, PID, TID, 10, chain, 3);
		sample(&r, CPU_ID, PID, TID, 11, chain, 3);
		CHECK(prof_recorder_finish(&r, &meta) == 0 && prof_output_close(out) == 0);
		f = fopen(path, "re");
		if (f) {
			n = fread(text, 1, sizeof(text) - 1, f);
			fclose(f);
		}
		text[n] = 0;
		CHECK(strncmp(text, header, strlen(header)) == 0);
		CHECK(strstr(text, "\t4194400\t4194401\ttab name\t2\tcpu-clock\t1000000\t0\tunit_root;unit_mid;unit_leaf\t"));
		CHECK(strstr(text, "\t4194400\t4194401\ttab name\t2\tcpu-clock\t1000000\t0\t\t"));
	}
	TEST("TSV: the sampled ip in hex, its mapping's text on the first row naming it") {
		uint64_t start, end, pgoff;
		char exe[PATH_MAX], want[PATH_MAX + 200];

		if (self_text(&start, &end, &pgoff, exe, sizeof(exe)) == 0) {
			snprintf(want, sizeof(want), "unit_leaf\t%llx\t0\t0x%llx 0x%llx - %s\t",
				 (unsigned long long)chain[0], (unsigned long long)start,
				 (unsigned long long)pgoff, exe);
			CHECK(strstr(text, want));
			snprintf(want, sizeof(want), "\t0\t\t%llx\t0\t\t\n", (unsigned long long)chain[0]);
			CHECK(strstr(text, want));
		}
	}
	TEST("TSV: the callers' return addresses, root first, their mapping named once in the column") {
		uint64_t start, end, pgoff;
		char exe[PATH_MAX], want[2 * PATH_MAX + 300];

		if (self_text(&start, &end, &pgoff, exe, sizeof(exe)) == 0) {
			snprintf(want, sizeof(want), "\t0x%llx 0x%llx - %s\t%llx@0=0x%llx 0x%llx - %s;%llx@0\n",
				 (unsigned long long)start, (unsigned long long)pgoff, exe,
				 (unsigned long long)chain[2], (unsigned long long)start,
				 (unsigned long long)pgoff, exe, (unsigned long long)chain[1]);
			CHECK(strstr(text, want));
		}
	}
	prof_meta_release(&meta);
	prof_recorder_release(&r);
	unlink(path);
}

/* An anonymous executable mapping (JIT code) of pid. */
static void mmap_anon(struct prof_recorder *r, uint32_t pid, uint64_t start, uint64_t len)
{
	struct rec_buf b;
	struct prof_rec_mmap2 m;

	memset(&m, 0, sizeof(m));
	m.pid = m.tid = pid;
	m.addr = start;
	m.len = len;
	m.prot = PROT_READ | PROT_EXEC;
	rec_begin(&b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	rec_put(&b, &m, sizeof(m));
	rec_str(&b, "//anon");
	rec_sample_id(&b, pid, pid, 1, 0, CPU_ID);
	feed(r, &b);
}

static char *slurp(const char *path)
{
	static char text[8192];
	size_t n = 0;
	FILE *f = fopen(path, "re");

	if (f) {
		n = fread(text, 1, sizeof(text) - 1, f);
		fclose(f);
	}
	text[n] = 0;
	return text;
}

/*
 * Deferred naming (callchain.h): JIT code whose perf map is written only
 * after its samples (the JVM's at exit) named at the end, in folded
 * output and in a TSV file rewritten; an address the late map lacks
 * (code freed before it was written) is [unknown].
 */
#define JIT 0x7f0000100000ULL
static void test_deferred(void)
{
	char out_path[] = "/tmp/test_recorder.XXXXXX", map[64];
	const uint64_t chain[] = { JIT + 0x110, JIT + 0x220 + 1, addr_of(unit_root) + 1 };
	const uint64_t gone[] = { JIT + 0x990, JIT + 0x220 + 1, addr_of(unit_root) + 1 };
	struct prof_meta meta = PROF_META_INIT;
	struct prof_recorder_options o;
	struct prof_recorder r;
	struct prof_output *out;
	FILE *f;
	int fd = mkstemp(out_path);

	if (fd >= 0)
		close(fd);
	snprintf(map, sizeof(map), "/tmp/perf-%d.map", PID);
	unlink(map);
	prof_meta_set(&meta, "source", "profrec");
	for (int folded = 1; folded >= 0; folded--) {
		out = prof_output_open(out_path, PROF_OUT_STREAM, PROF_COMP_NONE);
		start_as(&r, &o, 0, out, folded);
		CHECK(prof_recorder_begin(&r, &meta) == 0);
		mmap_self(&r, PID);
		mmap_anon(&r, PID, JIT, 0x1000);
		comm(&r, PID, TID, "java", 0);
		sample(&r, CPU_ID, PID, TID, 10, chain, 3);
		sample(&r, CPU_ID, PID, TID, 11, chain, 3);
		sample(&r, CPU_ID, PID, TID, 12, gone, 3);
		/* the map written late, as at the JVM's exit */
		f = fopen(map, "we");
		if (f) {
			fprintf(f, "0x%llx 0x80 long Split.leafA(int)\n0x%llx 0x100 LSplit;::split\n",
				(unsigned long long)JIT + 0x100, (unsigned long long)JIT + 0x200);
			fclose(f);
		}
		CHECK(prof_recorder_finish(&r, &meta) == 0 && prof_output_close(out) == 0);
		if (!folded)
			CHECK(prof_sample_writer_rename_file(&r.writer, out_path) == 0);
		TEST(folded ? "deferred naming: JIT frames named at the end from the late map (folded)" :
			      "deferred naming: a streamed TSV file rewritten with the names") {
			const char *text = slurp(out_path);

			CHECK(strstr(text, folded ? "java;unit_root;LSplit:::split;long Split.leafA(int) 2\n" :
					      "\tunit_root;LSplit:::split;long Split.leafA(int)\t"));
			CHECK(strstr(text, folded ? "java;unit_root;LSplit:::split;[unknown] 1\n" :
					      "\tunit_root;LSplit:::split;[unknown]\t"));
			CHECK(!strstr(text, "[unknown 0x"));
		}
		prof_recorder_release(&r);
		unlink(map);
	}
	TEST("deferred naming: off for standard output (nothing to go back to)") {
		out = prof_output_open("-", PROF_OUT_STREAM, PROF_COMP_NONE);
		start_as(&r, &o, 0, out, 0);
		CHECK(r.chain.defer_jit == 0);
		prof_recorder_release(&r);
		prof_output_abort(out);
	}
	prof_meta_release(&meta);
	unlink(out_path);
}

int main(void)
{
	/* Hermetic: no symbol cache read or written. */
	setenv("PROFTOOLS_NO_CACHE", "1", 1);
	test_folded();
	test_leaf_caller();
	test_offcpu();
	test_tsv();
	test_deferred();
	return UNIT_RESULT();
}
