#ifndef PROF_ANNOTATE_SIMD_H
#define PROF_ANNOTATE_SIMD_H
/*
 * Did a build vectorise? Per function, its instructions counted as
 * scalar or by vector extension, from capstone's instruction groups and
 * operand registers (profannotate --simd):
 *  - x86: an instruction with an xmm, ymm or zmm operand is a vector
 *    instruction of that width, of AVX-512 (group AVX512 or a zmm
 *    operand), AVX2 (group AVX2), AVX (groups AVX, FMA, F16C) or SSE;
 *    except scalar floating point (addss, vmulsd, cvtsi2sd, movd ...:
 *    xmm operands, one element), counted as scalar, as is every other
 *    instruction.
 *  - AArch64: an instruction with a vector-arranged operand (v0.4s) is
 *    NEON, 64 or 128 bits wide; capstone 4 does not decode SVE, so the
 *    sve count stays 0 there: SVE instructions are undecoded bytes,
 *    which the counts and the report name (disasm.h), never scalar.
 */
#include <stddef.h>
#include <stdint.h>

#include "annotate/disasm.h"

enum prof_simd_isa {
	PROF_SIMD_SCALAR, PROF_SIMD_SSE, PROF_SIMD_AVX, PROF_SIMD_AVX2, PROF_SIMD_AVX512,
	PROF_SIMD_NEON, PROF_SIMD_SVE, PROF_SIMD_NISA
};

struct prof_simd_counts {
	unsigned long instructions;
	unsigned long isa[PROF_SIMD_NISA];	/* instructions of each class */
	struct prof_disasm_gap undecoded;	/* what capstone could not decode:
						 * not counted as instructions */
	unsigned widest_bits;			/* widest vector operand; 0: none */
};

/* The lower-case name of an isa ("scalar", "sse", "avx2", "neon" ...). */
const char *prof_simd_isa_name(enum prof_simd_isa isa);

/*
 * Count code[0..size) (first byte at addr) into *out (zeroed first)
 * with disassembler d.
 */
void prof_simd_count(struct prof_disasm *d, const unsigned char *code, size_t size,
		     uint64_t addr, struct prof_simd_counts *out);

/*
 * The vector width in bits a --require name asks for: "sse" and "neon"
 * 128, "avx" and "avx2" 256, "avx512" 512, "sve" 128; -1 when unknown.
 */
int prof_simd_required_bits(const char *name);

struct prof_output;

/*
 * profannotate --simd: the counts of the functions of the ELF file
 * binary that syms[0..nsyms) name (nsyms 0: every function of its
 * symbol table) written to out, TSV (schema "profannotate-simd",
 * prof-formats.5) or aligned text when human. Functions are shown by
 * their demangled C++ or Rust names unless no_demangle is set; a symbol
 * names each function whose mangled or demangled name it is
 * (prof_elfcode_find_named()). A function with bytes capstone could not
 * decode is said on stderr (prof_disasm_warn_gap()), its undecoded_bytes
 * column not 0. When required_bits > 0, each function whose widest
 * decoded vector instruction is narrower is named on stderr (with its
 * undecoded bytes, which could hold wider ones: it fails all the same).
 * Returns 0, 1 when a function fell short of required_bits, or -1 after
 * reporting "prog: binary: why" (not ELF, truncated, no such
 * symbol, stripped, machine or capstone missing).
 */
int prof_simd_report(const char *binary, const char *const *syms, size_t nsyms, int human,
		     int no_demangle, int required_bits, struct prof_output *out);

#endif
