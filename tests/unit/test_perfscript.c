/*
 * The perf script reader against stackcollapse-perf.pl: every expected
 * output below was produced by running the Perl script (FlameGraph,
 * default options unless named) on the same snippet, except the cases
 * marked (ext) where proftools deliberately differs or adds an option.
 */
#include <stdlib.h>
#include <string.h>
#include "buf.h"
#include "perfscript.h"
#include "stack.h"
#include "unit.h"
#include "folded.h"

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
	TEST("detection") {
		CHECK(prof_perfscript_detect(snippet, sizeof(snippet) - 1, 1));
		CHECK(!prof_perfscript_detect("a;b 1\nc 2\n", 10, 1));
		CHECK(!prof_perfscript_detect("foo bar 1 12\nx;y 3\n", 19, 1));
	}
	return UNIT_RESULT();
}
