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

/* Small host-side collectives. */
double comm_max(double v); /* max over ranks, result on every rank */
double comm_sum(double v); /* sum over ranks, result on every rank */
/* Every rank's v on rank 0: all[r] is rank r's (comm_size() entries; other
 * ranks' all is left alone). */
void comm_gather(double v, double *all);
void comm_barrier(void);

/* Exit every rank (after a message has been printed by the caller); bench's
 * exit hook calls it when more than one rank runs. */
void comm_abort(int status);

#endif
