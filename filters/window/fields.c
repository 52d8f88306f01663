/*
 * fields.c — window's checks of single fields: the runs already met (a
 * duplicate run is an error) and the optional positive numbers of a record.
 */
#include "window.h"

#include <math.h>
#include <search.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- runs already finished: a duplicate is an error ------------------- */

static int cmp_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Insert name; returns 0 when it was there already. */
int seen_add(void **seen, const char *name)
{
	char *copy = xstrdup(name), **p = tsearch(copy, seen, cmp_name);

	if (!p)
		die("out of memory");
	if (*p == copy)
		return 1;
	free(copy);
	return 0;
}

/* Clinger's fast path: plain decimals of at most 15 significant digits are
 * an exact integer divided by an exact power of ten, one correctly rounded
 * division, the same double strtod gives. Returns 0 when it applies. */
static int fast_decimal(const char *s, double *out)
{
	static const double p10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
				     1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
	uint64_t m = 0;
	int digits = 0, frac = 0, any = 0;
	const char *p = s;

	for (; *p >= '0' && *p <= '9'; p++, any = 1)
		if (m || *p != '0') {
			m = m * 10 + (uint64_t)(*p - '0');
			digits++;
		}
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++, any = 1, frac++)
			if (m || *p != '0') {
				m = m * 10 + (uint64_t)(*p - '0');
				digits++;
			}
	if (*p != '\0' || !any || digits > 15 || frac > 15)
		return -1;
	*out = (double)m / p10[frac];
	return 0;
}

/* An optional positive number: NAN for "-". */
double opt_positive(struct input *in, int i, const char *what)
{
	double v;

	if (in->f[i][0] == '-' && in->f[i][1] == '\0')
		return NAN;
	if (fast_decimal(in->f[i], &v) == 0 && v > 0)
		return v;
	return record_num(in, i, what, 1);
}
