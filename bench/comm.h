/*
 * bench/comm.h: communication between the ranks of a data-parallel run.
 * bench/cpu/comm_mpi.c implements it with MPI (CPU), bench/cuda/comm_nccl.cu
 * with NCCL (MPI only to start it). A run without a launcher is one rank of
 * one node, and needs neither.
 *
 * Gradients are summed in place over all ranks, in buckets: the trainer
 * starts a bucket as soon as backward has written every gradient in it and
 * waits for all of them before the update. Counts are in elements.
 */
#ifndef BENCH_COMM_H
#define BENCH_COMM_H

#include <stddef.h>
#include <stdint.h>

void comm_init(int *argc, char ***argv);
void comm_finalize(void);
int comm_rank(void);       /* 0 .. comm_size()-1 */
int comm_size(void);       /* number of ranks */
int comm_local_rank(void); /* rank among the ranks of this host */
int comm_local_size(void); /* ranks on this host */
int comm_nodes(void);      /* number of distinct hosts */
/* The MPI library the ranks started with, as it names itself to its first
 * ',' ("Open MPI v4.1.4"): 0 with buf set, or -1 when no MPI was loaded (one
 * rank alone). Both layers load MPI the same way: bench/mpi_load.c. */
int comm_mpi_library(char *buf, int len);

/* Start an in-place sum over ranks of buf[0 .. count) (device memory);
 * returns at once. At most COMM_MAX_PENDING started and not yet waited. */
#define COMM_MAX_PENDING 64
void comm_allreduce_start(float *buf, size_t count);
void comm_allreduce_wait_all(void);
/* Let started sums progress (MPI moves non-blocking collectives only inside
 * MPI calls); called after every layer of backward. May do nothing. */
void comm_poll(void);

/* The split ArcFace head's collectives (bench/head.c), on device memory, in
 * order with the backend's ops (the CPU: done when they return; CUDA:
 * queued on the compute stream). Every rank calls each with the same
 * count; with one rank they do nothing (reduce_scatter copies).
 *   allgather       buf holds comm_size() blocks of count; this rank's,
 *                   at comm_rank() * count, to every rank's buf
 *   allreduce_max/sum   buf[0 .. count) in place
 *   reduce_scatter  recv[0 .. count) = the sum over ranks of their send's
 *                   block comm_rank() (send holds comm_size() blocks) */
void comm_allgather(float *buf, size_t count);
void comm_allgather_i32(const int32_t *send, int32_t *recv, size_t count);
void comm_allreduce_max(float *buf, size_t count);
void comm_allreduce_sum(float *buf, size_t count);
void comm_reduce_scatter(const float *send, float *recv, size_t count);

/* Small host-side collectives. */
double comm_max(double v); /* max over ranks, result on every rank */
double comm_sum(double v); /* sum over ranks, result on every rank */
/* Every rank's v on rank 0: all[r] is rank r's (comm_size() entries; other
 * ranks' all is left alone). */
void comm_gather(double v, double *all);
/* Every rank's n floats of host memory (n may differ between ranks) on
 * rank 0, one after the other in rank order, into all (rank 0's, room for
 * the sum of the n; other ranks' all is left alone): --export of a split
 * classifier. */
void comm_gather_floats(const float *part, size_t n, float *all);
void comm_barrier(void);

/* Exit every rank (after a message has been printed by the caller); bench's
 * exit hook calls it when more than one rank runs. */
void comm_abort(int status);

#endif
