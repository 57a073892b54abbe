/* numalab image: build guest disk images from images/NAME.image (docs/images.md). */
#include "cli/command.h"
#include "base/interrupt.h"
#include "cli/options.h"
#include "boot/disk.h"
#include "drive/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static const char build_usage[] =
	"usage: numalab image build NAME|FILE [--out FILE] [--accel auto|tcg|kvm]\n"
	"\n"
	"Build the qcow2 guest disk described by images/NAME.image (or FILE): a\n"
	"Debian root from debootstrap plus the lab's /lab (init, test binaries,\n"
	"from `make`), written with libguestfs (no root tricks, no loop mounts).\n"
	"Cached under CACHE/images/ by its inputs: built again only when the\n"
	"description, debootstrap's inputs or the guest binaries change.  Prints\n"
	"the image's path.  Boot it with `numalab run --disk PATH`.\n"
	"\n";

static const char image_usage[] =
	"usage: numalab image build NAME|FILE [--out FILE] [--accel auto|tcg|kvm]\n"
	"\n"
	"Guest disk images (docs/images.md).  `numalab image build --help` says more.\n"
	"\n";

static const char tail[] =
	"\n"
	"Exit: 0 built or cached, 2 bad description or usage, 3 the build failed or\n"
	"was interrupted.\n";

/* The options' values: one command line per process. */
static const char *copy_to, *appliance_accel = "auto";

static const struct opt build_opts[] = {
	OPT_STRING("out", &copy_to, "FILE", "also copy the image to FILE"),
	OPT_CHOICE("accel", &appliance_accel, "auto|tcg|kvm", "auto|tcg|kvm",
		   "libguestfs's appliance: auto probes KVM like\n"
		   "`numalab run` does (default), else TCG"),
	OPT_END,
};

static const struct opt_spec build_spec = { .name = "image build", .usage = build_usage, .opts = build_opts,
					    .tail = tail };

/* The subcommand the command line names. */
static const struct opt_spec *chosen;

static const struct opt image_opts[] = {
	OPT_SUBCOMMAND("build", &chosen, &build_spec, "build (or find cached) a guest disk image"),
	OPT_END,
};

const struct opt_spec image_spec = { .name = "image", .usage = image_usage, .opts = image_opts, .tail = tail };

/* The accelerator `numalab run` would pick for the default x86_64 guest. */
static int appliance_tcg(const char *accel, struct error *err)
{
	struct run_opts o = { .topo = "2node", .accel = accel };
	struct run_inputs *p;
	struct vm_spec spec;
	struct qemu_caps caps;
	char why[sizeof(((struct error *)0)->msg) + 64];   /* vm_probe_accel()'s: a message and a prefix */
	int tcg;

	if (strcmp(accel, "auto"))
		return !strcmp(accel, "tcg");
	p = xcalloc(1, sizeof(*p));
	if (run_prepare(&o, p, err)) {
		run_inputs_free(p);
		return -1;
	}
	spec = (struct vm_spec){ .topo = &p->topo, .qemu = qemu_binary(p->topo.arch),
				 .kernel = p->kernel.path, .initrd = p->base };
	vm_spec_set_emulator(&spec, p->topo.arch, &p->tools, &caps);
	if (qemu_caps_probe(spec.qemu, spec.toolroot, &caps, err)) {
		run_inputs_free(p);
		return -1;
	}
	tcg = vm_probe_accel(&spec, why, sizeof(why)) == VM_ACCEL_TCG;
	fprintf(stderr, "numalab image: libguestfs under %s\n", why);
	run_inputs_free(p);
	return tcg;
}

static int build(const char *spec)
{
	char guest_dir[4096], image[4096];
	struct disk_desc d;
	struct error err;
	double t0 = now_s();
	int tcg, cached;

	if (diskdesc_load(lab_root(), spec, &d, &err))
		return command_fail("image", &err);
	snprintf(guest_dir, sizeof(guest_dir), "%s/build/guest/x86_64", lab_root());
	if ((tcg = appliance_tcg(appliance_accel, &err)) < 0 ||
	    disk_build(&d, guest_dir, tcg, image, sizeof(image), &cached, &err) ||
	    (copy_to && copy_file(image, copy_to, &err)))
		return command_fail("image", &err);
	fprintf(stderr, "numalab image: %s %s (%.1f s)\n", d.name, cached ? "cached" : "built",
		now_s() - t0);
	printf("%s\n", copy_to ? copy_to : image);
	return EXIT_PASS;
}

int cmd_image(int argc, char **argv)
{
	int rc, first;

	if ((rc = command_options(&image_spec, argc, argv, &first)) >= 0)
		return rc;
	if (argc - first != 1)
		return command_usage_error("image build", "give one NAME (images/NAME.image) or FILE");
	/* The image's steps as this command's own lines: "numalab image: debootstrap ...". */
	static struct command_sink sink = { NULL, "numalab image: " };

	sink.steps = stderr;
	command_set_sink(&sink);
	interrupt_catch();
	return build(argv[first]);
}
