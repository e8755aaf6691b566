/* tegrastats(1) output lines (gpu/tegra.c), each parsed into a GPU sample. */
#include "gpu/gpu.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		struct prof_gpu_sample s;
		int64_t stamp;
		int have_stamp;
		char *line = fuzz_cstr((const uint8_t *)p, n);	/* its own buffer: ASan sees overreads */

		memset(&s, 0, sizeof(s));
		prof_gpu_tegra_parse(line, n, &s, &stamp, &have_stamp);
		free(line);
		p += n + 1;
	}
	return 0;
}
