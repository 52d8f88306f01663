/*
 * cuda_check.h: the checks every CUDA, cuDNN, cuBLAS and NCCL call goes
 * through, and what backend_cuda.cu shares with comm_nccl.cu and the
 * integrator (stream, overflow flag, step timing, peak memory, loss scale).
 *
 * A failed call prints one line on stderr and exits 1:
 *   bench: cudnn error at bench/backend_cuda.cu:212: CUDNN_STATUS_BAD_PARAM
 */
#ifndef BENCH_CUDA_CHECK_H
#define BENCH_CUDA_CHECK_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Never returns; 'lib' is "cuda", "cudnn", "cublas" or "nccl". */
void bk_cuda_fail(const char *lib, const char *file, int line, const char *what)
    __attribute__((noreturn));

#define CUDA_CHECK(call)                                                                   \
	do {                                                                               \
		cudaError_t e_ = (call);                                                   \
		if (e_ != cudaSuccess)                                                     \
			bk_cuda_fail("cuda", __FILE__, __LINE__, cudaGetErrorString(e_));  \
	} while (0)

/* After a kernel launch: launch errors now, execution errors at the next sync. */
#define CUDA_LAUNCH_CHECK() CUDA_CHECK(cudaGetLastError())

#ifdef CUDNN_MAJOR
#define CUDNN_CHECK(call)                                                                  \
	do {                                                                               \
		cudnnStatus_t s_ = (call);                                                 \
		if (s_ != CUDNN_STATUS_SUCCESS)                                            \
			bk_cuda_fail("cudnn", __FILE__, __LINE__, cudnnGetErrorString(s_)); \
	} while (0)
#endif

#ifdef CUBLAS_VER_MAJOR
#define CUBLAS_CHECK(call)                                                                 \
	do {                                                                               \
		cublasStatus_t s_ = (call);                                                \
		if (s_ != CUBLAS_STATUS_SUCCESS)                                           \
			bk_cuda_fail("cublas", __FILE__, __LINE__, cublasGetStatusString(s_)); \
	} while (0)
#endif

#ifdef NCCL_MAJOR
#define NCCL_CHECK(call)                                                                   \
	do {                                                                               \
		ncclResult_t r_ = (call);                                                  \
		if (r_ != ncclSuccess)                                                     \
			bk_cuda_fail("nccl", __FILE__, __LINE__, ncclGetErrorString(r_));  \
	} while (0)
#endif

/* ---- shared with comm_nccl.cu ------------------------------------------ */

/* Number of CUDA devices; prints "bench: no CUDA device" and exits 1 when the
 * runtime reports an error or none. */
int bk_cuda_device_count(void);
/* The stream every op runs on (created by bk_init). */
cudaStream_t bk_cuda_stream(void);
/* amp: after gradients were summed over ranks, mark the step as overflowed
 * if any of buf[0 .. n) is not finite (queued on the compute stream). */
void bk_cuda_check_finite(const float *buf, size_t n);

/* ---- for the integrator (main.c), beyond backend.h ---------------------- */

/* --loss-scale N (amp only): static scale N > 0; 0 = dynamic (the default).
 * Call before bk_init. */
void bk_cuda_set_loss_scale(float scale);
/* Bytes cudnnFind may use for one convolution's workspace (0 = the default:
 * half of the free device memory at planning time, at most 2 GiB). */
void bk_cuda_set_workspace_limit(size_t bytes);
/* CUDA events around one training step: begin before the forward, end after
 * the update; end waits for the step and returns its seconds. */
void bk_cuda_step_begin(void);
double bk_cuda_step_end(void);
/* Peak device memory in use (MB, 2^20 bytes) seen so far, all of this
 * process's allocations including cuDNN, cuBLAS and NCCL. */
double bk_cuda_peak_mem_mb(void);
/* Loss scale in force and steps skipped for overflow (amp; 1 and 0
 * otherwise), the last step included: call after a step's update. */
float bk_cuda_loss_scale(void);
long bk_cuda_skipped_steps(void);

#ifdef __cplusplus
}
#endif

#endif
