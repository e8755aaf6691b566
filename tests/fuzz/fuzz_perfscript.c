/* Read any profile (formats/profile.h) as perf script text (formats/perfscript.h). */
#define FUZZ_FORMAT PROF_PROFILE_PERF_SCRIPT
#include "profile_target.h"
