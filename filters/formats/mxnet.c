/*
 * mxnet.c — MXNet's gluon-cv image classification training.
 *
 *   INFO:root:Epoch[0] Batch[20]	Speed: 384.27 samples/sec	accuracy=0.000000	…
 *
 * One line per iteration: batch b (0-based, restarting each epoch) ends
 * iteration b + 1 of its epoch; Speed is the iteration's rate, from which
 * step_s is derived. A logging stamp before "Epoch[" is read as UTC.
 * DLPerf's matcher reads epoch 0 only. NGC MXNet shares the Speed reading
 * and DLPerf's method (ngc-mxnet.c).
 */
#include "dlperf.h"
#include "families.h"
#include "formats.h"
#include "scan.h"
#include "stamp.h"

#include <stdlib.h>
#include <string.h>

void mxnet_speed(struct scan *sc, const char *p, struct it *it)
{
	const char *q = label(p, "Speed:");

	it->rate = getnum(sc, &q, "Speed", NULL, POSITIVE);
}

static int parse(struct scan *sc, const char *s, const char *at, struct it *it)
{
	const char *e = strstr(s, "Epoch["), *p = skipb(at + 6);

	if (!e || e > at)
		record_die(sc->in, "no 'Epoch[<e>]' before 'Batch['");
	stamp_find(sc, s, e, it);
	e += 6;
	it->epoch = (long)getint(sc, &e, "Epoch", "]");
	it->iter = getint(sc, &p, "batch", "]") + 1;
	mxnet_speed(sc, p, it);
	return 1;
}

/* DLPerf: exactly s + n rows of w lines (one per rank; gluon-cv: w = 1); per
 * row the median of the R2p'd Speeds; the numpy mean of rows
 * (s > 20 ? s − 20 : s) + 1 … s + n, R2n. */
double mxnet_dlperf_rows(struct dlperf_run *r, long w)
{
	long e = r->s + r->n, from = r->s > 20 ? r->s - 20 : r->s;

	long need;
	if (__builtin_mul_overflow(e, w, &need))
		dlperf_die(r, "%s: %zu lines, need exactly %ld rows of %ld", r->name, r->nl, e, w);
	if ((long)r->nl != need)
		dlperf_die(r, "%s: %zu lines, need exactly %ld", r->name, r->nl, need);
	if (e <= from)
		dlperf_die(r, "%s: DLPerf's %s window ends before it starts", r->name, r->format);
	double *v = xmalloc((size_t)(e - from) * sizeof *v);
	double *row = xmalloc((size_t)w * sizeof *row);
	for (long i = from; i < e; i++) {
		for (long j = 0; j < w; j++)
			row[j] = r2p(dlperf_rate(r, &r->lines[i * w + j]), 2);
		v[i - from] = median_of(row, (size_t)w);
	}
	double m = np_mean(v, (size_t)(e - from));
	free(v);
	free(row);
	return r2n(m);
}

static double dlperf_speed(struct dlperf_run *r)
{
	return mxnet_dlperf_rows(r, 1);
}

const struct format mxnet_format = {
	.name = "mxnet",
	.display = "MXNet",
	.rank = 41,
	.anchor = "Batch[",
	.then = "Speed:",
	.parse = parse,
	.numbering = NUM_EPOCHS,
	.derive = DERIVE_RATE,
	.skip = 20,
	.count = 100,
	.method = METHOD_TIME,
	.dlperf_epoch0 = 1,
	.dlperf_skip = 20,
	.dlperf_count = 100,
	.dlperf_speed = dlperf_speed,
};
