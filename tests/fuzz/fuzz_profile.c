/* Read any profile (formats/profile.h) as any profile, its format detected (compressed inputs undone first). */
#define FUZZ_FORMAT PROF_PROFILE_AUTO
#include "profile_target.h"
