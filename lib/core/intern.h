#ifndef PROF_INTERN_H
#define PROF_INTERN_H
/*
 * String interning: each distinct byte string gets a small dense id
 * (0, 1, 2, ... in order of first appearance) and is stored once.
 *
 * Strings may contain any bytes, NUL included; they are stored with a
 * terminating NUL so prof_intern_str() can be used as a C string when the
 * caller knows there is no NUL inside. Pointers returned stay valid until
 * prof_intern_release() (storage is never moved). Not thread-safe: use one
 * table per thread and merge (see stack.h).
 */
#include <stddef.h>
#include <stdint.h>

struct prof_intern {
	uint32_t *slots;	/* open addressing: id + 1, 0 = empty */
	size_t nslots;		/* power of two */
	const char **strs;	/* id -> string */
	uint32_t *lens;		/* id -> length */
	uint64_t *hashes;	/* id -> hash, for rehashing */
	size_t count, cap;
	struct prof_intern_chunk *chunks;
	char *free_ptr;
	size_t free_left;
};

#define PROF_INTERN_INIT { 0 }

void prof_intern_init(struct prof_intern *t);

/* Id of the string s[0..len), adding it if new. */
uint32_t prof_intern(struct prof_intern *t, const char *s, size_t len);

/* Id with a precomputed hash (prof_hash(s, len)). */
uint32_t prof_intern_hashed(struct prof_intern *t, const char *s, size_t len, uint64_t hash);

/* Id of s if present, else UINT32_MAX. */
uint32_t prof_intern_find(const struct prof_intern *t, const char *s, size_t len);

/* The string of id (NUL-terminated) and, if len is not NULL, its length. */
static inline const char *prof_intern_str(const struct prof_intern *t, uint32_t id, size_t *len)
{
	if (len)
		*len = t->lens[id];
	return t->strs[id];
}

/* Number of distinct strings. */
static inline size_t prof_intern_count(const struct prof_intern *t)
{
	return t->count;
}

/* Free everything; the table is empty and reusable afterwards. */
void prof_intern_release(struct prof_intern *t);

/* The hash function used by the table (fast, 64-bit, seedless). */
uint64_t prof_hash(const void *p, size_t len);

/*
 * Double an open-addressing slot array (to at least 1024 slots) and
 * re-insert entries 0..count-1 by their hashes; a slot holds id + 1, 0 is
 * empty, probing is linear. Shared by the intern and the stack table.
 */
void prof_hash_slots_grow(uint32_t **slots, size_t *nslots, const uint64_t *hashes,
			  size_t count);

/* Combine a running hash with one 32-bit value (for id sequences). */
static inline uint64_t prof_hash_mix(uint64_t h, uint32_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdULL;
}

#endif
