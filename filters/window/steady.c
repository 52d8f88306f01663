/*
 * steady.c — how steady a window was, from its per-step rates: the jitter
 * inside it (1.4826 x the median absolute deviation, the standard
 * deviation's robust estimate for normal data, over the median rate, in %)
 * and its drift (the median rate of the window's second half against its
 * first half, in %). A window whose rate climbs or sinks beyond window's
 * -d threshold was not in steady state (warm-up not over, throttling,
 * another job on the machine). From the same steps, window -m
 * median-step's throughput: TB over the median of the records' step_s per
 * iteration (the mean of the middle two for an even count), robust to a
 * few steps stalled by other work on the machine.
 */
#include "window.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int steady_of(const double *rates, size_t n, struct steady *s)
{
	if (n < 2)
		return -1;
	size_t h = n / 2;
	double *v = xmalloc(n * sizeof *v), med, first, second;

	memcpy(v, rates, n * sizeof *v);
	first = median_of(v, h);
	memcpy(v, rates + (n - h), h * sizeof *v);
	second = median_of(v, h);
	memcpy(v, rates, n * sizeof *v);
	med = median_of(v, n);
	s->jitter = 1.4826 * mad_of(v, n, med) / med * 100;
	s->drift = (second - first) / first * 100;
	free(v);
	return 0;
}

/* "-" for the three when the window has fewer than two steps or a step of
 * no time (stamps of whole seconds). */
void steady_columns(const char *run, const struct wstep *steps, size_t n, double tb, int source,
		    double threshold)
{
	double *rates = xmalloc((n ? n : 1) * sizeof *rates);
	struct steady st;
	int ok = 1;

	for (size_t i = 0; i < n; i++) {
		const struct wstep *w = &steps[i];
		rates[i] = source == 't'   ? w->iters * tb / w->dt
			   : source == 's' ? w->iters * tb / w->step
					   : w->rate;
		ok &= isfinite(rates[i]) && rates[i] > 0;
	}
	ok = ok && steady_of(rates, n, &st) == 0 && isfinite(st.jitter) && isfinite(st.drift);
	free(rates);
	if (!ok) {
		printf("\t-\t-\t-");
		return;
	}
	int drifting = fabs(st.drift) > threshold;
	if (drifting)
		warnf("%s: not in steady state: the median rate of the window's second half is "
		      "%+.1f %% off its first half (-d %g)",
		      run, st.drift, threshold);
	printf("\t%.2f\t%.2f\t%s", st.jitter, r2p(st.drift, 2) == 0 ? 0.0 : st.drift,
	       drifting ? "drift" : "steady");
}

double median_step_speed(const struct wstep *steps, size_t n, double tb)
{
	double *t = xmalloc((n ? n : 1) * sizeof *t), m;

	for (size_t i = 0; i < n; i++)
		t[i] = steps[i].step / steps[i].iters;
	m = n ? median_of(t, n) : NAN;
	free(t);
	return tb / m;
}
