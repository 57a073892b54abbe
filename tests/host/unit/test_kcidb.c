/*
 * test_kcidb: KCIDB export (analysis/kcidb.h) of hand-made result
 * directories, here so that it also runs under ASan+UBSan: path parts and
 * origins as the schema's patterns allow them, statuses by verdict, a
 * matrix cell that never ran, and bad input.  The schema check of the same
 * kind of output is tests/host/integration/kcidb.sh (jsonschema).
 */
#include "analysis/kcidb.h"
#include "base/util.h"
#include "unit.h"

static void path_part(const char *in, const char *want)
{
	struct buf b = BUF_INIT;

	kcidb_path_part(&b, in);
	CHECK_STR(buf_str(&b), want);
	buf_free(&b);
}

UNIT_TEST(path_parts_match_the_schema_pattern)
{
	/* KCIDB v5.3 path: ^([a-zA-Z0-9_-]+(\.[a-zA-Z0-9_-]+)*)?$ */
	path_part("online nodes 0-1", "online_nodes_0-1");
	path_part("thp 2M migrated node 0 -> 1", "thp_2M_migrated_node_0_-_1");
	path_part("a.b", "a_b");
	path_part("  lead and trail  ", "lead_and_trail");
	path_part("...", "_");
	path_part("", "_");
	path_part("keep_under_score_", "keep_under_score_");
	path_part("caf\xc3\xa9", "caf");
}

UNIT_TEST(origins)
{
	CHECK(kcidb_origin_valid("numalab"));
	CHECK(kcidb_origin_valid("lab_2"));
	CHECK(!kcidb_origin_valid(""));
	CHECK(!kcidb_origin_valid("NumaLab"));
	CHECK(!kcidb_origin_valid("numa-lab"));
	CHECK(!kcidb_origin_valid("numa:lab"));
	CHECK(!kcidb_origin_valid(NULL));
}

static const char meta[] =
	"topology: 2node (topologies/2node.topo)\n"
	"arch: x86_64\n"
	"kernel: debian 7.2.13-1\n"
	"kernel.source: debian:linux-binary=7.2.13-1 sha256:00\n"
	"host_numa: none\n"
	"accel: tcg: no kvm\n"
	"end: %s\n"
	"time.total_s: 3\n"
	"guest: node0.distance: 10 21\n";

static const char tap[] =
	"KTAP version 1\n1..3\n"
	"    # Subtest: topology\n    KTAP version 1\n    1..2\n"
	"    ok 1 nodes\n      ---\n      time_s: 0.25\n      ...\n"
	"    # node 1 has 0 CPUs, want 2\n"
	"    not ok 2 cpus\n"
	"not ok 1 topology\n"
	"not ok 2 mempolicy # TIMEOUT vm timeout after 300 s\n"
	"not ok 3 tiering # ERROR not run: vm timeout\n";

/* The count of needle in hay. */
static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

UNIT_TEST(run_and_matrix_statuses)
{
	char *root = unit_scratch("kcidb"), *run = xprintf("%s/run/20260101-000000-1-0", root);
	char *cell = xprintf("%s/2node.debian", run), *m = xprintf(meta, "timeout"), *mx = xprintf("%s/mx", root);
	struct buf out = BUF_INIT, again = BUF_INIT;
	struct error err;

	unit_put(run, "state", "complete\n");
	unit_put(cell, "meta", m);
	unit_put(cell, "tap", tap);
	CHECK_INT(kcidb_export(run, "unit", &out, &err), 0);
	const char *s = buf_str(&out);
	CHECK(strstr(s, "\"id\": \"unit:20260101-000000-1-0/2node.debian/1\"") != NULL);
	CHECK(strstr(s, "\"path\": \"numalab.topology.nodes\",\n      \"status\": \"PASS\"") != NULL);
	CHECK(strstr(s, "\"path\": \"numalab.topology.nodes.time_s\",\n      \"status\": \"DONE\"") != NULL);
	CHECK(strstr(s, "\"unit\": \"s\"") != NULL);
	CHECK(strstr(s, "\"path\": \"numalab.topology.cpus\",\n      \"status\": \"FAIL\"") != NULL);
	CHECK(strstr(s, "\"log_excerpt\": \"# node 1 has 0 CPUs, want 2\\nnot ok 2 cpus\\n\"") != NULL);
	CHECK(strstr(s, "\"path\": \"numalab.mempolicy\",\n      \"status\": \"ERROR\"") != NULL);
	CHECK(strstr(s, "\"path\": \"numalab.tiering\",\n      \"status\": \"MISS\"") != NULL);
	CHECK(strstr(s, "\"patchset_hash\": \"\"") != NULL);
	CHECK(strstr(s, "\"node0\": [\n") != NULL);
	CHECK_INT(count(s, "\"build_id\": "), 5);
	/* Stable: the same directory, the same text. */
	CHECK_INT(kcidb_export(run, "unit", &again, &err), 0);
	CHECK_STR(buf_str(&again), s);

	/* A matrix: that run as cell 0, cell 1 never ran: its test and build are MISS. */
	out.len = again.len = 0;
	unit_put(mx, "cells.list", "0 2node.debian.topology.r1\n1 2node.debian.mempolicy.r1\n");
	{
		char *c0 = xprintf("%s/cells/2node.debian.topology.r1/20260101-000000-1-0/2node.debian", mx);
		char *r0 = xprintf("%s/cells/2node.debian.topology.r1/20260101-000000-1-0", mx);

		unit_put(r0, "state", "complete\n");
		unit_put(c0, "meta", m);
		unit_put(c0, "tap", tap);
		unit_put(r0, "../exit", "exit: 1\ntime_s: 5\nwatchdog: no\ninterrupted: no\n");
		free(c0);
		free(r0);
	}
	CHECK_INT(kcidb_export(mx, NULL, &out, &err), 0);
	s = buf_str(&out);
	CHECK_INT(count(s, "\"status\": \"MISS\""), 3);   /* tiering, the unrun cell's test and its build */
	CHECK(strstr(s, "\"id\": \"numalab:checkout-unknown\"") != NULL);
	CHECK(strstr(s, "\"path\": \"numalab\",\n      \"status\": \"MISS\",\n      \"comment\": \"not run: no result\"") != NULL);

	/* Bad input: nothing appended. */
	again.len = 0;
	CHECK_INT(kcidb_export(cell, NULL, &again, &err), -1);
	CHECK_INT(err.kind, ERROR_INPUT);
	CHECK(strstr(err.msg, "is not a run") != NULL);
	CHECK_INT(kcidb_export(run, "Bad-Origin", &again, &err), -1);
	CHECK_INT(err.kind, ERROR_INPUT);
	CHECK_INT(kcidb_export("/nonexistent/dir", NULL, &again, &err), -1);
	CHECK_INT(err.kind, ERROR_INPUT);
	CHECK_INT((int)again.len, 0);

	remove_tree(root);
	free(root);
	free(run);
	free(cell);
	free(m);
	free(mx);
	buf_free(&out);
	buf_free(&again);
}

UNIT_MAIN(UNIT_CASE(path_parts_match_the_schema_pattern), UNIT_CASE(origins), UNIT_CASE(run_and_matrix_statuses))
