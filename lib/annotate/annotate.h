#ifndef PROF_ANNOTATE_ANNOTATE_H
#define PROF_ANNOTATE_ANNOTATE_H
/*
 * profannotate's report: the hottest functions of a profrec recording
 * (samples.h), each disassembled (disasm.h) from the file the recording
 * names, every instruction with its samples, its share of the
 * function's samples and its source file:line (the symbolizer, with
 * lines on: the only reader of DWARF), the hottest one marked.
 *
 * A file whose build-id differs from the recorded one is refused (it
 * changed since the recording); a file without debug information gives
 * addresses only, said once per file. What capstone cannot decode (SVE
 * under capstone 4) reads "(bad)", an instruction's worth at a time,
 * and is said once per function (prof_disasm_warn_gap()).
 *
 * TSV (schema "profannotate", prof-formats.5): function, file, address
 * (ELF address, hex), samples, percent, hot ("*" on the hottest
 * instruction), source, instruction. Human text: per function a title
 * line, then the instructions, the source line shown when it changes,
 * as perf annotate --stdio does.
 */
#include <stddef.h>

struct prof_output;

/*
 * Annotate the recording at path: the function named symbol (NULL: the
 * top hottest functions) to out. Functions are shown by their demangled
 * C++ or Rust names (base/demangle.h) unless no_demangle is set; symbol
 * may be the mangled or the demangled name either way. Returns 0, or -1 after
 * reporting "prog: what: why".
 */
int prof_annotate_report(const char *path, const char *symbol, size_t top, int human,
			 int no_demangle, struct prof_output *out);

#endif
