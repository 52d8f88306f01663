/*
 * oneflow-insightface.c — OneFlow's InsightFace (face recognition) benchmark.
 *
 *   train: iter 25, loss: 43.861, throughput: 1925.433
 *
 * One line per iteration, numbered from 1 as printed, with the rate of that
 * iteration and nothing after it; no timestamps, so our default method
 * averages the printed rates.
 */
#include "dlperf.h"
#include "formats.h"
#include "scan.h"

static int parse(struct scan *sc, const char *s, const char *at, struct it *it)
{
	const char *p = skipb(at + 11), *q;

	(void)s;
	it->iter = getint(sc, &p, "iter", ",");
	if (it->iter < 1)
		record_die(sc->in, "iter '0' is not positive");
	if ((q = label(p, "loss:")) != NULL)
		it->loss = getloss(sc, &q, "loss", ",");
	q = label(p, "throughput:");
	it->rate = getnum(sc, &q, "throughput", NULL, POSITIVE);
	if (*skipb(q))
		record_die(sc->in, "text after the throughput: '%.*s'", toklen(skipb(q)), skipb(q));
	return 1;
}

/* DLPerf: the lines past iteration 5 are kept; the mean of the rates of kept
 * lines s … s+n inclusive, n + 1 values (DLPerf's script is off by one), R2n. */
static double dlperf_speed(struct dlperf_run *r)
{
	size_t nk = dlperf_kept(r, 5);

	if (r->s < 1)
		dlperf_die(r, "%s: DLPerf's oneflow-insightface method needs skip >= 1", r->name);
	dlperf_need(r, nk, r->s + r->n, "kept lines");
	return r2n(dlperf_rate_mean(r, r->s - 1, r->s + r->n, 0));
}

const struct format oneflow_insightface_format = {
	.name = "oneflow-insightface",
	.display = "OneFlow InsightFace",
	.rank = 12,
	.anchor = "train: iter",
	.parse = parse,
	.numbering = NUM_GLOBAL,
	.skip = 20,
	.count = 100,
	.method = METHOD_RATE,
	.dlperf_skip = 20,
	.dlperf_count = 100,
	.dlperf_speed = dlperf_speed,
};
