/*
 * lib.h — the one library every program of dlbench links: the filters,
 * launch and bench. Errors, allocation, checked numbers, statistics,
 * tab-separated records and configuration keys. Nothing here reads the
 * clock or the environment: same bytes in, same bytes out.
 *
 *   err.c     progname, warnf, die, die_usage, die_at, usage, exit hook
 *   alloc.c   xmalloc, xcalloc, xrealloc, xgrow, xstrdup
 *   num.c     parse_long, parse_double, flag_int, fmt_shortest
 *   stats.c   cmp_double, median_of, pairwise_sum, r2n, r2p, t_tail2,
 *             t_quantile, mad_of, mean_sd
 *   record.c  struct input (files or stdin, line by line), records
 *   meta.c    meta lines ("# ..."): launch's env, mem and energy lines read
 *             and written, the mode line, values percent-encoded
 *   winrec.c  the run record that median and compare read
 *   medrec.c  the median record that speedup and table read
 *   key.c     <N>n<G>g_b<B>_<prec> keys and their ladder order
 *   published.c  a published table (data/dlperf), read for table and plot
 *   hash.c    keys of several parts, hash tables, items grouped by key
 */
#ifndef DLBENCH_LIB_H
#define DLBENCH_LIB_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LIB_NORETURN     __attribute__((noreturn))
#define LIB_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* ---- errors (err.c) ---------------------------------------------------- */

/* Set once from main: prefixes every message ("window: ..."). */
extern const char *progname;
/* The synopsis printed by usage() after "usage: "; set once from main. */
extern const char *usage_text;

/* "prog: message" on stderr; when fmt ends in ':' append " strerror(errno)"
 * (sbase's eprintf). die exits 1, die_usage and usage exit 2. */
void warnf(const char *fmt, ...) LIB_PRINTF(1, 2);
LIB_NORETURN void die(const char *fmt, ...) LIB_PRINTF(1, 2);
LIB_NORETURN void die_usage(const char *fmt, ...) LIB_PRINTF(1, 2);
LIB_NORETURN void usage(void);
/* "prog: file:line: message", exit 1 (a located error in an input). */
LIB_NORETURN void die_at(const char *file, long line, const char *fmt, ...) LIB_PRINTF(3, 4);
LIB_NORETURN void vdie_at(const char *file, long line, const char *fmt, va_list ap);

/* Called with the exit status just before die, die_at, die_usage or usage
 * exit (bench: end every MPI rank, not only this one). It may not return. */
void set_exit_hook(void (*hook)(int status));

/* Flush stdout and check it: a full disk is a failure (exit 1). */
void finish_output(void);

/* ---- allocation (alloc.c): dies "prog: out of memory" on failure ------- */

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
/* Make room for n elements of size bytes in the array *p of capacity *cap
 * (doubling); returns *p. The usual way to append: xgrow(&v, &cap, n + 1, sizeof *v). */
void *xgrow(void *p, size_t *cap, size_t n, size_t size);

/* ---- numbers (num.c) --------------------------------------------------- */

/* The whole string as a decimal integer in [min, max]; 0 on success. */
int parse_long(const char *s, long min, long max, long *out);
/* The whole string as a finite plain decimal (no inf, nan, hex); 0 on success. */
int parse_double(const char *s, double *out);
/* strtonum-style for flags: a decimal integer in [min, max], else a usage
 * error "prog: -n: 'x' is not an integer" / "... is out of range a..b". */
long long flag_int(const char *flag, const char *s, long long min, long long max);
/* The value of -c: 1 for "dlperf" (DLPerf's own methods), else a usage
 * error "-c: 'x' is not dlperf". */
int compat_flag(const char *s);
/* Python's repr of a float: the shortest text that reads back as x, with
 * ".0" when it has no fraction, positional for the magnitudes we print.
 * x must be finite: inf or NaN dies (a caller's bug; no filter prints one). */
void fmt_shortest(char *buf, size_t size, double x);

/* ---- statistics (stats.c) ---------------------------------------------- */

/* qsort comparator of doubles, ascending. */
int cmp_double(const void *a, const void *b);
/* Median of v[0..n), n > 0, sorting v in place (even n: mean of the two
 * middle values, as numpy.median). */
double median_of(double *v, size_t n);
/* numpy's pairwise summation, bit for bit (numpy.sum / numpy.mean). */
double pairwise_sum(const double *a, size_t n);
/* DLPerf's roundings to 2 decimals (doc/dlperf.md):
 * r2n: nearbyint(x * 100.0) / 100.0, ties to even on the double x*100
 *      (numpy.round); the published medians, means and speedups.
 * r2p: the decimal nearest the exact binary x (Python's round(x, n)),
 *      i.e. what printf("%.*f") shows, returned as the double of that text. */
double r2n(double x);
double r2p(double x, int decimals);
/* Student's t with df degrees of freedom (df > 0, real: Welch's too):
 * t_tail2 = P(|T| >= |t|), the two-sided p-value; t_quantile = the t with
 * P(T <= t) = p, 0.5 <= p < 1 (t_quantile(0.975, df): a 95 % interval).
 * Through the regularized incomplete beta function, to about 1e-12. */
double t_tail2(double t, double df);
double t_quantile(double p, double df);
/* The median of |v[i] - center| (v is not changed), n > 0. */
double mad_of(const double *v, size_t n, double center);
/* Mean and sample standard deviation (n - 1; 0 when n is 1), n > 0. */
void mean_sd(const double *v, size_t n, double *mean, double *sd);

/* ---- records (record.c) ------------------------------------------------ */

#define REC_MAXF 16

/* One input source: a named file or stdin ("-", called "<stdin>"). */
struct input {
	FILE *fp;
	const char *name; /* as shown in messages */
	long lineno;
	char *line; /* current line, '\n' removed, split in place */
	size_t cap;
	int nf;
	char *f[REC_MAXF];
	int meta; /* the line is a meta line: not split, nf 1, f[0] the line */
};

/* Open path ("-" = stdin); dies "prog: path: strerror" on failure. */
void input_open(struct input *in, const char *path);
void input_close(struct input *in);
/* Read one raw line (no splitting); 1 = got one, 0 = end of file.
 * A read error dies naming the file; a NUL byte in the line dies naming
 * file and line (lines are C strings: it would cut the line in silence). */
int input_line(struct input *in);
/* Read one line and split it at tabs into f[0..nf-1]; 1 = got one. A meta
 * line (one that starts with '#') is left whole and sets in->meta. */
int input_record(struct input *in);
/* Die unless the record has exactly n fields:
 * "prog: file:line: 3 fields, expected 8". */
void record_expect(struct input *in, int n);
/* Field i as a finite number (> 0 when positive is set), else die
 * "prog: file:line: what 'x' is not a number". */
double record_num(struct input *in, int i, const char *what, int positive);
/* Field i: "-" (NAN) or a number as record_num reads it. */
double record_opt_num(struct input *in, int i, const char *what, int positive);
/* Die "prog: file:line: <message>". */
LIB_NORETURN void record_die(const struct input *in, const char *fmt, ...) LIB_PRINTF(2, 3);

/* Iterate over argv's files, or stdin when there are none. */
#define FOREACH_INPUT(in, argc, argv)                                                          \
	for (int i_ = 0, n_ = (argc) > 0 ? (argc) : 1; i_ < n_; i_++)                          \
		for (int once_ = (input_open(&(in), (argc) > 0 ? (argv)[i_] : "-"), 1); once_; \
		     once_ = (input_close(&(in)), 0))

/* ---- configuration keys (key.c) ---------------------------------------- */

/* <N>n<G>g_b<B>_<prec>: N nodes, G devices per node, B samples per device
 * per step, precision one of key_precisions (fp32, tf32, …).
 *
 * Bound: N, G and B are each at most KEY_PART_MAX (2^20); a larger one is
 * not a key. Then N × G × B <= 2^60 fits a long (64 bits), so the total
 * batch, the device count N × G and every product of them below cannot
 * overflow. */
#define KEY_PART_MAX 1048576
struct key {
	long nodes, gpus, batch;
	char prec[8];
};

#define KEY_MAX 64

/* The precisions, NULL-terminated, and as a sentence: "fp32, tf32, amp,
 * bf16 or fp16". */
extern const char *const key_precisions[];
const char *prec_list(void);
int prec_valid(const char *s);
/* k->prec from s[0, n): 0, or -1 when that is none of key_precisions. */
int prec_set(struct key *k, const char *s, size_t n);

/* What key_read or key_part found. */
enum key_status {
	KEY_OK,
	KEY_CASE,  /* "<N>n<G>g" alone, a DLPerf case (only with KEY_READ_CASE) */
	KEY_NOT,   /* not "<N>n<G>g_b…" (key_part: not a positive integer) */
	KEY_BATCH, /* "<N>n<G>g_b" without "<B>_" after it */
	KEY_RANGE, /* a part above KEY_PART_MAX */
	KEY_PREC,  /* a precision that is none of key_precisions */
};
/* Where: KEY_RANGE the first part out of range (its name "nodes", "devices
 * per node" or "batch", its digits at[0, n)); KEY_PREC and KEY_OK the
 * precision at[0, n), the rest of the text. */
struct key_fault {
	const char *part, *at;
	size_t n;
};
#define KEY_READ_CASE 1
/* Read s as a key, or with KEY_READ_CASE a case "<N>n<G>g" too (k's nodes
 * and gpus only), the precision one of key_precisions (grep-iters reads
 * the precision's text in f again through its -a aliases). */
enum key_status key_read(const char *s, struct key *k, int flags, struct key_fault *f);
/* The fault of KEY_RANGE, KEY_PREC or KEY_BATCH in words, a new string
 * for an error message: "nodes 1048577 is out of range 1..1048576" (more
 * than 20 digits cut to "..."), "precision 'x' is not fp32, …" or "batch
 * is not b<B> with B a positive integer". */
char *key_fault_text(enum key_status r, const struct key_fault *f);
/* A key: 0, or -1 when s is none (a part above KEY_PART_MAX included). */
int key_parse(const char *s, struct key *k);
/* One part alone, filling s[0, n) (a count the log states): KEY_OK,
 * KEY_NOT or KEY_RANGE. */
enum key_status key_part(const char *s, size_t n, long *out);
/* Why key_part refused: "is not a positive integer" or "is out of range
 * 1..1048576". */
const char *key_part_why(enum key_status r);
void key_format(const struct key *k, char *buf, size_t size);
/* Total batch N × G × B (<= 2^60, see KEY_PART_MAX). */
long key_total_batch(const struct key *k);
/* Ladder order: by total devices, then nodes. */
int key_ladder_cmp(const struct key *a, const struct key *b);

/* ---- meta lines (meta.c) ---------------------------------------------- */

/* A line that starts with '#' is a meta line, not a record (doc/formats.md):
 * after the '#', words separated by blanks (spaces or tabs). launch's
 * environment and memory lines, and the outcome of a run that left no log
 * (bin/outcome), are data, read strictly:
 *
 *   # env [framework=<fw> key=<key> run=<r>] node=<i> <name>=<value>
 *   # mem [framework=<fw> key=<key> run=<r>] node=<i> [rank=<r> host=<h> | gpu=<k>]
 *         rss_peak_mib=<n> | gpu_peak_mib=<n>
 *   # outcome framework=<fw> key=<key> run=<r> status=oom|failed|timeout exit=<1..255>
 *         [reason=<text>]
 *   # energy [framework=<fw> key=<key> run=<r>] node=<i> device=<d> how=<h> t=<s> j=<J>
 *   # energy [framework=<fw> key=<key> run=<r>] node=<i> reason=<text>
 *   # energy framework=<fw> key=<key> run=<r> joules=<J> samples=<n> how=<h>
 *   # energy framework=<fw> key=<key> run=<r> reason=<text>
 *
 * An energy line is one sample of a device's cumulative energy counter
 * (launch: t seconds since the epoch, j joules since its first sample), a
 * node's word that it has none, or (window, no node=) the joules of a
 * run's timed window over its samples, or why it has none.
 *
 * Each word after the kind is name=value: a name of [A-Za-z0-9_.-], a
 * value not empty, percent-encoded. Any other meta line is free text: the
 * filters pass it on and read only its mode= word. */
enum meta_kind { META_OTHER, META_ENV, META_MEM, META_OUTCOME, META_ENERGY };
/* The four shapes of an energy line, in the order above. */
enum energy_shape { ENERGY_SAMPLE, ENERGY_NODE_NONE, ENERGY_WINDOW, ENERGY_RUN_NONE };
/* What became of a run that left no log: it ran out of memory (a message
 * of its framework, its libraries or bench said so), it failed otherwise,
 * or launch ended it at its timeout. */
enum outcome_status { OUTCOME_OOM, OUTCOME_FAILED, OUTCOME_TIMEOUT };
#define OUTCOME_NSTATUS 3
/* Their names in an outcome line ("oom", "failed", "timeout") and in a
 * table's cells ("OOM", "failed", "timeout"). */
extern const char *const outcome_names[OUTCOME_NSTATUS];
extern const char *const outcome_cells[OUTCOME_NSTATUS];
/* The form of an env or mem line: as launch writes it into a log (node=
 * first), or as grep-iters passes it on (the run's framework=, key= and
 * run= first). An outcome line has the second form only; read in the
 * first (a log's own text), it is META_OTHER. */
enum meta_form { META_LOG, META_RUN };

#define META_ITEMS 4 /* items after node= at most (an energy sample's device, how, t, j) */

struct metaitem {
	char *name, *value; /* value decoded */
};

/* A parsed env or mem line. Its strings live in buf, which the next
 * metaline_parse reuses; start it {0} and end it with metaline_free. */
struct metaline {
	enum meta_kind kind;
	const char *framework, *key; /* the run (META_RUN form), else NULL */
	long run, node;              /* run -1 but in META_RUN form */
	int n;                       /* items after node=: env 1, mem 1 to 3 */
	struct metaitem item[META_ITEMS];
	int peak_gpu;               /* mem: the last item is gpu_peak_mib (1) or rss_peak_mib */
	long peak_mib;              /* mem: its value */
	struct key runkey;          /* outcome: key parsed */
	enum outcome_status status; /* outcome: status= */
	long exit;                  /* outcome: exit= */
	const char *reason;         /* outcome, energy: reason= decoded, NULL when absent */
	enum energy_shape shape;    /* energy: which of the four */
	const char *device, *how;   /* energy: device= (a sample), how= (a sample, a window) */
	double t, j;                /* energy sample: seconds since the epoch, joules so far */
	double joules;              /* energy window: the run's window's joules */
	long samples;               /* energy window: the samples the window trained */
	char *buf;
	size_t cap;
};

/* Parse line (a meta line, in's current one: errors name in's file and
 * line) into m; returns m->kind. META_OTHER: not an env, mem, outcome or
 * energy line, m holds nothing else. An energy line's items come in the
 * order above (node= absent only from a run's window line, META_RUN form):
 * "energy line: device= expected, not 'x'", "energy line: t 'x' is not a
 * number >= 0" (j=, joules= too), "energy line: samples 'x' is not a
 * whole number > 0", "energy line: 3 items after node=, expected device=
 * how= t= j= or reason=". An outcome line's items are status=, exit=
 * and reason= in that order, reason= optional: "outcome line: status 'x'
 * is not oom, failed or timeout", "outcome line: exit 'x' is not a status
 * 1..255", "outcome line: key 'x' is not <N>n<G>g_b<B>_<prec>", "outcome
 * line: 'x' where status= was expected" (exit=, reason=), "outcome line: 4
 * items after run=, expected 2 or 3". An env or mem line of another shape
 * dies, one line:
 * "env line: 'x' is not name=value", "env line: 'x=a%G1': '%G1' is not
 * %XX (XX two hex digits, not 00)", "env line: node=<number> expected, not
 * 'x'" (framework=, key=, run= in META_RUN form), "mem line: rank 'x' is
 * not a whole number" (run, node, gpu, *_mib too), "env line: 2 items after
 * node=, expected 1" (mem: 1 to 3), "mem line: the last item, 'x', is not
 * rss_peak_mib or gpu_peak_mib". */
enum meta_kind metaline_parse(const struct input *in, const char *line, enum meta_form form,
			      struct metaline *m);
void metaline_free(struct metaline *m);
/* m as a line (no newline) in *buf of capacity *cap (growing it): its
 * kind, the run when m->framework is set, node= (not for an outcome, nor
 * for an energy line whose node is -1: a run's window) and
 * the items, values encoded, one blank between words; returns its length. */
size_t metaline_format(const struct metaline *m, char **buf, size_t *cap);

/* The n bytes of s as a value: '%', '=', blanks, control bytes and DEL as
 * %XX (upper-case hex), every other byte as it is. dst holds at least
 * META_ENCODED(n) bytes; it ends with a NUL; returns the length before it.
 * launch writes its values so; metaline_parse decodes them. */
#define META_ENCODED(n) (3 * (n) + 1)
size_t meta_encode(char *dst, const char *s, size_t n);

/* Returns 1 when the meta line just read by input_record says mode=dlperf
 * (DLPerf's methods for the whole stream), 0 when it names no mode (env and
 * mem lines name none); dies "file:line: mode 'x' is not dlperf", or "mode
 * line after the first record" when records_before. */
int meta_mode(const struct input *in, int records_before);

/* ---- the run record (winrec.c) ----------------------------------------- */

/* window's output, which median and compare read: framework, key, run,
 * samples_per_s, and in our mode jitter_pct, drift_pct, steady (doc/formats.md). */
#define WINREC_NF        4
#define WINREC_STEADY_NF 7

struct winrec {
	struct key key; /* field 1 parsed */
	long run;
	double speed;
	int drift; /* steady is "drift" */
};

/* Validate the record just read by input_record (4 or 7 fields) and fill w;
 * a bad field dies naming file and line ("run 'x' is not a non-negative
 * integer", "samples_per_s 'x' rounds to 0.00", "steady 'x' is not ...").
 * The framework and key texts are in->f[0] and in->f[1]. */
void winrec_parse(struct input *in, struct winrec *w);

/* ---- the median record (medrec.c) -------------------------------------- */

/* median's output, which speedup and table read: framework, key, median,
 * mean, min, max, n (speedup's records add the speedup after them). */
#define MEDREC_NF 7
/* ... and in our mode ci_lo, ci_hi, cv_pct, outliers (doc/formats.md). */
#define MEDREC_STATS_NF 11

struct medrec {
	char *field[MEDREC_NF]; /* the fields as read, to print unchanged */
	const char *framework;  /* field[0] */
	const char *keytext;    /* field[1] */
	struct key key;         /* field[1] parsed */
	double median, mean, min, max;
	long n;
	const char *file; /* where it was read, for errors found later */
	long line;
	/* our columns, set by medrec_stats: stats is 0 for a record of
	 * MEDREC_NF fields (DLPerf's mode); ci_lo and ci_hi NAN for "-" */
	int stats;
	double ci_lo, ci_hi, cv;
	int outliers;     /* outliers is not "-" */
	char *stats_text; /* fields 7..10 as read, tab-separated (one allocation) */
};

/* Validate the record just read by input_record, which must have nf fields
 * (MEDREC_NF, or more when the caller's own columns follow), and fill r with
 * copies of its first MEDREC_NF fields (one allocation: free(field[0])).
 * A bad field dies naming file and line: "empty framework", "key 'x' is not
 * <N>n<G>g_b<B>_<prec>", "median 'x' is not a number" (or "is not
 * positive"; so for mean, min and max), "n 'x' is not a positive integer",
 * "min 'a' is above max 'b'", "median 'x' is outside min..max 'a'..'b'"
 * (so for mean). */
void medrec_parse(struct input *in, int nf, struct medrec *r);
/* The number of median fields of the record just read: MEDREC_STATS_NF when
 * it has at least extra + MEDREC_STATS_NF fields, else MEDREC_NF (extra:
 * the caller's own columns after them). */
int medrec_fields(const struct input *in, int extra);
/* After medrec_parse: fields 7..10 of a record of MEDREC_STATS_NF median
 * fields, checked ("ci_lo 'x' is not a number", "ci_lo 'a' is above ci_hi
 * 'b'", "outliers 'x' is not run numbers joined by ','"), into r; a record
 * of MEDREC_NF fields gets stats 0. */
void medrec_stats(struct input *in, int median_nf, struct medrec *r);
/* Die "file:line: duplicate configuration <framework> <key>" when r's
 * framework and key are in *seen already, else add them. *seen is a
 * tsearch tree (NULL at first) of the records' field[0]: O(log n) each. */
void medrec_unique(const struct input *in, const struct medrec *r, void **seen);

/* ---- hash tables (hash.c) ---------------------------------------------- */

/* A key of several parts in a buffer that grows (start it with {0}):
 * strings, each with its NUL (so "ab","c" is not "a","bc"), and longs. */
struct hkey {
	char *b;
	size_t n, cap;
};
/* Empty the key (its buffer is kept), then add its parts in order. */
void hkey_start(struct hkey *k);
void hkey_str(struct hkey *k, const char *s);
void hkey_long(struct hkey *k, long v);

/* A table from keys (copied) to indices, expected O(1) a call (FNV-1a,
 * open addressing, at most half full); {0} is empty. It is never iterated,
 * so no output order depends on it. */
struct hash {
	struct hslot *slot;
	size_t cap, n;
};
#define HASH_NONE ((size_t)-1)
/* The value of k; when k is absent it is added with value, which is
 * returned (so "== value" says that k is new). */
size_t hash_intern(struct hash *h, const struct hkey *k, size_t value);
/* The value of k, or HASH_NONE. */
size_t hash_find(const struct hash *h, const struct hkey *k);
void hash_free(struct hash *h);

/* Items (0, 1, ... in any order) grouped by key; {0} is empty. Group ids
 * count from 0 in the order their first item was added; a group's items
 * are first[id], next[first[id]], ... (HASH_NONE ends), in the order added. */
struct groups {
	struct hash index;
	size_t n, *first, *last, *next;
	size_t capfirst, caplast, capnext;
};
/* Add item to the group of k; returns the group's id. */
size_t groups_add(struct groups *g, const struct hkey *k, size_t item);
void groups_free(struct groups *g);

/* ---- published tables (published.c) ------------------------------------ */

/* One line of a published table: framework, key, samples_per_s, speedup,
 * and the memory the table gives, if any. */
struct published {
	char *framework;
	char keytext[KEY_MAX]; /* the key as key_format writes it */
	struct key key;
	double speed;   /* NAN where the table says OOM */
	double speedup; /* 0: the table gives none ("-") */
	int decimals;   /* of samples_per_s as printed (0 for OOM) */
	long memory;    /* MiB a device, -1: none given */
};

/* Read the table at path into *out (published_free frees it); returns the
 * count. A line: framework, key, samples_per_s (a number or OOM), speedup
 * (a number or -; - after OOM), then optionally the memory (MiB a device,
 * a whole number or -). Dies naming file and line: "3 fields, expected 4 or
 * 5", "key 'x' is not <N>n<G>g_b<B>_<prec>", "samples_per_s 'x' is not a
 * number" (is not positive, rounds to 0.00), "speedup 'x' ...", "memory
 * 'x' ...", "duplicate configuration <framework> <key>". index (NULL: none
 * wanted) gets each line's index by its published_key. */
size_t published_read(const char *path, struct published **out, struct hash *index);
/* The key of a framework and a key text (key_format's) in a published
 * table's index. */
void published_key(struct hkey *k, const char *framework, const char *keytext);
void published_free(struct published *p, size_t n);

#ifdef __cplusplus
}
#endif

#endif
