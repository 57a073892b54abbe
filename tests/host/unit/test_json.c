/*
 * test_json: the JSON writer (base/json.h): layout, escapes of every kind of
 * byte a guest can print, numbers, and misuse reported by json_done().
 * The oracle is RFC 8259 (section 7: strings; section 6: numbers).
 */
#include "base/json.h"
#include "unit.h"

#include <math.h>

static void quoted(const char *in, size_t len, const char *want)
{
	struct buf b = BUF_INIT;

	json_quote(&b, in, len);
	CHECK_STR(buf_str(&b), want);
	buf_free(&b);
}

/* A literal's bytes, its embedded NULs included. */
#define QUOTED(lit, want) quoted(lit, sizeof(lit) - 1, want)

UNIT_TEST(escapes)
{
	QUOTED("a\"b\\c", "\"a\\\"b\\\\c\"");
	QUOTED("l1\nl2\tx\r\b\f", "\"l1\\nl2\\tx\\r\\b\\f\"");
	/* Other control bytes, DEL and an embedded NUL as \u00XX. */
	QUOTED("\x01\x1b[0m\x7f\0z", "\"\\u0001\\u001b[0m\\u007f\\u0000z\"");
	/* Valid UTF-8 passes as it is; U+2028/2029 are escaped. */
	QUOTED("caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x98\x80\"");
	QUOTED("\xe2\x80\xa8\xe2\x80\xa9", "\"\\u2028\\u2029\"");
	/* Invalid UTF-8: a lone continuation, an overlong '/', a surrogate, beyond U+10FFFF, a cut sequence. */
	QUOTED("\x80", "\"\\ufffd\"");
	QUOTED("\xc0\xaf", "\"\\ufffd\\ufffd\"");
	QUOTED("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");
	QUOTED("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
	QUOTED("ok\xe2\x86", "\"ok\\ufffd\\ufffd\"");
}

UNIT_TEST(layout)
{
	struct buf b = BUF_INIT;
	struct json j;

	json_init(&j, &b);
	json_object(&j, NULL);
	json_object(&j, "version");
	json_int(&j, "major", 5);
	json_end(&j);
	json_array(&j, "tests");
	json_object(&j, NULL);
	json_string(&j, "id", "numalab:1");
	json_number(&j, "v", 0.1);
	json_number(&j, "w", 1e300);
	json_bool(&j, "ok", 1);
	json_end(&j);
	json_end(&j);
	json_array(&j, "none");
	json_end(&j);
	json_object(&j, "empty");
	json_end(&j);
	json_end(&j);
	CHECK_INT(json_done(&j), 0);
	CHECK_STR(buf_str(&b), "{\n"
			       "  \"version\": {\n"
			       "    \"major\": 5\n"
			       "  },\n"
			       "  \"tests\": [\n"
			       "    {\n"
			       "      \"id\": \"numalab:1\",\n"
			       "      \"v\": 0.1,\n"
			       "      \"w\": 1e+300,\n"
			       "      \"ok\": true\n"
			       "    }\n"
			       "  ],\n"
			       "  \"none\": [],\n"
			       "  \"empty\": {}\n"
			       "}\n");
	buf_free(&b);
}

UNIT_TEST(numbers_round_trip)
{
	static const double values[] = { 0, -0.5, 1.0 / 3, 123456789.123456789, 5e-324, 6.02214076e23 };

	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		struct buf b = BUF_INIT;
		struct json j;

		json_init(&j, &b);
		json_number(&j, NULL, values[i]);
		CHECK_INT(json_done(&j), 0);
		CHECK(strtod(buf_str(&b), NULL) == values[i]);
		buf_free(&b);
	}
}

UNIT_TEST(misuse)
{
	struct buf b = BUF_INIT;
	struct json j;

	/* A key inside an array. */
	json_init(&j, &b);
	json_array(&j, NULL);
	json_int(&j, "k", 1);
	json_end(&j);
	CHECK_INT(json_done(&j), -1);
	/* No key inside an object. */
	json_init(&j, &b);
	json_object(&j, NULL);
	json_int(&j, NULL, 1);
	json_end(&j);
	CHECK_INT(json_done(&j), -1);
	/* Left open; closed once too often; two top-level values. */
	json_init(&j, &b);
	json_object(&j, NULL);
	CHECK_INT(json_done(&j), -1);
	json_init(&j, &b);
	json_end(&j);
	CHECK_INT(json_done(&j), -1);
	json_init(&j, &b);
	json_int(&j, NULL, 1);
	json_int(&j, NULL, 2);
	CHECK_INT(json_done(&j), -1);
	/* JSON has no NaN or infinity. */
	json_init(&j, &b);
	json_number(&j, NULL, NAN);
	CHECK_INT(json_done(&j), -1);
	json_init(&j, &b);
	json_number(&j, NULL, INFINITY);
	CHECK_INT(json_done(&j), -1);
	/* Deeper than JSON_MAX_DEPTH. */
	json_init(&j, &b);
	for (int i = 0; i <= JSON_MAX_DEPTH; i++)
		json_array(&j, NULL);
	CHECK_INT(json_done(&j), -1);
	buf_free(&b);
}

UNIT_MAIN(UNIT_CASE(escapes), UNIT_CASE(layout), UNIT_CASE(numbers_round_trip), UNIT_CASE(misuse))
