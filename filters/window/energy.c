/*
 * energy.c — the joules of a run's timed window, from launch's energy
 * samples (doc/formats.md): every node's devices' cumulative counters,
 *
 *   # energy framework=<fw> key=<key> run=<r> node=<i> device=<d> how=<h> t=<s> j=<J>
 *   # energy framework=<fw> key=<key> run=<r> node=<i> reason=<text>
 *
 * as grep-iters passes them on after the run's records (lib/meta.c parses
 * them), are kept while the run is read and consumed; at its end one line
 * takes their place:
 *
 *   # energy framework=<fw> key=<key> run=<r> joules=<J> samples=<n> how=<method:count,...>
 *   # energy framework=<fw> key=<key> run=<r> reason=<text>
 *
 * joules: over every node and device, each counter's value at the
 * window's last stamp minus its value at the first (the stamps of the
 * records ending at iterations s and s+n, the throughput's own window),
 * each interpolated linearly between the two samples around it; samples:
 * the samples those iterations trained (TB x n); how: the counters summed,
 * by method. A reason instead when a node of the key reported none (its
 * reason), when the window has no place on the clock (records without
 * timestamps; DLPerf's methods), or when a device's samples do not cover
 * the window or go back.
 */
#include "window.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct esample {
	double t, j;
};

/* One device's samples, in the order read. */
struct eseries {
	long node;
	char *device, *how;
	struct esample *s;
	size_t n, cap;
};

/* Keep m, a sample or a node's reason. */
static void energy_add(struct energy *e, const struct metaline *m, const struct input *in)
{
	if (!e->lines++) {
		e->file = in->name;
		e->line = in->lineno;
	}
	if (m->shape == ENERGY_NODE_NONE) {
		if (!e->reason) {
			e->reason = xstrdup(m->reason);
			e->reason_node = m->node;
		}
		return;
	}
	struct eseries *s = NULL;
	for (size_t i = e->n; i > 0 && !s; i--)
		if (e->v[i - 1].node == m->node && !strcmp(e->v[i - 1].device, m->device))
			s = &e->v[i - 1];
	if (!s) {
		e->v = xgrow(e->v, &e->cap, e->n + 1, sizeof *e->v);
		s = &e->v[e->n++];
		*s = (struct eseries){m->node, xstrdup(m->device), xstrdup(m->how), NULL, 0, 0};
	} else if (strcmp(s->how, m->how) != 0) {
		record_die(in, "node %ld %s measured by %s, then by %s", m->node, m->device, s->how,
			   m->how);
	}
	s->s = xgrow(s->s, &s->cap, s->n + 1, sizeof *s->s);
	s->s[s->n++] = (struct esample){m->t, m->j};
}

int energy_take(struct energy *e, const struct metaline *m, const struct input *in, const char *run)
{
	char name[256];
	struct key k;

	if (m->shape != ENERGY_SAMPLE && m->shape != ENERGY_NODE_NONE)
		return 0;
	/* the line's run as window names runs: framework/key/run, the key
	 * written the one way */
	if (key_parse(m->key, &k) == 0) {
		char keytext[KEY_MAX];
		key_format(&k, keytext, sizeof keytext);
		snprintf(name, sizeof name, "%s/%s/%ld", m->framework, keytext, m->run);
	} else {
		name[0] = '\0';
	}
	if (!run || strcmp(name, run) != 0)
		record_die(in, "energy line of %s/%s/%ld: not after that run's records",
			   m->framework, m->key, m->run);
	energy_add(e, m, in);
	return 1;
}

/* The counter's value at t, interpolated; 0 and *j, or -1 when the samples
 * do not reach t. */
static int value_at(const struct eseries *s, double t, double *j)
{
	if (s->n == 0 || t < s->s[0].t || t > s->s[s->n - 1].t)
		return -1;
	size_t i = 1;
	while (i < s->n && s->s[i].t < t)
		i++;
	if (i == s->n || s->s[i].t == s->s[i - 1].t) {
		*j = s->s[i < s->n ? i : i - 1].j;
		return 0;
	}
	const struct esample *a = &s->s[i - 1], *b = &s->s[i];
	*j = a->j + (b->j - a->j) * (t - a->t) / (b->t - a->t);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "nvml:8,rapl:2": the methods of the series, each with its count. */
static void how_list(const struct energy *e, char *buf, size_t size)
{
	const char **hows = xmalloc((e->n ? e->n : 1) * sizeof *hows);
	size_t len = 0;

	for (size_t i = 0; i < e->n; i++)
		hows[i] = e->v[i].how;
	qsort(hows, e->n, sizeof *hows, cmp_str);
	buf[0] = '\0';
	for (size_t i = 0, k; i < e->n; i = k) {
		for (k = i; k < e->n && !strcmp(hows[k], hows[i]); k++)
			;
		int n = snprintf(buf + len, size - len, "%s%s:%zu", len ? "," : "", hows[i], k - i);
		if (n < 0 || (size_t)n >= size - len)
			break;
		len += (size_t)n;
	}
	free(hows);
}

/* Why the run has no joules (into why), or "" with *joules set. */
static void window_joules(const struct energy *e, const struct energy_window *w, char *why,
			  size_t size, double *joules)
{
	long nodes = w->nodes;
	double sum = 0;

	why[0] = '\0';
	if (e->reason) {
		snprintf(why, size, "node %ld: %s", e->reason_node, e->reason);
		return;
	}
	for (long node = 0; node < nodes; node++) {
		size_t i = 0;
		while (i < e->n && e->v[i].node != node)
			i++;
		if (i == e->n) {
			snprintf(why, size, "node %ld wrote no energy line", node);
			return;
		}
	}
	if (w->no_clock) {
		snprintf(why, size, "%s", w->no_clock);
		return;
	}
	for (size_t i = 0; i < e->n; i++) {
		const struct eseries *s = &e->v[i];
		double a, b;
		for (size_t k = 1; k < s->n; k++)
			if (s->s[k].t < s->s[k - 1].t || s->s[k].j < s->s[k - 1].j) {
				snprintf(why, size, "node %ld %s's counter goes back at t=%.3f",
					 s->node, s->device, s->s[k].t);
				return;
			}
		if (value_at(s, w->t0, &a) != 0 || value_at(s, w->t1, &b) != 0) {
			snprintf(
				why, size,
				"node %ld %s's samples (t=%.3f..%.3f) do not cover the timed window "
				"(t=%.3f..%.3f)",
				s->node, s->device, s->s[0].t, s->s[s->n - 1].t, w->t0, w->t1);
			return;
		}
		sum += b - a;
	}
	if (!isfinite(sum))
		snprintf(why, size, "the counters' joules overflow");
	*joules = sum;
}

void energy_end(struct energy *e, const struct energy_window *w)
{
	struct metaline m = {0};
	char why[512], how[256], joules[400], samples[32]; /* joules: DBL_MAX in %.3f */
	char *buf = NULL;
	size_t cap = 0;
	double j = 0;

	if (!e->lines)
		return;
	window_joules(e, w, why, sizeof why, &j);
	m.kind = META_ENERGY;
	m.framework = w->framework;
	m.key = w->key;
	m.run = w->run;
	m.node = -1;
	if (why[0]) {
		m.n = 1;
		m.item[0] = (struct metaitem){"reason", why};
	} else {
		how_list(e, how, sizeof how);
		snprintf(joules, sizeof joules, "%.3f", j);
		snprintf(samples, sizeof samples, "%ld", w->samples);
		m.n = 3;
		m.item[0] = (struct metaitem){"joules", joules};
		m.item[1] = (struct metaitem){"samples", samples};
		m.item[2] = (struct metaitem){"how", how};
	}
	size_t len = metaline_format(&m, &buf, &cap);
	fwrite(buf, 1, len, stdout);
	putchar('\n');
	free(buf);
	energy_reset(e);
}

void energy_reset(struct energy *e)
{
	for (size_t i = 0; i < e->n; i++) {
		free(e->v[i].device);
		free(e->v[i].how);
		free(e->v[i].s);
	}
	free(e->v);
	free(e->reason);
	memset(e, 0, sizeof *e);
}
