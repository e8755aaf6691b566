/*
 * Open-addressing hash table of integer keys (hashmap.h).
 */
#include <stdalign.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/xalloc.h"

/* splitmix64's finalizer: consecutive pids land far apart. */
static uint64_t hash_key(uint64_t k)
{
	k ^= k >> 30;
	k *= 0xbf58476d1ce4e5b9ULL;
	k ^= k >> 27;
	k *= 0x94d049bb133111ebULL;
	return k ^ (k >> 31);
}

void prof_hashmap_init(struct prof_hashmap *m, size_t value_size)
{
	size_t align = alignof(max_align_t);

	memset(m, 0, sizeof(*m));
	m->value_size = value_size;
	m->stride = (value_size + align - 1) / align * align;
}

void prof_hashmap_release(struct prof_hashmap *m)
{
	free(m->slots);
	free(m->keys);
	free(m->values);
	prof_hashmap_init(m, m->value_size);
}

/* The slot holding key, or the empty slot where it would go. */
static size_t find_slot(const struct prof_hashmap *m, uint64_t key)
{
	size_t mask = m->nslots - 1, i;

	for (i = hash_key(key) & mask; m->slots[i]; i = (i + 1) & mask)
		if (m->keys[m->slots[i] - 1] == key)
			break;
	return i;
}

/* Double the slot array (at least 16 slots) and re-insert every entry. */
static void grow_slots(struct prof_hashmap *m)
{
	size_t n = m->nslots ? m->nslots * 2 : 16;

	free(m->slots);
	m->slots = xcalloc(n, sizeof(*m->slots));
	m->nslots = n;
	for (size_t e = 0; e < m->count; e++)
		m->slots[find_slot(m, m->keys[e])] = (uint32_t)(e + 1);
}

void *prof_hashmap_get(const struct prof_hashmap *m, uint64_t key)
{
	size_t i;

	if (!m->count)
		return NULL;
	i = find_slot(m, key);
	return m->slots[i] ? m->values + (m->slots[i] - 1) * m->stride : NULL;
}

void *prof_hashmap_put(struct prof_hashmap *m, uint64_t key, int *added)
{
	void *v = prof_hashmap_get(m, key);
	size_t e;

	if (added)
		*added = !v;
	if (v)
		return v;
	if ((m->count + 1) * 2 > m->nslots)
		grow_slots(m);
	if (m->count == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 16;
		m->keys = xreallocarray(m->keys, m->cap, sizeof(*m->keys));
		/* A set (stride 0) still gets a non-NULL value pointer. */
		m->values = xreallocarray(m->values, m->cap, m->stride ? m->stride : 1);
	}
	e = m->count++;
	m->keys[e] = key;
	memset(m->values + e * m->stride, 0, m->stride);
	m->slots[find_slot(m, key)] = (uint32_t)(e + 1);
	return m->values + e * m->stride;
}

/* Whether slot h, a key's home, lies cyclically in (from, to]. */
static int home_between(size_t h, size_t from, size_t to)
{
	return from <= to ? from < h && h <= to : from < h || h <= to;
}

int prof_hashmap_remove(struct prof_hashmap *m, uint64_t key)
{
	size_t mask = m->nslots - 1, hole, k, e, last;

	if (!m->count)
		return 0;
	hole = find_slot(m, key);
	if (!m->slots[hole])
		return 0;
	e = m->slots[hole] - 1;
	/*
	 * Backward-shift deletion (linear probing has no tombstones): every
	 * entry after the hole in its probe run that may live in the hole
	 * moves into it, leaving a new hole, until an empty slot.
	 */
	for (k = hole;;) {
		m->slots[hole] = 0;
		for (;;) {
			k = (k + 1) & mask;
			if (!m->slots[k])
				goto dense;
			if (!home_between(hash_key(m->keys[m->slots[k] - 1]) & mask, hole, k))
				break;
		}
		m->slots[hole] = m->slots[k];
		hole = k;
	}
dense:
	/* the last entry fills the gap in the dense arrays */
	last = --m->count;
	if (e != last) {
		m->keys[e] = m->keys[last];
		memcpy(m->values + e * m->stride, m->values + last * m->stride, m->stride);
		m->slots[find_slot(m, m->keys[e])] = (uint32_t)(e + 1);
	}
	return 1;
}

void *prof_hashmap_at(const struct prof_hashmap *m, size_t i, uint64_t *key)
{
	if (key)
		*key = m->keys[i];
	return m->values + i * m->stride;
}
