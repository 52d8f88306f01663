/*
 * medrec.c — the median record that median writes and speedup and table
 * read (framework, key, median, mean, min, max, n, tab-separated): one
 * reader that validates it, with errors naming file and line.
 */
#include "lib.h"

#include <math.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>

/* Die when field i, value v, lies outside [min, max]. */
static void within(struct input *in, const struct medrec *r, int i, double v, const char *what)
{
	if (v < r->min || v > r->max)
		record_die(in, "%s '%s' is outside min..max '%s'..'%s'", what, in->f[i], in->f[4],
			   in->f[5]);
}

void medrec_parse(struct input *in, int nf, struct medrec *r)
{
	size_t len = 0;
	char *p;

	record_expect(in, nf);
	if (in->f[0][0] == '\0')
		record_die(in, "empty framework");
	if (key_parse(in->f[1], &r->key) != 0)
		record_die(in, "key '%s' is not <N>n<G>g_b<B>_<prec>", in->f[1]);
	r->median = record_num(in, 2, "median", 1);
	r->mean = record_num(in, 3, "mean", 1);
	r->min = record_num(in, 4, "min", 1);
	r->max = record_num(in, 5, "max", 1);
	if (parse_long(in->f[6], 1, 1000000000, &r->n) != 0)
		record_die(in, "n '%s' is not a positive integer", in->f[6]);
	/* median writes min <= median, mean <= max; anything else was not made
	 * by it, and would print a negative spread. */
	if (r->min > r->max)
		record_die(in, "min '%s' is above max '%s'", in->f[4], in->f[5]);
	within(in, r, 2, r->median, "median");
	within(in, r, 3, r->mean, "mean");

	/* One allocation for the texts: a record is kept whole or not at all. */
	for (int i = 0; i < MEDREC_NF; i++)
		len += strlen(in->f[i]) + 1;
	p = xmalloc(len);
	for (int i = 0; i < MEDREC_NF; i++) {
		size_t n = strlen(in->f[i]) + 1;

		r->field[i] = memcpy(p, in->f[i], n);
		p += n;
	}
	r->framework = r->field[0];
	r->keytext = r->field[1];
	r->file = in->name;
	r->line = in->lineno;
}

/* Tree nodes are field[0] of a record: framework, then key right after it
 * in the same allocation. */
static int cmp_fwkey(const void *a, const void *b)
{
	const char *x = a, *y = b;
	int c = strcmp(x, y);

	return c ? c : strcmp(x + strlen(x) + 1, y + strlen(y) + 1);
}

void medrec_unique(const struct input *in, const struct medrec *r, void **seen)
{
	char *const *p = tsearch(r->field[0], seen, cmp_fwkey);

	if (!p)
		die("out of memory");
	if (*p != r->field[0])
		record_die(in, "duplicate configuration %s %s", r->framework, r->keytext);
}

int medrec_fields(const struct input *in, int extra)
{
	return in->nf >= extra + MEDREC_STATS_NF ? MEDREC_STATS_NF : MEDREC_NF;
}

void medrec_stats(struct input *in, int median_nf, struct medrec *r)
{
	const char *o = in->f[10];
	char *end;

	r->stats = median_nf == MEDREC_STATS_NF;
	r->stats_text = NULL;
	if (!r->stats)
		return;
	r->ci_lo = record_opt_num(in, 7, "ci_lo", 0);
	r->ci_hi = record_opt_num(in, 8, "ci_hi", 0);
	r->cv = record_opt_num(in, 9, "cv_pct", 0);
	if (isnan(r->ci_lo) != isnan(r->ci_hi) || isnan(r->ci_lo) != isnan(r->cv))
		record_die(in, "ci_lo, ci_hi and cv_pct must all be numbers or all -");
	if (r->ci_lo > r->ci_hi)
		record_die(in, "ci_lo '%s' is above ci_hi '%s'", in->f[7], in->f[8]);
	if (r->cv < 0)
		record_die(in, "cv_pct '%s' is negative", in->f[9]);
	r->outliers = strcmp(o, "-") != 0;
	while (r->outliers) {
		/* as median writes them: no leading zero (JSON has none: table
		 * -s json copies them) */
		if (*o < '0' || *o > '9' || strtol(o, &end, 10) > 1000000000 || end - o > 10 ||
		    (*o == '0' && end - o > 1))
			record_die(in, "outliers '%s' is not run numbers joined by ','", in->f[10]);
		if (*end == '\0')
			break;
		if (*end != ',')
			record_die(in, "outliers '%s' is not run numbers joined by ','", in->f[10]);
		o = end + 1;
	}
	size_t len = strlen(in->f[7]) + strlen(in->f[8]) + strlen(in->f[9]) + strlen(in->f[10]) + 4;
	r->stats_text = xmalloc(len);
	snprintf(r->stats_text, len, "%s\t%s\t%s\t%s", in->f[7], in->f[8], in->f[9], in->f[10]);
}
