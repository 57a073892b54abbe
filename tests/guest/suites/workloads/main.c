/*
 * workloads: every (workload, placement, thp) run, a case per workload,
 * then one geometric-mean score per placement (workloads.h is the manual).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "harness.h"
#include "workloads.h"

#define TOPOLOGY_PATH "/lab/topology"
#define CONF_PATH "/lab/workloads.conf"
#define WSS_CAP ((size_t)64 << 20)

static const struct workload *const all_workloads[NR_WORKLOADS] = {
	&wl_mcf, &wl_omnetpp, &wl_astar, &wl_xalancbmk, &wl_bzip2, &wl_gups, &wl_stream,
};

/*
 * Every (workload, placement, thp) outcome, for the scores: in memory the
 * workload cases' children share with the scores case (harness.h), each
 * OUT_FAIL until its run says otherwise, so a crashed workload fails the
 * scores that need it.
 */
static struct outcome (*outcomes)[NR_PLACEMENTS][2];

/*
 * min(64 MiB, smallest memory node / 8), whole PMDs so THP can back all of
 * it; 64 MiB if no node's MemTotal could be read.
 */
static size_t default_wss(const struct system *s)
{
	size_t unit = (size_t)(s->pmd > 0 ? s->pmd : s->page);
	size_t wss = s->min_node_bytes && s->min_node_bytes / 8 < WSS_CAP ? s->min_node_bytes / 8 : WSS_CAP;

	wss = wss / unit * unit;
	return wss ? wss : unit;
}

static void describe(const struct run_ctx *ctx, const struct placement *pl)
{
	const struct system *s = ctx->sys;

	ktap_diag("wss %zu bytes, reps %d, base page %ld, PMD %ld", ctx->wss, ctx->conf->reps, s->page, s->pmd);
	ktap_diag("home cpu %d on node %d; farthest memory node %d", s->home_cpu, s->home_node, s->far_node);
	if (s->thp_skip[0])
		ktap_diag("THP runs skipped: %s", s->thp_skip);
	for (int k = 0; k < NR_PLACEMENTS; k++)
		ktap_diag("placement %s: %s", pl[k].name, pl[k].skip[0] ? pl[k].skip : pl[k].policy);
}

/*
 * The n-th root of product, which lies in [lo, hi] (the smallest and largest
 * ratio): bisection on g^n, since the guest binaries do not link libm.
 */
static double nth_root(double product, int n, double lo, double hi)
{
	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2, power = 1;

		for (int k = 0; k < n; k++)
			power *= mid;
		if (power < product)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* Why no score can be given, or NULL. */
static const char *score_skip(const struct config *c, int p, int thp)
{
	for (int w = 0; w < NR_WORKLOADS; w++) {
		if (!c->selected[w])
			continue;
		if (outcomes[w][p][thp].status == OUT_SKIP)
			return outcomes[w][p][thp].skip;
		if (outcomes[w][PL_LOCAL][1].status == OUT_SKIP)
			return "no local thp reference run";
	}
	return NULL;
}

static void print_score(const struct config *c, const struct placement *pl, int p, int thp)
{
	char name[96], ratios[512];
	const char *why = score_skip(c, p, thp);
	double product = 1, lo = 0, hi = 0, time_s = 0;
	size_t len = (size_t)snprintf(ratios, sizeof(ratios), "{");
	int n = 0, failed = 0;

	snprintf(name, sizeof(name), "score %s %s", pl[p].name, thp ? "thp" : "nothp");
	if (why) {
		ktap_skip(name, "%s", why);
		return;
	}
	for (int w = 0; w < NR_WORKLOADS; w++) {
		const struct outcome *run = &outcomes[w][p][thp], *ref = &outcomes[w][PL_LOCAL][1];
		double ratio;

		if (!c->selected[w])
			continue;
		if (run->status != OUT_PASS || ref->status != OUT_PASS || ref->ops_per_s <= 0) {
			failed++;
			continue;
		}
		ratio = run->ops_per_s / ref->ops_per_s;
		product *= ratio;
		lo = n == 0 || ratio < lo ? ratio : lo;
		hi = n == 0 || ratio > hi ? ratio : hi;
		time_s += run->time_s;
		len += (size_t)snprintf(ratios + len, len < sizeof(ratios) ? sizeof(ratios) - len : 0,
					"%s%s: %.3f", n++ ? ", " : "", all_workloads[w]->name, ratio);
	}
	if (len < sizeof(ratios))
		snprintf(ratios + len, sizeof(ratios) - len, "}");
	if (failed)
		ktap_diag("%s: %d workload runs (here or under local thp) failed", name, failed);
	ktap_ok(!failed, "%s", name);
	if (failed)
		return;
	yaml_begin();
	yaml_field("score", "%.3f", nth_root(product, n, lo, hi));
	yaml_field("reference", "local thp");
	yaml_field("workloads", "%d", n);
	yaml_field("ratios", "%s", ratios);
	yaml_field("time_s", "%.3f", time_s);
	yaml_end();
}

static struct topology topo;
static struct system sys;
static struct config conf;
static struct run_ctx ctx;
static struct placement pl[NR_PLACEMENTS];

/* The runs of one workload, its placements next to each other. */
static void run_workload(int w)
{
	if (!conf.selected[w])
		return;
	for (int p = 0; p < NR_PLACEMENTS; p++)
		for (int thp = 1; thp >= 0; thp--)
			run_one(&ctx, w, all_workloads[w], &pl[p], thp, &outcomes[w][p][thp]);
}

/*
 * One case per workload of all_workloads[], in its order.  A run is as long
 * as workloads.conf's reps and size make it: a hang is left to the
 * suite's timeout, the case's only catches one well past any run.
 */
#define WORKLOAD_CASE_TIMEOUT_S 3600
#define WORKLOAD_CASE(name, w) \
	GUEST_CASE_TIMEOUT(name, conf.selected[w] ? NR_PLACEMENTS * 2 : 0, WORKLOAD_CASE_TIMEOUT_S) { run_workload(w); }
WORKLOAD_CASE(mcf, 0)
WORKLOAD_CASE(omnetpp, 1)
WORKLOAD_CASE(astar, 2)
WORKLOAD_CASE(xalancbmk, 3)
WORKLOAD_CASE(bzip2, 4)
WORKLOAD_CASE(gups, 5)
WORKLOAD_CASE(stream, 6)
_Static_assert(NR_WORKLOADS == 7, "a WORKLOAD_CASE per entry of all_workloads[]");

GUEST_CASE(scores, NR_PLACEMENTS * 2)
{
	for (int p = 0; p < NR_PLACEMENTS; p++)
		for (int thp = 1; thp >= 0; thp--)
			print_score(&conf, pl, p, thp);
}

int main(int argc, char **argv)
{
	struct topo_error terr;
	char why[WHY_MAX];

	if (config_load(argc > 2 ? argv[2] : CONF_PATH, all_workloads, &conf, why, sizeof(why))) {
		ktap_header(1);
		ktap_ok(0, "workloads.conf: %s", why);
		ktap_exit();
	}
	if (topo_load(argc > 1 ? argv[1] : TOPOLOGY_PATH, &topo, &terr))
		ktap_skip_all("%s", terr.msg);
	if (system_discover(&sys, &topo, why, sizeof(why)))
		ktap_skip_all("%s", why);
	outcomes = mmap(NULL, sizeof(*outcomes) * NR_WORKLOADS, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (outcomes == MAP_FAILED) {
		ktap_header(1);
		ktap_ok(0, "mmap for the outcomes: %s", strerror(errno));
		ktap_exit();
	}
	for (int w = 0; w < NR_WORKLOADS; w++)
		for (int p = 0; p < NR_PLACEMENTS; p++)
			outcomes[w][p][0].status = outcomes[w][p][1].status = OUT_FAIL;
	ctx.sys = &sys;
	ctx.conf = &conf;
	ctx.wss = conf.wss_bytes ? conf.wss_bytes : default_wss(&sys);
	for (int p = 0; p < NR_PLACEMENTS; p++)
		placement_prepare(&sys, p, &pl[p]);
	guest_header();
	describe(&ctx, pl);
	guest_run();
	ktap_exit();
}
