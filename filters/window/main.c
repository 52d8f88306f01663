/*
 * window — one throughput per run.
 *
 * Reads grep-iters records (framework, format, key, run, iter, timestamp_s,
 * step_s, samples_per_s, loss); the records of one run are adjacent. Writes
 * one record per run: framework, key, run, samples_per_s (%.2f), then in our
 * mode jitter_pct, drift_pct and steady (steady.c: the per-step rates'
 * 1.4826 x MAD / median, the drift of their median from the window's first
 * half to its second, and whether it is beyond -d). Meta lines
 * ("# key=value ...") are copied to the output as they come.
 *
 * Ours: the window is iterations s+1 … s+n; skip, count and method default
 * to the run's format (filters/formats/). Time method: TB × n ÷ T, T from
 * the timestamps of the records ending at s and s+n when the window's
 * records all carry one (integer microseconds when both stamps have <= 6
 * fraction digits, else the difference of the doubles), else the sum of
 * their step_s, else the sum of iterations × TB ÷ samples_per_s. Rate
 * method: the unweighted mean of the window's printed rates. Median-step
 * method (-m only): TB ÷ the median step_s per iteration (steady.c). Records
 * must come in increasing iteration order; runs are measured as they stream by.
 *
 * DLPerf's mode (-c dlperf, or a "# mode=dlperf" line before the first
 * record, as grep-iters -c dlperf writes): the records are one per log line
 * in file order, and each format is measured the way DLPerf's script for it
 * did, with DLPerf's window as the default (doc/dlperf.md); a window DLPerf
 * would have filled with 0 or NaN is an error. bench, which DLPerf never
 * ran, is measured our way.
 *
 * Bounds: a timestamp_s is below 10^12 s (year 33658; a calendar stamp up
 * to year 9999 is below 2.6 * 10^11), so a difference of two in integer
 * microseconds is below 10^18 and cannot overflow; keys are bounded by
 * KEY_PART_MAX (lib.h). A throughput that is not finite or that %.2f would
 * print as 0.00 is an error.
 *
 * launch's energy samples of a run ("# energy ... node=..", after its
 * records, as grep-iters writes them) are consumed: the run's record is
 * followed by one "# energy" line, the joules of its window over every
 * node's counters (energy.c), or why there are none.
 *
 * Errors name the run as framework/key/run (the records carry no path), or
 * file:line for a bad record.
 */
#include "../formats/dlperf.h"
#include "../formats/formats.h"
#include "../formats/stamp.h"
#include "../filter.h"
#include "window.h"

#include <math.h>
#include <search.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STAMP_SEC_MAX 1000000000000LL /* 10^12: see the bounds above */

enum { F_FRAMEWORK, F_FORMAT, F_KEY, F_RUN, F_ITER, F_TS, F_STEP, F_RATE, F_LOSS, NFIELDS };

struct run {
	char *id; /* "framework\0format\0key\0run" as split from the records */
	size_t idlen, idcap;
	char name[256];   /* framework/key/run, for messages */
	const char *file; /* where its latest record was read, for */
	long line;        /* its errors */
	char framework[128], keytext[KEY_MAX];
	long number;
	const struct format *fmt;
	struct key key;
	double tb;
	long s, n;
	enum method method;
	int dlperf;        /* measured by DLPerf's method: keep the records */
	long last;         /* iteration of the previous record, 0 at the start */
	struct stamp prev; /* the stamp of the window's previous record */
	/* ours: what the window's records sum to */
	struct stamp t0, t1;
	long inwin;
	int all_ts, all_step, all_rate;
	long no_ts, no_step, no_rate; /* first window iteration without one */
	double step_sum, rate_sum, derived_sum;
	/* DLPerf's mode: the run's records */
	struct line *lines;
	size_t nl, capl;
	/* ours: the window's steps, for the per-step rates */
	struct wstep *steps;
	size_t nsteps, capsteps;
	struct energy en; /* its energy samples (energy.c) */
};

/* One call's state (filter.h): the command line, and what was read. */
struct window {
	int dlperf;               /* DLPerf's mode: -c dlperf or a mode line */
	int records;              /* a record was read (a mode line comes before) */
	long opt_skip, opt_count; /* -s, -n; -1: the format's */
	int opt_method;           /* -m; -1: the format's */
	double opt_drift;         /* -d: the drift beyond which a window is not steady, % */
	void *seen;               /* the runs met, for seen_add (fields.c) */
	struct metaline m;        /* the meta line just read */
};

/* ---- ours ------------------------------------------------------------- */

/* One record of the current run, iteration order checked by the caller. */
/* An error of the run, located at its latest record. */
static LIB_NORETURN LIB_PRINTF(2, 3) void run_die(const struct run *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie_at(r->file, r->line, fmt, ap);
}

static void ours_add(struct run *r, const char *ts_text, long iter, double step, double rate)
{
	long lo = r->fmt->interval ? r->last : iter - 1, hi = iter;
	long s = r->s, e = r->s + r->n;
	int ts = strcmp(ts_text, "-") != 0;

	if (lo > r->last) {
		/* iterations last+1 … lo are missing: a gap if the window needs them */
		long a = r->last + 1 > s + 1 ? r->last + 1 : s + 1, b = lo < e ? lo : e;
		if (a == b)
			run_die(r, "%s: iteration %ld missing", r->name, a);
		if (a < b)
			run_die(r, "%s: iterations %ld-%ld missing", r->name, a, b);
	}
	if (hi == s && ts)
		stamp_parse(ts_text, &r->t0, 1);
	if (lo < s && hi > s)
		run_die(r, "%s: no record ends at iteration %ld", r->name, s);
	if (lo < e && hi > e)
		run_die(r, "%s: no record ends at iteration %ld", r->name, e);
	if (lo < s || hi > e)
		return;

	if (!ts && r->all_ts) {
		r->all_ts = 0;
		r->no_ts = hi;
	}
	if (isnan(step) && r->all_step) {
		r->all_step = 0;
		r->no_step = hi;
	}
	if (isnan(rate) && r->all_rate) {
		r->all_rate = 0;
		r->no_rate = hi;
	}
	r->step_sum += step;
	r->rate_sum += rate;
	r->derived_sum += (double)(hi - lo) * r->tb / rate;

	/* the step for the per-step rates: its time from the stamps when the
	 * one before it has one too (the first step's is the stamp at s) */
	struct stamp cur = {0};
	const struct stamp *before = r->inwin ? &r->prev : &r->t0;
	if (ts)
		stamp_parse(ts_text, &cur, 1);
	r->steps = xgrow(r->steps, &r->capsteps, r->nsteps + 1, sizeof *r->steps);
	r->steps[r->nsteps++] =
		(struct wstep){ts && before->present ? stamp_diff(before, &cur) : NAN, step, rate,
			       (double)(hi - lo)};
	r->prev = cur;
	r->inwin++;
	if (hi == e && ts)
		r->t1 = cur;
}

static double ours_speed(struct run *r)
{
	long s = r->s, e = r->s + r->n;
	double t;

	if (r->last < e)
		run_die(r, "%s: %ld iterations, need %ld", r->name, r->last, e);
	if (r->method == METHOD_MEDIAN_STEP) {
		if (!r->all_step)
			run_die(r, "%s: no step_s for iteration %ld", r->name, r->no_step);
		return median_step_speed(r->steps, r->nsteps, r->tb);
	}
	if (r->method == METHOD_RATE) {
		if (!r->all_rate)
			run_die(r, "%s: no samples_per_s for iteration %ld", r->name, r->no_rate);
		return r->rate_sum / (double)r->inwin;
	}
	if (r->all_ts) {
		if (!r->t0.present)
			run_die(r, "%s: no timestamp for the end of iteration %ld", r->name, s);
		t = stamp_diff(&r->t0, &r->t1);
	} else if (r->all_step) {
		t = r->step_sum;
	} else if (r->all_rate) {
		t = r->derived_sum;
	} else {
		run_die(r,
			"%s: iteration %ld has no timestamp, %ld no step_s, %ld no samples_per_s",
			r->name, r->no_ts, r->no_step, r->no_rate);
	}
	if (!(t > 0))
		run_die(r, "%s: iterations %ld-%ld took %g s", r->name, s + 1, e, t);
	return r->tb * (double)r->n / t;
}

/* ---- runs ------------------------------------------------------------- */

/* A new run begins with this record; r->id already holds its id. */
static void run_start(struct window *st, struct run *r, struct input *in)
{
	if (in->f[F_FRAMEWORK][0] == '\0' || strlen(in->f[F_FRAMEWORK]) >= sizeof r->framework)
		record_die(in, "bad framework '%s'", in->f[F_FRAMEWORK]);
	if (!(r->fmt = format_find(in->f[F_FORMAT])))
		record_die(in, "unknown format '%s'", in->f[F_FORMAT]);
	if (key_parse(in->f[F_KEY], &r->key) != 0)
		record_die(in, "key '%s' is not <N>n<G>g_b<B>_<prec>", in->f[F_KEY]);
	if (parse_long(in->f[F_RUN], 0, 1000000000, &r->number) != 0)
		record_die(in, "run '%s' is not a non-negative integer", in->f[F_RUN]);
	snprintf(r->framework, sizeof r->framework, "%s", in->f[F_FRAMEWORK]);
	key_format(&r->key, r->keytext, sizeof r->keytext);
	snprintf(r->name, sizeof r->name, "%s/%s/%ld", r->framework, r->keytext, r->number);
	if (!seen_add(&st->seen, r->name))
		record_die(in, "duplicate run %s", r->name);
	r->tb = (double)key_total_batch(&r->key);

	r->dlperf = st->dlperf && r->fmt->dlperf_speed;
	r->s = st->opt_skip >= 0 ? st->opt_skip : r->dlperf ? r->fmt->dlperf_skip : r->fmt->skip;
	r->n = st->opt_count >= 0 ? st->opt_count
	       : r->dlperf        ? r->fmt->dlperf_count
				  : r->fmt->count;
	r->method = st->opt_method >= 0 ? (enum method)st->opt_method : r->fmt->method;
	memset(&r->last, 0, offsetof(struct run, lines) - offsetof(struct run, last));
	r->all_ts = r->all_step = r->all_rate = 1;
	r->nl = r->nsteps = 0;
	energy_reset(&r->en);
}

static void run_add(struct run *r, struct input *in)
{
	long iter;

	r->file = in->name;
	r->line = in->lineno;
	if (parse_long(in->f[F_ITER], 1, 1000000000, &iter) != 0)
		record_die(in, "iter '%s' is not a positive integer", in->f[F_ITER]);
	if (strcmp(in->f[F_TS], "-") != 0) {
		struct stamp t;
		if (stamp_parse(in->f[F_TS], &t, 0) != 0)
			record_die(in, "timestamp_s '%s' is not a number", in->f[F_TS]);
		if (t.sec >= STAMP_SEC_MAX)
			record_die(in, "timestamp_s '%s' is not below 10^12", in->f[F_TS]);
	}
	if (in->f[F_LOSS][0] == '\0')
		record_die(in, "empty loss");
	if (r->dlperf) {
		r->lines = xgrow(r->lines, &r->capl, r->nl + 1, sizeof *r->lines);
		struct line *l = &r->lines[r->nl++];
		l->iter = iter;
		memset(&l->ts, 0, sizeof l->ts);
		if (strcmp(in->f[F_TS], "-") != 0)
			stamp_parse(in->f[F_TS], &l->ts, 1);
		l->step = opt_positive(in, F_STEP, "step_s");
		l->rate = opt_positive(in, F_RATE, "samples_per_s");
		return;
	}
	if (iter <= r->last)
		record_die(in, "iteration %ld after %ld", iter, r->last);
	double step = opt_positive(in, F_STEP, "step_s");
	double rate = opt_positive(in, F_RATE, "samples_per_s");
	ours_add(r, in->f[F_TS], iter, step, rate);
	r->last = iter;
}

/* The run's "# energy" line, when launch's samples came with it: over the
 * window's first and last stamps. */
static void run_energy(struct run *r)
{
	struct energy_window w = {r->framework,       r->keytext, r->number, r->key.nodes,
				  (long)r->tb * r->n, 0,          0,         NULL};

	if (!r->en.lines)
		return;
	if (r->dlperf)
		w.no_clock = "measured by DLPerf's method: its window has no place on the clock";
	else if (!r->all_ts || !r->t0.present || !r->t1.present)
		w.no_clock = "the window's records carry no timestamp_s: it has no place on the "
			     "energy samples' clock";
	else {
		w.t0 = (double)r->t0.sec + (double)r->t0.nsec / 1e9;
		w.t1 = (double)r->t1.sec + (double)r->t1.nsec / 1e9;
	}
	energy_end(&r->en, &w);
}

static void run_end(const struct window *st, struct run *r)
{
	double v;

	if (r->dlperf) {
		struct dlperf_run d = {r->name, r->fmt->name, r->key, r->tb,   r->s,
				       r->n,    r->lines,     r->nl,  r->file, r->line};
		v = r->fmt->dlperf_speed(&d);
	} else {
		v = ours_speed(r);
	}
	if (!isfinite(v))
		run_die(r, "%s: samples/s %g is not finite", r->name, v);
	if (!(v > 0))
		run_die(r, "%s: samples/s %g is not positive", r->name, v);
	if (!(r2p(v, 2) > 0))
		run_die(r, "%s: samples/s %g rounds to 0.00", r->name, v);
	printf("%s\t%s\t%ld\t%.2f", r->framework, r->keytext, r->number, v);
	if (!st->dlperf)
		steady_columns(r->name, r->steps, r->nsteps, r->tb,
			       r->method == METHOD_RATE ? 'r'
			       : r->all_ts              ? 't'
			       : r->all_step            ? 's'
							: 'r',
			       st->opt_drift);
	putchar('\n');
	run_energy(r);
}

/* A meta line, copied to the output as it came; "mode=dlperf" before the
 * first record switches to DLPerf's mode. An energy sample, or a node's
 * word that it has none, is r's (the run being read, NULL: none), kept. */
static void meta(struct window *st, struct input *in, struct run *r)
{
	struct metaline *m = &st->m;

	if (meta_mode(in, st->records)) {
		if (st->opt_method >= 0)
			record_die(in, "-m: DLPerf's method is fixed per format with mode=dlperf");
		st->dlperf = 1;
	}
	if (metaline_parse(in, in->line, META_RUN, m) == META_ENERGY &&
	    energy_take(r ? &r->en : NULL, m, in, r ? r->name : NULL))
		return;
	printf("%s\n", in->line);
}

/* The run's id: fields framework, format, key and run (fewer when the record
 * is short: record_expect names it after the run before has been written). */
static size_t id_length(const struct input *in)
{
	const char *last = in->f[(in->nf < 4 ? in->nf : 4) - 1];

	return (size_t)(last + strlen(last) - in->line);
}

int filter_run(int argc, char **argv)
{
	struct window st = {.opt_skip = -1, .opt_count = -1, .opt_method = -1, .opt_drift = 5};
	struct input in;
	struct run run = {0};
	int active = 0, ch;

	usage_text =
		"window [-c dlperf] [-s skip] [-n count] [-m method] [-d drift%] [file ...]\n"
		"  -m:  time (TB x n / the window's duration), rate (the mean of the printed\n"
		"       rates) or median-step (TB / the median step_s); default: the format's\n"
		"  in:  framework format key run iter timestamp_s step_s samples_per_s loss\n"
		"  out: framework key run samples_per_s jitter_pct drift_pct steady\n"
		"       (DLPerf's mode: framework key run samples_per_s)";
	opterr = 0;
	while ((ch = getopt(argc, argv, "c:s:n:m:d:")) != -1) {
		switch (ch) {
		case 'c':
			st.dlperf = compat_flag(optarg);
			break;
		case 's':
			st.opt_skip = flag_int("-s", optarg, 0, 1000000000);
			break;
		case 'n':
			st.opt_count = flag_int("-n", optarg, 1, 1000000000);
			break;
		case 'd':
			if (parse_double(optarg, &st.opt_drift) != 0 || !(st.opt_drift >= 0))
				die_usage("-d: '%s' is not a percentage >= 0", optarg);
			break;
		case 'm':
			if (strcmp(optarg, "time") == 0)
				st.opt_method = METHOD_TIME;
			else if (strcmp(optarg, "rate") == 0)
				st.opt_method = METHOD_RATE;
			else if (strcmp(optarg, "median-step") == 0)
				st.opt_method = METHOD_MEDIAN_STEP;
			else
				die_usage("-m: '%s' is not time, rate or median-step", optarg);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (st.dlperf && st.opt_method >= 0)
		die_usage("-m: DLPerf's method is fixed per format with -c dlperf");

	FOREACH_INPUT(in, argc, argv) {
		while (input_record(&in)) {
			if (in.meta) {
				meta(&st, &in, active ? &run : NULL);
				continue;
			}
			size_t idlen = id_length(&in);
			int same =
				active && idlen == run.idlen && memcmp(in.line, run.id, idlen) == 0;

			if (!same) {
				if (active)
					run_end(&st, &run);
				run.id = xgrow(run.id, &run.idcap, idlen + 1, 1);
				memcpy(run.id, in.line, idlen);
				run.idlen = idlen;
			}
			record_expect(&in, NFIELDS);
			if (!same)
				run_start(&st, &run, &in);
			active = st.records = 1;
			run_add(&run, &in);
		}
		/* a run is one log: it ends with its file */
		if (active)
			run_end(&st, &run);
		active = 0;
	}
	finish_output();
	return 0;
}

int main(int argc, char *argv[])
{
	progname = "window";
	return filter_run(argc, argv);
}
