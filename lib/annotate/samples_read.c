/*
 * What the readers of samples.h share (samples_read.h): the files and
 * hits of a struct prof_ann_samples, and freeing it.
 */
#include <stdlib.h>
#include <string.h>

#include "annotate/samples.h"
#include "annotate/samples_read.h"
#include "base/hashmap.h"
#include "base/xalloc.h"

size_t prof_ann_file_index(struct prof_ann_samples *s, size_t *cap, const char *path,
			   const char *build_id, uint64_t start, uint64_t pgoff)
{
	size_t f;

	for (f = 0; f < s->nfiles; f++)
		if (strcmp(s->files[f].path, path) == 0 &&
		    strcmp(s->files[f].build_id ? s->files[f].build_id : "", build_id ? build_id : "") == 0)
			return f;
	PROF_GROW(s->files, f + 1, *cap);
	s->files[f] = (struct prof_ann_file){ xstrdup(path), build_id ? xstrdup(build_id) : NULL,
		start, pgoff, 0 };
	s->nfiles++;
	return f;
}

void prof_ann_hit_add(struct prof_ann_samples *s, struct prof_ann_hit_index *ix, uint32_t file,
		      uint64_t off)
{
	size_t *at;
	int added;

	if (!ix->at.value_size)
		prof_hashmap_init(&ix->at, sizeof(size_t));
	/* file offsets stay below 2^48: the key is unique */
	at = prof_hashmap_put(&ix->at, (uint64_t)file << 48 ^ off, &added);
	if (!added) {
		s->hits[*at].count++;
		return;
	}
	PROF_GROW(s->hits, s->nhits + 1, ix->cap);
	*at = s->nhits;
	s->hits[s->nhits++] = (struct prof_ann_hit){ file, off, 1 };
}

void prof_ann_hit_index_release(struct prof_ann_hit_index *ix)
{
	if (ix->at.value_size)
		prof_hashmap_release(&ix->at);
	memset(ix, 0, sizeof(*ix));
}

static int by_file_off(const void *a, const void *b)
{
	const struct prof_ann_hit *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

void prof_ann_hits_merge(struct prof_ann_samples *s)
{
	size_t j = 0;

	if (s->nhits)	/* hits is NULL without samples */
		qsort(s->hits, s->nhits, sizeof(*s->hits), by_file_off);
	for (size_t i = 0; i < s->nhits; i++) {
		if (j && s->hits[j - 1].file == s->hits[i].file && s->hits[j - 1].off == s->hits[i].off)
			s->hits[j - 1].count += s->hits[i].count;
		else
			s->hits[j++] = s->hits[i];
	}
	s->nhits = j;
}

void prof_ann_samples_release(struct prof_ann_samples *s)
{
	for (size_t i = 0; i < s->nfiles; i++) {
		free(s->files[i].path);
		free(s->files[i].build_id);
	}
	free(s->files);
	free(s->hits);
	free(s->event);
	memset(s, 0, sizeof(*s));
}
