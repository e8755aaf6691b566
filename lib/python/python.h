#ifndef PROF_PYTHON_PYTHON_H
#define PROF_PYTHON_PYTHON_H
/*
 * The Python stacks of a running CPython (3.9 to 3.13, x86-64), read from
 * outside the way py-spy reads them: no interpreter option, no restart,
 * nothing loaded into the target.
 *
 * prof_python_attach() finds the interpreter image mapped in the process
 * (the python executable or libpython), its _PyRuntime and PyCode_Type
 * symbols and its version, and picks the structure offsets of that
 * version: _Py_DebugOffsets, which 3.13 keeps at the start of _PyRuntime,
 * or this folder's table for 3.9-3.12 (offsets.c; scripts/python-offsets.c
 * made it from each version's headers). It then checks them against what
 * the process holds (the first thread state points back at its
 * interpreter) and refuses a version or build it does not know.
 *
 * prof_python_sample() walks every interpreter's thread states and each
 * one's frame chain with process_vm_readv(2): code objects give the
 * names, cached by address. A frame is "py::QUALNAME (FILE:LINE)", LINE
 * the function's first line (so that a function is one frame, whichever
 * line runs). A stack whose top frame changed while it was read, or whose
 * frames are not code objects, is torn: it is read again once, then
 * counted (torn_stacks) and dropped, never returned mixed.
 *
 * Errors of reading (the process is gone, EPERM from Yama or a container)
 * come back as -1 with errno; nothing is reported here.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct prof_python;

/*
 * One thread's Python stack, outermost frame first, and which eval calls
 * run its frames (for merging it into the native stack: native.h). Each
 * call of the interpreter's eval function (_PyEval_EvalFrameDefault) on
 * the thread's C stack runs frames[calls[j] .. calls[j + 1]) (the last
 * one up to depth), calls outermost first: on 3.9 and 3.10 one frame
 * each; on 3.11 from a frame marked is_entry up to the next; on 3.12+
 * the frames above each entry frame owned by the C stack (a call that
 * is entering or leaving may run none).
 */
struct prof_python_thread {
	pid_t tid;			/* 0: unknown (3.9, 3.10 without glibc's tid) */
	uint64_t thread_id;		/* threading.get_ident() */
	size_t depth;
	const char *const *frames;	/* valid until the next sample */
	size_t ncalls;
	const size_t *calls;		/* ncalls indexes into frames, non-decreasing */
};

/*
 * What prof_python_sample() calls for each thread: enter (optional)
 * before its frames are read, with its tid (0: unknown); nonzero skips
 * the thread (one not running; --native stops the thread here). leave
 * (optional) when enter returned 0, once its frames are read (or found
 * torn), then fn with the stack unless it was torn or empty.
 */
struct prof_python_visit {
	int (*enter)(void *ctx, pid_t tid);
	void (*leave)(void *ctx, pid_t tid);
	void (*fn)(void *ctx, const struct prof_python_thread *t);
	void *ctx;
};

/*
 * Attach to process pid. Returns the reader, or NULL with the reason in
 * err[0..errlen): no CPython mapped (yet: a command that has not exec'd
 * its interpreter, or whose interpreter is not initialised, gives the
 * same answer with *retry set), an unknown version, offsets that do not
 * match the process, or the system's refusal to read its memory.
 */
struct prof_python *prof_python_attach(pid_t pid, int *retry, char *err, size_t errlen);

/* Detach and free (NULL ignored). */
void prof_python_detach(struct prof_python *p);

/* The interpreter's version, "3.11.7" (from its Py_Version or its file name). */
const char *prof_python_version(const struct prof_python *p);

/* The file the interpreter was found in (the executable or libpython). */
const char *prof_python_image(const struct prof_python *p);

/*
 * Read the stack of each thread, calling v's functions for each.
 * Returns the number of threads passed to v->fn, or -1 with errno when
 * the process could not be read at all (ESRCH: gone).
 */
int prof_python_sample(struct prof_python *p, const struct prof_python_visit *v);

/* Stacks dropped because they changed while being read, since attach. */
uint64_t prof_python_torn(const struct prof_python *p);

#endif
