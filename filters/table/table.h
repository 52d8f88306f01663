/*
 * table.h — what table's files share: main.c (reading, grouping, the three
 * outputs) and stats.c (our statistics columns: half-widths, efficiency,
 * the noisy mark).
 */
#ifndef TABLE_H
#define TABLE_H

#include "env.h"
#include "lib.h"

/* Our columns of one speedup record of MEDREC_STATS_NF median fields
 * (has 0 for DLPerf's 8-field record). NAN stands for "-". */
struct rowstats {
	int has;
	double half;          /* (ci_hi - ci_lo) / 2, of the mean's 95 % interval */
	double half_pct;      /* half / mean x 100 */
	double speedup_pm;    /* the speedup's half-width */
	double eff;           /* scaling efficiency */
	double cv;            /* cv_pct */
	const char *outliers; /* "3,5" or "-" */
};

/* Read the columns after the median fields (median_nf: MEDREC_NF or
 * MEDREC_STATS_NF) of the record just read into s; returns the speedup.
 * Errors name file and line. */
double rowstats_read(struct input *in, int median_nf, const struct medrec *r, struct rowstats *s);
/* -s scaling with our columns: the header (two lines) and a row's cells
 * after batch_size_per_device, up to the published column. */
void rowstats_header(const struct env *env, int with_published);
void rowstats_cells(const struct medrec *r, const struct rowstats *s, double speedup,
		    double spread);
/* -s json: our keys of a case, each after ", " ("" without our columns). */
void rowstats_json(const struct medrec *r, const struct rowstats *s);
/* The runs that bring the half-width to 1 %: ceil(4 x 1.96^2 x CV^2 / W^2),
 * W = 0.02, CV a fraction (pyperf's formula). */
long runs_for_1pct(double cv_pct);

#endif
