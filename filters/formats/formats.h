/*
 * formats.h — the interface of a training-log format. Each format is one
 * file in filters/formats/ that fills a struct format: how its iteration
 * lines are recognised, how one is read, the configuration lines it prints,
 * how its iterations are numbered, whether a record is one iteration or an
 * interval, the window it is measured with, and DLPerf's method for it
 * (doc/dlperf.md). FORMATS below lists them in detection order.
 *
 * grep-iters reads logs through this interface; window reads the window,
 * the interval flag and DLPerf's method; table and plot read display names
 * and column ranks. What the parsers share is in scan.h (reading a line),
 * stamp.h (time stamps), alias.h (-a), dlperf.h (DLPerf's methods) and
 * families.h (formats built on another's parts).
 */
#ifndef DLBENCH_FORMATS_H
#define DLBENCH_FORMATS_H

#include "lib.h"
#include "stamp.h"

#include <stddef.h>
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
	struct stamp stamp; /* a calendar stamp's, for "latest over ranks" */
	char tsbuf[48], stepbuf[48];
};

struct aliases;

/* The log being read, as parsers and configuration lines see it. */
struct scan {
	struct input *in;    /* file and line, for errors */
	int dlperf;          /* -c dlperf: every line counts as DLPerf counted it */
	long long prev_iter; /* iteration of the previous record, 0 at the start */
	long long from;      /* the iteration before the interval of the last record */
	int have_key;        /* the configuration, once known */
	struct key key;
	const char *keysrc; /* who said it: "the path", "-k" or "the header" */
	void *state;        /* the format's own state_size bytes, zeroed per log */
	/* -a's precision aliases (alias.h), for a precision the log states */
	const struct aliases *aliases;
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
	/* TB ÷ the median step_s of one iteration (window -m median-step only) */
	METHOD_MEDIAN_STEP,
};

/* ---- a format ----------------------------------------------------------- */

struct dlperf_run; /* dlperf.h */

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
	/* What else DLPerf's method for it depends on, in a few words for
	 * grep-iters -l (NULL: nothing). */
	const char *dlperf_note;
};

/* ---- the registry (registry.c) ----------------------------------------- */

/* The formats in the order grep-iters tries them on a log's lines (bench
 * first: it is ours; a more specific anchor before a looser one), one
 * X(id) each for the id_format its file defines. Adding a format: its
 * file, one line here, its fixtures in tests/fixtures/grep-iters/<name>/. */
#define FORMATS(X)             \
	X(bench)               \
	X(oneflow)             \
	X(oneflow_bert)        \
	X(oneflow_insightface) \
	X(ngc_pytorch)         \
	X(ngc_tensorflow)      \
	X(tensorflow)          \
	X(paddle)              \
	X(plsc)                \
	X(ngc_mxnet)           \
	X(mxnet)               \
	X(mindspore)           \
	X(pytorch)

#define FORMAT_COUNT_ONE(f) +1
/* How many there are (a constant: the fuzz target sizes its table by it). */
enum { FORMATS_COUNT = 0 FORMATS(FORMAT_COUNT_ONE) };

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

#endif
