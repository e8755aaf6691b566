/*
 * Folded stacks, one count or two (differential): the one folded reading
 * loop (formats/folded.h) over a memory line reader, into a two-column
 * table, then written back as folded text (the count formatting).
 */
#include "core/meta.h"
#include "core/stack.h"
#include "formats/folded.h"
#include "io/input.h"
#include "io/output.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prof_lines *lr = prof_lines_from_mem("fuzz", (const char *)data, size);
	struct prof_meta meta = PROF_META_INIT;
	struct prof_folded_stats st = { 0, 0, 0 };
	struct prof_output *o;
	struct prof_stacks t;

	prof_stacks_init(&t, 2);
	prof_folded_read(lr, &t, &meta, &st);
	prof_lines_close(lr);
	o = prof_output_open("/dev/null", PROF_OUT_STREAM, PROF_COMP_NONE);
	if (o) {
		prof_folded_write(&t, &meta, st.ncounts ? (size_t)st.ncounts : 1, o);
		prof_output_close(o);
	}
	prof_stacks_release(&t);
	prof_meta_release(&meta);
	return 0;
}
