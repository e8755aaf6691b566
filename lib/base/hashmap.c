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

void *prof_hashmap_at(const struct prof_hashmap *m, size_t i, uint64_t *key)
{
	if (key)
		*key = m->keys[i];
	return m->values + i * m->stride;
}
