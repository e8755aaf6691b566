/*
 * Unit tests of lib/codec's codecs (round trips of every codec and level
 * on edge inputs, corrupt input, the registry, the counting allocator),
 * lib/base/bench (calibrated timing) and lib/base/sha256.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/bench.h"
#include "codec/codec.h"
#include "codec/ops.h"
#include "base/sha256.h"
#include "../unit.h"

#define FAILED ((size_t)-1)

static uint32_t rng = 12345;

static uint32_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

struct sample {
	const char *name;
	unsigned char *data;
	size_t len;
};

static struct sample make(const char *name, size_t len, int kind)
{
	struct sample s = { name, malloc(len ? len : 1), len };

	for (size_t i = 0; i < len; i++) {
		switch (kind) {
		case 0:	/* incompressible */
			s.data[i] = (unsigned char)next_rand();
			break;
		case 1:	/* highly repetitive */
			s.data[i] = "abcabcabd"[i % 9];
			break;
		default: /* text-like: words from a small vocabulary */
			s.data[i] = (unsigned char)("the quick brown fox jumps over a lazy dog\n"
						    [(i * 7 + next_rand() % 3) % 42]);
			break;
		}
	}
	return s;
}

/* The levels to test: every level, except lz4's 65537 accelerations. */
static size_t levels_of(const struct prof_codec *c, int *out, size_t max)
{
	size_t n = 0;

	if (!prof_codec_has_levels(c)) {
		out[n++] = PROF_CODEC_NOLEVEL;
		return n;
	}
	if (strcmp(c->name, "lz4") == 0) {
		static const int accel[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 17, 100, 1000, 65537 };

		for (size_t i = 0; i < sizeof(accel) / sizeof(accel[0]); i++)
			out[n++] = accel[i];
		return n;
	}
	if (strcmp(c->name, "zstd") == 0) {
		out[n++] = -131072;
		for (int l = -7; l <= 22 && n < max; l++)
			out[n++] = l;
		return n;
	}
	for (int l = c->min_level; l <= c->max_level && n < max; l++)
		out[n++] = l;
	return n;
}

/* Codecs whose formats carry a checksum of the content. */
static int checksummed(const struct prof_codec *c)
{
	return strcmp(c->name, "gzip") == 0 || strcmp(c->name, "xz") == 0 ||
	       strcmp(c->name, "lz4f") == 0 || strcmp(c->name, "bzip2") == 0;
}

/*
 * Round trip s through x; then the truncated and bit-flipped streams must
 * give an error (or, for formats that carry neither size nor checksum,
 * at least never the original content of the original size).
 */
static int round_trip(struct prof_codec_ctx *x, const struct prof_codec *c, int level,
		      const struct sample *s, char *why, size_t whylen)
{
	size_t cap = prof_codec_bound(c, level, s->len);
	unsigned char *comp = malloc(cap ? cap : 1);
	unsigned char *out = malloc(s->len + 64);
	size_t clen, dlen;
	int rc = -1;

	clen = prof_codec_compress(x, comp, cap, s->data, s->len);
	if (clen == FAILED) {
		snprintf(why, whylen, "compress: %s", prof_codec_ctx_error(x));
		goto out;
	}
	if (clen > cap) {
		snprintf(why, whylen, "compressed %zu > bound %zu", clen, cap);
		goto out;
	}
	/* twice: the reused context must give the same result */
	for (int pass = 0; pass < 2; pass++) {
		memset(out, 0xA5, s->len + 64);
		dlen = prof_codec_decompress(x, out, s->len, comp, clen);
		if (dlen != s->len || memcmp(out, s->data, s->len) != 0) {
			snprintf(why, whylen, "decompress pass %d: %zu bytes (%s)", pass, dlen,
				 prof_codec_ctx_error(x));
			goto out;
		}
	}
	/* no room: an error; codecs with sizes say it is for lack of room */
	if (s->len > 0 && strcmp(c->name, "memcpy") != 0) {
		dlen = prof_codec_decompress(x, out, s->len - 1, comp, clen);
		if (dlen != FAILED) {
			snprintf(why, whylen, "decompress into %zu bytes did not fail", s->len - 1);
			goto out;
		}
		if ((c->flags & PROF_CODEC_F_SIZED) && !prof_codec_ctx_too_small(x)) {
			snprintf(why, whylen, "too small buffer not recognised: %s",
				 prof_codec_ctx_error(x));
			goto out;
		}
	}
	/* truncated */
	for (size_t cut = 0; strcmp(c->name, "memcpy") != 0 && cut < clen;
	     cut += 1 + clen / 7) {
		dlen = prof_codec_decompress(x, out, s->len + 64, comp, cut);
		if ((c->flags & PROF_CODEC_F_SIZED) ? dlen != FAILED
		    : (dlen == s->len && memcmp(out, s->data, s->len) == 0)) {
			snprintf(why, whylen, "truncated to %zu of %zu bytes: not detected", cut, clen);
			goto out;
		}
	}
	/* bit flips: never a crash; with a checksum, never wrong data */
	for (size_t pos = 0; strcmp(c->name, "memcpy") != 0 && pos < clen;
	     pos += 1 + clen / 13) {
		comp[pos] ^= (unsigned char)(1u << (pos % 8));
		dlen = prof_codec_decompress(x, out, s->len + 64, comp, clen);
		comp[pos] ^= (unsigned char)(1u << (pos % 8));
		if (checksummed(c) && dlen != FAILED &&
		    (dlen != s->len || memcmp(out, s->data, s->len) != 0)) {
			snprintf(why, whylen, "bit flip at %zu decoded to wrong data", pos);
			goto out;
		}
	}
	/* trailing garbage after a complete stream */
	if (strcmp(c->name, "memcpy") != 0 && strcmp(c->name, "lz4") != 0 &&
	    strcmp(c->name, "lz4hc") != 0 && strcmp(c->name, "snappy") != 0) {
		unsigned char *longer = malloc(clen + 8);

		memcpy(longer, comp, clen);
		memcpy(longer + clen, "garbage!", 8);
		dlen = prof_codec_decompress(x, out, s->len + 64, longer, clen + 8);
		free(longer);
		if (dlen != FAILED) {
			snprintf(why, whylen, "trailing garbage accepted");
			goto out;
		}
	}
	rc = 0;
out:
	free(comp);
	free(out);
	return rc;
}

static uint64_t counters[8];

static int spin(void *arg, unsigned thread)
{
	volatile unsigned x = 0;

	(void)arg;
	for (int i = 0; i < 200; i++)
		x += (unsigned)i;
	counters[thread]++;
	return 0;
}

static int fail_third(void *arg, unsigned thread)
{
	int *calls = arg;

	(void)thread;
	return ++*calls >= 3 ? -1 : 0;
}

/* Every level of c on the edge inputs. */
static void test_round_trips(const struct prof_codec *c, const struct sample *edge, size_t nedge)
{
	int levels[64];
	size_t nl = levels_of(c, levels, 64);
	char name[128], why[256], err[256];

	snprintf(name, sizeof(name), "%s: round trips at every level on edge inputs", c->name);
	TEST(name) {
		for (size_t l = 0; l < nl; l++) {
			struct prof_codec_ctx *x = prof_codec_ctx_new(c, levels[l], NULL, 0,
								      err, sizeof(err));
			CHECK(x != NULL);
			if (!x) {
				printf("  %s level %d: %s\n", c->name, levels[l], err);
				break;
			}
			for (size_t e = 0; e < nedge; e++) {
				int ok = round_trip(x, c, levels[l], &edge[e], why, sizeof(why)) == 0;

				if (!ok)
					printf("  %s level %d, %s: %s\n", c->name, levels[l],
					       edge[e].name, why);
				CHECK(ok);
			}
			prof_codec_ctx_free(x);
		}
	}
}

/* The default level on larger inputs, and the memory the codec reports. */
static void test_larger(const struct prof_codec *c, const struct sample *big,
			const struct sample *rnd)
{
	char name[128], why[256], err[256];

	snprintf(name, sizeof(name), "%s: default level on larger inputs, memory known", c->name);
	TEST(name) {
		struct prof_codec_ctx *x = prof_codec_ctx_new(c, PROF_CODEC_NOLEVEL, NULL, 0,
							      err, sizeof(err));
		int ok;

		CHECK(x != NULL);
		if (x) {
			int lv = prof_codec_has_levels(c) ? c->default_level : PROF_CODEC_NOLEVEL;

			ok = round_trip(x, c, lv, big, why, sizeof(why)) == 0;
			if (!ok)
				printf("  %s: %s: %s\n", c->name, big->name, why);
			CHECK(ok);
			ok = round_trip(x, c, lv, rnd, why, sizeof(why)) == 0;
			if (!ok)
				printf("  %s: %s: %s\n", c->name, rnd->name, why);
			CHECK(ok);
			if (strcmp(c->name, "snappy") != 0 && strcmp(c->name, "lz4f") != 0) {
				CHECK(prof_codec_comp_mem(x) >= 0);
				CHECK(prof_codec_decomp_mem(x) >= 0);
			}
			if (strcmp(c->name, "zstd") == 0 || strcmp(c->name, "zlib") == 0)
				CHECK(prof_codec_comp_mem(x) > 0);
			prof_codec_ctx_free(x);
		}
	}
}

static void test_checks(const struct prof_codec *c)
{
	char name[128], err[256];

	snprintf(name, sizeof(name), "%s: version and level checks", c->name);
	TEST(name) {
		struct prof_codec_ctx *x;

		CHECK(prof_codec_version(c)[0] != '\0');
		CHECK(strcmp(prof_codec_version(c), "unknown") != 0);
		if (prof_codec_has_levels(c)) {
			x = prof_codec_ctx_new(c, c->max_level + 1, NULL, 0, err, sizeof(err));
			CHECK(x == NULL);
			CHECK(strstr(err, "out of range") != NULL);
		} else {
			x = prof_codec_ctx_new(c, 3, NULL, 0, err, sizeof(err));
			CHECK(x == NULL);
			CHECK(strstr(err, "no levels") != NULL);
		}
		if (!(c->flags & PROF_CODEC_F_DICT)) {
			x = prof_codec_ctx_new(c, PROF_CODEC_NOLEVEL, "dict", 4, err, sizeof(err));
			CHECK(x == NULL);
		}
	}
}

static void test_plausible(const struct sample *rnd)
{
	TEST("compressibility is plausible: repetitive shrinks, random does not") {
		char err[256];
		const struct prof_codec *z = prof_codec_find("zstd");
		struct prof_codec_ctx *x = prof_codec_ctx_new(z, 3, NULL, 0, err, sizeof(err));
		struct sample rep = make("rep", 100000, 1);
		size_t cap = prof_codec_bound(z, 3, 100000);
		char *buf = malloc(cap);
		size_t n;

		n = prof_codec_compress(x, buf, cap, rep.data, rep.len);
		CHECK(n != FAILED && n * 100 < rep.len);
		n = prof_codec_compress(x, buf, cap, rnd->data, rnd->len);
		CHECK(n != FAILED && n >= rnd->len && n < rnd->len + rnd->len / 100);
		free(buf);
		free(rep.data);
		prof_codec_ctx_free(x);
	}
}

static void test_dictionaries(const struct sample *big)
{
	TEST("zstd and zlib dictionaries round trip and help") {
		const char *names[] = { "zstd", "zlib" };

		for (int k = 0; k < 2; k++) {
			const struct prof_codec *c = prof_codec_find(names[k]);
			char err[256], why[256];
			struct prof_codec_ctx *plain = prof_codec_ctx_new(c, PROF_CODEC_NOLEVEL, NULL, 0,
									  err, sizeof(err));
			struct prof_codec_ctx *x = prof_codec_ctx_new(c, PROF_CODEC_NOLEVEL, big->data,
								      20000, err, sizeof(err));
			struct sample s = { "dict sample", big->data + 1000, 2000 };
			size_t cap = prof_codec_bound(c, 3, s.len);
			char *buf = malloc(cap);
			size_t with, without;

			CHECK(x != NULL && plain != NULL);
			if (!x || !plain)
				break;
			CHECK(round_trip(x, c, c->default_level, &s, why, sizeof(why)) == 0);
			with = prof_codec_compress(x, buf, cap, s.data, s.len);
			without = prof_codec_compress(plain, buf, cap, s.data, s.len);
			CHECK(with != FAILED && without != FAILED && with < without);
			free(buf);
			prof_codec_ctx_free(x);
			prof_codec_ctx_free(plain);
		}
	}
}

static void test_registry(void)
{
	TEST("lookup and the list of codecs") {
		CHECK(prof_codec_find("zstd") != NULL);
		CHECK(prof_codec_find("memcpy") != NULL);
		CHECK(prof_codec_find("nope") == NULL);
		/* a codec is either built or listed as not built, never both */
		for (size_t i = 0; prof_codecs_not_built[i]; i++) {
			CHECK(prof_codec_find(prof_codecs_not_built[i]) == NULL);
			CHECK(prof_codec_is_not_built(prof_codecs_not_built[i]));
		}
		for (size_t i = 0; prof_codecs[i]; i++) {
			CHECK(!prof_codec_is_not_built(prof_codecs[i]->name));
			CHECK(prof_codecs[i]->library && prof_codecs[i]->library[0]);
			CHECK(prof_codecs[i]->ops != NULL);
		}
		CHECK(!prof_codec_is_not_built("nope"));
		CHECK((prof_codec_find("memcpy")->flags & PROF_CODEC_F_BASELINE) != 0);
		CHECK((prof_codec_find("zstd")->flags & PROF_CODEC_F_ZERO_DEFAULT) != 0);
		CHECK((prof_codec_find("zlib")->flags & PROF_CODEC_F_ZERO_DEFAULT) == 0);
	}
}

static void test_counting_allocator(void)
{
	TEST("counting allocator: live and peak bytes, freed blocks reused by size") {
		struct prof_codec_mem m;
		char *a, *b, *c;

		memset(&m, 0, sizeof(m));
		a = prof_codec_mem_alloc(&m, 1000);
		b = prof_codec_mem_alloc(&m, 24);
		CHECK(a && b && ((uintptr_t)a & 15) == 0 && m.live == 1024 && m.peak == 1024);
		memset(a, 1, 1000);
		prof_codec_mem_free(&m, a);
		CHECK(m.live == 24 && m.peak == 1024 && m.ncache == 1);
		c = prof_codec_mem_alloc(&m, 1000);
		CHECK(c == a && m.ncache == 0 && m.live == 1024);
		prof_codec_mem_free(&m, c);
		prof_codec_mem_free(&m, b);
		prof_codec_mem_free(&m, NULL);
		CHECK(m.live == 0 && m.ncache == 2);
		prof_codec_mem_release(&m);
		CHECK(m.ncache == 0);
		/* no allocator to give it back to: freed at once, not cached */
		prof_codec_mem_free(NULL, prof_codec_mem_alloc(&m, 40));
		CHECK(m.ncache == 0 && m.live == 40);
	}
	TEST("what codec files call back: counted memory and context errors") {
		struct prof_codec_ctx x;
		char longer[400];

		memset(&x, 0, sizeof(x));
		x.cmem.peak = 123;
		x.dmem.peak = 4567;
		CHECK(prof_codec_counted_mem(&x, 0) == 123);
		CHECK(prof_codec_counted_mem(&x, 1) == 4567);
		prof_codec_ctx_err(&x, "%s failed: %d", "deflate", -3);
		CHECK_STR(x.err, "deflate failed: -3");
		memset(longer, 'e', sizeof(longer) - 1);
		longer[sizeof(longer) - 1] = '\0';
		prof_codec_ctx_err(&x, "%s", longer);
		CHECK(strlen(x.err) == sizeof(x.err) - 1 && x.err[0] == 'e');
	}
	TEST("a block over the codec's API limit is an error, not a crash") {
		const struct prof_codec *c = prof_codec_find("lz4");
		char err[256];
		struct prof_codec_ctx *x = prof_codec_ctx_new(c, 1, NULL, 0, err, sizeof(err));
		char src[1], dst[16];

		CHECK(x != NULL);
		if (x) {
			/* the length alone is checked: src is never read */
			CHECK(prof_codec_compress(x, dst, sizeof(dst), src, (size_t)INT32_MAX) == FAILED);
			CHECK(strstr(prof_codec_ctx_error(x), "exceeds the lz4 API limit") != NULL);
			prof_codec_ctx_free(x);
		}
	}
}

static void test_sha256(void)
{
	TEST("sha256 of the FIPS 180-2 test vectors") {
		char hex[65];
		struct prof_sha256 s;
		unsigned char d[32], a[1001];

		prof_sha256_hex("", 0, hex);
		CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
		prof_sha256_hex("abc", 3, hex);
		CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
		prof_sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, hex);
		CHECK_STR(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
		memset(a, 'a', sizeof(a));
		prof_sha256_init(&s);
		for (int i = 0; i < 1000; i++)
			prof_sha256_update(&s, a, i % 2 ? 999 : 1001);	/* odd pieces */
		prof_sha256_final(&s, d);
		CHECK(d[0] == 0xcd && d[1] == 0xc7 && d[31] == 0xd0);
	}
}

static void test_bench(void)
{
	TEST("bench: batches, iterations and statistics") {
		struct prof_bench_opts o = { 0.02, 0.002, PROF_BENCH_MIN, 1 };
		struct prof_bench_result r;
		enum prof_bench_stat st;

		CHECK(prof_bench_stat_parse("median", &st) == 0 && st == PROF_BENCH_MEDIAN);
		CHECK(prof_bench_stat_parse("max", &st) == -1);
		CHECK_STR(prof_bench_stat_name(PROF_BENCH_MEAN), "mean");
		for (int k = 0; k < 3; k++) {
			memset(counters, 0, sizeof(counters));
			o.stat = (enum prof_bench_stat)k;
			CHECK(prof_bench_run(&o, spin, NULL, &r) == 0);
			/* one untimed warm-up iteration, then the timed ones */
			CHECK(r.iterations > 10 && counters[0] == r.iterations + 1);
			CHECK(r.batches >= 2);
			CHECK(r.wall_s > 0 && r.wall_s < 0.001);
			CHECK(r.cpu_s > 0);
		}
	}

	TEST("bench: threads each run every iteration; errors stop the run") {
		struct prof_bench_opts o = { 0.01, 0.001, PROF_BENCH_MEDIAN, 3 };
		struct prof_bench_result r;
		int calls = 0;

		memset(counters, 0, sizeof(counters));
		CHECK(prof_bench_run(&o, spin, NULL, &r) == 0);
		CHECK(counters[0] == r.iterations + 1 && counters[1] == counters[0] &&
		      counters[2] == counters[0] && counters[3] == 0);
		o.threads = 1;
		CHECK(prof_bench_run(&o, fail_third, &calls, &r) == -1);
		CHECK(calls == 3 && r.iterations == 0 && r.wall_s == 0);
	}
}

int main(void)
{
	struct sample edge[] = {
		make("empty", 0, 0),
		make("one byte", 1, 1),
		make("random 1000", 1000, 0),
		make("repetitive 3000", 3000, 1),
		make("text 4097", 4097, 2),
	};
	const size_t nedge = sizeof(edge) / sizeof(edge[0]);
	struct sample big = make("text 300000", 300000, 2);
	struct sample rnd = make("random 65536", 65536, 0);

	for (size_t i = 0; prof_codecs[i]; i++) {
		test_round_trips(prof_codecs[i], edge, nedge);
		test_larger(prof_codecs[i], &big, &rnd);
		test_checks(prof_codecs[i]);
	}
	test_plausible(&rnd);
	test_dictionaries(&big);
	test_registry();
	test_counting_allocator();
	test_sha256();
	test_bench();
	free(big.data);
	free(rnd.data);
	for (size_t e = 0; e < nedge; e++)
		free(edge[e].data);
	return UNIT_RESULT();
}
