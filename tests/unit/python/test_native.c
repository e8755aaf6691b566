/*
 * lib/python/native.h: merging a native stack with the Python frames its
 * eval calls run (the part of profrec --python --native that needs no
 * process: tests/profrec-runtimes.sh records real ones).
 */
#include <stdint.h>
#include <string.h>
#include "../unit.h"
#include "python/native.h"

#define K PROF_PY_KEEP
#define E PROF_PY_EVAL
#define D PROF_PY_DROP

/* Python frames are ids 100, 101 ...; native ones below 100. */
static const uint32_t py[] = { 100, 101, 102, 103 };

static int same(const uint32_t *got, long n, const uint32_t *want, long wn)
{
	return n == wn && memcmp(got, want, (size_t)n * sizeof(*got)) == 0;
}

int main(void)
{
	uint32_t out[64];
	long n;

	TEST("3.9, 3.10: one Python frame per eval call; what is above the first is left out") {
		/* _start main eval(<module>) plumbing eval(split) builtin eval(leaf) zlib deflate */
		const struct prof_py_native_frame nat[] = {
			{ 1, K }, { 2, K }, { 3, E }, { 4, D }, { 3, E }, { 5, K }, { 3, E },
			{ 6, K }, { 7, K } };
		const size_t calls[] = { 0, 1, 2 };
		const uint32_t want[] = { 100, 101, 5, 102, 6, 7 };

		n = prof_py_merge(nat, 9, py, 3, calls, 3, out, 64);
		CHECK(same(out, n, want, 6));
	}
	TEST("3.11+: one eval call runs the frames up to the next call's") {
		/* eval(<module> split leaf) zlib_compress deflate */
		const struct prof_py_native_frame nat[] = { { 1, K }, { 3, E }, { 6, K }, { 7, K } };
		const size_t calls[] = { 0 };
		const uint32_t want[] = { 100, 101, 102, 6, 7 };

		n = prof_py_merge(nat, 4, py, 3, calls, 1, out, 64);
		CHECK(same(out, n, want, 5));
	}
	TEST("3.11+: C calling back into Python (sorted with a key) starts a second call") {
		/* eval(<module> leaf) sorted list_sort plumbing eval(key) long_neg */
		const struct prof_py_native_frame nat[] = {
			{ 3, E }, { 5, K }, { 8, K }, { 4, D }, { 3, E }, { 9, K } };
		const size_t calls[] = { 0, 2 };
		const uint32_t want[] = { 100, 101, 5, 8, 102, 9 };

		n = prof_py_merge(nat, 6, py, 3, calls, 2, out, 64);
		CHECK(same(out, n, want, 6));
	}
	TEST("3.12+: a call entering or leaving runs no frame yet") {
		const struct prof_py_native_frame nat[] = { { 3, E }, { 5, K }, { 3, E }, { 9, K } };
		const size_t calls[] = { 0, 3 };
		const uint32_t want[] = { 100, 101, 102, 5, 9 };

		n = prof_py_merge(nat, 4, py, 3, calls, 2, out, 64);
		CHECK(same(out, n, want, 5));
	}
	TEST("unmergeable: eval calls and Python calls differ in number") {
		const struct prof_py_native_frame two[] = { { 3, E }, { 5, K }, { 3, E } };
		const struct prof_py_native_frame none[] = { { 1, K }, { 5, K } };
		const size_t one_call[] = { 0 }, two_calls[] = { 0, 1 };

		/* the thread was caught between its eval call and its frame */
		CHECK(prof_py_merge(two, 3, py, 2, one_call, 1, out, 64) == -1);
		CHECK(prof_py_merge(two, 3, py, 3, two_calls, 2, out, 64) >= 0);
		/* the unwinding stopped short of the interpreter */
		CHECK(prof_py_merge(none, 2, py, 2, two_calls, 2, out, 64) == -1);
		/* Python frames before the first call */
		CHECK(prof_py_merge(two, 3, py, 3, (const size_t[]){ 1, 2 }, 2, out, 64) == -1);
	}
	TEST("a stack longer than max is cut at its leaf end") {
		const struct prof_py_native_frame nat[] = { { 3, E }, { 6, K }, { 7, K } };
		const size_t calls[] = { 0 };
		const uint32_t want[] = { 100, 101, 102, 6 };

		n = prof_py_merge(nat, 3, py, 3, calls, 1, out, 4);
		CHECK(same(out, n, want, 4));
	}
	TEST("the eval function, its cold part; not its wrappers") {
		CHECK(prof_py_native_is_eval("_PyEval_EvalFrameDefault"));
		CHECK(prof_py_native_is_eval("_PyEval_EvalFrameDefault.cold"));
		CHECK(!prof_py_native_is_eval("_PyEval_EvalFrame"));
		CHECK(!prof_py_native_is_eval("_PyEval_EvalFrameDefaultX"));
		CHECK(!prof_py_native_is_eval("PyEval_EvalFrameEx"));
	}
	TEST("call plumbing is named; work is not") {
		const char *const plumbing[] = { "_PyEval_Vector", "_PyFunction_Vectorcall",
			"PyObject_Vectorcall", "_PyObject_VectorcallTstate", "PyObject_CallOneArg",
			"cfunction_vectorcall_FASTCALL_KEYWORDS", "function_code_fastcall",
			"PyEval_EvalCode", "_PyEval_EvalFrame", "PyEval_EvalFrameEx",
			"_PyObject_MakeTpCall", "method_vectorcall_O" };
		const char *const work[] = { "builtin_sorted", "list_sort_impl", "zlib_compress",
			"deflate", "time_sleep", "slot_tp_call", "PyList_New", "long_neg" };

		for (size_t i = 0; i < sizeof(plumbing) / sizeof(plumbing[0]); i++)
			CHECK(prof_py_native_plumbing(plumbing[i]));
		for (size_t i = 0; i < sizeof(work) / sizeof(work[0]); i++)
			CHECK(!prof_py_native_plumbing(work[i]));
	}
	return UNIT_RESULT();
}
