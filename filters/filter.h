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

/* The filter on the command line argv[0..argc), argv[0] the program's name,
 * getopt starting at optind: the exit status (0, or 3 for compare's
 * "slower"). It sets usage_text; errors leave through die() and usage()
 * (lib/err.c: exit, or the exit hook), and what the call allocated is then
 * the process's to free. */
int filter_run(int argc, char **argv);

#endif
