/*
 * Samples to stacks: call chains symbolized and interned (callchain.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/xalloc.h"

#include "core/stack.h"
#include "record/callchain.h"
#include "record/threads.h"
#include "symbolize/dwarf_unwind.h"

#define NFRAMES (sizeof(((struct prof_callchain *)0)->frames) / sizeof(struct prof_frame))

#if defined(__x86_64__)
#include <asm/perf_regs.h>
/* The sampled registers, in bit order: BP, SP, IP. */
enum { LEAF_BP, LEAF_SP, LEAF_IP, LEAF_NREGS };

uint64_t prof_callchain_leaf_regs_mask(void)
{
	return 1ULL << PERF_REG_X86_BP | 1ULL << PERF_REG_X86_SP | 1ULL << PERF_REG_X86_IP;
}
#else
enum { LEAF_BP, LEAF_SP, LEAF_IP, LEAF_NREGS };

uint64_t prof_callchain_leaf_regs_mask(void)
{
	return 0;
}
#endif

void prof_callchain_init(struct prof_callchain *cc, struct prof_symbolizer *sym,
			 struct prof_unwinder *unw, struct prof_stacks *stacks,
			 enum prof_call_graph mode, int lines, unsigned max_stack)
{
	memset(cc, 0, sizeof(*cc));
	cc->sym = sym;
	cc->unw = unw;
	cc->stacks = stacks;
	cc->mode = mode;
	cc->lines = lines;
	cc->max_stack = max_stack;
	prof_hashmap_init(&cc->deferred, sizeof(struct prof_deferred_frame));
	prof_hashmap_init(&cc->views, sizeof(struct prof_addrspace *));
}

void prof_callchain_release(struct prof_callchain *cc)
{
	prof_buf_release(&cc->text);
	prof_hashmap_release(&cc->deferred);
	for (size_t i = 0; i < prof_hashmap_count(&cc->views); i++)
		prof_addrspace_free(*(struct prof_addrspace **)prof_hashmap_at(&cc->views, i, NULL));
	prof_hashmap_release(&cc->views);
}

/* The characters a frame name may not hold made harmless (prof-formats.5). */
static void sanitize(struct prof_buf *b)
{
	for (size_t i = 0; i < b->len; i++) {
		char c = b->data[i];

		if (c == ';')
			b->data[i] = ':';
		else if (c == '\t' || c == '\n' || c == '\r')
			b->data[i] = ' ';
	}
}

void prof_callchain_frame_text(struct prof_buf *b, const struct prof_frame *f, int lines)
{
	prof_buf_reset(b);
	prof_buf_addstr(b, f->name);
	if (f->file && lines) {
		const char *base = strrchr(f->file, '/');

		prof_buf_addf(b, " %s:%u", base ? base + 1 : f->file, f->line);
	}
	sanitize(b);
	if (f->flags & PROF_FRAME_KERNEL)
		prof_buf_addstr(b, "_[k]");
	else if (f->flags & PROF_FRAME_INLINED)
		prof_buf_addstr(b, "_[i]");
}

/* Intern a frame name with the sanitising and suffixes of prof-formats.5. */
static uint32_t frame_id(struct prof_callchain *cc, const struct prof_frame *f)
{
	prof_callchain_frame_text(&cc->text, f, cc->lines);
	return prof_stacks_frame(cc->stacks, cc->text.data, cc->text.len);
}

/* Append a marker frame such as "[truncated]" when there is room. */
static void add_marker(struct prof_callchain *cc, const char *name)
{
	if (cc->n < PROF_CALLCHAIN_MAX_FRAMES) {
		cc->addrs[cc->n] = 0;
		cc->ids[cc->n++] = prof_stacks_frame(cc->stacks, name, strlen(name));
	}
}

/*
 * Whether frame f of addr is unnamed code of anonymous executable memory
 * (the symbolizer names an address of a file mapping "FILE+0xOFF"): JIT
 * code that its runtime may name later. An address outside every
 * mapping is no code.
 */
static int is_jit_code(struct prof_addrspace *as, uint64_t addr, unsigned flags,
		       const struct prof_frame *f)
{
	const struct prof_map *m;

	if (!as || prof_addrspace_pid(as) <= 0 || (flags & PROF_SYM_KERNEL) ||
	    !(f->flags & PROF_FRAME_UNKNOWN) || strcmp(f->name, "[unknown]") != 0)
		return 0;
	m = prof_addrspace_find(as, (flags & PROF_SYM_RETURN) ? addr - 1 : addr);
	return m && (m->prot & PROT_EXEC);
}

/*
 * The frame of deferred naming (callchain.h) of address addr of as's
 * process, flags as prof_symbolize()'s.
 */
static uint32_t deferred_id(struct prof_callchain *cc, struct prof_addrspace *as, uint64_t addr,
			    unsigned flags)
{
	struct prof_deferred_frame *d;
	int pid = (int)prof_addrspace_pid(as), added;
	struct prof_addrspace **view;
	uint32_t id;

	if (flags & PROF_SYM_RETURN)
		addr--;
	/* where its map will be at the end: a container's, under the pid it sees */
	view = prof_hashmap_put(&cc->views, (uint64_t)pid, &added);
	if (added)
		*view = prof_addrspace_view(as);
	prof_buf_reset(&cc->text);
	prof_buf_addf(&cc->text, "[unknown 0x%llx pid %d]", (unsigned long long)addr, pid);
	id = prof_stacks_frame(cc->stacks, cc->text.data, cc->text.len);
	d = prof_hashmap_put(&cc->deferred, id, NULL);
	d->frame = id;
	d->pid = pid;
	d->addr = addr;
	if (!(flags & PROF_SYM_RETURN))
		d->leaf++;
	return id;
}

/*
 * Symbolize one address and append its frames, innermost first, to
 * cc->ids (leaf first so far). Returns how many cc->frames holds (the
 * last one is the real function), 0 when the stack is full.
 */
static size_t add_addr(struct prof_callchain *cc, struct prof_addrspace *as, uint64_t addr,
		       unsigned flags)
{
	size_t k;

	if (cc->n >= PROF_CALLCHAIN_MAX_FRAMES)
		return 0;
	k = prof_symbolize(cc->sym, as, addr, flags, cc->frames, NFRAMES);
	if (cc->defer_jit && k == 1 && is_jit_code(as, addr, flags, &cc->frames[0])) {
		cc->addrs[cc->n] = addr;
		cc->ids[cc->n++] = deferred_id(cc, as, addr, flags);
		return k;
	}
	for (size_t i = 0; i < k && cc->n < PROF_CALLCHAIN_MAX_FRAMES; i++) {
		cc->addrs[cc->n] = addr;
		cc->ids[cc->n++] = frame_id(cc, &cc->frames[i]);
	}
	return k;
}

/*
 * The outermost frame of a thread: nothing real calls it, so what a frame
 * pointer walk finds beyond it is garbage (glibc's clone3 and start_thread
 * keep data pointers in %rbp, sometimes a self-referencing list head that
 * the kernel follows until its depth limit).
 */
static int is_entry_frame(const char *name)
{
	static const char *const entry[] = {
		"_start", "__libc_start_main", "__libc_start_main_impl", "__libc_start_call_main",
		"start_thread", "clone", "__clone", "clone3", "__clone3", "thread_start",
	};

	for (size_t i = 0; i < sizeof(entry) / sizeof(entry[0]); i++)
		if (strcmp(name, entry[i]) == 0)
			return 1;
	return 0;
}

/*
 * Whether a return address from a frame pointer walk can be real: it lies
 * in executable memory. Without known mappings (a process gone before
 * they were read) there is nothing to judge by.
 */
static int is_code(struct prof_addrspace *as, uint64_t addr)
{
	const struct prof_map *m;
	size_t nmaps;

	if (!as)
		return 1;
	prof_addrspace_maps(as, &nmaps);
	if (!nmaps)
		return 1;
	m = prof_addrspace_find(as, addr);
	return m && (m->prot & PROT_EXEC);
}

enum context { CTX_UNKNOWN, CTX_KERNEL, CTX_USER, CTX_OTHER };

/*
 * The caller of the innermost user function, at user address ip, when
 * that function has not set up its frame pointer (see callchain.h): the
 * return address read from the sampled stack. 0, or -1.
 */
static int leaf_caller(struct prof_callchain *cc, struct prof_addrspace *as,
		       const struct prof_sample *s, uint64_t ip, uint64_t *ra)
{
	uint64_t off;

	if (!s->regs || !s->stack || s->regs_abi == 0 || !prof_callchain_leaf_regs_mask() ||
	    s->regs[LEAF_IP] != ip)
		return -1;
	if (prof_symbolizer_cfa_sp_offset(cc->sym, as, ip, &off) != 0 || off < 8 ||
	    off > s->stack_size)
		return -1;
	memcpy(ra, s->stack + off - 8, 8);
	return *ra && is_code(as, *ra) ? 0 : -1;
}

/* The walk of the kernel's call chain (user part: frame pointers; see the top). */
static void walk_chain(struct prof_callchain *cc, struct prof_addrspace *as,
		       const struct prof_sample *s)
{
	enum context ctx = CTX_UNKNOWN;
	int first = 1, user_end = 0, truncated = 0;	/* user_end 2: at an entry frame */
	uint64_t frames = 0, ra;
	size_t nuser = 0, nf;

	for (uint64_t i = 0; i < s->nr; i++) {
		uint64_t a = s->ips[i];

		if (a >= (uint64_t)PERF_CONTEXT_MAX) {
			ctx = a == (uint64_t)PERF_CONTEXT_KERNEL ? CTX_KERNEL :
			      a == (uint64_t)PERF_CONTEXT_USER ? CTX_USER : CTX_OTHER;
			first = 1;
			continue;
		}
		frames++;
		if (ctx == CTX_OTHER)
			continue;
		if (ctx == CTX_KERNEL || (ctx == CTX_UNKNOWN && prof_is_kernel_addr(a))) {
			add_addr(cc, NULL, a, PROF_SYM_KERNEL | (first ? 0 : PROF_SYM_RETURN));
		} else if (cc->mode == PROF_CALL_GRAPH_FP && !user_end) {
			/*
			 * A return address outside code means the walk left
			 * the stack: the rest is garbage, the stack is
			 * truncated there.
			 */
			if (nuser && !is_code(as, a)) {
				user_end = truncated = 1;
				continue;
			}
			nf = add_addr(cc, as, a, first ? 0 : PROF_SYM_RETURN);
			nuser++;
			if (nf && is_entry_frame(cc->frames[nf - 1].name)) {
				user_end = 2;
			} else if (nuser == 1 && first && cc->mode == PROF_CALL_GRAPH_FP &&
				   leaf_caller(cc, as, s, a, &ra) == 0 &&
				   (i + 1 >= s->nr || s->ips[i + 1] != ra)) {
				/*
				 * The frameless function's caller, which the walk
				 * skipped; not counted in nuser, which judges the walk.
				 */
				nf = add_addr(cc, as, ra, PROF_SYM_RETURN);
				cc->fp_leaf_callers++;
				if (nf && is_entry_frame(cc->frames[nf - 1].name))
					user_end = 2;
			}
		}
		first = 0;
	}
	/* The kernel stopped at its depth limit before the entry frame. */
	if (cc->mode == PROF_CALL_GRAPH_FP && frames >= cc->max_stack && user_end != 2)
		truncated = 1;
	if (truncated)
		add_marker(cc, "[truncated]");
	if (nuser) {
		cc->fp_user_stacks++;
		if (nuser <= 2 && user_end != 2)
			cc->fp_shallow_stacks++;
	}
}

/* The user part of a DWARF-mode sample: unwound from the copied stack. */
static void unwind_user(struct prof_callchain *cc, struct prof_addrspace *as,
			const struct prof_sample *s)
{
	if (s->regs && s->stack_size) {
		uint64_t ips[256];
		size_t k = prof_unwind(cc->unw, as, (int)s->tid, s->regs, s->stack,
				       (size_t)s->stack_size, ips, 256);

		for (size_t i = 0; i < k; i++)
			add_addr(cc, as, ips[i], i ? PROF_SYM_RETURN : 0);
	} else if (!prof_is_kernel_addr(s->ip) && s->ip) {
		add_addr(cc, as, s->ip, 0);
	}
}

/* The frames (leaf first so far) named from the sampled ip: the first address's. */
static size_t count_leaf_frames(const struct prof_callchain *cc, const struct prof_sample *s)
{
	size_t k = 0;

	while (k < cc->n && cc->addrs[k] == s->ip && s->ip)
		k++;
	return k;
}

uint32_t prof_callchain_stack(struct prof_callchain *cc, struct prof_addrspace *as,
			      const struct prof_sample *s, const char *root)
{
	uint32_t tmp;
	uint64_t a;

	cc->n = 0;
	if (cc->mode == PROF_CALL_GRAPH_NONE || !s->ips) {
		add_addr(cc, as, s->ip, prof_is_kernel_addr(s->ip) ? PROF_SYM_KERNEL : 0);
	} else {
		walk_chain(cc, as, s);
		if (cc->mode == PROF_CALL_GRAPH_DWARF)
			unwind_user(cc, as, s);
	}
	cc->leaf_frames = count_leaf_frames(cc, s);
	if (root) {
		/* The outermost frame; when full, the leaf gives way (ids are leaf first). */
		if (cc->n == PROF_CALLCHAIN_MAX_FRAMES) {
			memmove(cc->ids, cc->ids + 1, --cc->n * sizeof(cc->ids[0]));
			memmove(cc->addrs, cc->addrs + 1, cc->n * sizeof(cc->addrs[0]));
			if (cc->leaf_frames)
				cc->leaf_frames--;
		}
		cc->addrs[cc->n] = 0;
		cc->ids[cc->n++] = prof_stacks_frame(cc->stacks, root, strlen(root));
	}
	/* Root first: reverse. */
	for (size_t i = 0, j = cc->n ? cc->n - 1 : 0; i < j; i++, j--) {
		tmp = cc->ids[i];
		cc->ids[i] = cc->ids[j];
		cc->ids[j] = tmp;
		a = cc->addrs[i];
		cc->addrs[i] = cc->addrs[j];
		cc->addrs[j] = a;
	}
	return prof_stacks_intern(cc->stacks, cc->ids, cc->n);
}

static int by_pid(const void *a, const void *b)
{
	const struct prof_deferred_frame *x = *(struct prof_deferred_frame *const *)a;
	const struct prof_deferred_frame *y = *(struct prof_deferred_frame *const *)b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

uint32_t *prof_callchain_resolve(struct prof_callchain *cc, size_t *nframes,
				 unsigned long long *named_leaves)
{
	size_t nd = prof_hashmap_count(&cc->deferred), n = prof_intern_count(&cc->stacks->frames);
	struct prof_deferred_frame **order;
	struct prof_addrspace *as = NULL, **view;
	uint32_t *map, unknown;

	*nframes = nd ? n : 0;
	*named_leaves = 0;
	if (!nd)
		return NULL;
	map = xreallocarray(NULL, n, sizeof(*map));
	for (size_t i = 0; i < n; i++)
		map[i] = (uint32_t)i;
	/* One address space per process, so that its map is read once. */
	order = xreallocarray(NULL, nd, sizeof(*order));
	for (size_t i = 0; i < nd; i++)
		order[i] = prof_hashmap_at(&cc->deferred, i, NULL);
	qsort(order, nd, sizeof(*order), by_pid);
	unknown = prof_stacks_frame(cc->stacks, "[unknown]", 9);
	for (size_t i = 0; i < nd; i++) {
		struct prof_deferred_frame *d = order[i];
		const char *name;

		if (!as || prof_addrspace_pid(as) != d->pid) {
			view = prof_hashmap_get(&cc->views, (uint64_t)d->pid);
			as = *view;
		}
		if (!(name = prof_addrspace_jit_name(as, d->addr))) {
			map[d->frame] = unknown;
			continue;
		}
		prof_buf_reset(&cc->text);
		prof_buf_addstr(&cc->text, name);
		sanitize(&cc->text);
		map[d->frame] = prof_stacks_frame(cc->stacks, cc->text.data, cc->text.len);
		*named_leaves += d->leaf;
	}
	free(order);
	return map;
}
