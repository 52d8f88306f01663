/*
 * oneflow.c — OneFlow's cnns benchmark (OneFlow-Benchmark's of_cnn_train_val).
 *
 *   num_nodes = 2
 *   gpu_num_per_node = 8
 *   batch_size_per_device = 128
 *   train: epoch 0, iter 20, loss: 7.087004, top_1: 0.000, …, samples/s: 3988.891 1597933942.98
 *
 * A line every 20 iterations, closing the interval since the previous one,
 * its rate over the interval and the Unix time last. OneFlow 0.1.8 (its
 * report of 2020-08-08) printed no time:
 *
 *   train: epoch 0, iter 20, loss: 6.505637, top_1: 0.000000, top_k: 0.000000, samples/s: 288.088
 *
 * A log is one or the other: its first line decides, and a later line of the
 * other kind is an error. Without stamps window times the interval from the
 * rate (20 × TB ÷ samples/s), and DLPerf's mode applies that report's own
 * rule (v018_speed). The iteration restarts each epoch and the
 * epoch's length is not printed: only epoch 0 can be numbered. The
 * "name = value" lines at column 0 give part of the key and must agree with
 * the path or -k (OneFlow BERT prints them too).
 */
#include "dlperf.h"
#include "families.h"
#include "formats.h"
#include "scan.h"
#include "stamp.h"

#include <string.h>

/* The log's kind, once its first line is read. */
enum { KIND_UNKNOWN, KIND_STAMPED, KIND_V018 };

static int parse(struct scan *sc, const char *s, const char *at, struct it *it)
{
	/* the anchor as a label: not inside a name, a blank after it */
	const char *p = label(s, "train: epoch"), *q;

	(void)at;
	if (!p)
		return 0;
	it->epoch = (long)getint(sc, &p, "epoch", ",");
	expect(sc, &p, ",", "epoch");
	expect(sc, &p, "iter", "iter");
	it->iter = getint(sc, &p, "iter", ",");
	q = label(p, "loss:");
	it->loss = getloss(sc, &q, "loss", ",");
	q = label(p, "samples/s:");
	it->rate = getnum(sc, &q, "samples/s", NULL, POSITIVE);
	q = skipb(q);
	int *kind = sc->state, stamped = *q != '\0';
	if (*kind == KIND_UNKNOWN)
		*kind = stamped ? KIND_STAMPED : KIND_V018;
	else if (stamped != (*kind == KIND_STAMPED))
		record_die(sc->in,
			   stamped ? "a time stamp after samples/s; the log's first line had none"
				   : "no time stamp after samples/s; the log's first line had one");
	if (stamped)
		unix_last(sc, &q, it);
	return 1;
}

const char *const oneflow_config_prefixes[] = {"num_nodes", "gpu_num_per_node",
					       "batch_size_per_device", NULL};

int oneflow_config(struct scan *sc, const char *s)
{
	for (int i = 0; oneflow_config_prefixes[i]; i++) {
		const char *name = oneflow_config_prefixes[i];
		size_t n = strlen(name), vn = 0;
		if (strncmp(s, name, n) != 0 || !blank(s[n]))
			continue;
		const char *p = skipb(s + n);
		if (*p != '=')
			return 0;
		p = skipb(p + 1);
		while (p[vn] && !blank(p[vn]))
			vn++;
		if (*skipb(p + vn))
			record_die(sc->in, "%s: value '%s' is not one token", name, p);
		if (!sc->have_key)
			return 1;
		long x;
		enum key_status r = key_part(p, vn, &x);
		if (r != KEY_OK)
			record_die(sc->in, "%s = '%.*s' %s", name, (int)vn, p, key_part_why(r));
		long want = i == 0 ? sc->key.nodes : i == 1 ? sc->key.gpus : sc->key.batch;
		if (x != want)
			record_die(sc->in, "the log says %s = %ld, %s says %ld", name, x,
				   sc->keysrc, want);
		return 1;
	}
	return 0;
}

/* OneFlow 0.1.8's report, for a log without stamps: "the first samples/s
 * value is discarded because the start time of the first batch is not
 * correct; we average the other samples/s". The records ending after
 * iteration s (the report's 20: its first line) to the end of the log, which
 * must reach s + n; their rates' mean in log order, not rounded (the report
 * printed it with three decimals). */
static double v018_speed(struct dlperf_run *r)
{
	long w = r->s, e = r->s + r->n, last = 0;
	double sum = 0;
	size_t k = 0;

	for (size_t i = 0; i < r->nl; i++) {
		if (r->lines[i].iter > last)
			last = r->lines[i].iter;
		if (r->lines[i].iter > w) {
			sum += dlperf_rate(r, &r->lines[i]);
			k++;
		}
	}
	if (last < e)
		dlperf_die(r, "%s: %ld iterations, need %ld", r->name, last, e);
	return sum / (double)k;
}

/* DLPerf: the last line of iterations s and s+n; TB × n ÷ (t(s+n) − t(s)),
 * the stamps as doubles. */
double oneflow_dlperf_speed(struct dlperf_run *r)
{
	long w = r->s, e = r->s + r->n;
	const struct line *a = NULL, *b = NULL;

	for (size_t i = 0; i < r->nl; i++) {
		if (r->lines[i].iter == w)
			a = &r->lines[i];
		if (r->lines[i].iter == e)
			b = &r->lines[i];
	}
	if (!a || !b)
		dlperf_die(r, "%s: no record ends at iteration %ld", r->name, a ? e : w);
	if (!a->ts.present || !b->ts.present)
		dlperf_die(r, "%s: no timestamp for the end of iteration %ld", r->name,
			   a->ts.present ? e : w);
	double t = b->ts.d - a->ts.d;
	if (!(t > 0))
		dlperf_die(r, "%s: iterations %ld-%ld took %g s", r->name, w + 1, e, t);
	return r->tb * (double)r->n / t;
}

/* A log with stamps as DLPerf measured it; one without (its first line has
 * none) by OneFlow 0.1.8's rule. */
static double dlperf_speed(struct dlperf_run *r)
{
	return r->nl && !r->lines[0].ts.present ? v018_speed(r) : oneflow_dlperf_speed(r);
}

const struct format oneflow_format = {
	.name = "oneflow",
	.display = "OneFlow",
	.rank = 10,
	.anchor = "train: epoch",
	.then = ", iter ",
	.parse = parse,
	.config_prefixes = oneflow_config_prefixes,
	.config = oneflow_config,
	.state_size = sizeof(int),
	.numbering = NUM_FIRST,
	.interval = 1,
	.skip = 20,
	.count = 100,
	.method = METHOD_TIME,
	.dlperf_skip = 20,
	.dlperf_count = 100,
	.dlperf_speed = dlperf_speed,
	.dlperf_note = "no stamps (0.1.8): 20 / the log's end, the mean rate",
};
