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
