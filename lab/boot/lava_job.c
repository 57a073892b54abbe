#include "boot/lava_job.h"
#include "results/serialtap.h"

#include <stdio.h>
#include <string.h>

/* The console line LAVA's boot action waits for: /init's, before its TAP (serialtap.h). */
#define LAVA_JOB_PROMPT SERIALTAP_START
/* numalab's first TAP frame (serialtap.h): the monitor starts there. */
#define LAVA_JOB_START "NLTAP:0:"
/*
 * /init's signal lines (images/init/serial.c), one test case each: the
 * leaves', then the measurements' (a pattern whose measurement group may
 * stay unmatched gives LAVA "null", which it cannot store: two monitors).
 */
#define LAVA_JOB_LEAVES "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=(?P<test_case_id>[^ >]+) " \
	"RESULT=(?P<result>pass|fail|skip)>"
#define LAVA_JOB_MEASUREMENTS "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=(?P<test_case_id>[^ >]+) " \
	"RESULT=(?P<result>pass) MEASUREMENT=(?P<measurement>[-+.0-9eE]+) UNITS=(?P<units>[^ >]+)>"
/* Beyond the guest's timeout: download, QEMU's start, LAVA's own steps. */
#define LAVA_JOB_SLACK_S 300

/* s as a YAML single-quoted scalar. */
static void yaml_quoted(struct buf *out, const char *s)
{
	buf_addstr(out, "'");
	for (; *s; s++)
		buf_addstr(out, *s == '\'' ? "''" : (char[]){ *s, '\0' });
	buf_addstr(out, "'");
}

static int is(const char *a, const char *b)
{
	return !strcmp(a, b);
}

struct sorted {
	const char *memory, *append;
	struct strvec extra;      /* "-option value" */
};

/* qemu_build_argv()'s options into LAVA's places (see the header). */
static void sort_argv(const struct vm_spec *spec, const struct strvec *argv, struct sorted *s)
{
	int kvm = spec->accel == VM_ACCEL_KVM;

	for (size_t i = 1; i < argv->nr; i++) {
		const char *o = argv->items[i], *v = i + 1 < argv->nr ? argv->items[i + 1] : "";
		int takes_value = o[0] == '-' && !is(o, "-nodefaults") && !is(o, "-no-user-config") &&
				  !is(o, "-nographic") && !is(o, "-no-reboot") && !is(o, "-S");

		if (is(o, "-m"))
			s->memory = v;
		else if (is(o, "-append"))
			s->append = v;
		else if (is(o, "-kernel") || is(o, "-initrd") || is(o, "-name") || is(o, "-nographic") || is(o, "-chardev") || is(o, "-serial") ||
			 (is(o, "-device") && (!strncmp(v, "virtio-serial", 13) || !strncmp(v, "virtconsole", 11))) ||
			 is(o, "-bios") || (kvm && (is(o, "-accel") || is(o, "-cpu"))))
			; /* LAVA's, or the device type's */
		else if (takes_value)
			strvec_pushf(&s->extra, "%s %s", o, v);
		else
			strvec_push(&s->extra, o);
		i += takes_value;
	}
}

void lava_job_yaml(const struct lava_job_in *in, struct buf *out)
{
	const struct vm_spec *spec = in->spec;
	struct strvec argv = STRVEC_INIT;
	struct sorted s = { .memory = "512M", .extra = STRVEC_INIT };
	struct buf kernel_arg = BUF_INIT;
	int t = in->timeout_s;

	qemu_build_argv(spec, &argv);
	sort_argv(spec, &argv, &s);
	buf_addf(out, "# numalab: %s, %s guest (lab/boot/lava_job.h)\n", spec->topo->name,
		 topo_arch_name(spec->topo->arch));
	buf_addf(out, "device_type: %s\n", in->device_type);
	buf_addstr(out, "job_name: ");
	yaml_quoted(out, in->job_name);
	buf_addstr(out, "\npriority: medium\nvisibility: public\n");
	buf_addf(out, "timeouts:\n  job: {seconds: %d}\n  action: {seconds: %d}\n  connection: {seconds: 120}\n",
		 2 * t + LAVA_JOB_SLACK_S, t + LAVA_JOB_SLACK_S);
	buf_addf(out, "context:\n  arch: %s\n  no_kvm: %s\n  memory: %s\n  extra_options:\n",
		 topo_arch_name(spec->topo->arch), spec->accel == VM_ACCEL_KVM ? "false" : "true", s.memory);
	/* -nodefaults drops the serial port -nographic would put on stdio: LAVA reads it there. */
	buf_addstr(out, "  - '-serial stdio'\n");
	for (size_t i = 0; i < s.extra.nr; i++) {
		buf_addstr(out, "  - ");
		yaml_quoted(out, s.extra.items[i]);
		buf_addstr(out, "\n");
	}
	buf_addstr(out, "actions:\n- deploy:\n    to: tmpfs\n    timeout: {seconds: 600}\n    images:\n");
	buf_addf(&kernel_arg, "-kernel {kernel} -append \"%s\"", s.append ? s.append : "");
	buf_addstr(out, "      kernel:\n        image_arg: ");
	yaml_quoted(out, buf_str(&kernel_arg));
	buf_addstr(out, "\n        url: ");
	yaml_quoted(out, in->kernel_url);
	buf_addstr(out, "\n      ramdisk:\n        image_arg: '-initrd {ramdisk}'\n        url: ");
	yaml_quoted(out, in->initrd_url);
	buf_addf(out, "\n- boot:\n    method: qemu\n    media: tmpfs\n    timeout: {seconds: %d}\n"
		 "    prompts: ['" LAVA_JOB_PROMPT "']\n", LAVA_JOB_SLACK_S);
	buf_addf(out, "- test:\n    timeout: {seconds: %d}\n    monitors:\n    - name: " LAVA_JOB_SUITE "\n"
		 "      start: '" LAVA_JOB_START "'\n      end: '" SERIALTAP_LEAVES_END "'\n      pattern: ", t + 60);
	yaml_quoted(out, LAVA_JOB_LEAVES);
	buf_addstr(out, "\n    - name: " LAVA_JOB_SUITE "-measurements\n      start: '" SERIALTAP_MEASUREMENTS "'\n"
		   "      end: '" LAVA_JOB_END "'\n      pattern: ");
	yaml_quoted(out, LAVA_JOB_MEASUREMENTS);
	buf_addstr(out, "\n");
	buf_free(&kernel_arg);
	strvec_clear(&s.extra);
	strvec_clear(&argv);
}
