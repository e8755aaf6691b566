/*
 * capstone behind disasm.h.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotate/disasm.h"
#include "base/error.h"
#include "base/xalloc.h"

#include <capstone/capstone.h>

struct prof_disasm {
	csh handle;
	int x86;
};

struct prof_disasm *prof_disasm_open(unsigned e_machine, char *err, size_t errlen)
{
	struct prof_disasm *d;
	cs_arch arch;
	cs_mode mode;

	if (e_machine == EM_X86_64) {
		arch = CS_ARCH_X86;
		mode = CS_MODE_64;
	} else if (e_machine == EM_AARCH64) {
		arch = CS_ARCH_ARM64;
		mode = CS_MODE_LITTLE_ENDIAN;
	} else {
		snprintf(err, errlen, "machine %u is not supported (x86-64 and AArch64 are)",
			 e_machine);
		return NULL;
	}
	d = xcalloc(1, sizeof(*d));
	d->x86 = arch == CS_ARCH_X86;
	if (cs_open(arch, mode, &d->handle) != CS_ERR_OK ||
	    cs_option(d->handle, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK) {
		snprintf(err, errlen, "capstone cannot decode this machine");
		free(d);
		return NULL;
	}
	return d;
}

void prof_disasm_close(struct prof_disasm *d)
{
	if (!d)
		return;
	cs_close(&d->handle);
	free(d);
}

size_t prof_disasm_each(struct prof_disasm *d, const unsigned char *code, size_t size,
			uint64_t addr, void (*fn)(void *ctx, const struct cs_insn *insn,
						  uint64_t addr), void *ctx,
			struct prof_disasm_gap *gap)
{
	cs_insn *insn = cs_malloc(d->handle);
	const uint8_t *p = code;
	size_t left = size, n = 0, step;
	uint64_t a = addr;

	memset(gap, 0, sizeof(*gap));
	while (left) {
		if (cs_disasm_iter(d->handle, &p, &left, &a, insn)) {
			fn(ctx, insn, insn->address);
			n++;
			continue;
		}
		/* undecodable: step over one instruction's worth, decode the rest */
		step = d->x86 ? 1 : 4;
		step = step < left ? step : left;
		fn(ctx, NULL, a);
		if (!gap->bytes)
			gap->first = a;
		gap->bytes += step;
		p += step;
		left -= step;
		a += step;
	}
	cs_free(insn, 1);
	return n;
}

void prof_disasm_warn_gap(const struct prof_disasm *d, const char *file, const char *func,
			  const struct prof_disasm_gap *gap)
{
	int major, minor;

	if (!gap->bytes)
		return;
	cs_version(&major, &minor);
	prof_warn("%s: %s: %llu byte%s could not be decoded, the first at 0x%llx (capstone %d.%d%s)",
		  file, func, (unsigned long long)gap->bytes, gap->bytes == 1 ? "" : "s",
		  (unsigned long long)gap->first, major, minor,
		  !d->x86 && major < 5 ? "; SVE needs capstone 5" : "");
}

int prof_disasm_is_x86(const struct prof_disasm *d)
{
	return d->x86;
}
