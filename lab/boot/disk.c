#include "boot/disk.h"
#include "base/dynlib.h"
#include "base/progress.h"
#include "host/mirror.h"
#include "base/proc.h"
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#if NUMALAB_HAVE_GUESTFS
#include <guestfs.h>
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bumped when the way an image is made changes what its key means. */
#define DISK_KEY_FORMAT "numalab-disk 1"
#define DONE_LINE "# numalab: done"

/* Every regular file of dir (not dot files), sorted by name, into names. */
static int dir_regular_files(const char *dir, struct strvec *names, struct error *err)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort);

	if (n < 0)
		return error_set(err, "cannot read %s: %s; run `make`", dir, strerror(errno));
	for (int i = 0; i < n; i++) {
		char *path = xprintf("%s/%s", dir, ents[i]->d_name);
		struct stat st;

		if (ents[i]->d_name[0] != '.' && !stat(path, &st) && S_ISREG(st.st_mode))
			strvec_push(names, ents[i]->d_name);
		free(path);
		free(ents[i]);
	}
	free(ents);
	return 0;
}

/* The sha256 of each regular file of dir, in name order, into h. */
static int hash_dir(const char *dir, struct sha256 *h, struct error *err)
{
	struct strvec names = STRVEC_INIT;
	int rc = dir_regular_files(dir, &names, err);

	for (size_t i = 0; !rc && i < names.nr; i++) {
		char *src = xprintf("%s/%s", dir, names.items[i]);
		char hex[65];

		if (!(rc = sha256_file(src, hex, err)))
			sha256_update(h, hex, sizeof(hex));
		free(src);
	}
	strvec_clear(&names);
	return rc;
}

#if NUMALAB_HAVE_GUESTFS
/* ---- libguestfs sessions: one launch each ---- */

/* The libguestfs functions used here, loaded at the first launch (dynlib.h). */
#define GUESTFS_API(X)                                                                        \
	X(guestfs_add_drive_opts) X(guestfs_chmod) X(guestfs_close) X(guestfs_create)          \
	X(guestfs_inspect_os) X(guestfs_is_file) X(guestfs_last_error) X(guestfs_launch)       \
	X(guestfs_list_filesystems) X(guestfs_mkdir_p) X(guestfs_mkfs) X(guestfs_mount)        \
	X(guestfs_mount_ro) X(guestfs_part_disk) X(guestfs_read_file) X(guestfs_rm_f)          \
	X(guestfs_set_backend) X(guestfs_set_backend_settings) X(guestfs_set_error_handler)   \
	X(guestfs_shutdown) X(guestfs_tar_in) X(guestfs_umount_all) X(guestfs_upload)          \
	X(guestfs_vfs_type) X(guestfs_write)
static struct { GUESTFS_API(DYNLIB_SLOT) } gfs;

static int gfs_load(struct error *err)
{
	static void *lib;
#define GUESTFS_RESOLVE(f) || dynlib_symbol(lib, #f, (void **)&gfs.f, err)
	return dynlib_open(&lib, "libguestfs.so.0", "libguestfs0", err) GUESTFS_API(GUESTFS_RESOLVE) ? -1 : 0;
#undef GUESTFS_RESOLVE
}

static int gfs_error(guestfs_h *g, const char *what, struct error *err)
{
	const char *why = gfs.guestfs_last_error(g);

	return error_set(err, "libguestfs %s: %s", what, why ? why : "failed");
}

/* A handle with the drive added and the appliance up; NULL with err. */
static guestfs_h *gfs_launch(const char *drive, int readonly, int tcg, struct error *err)
{
	char *settings[] = { "force_tcg", NULL };
	guestfs_h *g;
	int rc = 0;

	if (gfs_load(err))
		return NULL;
	g = gfs.guestfs_create();
	if (!g)
		return error_set(err, "libguestfs: cannot create a handle (out of memory?)"), NULL;
	gfs.guestfs_set_error_handler(g, NULL, NULL);
	if (tcg && (gfs.guestfs_set_backend(g, "direct") || gfs.guestfs_set_backend_settings(g, settings)))
		rc = gfs_error(g, "set backend direct/force_tcg", err);
	if (!rc && gfs.guestfs_add_drive_opts(g, drive, GUESTFS_ADD_DRIVE_OPTS_FORMAT, "qcow2",
					  GUESTFS_ADD_DRIVE_OPTS_READONLY, readonly, -1))
		rc = gfs_error(g, "add drive", err);
	if (!rc && gfs.guestfs_launch(g))
		rc = gfs_error(g, "launch", err);
	if (!rc)
		return g;
	error_prefix(err, "%s", drive);
	if (strstr(err->msg, "kernel"))
		snprintf(err->msg + strlen(err->msg), sizeof(err->msg) - strlen(err->msg),
			 "; `make setup` installs the appliance kernel (linux-image-amd64), "
			 "LIBGUESTFS_DEBUG=1 shows the appliance's boot");
	gfs.guestfs_close(g);
	return NULL;
}

/* Unmount, stop the appliance (flushing the disk) and close; keeps the first error. */
static int gfs_finish(guestfs_h *g, int rc, struct error *err)
{
	if (!rc && (gfs.guestfs_umount_all(g) || gfs.guestfs_shutdown(g)))
		rc = gfs_error(g, "shutdown", err);
	gfs.guestfs_close(g);
	return rc;
}

static int put_file(guestfs_h *g, const char *src, const char *dest, int mode, struct error *err)
{
	if (gfs.guestfs_upload(g, src, dest) || gfs.guestfs_chmod(g, mode, dest))
		return gfs_error(g, dest, err);
	return 0;
}

static int put_data(guestfs_h *g, const char *dest, const char *data, size_t len, struct error *err)
{
	if (gfs.guestfs_write(g, dest, data, len) || gfs.guestfs_chmod(g, 0644, dest))
		return gfs_error(g, dest, err);
	return 0;
}

/* Every regular file of dir, sorted, as dest_dir/NAME with mode. */
static int put_dir(guestfs_h *g, const char *dir, const char *dest_dir, int mode, struct error *err)
{
	struct strvec names = STRVEC_INIT;
	int rc = dir_regular_files(dir, &names, err);

	if (!rc && gfs.guestfs_mkdir_p(g, dest_dir))
		rc = gfs_error(g, dest_dir, err);
	for (size_t i = 0; !rc && i < names.nr; i++) {
		char *src = xprintf("%s/%s", dir, names.items[i]);
		char *dest = xprintf("%s/%s", dest_dir, names.items[i]);

		rc = put_file(g, src, dest, mode, err);
		free(src);
		free(dest);
	}
	strvec_clear(&names);
	return rc;
}

/* /lab of the image or the run: init, tests, and with run its plan and files. */
static int put_lab(guestfs_h *g, const char *guest_dir, const struct run_part *run,
		   struct error *err)
{
	char *init = xprintf("%s/init", guest_dir), *tests = xprintf("%s/tests", guest_dir);
	struct buf plan = BUF_INIT;
	int rc = 0;

	if (gfs.guestfs_mkdir_p(g, "/lab/results") || gfs.guestfs_rm_f(g, DISK_RESULTS_TAP))
		rc = gfs_error(g, "/lab/results", err);
	if (!rc)
		rc = put_file(g, init, "/lab/init", 0755, err) || put_dir(g, tests, "/lab/tests", 0755, err);
	if (!rc && run) {
		image_plan(run, &plan);
		rc = put_file(g, run->topo->path, "/lab/topology", 0644, err) ||
		     put_data(g, "/lab/plan", plan.data, plan.len, err);
	}
	if (!rc && run && run->kselftest && *run->kselftest) {
		char *mm = xprintf("%s/mm", run->kselftest);

		rc = put_dir(g, mm, "/lab/kselftest/mm", 0755, err);
		free(mm);
	}
	if (!rc && run && run->guest_file) {
		const char *slash = strrchr(run->guest_file, '/');
		char *dest = xprintf("/lab/%s", slash ? slash + 1 : run->guest_file);

		rc = put_file(g, run->guest_file, dest, 0644, err);
		free(dest);
	}
	buf_free(&plan);
	free(init);
	free(tests);
	return rc;
}

#endif

/* ---- building an image ---- */

static void key_hex(struct sha256 *h, char hex[65])
{
	unsigned char digest[32];

	sha256_final(h, digest);
	sha256_hex(digest, hex);
}

/* What debootstrap is given, but where from (any mirror serves the same suite): the rootfs tar's key. */
static void rootfs_key_text(const struct disk_desc *d, struct buf *out)
{
	buf_addf(out, "%s\nsuite %s\nvariant %s\npackages", DISK_KEY_FORMAT, d->suite, d->variant);
	for (int i = 0; i < d->nr_packages; i++)
		buf_addf(out, " %s", d->packages[i]);
	buf_addstr(out, "\n");
}

/* debootstrap into the cache as root.tar (numeric owners: the appliance has no such users). */
static int make_rootfs(const struct disk_desc *d, const char *tar, const char *log, struct error *err)
{
	char *dir = xprintf("%s.d", tar), *tmp = xprintf("%s.tmp", tar), *variant = NULL;
	char mirror[sizeof(d->mirror)];
	struct buf include = BUF_INIT;
	struct strvec argv = STRVEC_INIT;
	int rc;

	snprintf(mirror, sizeof(mirror), "%s", d->mirror);
	if (!mirror[0] && host_debian_mirror(mirror, sizeof(mirror), err)) {
		free(dir);
		free(tmp);
		return -1;
	}
	remove_tree(dir);
	strvec_push(&argv, "debootstrap");
	if (strcmp(d->variant, "-"))
		strvec_push(&argv, variant = xprintf("--variant=%s", d->variant));
	for (int i = 0; i < d->nr_packages; i++)
		buf_addf(&include, "%s%s", i ? "," : "--include=", d->packages[i]);
	if (d->nr_packages)
		strvec_push(&argv, buf_str(&include));
	strvec_push(&argv, d->suite);
	strvec_push(&argv, dir);
	strvec_push(&argv, mirror);
	progress("debootstrap %s (%d extra packages; log %s)", d->suite, d->nr_packages, log);
	rc = proc_run_logged("debootstrap", strvec_argv(&argv), NULL, NULL, log, err);
	if (!rc) {
		const char *tar_argv[] = { "tar", "--numeric-owner", "-C", dir, "-cf", tmp, ".", NULL };

		rc = proc_run_logged("tar", tar_argv, NULL, NULL, log, err);
	}
	if (!rc && rename(tmp, tar))
		rc = error_set(err, "cannot rename %s to %s: %s", tmp, tar, strerror(errno));
	remove_tree(dir);
	unlink(tmp);
	strvec_clear(&argv);
	buf_free(&include);
	free(variant);
	free(dir);
	free(tmp);
	return rc;
}

static int create_qcow2(const char *path, const char *backing, uint64_t size, const char *log,
			struct error *err)
{
	char size_arg[32];
	const char *plain[] = { "qemu-img", "create", "-q", "-f", "qcow2", path, size_arg, NULL };
	const char *overlay[] = { "qemu-img", "create", "-q", "-f", "qcow2", "-F", "qcow2", "-b",
				  backing, path, NULL };

	snprintf(size_arg, sizeof(size_arg), "%llu", (unsigned long long)size);
	return proc_run_logged("qemu-img create", backing ? overlay : plain, NULL, NULL, log, err);
}

#if NUMALAB_HAVE_GUESTFS
/* One launch: partition, ext4, the root tar, /lab. */
static int fill_image(const char *path, const char *rootfs_tar, const char *guest_dir, int tcg,
		      struct error *err)
{
	guestfs_h *g = gfs_launch(path, 0, tcg, err);
	int rc = 0;

	if (!g)
		return -1;
	if (gfs.guestfs_part_disk(g, "/dev/sda", "mbr") || gfs.guestfs_mkfs(g, "ext4", "/dev/sda1") ||
	    gfs.guestfs_mount(g, "/dev/sda1", "/"))
		rc = gfs_error(g, "making the root filesystem", err);
	else if (gfs.guestfs_tar_in(g, rootfs_tar, "/"))
		rc = gfs_error(g, "unpacking the root", err);
	else
		rc = put_lab(g, guest_dir, NULL, err);
	return gfs_finish(g, rc, err);
}

#else
/* Built before `make setup` installed libguestfs-dev (setup needs numalab first). */
static int not_built(struct error *err)
{
	return error_set(err, "this numalab was built without libguestfs-dev: run `make setup` "
			 "(installs it), then `make`");
}

static int fill_image(const char *path, const char *rootfs_tar, const char *guest_dir, int tcg,
		      struct error *err)
{
	(void)path, (void)rootfs_tar, (void)guest_dir, (void)tcg;
	return not_built(err);
}
#endif

int disk_build(const struct disk_desc *d, const char *guest_dir, int tcg, char *out, size_t cap,
	       int *cached, struct error *err)
{
	char *dir = xprintf("%s/images", lab_cache_dir()), *tests = xprintf("%s/tests", guest_dir);
	char *init = xprintf("%s/init", guest_dir), *lock = NULL, *tar = NULL, *log = NULL, *tmp = NULL;
	char rootfs_hex[65], hex[65];
	struct buf key = BUF_INIT;
	struct sha256 h;
	int rc, fd = -1;

	rootfs_key_text(d, &key);
	sha256_init(&h);
	sha256_update(&h, key.data, key.len);
	key_hex(&h, rootfs_hex);
	/* The image: the root's key, its size, and the payload's bytes. */
	sha256_init(&h);
	sha256_update(&h, key.data, key.len);
	sha256_update(&h, &d->size_bytes, sizeof(d->size_bytes));
	rc = sha256_file(init, hex, err) || hash_dir(tests, &h, err);
	sha256_update(&h, hex, sizeof(hex));
	key_hex(&h, hex);
	snprintf(out, cap, "%s/%s-%.16s.qcow2", dir, d->name, hex);
	*cached = !rc && file_exists(out);
	if (rc || *cached)
		goto out;
	lock = xprintf("%s/%s.lock", dir, d->name);
	tar = xprintf("%s/rootfs-%s-%.16s.tar", dir, d->name, rootfs_hex);
	log = xprintf("%s/%s-%.16s.log", dir, d->name, hex);
	tmp = xprintf("%s.tmp", out);
	rc = mkdir_p(dir, err) || (fd = lock_file(lock, "a build of this image", err)) < 0 ? -1 : 0;
	if (!rc && (*cached = file_exists(out)))
		goto out;
	if (!rc && !file_exists(tar))
		rc = make_rootfs(d, tar, log, err);
	if (!rc) {
		progress("writing %s with libguestfs (one appliance launch)", out);
		unlink(tmp);
		rc = create_qcow2(tmp, NULL, d->size_bytes, log, err) || fill_image(tmp, tar, guest_dir, tcg, err);
	}
	if (!rc && rename(tmp, out))
		rc = error_set(err, "cannot rename %s to %s: %s", tmp, out, strerror(errno));
	if (rc && tmp)
		unlink(tmp);
out:
	if (fd >= 0)
		close(fd);
	buf_free(&key);
	free(dir);
	free(tests);
	free(init);
	free(lock);
	free(tar);
	free(log);
	free(tmp);
	return rc ? -1 : 0;
}

int disk_is_qcow2(const char *path)
{
	unsigned char magic[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ok = fd >= 0 && read(fd, magic, 4) == 4 && !memcmp(magic, "QFI\xfb", 4);

	if (fd >= 0)
		close(fd);
	return ok;
}

/* ---- a run's overlay ---- */

#if NUMALAB_HAVE_GUESTFS

/* The only ext2/3/4 filesystem, else what inspection calls the OS root. */
static int find_root(guestfs_h *g, const char *base, struct disk_root *root, struct error *err)
{
	char **fs = gfs.guestfs_list_filesystems(g), **roots = NULL, *type;
	int nr_ext = 0;

	for (size_t i = 0; fs && fs[i] && fs[i + 1]; i += 2)
		if (!strncmp(fs[i + 1], "ext", 3) && nr_ext++ == 0)
			snprintf(root->device, sizeof(root->device), "%s", fs[i]);
	if (nr_ext != 1 && (roots = gfs.guestfs_inspect_os(g)) && roots[0])
		snprintf(root->device, sizeof(root->device), "%s", roots[0]);
	else if (nr_ext != 1)
		root->device[0] = '\0';
	for (size_t i = 0; fs && fs[i]; i++)
		free(fs[i]);
	for (size_t i = 0; roots && roots[i]; i++)
		free(roots[i]);
	free(fs);
	free(roots);
	if (!root->device[0])
		return error_set(err, "%s: no root filesystem found (no single ext2/3/4 filesystem, "
				 "no OS libguestfs recognises); give an image with an ext4 root", base);
	type = gfs.guestfs_vfs_type(g, root->device);
	if (!type || strncmp(type, "ext", 3) || strncmp(root->device, "/dev/sd", 7)) {
		error_set(err, "%s: root %s is %s; a disk boot needs an ext2/3/4 root on a plain "
			  "partition or the whole disk (no LVM, RAID or encryption)", base, root->device,
			  type ? type : "of unknown type");
		free(type);
		return -1;
	}
	free(type);
	snprintf(root->guest_device, sizeof(root->guest_device), "/dev/vd%s", root->device + 7);
	snprintf(root->fstype, sizeof(root->fstype), "ext4");   /* the ext4 driver mounts ext2/3 too */
	return 0;
}

int disk_inject(const char *base, const char *overlay, const char *guest_dir,
		const struct run_part *run, int tcg, struct disk_root *root, struct error *err)
{
	char *log = xprintf("%s.log", overlay), abs[4096];
	guestfs_h *g = NULL;
	int rc;

	if (!realpath(base, abs))
		rc = error_set(err, "disk image %s: %s; give a qcow2 file (`numalab image build` makes one)",
			       base, strerror(errno));
	else
		rc = create_qcow2(overlay, abs, 0, log, err);
	if (rc)
		error_prefix(err, "overlay on %s", base);
	if (!rc && !(g = gfs_launch(overlay, 0, tcg, err)))
		rc = -1;
	if (!rc && !(rc = find_root(g, base, root, err))) {
		if (gfs.guestfs_mount(g, root->device, "/"))
			rc = gfs_error(g, root->device, err);
		else
			rc = put_lab(g, guest_dir, run, err);
	}
	if (g)
		rc = gfs_finish(g, rc, err);
	free(log);
	return rc;
}

int disk_readback(const char *overlay, const struct disk_root *root, int tcg, struct buf *out,
		  struct error *err)
{
	guestfs_h *g = gfs_launch(overlay, 1, tcg, err);
	size_t len = 0;
	char *data;
	int rc = 0;

	if (!g)
		return -1;
	if (gfs.guestfs_mount_ro(g, root->device, "/"))
		rc = gfs_error(g, root->device, err);
	else if (gfs.guestfs_is_file(g, DISK_RESULTS_TAP) > 0) {
		if (!(data = gfs.guestfs_read_file(g, DISK_RESULTS_TAP, &len)))
			rc = gfs_error(g, DISK_RESULTS_TAP, err);
		else
			buf_add(out, data, len);
		free(data);
	}
	return gfs_finish(g, rc, err);
}

#else
int disk_inject(const char *base, const char *overlay, const char *guest_dir,
		const struct run_part *run, int tcg, struct disk_root *root, struct error *err)
{
	(void)base, (void)overlay, (void)guest_dir, (void)run, (void)tcg, (void)root;
	return not_built(err);
}

int disk_readback(const char *overlay, const struct disk_root *root, int tcg, struct buf *out,
		  struct error *err)
{
	(void)overlay, (void)root, (void)tcg, (void)out;
	return not_built(err);
}
#endif

/* ---- the boot initramfs ---- */

struct modules {
	struct strvec names, paths;   /* every module of the tree; names with '_' */
	struct strvec order;          /* chosen, in load order (indexes into paths) */
};

static void modules_free(struct modules *m)
{
	strvec_clear(&m->names);
	strvec_clear(&m->paths);
	strvec_clear(&m->order);
}

static void module_name(const char *file, char *out, size_t cap)
{
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;

	snprintf(out, cap, "%.*s", (int)strcspn(base, "."), base);
	for (char *c = out; *c; c++)
		if (*c == '-')
			*c = '_';
}

static int index_modules(const char *dir, struct modules *m, struct error *err)
{
	char *paths[] = { (char *)dir, NULL };
	FTS *fts = fts_open(paths, FTS_PHYSICAL | FTS_NOCHDIR, NULL);
	FTSENT *e;

	if (!fts)
		return error_set(err, "cannot read module tree %s: %s", dir, strerror(errno));
	while ((e = fts_read(fts)))
		if (e->fts_info == FTS_F && strstr(e->fts_name, ".ko")) {
			char name[128];

			module_name(e->fts_path, name, sizeof(name));
			strvec_push(&m->names, name);
			strvec_push(&m->paths, e->fts_path);
		}
	fts_close(fts);
	return 0;
}

/* name and its dependencies (modinfo depends=), dependencies first; absent: built in. */
static int add_module(struct modules *m, const char *name, int depth, struct error *err)
{
	char deps[1024] = "", *save = NULL;
	size_t i;

	for (i = 0; i < m->names.nr && strcmp(m->names.items[i], name); i++)
		;
	if (i == m->names.nr)
		return 0;
	for (size_t j = 0; j < m->order.nr; j++)
		if (!strcmp(m->order.items[j], m->paths.items[i]))
			return 0;
	if (depth > 16)
		return error_set(err, "module %s: dependencies nest deeper than 16", name);
	const char *argv[] = { "modinfo", "-F", "depends", m->paths.items[i], NULL };

	if (proc_capture(argv, deps, sizeof(deps), err))
		return error_set(err, "modinfo %s failed; install kmod", m->paths.items[i]);
	deps[strcspn(deps, "\n")] = '\0';
	for (char *d = strtok_r(deps, ",", &save); d; d = strtok_r(NULL, ",", &save)) {
		char dep[128];

		module_name(d, dep, sizeof(dep));
		if (add_module(m, dep, depth + 1, err))
			return -1;
	}
	strvec_push(&m->order, m->paths.items[i]);
	return 0;
}

/* The module as the kernel loads it: decompressed on the host (no MODULE_DECOMPRESS needed). */
static int read_module(const char *path, const char *tmp, struct buf *out, struct error *err)
{
	const char *tool = strstr(path, ".ko.xz") ? "xz" : strstr(path, ".ko.zst") ? "zstd" :
			   strstr(path, ".ko.gz") ? "gzip" : NULL;
	const char *argv[] = { tool, "-dc", path, NULL };
	struct proc p;
	int fd, rc;

	if (!tool)
		return read_file(path, out, err);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return error_set(err, "cannot write %s: %s", tmp, strerror(errno));
	proc_init(&p, argv);
	p.out = fd;
	rc = proc_start(&p, err) ? -1 : proc_wait(&p, err);
	close(fd);
	if (rc)
		rc = rc < 0 ? -1 : error_set(err, "%s -dc %s exited %d", tool, path, rc);
	if (!rc)
		rc = read_file(tmp, out, err);
	unlink(tmp);
	return rc;
}

static int add_modules(struct buf *cpio, struct modules *m, const char *tmp, struct error *err)
{
	struct buf order = BUF_INIT;
	int rc = 0;

	cpio_add(cpio, "lab/modules", 040755, NULL, 0);
	for (size_t i = 0; i < m->order.nr && !rc; i++) {
		struct buf ko = BUF_INIT;
		char name[128], *dest;

		module_name(m->order.items[i], name, sizeof(name));
		dest = xprintf("lab/modules/%s.ko", name);
		if (!(rc = read_module(m->order.items[i], tmp, &ko, err))) {
			cpio_add(cpio, dest, 0100644, ko.data, ko.len);
			buf_addf(&order, "/%s\n", dest);
		}
		buf_free(&ko);
		free(dest);
	}
	cpio_add(cpio, "lab/modules.order", 0100644, order.data, order.len);
	buf_free(&order);
	return rc;
}

int disk_boot_initrd(const char *guest_dir, const char *modules_dir, const char *fstype,
		     char *out, size_t cap, struct error *err)
{
	char *init = xprintf("%s/init", guest_dir), *dir = xprintf("%s/images", lab_cache_dir());
	char *tmp = NULL, hex[65];
	struct modules m = { STRVEC_INIT, STRVEC_INIT, STRVEC_INIT };
	struct buf bin = BUF_INIT, cpio = BUF_INIT;
	struct sha256 h;
	int rc = read_file(init, &bin, err);

	sha256_init(&h);
	sha256_update(&h, DISK_KEY_FORMAT, sizeof(DISK_KEY_FORMAT));
	sha256_update(&h, bin.data, bin.len);
	sha256_update(&h, modules_dir, strlen(modules_dir) + 1);   /* a versioned, immutable cache dir */
	sha256_update(&h, fstype, strlen(fstype) + 1);
	key_hex(&h, hex);
	snprintf(out, cap, "%s/diskboot-%.16s.cpio", dir, hex);
	if (rc || file_exists(out))
		goto out;
	cpio_add(&cpio, "init", 0100755, bin.data, bin.len);
	cpio_add(&cpio, "lab", 040755, NULL, 0);
	if (*modules_dir)
		rc = index_modules(modules_dir, &m, err) || add_module(&m, "virtio_blk", 0, err) ||
		     add_module(&m, fstype, 0, err);
	tmp = xprintf("%s.ko.tmp", out);
	if (!rc)
		rc = mkdir_p(dir, err) || add_modules(&cpio, &m, tmp, err);
	cpio_add(&cpio, NULL, 0, NULL, 0);
	if (!rc)
		rc = write_file_atomic(out, cpio.data, cpio.len, err);
out:
	modules_free(&m);
	buf_free(&bin);
	buf_free(&cpio);
	free(init);
	free(dir);
	free(tmp);
	return rc ? -1 : 0;
}

int disk_modules_cpio(const char *modules_dir, const char *const *names, char *out, size_t cap,
		      struct error *err)
{
	char *dir = xprintf("%s/images", lab_cache_dir()), *tmp = NULL, hex[65];
	struct modules m = { STRVEC_INIT, STRVEC_INIT, STRVEC_INIT };
	struct buf cpio = BUF_INIT;
	struct sha256 h;
	int rc = 0;

	sha256_init(&h);
	sha256_update(&h, DISK_KEY_FORMAT, sizeof(DISK_KEY_FORMAT));
	sha256_update(&h, modules_dir, strlen(modules_dir) + 1);   /* a versioned, immutable cache dir */
	for (int i = 0; names[i]; i++)
		sha256_update(&h, names[i], strlen(names[i]) + 1);
	key_hex(&h, hex);
	snprintf(out, cap, "%s/modules-%.16s.cpio", dir, hex);
	if (file_exists(out))
		goto out;
	rc = index_modules(modules_dir, &m, err);
	for (int i = 0; names[i] && !rc; i++)
		rc = add_module(&m, names[i], 0, err);
	tmp = xprintf("%s.ko.tmp.%d", out, (int)getpid());   /* runs may race to build it */
	if (!rc)
		rc = mkdir_p(dir, err) || add_modules(&cpio, &m, tmp, err);
	cpio_add(&cpio, NULL, 0, NULL, 0);
	if (!rc)
		rc = write_file_atomic(out, cpio.data, cpio.len, err);
out:
	modules_free(&m);
	buf_free(&cpio);
	free(dir);
	free(tmp);
	return rc ? -1 : 0;
}

/* ---- which TAP to keep ---- */

int disk_tap_complete(const char *text, size_t len)
{
	size_t n = strlen(DONE_LINE);

	for (const char *p = text; p && p + n <= text + len;) {
		if (!memcmp(p, DONE_LINE, n) && (p + n == text + len || p[n] == '\n'))
			return 1;
		p = memchr(p, '\n', (size_t)(text + len - p));
		p = p ? p + 1 : NULL;
	}
	return 0;
}

enum disk_tap_pick disk_pick_tap(const char *stream, size_t stream_len, const char *disk,
				 size_t disk_len)
{
	int s = disk_tap_complete(stream, stream_len), d = disk_tap_complete(disk, disk_len);

	if (s != d)
		return d ? DISK_TAP_DISK : DISK_TAP_STREAM;
	return disk_len > stream_len ? DISK_TAP_DISK : DISK_TAP_STREAM;
}
