/*
 * profcmp's table reader (compare/table.h): a TSV or "name value" list
 * read as a table, then compared with itself halved (the first half of
 * its rows as the base) the way profcmp compares two tables.
 */
#include "compare/table.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prof_table_compare_opts opts;
	struct prof_table t, half;
	struct prof_table_change *c = NULL;
	unsigned long bad = 0;
	size_t n = 0;
	const char *path = fuzz_file(data, size);

	prof_table_looks_like(path);
	memset(&t, 0, sizeof(t));
	if (prof_table_read(path, &t, &bad) != 0) {
		prof_table_release(&t);
		return 0;
	}
	half = t;
	half.nrows = t.nrows / 2;
	memset(&opts, 0, sizeof(opts));
	if (prof_table_compare(&half, &t, &opts, &c, &n) == 0)
		prof_table_changes_free(c, n);
	prof_table_release(&t);
	return 0;
}
