/*
 * stats: the statistics `numalab compare` needs, on plain arrays of doubles.
 *
 * Sample statistics (stats_summarise): n, mean, median, the sample standard
 * deviation (n - 1 in the denominator; 0 when n < 2), min, max.
 *
 * Welch's t-test (stats_welch) for two samples of unequal variance:
 *   t  = (mean_b - mean_a) / sqrt(s_a^2/n_a + s_b^2/n_b)
 *   df = (s_a^2/n_a + s_b^2/n_b)^2 / ((s_a^2/n_a)^2/(n_a-1) + (s_b^2/n_b)^2/(n_b-1))
 *   p  = two-sided, from the Student t distribution with df degrees of freedom:
 *        I_{df/(df+t^2)}(df/2, 1/2), the regularized incomplete beta function
 *        (stats_incbeta, a continued fraction evaluated by the modified Lentz
 *        method).
 * It needs n >= 2 on both sides (valid = 0 otherwise).  When both variances
 * are 0 the means decide: equal gives t = 0, p = 1; different gives
 * t = +-INFINITY, p = 0 (a constant that changed is certain).
 *
 * Bootstrap (stats_bootstrap_ci): a percentile confidence interval of
 * 100 * (mean_b - mean_a) / |mean_a| from resampling both samples with
 * replacement, using a seeded PRNG (splitmix64) so the same inputs and
 * seed give the same interval.  Needs n >= 2 on both sides and mean_a != 0.
 *
 * No allocation survives a call; inputs are never modified.
 */
#ifndef LAB_STATS_H
#define LAB_STATS_H

#include <stddef.h>
#include <stdint.h>

struct stats_summary {
	size_t n;
	double mean, median, stddev, min, max;
};

/* All fields 0 when n == 0. */
void stats_summarise(const double *x, size_t n, struct stats_summary *out);

struct stats_welch {
	int valid;          /* 0: fewer than 2 samples on a side */
	double t, df, p;
};

void stats_welch(const double *a, size_t na, const double *b, size_t nb, struct stats_welch *out);

/* Two-sided p-value of t with df > 0 degrees of freedom. */
double stats_t_pvalue(double t, double df);

/* I_x(a, b) for a, b > 0 and 0 <= x <= 1; NAN outside that domain. */
double stats_incbeta(double x, double a, double b);

/*
 * Benjamini-Hochberg adjusted p-values (q) of n tests, in the order given:
 * q_(i) = min over j >= i of n/j * p_(j) (p sorted ascending), at most 1.
 * Controls the false discovery rate when many metrics are tested at once.
 */
void stats_bh_adjust(const double *p, size_t n, double *q);

/*
 * Wilson's score interval of a proportion p observed on n (> 0) trials, at
 * z standard errors (1.96: 95%):
 *   (p + z^2/2n -+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)
 * Unlike p -+ z sqrt(p(1-p)/n) it stays inside [0, 1] and is not empty at
 * p = 0 or 1 (all killed in a small sample still leaves doubt).  n may be
 * fractional (an effective sample size, as mutate's weighted sample gives).
 */
void stats_wilson(double p, double n, double z, double *lo, double *hi);

/* A seeded pseudo-random sequence (splitmix64). */
struct stats_rng {
	uint64_t state;
};
uint64_t stats_rng_next(struct stats_rng *r);
/* Uniform in [0, n), n > 0 (rejection sampling: no modulo bias). */
uint64_t stats_rng_below(struct stats_rng *r, uint64_t n);

/*
 * Percentile interval at level conf (e.g. 0.95) of the % change of the mean
 * over iterations resamples.  Returns 0 and sets lo, hi; -1 when it cannot be
 * computed (n < 2 on a side, mean_a == 0, iterations < 100).
 */
int stats_bootstrap_ci(const double *a, size_t na, const double *b, size_t nb,
		       unsigned iterations, double conf, uint64_t seed, double *lo, double *hi);

#endif
