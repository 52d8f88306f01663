/*
 * window — one throughput per run.
 *
 * Reads grep-iters records (framework, format, key, run, iter, timestamp_s,
 * step_s, samples_per_s, loss); the records of one run are adjacent. Writes
 * one record per run: framework, key, run, samples_per_s (%.2f).
 *
 * Ours (spec §1.3): the window is iterations s+1 … s+n; skip, count and method
 * default to the run's format (formats.c). Time method: TB × n ÷ T, T from
 * the timestamps of the records ending at s and s+n when the window's
 * records all carry one (integer microseconds when both stamps have <= 6
 * fraction digits, else the difference of the doubles), else the sum of
 * their step_s, else the sum of iterations × TB ÷ samples_per_s. Rate
 * method: the unweighted mean of the window's printed rates. Records must
 * come in increasing iteration order; runs are measured as they stream by.
 *
 * -c dlperf: the records are grep-iters -c dlperf's, one per log line in file
 * order, and each format is measured the way DLPerf's script for it did
 * (spec §2 "DLPerf's method") with DLPerf's window arguments as defaults
 * (-s warm-up, -n end − warm-up), see dlperf_speed(); a window DLPerf would
 * have filled with 0 or NaN is an error. bench, which DLPerf never ran, is
 * measured our way.
 *
 * Errors name the run as framework/key/run (the records carry no path), or
 * file:line for a bad record.
 */
#include "formats.h"
#include "lib.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { F_FRAMEWORK, F_FORMAT, F_KEY, F_RUN, F_ITER, F_TS, F_STEP, F_RATE, F_LOSS, NFIELDS };

/* A timestamp: whole seconds and microseconds when it has <= 6 fraction
 * digits (exact), else only the double. */
struct stamp {
	int present, exact;
	long long sec, usec;
	double d;
};

/* One record kept for -c dlperf. */
struct line {
	long iter;
	struct stamp ts;
	double step, rate; /* NAN when not given */
};

struct run {
	char *id;             /* "framework\tformat\tkey\trun" as in the records */
	size_t idlen, idcap;
	char name[256];       /* framework/key/run, for messages */
	char framework[128], keytext[KEY_MAX];
	long number;
	const struct format *fmt;
	struct key key;
	double tb;
	long s, n;
	enum method method;
	int dlperf;           /* measured by DLPerf's method: keep the records */
	long last;            /* iteration of the previous record, 0 at the start */
	/* ours: what the window's records sum to */
	struct stamp t0, t1;
	long inwin;
	int all_ts, all_step, all_rate;
	long no_ts, no_step, no_rate; /* first window iteration without one */
	double step_sum, rate_sum, derived_sum;
	/* -c dlperf: the run's records */
	struct line *lines;
	size_t nl, capl;
};

static int dlperf;
static long opt_skip = -1, opt_count = -1;
static int opt_method = -1;

/* ---- runs already finished: a duplicate is an error ------------------- */

static char **seen;
static size_t nseen, capseen;

static uint64_t hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603u;

	while (n--)
		h = (h ^ (unsigned char)*s++) * 1099511628211u;
	return h;
}

/* Insert id; returns 0 when it was there already. Open addressing. */
static int seen_add(const char *id, size_t len)
{
	if (2 * (nseen + 1) > capseen) {
		size_t ncap = capseen ? 2 * capseen : 1024;
		char **n = calloc(ncap, sizeof *n);
		if (!n)
			die("out of memory");
		for (size_t i = 0; i < capseen; i++)
			if (seen[i]) {
				size_t j = hash(seen[i], strlen(seen[i])) & (ncap - 1);
				while (n[j])
					j = (j + 1) & (ncap - 1);
				n[j] = seen[i];
			}
		free(seen);
		seen = n;
		capseen = ncap;
	}
	size_t j = hash(id, len) & (capseen - 1);
	for (; seen[j]; j = (j + 1) & (capseen - 1))
		if (strlen(seen[j]) == len && memcmp(seen[j], id, len) == 0)
			return 0;
	if (!(seen[j] = strndup(id, len)))
		die("out of memory");
	nseen++;
	return 1;
}

/* ---- fields ----------------------------------------------------------- */

/* Check a timestamp's text; fill t (with the double when want_d). */
static int parse_stamp(const char *s, struct stamp *t, int want_d)
{
	const char *p = s;
	long long sec = 0, usec = 0;
	int fd = 0, id = 0;

	for (; *p >= '0' && *p <= '9'; p++, id++)
		if (id < 18)
			sec = sec * 10 + (*p - '0');
	if (id == 0 || id > 18)
		return -1;
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, fd++)
			if (fd < 6)
				usec = usec * 10 + (*p - '0');
		if (fd == 0)
			return -1;
	}
	if (*p != '\0')
		return -1;
	for (int i = fd; i < 6; i++)
		usec *= 10;
	t->present = 1;
	t->exact = fd <= 6;
	t->sec = sec;
	t->usec = usec;
	t->d = want_d ? strtod(s, NULL) : 0;
	return 0;
}

/* Clinger's fast path: plain decimals of at most 15 significant digits are
 * an exact integer divided by an exact power of ten, one correctly rounded
 * division, the same double strtod gives. Returns 0 when it applies. */
static int fast_decimal(const char *s, double *out)
{
	static const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7,
				     1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
	uint64_t m = 0;
	int digits = 0, frac = 0, any = 0;
	const char *p = s;

	for (; *p >= '0' && *p <= '9'; p++, any = 1)
		if (m || *p != '0') {
			m = m * 10 + (uint64_t)(*p - '0');
			digits++;
		}
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++, any = 1, frac++)
			if (m || *p != '0') {
				m = m * 10 + (uint64_t)(*p - '0');
				digits++;
			}
	if (*p != '\0' || !any || digits > 15 || frac > 15)
		return -1;
	*out = (double)m / p10[frac];
	return 0;
}

/* An optional positive number: NAN for "-". */
static double opt_positive(struct input *in, int i, const char *what)
{
	double v;

	if (in->f[i][0] == '-' && in->f[i][1] == '\0')
		return NAN;
	if (fast_decimal(in->f[i], &v) == 0 && v > 0)
		return v;
	return record_num(in, i, what, 1);
}

static double stamp_diff(const struct stamp *a, const struct stamp *b)
{
	if (a->exact && b->exact)
		return (double)((b->sec - a->sec) * 1000000 + (b->usec - a->usec)) / 1e6;
	return b->d - a->d;
}

/* ---- numpy ------------------------------------------------------------ */

static double np_mean(const double *a, size_t n)
{
	return pairwise_sum(a, n) / (double)n;
}

/* ---- ours ------------------------------------------------------------- */

/* One record of the current run, iteration order checked by the caller. */
static void ours_add(struct run *r, const char *ts_text, long iter, double step, double rate)
{
	long lo = r->fmt->interval ? r->last : iter - 1, hi = iter;
	long s = r->s, e = r->s + r->n;
	int ts = strcmp(ts_text, "-") != 0;

	if (lo > r->last) {
		/* iterations last+1 … lo are missing: a gap if the window needs them */
		long a = r->last + 1 > s + 1 ? r->last + 1 : s + 1, b = lo < e ? lo : e;
		if (a == b)
			die("%s: iteration %ld missing", r->name, a);
		if (a < b)
			die("%s: iterations %ld-%ld missing", r->name, a, b);
	}
	if (hi == s && ts)
		parse_stamp(ts_text, &r->t0, 1);
	if (lo < s && hi > s)
		die("%s: no record ends at iteration %ld", r->name, s);
	if (lo < e && hi > e)
		die("%s: no record ends at iteration %ld", r->name, e);
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
	r->inwin++;
	if (hi == e && ts)
		parse_stamp(ts_text, &r->t1, 1);
}

static double ours_speed(struct run *r)
{
	long s = r->s, e = r->s + r->n;
	double t;

	if (r->last < e)
		die("%s: %ld iterations, need %ld", r->name, r->last, e);
	if (r->method == METHOD_RATE) {
		if (!r->all_rate)
			die("%s: no samples_per_s for iteration %ld", r->name, r->no_rate);
		return r->rate_sum / (double)r->inwin;
	}
	if (r->all_ts) {
		if (!r->t0.present)
			die("%s: no timestamp for the end of iteration %ld", r->name, s);
		t = stamp_diff(&r->t0, &r->t1);
	} else if (r->all_step) {
		t = r->step_sum;
	} else if (r->all_rate) {
		t = r->derived_sum;
	} else {
		die("%s: iteration %ld has no timestamp, %ld no step_s, %ld no samples_per_s",
		    r->name, r->no_ts, r->no_step, r->no_rate);
	}
	if (!(t > 0))
		die("%s: iterations %ld-%ld took %g s", r->name, s + 1, e, t);
	return r->tb * (double)r->n / t;
}

/* ---- DLPerf's methods (spec §2, "DLPerf's method") --------------------- */

static const struct {
	const char *format;
	long skip, count;
} dlperf_windows[] = {
	{"pytorch", 20, 100},    {"ngc-pytorch", 20, 100},  {"ngc-tensorflow", 20, 100},
	{"tensorflow", 100, 500}, {"paddle", 20, 100},     {"plsc", 50, 100},
	{"ngc-mxnet", 20, 100},  {"mxnet", 20, 100},       {"mindspore", 100, 100},
	{"oneflow", 20, 100},    {"oneflow-bert", 20, 100}, {"oneflow-insightface", 20, 100},
};

static int dlperf_window(const char *format, long *skip, long *count)
{
	for (size_t i = 0; i < sizeof dlperf_windows / sizeof *dlperf_windows; i++)
		if (strcmp(dlperf_windows[i].format, format) == 0) {
			*skip = dlperf_windows[i].skip;
			*count = dlperf_windows[i].count;
			return 1;
		}
	return 0;
}

/* The lines whose iteration is > drop, in file order ("kept lines"). */
static size_t kept(struct run *r, long drop, struct line **out)
{
	size_t k = 0;

	for (size_t i = 0; i < r->nl; i++)
		if (r->lines[i].iter > drop)
			r->lines[k++] = r->lines[i];
	*out = r->lines;
	return k;
}

static double *values(size_t n)
{
	double *v = malloc((n ? n : 1) * sizeof *v);

	if (!v)
		die("out of memory");
	return v;
}

static void need_lines(struct run *r, size_t have, long need, const char *what)
{
	if ((long)have < need)
		die("%s: %zu %s, need %ld", r->name, have, what, need);
}

static double rate_of(struct run *r, const struct line *l)
{
	if (isnan(l->rate))
		die("%s: no samples_per_s at iteration %ld", r->name, l->iter);
	return l->rate;
}

/* Mean of R2p(rate) (or of the rate itself) over lines [from, to). */
static double line_mean(struct run *r, long from, long to, int round2)
{
	double *v = values((size_t)(to - from)), m;

	for (long i = from; i < to; i++)
		v[i - from] = round2 ? r2p(rate_of(r, &r->lines[i]), 2) : rate_of(r, &r->lines[i]);
	m = np_mean(v, (size_t)(to - from));
	free(v);
	return m;
}

static double dlperf_speed(struct run *r)
{
	long w = r->s, e = r->s + r->n, W = r->key.nodes * r->key.gpus;
	const char *f = r->fmt->name;
	struct line *k;
	size_t nk;

	if (strcmp(f, "pytorch") == 0) {
		/* Σ step of kept lines w+1 … e (iteration > 6), TB ÷ mean. */
		double sum = 0;
		nk = kept(r, 6, &k);
		need_lines(r, nk, e, "kept lines");
		for (long i = w; i < e; i++) {
			if (isnan(k[i].step))
				die("%s: no step_s at iteration %ld", r->name, k[i].iter);
			sum += k[i].step;
		}
		return r2p(r->tb / (sum / (double)r->n), 2);
	}
	if (strcmp(f, "ngc-pytorch") == 0) {
		/* Stamps of kept lines w and e (iteration > 5). */
		nk = kept(r, 5, &k);
		if (w < 1)
			die("%s: DLPerf's ngc-pytorch method needs skip >= 1", r->name);
		need_lines(r, nk, e, "kept lines");
		if (!k[w - 1].ts.present || !k[e - 1].ts.present)
			die("%s: no timestamp at iteration %ld", r->name,
			    k[w - 1].ts.present ? k[e - 1].iter : k[w - 1].iter);
		return r2p(r->tb / (stamp_diff(&k[w - 1].ts, &k[e - 1].ts) / (double)r->n), 2);
	}
	if (strcmp(f, "oneflow-insightface") == 0) {
		/* Rates of kept lines w … e inclusive: n + 1 values (DLPerf's off by one). */
		nk = kept(r, 5, &k);
		if (w < 1)
			die("%s: DLPerf's oneflow-insightface method needs skip >= 1", r->name);
		need_lines(r, nk, e, "kept lines");
		return r2n(line_mean(r, w - 1, e, 0));
	}
	if (strcmp(f, "ngc-tensorflow") == 0) {
		/* The log starts at step 20: list entries (max(w, 20) − 20) + 1 … e − 20. */
		long from = (w > 20 ? w : 20) - 20, to = e - 20;
		if (to <= from)
			die("%s: DLPerf's ngc-tensorflow window ends before it starts", r->name);
		need_lines(r, r->nl, to, "lines");
		return r2n(line_mean(r, from, to, 1));
	}
	if (strcmp(f, "tensorflow") == 0) {
		/* Interval lines w/100 + 1 (at least 2) … e/100. */
		if (w % 100 || e % 100)
			die("%s: DLPerf's tensorflow method needs multiples of 100", r->name);
		long from = w / 100 > 1 ? w / 100 : 1, to = e / 100;
		if (to <= from)
			die("%s: DLPerf's tensorflow window ends before it starts", r->name);
		need_lines(r, r->nl, to, "lines");
		return r2n(line_mean(r, from, to, 0));
	}
	if (strcmp(f, "paddle") == 0) {
		/* R4p(TB ÷ elapse) of lines w+1 … e. */
		need_lines(r, r->nl, e, "lines");
		double *v = values((size_t)r->n), m;
		for (long i = w; i < e; i++) {
			if (isnan(r->lines[i].step))
				die("%s: no step_s at iteration %ld", r->name, r->lines[i].iter);
			v[i - w] = r2p(r->tb / r->lines[i].step, 4);
		}
		m = np_mean(v, (size_t)r->n);
		free(v);
		return r2n(m);
	}
	if (strcmp(f, "plsc") == 0) {
		/* qps entries (w/10)·N + 1 … (e/10)·N. */
		long from = w / 10 * r->key.nodes, to = e / 10 * r->key.nodes;
		if (to <= from)
			die("%s: DLPerf's plsc window ends before it starts", r->name);
		need_lines(r, r->nl, to, "lines");
		return r2n(line_mean(r, from, to, 0));
	}
	if (strcmp(f, "ngc-mxnet") == 0 || strcmp(f, "mxnet") == 0) {
		/* Exactly e rows of W lines (gluon-cv: W = 1); per row the median of
		 * R2p(Speed); mean of rows from (w > 20 ? w − 20 : w) + 1 … e. */
		long rw = f[0] == 'n' ? W : 1, from = w > 20 ? w - 20 : w;
		if ((long)r->nl != e * rw)
			die("%s: %zu lines, need exactly %ld", r->name, r->nl, e * rw);
		if (e <= from)
			die("%s: DLPerf's %s window ends before it starts", r->name, f);
		double *v = values((size_t)(e - from)), *row = values((size_t)rw), m;
		for (long i = from; i < e; i++) {
			for (long j = 0; j < rw; j++)
				row[j] = r2p(rate_of(r, &r->lines[i * rw + j]), 2);
			qsort(row, (size_t)rw, sizeof *row, cmp_double);
			v[i - from] = rw % 2 ? row[rw / 2] : (row[rw / 2 - 1] + row[rw / 2]) / 2;
		}
		m = np_mean(v, (size_t)(e - from));
		free(v);
		free(row);
		return r2n(m);
	}
	if (strcmp(f, "mindspore") == 0) {
		/* In file order until the first sink past e: the sink times (step_s
		 * of an interval record is the whole sink) of the sinks past w, all
		 * ranks; TB ÷ (Σ ÷ (n × W)). */
		long last = 0;
		double sum = 0;
		for (size_t i = 0; i < r->nl; i++)
			if (r->lines[i].iter > last)
				last = r->lines[i].iter;
		if (last < e)
			die("%s: %ld iterations, need %ld", r->name, last, e);
		for (size_t i = 0; i < r->nl && r->lines[i].iter <= e; i++) {
			if (r->lines[i].iter <= w)
				continue;
			if (isnan(r->lines[i].step))
				die("%s: no step_s at iteration %ld", r->name, r->lines[i].iter);
			sum += r->lines[i].step;
		}
		if (sum <= 1e-5)
			die("%s: cost time is 0", r->name);
		return r2p(r->tb / (sum / ((double)r->n * (double)W)), 2);
	}
	if (strcmp(f, "oneflow") == 0 || strcmp(f, "oneflow-bert") == 0) {
		/* The last line of iterations w and e; TB × n ÷ (t(e) − t(w)). */
		const struct line *a = NULL, *b = NULL;
		for (size_t i = 0; i < r->nl; i++) {
			if (r->lines[i].iter == w)
				a = &r->lines[i];
			if (r->lines[i].iter == e)
				b = &r->lines[i];
		}
		if (!a || !b)
			die("%s: no record ends at iteration %ld", r->name, a ? e : w);
		if (!a->ts.present || !b->ts.present)
			die("%s: no timestamp for the end of iteration %ld", r->name,
			    a->ts.present ? e : w);
		double t = b->ts.d - a->ts.d;
		if (!(t > 0))
			die("%s: iterations %ld-%ld took %g s", r->name, w + 1, e, t);
		return r->tb * (double)r->n / t;
	}
	die("%s: format %s has no DLPerf method", r->name, f);
}

/* ---- runs ------------------------------------------------------------- */

/* A new run begins with this record; r->id already holds its id. */
static void run_start(struct run *r, struct input *in)
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
	if (!seen_add(r->name, strlen(r->name)))
		record_die(in, "duplicate run %s", r->name);
	r->tb = (double)key_total_batch(&r->key);

	r->s = r->fmt->skip;
	r->n = r->fmt->count;
	r->method = r->fmt->method;
	r->dlperf = dlperf && dlperf_window(r->fmt->name, &r->s, &r->n);
	if (opt_skip >= 0)
		r->s = opt_skip;
	if (opt_count >= 0)
		r->n = opt_count;
	if (opt_method >= 0)
		r->method = (enum method)opt_method;

	r->last = 0;
	memset(&r->t0, 0, sizeof r->t0);
	memset(&r->t1, 0, sizeof r->t1);
	r->inwin = 0;
	r->all_ts = r->all_step = r->all_rate = 1;
	r->step_sum = r->rate_sum = r->derived_sum = 0;
	r->nl = 0;
}

static void run_add(struct run *r, struct input *in)
{
	long iter;

	if (parse_long(in->f[F_ITER], 1, 1000000000, &iter) != 0)
		record_die(in, "iter '%s' is not a positive integer", in->f[F_ITER]);
	if (strcmp(in->f[F_TS], "-") != 0) {
		struct stamp t;
		if (parse_stamp(in->f[F_TS], &t, 0) != 0)
			record_die(in, "timestamp_s '%s' is not a number", in->f[F_TS]);
	}
	if (in->f[F_LOSS][0] == '\0')
		record_die(in, "empty loss");
	if (r->dlperf) {
		if (r->nl == r->capl) {
			r->capl = r->capl ? 2 * r->capl : 256;
			if (!(r->lines = realloc(r->lines, r->capl * sizeof *r->lines)))
				die("out of memory");
		}
		struct line *l = &r->lines[r->nl++];
		l->iter = iter;
		memset(&l->ts, 0, sizeof l->ts);
		if (strcmp(in->f[F_TS], "-") != 0)
			parse_stamp(in->f[F_TS], &l->ts, 1);
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

static void run_end(struct run *r)
{
	double v;

	v = r->dlperf ? dlperf_speed(r) : ours_speed(r);
	if (!(v > 0) || !isfinite(v))
		die("%s: samples/s %g is not positive", r->name, v);
	printf("%s\t%s\t%ld\t%.2f\n", r->framework, r->keytext, r->number, v);
}

/* The run's id is the text before the fourth tab. */
static size_t id_length(const char *line)
{
	const char *p = line;

	for (int t = 0; t < 4; t++) {
		const char *q = strchr(p, '\t');
		if (!q)
			return strlen(line);
		p = q + 1;
	}
	return (size_t)(p - 1 - line);
}

static void id_copy(struct run *r, const char *line, size_t len)
{
	if (len + 1 > r->idcap) {
		r->idcap = len + 64;
		if (!(r->id = realloc(r->id, r->idcap)))
			die("out of memory");
	}
	memcpy(r->id, line, len);
	r->id[len] = '\0';
	r->idlen = len;
}

/* input_record's splitting, for a line already read. */
static void split(struct input *in)
{
	in->nf = 0;
	for (char *q = in->line;;) {
		if (in->nf == REC_MAXF)
			record_die(in, "more than %d fields", REC_MAXF);
		in->f[in->nf++] = q;
		if (!(q = strchr(q, '\t')))
			break;
		*q++ = '\0';
	}
}

int main(int argc, char *argv[])
{
	struct input in;
	struct run run = {0};
	int active = 0, ch;

	progname = "window";
	usage_text = "window [-c dlperf] [-s skip] [-n count] [-m time|rate] [file ...]\n"
		     "  in:  framework format key run iter timestamp_s step_s samples_per_s loss\n"
		     "  out: framework key run samples_per_s";
	opterr = 0;
	while ((ch = getopt(argc, argv, "c:s:n:m:")) != -1) {
		switch (ch) {
		case 'c':
			dlperf = compat_flag(optarg);
			break;
		case 's':
			opt_skip = flag_int("-s", optarg, 0, 1000000000);
			break;
		case 'n':
			opt_count = flag_int("-n", optarg, 1, 1000000000);
			break;
		case 'm':
			if (strcmp(optarg, "time") == 0)
				opt_method = METHOD_TIME;
			else if (strcmp(optarg, "rate") == 0)
				opt_method = METHOD_RATE;
			else
				die_usage("-m: '%s' is not time or rate", optarg);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (dlperf && opt_method >= 0)
		die_usage("-m: DLPerf's method is fixed per format with -c dlperf");

	FOREACH_INPUT(in, argc, argv) {
		while (input_line(&in)) {
			size_t idlen = id_length(in.line);
			int same = active && idlen == run.idlen &&
				   memcmp(in.line, run.id, idlen) == 0;

			if (!same) {
				if (active)
					run_end(&run);
				id_copy(&run, in.line, idlen);
			}
			split(&in);
			record_expect(&in, NFIELDS);
			if (!same)
				run_start(&run, &in);
			active = 1;
			run_add(&run, &in);
		}
		/* a run is one log: it ends with its file */
		if (active)
			run_end(&run);
		active = 0;
	}
	finish_output();
	return 0;
}
