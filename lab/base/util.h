/*
 * util: the small things every module needs: error reports, growable string
 * vectors (argv builders), files written atomically, hashing.
 */
#ifndef LAB_UTIL_H
#define LAB_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>

/*
 * One error, reported once by whoever gives up: "what is wrong; what to do".
 * Library functions return 0, or -1 with *err filled; its kind says whose
 * fault it is, and only the CLI (lab/cli/) turns that into an exit code
 * (docs/exit-codes.md: input 2, harness 3).
 */
enum error_kind {
	ERROR_HARNESS = 0,  /* the lab could not do its job: a tool failed, a disk filled */
	ERROR_INPUT,        /* bad input the user must fix: a file, a flag, a patch */
};

struct error {
	enum error_kind kind;
	char msg[1024];
};

/*
 * On every function of lab/ whose result says whether it failed (0, or -1
 * with a struct error; an exit status or an fd, -1 with one): the compiler
 * warns when a caller drops the result.  A caller that means to go on
 * whatever happened says why in a comment and tests the result anyway,
 * `if (f(...)) { why }`, since gcc warns even through a (void) cast.
 * error_set() and its kin are not marked: they always return -1.
 */
#define LAB_MUST_CHECK __attribute__((warn_unused_result))

/* Set err->msg (printf-style), kind ERROR_HARNESS.  Returns -1 so callers can `return error_set(...)`. */
int error_set(struct error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The same, kind ERROR_INPUT: the message names the file (and line) and the fix. */
int error_input(struct error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Make err the user's to fix (ERROR_INPUT), when it was filled by a general
 * tool that cannot know whose input it handled (read_file(), sha256_file(),
 * git, make, kernel_check_image()) and the caller handed that tool nothing
 * but what the user gave (their patch, tree, recipe, image, --option value).
 * The one way a kind changes after it was chosen; everywhere else the code
 * that detects the problem picks error_input() or error_set().  Returns -1,
 * for `return error_as_input(err);`.
 */
int error_as_input(struct error *err);

/* Prefix an existing message: "prefix: old message"; the kind stays. Returns -1. */
int error_prefix(struct error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Out of memory is not an error we report: we exit(3) (harness failure). */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/*
 * A NULL-terminated vector of owned strings, e.g. an argv under construction
 * (append freely, use v.items as argv).
 */
struct strvec {
	char **items;
	size_t nr, alloc;
};
#define STRVEC_INIT { NULL, 0, 0 }
void strvec_push(struct strvec *v, const char *s);
void strvec_pushf(struct strvec *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strvec_clear(struct strvec *v);
/* The items as a const argv (never NULL; always NULL-terminated). */
const char **strvec_argv(struct strvec *v);

/* A growable byte buffer. */
struct buf {
	char *data;
	size_t len, alloc;
};
#define BUF_INIT { NULL, 0, 0 }
void buf_add(struct buf *b, const void *data, size_t len);
void buf_addf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_addstr(struct buf *b, const char *s);
/* A NUL-terminated view of b's len bytes ("" when empty); len may have been cut to reuse b. */
const char *buf_str(struct buf *b);
void buf_free(struct buf *b);

/* The start of the line after the one p is in ("" at the end of the text). */
const char *next_line(const char *p);

/* A count's noun: one for 1, else many ("%zu %s", n, plural(n, "metric", "metrics")). */
const char *plural(size_t n, const char *one, const char *many);

/* Whole-file helpers. read: -1 with err on failure. */
int read_file(const char *path, struct buf *out, struct error *err) LAB_MUST_CHECK;
/*
 * The last non-empty line of a file (a log: usually the tool's own reason),
 * cut to cap, into out; "" when the file is missing or empty.  Only the
 * file's last LAST_LINE_TAIL bytes are read, so a big build log costs nothing.
 */
#define LAST_LINE_TAIL 4096
void file_last_line(const char *path, char *out, size_t cap);
/* Write data to path atomically (path.tmp.PID, fsync, rename). */
int write_file_atomic(const char *path, const void *data, size_t len, struct error *err) LAB_MUST_CHECK;
/* Copy a regular file (mode kept); the copy appears under its name only when whole. */
int copy_file(const char *from, const char *to, struct error *err) LAB_MUST_CHECK;
/*
 * Open (creating) path and take an exclusive flock on it; returns the fd to
 * close when done, or -1 with err.  If another process holds it, says so
 * with progress() (naming what) before waiting.
 */
int lock_file(const char *path, const char *what, struct error *err) LAB_MUST_CHECK;
/* Write all of data to fd, retrying short writes and EINTR; -1 (errno) on failure. */
int write_all(int fd, const void *data, size_t len);
/* mkdir -p.  0, or -1 with err. */
int mkdir_p(const char *path, struct error *err) LAB_MUST_CHECK;
/* Remove a file tree (no symlink following). */
int remove_tree(const char *path);
int file_exists(const char *path);

/* SHA-256. */
struct sha256 {
	uint32_t h[8];
	uint64_t len;
	unsigned char block[64];
	size_t used;
};
void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final(struct sha256 *s, unsigned char out[32]);
/* Hex digest (65 bytes incl. NUL) of a file; -1 with err on read failure. */
int sha256_file(const char *path, char hex[65], struct error *err) LAB_MUST_CHECK;
void sha256_hex(const unsigned char digest[32], char hex[65]);

/* Monotonic seconds. */
double now_s(void);

/* The lab's cache directory: $NUMALAB_CACHE or ~/.cache/numalab (created). */
const char *lab_cache_dir(void);
/*
 * The file of a cache keyed by a text (a verdict and what it holds for):
 * lab_cache_dir()/SUBDIR/H, H the first 16 hex digits of the key's sha256.
 */
void lab_cache_keyed(const char *subdir, const struct buf *key, char *out, size_t cap);
/*
 * $NUMALAB_CACHE, when set, names an absolute directory that exists or can
 * be created.  0, or -1 with err: "NUMALAB_CACHE=VALUE: what; what to do".
 */
int lab_check_cache_env(struct error *err) LAB_MUST_CHECK;

/* The project root (the directory holding the numalab binary). */
const char *lab_root(void);

#endif
