/*
 * The TSV readers (formats/tsv.h): a stream validated against one of
 * every tool's schemas (tsv_schemas.c, picked by the first byte), and
 * the splitting and value checks on each line.
 */
#include "formats/tsv.h"
#include "io/input.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct prof_tsv_schema *s;
	struct prof_lines *lr;
	size_t nschemas = 0, len;
	char *line, *fields[16];

	if (size < 1)
		return 0;
	while (prof_tsv_schemas[nschemas])
		nschemas++;
	s = prof_tsv_schemas[data[0] % nschemas];
	lr = prof_lines_from_mem("fuzz", (const char *)data + 1, size - 1);
	prof_tsv_validate(lr, s);
	prof_lines_close(lr);
	/* the pieces on their own: split, then each field as each type */
	lr = prof_lines_from_mem("fuzz", (const char *)data + 1, size - 1);
	while ((line = prof_lines_next(lr, &len)) != NULL) {
		size_t n = prof_tsv_split(line, len, fields, 16);

		for (size_t i = 0; i < n && i < 16; i++)
			prof_tsv_valid_value((enum prof_tsv_type)(i % 5), fields[i]);
	}
	prof_lines_close(lr);
	return 0;
}
