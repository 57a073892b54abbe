/*
 * test_lava: the TAP on a serial console (serialtap.h) through every way a
 * kernel message can cut into it; a LAVA job's YAML (lava_job.h) against
 * its golden files (tests/host/unit/golden/lava/NAME.yaml, UPDATE_GOLDEN=1
 * rewrites them); and the job log's console lines and JSON fields LAVA's
 * REST API answers with (lava_run.h).
 */
#include "boot/lava_job.h"
#include "drive/lava_run.h"
#include "results/serialtap.h"
#include "unit.h"

#define GOLDEN_DIR "tests/host/unit/golden/lava"

static const char *const tap_lines[] = {
	"KTAP version 1",
	"1..1",
	"    # Subtest: topology",
	"    ok 1 online nodes 0-1",
	"    # node0: SRAT PXM 0 0-0x9ffff = 523904 KiB",
	"    ok 2 distance matrix # SKIP why not",
	"not ok 1 topology",
	"# numalab: done",
};
#define NR_LINES (sizeof(tap_lines) / sizeof(tap_lines[0]))

static void want_tap(struct buf *want)
{
	for (size_t i = 0; i < NR_LINES; i++)
		buf_addf(want, "%s\n", tap_lines[i]);
}

/* The frames of tap_lines, with kmsg cut into frame cut_line at byte cut (cut < 0: nowhere). */
static void console_with(struct buf *con, size_t cut_line, int cut, const char *kmsg)
{
	char frame[512];

	buf_addstr(con, "[    0.000000] Linux version 7.2\r\n" SERIALTAP_START "\n");
	for (size_t i = 0; i < NR_LINES; i++) {
		size_t n = serialtap_frame(i, tap_lines[i], strlen(tap_lines[i]), frame, sizeof(frame));

		if (i == cut_line && cut >= 0 && (size_t)cut < n) {
			buf_add(con, frame, (size_t)cut);
			buf_addstr(con, kmsg);
			buf_add(con, frame + cut, n - (size_t)cut);
		} else {
			buf_add(con, frame, n);
		}
	}
	buf_addstr(con, "numalab-init: powering off\r\n[   12.5] reboot: Power down\r\n");
}

UNIT_TEST(frames_round_trip)
{
	struct buf con = BUF_INIT, tap = BUF_INIT, want = BUF_INIT;
	struct serialtap_stats st;

	console_with(&con, 0, -1, "");
	serialtap_extract(buf_str(&con), con.len, &tap, &st);
	want_tap(&want);
	CHECK_STR(buf_str(&tap), buf_str(&want));
	CHECK_INT(st.frames, NR_LINES);
	CHECK_INT(st.mended + st.broken + st.duplicates, 0);
	CHECK_INT(st.gap_at, -1);
	buf_free(&con);
	buf_free(&tap);
	buf_free(&want);
}

/*
 * A printk at every byte of every frame, one line or an oops' many: each is
 * mended and the TAP comes back whole.  Kills: serialtap.c:mend, the cut
 * loop's `k <= blen` as `k < blen` (a message right before the newline).
 */
UNIT_TEST(kernel_message_anywhere)
{
	static const char *const kmsgs[] = {
		"[    3.141592] random: crng init done\r\n",
		("\r\n[    5.0] ------------[ cut here ]------------\r\n[    5.0] WARNING: at mm/x.c:1\r\n"
		 "[    5.0] Modules linked in:\r\n"),
		"[    7.0] NLTAP:9:deadbeef:not ok 9 forged\r\n",
	};
	struct buf want = BUF_INIT;
	int bad = 0;

	want_tap(&want);
	for (size_t k = 0; k < sizeof(kmsgs) / sizeof(kmsgs[0]); k++)
		for (size_t line = 0; line < NR_LINES; line++)
			for (int cut = 0; cut <= 80; cut++) {
				struct buf con = BUF_INIT, tap = BUF_INIT;
				struct serialtap_stats st;

				console_with(&con, line, cut, kmsgs[k]);
				serialtap_extract(buf_str(&con), con.len, &tap, &st);
				if (strcmp(buf_str(&tap), buf_str(&want)) && bad++ < 3)
					printf("#   kmsg %zu in line %zu at %d: got\n%s", k, line, cut, buf_str(&tap));
				buf_free(&con);
				buf_free(&tap);
			}
	CHECK_INT(bad, 0);
	buf_free(&want);
}

/* A lost frame ends the stream there; a repeated one is dropped; a changed byte is no frame. */
UNIT_TEST(gaps_duplicates_corruption)
{
	struct buf con = BUF_INIT, tap = BUF_INIT;
	struct serialtap_stats st;
	char f0[128], f1[128], f2[128];

	serialtap_frame(0, "KTAP version 1", 14, f0, sizeof(f0));
	serialtap_frame(1, "1..1", 4, f1, sizeof(f1));
	serialtap_frame(2, "ok 1 x", 6, f2, sizeof(f2));
	buf_addstr(&con, f0);
	buf_addstr(&con, f0);
	buf_addstr(&con, f2);
	serialtap_extract(buf_str(&con), con.len, &tap, &st);
	CHECK_STR(buf_str(&tap), "KTAP version 1\n");
	CHECK_INT(st.duplicates, 1);
	CHECK_INT(st.gap_at, 1);
	con.len = 0;
	tap.len = 0;
	f1[strlen(f1) - 2] = '2';   /* "1..2": the CRC no longer holds */
	buf_addstr(&con, f0);
	buf_addstr(&con, f1);
	serialtap_extract(buf_str(&con), con.len, &tap, &st);
	CHECK_STR(buf_str(&tap), "KTAP version 1\n");
	CHECK_INT(st.broken, 1);
	/* A CR in the text is '?', a trailing one dropped, as the TAP parser does. */
	CHECK(serialtap_frame(7, "a\rb\r", 4, f0, sizeof(f0)) > 0);
	CHECK(strstr(f0, ":a?b\n") != NULL);
	CHECK_INT(serialtap_frame(7, "abc", 3, f0, 10), 0);
	buf_free(&con);
	buf_free(&tap);
}

static void job_for(const char *topo, enum vm_accel accel, struct buf *yaml)
{
	struct topology t;
	struct topo_error terr;
	struct vm_spec spec = { 0 };
	char path[256];

	snprintf(path, sizeof(path), "topologies/%s.topo", topo);
	CHECK(!topo_load(path, &t, &terr));
	/* As run.c builds a job: the worker's QEMU is not asked, nothing known. */
	spec.caps = NULL;
	spec.topo = &t;
	spec.qemu = qemu_binary(t.arch);
	spec.kernel = "KERNEL";
	spec.initrd = "INITRD";
	spec.accel = accel;
	spec.serial_tap = 1;
	if (t.arch == TOPO_ARCH_LOONGARCH64)
		spec.firmware = "FIRMWARE";
	lava_job_yaml(&(struct lava_job_in){ .spec = &spec, .device_type = t.arch == TOPO_ARCH_X86_64 ? "qemu" :
					     "qemu-loongarch64", .job_name = "numalab test job",
					     .kernel_url = "http://files/kernel", .initrd_url = "file:///x/initrd.cpio",
					     .timeout_s = 300 }, yaml);
}

UNIT_TEST(golden_jobs)
{
	static const char *const topos[] = { "2node", "4node", "cxl", "la-2node" };

	for (size_t i = 0; i < sizeof(topos) / sizeof(topos[0]); i++) {
		struct buf yaml = BUF_INIT;
		char *golden = xprintf("%s/%s.yaml", GOLDEN_DIR, topos[i]);

		job_for(topos[i], VM_ACCEL_TCG, &yaml);
		unit_golden(golden, buf_str(&yaml), yaml.len);
		free(golden);
		buf_free(&yaml);
	}
}

/* Under KVM the device type brings -cpu host -enable-kvm: the job has no -accel or -cpu of its own. */
UNIT_TEST(job_kvm_and_channels)
{
	struct buf yaml = BUF_INIT;

	job_for("2node", VM_ACCEL_KVM, &yaml);
	CHECK(strstr(buf_str(&yaml), "no_kvm: false") != NULL);
	CHECK(!strstr(buf_str(&yaml), "-accel"));
	CHECK(!strstr(buf_str(&yaml), "-cpu"));
	CHECK(!strstr(buf_str(&yaml), "virtconsole"));
	CHECK(!strstr(buf_str(&yaml), "-chardev"));
	CHECK(strstr(buf_str(&yaml), "numalab.tap=serial") != NULL);
	CHECK(strstr(buf_str(&yaml), "'-numa node,nodeid=1,cpus=2-3,memdev=mem1'") != NULL);
	buf_free(&yaml);
}

UNIT_TEST(log_and_json)
{
	static const char log[] =
		"- {\"dt\": \"2026-12-05T10:50:10.5\", \"lvl\": \"info\", \"msg\": \"start: 3\"}\n"
		"- {\"dt\": \"2026-12-05T10:50:10.6\", \"lvl\": \"target\", \"msg\": \"NLTAP:0:0:a \\\"q\\\" \\u001b[0m\"}\n"
		"- {\"dt\": \"2026-12-05T10:50:10.7\", \"lvl\": \"target\", \"msg\": \"line two\"}\n"
		"- {\"dt\": \"2026-12-05T10:50:10.8\", \"lvl\": \"results\", \"msg\": {\"case\": \"job\"}}\n";
	struct buf con = BUF_INIT;
	char v[64];

	lava_log_console(log, sizeof(log) - 1, &con);
	CHECK_STR(buf_str(&con), "NLTAP:0:0:a \"q\" \033[0m\nline two\n");
	lava_json_get("{\"id\":3,\"state\":\"Running\",\"failure_comment\":null,\"x\":\"a\\\"b\"}", "state", v, sizeof(v));
	CHECK_STR(v, "Running");
	lava_json_get("{\"id\":3,\"failure_comment\":null}", "failure_comment", v, sizeof(v));
	CHECK_STR(v, "");
	lava_json_get("{\"id\":3,\"x\":\"a\\\"b\"}", "id", v, sizeof(v));
	CHECK_STR(v, "3");
	lava_json_get("{\"id\":3,\"x\":\"a\\\"b\"}", "x", v, sizeof(v));
	CHECK_STR(v, "a\"b");
	buf_free(&con);
}

UNIT_MAIN(UNIT_CASE(frames_round_trip), UNIT_CASE(kernel_message_anywhere), UNIT_CASE(gaps_duplicates_corruption),
	  UNIT_CASE(golden_jobs), UNIT_CASE(job_kvm_and_channels), UNIT_CASE(log_and_json))
