/*
 * mindspore.c — MindSpore's ModelZoo ResNet50, with data sinking.
 *
 *   epoch: 1 step: 10, loss is 6.9012345
 *   epoch time: 93461.205 ms, per step time: 9346.121 ms
 *
 * Each rank prints, once per sink of s steps, a loss line and then a time
 * line: the sink of epoch e closes the interval ending at iteration e × s,
 * step_s is its time in seconds (the decimal point moved, exactly). Ranks
 * share the log: the first loss line of a sink stands, the ranks' times
 * become their median.
 */
#include "dlperf.h"
#include "formats.h"
#include "scan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The latest loss line, until its time line comes. */
struct state {
	int have;
	long long iter;
	char loss[64];
	size_t lossn;
};

static const char *detect(const char *s)
{
	const char *p = strstr(s, "epoch time:");

	if (p)
		return p;
	p = strstr(s, "epoch: ");
	return p && strstr(p, " step: ") && strstr(p, "loss is") ? p : NULL;
}

/* Milliseconds text to seconds: the decimal point moved 3 places left
 * (exact); an exponent form or a long text is converted whole and divided. */
static struct txt ms_to_s(struct scan *sc, struct txt ms, char *buf, size_t size)
{
	const char *p = ms.p, *end = ms.p + ms.n, *dot = memchr(p, '.', ms.n);
	size_t k = 0, in;

	if (memchr(p, 'e', ms.n) || memchr(p, 'E', ms.n) || *p == '+' || ms.n + 8 > size)
		return pos_txt(sc->in->name, sc->in->lineno, "epoch time in seconds",
			       txt_num(ms) / 1000.0, buf, size);
	if (!dot)
		dot = end;
	while (p < dot - 1 && *p == '0')
		p++;
	in = (size_t)(dot - p);
	if (in > 3) {
		memcpy(buf, p, in - 3);
		k = in - 3;
	} else {
		buf[k++] = '0';
	}
	buf[k++] = '.';
	for (size_t z = in; z < 3; z++)
		buf[k++] = '0';
	memcpy(buf + k, in > 3 ? dot - 3 : p, in > 3 ? 3 : in);
	k += in > 3 ? 3 : in;
	if (dot < end) {
		memcpy(buf + k, dot + 1, (size_t)(end - dot - 1));
		k += (size_t)(end - dot - 1);
	}
	return (struct txt){buf, k};
}

static int parse(struct scan *sc, const char *s, const char *at, struct it *it)
{
	struct state *st = sc->state;
	const char *p;

	(void)s;
	if (strncmp(at, "epoch time:", 11) == 0) {
		p = skipb(at + 11);
		if (!st->have)
			record_die(sc->in, "'epoch time:' without an 'epoch: <e> step: <s>, loss "
					   "is <v>' line before it");
		struct txt ms = getnum(sc, &p, "epoch time", NULL, POSITIVE);
		expect(sc, &p, "ms", "epoch time");
		it->iter = st->iter;
		it->loss = (struct txt){st->loss, st->lossn};
		it->step = ms_to_s(sc, ms, it->stepbuf, sizeof it->stepbuf);
		return 1;
	}
	p = skipb(at + 7);
	long long e = getint(sc, &p, "epoch", NULL);
	expect(sc, &p, "step:", "epoch");
	long long n = getint(sc, &p, "step", ",");
	const char *q = label(p, "loss is");
	struct txt l = getloss(sc, &q, "loss", NULL);
	if (e < 1 || n < 1)
		record_die(sc->in, "epoch %lld step %lld: not positive", e, n);
	if (l.n >= sizeof st->loss)
		record_die(sc->in, "loss '%.*s' is too long", toklen(l.p), l.p);
	long long iter;
	if (__builtin_mul_overflow(e, n, &iter))
		record_die(sc->in, "epoch %lld step %lld: the iteration overflows", e, n);
	if (st->have && st->iter == iter)
		return 0; /* another rank: the first line's loss stands */
	memcpy(st->loss, l.p, l.n);
	st->lossn = l.n;
	st->iter = iter;
	st->have = 1;
	return 0;
}

/* DLPerf: in file order until the first sink past s + n, the sink times of
 * the sinks past s, all ranks; TB ÷ (Σ ÷ (n × ranks)), R2p. */
static double dlperf_speed(struct dlperf_run *r)
{
	long w = r->s, e = r->s + r->n, last = 0;
	double sum = 0, ranks = (double)(r->key.nodes * r->key.gpus);

	for (size_t i = 0; i < r->nl; i++)
		if (r->lines[i].iter > last)
			last = r->lines[i].iter;
	if (last < e)
		dlperf_die(r, "%s: %ld iterations, need %ld", r->name, last, e);
	for (size_t i = 0; i < r->nl && r->lines[i].iter <= e; i++) {
		if (r->lines[i].iter <= w)
			continue;
		if (isnan(r->lines[i].step))
			dlperf_die(r, "%s: no step_s at iteration %ld", r->name, r->lines[i].iter);
		sum += r->lines[i].step;
	}
	if (sum <= 1e-5)
		dlperf_die(r, "%s: cost time is 0", r->name);
	return r2p(r->tb / (sum / ((double)r->n * ranks)), 2);
}

const struct format mindspore_format = {
	.name = "mindspore",
	.display = "MindSpore",
	.rank = 60,
	.detect = detect,
	.parse = parse,
	.state_size = sizeof(struct state),
	.numbering = NUM_GLOBAL,
	.grouped = 1,
	.interval = 1,
	.skip = 100,
	.count = 100,
	.method = METHOD_TIME,
	.dlperf_skip = 100,
	.dlperf_count = 100,
	.dlperf_speed = dlperf_speed,
};
