/*
 * window.h — what window's files share: main.c (records, runs, the
 * throughput), fields.c (single fields), steady.c (jitter and drift, and
 * the median-step throughput), energy.c (the joules of a run's window).
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

/* energy.c: a run's energy samples and node reasons (launch's "# energy"
 * lines), kept until the run ends; {0} at first. */
struct eseries;
struct energy {
	struct eseries *v; /* one a node and device */
	size_t n, cap;
	long lines;       /* energy lines read */
	const char *file; /* where the first was read */
	long line;
	char *reason; /* the first node's reason=, or NULL */
	long reason_node;
};
/* What energy_end needs of the run's window. */
struct energy_window {
	const char *framework, *key;
	long run, nodes, samples; /* samples: those the window trained, TB x n */
	double t0, t1;            /* its first and last stamps, seconds since the epoch */
	const char *no_clock;     /* why the window has no place on the clock, or NULL */
};
/* When m (read from in) is a sample or a node's reason: keep it in e, the
 * energy of the run being read, named run ("framework/key/run"; NULL and
 * e NULL: none), and return 1; an energy line of another run, or a device
 * measured two ways, is an error naming in's file and line. Else 0 (a
 * run's window line, which is passed on). */
int energy_take(struct energy *e, const struct metaline *m, const struct input *in,
		const char *run);
/* When energy lines were kept: write the run's "# energy ... joules=" (or
 * "reason=") line on stdout, and forget them. */
void energy_end(struct energy *e, const struct energy_window *w);
void energy_reset(struct energy *e);

#endif
