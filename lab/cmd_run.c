/* numalab run: boot one topology with one kernel and run the guest tests. */
#include "command.h"
#include "run.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char help[] =
	"usage: numalab run --topo NAME|FILE [options]\n"
	"\n"
	"Boot the topology under QEMU, run the guest tests, print their TAP and\n"
	"keep everything under OUT/<run-id>/<topology>.<kernel>/ (docs/results.md).\n"
	"\n"
	"  --topo NAME|FILE   topologies/NAME.topo or a topology file (required)\n"
	"  --kernel NAME|PATH a name from kernels/prebuilt.lock (default: debian),\n"
	"                     a recipe (kernels/recipes), a kernel source tree (built\n"
	"                     as it is, out of tree, in the cache) or a kernel image file\n"
	"  --patch FILE       apply FILE's patches (git format-patch, an mbox series,\n"
	"                     a mail quoting a patch) to a kernel built from source;\n"
	"                     repeatable, in order (docs/byo.md)\n"
	"  --tests LIST       comma-separated guest tests (default: the topology's)\n"
	"  --timeout S        whole-VM timeout in seconds (default: the topology's)\n"
	"  --out DIR          results root (default: results)\n"
	"  --accel auto|tcg|kvm  auto: KVM if a probe boot reaches /init, else TCG\n"
	"  --append ARGS      extra kernel command line\n"
	"  --guest-file FILE  put FILE in the guest as /lab/BASENAME (e.g. workloads.conf)\n"
	"  --backend qemu|libvirt  qemu (default): QEMU directly; libvirt: a transient\n"
	"                     libvirt domain (docs/libvirt.md; x86 only here)\n"
	"  --uri URI          libvirt URI (default: $LIBVIRT_DEFAULT_URI)\n"
	"  --host-nodes auto|G=H,...  libvirt: bind guest node G's memory and vCPUs to\n"
	"                     host node H (auto: G=G); refused if the host lacks H\n"
	"  --disk FILE        boot from a copy-on-write overlay of the qcow2 FILE (x86_64;\n"
	"                     `numalab image build debian` or any image with an ext4 root):\n"
	"                     tests run with its userland, results are also read back\n"
	"                     from it; adds ~2 min of libguestfs under TCG (docs/images.md)\n"
	"  --quiet            no TAP on stdout, no progress\n"
	"\n"
	"Exit: 0 all passed, 1 a test failed or the guest crashed, 2 bad input,\n"
	"3 harness error.\n";

static const struct option options[] = {
	{ "topo", required_argument, NULL, 't' },
	{ "kernel", required_argument, NULL, 'k' },
	{ "patch", required_argument, NULL, 'p' },
	{ "tests", required_argument, NULL, 'T' },
	{ "timeout", required_argument, NULL, 'o' },
	{ "out", required_argument, NULL, 'O' },
	{ "accel", required_argument, NULL, 'a' },
	{ "append", required_argument, NULL, 'A' },
	{ "guest-file", required_argument, NULL, 'g' },
	{ "backend", required_argument, NULL, 'b' },
	{ "uri", required_argument, NULL, 'u' },
	{ "host-nodes", required_argument, NULL, 'H' },
	{ "disk", required_argument, NULL, 'd' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_timeout(const char *s, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v < 1 || v > 86400)
		return -1;
	*out = (int)v;
	return 0;
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o = { .accel = "auto", .echo_tap = 1, .progress = 1 };
	struct run_outcome out;
	struct error err;
	static const char *patches[64];
	int c, rc;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (c) {
		case 't': o.topo = optarg; break;
		case 'k': o.kernel = optarg; break;
		case 'p':
			if (o.nr_patches == (int)(sizeof(patches) / sizeof(patches[0])))
				return command_usage_error("run", "more than %d --patch files", o.nr_patches);
			if (access(optarg, R_OK))
				return command_usage_error("run", "--patch %s: %s", optarg, strerror(errno));
			patches[o.nr_patches++] = optarg;
			o.patches = patches;
			break;
		case 'T': o.tests = optarg; break;
		case 'O': o.out = optarg; break;
		case 'a': o.accel = optarg; break;
		case 'A': o.append = optarg; break;
		case 'g': o.guest_file = optarg; break;
		case 'b': o.backend = optarg; break;
		case 'u': o.uri = optarg; break;
		case 'H': o.host_nodes = optarg; break;
		case 'd': o.disk = optarg; break;
		case 'q': o.echo_tap = o.progress = 0; break;
		case 'h': return command_help(help);
		case 'o':
			if (parse_timeout(optarg, &o.timeout_s))
				return command_usage_error("run", "--timeout %s: give seconds, 1..86400", optarg);
			break;
		default:
			return command_usage_error("run", "unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return command_usage_error("run", "unexpected argument '%s'", argv[optind]);
	if (!o.topo)
		return command_usage_error("run", "--topo is required (e.g. --topo 2node)");
	if (o.guest_file && access(o.guest_file, R_OK))
		return command_usage_error("run", "--guest-file %s: %s", o.guest_file, strerror(errno));
	if (o.disk && access(o.disk, R_OK))
		return command_usage_error("run", "--disk %s: %s", o.disk, strerror(errno));
	if (strcmp(o.accel, "auto") && strcmp(o.accel, "tcg") && strcmp(o.accel, "kvm"))
		return command_usage_error("run", "--accel %s: use auto, tcg or kvm", o.accel);
	if (o.backend && strcmp(o.backend, "qemu") && strcmp(o.backend, "libvirt"))
		return command_usage_error("run", "--backend %s: use qemu or libvirt", o.backend);
	if ((o.uri || o.host_nodes) && !run_backend_libvirt(&o))
		return command_usage_error("run", "--uri and --host-nodes need --backend libvirt");
	if (lab_check_cache_env(&err) || toolroot_check_env(&err)) {
		fprintf(stderr, "numalab run: %s\n", err.msg);
		return EXIT_USAGE;
	}
	vm_catch_signals();
	rc = run_cell(&o, &out, &err);
	if (rc == EXIT_USAGE || rc == EXIT_HARNESS) {
		/* A signal kills the children: their failure is its consequence, not the cause. */
		if (vm_interrupted())
			fprintf(stderr, "numalab run: interrupted by signal %d: %s\n", vm_interrupted(), err.msg);
		else
			fprintf(stderr, "numalab run: %s\n", err.msg);
		return rc;
	}
	fprintf(stderr, "numalab run: %s: %d passed, %d failed, %d skipped (%s, %s, %.1f s) -> %s\n",
		o.topo, out.summary.passed, out.summary.failed + out.summary.timeout + out.summary.errors,
		out.summary.skipped, vm_end_name(out.vm.end), vm_accel_name(out.accel),
		out.vm.total_s, out.cell_dir);
	return rc;
}
