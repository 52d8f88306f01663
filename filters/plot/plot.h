/*
 * plot.h — what plot's reader (series.c, with failed.c for the outcome
 * lines) hands its writers (main.c: the
 * gnuplot script; page.c: the HTML page): the records grouped into one
 * series a framework, in ladder order, with the configurations whose runs
 * all failed among them (outcome lines), the published series, and the
 * environment meta lines.
 */
#ifndef DLBENCH_PLOT_H
#define DLBENCH_PLOT_H

#include "lib.h"

/* Columns of speedup records: DLPerf's mode (and old records), and ours
 * with the statistics of median (ci_lo ci_hi cv_pct outliers) and
 * speedup (speedup_pm efficiency). */
#define PLOT_NF_PLAIN 8
#define PLOT_NF_STATS 14

struct point {
	long nodes, gpus, n;
	double median, mean, min, max;
	double ci_lo, ci_hi, cv;    /* 95 % CI of the mean and CV %; < 0: none */
	double speedup, speedup_pm; /* speedup NAN: "-" (its base failed); speedup_pm < 0: none */
	double efficiency;          /* %, speedup / devices (NAN with the speedup) */
	char outliers[64];          /* run numbers, "" when none or not known */
	/* outcome lines: all_failed, no record (no figures above but n 0),
	 * status the one its runs share (else failed); failed "runs 1,2: OOM;
	 * run 3: timeout", "" when no run failed */
	int all_failed;
	enum outcome_status status;
	char failed[96];
	const char *file; /* where its record was read */
	long line;
};

struct series {
	char *framework;
	long batch;
	char prec[8];
	struct point *pts; /* ladder order; pts[0] is 1n1g (all_failed, maybe) */
	int figures;       /* points with figures (not all_failed) */
	int speedups;      /* points with a speedup */
	int failures;      /* all_failed points */
	const char *file;  /* where its first record was read */
	long line;
	size_t npts, cap;
};

struct pubpoint {
	long devices;
	double speed, speedup; /* speedup 0: the file gives none */
};

/* One value of an environment item (of "# env ... <name>=<value>" lines),
 * decoded, with the number of runs and nodes that gave it. */
struct envvalue {
	char *name, *value;
	long count;
};

struct plotdata {
	struct series *series;
	size_t nseries;
	struct pubpoint *pub;
	size_t npub;
	const char *pubname;
	int stats;            /* the records carry CIs (PLOT_NF_STATS) */
	int dlperf;           /* a "# mode=dlperf" line: DLPerf's methods */
	struct envvalue *env; /* sorted by name, then value */
	size_t nenv;
	char machine[256]; /* "" when no environment line names it */
};

/* failed.c: the outcome lines as read, kept until every record is (a
 * part of the reader's state, {0} at first). */
struct failrun {
	char *framework;
	struct key key;
	char keytext[KEY_MAX];
	long run;
	enum outcome_status status;
	const char *file;
	long line;
};
struct faillist {
	struct failrun *v;
	size_t n, cap;
};
void faillist_add(struct faillist *l, const struct metaline *m, const struct input *in);
/* By configuration, then status and run; a run met twice is an error
 * naming its second line. */
void faillist_sort(struct faillist *l);
/* The configuration whose lines start at v[i] (sorted): the status its
 * runs share, else failed, and "runs 1,2: OOM; run 3: timeout" in buf (cut
 * at size); returns the index after its lines. */
size_t faillist_config(const struct faillist *l, size_t i, enum outcome_status *status, char *buf,
		       size_t size);
void faillist_free(struct faillist *l);

/* Read the records of argv's files (stdin when none) into d; -s compare
 * allows several frameworks; published (or NULL) is a -p file. Dies naming
 * file and line on a bad record or outcome line, and when the records hold
 * no configuration, several batches or precisions, several frameworks
 * without compare, or a series without its 1n1g point (a 1n1g whose runs
 * all failed is one). */
void plotdata_read(struct plotdata *d, int argc, char **argv, int compare, const char *published);
void plotdata_free(struct plotdata *d);
/* The values of the environment item name: the index of the first in
 * d->env and the count of different values (0: not recorded). */
size_t env_find(const struct plotdata *d, const char *name, size_t *first);

/* main.c: the plot's title (and the page's), configuration and machine. */
void plot_title(const struct plotdata *d, int compare, char *buf, size_t size);
/* page.c: the HTML page of a result on stdout, from d, the table's markdown
 * and the plot's SVG. */
void page_write(const struct plotdata *d, const char *title, const char *table_md, const char *svg);

#endif
