/*
 * The interposed functions of the malloc family and C++'s operator new
 * and delete (Itanium mangled names): each serves the boot arena while
 * the real allocator is looked up, asks the hot path (record.c) whether
 * to record, and calls the real function (internal.h).
 */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "heap/shim/internal.h"

EXPORT void *malloc(size_t n)
{
	if (unlikely(!ph_real.malloc)) {
		if (ph_resolving)
			return ph_boot_alloc(n);
		ph_resolve();
	}
	if (!ph_wanted(n))
		return ph_real.malloc(n);
	return ph_track(ph_real.malloc(n), n);
}

EXPORT void free(void *p)
{
	ph_free(p);
}

EXPORT void *calloc(size_t a, size_t b)
{
	size_t n;

	if (__builtin_mul_overflow(a, b, &n)) {
		errno = ENOMEM;
		return NULL;
	}
	if (unlikely(!ph_real.calloc)) {
		if (ph_resolving)
			return ph_boot_alloc(n);
		ph_resolve();
	}
	if (!ph_wanted(n))
		return ph_real.calloc(a, b);
	return ph_track(ph_real.calloc(a, b), n);
}

EXPORT void *realloc(void *p, size_t n)
{
	return ph_realloc(p, n);
}

EXPORT void *reallocarray(void *p, size_t a, size_t b)
{
	size_t n;

	if (__builtin_mul_overflow(a, b, &n)) {
		errno = ENOMEM;
		return NULL;
	}
	return ph_realloc(p, n);
}

static void *aligned_impl(size_t align, size_t n)
{
	if (unlikely(!ph_real.memalign))
		ph_resolve();
	if (!ph_wanted(n))
		return ph_real.memalign(align, n);
	return ph_track(ph_real.memalign(align, n), n);
}

EXPORT void *memalign(size_t align, size_t n)
{
	return aligned_impl(align, n);
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	void *p;
	int r;

	if (unlikely(!ph_real.posix_memalign))
		ph_resolve();
	if (!ph_wanted(n))
		return ph_real.posix_memalign(out, align, n);
	r = ph_real.posix_memalign(&p, align, n);
	if (r == 0) {
		ph_track(p, n);
		*out = p;
	}
	return r;
}

EXPORT void *aligned_alloc(size_t align, size_t n)
{
	if (unlikely(!ph_real.aligned_alloc))
		ph_resolve();
	if (!ph_wanted(n))
		return ph_real.aligned_alloc(align, n);
	return ph_track(ph_real.aligned_alloc(align, n), n);
}

EXPORT void *valloc(size_t n)
{
	if (unlikely(!ph_real.valloc))
		ph_resolve();
	if (!ph_wanted(n))
		return ph_real.valloc(n);
	return ph_track(ph_real.valloc(n), n);
}

EXPORT void *pvalloc(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), r;

	if (unlikely(!ph_real.pvalloc))
		ph_resolve();
	r = n ? (n + page - 1) & ~(page - 1) : page;
	if (r < n) {
		errno = ENOMEM;
		return NULL;
	}
	if (!ph_wanted(r))
		return ph_real.pvalloc(n);
	return ph_track(ph_real.pvalloc(n), r);
}

/* ---- dlclose: keep the mappings of a library about to go ----------------- */


/* ---- C++ operator new / delete ------------------------------------------------ */

void *_Znwm(size_t);
void *_Znam(size_t);
void *_ZnwmRKSt9nothrow_t(size_t, const void *);
void *_ZnamRKSt9nothrow_t(size_t, const void *);
void *_ZnwmSt11align_val_t(size_t, size_t);
void *_ZnamSt11align_val_t(size_t, size_t);
void *_ZnwmSt11align_val_tRKSt9nothrow_t(size_t, size_t, const void *);
void *_ZnamSt11align_val_tRKSt9nothrow_t(size_t, size_t, const void *);
void _ZdlPv(void *);
void _ZdaPv(void *);
void _ZdlPvm(void *, size_t);
void _ZdaPvm(void *, size_t);
void _ZdlPvRKSt9nothrow_t(void *, const void *);
void _ZdaPvRKSt9nothrow_t(void *, const void *);
void _ZdlPvSt11align_val_t(void *, size_t);
void _ZdaPvSt11align_val_t(void *, size_t);
void _ZdlPvmSt11align_val_t(void *, size_t, size_t);
void _ZdaPvmSt11align_val_t(void *, size_t, size_t);
void _ZdlPvSt11align_val_tRKSt9nothrow_t(void *, size_t, const void *);
void _ZdaPvSt11align_val_tRKSt9nothrow_t(void *, size_t, const void *);

typedef void (*new_handler_fn)(void);

static __attribute__((noreturn)) void throw_bad_alloc(void)
{
	void (*thr)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "_ZSt17__throw_bad_allocv");

	if (thr)
		thr();
	ph_say("out of memory in operator new", NULL);
	abort();
}

static void *new_impl(size_t n, size_t align, int nothrow)
{
	static new_handler_fn (*get_handler)(void);
	void *p;

	if (!n)
		n = 1;
	for (;;) {
		p = align ? aligned_impl(align, n) : malloc(n);
		if (p)
			return p;
		if (!get_handler)
			get_handler = (new_handler_fn (*)(void))dlsym(RTLD_DEFAULT,
								   "_ZSt15get_new_handlerv");
		if (!get_handler || !get_handler()) {
			if (nothrow)
				return NULL;
			throw_bad_alloc();
		}
		get_handler()();
	}
}

EXPORT void *_Znwm(size_t n) { return new_impl(n, 0, 0); }
EXPORT void *_Znam(size_t n) { return new_impl(n, 0, 0); }
EXPORT void *_ZnwmRKSt9nothrow_t(size_t n, const void *t) { (void)t; return new_impl(n, 0, 1); }
EXPORT void *_ZnamRKSt9nothrow_t(size_t n, const void *t) { (void)t; return new_impl(n, 0, 1); }
EXPORT void *_ZnwmSt11align_val_t(size_t n, size_t al) { return new_impl(n, al, 0); }
EXPORT void *_ZnamSt11align_val_t(size_t n, size_t al) { return new_impl(n, al, 0); }
EXPORT void *_ZnwmSt11align_val_tRKSt9nothrow_t(size_t n, size_t al, const void *t)
{
	(void)t;
	return new_impl(n, al, 1);
}
EXPORT void *_ZnamSt11align_val_tRKSt9nothrow_t(size_t n, size_t al, const void *t)
{
	(void)t;
	return new_impl(n, al, 1);
}
EXPORT void _ZdlPv(void *p) { ph_free(p); }
EXPORT void _ZdaPv(void *p) { ph_free(p); }
EXPORT void _ZdlPvm(void *p, size_t n) { (void)n; ph_free(p); }
EXPORT void _ZdaPvm(void *p, size_t n) { (void)n; ph_free(p); }
EXPORT void _ZdlPvRKSt9nothrow_t(void *p, const void *t) { (void)t; ph_free(p); }
EXPORT void _ZdaPvRKSt9nothrow_t(void *p, const void *t) { (void)t; ph_free(p); }
EXPORT void _ZdlPvSt11align_val_t(void *p, size_t al) { (void)al; ph_free(p); }
EXPORT void _ZdaPvSt11align_val_t(void *p, size_t al) { (void)al; ph_free(p); }
EXPORT void _ZdlPvmSt11align_val_t(void *p, size_t n, size_t al)
{
	(void)n, (void)al;
	ph_free(p);
}
EXPORT void _ZdaPvmSt11align_val_t(void *p, size_t n, size_t al)
{
	(void)n, (void)al;
	ph_free(p);
}
EXPORT void _ZdlPvSt11align_val_tRKSt9nothrow_t(void *p, size_t al, const void *t)
{
	(void)al, (void)t;
	ph_free(p);
}
EXPORT void _ZdaPvSt11align_val_tRKSt9nothrow_t(void *p, size_t al, const void *t)
{
	(void)al, (void)t;
	ph_free(p);
}
