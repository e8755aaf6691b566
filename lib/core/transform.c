#include <stdlib.h>
#include <string.h>
#include "core/transform.h"
#include "base/xalloc.h"

int prof_transform_add_regex(struct prof_transform *x, int exclude, const char *pattern,
			     char *errbuf, size_t errlen)
{
	regex_t **list = exclude ? &x->exclude : &x->focus;
	size_t *n = exclude ? &x->nexclude : &x->nfocus;
	int rc;

	*list = xreallocarray(*list, *n + 1, sizeof(**list));
	rc = regcomp(&(*list)[*n], pattern, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		regerror(rc, &(*list)[*n], errbuf, errlen);
		return -1;
	}
	(*n)++;
	return 0;
}

int prof_transform_active(const struct prof_transform *x)
{
	return x->nfocus || x->nexclude || x->skip_after || x->strip_comm ||
	       x->collapse_recursion || x->max_depth || x->reverse;
}

void prof_transform_release(struct prof_transform *x)
{
	size_t i;

	for (i = 0; i < x->nfocus; i++)
		regfree(&x->focus[i]);
	for (i = 0; i < x->nexclude; i++)
		regfree(&x->exclude[i]);
	free(x->focus);
	free(x->exclude);
	x->focus = x->exclude = NULL;
	x->nfocus = x->nexclude = 0;
}

/* Per source frame: bit 1 matches a focus regex, bit 2 an exclude regex. */
static unsigned char *classify(const struct prof_transform *x, const struct prof_stacks *src)
{
	size_t n = prof_intern_count(&src->frames), i, k;
	unsigned char *c = xcalloc(n ? n : 1, 1);

	for (i = 0; i < n; i++) {
		const char *name = prof_stacks_frame_name(src, (uint32_t)i, NULL);

		for (k = 0; k < x->nfocus && !(c[i] & 1); k++)
			if (regexec(&x->focus[k], name, 0, NULL, 0) == 0)
				c[i] |= 1;
		for (k = 0; k < x->nexclude && !(c[i] & 2); k++)
			if (regexec(&x->exclude[k], name, 0, NULL, 0) == 0)
				c[i] |= 2;
	}
	return c;
}

void prof_transform_apply(const struct prof_transform *x, const struct prof_stacks *src,
			  struct prof_stacks *dst)
{
	size_t nframes = prof_intern_count(&src->frames), id, i;
	uint32_t *map = xmalloc((nframes ? nframes : 1) * sizeof(*map));
	unsigned char *cls = (x->nfocus || x->nexclude) ? classify(x, src) : NULL;
	uint32_t skip_id = UINT32_MAX, *buf = NULL;
	size_t cap = 0;

	for (i = 0; i < nframes; i++)
		map[i] = UINT32_MAX;
	if (x->skip_after)
		skip_id = prof_intern_find(&src->frames, x->skip_after, strlen(x->skip_after));
	for (id = 0; id < prof_stacks_count(src); id++) {
		size_t depth, start = 0, n = 0;
		const uint32_t *f = prof_stacks_frames(src, (uint32_t)id, &depth);
		const prof_weight *w = prof_stacks_weights(src, (uint32_t)id);

		if (cls) {
			int any_focus = 0, any_exclude = 0;

			for (i = 0; i < depth; i++) {
				any_focus |= cls[f[i]] & 1;
				any_exclude |= cls[f[i]] & 2;
			}
			if ((x->nfocus && !any_focus) || any_exclude)
				continue;
		}
		/* skip_after: FUNC becomes the root; else strip_comm drops the comm. */
		start = x->strip_comm ? 1 : 0;
		if (skip_id != UINT32_MAX) {
			for (i = depth; i-- > 0;) {
				if (f[i] == skip_id) {
					start = i;
					break;
				}
			}
		}
		PROF_GROW(buf, depth + 1, cap);
		for (i = start; i < depth; i++) {
			if (x->collapse_recursion && n > 0 && buf[n - 1] == f[i])
				continue;
			buf[n++] = f[i];
		}
		if (x->max_depth && n > x->max_depth)
			n = x->max_depth;
		if (n == 0)
			continue;
		for (i = 0; i < n; i++) {
			uint32_t s = buf[i];

			if (map[s] == UINT32_MAX) {
				size_t len;
				const char *name = prof_stacks_frame_name(src, s, &len);

				map[s] = prof_stacks_frame(dst, name, len);
			}
			buf[i] = map[s];
		}
		if (x->reverse) {
			for (i = 0; i < n / 2; i++) {
				uint32_t tmp = buf[i];

				buf[i] = buf[n - 1 - i];
				buf[n - 1 - i] = tmp;
			}
		}
		{
			prof_weight wr[PROF_STACKS_MAX_WEIGHTS] = { 0 };

			for (i = 0; i < src->nweights && i < dst->nweights; i++)
				wr[i] = w[i];
			prof_stacks_add(dst, buf, n, wr);
		}
	}
	free(buf);
	free(map);
	free(cls);
}
