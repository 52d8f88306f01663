/*
 * tensorflow.c — TensorFlow 2.x's official ResNet50 (Keras), through its
 * TimeHistory callback.
 *
 *   I0917 10:21:33.123456 139872431318784 keras_utils.py:119] TimeHistory: 39.55 seconds, …
 *       … 323.64 examples/second between steps 0 and 100
 *
 * A line every 100 steps, closing the interval since the previous one:
 * step_s is the interval's seconds, the rate its mean. The intervals must
 * join up (each starts where the previous one ended), except in DLPerf's
 * mode, where every line counts as printed.
 */
#include "dlperf.h"
#include "formats.h"
#include "scan.h"

static int parse(struct scan *sc, const char *s, const char *at, struct it *it)
{
	const char *p = skipb(at + 12);

	(void)s;
	it->step = getnum(sc, &p, "seconds", NULL, POSITIVE);
	expect(sc, &p, "seconds,", "TimeHistory");
	it->rate = getnum(sc, &p, "examples/second", NULL, POSITIVE);
	expect(sc, &p, "examples/second", "TimeHistory");
	expect(sc, &p, "between", "TimeHistory");
	expect(sc, &p, "steps", "TimeHistory");
	long long a = getint(sc, &p, "first step", NULL);
	expect(sc, &p, "and", "TimeHistory");
	it->iter = getint(sc, &p, "last step", NULL);
	if (it->iter <= a)
		record_die(sc->in, "steps %lld and %lld: not an interval", a, it->iter);
	if (!sc->dlperf && a != sc->prev_iter)
		record_die(sc->in, "interval starts at step %lld, the previous one ended at %lld",
			   a, sc->prev_iter);
	return 1;
}

/* DLPerf: the mean of the rates of TimeHistory lines s/100 + 1 (at least
 * the 2nd) … (s + n)/100, R2n; s and n multiples of 100. */
static double dlperf_speed(struct dlperf_run *r)
{
	long w = r->s, e = r->s + r->n;

	if (w % 100 || e % 100)
		dlperf_die(r, "%s: DLPerf's tensorflow method needs multiples of 100", r->name);
	long from = w / 100 > 1 ? w / 100 : 1, to = e / 100;
	if (to <= from)
		dlperf_die(r, "%s: DLPerf's tensorflow window ends before it starts", r->name);
	dlperf_need(r, r->nl, to, "lines");
	return r2n(dlperf_rate_mean(r, from, to, 0));
}

const struct format tensorflow_format = {
	.name = "tensorflow",
	.display = "TensorFlow 2.x",
	.rank = 21,
	.anchor = "TimeHistory:",
	.parse = parse,
	.numbering = NUM_GLOBAL,
	.interval = 1,
	.skip = 100,
	.count = 500,
	.method = METHOD_TIME,
	.dlperf_skip = 100,
	.dlperf_count = 500,
	.dlperf_speed = dlperf_speed,
};
