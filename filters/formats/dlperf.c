/*
 * dlperf.c — what DLPerf's per-format methods share (dlperf.h, doc/dlperf.md):
 * a run's records in file order, the "kept lines" most scripts count from,
 * and numpy's mean. Each format's own method is in its file; window calls
 * it through struct format in DLPerf's mode.
 */
#include "dlperf.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>

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
