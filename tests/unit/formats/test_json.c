/*
 * formats/json.h: the JSON parser the speedscope importer reads with:
 * values and layout (next, members), string decoding, JSON's number
 * grammar, and errors with the byte offset (and line:column) of what is
 * wrong, a text cut short included.
 */
#include <string.h>
#include "formats/json.h"
#include "../unit.h"

/* Parse s; 0 or -1. */
static int parse(struct prof_json *j, const char *s)
{
	return prof_json_parse(j, s, strlen(s));
}

/* The error of parsing s (static text) and its offset in *at; NULL if it parsed. */
static const char *error_of(const char *s, size_t *at)
{
	struct prof_json j;
	const char *e = NULL;

	if (parse(&j, s)) {
		e = j.error;
		*at = j.error_offset;
	}
	prof_json_release(&j);
	return e;
}

int main(void)
{
	struct prof_json j;
	size_t at = 0, m, k;
	unsigned long line, col;

	TEST("values, layout, members") {
		const char *s = " {\"a\": [1, -2.5e3, true, false, null], \"b\": {\"c\": \"x\"}, \"a\": 7} ";

		CHECK(parse(&j, s) == 0);
		CHECK(j.v[0].type == PROF_JSON_OBJECT && j.v[0].count == 3 && j.v[0].offset == 1);
		CHECK(j.v[0].next == j.n);
		m = prof_json_member(&j, 0, "a");	/* the last "a" wins */
		CHECK(m && j.v[m].type == PROF_JSON_NUMBER && j.v[m].num == 7);
		m = prof_json_member(&j, 0, "b");
		CHECK(m && j.v[m].type == PROF_JSON_OBJECT);
		k = prof_json_member(&j, m, "c");
		CHECK(k && j.v[k].type == PROF_JSON_STRING && strcmp(j.v[k].str, "x") == 0);
		CHECK(prof_json_member(&j, 0, "zz") == 0 && prof_json_member(&j, k, "c") == 0);
		/* the array: its elements one after another through next */
		k = prof_json_first(0) + 1;		/* the first "a"'s value */
		CHECK(j.v[k].type == PROF_JSON_ARRAY && j.v[k].count == 5);
		k = prof_json_first(k);
		CHECK(j.v[k].num == 1);
		k = prof_json_after(&j, k);
		CHECK(j.v[k].num == -2500);
		k = prof_json_after(&j, k);
		CHECK(j.v[k].type == PROF_JSON_TRUE);
		k = prof_json_after(&j, prof_json_after(&j, k));
		CHECK(j.v[k].type == PROF_JSON_NULL);
		prof_json_release(&j);
	}
	TEST("strings: escapes, surrogate pairs, \\u0000") {
		const char *s = "[\"a\\\"b\\\\c\\/d\\n\\t\", \"caf\\u00e9 \\ud83d\\ude00\", \"x\\u0000y\"]";

		CHECK(parse(&j, s) == 0);
		CHECK_STR(j.v[1].str, "a\"b\\c/d\n\t");
		CHECK_STR(j.v[2].str, "caf\xc3\xa9 \xf0\x9f\x98\x80");
		CHECK(j.v[3].len == 3 && memcmp(j.v[3].str, "x\0y", 3) == 0);
		prof_json_release(&j);
	}
	TEST("big integers exact, empty containers") {
		CHECK(parse(&j, "[18446744073709551615, [], {}]") == 0);
		CHECK(j.v[1].num == 18446744073709551615.0L);
		CHECK(j.v[2].type == PROF_JSON_ARRAY && j.v[2].count == 0 && j.v[2].next == 3);
		CHECK(j.v[3].type == PROF_JSON_OBJECT && j.v[3].count == 0);
		prof_json_release(&j);
	}
	TEST("number grammar") {
		CHECK(error_of("01", &at) && at == 0);
		CHECK(error_of("[.5]", &at) && at == 1);
		CHECK(error_of("[+1]", &at) && at == 1);
		CHECK(error_of("[1.]", &at) && at == 1);
		CHECK(error_of("[1e]", &at) && at == 1);
		CHECK(error_of("[NaN]", &at) && at == 1);
		CHECK(!error_of("[0, -0, 0.25, 1E+2, 3e-1]", &at));
	}
	TEST("errors: where, and cut short") {
		CHECK(strstr(error_of("{\"a\": [1, 2", &at), "end of input") && at == 11);
		CHECK(strstr(error_of("{\"a\": \"xy", &at), "unterminated string") && at == 6);
		CHECK(strstr(error_of("{\"a\" 1}", &at), "':'") && at == 5);
		CHECK(strstr(error_of("[1 2]", &at), "',' or ']'") && at == 3);
		CHECK(strstr(error_of("{1: 2}", &at), "string key") && at == 1);
		CHECK(strstr(error_of("[1] x", &at), "after the JSON value") && at == 4);
		CHECK(strstr(error_of("[\"a\nb\"]", &at), "control character") && at == 3);
		CHECK(strstr(error_of("[\"\\ud800\"]", &at), "surrogate"));
		CHECK(strstr(error_of("[\"\\q\"]", &at), "bad escape") && at == 2);
		CHECK(strstr(error_of("", &at), "end of input") && at == 0);
		CHECK(strstr(error_of("[tru]", &at), "not a JSON value") && at == 1);
	}
	TEST("nesting limit") {
		char deep[PROF_JSON_MAX_DEPTH + 2];

		memset(deep, '[', sizeof(deep) - 1);
		deep[sizeof(deep) - 1] = '\0';
		CHECK(strstr(error_of(deep, &at), "nested too deeply") && at == PROF_JSON_MAX_DEPTH);
	}
	TEST("line and column of an offset") {
		const char *s = "{\n  \"a\": 1,\n  \"b\": x\n}";

		CHECK(error_of(s, &at) && at == 19);
		prof_json_position(s, strlen(s), at, &line, &col);
		CHECK(line == 3 && col == 8);
		prof_json_position(s, strlen(s), 0, &line, &col);
		CHECK(line == 1 && col == 1);
		/* a decoded "\n" does not move later positions: the text is unchanged */
		s = "[\"\\n\",\n x]";
		CHECK(error_of(s, &at) && at == 8);
		prof_json_position(s, strlen(s), at, &line, &col);
		CHECK(line == 2 && col == 2);
	}
	return UNIT_RESULT();
}
