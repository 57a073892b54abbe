/*
 * run: one cell, end to end: topology + kernel + image + test plan → vm spec
 * → QEMU → TAP → results directory.  `numalab run` is one cell; the matrix
 * will be many.
 */
#ifndef LAB_RUN_H
#define LAB_RUN_H

#include "boot/image.h"
#include "kernel/kernel.h"
#include "boot/qemu.h"
#include "host/toolroot.h"
#include "results/tap.h"
#include "boot/vm.h"

/*
 * What the caller shows while a cell runs (run_opts.view; NULL: nothing).
 * The run never writes to the terminal itself; these are called in order,
 * from run_cell() (never from a signal handler).  Any member may be NULL.
 */
struct run_view {
	/* A TAP line as it was written to the cell's tap (no newline). */
	void (*tap_line)(void *ctx, const char *line);
	/* A new phase ("booting"), seconds since the cell started; phase NULL: only the clock moved. */
	void (*phase)(void *ctx, double elapsed_s, const char *phase);
	/* The cell's streams ended: no phase or TAP line follows. */
	void (*done)(void *ctx);
	void *ctx;
};

struct run_opts {
	const char *topo;        /* NAME or FILE */
	const char *kernel;      /* NULL: the arch's default pinned kernel */
	const char *const *patches;   /* --patch files on a kernel built from source (kernel.h) */
	int nr_patches;
	const struct kernel *kernel_built;   /* already resolved (bisect-run): kernel unused */
	const char *tests;       /* comma-separated; NULL: the topology's default */
	int timeout_s;           /* 0: the topology's */
	const char *out;         /* results root; NULL: lab_root()/results */
	const char *accel;       /* "auto" (probe), "tcg" or "kvm" */
	const char *append;      /* extra kernel command line; may be NULL */
	const char *guest_file;  /* copied into the guest as /lab/BASENAME; may be NULL */
	/* Backend: NULL/"qemu" the direct one (vm.h), "libvirt" (vm_libvirt.h). */
	const char *backend;
	const char *uri;         /* libvirt URI; NULL: LIBVIRT_DEFAULT_URI */
	const char *host_nodes;  /* host-backed mode (both backends): "auto" or "G=H,..."; NULL: off */
	int prealloc;            /* with host_nodes, direct backend: preallocate guest memory */
	const char *disk;        /* boot from an overlay of this qcow2 (disk.h); NULL: initramfs */
	/* No virtio console: the TAP framed on the serial console, as on a board (serialtap.h). */
	int serial_tap;
	/*
	 * The cell as a job on this LAVA server (lava_run.h, docs/lava.md); NULL:
	 * here.  The job always has serial TAP; lava_device_type NULL: qemu
	 * (x86_64) or qemu-loongarch64; lava_artifacts "DIR=URL": the kernel and
	 * initramfs are copied under DIR, which the workers reach as URL, NULL:
	 * the workers read them here (file://).
	 */
	const char *lava_url, *lava_token, *lava_device_type, *lava_artifacts;
	/* Bring your own (docs/byo.md); all NULL/0: a plain run. */
	const char *const *exec_argv;   /* `-- CMD [ARG...]`, run after the suites */
	const char *const *rw_dirs;     /* --rw DIRs the guest may write (NULL-terminated) */
	const char *const *tests_dirs;  /* --tests-dir DIRs of outside suites (NULL-terminated) */
	int shell;               /* numalab shell: the console on this terminal, no timeout */
	const struct run_view *view;   /* NULL: show nothing */
};

/* A cell that ran: its tests passed, or not (a test failed or timed out, the guest crashed). */
enum run_verdict {
	RUN_PASSED,
	RUN_FAILED,
};

struct run_outcome {
	char cell_dir[4096];
	struct tap_summary summary;
	struct vm_result vm;
	enum vm_accel accel;
	enum run_verdict verdict;   /* valid when run_cell() returned 0 */
	int retried;             /* boots that crashed before /init and were booted again (0-2) */
	/* QEMU start → the kernel's clock starting (QEMU, firmware, decompression); < 0 unknown */
	double before_kernel_s;
	/* --disk: the base and the root, and which TAP was kept (stream or disk) and why */
	char disk[4400], tap_source[256];
	/* Serial TAP: how the frames came back ("" virtio) */
	char tap_channel[256];
	/* The signal that came before the run was whole (0 none): its state says
	 * interrupted, and its exit is the lab's, not the verdict.  Read once, as
	 * the state is written: one that comes later leaves the complete run, and
	 * so a matrix's resume and the cell's verdict, agreeing. */
	int interrupted;
};

/* A cell's inputs, resolved and validated; the base image built. */
struct run_inputs {
	struct topology topo;
	struct kernel kernel;
	struct strvec tests;           /* the lab's tests of the plan */
	struct strvec plan_names;      /* every plan entry's TAP name, in order */
	struct suite_list suites;      /* --tests-dir */
	struct guest_share shares[VM_MAX_SHARES];
	int nr_shares;
	struct strvec share_paths;     /* the strings shares point to */
	char cwd[4096], exec_name[128];
	char modules_cpio[4096];       /* the 9p modules of a modular kernel; "" none */
	char kernel_config[4096];      /* a pinned kernel's .config (kernel.h); "" none */
	struct toolroot_tools tools;   /* LoongArch: QEMU, firmware, cross gcc */
	char libvirt_qemu[4096];       /* under libvirt: the emulator it runs; "" direct */
	struct qemu_caps caps;         /* what the run's QEMU accepts (qemucaps.h) */
	char guest_dir[4096], base[4096], initrd[4200];
	/* Direct backend with --host-nodes (hostnuma.h); host_backed 0: emulated NUMA. */
	struct vm_host_nodes host_nodes;
	int host_backed;
};

/*
 * Resolve o's topology, tests, kernel (fetching it if needed) and base image
 * into p (zeroed by the caller).  Returns 0, or -1 with err: ERROR_INPUT for
 * what the user must fix (topology, tests, kernel, --disk), else
 * ERROR_HARNESS.
 */
int run_prepare(const struct run_opts *o, struct run_inputs *p, struct error *err) LAB_MUST_CHECK;
/* o asks for the libvirt backend. */
int run_backend_libvirt(const struct run_opts *o);
/* Free what run_prepare() allocated, and p itself (xcalloc'ed). */
void run_inputs_free(struct run_inputs *p);

/*
 * Run one cell.  Returns 0 when it ran to a verdict (out->verdict), or -1
 * with err: ERROR_INPUT (bad topology, tests, kernel path: err says where)
 * or ERROR_HARNESS (err says what broke; the run's state is `error`).  out
 * is filled as far as it got.
 */
int run_cell(const struct run_opts *o, struct run_outcome *out, struct error *err) LAB_MUST_CHECK;

#endif
