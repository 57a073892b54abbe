/*
 * try's verdict without VMs: a matrix output of base and patched cells
 * written here (as `numalab try` lays it out), compared and judged: broken
 * tests carry what they printed, a counter claim holds or does not, times
 * under TCG are not judged, facts that differ are found; and the four
 * outputs (the text pinned by a golden file; HTML without scripts).
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/try_report.h"
#include "unit.h"

static char *root;

static const char meta[] =
	"topology: 2node (topologies/2node.topo)\n"
	"kernel: stock recipe-key 0820156b9001f0a5\n"
	"qemu: QEMU emulator version 7.2.22\n"
	"accel: tcg: kvm probe: qemu exited with status 1 after 0.0 s\n"
	"host_numa: none\n"
	"guest: nodes_online: 0-1\n"
	"guest: node0.cpus: 0-1\n"
	"guest: node1.cpus: 2-3\n";

/*
 * OUT/matrix/cells/2node.LABEL.mempolicy.rREP/RUN/2node.stock: the bulk
 * test fails patched, after saying which map went wrong; bulk_calls falls;
 * khugepaged's CPUs follow the node patched.
 */
static void cell(const char *label, int rep, int patched, double time_s)
{
	char *run = xprintf("%s/matrix/cells/2node.%s.mempolicy.r%d/run-%d", root, label, rep, rep);
	char *dir = xprintf("%s/2node.stock", run);
	char *tap = xprintf(
		"KTAP version 1\n1..1\n"
		"    # Subtest: mempolicy\n    KTAP version 1\n    1..2\n"
		"    ok 1 interleave 2 nodes\n"
		"    # map 2 (45 pages): model N0=31 N1=14, kernel N0=%d N1=%d\n"
		"    %s 2 bulk weighted interleave weights 20,7\n"
		"    # metric: bulk_calls.map2_45_pages %d (1 calls of <= 100)\n"
		"    # metric: collapse_wait_s %.2f\n"
		"    # metric: node0.khugepaged_cpus_allowed 0-3 -> %s\n"
		"%s 1 mempolicy%s\n",
		patched ? 38 : 31, patched ? 7 : 14, patched ? "not ok" : "ok", patched ? 1 : 2, time_s,
		patched ? "0-1" : "0-3", patched ? "not ok" : "ok", patched ? " # exit 1" : "");

	unit_put(dir, "meta", meta);
	unit_put(dir, "tap", tap);
	unit_put(run, "state", "complete\n");
	free(run);
	free(dir);
	free(tap);
}

/* A shape's three runs a side, compared and judged as try_run() does. */
static void judge(struct comparison *c, struct try_report *r, struct try_identity *id,
		  const struct try_claim *claims, int nr_claims)
{
	struct cmp_options o;
	struct error err;

	cmp_options_default(&o);
	o.correct_bh = 1;
	o.filter_a.cells = "*cells/*.base.*";
	o.filter_b.cells = "*cells/*.patched.*";
	CHECK_INT(compare_run(c, root, root, &o, &err), 0);
	memset(id, 0, sizeof(*id));
	id->title = "numalab try: 1 patch on stock";
	strvec_push(&id->kernels, "base x86_64: stock recipe-key 0820156b9001f0a5");
	strvec_push(&id->kernels, "patched x86_64: stock+1patches recipe-key 2e225bdff498510f");
	strvec_push(&id->patches, "mm/mempolicy: simplify (01-fix.patch sha256:85)");
	strvec_push(&id->shapes, "2node");
	id->repeat = 3;
	id->repeat_why = "the default";
	memset(r, 0, sizeof(*r));
	r->c = c;
	r->id = id;
	r->claims = claims;
	r->nr_claims = nr_claims;
	try_judge(r);
}

static void identity_free(struct try_identity *id)
{
	strvec_clear(&id->kernels);
	strvec_clear(&id->patches);
	strvec_clear(&id->shapes);
}

static void setup(void)
{
	root = unit_scratch("try");
	for (int rep = 1; rep <= 3; rep++) {
		cell("base", rep, 0, 0.02 * rep);
		cell("patched", rep, 1, 0.05 * rep);
	}
	/* A set-aside attempt is not a cell of either side. */
	{
		char *aside = xprintf("%s/matrix/partial/2node.patched.mempolicy.r1.1/run/2node.stock", root);

		unit_put(aside, "meta", meta);
		unit_put(aside, "tap", "KTAP version 1\n1..1\nnot ok 1 mempolicy\n");
		unit_put(aside, "../state", "interrupted\n");
		free(aside);
	}
}

UNIT_TEST(claims_parse)
{
	struct try_claim cl;
	struct error err;

	CHECK_INT(try_claim_parse("bulk_calls decreases", &cl, &err), 0);
	CHECK_STR(cl.metric, "bulk_calls");
	CHECK_INT(cl.dir, TRY_DECREASES);
	CHECK_INT(try_claim_parse("score unchanged", &cl, &err), 0);
	CHECK_INT(cl.dir, TRY_UNCHANGED);
	CHECK_INT(try_claim_parse("bulk_calls goes down", &cl, &err), -1);
	CHECK(strstr(err.msg, "'METRIC decreases'") && err.kind == ERROR_INPUT);
	CHECK_INT(try_claim_parse("bulk_calls decreases a lot", &cl, &err), -1);
	CHECK_INT(try_claim_parse("", &cl, &err), -1);
}

/* Mutant this catches: a judge that counts only suite results misses the bulk test. */
UNIT_TEST(broken_tests_claims_facts_and_not_judged)
{
	struct try_claim claims[3];
	struct error err;
	struct comparison c;
	struct try_report r;
	struct try_identity id;
	struct buf text = BUF_INIT;

	CHECK_INT(try_claim_parse("bulk_calls decreases", &claims[0], &err), 0);
	CHECK_INT(try_claim_parse("bulk_calls increases", &claims[1], &err), 0);
	CHECK_INT(try_claim_parse("collapse_wait_s decreases", &claims[2], &err), 0);
	setup();
	judge(&c, &r, &id, claims, 3);
	CHECK_INT((int)r.nr_shapes, 1);
	CHECK_INT((int)r.shapes[0].broken, 2);   /* the suite and its bulk test */
	CHECK(r.shapes[0].emulated && r.shapes[0].tcg);
	CHECK_INT((int)r.shapes[0].facts_differ, 1);
	CHECK_INT((int)r.shapes[0].changed, 1);      /* bulk_calls: a counter */
	CHECK_INT((int)r.shapes[0].regressed, 0);    /* collapse_wait_s: a time under TCG */
	CHECK_INT((int)r.shapes[0].not_judged, 1);
	CHECK_INT(r.overall[0].judged, TRY_HOLDS);
	CHECK_INT(r.overall[1].judged, TRY_DOES_NOT_HOLD);
	CHECK_INT(r.overall[2].judged, TRY_CANNOT_JUDGE);
	CHECK(strstr(r.shapes[0].claims[2].why, "emulated") != NULL);
	CHECK(r.regression);
	/* The set-aside attempt is neither a cell nor a note: the filters come first. */
	CHECK_INT((int)c.a.nr_cells + (int)c.b.nr_cells, 6);
	for (size_t i = 0; i < c.notes.nr; i++)
		CHECK(!strstr(c.notes.items[i], "partial"));
	/* The failure says what was wrong, in its own words. */
	for (size_t i = 0; i < c.nr_tests; i++)
		if (!strcmp(c.tests[i].test, "bulk weighted interleave weights 20,7"))
			CHECK(c.tests[i].detail_b && strstr(c.tests[i].detail_b, "kernel N0=38 N1=7"));
	try_report_text(&r, &text);
	unit_golden("tests/host/unit/golden/try/report.txt", buf_str(&text), text.len);
	text.len = 0;
	try_report_html(&r, &text);
	CHECK(!strstr(buf_str(&text), "<script") && strstr(buf_str(&text), "default-src 'none'"));
	CHECK(strstr(buf_str(&text), "<svg") && strstr(buf_str(&text), "kernel N0=38 N1=7"));
	text.len = 0;
	try_report_tap(&r, &text);
	CHECK(strstr(buf_str(&text), "1..5\n") && strstr(buf_str(&text), "not ok 4 - 2node tests: 2 broken"));
	CHECK(strstr(buf_str(&text), "ok 3 - claim collapse_wait_s decreases: cannot be judged here # SKIP"));
	text.len = 0;
	try_report_json(&r, &text);
	CHECK(strstr(buf_str(&text), "\"verdict\": \"regression\", \"exit\": 1"));
	buf_free(&text);
	try_report_free(&r);
	identity_free(&id);
	compare_free(&c);
	remove_tree(root);
	free(root);
}

/* Without the claim that does not hold and the broken test, no regression. */
UNIT_TEST(no_regression_when_only_counters_move)
{
	struct try_claim claim;
	struct error err;
	struct comparison c;
	struct try_report r;
	struct try_identity id;

	setup();
	for (int rep = 1; rep <= 3; rep++) {
		char *run = xprintf("%s/matrix/cells/2node.patched.mempolicy.r%d/run-%d", root, rep, rep);
		char *dir = xprintf("%s/2node.stock", run);

		unit_put(dir, "tap", "KTAP version 1\n1..1\n    # Subtest: mempolicy\n    KTAP version 1\n    1..2\n"
			"    ok 1 interleave 2 nodes\n    ok 2 bulk weighted interleave weights 20,7\n"
			"    # metric: bulk_calls.map2_45_pages 1\n    # metric: collapse_wait_s 0.9\n"
			"ok 1 mempolicy\n");
		free(run);
		free(dir);
	}
	CHECK_INT(try_claim_parse("bulk_calls decreases", &claim, &err), 0);
	judge(&c, &r, &id, &claim, 1);
	CHECK_INT((int)r.shapes[0].broken, 0);
	CHECK_INT(r.overall[0].judged, TRY_HOLDS);
	CHECK(!r.regression);
	try_report_free(&r);
	identity_free(&id);
	compare_free(&c);
	remove_tree(root);
	free(root);
}

UNIT_MAIN(UNIT_CASE(claims_parse), UNIT_CASE(broken_tests_claims_facts_and_not_judged),
	  UNIT_CASE(no_regression_when_only_counters_move))
