/*
 * profheap's suppression files (heap/suppressions.h): a file loaded
 * (after the built-in patterns), then each of its lines matched as a
 * frame name against the set and as a pattern against the other lines.
 */
#include "heap/suppressions.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prof_heap_supp s;
	char *text = fuzz_cstr(data, size), *lines[8];
	size_t n = 0;

	memset(&s, 0, sizeof(s));
	prof_heap_supp_add_builtin(&s);
	prof_heap_supp_load(&s, fuzz_file(data, size));
	for (char *p = text, *nl; n < 8 && p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		lines[n++] = p;
	}
	for (size_t i = 0; i < n; i++) {
		prof_heap_supp_match(&s, lines[i]);
		prof_heap_runtime_object(lines[i]);
		for (size_t j = 0; j < n; j++)
			prof_heap_supp_template_match(lines[i], lines[j]);
	}
	prof_heap_supp_release(&s);
	free(text);
	return 0;
}
