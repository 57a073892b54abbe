#include "model/ltp.h"

#include <stdio.h>
#include <string.h>

#define LTP_LINE_MAX 4096

/* The result types; TINFO and TDEBUG are known so that they are told apart from garbage. */
static const struct {
	const char *type;
	int result;        /* a result of its own */
	int ok;
	const char *directive;
} types[] = {
	{ "TPASS", 1, 1, "" },
	{ "TFAIL", 1, 0, "" },
	{ "TBROK", 1, 0, "ERROR " },
	{ "TCONF", 1, 1, "SKIP " },
	{ "TWARN", 1, 0, "" },
	{ "TINFO", 0, 0, "" },
	{ "TDEBUG", 0, 0, "" },
};

/* line without a terminal's colour: ESC '[' parameters and a final letter. */
static void strip_escapes(const char *line, char *out, size_t cap)
{
	size_t n = 0;

	while (*line && n + 1 < cap) {
		if (line[0] == '\033' && line[1] == '[') {
			line += 2 + strspn(line + 2, "0123456789;");
			line += *line != '\0';
			continue;
		}
		out[n++] = *line++;
	}
	out[n] = '\0';
}

/* The type whose word starts *p (advanced past it), or -1. */
static int take_type(const char **p)
{
	size_t len = strspn(*p, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");

	for (int i = 0; i < (int)(sizeof(types) / sizeof(types[0])); i++)
		if (strlen(types[i].type) == len && !strncmp(*p, types[i].type, len)) {
			*p += len;
			return i;
		}
	return -1;
}

/* "FILE:LINE: TYPE: MESSAGE": the type, *loc_len and *msg set; -1 if not. */
static int parse_new(const char *s, size_t *loc_len, const char **msg)
{
	const char *p = s + strcspn(s, " :");
	size_t digits;
	int type;

	if (p == s || *p != ':')
		return -1;
	digits = strspn(p + 1, "0123456789");
	if (!digits || strncmp(p + 1 + digits, ": ", 2))
		return -1;
	*loc_len = (size_t)(p + 1 + digits - s);
	p += 1 + digits + 2;
	if ((type = take_type(&p)) < 0 || *p != ':')
		return -1;
	*msg = p + 1 + strspn(p + 1, " ");
	return type;
}

/* "TCID N TYPE : MESSAGE", blank-padded: as parse_new(). */
static int parse_old(const char *s, size_t *loc_len, const char **msg)
{
	const char *p = s + strcspn(s, " \t");
	size_t blanks, digits;
	char after;
	int type;

	if (p == s || !(blanks = strspn(p, " \t")))
		return -1;
	digits = strspn(p + blanks, "0123456789");
	after = p[blanks + digits];
	if (!digits || (after != ' ' && after != '\t'))
		return -1;
	*loc_len = (size_t)(p + blanks + digits - s);
	p += blanks + digits;
	p += strspn(p, " \t");
	if ((type = take_type(&p)) < 0)
		return -1;
	p += strspn(p, " \t");
	if (*p != ':')
		return -1;
	*msg = p + 1 + strspn(p + 1, " \t");
	return type;
}

int ltp_tap_result(const char *line, int number, char *out, size_t cap)
{
	char clean[LTP_LINE_MAX + 1], head[32], tail[32];
	const char *msg;
	size_t loc_len, room, n = 0;   /* room: for the location */
	int type;

	strip_escapes(line, clean, sizeof(clean));
	type = parse_new(clean, &loc_len, &msg);
	if (type < 0)
		type = parse_old(clean, &loc_len, &msg);
	if (type < 0 || !types[type].result)
		return 0;
	snprintf(head, sizeof(head), "%s %d ", types[type].ok ? "ok" : "not ok", number);
	snprintf(tail, sizeof(tail), " # %s%s: ", types[type].directive, types[type].type);
	/*
	 * A cut never takes the directive that says what the result is; the
	 * location and the message share the rest, the message keeping at
	 * least half.
	 */
	room = cap > strlen(head) + strlen(tail) ? cap - 1 - strlen(head) - strlen(tail) : 0;
	if (loc_len + strlen(msg) > room && strlen(msg) < room / 2)
		room -= strlen(msg);
	else if (loc_len + strlen(msg) > room)
		room /= 2;
	snprintf(out, cap, "%s", head);
	/* The old API's "TCID    1": one blank between, as a name reads. */
	for (size_t i = 0; i < loc_len && n < room; i++) {
		if (i > 0 && strchr(" \t", clean[i]) && strchr(" \t", clean[i - 1]))
			continue;
		out[strlen(head) + n++] = strchr(" \t", clean[i]) ? ' ' : clean[i];
	}
	snprintf(out + strlen(head) + n, cap - strlen(head) - n, "%s%s", tail, msg);
	return 1;
}
