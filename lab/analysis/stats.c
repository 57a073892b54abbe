#include "analysis/stats.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

void stats_summarise(const double *x, size_t n, struct stats_summary *out)
{
	double *sorted, sum = 0, squares = 0;

	memset(out, 0, sizeof(*out));
	if (!n)
		return;
	sorted = xmalloc(n * sizeof(*sorted));
	memcpy(sorted, x, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	for (size_t i = 0; i < n; i++)
		sum += x[i];
	out->n = n;
	out->mean = sum / (double)n;
	/* Two passes: the squares of deviations, not of values, so large counters keep their precision. */
	for (size_t i = 0; i < n; i++)
		squares += (x[i] - out->mean) * (x[i] - out->mean);
	out->stddev = n > 1 ? sqrt(squares / (double)(n - 1)) : 0;
	out->median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	out->min = sorted[0];
	out->max = sorted[n - 1];
	free(sorted);
}

/*
 * The continued fraction of I_x(a, b) (Numerical Recipes' betacf, modified
 * Lentz); converges fast for x < (a + 1) / (a + b + 2).
 */
static double incbeta_cf(double x, double a, double b)
{
	const double tiny = 1e-300, eps = 1e-15;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	d = 1 / (fabs(d) < tiny ? tiny : d);
	h = d;
	for (int m = 1; m <= 1000; m++) {
		double aa, delta;

		/* The even step, then the odd step of the fraction. */
		aa = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		d = 1 + aa * d;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
		d = 1 + aa * d;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		delta = d * c;
		h *= delta;
		if (fabs(delta - 1) < eps)
			break;
	}
	return h;
}

double stats_incbeta(double x, double a, double b)
{
	double front;

	if (!(a > 0) || !(b > 0) || !(x >= 0) || !(x <= 1))
		return NAN;
	if (x == 0 || x == 1)
		return x;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * incbeta_cf(x, a, b) / a;
	return 1 - front * incbeta_cf(1 - x, b, a) / b;
}

double stats_t_pvalue(double t, double df)
{
	if (isinf(t))
		return 0;
	return stats_incbeta(df / (df + t * t), df / 2, 0.5);
}

void stats_welch(const double *a, size_t na, const double *b, size_t nb, struct stats_welch *out)
{
	struct stats_summary sa, sb;
	double va, vb;

	memset(out, 0, sizeof(*out));
	if (na < 2 || nb < 2)
		return;
	stats_summarise(a, na, &sa);
	stats_summarise(b, nb, &sb);
	out->valid = 1;
	va = sa.stddev * sa.stddev / (double)na;
	vb = sb.stddev * sb.stddev / (double)nb;
	if (va + vb == 0) {
		out->t = sa.mean == sb.mean ? 0 : sb.mean > sa.mean ? INFINITY : -INFINITY;
		out->df = (double)(na + nb - 2);
		out->p = sa.mean == sb.mean ? 1 : 0;
		return;
	}
	out->t = (sb.mean - sa.mean) / sqrt(va + vb);
	out->df = (va + vb) * (va + vb) / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
	out->p = stats_t_pvalue(out->t, out->df);
}

struct ranked {
	double p;
	size_t index;
};

static int cmp_ranked(const void *x, const void *y)
{
	const struct ranked *a = x, *b = y;

	return (a->p > b->p) - (a->p < b->p);
}

void stats_bh_adjust(const double *p, size_t n, double *q)
{
	struct ranked *r = xmalloc((n ? n : 1) * sizeof(*r));
	double running = 1;

	for (size_t i = 0; i < n; i++)
		r[i] = (struct ranked){ p[i], i };
	qsort(r, n, sizeof(*r), cmp_ranked);
	for (size_t i = n; i-- > 0;) {
		double adjusted = r[i].p * (double)n / (double)(i + 1);

		running = adjusted < running ? adjusted : running;
		q[r[i].index] = running;
	}
	free(r);
}

uint64_t stats_rng_next(struct stats_rng *r)
{
	uint64_t z = (r->state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

uint64_t stats_rng_below(struct stats_rng *r, uint64_t n)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % n, v;

	do
		v = stats_rng_next(r);
	while (v >= limit);
	return v % n;
}

static double resampled_mean(struct stats_rng *r, const double *x, size_t n)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += x[stats_rng_below(r, n)];
	return sum / (double)n;
}

int stats_bootstrap_ci(const double *a, size_t na, const double *b, size_t nb,
		       unsigned iterations, double conf, uint64_t seed, double *lo, double *hi)
{
	struct stats_rng rng = { seed };
	struct stats_summary sa;
	double *change;
	size_t low, high;

	stats_summarise(a, na, &sa);
	if (na < 2 || nb < 2 || sa.mean == 0 || iterations < 100 || !(conf > 0 && conf < 1))
		return -1;
	change = xmalloc(iterations * sizeof(*change));
	for (unsigned i = 0; i < iterations; i++) {
		double mean_a = resampled_mean(&rng, a, na), mean_b = resampled_mean(&rng, b, nb);

		/* Relative to the observed mean of A: a resample's mean may be 0. */
		change[i] = 100 * (mean_b - mean_a) / fabs(sa.mean);
	}
	qsort(change, iterations, sizeof(*change), cmp_double);
	low = (size_t)floor((1 - conf) / 2 * iterations);
	high = (size_t)ceil((1 + conf) / 2 * iterations) - 1;
	*lo = change[low];
	*hi = change[high < iterations ? high : iterations - 1];
	free(change);
	return 0;
}

void stats_wilson(double p, double n, double z, double *lo, double *hi)
{
	double z2n = z * z / n, centre = p + z2n / 2, half = z * sqrt(p * (1 - p) / n + z2n / (4 * n));

	*lo = (centre - half) / (1 + z2n);
	*hi = (centre + half) / (1 + z2n);
	*lo = *lo < 0 ? 0 : *lo;
	*hi = *hi > 1 ? 1 : *hi;
}
