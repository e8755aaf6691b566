/*
 * profannotate --simd: a table of the functions' counts (simd.h).
 */
#include <stdio.h>
#include <string.h>

#include "annotate/disasm.h"
#include "annotate/simd.h"
#include "base/error.h"
#include "formats/tsv.h"
#include "io/output.h"
#include "symbolize/elfcode.h"

static void write_row(struct prof_output *out, const char *name,
		      const struct prof_simd_counts *k, int human)
{
	if (human) {
		prof_output_printf(out, "%-32s %8lu %8lu %6lu %6lu %6lu %7lu %6lu %5lu %6u\n", name,
				   k->instructions, k->isa[PROF_SIMD_SCALAR], k->isa[PROF_SIMD_SSE],
				   k->isa[PROF_SIMD_AVX], k->isa[PROF_SIMD_AVX2],
				   k->isa[PROF_SIMD_AVX512], k->isa[PROF_SIMD_NEON],
				   k->isa[PROF_SIMD_SVE], k->widest_bits);
		return;
	}
	prof_output_printf(out, "%s\t%lu\t%lu\t%lu\t%lu\t%lu\t%lu\t%lu\t%lu\t%u\n", name,
			   k->instructions, k->isa[PROF_SIMD_SCALAR], k->isa[PROF_SIMD_SSE],
			   k->isa[PROF_SIMD_AVX], k->isa[PROF_SIMD_AVX2], k->isa[PROF_SIMD_AVX512],
			   k->isa[PROF_SIMD_NEON], k->isa[PROF_SIMD_SVE], k->widest_bits);
}

/* Count one function and write its row; 1 when it falls short of required_bits. */
static int report_func(struct prof_elfcode *c, struct prof_disasm *d,
		       const struct prof_elfcode_func *f, int human, int required_bits,
		       struct prof_output *out)
{
	const unsigned char *code = prof_elfcode_bytes(c, f->addr, f->size);
	struct prof_simd_counts k;

	if (!code)	/* .bss or a symbol past the file's contents */
		return 0;
	prof_simd_count(d, code, (size_t)f->size, f->addr, &k);
	write_row(out, f->name, &k, human);
	if (required_bits > 0 && k.widest_bits < (unsigned)required_bits) {
		prof_warn("%s: no %d-bit vector instruction (widest: %u bits)", f->name,
			  required_bits, k.widest_bits);
		return 1;
	}
	return 0;
}

/* Whether the binary has functions and every one named; -1 after reporting. */
static int check_symbols(struct prof_elfcode *c, const char *binary, const char *const *syms,
			 size_t nsyms)
{
	size_t n;
	int rc = 0;

	prof_elfcode_funcs(c, &n);
	if (!n) {
		prof_warn("%s: no function symbols (stripped binary?)", binary);
		return -1;
	}
	for (size_t i = 0; i < nsyms; i++) {
		if (!prof_elfcode_find(c, syms[i])) {
			prof_warn("%s: no function '%s'%s", binary, syms[i],
				  prof_elfcode_has_symtab(c) ? "" : " (stripped binary: no .symtab)");
			rc = -1;
		}
	}
	return rc;
}

int prof_simd_report(const char *binary, const char *const *syms, size_t nsyms, int human,
		     int required_bits, struct prof_output *out)
{
	char err[256];
	struct prof_elfcode *c = prof_elfcode_open(binary, err, sizeof(err));
	struct prof_disasm *d = NULL;
	const struct prof_elfcode_func *funcs;
	size_t n;
	int rc = 0;

	if (!c) {
		prof_warn("%s: %s", binary, err);
		return -1;
	}
	if (check_symbols(c, binary, syms, nsyms) != 0) {
		prof_elfcode_close(c);
		return -1;
	}
	d = prof_disasm_open(prof_elfcode_machine(c), err, sizeof(err));
	if (!d) {
		prof_warn("%s: %s", binary, err);
		prof_elfcode_close(c);
		return -1;
	}
	if (human)
		prof_output_printf(out, "%-32s %8s %8s %6s %6s %6s %7s %6s %5s %6s\n", "function",
				   "insns", "scalar", "sse", "avx", "avx2", "avx512", "neon", "sve",
				   "widest");
	else
		prof_output_puts(out, prof_tsv_header(prof_tsv_schema_find("profannotate-simd")));
	funcs = prof_elfcode_funcs(c, &n);
	for (size_t i = 0; i < (nsyms ? nsyms : n); i++)
		rc |= report_func(c, d, nsyms ? prof_elfcode_find(c, syms[i]) : &funcs[i], human,
				  required_bits, out);
	prof_disasm_close(d);
	prof_elfcode_close(c);
	return rc;
}
