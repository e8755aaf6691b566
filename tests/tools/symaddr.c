/*
 * symaddr: the symbolizer's frames for ELF addresses of one file, for the
 * tests that compare its names with objdump's, llvm-dwarfdump's and
 * addr2line's.
 *
 *   symaddr [-c] [-l] FILE [VADDR...]
 *
 * Each VADDR (hex, with or without 0x; read from standard input, one per
 * line, when none is given) is an address as nm and objdump print it.
 * FILE is mapped whole at a fixed base, as one executable mapping, so an
 * address is looked up at BASE + its file offset. Prints one line per
 * address: "VADDR<TAB>frames<TAB>flags", the frames outermost first
 * separated by ';' (the real function, then its inlined calls, as
 * folded stacks read), flags the innermost frame's PROF_FRAME_* in hex.
 * Each address is accounted as one sample (prof_symbolizer_account()),
 * and the naming report, if any, ends standard error. -c uses the
 * persistent cache (XDG_CACHE_HOME), off otherwise. -l asks for
 * file:line (opts.lines) and prints the innermost frame's as a fourth
 * column, "FILE:LINE" (empty when none).
 * Exit 1 when FILE is no ELF file or an address is in no segment.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "base/error.h"
#include "symbolize/elfcode.h"
#include "symbolize/symbolize.h"

#define BASE 0x555555554000ull

static int lines;

static int one(struct prof_symbolizer *s, struct prof_addrspace *as,
	       const struct prof_elfcode *c, const char *arg)
{
	struct prof_frame fr[64];
	uint64_t vaddr, off;
	char *end;
	size_t n;

	vaddr = strtoull(arg, &end, 16);
	if (end == arg || *end || prof_elfcode_vaddr_to_off(c, vaddr, &off) != 0) {
		fprintf(stderr, "symaddr: %s: not an address of the file\n", arg);
		return 1;
	}
	n = prof_symbolize(s, as, BASE + off, 0, fr, 64);
	prof_symbolizer_account(s, as, BASE + off, 0, 1);
	printf("%llx\t", (unsigned long long)vaddr);
	for (size_t i = n; i-- > 0;)
		printf("%s%s", fr[i].name, i ? ";" : "");
	printf("\t%x", n ? fr[0].flags : 0);
	if (lines && n && fr[0].file)
		printf("\t%s:%u", fr[0].file, fr[0].line);
	else if (lines)
		printf("\t");
	printf("\n");
	return 0;
}

int main(int argc, char **argv)
{
	struct prof_symbolizer *s;
	struct prof_addrspace *as;
	struct prof_elfcode *c;
	struct prof_map m;
	struct prof_sym_options opts;
	char err[256], line[128], *path;
	int rc = 0, cache = 0;

	prof_set_progname(argv[0]);
	while (argc > 1 && (strcmp(argv[1], "-c") == 0 || strcmp(argv[1], "-l") == 0)) {
		if (argv[1][1] == 'c')
			cache = 1;
		else
			lines = 1;
		argv++;
		argc--;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: symaddr [-c] [-l] FILE [VADDR...]\n");
		return 2;
	}
	/* The symbolizer takes only absolute paths for files (others are pseudo-mappings). */
	path = realpath(argv[1], NULL);
	c = path ? prof_elfcode_open(path, err, sizeof(err)) : NULL;
	if (!c) {
		if (!path)
			snprintf(err, sizeof(err), "no such file");
		fprintf(stderr, "symaddr: %s: %s\n", argv[1], err);
		return 1;
	}
	if (!cache)
		setenv("PROFTOOLS_NO_CACHE", "1", 1);
	prof_sym_options_init(&opts);
	opts.lines = lines;
	s = prof_symbolizer_new(&opts);
	as = prof_addrspace_new(s, 0);
	memset(&m, 0, sizeof(m));
	m.start = BASE;
	m.end = BASE + (1ull << 32);
	m.path = path;
	m.prot = PROT_READ | PROT_EXEC;
	prof_addrspace_add_map(as, &m);
	if (argc > 2) {
		for (int i = 2; i < argc; i++)
			rc |= one(s, as, c, argv[i]);
	} else {
		while (fgets(line, sizeof(line), stdin)) {
			line[strcspn(line, "\n")] = 0;
			if (line[0])
				rc |= one(s, as, c, line);
		}
	}
	prof_symbolizer_naming_report(s, "samples");
	prof_addrspace_free(as);
	prof_symbolizer_free(s);
	prof_elfcode_close(c);
	free(path);
	return rc;
}
