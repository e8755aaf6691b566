#ifndef PROF_ANNOTATE_DISASM_H
#define PROF_ANNOTATE_DISASM_H
/*
 * Disassembly with capstone (x86-64 and AArch64), in detail mode: the one
 * place proftools calls capstone (profannotate links it, no other tool;
 * the build requires it).
 */
#include <stddef.h>
#include <stdint.h>

struct prof_disasm;
struct cs_insn;

/*
 * A disassembler for ELF machine e_machine. Returns it, or NULL with
 * the reason in err[0..errlen) (machine not supported, capstone
 * failed).
 */
struct prof_disasm *prof_disasm_open(unsigned e_machine, char *err, size_t errlen);

/* Free it (NULL ignored). */
void prof_disasm_close(struct prof_disasm *d);

/* Whether the disassembler decodes x86 (else AArch64). */
int prof_disasm_is_x86(const struct prof_disasm *d);

/*
 * What prof_disasm_each() could not decode in one function: capstone 4
 * knows no SVE (AArch64), nor instructions newer than itself, nor data
 * laid in code.
 */
struct prof_disasm_gap {
	uint64_t bytes;		/* bytes not decoded; 0: all were */
	uint64_t first;		/* the address of the first of them */
};

/*
 * Decode code[0..size), whose first byte is at address addr, calling
 * fn(ctx, insn) for each instruction in order (insn is valid during the
 * call; its detail filled). Where capstone cannot decode, one
 * instruction's worth is stepped over (4 bytes on AArch64, whose
 * instructions all are 4 bytes; 1 on x86) and decoding goes on: fn gets
 * NULL and the address of what was stepped over, and *gap counts it.
 * Returns the number of instructions decoded.
 */
size_t prof_disasm_each(struct prof_disasm *d, const unsigned char *code, size_t size,
			uint64_t addr, void (*fn)(void *ctx, const struct cs_insn *insn,
						  uint64_t addr), void *ctx,
			struct prof_disasm_gap *gap);

/*
 * Say once, for function func of file, what gap could not be decoded:
 * "prog: file: func: N bytes could not be decoded, the first at 0xADDR
 * (capstone M.N)", adding "; SVE needs capstone 5" on AArch64 under
 * capstone 4. Nothing when gap is empty.
 */
void prof_disasm_warn_gap(const struct prof_disasm *d, const char *file, const char *func,
			  const struct prof_disasm_gap *gap);

#endif
