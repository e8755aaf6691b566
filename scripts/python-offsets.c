/*
 * The row of lib/python/offsets.c for one CPython version: where the
 * stack reader finds what it follows, from that version's own headers
 * (its internal ones too, hence Py_BUILD_CORE). Not built by make: run
 * it when a version is added, against that version's include directory:
 *
 *   d=/root/.pyenv/versions/3.12.1/include/python3.12
 *   cc -I$d -I$d/internal scripts/python-offsets.c -o /tmp/pyoff && /tmp/pyoff
 *
 * and paste its output into the table (3.13 and later declare their
 * offsets in _Py_DebugOffsets, which the reader prefers).
 */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <stddef.h>
#include <stdio.h>
#include "internal/pycore_runtime.h"
#include "internal/pycore_interp.h"
#if PY_VERSION_HEX >= 0x030b0000
#include "internal/pycore_frame.h"
#else
#include "frameobject.h"
#endif
#define O(t, f) (unsigned)offsetof(t, f)
int main(void)
{
	printf("{ 0x%x, /* %s */\n", PY_VERSION_HEX >> 16, PY_VERSION);
	printf("  .runtime_interp_head = %u,\n", O(_PyRuntimeState, interpreters.head));
#if PY_VERSION_HEX >= 0x030b0000
	printf("  .interp_tstate_head = %u,\n", O(PyInterpreterState, threads.head));
#else
	printf("  .interp_tstate_head = %u,\n", O(PyInterpreterState, tstate_head));
#endif
	printf("  .interp_next = %u,\n", O(PyInterpreterState, next));
	printf("  .tstate_next = %u,\n", O(PyThreadState, next));
	printf("  .tstate_interp = %u,\n", O(PyThreadState, interp));
	printf("  .tstate_thread_id = %u,\n", O(PyThreadState, thread_id));
#if PY_VERSION_HEX >= 0x030b0000
	printf("  .tstate_native_thread_id = %u,\n", O(PyThreadState, native_thread_id));
#endif
#if PY_VERSION_HEX >= 0x030d0000
	printf("  .tstate_frame = %u, .cframe_current_frame = -1,\n", O(PyThreadState, current_frame));
#elif PY_VERSION_HEX >= 0x030b0000
	printf("  .tstate_frame = %u, .cframe_current_frame = %u,\n", O(PyThreadState, cframe), O(_PyCFrame, current_frame));
#else
	printf("  .tstate_frame = %u, .cframe_current_frame = -1,\n", O(PyThreadState, frame));
#endif
#if PY_VERSION_HEX >= 0x030b0000
	printf("  .frame_previous = %u,\n", O(_PyInterpreterFrame, previous));
#if PY_VERSION_HEX >= 0x030d0000
	printf("  .frame_code = %u,\n", O(_PyInterpreterFrame, f_executable));
#else
	printf("  .frame_code = %u,\n", O(_PyInterpreterFrame, f_code));
#endif
#if PY_VERSION_HEX >= 0x030c0000
	printf("  .frame_owner = %u, .frame_is_entry = -1,\n", O(_PyInterpreterFrame, owner));
#else
	printf("  .frame_owner = -1, .frame_is_entry = %u,\n", O(_PyInterpreterFrame, is_entry));
#endif
	printf("  .frame_size = %u,\n", (unsigned)sizeof(_PyInterpreterFrame));
#else
	printf("  .frame_previous = %u,\n", O(PyFrameObject, f_back));
	printf("  .frame_code = %u,\n", O(PyFrameObject, f_code));
	printf("  .frame_owner = -1, .frame_is_entry = -1,\n");
	printf("  .frame_size = %u,\n", (unsigned)sizeof(PyFrameObject));
#endif
	printf("  .code_name = %u,\n", O(PyCodeObject, co_name));
#if PY_VERSION_HEX >= 0x030b0000
	printf("  .code_qualname = %u,\n", O(PyCodeObject, co_qualname));
#else
	printf("  .code_qualname = -1,\n");
#endif
	printf("  .code_filename = %u,\n", O(PyCodeObject, co_filename));
	printf("  .code_firstlineno = %u,\n", O(PyCodeObject, co_firstlineno));
	printf("  .unicode_state = %u,\n", O(PyASCIIObject, state));
	printf("  .unicode_ascii_size = %u,\n", (unsigned)sizeof(PyASCIIObject));
	printf("  .unicode_compact_size = %u,\n", (unsigned)sizeof(PyCompactUnicodeObject));
	printf("  .unicode_length = %u,\n", O(PyASCIIObject, length));
	printf("},\n");
	return 0;
}
