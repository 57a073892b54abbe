#include "boot/qemucaps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/proc.h"
#include "host/toolroot.h"

/* Bumped when the queries or what is read from them change: older cache files are then not found. */
#define QEMU_CAPS_FORMAT "numalab-qemu-caps 1"
#define QEMU_CAPS_VERSION_QUERY "--version"
/*
 * What is asked, each the arguments of one QEMU that prints and exits.  A
 * query a binary cannot answer (q35 of qemu-system-loongarch64) replies
 * nothing: its properties are absent.
 */
static const char *const queries[][3] = {
	{ QEMU_CAPS_VERSION_QUERY },
	{ "-machine", "q35,help" },
	{ "-device", "ICH9-LPC,help" },
};

/* Each cap: the query whose reply lists it, and its property name there. */
static const struct {
	int query;
	const char *property;
} cap_table[QEMU_CAP_NR] = {
	[QEMU_CAP_Q35_VMPORT] = { 1, "vmport" },
	[QEMU_CAP_Q35_SMM] = { 1, "smm" },
	[QEMU_CAP_Q35_SATA] = { 1, "sata" },
	[QEMU_CAP_Q35_SMBUS] = { 1, "smbus" },
	[QEMU_CAP_Q35_I8042] = { 1, "i8042" },
	[QEMU_CAP_ICH9_PCI_HOTPLUG_BRIDGE] = { 2, "acpi-pci-hotplug-with-bridge-support" },
	[QEMU_CAP_ICH9_MEMORY_HOTPLUG] = { 2, "memory-hotplug-support" },
};

#define NR_QUERIES (sizeof(queries) / sizeof(queries[0]))
/* Help texts are a few KiB; more is cut (and only the properties past the cut are missed). */
#define REPLY_MAX 65536

const char *qemu_cap_property(enum qemu_cap cap)
{
	return cap_table[cap].property;
}

int qemu_caps_has(const struct qemu_caps *caps, enum qemu_cap cap)
{
	return caps && caps->has[cap];
}

/* The query's title in the replies: its arguments joined by spaces. */
static void query_title(size_t q, char *out, size_t cap)
{
	size_t len = 0;

	out[0] = '\0';
	for (size_t i = 0; i < 3 && queries[q][i] && len < cap; i++)
		len += (size_t)snprintf(out + len, cap - len, "%s%s", i ? " " : "", queries[q][i]);
}

/* Which query a "== TITLE" line opens; -1 for one this lab does not ask. */
static int query_of(const char *line, size_t len)
{
	char title[128];

	for (size_t q = 0; q < NR_QUERIES; q++) {
		query_title(q, title, sizeof(title));
		if (strlen(title) == len && !memcmp(title, line, len))
			return (int)q;
	}
	return -1;
}

/* A help line listing a property: "  NAME=<type> ..." (QEMU 7.2 to 10 alike). */
static void note_property(const char *line, size_t len, int query, struct qemu_caps *caps)
{
	size_t name = 0;

	if (len < 3 || line[0] != ' ' || line[1] != ' ')
		return;
	line += 2;
	len -= 2;
	name = strcspn(line, "=");
	if (name >= len)
		return;
	for (int c = 0; c < QEMU_CAP_NR; c++)
		if (cap_table[c].query == query && strlen(cap_table[c].property) == name &&
		    !memcmp(cap_table[c].property, line, name))
			caps->has[c] = 1;
}

/* "QEMU emulator version 7.2.19 (Debian ...)": that line, and "7.2.19". */
static void note_version(const char *line, size_t len, struct qemu_caps *caps)
{
	static const char key[] = "version ";
	const char *end = line + len, *p;

	if (!caps->banner[0])
		snprintf(caps->banner, sizeof(caps->banner), "%.*s", (int)len, line);
	for (p = line; p + sizeof(key) - 1 <= end; p++)
		if (!memcmp(p, key, sizeof(key) - 1))
			break;
	if (caps->version[0] || p + sizeof(key) - 1 > end)
		return;
	p += sizeof(key) - 1;
	len = strcspn(p, " \n");
	if (len && p + len <= end)
		snprintf(caps->version, sizeof(caps->version), "%.*s", (int)len, p);
}

void qemu_caps_parse(const char *replies, struct qemu_caps *caps)
{
	int query = -1;

	memset(caps, 0, sizeof(*caps));
	for (const char *line = replies; line && *line; line = next_line(line)) {
		size_t len = strcspn(line, "\n");

		if (len >= 3 && !memcmp(line, "== ", 3))
			query = query_of(line + 3, len - 3);
		else if (query == 0)
			note_version(line, len, caps);
		else if (query > 0)
			note_property(line, len, query, caps);
	}
}

/* The file argv0 names, as execvp finds it, under root when root is a toolroot. */
static int resolve(const char *root, const char *argv0, char *out, size_t cap)
{
	const char *path = root && *root ? "/usr/local/bin:/usr/bin:/bin" : getenv("PATH");
	const char *prefix = root && *root ? root : "";

	if (strchr(argv0, '/'))
		return snprintf(out, cap, "%s%s", prefix, argv0), access(out, X_OK);
	for (const char *dir = path ? path : "/usr/bin:/bin"; *dir;) {
		size_t n = strcspn(dir, ":");

		snprintf(out, cap, "%s%.*s/%s", prefix, (int)n, n ? dir : ".", argv0);
		if (!access(out, X_OK))
			return 0;
		dir += n + (dir[n] == ':');
	}
	return -1;
}

int qemu_identity(const char *qemu, const char *toolroot, struct buf *out)
{
	char path[4096];
	struct stat st;

	if (resolve(toolroot, qemu, path, sizeof(path)) || stat(path, &st))
		return -1;
	buf_addf(out, "qemu %s %lld %lld.%09ld %llu", path, (long long)st.st_size,
		 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (unsigned long long)st.st_ino);
	return 0;
}

/* CACHE/qemu-caps/HASH for this QEMU; -1 when it cannot be found (then it is asked every time). */
static int cache_path(const char *qemu, const char *toolroot, char *out, size_t cap)
{
	struct buf key = BUF_INIT;
	int rc = -1;

	buf_addstr(&key, QEMU_CAPS_FORMAT "\n");
	if (!qemu_identity(qemu, toolroot, &key)) {
		lab_cache_keyed("qemu-caps", &key, out, cap);
		rc = 0;
	}
	buf_free(&key);
	return rc;
}

/* Run every query; the replies text, or -1 when --version does not answer. */
static int ask(const char *qemu, const char *toolroot, struct buf *replies, struct error *err)
{
	char *reply = xmalloc(REPLY_MAX);
	char title[128];

	buf_addstr(replies, QEMU_CAPS_FORMAT "\n");
	for (size_t q = 0; q < NR_QUERIES; q++) {
		const char *plain[5] = { qemu };
		struct strvec argv = STRVEC_INIT;
		struct error qerr;
		int rc;

		for (size_t i = 0; i < 3 && queries[q][i]; i++)
			plain[1 + i] = queries[q][i];
		toolroot_argv(toolroot, plain, &argv);
		rc = proc_capture(strvec_argv(&argv), reply, REPLY_MAX, &qerr);
		strvec_clear(&argv);
		if (q == 0 && rc) {
			free(reply);
			return error_set(err, "`%s --version` %s%s; install QEMU (`make setup` does) or put one on PATH",
					 qemu, rc < 0 ? "could not run: " : "failed", rc < 0 ? qerr.msg : "");
		}
		query_title(q, title, sizeof(title));
		buf_addf(replies, "== %s\n%s", title, rc ? "" : reply);
		if (replies->len && replies->data[replies->len - 1] != '\n')
			buf_addstr(replies, "\n");
	}
	free(reply);
	return 0;
}

int qemu_caps_probe(const char *qemu, const char *toolroot, struct qemu_caps *caps, struct error *err)
{
	char cache[4200];
	struct buf replies = BUF_INIT;
	struct error ignored;
	int cacheable = !cache_path(qemu, toolroot, cache, sizeof(cache));

	if (cacheable && !read_file(cache, &replies, &ignored) &&
	    !strncmp(buf_str(&replies), QEMU_CAPS_FORMAT "\n", strlen(QEMU_CAPS_FORMAT) + 1)) {
		qemu_caps_parse(buf_str(&replies), caps);
		buf_free(&replies);
		return 0;
	}
	buf_free(&replies);
	if (ask(qemu, toolroot, &replies, err)) {
		buf_free(&replies);
		return -1;
	}
	qemu_caps_parse(buf_str(&replies), caps);
	if (cacheable) {
		char *dir = xstrdup(cache);

		*strrchr(dir, '/') = '\0';
		if (mkdir_p(dir, &ignored) || write_file_atomic(cache, replies.data, replies.len, &ignored)) {
			/* A lost cache write only costs asking again. */
		}
		free(dir);
	}
	buf_free(&replies);
	return 0;
}
