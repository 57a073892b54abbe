/*
 * test_topology: the topology parser against the shipped topologies, good
 * edge cases (tests/host/unit/topo/good/) and one fixture per error
 * (tests/host/unit/topo/bad/, each starting with `# expect: LINE: SUBSTRING`);
 * the writer (topo_format) against the parser, the memory tiers against the
 * numbers the kernel gave, and the summary of `topo show` (golden files).
 */
#include "base/lines.h"
#include "model/labdata.h"
#include "model/topology.h"
#include "model/topology_summary.h"
#include "unit.h"
#include "base/util.h"

#include <dirent.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BAD_DIR "tests/host/unit/topo/bad"
#define GOOD_DIR "tests/host/unit/topo/good"
#define MIB (1ull << 20)
#define GIB (1ull << 30)

static int load(const char *path, struct topology *t)
{
	struct topo_error err = { "" };
	int rc = topo_load(path, t, &err);

	if (rc)
		printf("#   %s: %s\n", path, err.msg);
	return rc;
}

static int parse_str(const char *text, struct topology *t, struct topo_error *err)
{
	err->msg[0] = '\0';
	return topo_parse("buf.topo", text, strlen(text), t, err);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.topo files in dir, sorted; returns how many (names in *out, free each and the array). */
static int list_dir(const char *dir, char ***out)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	int n = 0;

	*out = NULL;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (len <= 5 || strcmp(e->d_name + len - 5, ".topo"))
			continue;
		names = xrealloc(names, sizeof(*names) * (size_t)(n + 1));
		names[n++] = xprintf("%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, (size_t)n, sizeof(*names), cmp_str);
	*out = names;
	return n;
}

static void free_list(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

UNIT_TEST(shipped_topologies_parse)
{
	glob_t g;
	struct topology t;

	CHECK_INT(glob("topologies/*.topo", 0, NULL, &g), 0);
	CHECK(g.gl_pathc >= 4);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *base = strrchr(g.gl_pathv[i], '/') + 1;

		CHECK_INT(load(g.gl_pathv[i], &t), 0);
		CHECK_INT(strncmp(t.name, base, strlen(base) - 5), 0);
		CHECK_INT(strlen(t.name), strlen(base) - 5);
		CHECK_STR(t.path, g.gl_pathv[i]);
		CHECK(t.nr_nodes >= 1 && t.nr_nodes <= TOPO_MAX_NODES);
		CHECK(topo_nr_cpus(&t) >= 1);
		for (int a = 0; a < t.nr_nodes; a++)
			for (int b = 0; b < t.nr_nodes; b++)
				CHECK_INT(t.dist[a][b], t.dist[b][a]);
	}
	globfree(&g);
}

UNIT_TEST(topo_2node)
{
	struct topology t;

	if (load("topologies/2node.topo", &t)) {
		CHECK(0);
		return;
	}
	CHECK_STR(t.name, "2node");
	CHECK_INT(t.arch, TOPO_ARCH_X86_64);
	CHECK_STR(topo_arch_name(t.arch), "x86_64");
	CHECK_STR(t.machine, "q35");
	CHECK_INT(t.nr_nodes, 2);
	CHECK_INT(topo_nr_cpus(&t), 4);
	CHECK_INT(topo_nr_cpu_nodes(&t), 2);
	CHECK_INT(topo_mem_bytes(&t), 1 * GIB);
	CHECK_INT(t.nodes[0].cpu_first, 0);
	CHECK_INT(t.nodes[0].cpu_last, 1);
	CHECK_INT(t.nodes[1].cpu_first, 2);
	CHECK_INT(t.nodes[1].cpu_last, 3);
	CHECK_INT(t.nodes[0].mem_bytes, 512 * MIB);
	CHECK_INT(t.nodes[1].mem_bytes, 512 * MIB);
	CHECK_INT(t.nodes[0].initiator, -1);
	CHECK_INT(t.dist[0][0], 10);
	CHECK_INT(t.dist[0][1], 21);
	CHECK_INT(t.dist[1][0], 21);
	CHECK_INT(t.dist[1][1], 10);
	CHECK_INT(topo_has_hmat(&t), 0);
	CHECK_INT(t.nr_hmat_lb, 0);
	CHECK_INT(t.nr_hmat_cache, 0);
	CHECK_INT(topo_cpu_node(&t, 0), 0);
	CHECK_INT(topo_cpu_node(&t, 1), 0);
	CHECK_INT(topo_cpu_node(&t, 2), 1);
	CHECK_INT(topo_cpu_node(&t, 3), 1);
	CHECK_INT(topo_cpu_node(&t, 4), -1);
	CHECK_INT(topo_cpu_node(&t, -1), -1);
	CHECK_INT(t.page_size, 0);
	CHECK_INT(t.pmd_size, 0);
	CHECK_INT(t.timeout_s, 600);
	CHECK_STR(t.tests, "topology,mempolicy");
}

UNIT_TEST(topo_cxl)
{
	static const struct topo_hmat_lb want[] = {
		{ 0, 0, 80, 22 * GIB }, { 0, 1, 140, 10 * GIB }, { 0, 2, 250, 10 * GIB }, { 0, 3, 350, 4 * GIB },
		{ 1, 0, 140, 10 * GIB }, { 1, 1, 88, 22 * GIB }, { 1, 2, 350, 4 * GIB }, { 1, 3, 250, 10 * GIB },
	};
	static const int dist[4][4] = {
		{ 10, 21, 14, 24 }, { 21, 10, 24, 14 }, { 14, 24, 10, 26 }, { 24, 14, 26, 10 },
	};
	struct topology t;

	if (load("topologies/cxl.topo", &t)) {
		CHECK(0);
		return;
	}
	CHECK_STR(t.name, "cxl");
	CHECK_STR(t.machine, "q35");
	CHECK_INT(t.nr_nodes, 4);
	CHECK_INT(topo_nr_cpus(&t), 4);
	CHECK_INT(topo_nr_cpu_nodes(&t), 2);
	CHECK_INT(topo_mem_bytes(&t), 2 * GIB);
	for (int i = 0; i < 4; i++) {
		CHECK_INT(t.nodes[i].mem_bytes, 512 * MIB);
		CHECK_INT(topo_node_has_cpus(&t, i), i < 2);
		for (int j = 0; j < 4; j++)
			CHECK_INT(t.dist[i][j], dist[i][j]);
	}
	CHECK_INT(topo_node_has_cpus(&t, 4), 0);
	CHECK_INT(topo_node_has_cpus(&t, -1), 0);
	CHECK_INT(t.nodes[0].initiator, -1);
	CHECK_INT(t.nodes[1].initiator, -1);
	CHECK_INT(t.nodes[2].initiator, 0);
	CHECK_INT(t.nodes[3].initiator, 1);
	CHECK_INT(t.nodes[2].cpu_first, -1);
	CHECK_INT(topo_cpu_node(&t, 3), 1);
	CHECK_INT(topo_has_hmat(&t), 1);
	CHECK_INT(t.nr_hmat_lb, 8);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct topo_hmat_lb *lb = topo_hmat_find(&t, want[i].initiator, want[i].target);

		CHECK(lb != NULL);
		if (!lb)
			continue;
		CHECK_INT(lb->latency_ns, want[i].latency_ns);
		CHECK_INT(lb->bandwidth_bps, want[i].bandwidth_bps);
	}
	CHECK(topo_hmat_find(&t, 2, 0) == NULL);
	CHECK(topo_hmat_find(&t, 0, 4) == NULL);
	CHECK_INT(t.nr_hmat_cache, 2);
	for (int i = 0; i < 2; i++) {
		CHECK_INT(t.hmat_cache[i].node, 2 + i);
		CHECK_INT(t.hmat_cache[i].size_bytes, 64 << 10);
		CHECK_INT(t.hmat_cache[i].level, 1);
		CHECK_INT(t.hmat_cache[i].line_bytes, 64);
		CHECK_INT(t.hmat_cache[i].write_back, 1);
		CHECK_INT(t.hmat_cache[i].direct_mapped, 1);
	}
	CHECK_INT(t.timeout_s, 600);
	CHECK_STR(t.tests, "topology,mempolicy,tiering");
}

UNIT_TEST(topo_hmat_tier_rules)
{
	struct topology t;

	/* 100 ns against 80: DRAM more than 10% apart, every node in the DRAM tier. */
	CHECK_INT(load("topologies/cxl-mismatch.topo", &t), 0);
	for (int i = 0; i < 4; i++)
		CHECK_INT(topo_memory_tier(&t, i), 4);
	/* Node 3 has latencies only: DRAM's distance; node 2 below as in cxl. */
	CHECK_INT(load("topologies/cxl-partial-hmat.topo", &t), 0);
	CHECK_INT(topo_memory_tier(&t, 3), 4);
	CHECK(topo_memory_tier(&t, 2) > 4);
	CHECK_INT(topo_hmat_find(&t, 1, 3)->bandwidth_bps, 0);
}

UNIT_TEST(topo_8node_timeout)
{
	struct topology t;

	CHECK_INT(load("topologies/8node.topo", &t), 0);
	CHECK_INT(t.nr_nodes, 8);
	CHECK_INT(t.timeout_s, 900);
	CHECK_INT(t.dist[0][4], 32);
	CHECK_INT(t.dist[5][6], 12);
}

/* Every good fixture parses; the notable values of each are checked by name. */
UNIT_TEST(good_fixtures)
{
	char **files;
	int n = list_dir(GOOD_DIR, &files);
	struct topology t;

	CHECK(n >= 7);
	for (int i = 0; i < n; i++)
		CHECK_INT(load(files[i], &t), 0);
	free_list(files, n);

	if (!load(GOOD_DIR "/one-node.topo", &t)) {
		CHECK_INT(t.nr_nodes, 1);
		CHECK_INT(t.dist[0][0], 10);
		CHECK_INT(topo_nr_cpus(&t), 4);
		CHECK_STR(t.tests, "topology");
	}
	if (!load(GOOD_DIR "/single-cpu.topo", &t)) {
		CHECK_INT(t.nodes[1].cpu_first, 3);
		CHECK_INT(t.nodes[1].cpu_last, 3);
		CHECK_INT(topo_nr_cpus(&t), 4);
		CHECK_INT(t.dist[0][1], 255);
	}
	if (!load(GOOD_DIR "/sizes.topo", &t)) {
		CHECK_INT(t.nodes[0].mem_bytes, 512 * MIB);
		CHECK_INT(t.nodes[1].mem_bytes, 512 * MIB);
		CHECK_INT(t.nodes[2].mem_bytes, GIB);
		CHECK_INT(t.nodes[3].mem_bytes, 1024 * GIB);
		CHECK_INT(topo_mem_bytes(&t), 1026 * GIB);
		CHECK_INT(t.page_size, 4096);
		CHECK_INT(t.pmd_size, 2 * MIB);
	}
	if (!load(GOOD_DIR "/comments.topo", &t)) {
		CHECK_INT(t.nr_nodes, 2);
		CHECK_INT(topo_nr_cpus(&t), 4);
		CHECK_INT(t.dist[1][0], 21);
		CHECK_INT(t.timeout_s, 120);
		CHECK_STR(t.tests, "topology");
	}
	if (!load(GOOD_DIR "/cpuless-no-hmat.topo", &t)) {
		CHECK_STR(t.machine, "pc");
		CHECK_INT(t.nodes[1].cpu_first, -1);
		CHECK_INT(t.nodes[1].initiator, -1);
		CHECK_INT(topo_has_hmat(&t), 0);
	}
	if (!load(GOOD_DIR "/max.topo", &t)) {
		CHECK_INT(t.nr_nodes, TOPO_MAX_NODES);
		CHECK_INT(topo_nr_cpus(&t), TOPO_MAX_CPUS);
		CHECK_INT(topo_cpu_node(&t, 63), 7);
	}
	if (!load(GOOD_DIR "/loongarch.topo", &t)) {
		CHECK_INT(t.arch, TOPO_ARCH_LOONGARCH64);
		CHECK_STR(topo_arch_name(t.arch), "loongarch64");
		CHECK_STR(t.machine, "virt");
		CHECK_INT(t.page_size, 16 << 10);
		CHECK_INT(t.pmd_size, 32 * MIB);
		CHECK_INT(t.timeout_s, 86400);
		CHECK_INT(t.nr_hmat_lb, 6);
		CHECK_INT(topo_hmat_find(&t, 1, 2)->bandwidth_bps, 1536 * MIB);
		CHECK_INT(topo_hmat_find(&t, 0, 0)->bandwidth_bps, 1024 * GIB);
		CHECK_INT(t.hmat_cache[0].level, 2);
		CHECK_INT(t.hmat_cache[0].line_bytes, 128);
		CHECK_INT(t.hmat_cache[0].write_back, 0);
		CHECK_INT(t.hmat_cache[0].direct_mapped, 0);
		CHECK_INT(t.hmat_cache[0].size_bytes, MIB);
	}
}

/* "# expect: LINE: SUBSTRING" → line and substring (in buf); -1 when malformed. */
static int parse_expect(const char *text, int *line, char *sub, size_t cap)
{
	static const char prefix[] = "# expect: ";
	const char *p = text, *end;
	char *num_end;

	if (strncmp(p, prefix, sizeof(prefix) - 1))
		return -1;
	p += sizeof(prefix) - 1;
	*line = (int)strtol(p, &num_end, 10);
	if (num_end == p || *line < 1 || strncmp(num_end, ": ", 2))
		return -1;
	p = num_end + 2;
	end = p + strcspn(p, "\r\n");
	if (end == p || (size_t)(end - p) >= cap)
		return -1;
	memcpy(sub, p, (size_t)(end - p));
	sub[end - p] = '\0';
	return 0;
}

UNIT_TEST(bad_fixtures)
{
	char **files;
	int n = list_dir(BAD_DIR, &files);

	/* A lost or emptied directory must not pass as "no failures". */
	CHECK(n >= 25);
	printf("# %d bad fixtures in %s\n", n, BAD_DIR);
	for (int i = 0; i < n; i++) {
		struct buf b = BUF_INIT;
		struct error rerr;
		struct topology t;
		struct topo_error err;
		char sub[256], prefix[600];
		int line;

		if (read_file(files[i], &b, &rerr)) {
			printf("#   %s\n", rerr.msg);
			CHECK(0);
			continue;
		}
		if (parse_expect(buf_str(&b), &line, sub, sizeof(sub))) {
			printf("#   %s: first line must be `# expect: LINE: SUBSTRING`\n", files[i]);
			CHECK(0);
			buf_free(&b);
			continue;
		}
		buf_free(&b);
		memset(&err, 0, sizeof(err));
		snprintf(prefix, sizeof(prefix), "%s:%d: ", files[i], line);
		if (!topo_load(files[i], &t, &err)) {
			printf("#   %s: parsed, want error \"%s%s\"\n", files[i], prefix, sub);
			CHECK(0);
			continue;
		}
		if (strncmp(err.msg, prefix, strlen(prefix)) || !strstr(err.msg + strlen(prefix), sub)) {
			printf("#   %s:\n#     got  \"%s\"\n#     want \"%s...%s...\"\n", files[i], err.msg, prefix, sub);
			CHECK(0);
		}
	}
	free_list(files, n);
}

UNIT_TEST(load_errors)
{
	struct topology t;
	struct topo_error err = { "" };

	CHECK_INT(topo_load("tests/host/unit/topo/no-such.topo", &t, &err), -1);
	CHECK(!strncmp(err.msg, "tests/host/unit/topo/no-such.topo: cannot open: ", 43));
	err.msg[0] = '\0';
	CHECK_INT(topo_load("tests/host/unit/topo", &t, &err), -1);
	/* A directory: how it fails depends on the file system, but it fails. */
	CHECK(!strncmp(err.msg, "tests/host/unit/topo:", 16));
}

/* topo_parse() takes a buffer with a length: no NUL, no final newline needed. */
UNIT_TEST(parse_buffer)
{
	static const char two[] = "arch x86_64\nnode 0 cpus=0 mem=512M\nnode 1 cpus=1 mem=512M\n"
				  "distance 0 10 21\ndistance 1 21 10";
	struct topology t;
	struct topo_error err;
	char *exact;
	char line[LINES_MAX_LEN + 2];

	/* Unterminated last line: parsed like any other. */
	CHECK_INT(parse_str(two, &t, &err), 0);
	CHECK_INT(t.dist[1][0], 21);
	CHECK_STR(t.name, "buf");

	/* Exactly sized heap copy without NUL: ASan catches any read past len. */
	exact = xmalloc(sizeof(two) - 1);
	memcpy(exact, two, sizeof(two) - 1);
	CHECK_INT(topo_parse("x/exact.topo", exact, sizeof(two) - 1, &t, &err), 0);
	CHECK_STR(t.name, "exact");
	/* Cut inside the last row: row 1 has one value too few, on line 5. */
	CHECK_INT(topo_parse("x/exact.topo", exact, sizeof(two) - 4, &t, &err), -1);
	CHECK_STR(err.msg, "x/exact.topo:5: distance row 1 has 1 values; it needs one per node (2)");
	free(exact);

	/* Error on an unterminated last line gets that line's number. */
	CHECK_INT(parse_str("arch x86_64\n\nnode 0 cpus=0", &t, &err), -1);
	CHECK_STR(err.msg, "buf.topo:3: node 0 has no memory; add mem=SIZE (e.g. mem=512M)");
	/* Missing row reported at the last line, terminated or not, blank or not. */
	CHECK_INT(parse_str("arch x86_64\nnode 0 cpus=0 mem=1G\nnode 1 cpus=1 mem=1G", &t, &err), -1);
	CHECK(!strncmp(err.msg, "buf.topo:3: distance row 0 is missing", 37));
	CHECK_INT(parse_str("arch x86_64\nnode 0 cpus=0 mem=1G\nnode 1 cpus=1 mem=1G\n\n", &t, &err), -1);
	CHECK(!strncmp(err.msg, "buf.topo:4: distance row 0 is missing", 37));

	/* Empty input and only a newline: no arch, line 1. */
	CHECK_INT(topo_parse("e.topo", "", 0, &t, &err), -1);
	CHECK_STR(err.msg, "e.topo:1: no arch; the first statement must be `arch x86_64` or `arch loongarch64`");
	CHECK_INT(topo_parse("e.topo", "\n", 1, &t, &err), -1);
	CHECK(!strncmp(err.msg, "e.topo:1: no arch", 17));

	/* A NUL inside the given length is not text (base/lines.h's message). */
	CHECK_INT(topo_parse("n.topo", "arch x86_64\nno\0de 0", 19, &t, &err), -1);
	CHECK_STR(err.msg, "n.topo:2: NUL byte; the file must be text");

	/* LINES_MAX_LEN bytes is the longest line; one more fails. */
	memset(line, ' ', sizeof(line));
	memcpy(line, "arch x86_64", 11);
	CHECK_INT(topo_parse("l.topo", line, LINES_MAX_LEN, &t, &err), -1);
	CHECK(!strncmp(err.msg, "l.topo:1: no nodes", 18));
	CHECK_INT(topo_parse("l.topo", line, LINES_MAX_LEN + 1, &t, &err), -1);
	CHECK_STR(err.msg, "l.topo:1: line longer than 2047 characters; shorten it");

	/* A name without ".topo" and a directory in the path. */
	CHECK_INT(topo_parse("a/b/plain", "arch x86_64\nnode 0 cpus=0 mem=1G\n", 33, &t, &err), 0);
	CHECK_STR(t.name, "plain");
	CHECK_STR(t.path, "a/b/plain");
}

/* Scalars that repeat: the last one wins (only node keys and arch may not repeat). */
UNIT_TEST(parse_scalars)
{
	struct topology t;
	struct topo_error err;

	CHECK_INT(parse_str("arch x86_64\nnode 0 cpus=0 mem=1G\ntimeout 1\n"
			    "machine pc-q35-9.2\ntests a,b\ntimeout 30\n", &t, &err), 0);
	CHECK_INT(t.timeout_s, 30);
	CHECK_STR(t.machine, "pc-q35-9.2");
	CHECK_STR(t.tests, "a,b");
	/* machine before arch would be rejected; after arch, arch keeps it. */
	CHECK_INT(parse_str("arch loongarch64\nmachine virt-9.0\nnode 0 cpus=0 mem=1G\n", &t, &err), 0);
	CHECK_STR(t.machine, "virt-9.0");
	CHECK_INT(parse_str("arch x86_64\nnode 0 cpus=0 mem=1G\npage-size 3\n", &t, &err), -1);
	CHECK(!strncmp(err.msg, "buf.topo:3: bad page-size '3'", 29));
	CHECK_INT(parse_str("arch x86_64\nnode 0 cpus=0 mem=1G\npage-size 1\n", &t, &err), 0);
	CHECK_INT(t.page_size, 1);
}

/* A NAME is the project's file; a path, or a name that is a file here, is itself. */
UNIT_TEST(data_paths)
{
	char out[4096];
	struct error err;

	/* Tests run from the project's root. */
	CHECK_INT(lab_data_find(".", LAB_DATA_TOPOLOGY, "2node", out, sizeof(out), &err), 0);
	CHECK_STR(out, "./topologies/2node.topo");
	CHECK_INT(lab_data_find(".", LAB_DATA_MATRIX, "smoke", out, sizeof(out), &err), 0);
	CHECK_STR(out, "./matrices/smoke.matrix");
	CHECK_INT(lab_data_find(".", LAB_DATA_SUITE, "topology", out, sizeof(out), &err), 0);
	CHECK_STR(out, "./tests/guest/suites/topology");
	CHECK_INT(lab_data_find("/lab", LAB_DATA_TOPOLOGY, "x/none.topo", out, sizeof(out), &err), 0);
	CHECK_STR(out, "x/none.topo");
	CHECK_INT(lab_data_find("/lab", LAB_DATA_MATRIX, "Makefile", out, sizeof(out), &err), 0);
	CHECK_STR(out, "Makefile");
}

/* A NAME the project has none of: the user's error, naming the ones it has; no build path. */
UNIT_TEST(unknown_names)
{
	char out[4096];
	struct error err;
	struct topology t;
	struct strvec names = STRVEC_INIT;

	CHECK_INT(lab_data_find(".", LAB_DATA_TOPOLOGY, "nosuch", out, sizeof(out), &err), -1);
	CHECK_INT(err.kind, ERROR_INPUT);
	CHECK(!strncmp(err.msg, "unknown topology 'nosuch'; known: 2node, 4node, 8node, cxl, ", 60));
	CHECK(strstr(err.msg, "; or give a .topo file") != NULL);
	CHECK_INT(lab_data_find(".", LAB_DATA_MATRIX, "nosuch", out, sizeof(out), &err), -1);
	CHECK(strstr(err.msg, "unknown matrix 'nosuch'; known: ") && strstr(err.msg, "smoke"));
	/* A suite is a folder, never a path; the other kinds' files are not suites. */
	CHECK_INT(lab_data_find(".", LAB_DATA_SUITE, "nosuch", out, sizeof(out), &err), -1);
	CHECK(!strncmp(err.msg, "unknown suite 'nosuch'; known: crash, khugepaged, ", 50));
	CHECK(strstr(err.msg, "build") == NULL);
	CHECK_INT(lab_data_find(".", LAB_DATA_SUITE, "topology/topology.c", out, sizeof(out), &err), -1);
	CHECK_INT(lab_data_find(".", LAB_DATA_SUITE, "", out, sizeof(out), &err), -1);
	CHECK_INT(lab_topology_load(".", "nosuch", &t, &err), -1);
	CHECK_INT(err.kind, ERROR_INPUT);
	CHECK_INT(lab_topology_load(".", "tests/host/unit/topo/no-such.topo", &t, &err), -1);
	CHECK(!strncmp(err.msg, "tests/host/unit/topo/no-such.topo: cannot open", 46));
	CHECK_INT(lab_topology_load(".", "cxl", &t, &err), 0);
	CHECK_STR(t.name, "cxl");
	/* The names are sorted, and the topology folder holds nothing else. */
	lab_data_names(".", LAB_DATA_TOPOLOGY, &names);
	CHECK(names.nr >= 8);
	for (size_t i = 1; i < names.nr; i++)
		CHECK(strcmp(names.items[i - 1], names.items[i]) < 0);
	strvec_clear(&names);
	lab_data_names("/nonexistent", LAB_DATA_TOPOLOGY, &names);
	CHECK_INT(names.nr, 0);
}

/* The model without where it was read from: what must survive being written and read back. */
static void same_shape(const struct topology *a, const struct topology *b, const char *what)
{
	struct topology x = *a, y = *b;

	for (int i = 0; i < TOPO_MAX_NODES; i++)
		x.nodes[i].line = y.nodes[i].line = 0;
	memset(x.name, 0, sizeof(x.name));
	memset(y.name, 0, sizeof(y.name));
	memset(x.path, 0, sizeof(x.path));
	memset(y.path, 0, sizeof(y.path));
	if (memcmp(&x, &y, sizeof(x)))
		printf("#   %s: written and read back, the topology differs\n", what);
	CHECK(!memcmp(&x, &y, sizeof(x)));
}

/* Every shipped topology and good fixture, written by topo_format() and parsed again, is the same. */
UNIT_TEST(format_round_trips)
{
	glob_t g;
	char text[16384];

	CHECK_INT(glob("topologies/*.topo", 0, NULL, &g), 0);
	CHECK_INT(glob(GOOD_DIR "/*.topo", GLOB_APPEND, NULL, &g), 0);
	CHECK(g.gl_pathc >= 10);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct topology a, b;
		struct topo_error err = { "" };
		size_t len;

		if (load(g.gl_pathv[i], &a)) {
			CHECK(0);
			continue;
		}
		len = topo_format(&a, text, sizeof(text));
		CHECK(len < sizeof(text));
		if (topo_parse(g.gl_pathv[i], text, len, &b, &err)) {
			printf("#   %s written: %s\n", g.gl_pathv[i], err.msg);
			CHECK(0);
			continue;
		}
		same_shape(&a, &b, g.gl_pathv[i]);
	}
	globfree(&g);
}

/* The leading comment is the description; what the writer cannot fit is cut, not overrun. */
UNIT_TEST(description_and_sizes)
{
	struct topology t;
	struct topo_error err;
	char text[64], size[32];

	CHECK_INT(parse_str("  # One line\n#\n#two  \n\n# three\narch x86_64\n# not this\nnode 0 cpus=0 mem=1G\n", &t, &err), 0);
	CHECK_STR(t.description, "One line\n\ntwo\nthree");
	CHECK_INT(parse_str("arch x86_64 # not a description\nnode 0 cpus=0 mem=1G\n", &t, &err), 0);
	CHECK_STR(t.description, "");
	CHECK_INT(topo_format(&t, text, sizeof(text)), 43);
	CHECK_STR(text, "arch x86_64\nmemory 1G\nnode 0 cpus=0 mem=1G\n");
	CHECK(topo_format(&t, text, 10) == 43 && strlen(text) == 9);
	topo_size_str(512 * MIB, size, sizeof(size));
	CHECK_STR(size, "512M");
	topo_size_str(3 * GIB + 1024, size, sizeof(size));
	CHECK_STR(size, "3145729K");
	topo_size_str(4097, size, sizeof(size));
	CHECK_STR(size, "4097");
	topo_size_str(2ull << 40, size, sizeof(size));
	CHECK_STR(size, "2T");
}

/*
 * The tiers mm/memory-tiers.c gives: what kernel 7.2 showed for cxl-3tier
 * (memory_tier18 and memory_tier90, its file says), DRAM in memory_tier4,
 * and none derived without HMAT.
 */
UNIT_TEST(memory_tiers)
{
	struct topology t;

	if (load("topologies/cxl-3tier.topo", &t)) {
		CHECK(0);
		return;
	}
	CHECK_INT(topo_memory_tier(&t, 0), 4);
	CHECK_INT(topo_memory_tier(&t, 1), 4);
	CHECK_INT(topo_memory_tier(&t, 2), 18);
	CHECK_INT(topo_memory_tier(&t, 3), 90);
	CHECK_INT(topo_memory_tier(&t, 4), -1);
	/*
	 * mt_set_default_dram_perf(): DRAM nodes more than 10% apart put every
	 * node in the DRAM tier; exactly 10% apart (cxl's 80 and 88 ns) is one
	 * DRAM performance still.
	 */
	t.hmat_lb[5].latency_ns = 89;
	CHECK_INT(t.hmat_lb[5].initiator * 10 + t.hmat_lb[5].target, 11);
	CHECK_INT(topo_memory_tier(&t, 2), 4);
	CHECK_INT(topo_memory_tier(&t, 3), 4);
	t.hmat_lb[5].latency_ns = 72;
	CHECK_INT(topo_memory_tier(&t, 2), 18);
	t.hmat_lb[5].bandwidth_bps = 17ULL << 30;
	CHECK_INT(topo_memory_tier(&t, 2), 4);
	if (load("topologies/cxl.topo", &t)) {
		CHECK(0);
		return;
	}
	CHECK_INT(topo_memory_tier(&t, 2), 30);
	CHECK_INT(topo_memory_tier(&t, 3), 30);
	if (load("topologies/2node.topo", &t)) {
		CHECK(0);
		return;
	}
	CHECK_INT(topo_memory_tier(&t, 0), -1);
}

/* `numalab topo show`'s summary of three shapes, pinned. */
UNIT_TEST(summaries)
{
	static const char *const names[] = { "2node", "cxl", "la-2node" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct topology t;
		struct buf text = BUF_INIT;
		char path[256], golden[256];

		snprintf(path, sizeof(path), "topologies/%s.topo", names[i]);
		snprintf(golden, sizeof(golden), "tests/host/unit/golden/topo/%s.summary", names[i]);
		if (load(path, &t)) {
			CHECK(0);
			continue;
		}
		topo_summary(&t, &text);
		unit_golden(golden, buf_str(&text), text.len);
		buf_free(&text);
	}
}

UNIT_MAIN(UNIT_CASE(shipped_topologies_parse), UNIT_CASE(topo_2node), UNIT_CASE(topo_cxl),
	  UNIT_CASE(topo_8node_timeout), UNIT_CASE(topo_hmat_tier_rules), UNIT_CASE(good_fixtures), UNIT_CASE(bad_fixtures),
	  UNIT_CASE(load_errors), UNIT_CASE(parse_buffer), UNIT_CASE(parse_scalars),
	  UNIT_CASE(data_paths), UNIT_CASE(unknown_names), UNIT_CASE(format_round_trips),
	  UNIT_CASE(description_and_sizes), UNIT_CASE(memory_tiers), UNIT_CASE(summaries))
