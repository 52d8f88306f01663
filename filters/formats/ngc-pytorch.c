/*
 * ngc-pytorch.c — NVIDIA's DeepLearningExamples PyTorch ResNet50 (NGC
 * container), logging through DLLogger.
 *
 *   DLL 2020-09-15 14:29:13.473765 - Epoch: 0 Iteration: 1  train.loss : 7.09304  …
 *       … train.total_ips : 267.44 img/s
 *
 * One line per iteration, numbered from 1 within each epoch (later epochs
 * continue the count); the stamp is the end of the iteration, read as UTC.
 * Validation lines (val.* metrics only) are no records.
 */
#include "dlperf.h"
#include "formats.h"
#include "scan.h"
#include "stamp.h"

static int parse(struct scan *sc, const char *s, const char *at, struct it *it)
{
	const char *lossp = dll_metric(at, "train.loss");
	const char *ratep = dll_metric(at, "train.total_ips");

	(void)s;
	if (!lossp && !ratep)
		return 0; /* validation: val.* metrics only */
	const char *p = dll_stamp(sc, at, it), *q;
	if ((q = label(p, "Epoch:")) != NULL)
		it->epoch = (long)getint(sc, &q, "Epoch", NULL);
	q = label(p, "Iteration:");
	it->iter = getint(sc, &q, "Iteration", NULL);
	if (it->iter < 1)
		record_die(sc->in, "Iteration '0' is not positive");
	if (lossp)
		it->loss = getloss(sc, &lossp, "train.loss", NULL);
	if (ratep)
		it->rate = getnum(sc, &ratep, "train.total_ips", NULL, POSITIVE);
	return 1;
}

/* DLPerf: the lines past iteration 5 are kept; TB ÷ the mean time of the
 * iterations between the stamps of kept lines s and s+n, R2p. */
static double dlperf_speed(struct dlperf_run *r)
{
	long w = r->s, e = r->s + r->n;
	size_t nk = dlperf_kept(r, 5);
	const struct line *k = r->lines;

	if (w < 1)
		dlperf_die(r, "%s: DLPerf's ngc-pytorch method needs skip >= 1", r->name);
	dlperf_need(r, nk, e, "kept lines");
	if (!k[w - 1].ts.present || !k[e - 1].ts.present)
		dlperf_die(r, "%s: no timestamp at iteration %ld", r->name,
			   k[w - 1].ts.present ? k[e - 1].iter : k[w - 1].iter);
	return r2p(r->tb / (stamp_diff(&k[w - 1].ts, &k[e - 1].ts) / (double)r->n), 2);
}

const struct format ngc_pytorch_format = {
	.name = "ngc-pytorch",
	.display = "NGC PyTorch",
	.rank = 30,
	.anchor = "DLL ",
	.then = "Iteration: ",
	.parse = parse,
	.numbering = NUM_EPOCHS,
	.skip = 20,
	.count = 100,
	.method = METHOD_TIME,
	.dlperf_skip = 20,
	.dlperf_count = 100,
	.dlperf_speed = dlperf_speed,
};
