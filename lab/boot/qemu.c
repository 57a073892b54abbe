#include "boot/qemu.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char *qemu_x86_firmware(void)
{
	return access(QEMU_X86_QBOOT, R_OK) ? NULL : QEMU_X86_QBOOT;
}

const char *qemu_binary(enum topo_arch arch)
{
	return arch == TOPO_ARCH_X86_64 ? "qemu-system-x86_64" : "qemu-system-loongarch64";
}

const char *vm_accel_name(enum vm_accel accel)
{
	return accel == VM_ACCEL_KVM ? "kvm" : "tcg";
}

void qemu_format_size(uint64_t n, char *out, size_t cap)
{
	static const char units[] = "KMGT";
	int u = -1;

	while (u < 3 && n && !(n & 1023)) {
		n >>= 10;
		u++;
	}
	if (u < 0)
		snprintf(out, cap, "%llu", (unsigned long long)n);
	else
		snprintf(out, cap, "%llu%c", (unsigned long long)n, units[u]);
}

void qemu_cmdline(const struct vm_spec *spec, struct buf *out)
{
	/*
	 * panic=-1 with -no-reboot turns a panic into a QEMU exit; oops and
	 * lockups are made panics so a sick guest ends instead of hanging.
	 * numa_balancing is off so placement tests see where pages were put.
	 * check_pages=1 has every kernel check a page's state (mapping,
	 * mapcount, refcount, flags) when it is freed and allocated, as
	 * CONFIG_DEBUG_VM kernels do: a page freed still pointing at its
	 * file or still counted becomes "BUG: Bad page state" on the console, a
	 * crash, instead of passing unseen (a kernel without the parameter
	 * hands it to init, harmlessly).
	 * loglevel=6 (not quiet) keeps the "Linux version" banner and the EFI
	 * stub's lines on the console: they tell a kernel that started (and a
	 * second boot) from firmware that never handed over.
	 *
	 * x86: lpj= presets loops_per_jiffy.  Under TCG every secondary CPU
	 * otherwise calibrates its delay loop the slow way (the direct method
	 * fails on an emulated clock): 0.1 s a CPU, 0.3 of a 2node boot's
	 * 1.3 s.  The value barely matters: udelay() runs on the TSC, lpj only
	 * sizes a few drivers' busy loops; this one is a 1 GHz CPU at HZ=250.
	 *
	 * Not tsc_early_khz= (the host's TSC rate, which is TCG's guest's) and
	 * tsc=reliable, though they spare 0.1-0.2 s of TSC calibration against
	 * emulated timers: with them, static keys flip at other moments of the
	 * boot, and live-patching a function other vCPUs run ends under MTTCG
	 * in "Oops: int3" (2 runs of 25 with, 0 of 20 without, on 2node).
	 *
	 * x86 under TCG: no_timer_check, which a KVM guest sets itself: the
	 * boot's test for a broken timer interrupt routing waits for four ticks
	 * (16 ms at HZ=250; 0.05 s of first TAP measured), and QEMU's routing
	 * is not broken.  Not nolapic_timer, though it spares the APIC timer's
	 * calibration under TCG (no TSC-deadline timer; 0.96 -> 0.75 s of
	 * 2node boot, 5 runs each): every CPU's timer events would then come
	 * from the HPET's broadcast, a machine no user's kernel runs on, under
	 * every test.
	 */
	if (spec->topo->arch == TOPO_ARCH_X86_64)
		buf_addf(out, "console=ttyS0 lpj=4000000%s",
			 spec->accel == VM_ACCEL_TCG ? " no_timer_check" : "");
	else
		buf_addstr(out, "console=ttyS0,115200");
	buf_addstr(out, " panic=-1 oops=panic softlockup_panic=1 nmi_watchdog=panic"
		   " numa_balancing=disable check_pages=1 loglevel=6");
	if (spec->serial_tap)   /* images/init/serial.c */
		buf_addstr(out, " numalab.tap=serial");
	if (spec->disk)   /* images/init/ mounts it and runs the disk's /lab/init */
		buf_addf(out, " numalab.root=%s", spec->disk_root);
	if (spec->extra_cmdline && *spec->extra_cmdline)
		buf_addf(out, " %s", spec->extra_cmdline);
}

int qemu_sockets(const struct topology *t)
{
	int cpus = topo_nr_cpus(t), sockets = topo_nr_cpu_nodes(t);

	for (int i = 0; i < t->nr_nodes; i++)
		if (topo_node_has_cpus(t, i) &&
		    (t->nodes[i].cpu_last - t->nodes[i].cpu_first + 1) * sockets != cpus)
			sockets = cpus;
	return sockets;
}

static void add_smp(const struct topology *t, struct strvec *argv)
{
	int cpus = topo_nr_cpus(t), sockets = qemu_sockets(t);

	strvec_push(argv, "-smp");
	if (t->arch == TOPO_ARCH_X86_64)
		strvec_pushf(argv, "%d,sockets=%d,cores=%d,threads=1", cpus, sockets, cpus / sockets);
	else
		strvec_pushf(argv, "%d", cpus);
}

static void add_nodes(const struct topology *t, const struct vm_host_nodes *host, struct strvec *argv)
{
	char size[32];

	for (int i = 0; i < t->nr_nodes; i++) {
		const struct topo_node *n = &t->nodes[i];
		struct buf node = BUF_INIT;

		qemu_format_size(n->mem_bytes, size, sizeof(size));
		strvec_push(argv, "-object");
		if (host)
			strvec_pushf(argv, "memory-backend-ram,id=mem%d,size=%s,host-nodes=%d,policy=bind%s",
				     i, size, host->host_node[i], host->prealloc ? ",prealloc=on" : "");
		else
			strvec_pushf(argv, "memory-backend-ram,id=mem%d,size=%s", i, size);
		buf_addf(&node, "node,nodeid=%d", i);
		if (n->cpu_first >= 0 && n->cpu_first == n->cpu_last)
			buf_addf(&node, ",cpus=%d", n->cpu_first);
		else if (n->cpu_first >= 0)
			buf_addf(&node, ",cpus=%d-%d", n->cpu_first, n->cpu_last);
		buf_addf(&node, ",memdev=mem%d", i);
		if (topo_has_hmat(t))
			buf_addf(&node, ",initiator=%d", n->cpu_first >= 0 ? i : n->initiator);
		strvec_push(argv, "-numa");
		strvec_push(argv, buf_str(&node));
		buf_free(&node);
	}
	for (int i = 0; i < t->nr_nodes; i++)
		for (int j = 0; j < t->nr_nodes; j++) {
			if (i == j)
				continue;
			strvec_push(argv, "-numa");
			strvec_pushf(argv, "dist,src=%d,dst=%d,val=%d", i, j, t->dist[i][j]);
		}
}

void qemu_hmat_lb_args(const struct topo_hmat_lb *lb, struct strvec *argv)
{
	char size[32];

	strvec_push(argv, "-numa");
	strvec_pushf(argv, "hmat-lb,initiator=%d,target=%d,hierarchy=memory,data-type=access-latency,latency=%llu",
		     lb->initiator, lb->target, (unsigned long long)lb->latency_ns);
	if (!lb->bandwidth_bps)
		return;   /* a latency-only target (topology.h) */
	qemu_format_size(lb->bandwidth_bps, size, sizeof(size));
	strvec_push(argv, "-numa");
	strvec_pushf(argv, "hmat-lb,initiator=%d,target=%d,hierarchy=memory,data-type=access-bandwidth,bandwidth=%s",
		     lb->initiator, lb->target, size);
}

static void add_hmat(const struct topology *t, struct strvec *argv)
{
	char size[32];

	for (int i = 0; i < t->nr_hmat_lb; i++)
		qemu_hmat_lb_args(&t->hmat_lb[i], argv);
	for (int i = 0; i < t->nr_hmat_cache; i++) {
		const struct topo_hmat_cache *c = &t->hmat_cache[i];

		qemu_format_size(c->size_bytes, size, sizeof(size));
		strvec_push(argv, "-numa");
		strvec_pushf(argv, "hmat-cache,node-id=%d,size=%s,level=%d,associativity=%s,policy=%s,line=%u",
			     c->node, size, c->level, c->direct_mapped ? "direct" : "complex",
			     c->write_back ? "write-back" : "write-through", c->line_bytes);
	}
}

int qemu_q35_slim(const struct topology *t)
{
	return !strcmp(t->machine, "q35");
}

/* The q35 properties qemu_q35_slim() turns off; the first Q35_ELEMENTS libvirt has elements for. */
static const enum qemu_cap q35_off[] = {
	QEMU_CAP_Q35_VMPORT, QEMU_CAP_Q35_SMM, QEMU_CAP_Q35_SATA, QEMU_CAP_Q35_SMBUS, QEMU_CAP_Q35_I8042,
};
#define Q35_ELEMENTS 2

void qemu_q35_slim_props(const struct qemu_caps *caps, int with_elements, struct buf *out)
{
	for (size_t i = with_elements ? 0 : Q35_ELEMENTS; i < sizeof(q35_off) / sizeof(q35_off[0]); i++)
		if (qemu_caps_has(caps, q35_off[i]))
			buf_addf(out, ",%s=off", qemu_cap_property(q35_off[i]));
}

void qemu_q35_no_hotplug_args(const struct qemu_caps *caps, struct strvec *argv)
{
	static const enum qemu_cap globals[] = { QEMU_CAP_ICH9_PCI_HOTPLUG_BRIDGE, QEMU_CAP_ICH9_MEMORY_HOTPLUG };

	for (size_t i = 0; i < sizeof(globals) / sizeof(globals[0]); i++) {
		if (!qemu_caps_has(caps, globals[i]))
			continue;
		strvec_push(argv, "-global");
		strvec_pushf(argv, "ICH9-LPC.%s=off", qemu_cap_property(globals[i]));
	}
}

static void add_cpu_model(const struct vm_spec *spec, struct strvec *argv)
{
	static const char *const off[] = QEMU_X86_TCG_CPU_OFF;
	struct buf model = BUF_INIT;

	if (spec->topo->arch != TOPO_ARCH_X86_64) {
		strvec_push(argv, "la464");
		return;
	}
	buf_addstr(&model, "max");
	for (size_t i = 0; spec->accel == VM_ACCEL_TCG && i < sizeof(off) / sizeof(off[0]); i++)
		buf_addf(&model, ",%s=off", off[i]);
	strvec_push(argv, buf_str(&model));
	buf_free(&model);
}

static void add_machine(const struct vm_spec *spec, struct strvec *argv)
{
	const struct topology *t = spec->topo;
	struct buf machine = BUF_INIT;
	char size[32];

	strvec_push(argv, "-accel");
	strvec_push(argv, spec->accel == VM_ACCEL_KVM ? "kvm" : "tcg,thread=multi");
	buf_addf(&machine, "%s%s", t->machine, topo_has_hmat(t) ? ",hmat=on" : "");
	if (qemu_q35_slim(t))
		qemu_q35_slim_props(spec->caps, 1, &machine);
	strvec_push(argv, "-machine");
	strvec_push(argv, buf_str(&machine));
	buf_free(&machine);
	if (qemu_q35_slim(t))
		qemu_q35_no_hotplug_args(spec->caps, argv);
	strvec_push(argv, "-cpu");
	add_cpu_model(spec, argv);
	qemu_format_size(topo_mem_bytes(t), size, sizeof(size));
	strvec_push(argv, "-m");
	strvec_push(argv, size);
	add_smp(t, argv);
}

/* Console on the first serial port, TAP on a virtio console of its own. */
static void add_chardev(struct strvec *argv, const char *id, const char *file, int fd)
{
	strvec_push(argv, "-chardev");
	if (file)
		strvec_pushf(argv, "file,id=%s,path=%s", id, file);
	else
		strvec_pushf(argv, "socket,id=%s,fd=%d", id, fd);
}

static void add_channels(const struct vm_spec *spec, struct strvec *argv)
{
	add_chardev(argv, "console", spec->console_file, spec->console_fd);
	strvec_push(argv, "-serial");
	strvec_push(argv, "chardev:console");
	if (spec->serial_tap)
		return;
	strvec_push(argv, "-device");
	strvec_push(argv, "virtio-serial-pci,id=vser0");
	add_chardev(argv, "tap", spec->tap_file, spec->tap_fd);
	strvec_push(argv, "-device");
	strvec_push(argv, "virtconsole,chardev=tap,name=numalab.tap");
}

/*
 * multidevs=remap: the root share spans several host file systems, whose
 * inode numbers would collide in the guest (QEMU warns and the guest's
 * `find`, `cp`, hard links see false duplicates) without it.
 */
static void add_shares(const struct vm_spec *spec, struct strvec *argv)
{
	for (int i = 0; i < spec->nr_shares; i++) {
		const struct vm_share *sh = &spec->shares[i];
		struct buf path = BUF_INIT;

		/* QEMU's option syntax: a comma in a value is written twice. */
		for (const char *c = sh->path; *c; c++)
			buf_addstr(&path, *c == ',' ? ",," : (char[]){ *c, '\0' });
		strvec_push(argv, "-fsdev");
		strvec_pushf(argv, "local,id=fs%d,path=%s,security_model=none,multidevs=remap%s", i,
			     buf_str(&path), sh->writable ? "" : ",readonly=on");
		buf_free(&path);
		strvec_push(argv, "-device");
		strvec_pushf(argv, "virtio-9p-pci,fsdev=fs%d,mount_tag=%s", i, sh->tag);
	}
}

void qemu_build_argv(const struct vm_spec *spec, struct strvec *argv)
{
	struct buf cmdline = BUF_INIT;

	strvec_push(argv, spec->qemu);
	strvec_push(argv, "-name");
	strvec_pushf(argv, "numalab-%s", spec->topo->name);
	/* No default devices, NIC, display or config files: only what we add. */
	strvec_push(argv, "-nodefaults");
	strvec_push(argv, "-no-user-config");
	strvec_push(argv, "-nographic");
	strvec_push(argv, "-no-reboot");
	add_machine(spec, argv);
	add_nodes(spec->topo, spec->host_nodes, argv);
	add_hmat(spec->topo, argv);
	add_channels(spec, argv);
	if (spec->host_nodes) {
		/* Paused until vm.c has pinned the vCPU threads QMP names, then `cont`. */
		strvec_push(argv, "-S");
		strvec_push(argv, "-chardev");
		strvec_pushf(argv, "socket,id=qmp,fd=%d", spec->qmp_fd);
		strvec_push(argv, "-mon");
		strvec_push(argv, "chardev=qmp,mode=control");
	}
	if (spec->firmware) {
		strvec_push(argv, "-bios");
		strvec_push(argv, spec->firmware);
	}
	add_shares(spec, argv);
	if (spec->disk) {
		strvec_push(argv, "-drive");
		strvec_pushf(argv, "file=%s,format=qcow2,if=virtio", spec->disk);
	}
	strvec_push(argv, "-kernel");
	strvec_push(argv, spec->kernel);
	strvec_push(argv, "-initrd");
	strvec_push(argv, spec->initrd);
	qemu_cmdline(spec, &cmdline);
	strvec_push(argv, "-append");
	strvec_push(argv, buf_str(&cmdline));
	buf_free(&cmdline);
}
