/*
 * profcompress's codec selection syntax (codec/selection.h): "-e" specs
 * such as "zstd:1-19/3,lz4hc,fast" parsed into benchmark cells.
 */
#include "codec/codec.h"
#include "codec/selection.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prof_codec_cells cells = { 0 };
	char *spec = fuzz_cstr(data, size), err[256], name[64];

	prof_codec_cells_parse(&cells, spec, err, sizeof(err));
	for (size_t i = 0; i < cells.n; i++)
		prof_codec_cell_name(cells.v[i].codec, cells.v[i].level, name, sizeof(name));
	prof_codec_cells_one_per_codec(&cells);
	prof_codec_cells_release(&cells);
	free(spec);
	return 0;
}
