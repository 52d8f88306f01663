/*
 * probe.h: `bench --allreduce`, the allreduce probe. Times comm.h's
 * allreduce (MPI on the CPU build, NCCL on the CUDA build) over device
 * buffers of min_bytes .. max_bytes and prints, per size, the time and the
 * bandwidths as nccl-tests define them:
 *   algbw = bytes / time, busbw = algbw * 2 (n - 1) / n   (GB/s = 1e9 B/s)
 * so a user can tell whether a poor speedup comes from the network.
 *
 * Needs comm_init and bk_init done; every rank calls probe_allreduce, rank 0
 * prints. The time of a size is the slowest rank's mean over iters.
 */
#ifndef BENCH_PROBE_H
#define BENCH_PROBE_H

#include <stddef.h>
#include <stdio.h>

struct probe_config {
	size_t min_bytes;	/* 1024 */
	size_t max_bytes;	/* 256 MiB */
	int factor;		/* 2 or 4: sizes min, min*factor, ... up to max */
	int iters;		/* timed allreduces per size (20) */
	int warmup;		/* untimed allreduces per size first (5) */
};

void probe_defaults(struct probe_config *pc);

/*
 * One probe flag: "--min-bytes", "--max-bytes", "--factor", "--iters",
 * "--warmup" with its value. Returns 1 if the flag is a probe flag and its
 * value is good, 0 if it is not a probe flag, and -1 after printing
 * "bench: --iters: 'x' is not an integer in [1, 1000000]" for a bad value
 * (the caller exits 2).
 */
int probe_flag(struct probe_config *pc, const char *flag, const char *value);

/* Checks min <= max and both multiples of 4 bytes; -1 after a message. */
int probe_check(const struct probe_config *pc);

/* The table: header lines start with '#', then one row per size. */
void probe_header(FILE *out, const char *backend, int ranks, int nodes,
    const struct probe_config *pc);
void probe_row(FILE *out, size_t bytes, double seconds, int ranks);

/* Runs the probe; 0 on success, 1 if the sum came out wrong. */
int probe_allreduce(const struct probe_config *pc, FILE *out);

#endif
