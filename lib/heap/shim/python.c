/*
 * profheap --python (PROFHEAP_PYTHON=1): the allocating thread's Python
 * frames in every recorded stack, read from inside the process.
 *
 * At start-up (our constructor: the interpreter is mapped, not yet
 * initialised) we look for a CPython in the process (dlsym of
 * _PyRuntime), take its version from Py_GetVersion(), its structure
 * offsets from lib/python/offsets.c (3.13: its own _Py_DebugOffsets), the
 * bounds of its eval function (_PyEval_EvalFrameDefault) and its
 * PyGILState_GetThisThreadState(). That function reads the thread's slot
 * of a pthread key: the calling thread's own thread state, whether it
 * holds the GIL or not (PyMem_RawMalloc is called without it), NULL
 * before the interpreter is initialised and after it is finalised, and
 * it allocates nothing.
 *
 * For each recorded allocation, the thread state's frame chain is read
 * with process_vm_readv(2) on our own pid (a system call costs about
 * 1.5 us: the frames of a page are read at once, the code objects of a
 * stack too, and what lies in memory mapped for as long as we run is
 * read directly: read_mem()): a chain torn while a frame is
 * pushed, or a freed thread state, makes a read fail or a check refuse
 * (the thread state is not this thread's, a frame's code is not a code
 * object); the stack then stays native, and nothing faults. Each code
 * object's name is written once into the record file's arena (struct
 * ph_pyframe) and cached by address with the fields it was made from,
 * compared at each use (a code object freed and another made at its
 * address gets its own name), or trusted until its free when it is a
 * block the shim recorded (struct name_slot).
 *
 * The stack recorded is the native frames up to the innermost eval
 * call, not that call nor what is above it (the C stack of the
 * interpreter calling itself, which the Python frames say better),
 * then the Python frames, innermost first: in a flame graph,
 * py::<module>;py::outer;py::leaf;PyList_New;...;malloc. When the walk
 * stopped before any eval call (libpython is usually built without frame
 * pointers: see profheap(1)), the native frames it found come below the
 * Python ones without its [truncated].
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "heap/shim/internal.h"
#include "python/offsets.h"

int ph_python;				/* walking on: a supported CPython was found */
static pid_t self_pid;
static struct prof_py_offsets off;
static uint64_t code_type;		/* &PyCode_Type */
static void *(*this_tstate)(void);	/* PyGILState_GetThisThreadState */
static uintptr_t eval_lo, eval_hi;	/* _PyEval_EvalFrameDefault */
static uintptr_t rt_lo, rt_hi;		/* _PyRuntime */
static size_t frame_end;		/* bytes of a frame read */
static int code_lo, code_hi;		/* the span of a code object's fields read */

#define MAX_CHAIN 1024			/* a longer chain is not sane */
#define MAX_NAME 256			/* characters of a name or a file name kept */
#define BATCH 16			/* code objects read by one system call */
#define CACHE_SLOTS 8192

/*
 * A code object's name in the file, and the fields it was made from.
 * trusted: the code object is a block the shim recorded (at its address,
 * or 16 bytes before it: PYTHONMALLOC=malloc, with or without the debug
 * hooks' header), so its free comes through ph_free(), which forgets the
 * slot (ph_python_forget()): until then the name holds without reading
 * the object again. Under pymalloc (PYTHONMALLOC set otherwise, python -E
 * or -I) no code object is a recorded block: every use reads it.
 */
struct name_slot {
	int lock;
	int32_t line;
	uint64_t code, name, qualname, filename;
	uint64_t off;			/* of its struct ph_pyframe; 0: empty */
	int trusted;
};
static struct name_slot *cache;

static struct name_slot *slot_of(uint64_t code)
{
	return &cache[(code >> 4) * 0x9E3779B97F4A7C15ULL >> (64 - 13)];
}

void ph_python_forget(const void *p)
{
	for (uint64_t a = (uint64_t)(uintptr_t)p, end = a + 32; a < end; a += 16) {
		struct name_slot *s = slot_of(a);

		if (__atomic_load_n(&s->code, RELAXED) != a)
			continue;
		ph_spin_lock(&s->lock);
		if (s->code == a)
			s->code = s->off = 0;
		ph_spin_unlock(&s->lock);
	}
}

/* The name of code when its slot trusts it, else 0. */
static uint64_t trusted_name(uint64_t code)
{
	struct name_slot *s = slot_of(code);
	uint64_t at = 0;

	if (__atomic_load_n(&s->code, RELAXED) != code)
		return 0;
	ph_spin_lock(&s->lock);
	if (s->code == code && s->trusted)
		at = s->off;
	ph_spin_unlock(&s->lock);
	return at;
}

static int peek(uint64_t addr, void *buf, size_t n)
{
	struct iovec local = { buf, n }, remote = { (void *)(uintptr_t)addr, n };

	return process_vm_readv(self_pid, &local, 1, &remote, 1, 0) == (ssize_t)n ? 0 : -1;
}

/*
 * peek(), but read directly what lies in memory mapped for as long as
 * we run: the calling thread's live stack (3.11 and 3.12 keep the eval call's
 * cframe there, 3.12+ its entry frame) and _PyRuntime (3.12+: the main
 * thread's state). A system call costs 1.5 us: these were a third of them.
 */
static int read_mem(uint64_t addr, void *buf, size_t n)
{
	/* from our own frame up: the live part of the stack */
	uint64_t sp = (uint64_t)(uintptr_t)__builtin_frame_address(0);

	if ((addr >= sp && addr <= T.stack_hi && n <= T.stack_hi - addr) ||
	    (addr >= rt_lo && addr <= rt_hi && n <= rt_hi - addr)) {
		memcpy(buf, (const void *)(uintptr_t)addr, n);
		return 0;
	}
	return peek(addr, buf, n);
}

static uint64_t field(const unsigned char *buf, int at)
{
	uint64_t v;

	memcpy(&v, buf + at, sizeof(v));
	return v;
}

static void widen(int *lo, int *hi, int at, int len)
{
	if (at < 0)
		return;
	if (at < *lo)
		*lo = at;
	if (at + len > *hi)
		*hi = at + len;
}

/* "3.12.1 (main, ...)" into 0x30c and "3.12.1"; 0 when not 3.x. */
static unsigned parse_version(const char *v, char *out, size_t n)
{
	unsigned minor = 0;
	size_t i = 0;

	if (!v || v[0] != '3' || v[1] != '.')
		return 0;
	for (const char *p = v + 2; *p >= '0' && *p <= '9'; p++)
		minor = minor * 10 + (unsigned)(*p - '0');
	while (v[i] && v[i] != ' ' && i + 1 < n) {
		out[i] = v[i];
		i++;
	}
	out[i] = 0;
	return minor > 99 ? 0 : 0x300 | minor;
}

void ph_python_init(void)
{
	const char *(*get_version)(void);
	void *runtime, *eval;
	Dl_info info;
	const ElfW(Sym) *sym = NULL;
	unsigned version;
	const struct prof_py_offsets *o;
	uint64_t probe = 1, got = 0;
	const char *pm;

	runtime = dlsym(RTLD_DEFAULT, "_PyRuntime");
	get_version = (const char *(*)(void))dlsym(RTLD_DEFAULT, "Py_GetVersion");
	if (!runtime || !get_version)
		return;		/* not a CPython (a shell on its way to one, say) */
	version = parse_version(get_version(), H->python, sizeof(H->python));
	pm = getenv("PYTHONMALLOC");
	if (pm && !strcmp(pm, "malloc"))
		__atomic_fetch_or(&H->flags, PH_FLAG_PYTHONMALLOC, RELAXED);
	o = prof_py_offsets_of(version);
	if (!o) {
		char msg[128];

		__atomic_fetch_or(&H->flags, PH_FLAG_PYTHON_UNSUPPORTED, RELAXED);
		if (ph_cat(msg, sizeof(msg), "--python: Python ", H->python[0] ? H->python : "?",
			   " is not supported (3.9 to 3.13 are): its stacks stay native"))
			ph_say(msg, NULL);
		return;
	}
	off = *o;
	if (version >= 0x30d && prof_py_offsets_debug(runtime, &off) != 0) {
		__atomic_fetch_or(&H->flags, PH_FLAG_PYTHON_UNSUPPORTED, RELAXED);
		ph_say("--python: a free-threaded or unknown build of Python", H->python);
		return;
	}
	this_tstate = (void *(*)(void))dlsym(RTLD_DEFAULT, "PyGILState_GetThisThreadState");
	code_type = (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, "PyCode_Type");
	eval = dlsym(RTLD_DEFAULT, "_PyEval_EvalFrameDefault");
	if (!prof_py_offsets_sane(&off) || !this_tstate || !code_type || !eval) {
		__atomic_fetch_or(&H->flags, PH_FLAG_PYTHON_UNSUPPORTED, RELAXED);
		ph_say("--python: an unknown build of Python", H->python);
		return;
	}
	if (dladdr1(eval, &info, (void **)&sym, RTLD_DL_SYMENT) && sym && sym->st_size) {
		eval_lo = (uintptr_t)eval;
		eval_hi = eval_lo + sym->st_size;
	}
	sym = NULL;
	if (dladdr1(runtime, &info, (void **)&sym, RTLD_DL_SYMENT) && sym && sym->st_size) {
		rt_lo = (uintptr_t)runtime;
		rt_hi = rt_lo + sym->st_size;
	}
	self_pid = getpid();
	if (peek((uint64_t)(uintptr_t)&probe, &got, sizeof(got)) != 0 || got != 1) {
		ph_say("--python: process_vm_readv(2) is refused here (seccomp?): stacks stay native",
		       NULL);
		return;
	}
	frame_end = (size_t)off.frame_previous + 8;
	if ((size_t)off.frame_code + 8 > frame_end)
		frame_end = (size_t)off.frame_code + 8;
	if (off.frame_owner >= 0 && (size_t)off.frame_owner + 1 > frame_end)
		frame_end = (size_t)off.frame_owner + 1;
	code_lo = 8;		/* ob_type */
	code_hi = 16;
	widen(&code_lo, &code_hi, off.code_name, 8);
	widen(&code_lo, &code_hi, off.code_qualname, 8);
	widen(&code_lo, &code_hi, off.code_filename, 8);
	widen(&code_lo, &code_hi, off.code_firstlineno, 4);
	cache = ph_map_anon(CACHE_SLOTS * sizeof(*cache));
	if (!cache)
		return;
	__atomic_fetch_or(&H->flags, PH_FLAG_PYTHON, RELAXED);
	__atomic_store_n(&ph_python, 1, RELEASE);
}

void ph_python_after_fork(void)
{
	self_pid = getpid();
	if (cache)
		for (unsigned i = 0; i < CACHE_SLOTS; i++)
			cache[i].lock = 0;	/* a thread of the parent may have held one */
}

/* The text of the compact str at obj appended to out; -1 when it is not one. */
static int put_str(uint64_t obj, char *out, size_t *len, size_t n)
{
	unsigned char hdr[96], chars[MAX_NAME * 4];
	uint64_t data;
	size_t slen;
	unsigned kind;

	if (!obj || (size_t)off.unicode_compact_size > sizeof(hdr) ||
	    peek(obj, hdr, (size_t)off.unicode_compact_size) != 0 ||
	    prof_py_str_chars(&off, hdr, obj, MAX_NAME, &data, &slen, &kind) != 0 ||
	    (slen && peek(data, chars, slen * kind) != 0))
		return -1;
	*len += prof_py_str_utf8(chars, slen, kind, out + *len, n - *len);
	return 0;
}

/* A new name record "py::QUALNAME (FILE:LINE)": its offset, or 0. */
static uint64_t make_name(uint64_t name, uint64_t qualname, uint64_t filename, int32_t line)
{
	char buf[MAX_NAME * 8 + 64], num[24], *d;
	size_t len = 4;
	struct ph_pyframe *rec;
	uint64_t at;

	memcpy(buf, "py::", 4);
	if (put_str(qualname ? qualname : name, buf, &len, sizeof(buf) - 32) != 0)
		return 0;
	buf[len++] = ' ';
	buf[len++] = '(';
	if (put_str(filename, buf, &len, sizeof(buf) - 32) != 0)
		buf[len++] = '?';
	buf[len++] = ':';
	d = ph_itoa64(num + sizeof(num), line);
	memcpy(buf + len, d, strlen(d));
	len += strlen(d);
	buf[len++] = ')';
	rec = ph_arena_alloc(sizeof(*rec) + len + 1, &at);
	if (!rec)
		return 0;
	memcpy(rec->name, buf, len);
	rec->name[len] = 0;
	__atomic_store_n(&rec->len, (uint32_t)len, RELEASE);
	return at;
}

/* The name record of the code object whose fields are in buf (its bytes from code_lo). */
static uint64_t code_name(uint64_t code, const unsigned char *buf)
{
	uint64_t name = field(buf, off.code_name - code_lo);
	uint64_t qualname = off.code_qualname >= 0 ? field(buf, off.code_qualname - code_lo) : 0;
	uint64_t filename = field(buf, off.code_filename - code_lo), at;
	int32_t line;
	struct name_slot *s = slot_of(code);
	int trusted = ph_block_known((const void *)(uintptr_t)code) ||
		      ph_block_known((const void *)(uintptr_t)(code - 16));

	memcpy(&line, buf + off.code_firstlineno - code_lo, sizeof(line));
	ph_spin_lock(&s->lock);
	if (s->off && s->code == code && s->name == name && s->qualname == qualname &&
	    s->filename == filename && s->line == line) {
		at = s->off;
		s->trusted = trusted;
	} else {
		at = make_name(name, qualname, filename, line);
		if (at)
			*s = (struct name_slot){ 1, line, code, name, qualname, filename, at, trusted };
	}
	ph_spin_unlock(&s->lock);
	return at;
}

/*
 * The code objects of the calling thread's Python frames, innermost
 * first, into codes[0..max): their number, *more when the chain went on;
 * -1 when the thread runs no Python or its chain could not be read.
 */
static int read_chain(uint64_t *codes, unsigned max, int *more)
{
	unsigned char ts[256], fr[80], win[4096 + 80];
	uint64_t t = (uint64_t)(uintptr_t)this_tstate(), frame, win_at = 0;
	size_t win_len = 0;
	unsigned n = 0;

	*more = 0;
	if (!t || read_mem(t, ts, sizeof(ts)) != 0 || !field(ts, off.tstate_interp))
		return -1;
	if (off.tstate_native_thread_id >= 0) {
		if ((int32_t)field(ts, off.tstate_native_thread_id) != T.th->tid)
			return -1;	/* not ours: freed and reused */
	} else if (field(ts, off.tstate_thread_id) != (uint64_t)pthread_self()) {
		return -1;
	}
	frame = field(ts, off.tstate_frame);
	if (off.cframe_current_frame >= 0 && frame &&
	    read_mem(frame + (uint64_t)off.cframe_current_frame, &frame, sizeof(frame)) != 0)
		return -1;
	for (int i = 0; frame && i < MAX_CHAIN; i++) {
		if (frame >= win_at && frame - win_at <= win_len && frame_end <= win_len - (frame - win_at)) {
			memcpy(fr, win + (frame - win_at), frame_end);
		} else if (frame >= T.stack_lo && frame < T.stack_hi) {
			if (read_mem(frame, fr, frame_end) != 0)
				return -1;
		} else {
			/*
			 * 3.11+ push frames on a stack of their own: the callers lie
			 * below, most often in the same page. One read takes the page
			 * up to this frame: the next frames need no system call.
			 */
			win_at = frame & ~(uint64_t)4095;
			win_len = (size_t)(frame - win_at) + frame_end;
			if (peek(win_at, win, win_len) != 0) {
				win_len = 0;
				if (peek(frame, fr, frame_end) != 0)
					return -1;
			} else {
				memcpy(fr, win + (frame - win_at), frame_end);
			}
		}
		/* 3.12+: an eval call's entry frame, not Python code */
		if (off.frame_owner < 0 || fr[off.frame_owner] != PROF_PY_FRAME_OWNED_BY_CSTACK) {
			if (n == max) {
				*more = 1;
				break;
			}
			codes[n++] = field(fr, off.frame_code);
		}
		frame = field(fr, off.frame_previous);
	}
	return frame && !*more ? -1 : (int)n;
}

#define NOT_CODE UINT64_MAX

unsigned ph_python_stack(uint64_t *pcs, unsigned depth)
{
	uint64_t codes[PH_MAX_DEPTH], at[PH_MAX_DEPTH];
	unsigned miss[PH_MAX_DEPTH], nmiss = 0, k, n, i, out;
	int got, more;

	/* the native frames below the innermost eval call */
	for (k = 0; k < depth; k++)
		if (pcs[k] >= eval_lo && pcs[k] < eval_hi)
			break;
	if (k == depth && k && (pcs[k - 1] == PH_PC_TRUNCATED || pcs[k - 1] == PH_PC_STARTUP))
		k--;
	if (k >= PH_MAX_DEPTH - 1)
		return depth;
	got = read_chain(codes, PH_MAX_DEPTH - k, &more);
	if (got <= 0)
		return depth;
	n = (unsigned)got;
	/* the names trusted (see struct name_slot), then the code objects read */
	for (i = 0; i < n; i++)
		if (!(at[i] = trusted_name(codes[i])))
			miss[nmiss++] = i;
	for (i = 0; i < nmiss; i += BATCH) {
		unsigned m = nmiss - i < BATCH ? nmiss - i : BATCH, j;
		unsigned char buf[BATCH][160];
		struct iovec local[BATCH], remote[BATCH];
		size_t span = (size_t)(code_hi - code_lo);

		for (j = 0; j < m; j++) {
			local[j] = (struct iovec){ buf[j], span };
			remote[j] = (struct iovec){
				(void *)(uintptr_t)(codes[miss[i + j]] + (uint64_t)code_lo), span };
		}
		if (process_vm_readv(self_pid, local, m, remote, m, 0) != (ssize_t)(span * m))
			return depth;
		for (j = 0; j < m; j++) {
			unsigned c = miss[i + j];

			if (field(buf[j], 8 - code_lo) != code_type) {
				/* 3.13's f_executable may hold what is not code: skip it */
				if (off.version >= 0x30d) {
					at[c] = NOT_CODE;
					continue;
				}
				return depth;	/* torn */
			}
			at[c] = code_name(codes[c], buf[j]);
			if (!at[c])
				return depth;
		}
	}
	out = k;
	for (i = 0; i < n; i++)
		if (at[i] != NOT_CODE)
			pcs[out++] = PH_PC_PYTHON | at[i];
	if (out == k)
		return depth;
	if (more)
		pcs[out - 1] = PH_PC_TRUNCATED;
	return out;
}
