/*
 * bench/mpi_check.h: MPI_CHECK(call), for every MPI call of bench's comm
 * layers (cpu/comm_mpi.c, cuda/comm_nccl.cu). A failed call prints
 * "bench: mpi error at FILE:LINE: <MPI's message>" and ends the whole job
 * with status 1: MPI_Abort, not the exit hook, because MPI itself may be
 * what is broken. MPI is mpi_load.h's (loaded before the first call).
 * Reads and writes nothing else.
 */
#ifndef BENCH_MPI_CHECK_H
#define BENCH_MPI_CHECK_H

#include <stdio.h>

#include "lib.h"
#include "mpi_load.h"

static inline void mpi_check(int err, const char *file, int line)
{
	if (err == MPI_SUCCESS)
		return;
	char msg[MPI_MAX_ERROR_STRING];
	int n = 0;
	MPI_Error_string(err, msg, &n);
	fprintf(stderr, "%s: mpi error at %s:%d: %s\n", progname, file, line, msg);
	MPI_Abort(MPI_COMM_WORLD, 1);
}

#define MPI_CHECK(call) mpi_check((call), __FILE__, __LINE__)

#endif
