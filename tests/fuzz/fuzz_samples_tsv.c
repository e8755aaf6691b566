/* Read any profile (formats/profile.h) as profrec's sample TSV (formats/samples_tsv.h). */
#define FUZZ_FORMAT PROF_PROFILE_PROFREC
#include "profile_target.h"
