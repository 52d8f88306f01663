/*
 * ngc-tensorflow.c — NVIDIA's DeepLearningExamples TensorFlow 1.x ResNet50
 * (NGC container), logging through DLLogger.
 *
 *   DLL 2020-09-10 12:00:03.512345 - (0, 20) imgs_per_sec : 362.71 … total_loss : 7.28 …
 *
 * One line per iteration: (epoch, step), step 0-based and counted from the
 * start of training, so step s ends iteration s + 1; the stamp is read as
 * UTC. The summary at the end, "()", is no record. The log starts at step
 * 20, hence our default window skips 21.
 */
#include "dlperf.h"
#include "formats.h"
#include "scan.h"
#include "stamp.h"

static int parse(struct scan *sc, const char *s, const char *at, struct it *it)
{
	const char *p = dll_stamp(sc, at, it), *q;

	(void)s;
	expect(sc, &p, "-", "DLL line");
	expect(sc, &p, "(", "step");
	if (*p == ')')
		return 0; /* a summary: no step */
	it->epoch = (long)getint(sc, &p, "epoch", ",");
	expect(sc, &p, ",", "step");
	it->iter = getint(sc, &p, "step", ")") + 1;
	expect(sc, &p, ")", "step");
	q = dll_metric(p, "imgs_per_sec");
	it->rate = getnum(sc, &q, "imgs_per_sec", NULL, POSITIVE);
	if ((q = dll_metric(p, "total_loss")) != NULL)
		it->loss = getloss(sc, &q, "total_loss", NULL);
	return 1;
}

/* DLPerf: its list of rates starts at step 20, so entries
 * (max(s, 20) − 20) + 1 … s + n − 20; the numpy mean of their R2p, R2n. */
static double dlperf_speed(struct dlperf_run *r)
{
	long w = r->s, from = (w > 20 ? w : 20) - 20, to = r->s + r->n - 20;

	if (to <= from)
		dlperf_die(r, "%s: DLPerf's ngc-tensorflow window ends before it starts", r->name);
	dlperf_need(r, r->nl, to, "lines");
	return r2n(dlperf_rate_mean(r, from, to, 1));
}

const struct format ngc_tensorflow_format = {
	.name = "ngc-tensorflow",
	.display = "NGC TensorFlow 1.x",
	.rank = 20,
	.anchor = "DLL ",
	.then = "imgs_per_sec",
	.parse = parse,
	.numbering = NUM_GLOBAL,
	.skip = 21,
	.count = 99,
	.method = METHOD_TIME,
	.dlperf_skip = 20,
	.dlperf_count = 100,
	.dlperf_speed = dlperf_speed,
};
