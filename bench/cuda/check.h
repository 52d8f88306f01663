/*
 * bench/cuda/check.h: the checks every CUDA, cuDNN, cuBLAS and NCCL call goes
 * through. A failed call dies through lib's die, one line on stderr naming
 * the library, the file and the line, exit 1:
 *
 *   bench: cudnn error at bench/cuda/conv.cu:212: CUDNN_STATUS_BAD_PARAM
 *
 * The trainer's exit hook then ends every rank, not only this one. A check
 * exists for each library whose header was included before this one.
 *
 * While --graph captures a step (graph.cu sets check_capturing), a failing
 * call does not die: the first failure is kept in check_capture_why, the
 * capture is then given up and the step run uncaptured.
 */
#ifndef BENCH_CUDA_CHECK_H
#define BENCH_CUDA_CHECK_H

#include <cuda_runtime_api.h>
#include <stdio.h>

#include "lib.h"

__attribute__((weak)) int check_capturing;
__attribute__((weak)) char check_capture_why[256];

static inline void check_capture_fail(const char *lib, const char *file, int line, const char *what)
{
	if (!check_capture_why[0])
		snprintf(check_capture_why, sizeof check_capture_why, "%s error at %s:%d: %s", lib,
			 file, line, what);
}

#define CUDA_FAIL(lib, what)                                                         \
	do {                                                                         \
		if (check_capturing)                                                 \
			check_capture_fail(lib, __FILE__, __LINE__, what);           \
		else                                                                 \
			die("%s error at %s:%d: %s", lib, __FILE__, __LINE__, what); \
	} while (0)

#define CUDA_CHECK(call)                                           \
	do {                                                       \
		cudaError_t e_ = (call);                           \
		if (e_ != cudaSuccess)                             \
			CUDA_FAIL("cuda", cudaGetErrorString(e_)); \
	} while (0)

/* After a kernel launch: launch errors now, execution errors at the next sync. */
#define CUDA_LAUNCH_CHECK() CUDA_CHECK(cudaGetLastError())

#ifdef CUDNN_MAJOR
#define CUDNN_CHECK(call)                                            \
	do {                                                         \
		cudnnStatus_t s_ = (call);                           \
		if (s_ != CUDNN_STATUS_SUCCESS)                      \
			CUDA_FAIL("cudnn", cudnnGetErrorString(s_)); \
	} while (0)
#endif

#ifdef CUBLAS_VER_MAJOR
#define CUBLAS_CHECK(call)                                              \
	do {                                                            \
		cublasStatus_t s_ = (call);                             \
		if (s_ != CUBLAS_STATUS_SUCCESS)                        \
			CUDA_FAIL("cublas", cublasGetStatusString(s_)); \
	} while (0)
#endif

#ifdef NCCL_MAJOR
#define NCCL_CHECK(call)                                           \
	do {                                                       \
		ncclResult_t r_ = (call);                          \
		if (r_ != ncclSuccess)                             \
			CUDA_FAIL("nccl", ncclGetErrorString(r_)); \
	} while (0)
#endif

#endif
