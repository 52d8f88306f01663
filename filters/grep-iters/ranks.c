/*
 * ranks.c — logs that hold the lines of several ranks (a format's grouped
 * flag): the lines are kept until the end of the log, then written as one
 * record per iteration, sorted by iteration: step_s and samples_per_s the
 * median over the ranks (a single line's text as printed; a step derived
 * from the median rate), the latest timestamp, the first line's loss. Epochs that restart the count are
 * numbered on, each after the longest rank of the one before.
 */
#include "grep-iters.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NONE ((size_t)-1)

/* A kept line: its texts as offsets into the arena (NONE = absent). */
struct grec {
	long long iter;
	long epoch, order, lineno;
	size_t ts, step, rate, loss;
	size_t tsn, stepn, raten, lossn;
	struct stamp stamp;
	double stepv, ratev;
};

struct ranks {
	struct grec *g;
	size_t ng, gcap;
	char *arena;
	size_t alen, acap;
};

static size_t arena_put(struct ranks *rk, struct txt t, size_t *n)
{
	*n = t.p ? t.n : 0;
	if (!t.p)
		return NONE;
	if (rk->alen + t.n > rk->acap)
		rk->arena = xgrow(rk->arena, &rk->acap, rk->alen + t.n, 1);
	memcpy(rk->arena + rk->alen, t.p, t.n);
	rk->alen += t.n;
	return rk->alen - t.n;
}

static struct txt arena_txt(struct ranks *rk, size_t off, size_t n)
{
	return off == NONE ? (struct txt){NULL, 0} : (struct txt){rk->arena + off, n};
}

void ranks_keep(struct ranks **rkp, const struct it *it, long lineno)
{
	struct ranks *rk = *rkp ? *rkp : (*rkp = xcalloc(1, sizeof **rkp));

	if (rk->ng == rk->gcap)
		rk->g = xgrow(rk->g, &rk->gcap, rk->ng + 1, sizeof *rk->g);
	struct grec *r = &rk->g[rk->ng];
	r->iter = it->iter;
	r->epoch = it->epoch;
	r->order = (long)rk->ng++;
	r->lineno = lineno;
	r->ts = arena_put(rk, it->ts, &r->tsn);
	r->step = arena_put(rk, it->step, &r->stepn);
	r->rate = arena_put(rk, it->rate, &r->raten);
	r->loss = arena_put(rk, it->loss, &r->lossn);
	r->stamp = it->stamp;
	r->stepv = it->step.p ? txt_num(it->step) : NAN;
	r->ratev = it->rate.p ? txt_num(it->rate) : NAN;
}

static int grec_cmp(const void *a, const void *b)
{
	const struct grec *x = a, *y = b;

	if (x->iter != y->iter)
		return x->iter < y->iter ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

/* A grouped value: the text of a single line, else the median in shortest
 * form (name: the log's, for errors). */
static struct txt group_value(struct ranks *rk, const char *name, struct grec *g, size_t n,
			      int rate, double *vals, char *buf, size_t size, double *out)
{
	size_t k = 0, first = NONE, firstn = 0;

	for (size_t i = 0; i < n; i++) {
		size_t off = rate ? g[i].rate : g[i].step;
		if (off == NONE)
			continue;
		if (first == NONE) {
			first = off;
			firstn = rate ? g[i].raten : g[i].stepn;
		}
		vals[k++] = rate ? g[i].ratev : g[i].stepv;
	}
	if (k == 0)
		return (struct txt){NULL, 0};
	*out = median_of(vals, k);
	if (k == 1)
		return arena_txt(rk, first, firstn);
	return pos_txt(name, g[0].lineno, rate ? "the median samples_per_s" : "the median step_s",
		       *out, buf, size);
}

static void number_epochs(const char *name, struct grec *g, size_t n)
{
	long maxe = 0;

	for (size_t i = 0; i < n; i++)
		if (g[i].epoch > maxe)
			maxe = g[i].epoch;
	if ((size_t)maxe >= n)
		die("%s: epoch %ld: earlier epochs have no iteration lines", name, maxe);
	long long *len = xcalloc((size_t)maxe + 1, sizeof *len);
	for (size_t i = 0; i < n; i++)
		if (g[i].iter > len[g[i].epoch])
			len[g[i].epoch] = g[i].iter;
	for (long e = 0; e <= maxe; e++)
		if (len[e] == 0)
			die("%s: epoch %ld has no iteration lines, later epochs cannot be numbered",
			    name, e);
	for (long e = 1; e <= maxe; e++)
		if (__builtin_add_overflow(len[e], len[e - 1], &len[e]))
			die("%s: epoch %ld: the count of iterations overflows", name, e);
	for (size_t i = 0; i < n; i++)
		if (g[i].epoch > 0)
			g[i].iter += len[g[i].epoch - 1];
	free(len);
}

void ranks_flush(struct ranks **rkp, const struct format *f, const char *name, double tb,
		 void (*emit)(void *ctx, long long iter, struct txt ts, struct txt step,
			      struct txt rate, struct txt loss),
		 void *ctx)
{
	struct ranks *rk = *rkp;

	if (!rk)
		return;
	struct grec *g = rk->g;
	size_t n = rk->ng;
	if (f->numbering == NUM_EPOCHS)
		number_epochs(name, g, n);
	qsort(g, n, sizeof *g, grec_cmp);
	double *vals = xmalloc(n * sizeof *vals);
	long long prev = 0; /* the iteration of the record before */
	for (size_t i = 0, j; i < n; i = j) {
		char sbuf[48], rbuf[48];
		double rate = NAN, step = NAN;
		size_t latest = i;
		for (j = i; j < n && g[j].iter == g[i].iter; j++)
			if (g[j].ts != NONE &&
			    (g[latest].ts == NONE || stamp_later(&g[j].stamp, &g[latest].stamp)))
				latest = j;
		struct txt st =
			group_value(rk, name, g + i, j - i, 0, vals, sbuf, sizeof sbuf, &step);
		struct txt rt =
			group_value(rk, name, g + i, j - i, 1, vals, rbuf, sizeof rbuf, &rate);
		if (f->derive != DERIVE_NONE && !st.p && rt.p)
			st = pos_txt(name, g[i].lineno, "step_s derived from samples_per_s",
				     f->derive == DERIVE_RATE
					     ? tb / rate
					     : tb * (double)(g[i].iter - prev) / rate,
				     sbuf, sizeof sbuf);
		prev = g[i].iter;
		emit(ctx, g[i].iter, arena_txt(rk, g[latest].ts, g[latest].tsn), st, rt,
		     arena_txt(rk, g[i].loss, g[i].lossn));
	}
	free(vals);
	free(rk->g);
	free(rk->arena);
	free(rk);
	*rkp = NULL;
}
