/*
 * The structure offsets of CPython 3.9 to 3.13 (offsets.h). Each row is
 * the output of scripts/python-offsets.c compiled against that version's
 * headers (pyenv's builds: 3.9.18, 3.10.13, 3.11.7, 3.12.1, 3.13.0).
 * 3.13's row is used only where its _Py_DebugOffsets cannot be read
 * (python.c prefers the process's own).
 */
#include <stddef.h>

#include "python/offsets.h"

static const struct prof_py_offsets table[] = {
	/* 3.9 and 3.10 (scripts/python-offsets.c gives both the same row) */
	{ 0x309, .runtime_interp_head = 32, .interp_tstate_head = 8, .interp_next = 0,
	  .tstate_next = 8, .tstate_interp = 16, .tstate_thread_id = 176,
	  .tstate_native_thread_id = -1, .tstate_frame = 24, .cframe_current_frame = -1,
	  .frame_previous = 24, .frame_code = 32, .frame_owner = -1, .frame_is_entry = -1,
	  .code_name = 112, .code_qualname = -1, .code_filename = 104, .code_firstlineno = 40,
	  .unicode_state = 32, .unicode_ascii_size = 48, .unicode_compact_size = 72,
	  .unicode_length = 16 },
	{ 0x30b, .runtime_interp_head = 40, .interp_tstate_head = 16, .interp_next = 0,
	  .tstate_next = 8, .tstate_interp = 16, .tstate_thread_id = 152,
	  .tstate_native_thread_id = 160, .tstate_frame = 56, .cframe_current_frame = 8,
	  .frame_previous = 48, .frame_code = 32, .frame_owner = -1, .frame_is_entry = 68,
	  .code_name = 120, .code_qualname = 128, .code_filename = 112, .code_firstlineno = 72,
	  .unicode_state = 32, .unicode_ascii_size = 48, .unicode_compact_size = 72,
	  .unicode_length = 16 },
	{ 0x30c, .runtime_interp_head = 40, .interp_tstate_head = 72, .interp_next = 0,
	  .tstate_next = 8, .tstate_interp = 16, .tstate_thread_id = 136,
	  .tstate_native_thread_id = 144, .tstate_frame = 56, .cframe_current_frame = 0,
	  .frame_previous = 8, .frame_code = 0, .frame_owner = 70, .frame_is_entry = -1,
	  .code_name = 120, .code_qualname = 128, .code_filename = 112, .code_firstlineno = 68,
	  .unicode_state = 32, .unicode_ascii_size = 40, .unicode_compact_size = 56,
	  .unicode_length = 16 },
	{ 0x30d, .runtime_interp_head = 632, .interp_tstate_head = 7344, .interp_next = 7264,
	  .tstate_next = 8, .tstate_interp = 16, .tstate_thread_id = 152,
	  .tstate_native_thread_id = 160, .tstate_frame = 72, .cframe_current_frame = -1,
	  .frame_previous = 8, .frame_code = 0, .frame_owner = 70, .frame_is_entry = -1,
	  .code_name = 120, .code_qualname = 128, .code_filename = 112, .code_firstlineno = 68,
	  .unicode_state = 32, .unicode_ascii_size = 40, .unicode_compact_size = 56,
	  .unicode_length = 16 },
};

const struct prof_py_offsets *prof_py_offsets_of(unsigned version)
{
	if (version == 0x30a)
		version = 0x309;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].version == version)
			return &table[i];
	return NULL;
}
