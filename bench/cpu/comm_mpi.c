/*
 * bench/cpu/comm_mpi.c: comm.h over MPI. Started by a launcher (mpirun sets
 * OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK), it loads MPI (mpi_load.h)
 * and runs it; started alone, it is rank 0 of 1 and never touches MPI, so
 * one process needs neither a launcher nor an MPI library.
 * Gradient sums are MPI_Iallreduce in place; MPI_Testall at each start lets
 * earlier buckets progress while backward computes the next. The split
 * ArcFace head's collectives are blocking ones.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "lib.h"
#include "mpi_check.h"
#include "mpi_load.h"

static int on, rank, size = 1, local_rank, local_size = 1, nodes = 1;
static MPI_Request reqs[COMM_MAX_PENDING];
static int npending;

void comm_init(int *argc, char ***argv)
{
	if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_SIZE") && !getenv("PMIX_RANK"))
		return;
	mpi_load();
	MPI_CHECK(MPI_Init(argc, argv));
	on = 1;
	MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
	MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
	MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
	MPI_Comm local;
	MPI_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL,
				      &local));
	MPI_CHECK(MPI_Comm_rank(local, &local_rank));
	MPI_CHECK(MPI_Comm_size(local, &local_size));
	MPI_CHECK(MPI_Comm_free(&local));
	int leader = local_rank == 0;
	MPI_CHECK(MPI_Allreduce(&leader, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
}

void comm_finalize(void)
{
	if (on)
		MPI_CHECK(MPI_Finalize());
	on = 0;
}

int comm_rank(void)
{
	return rank;
}
int comm_size(void)
{
	return size;
}
int comm_local_rank(void)
{
	return local_rank;
}
int comm_local_size(void)
{
	return local_size;
}
int comm_nodes(void)
{
	return nodes;
}

void comm_allreduce_start(float *buf, size_t count)
{
	if (!on || size == 1)
		return;
	if (npending == COMM_MAX_PENDING || count > INT_MAX) {
		die("%s:%d: allreduce bucket plan too fine or too large", __FILE__, __LINE__);
	}
	MPI_CHECK(MPI_Iallreduce(MPI_IN_PLACE, buf, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD,
				 &reqs[npending++]));
	comm_poll();
}

void comm_poll(void)
{
	int done;
	if (npending)
		MPI_CHECK(MPI_Testall(npending, reqs, &done, MPI_STATUSES_IGNORE));
}

void comm_allreduce_wait_all(void)
{
	if (npending)
		MPI_CHECK(MPI_Waitall(npending, reqs, MPI_STATUSES_IGNORE));
	npending = 0;
}

/* The head's collectives: blocking, as the head waits for each. */

static int count_int(size_t count)
{
	if (count > INT_MAX)
		die("%s:%d: a message of %zu elements, more than MPI's int counts", __FILE__,
		    __LINE__, count);
	return (int)count;
}

/* in place: the send type is ignored */
void comm_allgather(float *buf, size_t count)
{
	if (on && size > 1)
		MPI_CHECK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_FLOAT, buf, count_int(count),
					MPI_FLOAT, MPI_COMM_WORLD));
}

/* MPI_INT for int32_t: one handle fewer to load (mpi_load.h) */
_Static_assert(sizeof(int) == sizeof(int32_t), "MPI_INT carries int32_t");

void comm_allgather_i32(const int32_t *send, int32_t *recv, size_t count)
{
	if (on && size > 1)
		MPI_CHECK(MPI_Allgather(send, count_int(count), MPI_INT, recv, count_int(count),
					MPI_INT, MPI_COMM_WORLD));
	else if (recv != send)
		memcpy(recv, send, count * sizeof *recv);
}

static void allreduce_in_place(float *buf, size_t count, MPI_Op op)
{
	if (on && size > 1)
		MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, buf, count_int(count), MPI_FLOAT, op,
					MPI_COMM_WORLD));
}

void comm_allreduce_max(float *buf, size_t count)
{
	allreduce_in_place(buf, count, MPI_MAX);
}

void comm_allreduce_sum(float *buf, size_t count)
{
	allreduce_in_place(buf, count, MPI_SUM);
}

void comm_reduce_scatter(const float *send, float *recv, size_t count)
{
	if (on && size > 1)
		MPI_CHECK(MPI_Reduce_scatter_block(send, recv, count_int(count), MPI_FLOAT, MPI_SUM,
						   MPI_COMM_WORLD));
	else if (recv != send)
		memcpy(recv, send, count * sizeof *recv);
}

double comm_max(double v)
{
	double r = v;
	if (on && size > 1)
		MPI_CHECK(MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
	return r;
}

double comm_sum(double v)
{
	double r = v;
	if (on && size > 1)
		MPI_CHECK(MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
	return r;
}

void comm_gather(double v, double *all)
{
	if (on && size > 1)
		MPI_CHECK(MPI_Gather(&v, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
	else
		all[0] = v;
}

void comm_gather_floats(const float *part, size_t n, float *all)
{
	if (!on || size == 1) {
		memcpy(all, part, n * sizeof *all);
		return;
	}
	int mine = count_int(n), *counts = NULL, *offs = NULL;
	if (rank == 0) {
		counts = xmalloc((size_t)size * sizeof *counts);
		offs = xmalloc((size_t)size * sizeof *offs);
	}
	MPI_CHECK(MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD));
	if (rank == 0) {
		size_t total = 0;
		for (int r = 0; r < size; r++) {
			offs[r] = count_int(total);
			total += (size_t)counts[r];
		}
		count_int(total);
	}
	MPI_CHECK(MPI_Gatherv(part, mine, MPI_FLOAT, all, counts, offs, MPI_FLOAT, 0,
			      MPI_COMM_WORLD));
	free(counts);
	free(offs);
}

void comm_barrier(void)
{
	if (on && size > 1)
		MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
}

void comm_abort(int status)
{
	fflush(stdout);
	if (on && size > 1)
		MPI_Abort(MPI_COMM_WORLD, status);
	exit(status);
}
