/*
 * stats.c — the statistics of the filters, each written once: sorting
 * doubles, the median, numpy's pairwise sum and DLPerf's two roundings.
 */
#include "lib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double median_of(double *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* numpy's pairwise summation (umath loops, PW_BLOCKSIZE 128, unrolled by 8). */
double pairwise_sum(const double *a, size_t n)
{
	if (n < 8) {
		double r = 0;
		for (size_t i = 0; i < n; i++)
			r += a[i];
		return r;
	}
	if (n <= 128) {
		double r[8];
		size_t i;
		for (int j = 0; j < 8; j++)
			r[j] = a[j];
		for (i = 8; i < n - n % 8; i += 8)
			for (int j = 0; j < 8; j++)
				r[j] += a[i + j];
		double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
		for (; i < n; i++)
			res += a[i];
		return res;
	}
	size_t n2 = n / 2;
	n2 -= n2 % 8;
	return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
}

double r2n(double x)
{
	/* volatile keeps the product a single rounded double (no FMA, no
	 * extended precision), as numpy computed it. */
	volatile double y = x * 100.0;
	return nearbyint(y) / 100.0;
}

double r2p(double x, int decimals)
{
	char buf[64];

	snprintf(buf, sizeof buf, "%.*f", decimals, x);
	return strtod(buf, NULL);
}

/* The continued fraction of the regularized incomplete beta function
 * (modified Lentz), converging for x < (a + 1) / (a + b + 2). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	d = 1 / (fabs(d) < tiny ? tiny : d);
	h = d;
	for (int m = 1; m <= 1000; m++) {
		for (int odd = 0; odd < 2; odd++) {
			double num =
				odd ? -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
				    : m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
			d = 1 + num * d;
			d = 1 / (fabs(d) < tiny ? tiny : d);
			c = 1 + num / c;
			c = fabs(c) < tiny ? tiny : c;
			h *= d * c;
			if (odd && fabs(d * c - 1) < 1e-15)
				return h;
		}
	}
	return h;
}

/* I_x(a, b), the regularized incomplete beta function. */
static double beta_inc(double a, double b, double x)
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double t_tail2(double t, double df)
{
	return beta_inc(df / 2, 0.5, df / (df + t * t));
}

double t_quantile(double p, double df)
{
	double lo = 0, hi = 1;

	while (1 - t_tail2(hi, df) / 2 < p && hi < 1e300)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double mid = (lo + hi) / 2;
		if (1 - t_tail2(mid, df) / 2 < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

double mad_of(const double *v, size_t n, double center)
{
	double *d = xmalloc((n ? n : 1) * sizeof *d), m;

	for (size_t i = 0; i < n; i++)
		d[i] = fabs(v[i] - center);
	m = median_of(d, n);
	free(d);
	return m;
}

void mean_sd(const double *v, size_t n, double *mean, double *sd)
{
	double m = 0, ss = 0;

	for (size_t i = 0; i < n; i++)
		m += v[i];
	m /= (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - m) * (v[i] - m);
	*mean = m;
	*sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
}
