/* lib/base/hashmap.c: integer keys to fixed-size values. */
#include <stdint.h>
#include <stdlib.h>
#include "../unit.h"
#include "base/hashmap.h"

struct item {
	int id;
	double weight;
	char name[16];
	void *ptr;
};

int main(void)
{
	struct prof_hashmap m;

	TEST("an empty table finds nothing") {
		prof_hashmap_init(&m, sizeof(struct item));
		CHECK(prof_hashmap_count(&m) == 0);
		CHECK(prof_hashmap_get(&m, 0) == NULL);
		CHECK(prof_hashmap_get(&m, 42) == NULL);
		prof_hashmap_release(&m);
	}
	TEST("put adds a zero-filled value once, get finds it, 0 is a key") {
		struct item *a, *b;
		int added = -1;

		prof_hashmap_init(&m, sizeof(struct item));
		a = prof_hashmap_put(&m, 0, &added);
		CHECK(a != NULL && added == 1);
		CHECK(a->id == 0 && a->weight == 0 && a->name[0] == 0 && a->ptr == NULL);
		a->id = 7;
		b = prof_hashmap_put(&m, 0, &added);
		CHECK(b == a && added == 0 && b->id == 7);
		CHECK(prof_hashmap_get(&m, 0) == a);
		CHECK(prof_hashmap_get(&m, 1) == NULL);
		CHECK(prof_hashmap_count(&m) == 1);
		CHECK(prof_hashmap_put(&m, UINT64_MAX, NULL) != a);
		CHECK(prof_hashmap_count(&m) == 2);
		prof_hashmap_release(&m);
	}
	TEST("100000 keys through many growths keep their values") {
		int ok = 1;

		prof_hashmap_init(&m, sizeof(struct item));
		for (uint64_t k = 1; k <= 100000; k++) {
			struct item *it = prof_hashmap_put(&m, k * 4096, NULL);

			it->id = (int)k;
			it->weight = (double)k / 2;
		}
		CHECK(prof_hashmap_count(&m) == 100000);
		for (uint64_t k = 1; k <= 100000 && ok; k++) {
			struct item *it = prof_hashmap_get(&m, k * 4096);

			ok = it && it->id == (int)k && it->weight == (double)k / 2;
		}
		CHECK(ok);
		CHECK(prof_hashmap_get(&m, 4096 * 100001ULL) == NULL);
		CHECK(prof_hashmap_get(&m, 4095) == NULL);
		prof_hashmap_release(&m);
		CHECK(prof_hashmap_count(&m) == 0 && prof_hashmap_get(&m, 4096) == NULL);
	}
	TEST("entries walk in insertion order with their keys") {
		static const uint64_t keys[] = { 9, 3, 1000000007, 0, 77 };
		int ok = 1;

		prof_hashmap_init(&m, sizeof(int));
		for (size_t i = 0; i < 5; i++)
			*(int *)prof_hashmap_put(&m, keys[i], NULL) = (int)i * 10;
		CHECK(prof_hashmap_count(&m) == 5);
		for (size_t i = 0; i < 5; i++) {
			uint64_t k;
			int *v = prof_hashmap_at(&m, i, &k);

			ok = ok && k == keys[i] && *v == (int)i * 10;
		}
		CHECK(ok);
		prof_hashmap_release(&m);
	}
	TEST("values are aligned for any type") {
		int ok = 1;

		prof_hashmap_init(&m, 3);
		for (uint64_t k = 0; k < 50; k++)
			ok = ok && (uintptr_t)prof_hashmap_put(&m, k, NULL) % _Alignof(max_align_t) == 0;
		CHECK(ok);
		prof_hashmap_release(&m);
	}
	TEST("a set: zero-size values, membership only") {
		prof_hashmap_init(&m, 0);
		CHECK(prof_hashmap_put(&m, 5, NULL) != NULL);
		CHECK(prof_hashmap_get(&m, 5) != NULL);
		CHECK(prof_hashmap_get(&m, 6) == NULL);
		CHECK(prof_hashmap_count(&m) == 1);
		prof_hashmap_release(&m);
	}
	TEST("remove: random puts and removes agree with a plain array") {
		enum { N = 4096 };
		static long ref[N];	/* 0: absent, else the value */
		uint64_t rng = 88172645463325252ULL;
		int ok = 1;
		size_t live = 0;

		prof_hashmap_init(&m, sizeof(long));
		CHECK(prof_hashmap_remove(&m, 1) == 0);
		for (long step = 1; step <= 200000 && ok; step++) {
			rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
			uint64_t k = rng % N;
			if (rng >> 60 < 9) {	/* put, a bit more often than remove */
				int added;
				long *v = prof_hashmap_put(&m, k, &added);

				ok = added == !ref[k] && (added || *v == ref[k]);
				live += (size_t)added;
				*v = ref[k] = step;
			} else {
				ok = prof_hashmap_remove(&m, k) == !!ref[k];
				live -= ref[k] != 0;
				ref[k] = 0;
			}
			ok = ok && prof_hashmap_count(&m) == live;
		}
		for (uint64_t k = 0; k < N && ok; k++) {
			long *v = prof_hashmap_get(&m, k);

			ok = ref[k] ? v && *v == ref[k] : v == NULL;
		}
		CHECK(ok);
		for (size_t i = 0; i < prof_hashmap_count(&m) && ok; i++) {
			uint64_t k;
			long *v = prof_hashmap_at(&m, i, &k);

			ok = ref[k] == *v;
		}
		CHECK(ok);
		prof_hashmap_release(&m);
	}
	TEST("the table is reusable after release") {
		prof_hashmap_init(&m, sizeof(long));
		*(long *)prof_hashmap_put(&m, 1, NULL) = 1;
		prof_hashmap_release(&m);
		CHECK(prof_hashmap_get(&m, 1) == NULL);
		*(long *)prof_hashmap_put(&m, 2, NULL) = 2;
		CHECK(*(long *)prof_hashmap_get(&m, 2) == 2 && prof_hashmap_count(&m) == 1);
		prof_hashmap_release(&m);
	}
	return UNIT_RESULT();
}
