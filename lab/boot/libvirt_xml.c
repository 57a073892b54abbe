#include "boot/libvirt_xml.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Text or attribute value, XML-escaped. */
static void add_escaped(struct buf *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': buf_addstr(out, "&amp;"); break;
		case '<': buf_addstr(out, "&lt;"); break;
		case '>': buf_addstr(out, "&gt;"); break;
		case '\'': buf_addstr(out, "&apos;"); break;
		case '"': buf_addstr(out, "&quot;"); break;
		default: buf_add(out, s, 1);
		}
	}
}

/* n in the largest binary unit that divides it exactly: *value, and the unit's name. */
static const char *scaled(uint64_t n, unsigned long long *value)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	while (u < 4 && n && !(n & 1023)) {
		n >>= 10;
		u++;
	}
	*value = n;
	return units[u];
}

static void add_size_attrs(struct buf *out, uint64_t n)
{
	unsigned long long v;
	const char *unit = scaled(n, &v);

	buf_addf(out, "value='%llu' unit='%s'", v, unit);
}

/*
 * The initiator libvirt gives a CPU-less node (virDomainNumaGetNodeInitiator):
 * the lowest latency to it, else the highest bandwidth; -1 without HMAT data.
 */
static int derived_initiator(const struct topology *t, int node)
{
	const struct topo_hmat_lb *best = NULL;

	for (int i = 0; i < t->nr_hmat_lb; i++) {
		const struct topo_hmat_lb *lb = &t->hmat_lb[i];

		if (lb->target == node && lb->latency_ns && (!best || lb->latency_ns < best->latency_ns))
			best = lb;
	}
	for (int i = 0; !best && i < t->nr_hmat_lb; i++) {
		const struct topo_hmat_lb *lb = &t->hmat_lb[i];

		if (lb->target == node && lb->bandwidth_bps)
			best = lb;
	}
	for (int i = 0; best && !best->latency_ns && i < t->nr_hmat_lb; i++) {
		const struct topo_hmat_lb *lb = &t->hmat_lb[i];

		if (lb->target == node && lb->bandwidth_bps > best->bandwidth_bps)
			best = lb;
	}
	return best ? best->initiator : -1;
}

int libvirt_xml_supported(const struct topology *t, struct error *err)
{
	if (t->arch == TOPO_ARCH_LOONGARCH64)
		return error_input(err, "%s: the libvirt backend boots x86 guests only (a LoongArch guest "
				   "needs libvirt >= 10.2, QEMU >= 9 and UEFI firmware, which numalab drives "
				   "directly); run this topology with the direct backend (--backend qemu)", t->path);
	if (!topo_has_hmat(t))
		return 0;
	for (int i = 0; i < t->nr_nodes; i++) {
		int derived = derived_initiator(t, i);

		if (!topo_node_has_cpus(t, i) && derived != t->nodes[i].initiator)
			return error_input(err, "%s:%d: node %d has initiator=%d but libvirt makes node %d its initiator "
					   "(the lowest hmat-lb latency to it); give node %d that lowest latency or use "
					   "the direct backend", t->path, t->nodes[i].line, i, t->nodes[i].initiator,
					   derived, t->nodes[i].initiator);
	}
	return 0;
}

static void add_cell_cache(const struct topology *t, int node, struct buf *out)
{
	for (int i = 0; i < t->nr_hmat_cache; i++) {
		const struct topo_hmat_cache *c = &t->hmat_cache[i];

		if (c->node != node)
			continue;
		/* libvirt's associativity 'full' is QEMU's 'complex'. */
		buf_addf(out, "        <cache level='%d' associativity='%s' policy='%s'>\n", c->level,
			 c->direct_mapped ? "direct" : "full", c->write_back ? "writeback" : "writethrough");
		buf_addstr(out, "          <size ");
		add_size_attrs(out, c->size_bytes);
		buf_addstr(out, "/>\n          <line ");
		add_size_attrs(out, c->line_bytes);
		buf_addstr(out, "/>\n        </cache>\n");
	}
}

static void add_cell(const struct topology *t, int i, struct buf *out)
{
	const struct topo_node *n = &t->nodes[i];
	unsigned long long mem;
	const char *unit;

	buf_addf(out, "      <cell id='%d'", i);
	if (n->cpu_first >= 0 && n->cpu_first == n->cpu_last)
		buf_addf(out, " cpus='%d'", n->cpu_first);
	else if (n->cpu_first >= 0)
		buf_addf(out, " cpus='%d-%d'", n->cpu_first, n->cpu_last);
	unit = scaled(n->mem_bytes, &mem);
	buf_addf(out, " memory='%llu' unit='%s'>\n", mem, unit);
	if (t->nr_nodes > 1) {
		buf_addstr(out, "        <distances>\n");
		for (int j = 0; j < t->nr_nodes; j++)
			buf_addf(out, "          <sibling id='%d' value='%d'/>\n", j, t->dist[i][j]);
		buf_addstr(out, "        </distances>\n");
	}
	add_cell_cache(t, i, out);
	buf_addstr(out, "      </cell>\n");
}

/*
 * libvirt 9.0 refuses a link whose reverse it already has ("Link already
 * defined"), whatever its type: of two nodes with CPUs, the link from the
 * higher node goes to QEMU directly (<qemu:commandline>).  Links to CPU-less
 * nodes, from which libvirt derives their initiators, always stay.
 */
static int passed_through(const struct topology *t, const struct topo_hmat_lb *lb)
{
	return lb->initiator > lb->target && topo_hmat_find(t, lb->target, lb->initiator);
}

static void add_interconnects(const struct topology *t, struct buf *out)
{
	if (!t->nr_hmat_lb)
		return;
	buf_addstr(out, "      <interconnects>\n");
	for (int i = 0; i < t->nr_hmat_lb; i++) {
		const struct topo_hmat_lb *lb = &t->hmat_lb[i];

		if (lb->latency_ns && !passed_through(t, lb))
			buf_addf(out, "        <latency initiator='%d' target='%d' type='access' value='%llu'/>\n",
				 lb->initiator, lb->target, (unsigned long long)lb->latency_ns);
	}
	for (int i = 0; i < t->nr_hmat_lb; i++) {
		const struct topo_hmat_lb *lb = &t->hmat_lb[i];

		if (!lb->bandwidth_bps || passed_through(t, lb))
			continue;
		buf_addf(out, "        <bandwidth initiator='%d' target='%d' type='access' ", lb->initiator,
			 lb->target);
		add_size_attrs(out, lb->bandwidth_bps);
		buf_addstr(out, "/>\n");
	}
	buf_addstr(out, "      </interconnects>\n");
}

static void add_cpu(const struct vm_spec *spec, struct buf *out)
{
	static const char *const off[] = QEMU_X86_TCG_CPU_OFF;
	const struct topology *t = spec->topo;
	int sockets = qemu_sockets(t);

	buf_addstr(out, "  <cpu mode='maximum' check='none'>\n");
	buf_addf(out, "    <topology sockets='%d' dies='1' cores='%d' threads='1'/>\n", sockets,
		 topo_nr_cpus(t) / sockets);
	for (size_t i = 0; spec->accel == VM_ACCEL_TCG && i < sizeof(off) / sizeof(off[0]); i++)
		buf_addf(out, "    <feature policy='disable' name='%s'/>\n", off[i]);
	buf_addstr(out, "    <numa>\n");
	for (int i = 0; i < t->nr_nodes; i++)
		add_cell(t, i, out);
	add_interconnects(t, out);
	buf_addstr(out, "    </numa>\n  </cpu>\n");
}

/* Memory of guest node g on host node h, its vCPUs on h's CPUs. */
static void add_host_binding(const struct topology *t, const struct libvirt_host_map *map,
			     struct buf *out)
{
	int used[TOPO_MAX_NODES] = { 0 }, first = 1;

	buf_addstr(out, "  <cputune>\n");
	for (int cpu = 0; cpu < topo_nr_cpus(t); cpu++)
		buf_addf(out, "    <vcpupin vcpu='%d' cpuset='%s'/>\n", cpu,
			 map->host_cpus[topo_cpu_node(t, cpu)]);
	buf_addstr(out, "  </cputune>\n  <numatune>\n    <memory mode='strict' nodeset='");
	for (int i = 0; i < t->nr_nodes; i++)
		used[map->host_node[i]] = 1;
	for (int h = 0; h < TOPO_MAX_NODES; h++)
		if (used[h]) {
			buf_addf(out, "%s%d", first ? "" : ",", h);
			first = 0;
		}
	buf_addstr(out, "'/>\n");
	for (int i = 0; i < t->nr_nodes; i++)
		buf_addf(out, "    <memnode cellid='%d' mode='strict' nodeset='%d'/>\n", i, map->host_node[i]);
	buf_addstr(out, "  </numatune>\n");
}

static void add_os(const struct vm_spec *spec, struct buf *out)
{
	struct buf cmdline = BUF_INIT;

	qemu_cmdline(spec, &cmdline);
	buf_addstr(out, "  <os>\n    <type arch='x86_64' machine='");
	add_escaped(out, spec->topo->machine);
	buf_addstr(out, "'>hvm</type>\n    <kernel>");
	add_escaped(out, spec->kernel);
	buf_addstr(out, "</kernel>\n    <initrd>");
	add_escaped(out, spec->initrd);
	buf_addstr(out, "</initrd>\n    <cmdline>");
	add_escaped(out, buf_str(&cmdline));
	buf_addstr(out, "</cmdline>\n  </os>\n");
	buf_free(&cmdline);
}

static void add_unix_source(struct buf *out, const char *path)
{
	buf_addstr(out, "      <source mode='connect' path='");
	add_escaped(out, path);
	buf_addstr(out, "'/>\n");
}

static void add_devices(const struct libvirt_domain *d, struct buf *out)
{
	buf_addstr(out, "  <devices>\n    <serial type='unix'>\n");
	add_unix_source(out, d->console_socket);
	buf_addstr(out, "      <target port='0'/>\n    </serial>\n    <console type='unix'>\n");
	add_unix_source(out, d->tap_socket);
	buf_addstr(out, "      <target type='virtio' port='0'/>\n    </console>\n"
			"    <controller type='usb' model='none'/>\n"
			"    <memballoon model='none'/>\n"
			"    <panic model='isa'/>\n"
			"  </devices>\n");
}

/*
 * Straight to QEMU: the HMAT links libvirt refuses (after libvirt's -numa
 * node options), and the parts of qemu_q35_slim() libvirt 9.0 has no
 * element for (qemu.h; <ps2> came in 9.1).
 */
static void add_qemu_commandline(const struct vm_spec *spec, struct buf *out)
{
	const struct topology *t = spec->topo;
	struct strvec args = STRVEC_INIT;
	struct buf machine = BUF_INIT;

	if (qemu_q35_slim(t)) {
		/* QEMU merges a second -machine into libvirt's. */
		qemu_q35_slim_props(spec->caps, 0, &machine);
		if (machine.len) {
			strvec_push(&args, "-machine");
			strvec_push(&args, buf_str(&machine) + 1);   /* past the leading comma */
		}
		qemu_q35_no_hotplug_args(spec->caps, &args);
	}
	buf_free(&machine);
	for (int i = 0; i < t->nr_hmat_lb; i++)
		if (passed_through(t, &t->hmat_lb[i]))
			qemu_hmat_lb_args(&t->hmat_lb[i], &args);
	if (!args.nr)
		return;
	buf_addstr(out, "  <qemu:commandline>\n");
	for (size_t i = 0; i < args.nr; i++) {
		buf_addstr(out, "    <qemu:arg value='");
		add_escaped(out, args.items[i]);
		buf_addstr(out, "'/>\n");
	}
	buf_addstr(out, "  </qemu:commandline>\n");
	strvec_clear(&args);
}

int libvirt_domain_xml(const struct vm_spec *spec, const struct libvirt_domain *d,
		       struct buf *out, struct error *err)
{
	const struct topology *t = spec->topo;

	if (libvirt_xml_supported(t, err))
		return -1;
	buf_addf(out, "<domain type='%s' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>\n  <name>",
		 spec->accel == VM_ACCEL_KVM ? "kvm" : "qemu");
	add_escaped(out, d->name);
	buf_addf(out, "</name>\n  <memory unit='KiB'>%llu</memory>\n",
		 (unsigned long long)(topo_mem_bytes(t) >> 10));
	buf_addf(out, "  <vcpu placement='static'>%d</vcpu>\n", topo_nr_cpus(t));
	if (d->host && d->host->bound)
		add_host_binding(t, d->host, out);
	add_os(spec, out);
	buf_addstr(out, "  <features>\n    <acpi/>\n");
	if (qemu_q35_slim(t) && qemu_caps_has(spec->caps, QEMU_CAP_Q35_VMPORT))
		buf_addstr(out, "    <vmport state='off'/>\n");
	if (qemu_q35_slim(t) && qemu_caps_has(spec->caps, QEMU_CAP_Q35_SMM))
		buf_addstr(out, "    <smm state='off'/>\n");
	buf_addstr(out, "  </features>\n");
	add_cpu(spec, out);
	buf_addstr(out, "  <on_poweroff>destroy</on_poweroff>\n"
			"  <on_reboot>destroy</on_reboot>\n"
			"  <on_crash>destroy</on_crash>\n");
	add_devices(d, out);
	/* QEMU as root, files left alone: the inputs live under root's 0700 home. */
	buf_addstr(out, "  <seclabel type='static' model='dac' relabel='no'>\n"
			"    <label>+0:+0</label>\n"
			"  </seclabel>\n");
	add_qemu_commandline(spec, out);
	buf_addstr(out, "</domain>\n");
	return 0;
}

static int parse_node(const char **s, int max, int *out)
{
	char *end;
	long v = strtol(*s, &end, 10);

	if (end == *s || v < 0 || v >= max)
		return -1;
	*out = (int)v;
	*s = end;
	return 0;
}

int libvirt_parse_host_nodes(const char *arg, const struct topology *t,
			     struct libvirt_host_map *map, struct error *err)
{
	int seen[TOPO_MAX_NODES] = { 0 };
	const char *s = arg;

	memset(map, 0, sizeof(*map));
	map->bound = 1;
	if (!strcmp(arg, "auto")) {
		for (int i = 0; i < t->nr_nodes; i++)
			map->host_node[i] = i;
		return 0;
	}
	while (*s) {
		int g, h;

		if (parse_node(&s, t->nr_nodes, &g) || *s++ != '=' || parse_node(&s, TOPO_MAX_NODES, &h) ||
		    (*s && (*s++ != ',' || !*s)))
			return error_input(err, "--host-nodes %s: give auto or GUEST=HOST,... with guest nodes 0..%d "
					   "and host nodes 0..%d", arg, t->nr_nodes - 1, TOPO_MAX_NODES - 1);
		if (seen[g]++)
			return error_input(err, "--host-nodes %s: guest node %d is mapped twice", arg, g);
		map->host_node[g] = h;
	}
	for (int i = 0; i < t->nr_nodes; i++)
		if (!seen[i])
			return error_input(err, "--host-nodes %s: guest node %d is not mapped; map each of the %d "
					   "nodes of %s", arg, i, t->nr_nodes, t->name);
	return 0;
}

void libvirt_host_map_line(const struct topology *t, const struct libvirt_host_map *map,
			   struct buf *out)
{
	for (int i = 0; i < t->nr_nodes; i++)
		buf_addf(out, "%sguest%d=host%d", i ? "," : "", i, map->host_node[i]);
}
