/*
 * MiniDebugInfo (internal.h): Fedora, RHEL and others strip their
 * binaries but keep the function symbols in .gnu_debugdata, an
 * xz-compressed ELF file holding a .symtab. Without liblzma (optional,
 * probed by lib/symbolize/symbolize.mk) the section is ignored.
 */
#include <libelf.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/xalloc.h"
#include "symbolize/internal.h"

#ifdef PROF_HAVE_LZMA
#include <lzma.h>

/* The decompressed xz stream xz[0..len), its size in *outlen; NULL if broken. */
static unsigned char *unxz(const unsigned char *xz, size_t len, size_t *outlen)
{
	lzma_stream st = LZMA_STREAM_INIT;
	size_t cap = len * 4 + 4096;
	unsigned char *out = xmalloc(cap);
	lzma_ret r;

	if (lzma_stream_decoder(&st, UINT64_MAX, 0) != LZMA_OK) {
		free(out);
		return NULL;
	}
	st.next_in = xz;
	st.avail_in = len;
	st.next_out = out;
	st.avail_out = cap;
	while ((r = lzma_code(&st, LZMA_FINISH)) == LZMA_OK) {
		if (st.avail_out == 0) {
			out = xrealloc(out, cap * 2);
			st.next_out = out + cap;
			st.avail_out = cap;
			cap *= 2;
		} else if (st.avail_in == 0) {
			break;
		}
	}
	*outlen = cap - st.avail_out;
	lzma_end(&st);
	if (r != LZMA_STREAM_END) {
		free(out);
		return NULL;
	}
	return out;
}

Elf *prof_sym_minidebug_open(const void *xz, size_t len, void **buf)
{
	size_t n;
	unsigned char *data = unxz(xz, len, &n);
	Elf *e;

	*buf = NULL;
	if (!data)
		return NULL;
	e = elf_memory((char *)data, n);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		if (e)
			elf_end(e);
		free(data);
		return NULL;
	}
	*buf = data;
	return e;
}

#else

Elf *prof_sym_minidebug_open(const void *xz, size_t len, void **buf)
{
	(void)xz;
	(void)len;
	*buf = NULL;
	return NULL;
}

#endif
