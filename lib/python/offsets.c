/*
 * The structure offsets of CPython 3.9 to 3.13 (offsets.h). Each row is
 * the output of scripts/python-offsets.c compiled against that version's
 * headers (pyenv's builds: 3.9.18, 3.10.13, 3.11.7, 3.12.1, 3.13.0).
 * 3.13's row is used only where its _Py_DebugOffsets cannot be read
 * (python.c prefers the process's own).
 */
#include <stddef.h>
#include <string.h>

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

int prof_py_offsets_debug(const uint64_t *w, struct prof_py_offsets *o)
{
	if (memcmp(w, "xdebugpy", 8) != 0)
		return -1;
	if ((w[1] >> 16) != 0x30d)	/* the layout read here is 3.13's */
		return -1;
	if (w[2])			/* free-threaded build: other objects' layout */
		return -1;
	o->runtime_interp_head = (int)w[5];
	o->interp_next = (int)w[8];
	o->interp_tstate_head = (int)w[9];
	o->tstate_next = (int)w[21];
	o->tstate_interp = (int)w[22];
	o->tstate_frame = (int)w[23];
	o->tstate_thread_id = (int)w[24];
	o->tstate_native_thread_id = (int)w[25];
	o->frame_previous = (int)w[29];
	o->frame_code = (int)w[30];
	o->frame_owner = (int)w[33];
	o->code_filename = (int)w[35];
	o->code_name = (int)w[36];
	o->code_qualname = (int)w[37];
	o->code_firstlineno = (int)w[39];
	return 0;
}

int prof_py_offsets_sane(const struct prof_py_offsets *o)
{
	return o->tstate_next + 8 <= 256 && o->tstate_interp + 8 <= 256 &&
	       o->tstate_thread_id + 8 <= 256 && o->tstate_native_thread_id + 8 <= 256 &&
	       o->tstate_frame + 8 <= 256 && o->frame_previous + 8 <= 80 &&
	       o->frame_code + 8 <= 80 && o->frame_owner < 80 && o->frame_is_entry < 80 &&
	       o->code_name + 8 <= 160 &&
	       o->code_qualname + 8 <= 160 && o->code_filename + 8 <= 160 &&
	       o->code_firstlineno + 4 <= 160 && o->tstate_frame >= 0 && o->frame_previous >= 0;
}

int prof_py_str_chars(const struct prof_py_offsets *o, const unsigned char *hdr, uint64_t obj,
		      size_t max, uint64_t *data, size_t *len, unsigned *kind)
{
	uint32_t state;
	int64_t length;

	memcpy(&state, hdr + o->unicode_state, sizeof(state));
	memcpy(&length, hdr + o->unicode_length, sizeof(length));
	*kind = (state >> 2) & 7;
	if (!((state >> 5) & 1) || length < 0 || (*kind != 1 && *kind != 2 && *kind != 4))
		return -1;	/* not compact, or not a str */
	*len = (uint64_t)length > max ? max : (size_t)length;
	*data = obj + (uint64_t)((state >> 6) & 1 ? o->unicode_ascii_size : o->unicode_compact_size);
	return 0;
}

size_t prof_py_str_utf8(const unsigned char *chars, size_t len, unsigned kind, char *out, size_t n)
{
	size_t w = 0;

	if (!n)
		return 0;
	for (size_t i = 0; i < len; i++) {
		const unsigned char *c = chars + i * kind;
		uint32_t v = kind == 1 ? c[0] : kind == 2 ? (uint32_t)(c[0] | c[1] << 8)
			   : (uint32_t)c[0] | (uint32_t)c[1] << 8 | (uint32_t)c[2] << 16 |
			     (uint32_t)c[3] << 24;
		size_t need;

		if (v == ';' || v < 0x20 || v == 0x7f)
			v = '?';
		if ((v >= 0xd800 && v < 0xe000) || v >= 0x110000)
			v = 0xfffd;
		need = v < 0x80 ? 1 : v < 0x800 ? 2 : v < 0x10000 ? 3 : 4;
		if (w + need >= n)
			break;
		if (need == 1) {
			out[w++] = (char)v;
		} else if (need == 2) {
			out[w++] = (char)(0xc0 | v >> 6);
			out[w++] = (char)(0x80 | (v & 0x3f));
		} else if (need == 3) {
			out[w++] = (char)(0xe0 | v >> 12);
			out[w++] = (char)(0x80 | (v >> 6 & 0x3f));
			out[w++] = (char)(0x80 | (v & 0x3f));
		} else {
			out[w++] = (char)(0xf0 | v >> 18);
			out[w++] = (char)(0x80 | (v >> 12 & 0x3f));
			out[w++] = (char)(0x80 | (v >> 6 & 0x3f));
			out[w++] = (char)(0x80 | (v & 0x3f));
		}
	}
	out[w] = 0;
	return w;
}
