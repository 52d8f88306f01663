/*
 * ngc-pytorch.c — NVIDIA's DeepLearningExamples PyTorch ResNet50 (NGC
 * container), logging through DLLogger.
 *
 *   DLL 2020-09-15 14:29:13.473765 - Epoch: 0 Iteration: 1  train.loss : 7.09304  …
 *       … train.total_ips : 267.44 img/s
 *
 * One line per iteration, numbered from 1 within each epoch (later epochs
 * continue the count); the stamp is the end of the iteration, read as UTC.
 * Validation lines (val.* metrics only) are no records. The run's arguments,
 * one PARAMETER line at the start,
 *
 *   DLL 2020-09-15 14:28:53.498443 - PARAMETER data : /data/image … batch_size : 128 …
 *       … fp16 : False … amp : False … world_size : 16
 *
 * must agree with the path or -k on the batch, the precision (half: amp or
 * fp16 True) and the processes (N × G).
 */
#include "dlperf.h"
#include "formats.h"
#include "scan.h"
#include "stamp.h"

#include <string.h>

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

static const char *const config_prefixes[] = {"DLL ", NULL};

/* A PARAMETER value that is True (1) or False (0); -1 when absent. */
static int param_bool(struct scan *sc, const char *s, const char *name)
{
	const char *p = dll_metric(s, name);
	int n = p ? toklen(p) : 0;

	if (!p)
		return -1;
	if (n == 4 && strncmp(p, "True", 4) == 0)
		return 1;
	if (n == 5 && strncmp(p, "False", 5) == 0)
		return 0;
	record_die(sc->in, "PARAMETER %s '%.*s' is not True or False", name, n, p);
}

/* The PARAMETER line, checked against the key the path or -k gave. */
static int config(struct scan *sc, const char *s)
{
	const char *p;

	if (strncmp(s, "DLL ", 4) != 0 || !strstr(s, " - PARAMETER "))
		return 0;
	if (!sc->have_key)
		return 1;
	const struct key *k = &sc->key;
	if ((p = dll_metric(s, "batch_size")) != NULL) {
		long long b = getint(sc, &p, "PARAMETER batch_size", NULL);
		if (b != k->batch)
			record_die(sc->in,
				   "the log's PARAMETER line says batch_size : %lld, %s says %ld",
				   b, sc->keysrc, k->batch);
	}
	int amp = param_bool(sc, s, "amp"), fp16 = param_bool(sc, s, "fp16");
	int half = strcmp(k->prec, "amp") == 0 || strcmp(k->prec, "fp16") == 0;
	if ((amp >= 0 || fp16 >= 0) && (amp == 1 || fp16 == 1) != half)
		record_die(sc->in, "the log's PARAMETER line says amp : %s, fp16 : %s, %s says %s",
			   amp == 1 ? "True" : "False", fp16 == 1 ? "True" : "False", sc->keysrc,
			   k->prec);
	if ((p = dll_metric(s, "world_size")) != NULL) {
		long long w = getint(sc, &p, "PARAMETER world_size", NULL);
		if (w != (long long)k->nodes * k->gpus)
			record_die(
				sc->in,
				"the log's PARAMETER line says world_size : %lld, %s says %ldn%ldg "
				"(%lld processes)",
				w, sc->keysrc, k->nodes, k->gpus, (long long)k->nodes * k->gpus);
	}
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
	.config_prefixes = config_prefixes,
	.config = config,
	.numbering = NUM_EPOCHS,
	.skip = 20,
	.count = 100,
	.method = METHOD_TIME,
	.dlperf_skip = 20,
	.dlperf_count = 100,
	.dlperf_speed = dlperf_speed,
};
