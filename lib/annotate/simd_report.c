/*
 * profannotate --simd: a table of the functions' counts (simd.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotate/disasm.h"
#include "annotate/simd.h"
#include "base/demangle.h"
#include "base/error.h"
#include "formats/tsv.h"
#include "io/output.h"
#include "symbolize/elfcode.h"

static void write_row(struct prof_output *out, const char *name,
		      const struct prof_simd_counts *k, int human)
{
	if (human) {
		prof_output_printf(out, "%-32s %8lu %8lu %6lu %6lu %6lu %7lu %6lu %5lu %6u %9llu\n",
				   name, k->instructions, k->isa[PROF_SIMD_SCALAR],
				   k->isa[PROF_SIMD_SSE], k->isa[PROF_SIMD_AVX],
				   k->isa[PROF_SIMD_AVX2], k->isa[PROF_SIMD_AVX512],
				   k->isa[PROF_SIMD_NEON], k->isa[PROF_SIMD_SVE], k->widest_bits,
				   (unsigned long long)k->undecoded.bytes);
		return;
	}
	prof_output_printf(out, "%s\t%lu\t%lu\t%lu\t%lu\t%lu\t%lu\t%lu\t%lu\t%u\t%llu\n", name,
			   k->instructions, k->isa[PROF_SIMD_SCALAR], k->isa[PROF_SIMD_SSE],
			   k->isa[PROF_SIMD_AVX], k->isa[PROF_SIMD_AVX2], k->isa[PROF_SIMD_AVX512],
			   k->isa[PROF_SIMD_NEON], k->isa[PROF_SIMD_SVE], k->widest_bits,
			   (unsigned long long)k->undecoded.bytes);
}

/* What a report asks for. */
struct simd_job {
	const char *binary;
	struct prof_elfcode *c;
	struct prof_disasm *d;
	int human, no_demangle, required_bits;
	struct prof_output *out;
};

/*
 * Count one function and write its row; 1 when it falls short of
 * required_bits, or when its code is not in the file (a symbol whose value
 * or size points past the file's contents, or into .bss) and it was named
 * or a width required: a gate must not pass on a function it could not
 * read. Such a function is left out silently only from a table of all.
 */
static int report_func(const struct simd_job *j, const struct prof_elfcode_func *f, int named)
{
	const unsigned char *code = prof_elfcode_bytes(j->c, f->addr, f->size);
	struct prof_simd_counts k;
	char *name, undecoded[64] = "";
	int rc = 0;

	if (!code) {
		if (!named && j->required_bits <= 0)
			return 0;
		name = prof_demangle_shown(f->name, j->no_demangle);
		prof_warn("%s: %s: its code (%#llx, %llu bytes) is not in the file's contents "
			  "(symbol value or size outside the file): not checked", j->binary, name,
			  (unsigned long long)f->addr, (unsigned long long)f->size);
		free(name);
		return 1;
	}
	prof_simd_count(j->d, code, (size_t)f->size, f->addr, &k);
	name = prof_demangle_shown(f->name, j->no_demangle);
	write_row(j->out, name, &k, j->human);
	prof_disasm_warn_gap(j->d, j->binary, name, &k.undecoded);
	if (j->required_bits > 0 && k.widest_bits < (unsigned)j->required_bits) {
		/* undecoded bytes could hold wider ones; still short of what was proven */
		if (k.undecoded.bytes)
			snprintf(undecoded, sizeof(undecoded), "; %llu bytes not decoded",
				 (unsigned long long)k.undecoded.bytes);
		prof_warn("%s: no %d-bit vector instruction (widest: %u bits%s)", name,
			  j->required_bits, k.widest_bits, undecoded);
		rc = 1;
	}
	free(name);
	return rc;
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
		if (!prof_elfcode_find_named(c, syms[i], NULL)) {
			prof_warn("%s: no function '%s'%s", binary, syms[i],
				  prof_elfcode_has_symtab(c) ? "" : " (stripped binary: no .symtab)");
			rc = -1;
		}
	}
	return rc;
}

int prof_simd_report(const char *binary, const char *const *syms, size_t nsyms, int human,
		     int no_demangle, int required_bits, struct prof_output *out)
{
	char err[256];
	struct simd_job j = { binary, NULL, NULL, human, no_demangle, required_bits, out };
	const struct prof_elfcode_func *funcs, *f;
	size_t n;
	int rc = 0;

	if (!(j.c = prof_elfcode_open(binary, err, sizeof(err)))) {
		prof_warn("%s: %s", binary, err);
		return -1;
	}
	if (check_symbols(j.c, binary, syms, nsyms) != 0) {
		prof_elfcode_close(j.c);
		return -1;
	}
	if (!(j.d = prof_disasm_open(prof_elfcode_machine(j.c), err, sizeof(err)))) {
		prof_warn("%s: %s", binary, err);
		prof_elfcode_close(j.c);
		return -1;
	}
	if (human)
		prof_output_printf(out, "%-32s %8s %8s %6s %6s %6s %7s %6s %5s %6s %9s\n", "function",
				   "insns", "scalar", "sse", "avx", "avx2", "avx512", "neon", "sve",
				   "widest", "undecoded");
	else
		prof_output_puts(out, prof_tsv_header(prof_tsv_schema_find("profannotate-simd")));
	funcs = prof_elfcode_funcs(j.c, &n);
	for (size_t i = 0; i < (nsyms ? 0 : n); i++)
		rc |= report_func(&j, &funcs[i], 0);
	for (size_t i = 0; i < nsyms; i++)	/* every function a symbol names */
		for (f = NULL; (f = prof_elfcode_find_named(j.c, syms[i], f)) != NULL;)
			rc |= report_func(&j, f, 1);
	prof_disasm_close(j.d);
	prof_elfcode_close(j.c);
	return rc;
}
