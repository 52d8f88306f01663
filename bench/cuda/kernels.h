/*
 * bench/cuda/kernels.h: what the files of our own kernels share
 * (kernels.cu: layouts, casts, the ReLU steps, the overflow check; pool.cu:
 * max and average pooling; loss.cu: the classifier's bias, softmax
 * cross-entropy and the SGD update): the grid size, the element types and
 * their fp32 conversions, the dispatch on an activation's type and on the
 * vector width, the grid-stride loop and the divisors of index.h.
 */
#ifndef BENCH_CUDA_KERNELS_H
#define BENCH_CUDA_KERNELS_H

#include <cuda_fp16.h>
#include <cuda_bf16.h>

#include <math.h>

#include "elementwise.h"
#include "index.h"
#include "internal.h"

static inline unsigned blocks(size_t n)
{
	size_t b = (n + THREADS - 1) / THREADS;

	return (unsigned)(b < 65535 * 16 ? (b ? b : 1) : 65535 * 16);
}

/* ---- element types ---------------------------------------------------------- */

/* to_f: an element as fp32; from_f: fp32 to an element, rounded to nearest. */
template <typename T> __device__ __forceinline__ float to_f(T v);
template <> __device__ __forceinline__ float to_f<float>(float v)
{
	return v;
}
template <> __device__ __forceinline__ float to_f<__half>(__half v)
{
	return __half2float(v);
}
template <> __device__ __forceinline__ float to_f<__nv_bfloat16>(__nv_bfloat16 v)
{
	return __bfloat162float(v);
}

template <typename T> __device__ __forceinline__ T from_f(float v);
template <> __device__ __forceinline__ float from_f<float>(float v)
{
	return v;
}
template <> __device__ __forceinline__ __half from_f<__half>(float v)
{
	return __float2half_rn(v);
}
template <> __device__ __forceinline__ __nv_bfloat16 from_f<__nv_bfloat16>(float v)
{
	return __float2bfloat16_rn(v);
}

/* Run f<T>(args) for the element type of BK_ACT tensors. */
#define ACT_DISPATCH(dt, call)                        \
	do {                                          \
		if ((dt) == CUDNN_DATA_FLOAT) {       \
			typedef float T;              \
			call;                         \
		} else if ((dt) == CUDNN_DATA_HALF) { \
			typedef __half T;             \
			call;                         \
		} else {                              \
			typedef __nv_bfloat16 T;      \
			call;                         \
		}                                     \
	} while (0)

/* Indices are 32-bit (index.h): no tensor reaches 2^31 elements. */
#define GRID_STRIDE(i, n)                                                           \
	for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < (uint32_t)(n); \
	     i += gridDim.x * blockDim.x)

/* V elements moved as one 16-byte (or smaller, V = 1) load or store. */
template <typename T, int V> struct alignas(sizeof(T) * V) vec {
	T v[V];
};

/* Run call with V = the vector width (16 bytes of T) when ok, else V = 1. */
#define VEC_DISPATCH(ok, call)                       \
	do {                                         \
		if ((ok) && sizeof(T) == 2) {        \
			enum { V = 8 };              \
			call;                        \
		} else if ((ok) && sizeof(T) == 4) { \
			enum { V = 4 };              \
			call;                        \
		} else {                             \
			enum { V = 1 };              \
			call;                        \
		}                                    \
	} while (0)

/* A divisor for the kernels (0, a dimension the path does not use: 1). */
static inline gpu_div div_of(size_t d)
{
	return gpu_div_make(d ? (uint32_t)d : 1u);
}

#endif
