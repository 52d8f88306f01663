/*
 * plsc.c — PaddlePaddle's PLSC (large-scale classification) training.
 *
 *   INFO 2021-03-12 10:15:02,331 entry.py:1032] Pass:0 batch:10 lr:0.1 loss:42.718311 qps:397.81
 *
 * A line every 10 batches: batch b (0-based) closes the interval ending at
 * iteration b + 1, its qps the interval's rate (all trainers' samples over
 * the printing trainer's executor time), from which step_s is derived. Every
 * trainer prints (PLSC's entry.py has no rank check), so a log may hold
 * several lines a period, one per node in DLPerf's multi-node logs: they are
 * grouped into one record a period, its qps the median of theirs. Batches
 * restart each pass and the pass length is not printed: only pass 0 can be
 * numbered (DLPerf's matcher, too, reads pass 0 only).
 */
#include "dlperf.h"
#include "formats.h"
#include "scan.h"
#include "stamp.h"

static int parse(struct scan *sc, const char *s, const char *at, struct it *it)
{
	const char *p = skipb(at + 5), *q;

	stamp_find(sc, s, at, it);
	it->epoch = (long)getint(sc, &p, "Pass", NULL);
	q = label(p, "batch:");
	it->iter = getint(sc, &q, "batch", NULL) + 1;
	if ((q = label(p, "loss:")) != NULL)
		it->loss = getloss(sc, &q, "loss", NULL);
	q = label(p, "qps:");
	it->rate = getnum(sc, &q, "qps", NULL, POSITIVE);
	return 1;
}

/* DLPerf: the mean of qps entries (s/10)·N + 1 … ((s + n)/10)·N of pass 0
 * in file order, R2n. Quirks, copied: the window is counted in lines, N per
 * period assumed (N the nodes, whatever the log holds: with another count it
 * covers other batches), and the lines of different trainers are averaged
 * together, in the order their output reached the log. */
static double dlperf_speed(struct dlperf_run *r)
{
	long from = r->s / 10 * r->key.nodes, to = (r->s + r->n) / 10 * r->key.nodes;

	if (to <= from)
		dlperf_die(r, "%s: DLPerf's plsc window ends before it starts", r->name);
	dlperf_need(r, r->nl, to, "lines");
	return r2n(dlperf_rate_mean(r, from, to, 0));
}

const struct format plsc_format = {
	.name = "plsc",
	.display = "PaddlePaddle PLSC",
	.rank = 51,
	.anchor = "Pass:",
	.then = "qps:",
	.parse = parse,
	.numbering = NUM_FIRST,
	.derive = DERIVE_INTERVAL,
	.grouped = 1,
	.interval = 1,
	.skip = 41,
	.count = 100,
	.method = METHOD_TIME,
	.dlperf_epoch0 = 1,
	.dlperf_skip = 50,
	.dlperf_count = 100,
	.dlperf_speed = dlperf_speed,
	.dlperf_note = "counted in lines, N a period for N nodes",
};
