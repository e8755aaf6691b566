/*
 * formats/pprof: a stack table written as profile.proto and read back
 * gives the same stacks and weights (frames deduplicated, leaf first on
 * the wire); sample types from metadata; a hand-made Go-style profile
 * (inlined lines, an unsymbolized location, no default type) folds root
 * first, the last type by default, a named type or event alias on
 * request; detection; truncated and inconsistent messages refused with
 * the byte offset; names written as valid UTF-8 and read back as folded
 * text can hold them; time_nanos and duration_nanos as from/until.
 */
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include "base/buf.h"
#include "core/meta.h"
#include "core/stack.h"
#include "formats/folded.h"
#include "formats/pprof.h"
#include "formats/protobuf.h"
#include "io/input.h"
#include "io/output.h"
#include "../unit.h"

/* t as sorted "stack w" lines. */
static char *folded(const struct prof_stacks *t)
{
	struct prof_buf b = PROF_BUF_INIT;
	char num[64];
	size_t n, i;
	uint32_t *ids = prof_stacks_sorted(t, &n);

	for (i = 0; i < n; i++) {
		prof_stacks_format(t, ids[i], &b);
		prof_buf_addch(&b, ' ');
		prof_buf_add(&b, num, prof_format_count(num, prof_stacks_weights(t, ids[i])[0]));
		prof_buf_addch(&b, '\n');
	}
	free(ids);
	return prof_buf_detach(&b, NULL);
}

static void add(struct prof_stacks *t, const char *stack, prof_weight w, prof_weight samples)
{
	uint32_t f[16];
	size_t n = 0;
	const char *p = stack;
	prof_weight row[2] = { w, samples };

	for (;;) {
		const char *semi = strchr(p, ';');
		size_t len = semi ? (size_t)(semi - p) : strlen(p);

		f[n++] = prof_stacks_frame(t, p, len);
		if (!semi)
			break;
		p = semi + 1;
	}
	prof_stacks_add(t, f, n, row);
}

/* p written to a file and read back: the message's bytes. */
static char *write_bytes(const struct prof_pprof_profile *p, size_t *len)
{
	char *path = unit_temp_file(""), *data;
	struct prof_output *o = prof_output_open(path, PROF_OUT_ATOMIC, PROF_COMP_NONE);

	if (prof_pprof_write(p, o) || prof_output_close(o))
		return NULL;
	data = prof_read_file(path, len);
	unlink(path);
	free(path);
	return data;
}

static int read_bytes(const void *data, size_t len, const char *type, struct prof_stacks *t,
		      struct prof_meta *meta)
{
	struct prof_pprof_read_opts o = { .type = type };

	return prof_pprof_read(data, len, "test.pb", &o, t, meta);
}

int main(void)
{
	char *data;
	size_t len;

	TEST("write then read: same stacks, metadata types") {
		struct prof_stacks t, back;
		struct prof_meta meta = PROF_META_INIT, got = PROF_META_INIT;
		struct prof_pprof_profile p;
		char *a, *b;

		prof_stacks_init(&t, 2);
		add(&t, "app;main;work;leaf", 3000000, 3);
		add(&t, "app;main;work", 1000000, 1);
		add(&t, "app;main;other_[k]", 5, 1);	/* annotations kept */
		add(&t, "app;main;work;main", 2, 1);	/* recursion: one function */
		prof_meta_parse_line(&meta, "# event=cpu-clock unit=ns freq=1000 start_time=2026-01-02T03:04:05Z", 67);
		prof_pprof_describe(&p, &t, &meta, 0, 1);
		CHECK(p.ntypes == 2 && !strcmp(p.types[0].type, "samples") && !strcmp(p.types[1].type, "cpu"));
		CHECK(p.default_type == 1 && p.period == 1000000 && p.time_nanos == 1767323045000000000LL);
		data = write_bytes(&p, &len);
		CHECK(data && prof_pprof_detect(data, len, 1));
		prof_stacks_init(&back, 1);
		CHECK(read_bytes(data, len, NULL, &back, &got) == 0);
		a = folded(&t);
		b = folded(&back);
		CHECK_STR(a, b);
		CHECK(prof_intern_count(&back.frames) == 5);
		CHECK_STR(prof_meta_get(&got, "event"), "cpu");
		CHECK_STR(prof_meta_get(&got, "unit"), "ns");
		CHECK_STR(prof_meta_get(&got, "start_time"), "2026-01-02T03:04:05Z");
		free(b);
		prof_stacks_release(&back);
		prof_stacks_init(&back, 1);	/* the samples type by name */
		CHECK(read_bytes(data, len, "samples", &back, &got) == 0);
		b = folded(&back);
		CHECK_STR(b, "app;main;other_[k] 1\napp;main;work 1\napp;main;work;leaf 3\napp;main;work;main 1\n");
		CHECK_STR(prof_meta_get(&got, "unit"), "samples");
		free(a);
		free(b);
		/* cut anywhere: an error, never a crash (messages to /dev/null) */
		fflush(stderr);
		int err = dup(2), null = open("/dev/null", O_WRONLY);
		dup2(null, 2);
		for (size_t cut = 1; cut < len; cut += 3) {
			struct prof_stacks x;
			struct prof_meta m = PROF_META_INIT;

			prof_stacks_init(&x, 1);
			read_bytes(data, cut, NULL, &x, &m);
			prof_stacks_release(&x);
			prof_meta_release(&m);
		}
		dup2(err, 2);
		close(err);
		close(null);
		free(data);
		prof_stacks_release(&t);
		prof_stacks_release(&back);
		prof_meta_release(&meta);
		prof_meta_release(&got);
	}
	TEST("metadata units: bytes, allocations, events") {
		struct prof_stacks t;
		struct prof_meta m = PROF_META_INIT;
		struct prof_pprof_profile p;

		prof_stacks_init(&t, 1);
		prof_meta_parse_line(&m, "# tool=profheap report=leak unit=bytes", 38);
		prof_pprof_describe(&p, &t, &m, 0, -1);
		CHECK(p.ntypes == 1 && !strcmp(p.types[0].type, "leak_space") && !strcmp(p.types[0].unit, "bytes"));
		prof_meta_parse_line(&m, "# report=count unit=allocations", 31);
		prof_pprof_describe(&p, &t, &m, 0, -1);
		CHECK(!strcmp(p.types[0].type, "alloc_objects") && !strcmp(p.types[0].unit, "count"));
		prof_meta_release(&m);
		prof_meta_parse_line(&m, "# event=offcpu-time unit=ns", 27);
		prof_pprof_describe(&p, &t, &m, 0, 1);
		CHECK(p.ntypes == 2 && !strcmp(p.types[1].type, "off_cpu"));
		prof_meta_release(&m);
		prof_meta_parse_line(&m, "# event=cycles unit=cycles", 26);
		prof_pprof_describe(&p, &t, &m, 0, -1);
		CHECK(!strcmp(p.types[0].type, "cycles") && !strcmp(p.types[0].unit, "count"));
		prof_meta_release(&m);
		prof_stacks_release(&t);
	}
	TEST("a Go-style profile: inlined lines, addresses, the last type") {
		struct prof_buf b = PROF_BUF_INIT, s = PROF_BUF_INIT, l = PROF_BUF_INIT;
		struct prof_stacks t;
		struct prof_meta m = PROF_META_INIT;
		static const char *const strs[] = { "", "samples", "count", "cpu", "nanoseconds",
						    "main.main", "main.inl", "runtime.main" };
		char *got;
		size_t i;

		for (i = 1; i < 5; i += 2) {	/* sample types: samples/count, cpu/nanoseconds */
			prof_buf_reset(&s);
			prof_pb_put_uint(&s, 1, i);
			prof_pb_put_uint(&s, 2, i + 1);
			prof_pb_put_bytes(&b, 1, s.data, s.len);
		}
		/* sample: leaf location 10 (unsymbolized), 11 (inl inlined into main), 12 */
		prof_buf_reset(&s);
		prof_pb_put_packed(&s, 1, (const uint64_t[]){ 10, 11, 12 }, 3);
		prof_pb_put_packed(&s, 2, (const uint64_t[]){ 2, 20000000 }, 2);
		prof_pb_put_bytes(&b, 2, s.data, s.len);
		prof_buf_reset(&s);	/* location 10: no lines */
		prof_pb_put_uint(&s, 1, 10);
		prof_pb_put_uint(&s, 3, 0x4a2b);
		prof_pb_put_bytes(&b, 4, s.data, s.len);
		prof_buf_reset(&s);	/* location 11: lines inl (callee), main.main (caller) */
		prof_pb_put_uint(&s, 1, 11);
		prof_buf_reset(&l);
		prof_pb_put_uint(&l, 1, 2);
		prof_pb_put_bytes(&s, 4, l.data, l.len);
		prof_buf_reset(&l);
		prof_pb_put_uint(&l, 1, 1);
		prof_pb_put_bytes(&s, 4, l.data, l.len);
		prof_pb_put_bytes(&b, 4, s.data, s.len);
		prof_buf_reset(&s);	/* location 12: runtime.main */
		prof_pb_put_uint(&s, 1, 12);
		prof_buf_reset(&l);
		prof_pb_put_uint(&l, 1, 3);
		prof_pb_put_bytes(&s, 4, l.data, l.len);
		prof_pb_put_bytes(&b, 4, s.data, s.len);
		for (i = 1; i <= 3; i++) {	/* functions 1..3: strings 5..7 */
			prof_buf_reset(&s);
			prof_pb_put_uint(&s, 1, i);
			prof_pb_put_uint(&s, 2, i + 4);
			prof_pb_put_bytes(&b, 5, s.data, s.len);
		}
		for (i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
			prof_pb_put_bytes(&b, 6, strs[i], strlen(strs[i]));
		CHECK(prof_pprof_detect(b.data, b.len, 1));
		CHECK(prof_pprof_detect(b.data, 20, 0));	/* a window cut inside a field */
		prof_stacks_init(&t, 1);
		CHECK(read_bytes(b.data, b.len, NULL, &t, &m) == 0);
		got = folded(&t);
		CHECK_STR(got, "runtime.main;main.main;main.inl;0x4a2b 20000000\n");
		free(got);
		CHECK(read_bytes(b.data, b.len, "cpu-clock", &t, &m) == 0);	/* the event alias */
		CHECK(read_bytes(b.data, b.len, "alloc_space", &t, &m) == -1);
		/* a string index out of range: refused, nothing added */
		prof_pb_put_bytes(&b, 5, "\x08\x04\x10\x63", 4);	/* function 4, name 99 */
		prof_stacks_release(&t);
		prof_stacks_init(&t, 1);
		CHECK(read_bytes(b.data, b.len, NULL, &t, &m) == -1 && prof_stacks_count(&t) == 0);
		prof_stacks_release(&t);
		prof_meta_release(&m);
		prof_buf_release(&b);
		prof_buf_release(&s);
		prof_buf_release(&l);
	}
	TEST("names: invalid UTF-8 written as U+FFFD; ';' and line breaks made folded-safe on reading") {
		struct prof_stacks t, back;
		struct prof_meta meta = PROF_META_INIT, got = PROF_META_INIT;
		struct prof_pprof_profile p;
		struct prof_buf b = PROF_BUF_INIT, s = PROF_BUF_INIT;
		static const char *const strs[] = { "", "cpu", "nanoseconds", "ns;a::f", "line\nbreak\r" };
		char *a;
		size_t i;

		prof_stacks_init(&t, 1);
		add(&t, "main;bad\xff\xfename;cut\xc3", 5, 0);
		add(&t, "main;caf\xc3\xa9", 1, 0);	/* valid: unchanged */
		prof_meta_parse_line(&meta, "# event=cpu-clock unit=ns", 25);
		prof_pprof_describe(&p, &t, &meta, 0, -1);
		data = write_bytes(&p, &len);
		CHECK(data && !memmem(data, len, "\xff", 1) && memmem(data, len, "caf\xc3\xa9", 5) &&
		      memmem(data, len, "bad\xef\xbf\xbd\xef\xbf\xbdname", 12) &&
		      memmem(data, len, "cut\xef\xbf\xbd", 6));
		prof_stacks_init(&back, 1);
		CHECK(read_bytes(data, len, NULL, &back, &got) == 0);
		a = folded(&back);
		CHECK_STR(a, "main;bad\xef\xbf\xbd\xef\xbf\xbdname;cut\xef\xbf\xbd 5\nmain;caf\xc3\xa9 1\n");
		free(a);
		free(data);
		prof_stacks_release(&back);
		prof_stacks_release(&t);
		prof_meta_release(&got);

		/* a profile naming functions "ns;a::f" and "line\nbreak\r", with
		 * time_nanos and duration_nanos */
		prof_buf_reset(&s);
		prof_pb_put_uint(&s, 1, 1);
		prof_pb_put_uint(&s, 2, 2);
		prof_pb_put_bytes(&b, 1, s.data, s.len);
		prof_buf_reset(&s);
		prof_pb_put_packed(&s, 1, (const uint64_t[]){ 1, 2 }, 2);
		prof_pb_put_packed(&s, 2, (const uint64_t[]){ 7 }, 1);
		prof_pb_put_bytes(&b, 2, s.data, s.len);
		for (i = 1; i <= 2; i++) {
			struct prof_buf l = PROF_BUF_INIT;

			prof_pb_put_uint(&l, 1, i);
			prof_buf_reset(&s);
			prof_pb_put_uint(&s, 1, i);
			prof_pb_put_bytes(&s, 4, l.data, l.len);
			prof_pb_put_bytes(&b, 4, s.data, s.len);
			prof_buf_reset(&s);
			prof_pb_put_uint(&s, 1, i);
			prof_pb_put_uint(&s, 2, i + 2);
			prof_pb_put_bytes(&b, 5, s.data, s.len);
			prof_buf_release(&l);
		}
		prof_pb_put_uint(&b, 9, 1767323045250000000ULL);
		prof_pb_put_uint(&b, 10, 2500000000ULL);
		for (i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
			prof_pb_put_bytes(&b, 6, strs[i], strlen(strs[i]));
		prof_stacks_init(&back, 1);
		CHECK(read_bytes(b.data, b.len, NULL, &back, &got) == 0);
		a = folded(&back);
		CHECK_STR(a, "line break ;ns:a::f 7\n");
		CHECK(prof_intern_count(&back.frames) == 2);
		CHECK_STR(prof_meta_get(&got, "from"), "1767323045.250");
		CHECK_STR(prof_meta_get(&got, "until"), "1767323047.750");
		free(a);
		prof_stacks_release(&back);
		prof_meta_release(&got);
		prof_meta_release(&meta);
		prof_buf_release(&b);
		prof_buf_release(&s);
	}
	TEST("detection: text is not a profile") {
		CHECK(!prof_pprof_detect("a;b;c 1\n", 8, 1));
		CHECK(!prof_pprof_detect("# unit=ns\nmain 1\n", 17, 1));
		CHECK(!prof_pprof_detect("\n\n", 2, 1));
		CHECK(!prof_pprof_detect("\x0a\x05\x08\x01\x10", 5, 1));	/* cut, yet complete */
		CHECK(!prof_pprof_detect("", 0, 1));
	}
	return UNIT_RESULT();
}
