/*
 * The body of the targets that read a profile through formats/profile.h
 * (fuzz_profile, fuzz_perfscript, fuzz_samples_tsv): FUZZ_FORMAT is the
 * format given (PROF_PROFILE_AUTO: detected, transparent decompression
 * included). The input's first byte sets the options that change how
 * samples are folded; the rest is the file.
 */
#include "core/meta.h"
#include "core/stack.h"
#include "formats/profile.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prof_meta meta = PROF_META_INIT;
	struct prof_profile_summary sum;
	struct prof_profile_opts o;
	struct prof_stacks t;

	if (size < 1)
		return 0;
	prof_profile_opts_init(&o);
	o.format = FUZZ_FORMAT;
	o.include_pid = data[0] & 1;
	o.include_tid = (data[0] >> 1) & 1;
	o.annotate_kernel = (data[0] >> 2) & 1;
	o.include_addrs = (data[0] >> 3) & 1;
	o.cpp_names = (data[0] >> 4) & 1;
	o.counts = (data[0] >> 5) & 1;
	o.mark_inlined = (data[0] >> 6) & 1;
	if (data[0] >> 7) {	/* a time window */
		o.time_window = 1;
		o.time_from_ns = 1000;
		o.time_to_ns = 1000000000;
	}
	o.jobs = 1;
	prof_stacks_init(&t, 2);
	prof_profile_read(fuzz_file(data + 1, size - 1), &o, &t, &meta, &sum);
	prof_stacks_release(&t);
	prof_meta_release(&meta);
	return 0;
}
