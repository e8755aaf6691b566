#ifndef PROF_SHA256_H
#define PROF_SHA256_H
/*
 * SHA-256 (FIPS 180-4), for naming the exact input of a benchmark in its
 * metadata. Incremental: init, update any number of times, final.
 */
#include <stddef.h>
#include <stdint.h>

struct prof_sha256 {
	uint32_t h[8];
	uint64_t len;		/* bytes hashed so far */
	unsigned char buf[64];
	size_t nbuf;
};

void prof_sha256_init(struct prof_sha256 *s);
void prof_sha256_update(struct prof_sha256 *s, const void *p, size_t n);
/* Finish and store the 32-byte digest; s must be re-initialised to reuse. */
void prof_sha256_final(struct prof_sha256 *s, unsigned char digest[32]);
/* Digest of p[0..n) as 64 lowercase hex digits plus NUL into hex. */
void prof_sha256_hex(const void *p, size_t n, char hex[65]);

#endif
