/*
 * profannotate's sample reader (annotate/samples.h): profrec TSV with
 * the ip, map_id and map columns, counted per (file, offset).
 */
#include "annotate/samples.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prof_ann_samples s;

	memset(&s, 0, sizeof(s));
	prof_ann_samples_read(fuzz_file(data, size), &s);
	prof_ann_samples_release(&s);
	return 0;
}
