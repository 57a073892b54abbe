/*
 * json: a small JSON writer (RFC 8259) into a struct buf, for documents
 * other programs read (KCIDB submissions: analysis/kcidb.h).
 *
 * Contract:
 * - The caller opens and closes objects and arrays in order; json.h adds
 *   the commas, the keys' quotes and a two-space indentation (one member
 *   or element a line).  Inside an object every value takes a key; inside
 *   an array and at the top the key is NULL.  A misuse (a key where none
 *   goes, deeper than JSON_MAX_DEPTH, closing what is not open) is the
 *   programmer's: json_done() then returns -1.
 * - Strings are any bytes: '"' and '\' are escaped, control bytes become
 *   \n, \t, \r, \b, \f or \u00XX, and bytes that are not valid UTF-8
 *   (overlong forms, surrogates, beyond U+10FFFF, cut sequences) become
 *   U+FFFD, so the document is always valid UTF-8 JSON whatever the guest
 *   printed.  U+2028 and U+2029 are escaped too (JavaScript readers).
 * - Numbers must be finite (JSON has no NaN or infinity): a non-finite one
 *   is written as null and json_done() returns -1.
 */
#ifndef LAB_JSON_H
#define LAB_JSON_H

#include <stddef.h>

#include "base/util.h"

#define JSON_MAX_DEPTH 16

struct json {
	struct buf *out;
	int depth;
	int count[JSON_MAX_DEPTH + 1];   /* values written at each level */
	char kind[JSON_MAX_DEPTH + 1];   /* '{' or '[' for each open level; 0 at the top */
	int misuse;
};

void json_init(struct json *j, struct buf *out);

void json_object(struct json *j, const char *key);
void json_array(struct json *j, const char *key);
void json_end(struct json *j);     /* closes the innermost object or array */

void json_string(struct json *j, const char *key, const char *s);
void json_string_n(struct json *j, const char *key, const char *s, size_t len);
void json_number(struct json *j, const char *key, double v);
void json_int(struct json *j, const char *key, long long v);
void json_bool(struct json *j, const char *key, int v);

/* After the last value: a newline; 0, or -1 on a misuse (above) or when something is still open. */
int json_done(struct json *j);

/* s (len bytes) as a quoted JSON string, escaped as above. */
void json_quote(struct buf *out, const char *s, size_t len);

#endif
