#ifndef PROF_UNITS_H
#define PROF_UNITS_H
/*
 * Numbers for people and from people: strict parsing of command-line
 * values and human-readable formatting. Parsing never accepts trailing
 * garbage, empty strings or overflow; all return 0 on success, -1 on
 * error (nothing printed: the caller names the option).
 */
#include <stddef.h>
#include <stdint.h>

/* Decimal unsigned integer. */
int prof_parse_u64(const char *s, uint64_t *out);

/*
 * A comma-separated list of decimal ids in 1..max ("12,40,7": process
 * ids), appended to the array *ids of *n (grown with xreallocarray).
 * Returns 0; -1 when a token is not such a number, with a malloc'ed copy
 * of it in *bad (an empty list: *bad is ""), the ids before it appended.
 */
int prof_parse_id_list(const char *list, uint64_t max, int **ids, size_t *n, char **bad);

/* Decimal signed integer. */
int prof_parse_i64(const char *s, int64_t *out);

/* Finite decimal number (strtod syntax, no hex, no inf/nan). */
int prof_parse_double(const char *s, double *out);

/*
 * A byte size: an integer with an optional suffix: B, K/KB/KiB, M/MB/MiB,
 * G/GB/GiB, T/... (all powers of 1024, case-insensitive). "512K" = 524288.
 */
int prof_parse_size(const char *s, uint64_t *out);

/*
 * A duration: a number with a unit ns, us, ms, s, m (minutes) or h; a
 * bare number is in default_unit_s seconds (1 for seconds, 1e-3 for
 * milliseconds). Result in seconds. "100ms" = 0.1.
 */
int prof_parse_duration(const char *s, double default_unit_s, double *seconds);

/*
 * Format bytes with binary units: "512 B", "1.5 KiB", "12.3 MiB", "2.00 GiB".
 * Writes at most n bytes into buf (NUL-terminated); returns buf.
 */
char *prof_fmt_bytes(char *buf, size_t n, double bytes);

/* Format seconds: "850 ns", "12.5 us", "3.20 ms", "1.25 s", "2m05s". Returns buf. */
char *prof_fmt_duration(char *buf, size_t n, double seconds);

/*
 * Format a measured value in plain decimal, never with an exponent:
 * integers with all their digits (up to 1e18), other values with about
 * sig significant digits (at most 12 decimals) and no trailing zeros:
 * 1039.6, 0.000123, -12.5. NAN and infinities as "nan", "inf", "-inf".
 * Returns buf.
 */
char *prof_fmt_number(char *buf, size_t n, double v, int sig);

/* Monotonic clock in nanoseconds. */
uint64_t prof_now_ns(void);

#endif
