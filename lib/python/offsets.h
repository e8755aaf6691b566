#ifndef PROF_PYTHON_OFFSETS_H
#define PROF_PYTHON_OFFSETS_H
/*
 * Where CPython keeps what the stack reader follows, per minor version
 * (x86-64, the default non-debug build). -1: the version has no such
 * field. Shared by lib/python/ and the heap shim (lib/heap/shim/python.c),
 * which is why offsets.c uses nothing but the C library.
 */
#include <stddef.h>
#include <stdint.h>

struct prof_py_offsets {
	unsigned version;		/* 0x30b: 3.11 */
	int runtime_interp_head;	/* _PyRuntimeState.interpreters.head */
	int interp_tstate_head;		/* PyInterpreterState's first thread state */
	int interp_next;
	int tstate_next, tstate_interp, tstate_thread_id, tstate_native_thread_id;
	/* the thread's current frame: tstate->frame (3.9, 3.10),
	 * tstate->cframe->current_frame (3.11, 3.12: cframe_current_frame
	 * is the second step), tstate->current_frame (3.13) */
	int tstate_frame, cframe_current_frame;
	/* PyFrameObject (3.9, 3.10) or _PyInterpreterFrame (3.11+) */
	int frame_previous, frame_code, frame_owner;
	/* 3.11: _PyInterpreterFrame.is_entry, set on the first frame an
	 * eval call runs (3.12+ mark eval calls with FRAME_OWNED_BY_CSTACK
	 * frames instead; 3.9, 3.10 run one frame per call) */
	int frame_is_entry;
	int code_name, code_qualname, code_filename, code_firstlineno;
	int unicode_state, unicode_ascii_size, unicode_compact_size, unicode_length;
};

/* The offsets of minor version (0x309 .. 0x30d), or NULL. */
const struct prof_py_offsets *prof_py_offsets_of(unsigned version);

/*
 * 3.13+: the offsets a process declares at the start of its _PyRuntime
 * (_Py_DebugOffsets), its first PROF_PY_DEBUG_WORDS words in w, over
 * those of *o. 0, or -1 when they are not 3.13's layout or the build is
 * free-threaded (other objects' layout).
 */
#define PROF_PY_DEBUG_WORDS 40
int prof_py_offsets_debug(const uint64_t *w, struct prof_py_offsets *o);

/*
 * Whether every offset stays inside the bytes the readers take of each
 * object: 256 of a thread state, 80 of a frame, 160 of a code object.
 */
int prof_py_offsets_sane(const struct prof_py_offsets *o);

/*
 * A compact str object (code objects' names and file names are), from
 * its first o->unicode_compact_size bytes hdr, obj its address: where its
 * characters lie (*data), how many (*len, cut at max) and their width
 * (*kind: 1, 2 or 4 bytes). -1 when it is not a compact str.
 */
int prof_py_str_chars(const struct prof_py_offsets *o, const unsigned char *hdr, uint64_t obj,
		      size_t max, uint64_t *data, size_t *len, unsigned *kind);

/*
 * len characters of width kind (as prof_py_str_chars gives them) as UTF-8
 * into out, n bytes, NUL-terminated and cut at a whole character: ';' and
 * control characters (newlines would split a folded stack) become '?',
 * surrogates and what is past U+10FFFF U+FFFD. Returns the bytes written.
 */
size_t prof_py_str_utf8(const unsigned char *chars, size_t len, unsigned kind, char *out, size_t n);

/* 3.12+: a frame of this owner is the C stack's shim, not Python code. */
#define PROF_PY_FRAME_OWNED_BY_CSTACK 3

#endif
