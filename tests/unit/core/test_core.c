/* Unit tests: buffers, interning, the stack table, folded, metadata, TSV,
 * escaping and units. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/buf.h"
#include "base/escape.h"
#include "formats/folded.h"
#include "io/input.h"
#include "core/intern.h"
#include "core/meta.h"
#include "io/output.h"
#include "core/stack.h"
#include "formats/tsv.h"
#include "base/units.h"
#include "../unit.h"

static void test_buf(void)
{
	TEST("buf: append, printf, reset, detach") {
		struct prof_buf b = PROF_BUF_INIT;
		char *d;
		size_t len;
		int i;

		CHECK_STR(prof_buf_cstr(&b), "");
		for (i = 0; i < 1000; i++)
			prof_buf_addf(&b, "%d,", i);
		CHECK(b.len == strlen(b.data));
		CHECK(strncmp(b.data, "0,1,2,", 6) == 0);
		prof_buf_reset(&b);
		CHECK(b.len == 0 && b.data[0] == '\0');
		prof_buf_add(&b, "a\0b", 3);
		CHECK(b.len == 3 && b.data[3] == '\0');
		d = prof_buf_detach(&b, &len);
		CHECK(len == 3 && b.data == NULL);
		free(d);
	}
}

static void test_intern(void)
{
	TEST("intern: ids dense and stable, strings with NUL") {
		struct prof_intern t = PROF_INTERN_INIT;
		char name[32];
		uint32_t id;
		size_t len;
		int i;

		for (i = 0; i < 100000; i++) {
			snprintf(name, sizeof(name), "frame%d", i);
			CHECK(prof_intern(&t, name, strlen(name)) == (uint32_t)i);
		}
		CHECK(prof_intern_count(&t) == 100000);
		CHECK(prof_intern(&t, "frame42", 7) == 42);
		CHECK_STR(prof_intern_str(&t, 99999, NULL), "frame99999");
		id = prof_intern(&t, "a\0b", 3);
		CHECK(prof_intern(&t, "a\0c", 3) != id);
		CHECK(prof_intern_str(&t, id, &len)[2] == 'b' && len == 3);
		CHECK(prof_intern(&t, "", 0) == prof_intern(&t, "", 0));
		CHECK(prof_intern_find(&t, "nope", 4) == UINT32_MAX);
		prof_intern_release(&t);
	}
}

/* Fold text through the table and back to text (no metadata). */
static char *fold_text(const char *text, size_t ncol)
{
	struct prof_stacks t;
	struct prof_lines *lr = prof_lines_from_mem("test", text, strlen(text));
	char path[] = "/tmp/prof-unit-fold.XXXXXX";
	struct prof_output *o;
	size_t len;
	char *out;
	int fd = mkstemp(path);

	prof_stacks_init(&t, ncol);
	prof_folded_read(lr, &t, NULL, NULL);
	prof_lines_close(lr);
	o = prof_output_open(path, PROF_OUT_ATOMIC, PROF_COMP_NONE);
	prof_folded_write(&t, NULL, ncol, o);
	prof_output_close(o);
	out = prof_read_file(path, &len);
	unlink(path);
	close(fd);
	prof_stacks_release(&t);
	return out;
}

static void test_stacks(void)
{
	TEST("stacks: same stack adds up, byte-order sort like Perl's sort") {
		char *s = fold_text("a;b 1\na;b 2\na 5\nab;c 1\na;b;c 1\nB 1\n", 1);

		CHECK_STR(s, "B 1\na 5\na;b 3\na;b;c 1\nab;c 1\n");
		free(s);
	}
	TEST("stacks: names with bytes below ';' sort as the joined text does") {
		char *s = fold_text("foo;x 1\nfoo2;y 1\nfoo 1\nfoo!;z 1\nfo 1\nfoo;x;a 1\n", 1);

		CHECK_STR(s, "fo 1\nfoo 1\nfoo!;z 1\nfoo2;y 1\nfoo;x 1\nfoo;x;a 1\n");
		free(s);
	}
	TEST("stacks: decimal counts and frames with spaces") {
		char *s = fold_text("main;do work 1.5\nmain;do work 2.25\n", 1);

		CHECK_STR(s, "main;do work 3.75\n");
		free(s);
	}
	TEST("stacks: differential form keeps two columns") {
		char *s = fold_text("a;b 1 2\na;b 3 4\nc 0 7\n", 2);

		CHECK_STR(s, "a;b 4 6\nc 0 7\n");
		free(s);
	}
	TEST("stacks: merge of two tables and zero-weight stacks dropped") {
		struct prof_stacks a, b;
		uint32_t f[2];
		prof_weight w1 = 1, w0 = 0;
		size_t n;
		uint32_t *ids;

		prof_stacks_init(&a, 1);
		prof_stacks_init(&b, 1);
		f[0] = prof_stacks_frame(&a, "x", 1);
		f[1] = prof_stacks_frame(&a, "y", 1);
		prof_stacks_add(&a, f, 2, &w1);
		f[0] = prof_stacks_frame(&b, "q", 1);	/* different ids in b */
		f[1] = prof_stacks_frame(&b, "x", 1);
		prof_stacks_add(&b, f + 1, 1, &w1);
		prof_stacks_add(&b, f, 1, &w0);
		f[0] = prof_stacks_frame(&b, "x", 1);
		f[1] = prof_stacks_frame(&b, "y", 1);
		prof_stacks_add(&b, f, 2, &w1);
		prof_stacks_merge(&a, &b);
		CHECK(prof_stacks_count(&a) == 3);
		ids = prof_stacks_sorted(&a, &n);
		CHECK(n == 2);	/* "q" has weight 0 */
		CHECK(prof_stacks_weights(&a, ids[1])[0] == 2);
		free(ids);
		prof_stacks_release(&a);
		prof_stacks_release(&b);
	}
}

static void test_folded_parse(void)
{
	struct prof_folded_line fl;
	const char *why;
	char line[64];

	TEST("folded: parse single and double counts") {
		strcpy(line, "a;b c 42");
		CHECK(prof_folded_parse(line, strlen(line), &fl, &why) == 0);
		CHECK(fl.ncounts == 1 && fl.counts[0] == 42 && fl.stack_len == 5);
		strcpy(line, "a;b 1 2");
		CHECK(prof_folded_parse(line, strlen(line), &fl, &why) == 0);
		CHECK(fl.ncounts == 2 && fl.counts[0] == 1 && fl.counts[1] == 2);
		strcpy(line, "a;b\t7  ");
		CHECK(prof_folded_parse(line, strlen(line), &fl, &why) == 0 && fl.counts[0] == 7);
	}
	TEST("folded: malformed lines rejected with a reason") {
		strcpy(line, "a;b");
		CHECK(prof_folded_parse(line, strlen(line), &fl, &why) == -1);
		CHECK_STR(why, "missing count");
		strcpy(line, "42");
		CHECK(prof_folded_parse(line, strlen(line), &fl, &why) == -1);
		strcpy(line, "a;b 1x");
		CHECK(prof_folded_parse(line, strlen(line), &fl, &why) == -1);
	}
	TEST("folded: read counts malformed lines and keeps the rest") {
		static const char text[] = "# unit=bytes event=malloc\na 1\nbroken\nb 2";
		struct prof_lines *lr = prof_lines_from_mem("t", text, sizeof(text) - 1);
		struct prof_meta m = PROF_META_INIT;
		struct prof_folded_stats st = { 0, 0, 0 };
		struct prof_stacks t;

		prof_stacks_init(&t, 1);
		CHECK(prof_folded_read(lr, &t, &m, &st) == -1);
		CHECK(st.lines == 2 && st.malformed == 1);
		CHECK_STR(prof_meta_get(&m, "unit"), "bytes");
		prof_meta_release(&m);
		prof_stacks_release(&t);
		prof_lines_close(lr);
	}
	TEST("folded: count formatting") {
		char b[32];

		prof_format_count(b, 12);
		CHECK_STR(b, "12");
		prof_format_count(b, 1.5);
		CHECK_STR(b, "1.5");
		prof_format_count(b, 13202640000.0);
		CHECK_STR(b, "13202640000");
	}
	TEST("folded: counts are exact integers up to 2^64-1, never an exponent") {
		static const char *const vals[] = {
			"9007199254740993", "18446744073709551614", "18446744073709551615",
		};
		char b[32];

		for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
			snprintf(line, sizeof(line), "a;b %s", vals[i]);
			CHECK(prof_folded_parse(line, strlen(line), &fl, &why) == 0);
			prof_format_count(b, fl.counts[0]);
			CHECK_STR(b, vals[i]);
		}
		CHECK(fl.counts[0] == PROF_WEIGHT_MAX);
		strcpy(line, "a;b 18446744073709551616");
		CHECK(prof_folded_parse(line, strlen(line), &fl, &why) == -1);
		CHECK_STR(why, "count above 18446744073709551615 (2^64-1)");
		strcpy(line, "a;b 99999999999999999999999999.5");
		CHECK(prof_folded_parse(line, strlen(line), &fl, &why) == -1);
		strcpy(line, "a;b 18446744073709551615 3");
		CHECK(prof_folded_parse(line, strlen(line), &fl, &why) == 0 && fl.ncounts == 2);
		CHECK(fl.counts[0] == PROF_WEIGHT_MAX && fl.counts[1] == 3);
		/* Decimals: plain notation, 15 significant digits, no trailing zeros. */
		prof_format_count(b, 0.1L + 0.2L);
		CHECK_STR(b, "0.3");
		prof_format_count(b, 0.00001L);
		CHECK_STR(b, "0.00001");
		prof_format_count(b, 123456789.1L);
		CHECK_STR(b, "123456789.1");
		prof_format_count(b, 1e15L + 0.5L);
		CHECK(strchr(b, 'e') == NULL && strncmp(b, "100000000000000", 15) == 0);
		prof_format_count(b, 1e-30L);
		CHECK_STR(b, "0");
		prof_format_count(b, -2.25L);
		CHECK_STR(b, "-2.25");
		prof_format_count(b, 1e30L);
		CHECK_STR(b, "18446744073709551615");
	}
	TEST("folded: read and write 2^64-1 back byte for byte; sums saturate at 2^64-1") {
		static const char text[] = "a;b 18446744073709551615\na;c 1.5\nd 9007199254740993\n";
		struct prof_lines *lr = prof_lines_from_mem("t", text, sizeof(text) - 1);
		struct prof_stacks t;
		struct prof_buf out = PROF_BUF_INIT;
		prof_weight w = 18446744073709551614.0L;
		uint32_t *ids;
		size_t n;
		char b[32];

		prof_stacks_init(&t, 1);
		CHECK(prof_folded_read(lr, &t, NULL, NULL) == 0);
		ids = prof_stacks_sorted(&t, &n);
		for (size_t i = 0; i < n; i++) {
			prof_stacks_format(&t, ids[i], &out);
			prof_format_count(b, prof_stacks_weights(&t, ids[i])[0]);
			prof_buf_addf(&out, " %s\n", b);
		}
		CHECK_STR(prof_buf_cstr(&out), text);
		free(ids);
		/* Exact up to the limit, then kept there. */
		CHECK(prof_weight_add(&w, 1) == 0 && w == PROF_WEIGHT_MAX);
		CHECK(prof_weight_add(&w, 1) == 1 && w == PROF_WEIGHT_MAX);
		prof_lines_close(lr);
		lr = prof_lines_from_mem("t", text, sizeof(text) - 1);
		CHECK(prof_folded_read(lr, &t, NULL, NULL) == 0);	/* says so once on stderr */
		ids = prof_stacks_sorted(&t, &n);
		CHECK(n == 3);
		prof_format_count(b, prof_stacks_weights(&t, ids[0])[0]);
		CHECK_STR(b, "18446744073709551615");
		prof_format_count(b, prof_stacks_weights(&t, ids[1])[0]);
		CHECK_STR(b, "3");
		prof_format_count(b, prof_stacks_weights(&t, ids[2])[0]);
		CHECK_STR(b, "18014398509481986");
		free(ids);
		prof_buf_release(&out);
		prof_lines_close(lr);
		prof_stacks_release(&t);
	}
}

static void test_meta(void)
{
	TEST("meta: parse, percent-decoding, format round trip") {
		struct prof_meta m = PROF_META_INIT, m2 = PROF_META_INIT;
		struct prof_buf b = PROF_BUF_INIT;
		static const char line[] = "# unit=ns title=my%20app%25 junk x=1 x=2";

		CHECK(prof_meta_parse_line(&m, line, strlen(line)) == 4);
		CHECK_STR(prof_meta_get(&m, "title"), "my app%");
		CHECK_STR(prof_meta_get(&m, "x"), "2");
		CHECK(prof_meta_get(&m, "junk") == NULL);
		prof_meta_set(&m, "cmd", "a\tb c");
		prof_meta_format(&m, &b);
		CHECK_STR(b.data, "# unit=ns title=my%20app%25 x=2 cmd=a%09b%20c\n");
		CHECK(prof_meta_parse_line(&m2, b.data, b.len - 1) == 4);
		CHECK_STR(prof_meta_get(&m2, "cmd"), "a\tb c");
		CHECK(prof_meta_parse_line(&m2, "# just a comment", 16) == 0);
		prof_buf_release(&b);
		prof_meta_release(&m);
		prof_meta_release(&m2);
	}
}

static void test_tsv(void)
{
	const struct prof_tsv_schema *s = prof_tsv_schema_find("profheap-timeline");
	static const char good[] = "# unit=bytes\ntime_ns\tlive_bytes\tlive_blocks\talloc_bytes\t"
				   "alloc_count\trss_bytes\n0\t10\t1\t10\t1\t4096\n5\t0\t0\t10\t1\t\n";
	static const char *const broken[] = {
		"",							/* empty */
		"0\t10\t1\t10\t1\t4096\n",				/* no header */
		"time_ns\tlive\tlive_blocks\talloc_bytes\talloc_count\trss_bytes\n",
		"time_ns\tlive_bytes\tlive_blocks\talloc_bytes\talloc_count\trss_bytes\n1\t2\t3\n",
		"time_ns\tlive_bytes\tlive_blocks\talloc_bytes\talloc_count\trss_bytes\nx\t1\t1\t1\t1\t1\n",
		"time_ns\tlive_bytes\tlive_blocks\talloc_bytes\talloc_count\trss_bytes\n1\t1\t1\t1\t1\t1\n# late\n",
		"time_ns\tlive_bytes\tlive_blocks\talloc_bytes\talloc_count\trss_bytes\n1\t1\t1\t1.5\t1\t1\n",
	};
	size_t i;

	TEST("tsv: split counts fields beyond max") {
		char line[] = "a\tb\t\tc";
		char *f[2];

		CHECK(prof_tsv_split(line, strlen("a\tb\t\tc"), f, 2) == 4);
		CHECK_STR(f[0], "a");
		CHECK_STR(f[1], "b");
	}
	TEST("tsv: a valid file passes the validator") {
		struct prof_lines *lr = prof_lines_from_mem("good", good, sizeof(good) - 1);

		CHECK(s != NULL);
		CHECK(prof_tsv_validate(lr, s) == 0);
		prof_lines_close(lr);
	}
	TEST("tsv: hand-broken files fail the validator") {
		for (i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
			struct prof_lines *lr = prof_lines_from_mem("broken", broken[i], strlen(broken[i]));

			CHECK(prof_tsv_validate(lr, s) > 0);
			prof_lines_close(lr);
		}
	}
	TEST("tsv: every schema's header round-trips") {
		for (i = 0; prof_tsv_schemas[i]; i++) {
			const char *h = prof_tsv_header(prof_tsv_schemas[i]);
			struct prof_lines *lr = prof_lines_from_mem("h", h, strlen(h));

			CHECK(prof_tsv_validate(lr, prof_tsv_schemas[i]) == 0);
			prof_lines_close(lr);
		}
	}
}

static void test_escape(void)
{
	struct prof_buf b = PROF_BUF_INIT;

	TEST("escape: XML specials") {
		prof_xml_escape(&b, "<script>alert('x')&\"</script>", 29);
		CHECK_STR(b.data, "&lt;script&gt;alert(&#39;x&#39;)&amp;&quot;&lt;/script&gt;");
	}
	TEST("escape: control characters, NUL and invalid UTF-8 replaced") {
		prof_buf_reset(&b);
		prof_xml_escape(&b, "a\0b\x1b[c\xff\xc3\xa9\xe2\x82", 11);
		CHECK_STR(b.data, "a\xef\xbf\xbd" "b\xef\xbf\xbd[c\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd");
		CHECK(prof_utf8_valid(b.data, b.len));
	}
	TEST("escape: overlong and surrogate sequences are invalid") {
		CHECK(!prof_utf8_valid("\xc0\xaf", 2));
		CHECK(!prof_utf8_valid("\xed\xa0\x80", 3));
		CHECK(!prof_utf8_valid("\xf4\x90\x80\x80", 4));
		CHECK(prof_utf8_valid("\xf0\x9f\x94\xa5", 4));
	}
	TEST("escape: JSON") {
		prof_buf_reset(&b);
		prof_json_escape(&b, "q\"\\\t<\n", 6);
		CHECK_STR(b.data, "q\\\"\\\\\\t\\u003c\xef\xbf\xbd");
	}
	TEST("escape: UTF-8 truncation never splits a character") {
		const char *s = "ab\xc3\xa9\xe2\x82\xac";	/* ab é € */

		CHECK(prof_utf8_prefix(s, 7, 3) == 2);
		CHECK(prof_utf8_prefix(s, 7, 4) == 4);
		CHECK(prof_utf8_prefix(s, 7, 6) == 4);
		CHECK(prof_utf8_chars(s, 7) == 4);
		CHECK(prof_utf8_char_prefix(s, 7, 3) == 4);
	}
	prof_buf_release(&b);
}

static void test_units(void)
{
	uint64_t u;
	int64_t i;
	double d;
	char b[32];

	TEST("units: sizes") {
		CHECK(prof_parse_size("512K", &u) == 0 && u == 524288);
		CHECK(prof_parse_size("4KiB", &u) == 0 && u == 4096);
		CHECK(prof_parse_size("1m", &u) == 0 && u == 1048576);
		CHECK(prof_parse_size("100", &u) == 0 && u == 100);
		CHECK(prof_parse_size("", &u) == -1);
		CHECK(prof_parse_size("-1", &u) == -1);
		CHECK(prof_parse_size("1X", &u) == -1);
		CHECK(prof_parse_size("99999999999999999999", &u) == -1);
	}
	TEST("units: durations") {
		CHECK(prof_parse_duration("100ms", 1, &d) == 0 && d > 0.0999 && d < 0.1001);
		CHECK(prof_parse_duration("2", 1, &d) == 0 && d == 2);
		CHECK(prof_parse_duration("2", 1e-3, &d) == 0 && d == 0.002);
		CHECK(prof_parse_duration("1.5s", 1, &d) == 0 && d == 1.5);
		CHECK(prof_parse_duration("10x", 1, &d) == -1);
		CHECK(prof_parse_duration("-1s", 1, &d) == -1);
		CHECK(prof_parse_duration("s", 1, &d) == -1);
	}
	TEST("units: integers and numbers are strict") {
		CHECK(prof_parse_u64("42", &u) == 0 && u == 42);
		CHECK(prof_parse_u64(" 42", &u) == -1);
		CHECK(prof_parse_u64("42 ", &u) == -1);
		CHECK(prof_parse_i64("-7", &i) == 0 && i == -7);
		CHECK(prof_parse_double("1e3", &d) == 0 && d == 1000);
		CHECK(prof_parse_double("nan", &d) == -1);
		CHECK(prof_parse_double("0x10", &d) == -1);
	}
	TEST("units: human formatting") {
		CHECK_STR(prof_fmt_bytes(b, sizeof(b), 512), "512 B");
		CHECK_STR(prof_fmt_bytes(b, sizeof(b), 1536), "1.50 KiB");
		CHECK_STR(prof_fmt_bytes(b, sizeof(b), 67108864), "64.0 MiB");
		CHECK_STR(prof_fmt_duration(b, sizeof(b), 0.0032), "3.2 ms");
		CHECK_STR(prof_fmt_duration(b, sizeof(b), 125), "2m05s");
	}
}

int main(void)
{
	test_buf();
	test_intern();
	test_stacks();
	test_folded_parse();
	test_meta();
	test_tsv();
	test_escape();
	test_units();
	return UNIT_RESULT();
}
