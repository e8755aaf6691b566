/*
 * The real allocator and exec family: the definitions that come after
 * ours (dlsym RTLD_NEXT), and the boot arena that serves dlsym's own
 * allocations while they are looked up (internal.h).
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

#include "heap/shim/internal.h"

struct ph_real ph_real;
int ph_resolving;
char ph_boot_arena[65536] __attribute__((aligned(64)));
static size_t boot_used;

void *ph_boot_alloc(size_t n)
{
	size_t off = (__atomic_load_n(&boot_used, RELAXED) + 15) & ~(size_t)15;

	if (n > sizeof(ph_boot_arena) - 16 || off + 16 + n > sizeof(ph_boot_arena))
		return NULL;
	boot_used = off + 16 + n;
	*(size_t *)(ph_boot_arena + off) = n;
	return ph_boot_arena + off + 16;	/* zeroed: the arena is never reused */
}

void ph_resolve(void)
{
	if (ph_resolving)
		return;
	ph_resolving = 1;
	ph_real.malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	ph_real.free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
	ph_real.calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
	ph_real.realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	ph_real.memalign = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "memalign");
	ph_real.posix_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
	ph_real.aligned_alloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "aligned_alloc");
	ph_real.valloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "valloc");
	ph_real.pvalloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "pvalloc");
	ph_real.execve = (int (*)(const char *, char *const[], char *const[]))dlsym(RTLD_NEXT, "execve");
	ph_real.execvpe = (int (*)(const char *, char *const[], char *const[]))dlsym(RTLD_NEXT, "execvpe");
	ph_real.fexecve = (int (*)(int, char *const[], char *const[]))dlsym(RTLD_NEXT, "fexecve");
	ph_resolving = 0;
	if (!ph_real.malloc || !ph_real.free || !ph_real.calloc || !ph_real.realloc || !ph_real.memalign) {
		static const char msg[] = "libprofheap: cannot find the real malloc\n";

		if (write(2, msg, sizeof(msg) - 1) < 0)
			_exit(127);
		_exit(127);
	}
}
