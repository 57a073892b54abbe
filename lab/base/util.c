#include "base/util.h"
#include "base/progress.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int error_set(struct error *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	err->kind = ERROR_HARNESS;
	return -1;
}

int error_input(struct error *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	err->kind = ERROR_INPUT;
	return -1;
}

int error_as_input(struct error *err)
{
	err->kind = ERROR_INPUT;
	return -1;
}

int error_prefix(struct error *err, const char *fmt, ...)
{
	char prefix[512];
	size_t n, cap = sizeof(err->msg);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	n = strlen(prefix) + 2;
	memmove(err->msg + n, err->msg, cap - n - 1);
	err->msg[cap - 1] = '\0';
	memcpy(err->msg, prefix, n - 2);
	memcpy(err->msg + n - 2, ": ", 2);
	return -1;
}

static void *die_oom(void)
{
	static const char msg[] = "numalab: out of memory\n";

	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	exit(3);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	return p ? p : die_oom();
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	return p ? p : die_oom();
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	return p ? p : die_oom();
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	return p ? p : die_oom();
}

char *xvprintf(const char *fmt, va_list ap)
{
	va_list cp;
	int n;
	char *s;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)   /* more than INT_MAX bytes */
		die_oom();
	s = xmalloc((size_t)n + 1);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	return s;
}

char *xprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvprintf(fmt, ap);
	va_end(ap);
	return s;
}

static void strvec_push_owned(struct strvec *v, char *s)
{
	if (v->nr + 2 > v->alloc) {
		v->alloc = v->alloc ? v->alloc * 2 : 16;
		v->items = xrealloc(v->items, v->alloc * sizeof(*v->items));
	}
	v->items[v->nr++] = s;
	v->items[v->nr] = NULL;
}

void strvec_push(struct strvec *v, const char *s)
{
	strvec_push_owned(v, xstrdup(s));
}

void strvec_pushf(struct strvec *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strvec_push_owned(v, xvprintf(fmt, ap));
	va_end(ap);
}

void strvec_clear(struct strvec *v)
{
	for (size_t i = 0; i < v->nr; i++)
		free(v->items[i]);
	free(v->items);
	v->items = NULL;
	v->nr = v->alloc = 0;
}

const char **strvec_argv(struct strvec *v)
{
	if (!v->items) {
		v->alloc = 16;
		v->items = xcalloc(v->alloc, sizeof(*v->items));
	}
	return (const char **)v->items;
}

void buf_add(struct buf *b, const void *data, size_t len)
{
	if (b->len + len + 1 > b->alloc) {
		while (b->len + len + 1 > b->alloc)
			b->alloc = b->alloc ? b->alloc * 2 : 256;
		b->data = xrealloc(b->data, b->alloc);
	}
	if (len)   /* a cpio directory entry passes no data: memcpy(…, NULL, 0) is undefined */
		memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
}

void buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvprintf(fmt, ap);
	va_end(ap);
	buf_addstr(b, s);
	free(s);
}

void buf_addstr(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

const char *buf_str(struct buf *b)
{
	if (!b->data)
		return "";
	b->data[b->len] = '\0';   /* a caller may have cut len (b->len = 0 to reuse b) */
	return b->data;
}

void buf_free(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->alloc = 0;
}

int read_file(const char *path, struct buf *out, struct error *err)
{
	char chunk[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return error_set(err, "cannot read %s: %s", path, strerror(errno));
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		buf_add(out, chunk, (size_t)n);
	if (n < 0) {
		int e = errno;

		close(fd);
		return error_set(err, "cannot read %s: %s", path, strerror(e));
	}
	close(fd);
	return 0;
}

void file_last_line(const char *path, char *out, size_t cap)
{
	char tail[LAST_LINE_TAIL + 1];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	off_t size = fd >= 0 ? lseek(fd, 0, SEEK_END) : -1;
	ssize_t n = size < 0 ? -1 : pread(fd, tail, LAST_LINE_TAIL,
					   size > LAST_LINE_TAIL ? size - LAST_LINE_TAIL : 0);
	char *end, *start;

	if (fd >= 0)
		close(fd);
	out[0] = '\0';
	if (n <= 0)
		return;
	end = tail + n;
	while (end > tail && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	start = end;
	while (start > tail && start[-1] != '\n')
		start--;
	snprintf(out, cap, "%.*s", (int)(end - start), start);
}

int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int write_file_atomic(const char *path, const void *data, size_t len, struct error *err)
{
	char tmp[PATH_MAX];
	int fd, e;

	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return error_set(err, "cannot write %s: %s", tmp, strerror(errno));
	if (write_all(fd, data, len) || fsync(fd)) {
		e = errno;
		close(fd);
		unlink(tmp);
		return error_set(err, "cannot write %s: %s", path, strerror(e));
	}
	close(fd);
	if (rename(tmp, path)) {
		e = errno;
		unlink(tmp);
		return error_set(err, "cannot rename %s to %s: %s", tmp, path, strerror(e));
	}
	return 0;
}

const char *next_line(const char *p)
{
	p += strcspn(p, "\n");
	return *p ? p + 1 : p;
}

const char *plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

int copy_file(const char *from, const char *to, struct error *err)
{
	struct stat st;
	char tmp[PATH_MAX], chunk[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, rc = -1;
	ssize_t n = 0;

	if (in < 0 || fstat(in, &st))
		error_set(err, "cannot read %s: %s", from, strerror(errno));
	else if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", to, (int)getpid()) >= (int)sizeof(tmp) ||
		 (out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, st.st_mode & 0777)) < 0)
		error_set(err, "cannot write %s: %s", to, strerror(errno));
	else {
		while ((n = read(in, chunk, sizeof(chunk))) > 0 && !write_all(out, chunk, (size_t)n))
			;
		if (n != 0 || close(out) || rename(tmp, to))
			error_set(err, "cannot copy %s to %s: %s", from, to, strerror(errno));
		else
			rc = 0;
		out = -1;
		if (rc)
			unlink(tmp);
	}
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return rc;
}

int lock_file(const char *path, const char *what, struct error *err)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0) {
		error_set(err, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return fd;
	progress("waiting for another numalab %s (lock %s)", what, path);
	if (flock(fd, LOCK_EX)) {
		error_set(err, "cannot lock %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int mkdir_p(const char *path, struct error *err)
{
	char tmp[PATH_MAX];
	size_t len = strlen(path);

	if (len >= sizeof(tmp))
		return error_set(err, "path too long: %s", path);
	memcpy(tmp, path, len + 1);
	for (char *p = tmp + 1; ; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return error_set(err, "cannot create directory %s: %s", tmp, strerror(errno));
		if (!c)
			break;
		*p = c;
	}
	return 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) && errno != ENOENT ? -1 : 0;
}

int remove_tree(const char *path)
{
	if (!file_exists(path))
		return 0;
	return nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

int file_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* SHA-256 as in FIPS 180-4. */
static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha256_block(struct sha256 *s, const unsigned char *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, h;

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = s->h[0]; b = s->h[1]; c = s->h[2]; d = s->h[3];
	e = s->h[4]; f = s->h[5]; g = s->h[6]; h = s->h[7];
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) +
			      sha256_k[i] + w[i];
		uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));

		h = g; g = f; f = e; e = d + t1;
		d = c; c = b; b = a; a = t1 + t2;
	}
	s->h[0] += a; s->h[1] += b; s->h[2] += c; s->h[3] += d;
	s->h[4] += e; s->h[5] += f; s->h[6] += g; s->h[7] += h;
}

void sha256_init(struct sha256 *s)
{
	static const uint32_t init[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(s->h, init, sizeof(init));
	s->len = 0;
	s->used = 0;
}

void sha256_update(struct sha256 *s, const void *data, size_t len)
{
	const unsigned char *p = data;

	s->len += len;
	while (len) {
		size_t n = 64 - s->used < len ? 64 - s->used : len;

		memcpy(s->block + s->used, p, n);
		s->used += n;
		p += n;
		len -= n;
		if (s->used == 64) {
			sha256_block(s, s->block);
			s->used = 0;
		}
	}
}

void sha256_final(struct sha256 *s, unsigned char out[32])
{
	uint64_t bits = s->len * 8;
	unsigned char pad[72] = { 0x80 };
	size_t padlen = (s->used < 56 ? 56 : 120) - s->used;

	for (int i = 0; i < 8; i++)
		pad[padlen + i] = (unsigned char)(bits >> (56 - 8 * i));
	sha256_update(s, pad, padlen + 8);
	for (int i = 0; i < 8; i++) {
		out[4 * i] = (unsigned char)(s->h[i] >> 24);
		out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
		out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
		out[4 * i + 3] = (unsigned char)s->h[i];
	}
}

void sha256_hex(const unsigned char digest[32], char hex[65])
{
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", digest[i]);
}

int sha256_file(const char *path, char hex[65], struct error *err)
{
	unsigned char chunk[65536], digest[32];
	struct sha256 s;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return error_set(err, "cannot read %s: %s", path, strerror(errno));
	sha256_init(&s);
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		sha256_update(&s, chunk, (size_t)n);
	close(fd);
	if (n < 0)
		return error_set(err, "cannot read %s: %s", path, strerror(errno));
	sha256_final(&s, digest);
	sha256_hex(digest, hex);
	return 0;
}

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int lab_check_cache_env(struct error *err)
{
	const char *env = getenv("NUMALAB_CACHE");
	struct stat st;
	struct error why;

	if (!env || !*env)
		return 0;
	if (env[0] != '/')
		return error_input(err, "NUMALAB_CACHE=%s: not an absolute path; set it to a directory "
				 "such as $HOME/.cache/numalab, or unset it", env);
	if (!stat(env, &st) && !S_ISDIR(st.st_mode))
		return error_input(err, "NUMALAB_CACHE=%s: not a directory; name a directory, or unset it", env);
	if (mkdir_p(env, &why))
		return error_input(err, "NUMALAB_CACHE=%s: %s; name a writable directory, or unset it",
				 env, why.msg);
	return 0;
}

const char *lab_cache_dir(void)
{
	static char dir[PATH_MAX];
	struct error err;
	const char *env = getenv("NUMALAB_CACHE"), *home = getenv("HOME");

	if (dir[0])
		return dir;
	if (env && *env)
		snprintf(dir, sizeof(dir), "%s", env);
	else
		snprintf(dir, sizeof(dir), "%s/.cache/numalab", home && *home ? home : "/tmp");
	if (mkdir_p(dir, &err))
		warning("%s", err.msg);
	return dir;
}

void lab_cache_keyed(const char *subdir, const struct buf *key, char *out, size_t cap)
{
	unsigned char digest[32];
	char hex[65];
	struct sha256 h;

	sha256_init(&h);
	sha256_update(&h, key->data, key->len);
	sha256_final(&h, digest);
	sha256_hex(digest, hex);
	snprintf(out, cap, "%s/%s/%.16s", lab_cache_dir(), subdir, hex);
}

const char *lab_root(void)
{
	static char root[PATH_MAX];
	ssize_t n;

	if (root[0])
		return root;
	n = readlink("/proc/self/exe", root, sizeof(root) - 1);
	if (n <= 0) {
		snprintf(root, sizeof(root), ".");
		return root;
	}
	root[n] = '\0';
	char *slash = strrchr(root, '/');

	if (slash)
		*slash = '\0';
	return root;
}
