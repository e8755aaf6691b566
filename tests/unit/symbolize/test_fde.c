/*
 * Unit tests of fde.c on this very program: the .eh_frame FDE of one of
 * its functions gives the function's start for any address inside it;
 * an address no FDE covers (the ELF header) gives none.
 */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include "symbolize/internal.h"
#include "../unit.h"

__attribute__((noinline)) int unit_fde_target(int x);
__attribute__((noinline)) int unit_fde_target(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 7 + 3;
}

int main(void)
{
	struct prof_symbolizer *s;
	struct prof_addrspace *as;
	const struct prof_map *m;
	struct elfobj *o;
	uint64_t fn, hdr, start = 0;
	uint32_t obj;
	int is_new;

	setenv("PROFTOOLS_NO_CACHE", "1", 1);
	s = prof_symbolizer_new(NULL);
	as = prof_addrspace_new(s, getpid());
	TEST("an FDE gives its function's start; none covers the ELF header") {
		CHECK(prof_addrspace_load_maps(as, "/proc/self/maps") == 0);
		m = prof_addrspace_find(as, (uintptr_t)unit_fde_target);
		CHECK(m != NULL);
		if (m) {
			obj = prof_sym_obj_get(s, m->path, m->build_id, m->build_id_len,
					       PROF_SYM_ROOT_OURS, &is_new);
			CHECK(obj != PROF_SYM_NO_OBJ);
			if (obj != PROF_SYM_NO_OBJ) {
				o = s->objs[obj];
				CHECK(prof_sym_off_to_vaddr(o, (uintptr_t)unit_fde_target - m->start + m->pgoff,
							    &fn) == 0);
				CHECK(prof_sym_fde_start(o, fn, &start) == 0 && start == fn);
				start = 0;
				CHECK(prof_sym_fde_start(o, fn + 3, &start) == 0 && start == fn);
				CHECK(o->nfde > 1);	/* the table was read once, sorted */
				for (size_t i = 1; i < o->nfde; i++)
					if (o->fde_starts[i - 1] > o->fde_starts[i])
						CHECK(!"FDE starts sorted");
				/* The ELF header (file offset 0x10) is code of no function. */
				CHECK(prof_sym_off_to_vaddr(o, 0x10, &hdr) == 0);
				CHECK(prof_sym_fde_start(o, hdr, &start) == -1);
			}
		}
		CHECK(unit_fde_target(1) == 10);
	}
	prof_addrspace_free(as);
	prof_symbolizer_free(s);
	return UNIT_RESULT();
}
