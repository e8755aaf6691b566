/*
 * Reading a CPython process's Python stacks (python.h).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/hashmap.h"
#include "base/procns.h"
#include "base/xalloc.h"
#include "python/offsets.h"
#include "python/python.h"
#include "symbolize/elfcode.h"

/* Bounds on what a sample follows: beyond them the target is not sane. */
#define MAX_THREADS 4096
#define MAX_DEPTH 1024
#define MAX_NAME 512
/* glibc's struct pthread keeps the kernel tid here (x86-64): how 3.9 and
 * 3.10, which know only the pthread_t, are matched to a tid. */
#define GLIBC_PTHREAD_TID 0x2d0

struct code_name {
	uint64_t name, qualname, filename;	/* the code object's string pointers */
	int firstlineno;
	char *frame;				/* "py::QUALNAME (FILE:LINE)" */
};

struct prof_python {
	pid_t pid;
	struct prof_py_offsets off;
	uint64_t runtime;		/* &_PyRuntime in the process */
	uint64_t code_type;		/* &PyCode_Type */
	char version[32];
	char *image;
	struct prof_hashmap codes;	/* code object address -> struct code_name */
	const char **frames;		/* one thread's stack, innermost first */
	size_t *marks, nmarks;		/* eval calls: how many frames were read when each began */
	uint64_t torn;
};

static int peek(const struct prof_python *p, uint64_t addr, void *buf, size_t n)
{
	struct iovec local = { buf, n }, remote = { (void *)(uintptr_t)addr, n };
	ssize_t got = process_vm_readv(p->pid, &local, 1, &remote, 1, 0);

	if (got == (ssize_t)n)
		return 0;
	if (got >= 0)
		errno = EFAULT;
	return -1;
}

static int peek_ptr(const struct prof_python *p, uint64_t addr, uint64_t *v)
{
	return peek(p, addr, v, sizeof(*v));
}

static uint64_t field(const unsigned char *buf, int off)
{
	uint64_t v;

	memcpy(&v, buf + off, sizeof(v));
	return v;
}

/*
 * A str object's text as UTF-8 into out (cut at MAX_NAME characters).
 * Compact strings only (names and file names of code objects are).
 */
static int read_str(const struct prof_python *p, uint64_t obj, struct prof_buf *out)
{
	unsigned char hdr[96], chars[MAX_NAME * 4];
	char text[MAX_NAME * 4 + 1];
	uint64_t data;
	size_t len;
	unsigned kind;

	if (!obj || (size_t)p->off.unicode_compact_size > sizeof(hdr) ||
	    peek(p, obj, hdr, (size_t)p->off.unicode_compact_size) != 0 ||
	    prof_py_str_chars(&p->off, hdr, obj, MAX_NAME, &data, &len, &kind) != 0 ||
	    (len && peek(p, data, chars, len * kind) != 0))
		return -1;
	prof_py_str_utf8(chars, len, kind, text, sizeof(text));
	prof_buf_addstr(out, text);
	return 0;
}

/*
 * The frame name of the code object at code, cached; NULL when code is
 * not a code object (a torn read: memory reused since the pointer was read).
 */
static const char *code_frame(struct prof_python *p, uint64_t code)
{
	unsigned char buf[160];
	const struct prof_py_offsets *o = &p->off;
	int end = o->code_firstlineno + 4;
	struct code_name *cn;
	uint64_t name, qualname, filename;
	int32_t line;
	int added;
	struct prof_buf b = PROF_BUF_INIT;

	if (o->code_name + 8 > end)
		end = o->code_name + 8;
	if (o->code_qualname + 8 > end)
		end = o->code_qualname + 8;
	if (o->code_filename + 8 > end)
		end = o->code_filename + 8;
	if ((size_t)end > sizeof(buf) || peek(p, code, buf, (size_t)end) != 0 ||
	    field(buf, 8) != p->code_type)	/* ob_type */
		return NULL;
	name = field(buf, o->code_name);
	qualname = o->code_qualname >= 0 ? field(buf, o->code_qualname) : 0;
	filename = field(buf, o->code_filename);
	memcpy(&line, buf + o->code_firstlineno, sizeof(line));
	cn = prof_hashmap_put(&p->codes, code, &added);
	if (!added && cn->name == name && cn->qualname == qualname && cn->filename == filename &&
	    cn->firstlineno == line)
		return cn->frame;
	prof_buf_addstr(&b, "py::");
	if (read_str(p, qualname ? qualname : name, &b) != 0) {
		prof_buf_release(&b);
		return NULL;
	}
	prof_buf_addstr(&b, " (");
	if (read_str(p, filename, &b) != 0)
		prof_buf_addch(&b, '?');
	prof_buf_addf(&b, ":%d)", line);
	free(cn->frame);
	*cn = (struct code_name){ name, qualname, filename, line, prof_buf_detach(&b, NULL) };
	return cn->frame;
}

/* The thread state's current frame (its address), 0 when none. */
static int top_frame(const struct prof_python *p, const unsigned char *ts, uint64_t *frame)
{
	uint64_t f = field(ts, p->off.tstate_frame);

	if (p->off.cframe_current_frame >= 0 && f)
		return peek_ptr(p, f + (uint64_t)p->off.cframe_current_frame, frame);
	*frame = f;
	return 0;
}

/*
 * The frames of the thread state at ts (its bytes read), innermost first,
 * into p->frames; returns the depth, or -1 when torn. Each eval call met
 * (python.h) leaves in p->marks the depth reached with its outermost
 * frame: a call runs the frames read since the mark before.
 */
static int walk_frames(struct prof_python *p, uint64_t frame)
{
	const struct prof_py_offsets *o = &p->off;
	size_t depth = 0;

	p->nmarks = 0;
	for (int n = 0; frame && n < MAX_DEPTH; n++) {
		unsigned char buf[80];
		int end = o->frame_previous + 8;
		const char *name;

		if (o->frame_code + 8 > end)
			end = o->frame_code + 8;
		if (o->frame_owner + 1 > end)
			end = o->frame_owner + 1;
		if (o->frame_is_entry + 1 > end)
			end = o->frame_is_entry + 1;
		if (peek(p, frame, buf, (size_t)end) != 0)
			return -1;
		if (o->frame_owner >= 0 && buf[o->frame_owner] == PROF_PY_FRAME_OWNED_BY_CSTACK) {
			/* 3.12+: the entry frame of an eval call, below the frames it runs */
			p->marks[p->nmarks++] = depth;
		} else {
			name = code_frame(p, field(buf, o->frame_code));
			if (!name) {
				/* 3.13's f_executable may hold what is not code: skip it */
				if (p->off.version < 0x30d)
					return -1;
			} else {
				p->frames[depth++] = name;
				/* 3.9, 3.10: an eval call per frame; 3.11: from an is_entry frame */
				if (o->frame_owner < 0 && (o->frame_is_entry < 0 || buf[o->frame_is_entry]))
					p->marks[p->nmarks++] = depth;
			}
		}
		frame = field(buf, o->frame_previous);
	}
	return (int)depth;
}

int prof_python_sample(struct prof_python *p, const struct prof_python_visit *v)
{
	const struct prof_py_offsets *o = &p->off;
	uint64_t interp;
	int nthreads = 0;

	if (peek_ptr(p, p->runtime + (uint64_t)o->runtime_interp_head, &interp) != 0)
		return -1;
	for (int ni = 0; interp && ni < 64; ni++) {
		uint64_t ts, next_interp;

		if (peek_ptr(p, interp + (uint64_t)o->interp_tstate_head, &ts) != 0 ||
		    peek_ptr(p, interp + (uint64_t)o->interp_next, &next_interp) != 0)
			return nthreads ? nthreads : -1;
		for (int nt = 0; ts && nt < MAX_THREADS; nt++) {
			unsigned char buf[256];
			uint64_t frame, again, next;
			int depth = -1;
			struct prof_python_thread t = { 0 };
			const char *outer_first[MAX_DEPTH];
			size_t calls[MAX_DEPTH];

			if (peek(p, ts, buf, sizeof(buf)) != 0)
				break;
			next = field(buf, o->tstate_next);
			t.thread_id = field(buf, o->tstate_thread_id);
			if (o->tstate_native_thread_id >= 0) {
				t.tid = (pid_t)field(buf, o->tstate_native_thread_id);
			} else {
				int32_t tid;

				if (t.thread_id && peek(p, t.thread_id + GLIBC_PTHREAD_TID, &tid,
							sizeof(tid)) == 0)
					t.tid = tid;
			}
			if (v->enter && v->enter(v->ctx, t.tid) != 0) {
				ts = next;
				continue;
			}
			for (int tries = 0; tries < 2 && depth < 0; tries++) {
				if (tries && peek(p, ts, buf, sizeof(buf)) != 0)
					break;
				if (top_frame(p, buf, &frame) != 0)
					continue;
				depth = walk_frames(p, frame);
				/* the thread moved on while we read: read it again */
				if (depth >= 0 && (peek(p, ts, buf, sizeof(buf)) != 0 ||
						   top_frame(p, buf, &again) != 0 || again != frame))
					depth = -1;
			}
			if (v->leave)
				v->leave(v->ctx, t.tid);
			if (depth < 0) {
				p->torn++;
			} else if (depth > 0) {
				for (int i = 0; i < depth; i++)
					outer_first[i] = p->frames[depth - 1 - i];
				/* marks, innermost call first, become indexes, outermost first */
				for (size_t j = 0; j < p->nmarks; j++)
					calls[j] = (size_t)depth - p->marks[p->nmarks - 1 - j];
				t.depth = (size_t)depth;
				t.frames = outer_first;
				t.ncalls = p->nmarks;
				t.calls = calls;
				v->fn(v->ctx, &t);
				nthreads++;
			}
			ts = next;
		}
		interp = next_interp;
	}
	return nthreads;
}

/* ---- attaching ---- */

/* The version from a file name: python3.9, libpython3.10.so.1.0; 0 if none. */
static unsigned version_of_name(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	const char *v = strstr(base, "python3.");
	char *end;
	unsigned long minor;

	if (!v)
		return 0;
	minor = strtoul(v + 8, &end, 10);
	if (end == v + 8 || minor > 99)
		return 0;
	return 0x300 | (unsigned)minor;
}

/* 3.13+: the offsets the process declares in its _Py_DebugOffsets. */
static int read_debug_offsets(struct prof_python *p)
{
	uint64_t w[PROF_PY_DEBUG_WORDS];

	if (peek(p, p->runtime, w, sizeof(w)) != 0)
		return -1;
	return prof_py_offsets_debug(w, &p->off);
}

/*
 * Look at one mapped file (path: as the process sees it): whether it
 * defines _PyRuntime; if so fill p. Returns 1 (found), 0 (not an
 * interpreter), -1 (an interpreter refused, reason in err).
 */
static int try_image(struct prof_python *p, const char *path, uint64_t start, uint64_t pgoff,
		     char *err, size_t errlen)
{
	char why[256], at[4200];
	struct prof_elfcode *c;
	uint64_t runtime, code_type, version_sym, vaddr, bias, hex = 0;
	unsigned version;
	const struct prof_py_offsets *o;

	/* a container's interpreter: its file is where the process sees it, under its root */
	prof_procns_path(p->pid, path, at, sizeof(at));
	c = prof_elfcode_open(at, why, sizeof(why));

	if (!c)
		return 0;
	if (prof_elfcode_symbol(c, "_PyRuntime", &runtime) != 0 ||
	    prof_elfcode_symbol(c, "PyCode_Type", &code_type) != 0 ||
	    prof_elfcode_off_to_vaddr(c, pgoff, &vaddr) != 0) {
		prof_elfcode_close(c);
		return 0;
	}
	bias = start - vaddr;
	p->runtime = runtime + bias;
	p->code_type = code_type + bias;
	version = version_of_name(path);
	if (prof_elfcode_symbol(c, "Py_Version", &version_sym) == 0 &&
	    peek(p, version_sym + bias, &hex, sizeof(hex)) == 0 && (hex >> 24) == 3)
		version = (unsigned)(hex >> 16);
	prof_elfcode_close(c);
	if (hex)
		snprintf(p->version, sizeof(p->version), "%u.%u.%u", (unsigned)(hex >> 24),
			 (unsigned)(hex >> 16 & 0xff), (unsigned)(hex >> 8 & 0xff));
	else
		snprintf(p->version, sizeof(p->version), "%u.%u", version >> 8, version & 0xff);
	o = prof_py_offsets_of(version);
	if (!o) {
		snprintf(err, errlen, "%s: Python %s is not supported (3.9 to 3.13 are)", path,
			 p->version);
		return -1;
	}
	p->off = *o;
	if (version >= 0x30d && read_debug_offsets(p) != 0) {
		snprintf(err, errlen, "%s: Python %s: its _Py_DebugOffsets are not 3.13's "
			 "(a free-threaded or unknown build)", path, p->version);
		return -1;
	}
	if (!prof_py_offsets_sane(&p->off)) {
		snprintf(err, errlen, "%s: Python %s declares offsets this reader cannot follow",
			 path, p->version);
		return -1;
	}
	p->image = xstrdup(path);
	return 1;
}

/* Check the offsets on the process: its first thread state names its interpreter. */
static int check_runtime(struct prof_python *p, int *retry, char *err, size_t errlen)
{
	uint64_t interp, ts, back;

	if (peek_ptr(p, p->runtime + (uint64_t)p->off.runtime_interp_head, &interp) != 0) {
		snprintf(err, errlen, "cannot read its memory: %s%s", strerror(errno),
			 errno == EPERM ? " (ptrace is refused: see kernel.yama.ptrace_scope, "
			 "or the container's seccomp and capabilities)" : "");
		return -1;
	}
	if (!interp || peek_ptr(p, interp + (uint64_t)p->off.interp_tstate_head, &ts) != 0 || !ts) {
		*retry = 1;	/* not initialised yet */
		snprintf(err, errlen, "Python %s is not initialised", p->version);
		return -1;
	}
	if (peek_ptr(p, ts + (uint64_t)p->off.tstate_interp, &back) != 0 || back != interp) {
		snprintf(err, errlen, "Python %s (%s): its thread state does not match this "
			 "reader's offsets (an unknown build)", p->version, p->image);
		return -1;
	}
	return 0;
}

struct prof_python *prof_python_attach(pid_t pid, int *retry, char *err, size_t errlen)
{
	char path[64], line[4096], seen[4096] = "";
	struct prof_python *p = xcalloc(1, sizeof(*p));
	FILE *maps;
	int found = 0;

	*retry = 0;
	p->pid = pid;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if (!(maps = fopen(path, "re"))) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		free(p);
		return NULL;
	}
	while (!found && fgets(line, sizeof(line), maps)) {
		unsigned long long start, end, pgoff;
		int name_at = 0;
		char *file, *nl;
		const char *base;

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &start, &end, &pgoff, &name_at) < 3 ||
		    !name_at || line[name_at] != '/')
			continue;
		file = line + name_at;
		if ((nl = strchr(file, '\n')))
			*nl = 0;
		base = strrchr(file, '/') + 1;
		/* the interpreter's first mapping: python3.X or libpython3.X.so */
		if (strncmp(base, "python3", 7) != 0 && strncmp(base, "libpython3", 10) != 0)
			continue;
		if (strcmp(seen, file) == 0)
			continue;
		snprintf(seen, sizeof(seen), "%s", file);
		found = try_image(p, file, start, pgoff, err, errlen);
	}
	fclose(maps);
	if (found == 1 && check_runtime(p, retry, err, errlen) == 0) {
		prof_hashmap_init(&p->codes, sizeof(struct code_name));
		p->frames = xcalloc(MAX_DEPTH, sizeof(*p->frames));
		p->marks = xcalloc(MAX_DEPTH, sizeof(*p->marks));
		return p;
	}
	if (found == 0) {
		*retry = 1;	/* an exec may be on its way (a shim, a shell) */
		snprintf(err, errlen, "no CPython interpreter is mapped in process %d", (int)pid);
	}
	free(p->image);
	free(p);
	return NULL;
}

void prof_python_detach(struct prof_python *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->codes.count; i++)
		free(((struct code_name *)prof_hashmap_at(&p->codes, i, NULL))->frame);
	prof_hashmap_release(&p->codes);
	free(p->frames);
	free(p->marks);
	free(p->image);
	free(p);
}

const char *prof_python_version(const struct prof_python *p)
{
	return p->version;
}

const char *prof_python_image(const struct prof_python *p)
{
	return p->image;
}

uint64_t prof_python_torn(const struct prof_python *p)
{
	return p->torn;
}
