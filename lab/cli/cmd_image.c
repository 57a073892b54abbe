/* numalab image: build guest disk images from images/NAME.image (docs/images.md). */
#include "cli/command.h"
#include "base/interrupt.h"
#include "cli/options.h"
#include "boot/disk.h"
#include "drive/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static const char usage[] =
	"usage: numalab image build NAME|FILE [--out FILE] [--accel auto|tcg|kvm]\n"
	"\n"
	"Build the qcow2 guest disk described by images/NAME.image (or FILE): a\n"
	"Debian root from debootstrap plus the lab's /lab (init, test binaries,\n"
	"from `make`), written with libguestfs (no root tricks, no loop mounts).\n"
	"Cached under CACHE/images/ by its inputs: built again only when the\n"
	"description, debootstrap's inputs or the guest binaries change.  Prints\n"
	"the image's path.  Boot it with `numalab run --disk PATH`.\n"
	"\n";

static const char tail[] =
	"\n"
	"Exit: 0 built or cached, 2 bad description or usage, 3 the build failed.\n";

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

static int build(const char *spec, const char *out, const char *accel)
{
	char guest_dir[4096], image[4096];
	struct disk_desc d;
	struct error err;
	double t0 = now_s();
	int tcg, cached;

	if (diskdesc_load(lab_root(), spec, &d, &err))
		return command_fail("image", &err);
	snprintf(guest_dir, sizeof(guest_dir), "%s/build/guest/x86_64", lab_root());
	if ((tcg = appliance_tcg(accel, &err)) < 0 ||
	    disk_build(&d, guest_dir, tcg, image, sizeof(image), &cached, &err) ||
	    (out && copy_file(image, out, &err)))
		return command_fail("image", &err);
	fprintf(stderr, "numalab image: %s %s (%.1f s)\n", d.name, cached ? "cached" : "built",
		now_s() - t0);
	printf("%s\n", out ? out : image);
	return EXIT_PASS;
}

int cmd_image(int argc, char **argv)
{
	const char *out = NULL, *accel = "auto";
	int rc, first;
	const struct opt opts[] = {
		OPT_STRING("out", &out, "FILE", "also copy the image to FILE"),
		OPT_CHOICE("accel", &accel, "auto|tcg|kvm", "auto|tcg|kvm",
			   "libguestfs's appliance: auto probes KVM like\n"
			   "`numalab run` does (default), else TCG"),
		OPT_END,
	};
	const struct opt_spec spec = { .name = "image", .usage = usage, .opts = opts, .tail = tail };

	if ((rc = command_options(&spec, argc, argv, &first)) >= 0)
		return rc;
	if (argc - first != 2 || strcmp(argv[first], "build"))
		return command_usage_error("image", "give `build NAME` (images/NAME.image) or `build FILE`");
	/* The image's steps as this command's own lines: "numalab image: debootstrap ...". */
	static struct command_sink sink = { NULL, "numalab image: " };

	sink.steps = stderr;
	command_set_sink(&sink);
	interrupt_catch();
	return build(argv[first + 1], out, accel);
}
