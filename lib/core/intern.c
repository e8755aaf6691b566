#include <stdlib.h>
#include <string.h>
#include "core/intern.h"
#include "base/xalloc.h"

struct prof_intern_chunk {
	struct prof_intern_chunk *next;
	char data[];
};

#define CHUNK_SIZE (256 * 1024)

static inline uint64_t read64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline uint64_t mum(uint64_t a, uint64_t b)
{
	__uint128_t r = (__uint128_t)a * b;

	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

uint64_t prof_hash(const void *p, size_t len)
{
	const unsigned char *s = p;
	const uint64_t k1 = 0xa0761d6478bd642fULL, k2 = 0xe7037ed1a0b428dbULL;
	uint64_t h = 0x8ebc6af09c88c6e3ULL ^ len;
	uint64_t a, b;

	while (len > 16) {
		h = mum(read64(s) ^ k1 ^ h, read64(s + 8) ^ k2);
		s += 16;
		len -= 16;
	}
	if (len >= 8) {
		a = read64(s);
		b = read64(s + len - 8);
	} else if (len >= 4) {
		uint32_t x, y;

		memcpy(&x, s, 4);
		memcpy(&y, s + len - 4, 4);
		a = x;
		b = y;
	} else if (len > 0) {
		a = ((uint64_t)s[0] << 16) | ((uint64_t)s[len >> 1] << 8) | s[len - 1];
		b = 0;
	} else {
		a = b = 0;
	}
	return mum(mum(a ^ k1 ^ h, b ^ k2), k1 ^ len);
}

void prof_intern_init(struct prof_intern *t)
{
	memset(t, 0, sizeof(*t));
}

void prof_intern_release(struct prof_intern *t)
{
	struct prof_intern_chunk *c, *next;

	for (c = t->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	free(t->slots);
	free(t->strs);
	free(t->lens);
	free(t->hashes);
	memset(t, 0, sizeof(*t));
}

static char *store(struct prof_intern *t, const char *s, size_t len)
{
	char *dst;

	if (len + 1 > t->free_left) {
		size_t size = len + 1 > CHUNK_SIZE / 4 ? len + 1 : CHUNK_SIZE;
		struct prof_intern_chunk *c = xmalloc(sizeof(*c) + size);

		if (size == CHUNK_SIZE) {
			c->next = t->chunks;
			t->chunks = c;
			t->free_ptr = c->data;
			t->free_left = size;
		} else {
			/* A big string gets its own chunk; keep the current one. */
			c->next = t->chunks ? t->chunks->next : NULL;
			if (t->chunks)
				t->chunks->next = c;
			else
				t->chunks = c;
			memcpy(c->data, s, len);
			c->data[len] = '\0';
			return c->data;
		}
	}
	dst = t->free_ptr;
	memcpy(dst, s, len);
	dst[len] = '\0';
	t->free_ptr += len + 1;
	t->free_left -= len + 1;
	return dst;
}

void prof_hash_slots_grow(uint32_t **slots, size_t *nslots, const uint64_t *hashes,
			  size_t count)
{
	size_t n = *nslots ? *nslots * 2 : 1024, i;
	uint32_t *grown = xcalloc(n, sizeof(*grown));

	for (i = 0; i < count; i++) {
		size_t j = hashes[i] & (n - 1);

		while (grown[j])
			j = (j + 1) & (n - 1);
		grown[j] = (uint32_t)i + 1;
	}
	free(*slots);
	*slots = grown;
	*nslots = n;
}

uint32_t prof_intern_hashed(struct prof_intern *t, const char *s, size_t len, uint64_t hash)
{
	size_t j;
	uint32_t id;

	if (t->count * 2 >= t->nslots)
		prof_hash_slots_grow(&t->slots, &t->nslots, t->hashes, t->count);
	j = hash & (t->nslots - 1);
	while ((id = t->slots[j]) != 0) {
		id--;
		if (t->hashes[id] == hash && t->lens[id] == len && memcmp(t->strs[id], s, len) == 0)
			return id;
		j = (j + 1) & (t->nslots - 1);
	}
	if (t->count == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 1024;
		t->strs = xreallocarray(t->strs, t->cap, sizeof(*t->strs));
		t->lens = xreallocarray(t->lens, t->cap, sizeof(*t->lens));
		t->hashes = xreallocarray(t->hashes, t->cap, sizeof(*t->hashes));
	}
	if (len > UINT32_MAX)
		len = UINT32_MAX;	/* names are never 4 GiB; keep the table sane */
	id = (uint32_t)t->count++;
	t->strs[id] = store(t, s, len);
	t->lens[id] = (uint32_t)len;
	t->hashes[id] = hash;
	t->slots[j] = id + 1;
	return id;
}

uint32_t prof_intern(struct prof_intern *t, const char *s, size_t len)
{
	return prof_intern_hashed(t, s, len, prof_hash(s, len));
}

uint32_t prof_intern_find(const struct prof_intern *t, const char *s, size_t len)
{
	uint64_t hash = prof_hash(s, len);
	size_t j;
	uint32_t id;

	if (!t->nslots)
		return UINT32_MAX;
	j = hash & (t->nslots - 1);
	while ((id = t->slots[j]) != 0) {
		id--;
		if (t->hashes[id] == hash && t->lens[id] == len && memcmp(t->strs[id], s, len) == 0)
			return id;
		j = (j + 1) & (t->nslots - 1);
	}
	return UINT32_MAX;
}
