/*
 * ranks — name the slow rank of a data-parallel run.
 *
 * Reads bench logs written with --rank-times (doc/bench.md), whose rank 0
 * writes one line per iteration with every rank's compute time (its step
 * less the wait for the gradient sums):
 *
 *	# ranks iter=12 compute_s=0.4120,0.4093,0.6311,0.4102
 *
 * For each iteration after the first SKIP (-s, default 1: the warm-up) it
 * takes the median of the ranks' times and each rank's ratio to it; a rank
 * whose median ratio over the iterations is above 1 + PERCENT/100 (-t,
 * default 5) is consistently slower than the median rank: slower in more
 * than half of the steps, so one stall does not name it. Writes one record
 * per rank, tab-separated, in rank order for each file in order:
 *
 *	file rank median_compute_s ratio slow_steps steps verdict
 *
 * ratio is the median ratio (1.000 = the median rank), slow_steps the steps
 * in which the rank was above the threshold, verdict "slow" or "ok". A log
 * without "# ranks" lines after the warm-up, a line whose numbers are not
 * positive, or whose count of ranks changes, is an error naming file and line.
 */
#include "../filter.h"
#include "lib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One file's times: the state of a call (filter.h), read file by file. */
struct ranks {
	double *times; /* times[step * nranks + rank] */
	size_t ntimes, captimes;
	double *col, *ratios; /* scratch: one step's times, one rank's ratios */
	int nranks;
	long nsteps;
};

/* After a file: its times freed, ready for the next. */
static void clear(struct ranks *st)
{
	free(st->times);
	free(st->col);
	free(st->ratios);
	*st = (struct ranks){0};
}

/* "compute_s=a,b,..." at p: one step's times, appended when keep is set
 * (every line is checked); the count of ranks must be the file's. */
static void read_times(struct ranks *st, struct input *in, const char *p, int keep)
{
	int n = 0;
	char buf[64];

	for (;;) {
		size_t len = strcspn(p, ", \t");
		double v;
		if (len == 0 || len >= sizeof buf)
			record_die(in, "rank %d: not a number", n);
		memcpy(buf, p, len);
		buf[len] = '\0';
		if (parse_double(buf, &v) != 0 || !(v > 0))
			record_die(in, "rank %d: compute time '%s' is not a positive number", n,
				   buf);
		if (keep) {
			st->times =
				xgrow(st->times, &st->captimes, st->ntimes + 1, sizeof *st->times);
			st->times[st->ntimes++] = v;
		}
		n++;
		p += len;
		if (*p != ',')
			break;
		p++;
	}
	if (*p != '\0' && *p != ' ' && *p != '\t')
		record_die(in, "unexpected '%c' after the compute times", *p);
	if (st->nranks == 0)
		st->nranks = n;
	else if (n != st->nranks)
		record_die(in, "%d ranks, but %d on the earlier lines", n, st->nranks);
	st->nsteps += keep;
}

/* A "# ranks" line, after a launcher's prefix ("[1,0]<stdout>:") if any. */
static const char *ranks_line(const char *s)
{
	const char *p = strstr(s, "# ranks ");

	if (!p || (p != s && p[-1] != ':'))
		return NULL;
	return p + 8;
}

static void read_file(struct ranks *st, struct input *in, long skip)
{
	long last = 0;

	while (input_line(in)) {
		const char *p = ranks_line(in->line), *q;
		long iter;
		char num[24];
		if (!p)
			continue;
		if (strncmp(p, "iter=", 5) != 0)
			record_die(in, "'# ranks' line without iter=");
		p += 5;
		size_t len = strcspn(p, " ");
		if (len == 0 || len >= sizeof num)
			record_die(in, "iter= is not an iteration number");
		memcpy(num, p, len);
		num[len] = '\0';
		if (parse_long(num, 1, 1L << 40, &iter) != 0)
			record_die(in, "iter=%s is not an iteration number", num);
		if (iter <= last)
			record_die(in, "iteration %ld after %ld", iter, last);
		last = iter;
		q = strstr(p + len, " compute_s=");
		if (!q)
			record_die(in, "'# ranks' line without compute_s=");
		read_times(st, in, q + 11, iter > skip);
	}
}

/* v > 0 with the given decimals, or in 3 significant digits when those
 * would show 0 (a positive figure is never printed as 0). */
static void put_positive(double v, int decimals)
{
	if (v >= 0.5 * pow(10, -decimals))
		printf("%.*f", decimals, v);
	else
		printf("%.3g", v);
}

static void report(struct ranks *st, const char *name, double threshold)
{
	st->col = xmalloc((size_t)st->nranks * sizeof *st->col);
	st->ratios = xmalloc((size_t)st->nsteps * sizeof *st->ratios);
	double *med = xmalloc((size_t)st->nsteps * sizeof *med);
	for (long s = 0; s < st->nsteps; s++) {
		memcpy(st->col, st->times + s * st->nranks, (size_t)st->nranks * sizeof *st->col);
		med[s] = median_of(st->col, (size_t)st->nranks);
	}
	for (int r = 0; r < st->nranks; r++) {
		long slow = 0;
		for (long s = 0; s < st->nsteps; s++) {
			st->ratios[s] = st->times[s * st->nranks + r] / med[s];
			slow += st->ratios[s] > threshold;
		}
		double ratio = median_of(st->ratios, (size_t)st->nsteps);
		for (long s = 0; s < st->nsteps; s++)
			st->ratios[s] = st->times[s * st->nranks + r];
		double t = median_of(st->ratios, (size_t)st->nsteps);
		if (!isfinite(ratio) || !isfinite(t))
			die("%s: rank %d: its time or its ratio to the median rank overflows", name,
			    r);
		printf("%s\t%d\t", name, r);
		put_positive(t, 4);
		putchar('\t');
		put_positive(ratio, 3);
		printf("\t%ld\t%ld\t%s\n", slow, st->nsteps, ratio > threshold ? "slow" : "ok");
	}
	free(med);
}

int filter_run(int argc, char **argv)
{
	struct ranks st = {0};
	struct input in;
	long skip = 1;
	double percent = 5;
	int ch;

	usage_text = "ranks [-s skip] [-t percent] [file ...]\n"
		     "  in:  bench logs of --rank-times (# ranks iter=N compute_s=a,b,...)\n"
		     "  out: file rank median_compute_s ratio slow_steps steps verdict";
	opterr = 0;
	while ((ch = getopt(argc, argv, "s:t:")) != -1) {
		switch (ch) {
		case 's':
			skip = (long)flag_int("-s", optarg, 0, 1L << 40);
			break;
		case 't':
			if (parse_double(optarg, &percent) != 0 || percent < 0 || percent > 1000)
				die_usage("-t: '%s' is not a percentage in [0, 1000]", optarg);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	FOREACH_INPUT(in, argc, argv) {
		read_file(&st, &in, skip);
		if (st.nsteps == 0)
			die("%s: no '# ranks' lines after iteration %ld (bench --rank-times)",
			    in.name, skip);
		report(&st, in.name, 1 + percent / 100);
		clear(&st);
	}
	finish_output();
	return 0;
}

int main(int argc, char *argv[])
{
	progname = "ranks";
	return filter_run(argc, argv);
}
