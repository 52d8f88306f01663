/*
 * pytorch.c — the PyTorch examples' ImageNet training (main.py), as DLPerf
 * ran it.
 *
 *   Epoch: [0][ 0/53]	Time 12.054 (12.054)	Data 11.102 (11.102)	Loss 6.9828e+00 (…)	…
 *
 * One line per iteration and rank, all ranks in one log: batch b (0-based,
 * restarting each epoch) ends iteration b + 1 of its epoch; Time is the
 * iteration's seconds. The ranks' lines of an iteration become one record:
 * the median time, the first line's loss.
 */
#include "dlperf.h"
#include "formats.h"
#include "scan.h"

#include <math.h>

static int parse(struct scan *sc, const char *s, const char *at, struct it *it)
{
	const char *p = skipb(at + 8), *q;

	(void)s;
	it->epoch = (long)getint(sc, &p, "epoch", "]");
	expect(sc, &p, "]", "Epoch");
	expect(sc, &p, "[", "Epoch");
	it->iter = getint(sc, &p, "batch index", "/") + 1;
	expect(sc, &p, "/", "Epoch");
	getint(sc, &p, "batch count", "]");
	expect(sc, &p, "]", "Epoch");
	q = label(p, "Time");
	it->step = getnum(sc, &q, "Time", NULL, POSITIVE);
	if ((q = label(p, "Loss")) != NULL)
		it->loss = getloss(sc, &q, "Loss", NULL);
	return 1;
}

/* DLPerf: lines past index 6 are kept; TB ÷ the mean Time of kept lines
 * s+1 … s+n, R2p. */
static double dlperf_speed(struct dlperf_run *r)
{
	size_t nk = dlperf_kept(r, 6);
	double sum = 0;

	dlperf_need(r, nk, r->s + r->n, "kept lines");
	for (long i = r->s; i < r->s + r->n; i++) {
		if (isnan(r->lines[i].step))
			dlperf_die(r, "%s: no step_s at iteration %ld", r->name, r->lines[i].iter);
		sum += r->lines[i].step;
	}
	return r2p(r->tb / (sum / (double)r->n), 2);
}

const struct format pytorch_format = {
	.name = "pytorch",
	.display = "PyTorch",
	.rank = 31,
	.anchor = "Epoch: [",
	.then = "Time ",
	.parse = parse,
	.numbering = NUM_EPOCHS,
	.grouped = 1,
	.skip = 20,
	.count = 100,
	.method = METHOD_TIME,
	.dlperf_skip = 20,
	.dlperf_count = 100,
	.dlperf_speed = dlperf_speed,
};
