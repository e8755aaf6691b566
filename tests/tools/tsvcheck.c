/*
 * tsvcheck: validate TSV files against a proftools schema (tests only).
 *   tsvcheck SCHEMA [FILE...]   exit 0 when valid, 1 when not, 2 on usage
 *   tsvcheck -l                 list the schemas
 */
#include <stdio.h>
#include <string.h>
#include "base/error.h"
#include "io/input.h"
#include "formats/tsv.h"

int main(int argc, char **argv)
{
	const struct prof_tsv_schema *s;
	int i, rval = PROF_EXIT_OK;

	prof_set_progname(argv[0]);
	if (argc >= 2 && strcmp(argv[1], "-l") == 0) {
		for (i = 0; prof_tsv_schemas[i]; i++)
			printf("%s\t%s", prof_tsv_schemas[i]->name,
			       prof_tsv_header(prof_tsv_schemas[i]));
		return prof_close_stdout();
	}
	if (argc < 2)
		prof_usage_error("tsvcheck SCHEMA [FILE...] | tsvcheck -l", NULL);
	s = prof_tsv_schema_find(argv[1]);
	if (!s)
		prof_usage_error("tsvcheck SCHEMA [FILE...] | tsvcheck -l",
				 "unknown schema '%s'", argv[1]);
	for (i = 2; i < argc || i == 2; i++) {
		const char *path = i < argc ? argv[i] : "-";
		struct prof_lines *lr = prof_lines_open(path);

		if (!lr || prof_tsv_validate(lr, s))
			rval = PROF_EXIT_FAIL;
		prof_lines_close(lr);
	}
	return rval;
}
