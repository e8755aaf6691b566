/*
 * formats/protobuf: varints at their size boundaries both ways, int64
 * negatives as 10 bytes, packed fields; truncated input (a varint, a
 * length past the end, a fixed value) and bad tags refused with the byte
 * offset of the field, nested offsets counted from the outermost message.
 */
#include <stdint.h>
#include <string.h>
#include "base/buf.h"
#include "formats/protobuf.h"
#include "../unit.h"

static void collect(void *ctx, uint64_t v)
{
	struct prof_buf *b = ctx;

	prof_buf_addf(b, "%llu,", (unsigned long long)v);
}

int main(void)
{
	TEST("varint sizes and values round trip") {
		static const uint64_t v[] = { 0, 1, 127, 128, 300, 16383, 16384, UINT32_MAX,
					      (uint64_t)1 << 63, UINT64_MAX };
		static const size_t size[] = { 1, 1, 1, 2, 2, 2, 3, 5, 10, 10 };
		size_t i;

		for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
			struct prof_buf b = PROF_BUF_INIT;
			struct prof_pb_reader r;
			uint64_t got = 12345;

			prof_pb_put_varint(&b, v[i]);
			CHECK(b.len == size[i]);
			prof_pb_reader_init(&r, b.data, b.len);
			CHECK(prof_pb_read_varint(&r, &got) == 0 && got == v[i] && r.pos == b.len);
			prof_buf_release(&b);
		}
	}
	TEST("known encodings") {
		struct prof_buf b = PROF_BUF_INIT;

		prof_pb_put_uint(&b, 1, 150);	/* the protobuf guide's example: 08 96 01 */
		CHECK(b.len == 3 && memcmp(b.data, "\x08\x96\x01", 3) == 0);
		prof_buf_reset(&b);
		prof_pb_put_int(&b, 2, -1);	/* int64 -1: ten bytes */
		CHECK(b.len == 11 && (unsigned char)b.data[0] == 0x10 &&
		      (unsigned char)b.data[10] == 0x01);
		prof_buf_reset(&b);
		prof_pb_put_bytes(&b, 6, "abc", 3);
		CHECK(b.len == 5 && memcmp(b.data, "\x32\x03" "abc", 5) == 0);
		prof_buf_reset(&b);
		prof_pb_put_packed(&b, 1, (const uint64_t[]){ 3, 270, 86942 }, 3);
		CHECK(b.len == 8 && memcmp(b.data, "\x0a\x06\x03\x8e\x02\x9e\xa7\x05", 8) == 0);
		prof_buf_reset(&b);
		prof_pb_put_packed(&b, 1, NULL, 0);
		CHECK(b.len == 0);
		prof_buf_release(&b);
	}
	TEST("fields read back, packed and unpacked repeated") {
		struct prof_buf b = PROF_BUF_INIT, got = PROF_BUF_INIT;
		struct prof_pb_reader r;
		struct prof_pb_field f;
		int k, n = 0;

		prof_pb_put_uint(&b, 3, 7);
		prof_pb_put_packed(&b, 1, (const uint64_t[]){ 1, 300 }, 2);
		prof_pb_put_uint(&b, 1, 9);	/* the same field unpacked */
		prof_buf_add(&b, "\x0d\x01\x02\x03\x04", 5);	/* field 1, 32-bit */
		prof_buf_add(&b, "\x11" "12345678", 9);		/* field 2, 64-bit */
		prof_pb_reader_init(&r, b.data, b.len);
		while ((k = prof_pb_next(&r, &f)) > 0) {
			n++;
			if (f.number == 1 && f.wire != PROF_PB_I32)
				CHECK(prof_pb_repeated(&r, &f, collect, &got) == 0);
		}
		CHECK(k == 0 && n == 5);
		CHECK_STR(prof_buf_cstr(&got), "1,300,9,");
		CHECK(f.wire == PROF_PB_I64 && f.value == 0x3837363534333231ull);
		prof_buf_release(&b);
		prof_buf_release(&got);
	}
	TEST("truncated input: the byte offset of what is cut") {
		struct prof_pb_reader r;
		struct prof_pb_field f;
		uint64_t v;

		prof_pb_reader_init(&r, "\x08\x96", 2);		/* varint cut */
		CHECK(prof_pb_next(&r, &f) == -1 && r.error_at == 1);
		CHECK(strstr(r.error, "truncated varint") != NULL);
		prof_pb_reader_init(&r, "\x08\x01\x32\x05" "ab", 6);	/* length past the end */
		CHECK(prof_pb_next(&r, &f) == 1 && f.value == 1);
		CHECK(prof_pb_next(&r, &f) == -1 && r.error_at == 2);
		CHECK(strstr(r.error, "truncated length-delimited") != NULL);
		prof_pb_reader_init(&r, "\x09" "1234", 5);	/* 64-bit value cut */
		CHECK(prof_pb_next(&r, &f) == -1 && r.error_at == 1);
		prof_pb_reader_init(&r, "\x0b\x00", 2);		/* group: wire type 3 */
		CHECK(prof_pb_next(&r, &f) == -1 && r.error_at == 0);
		prof_pb_reader_init(&r, "\x00\x01", 2);		/* field number 0 */
		CHECK(prof_pb_next(&r, &f) == -1);
		prof_pb_reader_init(&r, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11);
		CHECK(prof_pb_read_varint(&r, &v) == -1 && strstr(r.error, "too long") != NULL);
	}
	TEST("nested offsets count from the outermost message") {
		struct prof_buf b = PROF_BUF_INIT, inner = PROF_BUF_INIT;
		struct prof_pb_reader r, sub;
		struct prof_pb_field f, g;

		prof_pb_put_uint(&b, 1, 1);			/* bytes 0-1 */
		prof_buf_add(&inner, "\x08\x01\x10\x80", 4);	/* field 2's varint cut */
		prof_pb_put_bytes(&b, 2, inner.data, inner.len);	/* tag 2, len 3, payload 4.. */
		prof_pb_reader_init(&r, b.data, b.len);
		CHECK(prof_pb_next(&r, &f) == 1 && prof_pb_next(&r, &f) == 1 && f.offset == 4);
		prof_pb_reader_sub(&f, &sub);
		CHECK(prof_pb_next(&sub, &g) == 1 && g.value == 1);
		CHECK(prof_pb_next(&sub, &g) == -1 && sub.error_at == 7);
		prof_buf_release(&b);
		prof_buf_release(&inner);
	}
	return UNIT_RESULT();
}
