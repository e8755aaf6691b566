/*
 * annotate/simd: instructions assembled by hand, classified as scalar or
 * by vector extension and width (scalar SSE such as addss is scalar);
 * the widths --require names.
 */
#include <elf.h>
#include <stdio.h>
#include <string.h>
#include "annotate/disasm.h"
#include "annotate/simd.h"
#include "../unit.h"

/* The counts of code on machine m. */
static struct prof_simd_counts count(unsigned m, const unsigned char *code, size_t n)
{
	struct prof_simd_counts k;
	char err[128];
	struct prof_disasm *d = prof_disasm_open(m, err, sizeof(err));

	memset(&k, 0, sizeof(k));
	if (d) {
		prof_simd_count(d, code, n, 0x1000, &k);
		prof_disasm_close(d);
	}
	return k;
}

#define COUNT(m, ...) ({ static const unsigned char c_[] = { __VA_ARGS__ }; count(m, c_, sizeof(c_)); })

int main(void)
{
	struct prof_simd_counts k;
	char err[128];
	struct prof_disasm *d = prof_disasm_open(EM_X86_64, err, sizeof(err));

	if (!d) {
		printf("SKIP test_simd.c: %s\n", err);
		return 0;
	}
	prof_disasm_close(d);
	TEST("x86 general-purpose and scalar SSE (addss, cvtsi2sd, movq) are scalar") {
		k = COUNT(EM_X86_64, 0x01, 0xd8,	/* add eax, ebx */
			  0xf3, 0x0f, 0x58, 0xc1,	/* addss xmm0, xmm1 */
			  0xf2, 0x48, 0x0f, 0x2a, 0xc0,	/* cvtsi2sd xmm0, rax */
			  0x66, 0x48, 0x0f, 0x6e, 0xc0);	/* movq xmm0, rax */
		CHECK(k.instructions == 4 && k.isa[PROF_SIMD_SCALAR] == 4 && k.widest_bits == 0);
	}
	TEST("addps: SSE, 128 bits") {
		k = COUNT(EM_X86_64, 0x0f, 0x58, 0xc1);
		CHECK(k.isa[PROF_SIMD_SSE] == 1 && k.widest_bits == 128);
	}
	TEST("vaddps ymm: AVX 256; vpaddd ymm: AVX2 256") {
		k = COUNT(EM_X86_64, 0xc5, 0xf4, 0x58, 0xc2, 0xc5, 0xf5, 0xfe, 0xc2);
		CHECK(k.isa[PROF_SIMD_AVX] == 1 && k.isa[PROF_SIMD_AVX2] == 1 && k.widest_bits == 256);
	}
	TEST("vaddps zmm: AVX-512, 512 bits") {
		k = COUNT(EM_X86_64, 0x62, 0xf1, 0x74, 0x48, 0x58, 0xc2);
		CHECK(k.isa[PROF_SIMD_AVX512] == 1 && k.widest_bits == 512);
	}
	TEST("AArch64: add v0.4s is NEON 128 bits, fadd s0 scalar") {
		k = COUNT(EM_AARCH64, 0x20, 0x84, 0xa2, 0x4e, 0x20, 0x28, 0x22, 0x1e);
		CHECK(k.instructions == 2 && k.isa[PROF_SIMD_NEON] == 1 &&
		      k.isa[PROF_SIMD_SCALAR] == 1 && k.widest_bits == 128);
	}
	TEST("undecodable bytes are counted apart, the rest decoded") {
		/* ud2, an opcode invalid in 64-bit mode, add eax, ebx */
		k = COUNT(EM_X86_64, 0x0f, 0x0b, 0x06, 0x01, 0xd8);
		CHECK(k.instructions == 2 && k.undecoded.bytes == 1 && k.undecoded.first == 0x1002);
	}
	TEST("AArch64: SVE between NEON and scalar (capstone 4: 8 bytes undecoded)") {
		k = COUNT(EM_AARCH64, 0x20, 0x84, 0xa2, 0x4e,	/* add v0.4s, v1.4s, v2.4s */
			  0x20, 0x40, 0x4b, 0xa5,		/* ld1w { z0.s }, p0/z, [x1, x11, lsl #2] */
			  0x20, 0x00, 0xa0, 0x04,		/* add z0.s, z1.s, z0.s */
			  0x20, 0x28, 0x22, 0x1e);		/* fadd s0, s1, s2 */
		/* capstone 5 decodes SVE: then nothing is left undecoded */
		CHECK(k.isa[PROF_SIMD_NEON] == 1 && k.isa[PROF_SIMD_SCALAR] >= 1 &&
		      ((k.instructions == 2 && k.undecoded.bytes == 8 && k.undecoded.first == 0x1004) ||
		       (k.instructions == 4 && k.undecoded.bytes == 0)));
	}
	TEST("--require widths; unknown names refused") {
		CHECK(prof_simd_required_bits("avx2") == 256 && prof_simd_required_bits("avx512") == 512);
		CHECK(prof_simd_required_bits("sse") == 128 && prof_simd_required_bits("neon") == 128);
		CHECK(prof_simd_required_bits("mmx") == -1);
		CHECK_STR(prof_simd_isa_name(PROF_SIMD_AVX512), "avx512");
	}
	TEST("a machine other than x86-64 and AArch64 is refused, said") {
		CHECK(prof_disasm_open(EM_PPC64, err, sizeof(err)) == NULL && strstr(err, "not supported"));
	}
	return UNIT_RESULT();
}
