/*
 * kernel: the lock parser, resolving path, unknown and cached specs (no
 * network), and the fetch's apt/dpkg commands and private apt.conf.
 */
#include "kernel/pin.h"
#include "kernel/resolve.h"
#include "unit.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SHA_A "fb8cd0ade4ef82d9dde1dcf183d4bf4033db1b549b0acc9973855ad9cc48c4f5"
#define PIN_X86 "debian x86_64 sid amd64 linux-binary-7.2.13+deb14-amd64 7.2.13-1 " SHA_A \
		" usr/lib/modules/7.2.13+deb14-amd64/vmlinuz"

static int parse(const char *text, struct kernel_lock *lock, struct error *err)
{
	err->msg[0] = '\0';
	return kernel_lock_parse("t.lock", text, strlen(text), lock, err);
}

static void put(const char *path, const char *data, size_t len)
{
	struct error err;

	CHECK_INT(write_file_atomic(path, data, len, &err), 0);
}

UNIT_TEST(lock_shipped_parses)
{
	struct kernel_lock lock;
	struct buf b = BUF_INIT;
	struct error err;
	const struct kernel_pin *x86, *la;

	CHECK_INT(read_file(KERNEL_LOCK_FILE, &b, &err), 0);
	CHECK_INT(kernel_lock_parse(KERNEL_LOCK_FILE, buf_str(&b), b.len, &lock, &err), 0);
	x86 = kernel_lock_find(&lock, "debian", "x86_64");
	la = kernel_lock_find(&lock, "debian", "loongarch64");
	CHECK(x86 && la);
	if (x86 && la) {
		CHECK_STR(x86->debarch, "amd64");
		CHECK_STR(la->debarch, "loong64");
		CHECK_INT(strlen(la->sha256), 64);
		CHECK_STR(la->image, "usr/lib/modules/7.2.13+deb14-loong64/vmlinuz");
	}
	buf_free(&b);
}

/* numactl >= 2.0.19 and what it links against, for both guest arches. */
UNIT_TEST(package_lock_shipped_parses)
{
	static const char *const names[] = { "numactl", "libnuma", "libc", "ld.so" };
	static const char *const arches[] = { "x86_64", "loongarch64" };
	struct kernel_lock lock;
	struct buf b = BUF_INIT;
	struct error err;

	CHECK_INT(read_file(PACKAGE_LOCK_FILE, &b, &err), 0);
	CHECK_INT(kernel_lock_parse(PACKAGE_LOCK_FILE, buf_str(&b), b.len, &lock, &err), 0);
	for (size_t a = 0; a < 2; a++)
		for (size_t i = 0; i < 4; i++) {
			const struct kernel_pin *p = kernel_lock_find(&lock, names[i], arches[a]);

			CHECK(p != NULL);
			if (p)
				CHECK_STR(p->lock_file, PACKAGE_LOCK_FILE);
		}
	CHECK_STR(kernel_lock_find(&lock, "numactl", "x86_64")->version, "2.0.19-1+b2");
	CHECK(kernel_lock_find(&lock, "busybox", "loongarch64") != NULL);   /* /bin/sh of the LoongArch guest */
	buf_free(&b);
}

UNIT_TEST(lock_good_lines)
{
	static const char text[] =
		"# comment\n"
		"\n"
		"   \t\r\n"
		PIN_X86 "   # trailing comment\r\n"
		"mine\tloongarch64\tsid\tloong64\tlinux-binary-x\t7.2~rc1+b2\t" SHA_A "\tboot/vmlinux.efi\n"
		"bb loongarch64 sid loong64 busybox-static 1:1.38.0-3+b1 " SHA_A " usr/bin/busybox";
	struct kernel_lock lock;
	struct error err;

	CHECK_INT(parse(text, &lock, &err), 0);
	CHECK_STR(err.msg, "");
	CHECK_INT(lock.nr, 3);
	CHECK_STR(lock.pins[2].version, "1:1.38.0-3+b1");
	CHECK_INT(lock.pins[0].line, 4);
	CHECK_STR(lock.pins[0].package, "linux-binary-7.2.13+deb14-amd64");
	CHECK_STR(lock.pins[0].version, "7.2.13-1");
	CHECK_STR(lock.pins[0].sha256, SHA_A);
	CHECK_STR(lock.pins[0].image, "usr/lib/modules/7.2.13+deb14-amd64/vmlinuz");
	CHECK_INT(lock.pins[1].line, 5);
	CHECK_STR(lock.pins[1].name, "mine");
	CHECK_STR(lock.pins[1].version, "7.2~rc1+b2");
	CHECK_STR(lock.pins[1].image, "boot/vmlinux.efi");
	CHECK(kernel_lock_find(&lock, "mine", "loongarch64") == &lock.pins[1]);
	CHECK(!kernel_lock_find(&lock, "mine", "x86_64"));
	CHECK_INT(parse("", &lock, &err), 0);
	CHECK_INT(lock.nr, 0);
}

UNIT_TEST(lock_bad_lines)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "debian x86_64 sid amd64 pkg 1-1 " SHA_A "\n",
		  "t.lock:1: expected 8 fields (name arch suite debarch package version sha256 image), got 7;" },
		{ "\n" PIN_X86 " extra\n", "t.lock:2: expected 8 fields" },
		{ "deb/ian x86_64 sid amd64 p 1 " SHA_A " vmlinuz", "t.lock:1: name 'deb/ian' has '/'" },
		{ "debian arm64 sid amd64 p 1 " SHA_A " vmlinuz",
		  "t.lock:1: arch 'arm64' is not x86_64, loongarch64 or source; fix the arch field" },
		{ "debian x86_64 sid amd64 p 1 abc vmlinuz", "t.lock:1: sha256 'abc' is not 64 hex digits" },
		{ "debian x86_64 sid amd64 p 1 FB8CD0ADE4EF82D9DDE1DCF183D4BF4033DB1B549B0ACC9973855AD9CC48C4F5 v",
		  "t.lock:1: sha256 'FB8C" },
		{ "debian x86_64 sid amd64 p x:2-1 " SHA_A " vmlinuz",
		  "t.lock:1: version 'x:2-1': a ':' may only end the epoch, once" },
		{ "debian x86_64 sid amd64 p :2-1 " SHA_A " vmlinuz", "t.lock:1: version ':2-1': a ':' may" },
		{ "debian x86_64 sid amd64 p 1:2:3-1 " SHA_A " vmlinuz", "t.lock:1: version '1:2:3-1': a ':' may" },
		{ "debian x86_64 sid amd64 p 1/2 " SHA_A " vmlinuz", "t.lock:1: version '1/2' has '/'" },
		{ "debian x86_64 sid amd64 P 1 " SHA_A " vmlinuz", "t.lock:1: package 'P' has 'P'" },
		{ "debian x86_64 sid amd64 p 1 " SHA_A " /boot/vmlinuz", "t.lock:1: image '/boot/vmlinuz' must be" },
		{ "debian x86_64 sid amd64 p 1 " SHA_A " a/../../etc", "t.lock:1: image 'a/../../etc' must be" },
		{ "debian x86_64 sid amd64 p 1 " SHA_A " usr/lib/", "t.lock:1: image 'usr/lib/' must be" },
		{ "a-name-that-is-much-too-long-to-be-part-of-a-cache-directory-name-really x86_64 sid "
		  "amd64 p 1 " SHA_A " v", "t.lock:1: name 'a-name-that" },
		{ PIN_X86 "\n# again\n" PIN_X86 "\n",
		  "t.lock:3: debian x86_64 is already pinned on line 1; remove one of them" },
	};
	struct kernel_lock lock;
	struct error err;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK_INT(parse(cases[i].text, &lock, &err), -1);
		if (strncmp(err.msg, cases[i].want, strlen(cases[i].want)))
			CHECK_STR(err.msg, cases[i].want);
		CHECK(strchr(err.msg, ';'));   /* every message says what to do */
	}
}

/* Little-endian n bytes of v at p. */
static void put_le(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/*
 * An x86 ELF boots only with a PVH entry: a header, one PT_NOTE program
 * header and that segment's notes (a GNU note, then Xen's PHYS32_ENTRY, 18,
 * when pvh).
 */
UNIT_TEST(x86_elf_needs_pvh)
{
	unsigned char elf[160] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
	char *dir = unit_scratch("kernel"), *img = xprintf("%s/vmlinux", dir);
	struct error err;

	put_le(elf + 18, 62, 2);        /* e_machine: x86-64 */
	put_le(elf + 0x20, 64, 8);      /* e_phoff */
	put_le(elf + 0x36, 56, 2);      /* e_phentsize */
	put_le(elf + 0x38, 1, 2);       /* e_phnum */
	put_le(elf + 64, 4, 4);         /* p_type: PT_NOTE */
	put_le(elf + 64 + 8, 120, 8);   /* p_offset */
	put_le(elf + 64 + 32, 40, 8);   /* p_filesz: two notes of 20 bytes */
	for (int i = 0; i < 2; i++) {
		unsigned char *note = elf + 120 + 20 * i;

		put_le(note, 4, 4);
		put_le(note + 4, 4, 4);
		put_le(note + 8, i ? 18 : 3, 4);
		memcpy(note + 12, i ? "Xen" : "GNU", 4);
	}
	put(img, (const char *)elf, sizeof(elf));
	CHECK_INT(kernel_check_image(img, "x86_64", &err), 0);

	put_le(elf + 120 + 20 + 8, 17, 4);   /* another Xen note, no entry */
	put(img, (const char *)elf, sizeof(elf));
	CHECK_INT(kernel_check_image(img, "x86_64", &err), -1);
	CHECK(strstr(err.msg, "x86 ELF kernel without a PVH entry") && strstr(err.msg, "CONFIG_PVH=y"));

	remove_tree(dir);
	free(dir);
	free(img);
}

UNIT_TEST(resolve_path)
{
	/* A bzImage's setup header magic is enough for the arch check. */
	unsigned char bz[1024] = { 0 };
	char *dir = unit_scratch("kernel"), *img, abs[PATH_MAX], hex[65], *want;
	struct kernel k;
	struct error err;

	memcpy(bz + 0x202, "HdrS", 4);
	img = xprintf("%s/bzImage", dir);
	put(img, (const char *)bz, sizeof(bz));
	CHECK_INT(kernel_resolve_in(".", img, "x86_64", &k, &err), 0);
	CHECK(realpath(img, abs) != NULL);
	CHECK_INT(sha256_file(img, hex, &err), 0);
	want = xprintf("file:%s sha256:%s", abs, hex);
	CHECK_STR(k.name, "file");
	CHECK_STR(k.arch, "x86_64");
	CHECK_STR(k.path, abs);
	CHECK_STR(k.version, "");
	CHECK_STR(k.source, want);
	CHECK_INT(k.fetch_s, 0);

	CHECK_INT(kernel_resolve_in(".", img, "loongarch64", &k, &err), -1);
	CHECK_INT(err.kind, ERROR_INPUT);
	CHECK(strstr(err.msg, "is built for x86_64, not loongarch64"));
	CHECK_INT(kernel_resolve_in(".", "/nonexistent/vmlinuz", "x86_64", &k, &err), -1);
	CHECK_INT(err.kind, ERROR_INPUT);
	CHECK(strstr(err.msg, "kernel image /nonexistent/vmlinuz: No such file"));

	/* No '/': a lock name wins, else an existing file in the current directory. */
	char cwd[PATH_MAX];

	CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
	CHECK_INT(chdir(dir), 0);
	CHECK_INT(kernel_resolve_in(cwd, "bzImage", "x86_64", &k, &err), 0);
	CHECK_STR(k.path, abs);
	CHECK_INT(chdir(cwd), 0);

	remove_tree(dir);
	free(dir);
	free(img);
	free(want);
}

UNIT_TEST(resolve_unknown)
{
	char *dir = unit_scratch("kernel"), *kdir = xprintf("%s/kernels", dir), *lock;
	struct kernel k;
	struct error err;

	CHECK_INT(kernel_resolve_in(".", "nosuch", "x86_64", &k, &err), -1);
	CHECK_INT(err.kind, ERROR_INPUT);
	CHECK_STR(err.msg, "unknown kernel 'nosuch': not a file, a x86_64 name in "
		  "kernels/prebuilt.lock (debian) or a recipe in kernels/recipes/; give a path to a "
		  "kernel image, one of those names or a recipe name");

	/* A lock without a default for the arch, and a broken lock, name their problem. */
	CHECK_INT(mkdir_p(kdir, &err), 0);
	lock = xprintf("%s/prebuilt.lock", kdir);
	put(lock, "other x86_64 sid amd64 p 1 " SHA_A " v\n", strlen("other x86_64 sid amd64 p 1 " SHA_A " v\n"));
	CHECK_INT(kernel_resolve_in(dir, NULL, "x86_64", &k, &err), -1);
	CHECK_INT(err.kind, ERROR_INPUT);
	CHECK_STR(err.msg, "kernels/prebuilt.lock pins no 'debian' kernel for x86_64; add one "
		  "(docs/kernels.md) or give --kernel PATH");
	put(lock, "\nbroken\n", 8);
	CHECK_INT(kernel_resolve_in(dir, "", "x86_64", &k, &err), -1);
	CHECK_INT(err.kind, ERROR_INPUT);
	CHECK(!strncmp(err.msg, "kernels/prebuilt.lock:2: expected 8 fields", 42));
	remove_tree(dir);
	free(dir);
	free(kdir);
	free(lock);
}

/* A complete cache directory is used as is: no apt (PATH is emptied to make sure). */
UNIT_TEST(resolve_cached)
{
	char *cache = unit_scratch("kernel"), *kdir, *path = xstrdup(getenv("PATH") ? getenv("PATH") : "");
	struct kernel k;
	struct error err;
	static const char source[] =
		"package linux-binary-7.2.13+deb14-amd64\nversion 7.2.13-1\nsha256 " SHA_A "\n"
		"suite sid\ndebarch amd64\nimage usr/lib/modules/7.2.13+deb14-amd64/vmlinuz\n";

	setenv("NUMALAB_CACHE", cache, 1);
	CHECK_STR(lab_cache_dir(), cache);
	kdir = xprintf("%s/kernels/debian-x86_64-7.2.13-1", cache);
	CHECK_INT(mkdir_p(kdir, &err), 0);
	char *img = xprintf("%s/vmlinuz", kdir), *src = xprintf("%s/source", kdir);

	put(img, "MZ", 2);
	put(src, source, strlen(source));
	setenv("PATH", "/nonexistent", 1);
	CHECK_INT(kernel_resolve_in(".", NULL, "x86_64", &k, &err), 0);
	CHECK_STR(k.path, img);
	CHECK_STR(k.name, "debian");
	CHECK_STR(k.version, "7.2.13-1");
	CHECK_STR(k.source, "debian:linux-binary-7.2.13+deb14-amd64=7.2.13-1 sha256:" SHA_A);
	CHECK_INT(k.fetch_s, 0);

	/* Fetched before the origin was kept: the mirror was the only source then. */
	CHECK_STR(k.origin, "mirror (fetched before numalab recorded which)");
	char *origin = xprintf("%s/origin", kdir);

	put(origin, "snapshot http://s.example/file/ab\n", 34);
	CHECK_INT(kernel_resolve_in(".", NULL, "x86_64", &k, &err), 0);
	CHECK_STR(k.origin, "snapshot http://s.example/file/ab");

	/*
	 * A source that no longer matches the pin means fetching again: here,
	 * failing to run apt, then failing to find the snapshot (a file: URL
	 * apt-helper answers at once).  The mirror was not asked: the harness's.
	 */
	put(src, "stale\n", 6);
	setenv("NUMALAB_SNAPSHOT", "file:///nonexistent/", 1);
	CHECK_INT(kernel_resolve_in(".", "debian", "x86_64", &k, &err), -1);
	unsetenv("NUMALAB_SNAPSHOT");
	CHECK_INT(err.kind, ERROR_HARNESS);
	CHECK(!strncmp(err.msg, "kernels/prebuilt.lock:", 22));
	CHECK(strstr(err.msg, "neither the mirror"));
	CHECK(strstr(err.msg, "cannot run apt-cache"));
	CHECK(strstr(err.msg, "nor the snapshot archive (file:///nonexistent/mr/binary/"
		     "linux-binary-7.2.13+deb14-amd64/7.2.13-1/binfiles: File not found"));
	CHECK(strstr(err.msg, "set NUMALAB_SNAPSHOT=URL"));
	CHECK(file_exists(img));
	free(origin);
	setenv("PATH", path, 1);
	remove_tree(cache);
	free(cache);
	free(path);
	free(kdir);
	free(img);
	free(src);
}

/* argv joined by spaces (no argument here has one). */
/* The fetch's commands, as they run: apt only ever through the private apt.conf. */
UNIT_TEST(fetch_commands)
{
	struct kernel_lock lock;
	struct error err;
	struct strvec argv = STRVEC_INIT;
	const char *conf = "/c/apt/sid-amd64/apt.conf";
	const struct kernel_pin *pin;
	char *s;

	CHECK_INT(parse(PIN_X86 "\n", &lock, &err), 0);
	pin = &lock.pins[0];
	pin_cmd_argv(PIN_CMD_VERSIONS, pin, conf, NULL, NULL, &argv);
	CHECK_STR(s = unit_argv_joined(&argv), "apt-cache -c /c/apt/sid-amd64/apt.conf madison "
		  "linux-binary-7.2.13+deb14-amd64");
	free(s);
	pin_cmd_argv(PIN_CMD_UPDATE, pin, conf, NULL, NULL, &argv);
	CHECK_STR(s = unit_argv_joined(&argv), "apt-get -c /c/apt/sid-amd64/apt.conf update -q");
	free(s);
	pin_cmd_argv(PIN_CMD_DOWNLOAD, pin, conf, NULL, NULL, &argv);
	CHECK_STR(s = unit_argv_joined(&argv), "apt-get -c /c/apt/sid-amd64/apt.conf download -q "
		  "linux-binary-7.2.13+deb14-amd64=7.2.13-1");
	free(s);
	pin_cmd_argv(PIN_CMD_UNPACK, pin, conf, "/t/deb/p.deb", "/t/tree", &argv);
	CHECK_STR(s = unit_argv_joined(&argv), "dpkg-deb -x /t/deb/p.deb /t/tree");
	free(s);
}

/* The private apt state: nothing of the host's sources, status or architectures. */
UNIT_TEST(apt_conf_is_private)
{
	struct buf conf = BUF_INIT;

	pin_apt_conf("/c/apt/sid-loong64", "loong64", &conf);
	CHECK_STR(buf_str(&conf),
		  "Dir::Etc::sourcelist \"/c/apt/sid-loong64/sources.list\";\n"
		  "Dir::Etc::sourceparts \"/nonexistent\";\n"
		  "Dir::State::Lists \"/c/apt/sid-loong64/lists\";\n"
		  "Dir::State::status \"/dev/null\";\n"
		  "Dir::Cache \"/c/apt/sid-loong64/cache\";\n"
		  "APT::Architecture \"loong64\";\n"
		  "#clear APT::Architectures;\nAPT::Architectures { \"loong64\"; };\n"
		  "Acquire::Languages \"none\";\n"
		  "APT::Sandbox::User \"root\";\n");
	buf_free(&conf);
}


/* The snapshot archive's URLs and command: the pin's own fields, apt's proxies through apt-helper. */
UNIT_TEST(snapshot_urls_and_argv)
{
	struct kernel_lock lock;
	struct error err;
	struct buf url = BUF_INIT;
	struct strvec argv = STRVEC_INIT;
	char *s;

	CHECK_INT(parse(PIN_X86 "\n", &lock, &err), 0);
	pin_snapshot_url("https://snapshot.debian.org", &lock.pins[0], NULL, &url);
	CHECK_STR(buf_str(&url), "https://snapshot.debian.org/mr/binary/"
		  "linux-binary-7.2.13+deb14-amd64/7.2.13-1/binfiles");
	buf_free(&url);
	pin_snapshot_url("http://127.0.0.1:8000", &lock.pins[0],
			 "82bdd995c40d95372b69be64cda8abcb69de04da", &url);
	CHECK_STR(buf_str(&url), "http://127.0.0.1:8000/file/82bdd995c40d95372b69be64cda8abcb69de04da");
	pin_snapshot_argv("/c/apt/sid-amd64/apt.conf", buf_str(&url), "/t/deb/x.deb", &argv);
	CHECK_STR(s = unit_argv_joined(&argv), "/usr/lib/apt/apt-helper -c /c/apt/sid-amd64/apt.conf "
		  "download-file http://127.0.0.1:8000/file/82bdd995c40d95372b69be64cda8abcb69de04da "
		  "/t/deb/x.deb");
	free(s);
	strvec_clear(&argv);
	buf_free(&url);
}

#define H1 "1111111111111111111111111111111111111111"
#define H2 "2222222222222222222222222222222222222222"
#define H3 "3333333333333333333333333333333333333333"

/* A binfiles answer: the files of debarch or all, in order; anything else is no answer. */
UNIT_TEST(snapshot_binfiles)
{
	char sha1[4][41];

	/* As snapshot.debian.org writes it, keys in either order, any blanks. */
	CHECK_INT(pin_snapshot_hashes("{\"_comment\": \"foo\", \"binary\": \"p\", \"binary_version\": \"1\",\n"
				      " \"result\": [{\"architecture\": \"arm64\", \"hash\": \"" H1 "\"},\n"
				      "  {\"hash\":\"" H2 "\",\"architecture\":\"amd64\"},\n"
				      "  { \"architecture\" : \"all\" , \"hash\" : \"" H3 "\" }]}",
				      "amd64", sha1, 4), 2);
	CHECK_STR(sha1[0], H2);
	CHECK_STR(sha1[1], H3);
	/* No architecture: a candidate (the sha256 decides); max caps the list. */
	CHECK_INT(pin_snapshot_hashes("{\"result\":[{\"hash\":\"" H1 "\"},{\"hash\":\"" H2 "\"}]}",
				      "loong64", sha1, 1), 1);
	CHECK_STR(sha1[0], H1);
	CHECK_INT(pin_snapshot_hashes("{\"result\": []}", "amd64", sha1, 4), 0);
	/* Hashes that are not 40 hex digits are skipped, never put into a URL. */
	CHECK_INT(pin_snapshot_hashes("{\"result\": [{\"architecture\": \"amd64\", \"hash\": \"../../etc\"},"
				      "{\"architecture\": \"amd64\", \"hash\": \"" H1 "0\"}]}", "amd64", sha1, 4), 0);
	/* Not an answer: an error page, a cut-off list. */
	CHECK_INT(pin_snapshot_hashes("<html>404 Not Found</html>", "amd64", sha1, 4), -1);
	CHECK_INT(pin_snapshot_hashes("{\"result\": [{\"hash\": \"" H1 "\"", "amd64", sha1, 4), -1);
	CHECK_INT(pin_snapshot_hashes("{\"result\": \"none\"}", "amd64", sha1, 4), -1);
}

UNIT_MAIN(UNIT_CASE(lock_shipped_parses), UNIT_CASE(package_lock_shipped_parses),
	  UNIT_CASE(lock_good_lines), UNIT_CASE(lock_bad_lines),
	  UNIT_CASE(x86_elf_needs_pvh), UNIT_CASE(resolve_path), UNIT_CASE(resolve_unknown),
	  UNIT_CASE(resolve_cached),
	  UNIT_CASE(fetch_commands), UNIT_CASE(apt_conf_is_private), UNIT_CASE(snapshot_urls_and_argv),
	  UNIT_CASE(snapshot_binfiles))
