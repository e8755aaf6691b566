#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "base/units.h"
#include "base/xalloc.h"

int prof_parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int prof_parse_i64(const char *s, int64_t *out)
{
	char *end;
	long long v;

	if (!s || !(isdigit((unsigned char)*s) || ((*s == '-' || *s == '+') && isdigit((unsigned char)s[1]))))
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

/* strtod accepting only plain decimal notation; *end set past the number. */
static int parse_decimal_prefix(const char *s, double *out, const char **end)
{
	const char *p = s;
	char *e;

	if (*p == '-' || *p == '+')
		p++;
	if (!isdigit((unsigned char)*p) && !(*p == '.' && isdigit((unsigned char)p[1])))
		return -1;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		return -1;
	errno = 0;
	*out = strtod(s, &e);
	if (errno == ERANGE || !isfinite(*out))
		return -1;
	*end = e;
	return 0;
}

int prof_parse_double(const char *s, double *out)
{
	const char *end;

	if (!s || parse_decimal_prefix(s, out, &end) || *end)
		return -1;
	return 0;
}

int prof_parse_size(const char *s, uint64_t *out)
{
	static const struct { const char *suffix; unsigned shift; } units[] = {
		{ "", 0 }, { "b", 0 },
		{ "k", 10 }, { "kb", 10 }, { "kib", 10 },
		{ "m", 20 }, { "mb", 20 }, { "mib", 20 },
		{ "g", 30 }, { "gb", 30 }, { "gib", 30 },
		{ "t", 40 }, { "tb", 40 }, { "tib", 40 },
	};
	char *end;
	unsigned long long v;
	size_t i;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(end, units[i].suffix) == 0) {
			if (units[i].shift && v > (UINT64_MAX >> units[i].shift))
				return -1;
			*out = (uint64_t)v << units[i].shift;
			return 0;
		}
	}
	return -1;
}

int prof_parse_duration(const char *s, double default_unit_s, double *seconds)
{
	static const struct { const char *suffix; double scale; } units[] = {
		{ "ns", 1e-9 }, { "us", 1e-6 }, { "ms", 1e-3 }, { "s", 1 },
		{ "m", 60 }, { "min", 60 }, { "h", 3600 },
	};
	const char *end;
	double v;
	size_t i;

	if (!s || parse_decimal_prefix(s, &v, &end) || v < 0)
		return -1;
	if (!*end) {
		*seconds = v * default_unit_s;
		return 0;
	}
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].suffix) == 0) {
			*seconds = v * units[i].scale;
			return 0;
		}
	}
	return -1;
}

char *prof_fmt_bytes(char *buf, size_t n, double bytes)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = bytes, a = fabs(bytes);
	size_t u = 0;

	while (a >= 1024 && u + 1 < sizeof(names) / sizeof(names[0])) {
		v /= 1024;
		a /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, n, "%.0f B", v);
	else if (a < 10)
		snprintf(buf, n, "%.2f %s", v, names[u]);
	else if (a < 100)
		snprintf(buf, n, "%.1f %s", v, names[u]);
	else
		snprintf(buf, n, "%.0f %s", v, names[u]);
	return buf;
}

char *prof_fmt_duration(char *buf, size_t n, double s)
{
	double a = fabs(s);

	if (a < 1e-6)
		snprintf(buf, n, "%.0f ns", s * 1e9);
	else if (a < 1e-3)
		snprintf(buf, n, "%.3g us", s * 1e6);
	else if (a < 1)
		snprintf(buf, n, "%.3g ms", s * 1e3);
	else if (a < 60)
		snprintf(buf, n, "%.3g s", s);
	else if (a < 3600)
		snprintf(buf, n, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
	else
		snprintf(buf, n, "%dh%02dm%02ds", (int)(s / 3600), (int)fmod(s / 60, 60), (int)fmod(s, 60));
	return buf;
}

uint64_t prof_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

char *prof_fmt_number(char *buf, size_t n, double v, int sig)
{
	int decimals;
	size_t len;

	if (isnan(v) || isinf(v)) {
		snprintf(buf, n, "%s", isnan(v) ? "nan" : v < 0 ? "-inf" : "inf");
		return buf;
	}
	if (v == floor(v) && fabs(v) < 1e18) {
		snprintf(buf, n, "%.0f", v);
		return buf;
	}
	decimals = sig - 1 - (int)floor(log10(fabs(v)));
	if (decimals < 0)
		decimals = 0;
	if (decimals > 12)
		decimals = 12;
	snprintf(buf, n, "%.*f", decimals, v);
	len = strlen(buf);
	if (strchr(buf, '.')) {
		while (len && buf[len - 1] == '0')
			buf[--len] = '\0';
		if (len && buf[len - 1] == '.')
			buf[--len] = '\0';
	}
	if (!strcmp(buf, "-0"))
		snprintf(buf, n, "0");
	return buf;
}

int prof_parse_id_list(const char *list, uint64_t max, int **ids, size_t *n, char **bad)
{
	char *copy = xstrdup(list), *save = NULL;
	size_t before = *n;

	*bad = NULL;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t v;

		if (prof_parse_u64(tok, &v) != 0 || v == 0 || v > max || v > INT_MAX) {
			*bad = xstrdup(tok);
			break;
		}
		*ids = xreallocarray(*ids, *n + 1, sizeof(**ids));
		(*ids)[(*n)++] = (int)v;
	}
	free(copy);
	if (!*bad && *n == before)
		*bad = xstrdup("");
	return *bad ? -1 : 0;
}
