/*
 * formats.h — the interface of a training-log format. Each format is one
 * file in filters/formats/ that fills a struct format: how its iteration
 * lines are recognised, how one is read, the configuration lines it prints,
 * how its iterations are numbered, whether a record is one iteration or an
 * interval, the window it is measured with, and DLPerf's method for it
 * (doc/dlperf.md). registry.c lists the formats in detection order.
 *
 * grep-iters reads logs through this interface (the scanning helpers below
 * are shared by the parsers, scan.c and config.c); window reads the window,
 * the interval flag and DLPerf's method (dlperf.c); table reads display names
 * and column ranks.
 */
#ifndef DLBENCH_FORMATS_H
#define DLBENCH_FORMATS_H

#include "lib.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- what a parser reads and fills ------------------------------------- */

/* A piece of text: p == NULL when the log gave nothing. */
struct txt {
	const char *p;
	size_t n;
};

/* One iteration line as a parser read it (the driver clears it first). */
struct it {
	long epoch;      /* 0-based epoch or pass; 0 when the format has none */
	long long iter;  /* 1-based, within the epoch for NUM_EPOCHS formats */
	struct txt itxt; /* iter's text when the log printed exactly it (bench) */
	struct txt ts, step, rate, loss;
	long long ts_sec; /* a calendar stamp's seconds and nanoseconds, */
	long ts_nsec;     /* for "latest over ranks" (compared as a pair) */
	char tsbuf[48], stepbuf[48];
};

/* The log being read, as parsers and configuration lines see it. */
struct scan {
	struct input *in;    /* file and line, for errors */
	int dlperf;          /* -c dlperf: every line counts as DLPerf counted it */
	long long prev_iter; /* iteration of the previous record, 0 at the start */
	int have_key;        /* the configuration, once known */
	struct key key;
	const char *keysrc; /* who said it: "the path", "-k" or "the header" */
	void *state;        /* the format's own state_size bytes, zeroed per log */
};

/* How a format numbers iterations across epochs. */
enum numbering {
	NUM_GLOBAL, /* the printed number counts from the start of training */
	NUM_EPOCHS, /* restarts each epoch: later epochs continue the count */
	NUM_FIRST,  /* restarts each epoch, epoch length unknown: only epoch 0 */
};

/* How step_s is derived when the log prints a rate but no time. */
enum derive {
	DERIVE_NONE,
	DERIVE_RATE,     /* TB ÷ rate: one iteration */
	DERIVE_INTERVAL, /* (iter − previous iter) × TB ÷ rate */
};

/* How window measures a run our way. */
enum method {
	METHOD_TIME, /* TB × n ÷ the window's duration */
	METHOD_RATE, /* the mean of the printed rates */
};

/* ---- what DLPerf's methods read (window, in DLPerf's mode) ------------- */

/* A timestamp: whole seconds and microseconds when it has <= 6 fraction
 * digits (exact), else only the double. */
struct stamp {
	int present, exact;
	long long sec, usec;
	double d;
};

/* One record of the run, in the order of the log's lines. */
struct line {
	long iter;
	struct stamp ts;
	double step, rate; /* NAN when not given */
};

/* A run as DLPerf's script for its format saw it. */
struct dlperf_run {
	const char *name;   /* framework/key/run, for messages */
	const char *format; /* the format's name, for messages */
	struct key key;
	double tb; /* total batch N × G × B */
	long s, n; /* the window: skip (DLPerf's warm-up), count */
	struct line *lines;
	size_t nl;
	const char *file; /* where the run's latest record was read, for */
	long line;        /* its errors */
};

/* An error of the run, located at its latest record. */
LIB_NORETURN void dlperf_die(const struct dlperf_run *r, const char *fmt, ...) LIB_PRINTF(2, 3);

/* ---- a format ----------------------------------------------------------- */

struct format {
	const char *name;    /* the records' format column and -f's value */
	const char *display; /* its framework's column header in tables */
	int rank;            /* its framework's seed column order in tables */

	/* An iteration line holds anchor, then (when set) `then` after it;
	 * detect replaces both where that does not suffice. The parser gets
	 * the line and where the anchor (or what detect returned) starts. */
	const char *anchor, *then;
	const char *(*detect)(const char *s);
	/* 1: *it filled; 0: a matching line that is no record (validation,
	 * a summary, another rank's copy). Errors die naming file:line. */
	int (*parse)(struct scan *sc, const char *s, const char *at, struct it *it);

	/* Configuration lines: kept when met before the format is known (they
	 * start with one of config_prefixes) and given to config, which returns
	 * 1 for a configuration line after checking it against sc->key. */
	const char *const *config_prefixes;
	int (*config)(struct scan *sc, const char *s);
	size_t state_size; /* bytes of sc->state the parser keeps per log */

	enum numbering numbering;
	enum derive derive;
	int grouped;  /* several ranks may share one log: grouped by iteration */
	int interval; /* 1: a record closes the interval since the previous one */

	long skip, count; /* our default window, iterations */
	enum method method;

	/* DLPerf: its matcher keeps epoch 0 only; its window (-s warm-up,
	 * -n end − warm-up); its figure for a run. NULL: DLPerf never ran this
	 * format, it is measured our way. */
	int dlperf_epoch0;
	long dlperf_skip, dlperf_count;
	double (*dlperf_speed)(struct dlperf_run *r);
};

/* ---- the registry (registry.c) ----------------------------------------- */

/* The formats in detection order, NULL-terminated. */
extern const struct format *const formats[];

/* By name; NULL when unknown. */
const struct format *format_find(const char *name);
/* The format whose iteration lines s holds, first in detection order;
 * *at is where its anchor starts. NULL when none. */
const struct format *format_detect(const char *s, const char **at);
/* Does s hold an iteration line of f? Where its anchor starts, or NULL.
 * (Inline: grep-iters asks it of every line.) */
static inline const char *format_match(const struct format *f, const char *s)
{
	const char *p;

	if (f->detect)
		return f->detect(s);
	if (!(p = strstr(s, f->anchor)) || (f->then && !strstr(p, f->then)))
		return NULL;
	return p;
}

/* Display name and seed column order of a framework: a format's name, or
 * another framework (pytorch-synthetic); unknown: itself, last. */
const char *framework_display(const char *framework);
int framework_rank(const char *framework);

/* ---- scanning, shared by the parsers (scan.c) --------------------------- */

static inline int blank(char c)
{
	return c == ' ' || c == '\t';
}

static inline int digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline const char *skipb(const char *p)
{
	while (blank(*p))
		p++;
	return p;
}

/* The first occurrence of label in s that does not start inside a name and,
 * when the label ends in a letter or digit, is followed by a blank. Returns
 * the text after the label and the blanks that follow; NULL when absent. */
const char *label(const char *s, const char *lab);
/* The last occurrence, as label(). */
const char *label_last(const char *s, const char *lab);
/* The token at p for a message: its length, up to a blank or 40. */
int toklen(const char *p);

enum sign { ANY, POSITIVE, NONNEG };

static inline int ends_token(char c, const char *stops)
{
	return c == '\0' || blank(c) || (stops && strchr(stops, c));
}

/* N_RANGE: a number whose value is no double, or a subnormal one. */
enum { N_BAD, N_NEG, N_ZERO, N_POS, N_RANGE };

/* A plain number ([+-]digits[.digits]) of at most this many characters is
 * a normal double whatever its digits (from 1e-298 to below 1e300) or 0:
 * only longer ones and exponent forms are converted to be classified. */
#define NUM_PLAIN_MAX 300

/* The value of the number s[0, n) numscan accepted, exactly as strtod reads
 * the whole text (of any length). */
double num_value(const char *s, size_t n);
/* The class of a number that needs converting: N_RANGE when its value
 * overflows, or underflows below DBL_MIN though its digits are not all 0. */
int num_class(const char *s, size_t n, int nonzero);

/* Scan the plain decimal number at s ([+-]digits[.digits][e[+-]digits]):
 * its length in *n (0 when there is none) and its class. */
static inline int numscan(const char *s, size_t *n)
{
	const char *p = s;
	int d = 0, nonzero = 0;

	if (*p == '+' || *p == '-')
		p++;
	for (; digit(*p); p++, d++)
		nonzero |= *p != '0';
	if (*p == '.')
		for (p++; digit(*p); p++, d++)
			nonzero |= *p != '0';
	*n = 0;
	if (!d)
		return N_BAD;
	if ((*p == 'e' || *p == 'E') &&
	    (digit(p[1]) || ((p[1] == '+' || p[1] == '-') && digit(p[2])))) {
		for (p += 2; digit(*p); p++)
			;
		*n = (size_t)(p - s);
		return num_class(s, *n, nonzero);
	}
	*n = (size_t)(p - s);
	if (*n > NUM_PLAIN_MAX)
		return num_class(s, *n, nonzero);
	return !nonzero ? N_ZERO : s[0] == '-' ? N_NEG : N_POS;
}

/* getnum's error path: dies saying why p is not the number wanted. */
__attribute__((cold)) LIB_NORETURN void badnum(struct scan *sc, const char *p, int c, size_t n,
					       const char *what, enum sign sign);

/* The number at *pp, which must end at a blank, the end or a character of
 * stops; dies naming what when it is not a number or breaks the sign rule.
 * *pp moves past it. Inline: parsers read every number of a log with it. */
static inline struct txt getnum(struct scan *sc, const char **pp, const char *what,
				const char *stops, enum sign sign)
{
	const char *p = *pp;
	size_t n = 0;
	int c = p ? numscan(p, &n) : N_BAD;

	if (n == 0 || !ends_token(p[n], stops))
		badnum(sc, p, N_BAD, 0, what, sign);
	if (c == N_BAD || c == N_RANGE || (sign == POSITIVE && c != N_POS) ||
	    (sign == NONNEG && c == N_NEG))
		badnum(sc, p, c, n, what, sign);
	*pp = p + n;
	return (struct txt){p, n};
}

/* A loss: a number, or nan / inf as frameworks print a diverged loss. */
struct txt getloss(struct scan *sc, const char **pp, const char *what, const char *stops);
/* A non-negative integer (at most 15 digits) ending as getnum's numbers. */
long long getint(struct scan *sc, const char **pp, const char *what, const char *stops);
/* Expect the literal lit at *pp after blanks; skip the blanks after it. */
void expect(struct scan *sc, const char **pp, const char *lit, const char *what);

/* Does s start with "YYYY-MM-DD HH:MM:SS" (or a T between date and time)? */
int stamp_at(const char *s);
/* Read the calendar stamp at *pp (stamp_at) as UTC into it->ts (Unix
 * seconds with the fraction digits the log gave, ".000000" when none),
 * it->ts_sec and it->ts_nsec. */
void stamp_read(struct scan *sc, const char **pp, struct it *it);
/* A logging stamp anywhere in s[0, end) (e.g. "2020-08-20 15:33:35,123 - INFO"). */
void stamp_find(struct scan *sc, const char *s, const char *end, struct it *it);
/* The Unix time as the last token of a line (OneFlow). */
struct txt unix_last(struct scan *sc, const char **pp);
/* NGC's DLLogger lines "DLL <stamp> - …": the stamp after "DLL " at d into
 * it->ts; returns the text after it. */
const char *dll_stamp(struct scan *sc, const char *d, struct it *it);
/* A DLLogger metric "name : value": the value, or NULL when absent. */
const char *dll_metric(const char *s, const char *name);
/* Decimal text of v; its length. */
size_t fmt_ll(char *buf, long long v);
/* The number a checked text holds (getnum's), read whole. */
double txt_num(struct txt t);
/* v, a positive quantity the parsers or grep-iters computed (a derived
 * step_s, a median), in shortest form in buf; dies "file:line: what is out
 * of range" unless it is finite and at least DBL_MIN. */
struct txt pos_txt(const char *file, long line, const char *what, double v, char *buf, size_t size);

/* ---- configuration lines and paths (config.c) ----------------------------------------- */

extern const char precisions_text[]; /* "fp32, tf32, amp, bf16 or fp16" */

/* -a from=to: a precision alias applied wherever a log names a precision. */
void alias_add(const char *arg);
/* Forget every alias (main of grep-iters starts with it: see its reset). */
void alias_reset(void);
/* A positive decimal integer without sign or leading zero, ending at stop;
 * *sp moves past the stop. 0; -1 when it is not one; 1 when it is above
 * KEY_PART_MAX (lib.h: a key's parts are bounded so that their products
 * cannot overflow), *sp moved past it all the same. */
int take_pos(const char **sp, char stop, long *out);
/* The same filling s[0, n). */
int take_pos_n(const char *s, size_t n, long *out);
/* Why take_pos or take_pos_n refused (r, nonzero): "is not a positive
 * integer" or "is out of range 1..1048576". */
const char *take_pos_why(int r);
/* Set k->prec from prec[0, n) after the aliases; 0, or -1 when invalid. */
int set_prec(struct key *k, const char *prec, size_t n);

/* ---- what several formats share ---------------------------------------- */

/* OneFlow's "name = value" lines (oneflow.c; OneFlow BERT prints them too). */
extern const char *const oneflow_config_prefixes[];
int oneflow_config(struct scan *sc, const char *s);
/* DLPerf's OneFlow method: the last line of iterations s and s+n (oneflow.c). */
double oneflow_dlperf_speed(struct dlperf_run *r);
/* DLPerf's MXNet method over rows of w lines (mxnet.c; NGC MXNet: w = ranks). */
double mxnet_dlperf_rows(struct dlperf_run *r, long w);
/* "Speed: <v> samples/sec" of both MXNet formats (mxnet.c). */
void mxnet_speed(struct scan *sc, const char *p, struct it *it);

/* ---- what DLPerf's methods share (dlperf.c) ---------------------------- */

/* Check a timestamp's text; fill t (with the double when want_d). 0 or -1. */
int parse_stamp(const char *s, struct stamp *t, int want_d);
/* b − a in seconds: integer microseconds when both are exact. */
double stamp_diff(const struct stamp *a, const struct stamp *b);
/* Keep the lines whose iteration is > drop, in file order ("kept lines");
 * returns how many, the lines from r->lines on. */
size_t dlperf_kept(struct dlperf_run *r, long drop);
/* Die "<run>: <have> <what>, need <need>" when have < need. */
void dlperf_need(struct dlperf_run *r, size_t have, long need, const char *what);
/* The line's rate; dies when it has none. */
double dlperf_rate(struct dlperf_run *r, const struct line *l);
/* numpy's mean of the rates of lines [from, to), each R2p'd when round2. */
double dlperf_rate_mean(struct dlperf_run *r, long from, long to, int round2);
/* numpy's mean of v[0, n). */
double np_mean(const double *v, size_t n);

#endif
