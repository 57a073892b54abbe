#include "base/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void json_init(struct json *j, struct buf *out)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
}

/* The length of the valid UTF-8 sequence at s (at most n bytes), 0 if it is not one. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned cp;
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, UTF-16 surrogates, beyond Unicode. */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || (cp >= 0xd800 && cp <= 0xdfff) ||
	    cp > 0x10ffff)
		return 0;
	return len;
}

void json_quote(struct buf *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	buf_addstr(out, "\"");
	while (p < end) {
		size_t n = utf8_len(p, (size_t)(end - p));

		if (n == 0) {
			buf_addstr(out, "\\ufffd");
			p++;
		} else if (n == 3 && p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9)) {
			buf_addstr(out, p[2] == 0xa8 ? "\\u2028" : "\\u2029");
			p += 3;
		} else if (n > 1) {
			buf_add(out, p, n);
			p += n;
		} else {
			switch (*p) {
			case '"': buf_addstr(out, "\\\""); break;
			case '\\': buf_addstr(out, "\\\\"); break;
			case '\n': buf_addstr(out, "\\n"); break;
			case '\t': buf_addstr(out, "\\t"); break;
			case '\r': buf_addstr(out, "\\r"); break;
			case '\b': buf_addstr(out, "\\b"); break;
			case '\f': buf_addstr(out, "\\f"); break;
			default:
				if (*p < 0x20 || *p == 0x7f)
					buf_addf(out, "\\u%04x", *p);
				else
					buf_add(out, p, 1);
			}
			p++;
		}
	}
	buf_addstr(out, "\"");
}

/* The separator, indentation and key before a value at the current level. */
static void begin_value(struct json *j, const char *key)
{
	int in_object = j->kind[j->depth] == '{';

	if ((key != NULL) != in_object || (!j->depth && j->count[0]))
		j->misuse = 1;
	if (j->count[j->depth]++)
		buf_addstr(j->out, ",");
	if (j->depth) {
		buf_addstr(j->out, "\n");
		for (int i = 0; i < j->depth; i++)
			buf_addstr(j->out, "  ");
	}
	if (key && in_object) {
		json_quote(j->out, key, strlen(key));
		buf_addstr(j->out, ": ");
	}
}

static void open_level(struct json *j, const char *key, char kind)
{
	begin_value(j, key);
	buf_add(j->out, &kind, 1);
	if (j->depth == JSON_MAX_DEPTH) {
		j->misuse = 1;
		return;
	}
	j->depth++;
	j->kind[j->depth] = kind;
	j->count[j->depth] = 0;
}

void json_object(struct json *j, const char *key)
{
	open_level(j, key, '{');
}

void json_array(struct json *j, const char *key)
{
	open_level(j, key, '[');
}

void json_end(struct json *j)
{
	int had = j->count[j->depth];

	if (!j->depth) {
		j->misuse = 1;
		return;
	}
	if (had) {
		buf_addstr(j->out, "\n");
		for (int i = 1; i < j->depth; i++)
			buf_addstr(j->out, "  ");
	}
	buf_addstr(j->out, j->kind[j->depth] == '{' ? "}" : "]");
	j->depth--;
}

void json_string_n(struct json *j, const char *key, const char *s, size_t len)
{
	begin_value(j, key);
	json_quote(j->out, s, len);
}

void json_string(struct json *j, const char *key, const char *s)
{
	json_string_n(j, key, s, strlen(s));
}

void json_number(struct json *j, const char *key, double v)
{
	char text[40];

	begin_value(j, key);
	if (!isfinite(v)) {
		j->misuse = 1;
		buf_addstr(j->out, "null");
		return;
	}
	/* The shortest of %.15g and %.17g that reads back as v. */
	snprintf(text, sizeof(text), "%.15g", v);
	if (strtod(text, NULL) != v)
		snprintf(text, sizeof(text), "%.17g", v);
	buf_addstr(j->out, text);
}

void json_int(struct json *j, const char *key, long long v)
{
	begin_value(j, key);
	buf_addf(j->out, "%lld", v);
}

void json_bool(struct json *j, const char *key, int v)
{
	begin_value(j, key);
	buf_addstr(j->out, v ? "true" : "false");
}

int json_done(struct json *j)
{
	buf_addstr(j->out, "\n");
	return j->misuse || j->depth ? -1 : 0;
}
