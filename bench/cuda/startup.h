/*
 * bench/cuda/startup.h: what the CUDA backend decides and says at start-up
 * from plain data: this rank's local rank from the launcher's environment
 * (comm_nccl.cu), and the line that says how the batch norms run
 * (workspace.cu, from bn.cu's counts). Plain C (startup.c), tested on the
 * CPU (bin/test-gpu-host).
 */
#ifndef BENCH_CUDA_STARTUP_H
#define BENCH_CUDA_STARTUP_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * This rank's place on its node as the launcher tells it, before MPI starts
 * (the device must be chosen before a CUDA-aware MPI opens a context):
 * Open MPI's OMPI_COMM_WORLD_LOCAL_RANK, MPICH's MPI_LOCALRANKID, else
 * Slurm's SLURM_LOCALID when srun itself started this process (its
 * PMIX_RANK or PMI_RANK is SLURM_PROCID; mpirun inside an allocation
 * inherits Slurm's variables of the mpirun). -1: not known before MPI.
 * get is getenv, or the tests' table.
 */
int gpu_env_local_rank(const char *(*get)(const char *name));

/* How the batch norms of the model run (bn.cu counts them at plan time). */
struct gpu_bn_count {
	int fused;     /* cuDNN's fused form (the ReLU, and the add, in one call) */
	int stem;      /* with a ReLU, unfused: y not kept (the stem's bn1) */
	int refused;   /* with a ReLU, unfused: cuDNN refused the fused form */
	int unfusable; /* with a ReLU, unfused: the precision has no fused form */
	int plain;     /* no ReLU (the downsample branches') */
};

/* The start-up line, e.g. "batch norm: 48 fused, 1 unfused (stem), 4 plain". */
void gpu_bn_summary(const struct gpu_bn_count *c, const char *precision, char *buf, size_t n);

#ifdef __cplusplus
}
#endif

#endif
