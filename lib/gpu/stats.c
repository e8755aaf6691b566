/*
 * Summary arithmetic over GPU samples and the --alert expressions (gpu.h).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "base/buf.h"
#include "gpu/gpu.h"
#include "base/units.h"

void prof_gpu_stats_add(struct prof_gpu_stats *st, struct prof_gpu_sample *s)
{
	unsigned h = s->have;
	double dt = 0;

	if (st->samples == 0) {
		st->first_ns = s->time_ns;
		st->energy_source = h & PROF_GPU_HAVE_ENERGY ? PROF_GPU_ENERGY_COUNTER
							     : PROF_GPU_ENERGY_POWER;
		if (h & PROF_GPU_HAVE_ENERGY)
			st->energy_base = s->energy_j;
	} else if (s->time_ns > st->last_ns) {
		dt = (double)(s->time_ns - st->last_ns) / 1e9;
	}
	st->samples++;
	st->last_ns = s->time_ns > st->last_ns || st->samples == 1 ? s->time_ns : st->last_ns;

	if (h & PROF_GPU_HAVE_UTIL) {
		st->util_sum += s->util_pct;
		if (!st->util_n || s->util_pct > st->util_max)
			st->util_max = s->util_pct;
		st->util_n++;
	}
	if (h & PROF_GPU_HAVE_MEM_USED) {
		if (!st->have_mem || s->mem_used > st->mem_max)
			st->mem_max = s->mem_used;
		st->have_mem = 1;
	}
	if (h & PROF_GPU_HAVE_MEM_TOTAL)
		st->mem_total = s->mem_total;
	if (h & PROF_GPU_HAVE_TEMP) {
		if (!st->have_temp || s->temp_c > st->temp_max)
			st->temp_max = s->temp_c;
		st->have_temp = 1;
	}
	if (h & PROF_GPU_HAVE_POWER) {
		st->power_sum += s->power_w;
		if (!st->power_n || s->power_w > st->power_max)
			st->power_max = s->power_w;
		st->power_n++;
	}

	if (st->energy_source == PROF_GPU_ENERGY_COUNTER && (h & PROF_GPU_HAVE_ENERGY)) {
		double e = s->energy_j - st->energy_base;

		/* A counter that went backwards (driver reset): keep the total. */
		if (e < st->counter_j)
			e = st->counter_j;
		st->counter_j = st->energy_j = e;
		st->have_energy = 1;
		s->energy_j = e;
	} else {
		/* Power over time: the whole total, or since the last counter reading. */
		s->have &= ~(unsigned)PROF_GPU_HAVE_ENERGY;
		if (dt > 0 && st->prev_have_power && (h & PROF_GPU_HAVE_POWER))
			st->energy_j += 0.5 * (st->prev_power + s->power_w) * dt;
		if ((h & PROF_GPU_HAVE_POWER) ||
		    (st->energy_source == PROF_GPU_ENERGY_COUNTER && st->have_energy)) {
			s->energy_j = st->energy_j;
			s->have |= PROF_GPU_HAVE_ENERGY;
			st->have_energy = 1;
		}
	}
	st->prev_power = s->power_w;
	st->prev_have_power = (h & PROF_GPU_HAVE_POWER) != 0;

	if (h & PROF_GPU_HAVE_THROTTLE) {
		uint64_t lim = s->throttle & PROF_GPU_THROTTLE_LIMITING;

		st->have_throttle = 1;
		if (lim && dt > 0) {
			st->throttled_s += dt;
			for (int i = 0; i < PROF_GPU_THROTTLE_NREASONS; i++)
				if (lim & (1ull << i))
					st->reason_s[i] += dt;
		}
	}
}

static const char *energy_source_name(enum prof_gpu_energy_source e)
{
	switch (e) {
	case PROF_GPU_ENERGY_COUNTER: return "counter";
	case PROF_GPU_ENERGY_POWER: return "power";
	default: return "";
	}
}

/* "sw_power_cap:1.2,hw_thermal:0.3", "none", or "" without data. */
static size_t format_reasons(char *buf, size_t n, const struct prof_gpu_stats *st,
			     const char *sep, const char *unit)
{
	size_t len = 0;
	char num[64];

	buf[0] = '\0';
	if (!st->have_throttle)
		return 0;
	for (int i = 0; i < PROF_GPU_THROTTLE_NREASONS && len < n; i++) {
		if (st->reason_s[i] <= 0)
			continue;
		prof_gpu_format_num(num, sizeof(num), st->reason_s[i], 3);
		len += (size_t)snprintf(buf + len, n - len, "%s%s%s%s%s", len ? "," : "",
					prof_gpu_throttle_names[i], sep, num, unit);
	}
	if (len == 0)
		len = (size_t)snprintf(buf, n, "none");
	return len < n ? len : n - 1;
}

static size_t add_num(char *buf, size_t n, size_t len, int have, double v, int decimals)
{
	if (len + 1 >= n)
		return len;
	if (have)
		len += prof_gpu_format_num(buf + len, n - len, v, decimals);
	if (len + 1 < n)
		buf[len++] = '\t';
	buf[len] = '\0';
	return len;
}

size_t prof_gpu_format_summary(char *buf, size_t n, const struct prof_gpu_dev *d,
			       const struct prof_gpu_stats *st)
{
	double dur = st->samples ? (double)(st->last_ns - st->first_ns) / 1e9 : 0;
	char reasons[512];
	size_t len;

	len = (size_t)snprintf(buf, n, "%u\t%s\t%lu\t", d->index, d->name, st->samples);
	if (len >= n)
		return n - 1;
	len = add_num(buf, n, len, 1, dur, 6);
	len = add_num(buf, n, len, st->util_n, st->util_n ? st->util_sum / st->util_n : 0, 3);
	len = add_num(buf, n, len, st->util_n, st->util_max, 3);
	len = add_num(buf, n, len, st->have_mem, (double)st->mem_max, 0);
	len = add_num(buf, n, len, st->power_n, st->power_n ? st->power_sum / st->power_n : 0, 3);
	len = add_num(buf, n, len, st->power_n, st->power_max, 3);
	len = add_num(buf, n, len, st->have_energy, st->energy_j, 3);
	len += (size_t)snprintf(buf + len, n - len, "%s\t",
				st->have_energy ? energy_source_name(st->energy_source) : "");
	if (len >= n)
		return n - 1;
	len = add_num(buf, n, len, st->have_temp, st->temp_max, 3);
	len = add_num(buf, n, len, st->have_throttle, st->throttled_s, 3);
	format_reasons(reasons, sizeof(reasons), st, ":", "");
	len += (size_t)snprintf(buf + len, n - len, "%s\n", reasons);
	return len < n ? len : n - 1;
}

static const char *fnum(char *buf, size_t n, int have, double v, int decimals, const char *unit)
{
	size_t len;

	if (!have)
		return "n/a";
	len = prof_gpu_format_num(buf, n, v, decimals);
	snprintf(buf + len, n - len, "%s", unit);
	return buf;
}

void prof_gpu_summary_text(struct prof_buf *out, const struct prof_gpu_dev *d,
			   const struct prof_gpu_stats *st)
{
	char a[64], b[64], c[64], dur[32], reasons[512];

	prof_fmt_duration(dur, sizeof(dur),
			  st->samples ? (double)(st->last_ns - st->first_ns) / 1e9 : 0);
	prof_buf_addf(out, "gpu %u %s (%s): %lu sample%s over %s%s\n", d->index, d->name,
		      d->backend->name, st->samples, st->samples == 1 ? "" : "s", dur,
		      d->lost ? ", lost" : "");
	prof_buf_addf(out, "  utilization  avg %s  peak %s\n",
		      fnum(a, sizeof(a), st->util_n, st->util_n ? st->util_sum / st->util_n : 0,
			   1, "%"),
		      fnum(b, sizeof(b), st->util_n, st->util_max, 1, "%"));
	if (st->have_mem) {
		prof_fmt_bytes(a, sizeof(a), (double)st->mem_max);
		prof_fmt_bytes(b, sizeof(b), (double)st->mem_total);
		prof_buf_addf(out, "  memory       peak %s%s%s\n", a, st->mem_total ? " of " : "",
			      st->mem_total ? b : "");
	} else {
		prof_buf_addstr(out, "  memory       peak n/a\n");
	}
	prof_buf_addf(out, "  power        avg %s  peak %s  energy %s%s%s%s\n",
		      fnum(a, sizeof(a), st->power_n,
			   st->power_n ? st->power_sum / st->power_n : 0, 1, " W"),
		      fnum(b, sizeof(b), st->power_n, st->power_max, 1, " W"),
		      fnum(c, sizeof(c), st->have_energy, st->energy_j, 1, " J"),
		      st->have_energy ? " (" : "",
		      st->have_energy ? (st->energy_source == PROF_GPU_ENERGY_COUNTER
						 ? "energy counter"
						 : "integrated power")
				      : "",
		      st->have_energy ? ")" : "");
	prof_buf_addf(out, "  temperature  max %s\n",
		      fnum(a, sizeof(a), st->have_temp, st->temp_max, 1, " C"));
	if (st->have_throttle) {
		format_reasons(reasons, sizeof(reasons), st, " ", " s");
		prof_buf_addf(out, "  throttled    %s (%s)\n",
			      fnum(a, sizeof(a), 1, st->throttled_s, 3, " s"), reasons);
	} else {
		prof_buf_addstr(out, "  throttled    n/a\n");
	}
}

/* ---- alerts ---- */

static const struct {
	const char *name;
	enum prof_gpu_metric metric;
	const char *unit;	/* optional suffix of the value */
} alert_metrics[] = {
	{ "util", PROF_GPU_M_UTIL, "%" },
	{ "mem_util", PROF_GPU_M_MEM_UTIL, "%" },
	{ "mem", PROF_GPU_M_MEM, NULL },
	{ "temp", PROF_GPU_M_TEMP, "C" },
	{ "power", PROF_GPU_M_POWER, "W" },
	{ "energy", PROF_GPU_M_ENERGY, "J" },
	{ "sm_clock", PROF_GPU_M_SM_CLOCK, "MHz" },
	{ "mem_clock", PROF_GPU_M_MEM_CLOCK, "MHz" },
	{ "rss", PROF_GPU_M_RSS, NULL },
	{ "swap", PROF_GPU_M_SWAP, NULL },
	{ "cpu", PROF_GPU_M_CPU, "%" },
	{ "host_cpu", PROF_GPU_M_HOST_CPU, "%" },
	{ "threads", PROF_GPU_M_THREADS, NULL },
};

static void trim(const char **p, size_t *n)
{
	while (*n && (**p == ' ' || **p == '\t'))
		(*p)++, (*n)--;
	while (*n && ((*p)[*n - 1] == ' ' || (*p)[*n - 1] == '\t'))
		(*n)--;
}

int prof_gpu_alert_parse(const char *text, struct prof_gpu_alert *a, char *err, size_t n)
{
	const char *op = strpbrk(text, "<>"), *name = text, *val;
	size_t nlen, vlen;
	char value[64];
	size_t i;

	memset(a, 0, sizeof(*a));
	snprintf(a->text, sizeof(a->text), "%s", text);
	if (!op) {
		snprintf(err, n, "no comparison (expected METRIC>VALUE or METRIC<VALUE)");
		return -1;
	}
	nlen = (size_t)(op - text);
	trim(&name, &nlen);
	for (i = 0; i < sizeof(alert_metrics) / sizeof(alert_metrics[0]); i++)
		if (strlen(alert_metrics[i].name) == nlen &&
		    strncasecmp(alert_metrics[i].name, name, nlen) == 0)
			break;
	if (i == sizeof(alert_metrics) / sizeof(alert_metrics[0])) {
		snprintf(err, n, "unknown metric '%.*s' (util, mem_util, mem, temp, power, "
			 "energy, sm_clock, mem_clock; host: rss, swap, cpu, host_cpu, threads)",
			 (int)nlen, name);
		return -1;
	}
	a->metric = alert_metrics[i].metric;
	a->op = *op;
	val = op + 1;
	if (*val == '=') {
		a->op = *op == '>' ? 'G' : 'L';
		val++;
	}
	vlen = strlen(val);
	trim(&val, &vlen);
	if (vlen == 0 || vlen >= sizeof(value)) {
		snprintf(err, n, "missing or overlong value");
		return -1;
	}
	memcpy(value, val, vlen);
	value[vlen] = '\0';
	if (a->metric == PROF_GPU_M_MEM) {
		uint64_t bytes;

		if (value[vlen - 1] == '%') {
			value[vlen - 1] = '\0';
			a->percent = 1;
			if (prof_parse_double(value, &a->value) == 0)
				return 0;
		} else if (prof_parse_size(value, &bytes) == 0) {
			a->value = (double)bytes;
			return 0;
		}
		snprintf(err, n, "bad memory value '%s' (a size such as 8G, or a percentage)",
			 val);
		return -1;
	}
	if (a->metric == PROF_GPU_M_RSS || a->metric == PROF_GPU_M_SWAP) {
		uint64_t bytes;

		if (prof_parse_size(value, &bytes) == 0) {
			a->value = (double)bytes;
			return 0;
		}
		snprintf(err, n, "bad size '%s' (such as 512M or 2G)", val);
		return -1;
	}
	if (alert_metrics[i].unit) {
		size_t ulen = strlen(alert_metrics[i].unit);

		if (vlen > ulen && strcasecmp(value + vlen - ulen, alert_metrics[i].unit) == 0)
			value[vlen - ulen] = '\0';
	}
	if (prof_parse_double(value, &a->value) < 0) {
		snprintf(err, n, "bad value '%s'", val);
		return -1;
	}
	return 0;
}

int prof_gpu_alert_eval(const struct prof_gpu_alert *a, const struct prof_gpu_sample *s,
			double *value)
{
	unsigned h = s->have;
	double v;

	switch (a->metric) {
	case PROF_GPU_M_UTIL:
		if (!(h & PROF_GPU_HAVE_UTIL))
			return -1;
		v = s->util_pct;
		break;
	case PROF_GPU_M_MEM_UTIL:
		if (!(h & PROF_GPU_HAVE_MEM_UTIL))
			return -1;
		v = s->mem_util_pct;
		break;
	case PROF_GPU_M_MEM:
		if (!(h & PROF_GPU_HAVE_MEM_USED))
			return -1;
		if (a->percent) {
			if (!(h & PROF_GPU_HAVE_MEM_TOTAL) || s->mem_total == 0)
				return -1;
			v = 100.0 * (double)s->mem_used / (double)s->mem_total;
		} else {
			v = (double)s->mem_used;
		}
		break;
	case PROF_GPU_M_TEMP:
		if (!(h & PROF_GPU_HAVE_TEMP))
			return -1;
		v = s->temp_c;
		break;
	case PROF_GPU_M_POWER:
		if (!(h & PROF_GPU_HAVE_POWER))
			return -1;
		v = s->power_w;
		break;
	case PROF_GPU_M_ENERGY:
		if (!(h & PROF_GPU_HAVE_ENERGY))
			return -1;
		v = s->energy_j;
		break;
	case PROF_GPU_M_SM_CLOCK:
		if (!(h & PROF_GPU_HAVE_SM_CLOCK))
			return -1;
		v = (double)s->sm_clock_mhz;
		break;
	case PROF_GPU_M_MEM_CLOCK:
		if (!(h & PROF_GPU_HAVE_MEM_CLOCK))
			return -1;
		v = (double)s->mem_clock_mhz;
		break;
	default:
		return -1;	/* a host metric */
	}
	*value = v;
	return prof_gpu_alert_compare(a, v);
}

int prof_gpu_alert_compare(const struct prof_gpu_alert *a, double v)
{
	switch (a->op) {
	case '>': return v > a->value;
	case '<': return v < a->value;
	case 'G': return v >= a->value;
	case 'L': return v <= a->value;
	default: return 0;
	}
}

int prof_gpu_alert_needs_gpu(const struct prof_gpu_alert *a, int host)
{
	return a->metric < PROF_GPU_M_RSS && !(a->metric == PROF_GPU_M_TEMP && host);
}
