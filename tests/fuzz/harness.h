/*
 * harness.h — what a filter's fuzz target tells the shared libFuzzer harness
 * (harness.c): the filter's name, the command lines to run its filter_run
 * with (filters/filter.h), and the oracle that checks a successful run's
 * output.
 *
 * An input is one byte choosing the command line (modulo their number), then
 * the text given to the filter. A command line with two inputs ("@2") gets
 * the text split at its first line "%%": the part before in @1, after in @2.
 *
 * With FUZZ_INFO=1 in the environment a target prints its number of command
 * lines and its seeds, then exits (tests/fuzz/run.sh makes the corpus so).
 */
#ifndef DLBENCH_FUZZ_HARNESS_H
#define DLBENCH_FUZZ_HARNESS_H

#include <stddef.h>
#include <stdint.h>

/* libFuzzer's two entry points, defined in harness.c */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_ARGS_MAX 12

struct fuzz_config {
	/* argv after the program's name; "@1" and "@2" are the input files */
	const char *argv[FUZZ_ARGS_MAX];
	/* the input files' paths under the harness's work folder, as the
	 * filter sees them (grep-iters reads the configuration from a path) */
	const char *path1, *path2;
};

struct fuzz_target {
	/* the program's name, progname for the run: every line on stderr
	 * starts "name: " */
	const char *name;
	const struct fuzz_config *configs;
	int nconfigs;
	/* The oracle for a run that exited 0: stdout's text (n bytes and a
	 * NUL; whether it must end in a newline is the oracle's to say: table
	 * -s json ends without one) and the configuration's index. Returns
	 * NULL or what is wrong. */
	const char *(*check)(int config, char *out, size_t n);
	/* the fixtures that seed its corpus: shell globs from the repository's
	 * top, space-separated */
	const char *seeds;
	/* an exit status other than 0 that also means success (compare's 3,
	 * "slower"); its stdout is checked as 0's. 0: none. */
	int also_ok;
};

/* Each target file defines it. */
extern const struct fuzz_target fuzz_target;

/* ---- helpers for the oracles (harness.c) ---- */

/* Split line at tabs into at most max fields, in place; the number. */
int fuzz_fields(char *line, char **f, int max);
/* s is a number as the filters print them (decimal, optional sign, point
 * and exponent), whole and finite: 1; else 0. *v gets its value. */
int fuzz_number(const char *s, double *v);
/* Checks shared by the record filters: every field from first_num on is a
 * finite number, "-" or a word that is not inf or nan in any spelling, and
 * the fields named in positive (indexes, -1 ends) are numbers above 0 whose
 * text is not 0 (as %.2f shows 0.004). Meta lines ('#') are skipped. */
const char *fuzz_check_records(char *out, size_t n, int min_fields, int first_num,
			       const int *positive);

#endif
