/*
 * The perf script reader against stackcollapse-perf.pl: every expected
 * output below was produced by running the Perl script (FlameGraph,
 * default options unless named) on the same snippet, except the cases
 * marked (ext) where proftools deliberately differs or adds an option.
 */
#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "formats/perfscript.h"
#include "core/stack.h"
#include "../unit.h"
#include "formats/folded.h"

/* Fold text with opts; the folded lines, sorted, as one string (caller frees). */
static char *fold(const char *text, const struct prof_perfscript_opts *o,
		  struct prof_perfscript_stats *st_out)
{
	struct prof_stacks t;
	struct prof_perfscript_ctx ctx;
	struct prof_perfscript *ps;
	struct prof_buf b = PROF_BUF_INIT;
	size_t n, i;
	uint32_t *ids;

	memset(&ctx, 0, sizeof(ctx));
	prof_stacks_init(&t, 1);
	if (o->event_filter) {
		ctx.event = strdup(o->event_filter);
		ctx.event_len = strlen(o->event_filter);
	}
	prof_perfscript_prescan(&ctx, text, strlen(text), o->time_window);
	ps = prof_perfscript_new(&t, o);
	prof_perfscript_parse(ps, &ctx, text, strlen(text), 0, 1);
	if (st_out) {
		memset(st_out, 0, sizeof(*st_out));
		prof_perfscript_stats_merge(st_out, prof_perfscript_stats(ps));
	}
	ids = prof_stacks_sorted(&t, &n);
	for (i = 0; i < n; i++) {
		char num[64];

		prof_stacks_format(&t, ids[i], &b);
		prof_format_count(num, prof_stacks_weights(&t, ids[i])[0]);
		prof_buf_addf(&b, " %s\n", num);
	}
	free(ids);
	prof_perfscript_free(ps);
	prof_stacks_release(&t);
	prof_perfscript_ctx_release(&ctx);
	return prof_buf_detach(&b, NULL);
}

static const char snippet[] =
	"# a comment line\n"
	"swapper     0/0 [000] 100.000001:     250000 cpu-clock: \n"
	"\tffffffff8103ce3b native_safe_halt+0x1b ([kernel.kallsyms])\n"
	"\tffffffff8101c6a3 default_idle+0x13 (/lib/modules/6.1/build/vmlinux)\n"
	"\tffffffff81aebbfe start_kernel+0x5 ([kernel.kallsyms].init.text)\n"
	"\n"
	"java 4000/4001 [001] 100.000002:     250000 cpu-clock: \n"
	"\t7f722d142778 Ljava/io/PrintStream;::print (/tmp/perf-4000.map)\n"
	"\t7f722d142779 Lorg/mozilla/javascript/ContextFactory;.call(Lorg/mozilla/javascript/ContextAction;)Ljava/lang/Object; (/tmp/perf-4000.map)\n"
	"\t7f722d14277a \"quoted'name\" (/tmp/perf-4000.map)\n"
	"\t7f722d14277b [unknown] (/usr/lib/jvm/libjvm.so)\n"
	"\n"
	"io worker 1  5197/5198 [002] 100.000003:     250000 cpu-clock: \n"
	"\t1000 inner_fn+0x10 (/opt/app)\n"
	"\t1001 outer_fn->mid_fn->inner2+0x20 (/opt/app)\n"
	"\t1002 std::function<void (int)>::operator()(int) const+0x5 (/opt/app)\n"
	"\t1003 (anonymous namespace)::helper(int)+0x1 (/opt/app)\n"
	"\t1004 ns::(anonymous namespace)::worker(int)+0x2 (/opt/app)\n"
	"\t1005 net/http.(*Client).Do+0x3 (/opt/app)\n"
	"\t1006 a;b (/opt/app)\n"
	"\t1007 [unknown] ([unknown])\n"
	"\t1008 msort_with_tmp+0x1fd (inlined)\n"
	"\t1009 main+0x9a (/opt/app)\n"
	"\n"
	"V8 WorkerThread 25607 100.000004: 100 cycles: \n"
	"\t2000 v8fn (/opt/v8)\n"
	"\n"
	"V8 WorkerThread 25607 100.000005: 7 instructions: \n"
	"\t2000 v8fn (/opt/v8)\n"
	"\n"
	"perf 77 100.000006: cycles: \n"
	"\t3000 nop (/opt/p)\n"
	"\n"
	"garbage line here\n"
	"tail 9 100.000007: 5 cycles: \n"
	"\t4000 last_fn (/opt/t)\n";

#define IO_STACK "main;msort_with_tmp;[unknown];a:b;net/http.(*Client).Do;" \
	"ns::(anonymous namespace)::worker;std::function<void ;outer_fn;mid_fn_[i];inner2_[i];inner_fn 250000\n"

int main(void)
{
	struct prof_perfscript_opts o;
	struct prof_perfscript_stats st;
	struct prof_perf_event ev;
	char *got;

	TEST("event line: comm with spaces splits at the first number") {
		const char *l = "io worker 1  5197/5198 [002] 100.000003:     250000 cpu-clock: ";

		CHECK(prof_perfscript_event_line(l, strlen(l), &ev) == 1);
		CHECK(ev.comm_len == 9 && memcmp(ev.comm, "io worker", 9) == 0);
		CHECK(ev.pid_len == 1 && ev.pid[0] == '1' && ev.tid_len == 0);
		CHECK(ev.has_event && ev.period_len == 6 && memcmp(ev.period, "250000", 6) == 0);
		CHECK(ev.event_len == 9 && memcmp(ev.event, "cpu-clock", 9) == 0);
		CHECK(ev.time_len == 10 && memcmp(ev.time, "100.000003", 10) == 0);
	}
	TEST("event line: pid/tid, tracepoint event, no period") {
		const char *l1 = "java 24636/25607 [000] 4794564.109216: 1 sched:sched_switch:";
		const char *l2 = "perf 77 100.000006: cycles: ";

		CHECK(prof_perfscript_event_line(l1, strlen(l1), &ev) == 1);
		CHECK(ev.pid_len == 5 && memcmp(ev.pid, "24636", 5) == 0);
		CHECK(ev.tid_len == 5 && memcmp(ev.tid, "25607", 5) == 0);
		CHECK(ev.event_len == 18 && memcmp(ev.event, "sched:sched_switch", 18) == 0);
		CHECK(prof_perfscript_event_line(l2, strlen(l2), &ev) == 1);
		CHECK(ev.has_event && ev.period_len == 0 && ev.event_len == 6);
	}
	TEST("event line: non-matches") {
		CHECK(prof_perfscript_event_line("\tffff f (x)", 11, &ev) == 0);
		CHECK(prof_perfscript_event_line("x 12 foo", 8, &ev) == 0);
		CHECK(prof_perfscript_event_line("garbage line here", 17, &ev) == 0);
		CHECK(prof_perfscript_event_line("ab 12", 5, &ev) == 0);	/* \s+ needs a byte */
	}
	TEST("default folding: kernel, java, comm with spaces, C++, Go, ->, [unknown], events") {
		memset(&o, 0, sizeof(o));
		got = fold(snippet, &o, &st);
		CHECK_STR(got, "io_worker;" IO_STACK
			  "java;[libjvm.so];quotedname;org/mozilla/javascript/ContextFactory:.call;"
			  "java/io/PrintStream:::print 250000\n"
			  "swapper;start_kernel;default_idle;native_safe_halt 250000\n");
		CHECK(st.malformed == 1 && st.nbad == 1 && st.bad_line[0] == 34);
		CHECK(st.nothers == 2);	/* cycles, instructions */
		CHECK(st.samples == 3);
		free(got);
		prof_perfscript_stats_release(&st);
	}
	TEST("--pid and --tid root frames (pid ? when perf printed none)") {
		memset(&o, 0, sizeof(o));
		o.include_pid = 1;
		got = fold(snippet, &o, NULL);
		CHECK(strstr(got, "io_worker-?;main;") && strstr(got, "java-4000;[libjvm.so]") &&
		      strstr(got, "swapper-?;start_kernel"));
		free(got);
		o.include_tid = 1;
		got = fold(snippet, &o, NULL);
		CHECK(strstr(got, "io_worker-?/1;main;") && strstr(got, "java-4000/4001;") &&
		      strstr(got, "swapper-?/0;start_kernel"));
		free(got);
	}
	TEST("--kernel and --jit annotations") {
		memset(&o, 0, sizeof(o));
		o.annotate_kernel = o.annotate_jit = 1;
		got = fold(snippet, &o, NULL);
		CHECK(strstr(got, "swapper;start_kernel_[k];default_idle_[k];native_safe_halt_[k] 250000\n"));
		CHECK(strstr(got, "java;[libjvm.so];quotedname_[j];org/mozilla/javascript/ContextFactory:.call_[j];"
			      "java/io/PrintStream:::print_[j] 250000\n"));
		CHECK(strstr(got, "io_worker;" IO_STACK));	/* user and [unknown] dsos unmarked */
		free(got);
	}
	TEST("--addrs keeps addresses of unknown symbols") {
		memset(&o, 0, sizeof(o));
		o.include_addrs = 1;
		got = fold(snippet, &o, NULL);
		CHECK(strstr(got, ";[unknown <1007>];") && strstr(got, "java;[libjvm.so <7f722d14277b>];"));
		free(got);
	}
	TEST("--event-filter picks another event") {
		memset(&o, 0, sizeof(o));
		o.event_filter = "instructions";
		got = fold(snippet, &o, NULL);
		CHECK_STR(got, "V8_WorkerThread;v8fn 7\n");
		free(got);
		o.event_filter = "cycles";	/* (ext) the last sample, unterminated, is kept */
		got = fold(snippet, &o, NULL);
		CHECK_STR(got, "V8_WorkerThread;v8fn 100\nperf;nop 1\ntail;last_fn 5\n");
		free(got);
	}
	TEST("(ext) --cpp-names and --mark-inlined") {
		memset(&o, 0, sizeof(o));
		o.cpp_names = 1;
		o.mark_inlined = 1;
		got = fold(snippet, &o, NULL);
		CHECK(strstr(got, "io_worker;main;msort_with_tmp_[i];[unknown];a:b;net/http.(*Client).Do;"
			      "ns::(anonymous namespace)::worker;(anonymous namespace)::helper;"
			      "std::function<void (int)>::operator();outer_fn;mid_fn_[i];inner2_[i];inner_fn 250000\n"));
		free(got);
		got = fold("prog 1 1.0: 3 cpu-clock:\n\t1 std::operator<< <char>(std::ostream&) (/x)\n"
			   "\t2 {lambda(int)#1}::operator()(int) const (/x)\n\n", &o, NULL);
		CHECK_STR(got, "prog;{lambda(int)#1}::operator();std::operator<< <char> 3\n");
		free(got);
	}
	TEST("truncated sample and missing final blank line (ext: kept)") {
		memset(&o, 0, sizeof(o));
		got = fold("prog 1 1.0: 5 cpu-clock:\n\t1 f (/x)\n\nprog 1 2.0: 6 cpu-clock:\n\t2 g (/x)", &o, NULL);
		CHECK_STR(got, "prog;f 5\nprog;g 6\n");
		free(got);
		got = fold("prog 1 1.0: 5 cpu-clock:\n\t1 f (/x)\n\nprog 1 2.0: 6 cpu-clock:\n", &o, NULL);
		CHECK_STR(got, "prog 6\nprog;f 5\n");
		free(got);
	}
	TEST("period: absent or 0 weighs 1; --counts; CRLF lines") {
		memset(&o, 0, sizeof(o));
		got = fold("prog 1 1.0: cpu-clock:\n\t1 f (/x)\n\nprog 1 2.0: 0 cpu-clock:\r\n\t1 f (/x)\r\n\r\n", &o, NULL);
		CHECK_STR(got, "prog;f 2\n");
		free(got);
		o.counts = 1;
		got = fold("prog 1 1.0: 70 cpu-clock:\n\t1 f (/x)\n\nprog 1 2.0: 30 cpu-clock:\n\t1 f (/x)\n\n", &o, NULL);
		CHECK_STR(got, "prog;f 2\n");
		free(got);
	}
	TEST("frame line regex: dso with parentheses, frames starting with (, offsets") {
		memset(&o, 0, sizeof(o));
		/* Perl: the dso is after the last " (" that has a ")" after it,
		 * so the symbol is "f+0x1a (/tmp/x", cut at its '(' */
		got = fold("prog 1 1.0: 1 cpu-clock:\n\t1 f+0x1a (/tmp/x (deleted))\n"
			   "\t2 (unnamed) (/x)\n\t3 g+0xZZ (/x)\n\t4 h->+0x5 (/x)\n\n", &o, NULL);
		CHECK_STR(got, "prog;h;g+0xZZ;f+0x1a  1\n");
		free(got);
	}
	TEST("(ext) time window relative to the first sample") {
		memset(&o, 0, sizeof(o));
		o.time_window = 1;
		o.time_from_ns = 500000000;	/* 0.5 s */
		o.time_to_ns = 1500000000;
		got = fold("prog 1 10.0: 1 cpu-clock:\n\t1 a (/x)\n\nprog 1 10.6: 2 cpu-clock:\n\t1 b (/x)\n\n"
			   "prog 1 11.5: 4 cpu-clock:\n\t1 c (/x)\n\n", &o, &st);
		CHECK_STR(got, "prog;b 2\n");
		CHECK(st.outside_time == 2);
		free(got);
		prof_perfscript_stats_release(&st);
	}
	TEST("(ext) samples without call chains: one line each, comm;symbol with its period") {
		memset(&o, 0, sizeof(o));
		got = fold("            prog 13731  2727.213670:    1001001 cpu-clock:ppp:      557293039181 other+0x11 (/x/prog)\n"
			   "            prog 13731  2727.214678:    1001001 cpu-clock:ppp:      557293039151 leaf+0x18 (/x/prog)\n"
			   "            prog 13731  2727.215678:         77 cycles:      557293039151 leaf+0x18 (/x/prog)\n"
			   "a_long_command_name 9/10 [001] 2727.216680:    1001001 cpu-clock:ppp:  ffffffff8103ce3b native_safe_halt+0x1b ([kernel.kallsyms])\n"
			   "io worker 1  5197/5198 [002] 2727.217681:    1001001 cpu-clock:ppp:      7f00 [unknown] (/usr/lib/libc.so.6)\n",
			   &o, &st);
		CHECK_STR(got, "a_long_command_name;native_safe_halt 1001001\nio_worker_1;[libc.so.6] 1001001\n"
			  "prog;leaf 1001001\nprog;other 1001001\n");
		CHECK(st.samples == 4 && st.malformed == 0 && st.nothers == 1);
		free(got);
		prof_perfscript_stats_release(&st);
		o.annotate_kernel = o.include_tid = 1;
		got = fold("prog 5/6 1.0: 1 cpu-clock: ffffffff8103ce3b native_safe_halt+0x1b ([kernel.kallsyms])\n", &o, NULL);
		CHECK_STR(got, "prog-5/6;native_safe_halt_[k] 1\n");
		free(got);
		/* -F comm,tid,ip,sym,dso: no time, no event, no period */
		memset(&o, 0, sizeof(o));
		got = fold("            prog 13731      557293039181 other (/x/prog)\n"
			   "            prog 13731      557293039181 other (/x/prog)\n", &o, NULL);
		CHECK_STR(got, "prog;other 2\n");
		free(got);
		/* -F comm,tid,period,ip,sym,dso: a period without an event */
		got = fold("            prog 13731    1001001      55c5514bd21c calc::Acc<unsigned long>::sum (/x/prog)\n"
			   "            prog 13731    1001001      55c5514bd21c f2 (/x/prog)\n", &o, NULL);
		CHECK_STR(got, "prog;calc::Acc<unsigned long>::sum 1001001\nprog;f2 1001001\n");
		free(got);
	}
	TEST("(ext) a line that is an event line and a sample line: frames after it decide") {
		memset(&o, 0, sizeof(o));
		/* trailing fields that look like a frame, then a call chain */
		got = fold("prog 1 1.0: 5 mem-loads: 7ffd1234 |OP LOAD| (x)\n\t1 f (/x)\n\t2 main (/x)\n\n"
			   "prog 1 2.0: 5 mem-loads: 7ffd1234 g (/x)\n"
			   "prog 1 3.0: 5 mem-loads: 7ffd1234 h (/x)\n\n"
			   "prog 1 4.0: 5 mem-loads: 7ffd1234 k (/x)", &o, NULL);
		/* read by the Perl rules: no event, no period */
		CHECK_STR(got, "prog;g 5\nprog;h 5\nprog;k 5\nprog;main;f 1\n");
		free(got);
	}
	TEST("(ext) an event line while a sample is open ends it") {
		memset(&o, 0, sizeof(o));
		got = fold("prog 1 1.0: 2 cpu-clock:\nprog 1 2.0: 3 cpu-clock:\n\t1 f (/x)\n\n", &o, NULL);
		CHECK_STR(got, "prog 2\nprog;f 3\n");
		free(got);
	}
	TEST("(ext) frames without dso (-F ip,sym); kernel addresses") {
		memset(&o, 0, sizeof(o));
		o.annotate_kernel = 1;
		got = fold("prog 13755/13755  2731.749693: cpu-clock:ppp: \n"
			   "\tffffffff821ef666 do_syscall_64\n\t            114a leaf+0x11\n\t 11ad main \n\n", &o, &st);
		CHECK_STR(got, "prog;main;leaf;do_syscall_64_[k] 1\n");
		CHECK(st.malformed == 0);
		free(got);
		prof_perfscript_stats_release(&st);
		got = fold("prog 1 1.0: 1 cpu-clock:\n\tnot-a-pc f\n\n", &o, &st);
		CHECK(st.malformed == 1);
		free(got);
		prof_perfscript_stats_release(&st);
	}
	TEST("(ext) -F +srcline lines and --show-*-events records are skipped") {
		memset(&o, 0, sizeof(o));
		got = fold("prog 9 0.5: PERF_RECORD_COMM exec: prog:9/9\n"
			   "prog 9 1.0: 3 cpu-clock: \n\t1 f+0x1 (/x)\n  f.c:12\n\t2 g (/x)\n  ??:0\n"
			   "\tffffffff81000130 k ([kernel.kallsyms])\n  [kernel.kallsyms][ffffffff81000130]\n\n"
			   "prog 9 2.0: PERF_RECORD_EXIT(9:9):(1:1)\n", &o, &st);
		CHECK_STR(got, "prog;k;g;f 3\n");
		CHECK(st.malformed == 0 && st.samples == 1);
		free(got);
		prof_perfscript_stats_release(&st);
		/* a sample line of a long command name, its source line after it */
		got = fold("a_long_command_name 9 1.0: 5 cpu-clock: 1c f+0x1 (/x)\n  f.c:12\n"
			   "a_long_command_name 9 1.1: 5 cpu-clock: 1c f+0x1 (/x)\n  f.c:12\n", &o, &st);
		CHECK_STR(got, "a_long_command_name;f 10\n");
		CHECK(st.malformed == 0);
		free(got);
		prof_perfscript_stats_release(&st);
	}
	TEST("older perf: event lines without a time, frames not indented") {
		memset(&o, 0, sizeof(o));
		got = fold("java 19983 cycles:\nffffffff8103d0ca native_write_msr_safe ([kernel.kallsyms])\n"
			   "7f72432b4e9a start_thread (/lib/x86_64-linux-gnu/libpthread-2.15.so)\n\n", &o, NULL);
		CHECK_STR(got, "java;start_thread;native_write_msr_safe 1\n");
		free(got);
	}
	TEST("detection") {
		static const char old_perf[] = "java 19983 cycles:\n"
			"ffffffff8103d0ca native_write_msr_safe ([kernel.kallsyms])\n";
		static const char no_g[] = "            prog 13731  2727.213670:    1001001 cpu-clock:ppp:      557293039181 other+0x11 (/x/prog)\n";
		static const char fields[] = "            prog 13731      557293039181 other (/x/prog)\n";
		static const char no_dso[] = "prog 13755/13755  2731.749693: cpu-clock:ppp: \n\t            114a leaf\n";
		/* difffolded.pl output: the "# ..." line became " 0 0" */
		static const char diff[] = "a;c 4 0\n 0 0\na;d 0 1\n";

		CHECK(prof_perfscript_detect(snippet, sizeof(snippet) - 1, 1));
		CHECK(prof_perfscript_detect(old_perf, sizeof(old_perf) - 1, 1));
		CHECK(prof_perfscript_detect(no_g, sizeof(no_g) - 1, 1));
		CHECK(prof_perfscript_detect(fields, sizeof(fields) - 1, 1));
		CHECK(prof_perfscript_detect(no_dso, sizeof(no_dso) - 1, 1));
		CHECK(!prof_perfscript_detect(diff, sizeof(diff) - 1, 1));
		CHECK(!prof_perfscript_detect("a;b 1\nc 2\n", 10, 1));
		CHECK(!prof_perfscript_detect("foo bar 1 12\nx;y 3\n", 19, 1));
		CHECK(!prof_perfscript_detect("prog 123 cafe f 12\n", 19, 1));
	}
	return UNIT_RESULT();
}
