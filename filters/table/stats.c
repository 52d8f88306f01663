/*
 * stats.c — table's statistics columns (doc/statistics.md): beside
 * samples/s the half-width of the 95 % interval, beside the speedup its
 * half-width, the scaling efficiency, the coefficient of variation and a
 * mark on noisy rows (half-width above 2 % of the mean, or an outlier run)
 * with the runs that would bring the half-width to 1 %.
 */
#include "table.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Field i: "-" (NAN) or a number >= 0 that stays finite. */
static double dash_or_nonneg(struct input *in, int i, const char *what)
{
	if (strcmp(in->f[i], "-") == 0)
		return NAN;
	double v = record_num(in, i, what, 0);
	if (v < 0)
		record_die(in, "%s '%s' is negative", what, in->f[i]);
	return v;
}

/* Field i of a record whose speedup is "-": "-" too. */
static void dash_too(struct input *in, int i, const char *what)
{
	if (strcmp(in->f[i], "-") != 0)
		record_die(in, "%s '%s' without a speedup", what, in->f[i]);
}

double rowstats_read(struct input *in, int median_nf, const struct medrec *r, struct rowstats *s)
{
	double speedup = NAN;

	if (strcmp(in->f[median_nf], "-") != 0) {
		speedup = record_num(in, median_nf, "speedup", 1);
		if (!(r2p(speedup, 2) > 0))
			record_die(in, "speedup '%s' rounds to 0.00", in->f[median_nf]);
	}
	memset(s, 0, sizeof *s);
	s->has = r->stats;
	if (!s->has)
		return speedup;
	s->half = (r->ci_hi - r->ci_lo) / 2;
	s->half_pct = s->half / r->mean * 100;
	s->cv = r->cv;
	if (isnan(speedup)) {
		dash_too(in, median_nf + 1, "speedup_pm");
		dash_too(in, median_nf + 2, "efficiency");
		s->speedup_pm = s->eff = NAN;
	} else {
		s->speedup_pm = dash_or_nonneg(in, median_nf + 1, "speedup_pm");
		s->eff = record_num(in, median_nf + 2, "efficiency", 1);
		if (!(r2p(s->eff, 2) > 0))
			record_die(in, "efficiency '%s' rounds to 0.00", in->f[median_nf + 2]);
	}
	if (!isnan(s->half_pct) && !isfinite(s->half_pct))
		record_die(in, "the half-width over the mean '%s' overflows", in->f[3]);
	s->outliers = strrchr(r->stats_text, '\t') + 1;
	return speedup;
}

long runs_for_1pct(double cv_pct)
{
	double cv = cv_pct / 100, w = 0.02, n = ceil(4 * 1.96 * 1.96 * cv * cv / (w * w));

	return n < 2 ? 2 : n > 1e9 ? 1000000000 : (long)n;
}

void rowstats_header(const struct env *env, const char *tail, const char *rule, int published)
{
	printf("| node_num | gpu_num_per_node | batch_size_per_device | samples/s | ± | speedup | ± "
	       "| efficiency | n | spread | cv | noisy |%s%s\n",
	       tail, env_tail(env, published, 0));
	printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |%s%s\n",
	       rule, env_tail(env, published, 1));
}

/* %.2f or "-" for NAN, as one cell. */
static void cell(double v, const char *fmt)
{
	if (isnan(v)) {
		printf(" - |");
		return;
	}
	putchar(' ');
	printf(fmt, v);
	printf(" |");
}

void rowstats_cells(const struct medrec *r, const struct rowstats *s, double speedup, double spread)
{
	printf(" %.2f |", r->median);
	cell(s->has ? s->half : NAN, "%.2f");
	cell(speedup, "%.2f");
	cell(s->has ? s->speedup_pm : NAN, "%.2f");
	cell(s->has ? s->eff : NAN, "%.2f");
	printf(" %ld | %.1f%% |", r->n, spread);
	cell(s->has ? s->cv : NAN, "%.1f%%");
	if (!s->has) {
		printf(" - |");
	} else if (isnan(s->half)) {
		printf(" no interval: 1 run |");
	} else if (s->half_pct > 2 || strcmp(s->outliers, "-") != 0) {
		printf(" noisy:");
		if (s->half_pct > 2)
			printf(" ±%.1f%%", s->half_pct);
		if (strcmp(s->outliers, "-") != 0)
			printf("%s outlier run%s %s", s->half_pct > 2 ? "," : "",
			       strchr(s->outliers, ',') ? "s" : "", s->outliers);
		printf("; %ld runs for ±1%% |", runs_for_1pct(s->cv));
	} else {
		printf(" - |");
	}
}

/* A number in shortest round-trip form, or null. */
static void json_num(const char *key, double v)
{
	char b[40];

	if (isnan(v)) {
		printf(", \"%s\": null", key);
		return;
	}
	fmt_shortest(b, sizeof b, v);
	printf(", \"%s\": %s", key, b);
}

void rowstats_json(const struct medrec *r, const struct rowstats *s)
{
	if (!s->has)
		return;
	json_num("average_speed_ci95_low", isnan(s->half) ? NAN : r->ci_lo);
	json_num("average_speed_ci95_high", isnan(s->half) ? NAN : r->ci_hi);
	json_num("cv_percent", s->cv);
	printf(", \"outlier_runs\": [%s]", strcmp(s->outliers, "-") ? s->outliers : "");
	json_num("scaling_efficiency", s->eff);
	json_num("speedup_error", s->speedup_pm);
	printf(", \"noisy\": %s", isnan(s->half)                                     ? "null"
				  : s->half_pct > 2 || strcmp(s->outliers, "-") != 0 ? "true"
										     : "false");
	if (isnan(s->cv))
		printf(", \"runs_for_1pct\": null");
	else
		printf(", \"runs_for_1pct\": %ld", runs_for_1pct(s->cv));
}
