/*
 * profgpu's --alert expressions (gpu/gpu.h: METRIC OP VALUE[UNIT]),
 * evaluated on a GPU sample and a host sample that have every metric.
 */
#include "gpu/gpu.h"
#include "gpu/host.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prof_gpu_sample s;
	struct prof_host_sample h;
	struct prof_gpu_alert a;
	char *text = fuzz_cstr(data, size), err[256];
	double v;

	if (prof_gpu_alert_parse(text, &a, err, sizeof(err)) == 0) {
		memset(&s, 0, sizeof(s));
		s.have = ~0u;
		s.util_pct = 50;
		s.mem_used = 1u << 30;
		s.mem_total = 4u << 30;
		prof_gpu_alert_eval(&a, &s, &v);
		memset(&h, 0, sizeof(h));
		h.have = ~0u;
		h.rss = 1u << 20;
		prof_host_alert_eval(&a, &h, &v);
		prof_gpu_alert_compare(&a, 1.5);
	}
	free(text);
	return 0;
}
