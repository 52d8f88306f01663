/*
 * compare — has a change made training slower? Two files of per-run
 * records as window writes them, the baseline first.
 *
 * Per configuration (framework, key) found in both files, in the
 * baseline's order: framework, key, the baseline's mean samples/s and its
 * runs, the new mean and its runs, the change in % ((new - baseline) /
 * baseline), the two-sided p-value of Welch's t-test (unequal variances) on
 * the two sets of runs, and a verdict: "slower" or "faster" when p < 0.05
 * AND the change is beyond the threshold (-t percent, default 2), else
 * "same"; "untested" (p "-") when a side has fewer than 2 runs. Welch, not
 * Mann-Whitney: with 3 runs a side the exact Mann-Whitney U test cannot go
 * below p = 0.1, so it could never call anything slower (doc/statistics.md).
 *
 * A configuration in only one file is named on stderr and not compared.
 * Meta lines are ignored. Exit status (as cmp and diff keep "different"
 * apart from "trouble"): 0 no configuration significantly slower, 3 at
 * least one, 1 bad input (named by file and line) or no configuration in
 * both, 2 a bad command line.
 */
#include "filter.h"
#include "lib.h"

#include <math.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXIT_SLOWER 3

struct side {
	double *v;
	long *run;
	size_t n, capv, capr;
};

struct config {
	char *name;  /* "framework\tkey", as printed */
	char *label; /* "framework key", for messages */
	struct side s[2];
	double change; /* in %, once both are read */
};

/* One call's state (filter.h). */
struct compare {
	void *configs;          /* tsearch tree of struct config by name */
	struct config **listed; /* the baseline's, in order */
	size_t nlisted, caplisted;
	struct hash runs; /* (side, configuration, run): each met once */
	struct hkey hk;
	double threshold;
	int slower;
};

static int cmp_config(const void *a, const void *b)
{
	return strcmp(((const struct config *)a)->name, ((const struct config *)b)->name);
}

/* The configuration, made when new: listed when met in the baseline. *made
 * says whether it was made now. */
static struct config *config_get(struct compare *st, const char *framework, const char *key,
				 int list, int *made)
{
	size_t len = strlen(framework) + strlen(key) + 2;
	struct config probe, *c, **p;

	probe.name = xmalloc(len);
	snprintf(probe.name, len, "%s\t%s", framework, key);
	p = tfind(&probe, &st->configs, cmp_config);
	*made = !p;
	if (p) {
		free(probe.name);
		return *p;
	}
	c = xcalloc(1, sizeof *c);
	c->name = probe.name;
	c->label = xstrdup(probe.name);
	*strchr(c->label, '\t') = ' ';
	if (!tsearch(c, &st->configs, cmp_config))
		die("out of memory");
	if (!list)
		return c;
	st->listed = xgrow(st->listed, &st->caplisted, st->nlisted + 1, sizeof *st->listed);
	st->listed[st->nlisted++] = c;
	return c;
}

/* Read one file's runs into side which (0 baseline, 1 new). */
static void read_side(struct compare *st, const char *path, int which)
{
	struct input in;
	struct winrec w;

	input_open(&in, path);
	while (input_record(&in)) {
		if (in.meta)
			continue;
		winrec_parse(&in, &w);
		int made;
		struct config *c = config_get(st, in.f[0], in.f[1], which == 0, &made);
		if (which == 1 && made)
			warnf("%s:%ld: %s is not in the baseline: not compared", in.name, in.lineno,
			      c->label);
		struct side *s = &c->s[which];
		hkey_start(&st->hk);
		hkey_long(&st->hk, which);
		hkey_str(&st->hk, c->name);
		hkey_long(&st->hk, w.run);
		if (hash_intern(&st->runs, &st->hk, s->n) != s->n)
			record_die(&in, "duplicate run %ld of %s %s", w.run, in.f[0], in.f[1]);
		s->v = xgrow(s->v, &s->capv, s->n + 1, sizeof *s->v);
		s->run = xgrow(s->run, &s->capr, s->n + 1, sizeof *s->run);
		s->v[s->n] = w.speed;
		s->run[s->n++] = w.run;
	}
	input_close(&in);
}

/* Welch's two-sided p-value for the means of a and b; 1 when both have no
 * spread and equal means, 0 when they have no spread and differ. */
static double welch_p(const struct side *a, const struct side *b)
{
	double ma, sa, mb, sb;

	mean_sd(a->v, a->n, &ma, &sa);
	mean_sd(b->v, b->n, &mb, &sb);
	double va = sa * sa / (double)a->n, vb = sb * sb / (double)b->n, se2 = va + vb;
	if (se2 == 0)
		return ma == mb ? 1 : 0;
	/* Welch-Satterthwaite with the variances as shares of se2: the plain
	 * form, se2^2 / (...), overflowed to inf / inf for rates near 1e102
	 * (found by the fuzz target) */
	double ra = va / se2, rb = vb / se2;
	double df = 1 / (ra * ra / (double)(a->n - 1) + rb * rb / (double)(b->n - 1));
	return t_tail2((mb - ma) / sqrt(se2), df);
}

/* The change in %; dies (before anything is printed) when it overflows. */
static void change_of(struct config *c)
{
	double ma, mb, sd;

	mean_sd(c->s[0].v, c->s[0].n, &ma, &sd);
	mean_sd(c->s[1].v, c->s[1].n, &mb, &sd);
	c->change = (mb - ma) / ma * 100;
	if (!isfinite(mb) || !isfinite(c->change))
		die("%s: the mean or the change overflows", c->label);
	if (c->s[0].n >= 2 && c->s[1].n >= 2 && !isfinite(welch_p(&c->s[0], &c->s[1])))
		die("%s: the test's p-value is not finite", c->label);
}

static void report(struct compare *st, const struct config *c)
{
	const struct side *a = &c->s[0], *b = &c->s[1];
	double ma, mb, sd, change = c->change;

	mean_sd(a->v, a->n, &ma, &sd);
	mean_sd(b->v, b->n, &mb, &sd);
	printf("%s\t%.2f\t%zu\t%.2f\t%zu\t%.2f", c->name, ma, a->n, mb, b->n,
	       r2p(change, 2) == 0 ? 0.0 : change);
	if (a->n < 2 || b->n < 2) {
		printf("\t-\tuntested\n");
		return;
	}
	double p = welch_p(a, b);
	const char *verdict = "same";
	if (p < 0.05 && change < -st->threshold) {
		verdict = "slower";
		st->slower = 1;
	} else if (p < 0.05 && change > st->threshold) {
		verdict = "faster";
	}
	printf("\t%.3g\t%s\n", p, verdict);
}

int filter_run(int argc, char **argv)
{
	struct compare st = {.threshold = 2};
	size_t both = 0;
	int ch;

	usage_text = "compare [-t percent] BASELINE NEW\n"
		     "  in:  window records (framework key run samples_per_s ...), baseline first\n"
		     "  out: framework key baseline_mean baseline_n new_mean new_n change_pct "
		     "p_value verdict\n"
		     "  exit: 0 none slower, 3 one or more slower, 1 bad input, 2 bad command line";
	opterr = 0;
	while ((ch = getopt(argc, argv, "t:")) != -1) {
		switch (ch) {
		case 't':
			if (parse_double(optarg, &st.threshold) != 0 || !(st.threshold >= 0))
				die_usage("-t: '%s' is not a percentage >= 0", optarg);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 2)
		usage();

	read_side(&st, argv[0], 0);
	read_side(&st, argv[1], 1);
	for (size_t i = 0; i < st.nlisted; i++) {
		if (st.listed[i]->s[1].n == 0)
			warnf("%s: %s is not in %s: not compared", argv[0], st.listed[i]->label,
			      argv[1]);
		else
			change_of(st.listed[i]), both++;
	}
	if (both == 0)
		die("%s and %s have no configuration in common", argv[0], argv[1]);
	for (size_t i = 0; i < st.nlisted; i++)
		if (st.listed[i]->s[1].n > 0)
			report(&st, st.listed[i]);
	finish_output();
	return st.slower ? EXIT_SLOWER : 0;
}

int main(int argc, char *argv[])
{
	progname = "compare";
	return filter_run(argc, argv);
}
