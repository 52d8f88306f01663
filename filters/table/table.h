/*
 * table.h — what table's files share: main.c (reading, grouping, the three
 * outputs) and stats.c (our statistics columns: half-widths, efficiency,
 * the noisy mark).
 */
#ifndef TABLE_H
#define TABLE_H

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
void rowstats_header(int with_published);
void rowstats_cells(const struct medrec *r, const struct rowstats *s, double speedup,
		    double spread);
/* -s json: our keys of a case, each after ", " ("" without our columns). */
void rowstats_json(const struct medrec *r, const struct rowstats *s);
/* The runs that bring the half-width to 1 %: ceil(4 x 1.96^2 x CV^2 / W^2),
 * W = 0.02, CV a fraction (pyperf's formula). */
long runs_for_1pct(double cv_pct);

/* ---- launch's environment and memory lines (env.c) -------------------- */

void env_reset(void);
/* Take in's meta line when it is an "# env" or "# mem" line (1), else 0. */
int env_read(struct input *in);
/* MiB per device of a configuration, or -1; whether any was read. */
long env_memory(const char *fw, const char *key);
int env_has_memory(void);
/* -s scaling: " <MiB> |" (or " - |") when a memory column is shown. */
void env_memory_cell(const char *fw, const char *key);
/* The end of the header (rule 0) or rule line (1) after the columns before
 * memory: " memory |" when shown, then " published |" when with_published. */
const char *env_tail(int with_published, int rule);
/* Markdown: the machine, the versions, the configurations whose runs'
 * environments differ (nothing when there are no env lines). */
void env_footer(void);
/* JSON: a case's ", \"memory_mib\": n" and ", \"environment_differs\": [...]";
 * after the "r50" object, ", \"environment\": [...]". */
void env_json_case(const char *fw, const char *key);
void env_json(void);

#endif
