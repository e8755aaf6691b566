/*
 * Go's function table (symbolize/gopclntab.c): the input is a .gopclntab
 * section's bytes, read as the symbolizer reads a stripped Go program's:
 * every function's name and bounds, and the file:line of its first and
 * last byte.
 */
#include "symbolize/internal.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prof_gopcln t;
	uint64_t entry, end;
	const char *name, *file;
	unsigned line;

	if (prof_gopcln_parse(&t, data, size, 0x401000) != 0)
		return 0;
	for (uint64_t i = 0; i < t.nfunc && i < 4096; i++) {
		if (prof_gopcln_func(&t, i, &entry, &end, &name) != 0)
			continue;
		if (strlen(name) >= size)
			abort();	/* a name runs past the section */
		prof_gopcln_file_line(&t, entry, &file, &line);
		prof_gopcln_file_line(&t, end - 1, &file, &line);
	}
	return 0;
}
