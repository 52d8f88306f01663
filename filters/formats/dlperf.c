/*
 * dlperf.c — what DLPerf's per-format methods share (doc/dlperf.md): a
 * run's records in file order, their timestamps, the "kept lines" most
 * scripts count from, and numpy's mean. Each format's own method is in its
 * file; window calls it through struct format in DLPerf's mode.
 */
#include "formats.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>

int parse_stamp(const char *s, struct stamp *t, int want_d)
{
	const char *p = s;
	long long sec = 0, usec = 0;
	int fd = 0, id = 0;

	for (; digit(*p); p++, id++)
		if (id < 18)
			sec = sec * 10 + (*p - '0');
	if (id == 0 || id > 18)
		return -1;
	if (*p == '.') {
		for (p++; digit(*p); p++, fd++)
			if (fd < 6)
				usec = usec * 10 + (*p - '0');
		if (fd == 0)
			return -1;
	}
	if (*p != '\0')
		return -1;
	for (int i = fd; i < 6; i++)
		usec *= 10;
	t->present = 1;
	t->exact = fd <= 6;
	t->sec = sec;
	t->usec = usec;
	t->d = want_d ? strtod(s, NULL) : 0;
	return 0;
}

double stamp_diff(const struct stamp *a, const struct stamp *b)
{
	if (a->exact && b->exact)
		return (double)((b->sec - a->sec) * 1000000 + (b->usec - a->usec)) / 1e6;
	return b->d - a->d;
}

size_t dlperf_kept(struct dlperf_run *r, long drop)
{
	size_t k = 0;

	for (size_t i = 0; i < r->nl; i++)
		if (r->lines[i].iter > drop)
			r->lines[k++] = r->lines[i];
	return k;
}

void dlperf_die(const struct dlperf_run *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie_at(r->file, r->line, fmt, ap);
}

void dlperf_need(struct dlperf_run *r, size_t have, long need, const char *what)
{
	if ((long)have < need)
		dlperf_die(r, "%s: %zu %s, need %ld", r->name, have, what, need);
}

double dlperf_rate(struct dlperf_run *r, const struct line *l)
{
	if (isnan(l->rate))
		dlperf_die(r, "%s: no samples_per_s at iteration %ld", r->name, l->iter);
	return l->rate;
}

double np_mean(const double *v, size_t n)
{
	return pairwise_sum(v, n) / (double)n;
}

double dlperf_rate_mean(struct dlperf_run *r, long from, long to, int round2)
{
	double *v = xmalloc((size_t)(to - from) * sizeof *v), m;

	for (long i = from; i < to; i++) {
		double x = dlperf_rate(r, &r->lines[i]);
		v[i - from] = round2 ? r2p(x, 2) : x;
	}
	m = np_mean(v, (size_t)(to - from));
	free(v);
	return m;
}
