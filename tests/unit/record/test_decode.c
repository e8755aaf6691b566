/* lib/record/decode.c: perf_event records built in memory, decoded. */
#include <stdint.h>
#include <string.h>
#include "../unit.h"
#include "records.h"
#include "record/decode.h"

#define ST_BASE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

static const struct prof_record_layout fp = { ST_BASE | PERF_SAMPLE_CALLCHAIN, 0, 1 };
static const struct prof_record_layout dwarf = {
	ST_BASE | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER,
	(1u << 0) | (1u << 6) | (1u << 8), 1	/* three registers */
};

/* A sample of layout fp: id 7, ip, pid 100, tid 101, time, cpu 3, period, chain. */
static const struct perf_event_header *fp_sample(struct rec_buf *b, const uint64_t *ips, uint64_t nr)
{
	rec_begin(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	rec_u64(b, 7);
	rec_u64(b, 0x401000);
	rec_u32x2(b, 100, 101);
	rec_u64(b, 123456789);
	rec_u32x2(b, 3, 0);
	rec_u64(b, 1000000);
	rec_u64(b, nr);
	rec_put(b, ips, nr * 8);
	return rec_end(b);
}

static void test_samples(void)
{
	struct rec_buf b;
	struct prof_sample s;
	const uint64_t chain[] = { (uint64_t)PERF_CONTEXT_USER, 0x401000, 0x402345, 0x403000 };

	TEST("a frame pointer sample: every field, the chain in place") {
		CHECK(prof_decode_sample(&fp, fp_sample(&b, chain, 4), &s) == 0);
		CHECK(s.id == 7 && s.ip == 0x401000 && s.pid == 100 && s.tid == 101);
		CHECK(s.time == 123456789 && s.cpu == 3 && s.period == 1000000);
		CHECK(s.nr == 4 && s.ips && s.ips[0] == (uint64_t)PERF_CONTEXT_USER && s.ips[3] == 0x403000);
		CHECK(s.regs_abi == 0 && s.regs == NULL && s.stack == NULL && s.stack_size == 0);
		CHECK(s.misc == PERF_RECORD_MISC_USER);
		CHECK(prof_decode_time(&fp, rec_hdr(&b)) == 123456789);
	}
	TEST("a sample cut anywhere is malformed") {
		int all = 1;

		fp_sample(&b, chain, 4);
		for (uint16_t size = 8; size < b.len; size += 4) {
			rec_hdr(&b)->size = size;
			all = all && prof_decode_sample(&fp, rec_hdr(&b), &s) == -1;
		}
		CHECK(all);
		rec_hdr(&b)->size = (uint16_t)b.len;
		CHECK(prof_decode_sample(&fp, rec_hdr(&b), &s) == 0);
	}
	TEST("a call chain claiming more entries than the record holds is malformed") {
		fp_sample(&b, chain, 4);
		memcpy((unsigned char *)b.words + 56, &(uint64_t){ 5 }, 8);
		CHECK(prof_decode_sample(&fp, rec_hdr(&b), &s) == -1);
		memcpy((unsigned char *)b.words + 56, &(uint64_t){ 1ULL << 40 }, 8);
		CHECK(prof_decode_sample(&fp, rec_hdr(&b), &s) == -1);
	}
	TEST("a DWARF sample: registers and the copied stack, dyn_size bounding it") {
		unsigned char stack[32];

		for (int i = 0; i < 32; i++)
			stack[i] = (unsigned char)i;
		rec_begin(&b, PERF_RECORD_SAMPLE, 0);
		rec_u64(&b, 7);
		rec_u64(&b, 0x401000);
		rec_u32x2(&b, 100, 101);
		rec_u64(&b, 5);
		rec_u32x2(&b, 0, 0);
		rec_u64(&b, 1);
		rec_u64(&b, 0);				/* no kernel chain */
		rec_u64(&b, PERF_SAMPLE_REGS_ABI_64);
		rec_u64(&b, 0xaaa);
		rec_u64(&b, 0x7ffd0000);		/* sp */
		rec_u64(&b, 0x401000);			/* ip */
		rec_u64(&b, 32);
		rec_put(&b, stack, 32);
		rec_u64(&b, 24);			/* dyn_size */
		CHECK(prof_decode_sample(&dwarf, rec_end(&b), &s) == 0);
		CHECK(s.nr == 0 && s.regs_abi == PERF_SAMPLE_REGS_ABI_64);
		CHECK(s.regs && s.regs[0] == 0xaaa && s.regs[1] == 0x7ffd0000 && s.regs[2] == 0x401000);
		CHECK(s.stack && s.stack_size == 24 && s.stack[0] == 0 && s.stack[23] == 23);
		/* dyn_size larger than the copy is cut to it */
		memcpy((unsigned char *)b.words + b.len - 8, &(uint64_t){ 4096 }, 8);
		CHECK(prof_decode_sample(&dwarf, rec_hdr(&b), &s) == 0 && s.stack_size == 32);
		/* a stack size past the record's end */
		memcpy((unsigned char *)b.words + b.len - 48, &(uint64_t){ 40 }, 8);
		CHECK(prof_decode_sample(&dwarf, rec_hdr(&b), &s) == -1);
	}
	TEST("no user registers (a kernel thread): ABI 0, none follow") {
		rec_begin(&b, PERF_RECORD_SAMPLE, 0);
		rec_u64(&b, 7);
		rec_u64(&b, 0xffffffff81000000ULL);
		rec_u32x2(&b, 0, 0);
		rec_u64(&b, 5);
		rec_u32x2(&b, 1, 0);
		rec_u64(&b, 1);
		rec_u64(&b, 0);
		rec_u64(&b, 0);				/* regs_abi: none */
		rec_u64(&b, 0);				/* stack size 0: no dyn_size */
		CHECK(prof_decode_sample(&dwarf, rec_end(&b), &s) == 0);
		CHECK(s.regs == NULL && s.stack == NULL && s.cpu == 1);
	}
	TEST("ADDR, ID and STREAM_ID are stepped over in the kernel's order") {
		struct prof_record_layout l = { PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
						PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
						PERF_SAMPLE_CPU, 0, 1 };

		rec_begin(&b, PERF_RECORD_SAMPLE, 0);
		rec_u64(&b, 0x1234);
		rec_u32x2(&b, 9, 10);
		rec_u64(&b, 77);
		rec_u64(&b, 0xdead);			/* addr */
		rec_u64(&b, 42);			/* id */
		rec_u64(&b, 43);			/* stream id */
		rec_u32x2(&b, 5, 0);
		CHECK(prof_decode_sample(&l, rec_end(&b), &s) == 0);
		CHECK(s.ip == 0x1234 && s.pid == 9 && s.tid == 10 && s.time == 77 && s.id == 42 && s.cpu == 5);
	}
}

static void test_side_band(void)
{
	struct rec_buf b;
	struct prof_sample_id sid;
	struct prof_mmap2 m;
	struct prof_comm c;
	struct prof_rec_task t;
	struct prof_rec_mmap2 body;
	struct prof_sample s;

	TEST("MMAP2 with a build-id: the mapping, the path, the trailer") {
		memset(&body, 0, sizeof(body));
		body.pid = 100;
		body.tid = 100;
		body.addr = 0x400000;
		body.len = 0x2000;
		body.pgoff = 0x1000;
		body.id.build.build_id_size = 20;
		for (int i = 0; i < 20; i++)
			body.id.build.build_id[i] = (uint8_t)(0xa0 + i);
		body.prot = 5;
		body.flags = 2;
		rec_begin(&b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
		rec_put(&b, &body, sizeof(body));
		rec_str(&b, "/usr/bin/app");
		rec_sample_id(&b, 100, 100, 555, 2, 7);
		CHECK(prof_decode_mmap2(rec_end(&b), &m) == 0);
		CHECK(m.pid == 100 && m.tid == 100 && m.addr == 0x400000 && m.len == 0x2000);
		CHECK(m.pgoff == 0x1000 && m.prot == 5 && m.flags == 2);
		CHECK(m.build_id_len == 20 && m.build_id && m.build_id[0] == 0xa0 && m.build_id[19] == 0xb3);
		CHECK(m.path_len == 12 && memcmp(m.path, "/usr/bin/app", 12) == 0);
		CHECK(prof_decode_sample_id(&fp, rec_hdr(&b), &sid) == 0);
		CHECK(sid.pid == 100 && sid.tid == 100 && sid.time == 555 && sid.cpu == 2 && sid.id == 7);
		CHECK(prof_decode_time(&fp, rec_hdr(&b)) == 555);
		CHECK(prof_decode_sample(&fp, rec_hdr(&b), &s) == -1);
	}
	TEST("MMAP2 without a build-id (device and inode instead), or too short") {
		rec_begin(&b, PERF_RECORD_MMAP2, 0);
		body.id.file.maj = 8;
		body.id.file.min = 1;
		body.id.file.ino = 1234;
		rec_put(&b, &body, sizeof(body));
		rec_str(&b, "//anon");
		CHECK(prof_decode_mmap2(rec_end(&b), &m) == 0);
		CHECK(m.build_id == NULL && m.build_id_len == 0);
		CHECK(m.path_len == 6 && memcmp(m.path, "//anon", 6) == 0);
		rec_hdr(&b)->size = 8 + 60;
		CHECK(prof_decode_mmap2(rec_hdr(&b), &m) == -1);
		rec_hdr(&b)->type = PERF_RECORD_COMM;
		CHECK(prof_decode_mmap2(rec_hdr(&b), &m) == -1);
	}
	TEST("COMM: the name, exec or not") {
		struct prof_rec_comm cb = { 100, 102 };

		rec_begin(&b, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
		rec_put(&b, &cb, sizeof(cb));
		rec_str(&b, "worker-1");
		rec_sample_id(&b, 100, 102, 600, 0, 7);
		CHECK(prof_decode_comm(rec_end(&b), &c) == 0);
		CHECK(c.pid == 100 && c.tid == 102 && c.exec == 1);
		CHECK(c.comm_len == 8 && memcmp(c.comm, "worker-1", 8) == 0);
		rec_hdr(&b)->misc = 0;
		CHECK(prof_decode_comm(rec_hdr(&b), &c) == 0 && c.exec == 0);
		rec_hdr(&b)->size = 16;		/* no byte of a name */
		CHECK(prof_decode_comm(rec_hdr(&b), &c) == -1);
	}
	TEST("FORK and EXIT: pid, ppid, tid, ptid, time") {
		struct prof_rec_task tb = { 200, 100, 201, 101, 700 };

		rec_begin(&b, PERF_RECORD_FORK, 0);
		rec_put(&b, &tb, sizeof(tb));
		rec_sample_id(&b, 100, 101, 700, 1, 7);
		CHECK(prof_decode_task(rec_end(&b), &t) == 0);
		CHECK(t.pid == 200 && t.ppid == 100 && t.tid == 201 && t.ptid == 101 && t.time == 700);
		rec_hdr(&b)->type = PERF_RECORD_EXIT;
		CHECK(prof_decode_task(rec_hdr(&b), &t) == 0 && t.tid == 201);
		rec_hdr(&b)->size = 8 + 16;
		CHECK(prof_decode_task(rec_hdr(&b), &t) == -1);
	}
	TEST("LOST and LOST_SAMPLES: the count") {
		rec_begin(&b, PERF_RECORD_LOST, 0);
		rec_u64(&b, 7);
		rec_u64(&b, 33);
		CHECK(prof_decode_lost(rec_end(&b)) == 33);
		rec_begin(&b, PERF_RECORD_LOST_SAMPLES, 0);
		rec_u64(&b, 12);
		CHECK(prof_decode_lost(rec_end(&b)) == 12);
		rec_hdr(&b)->size = 8;
		CHECK(prof_decode_lost(rec_hdr(&b)) == 0);
	}
	TEST("SWITCH: only the trailer; none without sample_id_all or room") {
		struct prof_record_layout off = fp;

		rec_begin(&b, PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT);
		rec_sample_id(&b, 100, 101, 800, 4, 9);
		CHECK(prof_decode_sample_id(&fp, rec_end(&b), &sid) == 0);
		CHECK(sid.tid == 101 && sid.time == 800 && sid.cpu == 4 && sid.id == 9);
		off.sample_id_all = 0;
		CHECK(prof_decode_sample_id(&off, rec_hdr(&b), &sid) == -1);
		CHECK(prof_decode_time(&off, rec_hdr(&b)) == 0);
		rec_hdr(&b)->size = 24;
		CHECK(prof_decode_sample_id(&fp, rec_hdr(&b), &sid) == -1);
	}
}

int main(void)
{
	test_samples();
	test_side_band();
	return UNIT_RESULT();
}
