/*
 * test_qemu: the QEMU argv of every shipped topology for every recorded QEMU
 * family of its arch (unit.h's UNIT_QEMU_FAMILIES) against its golden file
 * (tests/host/unit/golden/qemu/FAMILY/NAME.argv, one argument per line, the
 * spec `numalab topo show` uses), what qemucaps reads from each family's
 * replies, plus sizes, the kernel command line and the per-arch and
 * per-shape details.
 *
 * UPDATE_GOLDEN=1 rewrites the golden files instead of comparing (review the
 * diff before committing it).
 */
#include "boot/qemu.h"
#include "unit.h"
#include "base/util.h"

#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GOLDEN_DIR "tests/host/unit/golden/qemu"

/* The spec of lab/cli/cmd_topo.c's show() for a QEMU of the default family. */
static void show_spec(const struct topology *t, struct vm_spec *spec)
{
	static struct qemu_caps caps;

	unit_qemu_caps(UNIT_QEMU_FAMILY, &caps);
	memset(spec, 0, sizeof(*spec));
	spec->caps = &caps;
	spec->topo = t;
	spec->qemu = qemu_binary(t->arch);
	spec->kernel = "KERNEL";
	spec->initrd = "INITRD";
	spec->console_fd = 3;
	spec->tap_fd = 4;
	spec->accel = VM_ACCEL_TCG;
	if (t->arch == TOPO_ARCH_LOONGARCH64)
		spec->firmware = "FIRMWARE";
}

static int load(const char *path, struct topology *t)
{
	struct topo_error err;

	if (!topo_load(path, t, &err))
		return 0;
	printf("#   %s\n", err.msg);
	return -1;
}

/* argv of the show spec for the topology at path; 0 on success. */
static int build(const char *path, struct topology *t, struct strvec *argv)
{
	struct vm_spec spec;

	if (load(path, t))
		return -1;
	show_spec(t, &spec);
	qemu_build_argv(&spec, argv);
	return 0;
}

/* The argument after the first `flag`, or NULL. */
static const char *after(const struct strvec *argv, const char *flag)
{
	for (size_t i = 0; i + 1 < argv->nr; i++)
		if (!strcmp(argv->items[i], flag))
			return argv->items[i + 1];
	return NULL;
}

static int has_arg(const struct strvec *argv, const char *arg)
{
	for (size_t i = 0; i < argv->nr; i++)
		if (!strcmp(argv->items[i], arg))
			return 1;
	return 0;
}

/* How many `-numa` arguments start with prefix. */
static int count_numa(const struct strvec *argv, const char *prefix)
{
	int n = 0;

	for (size_t i = 0; i + 1 < argv->nr; i++)
		if (!strcmp(argv->items[i], "-numa") &&
		    !strncmp(argv->items[i + 1], prefix, strlen(prefix)))
			n++;
	return n;
}

/* The families recorded for arch ("x86_64-7.2", ...), from their replies files. */
static void families(enum topo_arch arch, glob_t *g)
{
	char *pattern = xprintf("%s/%s-*.replies", UNIT_QEMU_FAMILIES, topo_arch_name(arch));
	int rc = glob(pattern, 0, NULL, g);

	if (rc == GLOB_NOMATCH)
		g->gl_pathc = 0;
	else
		CHECK_INT(rc, 0);
	free(pattern);
}

/* "tests/.../x86_64-7.2.replies" -> "x86_64-7.2" */
static char *family_name(const char *replies)
{
	const char *base = strrchr(replies, '/') + 1;

	return xprintf("%.*s", (int)(strlen(base) - strlen(".replies")), base);
}

UNIT_TEST(golden_argv)
{
	const char *update = getenv("UPDATE_GOLDEN");
	int updating = update && !strcmp(update, "1"), pinned = 0;
	struct error err;
	glob_t g;

	CHECK_INT(glob("topologies/*.topo", 0, NULL, &g), 0);
	CHECK(g.gl_pathc >= 4);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct topology t;
		glob_t fam;

		if (load(g.gl_pathv[i], &t)) {
			CHECK(0);
			continue;
		}
		families(t.arch, &fam);
		CHECK(fam.gl_pathc >= 1);   /* every arch the lab boots has a family */
		for (size_t f = 0; f < fam.gl_pathc; f++) {
			char *family = family_name(fam.gl_pathv[f]), *dir = xprintf("%s/%s", GOLDEN_DIR, family);
			char *golden = xprintf("%s/%s.argv", dir, t.name);
			struct qemu_caps caps;
			struct vm_spec spec;
			struct strvec argv = STRVEC_INIT;
			struct buf text = BUF_INIT;

			unit_qemu_caps(family, &caps);
			show_spec(&t, &spec);
			spec.caps = &caps;
			qemu_build_argv(&spec, &argv);
			for (size_t a = 0; a < argv.nr; a++) {
				/* One argument per line only works without newlines in them. */
				CHECK(!strchr(argv.items[a], '\n'));
				buf_addf(&text, "%s\n", argv.items[a]);
			}
			if (updating)
				CHECK_INT(mkdir_p(dir, &err), 0);
			unit_golden(golden, buf_str(&text), text.len);
			pinned++;
			free(golden);
			free(dir);
			free(family);
			buf_free(&text);
			strvec_clear(&argv);
		}
		if (fam.gl_pathc)
			globfree(&fam);
	}
	CHECK(pinned > (int)g.gl_pathc);   /* x86 shapes have two families at least */
	globfree(&g);
}

/*
 * What each family's replies say, read as the builder reads them: QEMU 7.2
 * has every optional q35 switch, 10.0 lost ICH9-LPC.memory-hotplug-support
 * (the option that stopped every x86 boot under QEMU 10), LoongArch's QEMU
 * has no q35 at all.  Fails if qemucaps reads a property wrong.
 */
UNIT_TEST(families_caps)
{
	struct qemu_caps old, new, la;

	unit_qemu_caps("x86_64-7.2", &old);
	unit_qemu_caps("x86_64-10.0", &new);
	unit_qemu_caps("loongarch64-10.0", &la);
	CHECK(!strncmp(old.version, "7.2.", 4));
	CHECK(!strncmp(new.version, "10.0.", 5));
	CHECK(!strncmp(la.version, "10.0.", 5));
	CHECK(strstr(old.banner, "QEMU emulator version 7.2.") == old.banner);
	for (int c = 0; c < QEMU_CAP_NR; c++) {
		CHECK(qemu_caps_has(&old, c));
		CHECK_INT(qemu_caps_has(&new, c), c != QEMU_CAP_ICH9_MEMORY_HOTPLUG);
		CHECK(!qemu_caps_has(&la, c));
		CHECK(!qemu_caps_has(NULL, c));
	}
}

/* Replies cut short, a property only named in a description, an unknown query: nothing is guessed. */
UNIT_TEST(caps_parse_strict)
{
	struct qemu_caps caps;

	qemu_caps_parse("numalab-qemu-caps 1\n== --version\nQEMU emulator version 9.1.0\n"
			"== -machine q35,help\n  sata=<bool>            - Enable/disable Serial ATA bus\n"
			"  foo=<bool>  - like smbus=<bool>\nsmm=<OnOffAuto>\n"
			"== -device virtio-9p-pci,help\n  i8042=<bool>\n"
			"== -device ICH9-LPC,help\n", &caps);
	CHECK_STR(caps.version, "9.1.0");
	CHECK(qemu_caps_has(&caps, QEMU_CAP_Q35_SATA));
	CHECK(!qemu_caps_has(&caps, QEMU_CAP_Q35_SMBUS));   /* only in a description */
	CHECK(!qemu_caps_has(&caps, QEMU_CAP_Q35_SMM));     /* not indented: not a property line */
	CHECK(!qemu_caps_has(&caps, QEMU_CAP_Q35_I8042));   /* under a query the lab does not ask */
	CHECK(!qemu_caps_has(&caps, QEMU_CAP_ICH9_MEMORY_HOTPLUG));
	qemu_caps_parse("", &caps);
	CHECK_STR(caps.version, "");
}

/* Without caps (a QEMU that could not be asked) the argv has no optional option at all. */
UNIT_TEST(argv_without_caps)
{
	struct topology t;
	struct vm_spec spec;
	struct strvec argv = STRVEC_INIT;

	if (load("topologies/2node.topo", &t)) {
		CHECK(0);
		return;
	}
	show_spec(&t, &spec);
	spec.caps = NULL;
	qemu_build_argv(&spec, &argv);
	CHECK_STR(after(&argv, "-machine"), "q35");
	CHECK(!has_arg(&argv, "-global"));
	strvec_clear(&argv);
}

/*
 * Booting from a disk (--disk): the overlay on virtio-blk and numalab.root=
 * on the command line, pinned by tests/host/unit/golden/qemu-disk.argv (outside
 * GOLDEN_DIR, whose files are one per topology).
 */
UNIT_TEST(golden_argv_disk)
{
	const char *golden = "tests/host/unit/golden/qemu-disk.argv";
	struct strvec argv = STRVEC_INIT;
	struct buf text = BUF_INIT;
	struct vm_spec spec;
	struct topology t;

	if (load("topologies/2node.topo", &t)) {
		CHECK(0);
		return;
	}
	show_spec(&t, &spec);
	spec.disk = "CELL/disk.qcow2";
	spec.disk_root = "/dev/vda1";
	qemu_build_argv(&spec, &argv);
	for (size_t a = 0; a < argv.nr; a++)
		buf_addf(&text, "%s\n", argv.items[a]);
	unit_golden(golden, buf_str(&text), text.len);
	CHECK_STR(after(&argv, "-drive"), "file=CELL/disk.qcow2,format=qcow2,if=virtio");
	CHECK(strstr(after(&argv, "-append"), " numalab.root=/dev/vda1") != NULL);
	buf_free(&text);
	strvec_clear(&argv);
}

/*
 * Host-backed NUMA on a 2-socket host (--host-nodes, hostnuma.h): each
 * node's memory bound to its host node, QEMU paused with a QMP monitor for
 * the vCPU pinning.  2node with auto (0=0,1=1); cxl with its CXL nodes on
 * the remote socket (2=1,3=0) and preallocation.  Pinned by
 * tests/host/unit/golden/qemu-host-NAME.argv.
 */
static void check_host_golden(const char *name, const int *map, int prealloc)
{
	char *path = xprintf("topologies/%s.topo", name);
	char *golden = xprintf("tests/host/unit/golden/qemu-host-%s.argv", name);
	struct strvec argv = STRVEC_INIT;
	struct buf text = BUF_INIT;
	struct vm_host_nodes host;
	struct vm_spec spec;
	struct topology t;

	memset(&host, 0, sizeof(host));
	if (load(path, &t)) {
		CHECK(0);
		goto out;
	}
	for (int i = 0; i < t.nr_nodes; i++) {
		host.host_node[i] = map[i];
		snprintf(host.host_cpus[i], sizeof(host.host_cpus[i]), "%s", map[i] ? "16-31" : "0-15");
	}
	host.prealloc = prealloc;
	show_spec(&t, &spec);
	spec.host_nodes = &host;
	spec.qmp_fd = 5;
	qemu_build_argv(&spec, &argv);
	for (size_t a = 0; a < argv.nr; a++)
		buf_addf(&text, "%s\n", argv.items[a]);
	unit_golden(golden, buf_str(&text), text.len);
	CHECK(has_arg(&argv, "-S"));
	CHECK_STR(after(&argv, "-mon"), "chardev=qmp,mode=control");
	CHECK(strstr(buf_str(&text), "socket,id=qmp,fd=5\n") != NULL);
	for (int i = 0; i < t.nr_nodes; i++) {
		char *want = xprintf(",host-nodes=%d,policy=bind%s\n", map[i], prealloc ? ",prealloc=on" : "");
		char *obj = xprintf("memory-backend-ram,id=mem%d,", i);
		const char *at = strstr(buf_str(&text), obj);

		CHECK(at && !strncmp(strchr(at, '\n') - strlen(want) + 1, want, strlen(want)));
		free(want);
		free(obj);
	}
out:
	buf_free(&text);
	strvec_clear(&argv);
	free(path);
	free(golden);
}

UNIT_TEST(golden_argv_host_nodes)
{
	static const int two[] = { 0, 1 }, cxl[] = { 0, 1, 1, 0 };

	check_host_golden("2node", two, 0);
	check_host_golden("cxl", cxl, 1);
}

/* A golden file whose topology or family is gone (renamed, removed) is stale. */
UNIT_TEST(golden_no_orphans)
{
	glob_t g;
	int rc = glob(GOLDEN_DIR "/*/*.argv", 0, NULL, &g);

	CHECK_INT(rc, 0);
	if (rc)
		return;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *base = strrchr(g.gl_pathv[i], '/') + 1;
		const char *family = base - 2;
		char *topo = xprintf("topologies/%.*s.topo", (int)(strlen(base) - 5), base), *replies;

		while (family > g.gl_pathv[i] && family[-1] != '/')
			family--;
		replies = xprintf("%s/%.*s.replies", UNIT_QEMU_FAMILIES, (int)(base - 1 - family), family);
		if (!file_exists(topo) || !file_exists(replies)) {
			printf("#   %s has no %s or no %s; remove it\n", g.gl_pathv[i], topo, replies);
			CHECK(0);
		}
		free(replies);
		free(topo);
	}
	globfree(&g);
}

static void check_size(uint64_t n, const char *want)
{
	char out[32];

	qemu_format_size(n, out, sizeof(out));
	CHECK_STR(out, want);
}

UNIT_TEST(format_size)
{
	check_size(4096, "4K");
	check_size(64ull << 10, "64K");
	check_size(512ull << 20, "512M");
	check_size(2ull << 30, "2G");
	check_size(20ull << 30, "20G");
	check_size(1536ull << 20, "1536M");
	check_size(3, "3");
	check_size(0, "0");
	check_size(1023, "1023");
	check_size(1025, "1025");
	check_size(4097, "4097");
	check_size(1ull << 40, "1T");
	check_size(1024ull << 40, "1024T");   /* no unit above T */
	check_size((1ull << 30) + (1ull << 20), "1025M");
}

UNIT_TEST(cmdline)
{
	struct topology t = { .arch = TOPO_ARCH_X86_64 };
	struct vm_spec spec = { .topo = &t };
	struct buf b = BUF_INIT;

	spec.accel = VM_ACCEL_KVM;
	qemu_cmdline(&spec, &b);
	CHECK_STR(buf_str(&b), "console=ttyS0 lpj=4000000 panic=-1 oops=panic softlockup_panic=1 nmi_watchdog=panic"
			       " numa_balancing=disable check_pages=1 loglevel=6");
	buf_free(&b);
	spec.accel = VM_ACCEL_TCG;
	qemu_cmdline(&spec, &b);
	CHECK(!strncmp(buf_str(&b), "console=ttyS0 lpj=4000000 no_timer_check panic=-1 ", 50));
	buf_free(&b);

	t.arch = TOPO_ARCH_LOONGARCH64;
	spec.extra_cmdline = "";
	qemu_cmdline(&spec, &b);
	CHECK(!strncmp(buf_str(&b), "console=ttyS0,115200 panic=-1 ", 30));
	CHECK(b.len && buf_str(&b)[b.len - 1] != ' ');
	buf_free(&b);

	spec.extra_cmdline = "numalab.debug=1 mitigations=off";
	qemu_cmdline(&spec, &b);
	CHECK(strstr(buf_str(&b), " panic=-1 ") != NULL);
	CHECK(strstr(buf_str(&b), " numa_balancing=disable ") != NULL);
	CHECK(b.len > 32 && !strcmp(buf_str(&b) + b.len - 32, " numalab.debug=1 mitigations=off"));
	buf_free(&b);
}

UNIT_TEST(argv_2node)
{
	struct topology t;
	struct strvec argv = STRVEC_INIT;

	if (build("topologies/2node.topo", &t, &argv)) {
		CHECK(0);
		return;
	}
	CHECK_STR(argv.items[0], "qemu-system-x86_64");
	CHECK_STR(after(&argv, "-name"), "numalab-2node");
	CHECK_STR(after(&argv, "-machine"), "q35,vmport=off,smm=off,sata=off,smbus=off,i8042=off");
	CHECK_STR(after(&argv, "-global"), "ICH9-LPC.acpi-pci-hotplug-with-bridge-support=off");
	CHECK_STR(after(&argv, "-accel"), "tcg,thread=multi");
	CHECK_STR(after(&argv, "-cpu"), "max,erms=off,fsrm=off");
	CHECK_STR(after(&argv, "-m"), "1G");
	CHECK_STR(after(&argv, "-smp"), "4,sockets=2,cores=2,threads=1");
	CHECK(has_arg(&argv, "-nodefaults") && has_arg(&argv, "-no-reboot"));
	CHECK(has_arg(&argv, "node,nodeid=0,cpus=0-1,memdev=mem0"));
	CHECK(has_arg(&argv, "node,nodeid=1,cpus=2-3,memdev=mem1"));
	CHECK(has_arg(&argv, "memory-backend-ram,id=mem1,size=512M"));
	CHECK(has_arg(&argv, "dist,src=0,dst=1,val=21"));
	CHECK(has_arg(&argv, "dist,src=1,dst=0,val=21"));
	CHECK_INT(count_numa(&argv, "dist,"), 2);
	CHECK_INT(count_numa(&argv, "hmat"), 0);
	CHECK(after(&argv, "-bios") == NULL);
	CHECK_STR(after(&argv, "-chardev"), "socket,id=console,fd=3");
	CHECK(has_arg(&argv, "socket,id=tap,fd=4"));
	CHECK_STR(after(&argv, "-kernel"), "KERNEL");
	CHECK_STR(after(&argv, "-initrd"), "INITRD");
	CHECK_STR(argv.items[argv.nr - 2], "-append");
	CHECK(!strncmp(argv.items[argv.nr - 1], "console=ttyS0 lpj=4000000 no_timer_check panic=-1 ", 50));
	CHECK(argv.items[argv.nr] == NULL);
	strvec_clear(&argv);
}

/* CPU-less nodes: no cpus=, their initiator; HMAT turns hmat=on and every node gets an initiator. */
UNIT_TEST(argv_cxl_hmat)
{
	struct topology t;
	struct strvec argv = STRVEC_INIT;

	if (build("topologies/cxl.topo", &t, &argv)) {
		CHECK(0);
		return;
	}
	CHECK_STR(after(&argv, "-machine"), "q35,hmat=on,vmport=off,smm=off,sata=off,smbus=off,i8042=off");
	CHECK_STR(after(&argv, "-m"), "2G");
	CHECK_STR(after(&argv, "-smp"), "4,sockets=2,cores=2,threads=1");
	CHECK(has_arg(&argv, "node,nodeid=0,cpus=0-1,memdev=mem0,initiator=0"));
	CHECK(has_arg(&argv, "node,nodeid=1,cpus=2-3,memdev=mem1,initiator=1"));
	CHECK(has_arg(&argv, "node,nodeid=2,memdev=mem2,initiator=0"));
	CHECK(has_arg(&argv, "node,nodeid=3,memdev=mem3,initiator=1"));
	for (size_t i = 0; i < argv.nr; i++)
		if (!strncmp(argv.items[i], "node,nodeid=2,", 14) || !strncmp(argv.items[i], "node,nodeid=3,", 14))
			CHECK(!strstr(argv.items[i], "cpus="));
	CHECK_INT(count_numa(&argv, "dist,"), 12);
	CHECK_INT(count_numa(&argv, "hmat-lb,"), 16);
	CHECK_INT(count_numa(&argv, "hmat-cache,"), 2);
	CHECK(has_arg(&argv, "hmat-lb,initiator=1,target=2,hierarchy=memory,data-type=access-latency,latency=350"));
	CHECK(has_arg(&argv, "hmat-lb,initiator=0,target=2,hierarchy=memory,data-type=access-bandwidth,bandwidth=10G"));
	CHECK(has_arg(&argv, "hmat-cache,node-id=3,size=64K,level=1,associativity=direct,policy=write-back,line=64"));
	strvec_clear(&argv);
}

/* LoongArch: firmware, la464, plain -smp, serial console at 115200. */
UNIT_TEST(argv_loongarch)
{
	struct topology t;
	struct strvec argv = STRVEC_INIT;

	if (build("tests/host/unit/topo/good/loongarch.topo", &t, &argv)) {
		CHECK(0);
		return;
	}
	CHECK_STR(argv.items[0], "qemu-system-loongarch64");
	CHECK_STR(after(&argv, "-machine"), "virt,hmat=on");
	CHECK_STR(after(&argv, "-cpu"), "la464");
	CHECK_STR(after(&argv, "-smp"), "4");
	CHECK_STR(after(&argv, "-m"), "2560M");
	CHECK_STR(after(&argv, "-bios"), "FIRMWARE");
	CHECK(has_arg(&argv, "node,nodeid=0,cpus=0-2,memdev=mem0,initiator=0"));
	CHECK(has_arg(&argv, "node,nodeid=1,cpus=3,memdev=mem1,initiator=1"));
	CHECK(has_arg(&argv, "node,nodeid=2,memdev=mem2,initiator=1"));
	CHECK(has_arg(&argv, "hmat-lb,initiator=1,target=2,hierarchy=memory,data-type=access-bandwidth,bandwidth=1536M"));
	CHECK(has_arg(&argv, "hmat-cache,node-id=2,size=1M,level=2,associativity=complex,policy=write-through,line=128"));
	CHECK(!strncmp(after(&argv, "-append"), "console=ttyS0,115200 panic=-1 ", 30));
	strvec_clear(&argv);
}

/* Uneven CPU nodes: one socket per CPU; a CPU-less node without HMAT: no initiator, no hmat=on. */
UNIT_TEST(argv_shapes)
{
	struct topology t;
	struct strvec argv = STRVEC_INIT;

	if (!build("tests/host/unit/topo/good/single-cpu.topo", &t, &argv)) {
		CHECK_STR(after(&argv, "-smp"), "4,sockets=4,cores=1,threads=1");
		CHECK(has_arg(&argv, "node,nodeid=1,cpus=3,memdev=mem1"));
		CHECK(has_arg(&argv, "dist,src=1,dst=0,val=255"));
	} else {
		CHECK(0);
	}
	strvec_clear(&argv);
	if (!build("tests/host/unit/topo/good/cpuless-no-hmat.topo", &t, &argv)) {
		CHECK_STR(after(&argv, "-machine"), "pc");   /* q35's switches are q35's only */
		CHECK(after(&argv, "-global") == NULL);
		CHECK_STR(after(&argv, "-smp"), "2,sockets=1,cores=2,threads=1");
		CHECK_STR(after(&argv, "-m"), "768M");
		CHECK(has_arg(&argv, "node,nodeid=1,memdev=mem1"));
	} else {
		CHECK(0);
	}
	strvec_clear(&argv);
	if (!build("tests/host/unit/topo/good/one-node.topo", &t, &argv)) {
		CHECK(has_arg(&argv, "node,nodeid=0,cpus=0-3,memdev=mem0"));
		CHECK_INT(count_numa(&argv, "dist,"), 0);
		CHECK_STR(after(&argv, "-smp"), "4,sockets=1,cores=4,threads=1");
	} else {
		CHECK(0);
	}
	strvec_clear(&argv);
}

/* KVM and plain files instead of fds (by-hand runs). */
UNIT_TEST(argv_kvm_files)
{
	struct topology t;
	struct strvec argv = STRVEC_INIT;
	struct vm_spec spec;

	if (load("topologies/2node.topo", &t)) {
		CHECK(0);
		return;
	}
	show_spec(&t, &spec);
	spec.accel = VM_ACCEL_KVM;
	spec.console_file = "/tmp/console.log";
	spec.tap_file = "/tmp/tap.log";
	spec.extra_cmdline = "foo=bar";
	qemu_build_argv(&spec, &argv);
	CHECK_STR(after(&argv, "-accel"), "kvm");
	CHECK(has_arg(&argv, "file,id=console,path=/tmp/console.log"));
	CHECK(has_arg(&argv, "file,id=tap,path=/tmp/tap.log"));
	CHECK(!has_arg(&argv, "socket,id=console,fd=3"));
	CHECK(strstr(after(&argv, "-append"), " foo=bar") != NULL);
	/* What TCG is spared (qemu.h) a KVM guest keeps: the host's CPU features; it skips the timer check itself. */
	CHECK_STR(after(&argv, "-cpu"), "max");
	CHECK(!strstr(after(&argv, "-append"), "no_timer_check"));
	strvec_clear(&argv);
	CHECK_STR(qemu_binary(TOPO_ARCH_X86_64), "qemu-system-x86_64");
	CHECK_STR(qemu_binary(TOPO_ARCH_LOONGARCH64), "qemu-system-loongarch64");
	CHECK_STR(vm_accel_name(VM_ACCEL_TCG), "tcg");
	CHECK_STR(vm_accel_name(VM_ACCEL_KVM), "kvm");
}

/*
 * Host shares (run -- CMD, shell): one virtio-9p device per share, read-only
 * unless writable, a comma in a path doubled; pinned by
 * tests/host/unit/golden/qemu-shares.argv.
 */
UNIT_TEST(golden_argv_shares)
{
	const char *golden = "tests/host/unit/golden/qemu-shares.argv";
	static const struct vm_share shares[] = {
		{ "numalab.0", "/", 0 }, { "numalab.1", "/home/me/a,b", 0 }, { "numalab.2", "/home/me/out", 1 },
	};
	struct strvec argv = STRVEC_INIT;
	struct buf text = BUF_INIT;
	struct vm_spec spec;
	struct topology t;

	if (load("topologies/2node.topo", &t)) {
		CHECK(0);
		return;
	}
	show_spec(&t, &spec);
	spec.shares = shares;
	spec.nr_shares = 3;
	qemu_build_argv(&spec, &argv);
	for (size_t a = 0; a < argv.nr; a++)
		buf_addf(&text, "%s\n", argv.items[a]);
	unit_golden(golden, buf_str(&text), text.len);
	CHECK(strstr(buf_str(&text), "-fsdev\nlocal,id=fs0,path=/,security_model=none,multidevs=remap,readonly=on\n") != NULL);
	CHECK(strstr(buf_str(&text), "path=/home/me/a,,b,") != NULL);
	CHECK(strstr(buf_str(&text), "path=/home/me/out,security_model=none,multidevs=remap\n") != NULL);
	CHECK(strstr(buf_str(&text), "virtio-9p-pci,fsdev=fs2,mount_tag=numalab.2\n") != NULL);
	buf_free(&text);
	strvec_clear(&argv);
}

UNIT_MAIN(UNIT_CASE(golden_argv), UNIT_CASE(families_caps), UNIT_CASE(caps_parse_strict),
	  UNIT_CASE(argv_without_caps), UNIT_CASE(golden_argv_disk), UNIT_CASE(golden_argv_shares), UNIT_CASE(golden_argv_host_nodes), UNIT_CASE(golden_no_orphans), UNIT_CASE(format_size),
	  UNIT_CASE(cmdline), UNIT_CASE(argv_2node), UNIT_CASE(argv_cxl_hmat),
	  UNIT_CASE(argv_loongarch), UNIT_CASE(argv_shapes), UNIT_CASE(argv_kvm_files))
