/*
 * median — reduce the runs of each configuration to one line.
 *
 * Reads window records (framework, key, run, samples_per_s) and writes, per
 * (framework, key) in the order first met: framework, key, median, mean, min,
 * max, n. Median: sorted, even count (a + b) / 2 in double; mean: sequential
 * sum in input order / n; all four rounded once, here, with R2n and printed
 * %.2f (doc/dlperf.md). A run met twice is an error; in DLPerf's mode the
 * later value replaces the earlier one in its place, as DLPerf's dictionary
 * did.
 *
 * In our mode (not DLPerf's) four more columns follow n: ci_lo, ci_hi (the
 * 95 % Student-t interval of the mean), cv_pct, and the outlier runs
 * (modified z-score above 3.5), as report_stats says (doc/statistics.md).
 * Window records of 4 or 7 columns are read (lib/winrec.c).
 *
 * Every number printed is finite and above 0.00: a samples_per_s that R2n
 * takes to 0 or to infinity (x * 100 overflows) is an error naming its file
 * and line (it would be the min or the max); a mean whose sum overflows is
 * an error naming the configuration.
 *
 * Configurations and runs are found in hash tables: linear in the input.
 *
 * Meta lines ('#') are copied to the output as they come, so all come before
 * the records, printed at the end. "# mode=dlperf" before the first record
 * selects DLPerf's mode, as -c dlperf does; a mode line after it is an error.
 *
 * An outcome line ("# outcome framework=.. key=.. run=.. status=..", a run
 * that left no log: bin/outcome, doc/formats.md) is checked by lib/meta.c
 * and passed on like the others; a configuration's record is the median of
 * the runs that have records (n counts them), and a configuration whose
 * runs all failed has no record: table and plot make its row from the
 * outcome lines. A run with both a record and an outcome, or two outcomes,
 * is an error naming the later line.
 */
#include "filter.h"
#include "lib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct run {
	long id;
	double speed;
};

struct config {
	char *framework, *key;
	struct run *runs;
	size_t n, cap;
};

/* One call's state (filter.h). */
struct median {
	struct config *configs;
	size_t nconfigs, capconfigs;
	size_t nrecords;          /* run records read */
	size_t noutcomes;         /* outcome lines read */
	struct hash config_index; /* (framework, key) → configs[i] */
	struct hash run_index;    /* (configuration, run) → its runs[i] */
	struct hash failed_index; /* (configuration, run) → the outcome's index */
	struct hkey hk;
	struct metaline m;
	int dlperf;
};

static struct config *config_get(struct median *st, const char *framework, const char *key)
{
	hkey_start(&st->hk);
	hkey_str(&st->hk, framework);
	hkey_str(&st->hk, key);
	size_t i = hash_intern(&st->config_index, &st->hk, st->nconfigs);
	if (i < st->nconfigs)
		return &st->configs[i];
	st->configs = xgrow(st->configs, &st->capconfigs, st->nconfigs + 1, sizeof *st->configs);
	struct config *c = &st->configs[st->nconfigs++];
	memset(c, 0, sizeof *c);
	c->framework = xstrdup(framework);
	c->key = xstrdup(key);
	return c;
}

/* The key of run id of configuration c in st->hk. */
static void run_key(struct median *st, const struct config *c, long id)
{
	hkey_start(&st->hk);
	hkey_long(&st->hk, (long)(c - st->configs));
	hkey_long(&st->hk, id);
}

/* An outcome line: its run must have no record and no other outcome. */
static void outcome(struct median *st, const struct input *in)
{
	struct config *c = config_get(st, st->m.framework, st->m.key);

	run_key(st, c, st->m.run);
	if (hash_find(&st->run_index, &st->hk) != HASH_NONE)
		record_die(in, "run %ld of %s %s has a record and an outcome (%s)", st->m.run,
			   c->framework, c->key, outcome_names[st->m.status]);
	if (hash_intern(&st->failed_index, &st->hk, st->noutcomes) != st->noutcomes)
		record_die(in, "a second outcome of run %ld of %s %s", st->m.run, c->framework,
			   c->key);
	st->noutcomes++;
}

/* A meta line: copied as it came; a mode line sets the mode, which must be
 * known before the first record. */
static void meta(struct median *st, const struct input *in)
{
	if (meta_mode(in, st->nrecords > 0))
		st->dlperf = 1;
	if (metaline_parse(in, in->line, META_RUN, &st->m) == META_OUTCOME)
		outcome(st, in);
	printf("%s\n", in->line);
}

static void add(struct median *st, struct input *in)
{
	struct winrec w;

	winrec_parse(in, &w);
	long id = w.run;
	double v = w.speed;

	struct config *c = config_get(st, in->f[0], in->f[1]);
	st->nrecords++;
	run_key(st, c, id);
	if (hash_find(&st->failed_index, &st->hk) != HASH_NONE)
		record_die(in, "run %ld of %s %s has an outcome and a record", id, c->framework,
			   c->key);
	size_t i = hash_intern(&st->run_index, &st->hk, c->n);
	if (i < c->n) {
		if (!st->dlperf)
			record_die(in, "duplicate run %ld of %s %s", id, c->framework, c->key);
		c->runs[i].speed = v;
		return;
	}
	c->runs = xgrow(c->runs, &c->cap, c->n + 1, sizeof *c->runs);
	c->runs[c->n++] = (struct run){id, v};
}

/* The configuration's median, mean, min and max, R2n'd. add() checked
 * each value, so min and max are finite and above 0 after R2n, and so is
 * the median between them. */
static void summarize(const struct config *c, int dlperf, double out[4])
{
	double *v = xmalloc(c->n * sizeof *v), sum = 0;

	for (size_t i = 0; i < c->n; i++) {
		v[i] = c->runs[i].speed;
		sum += v[i];
	}
	out[0] = r2n(median_of(v, c->n));
	out[1] = r2n(sum / (double)c->n);
	out[2] = r2n(v[0]);
	out[3] = r2n(v[c->n - 1]);
	double mean, sd;
	mean_sd(v, c->n, &mean, &sd);
	free(v);
	if (!isfinite(out[1]))
		die("%s %s: the sum of %zu samples_per_s overflows", c->framework, c->key, c->n);
	/* our columns: the interval's half-width must be finite too */
	if (!dlperf && !(isfinite(sd) && isfinite(12.71 * sd) && isfinite(mean + 12.71 * sd)))
		die("%s %s: the standard deviation of %zu samples_per_s overflows", c->framework,
		    c->key, c->n);
	/* The sum's rounding can take the mean of equal values one ulp past
	 * them; the mean is within [min, max], and the records say so. */
	out[1] = fmin(fmax(out[1], out[2]), out[3]);
}

/* A percentage or bound as %.2f, never "-0.00". */
static void print_num(double x)
{
	printf("\t%.2f", r2p(x, 2) == 0 ? 0.0 : x);
}

static int cmp_run(const void *a, const void *b)
{
	const struct run *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* Our columns (doc/statistics.md): the 95 % Student-t interval of the mean
 * and the coefficient of variation ("-" for n < 2), and the outlier runs:
 * modified z-score 0.6745 (x - median) / MAD above 3.5 (Iglewicz and
 * Hoaglin), with 1.253314 x the mean absolute deviation for MAD when MAD is
 * 0; "-" for none, or n < 3. */
static void report_stats(const struct config *c)
{
	double *v = xmalloc(c->n * sizeof *v), mean, sd, med, mad, scale = 0.6745;
	struct run *by_id = xmalloc(c->n * sizeof *by_id);
	int any = 0;

	for (size_t i = 0; i < c->n; i++)
		v[i] = c->runs[i].speed;
	mean_sd(v, c->n, &mean, &sd);
	if (c->n < 2) {
		printf("\t-\t-\t-");
	} else {
		double h = t_quantile(0.975, (double)(c->n - 1)) * sd / sqrt((double)c->n);
		print_num(mean - h);
		print_num(mean + h);
		print_num(sd / mean * 100);
	}
	med = median_of(v, c->n);
	mad = mad_of(v, c->n, med);
	if (mad == 0) {
		for (size_t i = 0; i < c->n; i++)
			mad += fabs(v[i] - med) / (double)c->n;
		scale = 1 / 1.253314;
	}
	memcpy(by_id, c->runs, c->n * sizeof *by_id);
	qsort(by_id, c->n, sizeof *by_id, cmp_run);
	putchar('\t');
	for (size_t i = 0; c->n >= 3 && mad > 0 && i < c->n; i++)
		if (fabs(scale * (by_id[i].speed - med) / mad) > 3.5)
			printf("%s%ld", any++ ? "," : "", by_id[i].id);
	if (!any)
		putchar('-');
	free(v);
	free(by_id);
}

static void report(const struct config *c, int dlperf, const double s[4])
{
	printf("%s\t%s\t%.2f\t%.2f\t%.2f\t%.2f\t%zu", c->framework, c->key, s[0], s[1], s[2], s[3],
	       c->n);
	if (!dlperf)
		report_stats(c);
	putchar('\n');
}

int filter_run(int argc, char **argv)
{
	struct median st = {0};
	struct input in;
	int ch;

	usage_text = "median [-c dlperf] [file ...]\n"
		     "  in:  framework key run samples_per_s [jitter_pct drift_pct steady]\n"
		     "  out: framework key median mean min max n ci_lo ci_hi cv_pct outliers\n"
		     "       (DLPerf's mode: framework key median mean min max n)";
	opterr = 0;
	while ((ch = getopt(argc, argv, "c:")) != -1) {
		switch (ch) {
		case 'c':
			st.dlperf = compat_flag(optarg);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;

	FOREACH_INPUT(in, argc, argv)
		while (input_record(&in))
			if (in.meta)
				meta(&st, &in);
			else
				add(&st, &in);
	/* All checked before the first record is written. */
	double(*s)[4] = xmalloc((st.nconfigs ? st.nconfigs : 1) * sizeof *s);
	for (size_t i = 0; i < st.nconfigs; i++)
		if (st.configs[i].n)
			summarize(&st.configs[i], st.dlperf, s[i]);
	for (size_t i = 0; i < st.nconfigs; i++)
		if (st.configs[i].n) /* none: every run failed (its outcome lines) */
			report(&st.configs[i], st.dlperf, s[i]);
	free(s);
	finish_output();
	return 0;
}

int main(int argc, char *argv[])
{
	progname = "median";
	return filter_run(argc, argv);
}
