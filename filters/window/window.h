/*
 * window.h — what window's files share: main.c (records, runs, the
 * throughput), fields.c (single fields), steady.c (jitter and drift, and
 * the median-step throughput).
 */
#ifndef WINDOW_H
#define WINDOW_H

#include "lib.h"

#include <stddef.h>

/* fields.c: insert a run's name framework/key/run into *seen (tsearch's
 * tree, NULL at first); returns 0 when it was there already. */
int seen_add(void **seen, const char *name);
/* Field i as an optional positive number: NAN for "-", else it must be a
 * positive number (an error naming file and line). */
double opt_positive(struct input *in, int i, const char *what);

/* One step (record) of a window: its time from the stamps (NAN without),
 * its step_s and samples_per_s (NAN for "-"), the iterations it covers. */
struct wstep {
	double dt, step, rate, iters;
};

/* steady.c: print the columns jitter_pct, drift_pct and steady (each after
 * a tab) of a window's steps, in window order, their rates from source 't'
 * (stamps), 's' (step_s) or 'r' (samples_per_s), tb the total batch; a
 * drift beyond threshold % is a warning naming the run. */
void steady_columns(const char *run, const struct wstep *steps, size_t n, double tb, int source,
		    double threshold);

/* The per-step rates of one window, in window order. */
struct steady {
	double jitter; /* 1.4826 x MAD / median x 100, % */
	double drift;  /* (median of the 2nd half - of the 1st) / of the 1st x 100, % */
};
/* 0 and *s filled when n >= 2 (a half has at least one rate), else -1.
 * Odd n: the middle rate belongs to neither half. */
int steady_of(const double *rates, size_t n, struct steady *s);

/* steady.c: -m median-step's throughput, tb ÷ the median over the window's
 * steps of step ÷ iters (NAN without steps; the caller checks). */
double median_step_speed(const struct wstep *steps, size_t n, double tb);

#endif
