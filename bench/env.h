/*
 * bench/env.h: what bench takes from its environment, read once at
 * start-up (env_read) so that nothing further in asks getenv:
 *
 *   DLBENCH_WORLD=N            set by launch: the ranks the configuration
 *                              has. A job that came up with another count (a
 *                              host file with too few slots, a bad srun)
 *                              would log the wrong configuration: it ends.
 *
 * and bench's test hooks, for the suites (tests/bench.bats, data.bats):
 *
 *   DLBENCH_SLOW_RANK=R:MS     rank R sleeps MS ms in each step's compute, a
 *                              slow rank on purpose (--rank-times, bin/ranks)
 *   DLBENCH_DATA_TRACE=PREFIX  each rank R of a --data run lists the samples
 *                              it trained on in PREFIX.R (data.h's trace)
 *
 * (OMP_NUM_THREADS is flags.c's, a setting line of the log; the launcher's
 * own variables are comm.h's.)
 */
#ifndef BENCH_ENV_H
#define BENCH_ENV_H

typedef struct bench_env {
	long slow_ms;     /* this rank's sleep in each step, 0: none */
	char trace[4096]; /* this rank's trace file, "": none */
} bench_env;

/* Reads the variables for this rank of size; a bad value dies naming it,
 * a DLBENCH_WORLD other than size ends every rank. */
void env_read(bench_env *e, int rank, int size);

#endif
