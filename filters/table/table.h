/*
 * table.h — what table's files share: main.c (reading, grouping, the three
 * outputs), stats.c (our statistics columns: half-widths, efficiency, the
 * noisy mark), pubcols.c (the published columns of -p), failed.c (the
 * runs that failed: outcome lines, the rows they make), energy.c (J/sample)
 * and mfu.c (MFU %), columns.c (the two in each style), reasons.c (their
 * footer lines), and the call's state they work on.
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
 * MEDREC_STATS_NF) of the record just read into s; returns the speedup,
 * NAN for "-" (its base's runs all failed: then speedup_pm and efficiency
 * are "-" too). Errors name file and line. */
double rowstats_read(struct input *in, int median_nf, const struct medrec *r, struct rowstats *s);
/* -s scaling with our columns: the header (two lines; tail and rule end
 * them before the memory and published columns; published: how many
 * published columns, env_tail) and a row's cells after
 * batch_size_per_device, up to the failed runs column. */
void rowstats_header(const struct env *env, const char *tail, const char *rule, int published);
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

/* failed.c: the outcome lines, per configuration (a part of the call's
 * state, zeroed at first). */
struct failrun {
	long run;
	enum outcome_status status;
	long exit;
	char *reason; /* NULL: none given */
};
struct failed {
	char *fw, *keytext;
	struct key key;
	struct failrun *runs;
	size_t n, cap;
	const char *file; /* its first outcome line */
	long line;
};
struct failures {
	struct failed *v;
	size_t n, cap;
	struct hash index; /* (fw, key) → v[i] */
	struct hash runs;  /* (i, run) → its place among all runs */
	size_t nruns;
	struct hkey hk;
	struct metaline m;
};

/* energy.c: the "# energy" lines of the runs' windows (window wrote
 * them), per configuration; a part of the call's state, zeroed at first. */
struct econf;
struct energies {
	struct econf *v;
	size_t n, cap;
	struct hash index; /* (fw, key) → v[i] */
	struct hkey hk;
	struct metaline m;
};
/* Take in's meta line when it is a run's energy line (1), else 0; a
 * sample (window consumes those) is an error naming file and line. */
int energies_read(struct energies *es, const struct input *in);
/* J/sample of a configuration of runs runs: the median over its runs of
 * joules ÷ samples; NAN, and why (one line) when a run has none. */
double energy_per_sample(struct energies *es, const char *fw, const char *key, long runs, char *why,
			 size_t size);
/* " <J/sample> |" or " - |" when any energy line was read, else nothing. */
void energy_cell(struct energies *es, const char *fw, const char *key, long runs);
/* Markdown: how the joules were measured, and each distinct reason why a
 * row has none, with its configurations (rows: every row, in table order). */
void energy_footer(struct energies *es, const struct medrec *const *rows, size_t nrows);
/* -s json: a case's ", \"energy_j_per_sample\": x" (null and
 * "energy_reason" without one) when any energy line was read. */
void energy_json(struct energies *es, const char *fw, const char *key, long runs);

/* mfu.c: the MFU column's peaks (-P, -r) and what the rows hold. */
struct mfu {
	double peak_tflops;          /* -P: one device's peak; NAN: none given */
	const char *roof_file;       /* -r: bin/perf-roof's output, or NULL */
	double roof_fp32, roof_bf16; /* its GFLOP/s; NAN: none */
	int shown;                   /* a row has an MFU: the column is shown */
	int said;                    /* a row's logs say something of its FLOP */
};
/* Read -r's file (dies naming its line when it is not perf-roof's). */
void mfu_roof_read(struct mfu *mf, const char *path);
/* MFU % of the row (its median samples/s); NAN when the FLOP count or the
 * peak is unknown. how: how it was made, or why not; *said: the row's logs
 * say something of its FLOP (a count or a model). */
double mfu_pct(const struct mfu *mf, struct env *env, const struct medrec *r, char *how,
	       size_t size, int *said);
/* Once every row is read: shown and said. */
void mfu_prepare(struct mfu *mf, struct env *env, const struct medrec *const *rows, size_t n);
/* " <MFU %> |" or " - |" when shown, else nothing. */
void mfu_cell(const struct mfu *mf, struct env *env, const struct medrec *r);
/* Markdown: how each MFU was made, and why a row has none. */
void mfu_footer(const struct mfu *mf, struct env *env, const struct medrec *const *rows, size_t n);
/* -s json: ", \"mfu_percent\": x" (null and "mfu_reason" without one). */
void mfu_json(const struct mfu *mf, struct env *env, const struct medrec *r);

/* reasons.c: "- <title>: fw key, fw key: <text>" for each distinct text
 * of why[i] (NULL: none; rows[i] its row), in the order first met; title
 * in bold when bold. */
void reasons_footer(const char *title, int bold, const struct medrec *const *rows, char *const *why,
		    size_t n);

/* What table computes or reads beyond the median record; extras[i] goes
 * with rows[i]. */
struct extra {
	double speedup, spread;    /* speedup NAN: "-" */
	struct rowstats st;        /* our columns (stats.c) */
	const struct failed *fail; /* its failed runs (failed.c), or NULL */
	int all_failed;            /* no record: every run failed */
};

/* One call's state (filter.h). */
struct table {
	struct medrec *rows;
	struct extra *extras;
	size_t nrows, caprows, capextras;
	void *seen;         /* medrec_unique's tree */
	struct pubcols pub; /* -p (pubcols.c) */
	struct hkey hk;
	struct env env;         /* launch's lines (env.c, mem.c) */
	struct failures fails;  /* the outcome lines (failed.c) */
	struct energies energy; /* the runs' energy lines (energy.c) */
	struct mfu mfu;         /* the MFU column (mfu.c) */
	int dlperf;             /* a mode=dlperf line: DLPerf's records */
	struct hash rowindex;   /* (framework, key) → rows[i] */
};

/* Once all is read: the configurations of the outcome lines with a record
 * get their failed runs (extras' fail), the others a row of their own (no
 * figures, n 0, all_failed); a speedup of "-" whose 1n1g base is not such a
 * row is an error naming its record. */
void failed_rows(struct table *st);
/* Take in's meta line when it is an outcome line (1), else 0; a second
 * outcome of one run is an error. */
int failures_read(struct failures *fs, const struct input *in);
/* Once all are read: each configuration's runs in run order. */
void failures_sort(struct failures *fs);
/* The failed runs of a configuration, or NULL. */
const struct failed *failures_of(struct failures *fs, const char *fw, const char *key);
/* The status its runs share, else failed. */
enum outcome_status failed_status(const struct failed *f);
/* The cells of a row whose runs all failed, from samples/s to the column
 * before "failed runs": the status, then "-" (n 0). */
void failed_row_cells(const struct failed *f, int with_stats);
/* -s scaling: " runs 1,2: OOM; run 3: timeout |" or " - |" when any
 * outcome line was read (the "failed runs" column), else nothing. */
void failed_cell(struct failures *fs, const char *fw, const char *key);
/* Markdown: one line a configuration and status, by framework and in
 * ladder order, "- **failed runs**: fw key runs 1,2: OOM (exit 1): <the
 * first one's reason>"; a blank line first when blank_before. */
void failed_footer(struct failures *fs, int blank_before);
/* -s json: a case's ", \"outcome\": \"oom\"" (all_failed) and ",
 * \"failed_runs\": [{\"run\": 3, \"status\": \"oom\", \"exit\": 1, \"reason\": ..}]". */
void failed_json(struct failures *fs, const char *fw, const char *key, int all_failed);

/* columns.c: the J/sample and MFU % columns in each style. columns_tail:
 * before, then the columns' header cells (rule 0) or rule cells (1), into
 * buf; columns_cells: a -s scaling row's cells; columns_compare_header:
 * one of each per framework of fw (rule: "---"); columns_compare_cells:
 * the cells of a -s compare row, cell[k] framework k's row in g (or
 * HASH_NONE: "-"); columns_json: a case's keys. */
const char *columns_tail(const struct table *st, const char *before, int rule, char *buf,
			 size_t size);
void columns_cells(struct table *st, const struct medrec *r);
void columns_compare_header(const struct table *st, const char *const *fw, size_t nfw, int rule);
void columns_compare_cells(struct table *st, const struct medrec *const *g, const size_t *cell,
			   size_t nfw);
void columns_json(struct table *st, const struct medrec *r);

#endif
