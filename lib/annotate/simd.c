/*
 * Scalar or vector, instruction by instruction (simd.h).
 */
#include <string.h>

#include "annotate/disasm.h"
#include "annotate/simd.h"

static const char *const isa_names[PROF_SIMD_NISA] = {
	"scalar", "sse", "avx", "avx2", "avx512", "neon", "sve",
};

const char *prof_simd_isa_name(enum prof_simd_isa isa)
{
	return isa < PROF_SIMD_NISA ? isa_names[isa] : "?";
}

int prof_simd_required_bits(const char *name)
{
	static const struct { const char *name; int bits; } req[] = {
		{ "sse", 128 }, { "neon", 128 }, { "sve", 128 },
		{ "avx", 256 }, { "avx2", 256 }, { "avx512", 512 },
	};

	for (size_t i = 0; i < sizeof(req) / sizeof(req[0]); i++)
		if (strcmp(name, req[i].name) == 0)
			return req[i].bits;
	return -1;
}

#include <capstone/capstone.h>

static int has_group(const cs_insn *insn, unsigned g)
{
	for (unsigned i = 0; i < insn->detail->groups_count; i++)
		if (insn->detail->groups[i] == g)
			return 1;
	return 0;
}

static unsigned x86_reg_bits(unsigned r)
{
	if (r >= X86_REG_XMM0 && r <= X86_REG_XMM31)
		return 128;
	if (r >= X86_REG_YMM0 && r <= X86_REG_YMM31)
		return 256;
	if (r >= X86_REG_ZMM0 && r <= X86_REG_ZMM31)
		return 512;
	return 0;
}

/*
 * Scalar floating point on xmm registers: one element, whatever the
 * register (addss, vmulsd, cvtsi2sd, cvttsd2si, movd, vmovq, comiss ...).
 */
static int x86_scalar_fp(const char *m)
{
	size_t n = strlen(m);

	if (n >= 2 && (strcmp(m + n - 2, "ss") == 0 || strcmp(m + n - 2, "sd") == 0))
		return strcmp(m, "vbroadcastss") != 0 && strcmp(m, "vbroadcastsd") != 0;
	return strstr(m, "2si") || strstr(m, "2ss") || strstr(m, "2sd") ||
	       strcmp(m, "movd") == 0 || strcmp(m, "movq") == 0 || strcmp(m, "vmovd") == 0 ||
	       strcmp(m, "vmovq") == 0;
}

static enum prof_simd_isa x86_class(const cs_insn *insn, unsigned *bits)
{
	const cs_x86 *x = &insn->detail->x86;
	unsigned w = 0;

	for (unsigned i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_REG && x86_reg_bits(x->operands[i].reg) > w)
			w = x86_reg_bits(x->operands[i].reg);
	*bits = 0;
	if (!w || (w == 128 && x86_scalar_fp(insn->mnemonic)))
		return PROF_SIMD_SCALAR;
	*bits = w;
	if (w == 512 || has_group(insn, X86_GRP_AVX512))
		return PROF_SIMD_AVX512;
	if (has_group(insn, X86_GRP_AVX2))
		return PROF_SIMD_AVX2;
	if (has_group(insn, X86_GRP_AVX) || has_group(insn, X86_GRP_FMA) ||
	    has_group(insn, X86_GRP_F16C) || insn->mnemonic[0] == 'v')
		return PROF_SIMD_AVX;
	return PROF_SIMD_SSE;
}

static enum prof_simd_isa arm64_class(const cs_insn *insn, unsigned *bits)
{
	const cs_arm64 *a = &insn->detail->arm64;

	*bits = 0;
	for (unsigned i = 0; i < a->op_count; i++) {
		arm64_vas v = a->operands[i].vas;
		unsigned w;

		if (v == ARM64_VAS_INVALID)
			continue;
		w = v == ARM64_VAS_8B || v == ARM64_VAS_4H || v == ARM64_VAS_2S ||
		    v == ARM64_VAS_1D ? 64 : 128;
		if (w > *bits)
			*bits = w;
	}
	return *bits ? PROF_SIMD_NEON : PROF_SIMD_SCALAR;
}

struct count_ctx {
	struct prof_simd_counts *out;
	int x86;
};

static void count_insn(void *ctx, const cs_insn *insn, uint64_t addr)
{
	struct count_ctx *c = ctx;
	enum prof_simd_isa isa;
	unsigned bits;

	(void)addr;
	if (!insn)	/* counted by prof_disasm_each() */
		return;
	isa = c->x86 ? x86_class(insn, &bits) : arm64_class(insn, &bits);
	c->out->instructions++;
	c->out->isa[isa]++;
	if (bits > c->out->widest_bits)
		c->out->widest_bits = bits;
}

void prof_simd_count(struct prof_disasm *d, const unsigned char *code, size_t size,
		     uint64_t addr, struct prof_simd_counts *out)
{
	struct count_ctx c = { out, prof_disasm_is_x86(d) };

	memset(out, 0, sizeof(*out));
	prof_disasm_each(d, code, size, addr, count_insn, &c, &out->undecoded);
}
