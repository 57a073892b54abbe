/*
 * stats: summaries, Welch's t-test and its p-value, the incomplete beta
 * function and the bootstrap, against values worked out independently:
 * closed forms of the t distribution for 1, 2 and 3 degrees of freedom,
 * Wikipedia's Welch's t-test examples (t 2.46, df 24.9, p 0.021; t 2.22,
 * df 24.5, p 0.036), and, to 12 digits, t and df computed in exact
 * rational arithmetic with p from a 200000-step Simpson integration of the
 * t density (Python's fractions and math.lgamma; no statistics library).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/stats.h"
#include "unit.h"

#define CHECK_NEAR(got, want, tol)                                               \
	do {                                                                     \
		double g_ = (got), w_ = (want);                                  \
		if (!(fabs(g_ - w_) <= (tol))) {                                 \
			printf("#   %s:%d: %s = %.15g, want %.15g (+-%g)\n", __FILE__, \
			       __LINE__, #got, g_, w_, (double)(tol));           \
			unit_failed_checks++;                                    \
		}                                                                \
	} while (0)

#define N(x) (sizeof(x) / sizeof((x)[0]))

static const double wiki1_a[] = { 27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1,
				  21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4 };
static const double wiki1_b[] = { 27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0,
				  24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4 };
static const double wiki2_a[] = { 19.8, 20.4, 19.6, 17.8, 18.5, 18.9, 18.3, 18.9, 19.5, 22.0 };
static const double wiki2_b[] = { 28.2, 26.6, 20.1, 23.3, 25.2, 22.1, 17.7, 27.6, 20.6, 13.7,
				  23.2, 17.5, 20.6, 18.0, 23.9, 21.6, 24.3, 20.4, 23.9, 13.3 };

UNIT_TEST(summary_of_small_samples)
{
	static const double odd[] = { 5, 1, 4, 2, 3 }, even[] = { 10, 40, 20, 30 }, one[] = { 7 };
	struct stats_summary s;

	stats_summarise(odd, N(odd), &s);
	CHECK_INT(s.n, 5);
	CHECK_NEAR(s.mean, 3, 1e-15);
	CHECK_NEAR(s.median, 3, 0);
	CHECK_NEAR(s.stddev, sqrt(2.5), 1e-15);
	CHECK_NEAR(s.min, 1, 0);
	CHECK_NEAR(s.max, 5, 0);
	CHECK_NEAR(odd[0], 5, 0);    /* the input is not sorted in place */
	stats_summarise(even, N(even), &s);
	CHECK_NEAR(s.median, 25, 0);
	CHECK_NEAR(s.stddev, sqrt(500.0 / 3), 1e-12);
	stats_summarise(one, 1, &s);
	CHECK_NEAR(s.stddev, 0, 0);
	CHECK_NEAR(s.median, 7, 0);
	stats_summarise(one, 0, &s);
	CHECK_INT(s.n, 0);
}

UNIT_TEST(large_counters_keep_their_precision)
{
	static const double x[] = { 1e15 + 1, 1e15 + 2, 1e15 + 3 };
	struct stats_summary s;

	stats_summarise(x, N(x), &s);
	CHECK_NEAR(s.stddev, 1, 1e-9);
}

UNIT_TEST(t_pvalue_matches_closed_forms)
{
	double t = 2.5;

	/* df 1 (Cauchy): 1 - 2/pi atan|t|.  df 2: 1 - |t|/sqrt(2 + t^2). */
	CHECK_NEAR(stats_t_pvalue(1, 1), 0.5, 1e-13);
	CHECK_NEAR(stats_t_pvalue(-3, 1), 1 - 2 / M_PI * atan(3), 1e-13);
	CHECK_NEAR(stats_t_pvalue(2, 2), 1 - 2 / sqrt(6), 1e-13);
	/* df 3: 1 - 2/pi (atan(t/sqrt3) + (t/sqrt3) / (1 + t^2/3)). */
	CHECK_NEAR(stats_t_pvalue(t, 3),
		   1 - 2 / M_PI * (atan(t / sqrt(3)) + (t / sqrt(3)) / (1 + t * t / 3)), 1e-13);
	CHECK_NEAR(stats_t_pvalue(0, 5), 1, 1e-15);
	CHECK_NEAR(stats_t_pvalue(INFINITY, 5), 0, 0);
}

UNIT_TEST(t_pvalue_matches_numerical_integration)
{
	CHECK_NEAR(stats_t_pvalue(2.228, 10), 0.0500117718171, 1e-11);   /* the 5% table value */
	CHECK_NEAR(stats_t_pvalue(1.5, 7.5), 0.174480570586, 1e-11);
	CHECK_NEAR(stats_t_pvalue(3.0, 30), 0.00538996406565, 1e-12);
}

UNIT_TEST(incomplete_beta_edges_and_symmetry)
{
	CHECK_NEAR(stats_incbeta(0, 2, 3), 0, 0);
	CHECK_NEAR(stats_incbeta(1, 2, 3), 1, 0);
	/* I_x(1, 1) = x; I_x(a, 1) = x^a; I_x(a, b) = 1 - I_{1-x}(b, a). */
	CHECK_NEAR(stats_incbeta(0.3, 1, 1), 0.3, 1e-14);
	CHECK_NEAR(stats_incbeta(0.7, 3, 1), 0.343, 1e-14);
	CHECK_NEAR(stats_incbeta(0.2, 2.5, 4) + stats_incbeta(0.8, 4, 2.5), 1, 1e-14);
	CHECK(isnan(stats_incbeta(1.5, 1, 1)));
	CHECK(isnan(stats_incbeta(0.5, 0, 1)));
}

UNIT_TEST(welch_wikipedia_examples)
{
	struct stats_welch w;

	stats_welch(wiki1_a, N(wiki1_a), wiki1_b, N(wiki1_b), &w);
	CHECK(w.valid);
	CHECK_NEAR(w.t, 2.45535639829, 1e-10);
	CHECK_NEAR(w.df, 24.9885292902, 1e-9);
	CHECK_NEAR(w.p, 0.0213780014629, 1e-11);
	stats_welch(wiki2_a, N(wiki2_a), wiki2_b, N(wiki2_b), &w);
	CHECK_NEAR(w.t, 2.22551203997, 1e-10);
	CHECK_NEAR(w.df, 24.5246349443, 1e-9);
	CHECK_NEAR(w.p, 0.03548453083, 1e-10);
	/* Swapping the samples flips t only. */
	stats_welch(wiki2_b, N(wiki2_b), wiki2_a, N(wiki2_a), &w);
	CHECK_NEAR(w.t, -2.22551203997, 1e-10);
	CHECK_NEAR(w.p, 0.03548453083, 1e-10);
}

UNIT_TEST(welch_degenerate_samples)
{
	static const double one[] = { 1 }, ones[] = { 1, 1, 1 }, twos[] = { 2, 2 };
	struct stats_welch w;

	stats_welch(one, 1, ones, 3, &w);
	CHECK(!w.valid);
	stats_welch(ones, 3, ones, 3, &w);
	CHECK(w.valid);
	CHECK_NEAR(w.p, 1, 0);
	stats_welch(ones, 3, twos, 2, &w);
	CHECK(isinf(w.t) && w.t > 0);
	CHECK_NEAR(w.p, 0, 0);
}

/* As R's p.adjust(p, "BH"): sorted 0.005 0.01 0.03 0.04 -> 0.02 0.02 0.04 0.04. */
UNIT_TEST(benjamini_hochberg)
{
	static const double p[] = { 0.01, 0.04, 0.03, 0.005 }, one[] = { 0.3 }, big[] = { 0.9, 0.8 };
	double q[4];

	stats_bh_adjust(p, 4, q);
	CHECK_NEAR(q[0], 0.02, 1e-15);
	CHECK_NEAR(q[1], 0.04, 1e-15);
	CHECK_NEAR(q[2], 0.04, 1e-15);
	CHECK_NEAR(q[3], 0.02, 1e-15);
	stats_bh_adjust(one, 1, q);
	CHECK_NEAR(q[0], 0.3, 0);
	stats_bh_adjust(big, 2, q);    /* 2 * 0.8 / 1 caps at the running minimum 0.9 */
	CHECK_NEAR(q[0], 0.9, 1e-15);
	CHECK_NEAR(q[1], 0.9, 1e-15);
}

UNIT_TEST(rng_is_seeded_and_unbiased)
{
	struct stats_rng a = { 42 }, b = { 42 }, c = { 43 };
	unsigned counts[3] = { 0 };
	uint64_t first = stats_rng_next(&a);

	CHECK(first == stats_rng_next(&b));
	CHECK(first != stats_rng_next(&c));
	for (int i = 0; i < 30000; i++)
		counts[stats_rng_below(&a, 3)]++;
	for (int k = 0; k < 3; k++)
		CHECK(counts[k] > 9500 && counts[k] < 10500);
}

UNIT_TEST(bootstrap_interval)
{
	double lo, hi, lo2, hi2, change;
	struct stats_summary sa, sb;

	stats_summarise(wiki1_a, N(wiki1_a), &sa);
	stats_summarise(wiki1_b, N(wiki1_b), &sb);
	change = 100 * (sb.mean - sa.mean) / sa.mean;
	CHECK(!stats_bootstrap_ci(wiki1_a, N(wiki1_a), wiki1_b, N(wiki1_b), 4000, 0.95, 7, &lo, &hi));
	/* The observed change lies inside; p = 0.021 < 0.05, so 0 lies outside. */
	CHECK(lo < change && change < hi);
	CHECK(lo > 0);
	CHECK(hi < 25);
	/* Same seed, same interval; a wider level, a wider interval. */
	CHECK(!stats_bootstrap_ci(wiki1_a, N(wiki1_a), wiki1_b, N(wiki1_b), 4000, 0.95, 7, &lo2, &hi2));
	CHECK(lo == lo2 && hi == hi2);
	CHECK(!stats_bootstrap_ci(wiki1_a, N(wiki1_a), wiki1_b, N(wiki1_b), 4000, 0.999, 7, &lo2, &hi2));
	CHECK(lo2 < lo && hi2 > hi);
	CHECK(stats_bootstrap_ci(wiki1_a, 1, wiki1_b, N(wiki1_b), 4000, 0.95, 7, &lo, &hi) == -1);
}

/* Wilson's interval against values computed by hand from its formula. */
UNIT_TEST(wilson_interval)
{
	double lo, hi;

	/* p = 0.5, n = 100: 0.5 -+ 1.96 * sqrt(0.0025 + 0.000096) / 1.038416 */
	stats_wilson(0.5, 100, 1.96, &lo, &hi);
	CHECK(fabs(lo - 0.40383) < 1e-4 && fabs(hi - 0.59617) < 1e-4);
	/* All 20 killed: the upper end is 1, the lower 20 / (20 + 1.96^2). */
	stats_wilson(1, 20, 1.96, &lo, &hi);
	CHECK(fabs(lo - 20 / (20 + 1.96 * 1.96)) < 1e-9 && fabs(hi - 1) < 1e-12);
	/* None: the mirror image. */
	stats_wilson(0, 20, 1.96, &lo, &hi);
	CHECK(fabs(lo) < 1e-12 && fabs(hi - 1.96 * 1.96 / (20 + 1.96 * 1.96)) < 1e-9);
	/* More trials, a narrower interval around the same p. */
	double lo2, hi2;
	stats_wilson(0.9, 400, 1.96, &lo2, &hi2);
	stats_wilson(0.9, 100, 1.96, &lo, &hi);
	CHECK(lo < lo2 && hi2 < hi && lo2 < 0.9 && 0.9 < hi2);
}

UNIT_MAIN(UNIT_CASE(summary_of_small_samples), UNIT_CASE(large_counters_keep_their_precision),
	  UNIT_CASE(t_pvalue_matches_closed_forms), UNIT_CASE(t_pvalue_matches_numerical_integration),
	  UNIT_CASE(incomplete_beta_edges_and_symmetry), UNIT_CASE(welch_wikipedia_examples),
	  UNIT_CASE(welch_degenerate_samples), UNIT_CASE(benjamini_hochberg),
	  UNIT_CASE(rng_is_seeded_and_unbiased),
	  UNIT_CASE(bootstrap_interval), UNIT_CASE(wilson_interval))
