#include "model/patch.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* One line of the file: [start, start + len), without its '\n'. */
struct line {
	const char *start;
	size_t len;
	int number;              /* 1-based */
};

struct lines {
	struct line *items;
	int nr;
};

static void split_lines(const char *text, size_t len, struct lines *out)
{
	const char *p = text, *end = text + len;
	int alloc = 0;

	out->items = NULL;
	out->nr = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);

		if (out->nr == alloc) {
			alloc = alloc ? 2 * alloc : 1024;
			out->items = xrealloc(out->items, (size_t)alloc * sizeof(*out->items));
		}
		if (n && p[n - 1] == '\r')   /* a mail saved with CRLF */
			n--;
		out->items[out->nr] = (struct line){ p, n, out->nr + 1 };
		out->nr++;
		p = nl ? nl + 1 : end;
	}
}

static int starts(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !memcmp(s, prefix, n);
}

/* "Name: value" with an RFC 822 field name. */
static int is_header(const struct line *l)
{
	size_t i = 0;

	while (i < l->len && (isalnum((unsigned char)l->start[i]) || l->start[i] == '-'))
		i++;
	return i > 0 && i + 1 < l->len && l->start[i] == ':' && l->start[i + 1] == ' ' &&
	       isalpha((unsigned char)l->start[0]);
}

/* An mbox "From " separator: at the top or after a blank line, a header follows. */
static int is_mbox_from(const struct lines *ls, int i)
{
	return starts(ls->items[i].start, ls->items[i].len, "From ") &&
	       (i == 0 || ls->items[i - 1].len == 0) && i + 1 < ls->nr && is_header(&ls->items[i + 1]);
}

/* ---- quoting ---- */

/* The quote depth of l and its content without the quote marks and one blank after them. */
static int unquote(const struct line *l, const char **content, size_t *clen)
{
	size_t i = 0;
	int depth = 0;

	while (i < l->len && l->start[i] == '>') {
		depth++;
		i++;
		if (i + 1 < l->len && l->start[i] == ' ' && l->start[i + 1] == '>')
			i++;   /* "> > " */
	}
	if (depth && i < l->len && l->start[i] == ' ')
		i++;
	*content = l->start + i;
	*clen = l->len - i;
	return depth;
}

/* ---- subjects ---- */

/* Drop "Re:", "Fwd:" and "[PATCH ...]" tags at the front, blanks at both ends. */
static void clean_subject(char *s)
{
	char *p = s, *end;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!strncasecmp(p, "re:", 3) || !strncasecmp(p, "aw:", 3))
			p += 3;
		else if (!strncasecmp(p, "fwd:", 4))
			p += 4;
		else if (*p == '[' && strchr(p, ']'))
			p = strchr(p, ']') + 1;
		else
			break;
	}
	memmove(s, p, strlen(p) + 1);
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		*--end = '\0';
}

/* The value of a header starting at line i, joined with its continuation lines. */
static void header_value(const struct lines *ls, int i, int end, size_t name_len, char *out, size_t cap)
{
	const struct line *l = &ls->items[i];
	size_t used;

	snprintf(out, cap, "%.*s", (int)(l->len - name_len), l->start + name_len);
	for (int j = i + 1; j < end && ls->items[j].len &&
	     (ls->items[j].start[0] == ' ' || ls->items[j].start[0] == '\t'); j++) {
		used = strlen(out);
		snprintf(out + used, cap - used, "%.*s", (int)ls->items[j].len, ls->items[j].start);
	}
}

/* ---- the diff grammar ---- */

struct parser {
	const char *path;
	const struct lines *ls;
	struct patch *p;
	struct error *err;
};

static const char *const file_header_lines[] = {
	"index ", "old mode ", "new mode ", "deleted file mode ", "new file mode ",
	"similarity index ", "dissimilarity index ", "rename from ", "rename to ",
	"copy from ", "copy to ", "Binary files ", NULL,
};

static int is_file_header(const char *s, size_t n)
{
	for (int i = 0; file_header_lines[i]; i++)
		if (starts(s, n, file_header_lines[i]))
			return 1;
	return 0;
}

static struct patch_file *add_file(struct patch *p)
{
	p->files = xrealloc(p->files, (size_t)(p->nr_files + 1) * sizeof(*p->files));
	memset(&p->files[p->nr_files], 0, sizeof(*p->files));
	return &p->files[p->nr_files++];
}

/* A "--- NAME" / "+++ NAME" / "diff --git a/X b/Y" name without a/ b/, tab and timestamp. */
static void set_path(struct patch_file *f, const char *name, size_t n)
{
	size_t len = strcspn(name, "\t");

	if (len > n)
		len = n;
	while (len && name[len - 1] == ' ')
		len--;
	if (len > 2 && (name[0] == 'a' || name[0] == 'b') && name[1] == '/') {
		name += 2;
		len -= 2;
	}
	snprintf(f->path, sizeof(f->path), "%.*s", (int)len, name);
}

static int parse_hunk_header(const char *s, size_t n, int *old_start, int *old_count,
			     int *new_count)
{
	char buf[256];
	int os, oc = 1, ns, nc = 1;

	snprintf(buf, sizeof(buf), "%.*s", (int)(n < 255 ? n : 255), s);
	if (sscanf(buf, "@@ -%d,%d +%d,%d @@", &os, &oc, &ns, &nc) != 4 &&
	    sscanf(buf, "@@ -%d +%d,%d @@", &os, &ns, &nc) != 3 &&
	    sscanf(buf, "@@ -%d,%d +%d @@", &os, &oc, &ns) != 3 &&
	    sscanf(buf, "@@ -%d +%d @@", &os, &ns) != 2)
		return -1;
	if (sscanf(buf, "@@ -%d,%d", &os, &oc) != 2)
		oc = 1;
	if (!strstr(buf, " +") || sscanf(strstr(buf, " +"), " +%d,%d", &ns, &nc) != 2)
		nc = 1;
	*old_start = os;
	*old_count = oc;
	*new_count = nc;
	return 0;
}

static void emit(struct patch *p, const char *s, size_t n)
{
	buf_add(&p->diff, s, n);
	buf_add(&p->diff, "\n", 1);
}

/* The next line after i at depth (other depths skipped), or -1 before end. */
static int next_at_depth(const struct parser *ps, int i, int end, int depth)
{
	const char *c;
	size_t n;

	for (i++; i < end; i++)
		if (depth == 0 || unquote(&ps->ls->items[i], &c, &n) == depth)
			return i;
	return -1;
}

/*
 * Read the diff starting at line start (depth d) up to end.  Lines at other
 * depths are skipped when d > 0.  Returns 0, or -1 (err) for a hunk cut short.
 */
static int read_diff(struct parser *ps, int start, int end, int depth)
{
	struct patch *p = ps->p;
	struct patch_file *f = NULL;
	struct patch_hunk *h = NULL;
	int old_left = 0, new_left = 0, git_header = 0;

	for (int i = start; i >= 0 && i < end; i = next_at_depth(ps, i, end, depth)) {
		const struct line *l = &ps->ls->items[i];
		const char *c;
		size_t n;
		int d = unquote(l, &c, &n);

		if (depth == 0) {   /* an unquoted diff: the line as it is */
			c = l->start;
			n = l->len;
			d = 0;
		}
		if (d != depth)
			continue;
		if (old_left > 0 || new_left > 0) {
			char kind = n ? c[0] : ' ';

			if (kind == ' ' && n) {
				old_left--, new_left--;
				emit(p, c, n);
			} else if (kind == ' ') {   /* an empty context line, its blank trimmed */
				old_left--, new_left--;
				emit(p, " ", 1);
			} else if (kind == '-') {
				old_left--;
				emit(p, c, n);
			} else if (kind == '+') {
				new_left--;
				emit(p, c, n);
			} else if (kind == '\\') {
				emit(p, c, n);
			} else {
				break;   /* cut short: reported below */
			}
			if (old_left < 0 || new_left < 0)
				break;
			continue;
		}
		if (starts(c, n, "diff --git ")) {
			const char *b = NULL;

			f = add_file(p);
			h = NULL;
			git_header = 1;
			for (size_t k = 11; k + 3 <= n; k++)
				if (!memcmp(c + k, " b/", 3))
					b = c + k + 1;
			if (b)
				set_path(f, b, (size_t)(c + n - b));
			emit(p, c, n);
		} else if (starts(c, n, "--- ")) {
			int j = next_at_depth(ps, i, end, depth);
			const char *c2;
			size_t n2;

			if (j < 0)
				break;
			if (depth)
				unquote(&ps->ls->items[j], &c2, &n2);
			else
				c2 = ps->ls->items[j].start, n2 = ps->ls->items[j].len;
			if (!starts(c2, n2, "+++ "))
				break;
			if (!git_header || !f)
				f = add_file(p);
			git_header = 0;
			h = NULL;
			if (starts(c2 + 4, n2 - 4, "/dev/null"))
				set_path(f, c + 4, n - 4);
			else
				set_path(f, c2 + 4, n2 - 4);
			emit(p, c, n);
			emit(p, c2, n2);
			i = j;
		} else if (starts(c, n, "@@ -") && f) {
			int os, oc, nc;

			if (parse_hunk_header(c, n, &os, &oc, &nc))
				break;
			f->hunks = xrealloc(f->hunks, (size_t)(f->nr_hunks + 1) * sizeof(*f->hunks));
			h = &f->hunks[f->nr_hunks++];
			h->number = f->nr_hunks;
			h->old_start = os;
			snprintf(h->header, sizeof(h->header), "%.*s", (int)n, c);
			old_left = oc;
			new_left = nc;
			emit(p, c, n);
		} else if ((git_header && is_file_header(c, n)) || (n && c[0] == '\\')) {
			emit(p, c, n);
		} else {
			break;   /* the end of the diff: a signature, prose, akpm's "_" */
		}
	}
	if (old_left > 0 || new_left > 0 || old_left < 0 || new_left < 0)
		return error_input(ps->err, "%s:%d: the patch \"%s\" is cut short in %s hunk #%d (%s): "
				   "its lines do not add up to the hunk's counts (a reply that trims "
				   "the quoted patch?); give the whole patch (the original mail, or "
				   "`b4 am` of its thread)", ps->path, p->line, p->subject,
				   f ? f->path : "?", h ? h->number : 0, h ? h->header : "?");
	return 0;
}

/* The first line in [from, end) where a diff starts, and its quote depth; -1 if none. */
static int find_diff(const struct lines *ls, int from, int end, int *depth)
{
	for (int i = from; i < end; i++) {
		const char *c, *c2;
		size_t n, n2;
		int d = unquote(&ls->items[i], &c, &n);

		if (starts(c, n, "diff --git ")) {
			*depth = d;
			return i;
		}
		if (starts(c, n, "--- ") && i + 1 < end &&
		    unquote(&ls->items[i + 1], &c2, &n2) == d && starts(c2, n2, "+++ ")) {
			*depth = d;
			return i;
		}
	}
	return -1;
}

static void patch_free(struct patch *p)
{
	for (int i = 0; i < p->nr_files; i++)
		free(p->files[i].hunks);
	free(p->files);
	buf_free(&p->diff);
}

/*
 * Does the message open with RFC 822 headers?  A first line such as "Re: x"
 * looks like one, so a block counts only if it names a mail's usual fields.
 */
static int has_headers(const struct lines *ls, int start, int end)
{
	static const char *const fields[] = { "From:", "Subject:", "Date:", "To:", "Message-ID:", NULL };

	for (int i = start; i < end && ls->items[i].len && (i == start || is_header(&ls->items[i]) ||
	     ls->items[i].start[0] == ' ' || ls->items[i].start[0] == '\t'); i++)
		for (int f = 0; fields[f]; f++)
			if (!strncasecmp(ls->items[i].start, fields[f], strlen(fields[f])) && is_header(&ls->items[i]))
				return 1;
	return 0;
}

/* One message, lines [start, end).  Returns 1 if it held a patch (added), 0 if not, -1 on error. */
static int parse_message(const char *path, const struct lines *ls, int start, int end,
			 struct patch_set *set, struct error *err)
{
	struct patch p;
	struct parser ps = { path, ls, &p, err };
	int body = start, depth = 0, at;
	unsigned char digest[32];
	struct sha256 s;
	const char *slash = strrchr(path, '/');

	memset(&p, 0, sizeof(p));
	p.line = ls->items[start].number;
	if (starts(ls->items[start].start, ls->items[start].len, "From ") || has_headers(ls, start, end)) {
		/* RFC 822 headers up to the first blank line. */
		for (body = start; body < end && ls->items[body].len; body++)
			if (starts(ls->items[body].start, ls->items[body].len, "Subject: "))
				header_value(ls, body, end, 9, p.subject, sizeof(p.subject));
	} else if (!starts(ls->items[start].start, ls->items[start].len, "diff --git ") &&
		   !starts(ls->items[start].start, ls->items[start].len, "--- ")) {
		/* The seed form: the subject alone on the first line. */
		snprintf(p.subject, sizeof(p.subject), "%.*s", (int)ls->items[start].len,
			 ls->items[start].start);
		body = start + 1;
	}
	at = find_diff(ls, body, end, &depth);
	if (at < 0)
		return 0;
	for (int i = body; i < at; i++)   /* in-body "Subject:" */
		if (starts(ls->items[i].start, ls->items[i].len, "Subject: "))
			header_value(ls, i, at, 9, p.subject, sizeof(p.subject));
	clean_subject(p.subject);
	if (!p.subject[0])
		snprintf(p.subject, sizeof(p.subject), "%s", slash ? slash + 1 : path);
	p.quote_depth = depth;
	if (read_diff(&ps, at, end, depth)) {
		patch_free(&p);
		return -1;
	}
	sha256_init(&s);
	sha256_update(&s, p.diff.data, p.diff.len);
	sha256_final(&s, digest);
	sha256_hex(digest, p.sha256);
	set->items = xrealloc(set->items, (size_t)(set->nr + 1) * sizeof(*set->items));
	set->items[set->nr++] = p;
	return 1;
}

int patch_parse(const char *path, const char *text, size_t len, struct patch_set *set,
		struct error *err)
{
	struct lines ls;
	int rc = 0, start = 0;

	set->nr = 0;
	set->items = NULL;
	split_lines(text, len, &ls);
	for (int i = 1; i <= ls.nr && rc >= 0; i++) {
		if (i < ls.nr && !is_mbox_from(&ls, i))
			continue;
		rc = parse_message(path, &ls, start, i, set, err);
		start = i;
	}
	free(ls.items);
	if (rc >= 0 && !set->nr)
		rc = error_input(err, "%s: no patch in it (no \"diff --git\" or \"--- \"/\"+++ \" lines, "
			         "quoted or not); give a git format-patch file, an mbox (b4 am) or a "
			         "mail holding the patch", path);
	if (rc < 0) {
		patch_set_free(set);
		return -1;
	}
	return 0;
}

void patch_set_free(struct patch_set *set)
{
	for (int i = 0; i < set->nr; i++)
		patch_free(&set->items[i]);
	free(set->items);
	set->items = NULL;
	set->nr = 0;
}

/* ---- explaining a failure ---- */

static const struct patch_hunk *find_hunk(const struct patch *p, const char *file, int number)
{
	for (int i = 0; p && i < p->nr_files; i++)
		if (!strcmp(p->files[i].path, file))
			for (int j = 0; j < p->files[i].nr_hunks; j++)
				if (p->files[i].hunks[j].number == number)
					return &p->files[i].hunks[j];
	return NULL;
}

/* Append phrase to the list in out: at most three, then "...". */
static void add_phrase(char *out, size_t cap, int *nr, const char *phrase)
{
	size_t used = strlen(out);

	if (*nr < 3)
		snprintf(out + used, cap - used, "%s%s", *nr ? ", " : "", phrase);
	else if (*nr == 3)
		snprintf(out + used, cap - used, ", ...");
	(*nr)++;
}

void patch_explain_failure(const struct patch *p, const char *output, char *out, size_t cap)
{
	char file[256] = "?", phrase[600];
	int nr = 0;

	out[0] = '\0';
	for (const char *l = output; *l; l = next_line(l)) {
		int hunk, at;

		if (sscanf(l, "checking file %255[^\n]", file) == 1 ||
		    sscanf(l, "patching file %255[^\n]", file) == 1)
			continue;
		if (sscanf(l, "Hunk #%d FAILED at %d", &hunk, &at) == 2) {
			const struct patch_hunk *h = find_hunk(p, file, hunk);

			snprintf(phrase, sizeof(phrase), "%s hunk #%d%s%s%s FAILED at line %d", file, hunk,
				 h ? " (" : "", h ? h->header : "", h ? ")" : "", at);
			add_phrase(out, cap, &nr, phrase);
		} else if (strstr(l, "Reversed (or previously applied)")) {
			snprintf(phrase, sizeof(phrase), "%s: already applied (or reversed)", file);
			add_phrase(out, cap, &nr, phrase);
		} else if (!strncmp(l, "can't find file to patch", 24)) {
			const char *name = NULL;
			size_t n;

			/* patch quotes the text before the hunk: "|--- a/FILE", "|+++ b/FILE". */
			for (const char *m = l; *m && !name; m = next_line(m))
				if (!strncmp(m, "|+++ ", 5))
					name = m + 5;
			if (name && (name[0] == 'a' || name[0] == 'b') && name[1] == '/')
				name += 2;
			n = name ? strcspn(name, "\t\n") : 0;
			snprintf(phrase, sizeof(phrase), "%.*s: no such file in this source",
				 name ? (int)n : 1, name ? name : "?");
			add_phrase(out, cap, &nr, phrase);
		}
	}
	if (!nr)   /* malformed, garbage, ...: patch's own first line */
		snprintf(out, cap, "%.*s", (int)strcspn(output, "\n"), output);
}
