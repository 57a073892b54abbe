/*
 * test_results: the result formats of lab/results/ in both directions:
 * meta (meta.h), a run's state (results.h), a matrix cell's exit file and
 * log (celldir.h), and file_last_line (base/util.h) that reads logs.
 * Each writes with the module and reads back with it, and also reads the
 * bytes earlier releases wrote, which old result directories still hold.
 */
#include "results/celldir.h"
#include "results/meta.h"
#include "results/results.h"
#include "unit.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *root;

static void fresh_root(void)
{
	if (root) {
		remove_tree(root);
		free(root);
	}
	root = unit_scratch("results");
}

static void put(const char *name, const char *text)
{
	char *path = xprintf("%s/%s", root, name);
	struct error err;

	if (write_file_atomic(path, text, strlen(text), &err)) {
		printf("#   %s\n", err.msg);
		CHECK(0);
	}
	free(path);
}

static char *get(const char *name)
{
	char *path = xprintf("%s/%s", root, name);
	struct buf b = BUF_INIT;
	struct error err;
	char *text;

	CHECK(!read_file(path, &b, &err));
	text = xstrdup(buf_str(&b));
	buf_free(&b);
	free(path);
	return text;
}

UNIT_TEST(meta_round_trip)
{
	struct buf meta = BUF_INIT, back = BUF_INIT;
	struct error err;
	char *text, *v, small[8];

	fresh_root();
	meta_add(&meta, META_TOPOLOGY, "%s (%s)", "2node", "topologies/2node.topo");
	meta_add(&meta, META_KERNEL, "debian %s", "7.2.13-1");
	meta_add(&meta, META_KERNEL_SOURCE, "pkg sha256 ab");
	meta_add(&meta, META_KERNEL_PATCH_SUBJECT, "first");
	meta_add(&meta, META_KERNEL_PATCH_SUBJECT, "second");
	meta_add(&meta, META_END, "%s", "poweroff\nresult: forged\x1b[31m");
	meta_add(&meta, META_GUEST, "%s: %s", "nodes_online", "0-1");
	meta_add(&meta, META_GUEST, "%s: %s", "cmdline", "console=ttyS0 quiet");
	CHECK(!meta_write(root, &meta, &err));
	text = get(META_FILE);
	/* The bytes on disk: what compare.sh's old result directories hold. */
	CHECK_STR(text, "topology: 2node (topologies/2node.topo)\n"
			"kernel: debian 7.2.13-1\n"
			"kernel.source: pkg sha256 ab\n"
			"kernel.patch.subject: first\n"
			"kernel.patch.subject: second\n"
			"end: poweroff result: forged [31m\n"
			"guest: nodes_online: 0-1\n"
			"guest: cmdline: console=ttyS0 quiet\n");
	CHECK(!meta_read(root, &back, &err));
	CHECK_STR(buf_str(&back), text);
	/* "kernel" is not "kernel.source"; a value never becomes a key. */
	CHECK_STR((v = meta_get(buf_str(&back), META_KERNEL)), "debian 7.2.13-1");
	free(v);
	CHECK_STR((v = meta_get(buf_str(&back), META_KERNEL_SOURCE)), "pkg sha256 ab");
	free(v);
	CHECK(meta_get(buf_str(&back), META_RESULT) == NULL);
	CHECK(meta_get(buf_str(&back), "kern") == NULL);
	CHECK_STR((v = meta_get(buf_str(&back), META_KERNEL_PATCH_SUBJECT)), "first");
	free(v);
	CHECK_STR((v = meta_guest(buf_str(&back), "cmdline")), "console=ttyS0 quiet");
	free(v);
	CHECK(meta_guest(buf_str(&back), "cmd") == NULL);
	CHECK(meta_guest(buf_str(&back), "nodes") == NULL);
	CHECK_INT(meta_copy(buf_str(&back), META_TOPOLOGY, small, sizeof(small)), 1);
	CHECK_STR(small, "2node (");
	CHECK_INT(meta_copy(buf_str(&back), META_DISK, small, sizeof(small)), 0);
	CHECK_STR(small, "");
	free(text);
	buf_free(&meta);
	buf_free(&back);
}

UNIT_TEST(meta_next_walks_repeated_keys_in_order)
{
	const char *text = "guest: a: 1\nother: x\nguest: b: 2\nguest:c\nguest: \n", *pos = text, *v;
	size_t len;
	struct buf got = BUF_INIT;

	while ((v = meta_next(&pos, META_GUEST, &len)))
		buf_addf(&got, "[%.*s]", (int)len, v);
	/* "guest:c" has no ": ": not a value of guest */
	CHECK_STR(buf_str(&got), "[a: 1][b: 2][]");
	CHECK_STR(pos, "");
	pos = "no newline at the end: x\nend: cut";
	CHECK((v = meta_next(&pos, META_END, &len)) != NULL);
	CHECK_INT(len, 3);
	CHECK(meta_next(&pos, META_END, &len) == NULL);
	buf_free(&got);
}

/* Hostile or broken meta reads as unknown, never as out-of-bounds. */
UNIT_TEST(meta_read_of_broken_files)
{
	struct buf b = BUF_INIT;
	struct error err;
	char out[16];

	fresh_root();
	CHECK(meta_read(root, &b, &err) == -1);
	CHECK(strstr(err.msg, "/meta") != NULL);
	put(META_FILE, "topology\ntopology:\n: x\ntopology:no-space\n");
	CHECK(!meta_read(root, &b, &err));
	CHECK(meta_get(buf_str(&b), META_TOPOLOGY) == NULL);
	CHECK_INT(meta_copy("", META_END, out, sizeof(out)), 0);
	CHECK_INT(meta_copy("end: ", META_END, out, sizeof(out)), 1);
	CHECK_STR(out, "");
	buf_free(&b);
}

UNIT_TEST(state_round_trip)
{
	struct error err;
	char state[16], *text, run_dir[4096];

	fresh_root();
	CHECK(run_state_get(root, state, sizeof(state), &err) == -1);
	CHECK(!run_state_set(root, RUN_STATE_INTERRUPTED, &err));
	text = get(RUN_STATE_FILE);
	CHECK_STR(text, "interrupted\n");
	free(text);
	CHECK(!run_state_get(root, state, sizeof(state), &err));
	CHECK_STR(state, RUN_STATE_INTERRUPTED);
	/* An older or hand-edited file: the first line is the state, cut to fit. */
	put(RUN_STATE_FILE, "complete\ntrailing\n");
	CHECK(!run_state_get(root, state, sizeof(state), &err));
	CHECK_STR(state, "complete");
	put(RUN_STATE_FILE, "a-very-long-state-word");
	CHECK(!run_state_get(root, state, 8, &err));
	CHECK_STR(state, "a-very-");
	/* A new run starts as running. */
	CHECK(!results_new_run(root, run_dir, sizeof(run_dir), &err));
	CHECK(!run_state_get(run_dir, state, sizeof(state), &err));
	CHECK_STR(state, RUN_STATE_RUNNING);
}

UNIT_TEST(last_line_of_a_log)
{
	struct buf big = BUF_INIT;
	char *path, out[32];

	fresh_root();
	path = xprintf("%s/log", root);
	file_last_line(path, out, sizeof(out));
	CHECK_STR(out, "");
	put("log", "");
	file_last_line(path, out, sizeof(out));
	CHECK_STR(out, "");
	put("log", "one line, no newline");
	file_last_line(path, out, sizeof(out));
	CHECK_STR(out, "one line, no newline");
	put("log", "first\nmake: *** [all] Error 2\r\n\n\n");
	file_last_line(path, out, sizeof(out));
	CHECK_STR(out, "make: *** [all] Error 2");
	put("log", "\n\n");
	file_last_line(path, out, sizeof(out));
	CHECK_STR(out, "");
	/* Cut to cap; and only the tail of a big log is read. */
	put("log", "x\n0123456789012345678901234567890123456789\n");
	file_last_line(path, out, sizeof(out));
	CHECK_STR(out, "0123456789012345678901234567890");
	for (int i = 0; i < 3 * LAST_LINE_TAIL / 8; i++)
		buf_addf(&big, "line %d\n", i);
	buf_addstr(&big, "the end\n");
	put("log", buf_str(&big));
	file_last_line(path, out, sizeof(out));
	CHECK_STR(out, "the end");
	buf_free(&big);
	free(path);
}

/* A cell directory as the matrix leaves it, read back by celldir_load. */
UNIT_TEST(cell_dir_round_trip)
{
	struct celldir c;
	struct error err;
	char *text, *run = NULL, *cell = NULL, *meta = NULL;

	fresh_root();
	CHECK(!celldir_write_exit(root, 1, 12.34, 0, 1, &err));
	text = get(CELL_EXIT_FILE);
	CHECK_STR(text, "exit: 1\ntime_s: 12.3\nwatchdog: no\ninterrupted: yes\n");
	free(text);
	put(CELL_LOG_FILE, "numalab: booting\nnumalab run: 2node: 1 passed, 1 failed\n");
	/* One run set aside half-way, one complete: the complete one is the cell's. */
	run = xprintf("%s/20261203-000000-1-0", root);
	CHECK(!mkdir_p(run, &err));
	CHECK(!run_state_set(run, RUN_STATE_INTERRUPTED, &err));
	free(run);
	run = xprintf("%s/20261203-000001-1-0", root);
	cell = xprintf("%s/2node.debian", run);
	CHECK(!mkdir_p(cell, &err));
	CHECK(!run_state_set(run, RUN_STATE_COMPLETE, &err));
	meta = xprintf("%s/%s", cell, META_FILE);
	CHECK(!write_file_atomic(meta, "topology: 2node (x)\nend: poweroff\n", 34, &err));
	free(meta);
	meta = xprintf("%s/%s", cell, RESULTS_TAP_FILE);
	CHECK(!write_file_atomic(meta, "KTAP version 1\n1..0\n", 20, &err));
	celldir_load(root, &c);
	CHECK(c.exists);
	CHECK(c.finished);
	CHECK_INT(c.exit_code, 1);
	CHECK(c.time_s > 12.2 && c.time_s < 12.4);
	CHECK(!c.watchdog);
	CHECK(c.interrupted);
	CHECK_STR(c.end, "poweroff");
	CHECK_STR(c.last_log, "numalab run: 2node: 1 passed, 1 failed");
	CHECK_STR(c.run_cell, cell);
	CHECK_STR(buf_str(&c.tap), "KTAP version 1\n1..0\n");
	celldir_free(&c);
	/* No exit file, no complete run: unknowns, not failures. */
	fresh_root();
	celldir_load(root, &c);
	CHECK(c.exists && !c.finished);
	CHECK_INT(c.exit_code, -1);
	CHECK(c.time_s < 0);
	CHECK_STR(c.end, "");
	celldir_free(&c);
	free(meta);
	free(cell);
	free(run);
	remove_tree(root);
}

UNIT_MAIN(UNIT_CASE(meta_round_trip), UNIT_CASE(meta_next_walks_repeated_keys_in_order),
	  UNIT_CASE(meta_read_of_broken_files), UNIT_CASE(state_round_trip),
	  UNIT_CASE(last_line_of_a_log), UNIT_CASE(cell_dir_round_trip))
