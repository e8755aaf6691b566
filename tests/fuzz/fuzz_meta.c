/*
 * The "# key=value" metadata reader (core/meta.h): every line parsed into
 * one set, which is then formatted back, queried and its lists split.
 */
#include "base/buf.h"
#include "core/meta.h"
#include "io/input.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prof_lines *lr = prof_lines_from_mem("fuzz", (const char *)data, size);
	struct prof_meta m = PROF_META_INIT, copy = PROF_META_INIT;
	struct prof_buf out = PROF_BUF_INIT;
	size_t len, i;
	char *line;

	while ((line = prof_lines_next(lr, &len)) != NULL)
		if (prof_meta_is_line(line, len))
			prof_meta_parse_line(&m, line, len);
	prof_lines_close(lr);
	prof_meta_format(&m, &out);
	/* what is written reads back */
	prof_meta_parse_line(&copy, out.data ? out.data : "", out.len);
	prof_meta_merge(&copy, &m);
	for (i = 0; i < m.count; i++) {
		const char *v = prof_meta_get(&m, m.keys[i]);
		char *item = prof_meta_list_item(v, 1);

		prof_meta_list_index(v, m.keys[i]);
		free(item);
	}
	if (m.count)
		prof_meta_remove(&copy, m.keys[0]);
	prof_buf_release(&out);
	prof_meta_release(&m);
	prof_meta_release(&copy);
	return 0;
}
