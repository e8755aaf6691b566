#ifndef PROF_PYTHON_NATIVE_H
#define PROF_PYTHON_NATIVE_H
/*
 * profrec --python --native: a thread's native stack with its Python
 * frames in place of the interpreter's eval calls, as py-spy --native
 * shows it, so that C code a Python function calls (an extension, zlib,
 * a ctypes call) sits under that function.
 *
 * The two stacks must be of one moment: prof_py_native_stop() stops the
 * thread (PTRACE_SEIZE, PTRACE_INTERRUPT), copies its registers
 * (PTRACE_GETREGS) and the used part of its stack (from its stack
 * pointer to the end of that mapping, at most PROF_PY_NATIVE_STACK
 * bytes); the caller reads its Python frames (python.h) while it stays
 * stopped; prof_py_native_resume() lets it go (PTRACE_DETACH, passing on
 * a signal that arrived meanwhile). Unwinding the copy (the recorder's
 * DWARF unwinder, symbolize/dwarf_unwind.h) and naming its frames
 * (symbolize.h, the frame names of profrec's other stacks) come after,
 * in prof_py_native_stack(), while the thread runs again.
 *
 * Merging (prof_py_merge()): the native frames are walked outermost
 * first; each call of the eval function (_PyEval_EvalFrameDefault, its
 * inlined callees and its split-off cold part with it) is replaced by
 * the Python frames it runs (python.h: one per call on 3.9 and 3.10,
 * several on 3.11+). Frames outside the eval function are kept, except:
 * the frames above the outermost eval call (_start, main, Py_RunMain,
 * start_thread ...: a stack starts at the thread's outermost Python
 * frame, as --python's stacks do, and as py-spy's); the interpreter's
 * call plumbing between one Python frame and the next function
 * (PyEval_EvalCode, _PyEval_Vector, _PyFunction_Vectorcall,
 * PyObject_Vectorcall, cfunction_call ...: prof_py_native_plumbing());
 * and CPython 3.12's perf trampolines (frames named py:: by its perf map,
 * PYTHONPERFSUPPORT), which double the Python frames. A stack whose
 * eval calls and Python frames do not pair up (a thread caught entering
 * or leaving a call) is unmergeable: counted, never drawn.
 *
 * ptrace needs what process_vm_readv(2) needs (python.h); a thread
 * caught in a blocking system call has it restarted (EINTR is not seen
 * by the program, as under a debugger); a process already traced (gdb,
 * strace) cannot be stopped: EPERM.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct prof_python_thread;
struct prof_stacks;
struct prof_sym_options;

/* The most stack copied per sample (a Python call is 0.2-1 KiB of C stack). */
#define PROF_PY_NATIVE_STACK (512 * 1024)

/* What merging does with a native frame. */
enum prof_py_frame_kind {
	PROF_PY_KEEP,		/* drawn (if inside the outermost eval call) */
	PROF_PY_EVAL,		/* a call of the eval function: its Python frames instead */
	PROF_PY_DROP,		/* left out */
};

struct prof_py_native_frame {
	uint32_t id;		/* frame id of the stack table */
	enum prof_py_frame_kind kind;
};

/*
 * Merge native frames (outermost first) with a thread's Python frames:
 * py[0..depth) their frame ids, outermost first, calls[0..ncalls) the
 * eval calls' first frames (struct prof_python_thread). Writes up to max
 * ids, outermost first, into out. Returns the number written, or -1 when
 * the native stack's eval calls are not ncalls in number (or Python
 * frames lie outside every call): unmergeable.
 */
long prof_py_merge(const struct prof_py_native_frame *native, size_t n, const uint32_t *py,
		   size_t depth, const size_t *calls, size_t ncalls, uint32_t *out, size_t max);

/*
 * Whether a function of the interpreter's image named name is call
 * plumbing that merging leaves out (above), 0 otherwise.
 */
int prof_py_native_plumbing(const char *name);

/* Whether name (a symbol) is the eval function or its cold part. */
int prof_py_native_is_eval(const char *name);

struct prof_py_native;

/*
 * The native side of process pid, whose interpreter is the file image
 * (python.h: prof_python_image()); is_child: pid is our child (its exit
 * is left for prof_child_wait() to reap). opts: symbolizer options.
 */
struct prof_py_native *prof_py_native_new(pid_t pid, int is_child, const char *image,
					  const struct prof_sym_options *opts);

/* Free it (NULL ignored). No thread may be stopped. */
void prof_py_native_free(struct prof_py_native *n);

/*
 * Stop thread tid and copy its registers and stack. Returns 0, or -1
 * with errno: ESRCH (gone), EPERM (refused: Yama, a tracer already).
 * After 0, call prof_py_native_resume() before stopping another.
 */
int prof_py_native_stop(struct prof_py_native *n, pid_t tid);

/* Let the stopped thread go on (nothing when none is stopped). */
void prof_py_native_resume(struct prof_py_native *n);

/*
 * The merged stack of the thread last stopped, whose Python stack is t
 * (read while it was stopped), as frame ids of stacks, outermost first,
 * up to max into out. Returns the number, or -1 when unmergeable
 * (counted: prof_py_native_unmergeable()).
 */
long prof_py_native_stack(struct prof_py_native *n, const struct prof_python_thread *t,
			  struct prof_stacks *stacks, uint32_t *out, size_t max);

/* Stacks found unmergeable since creation. */
uint64_t prof_py_native_unmergeable(const struct prof_py_native *n);

/* What the native side cost. */
struct prof_py_native_costs {
	uint64_t stops;		/* threads stopped */
	uint64_t stop_wait_ns;	/* from PTRACE_SEIZE until stopped (the thread still runs) */
	uint64_t stopped_ns;	/* stopped until PTRACE_DETACH: the thread's lost time */
	uint64_t unwind_ns;	/* unwinding, naming and merging, after */
};

/* The costs since creation. */
void prof_py_native_costs(const struct prof_py_native *n, struct prof_py_native_costs *c);

#endif
