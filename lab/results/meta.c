/* meta: the `key: value` file of a result cell; meta.h has the keys. */
#include "results/meta.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void meta_add(struct buf *meta, const char *key, const char *fmt, ...)
{
	char value[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	for (char *p = value; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p == 0x7f)
			*p = ' ';
	buf_addf(meta, "%s: %s\n", key, value);
}

int meta_write(const char *dir, const struct buf *meta, struct error *err)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/" META_FILE, dir);
	return write_file_atomic(path, meta->data ? meta->data : "", meta->len, err);
}

int meta_read(const char *dir, struct buf *meta, struct error *err)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/" META_FILE, dir);
	return read_file(path, meta, err);
}

const char *meta_next(const char **pos, const char *key, size_t *len)
{
	size_t klen = strlen(key);

	for (const char *l = *pos; *l; l = next_line(l)) {
		if (strncmp(l, key, klen) || l[klen] != ':' || l[klen + 1] != ' ')
			continue;
		*pos = next_line(l);
		l += klen + 2;
		*len = strcspn(l, "\n");
		return l;
	}
	*pos += strlen(*pos);
	return NULL;
}

char *meta_get(const char *text, const char *key)
{
	size_t len;
	const char *v = meta_next(&text, key, &len);

	return v ? xprintf("%.*s", (int)len, v) : NULL;
}

int meta_copy(const char *text, const char *key, char *out, size_t cap)
{
	size_t len;
	const char *v = meta_next(&text, key, &len);

	snprintf(out, cap, "%.*s", v ? (int)len : 0, v ? v : "");
	return v != NULL;
}

char *meta_guest(const char *text, const char *item)
{
	size_t len, ilen = strlen(item);
	const char *v;

	while ((v = meta_next(&text, META_GUEST, &len)))
		if (len >= ilen + 2 && !strncmp(v, item, ilen) && v[ilen] == ':' && v[ilen + 1] == ' ')
			return xprintf("%.*s", (int)(len - ilen - 2), v + ilen + 2);
	return NULL;
}
