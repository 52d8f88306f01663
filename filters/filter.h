/*
 * filter.h — what every fuzzed filter defines beside main: its work as one
 * call. main names the program (progname) and returns filter_run's status;
 * the fuzz targets (tests/fuzz/) call filter_run again and again in one
 * process. So the state of a call lives in a struct that the call owns,
 * never at file scope: a call starts from nothing, whatever the call
 * before it did or where it stopped.
 */
#ifndef DLBENCH_FILTER_H
#define DLBENCH_FILTER_H

/* The filter on the command line argv[0..argc) (argv[0] the program's
 * name; getopt from optind): its exit status, 0 or compare's 3. It sets
 * usage_text. A failure leaves through die() or usage() (lib/err.c), which
 * exit or call the exit hook. What the call allocated is not all freed
 * when it returns: the process ends after it. */
int filter_run(int argc, char **argv);

#endif
