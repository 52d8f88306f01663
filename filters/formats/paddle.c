/*
 * paddle.c — PaddlePaddle's image classification (PaddleCV) training.
 *
 *   2020-08-20 15:33:34,762 - INFO - [Pass 0, train batch 1] 	loss 6.93145, acc1 0.00000, …
 *       … lr 0.00100, elapse 0.3612 sec
 *
 * One line per iteration: batch b (0-based, restarting each pass) ends
 * iteration b + 1 of its pass; elapse is the iteration's seconds, the
 * logging stamp (UTC) its end. Test lines ("test batch") are not matched.
 */
#include "dlperf.h"
#include "formats.h"
#include "scan.h"
#include "stamp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int parse(struct scan *sc, const char *s, const char *at, struct it *it)
{
	const char *pass = strstr(s, "[Pass"), *p, *q;

	if (!pass || pass > at)
		record_die(sc->in, "no '[Pass <p>,' before 'train batch'");
	stamp_find(sc, s, pass, it);
	p = skipb(pass + 5);
	it->epoch = (long)getint(sc, &p, "Pass", ",");
	p = skipb(at + 11);
	it->iter = getint(sc, &p, "train batch", "]") + 1;
	expect(sc, &p, "]", "train batch");
	if ((q = label(p, "loss")) != NULL)
		it->loss = getloss(sc, &q, "loss", ",");
	q = label_last(p, "elapse");
	it->step = getnum(sc, &q, "elapse", NULL, POSITIVE);
	expect(sc, &q, "sec", "elapse");
	return 1;
}

/* DLPerf: the numpy mean of R4p(TB ÷ elapse) of lines s+1 … s+n, R2n. */
static double dlperf_speed(struct dlperf_run *r)
{
	double *v = xmalloc((size_t)r->n * sizeof *v), m;

	dlperf_need(r, r->nl, r->s + r->n, "lines");
	for (long i = r->s; i < r->s + r->n; i++) {
		if (isnan(r->lines[i].step))
			dlperf_die(r, "%s: no step_s at iteration %ld", r->name, r->lines[i].iter);
		v[i - r->s] = r2p(r->tb / r->lines[i].step, 4);
	}
	m = np_mean(v, (size_t)r->n);
	free(v);
	return r2n(m);
}

const struct format paddle_format = {
	.name = "paddle",
	.display = "PaddlePaddle",
	.rank = 50,
	.anchor = "train batch",
	.then = "elapse",
	.parse = parse,
	.numbering = NUM_EPOCHS,
	.skip = 20,
	.count = 100,
	.method = METHOD_TIME,
	.dlperf_skip = 20,
	.dlperf_count = 100,
	.dlperf_speed = dlperf_speed,
};
