#include "kernel/pin.h"
#include "host/mirror.h"
#include "base/interrupt.h"
#include "base/lines.h"
#include "base/proc.h"
#include "base/progress.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- the lock file ---- */

#define LOWER "abcdefghijklmnopqrstuvwxyz"
#define UPPER "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
#define DIGIT "0123456789"
#define PIN_FIELD(m) offsetof(struct kernel_pin, m), sizeof(((struct kernel_pin *)0)->m)

/* The columns in order; every value ends up in a path or an argv, so each is fenced. */
static const struct lock_field {
	const char *what;
	size_t off, cap;
	const char *alphabet, *desc;
} lock_fields[] = {
	{ "name", PIN_FIELD(name), LOWER DIGIT "._-", "a-z 0-9 . _ -" },
	{ "arch", PIN_FIELD(arch), LOWER DIGIT "_", "a-z 0-9 _" },
	{ "suite", PIN_FIELD(suite), LOWER DIGIT "-", "a-z 0-9 -" },
	{ "debarch", PIN_FIELD(debarch), LOWER DIGIT, "a-z 0-9" },
	{ "package", PIN_FIELD(package), LOWER DIGIT ".+-", "a-z 0-9 . + -" },
	/* ':' only as an epoch's end (busybox-static's "1:"); file names spell it "%3a" (file_version()). */
	{ "version", PIN_FIELD(version), LOWER UPPER DIGIT ".+~:-", "A-Z a-z 0-9 . + ~ : -" },
	{ "sha256", PIN_FIELD(sha256), DIGIT "abcdef", "0-9 a-f" },
	{ "image", PIN_FIELD(image), LOWER UPPER DIGIT "._+-/", "A-Z a-z 0-9 . _ + - /" },
};
#define NR_LOCK_FIELDS (sizeof(lock_fields) / sizeof(lock_fields[0]))
#define LOCK_COLUMNS "name arch suite debarch package version sha256 image"
#define PIN_ORIGIN_FILE "origin"   /* in a fetched directory: where its .deb came from */

int kernel_arch_known(const char *arch)
{
	return !strcmp(arch, "x86_64") || !strcmp(arch, "loongarch64");
}

/* Lock lines with arch "source" pin kernel sources for recipes (recipe.h). */
static int is_source(const struct kernel_pin *pin)
{
	return !strcmp(pin->arch, KERNEL_SOURCE_ARCH);
}

static int name_ends(const struct kernel_pin *pin, const char *suffix)
{
	size_t len = strlen(pin->name), n = strlen(suffix);

	return len > n && !strcmp(pin->name + len - n, suffix);
}

/* Lock lines named NAME-modules pin the module tree of kernel NAME. */
static int is_modules(const struct kernel_pin *pin)
{
	return name_ends(pin, "-modules");
}

int pin_is_companion(const struct kernel_pin *pin)
{
	return is_modules(pin) || name_ends(pin, "-config") || name_ends(pin, "-builtin");
}

static int set_field(const char *path, int line, const struct lock_field *f,
		     const char *val, struct kernel_pin *pin, struct error *err)
{
	size_t len = strlen(val), bad = strspn(val, f->alphabet);

	if (len >= f->cap)
		return error_input(err, "%s:%d: %s '%s' is longer than %zu characters; shorten it",
				 path, line, f->what, val, f->cap - 1);
	if (bad != len)
		return error_input(err, "%s:%d: %s '%s' has '%c', outside [%s]; fix the %s field",
				 path, line, f->what, val, val[bad], f->desc, f->what);
	memcpy((char *)pin + f->off, val, len + 1);
	return 0;
}

/* What no alphabet can say: known arch, an epoch's one colon, full-length digest, a path inside the package. */
static int check_pin(const char *path, const struct kernel_pin *pin, struct error *err)
{
	const char *colon = strchr(pin->version, ':');

	if (!kernel_arch_known(pin->arch) && !is_source(pin))
		return error_input(err, "%s:%d: arch '%s' is not x86_64, loongarch64 or source; fix the arch field",
				 path, pin->line, pin->arch);
	if (colon && (colon == pin->version || strspn(pin->version, DIGIT) != (size_t)(colon - pin->version) ||
		      strchr(colon + 1, ':')))
		return error_input(err, "%s:%d: version '%s': a ':' may only end the epoch, once (1:1.38.0-3+b1); "
				 "copy the Version line of `apt-cache show %s`", path, pin->line, pin->version,
				 pin->package);
	if (strlen(pin->sha256) != 64)
		return error_input(err, "%s:%d: sha256 '%s' is not 64 hex digits; copy the SHA256 "
				 "line of `apt-cache show %s`", path, pin->line, pin->sha256, pin->package);
	if (pin->image[0] == '/' || strstr(pin->image, "..") ||
	    pin->image[strlen(pin->image) - 1] == '/')
		return error_input(err, "%s:%d: image '%s' must be a file's path relative to the "
				 "package root, without '..'; fix the image field "
				 "(e.g. usr/lib/modules/ABI/vmlinuz)", path, pin->line, pin->image);
	return 0;
}

static int parse_pin(const char *path, int line, char **tok, int n, struct kernel_pin *pin,
		     struct error *err)
{
	if (n != (int)NR_LOCK_FIELDS)
		return error_input(err, "%s:%d: expected %zu fields (" LOCK_COLUMNS "), got %d; "
				 "see docs/kernels.md", path, line, NR_LOCK_FIELDS, n);
	memset(pin, 0, sizeof(*pin));
	pin->line = line;
	snprintf(pin->lock_file, sizeof(pin->lock_file), "%s", path);
	for (size_t i = 0; i < NR_LOCK_FIELDS; i++)
		if (set_field(path, line, &lock_fields[i], tok[i], pin, err))
			return -1;
	return check_pin(path, pin, err);
}

static int add_pin(const char *path, const struct kernel_pin *pin, struct kernel_lock *lock,
		   struct error *err)
{
	const struct kernel_pin *dup = kernel_lock_find(lock, pin->name, pin->arch);

	if (dup)
		return error_input(err, "%s:%d: %s %s is already pinned on line %d; remove one of them",
				 path, pin->line, pin->name, pin->arch, dup->line);
	if (lock->nr == KERNEL_LOCK_MAX)
		return error_input(err, "%s:%d: more than %d kernels; remove unused ones",
				 path, pin->line, KERNEL_LOCK_MAX);
	lock->pins[lock->nr++] = *pin;
	return 0;
}

int kernel_lock_parse(const char *path, const char *buf, size_t len,
		      struct kernel_lock *lock, struct error *err)
{
	struct lines l;
	char *line, *tok[LINES_MAX_WORDS];
	int rc, n = 0;

	lock->nr = 0;
	lines_init(&l, path, buf, len);
	while ((rc = lines_next(&l, &line)) > 0 && (n = lines_words(&l, line, tok)) > 0) {
		struct kernel_pin pin;

		if (parse_pin(path, l.nr, tok, n, &pin, err) || add_pin(path, &pin, lock, err))
			return -1;
	}
	return rc < 0 || n < 0 ? error_input(err, "%s", l.msg) : 0;
}

const struct kernel_pin *kernel_lock_find(const struct kernel_lock *lock,
					  const char *name, const char *arch)
{
	for (int i = 0; i < lock->nr; i++)
		if (!strcmp(lock->pins[i].name, name) && !strcmp(lock->pins[i].arch, arch))
			return &lock->pins[i];
	return NULL;
}

/* ---- images ---- */

static unsigned le16(const unsigned char *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)le16(p) | (uint32_t)le16(p + 2) << 16;
}

/*
 * The arch an image is built for, from its ELF or PE/EFI header (Debian's
 * vmlinuz on both arches carries an EFI stub); NULL when it cannot tell.
 */
static const char *image_arch(const unsigned char *h, size_t n)
{
	uint32_t pe;

	if (n >= 20 && !memcmp(h, "\177ELF", 4))
		return le16(h + 18) == 62 ? "x86_64" : le16(h + 18) == 258 ? "loongarch64" : "other";
	if (n >= 64 && !memcmp(h, "MZ", 2)) {
		pe = le32(h + 0x3c);
		if (pe <= n - 6 && !memcmp(h + pe, "PE\0\0", 4))
			return le16(h + pe + 4) == 0x8664 ? "x86_64" :
			       le16(h + pe + 4) == 0x6264 ? "loongarch64" : "other";
	}
	if (n >= 0x206 && !memcmp(h + 0x202, "HdrS", 4))
		return "x86_64";
	return NULL;
}

static uint64_t le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* Does the note segment at [off, off + len) of fd hold a Xen note of type 18 (PHYS32_ENTRY)? */
static int has_pvh_note(int fd, uint64_t off, uint64_t len)
{
	unsigned char notes[4096];
	ssize_t n = len <= sizeof(notes) ? pread(fd, notes, (size_t)len, (off_t)off) : -1;

	for (size_t at = 0; n > 0 && at + 12 <= (size_t)n;) {
		uint32_t namesz = le32(notes + at), descsz = le32(notes + at + 4), type = le32(notes + at + 8);
		size_t name = at + 12, next = name + ((namesz + 3) & ~3u) + ((descsz + 3) & ~3u);

		if (namesz == 4 && name + 4 <= (size_t)n && !memcmp(notes + name, "Xen", 4) && type == 18)
			return 1;
		if (next <= at)
			break;
		at = next;
	}
	return 0;
}

/*
 * An x86 ELF boots in QEMU only through its PVH entry (the Xen note
 * PHYS32_ENTRY, CONFIG_PVH): without it QEMU refuses to start.
 */
static int elf_has_pvh_entry(int fd, const unsigned char *h, size_t n)
{
	uint64_t phoff = n >= 64 ? le64(h + 0x20) : 0;
	unsigned phentsize = n >= 64 ? le16(h + 0x36) : 0, phnum = n >= 64 ? le16(h + 0x38) : 0;

	for (unsigned i = 0; phentsize >= 56 && i < phnum; i++) {
		unsigned char ph[56];

		if (pread(fd, ph, sizeof(ph), (off_t)(phoff + (uint64_t)i * phentsize)) != (ssize_t)sizeof(ph))
			return 0;
		if (le32(ph) == 4 /* PT_NOTE */ && has_pvh_note(fd, le64(ph + 8), le64(ph + 32)))
			return 1;
	}
	return 0;
}

/* A kernel for the wrong arch would only hang the VM until its timeout: refuse it here. */
int kernel_check_image(const char *path, const char *arch, struct error *err)
{
	unsigned char head[4096];
	struct stat st;
	ssize_t n;
	const char *got;
	int fd = open(path, O_RDONLY | O_CLOEXEC), x86_elf, pvh;

	if (fd < 0)
		return error_set(err, "cannot read kernel image %s: %s", path, strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return error_set(err, "kernel image %s is not a regular file; give the image "
				 "(bzImage, vmlinuz, vmlinux.efi)", path);
	}
	n = read(fd, head, sizeof(head));
	got = image_arch(head, n > 0 ? (size_t)n : 0);
	x86_elf = got && !strcmp(got, "x86_64") && !memcmp(head, "\177ELF", 4);
	pvh = x86_elf && elf_has_pvh_entry(fd, head, (size_t)n);
	close(fd);
	/* A DOS/EFI stub whose PE part is broken is the firmware's to refuse (it says why). */
	if (!got && !(n >= 2 && !memcmp(head, "MZ", 2)))
		return error_set(err, "%s is not a kernel image: it has no bzImage (HdrS), ELF or PE/EFI "
				 "header; give a kernel image (arch/x86/boot/bzImage, vmlinuz, vmlinux.efi), "
				 "a recipe or a name from " KERNEL_LOCK_FILE, path);
	if (got && strcmp(got, arch))
		return error_set(err, "kernel image %s is built for %s, not %s; give a %s kernel",
				 path, got, arch, arch);
	if (x86_elf && !pvh)
		return error_set(err, "%s is an x86 ELF kernel without a PVH entry, which QEMU needs to "
				 "boot an uncompressed vmlinux; build it with CONFIG_PVH=y or give "
				 "arch/x86/boot/bzImage", path);
	return 0;
}

/* ---- running apt and dpkg-deb ---- */

/* Private apt state for one suite and Debian arch: lab_cache_dir()/apt/SUITE-DEBARCH. */
struct apt {
	char *dir;
	char *conf;   /* passed as `-c`: it names everything else */
	char *log;    /* every command's output, appended */
	char *stamp;  /* written after each successful apt-get update: the mirror's URL */
	char mirror[512];   /* the archive sources.list names (apt_prepare()) */
};

static void apt_init(struct apt *apt, const struct kernel_pin *pin)
{
	apt->dir = xprintf("%s/apt/%s-%s", lab_cache_dir(), pin->suite, pin->debarch);
	apt->conf = xprintf("%s/apt.conf", apt->dir);
	apt->log = xprintf("%s/apt.log", apt->dir);
	apt->stamp = xprintf("%s/updated", apt->dir);
}

static void apt_release(struct apt *apt)
{
	free(apt->dir);
	free(apt->conf);
	free(apt->log);
	free(apt->stamp);
}

void pin_apt_conf(const char *dir, const char *debarch, struct buf *conf)
{
	/* Only the host's defaults (proxies, ...) are inherited, never its sources or status. */
	buf_addf(conf, "Dir::Etc::sourcelist \"%s/sources.list\";\n", dir);
	buf_addf(conf, "Dir::Etc::sourceparts \"/nonexistent\";\n");
	buf_addf(conf, "Dir::State::Lists \"%s/lists\";\n", dir);
	buf_addf(conf, "Dir::State::status \"/dev/null\";\n");
	buf_addf(conf, "Dir::Cache \"%s/cache\";\n", dir);
	buf_addf(conf, "APT::Architecture \"%s\";\n", debarch);
	buf_addf(conf, "#clear APT::Architectures;\nAPT::Architectures { \"%s\"; };\n", debarch);
	buf_addf(conf, "Acquire::Languages \"none\";\n");
	/* As root apt would drop to _apt, which cannot write into a user's cache. */
	buf_addf(conf, "APT::Sandbox::User \"root\";\n");
}

/* Create the state directories and (re)write apt.conf and sources.list. */
static int apt_prepare(struct apt *apt, const struct kernel_pin *pin, struct error *err)
{
	char *lists = xprintf("%s/lists/partial", apt->dir);
	char *archives = xprintf("%s/cache/archives/partial", apt->dir);
	char *sources = xprintf("%s/sources.list", apt->dir);
	struct buf conf = BUF_INIT, line = BUF_INIT;
	int rc = host_debian_mirror(apt->mirror, sizeof(apt->mirror), err);

	buf_addf(&line, "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg arch=%s] "
		 "%s %s main\n", pin->debarch, apt->mirror, pin->suite);
	pin_apt_conf(apt->dir, pin->debarch, &conf);
	rc = rc || mkdir_p(lists, err) || mkdir_p(archives, err) ||
	     write_file_atomic(apt->conf, conf.data, conf.len, err) ||
	     write_file_atomic(sources, line.data, line.len, err) ? -1 : 0;
	buf_free(&conf);
	buf_free(&line);
	free(lists);
	free(archives);
	free(sources);
	return rc;
}

/* Serialise fetches sharing one apt state (apt locks its lists itself, but fails instead of waiting). */
static int apt_lock(const struct apt *apt, struct error *err)
{
	char *path = xprintf("%s/numalab.lock", apt->dir);
	int fd = lock_file(path, "download", err);

	free(path);
	return fd;
}

void pin_cmd_argv(enum pin_cmd cmd, const struct kernel_pin *pin, const char *conf,
		  const char *deb, const char *tree, struct strvec *argv)
{
	switch (cmd) {
	case PIN_CMD_VERSIONS:
		strvec_push(argv, "apt-cache");
		strvec_push(argv, "-c");
		strvec_push(argv, conf);
		strvec_push(argv, "madison");
		strvec_push(argv, pin->package);
		break;
	case PIN_CMD_UPDATE:
	case PIN_CMD_DOWNLOAD:
		strvec_push(argv, "apt-get");
		strvec_push(argv, "-c");
		strvec_push(argv, conf);
		strvec_push(argv, cmd == PIN_CMD_UPDATE ? "update" : "download");
		strvec_push(argv, "-q");
		if (cmd == PIN_CMD_DOWNLOAD)
			strvec_pushf(argv, "%s=%s", pin->package, pin->version);
		break;
	case PIN_CMD_UNPACK:
		strvec_push(argv, "dpkg-deb");
		strvec_push(argv, "-x");
		strvec_push(argv, deb);
		strvec_push(argv, tree);
		break;
	}
}

void pin_snapshot_url(const char *base, const struct kernel_pin *pin, const char *sha1,
		      struct buf *url)
{
	/* Lock fields are fenced to URL-safe characters ('+' and '~' are literal in a path). */
	if (sha1)
		buf_addf(url, "%s/file/%s", base, sha1);
	else
		buf_addf(url, "%s/mr/binary/%s/%s/binfiles", base, pin->package, pin->version);
}

void pin_snapshot_argv(const char *conf, const char *url, const char *target, struct strvec *argv)
{
	strvec_push(argv, PIN_APT_HELPER);
	strvec_push(argv, "-c");
	strvec_push(argv, conf);
	strvec_push(argv, "download-file");
	strvec_push(argv, url);
	strvec_push(argv, target);
}

/* The string value of "key" in the JSON object text [p, end), into out; 0 if there is one that fits. */
static int json_string(const char *p, const char *end, const char *key, char *out, size_t cap)
{
	size_t klen = strlen(key), n;

	for (const char *k = p; (k = memchr(k, '"', (size_t)(end - k))) && end - k > (ptrdiff_t)klen + 1; k++) {
		const char *v = k + 1 + klen;

		if (strncmp(k + 1, key, klen) || *v != '"')
			continue;
		v += 1 + strspn(v + 1, " \t\r\n");
		if (*v != ':')
			continue;
		v += 1 + strspn(v + 1, " \t\r\n");
		if (*v != '"' || !(n = strcspn(v + 1, "\"\\")) || v + 1 + n >= end || n >= cap)
			return -1;
		memcpy(out, v + 1, n);
		out[n] = '\0';
		return 0;
	}
	return -1;
}

int pin_snapshot_hashes(const char *json, const char *debarch, char (*sha1)[41], int max)
{
	const char *p = strstr(json, "\"result\""), *end;
	int n = 0;

	if (!p)
		return -1;
	p += strlen("\"result\"");
	p += strspn(p, " \t\r\n");
	if (*p++ != ':')
		return -1;
	p += strspn(p, " \t\r\n");
	if (*p++ != '[')
		return -1;
	/* Objects of strings only: the first '}' ends one. */
	for (;; p = end + 1) {
		char hash[41], arch[32] = "";

		p += strspn(p, " \t\r\n,");
		if (*p == ']')
			return n;
		if (*p != '{' || !(end = strchr(p, '}')))
			return -1;
		if (json_string(p, end, "hash", hash, sizeof(hash)) || strlen(hash) != 40 ||
		    strspn(hash, DIGIT "abcdef") != 40)
			continue;
		if (!json_string(p, end, "architecture", arch, sizeof(arch)) &&
		    strcmp(arch, debarch) && strcmp(arch, "all"))
			continue;
		if (n < max)
			memcpy(sha1[n++], hash, sizeof(hash));
	}
}

/*
 * After SIGINT (interrupt.h) no further command starts: the one running was
 * killed, and the retries and fallbacks below (an update, the snapshot
 * archive) would otherwise carry the fetch on as if it had failed by itself.
 */
static int stop_if_interrupted(struct error *err)
{
	return interrupt_caught() ? error_set(err, "interrupted (signal %d)", interrupt_caught()) : 0;
}

/* Run one of the commands above with its output appended to the apt log. */
static int run_cmd(enum pin_cmd cmd, const struct kernel_pin *pin, const struct apt *apt,
		   const char *what, const char *dir, const char *deb, const char *tree,
		   struct error *err)
{
	struct strvec argv = STRVEC_INIT;
	int rc;

	if (stop_if_interrupted(err))
		return -1;
	pin_cmd_argv(cmd, pin, apt->conf, deb, tree, &argv);
	rc = proc_run_logged(what, strvec_argv(&argv), dir, NULL, apt->log, err);
	strvec_clear(&argv);
	return rc;
}

/*
 * The archive's versions of the pinned package, space-separated, into have;
 * *listed: the pinned version is among them.  Returns 0, -1 with err.
 */
static int apt_versions(const struct kernel_pin *pin, const struct apt *apt,
			char *have, size_t cap, int *listed, struct error *err)
{
	struct strvec argv = STRVEC_INIT;
	char out[4096], *save = NULL;
	int rc;

	if (stop_if_interrupted(err))
		return -1;
	pin_cmd_argv(PIN_CMD_VERSIONS, pin, apt->conf, NULL, NULL, &argv);
	rc = proc_capture(strvec_argv(&argv), out, sizeof(out), err);
	strvec_clear(&argv);
	if (rc)
		return rc < 0 ? -1 : error_set(err, "apt-cache madison %s exited %d; try "
					       "`apt-cache -c %s madison %s`", pin->package, rc,
					       apt->conf, pin->package);
	have[0] = '\0';
	*listed = 0;
	/* Lines: "PACKAGE | VERSION | SOURCE". */
	for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char ver[64];

		if (sscanf(l, " %*s | %63s |", ver) != 1)
			continue;
		*listed |= !strcmp(ver, pin->version);
		snprintf(have + strlen(have), cap - strlen(have), "%s%s", have[0] ? " " : "", ver);
	}
	return 0;
}

/*
 * Lists updated less than APT_FRESH_S ago are the archive's: Debian publishes
 * a few times a day, so fetches of several missing pins in a row update once.
 */
#define APT_FRESH_S 600
static int apt_fresh(const struct apt *apt)
{
	struct buf b = BUF_INIT;
	struct error ignored;
	struct stat st;
	/* The stamp names the mirror: lists of another one say nothing of this one. */
	int fresh = !stat(apt->stamp, &st) && st.st_mtime <= time(NULL) &&
		    difftime(time(NULL), st.st_mtime) < APT_FRESH_S &&
		    !read_file(apt->stamp, &b, &ignored) && !strcmp(buf_str(&b), apt->mirror);

	buf_free(&b);
	return fresh;
}

/*
 * Download PKG=VERSION into dir.  The lists are refreshed only when the pin
 * is not in them or the download fails (stale lists point at removed files),
 * and then just once, unless apt_fresh().  *stale: the archive answered, without the version
 * (err then says what it has).
 */
static int apt_download(const struct kernel_pin *pin, const struct apt *apt, const char *dir,
			int *stale, struct error *err)
{
	char have[512];
	int listed = 0;

	*stale = 0;
	for (int updated = 0; ; updated = 1) {
		if (apt_versions(pin, apt, have, sizeof(have), &listed, err))
			return -1;
		if (listed && !run_cmd(PIN_CMD_DOWNLOAD, pin, apt, "apt-get download", dir, NULL,
				       NULL, err))
			return 0;
		if (updated && listed)
			return -1;
		if (updated) {
			*stale = 1;
			return have[0] ? error_set(err, "has only %s", have) :
			       error_set(err, "has no package %s", pin->package);
		}
		if (apt_fresh(apt))
			updated = 1;   /* another fetch just updated them: they are what the archive has */
		else if (run_cmd(PIN_CMD_UPDATE, pin, apt, "apt-get update", NULL, NULL, NULL, err) ||
			 write_file_atomic(apt->stamp, apt->mirror, strlen(apt->mirror), err))
			return -1;
	}
}

/* ---- the cached kernel directory ---- */

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static void pin_source(const struct kernel_pin *pin, struct buf *out)
{
	buf_addf(out, "package %s\nversion %s\nsha256 %s\nsuite %s\ndebarch %s\nimage %s\n",
		 pin->package, pin->version, pin->sha256, pin->suite, pin->debarch, pin->image);
}

/* A final directory whose `source` still matches the pin is complete (it was renamed into place). */
static int cached(const struct kernel_pin *pin, const char *dir, const char *image)
{
	struct buf want = BUF_INIT, have = BUF_INIT;
	struct error ignored;
	char *path = xprintf("%s/source", dir);
	int ok;

	pin_source(pin, &want);
	ok = !read_file(path, &have, &ignored) && !strcmp(buf_str(&want), buf_str(&have)) &&
	     file_exists(image);
	free(path);
	buf_free(&want);
	buf_free(&have);
	return ok;
}

/* 0 if the file at deb is the pinned .deb (its sha256), else -1 with err saying what it is. */
static int deb_is_pinned(const struct kernel_pin *pin, const char *deb, struct error *err)
{
	char hex[65];

	if (sha256_file(deb, hex, err))
		return -1;
	if (strcmp(hex, pin->sha256))
		return error_set(err, "has sha256 %s, not the pinned %.12s…", hex, pin->sha256);
	return 0;
}

/*
 * pin's version as apt-get download spells it in a file name: an epoch's
 * ':' as "%3a" (busybox-static_1%3a1.38.0-3+b1_loong64.deb), so that no
 * cache path or file the lab writes has a ':' either.
 */
static void file_version(const struct kernel_pin *pin, char *out, size_t cap)
{
	const char *colon = strchr(pin->version, ':');

	if (colon)
		snprintf(out, cap, "%.*s%%3a%s", (int)(colon - pin->version), pin->version, colon + 1);
	else
		snprintf(out, cap, "%s", pin->version);
}

/*
 * From the mirror: the .deb apt-get download left in dir, verified against
 * the pin.  *stale as apt_download(), also set when the archive's .deb is
 * another one under the same version (a rebuild): the pin's is not there.
 */
static char *mirror_deb(const struct kernel_pin *pin, const struct apt *apt, const char *dir,
			int *stale, struct error *err)
{
	char version[sizeof(pin->version) + 2], *deb;

	if (apt_download(pin, apt, dir, stale, err))
		return NULL;
	file_version(pin, version, sizeof(version));
	deb = xprintf("%s/%s_%s_%s.deb", dir, pin->package, version, pin->debarch);
	if (!file_exists(deb)) {   /* sources and docs are Architecture: all */
		free(deb);
		deb = xprintf("%s/%s_%s_all.deb", dir, pin->package, version);
	}
	if (!file_exists(deb)) {
		error_set(err, "left no %s after apt-get download; see %s", base_name(deb), apt->log);
		free(deb);
		return NULL;
	}
	if (deb_is_pinned(pin, deb, err)) {
		*stale = 1;
		unlink(deb);
		free(deb);
		return NULL;
	}
	return deb;
}

/*
 * Fetch url to target with apt-helper (apt's proxies and retries), its output
 * appended to the apt log.  On failure err is "URL: what apt said" ("404  Not
 * Found", "Could not connect to ..."), short, for a combined message.
 */
static int snapshot_get(const struct apt *apt, const char *url, const char *target,
			struct error *err)
{
	struct strvec argv = STRVEC_INIT;
	struct buf log = BUF_INIT;
	struct error ignored;
	const char *why = NULL, *mark = "E: Failed to fetch ";
	int rc;

	if (stop_if_interrupted(err))
		return -1;
	pin_snapshot_argv(apt->conf, url, target, &argv);
	rc = proc_run_logged("apt-helper download-file", strvec_argv(&argv), NULL, NULL, apt->log, err);
	strvec_clear(&argv);
	if (!rc || read_file(apt->log, &log, &ignored))
		goto out;
	/* "E: Failed to fetch URL  WHY [IP: ...]": the last one is this command's. */
	for (const char *l = buf_str(&log), *f; (f = strstr(l, mark)); l = f + 1)
		why = f + strlen(mark);
	if (why) {
		int n;

		why += strcspn(why, " \n");   /* the URL, as apt spells it */
		why += strspn(why, " ");
		n = (int)strcspn(why, "[\n");
		while (n > 0 && why[n - 1] == ' ')
			n--;
		error_set(err, "%s: %.*s", url, n, why);
	}
out:
	buf_free(&log);
	return rc;
}

/*
 * From the snapshot archive: the pinned .deb, found by package, version and
 * debarch, verified against the pin, into dir; url gets the file's URL.
 */
static char *snapshot_deb(const struct kernel_pin *pin, const struct apt *apt, const char *dir,
			  char *url, size_t cap, struct error *err)
{
	char base[512], sha1[8][41], version[sizeof(pin->version) + 2];
	struct buf list_url = BUF_INIT, json = BUF_INIT;
	char *list = xprintf("%s/binfiles.json", dir), *deb = NULL;
	int n = -1;

	file_version(pin, version, sizeof(version));
	host_snapshot_base(base, sizeof(base));
	pin_snapshot_url(base, pin, NULL, &list_url);
	if (snapshot_get(apt, buf_str(&list_url), list, err) || read_file(list, &json, err))
		goto out;
	n = pin_snapshot_hashes(buf_str(&json), pin->debarch, sha1, 8);
	if (n < 0)
		error_set(err, "%s: not a list of files (JSON with \"result\")", buf_str(&list_url));
	else if (!n)
		error_set(err, "%s: no %s or all file", buf_str(&list_url), pin->debarch);
	/* Each candidate in turn (rebuilds share a version): only the pinned sha256 is taken. */
	for (int i = 0; i < n && !deb && !interrupt_caught(); i++) {
		struct buf file_url = BUF_INIT;

		int got;

		deb = xprintf("%s/%s_%s_%s.deb", dir, pin->package, version, sha1[i]);
		pin_snapshot_url(base, pin, sha1[i], &file_url);
		snprintf(url, cap, "%s", buf_str(&file_url));
		buf_free(&file_url);
		got = !snapshot_get(apt, url, deb, err);
		if (got && !deb_is_pinned(pin, deb, err))
			break;
		if (got)
			error_prefix(err, "%s", url);
		unlink(deb);
		free(deb);
		deb = NULL;
	}
out:
	unlink(list);
	free(list);
	buf_free(&list_url);
	buf_free(&json);
	return deb;
}

/*
 * The pinned .deb in dir, from the mirror or else the snapshot archive
 * (pin.h); origin gets which and where.  When neither has it: one error
 * naming the lock line, both reasons and the fixes.
 */
static char *pinned_deb(const struct kernel_pin *pin, const struct apt *apt, const char *dir,
			struct buf *origin, struct error *err)
{
	struct error from_mirror, from_snapshot;
	char url[768], base[512];
	int stale = 0;
	char *deb = mirror_deb(pin, apt, dir, &stale, &from_mirror);

	if (deb) {
		buf_addf(origin, PIN_ORIGIN_MIRROR " %s %s\n", apt->mirror, pin->suite);
		return deb;
	}
	/* Not the snapshot archive after an interrupt: the mirror's failure was the signal's. */
	if (!interrupt_caught())
		deb = snapshot_deb(pin, apt, dir, url, sizeof(url), &from_snapshot);
	if (!deb && interrupt_caught()) {
		error_set(err, "fetching %s=%s: interrupted (signal %d)", pin->package, pin->version,
			  interrupt_caught());
		return NULL;
	}
	if (deb) {
		warning("%s:%d: %s=%s came from the snapshot archive (%s): the mirror (%s %s) %.300s",
			pin->lock_file, pin->line, pin->package, pin->version, url, apt->mirror,
			pin->suite, from_mirror.msg);
		buf_addf(origin, PIN_ORIGIN_SNAPSHOT " %s\n", url);
		return deb;
	}
	host_snapshot_base(base, sizeof(base));
	/* The reasons are cut so that the fixes always fit. */
	error_set(err, "%s:%d: %s %s pins %s=%s (sha256 %.12s…), which neither the mirror "
		  "(%s %s %.200s) nor the snapshot archive (%.300s) gives; refresh the line "
		  "(docs/kernels.md, \"Refreshing a pin\"), or set NUMALAB_SNAPSHOT=URL to a "
		  "copy of snapshot.debian.org you can reach (now %s); log: %s",
		  pin->lock_file, pin->line, pin->name, pin->arch, pin->package, pin->version,
		  pin->sha256, apt->mirror, pin->suite, from_mirror.msg, from_snapshot.msg, base,
		  apt->log);
	if (stale)   /* the mirror dropped what the line pins: the user's to refresh */
		error_as_input(err);
	return NULL;
}

static int take_image(const struct kernel_pin *pin, const char *tree, const char *image,
		      struct error *err)
{
	char *from = xprintf("%s/%s", tree, pin->image);
	struct stat st;
	int rc = 0;

	/* A directory is a module tree (NAME-modules lines, kernel.h). */
	if (lstat(from, &st) || !(S_ISREG(st.st_mode) || (is_modules(pin) && S_ISDIR(st.st_mode))))
		rc = error_set(err, "%s:%d: %s has no %s %s; fix the image "
			       "field (`dpkg-deb -c` on the .deb lists the files)", pin->lock_file, pin->line,
			       pin->package, is_modules(pin) ? "directory" : "regular file", pin->image);
	else if (rename(from, image))
		rc = error_set(err, "cannot move %s to %s: %s", from, image, strerror(errno));
	free(from);
	return rc;
}

/*
 * Download, verify and unpack into tmp, leaving tmp as the finished directory.
 * boots: the image is a kernel, checked for the pin's arch.
 */
static int fill_dir(const struct kernel_pin *pin, const struct apt *apt, const char *tmp,
		    const char *image, int boots, struct error *err)
{
	char *debdir = xprintf("%s/deb", tmp), *tree = xprintf("%s/tree", tmp), *deb = NULL;
	char *source = xprintf("%s/source", tmp), *origin_file = xprintf("%s/" PIN_ORIGIN_FILE, tmp);
	struct buf src = BUF_INIT, origin = BUF_INIT;
	int rc = -1;

	if (mkdir_p(debdir, err) || !(deb = pinned_deb(pin, apt, debdir, &origin, err)) ||
	    run_cmd(PIN_CMD_UNPACK, pin, apt, "dpkg-deb -x", NULL, deb, tree, err) ||
	    take_image(pin, tree, image, err))
		goto out;
	if (boots && kernel_check_image(image, pin->arch, err)) {
		error_prefix(err, "%s:%d: %s", pin->lock_file, pin->line, pin->package);
		goto out;
	}
	remove_tree(debdir);
	remove_tree(tree);
	pin_source(pin, &src);
	rc = write_file_atomic(origin_file, origin.data, origin.len, err) ||
	     write_file_atomic(source, src.data, src.len, err) ? -1 : 0;
out:
	buf_free(&src);
	buf_free(&origin);
	free(origin_file);
	free(deb);
	free(debdir);
	free(tree);
	free(source);
	return rc;
}

/* Fetch the pin into dir: build it as dir's hidden twin, then rename. Caller holds the apt lock. */
static int fetch(const struct kernel_pin *pin, const struct apt *apt, const char *dir,
		 int boots, struct error *err)
{
	const char *slash = strrchr(dir, '/');
	char *tmp = xprintf("%.*s/.%s.tmp", (int)(slash - dir), dir, slash + 1);
	char *image = xprintf("%s/%s", tmp, base_name(pin->image));
	int rc;

	/* The lock makes any leftover twin a dead run's. */
	remove_tree(tmp);
	rc = fill_dir(pin, apt, tmp, image, boots, err);
	if (!rc) {
		remove_tree(dir);
		if (rename(tmp, dir))
			rc = error_set(err, "cannot rename %s to %s: %s", tmp, dir, strerror(errno));
	}
	if (rc)
		remove_tree(tmp);
	free(tmp);
	free(image);
	return rc;
}

static void fill_pin_kernel(const struct kernel_pin *pin, const char *dir, const char *image,
			    struct kernel *out)
{
	char *origin = xprintf("%s/" PIN_ORIGIN_FILE, dir);
	struct buf b = BUF_INIT;
	struct error ignored;
	char abs[PATH_MAX];

	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "%s", pin->name);
	snprintf(out->arch, sizeof(out->arch), "%s", pin->arch);
	snprintf(out->path, sizeof(out->path), "%s", realpath(image, abs) ? abs : image);
	snprintf(out->version, sizeof(out->version), "%s", pin->version);
	snprintf(out->source, sizeof(out->source), "debian:%s=%s sha256:%s",
		 pin->package, pin->version, pin->sha256);
	/* Directories fetched before the origin was kept could only come from the mirror. */
	if (read_file(origin, &b, &ignored))
		buf_addf(&b, PIN_ORIGIN_MIRROR " (fetched before numalab recorded which)");
	snprintf(out->origin, sizeof(out->origin), "%.*s", (int)strcspn(buf_str(&b), "\n"), buf_str(&b));
	buf_free(&b);
	free(origin);
}

/* Fetch pin into lab_cache_dir()/subdir/ ("kernels" or "packages") unless it is there. */
static int fetch_pin(const struct kernel_pin *pin, const char *subdir, struct kernel *out,
		       struct error *err)
{
	char version[sizeof(pin->version) + 2], *dir, *image;
	int boots = !strcmp(subdir, "kernels") && !is_source(pin) && !pin_is_companion(pin);
	double t0 = now_s(), fetched = 0;
	struct apt apt;
	int rc = 0, fd = -1;

	file_version(pin, version, sizeof(version));
	dir = xprintf("%s/%s/%s-%s-%s", lab_cache_dir(), subdir, pin->name, pin->arch, version);
	image = xprintf("%s/%s", dir, base_name(pin->image));

	if (!cached(pin, dir, image)) {
		apt_init(&apt, pin);
		/* Lock first: the state directory must exist to hold the lock file. */
		rc = mkdir_p(apt.dir, err) || (fd = apt_lock(&apt, err)) < 0 ||
		     apt_prepare(&apt, pin, err) ? -1 : 0;
		/* Whoever held the lock may just have fetched it. */
		if (!rc && !cached(pin, dir, image)) {
			rc = fetch(pin, &apt, dir, boots, err);
			fetched = now_s() - t0;
		}
		if (fd >= 0)
			close(fd);
		apt_release(&apt);
	}
	if (!rc) {
		fill_pin_kernel(pin, dir, image, out);
		out->fetch_s = fetched;
	}
	free(dir);
	free(image);
	return rc;
}

/* ---- the lock file on disk ---- */

int pin_load(const char *root, const char *file, struct kernel_lock *lock, struct error *err)
{
	char *path = xprintf("%s/%s", root, file);
	struct buf b = BUF_INIT;
	/* Even one that cannot be read: a checkout without it is the user's to fix. */
	int rc = read_file(path, &b, err) ? error_as_input(err)
					  : kernel_lock_parse(file, buf_str(&b), b.len, lock, err);

	buf_free(&b);
	free(path);
	return rc;
}

int pin_fetch_kernel(const struct kernel_pin *pin, struct kernel *out, struct error *err)
{
	return fetch_pin(pin, "kernels", out, err);
}

int kernel_fetch_source(const char *root, const char *name, char *path, size_t cap,
			char *source_id, size_t id_cap, struct error *err)
{
	struct kernel_lock *lock = xmalloc(sizeof(*lock));
	const struct kernel_pin *pin;
	struct kernel k;
	int rc = pin_load(root, KERNEL_LOCK_FILE, lock, err);

	if (!rc && !(pin = kernel_lock_find(lock, name, KERNEL_SOURCE_ARCH)))
		rc = error_input(err, KERNEL_LOCK_FILE ": no source pinned as '%s' (a line with arch "
				 "source); add one or fix the recipe's source line", name);
	if (!rc && !path)
		snprintf(source_id, id_cap, "debian:%s=%s sha256:%s", pin->package, pin->version,
			 pin->sha256);
	else if (!rc && !(rc = fetch_pin(pin, "kernels", &k, err))) {
		snprintf(path, cap, "%s", k.path);
		snprintf(source_id, id_cap, "%s", k.source);
	}
	free(lock);
	return rc;
}

/* The file or tree of k's companion lock line NAME-suffix into path ("" if none). */
static int kernel_companion(const struct kernel *k, const char *suffix, char *path, size_t cap,
			    struct error *err)
{
	struct kernel_lock *lock = xmalloc(sizeof(*lock));
	char *name = xprintf("%s-%s", k->name, suffix);
	const struct kernel_pin *pin;
	struct kernel tree;
	int rc = pin_load(lab_root(), KERNEL_LOCK_FILE, lock, err);

	path[0] = '\0';
	if (!rc && k->version[0] && (pin = kernel_lock_find(lock, name, k->arch)) &&
	    !(rc = fetch_pin(pin, "kernels", &tree, err)))
		snprintf(path, cap, "%s", tree.path);
	free(name);
	free(lock);
	return rc;
}

int kernel_modules(const struct kernel *k, char *dir, size_t cap, struct error *err)
{
	return kernel_companion(k, "modules", dir, cap, err);
}

int kernel_config(const struct kernel *k, char *path, size_t cap, struct error *err)
{
	return kernel_companion(k, "config", path, cap, err);
}

int kernel_builtin(const struct kernel *k, char *path, size_t cap, struct error *err)
{
	return kernel_companion(k, "builtin", path, cap, err);
}

int kernel_fetch_package_file(const char *root, const char *name, const char *arch,
			      char *path, size_t cap, struct error *err)
{
	struct kernel_lock *lock = xmalloc(sizeof(*lock));
	const struct kernel_pin *pin;
	struct kernel file;
	int rc = pin_load(root, PACKAGE_LOCK_FILE, lock, err);

	if (!rc && !(pin = kernel_lock_find(lock, name, arch)))
		rc = error_input(err, PACKAGE_LOCK_FILE ": no '%s' pinned for %s; add a line for it "
				 "(its columns are those of " KERNEL_LOCK_FILE ")", name, arch);
	if (!rc && !(rc = fetch_pin(pin, "packages", &file, err)))
		snprintf(path, cap, "%s", file.path);
	free(lock);
	return rc;
}
