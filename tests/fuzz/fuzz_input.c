/*
 * Transparent decompression (io/input.h): gzip, zstd and lz4 frames are
 * recognised by magic and undone, whatever the input; the bytes then go
 * through both line readers (prof_lines, io/chunk.h blocks of each kind)
 * under a small line cap so that cut and long lines are exercised too.
 */
#include "io/chunk.h"
#include "io/input.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	struct prof_lines *lr;
	struct prof_chunks *r;
	size_t len;
	char *p;
	int last;

	prof_set_max_line(size % 2 ? 64 : 0);
	lr = prof_lines_open(path);
	while (lr && prof_lines_next(lr, &len) != NULL)
		;
	prof_lines_close(lr);
	for (int kind = 0; kind < 2; kind++) {
		r = prof_chunks_open(prof_input_open(path), 4096);
		prof_chunks_peek(r, 100, &len);
		while ((p = prof_chunks_next(r, (enum prof_chunk_boundary)kind, &len, &last)) != NULL)
			prof_chunks_recycle(r, p);
		prof_chunks_close(r);
	}
	prof_set_max_line(0);
	return 0;
}
