/*
 * profrec --python --native: native stacks with the Python frames merged
 * in (native.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>

#include "base/buf.h"
#include "base/units.h"
#include "base/xalloc.h"
#include "core/stack.h"
#include "python/native.h"
#include "python/python.h"
#include "record/callchain.h"
#include "symbolize/dwarf_unwind.h"
#include "symbolize/symbolize.h"

#define MAX_IPS 512
#define MAX_NATIVE 1024
#define NFRAMES 16
/* mappings are read again at most this often when an address is in none
 * (a read costs some 30 us; a module imported is mapped once) */
#define MAPS_RELOAD_NS 10000000u

struct prof_py_native {
	pid_t pid;
	int is_child;
	char *image;			/* the interpreter's file */
	int lines;
	struct prof_symbolizer *sym;
	struct prof_addrspace *as;
	struct prof_unwinder *unw;
	struct prof_buf maps;		/* /proc/PID/maps as last loaded */
	uint64_t maps_at;		/* when (prof_now_ns) */
	/* the thread stopped last */
	pid_t tid;
	int stopped, have_regs, signal;
	uint64_t stop_start, stopped_at;
	uint64_t regs[17];		/* in prof_unwind_regs_mask()'s order */
	unsigned char *stack;
	size_t stack_len;
	/* results */
	uint64_t unmergeable, stops, stop_wait_ns, stopped_ns, unwind_ns;
	/* scratch */
	struct prof_buf text;
	struct prof_frame frames[NFRAMES];
	uint64_t ips[MAX_IPS];
	struct prof_py_native_frame native[MAX_NATIVE];
	uint32_t py[1024];
};

/* ---- merging ---- */

int prof_py_native_is_eval(const char *name)
{
	static const char eval[] = "_PyEval_EvalFrameDefault";

	return strncmp(name, eval, sizeof(eval) - 1) == 0 &&
	       (name[sizeof(eval) - 1] == 0 || name[sizeof(eval) - 1] == '.');
}

/*
 * The interpreter's functions that only carry a call from one Python
 * frame (or the eval loop) to the next function, by name prefix, as they
 * are named in 3.9-3.13 (a compiler's clones too: ".isra.0", ".cold");
 * functions of other names are drawn: the work a builtin does (list.sort,
 * a module built into the interpreter's image), slot_tp_* (a dunder
 * method called from C).
 */
int prof_py_native_plumbing(const char *name)
{
	static const char *const prefix[] = {
		"PyEval_EvalCode", "_PyEval_EvalCode", "PyEval_EvalFrame", "_PyEval_EvalFrame",
		"_PyEval_Vector", "_PyFunction_Vectorcall", "function_code_fastcall",
		"PyObject_Vectorcall", "_PyObject_Vectorcall", "PyObject_Call", "_PyObject_Call",
		"_PyObject_MakeTpCall", "_PyObject_FastCall", "_PyVectorcall_Call",
		"PyVectorcall_Call", "call_function", "cfunction_call", "cfunction_vectorcall",
		"method_vectorcall", "_PyCFunction", "object_vacall", "PyCFunction_Call",
	};

	for (size_t i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (strncmp(name, prefix[i], strlen(prefix[i])) == 0)
			return 1;
	return 0;
}

long prof_py_merge(const struct prof_py_native_frame *native, size_t n, const uint32_t *py,
		   size_t depth, const size_t *calls, size_t ncalls, uint32_t *out, size_t max)
{
	size_t evals = 0, first = n, len = 0, call = 0;

	for (size_t i = 0; i < n; i++)
		if (native[i].kind == PROF_PY_EVAL && evals++ == 0)
			first = i;
	if (evals != ncalls || (depth && (!ncalls || calls[0] != 0)))
		return -1;
	for (size_t i = first; i < n; i++) {
		if (native[i].kind == PROF_PY_EVAL) {
			size_t end = call + 1 < ncalls ? calls[call + 1] : depth;

			for (size_t f = calls[call]; f < end && len < max; f++)
				out[len++] = py[f];
			call++;
		} else if (native[i].kind == PROF_PY_KEEP && len < max) {
			out[len++] = native[i].id;
		}
	}
	return (long)len;
}

/* ---- the process's mappings ---- */

/*
 * Read /proc/PID/maps again and load it when it changed (a module
 * imported, a thread's stack mapped). force: whatever the time since the
 * last reading (at most MAPS_RELOAD_NS apart otherwise).
 */
static void reload_maps(struct prof_py_native *n, int force)
{
	char path[64], buf[65536];
	struct prof_buf now = PROF_BUF_INIT;
	FILE *f;
	size_t got;
	uint64_t t = prof_now_ns();

	if (!force && n->maps_at && t - n->maps_at < MAPS_RELOAD_NS)
		return;
	n->maps_at = t;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)n->pid);
	if (!(f = fopen(path, "re")))
		return;
	while ((got = fread(buf, 1, sizeof(buf), f)) > 0)
		prof_buf_add(&now, buf, got);
	fclose(f);
	if (now.len && (now.len != n->maps.len || memcmp(now.data, n->maps.data, now.len) != 0)) {
		prof_addrspace_reset(n->as);
		prof_addrspace_load_maps(n->as, path);
		prof_buf_release(&n->maps);
		n->maps = now;
	} else {
		prof_buf_release(&now);
	}
}

/* Whether addr is code of a known mapping. */
static int known_code(const struct prof_py_native *n, uint64_t addr)
{
	const struct prof_map *m = prof_addrspace_find(n->as, addr);

	return m && (m->prot & PROT_EXEC);
}

/* ---- life cycle ---- */

struct prof_py_native *prof_py_native_new(pid_t pid, int is_child, const char *image,
					  const struct prof_sym_options *opts)
{
	struct prof_py_native *n = xcalloc(1, sizeof(*n));

	n->pid = pid;
	n->is_child = is_child;
	n->image = xstrdup(image);
	n->lines = opts->lines;
	n->sym = prof_symbolizer_new(opts);
	n->as = prof_addrspace_new(n->sym, pid);
	prof_addrspace_live(n->as);
	n->unw = prof_unwinder_new();
	n->stack = xmalloc(PROF_PY_NATIVE_STACK);
	reload_maps(n, 1);
	return n;
}

void prof_py_native_free(struct prof_py_native *n)
{
	if (!n)
		return;
	prof_py_native_resume(n);
	prof_unwinder_forget(n->unw, n->as);
	prof_unwinder_free(n->unw);
	prof_addrspace_free(n->as);
	prof_symbolizer_free(n->sym);
	prof_buf_release(&n->maps);
	prof_buf_release(&n->text);
	free(n->stack);
	free(n->image);
	free(n);
}

uint64_t prof_py_native_unmergeable(const struct prof_py_native *n)
{
	return n->unmergeable;
}

void prof_py_native_costs(const struct prof_py_native *n, struct prof_py_native_costs *c)
{
	c->stops = n->stops;
	c->stop_wait_ns = n->stop_wait_ns;
	c->stopped_ns = n->stopped_ns;
	c->unwind_ns = n->unwind_ns;
}

/* ---- stopping a thread ---- */

/*
 * Wait for the stop PTRACE_INTERRUPT asked of tid. Returns 0 (stopped;
 * n->signal set when a signal's delivery stopped it first), or -1 with
 * ESRCH when it exited instead: a thread is reaped (a traced thread is
 * not released before its tracer reaps it, and its process's exit would
 * wait), our child's last thread is left to its parent's wait.
 */
static int wait_stop(struct prof_py_native *n, pid_t tid)
{
	for (;;) {
		siginfo_t si;
		int status;

		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)tid, &si, WEXITED | WSTOPPED | __WALL | WNOWAIT) != 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (si.si_code == CLD_EXITED || si.si_code == CLD_KILLED || si.si_code == CLD_DUMPED) {
			if (tid != n->pid || !n->is_child)
				while (waitpid(tid, &status, __WALL | WNOHANG) < 0 && errno == EINTR)
					;
			errno = ESRCH;
			return -1;
		}
		while (waitpid(tid, &status, __WALL) < 0)
			if (errno != EINTR)
				return -1;
		if (!WIFSTOPPED(status))
			continue;
		/* a signal-delivery-stop: the signal goes on at the detach */
		n->signal = (status >> 16) == PTRACE_EVENT_STOP ? 0 : WSTOPSIG(status);
		return 0;
	}
}

/* The first bytes of the thread's stack from its stack pointer, into n->stack. */
static void copy_stack(struct prof_py_native *n)
{
	uint64_t sp = n->regs[7];
	const struct prof_map *m = prof_addrspace_find(n->as, sp);
	struct iovec local, remote;
	ssize_t got;
	size_t len;

	if (!m) {	/* a new thread's stack, or the main one grown */
		reload_maps(n, 1);
		m = prof_addrspace_find(n->as, sp);
	}
	n->stack_len = 0;
	if (!m)
		return;
	len = m->end - sp < PROF_PY_NATIVE_STACK ? (size_t)(m->end - sp) : PROF_PY_NATIVE_STACK;
	local = (struct iovec){ n->stack, len };
	remote = (struct iovec){ (void *)(uintptr_t)sp, len };
	got = process_vm_readv(n->pid, &local, 1, &remote, 1, 0);
	n->stack_len = got > 0 ? (size_t)got : 0;
}

int prof_py_native_stop(struct prof_py_native *n, pid_t tid)
{
	struct user_regs_struct r;
	int e;

	n->stop_start = prof_now_ns();
	n->have_regs = 0;
	n->signal = 0;
	if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) != 0)
		return -1;
	if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) != 0 || wait_stop(n, tid) != 0) {
		e = errno;
		ptrace(PTRACE_DETACH, tid, NULL, NULL);
		errno = e;
		return -1;
	}
	n->stopped_at = prof_now_ns();
	n->stop_wait_ns += n->stopped_at - n->stop_start;
	n->tid = tid;
	n->stopped = 1;
	n->stops++;
	if (ptrace(PTRACE_GETREGS, tid, NULL, &r) == 0) {
		const uint64_t regs[17] = { r.rax, r.rbx, r.rcx, r.rdx, r.rsi, r.rdi, r.rbp, r.rsp,
					    r.rip, r.r8, r.r9, r.r10, r.r11, r.r12, r.r13, r.r14,
					    r.r15 };

		memcpy(n->regs, regs, sizeof(regs));
		n->have_regs = 1;
		copy_stack(n);
	}
	return 0;
}

void prof_py_native_resume(struct prof_py_native *n)
{
	if (!n->stopped)
		return;
	ptrace(PTRACE_DETACH, n->tid, NULL, (void *)(uintptr_t)n->signal);
	n->stopped = 0;
	n->stopped_ns += prof_now_ns() - n->stopped_at;
}

/* ---- the merged stack ---- */

/* Whether addr lies in the interpreter's file. */
static int in_image(const struct prof_py_native *n, uint64_t addr)
{
	const struct prof_map *m = prof_addrspace_find(n->as, addr);

	return m && strcmp(m->path, n->image) == 0;
}

/*
 * The native frames of the copied stack, outermost first, into
 * n->native; returns their number.
 */
static size_t native_frames(struct prof_py_native *n, struct prof_stacks *stacks)
{
	size_t k, count = 0;

	if (!known_code(n, n->regs[8]))
		reload_maps(n, 0);
	k = prof_unwind(n->unw, n->as, (int)n->tid, n->regs, n->stack, n->stack_len, n->ips,
			MAX_IPS);
	/* stopped in code mapped since: read the mappings again and unwind again */
	if (k && !known_code(n, n->ips[k - 1])) {
		reload_maps(n, 0);
		k = prof_unwind(n->unw, n->as, (int)n->tid, n->regs, n->stack, n->stack_len,
				n->ips, MAX_IPS);
	}
	for (size_t i = k; i-- > 0;) {
		size_t nf = prof_symbolize(n->sym, n->as, n->ips[i], i ? PROF_SYM_RETURN : 0,
					   n->frames, NFRAMES);
		int interp = in_image(n, n->ips[i]);

		/* the real function, then its inlined callees; an eval call is one frame */
		for (size_t f = nf; f-- > 0 && count < MAX_NATIVE;) {
			const char *name = n->frames[f].name;
			enum prof_py_frame_kind kind = PROF_PY_KEEP;

			if (f == nf - 1 && prof_py_native_is_eval(name))
				kind = PROF_PY_EVAL;
			else if (strncmp(name, "py::", 4) == 0 ||
				 (interp && prof_py_native_plumbing(name)))
				kind = PROF_PY_DROP;
			prof_callchain_frame_text(&n->text, &n->frames[f], n->lines);
			n->native[count].id = prof_stacks_frame(stacks, n->text.data, n->text.len);
			n->native[count++].kind = kind;
			if (kind == PROF_PY_EVAL)
				break;
		}
	}
	return count;
}

long prof_py_native_stack(struct prof_py_native *n, const struct prof_python_thread *t,
			  struct prof_stacks *stacks, uint32_t *out, size_t max)
{
	uint64_t start = prof_now_ns();
	size_t count, depth = t->depth < sizeof(n->py) / sizeof(n->py[0]) ? t->depth
		: sizeof(n->py) / sizeof(n->py[0]);
	long len = -1;

	if (n->have_regs && n->tid == t->tid) {
		count = native_frames(n, stacks);
		for (size_t i = 0; i < depth; i++)
			n->py[i] = prof_stacks_frame(stacks, t->frames[i], strlen(t->frames[i]));
		len = prof_py_merge(n->native, count, n->py, depth, t->calls, t->ncalls, out, max);
	}
	if (len < 0)
		n->unmergeable++;
	n->unwind_ns += prof_now_ns() - start;
	return len;
}
