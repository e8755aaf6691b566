#ifndef PROF_ANNOTATE_DISASM_H
#define PROF_ANNOTATE_DISASM_H
/*
 * Disassembly with capstone (x86-64 and AArch64), in detail mode: the one
 * place proftools calls capstone (profannotate links it, no other tool).
 * Built without capstone (it is optional, lib/annotate/annotate.mk),
 * prof_disasm_open() fails with the reason.
 */
#include <stddef.h>
#include <stdint.h>

struct prof_disasm;
struct cs_insn;

/*
 * A disassembler for ELF machine e_machine. Returns it, or NULL with
 * the reason in err[0..errlen) (machine not supported, built without
 * capstone).
 */
struct prof_disasm *prof_disasm_open(unsigned e_machine, char *err, size_t errlen);

/* Free it (NULL ignored). */
void prof_disasm_close(struct prof_disasm *d);

/* Whether the disassembler decodes x86 (else AArch64). */
int prof_disasm_is_x86(const struct prof_disasm *d);

/*
 * Decode code[0..size), whose first byte is at address addr, calling
 * fn(ctx, insn) for each instruction in order (insn is valid during the
 * call; its detail filled). An undecodable byte is skipped (fn gets
 * NULL, addr of the byte). Returns the number of instructions decoded.
 */
size_t prof_disasm_each(struct prof_disasm *d, const unsigned char *code, size_t size,
			uint64_t addr, void (*fn)(void *ctx, const struct cs_insn *insn,
						  uint64_t addr), void *ctx);

#endif
