#ifndef PROF_HASHMAP_H
#define PROF_HASHMAP_H
/*
 * An open-addressing hash table from 64-bit integer keys (a pid, a tid,
 * an event id) to fixed-size values stored in the table.
 *
 * Layout: the entries (key and value) live in dense arrays in insertion
 * order, 0 .. count-1, so walking them is a loop over an index; a slot
 * array of entry index + 1 (0 = empty), a power of two at most half full,
 * is probed linearly from the key's hash. Every key is allowed, 0 too.
 *
 * Values are value_size bytes, zero-filled when the key is added, aligned
 * for any type (a struct with pointers or 64-bit fields can be stored).
 *
 * Pointer validity: a value pointer stays valid until the next
 * prof_hashmap_put() that adds a key (the dense arrays may move then);
 * looking up or updating existing keys moves nothing. A caller that needs
 * two values at once looks the second one up after the last addition.
 *
 * prof_hashmap_remove() takes one entry out (the recorder forgets exited
 * processes); prof_hashmap_release() frees them all. Not thread-safe.
 */
#include <stddef.h>
#include <stdint.h>

struct prof_hashmap {
	size_t value_size;	/* bytes per value, as given to init */
	/* private */
	size_t stride;		/* value_size rounded up for alignment */
	uint32_t *slots;	/* entry index + 1; 0 = empty */
	size_t nslots;		/* power of two, or 0 before the first put */
	uint64_t *keys;		/* entry index -> key */
	unsigned char *values;	/* entry index * stride -> value */
	size_t count, cap;
};

/* Initialise an empty table whose values are value_size bytes (0 allowed: a set). */
void prof_hashmap_init(struct prof_hashmap *m, size_t value_size);

/*
 * Free the table's memory (not what the values point to: free that first,
 * walking prof_hashmap_at()). The table is empty and reusable afterwards.
 */
void prof_hashmap_release(struct prof_hashmap *m);

/* The value of key, or NULL when key is absent. */
void *prof_hashmap_get(const struct prof_hashmap *m, uint64_t key);

/*
 * The value of key, adding it with a zero-filled value when absent; then
 * *added is set to 1 (else 0; added may be NULL). Allocation failure
 * exits (xalloc.h). May invalidate value pointers obtained earlier (see
 * the top of this file) when it adds.
 */
void *prof_hashmap_put(struct prof_hashmap *m, uint64_t key, int *added);

/* Number of keys. */
static inline size_t prof_hashmap_count(const struct prof_hashmap *m)
{
	return m->count;
}

/*
 * Remove key; returns 1 if it was there, else 0. The last entry moves
 * into the removed one's place (the order of prof_hashmap_at() changes,
 * and value pointers obtained earlier are invalid).
 */
int prof_hashmap_remove(struct prof_hashmap *m, uint64_t key);

/*
 * The i-th entry in insertion order (i < prof_hashmap_count()): returns
 * its value and stores its key in *key (key may be NULL).
 */
void *prof_hashmap_at(const struct prof_hashmap *m, size_t i, uint64_t *key);

#endif
