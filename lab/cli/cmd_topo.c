/* numalab topo: validate topology files and show the QEMU command line. */
#include "cli/command.h"
#include "cli/options.h"
#include "boot/qemu.h"
#include "host/toolroot.h"
#include "model/labdata.h"
#include "results/results.h"

#include <stdio.h>

static const char check_usage[] =
	"usage: numalab topo check FILE|NAME...\n"
	"\n"
	"Validate each topology (docs/topology.md): a line per valid one, errors as\n"
	"FILE:LINE.\n";

static const char show_usage[] =
	"usage: numalab topo show FILE|NAME\n"
	"\n"
	"Print the QEMU argv the topology gives, one argument per line, with the\n"
	"options the QEMU on PATH (LoongArch: the toolchain's) has (KERNEL, INITRD\n"
	"and fds 3/4 stand for what a run fills in).\n";

static const char topo_usage[] =
	"usage: numalab topo check FILE|NAME...\n"
	"       numalab topo show FILE|NAME\n"
	"\n"
	"Topologies: topologies/NAME.topo or a file (docs/topology.md).\n"
	"`numalab topo SUBCOMMAND --help` says more.\n"
	"\n";

static const char exit_tail[] = "\nExit: 0 valid, 2 invalid or bad usage.\n";

static const struct opt no_opts[] = { OPT_END };
static const struct opt_spec check_spec = { .name = "topo check", .usage = check_usage, .opts = no_opts,
					    .tail = exit_tail };
static const struct opt_spec show_spec = { .name = "topo show", .usage = show_usage, .opts = no_opts,
					   .tail = exit_tail };

/* The subcommand the command line names. */
static const struct opt_spec *chosen;

static const struct opt topo_opts[] = {
	OPT_SUBCOMMAND("check", &chosen, &check_spec, "validate topology files"),
	OPT_SUBCOMMAND("show", &chosen, &show_spec, "print the QEMU argv of one"),
	OPT_END,
};

const struct opt_spec topo_spec = { .name = "topo", .usage = topo_usage, .opts = topo_opts, .tail = exit_tail };

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
 * The argv for the QEMU a run would start (the host's for x86, the
 * toolchain's for LoongArch): its optional options are those it has.
 */
static int show(const char *arg)
{
	struct topology t;
	struct strvec argv = STRVEC_INIT;
	struct vm_spec spec = { .kernel = "KERNEL", .initrd = "INITRD", .console_fd = 3, .tap_fd = 4 };
	struct toolroot_tools tools = { .root = "" };
	struct qemu_caps caps;
	struct error err;

	if (lab_topology_load(lab_root(), arg, &t, &err))
		return command_fail("topo show", &err);
	spec.topo = &t;
	spec.qemu = qemu_binary(t.arch);
	if (t.arch == TOPO_ARCH_LOONGARCH64 ? toolroot_tools(&tools, 0, &err) ||
						  qemu_caps_probe(tools.qemu, tools.root, &caps, &err)
					    : qemu_caps_probe(spec.qemu, NULL, &caps, &err))
		warning("%s; the argv shown has none of the optional options", err.msg);
	else
		spec.caps = &caps;
	if (t.arch == TOPO_ARCH_LOONGARCH64)
		spec.firmware = "FIRMWARE";
	qemu_build_argv(&spec, &argv);
	for (size_t i = 0; i < argv.nr; i++)
		printf("%s\n", argv.items[i]);
	strvec_clear(&argv);
	return EXIT_PASS;
}

int cmd_topo(int argc, char **argv)
{
	int rc, first;

	if ((rc = command_options(&topo_spec, argc, argv, &first)) >= 0)
		return rc;
	if (chosen == &check_spec && first < argc)
		return check(argc - first, argv + first);
	if (chosen == &show_spec && argc - first == 1)
		return show(argv[first]);
	return command_usage_error(chosen->name, "give %s", chosen == &check_spec ? "FILE|NAME..." : "one FILE|NAME");
}
