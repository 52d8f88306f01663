/*
 * table.h — what table's files share: main.c (reading, grouping, the three
 * outputs), stats.c (our statistics columns: half-widths, efficiency, the
 * noisy mark) and pubcols.c (the published columns of -p).
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
/* -s scaling with our columns: the header (two lines; published: how many
 * published columns, env_tail) and a row's cells after
 * batch_size_per_device, up to the published column. */
void rowstats_header(const struct env *env, int published);
void rowstats_cells(const struct medrec *r, const struct rowstats *s, double speedup,
		    double spread);
/* -s json: our keys of a case, each after ", " ("" without our columns). */
void rowstats_json(const struct medrec *r, const struct rowstats *s);
/* The runs that bring the half-width to 1 %: ceil(4 x 1.96^2 x CV^2 / W^2),
 * W = 0.02, CV a fraction (pyperf's formula). */
long runs_for_1pct(double cv_pct);

/* -p's published table: its figures by framework and key, and how many
 * columns they take (0: no -p; 1: published; 2: published memory too). */
struct pubcols {
	struct published *v;
	size_t n;
	struct hash index; /* published_key → v[i] */
	struct hkey hk;
	int ncols;
	struct hash fwindex; /* a framework → its decimals[i] */
	int *decimals;
	size_t nfw;
};
/* Read the file at path (dies naming its line, lib/published.c). */
void pubcols_read(struct pubcols *pc, const char *path);
/* The decimals of a framework's published figures: the most the file gives
 * them, at least 2. */
int pubcols_decimals(struct pubcols *pc, const char *framework);
/* A row's published cells: " <figure> |" (OOM, or - when the file has
 * none), then " <MiB> |" or " - |" when ncols is 2. */
void pubcols_cells(struct pubcols *pc, const char *framework, const char *keytext, int decimals);

#endif
