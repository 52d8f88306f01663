/*
 * bench/allreduce/allreduce.h: the allreduce benchmark (`bench --allreduce`,
 * bin/bench-allreduce, bin/bench-cuda-allreduce). Times comm.h's allreduce
 * (MPI on the CPU build, NCCL on the CUDA build) over device buffers of
 * min_bytes .. max_bytes and prints, per size, the time and the bandwidths
 * as nccl-tests define them:
 *   algbw = bytes / time, busbw = algbw * 2 (n - 1) / n   (GB/s = 1e9 B/s)
 * so a user can tell whether a poor speedup comes from the network.
 *
 * Needs comm_init and bk_init done; every rank calls allreduce_run, rank 0
 * prints. The time of a size is the slowest rank's mean over iters.
 */
#ifndef BENCH_ALLREDUCE_H
#define BENCH_ALLREDUCE_H

#include <stdio.h>

struct allreduce_config {
	long min_bytes; /* 1024 */
	long max_bytes; /* 256 MiB */
	long factor;    /* 2 or 4: sizes min, min*factor, ... up to max */
	long iters;     /* timed allreduces per size (20) */
	long warmup;    /* untimed allreduces per size first (5) */
};

/* The benchmark's flags, in synopsis order; the last has a NULL name.
 * Each sets the field at off of struct allreduce_config to an integer in
 * [lo, hi]; arg names the value in a synopsis. */
struct allreduce_flag {
	const char *name, *arg;
	size_t off;
	long lo, hi;
};
extern const struct allreduce_flag allreduce_flags[];

void allreduce_defaults(struct allreduce_config *ac);

/* One flag with its value: 1 if it is one of allreduce_flags, 0 if not.
 * A bad value is a usage error, "bench: --iters: 'x' is not an integer in
 * [1, 1000000]" (lib's die_usage). */
int allreduce_flag(struct allreduce_config *ac, const char *flag, const char *value);

/* Usage errors unless min <= max and both are multiples of 4 bytes. */
void allreduce_check(const struct allreduce_config *ac);

/* Runs the benchmark and prints its table on out (rank 0): header lines
 * start with '#', then one row per size. 0 on success, 1 if the sum came
 * out wrong. */
int allreduce_run(const struct allreduce_config *ac, FILE *out);

#endif
