/*
 * series.c — plot's reader: speedup records (8 columns, or 14 with the
 * statistics of median and speedup) into one series a framework (ladder
 * order), the published file's points, the mode line and the environment
 * meta lines ("# env framework=.. key=.. run=.. node=.. <name>=<value>",
 * parsed and decoded by lib/meta.c: a malformed one is an error), counted
 * by name and value. Outcome lines (runs that failed, doc/formats.md:
 * failed.c) mark their configuration's point, or make one without figures
 * when its runs all failed.
 */
#include "plot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What the reading needs beyond d: capacities and hash tables (linear in
 * the input). */
struct reader {
	size_t capseries, capenv;
	struct hash series; /* framework → d->series[i] */
	struct hash points; /* (series, nodes, gpus) → its pts[i] */
	struct hash env;    /* (name, value) → d->env[i] */
	struct hkey k;
	struct metaline meta;  /* the meta line just read */
	long records;          /* records read */
	struct faillist fails; /* the outcome lines, added once all records are read */
};

static struct series *series_of(struct plotdata *d, struct reader *rd, const char *file, long line,
				const char *framework, const struct key *key)
{
	hkey_start(&rd->k);
	hkey_str(&rd->k, framework);
	size_t i = hash_intern(&rd->series, &rd->k, d->nseries);
	if (i < d->nseries)
		return &d->series[i];
	d->series = xgrow(d->series, &rd->capseries, d->nseries + 1, sizeof *d->series);
	struct series *s = &d->series[d->nseries++];
	memset(s, 0, sizeof *s);
	s->framework = xstrdup(framework);
	s->file = file;
	s->line = line;
	s->batch = key->batch;
	memcpy(s->prec, key->prec, sizeof s->prec);
	return s;
}

/* The batch and precision of a plot are those of what came first; a
 * second framework needs compare. */
static void check_setting(const struct plotdata *d, const struct input *in, const char *framework,
			  const char *keytext, const struct key *key, int compare)
{
	if (d->nseries &&
	    (key->batch != d->series[0].batch || strcmp(key->prec, d->series[0].prec) != 0))
		record_die(in, "%s: one batch and precision to a plot, not b%ld %s and b%ld %s",
			   keytext, d->series[0].batch, d->series[0].prec, key->batch, key->prec);
	if (!compare && d->nseries && strcmp(framework, d->series[0].framework) != 0)
		record_die(in, "a second framework, %s after %s (-s compare takes several)",
			   framework, d->series[0].framework);
}

/* Ladder order: devices, then nodes (no two points have both equal). */
static int cmp_point(const void *a, const void *b)
{
	const struct point *p = a, *q = b;
	long dp = p->nodes * p->gpus, dq = q->nodes * q->gpus;

	if (dp != dq)
		return dp < dq ? -1 : 1;
	return (p->nodes > q->nodes) - (p->nodes < q->nodes);
}

/* The record just read, parsed by medrec_parse and medrec_stats, as a
 * point: 8 columns (speedup last) or 14 (speedup speedup_pm efficiency
 * after the 11 median columns). */
static void point_of(struct input *in, const struct medrec *r, struct point *p)
{
	memset(p, 0, sizeof *p);
	p->file = in->name;
	p->line = in->lineno;
	p->nodes = r->key.nodes;
	p->gpus = r->key.gpus;
	p->n = r->n;
	p->median = r->median;
	p->mean = r->mean;
	p->min = r->min;
	p->max = r->max;
	p->ci_lo = p->ci_hi = p->cv = p->speedup_pm = -1;
	int sf = r->stats ? 11 : MEDREC_NF;
	int dash = strcmp(in->f[sf], "-") == 0; /* its base's runs all failed */
	p->speedup = dash ? NAN : record_num(in, sf, "speedup", 1);
	p->efficiency = p->speedup / (double)(p->nodes * p->gpus) * 100;
	if (!r->stats)
		return;
	if (!isnan(r->ci_lo)) {
		p->ci_lo = r->ci_lo;
		p->ci_hi = r->ci_hi;
		p->cv = r->cv;
	}
	if (r->outliers && strlen(in->f[10]) < sizeof p->outliers)
		memcpy(p->outliers, in->f[10], strlen(in->f[10]) + 1);
	else if (r->outliers)
		record_die(in, "outliers '%s': too many runs to show", in->f[10]);
	if (dash) {
		if (strcmp(in->f[12], "-") != 0 || strcmp(in->f[13], "-") != 0)
			record_die(in, "speedup_pm '%s' and efficiency '%s' without a speedup",
				   in->f[12], in->f[13]);
		return;
	}
	if (strcmp(in->f[12], "-") != 0)
		p->speedup_pm = record_num(in, 12, "speedup_pm", 0);
	p->efficiency = record_num(in, 13, "efficiency", 1) * 100;
}

/* An env line (lib/meta.c parses it): its item counted. */
static void env_from(struct plotdata *d, struct reader *rd, const struct input *in)
{
	struct metaline *m = &rd->meta;

	if (metaline_parse(in, in->line, META_RUN, m) != META_ENV)
		return;
	hkey_start(&rd->k);
	hkey_str(&rd->k, m->item[0].name);
	hkey_str(&rd->k, m->item[0].value);
	size_t i = hash_intern(&rd->env, &rd->k, d->nenv);
	if (i == d->nenv) {
		d->env = xgrow(d->env, &rd->capenv, d->nenv + 1, sizeof *d->env);
		d->env[d->nenv++] =
			(struct envvalue){xstrdup(m->item[0].name), xstrdup(m->item[0].value), 0};
	}
	d->env[i].count++;
}

static int cmp_env(const void *a, const void *b)
{
	const struct envvalue *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->value, y->value);
}

size_t env_find(const struct plotdata *d, const char *name, size_t *first)
{
	size_t lo = 0, hi = d->nenv, n = 0;

	/* d->env is sorted by name: the first not below name, by bisection */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(d->env[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo + n < d->nenv && strcmp(d->env[lo + n].name, name) == 0)
		n++;
	if (n)
		*first = lo;
	return n;
}

/* "<hostname> (<cpu_model>, <gpus> × <gpu0.name>)", from what is there;
 * the most frequent value of each (the page flags the others). */
static const char *env_main(const struct plotdata *d, const char *name)
{
	size_t first = 0, n = env_find(d, name, &first), best = first;

	for (size_t i = first; i < first + n; i++)
		if (d->env[i].count > d->env[best].count)
			best = i;
	return n ? d->env[best].value : NULL;
}

static void name_machine(struct plotdata *d)
{
	const char *host = env_main(d, "hostname"), *cpu = env_main(d, "cpu_model");
	const char *gpu = env_main(d, "gpu0.name"), *gpus = env_main(d, "gpus");
	char what[200] = "";

	if (cpu && gpu)
		snprintf(what, sizeof what, "%s, %s × %s", cpu, gpus ? gpus : "1", gpu);
	else if (cpu || gpu)
		snprintf(what, sizeof what, "%s", cpu ? cpu : gpu);
	if (host && what[0])
		snprintf(d->machine, sizeof d->machine, "%s (%s)", host, what);
	else if (host || what[0])
		snprintf(d->machine, sizeof d->machine, "%s", host ? host : what);
}

static int cmp_pub(const void *a, const void *b)
{
	const struct pubpoint *p = a, *q = b;

	return (p->devices > q->devices) - (p->devices < q->devices);
}

/* The published figures of the plot's framework, batch and precision. */
static void read_published(struct plotdata *d, const char *path)
{
	struct published *p;
	size_t n = published_read(path, &p, NULL), cap = 0;
	const struct series *s = &d->series[0];
	struct hash devices = {0};
	struct hkey k = {0};

	d->pubname = path;
	for (size_t i = 0; i < n; i++) {
		/* an OOM cell has no point */
		if (strcmp(p[i].framework, s->framework) != 0 || p[i].key.batch != s->batch ||
		    strcmp(p[i].key.prec, s->prec) != 0 || isnan(p[i].speed))
			continue;
		long dev = p[i].key.nodes * p[i].key.gpus;
		hkey_start(&k);
		hkey_long(&k, dev);
		if (hash_intern(&devices, &k, d->npub) != d->npub)
			die("%s: two figures for %s b%ld %s on %ld devices", path, s->framework,
			    s->batch, s->prec, dev);
		d->pub = xgrow(d->pub, &cap, d->npub + 1, sizeof *d->pub);
		d->pub[d->npub++] = (struct pubpoint){dev, p[i].speed, p[i].speedup};
	}
	published_free(p, n);
	hash_free(&devices);
	free(k.b);
	if (d->npub == 0)
		die("%s: no figure of %s b%ld %s", path, s->framework, s->batch, s->prec);
	qsort(d->pub, d->npub, sizeof *d->pub, cmp_pub); /* ladder order (devices) */
}

/* The record just read, checked against those before it. */
static void add_record(struct plotdata *d, struct reader *rd, struct input *in, int compare)
{
	struct medrec r;
	struct point p;

	if (in->nf != PLOT_NF_PLAIN && in->nf != PLOT_NF_STATS)
		record_die(in, "%d fields, expected %d or %d (speedup records)", in->nf,
			   PLOT_NF_PLAIN, PLOT_NF_STATS);
	if (rd->records++ && (in->nf == PLOT_NF_STATS) != d->stats)
		record_die(in, "%d fields after records of %d", in->nf,
			   d->stats ? PLOT_NF_STATS : PLOT_NF_PLAIN);
	d->stats = in->nf == PLOT_NF_STATS;
	medrec_parse(in, in->nf, &r);
	medrec_stats(in, medrec_fields(in, 3), &r);
	point_of(in, &r, &p);
	free(r.stats_text);
	check_setting(d, in, r.framework, r.keytext, &r.key, compare);
	struct series *s = series_of(d, rd, in->name, in->lineno, r.framework, &r.key);
	hkey_start(&rd->k);
	hkey_long(&rd->k, (long)(s - d->series));
	hkey_long(&rd->k, r.key.nodes);
	hkey_long(&rd->k, r.key.gpus);
	if (hash_intern(&rd->points, &rd->k, s->npts) != s->npts)
		record_die(in, "duplicate configuration %s %s", r.framework, r.keytext);
	s->pts = xgrow(s->pts, &s->cap, s->npts + 1, sizeof *s->pts);
	s->pts[s->npts++] = p;
	free(r.field[0]);
}

/* An outcome line: kept until every record is read (add_failed); it sets
 * the plot's batch and precision, and makes its series, as a record would. */
static void keep_outcome(struct plotdata *d, struct reader *rd, const struct input *in, int compare)
{
	const struct metaline *m = &rd->meta;

	check_setting(d, in, m->framework, m->key, &m->runkey, compare);
	faillist_add(&rd->fails, m, in);
	series_of(d, rd, in->name, in->lineno, m->framework, &m->runkey);
}

/* The point of an outcome line's configuration, made (all_failed, no
 * figures) when it has no record. */
static struct point *failed_point(struct plotdata *d, struct reader *rd, const struct failrun *f)
{
	struct series *s = series_of(d, rd, f->file, f->line, f->framework, &f->key);

	hkey_start(&rd->k);
	hkey_long(&rd->k, (long)(s - d->series));
	hkey_long(&rd->k, f->key.nodes);
	hkey_long(&rd->k, f->key.gpus);
	size_t j = hash_intern(&rd->points, &rd->k, s->npts);
	if (j == s->npts) {
		s->pts = xgrow(s->pts, &s->cap, s->npts + 1, sizeof *s->pts);
		struct point *p = &s->pts[s->npts++];
		memset(p, 0, sizeof *p);
		p->nodes = f->key.nodes;
		p->gpus = f->key.gpus;
		p->median = p->mean = p->min = p->max = p->speedup = p->efficiency = NAN;
		p->ci_lo = p->ci_hi = p->cv = p->speedup_pm = -1;
		p->all_failed = 1;
	}
	return &s->pts[j];
}

/* The outcome lines onto their points (failed.c says what of them). */
static void add_failed(struct plotdata *d, struct reader *rd)
{
	enum outcome_status status;
	char text[sizeof d->series->pts->failed];

	faillist_sort(&rd->fails);
	for (size_t i = 0, end; i < rd->fails.n; i = end) {
		end = faillist_config(&rd->fails, i, &status, text, sizeof text);
		struct point *p = failed_point(d, rd, &rd->fails.v[i]);
		p->status = status;
		memcpy(p->failed, text, sizeof text);
	}
}

void plotdata_read(struct plotdata *d, int argc, char **argv, int compare, const char *published)
{
	struct input in;
	struct reader rd = {0};

	memset(d, 0, sizeof *d);
	FOREACH_INPUT(in, argc, argv)
		while (input_record(&in)) {
			if (!in.meta)
				add_record(d, &rd, &in, compare);
			else if (meta_mode(&in, rd.records > 0))
				d->dlperf = 1;
			else if (metaline_parse(&in, in.line, META_RUN, &rd.meta) == META_OUTCOME)
				keep_outcome(d, &rd, &in, compare);
			else
				env_from(d, &rd, &in);
		}
	add_failed(d, &rd);
	faillist_free(&rd.fails);
	hash_free(&rd.series);
	hash_free(&rd.points);
	hash_free(&rd.env);
	free(rd.k.b);
	metaline_free(&rd.meta);
	if (d->nseries == 0)
		die("%s: no records to plot", argc > 0 ? argv[argc - 1] : "<stdin>");
	for (size_t i = 0; i < d->nseries; i++) {
		struct series *s = &d->series[i];
		qsort(s->pts, s->npts, sizeof *s->pts, cmp_point);
		for (size_t j = 0; j < s->npts; j++) {
			const struct point *p = &s->pts[j];
			s->figures += !p->all_failed;
			s->speedups += !isnan(p->speedup);
			s->failures += p->all_failed;
			/* "-": its 1n1g base's runs all failed (speedup) */
			if (!p->all_failed && isnan(p->speedup) &&
			    !(s->pts[0].nodes == 1 && s->pts[0].gpus == 1 && s->pts[0].all_failed))
				die_at(p->file, p->line, "speedup '-' is not a number");
		}
		if (s->pts[0].nodes != 1 || s->pts[0].gpus != 1)
			die_at(s->file, s->line,
			       "%s b%ld %s: no 1n1g record (the ideal line and efficiency start "
			       "there)",
			       s->framework, s->batch, s->prec);
	}
	if (d->nenv)
		qsort(d->env, d->nenv, sizeof *d->env, cmp_env);
	name_machine(d);
	if (published)
		read_published(d, published);
}

void plotdata_free(struct plotdata *d)
{
	for (size_t i = 0; i < d->nseries; i++) {
		free(d->series[i].framework);
		free(d->series[i].pts);
	}
	for (size_t i = 0; i < d->nenv; i++) {
		free(d->env[i].name);
		free(d->env[i].value);
	}
	free(d->series);
	free(d->pub);
	free(d->env);
	memset(d, 0, sizeof *d);
}
