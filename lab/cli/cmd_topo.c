/*
 * numalab topo: the shipped topologies, one topology's shape (or its QEMU
 * argv, libvirt XML, normalised file), validation, and a topology captured
 * from the running machine.
 */
#include "cli/command.h"
#include "cli/options.h"
#include "boot/libvirt_xml.h"
#include "boot/qemu.h"
#include "host/toolroot.h"
#include "model/labdata.h"
#include "model/topology_capture.h"
#include "model/topology_summary.h"
#include "results/results.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static const char list_usage[] =
	"usage: numalab topo list\n"
	"\n"
	"The topologies the lab ships (topologies/NAME.topo), one a line: name,\n"
	"arch, nodes (how many without CPUs), CPUs, memory and the first sentence\n"
	"of the file's leading comment.\n";

static const char check_usage[] =
	"usage: numalab topo check FILE|NAME...\n"
	"\n"
	"Validate each topology (docs/topology.md): a line per valid one, errors as\n"
	"FILE:LINE.\n";

static const char show_usage[] =
	"usage: numalab topo show [--format summary|argv|libvirt|topo] FILE|NAME\n"
	"\n"
	"Show one topology: by default its shape (nodes with their CPUs and memory,\n"
	"the SLIT, HMAT latency and bandwidth per initiator and target, memory-side\n"
	"caches, the memory tiers the kernel derives, page and PMD size).\n\n";

static const char capture_usage[] =
	"usage: numalab topo capture [FILE|-]\n"
	"\n"
	"Write this machine's NUMA shape, read from /sys, as a topology file\n"
	"(validated; FILE written whole or not at all; none or '-': stdout).  What\n"
	"the format cannot say as the machine has it (CPU ids, sparse nodes, HMAT\n"
	"pairs sysfs does not show) is said in the file's leading comment.\n";

static const char topo_usage[] =
	"usage: numalab topo list\n"
	"       numalab topo show [--format summary|argv|libvirt|topo] FILE|NAME\n"
	"       numalab topo check FILE|NAME...\n"
	"       numalab topo capture [FILE|-]\n"
	"\n"
	"Topologies: topologies/NAME.topo or a file (docs/topology.md).\n"
	"`numalab topo SUBCOMMAND --help` says more.\n"
	"\n";

static const char exit_tail[] = "\nExit: 0 valid, 2 invalid or bad usage.\n";
static const char capture_tail[] =
	"\nExit: 0 written, 2 a shape the format cannot hold or bad usage, 3 /sys\n"
	"unreadable or FILE not written.\n";

static const char *format = "summary";

static const struct opt no_opts[] = { OPT_END };
static const struct opt show_opts[] = {
	OPT_CHOICE("format", &format, "FORMAT", "summary|argv|libvirt|topo",
		   "summary (the default): the shape, for people;\n"
		   "argv: the QEMU command line, one argument a line, with the\n"
		   "options the QEMU on PATH (LoongArch: the toolroot's) has\n"
		   "(KERNEL, INITRD, fds 3/4 stand for what a run fills in);\n"
		   "libvirt: the domain XML of --backend libvirt (x86_64);\n"
		   "topo: the file as the lab writes it (defaults left out)"),
	OPT_END,
};
static const struct opt_spec list_spec = { .name = "topo list", .usage = list_usage, .opts = no_opts,
					   .tail = "\nExit: 0.\n" };
static const struct opt_spec show_spec = { .name = "topo show", .usage = show_usage, .opts = show_opts,
					   .tail = exit_tail };
static const struct opt_spec check_spec = { .name = "topo check", .usage = check_usage, .opts = no_opts,
					    .tail = exit_tail };

static const struct opt_spec capture_spec = { .name = "topo capture", .usage = capture_usage, .opts = no_opts,
					      .tail = capture_tail };

/* The subcommand the command line names. */
static const struct opt_spec *chosen;

static const struct opt topo_opts[] = {
	OPT_SUBCOMMAND("list", &chosen, &list_spec, "the shipped topologies"),
	OPT_SUBCOMMAND("show", &chosen, &show_spec, "one topology's shape (or its QEMU argv)"),
	OPT_SUBCOMMAND("check", &chosen, &check_spec, "validate topology files"),
	OPT_SUBCOMMAND("capture", &chosen, &capture_spec, "this machine's shape as a topology file"),
	OPT_END,
};

const struct opt_spec topo_spec = { .name = "topo", .usage = topo_usage, .opts = topo_opts, .tail = exit_tail };

/* The description's first sentence, on one line, cut to cap. */
static void first_sentence(const char *d, char *out, size_t cap)
{
	size_t n = 0;

	for (; *d && n + 1 < cap; d++) {
		out[n++] = *d == '\n' ? ' ' : *d;
		if (*d == '.' && (!d[1] || d[1] == ' ' || d[1] == '\n'))
			break;
	}
	out[n] = '\0';
	if (*d && *d != '.' && n > 3)
		memcpy(out + n - 3, "...", 3);
}

static int list(void)
{
	struct strvec names = STRVEC_INIT;
	struct error err;
	int rc = EXIT_PASS;

	lab_data_names(lab_root(), LAB_DATA_TOPOLOGY, &names);
	printf("%-12s %-12s %-15s %4s %7s  %s\n", "NAME", "ARCH", "NODES", "CPUS", "MEMORY", "DESCRIPTION");
	for (size_t i = 0; i < names.nr; i++) {
		struct topology t;
		char nodes[32], mem[32], what[64];

		if (lab_topology_load(lab_root(), names.items[i], &t, &err)) {
			rc = command_fail("topo list", &err);
			continue;
		}
		topo_nodes_str(&t, nodes, sizeof(nodes));
		topo_size_str(topo_mem_bytes(&t), mem, sizeof(mem));
		first_sentence(t.description, what, sizeof(what));
		printf("%-12s %-12s %-15s %4d %7s  %s\n", t.name, topo_arch_name(t.arch), nodes, topo_nr_cpus(&t),
		       mem, what);
	}
	strvec_clear(&names);
	return rc;
}

static int check(int n, char **args)
{
	struct topology t;
	struct error err;
	int rc = EXIT_PASS;

	for (int i = 0; i < n; i++) {
		if (lab_topology_load(lab_root(), args[i], &t, &err)) {
			rc = command_fail("topo check", &err);
			continue;
		}
		printf("%s: ok: %s, %d nodes, %d CPUs, %llu MiB%s\n", t.path, topo_arch_name(t.arch),
		       t.nr_nodes, topo_nr_cpus(&t), (unsigned long long)(topo_mem_bytes(&t) >> 20),
		       topo_has_hmat(&t) ? ", HMAT" : "");
	}
	return rc;
}

/*
 * The argv (or domain XML) for the QEMU a run would start (the host's for
 * x86, the toolchain's for LoongArch): its optional options are those it has.
 */
static int emulator(const struct topology *t, const char *what)
{
	struct strvec argv = STRVEC_INIT;
	struct vm_spec spec = { .kernel = "KERNEL", .initrd = "INITRD", .console_fd = 3, .tap_fd = 4 };
	struct toolroot_tools tools = { .root = "" };
	struct qemu_caps caps;
	struct error err;

	spec.topo = t;
	spec.qemu = qemu_binary(t->arch);
	if (!strcmp(what, "libvirt")) {
		struct libvirt_domain d = { .name = "numalab-topo", .console_socket = "CONSOLE", .tap_socket = "TAP" };
		struct buf xml = BUF_INIT;

		if (libvirt_xml_supported(t, &err))
			return command_fail("topo show", &err);
		if (qemu_caps_probe(spec.qemu, NULL, &caps, &err))
			warning("%s; the XML shown has none of the optional options", err.msg);
		else
			spec.caps = &caps;
		if (libvirt_domain_xml(&spec, &d, &xml, &err)) {
			buf_free(&xml);
			return command_fail("topo show", &err);
		}
		fputs(buf_str(&xml), stdout);
		buf_free(&xml);
		return EXIT_PASS;
	}
	if (t->arch == TOPO_ARCH_LOONGARCH64 ? toolroot_tools(&tools, 0, &err) ||
						   qemu_caps_probe(tools.qemu, tools.root, &caps, &err)
					     : qemu_caps_probe(spec.qemu, NULL, &caps, &err))
		warning("%s; the argv shown has none of the optional options", err.msg);
	else
		spec.caps = &caps;
	if (t->arch == TOPO_ARCH_LOONGARCH64)
		spec.firmware = "FIRMWARE";
	qemu_build_argv(&spec, &argv);
	for (size_t i = 0; i < argv.nr; i++)
		printf("%s\n", argv.items[i]);
	strvec_clear(&argv);
	return EXIT_PASS;
}

static int show(const char *arg)
{
	struct topology t;
	struct error err;

	if (lab_topology_load(lab_root(), arg, &t, &err))
		return command_fail("topo show", &err);
	if (!strcmp(format, "summary")) {
		struct buf text = BUF_INIT;

		topo_summary(&t, &text);
		fputs(buf_str(&text), stdout);
		buf_free(&text);
	} else if (!strcmp(format, "topo")) {
		char text[16384];

		topo_format(&t, text, sizeof(text));
		fputs(text, stdout);
	} else {
		return emulator(&t, format);
	}
	return EXIT_PASS;
}

static int capture(const char *file)
{
	struct utsname u;
	struct topo_capture_in in = { .sysfs = "/sys", .procfs = "/proc" };
	struct topo_capture_error cerr;
	struct topology t;
	struct error err;
	char origin[512], date[32], text[16384];
	time_t now = time(NULL);
	long page = sysconf(_SC_PAGESIZE);
	size_t len;

	if (uname(&u) || page <= 0) {
		error_set(&err, "cannot ask the kernel for its machine and page size");
		return command_fail("topo capture", &err);
	}
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&now));
	snprintf(origin, sizeof(origin), "Captured by `numalab topo capture` on %s (Linux %s %s), %s.", u.nodename,
		 u.release, u.machine, date);
	in.machine = u.machine;
	in.page_size = (uint64_t)page;
	in.origin = origin;
	if (topo_capture(&in, &t, &cerr)) {
		if (cerr.unreadable)
			error_set(&err, "%s", cerr.msg);
		else
			error_input(&err, "%s", cerr.msg);
		return command_fail("topo capture", &err);
	}
	len = topo_format(&t, text, sizeof(text));
	if (!file || !strcmp(file, "-")) {
		fputs(text, stdout);
		return EXIT_PASS;
	}
	if (write_file_atomic(file, text, len, &err))
		return command_fail("topo capture", &err);
	printf("%s: %s, %d nodes, %d CPUs, %llu MiB%s\n", file, topo_arch_name(t.arch), t.nr_nodes,
	       topo_nr_cpus(&t), (unsigned long long)(topo_mem_bytes(&t) >> 20), topo_has_hmat(&t) ? ", HMAT" : "");
	return EXIT_PASS;
}

int cmd_topo(int argc, char **argv)
{
	int rc, first, nargs;

	if ((rc = command_options(&topo_spec, argc, argv, &first)) >= 0)
		return rc;
	nargs = argc - first;
	if (chosen == &list_spec && !nargs)
		return list();
	if (chosen == &check_spec && nargs)
		return check(nargs, argv + first);
	if (chosen == &show_spec && nargs == 1)
		return show(argv[first]);
	if (chosen == &capture_spec && nargs <= 1)
		return capture(nargs ? argv[first] : NULL);
	return command_usage_error(chosen->name, "%s",
				   chosen == &list_spec ? "takes no operands" :
				   chosen == &check_spec ? "give FILE|NAME..." :
				   chosen == &show_spec ? "give one FILE|NAME" : "give at most one FILE");
}
