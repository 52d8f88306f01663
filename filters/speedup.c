/*
 * speedup — append the speedup over one node with one device.
 *
 * Reads median records (framework, key, median, mean, min, max, n, and in our
 * mode ci_lo, ci_hi, cv_pct, outliers) and writes them back as read, in input
 * order, each with one more column (and, after our four, speedup_pm and
 * efficiency: print_stats): speedup =
 * R2n(median / median of 1n1g of the same framework, batch and precision)
 * (doc/dlperf.md). The medians are taken as median printed them, already
 * R2n to two decimals, so they are not rounded again. Meta lines ('#') are
 * copied unchanged, each before the records that followed it. A
 * configuration without its 1n1g base is an error, and so is a speedup that
 * overflows or rounds to 0.00 (named by the record's file and line); nothing
 * is written then. A base whose runs all failed (outcome lines of its
 * 1n1g, and no record: doc/formats.md) is not missing: its configurations
 * get "-" for the speedup and its columns, and the table says why.
 * Duplicates and bases are found in trees: n log n.
 */
#include "filter.h"
#include "lib.h"

#include <math.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct meta {
	char *text;
	size_t before; /* the number of records read before it */
};

/* One call's state (filter.h). */
struct speedup {
	struct medrec *recs;
	size_t nrecs, caprecs;
	void *seen;  /* medrec_unique's tree of (framework, key) */
	void *bases; /* the 1n1g records by (framework, batch, precision) */
	struct meta *metas;
	size_t nmetas, capmetas;
	void *failed_bases; /* "framework\0batch\0precision" of 1n1g outcome lines */
	struct metaline m;
};

/* "framework\0batch\0precision\0" in a new string, a tree's node. */
static char *setting_name(const char *framework, const struct key *k)
{
	size_t n = strlen(framework) + strlen(k->prec) + 32;
	char *s = xmalloc(n);
	int a = snprintf(s, n, "%s", framework) + 1;
	int b = snprintf(s + a, n - (size_t)a, "%ld", k->batch) + 1;
	snprintf(s + a + b, n - (size_t)(a + b), "%s", k->prec);
	return s;
}

static int cmp_name(const void *a, const void *b)
{
	const char *x = a, *y = b;
	int c;

	for (int part = 0; part < 3; part++) {
		if ((c = strcmp(x, y)) != 0)
			return c;
		x += strlen(x) + 1;
		y += strlen(y) + 1;
	}
	return 0;
}

static void add_meta(struct speedup *st, const struct input *in)
{
	st->metas = xgrow(st->metas, &st->capmetas, st->nmetas + 1, sizeof *st->metas);
	st->metas[st->nmetas++] = (struct meta){xstrdup(in->line), st->nrecs};
	if (metaline_parse(in, in->line, META_RUN, &st->m) == META_OUTCOME &&
	    st->m.runkey.nodes == 1 && st->m.runkey.gpus == 1) {
		char *name = setting_name(st->m.framework, &st->m.runkey);
		char **p = tsearch(name, &st->failed_bases, cmp_name);
		if (!p)
			die("out of memory");
		if (*p != name)
			free(name);
	}
}

/* Whether the 1n1g of c's framework, batch and precision has outcome lines. */
static int base_failed(const struct speedup *st, const struct medrec *c)
{
	char *name = setting_name(c->framework, &c->key);
	int found = tfind(name, &st->failed_bases, cmp_name) != NULL;

	free(name);
	return found;
}

static void add(struct speedup *st, struct input *in)
{
	struct medrec r;

	int nf = medrec_fields(in, 0);

	medrec_parse(in, nf, &r);
	medrec_stats(in, nf, &r);
	medrec_unique(in, &r, &st->seen);
	st->recs = xgrow(st->recs, &st->caprecs, st->nrecs + 1, sizeof *st->recs);
	st->recs[st->nrecs++] = r;
}

static int cmp_setting(const void *a, const void *b)
{
	const struct medrec *x = a, *y = b;
	int c = strcmp(x->framework, y->framework);

	if (c == 0)
		c = x->key.batch != y->key.batch ? (x->key.batch < y->key.batch ? -1 : 1)
						 : strcmp(x->key.prec, y->key.prec);
	return c;
}

/* Once all records are read (recs no longer moves). */
static void index_bases(struct speedup *st)
{
	for (size_t i = 0; i < st->nrecs; i++)
		if (st->recs[i].key.nodes == 1 && st->recs[i].key.gpus == 1 &&
		    !tsearch(&st->recs[i], &st->bases, cmp_setting))
			die("out of memory");
}

static const struct medrec *base_of(const struct speedup *st, const struct medrec *c)
{
	struct medrec *const *p = tfind(c, &st->bases, cmp_setting);

	return p ? *p : NULL;
}

/* R2n(median / base median), which must come out finite and positive. */
static double speedup_of(const struct medrec *c, const struct medrec *b)
{
	double v = r2n(c->median / b->median);

	if (!isfinite(v))
		die_at(c->file, c->line, "speedup %s / %s overflows", c->field[2], b->field[2]);
	if (!(v > 0))
		die_at(c->file, c->line, "speedup %s / %s rounds to 0.00", c->field[2],
		       b->field[2]);
	return v;
}

/* The scaling efficiency, speedup / devices (the base is one device); one
 * that rounds to 0.00 is an error, as a speedup's is. */
static double efficiency_of(const struct medrec *c, const struct medrec *b)
{
	double eff = c->median / b->median / (double)(c->key.nodes * c->key.gpus);

	if (!isfinite(eff) || !(r2p(eff, 2) > 0))
		die_at(c->file, c->line, "efficiency %g of %s %s is not above 0.00", eff,
		       c->framework, c->keytext);
	return eff;
}

/* Our columns after the speedup: its half-width from the two intervals'
 * relative half-widths (independent runs: they add in quadrature; "-" when
 * one has no interval; 0 for the base itself) and the efficiency. */
static void print_stats(const struct medrec *c, const struct medrec *b, double speedup, double eff)
{
	if (c == b) {
		printf("\t0.00");
	} else if (!b->stats || isnan(c->ci_lo) || isnan(b->ci_lo)) {
		printf("\t-");
	} else {
		double rc = (c->ci_hi - c->ci_lo) / 2 / c->mean,
		       rb = (b->ci_hi - b->ci_lo) / 2 / b->mean;
		double pm = speedup * sqrt(rc * rc + rb * rb);
		if (!isfinite(pm))
			die_at(c->file, c->line, "speedup's half-width overflows");
		printf("\t%.2f", pm);
	}
	printf("\t%.2f", eff);
}

static void print_metas(const struct speedup *st, size_t *m, size_t before)
{
	for (; *m < st->nmetas && st->metas[*m].before == before; ++*m)
		printf("%s\n", st->metas[*m].text);
}

int filter_run(int argc, char **argv)
{
	struct speedup st = {0};
	struct input in;
	size_t m = 0;

	usage_text = "speedup [file ...]\n"
		     "  in:  framework key median mean min max n [ci_lo ci_hi cv_pct outliers]\n"
		     "  out: the record, speedup [speedup_pm efficiency] (- when the 1n1g base's\n"
		     "       runs all failed: its # outcome lines)";
	opterr = 0;
	if (getopt(argc, argv, "") != -1)
		usage();
	argc -= optind;
	argv += optind;

	FOREACH_INPUT(in, argc, argv)
		while (input_record(&in))
			if (in.meta)
				add_meta(&st, &in);
			else
				add(&st, &in);
	index_bases(&st);
	for (size_t i = 0; i < st.nrecs; i++) {
		if (base_of(&st, &st.recs[i]) || base_failed(&st, &st.recs[i]))
			continue;
		char b[KEY_MAX];
		struct key bk = st.recs[i].key;
		bk.nodes = bk.gpus = 1;
		key_format(&bk, b, sizeof b);
		die_at(st.recs[i].file, st.recs[i].line, "no 1n1g base for %s %s (need %s)",
		       st.recs[i].framework, st.recs[i].keytext, b);
	}
	/* every figure checked before the first line is written */
	double *speedups = xmalloc((st.nrecs ? st.nrecs : 1) * 2 * sizeof *speedups);
	double *effs = speedups + (st.nrecs ? st.nrecs : 1);
	for (size_t i = 0; i < st.nrecs; i++) {
		const struct medrec *c = &st.recs[i], *b = base_of(&st, c);
		if (b)
			speedups[i] = speedup_of(c, b);
		if (b && c->stats)
			effs[i] = efficiency_of(c, b);
	}
	for (size_t i = 0; i < st.nrecs; i++) {
		const struct medrec *c = &st.recs[i];

		print_metas(&st, &m, i);
		for (int f = 0; f < MEDREC_NF; f++)
			printf("%s\t", c->field[f]);
		if (c->stats)
			printf("%s\t", c->stats_text);
		if (!base_of(&st, c)) { /* its base failed */
			printf(c->stats ? "-\t-\t-" : "-");
		} else {
			printf("%.2f", speedups[i]);
			if (c->stats)
				print_stats(c, base_of(&st, c), speedups[i], effs[i]);
		}
		putchar('\n');
	}
	print_metas(&st, &m, st.nrecs);
	free(speedups);
	finish_output();
	return 0;
}

int main(int argc, char *argv[])
{
	progname = "speedup";
	return filter_run(argc, argv);
}
