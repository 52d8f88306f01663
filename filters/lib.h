/*
 * lib.h — the helpers every filter shares: errors, checked numbers,
 * tab-separated records, configuration keys, DLPerf's roundings.
 * Nothing here reads the clock or the environment: same bytes in, same out.
 */
#ifndef DLBENCH_LIB_H
#define DLBENCH_LIB_H

#include <stdio.h>
#include <stdnoreturn.h>

/* ---- errors ---------------------------------------------------------- */

/* Set once from main: prefixes every message ("window: ..."). */
extern const char *progname;
/* The usage synopsis printed by usage(); set once from main. */
extern const char *usage_text;

/* Print "prog: message" on stderr; when fmt ends in ':' append
 * " strerror(errno)" (sbase's eprintf). die exits 1, usage exits 2. */
void warnf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
noreturn void usage(void);
/* A bad command-line value: "prog: -n: 'x' is not an integer", exit 2. */
noreturn void die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Flush stdout and check it: a full disk is a failure (exit 1). */
void finish_output(void);

/* ---- numbers --------------------------------------------------------- */

/* strtonum-style: the whole string must be a decimal integer in
 * [min, max]; otherwise a usage error naming the flag. */
long long flag_int(const char *flag, const char *s, long long min, long long max);

/* The value of -c: 1 for "dlperf" (DLPerf's own methods), else a usage
 * error "-c: 'x' is not dlperf". */
int compat_flag(const char *s);

/* Parse the whole string as a finite double; returns 0 on success. */
int parse_double(const char *s, double *out);
/* Parse the whole string as a decimal integer in [min, max]; 0 on success. */
int parse_long(const char *s, long min, long max, long *out);

/* DLPerf's roundings to 2 decimals (spec §3.4).
 * r2n: nearbyint(x * 100.0) / 100.0, ties to even on the double x*100
 *      (numpy.round); the published medians, means and speedups.
 * r2p: the decimal nearest the exact binary x (Python's round(x, 2)),
 *      i.e. what printf("%.2f") shows. Returned as the double of that text. */
double r2n(double x);
double r2p(double x, int decimals);

/* Python's repr of a float: shortest text that reads back as x, with ".0"
 * when it has no fraction, positional for the magnitudes we print. */
void fmt_shortest(char *buf, size_t size, double x);

/* ---- records --------------------------------------------------------- */

#define REC_MAXF 16

/* One input source: a named file or stdin ("-", called "<stdin>"). */
struct input {
	FILE *fp;
	const char *name; /* as shown in messages */
	long lineno;
	char *line;       /* current line, '\n' removed, split in place */
	size_t cap;
	int nf;
	char *f[REC_MAXF];
};

/* Open path ("-" = stdin); dies "prog: path: strerror" on failure. */
void input_open(struct input *in, const char *path);
void input_close(struct input *in);
/* Read one raw line (no splitting); 1 = got one, 0 = end of file.
 * A read error dies naming the file. */
int input_line(struct input *in);
/* Read one line and split it at tabs into f[0..nf-1]; 1 = got one. */
int input_record(struct input *in);
/* Die unless the record has exactly n fields:
 * "prog: file:line: 3 fields, expected 8". */
void record_expect(struct input *in, int n);
/* Field i as a finite number (> 0 when positive is set), else die
 * "prog: file:line: field 'what': 'x' is not a number". */
double record_num(struct input *in, int i, const char *what, int positive);
/* Die "prog: file:line: <message>". */
noreturn void record_die(const struct input *in, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Iterate over argv's files, or stdin when there are none. */
#define FOREACH_INPUT(in, argc, argv)                                                    \
	for (int i_ = 0, n_ = (argc) > 0 ? (argc) : 1; i_ < n_; i_++)                     \
		for (int once_ = (input_open(&(in), (argc) > 0 ? (argv)[i_] : "-"), 1); once_; \
		     once_ = (input_close(&(in)), 0))

/* ---- configuration keys ---------------------------------------------- */

/* <N>n<G>g_b<B>_<prec>: N nodes, G devices per node, B samples per device
 * per step, precision fp32 | tf32 | amp | bf16 | fp16. */
struct key {
	long nodes, gpus, batch;
	char prec[8];
};

#define KEY_MAX 64

/* Parse a key; returns 0, or -1 when it is not one. */
int key_parse(const char *s, struct key *k);
/* Parse "<N>n<G>g" alone (a DLPerf case directory); 0 or -1. */
int case_parse(const char *s, long *nodes, long *gpus);
void key_format(const struct key *k, char *buf, size_t size);
int prec_valid(const char *s);
/* Total batch N × G × B. */
long key_total_batch(const struct key *k);
/* Ladder order: by total devices, then nodes. */
int key_ladder_cmp(const struct key *a, const struct key *b);

#endif
