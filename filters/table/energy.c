/*
 * energy.c — table's energy column: the joules of each run's timed window,
 * as window wrote them and median and speedup passed them on
 * (doc/formats.md),
 *
 *   # energy framework=<fw> key=<key> run=<r> joules=<J> samples=<n> how=<method:count,...>
 *   # energy framework=<fw> key=<key> run=<r> reason=<text>
 *
 * read by lib/meta.c's grammar and kept per configuration, found in a hash
 * table. Writes a configuration's J/sample, the median over its runs of
 * joules ÷ samples, where every run has a figure (window gives one only
 * where every node of the run reported), else "-" and a footer line that
 * says why; the footer says how the joules were measured.
 */
#include "table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One configuration's runs. */
struct econf {
	char *fw, *key;
	double *jps; /* joules ÷ samples of each run with a figure */
	size_t n, cap;
	long lines;   /* runs with a line */
	char *reason; /* the first run's reason, or NULL */
	long reason_run;
	char *how; /* the first run's how= */
};

int energies_read(struct energies *es, const struct input *in)
{
	struct metaline *m = &es->m;

	if (metaline_parse(in, in->line, META_RUN, m) != META_ENERGY)
		return 0;
	if (m->shape == ENERGY_SAMPLE || m->shape == ENERGY_NODE_NONE)
		record_die(in,
			   "an energy sample: window turns a run's samples into its joules first");
	hkey_start(&es->hk);
	hkey_str(&es->hk, m->framework);
	hkey_str(&es->hk, m->key);
	size_t i = hash_intern(&es->index, &es->hk, es->n);
	if (i == es->n) {
		es->v = xgrow(es->v, &es->cap, es->n + 1, sizeof *es->v);
		es->v[es->n++] =
			(struct econf){.fw = xstrdup(m->framework), .key = xstrdup(m->key)};
	}
	struct econf *c = &es->v[i];
	c->lines++;
	if (m->shape == ENERGY_RUN_NONE) {
		if (!c->reason) {
			c->reason = xstrdup(m->reason);
			c->reason_run = m->run;
		}
		return 1;
	}
	c->jps = xgrow(c->jps, &c->cap, c->n + 1, sizeof *c->jps);
	c->jps[c->n++] = m->joules / (double)m->samples;
	if (!c->how)
		c->how = xstrdup(m->how);
	return 1;
}

static struct econf *econf_of(struct energies *es, const char *fw, const char *key)
{
	hkey_start(&es->hk);
	hkey_str(&es->hk, fw);
	hkey_str(&es->hk, key);
	size_t i = hash_find(&es->index, &es->hk);
	return i == HASH_NONE ? NULL : &es->v[i];
}

double energy_per_sample(struct energies *es, const char *fw, const char *key, long runs, char *why,
			 size_t size)
{
	struct econf *c = econf_of(es, fw, key);

	why[0] = '\0';
	if (!c) {
		snprintf(why, size, "its logs have no energy lines (not run by launch)");
		return NAN;
	}
	if (c->reason) {
		snprintf(why, size, "run %ld: %s", c->reason_run, c->reason);
		return NAN;
	}
	if ((long)c->n < runs) {
		snprintf(why, size, "%ld of its %ld runs have no energy lines", runs - (long)c->n,
			 runs);
		return NAN;
	}
	return median_of(c->jps, c->n);
}

void energy_cell(struct energies *es, const char *fw, const char *key, long runs)
{
	char why[1024];

	if (!es->n)
		return;
	double v = runs ? energy_per_sample(es, fw, key, runs, why, sizeof why) : NAN;
	if (isnan(v))
		printf(" - |");
	else
		printf(" %.3f |", v);
}

/* "nvml:8,rapl:2" in words. */
static void how_words(const char *how)
{
	static const char *const words[][2] = {
		{"nvml", "GPU energy counter(s) (NVML)"},
		{"nvidia-smi", "GPU power.draw integrated (nvidia-smi)"},
		{"rapl", "CPU package/DRAM counter(s) (RAPL)"}};

	for (const char *p = how; *p;) {
		size_t n = strcspn(p, ","), c = strcspn(p, ":");
		const char *what = NULL;
		if (c > n)
			c = n;
		for (size_t k = 0; k < sizeof words / sizeof *words; k++)
			if (strlen(words[k][0]) == c && !strncmp(p, words[k][0], c))
				what = words[k][1];
		printf("%s%.*s ", p == how ? "" : ", ", c < n ? (int)(n - c - 1) : 0, p + c + 1);
		if (what)
			fputs(what, stdout);
		else
			printf("%.*s", (int)c, p);
		p += n + (p[n] == ',');
	}
}

void energy_footer(struct energies *es, const struct medrec *const *rows, size_t nrows)
{
	char buf[1024], **why;
	int said = 0;

	if (!es->n)
		return;
	/* How: each distinct how= once. */
	struct hash seen = {0};
	for (size_t i = 0; i < es->n; i++) {
		if (!es->v[i].how)
			continue;
		hkey_start(&es->hk);
		hkey_str(&es->hk, es->v[i].how);
		if (hash_intern(&seen, &es->hk, i) != i)
			continue;
		printf("%s", said++ ? "; "
				    : "- energy: J/sample = each run's joules over its timed "
				      "window ÷ the samples it trained, the median of the runs; "
				      "measured: ");
		how_words(es->v[i].how);
	}
	hash_free(&seen);
	if (said)
		putchar('\n');
	/* Why not: each distinct reason once, with the configurations it holds for. */
	why = xcalloc(nrows ? nrows : 1, sizeof *why);
	for (size_t i = 0; i < nrows; i++)
		if (rows[i]->n && isnan(energy_per_sample(es, rows[i]->framework, rows[i]->keytext,
							  rows[i]->n, buf, sizeof buf)))
			why[i] = xstrdup(buf);
	reasons_footer("no energy figure", 1, rows, why, nrows);
	for (size_t i = 0; i < nrows; i++)
		free(why[i]);
	free(why);
}

void energy_json(struct energies *es, const char *fw, const char *key, long runs)
{
	char why[1024], b[40];
	double v;

	if (!es->n)
		return;
	v = energy_per_sample(es, fw, key, runs, why, sizeof why);
	if (!isnan(v)) {
		fmt_shortest(b, sizeof b, v);
		printf(", \"energy_j_per_sample\": %s", b);
		return;
	}
	printf(", \"energy_j_per_sample\": null, \"energy_reason\": ");
	json_string(why);
}
