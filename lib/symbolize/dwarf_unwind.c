/*
 * DWARF unwinding of copied user stacks with libdwfl (dwarf_unwind.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <asm/perf_regs.h>

#include "symbolize/symbolize.h"
#include "symbolize/dwarf_unwind.h"
#include "symbolize/internal.h"
#include "base/xalloc.h"

#define NFILES 32

/* Position of each register in the sample, for prof_unwind_regs_mask(). */
enum {
	R_AX, R_BX, R_CX, R_DX, R_SI, R_DI, R_BP, R_SP, R_IP,
	R_R8, R_R9, R_R10, R_R11, R_R12, R_R13, R_R14, R_R15, R_COUNT
};

struct session {
	const struct prof_addrspace *as;
	unsigned long gen;
	Dwfl *dwfl;
	int ok;
};

struct prof_unwinder {
	struct session *sess;
	size_t nsess, capsess;
	Dwfl_Callbacks cb;
	char *debuginfo_path;
	/* the sample being unwound */
	struct prof_addrspace *as;
	int tid;
	const uint64_t *regs;
	const unsigned char *stack;
	size_t stack_len;
	uint64_t sp;
	uint64_t *ips;
	size_t nips, maxips;
	/* the last frame's registers (DWARF numbering), for jit_step() */
	Dwarf_Word last[17];
	uint32_t last_set;		/* bit r: last[r] is known */
	uint64_t restart[R_COUNT];	/* the registers a continued walk starts from */
	/* files read by memory_read (text and read-only data) */
	struct { const char *path; const struct prof_addrspace *as; int fd; unsigned long used; } files[NFILES];
	unsigned long tick;
};


uint64_t prof_unwind_regs_mask(void)
{
	uint64_t m = 0;

	for (int r = PERF_REG_X86_AX; r <= PERF_REG_X86_IP; r++)
		m |= 1ULL << r;
	for (int r = PERF_REG_X86_R8; r <= PERF_REG_X86_R15; r++)
		m |= 1ULL << r;
	return m;
}

struct prof_unwinder *prof_unwinder_new(void)
{
	struct prof_unwinder *u = xcalloc(1, sizeof(*u));

	u->cb.find_elf = dwfl_build_id_find_elf;
	u->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	u->cb.section_address = dwfl_offline_section_address;
	u->cb.debuginfo_path = &u->debuginfo_path;
	for (int i = 0; i < NFILES; i++)
		u->files[i].fd = -1;
	elf_version(EV_CURRENT);
	return u;
}

void prof_unwinder_free(struct prof_unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nsess; i++)
		if (u->sess[i].dwfl)
			dwfl_end(u->sess[i].dwfl);
	for (int i = 0; i < NFILES; i++)
		if (u->files[i].fd >= 0)
			close(u->files[i].fd);
	free(u->sess);
	free(u);
}

void prof_unwinder_forget(struct prof_unwinder *u, const struct prof_addrspace *as)
{
	/* its files were opened as its process saw them: another's path may be another file */
	for (int i = 0; i < NFILES; i++)
		if (u->files[i].fd >= 0 && u->files[i].as == as) {
			close(u->files[i].fd);
			u->files[i].fd = -1;
			u->files[i].used = 0;
		}
	for (size_t i = 0; i < u->nsess; i++) {
		if (u->sess[i].as != as)
			continue;
		if (u->sess[i].dwfl)
			dwfl_end(u->sess[i].dwfl);
		u->sess[i] = u->sess[--u->nsess];
		return;
	}
}

/* ---- callbacks ---- */

static pid_t cb_next_thread(Dwfl *dwfl, void *dwfl_arg, void **thread_argp)
{
	struct prof_unwinder *u = dwfl_arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = u;
	return u->tid;
}

static bool cb_get_thread(Dwfl *dwfl, pid_t tid, void *dwfl_arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = dwfl_arg;
	return true;
}

static int file_fd(struct prof_unwinder *u, const char *path)
{
	int victim = 0;
	char err[128];

	u->tick++;
	for (int i = 0; i < NFILES; i++) {
		if (u->files[i].fd >= 0 && u->files[i].path == path && u->files[i].as == u->as) {
			u->files[i].used = u->tick;
			return u->files[i].fd;
		}
		if (u->files[i].used < u->files[victim].used)
			victim = i;
	}
	if (u->files[victim].fd >= 0)
		close(u->files[victim].fd);
	u->files[victim].path = path;	/* interned by the symbolizer: compared by pointer */
	u->files[victim].as = u->as;
	u->files[victim].fd = prof_addrspace_open(u->as, path, err, sizeof(err));
	u->files[victim].used = u->tick;
	return u->files[victim].fd;
}

static bool cb_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *dwfl_arg)
{
	struct prof_unwinder *u = dwfl_arg;
	const struct prof_map *m;
	int fd;

	(void)dwfl;
	if (addr >= u->sp && addr - u->sp + 8 <= u->stack_len) {
		memcpy(result, u->stack + (addr - u->sp), 8);
		return true;
	}
	/* Not in the copied stack: read-only data of a mapped file. */
	m = prof_addrspace_find(u->as, addr);
	if (!m || m->path[0] != '/' || (m->prot & PROT_WRITE) || addr + 8 > m->end)
		return false;
	fd = file_fd(u, m->path);
	if (fd < 0)
		return false;
	return pread(fd, result, 8, (off_t)(addr - m->start + m->pgoff)) == 8;
}

static bool cb_set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
	struct prof_unwinder *u = thread_arg;
	const uint64_t *r = u->regs;
	Dwarf_Word d[17];

	/* DWARF x86-64 numbering: rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip. */
	d[0] = r[R_AX];
	d[1] = r[R_DX];
	d[2] = r[R_CX];
	d[3] = r[R_BX];
	d[4] = r[R_SI];
	d[5] = r[R_DI];
	d[6] = r[R_BP];
	d[7] = r[R_SP];
	for (int i = 0; i < 8; i++)
		d[8 + i] = r[R_R8 + i];
	d[16] = r[R_IP];
	return dwfl_thread_state_registers(thread, 0, 17, d);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = cb_next_thread,
	.get_thread = cb_get_thread,
	.memory_read = cb_memory_read,
	.set_initial_registers = cb_set_initial_registers,
};

/* ---- sessions ---- */

/*
 * Load bias of a mapping: its start minus the ELF vaddr of its file offset.
 *
 * The mapping's page offset alone does not name its segment: linkers that
 * pack segments in the file (lld, which rustc uses by default; gold;
 * ld -z noseparate-code) start the text segment in the same file page as
 * the end of the read-only one, at a vaddr one page further on. Both
 * segments then contain the page offset of the text mapping, and taking
 * the read-only one put every address one page off: the CFI looked up for
 * the sampled IP was another function's, and the unwind stopped after a
 * bogus second frame. So the segment must also have the mapping's
 * permission to execute (the only mappings reported here), and among
 * several candidates the one whose first page is the mapping's wins.
 */
static int map_bias(const struct prof_addrspace *as, const struct prof_map *m, Dwarf_Addr *bias,
		    int *is_exec_type)
{
	char err[128];
	int fd = prof_addrspace_open(as, m->path, err, sizeof(err)), rc = -1;
	uint64_t pmask = (uint64_t)sysconf(_SC_PAGESIZE) - 1;
	Elf *e;
	size_t nph;
	GElf_Ehdr eh;

	if (fd < 0)
		return -1;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (e && gelf_getehdr(e, &eh) && elf_getphdrnum(e, &nph) == 0) {
		int best = -1;

		*is_exec_type = eh.e_type == ET_EXEC;
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			int score;

			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			if (m->pgoff < (ph.p_offset & ~pmask) || m->pgoff >= ph.p_offset + ph.p_filesz)
				continue;
			score = (!(ph.p_flags & PF_X) == !(m->prot & PROT_EXEC)) * 2 +
				((ph.p_offset & ~pmask) == m->pgoff);
			if (score > best) {
				best = score;
				*bias = m->start - (m->pgoff - ph.p_offset + ph.p_vaddr);
				rc = 0;
			}
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}

static void session_build(struct prof_unwinder *u, struct session *s, struct prof_addrspace *as)
{
	size_t n;
	const struct prof_map *maps = prof_addrspace_maps(as, &n);
	const char *last = NULL;

	if (s->dwfl)
		dwfl_end(s->dwfl);
	s->as = as;
	s->gen = prof_addrspace_generation(as);
	s->ok = 0;
	s->dwfl = dwfl_begin(&u->cb);
	if (!s->dwfl)
		return;
	dwfl_report_begin(s->dwfl);
	for (size_t i = 0; i < n; i++) {
		const struct prof_map *m = &maps[i];
		Dwarf_Addr bias = 0;
		int exec_type = 0;
		const char *base;
		char err[128];
		int fd;

		if (!(m->prot & PROT_EXEC) || m->path[0] != '/' || m->path == last)
			continue;
		if (map_bias(as, m, &bias, &exec_type) != 0)
			continue;
		last = m->path;
		base = strrchr(m->path, '/') + 1;
		/*
		 * add_p_vaddr: base is the bias itself. Overlaps are refused by
		 * libdwfl. The file as the process sees it (a container's): the
		 * descriptor is libdwfl's once the module is reported.
		 */
		fd = prof_addrspace_open(as, m->path, err, sizeof(err));
		if (fd >= 0 && !dwfl_report_elf(s->dwfl, base, m->path, fd, exec_type ? 0 : bias, true))
			close(fd);
	}
	dwfl_report_end(s->dwfl, NULL, NULL);
	if (dwfl_attach_state(s->dwfl, NULL, prof_addrspace_pid(as) > 0 ? prof_addrspace_pid(as) : 1,
			      &thread_callbacks, u))
		s->ok = 1;
}

static struct session *session_of(struct prof_unwinder *u, struct prof_addrspace *as)
{
	struct session *s = NULL;

	for (size_t i = 0; i < u->nsess; i++)
		if (u->sess[i].as == as) {
			s = &u->sess[i];
			break;
		}
	if (!s) {
		PROF_GROW(u->sess, u->nsess + 1, u->capsess);
		s = &u->sess[u->nsess++];
		memset(s, 0, sizeof(*s));
		session_build(u, s, as);
	} else if (s->gen != prof_addrspace_generation(as)) {
		session_build(u, s, as);
	}
	return s;
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct prof_unwinder *u = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	if (u->nips && pc == 0)
		return DWARF_CB_ABORT;
	u->ips[u->nips++] = pc;
	u->last_set = 0;
	for (unsigned r = 0; r < 17; r++)
		if (dwfl_frame_reg(state, r, &u->last[r]) == 0)
			u->last_set |= 1u << r;
	return u->nips < u->maxips ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* Whether addr is code of a mapped file (not JIT code, not data). */
static int in_file_code(const struct prof_unwinder *u, uint64_t addr)
{
	const struct prof_map *m = prof_addrspace_find(u->as, addr);

	return m && m->path[0] == '/' && (m->prot & PROT_EXEC);
}

/*
 * The walk stopped in JIT code, which has no CFI for libdwfl (nor a frame
 * pointer there, or libdwfl's own fallback would have gone on). Step out
 * of the last frame by a rule JIT code is known to keep, and set
 * u->restart to the caller's registers; returns 0, or -1 when no rule
 * leads to code of a file.
 *
 *   CPython 3.12+'s perf trampolines (x86-64: sub $8,%rsp; call *%rcx,
 *   or push %rbp; mov %rsp,%rbp; call *%rcx): the return address at
 *   SP + 8, the caller's SP at SP + 16, its BP at SP when BP is SP (the
 *   second form), every other register as it was. This is what their
 *   jitdump unwinding information says (-X perf_jit), without the dump.
 */
static int jit_step(struct prof_unwinder *u)
{
	uint64_t pc = u->ips[u->nips - 1], sp, ra, at = 8;
	const struct jitsym *j = prof_sym_jit_symbol(u->as, pc);
	static const int dwarf_of[R_COUNT] = {
		[R_AX] = 0, [R_DX] = 1, [R_CX] = 2, [R_BX] = 3, [R_SI] = 4, [R_DI] = 5,
		[R_BP] = 6, [R_SP] = 7, [R_R8] = 8, [R_R9] = 9, [R_R10] = 10, [R_R11] = 11,
		[R_R12] = 12, [R_R13] = 13, [R_R14] = 14, [R_R15] = 15, [R_IP] = 16,
	};

	if (!j || !(u->last_set & (1u << 7)))
		return -1;
	/*
	 * The sampled instruction itself (not a return address) may be the
	 * trampoline's first, before it moved SP, or its last, the ret: the
	 * return address is at SP then.
	 */
	if (u->nips == 1 && (pc == j->start || pc + 1 == j->end))
		at = 0;
	sp = u->last[7];
	if (sp < u->sp || sp - u->sp + at + 8 > u->stack_len)
		return -1;
	memcpy(&ra, u->stack + (sp - u->sp) + at, 8);
	if (!in_file_code(u, ra))
		return -1;
	for (int r = 0; r < R_COUNT; r++)
		u->restart[r] = u->last_set & (1u << dwarf_of[r]) ? u->last[dwarf_of[r]] : 0;
	/* a trampoline that keeps a frame pointer (push %rbp; mov %rsp,%rbp):
	 * the caller's is the word below the return address */
	if (at && u->restart[R_BP] == sp)
		memcpy(&u->restart[R_BP], u->stack + (sp - u->sp), 8);
	u->restart[R_SP] = sp + at + 8;
	u->restart[R_IP] = ra;
	return 0;
}

size_t prof_unwind(struct prof_unwinder *u, struct prof_addrspace *as, int tid,
		   const uint64_t *regs, const unsigned char *stack, size_t stack_len,
		   uint64_t *ips, size_t max)
{
	struct session *s;

	if (!max || !regs)
		return 0;
	s = session_of(u, as);
	u->as = as;
	u->tid = tid > 0 ? tid : 1;
	u->regs = regs;
	u->stack = stack;
	u->stack_len = stack_len;
	u->sp = regs[R_SP];
	u->ips = ips;
	u->nips = 0;
	u->maxips = max;
	if (!s->ok) {
		ips[0] = regs[R_IP];
		return 1;
	}
	dwfl_getthread_frames(s->dwfl, u->tid, frame_cb, u);
	if (!u->nips) {
		ips[0] = regs[R_IP];
		return 1;
	}
	/*
	 * Stopped in JIT code: step over it and walk on from its caller, as
	 * often as the stack has such frames (a Python call each).
	 */
	for (int jumps = 0; jumps < 256 && u->nips < u->maxips && jit_step(u) == 0; jumps++) {
		size_t before = u->nips;

		u->regs = u->restart;
		u->ips[u->nips++] = u->restart[R_IP];	/* the walk's first frame, once */
		u->nips--;
		dwfl_getthread_frames(s->dwfl, u->tid, frame_cb, u);
		if (u->nips == before)
			break;
	}
	return u->nips;
}
