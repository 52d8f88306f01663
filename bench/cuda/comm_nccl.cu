/*
 * bench/cuda/comm_nccl.cu: comm.h for the CUDA build. MPI starts the ranks
 * and carries the host-side collectives; gradient sums run on NCCL.
 *
 * Started by a launcher (OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMI_RANK or
 * PMIX_RANK set) it loads MPI (mpi_load.h) and runs it; started alone it is
 * rank 0 of 1 and touches neither MPI nor NCCL, and needs no MPI library. The device of a rank is its local rank modulo the
 * devices, chosen before MPI_Init when the launcher says the local rank
 * (startup.h's gpu_env_local_rank: a CUDA-aware MPI then opens its context on
 * that GPU, not on GPU 0 in every rank), else after it from an MPI
 * shared-memory split.
 *
 * NCCL's unique id goes from rank 0 to all by MPI_Bcast. Buckets run on a
 * stream of their own: comm_allreduce_start records an event on the compute
 * stream and makes the NCCL stream wait on it, so a bucket starts on the GPU
 * as soon as the backward kernels before it are done, and the host never
 * waits; comm_allreduce_wait_all makes the compute stream wait for the NCCL
 * stream (the update is queued behind the sums). The NCCL stream has the
 * default priority, as PyTorch's process group: at the highest, its
 * allreduces slow down the batch norm kernels they overlap (cuDNN's
 * persistent NHWC ones, several times over: NVIDIA/nccl#338);
 * --nccl-high-priority asks for the highest.
 *
 * The split ArcFace head's collectives (allgather, allreduce of max and
 * sum, reduce-scatter) run on the compute stream, between the head's
 * kernels.
 *
 * Every wait of the host for the GPU is bounded while NCCL runs
 * (comm_wait, watch.h): it polls ncclCommGetAsyncError, and on an error or
 * after --nccl-timeout seconds aborts the communicator and ends the job
 * with one line.
 */
#include <cuda_runtime.h>
#ifndef BENCH_NO_NCCL
#include <nccl.h>
#endif
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "mpi_check.h"
#include "mpi_load.h"

static struct {
	int on; /* MPI initialised by us */
	int rank, size, local_rank, local_size, nodes;
#ifndef BENCH_NO_NCCL
	ncclComm_t nccl;
#endif
	int nccl_on;
	int device_early;     /* the device was set before MPI_Init */
	cudaStream_t stream;  /* NCCL's */
	cudaEvent_t produced; /* compute stream -> NCCL stream */
	cudaEvent_t reduced;  /* NCCL stream -> compute stream */
	float *buf[COMM_MAX_PENDING];
	size_t count[COMM_MAX_PENDING];
	int npending;
} C; /* alone (C.on 0): rank 0 of 1 on 1 node */

static const char *env_get(const char *name)
{
	return getenv(name);
}

/* A decimal integer from the environment in [0, INT_MAX], else -1. */
static int env_int(const char *name)
{
	const char *s = getenv(name);
	long v;

	return s && parse_long(s, 0, INT_MAX, &v) == 0 ? (int)v : -1;
}

extern "C" void comm_init(int *argc, char ***argv)
{
	MPI_Comm local;
	int split_rank, leader, l;

	if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_SIZE") && !getenv("PMI_RANK") &&
	    !getenv("PMIX_RANK"))
		return;
	/* The ranks share one stderr: a message goes out as one whole line,
	 * not in the pieces lib's die prints it in, interleaved with another
	 * rank's (every rank finds "no CUDA device", or no MPI, at the same
	 * moment). */
	setvbuf(stderr, NULL, _IOLBF, 0);
	mpi_load();
	/* Before MPI starts: without a device here, bk_init says so later on
	 * every rank, through MPI_Abort. */
	int early = gpu_env_local_rank(env_get), nseen = 0;
	if (early >= 0 && cudaGetDeviceCount(&nseen) == cudaSuccess && nseen > 0) {
		CUDA_CHECK(cudaSetDevice(early % nseen));
		C.device_early = 1;
	}
	(void)cudaGetLastError();
	MPI_CHECK(MPI_Init(argc, argv));
	C.on = 1;
	MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
	MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &C.rank));
	MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &C.size));
	MPI_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, C.rank, MPI_INFO_NULL,
				      &local));
	MPI_CHECK(MPI_Comm_rank(local, &split_rank));
	MPI_CHECK(MPI_Comm_size(local, &C.local_size));
	MPI_CHECK(MPI_Comm_free(&local));
	C.local_rank = split_rank;
	if ((l = env_int("OMPI_COMM_WORLD_LOCAL_RANK")) >= 0)
		C.local_rank = l;
	else if ((l = env_int("SLURM_LOCALID")) >= 0 && env_int("SLURM_PROCID") == C.rank)
		C.local_rank = l;
	leader = split_rank == 0;
	MPI_CHECK(MPI_Allreduce(&leader, &C.nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
	if (C.size == 1)
		return;
#ifdef BENCH_NO_NCCL
	/* said once, by rank 0; every rank ends */
	if (C.rank == 0)
		die("%d ranks, but this bench-cuda was built without NCCL", C.size);
	comm_abort(1);
#else
	/* The device must be current before NCCL binds the communicator to
	 * it; bk_init picks the same one from the same local rank. */
	int ndev = cuda_device_count();
	ncclUniqueId id;

	if (!C.device_early)
		CUDA_CHECK(cudaSetDevice(C.local_rank % ndev));
	if (C.rank == 0)
		NCCL_CHECK(ncclGetUniqueId(&id));
	MPI_CHECK(MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD));
	NCCL_CHECK(ncclCommInitRank(&C.nccl, C.size, id, C.rank));
	C.nccl_on = 1;
#endif
}

void comm_streams_init(void)
{
	int least, greatest;

	if (!C.nccl_on || C.stream)
		return;
	CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
	CUDA_CHECK(cudaStreamCreateWithPriority(&C.stream, cudaStreamNonBlocking,
						gpu.nccl_high ? greatest : least));
	CUDA_CHECK(cudaEventCreateWithFlags(&C.produced, cudaEventDisableTiming));
	CUDA_CHECK(cudaEventCreateWithFlags(&C.reduced, cudaEventDisableTiming));
}

int comm_active(void)
{
	return C.nccl_on;
}

/* ---- the bounded wait: watch.h's machine on CUDA and NCCL ---- */

static int ev_done(void *ctx)
{
	cudaError_t e = cudaEventQuery(*(cudaEvent_t *)ctx);

	if (e == cudaErrorNotReady)
		return 0;
	CUDA_CHECK(e);
	return 1;
}

static int nccl_error(void *ctx, char *why, size_t n)
{
	(void)ctx;
#ifndef BENCH_NO_NCCL
	ncclResult_t r = ncclSuccess;

	NCCL_CHECK(ncclCommGetAsyncError(C.nccl, &r));
	if (r != ncclSuccess && r != ncclInProgress) {
		snprintf(why, n, "%s (%s)", ncclGetErrorString(r), ncclGetLastError(C.nccl));
		return 1;
	}
#else
	(void)why;
	(void)n;
#endif
	return 0;
}

static void nccl_abort(void *ctx)
{
	(void)ctx;
#ifndef BENCH_NO_NCCL
	(void)ncclCommAbort(C.nccl); /* the job ends next: its status changes nothing */
#endif
	C.nccl_on = 0;
}

static double mono_now(void *ctx)
{
	struct timespec t;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void mono_nap(void *ctx, double s)
{
	struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};

	(void)ctx;
	nanosleep(&t, NULL);
}

void comm_wait(cudaEvent_t e, const char *what)
{
	static const struct watch_ops ops = {ev_done, nccl_error, nccl_abort, mono_now, mono_nap};
	char why[512];

	if (watch_wait(&ops, &e, what, gpu.nccl_timeout, why, sizeof why) != WATCH_DONE)
		die("rank %d: %s", C.rank, why);
}

extern "C" void comm_finalize(void)
{
#ifndef BENCH_NO_NCCL
	if (C.stream)
		CUDA_CHECK(cudaStreamSynchronize(C.stream));
	if (C.nccl_on) {
		NCCL_CHECK(ncclCommDestroy(C.nccl));
		C.nccl_on = 0;
	}
	if (C.stream) {
		CUDA_CHECK(cudaEventDestroy(C.produced));
		CUDA_CHECK(cudaEventDestroy(C.reduced));
		CUDA_CHECK(cudaStreamDestroy(C.stream));
		C.stream = NULL;
	}
#endif
	if (C.on)
		MPI_CHECK(MPI_Finalize());
	C.on = 0;
}

extern "C" int comm_rank(void)
{
	return C.rank;
}

extern "C" int comm_size(void)
{
	return C.on ? C.size : 1;
}

extern "C" int comm_local_rank(void)
{
	return C.local_rank;
}

extern "C" int comm_local_size(void)
{
	return C.on ? C.local_size : 1;
}

extern "C" int comm_nodes(void)
{
	return C.on ? C.nodes : 1;
}

extern "C" void comm_allreduce_start(float *buf, size_t count)
{
	if (!C.nccl_on || count == 0)
		return;
	if (C.npending == COMM_MAX_PENDING)
		die("%s:%d: more than %d allreduce buckets pending", __FILE__, __LINE__,
		    COMM_MAX_PENDING);
#ifndef BENCH_NO_NCCL
	CUDA_CHECK(cudaEventRecord(C.produced, gpu.stream));
	CUDA_CHECK(cudaStreamWaitEvent(C.stream, C.produced, 0));
	NCCL_CHECK(ncclAllReduce(buf, buf, count, ncclFloat, ncclSum, C.nccl, C.stream));
#endif
	C.buf[C.npending] = buf;
	C.count[C.npending++] = count;
}

extern "C" void comm_allreduce_wait_all(void)
{
	if (!C.nccl_on || C.npending == 0)
		return;
	CUDA_CHECK(cudaEventRecord(C.reduced, C.stream));
	CUDA_CHECK(cudaStreamWaitEvent(gpu.stream, C.reduced, 0));
	C.npending = 0; /* the update checks the summed gradients (bk_sgd_run) */
}

/* ---- the split head's collectives --------------------------------------------
 * On the compute stream, in order with the head's kernels: each waits for
 * what it reads, and the kernels after it for what it writes. They never
 * run beside the gradient buckets (the NCCL stream): the head's forward
 * runs after the last update, which waited for the buckets, and its
 * reduce-scatter before backward starts the first bucket. */

#ifndef BENCH_NO_NCCL
static void nccl_count(size_t count)
{
	if (count == 0)
		die("%s:%d: an empty collective", __FILE__, __LINE__);
}
#endif

extern "C" void comm_allgather(float *buf, size_t count)
{
	if (!C.nccl_on)
		return;
#ifndef BENCH_NO_NCCL
	nccl_count(count);
	NCCL_CHECK(ncclAllGather(buf + (size_t)C.rank * count, buf, count, ncclFloat, C.nccl,
				 gpu.stream));
#else
	(void)buf;
#endif
}

/* One rank: a collective whose output is its input, copied on the stream. */
static void copy_alone(void *recv, const void *send, size_t bytes)
{
	if (recv != send)
		CUDA_CHECK(
			cudaMemcpyAsync(recv, send, bytes, cudaMemcpyDeviceToDevice, gpu.stream));
}

extern "C" void comm_allgather_i32(const int32_t *send, int32_t *recv, size_t count)
{
	if (!C.nccl_on) {
		copy_alone(recv, send, count * sizeof *recv);
		return;
	}
#ifndef BENCH_NO_NCCL
	nccl_count(count);
	NCCL_CHECK(ncclAllGather(send, recv, count, ncclInt32, C.nccl, gpu.stream));
#endif
}

static void head_allreduce(float *buf, size_t count, int max)
{
	if (!C.nccl_on)
		return;
#ifndef BENCH_NO_NCCL
	nccl_count(count);
	NCCL_CHECK(ncclAllReduce(buf, buf, count, ncclFloat, max ? ncclMax : ncclSum, C.nccl,
				 gpu.stream));
#else
	(void)buf;
	(void)max;
#endif
}

extern "C" void comm_allreduce_max(float *buf, size_t count)
{
	head_allreduce(buf, count, 1);
}

extern "C" void comm_allreduce_sum(float *buf, size_t count)
{
	head_allreduce(buf, count, 0);
}

extern "C" void comm_reduce_scatter(const float *send, float *recv, size_t count)
{
	if (!C.nccl_on) {
		copy_alone(recv, send, count * sizeof *recv);
		return;
	}
#ifndef BENCH_NO_NCCL
	nccl_count(count);
	NCCL_CHECK(ncclReduceScatter(send, recv, count, ncclFloat, ncclSum, C.nccl, gpu.stream));
#endif
}

/* NCCL progresses on its own stream: nothing to drive from the host. */
extern "C" void comm_poll(void)
{
}

extern "C" double comm_max(double v)
{
	double r = v;

	if (C.on && C.size > 1)
		MPI_CHECK(MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
	return r;
}

extern "C" double comm_sum(double v)
{
	double r = v;

	if (C.on && C.size > 1)
		MPI_CHECK(MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
	return r;
}

extern "C" void comm_gather(double v, double *all)
{
	if (C.on && C.size > 1)
		MPI_CHECK(MPI_Gather(&v, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
	else
		all[0] = v;
}

/* Host memory, through MPI: --export of a split classifier. */
extern "C" void comm_gather_floats(const float *part, size_t n, float *all)
{
	if (!C.on || C.size == 1) {
		memcpy(all, part, n * sizeof *all);
		return;
	}
	if (n > INT_MAX)
		die("%s:%d: %zu floats to gather, more than MPI's int counts", __FILE__, __LINE__,
		    n);
	int mine = (int)n, *counts = NULL, *offs = NULL;
	if (C.rank == 0) {
		counts = (int *)xmalloc((size_t)C.size * sizeof *counts);
		offs = (int *)xmalloc((size_t)C.size * sizeof *offs);
	}
	MPI_CHECK(MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD));
	if (C.rank == 0) {
		size_t total = 0;
		for (int r = 0; r < C.size; r++) {
			if (total > INT_MAX)
				die("%s:%d: more floats to gather than MPI's int counts", __FILE__,
				    __LINE__);
			offs[r] = (int)total;
			total += (size_t)counts[r];
		}
	}
	MPI_CHECK(MPI_Gatherv(part, mine, MPI_FLOAT, all, counts, offs, MPI_FLOAT, 0,
			      MPI_COMM_WORLD));
	free(counts);
	free(offs);
}

extern "C" void comm_barrier(void)
{
	if (C.on && C.size > 1)
		MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
}

extern "C" void comm_abort(int status)
{
	fflush(stdout);
	fflush(stderr);
	if (C.on && C.size > 1)
		MPI_Abort(MPI_COMM_WORLD, status);
	exit(status);
}
