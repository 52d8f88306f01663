/*
 * dlperf.h — what DLPerf's per-format methods share (dlperf.c): a run's
 * records in file order as window hands them to a format's dlperf_speed in
 * DLPerf's mode (doc/dlperf.md), the "kept lines" most of DLPerf's scripts
 * count from, and numpy's mean.
 */
#ifndef DLBENCH_DLPERF_H
#define DLBENCH_DLPERF_H

#include "lib.h"
#include "stamp.h"

#include <stddef.h>

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
