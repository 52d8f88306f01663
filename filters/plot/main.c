/*
 * plot — speedup records as one self-contained gnuplot script.
 *
 * Reads speedup records (framework, key, median, mean, min, max, n, speedup),
 * the records table reads, and their meta lines; writes a gnuplot script on
 * stdout that holds its data inline ($d1 << EOD ... EOD blocks), so
 * `gnuplot x.gp > x.svg` draws it and a person can change it and draw again.
 * The records must share one batch and precision; -s scaling (default) takes
 * one framework, -s compare several, side by side. Two panels:
 *
 *   left:  samples/s against the number of devices (nodes x devices per
 *          node), one point per configuration, error bars min..max of the
 *          runs; scaling: the ideal line (the 1n1g median x devices) and,
 *          with -p published.tsv, the published samples/s as a second series.
 *   right: speedup over 1n1g against devices, the ideal speedup (= devices);
 *          scaling: the efficiency (speedup / devices, %) on the right axis,
 *          and the published speedup with -p.
 *
 * A configuration whose runs all failed (outcome lines) has no point: its
 * status (OOM, failed, timeout) is written at its number of devices on the
 * x axis of both panels ($fN blocks); a speedup of "-" (the 1n1g base
 * failed) is NaN in the data, so that point and the ideal line are left out.
 *
 * The title names framework, batch, precision and the machine: the values
 * of the environment meta lines (series.c) when there are any, else "machine
 * not recorded". Numbers are printed as read (%.2f, as median and speedup
 * rounded them); same bytes in, same bytes out.
 */
#include "../filter.h"
#include "plot.h"

#include "../formats/formats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One colour a framework, in order; the published series is grey-green. */
static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
				      "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
#define NCOLOURS (sizeof colours / sizeof colours[0])

static const char *colour(size_t i)
{
	return colours[i % NCOLOURS];
}

/* A text inside a gnuplot double-quoted string: backslash and quote
 * escaped, control characters as spaces. */
static void put_quoted(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		putchar((unsigned char)*s < ' ' ? ' ' : *s);
	}
	putchar('"');
}

/* What the error bars of samples/s show. */
static const char *bars(const struct plotdata *d)
{
	return d->stats ? "95 % CI of the mean of the runs" : "min..max of the runs";
}

/* "\t%.2f" (or %.1f), or "\tNaN" (gnuplot leaves the point out). */
static void num(const char *fmt, double v)
{
	if (isnan(v)) {
		printf("\tNaN");
		return;
	}
	putchar('\t');
	printf(fmt, v);
}

/* The separator before the next element of a plot command. */
static const char *next(int *k)
{
	return (*k)++ ? ", \\\n     " : "";
}

static int any_figures(const struct plotdata *d)
{
	for (size_t s = 0; s < d->nseries; s++)
		if (d->series[s].figures)
			return 1;
	return d->npub > 0;
}

static void data_blocks(const struct plotdata *d)
{
	printf("# Each $dN block: one framework, rows in ladder order. Columns:\n"
	       "#   1 devices  2 nodes  3 devices per node  4 samples/s (median of n runs)\n"
	       "#   5, 6 error bar low, high: %s%s\n"
	       "#   7 speedup over 1n1g  8, 9 its error bar low, high%s\n"
	       "#   10 efficiency %% (speedup / devices)"
	       "  11 ideal samples/s (1n1g median × devices)  12 n runs\n",
	       bars(d), d->stats ? " (none where n < 2)" : "",
	       d->stats ? ": ± speedup_pm (the CIs propagated)" : " (none: no CIs in the records)");
	for (size_t s = 0; s < d->nseries; s++) {
		const struct series *se = &d->series[s];
		const struct point *base = &se->pts[0];

		printf("\n# $d%zu: %s\n$d%zu << EOD\n", s + 1, se->framework, s + 1);
		for (size_t i = 0; i < se->npts; i++) {
			const struct point *p = &se->pts[i];
			long dev = p->nodes * p->gpus;
			double lo = p->min, hi = p->max, pm = p->speedup_pm > 0 ? p->speedup_pm : 0;

			if (p->all_failed)
				continue;
			if (d->stats) {
				lo = p->ci_lo >= 0 ? p->ci_lo : p->median;
				hi = p->ci_hi >= 0 ? p->ci_hi : p->median;
			}
			printf("%ld\t%ld\t%ld\t%.2f\t%.2f\t%.2f", dev, p->nodes, p->gpus, p->median,
			       lo, hi);
			num("%.2f", p->speedup);
			num("%.2f", p->speedup - pm);
			num("%.2f", p->speedup + pm);
			num("%.1f", p->efficiency);
			num("%.2f", base->all_failed ? NAN : base->median * (double)dev);
			printf("\t%ld\n", p->n);
		}
		printf("EOD\n");
		if (!se->failures)
			continue;
		printf("\n# $f%zu: %s, the configurations whose runs all failed; columns: 1 devices"
		       "  2 nodes  3 devices per node  4 what became of them\n$f%zu << EOD\n",
		       s + 1, se->framework, s + 1);
		for (size_t i = 0; i < se->npts; i++) {
			const struct point *p = &se->pts[i];
			if (p->all_failed)
				printf("%ld\t%ld\t%ld\t%s\n", p->nodes * p->gpus, p->nodes, p->gpus,
				       outcome_cells[p->status]);
		}
		printf("EOD\n");
	}
	if (d->npub == 0)
		return;
	printf("\n# $pub: %s as published (-p); columns: 1 devices  2 samples/s  3 speedup "
	       "(NaN where the file gives none)\n$pub << EOD\n",
	       d->pubname);
	for (size_t i = 0; i < d->npub; i++) {
		const struct pubpoint *p = &d->pub[i];
		printf("%ld\t%.2f\t", p->devices, p->speed);
		if (p->speedup > 0)
			printf("%.2f\n", p->speedup);
		else
			printf("NaN\n");
	}
	printf("EOD\n");
}

void plot_title(const struct plotdata *d, int compare, char *buf, size_t size)
{
	const struct series *se = &d->series[0];
	const char *machine = d->machine[0] ? d->machine : "a machine not recorded in the logs";

	if (compare)
		snprintf(buf, size, "b%ld %s, frameworks side by side, on %s", se->batch, se->prec,
			 machine);
	else
		snprintf(buf, size, "%s b%ld %s on %s", framework_display(se->framework), se->batch,
			 se->prec, machine);
}

/* The statuses of the configurations whose runs all failed, on the x
 * axis at their devices. */
static void failure_labels(const struct plotdata *d, int *k)
{
	for (size_t s = 0; s < d->nseries; s++) {
		char t[160];
		if (!d->series[s].failures)
			continue;
		snprintf(t, sizeof t, "%s: every run failed",
			 framework_display(d->series[s].framework));
		printf("%s$f%zu using 1:(0):4 with labels point pointtype 2 pointsize 1.2 "
		       "lc rgb \"%s\" tc rgb \"%s\" offset 0,1 title ",
		       next(k), s + 1, colour(s), colour(s));
		put_quoted(t);
	}
}

static void left_panel(const struct plotdata *d, int compare)
{
	int k = 0;

	printf("\n# Left: throughput against devices.\n"
	       "set xlabel \"devices (nodes × devices per node)\"\n"
	       "set ylabel \"throughput (samples/s)\"\n"
	       "set xrange [0:*]\nset yrange [0:%s]\n"
	       "set key below left Left reverse maxcols 1\n",
	       any_figures(d) ? "*" : "1");
	printf("plot ");
	if (!compare && d->series[0].figures && !d->series[0].pts[0].all_failed)
		printf("%s$d1 using 1:11 with lines dashtype 2 linewidth 1.5 lc rgb \"#7f7f7f\" "
		       "title \"ideal: 1n1g × devices\"",
		       next(&k));
	for (size_t s = 0; s < d->nseries; s++) {
		char t[160];
		if (!d->series[s].figures)
			continue;
		snprintf(t, sizeof t, "%s: median, bars %s",
			 framework_display(d->series[s].framework), bars(d));
		printf("%s$d%zu using 1:4:5:6 with yerrorlines pointtype 7 pointsize 0.8 "
		       "linewidth 1.5 lc rgb \"%s\" title ",
		       next(&k), s + 1, colour(s));
		put_quoted(t);
	}
	failure_labels(d, &k);
	if (d->npub)
		printf("%s$pub using 1:2 with linespoints pointtype 4 pointsize 1 "
		       "linewidth 1 lc rgb \"#556b2f\" title \"published\"",
		       next(&k));
	putchar('\n');
}

/* The right axis from 0 past the best efficiency (100 % at least), in tens. */
static double efficiency_top(const struct series *se)
{
	double top = 100;

	for (size_t i = 0; i < se->npts; i++) {
		if (se->pts[i].efficiency > top)
			top = se->pts[i].efficiency;
	}
	return ceil(top * 1.1 / 10) * 10;
}

static void right_panel(const struct plotdata *d, int compare)
{
	printf("\n# Right: speedup over 1n1g%s against devices.\n"
	       "set ylabel \"speedup over 1n1g (×)\"\n"
	       "set yrange [0:*]\n",
	       compare ? "" : " and efficiency");
	if (!compare)
		printf("set ytics nomirror\nset y2tics\nset y2range [0:%.0f]\n"
		       "set y2label \"scaling efficiency (%%, speedup / devices)\"\n",
		       efficiency_top(&d->series[0]));
	printf("plot x with lines dashtype 2 linewidth 1.5 lc rgb \"#7f7f7f\" "
	       "title \"ideal: speedup = devices\"");
	int k = 1;
	for (size_t s = 0; s < d->nseries; s++) {
		char t[160];
		if (!d->series[s].speedups)
			continue;
		snprintf(t, sizeof t, "%s speedup%s", framework_display(d->series[s].framework),
			 d->stats ? ", bars ± its CI" : "");
		printf("%s$d%zu using 1:7:8:9 with yerrorlines pointtype 7 pointsize 0.8 "
		       "linewidth 1.5 lc rgb \"%s\" title ",
		       next(&k), s + 1, colour(s));
		put_quoted(t);
	}
	if (!compare && d->series[0].speedups)
		printf("%s$d1 using 1:10 axes x1y2 with linespoints pointtype 5 "
		       "pointsize 0.7 dashtype 3 lc rgb \"%s\" title \"efficiency (right axis)\"",
		       next(&k), colour(1));
	failure_labels(d, &k);
	if (d->npub)
		printf("%s$pub using 1:3 with linespoints pointtype 4 pointsize 1 "
		       "linewidth 1 lc rgb \"#556b2f\" title \"published speedup\"",
		       next(&k));
	putchar('\n');
}

static void script(const struct plotdata *d, int compare)
{
	char t[512];

	printf("# plot: made by dlbench's plot from speedup records; draw with\n"
	       "#   gnuplot THIS.gp > THIS.svg\n"
	       "set terminal svg size 1100,480 font \"sans,12\" noenhanced "
	       "background rgb \"white\"\n");
	data_blocks(d);
	plot_title(d, compare, t, sizeof t);
	printf("\nset multiplot layout 1,2 title ");
	put_quoted(t);
	printf(" font \",14\"\n");
	/* Whole devices on the x axis; gnuplot's own tics past 16. */
	long most = 1;
	for (size_t s = 0; s < d->nseries; s++) {
		const struct point *p = &d->series[s].pts[d->series[s].npts - 1];
		if (p->nodes * p->gpus > most)
			most = p->nodes * p->gpus;
	}
	printf("set grid\nset border 3\nset xtics nomirror%s\nset ytics nomirror\n"
	       "set key samplen 2\nset offsets 0, graph 0.05, graph 0.1, 0\n",
	       most <= 16 ? " 1" : "");
	left_panel(d, compare);
	right_panel(d, compare);
	printf("unset multiplot\n");
}

int filter_run(int argc, char **argv)
{
	struct plotdata d;
	const char *style = "scaling", *published = NULL, *md = NULL, *svg = NULL;
	char t[512];
	int ch, compare, page;

	usage_text =
		"plot [-s scaling|compare] [-p published.tsv] [file ...]\n"
		"       plot -s page -t table.md -g plot.svg [file ...]\n"
		"  in:  speedup records: framework key median mean min max n speedup, or\n"
		"       framework key median mean min max n ci_lo ci_hi cv_pct outliers speedup\n"
		"       speedup_pm efficiency (one batch and precision; one framework unless compare)\n"
		"  out: a gnuplot script with its data inline (gnuplot it > x.svg), or\n"
		"       page: an HTML page with the table, the SVG inline, noise, environment";
	opterr = 0;
	while ((ch = getopt(argc, argv, "s:p:t:g:")) != -1) {
		switch (ch) {
		case 's':
			style = optarg;
			break;
		case 'p':
			published = optarg;
			break;
		case 't':
			md = optarg;
			break;
		case 'g':
			svg = optarg;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (strcmp(style, "scaling") != 0 && strcmp(style, "compare") != 0 &&
	    strcmp(style, "page") != 0)
		die_usage("-s: '%s' is not scaling, compare or page", style);
	compare = strcmp(style, "compare") == 0;
	page = strcmp(style, "page") == 0;
	if (published && strcmp(style, "scaling") != 0)
		die_usage("-p: only with -s scaling");
	if (page ? !(md && svg) : md || svg)
		die_usage(page ? "-s page needs -t table.md and -g plot.svg"
			       : "-t and -g: only with -s page");

	plotdata_read(&d, argc, argv, compare, published);
	if (page) {
		plot_title(&d, 0, t, sizeof t);
		page_write(&d, t, md, svg);
	} else {
		script(&d, compare);
	}
	plotdata_free(&d);
	finish_output();
	return 0;
}

int main(int argc, char *argv[])
{
	progname = "plot";
	return filter_run(argc, argv);
}
