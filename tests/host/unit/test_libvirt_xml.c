/*
 * test_libvirt_xml: the libvirt domain XML of every shipped x86 topology
 * against its golden file (tests/host/unit/golden/libvirt/NAME.xml), the
 * LoongArch refusal, host-backed mode and --host-nodes parsing.
 *
 * UPDATE_GOLDEN=1 rewrites the golden files instead of comparing (review the
 * diff before committing it).
 */
#include "boot/libvirt_xml.h"
#include "unit.h"
#include "base/util.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GOLDEN_DIR "tests/host/unit/golden/libvirt"

static const struct libvirt_domain plain = { "numalab-TOPO", "CONSOLE.sock", "TAP.sock", NULL };

static int load(const char *path, struct topology *t)
{
	struct topo_error err;

	if (!topo_load(path, t, &err))
		return 0;
	printf("#   %s\n", err.msg);
	return -1;
}

/* The XML of the topology at path with placeholder files for a QEMU of family; 0 on success. */
static int build_for(const char *family, const char *path, struct topology *t, const struct libvirt_domain *d,
		     enum vm_accel accel, struct buf *xml)
{
	struct qemu_caps caps;
	struct vm_spec spec = { .topo = t, .kernel = "KERNEL", .initrd = "INITRD", .accel = accel,
				.caps = &caps };
	struct error err;

	unit_qemu_caps(family, &caps);
	if (load(path, t))
		return -1;
	if (libvirt_domain_xml(&spec, d, xml, &err)) {
		printf("#   %s: %s\n", path, err.msg);
		return -1;
	}
	return 0;
}

static int build(const char *path, struct topology *t, const struct libvirt_domain *d,
		 enum vm_accel accel, struct buf *xml)
{
	return build_for(UNIT_QEMU_FAMILY, path, t, d, accel, xml);
}

/* The x86 QEMU families, as test_qemu.c's: QEMU 7.2 (Debian 12's) and 10.0 (Debian 13's). */
static const char *const x86_families[] = { "x86_64-7.2", "x86_64-10.0" };

/* Every x86 topology has a golden XML per family (GOLDEN_DIR/FAMILY/); every LoongArch one is refused. */
UNIT_TEST(golden_xml)
{
	const char *update = getenv("UPDATE_GOLDEN");
	int updating = update && !strcmp(update, "1"), x86 = 0, la = 0;
	struct error err;
	glob_t g;

	CHECK_INT(glob("topologies/*.topo", 0, NULL, &g), 0);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct topology t;

		if (load(g.gl_pathv[i], &t)) {
			CHECK(0);
			continue;
		}
		if (t.arch == TOPO_ARCH_LOONGARCH64) {
			CHECK_INT(libvirt_xml_supported(&t, &err), -1);
			CHECK(strstr(err.msg, "--backend qemu") != NULL);
			la++;
			continue;
		}
		x86++;
		for (size_t f = 0; f < sizeof(x86_families) / sizeof(x86_families[0]); f++) {
			char *dir = xprintf("%s/%s", GOLDEN_DIR, x86_families[f]);
			char *golden = xprintf("%s/%s.xml", dir, t.name);
			struct buf xml = BUF_INIT;

			if (updating)
				CHECK_INT(mkdir_p(dir, &err), 0);
			if (build_for(x86_families[f], g.gl_pathv[i], &t, &plain, VM_ACCEL_TCG, &xml))
				CHECK(0);
			else
				unit_golden(golden, buf_str(&xml), xml.len);
			free(golden);
			free(dir);
			buf_free(&xml);
		}
	}
	CHECK(x86 >= 4 && la >= 3);
	globfree(&g);
}

/* A golden file whose topology is gone (renamed, removed) is stale; its family is one of x86_families. */
UNIT_TEST(golden_no_orphans)
{
	glob_t g;
	int rc = glob(GOLDEN_DIR "/*/*.xml", 0, NULL, &g);

	CHECK_INT(rc, 0);
	if (rc)
		return;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *base = strrchr(g.gl_pathv[i], '/') + 1;
		const char *family = g.gl_pathv[i] + strlen(GOLDEN_DIR "/");
		char *topo = xprintf("topologies/%.*s.topo", (int)(strlen(base) - 4), base);
		int known = 0;

		for (size_t f = 0; f < sizeof(x86_families) / sizeof(x86_families[0]); f++)
			known |= !strncmp(family, x86_families[f], strlen(x86_families[f])) &&
				 family[strlen(x86_families[f])] == '/';
		if (!file_exists(topo) || !known) {
			printf("#   %s has no %s; remove it\n", g.gl_pathv[i], topo);
			CHECK(0);
		}
		free(topo);
	}
	globfree(&g);
}

static int has(struct buf *xml, const char *s)
{
	if (strstr(buf_str(xml), s))
		return 1;
	printf("#   missing: %s\n", s);
	return 0;
}

/* CPU-less cells have no cpus, HMAT becomes interconnects and caches. */
UNIT_TEST(cxl_hmat)
{
	struct topology t;
	struct buf xml = BUF_INIT;

	if (build("topologies/cxl.topo", &t, &plain, VM_ACCEL_TCG, &xml)) {
		CHECK(0);
		return;
	}
	CHECK(has(&xml, "<domain type='qemu' "));
	CHECK(has(&xml, "<memory unit='KiB'>2097152</memory>"));
	CHECK(has(&xml, "<cell id='0' cpus='0-1' memory='512' unit='MiB'>"));
	CHECK(has(&xml, "<cell id='2' memory='512' unit='MiB'>"));
	CHECK(has(&xml, "<sibling id='3' value='26'/>"));
	CHECK(has(&xml, "<latency initiator='1' target='2' type='access' value='350'/>"));
	CHECK(has(&xml, "<bandwidth initiator='0' target='2' type='access' value='10' unit='GiB'/>"));
	CHECK(has(&xml, "<cache level='1' associativity='direct' policy='writeback'>"));
	CHECK(has(&xml, "<size value='64' unit='KiB'/>"));
	CHECK(has(&xml, "<topology sockets='2' dies='1' cores='2' threads='1'/>"));
	CHECK(has(&xml, "<features>\n    <acpi/>"));
	CHECK(has(&xml, "<memballoon model='none'/>"));
	CHECK(has(&xml, "<panic model='isa'/>"));
	CHECK(has(&xml, "<on_crash>destroy</on_crash>"));
	CHECK(!strstr(buf_str(&xml), "<interface"));
	CHECK(!strstr(buf_str(&xml), "numatune"));
	buf_free(&xml);
}

/* KVM, escaping of the command line, host-backed mode. */
UNIT_TEST(kvm_escape_host)
{
	struct topology t;
	struct buf xml = BUF_INIT;
	struct libvirt_host_map map;
	struct libvirt_domain d = plain;
	struct vm_spec spec = { .topo = &t, .kernel = "/k&k", .initrd = "I", .accel = VM_ACCEL_KVM,
				.extra_cmdline = "a='<b>'" };
	struct error err;

	if (load("topologies/cxl.topo", &t)) {
		CHECK(0);
		return;
	}
	CHECK_INT(libvirt_parse_host_nodes("0=1,1=0,2=1,3=0", &t, &map, &err), 0);
	snprintf(map.host_cpus[0], sizeof(map.host_cpus[0]), "4-7");
	snprintf(map.host_cpus[1], sizeof(map.host_cpus[1]), "0-3");
	d.host = &map;
	CHECK_INT(libvirt_domain_xml(&spec, &d, &xml, &err), 0);
	CHECK(has(&xml, "<domain type='kvm' "));
	CHECK(has(&xml, "<kernel>/k&amp;k</kernel>"));
	CHECK(has(&xml, " a=&apos;&lt;b&gt;&apos;</cmdline>"));
	CHECK(has(&xml, "<vcpupin vcpu='0' cpuset='4-7'/>"));
	CHECK(has(&xml, "<vcpupin vcpu='3' cpuset='0-3'/>"));
	CHECK(has(&xml, "<memory mode='strict' nodeset='0,1'/>"));
	CHECK(has(&xml, "<memnode cellid='2' mode='strict' nodeset='1'/>"));
	buf_free(&xml);
	libvirt_host_map_line(&t, &map, &xml);
	CHECK_STR(buf_str(&xml), "guest0=host1,guest1=host0,guest2=host1,guest3=host0");
	buf_free(&xml);
}

UNIT_TEST(parse_host_nodes)
{
	struct topology t;
	struct libvirt_host_map map;
	struct error err;

	if (load("topologies/2node.topo", &t)) {
		CHECK(0);
		return;
	}
	CHECK_INT(libvirt_parse_host_nodes("auto", &t, &map, &err), 0);
	CHECK(map.bound && map.host_node[0] == 0 && map.host_node[1] == 1);
	CHECK_INT(libvirt_parse_host_nodes("1=0,0=0", &t, &map, &err), 0);
	CHECK(map.host_node[0] == 0 && map.host_node[1] == 0);
	CHECK_INT(libvirt_parse_host_nodes("0=0", &t, &map, &err), -1);
	CHECK(strstr(err.msg, "guest node 1 is not mapped") != NULL);
	CHECK_INT(libvirt_parse_host_nodes("0=0,0=1", &t, &map, &err), -1);
	CHECK(strstr(err.msg, "mapped twice") != NULL);
	CHECK_INT(libvirt_parse_host_nodes("0=0,2=1", &t, &map, &err), -1);
	CHECK_INT(libvirt_parse_host_nodes("0=0,1=x", &t, &map, &err), -1);
	CHECK_INT(libvirt_parse_host_nodes("0=0,1=1,", &t, &map, &err), -1);
	CHECK_INT(libvirt_parse_host_nodes("", &t, &map, &err), -1);
}

/* A CPU-less node whose initiator is not the lowest-latency one: libvirt would differ. */
UNIT_TEST(initiator_mismatch)
{
	static const char text[] =
		"arch x86_64\nmemory 1G\n"
		"node 0 cpus=0-1 mem=256M\nnode 1 cpus=2-3 mem=256M\nnode 2 mem=512M initiator=1\n"
		"distance 0 10 21 14\ndistance 1 21 10 24\ndistance 2 14 24 10\n"
		"hmat-lb 0 0 latency=80 bandwidth=20G\nhmat-lb 0 1 latency=140 bandwidth=10G\n"
		"hmat-lb 0 2 latency=200 bandwidth=8G\nhmat-lb 1 0 latency=140 bandwidth=10G\n"
		"hmat-lb 1 1 latency=80 bandwidth=20G\nhmat-lb 1 2 latency=300 bandwidth=4G\n";
	struct topology t;
	struct topo_error terr;
	struct error err;

	if (topo_parse("mismatch.topo", text, sizeof(text) - 1, &t, &terr)) {
		printf("#   %s\n", terr.msg);
		CHECK(0);
		return;
	}
	CHECK_INT(libvirt_xml_supported(&t, &err), -1);
	CHECK(strstr(err.msg, "mismatch.topo:5: node 2 has initiator=1 but libvirt makes node 0") != NULL);
}

UNIT_MAIN(UNIT_CASE(golden_xml), UNIT_CASE(golden_no_orphans), UNIT_CASE(cxl_hmat),
	  UNIT_CASE(kvm_escape_host), UNIT_CASE(parse_host_nodes), UNIT_CASE(initiator_mismatch))
