/*
 * bench/cuda/hd.h: GPU_HD marks the inline functions of the CUDA backend's
 * plain C headers (layout.h, index.h, softmax.h) that both its kernels and
 * the CPU tests (tests/drivers/gpu-host.c) run: __host__ __device__ under
 * nvcc, nothing under a C compiler.
 */
#ifndef BENCH_CUDA_HD_H
#define BENCH_CUDA_HD_H

#ifdef __CUDACC__
#define GPU_HD __host__ __device__
#else
#define GPU_HD
#endif

#endif
